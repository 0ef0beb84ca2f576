#!/bin/sh
# rdma-provision-boot: the entry point of 90rdma-provision's systemd units in the initramfs,
# installed as /sbin/rdma-provision-boot. "early" checks the inputs and writes the naming
# rules (before udevd), "apply" runs the binary once udev has settled (before the network
# is configured), "handoff" runs just before switch-root. Exit status 1 means that
# rd.rdma.required asked to stop the boot: the unit's OnFailure= takes over.
export DRACUT_SYSTEMD=1
if [ "$1" = early ]; then
    type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
else
    # apply and handoff need only dracut-lib.sh's warn() and info(), which under systemd
    # are one line on stderr or stdout (the unit sends both to the journal and the
    # console: dracut-lib.sh's DRACUT_SYSTEMD branch); getcmdline and
    # getargbool only when the early step left no command line or state: the library is
    # sourced then. Sourcing it costs a third of a second per unit under emulation, on the
    # way to the root (tests/bench/qemu_time_to_root.sh).
    warn() { echo "Warning: $*" >&2; }
    info() { echo "$*"; }
    getcmdline() {
        unset -f getcmdline getargbool
        . /lib/dracut-lib.sh
        getcmdline "$@"
    }
    getargbool() {
        unset -f getcmdline getargbool
        . /lib/dracut-lib.sh
        getargbool "$@"
    }
fi
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
