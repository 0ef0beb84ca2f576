#!/bin/sh
# rdma-provision-boot: the entry point of 90rdma-provision's systemd units in the initramfs,
# installed as /sbin/rdma-provision-boot. "early" checks the inputs and writes the naming
# rules (before udevd), "apply" runs the binary once udev's coldplug has given it what it
# is asked about (before the network is configured), "handoff" runs just before
# switch-root. Exit status 1 means that rd.rdma.required asked to stop the boot: the
# unit's OnFailure= takes over.
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
        # Coldplug has been triggered and may still run: the binary looks at the machine
        # each time udev has handled another interface or device and goes on once what it
        # is asked about is there and named (or once udev has handled every event: what
        # is absent then is said), at most 60 s; no `udevadm settle` for the whole
        # machine first. It marks $RP_RUN/settled before its last look: a network or RDMA
        # device that udev adds after that gets its own initqueue run. It waits for the
        # ports of rd.rdma.wait itself, within rd.rdma.timeout.
        rp_apply "--udev-settle $RP_COLDPLUG_S" || exit 1
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
