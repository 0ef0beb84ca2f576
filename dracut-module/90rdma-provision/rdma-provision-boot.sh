#!/bin/sh
# rdma-provision-boot: the entry point of 90rdma-provision's systemd units in the initramfs,
# installed as /sbin/rdma-provision-boot. "early" checks the inputs and writes the naming
# rules (before udevd), "apply" runs the binary once udev has settled (before the network
# is configured), "handoff" runs just before switch-root. Exit status 1 means that
# rd.rdma.required asked to stop the boot: the unit's OnFailure= takes over.
export DRACUT_SYSTEMD=1
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
. /lib/rdma-provision-lib.sh
RP_CONTEXT=unit

case "$1" in
    early)
        rp_early || exit 1
        ;;
    apply)
        # Coldplug was triggered; wait (bounded) until udev has loaded the drivers and named
        # the interfaces, so the binary sees the devices it is asked about. It waits for
        # the ports of rd.rdma.wait itself, within rd.rdma.timeout.
        udevadm settle --timeout=60 > /dev/null 2>&1 \
            || warn "rdma-provision: udev did not settle within 60 s; applying anyway"
        # From here on, a network or RDMA device that udev adds gets its own initqueue run.
        mkdir -p "$RP_RUN"
        : > "$RP_RUN/settled"
        rp_apply || exit 1
        ;;
    handoff)
        rp_handoff || exit 1
        ;;
    *)
        echo "usage: rdma-provision-boot early|apply|handoff" >&2
        exit 2
        ;;
esac
exit 0
