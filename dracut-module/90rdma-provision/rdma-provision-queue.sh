#!/bin/sh
# rdma-provision-queue: run by udev (61-rdma-provision.rules) when a network interface or an
# RDMA device of real hardware appears; installed as /sbin/rdma-provision-queue. Queues one
# more "rdma-provision apply" in dracut's initqueue, so devices that appear late (an mlx4
# card re-registering after a port type change, slow firmware) are provisioned before
# dracut's ifup job for them runs.
PATH=/usr/sbin:/usr/bin:/sbin:/bin

# With systemd, rdma-provision-apply.service makes the first run; until it has taken its
# last look at the machine (apply --udev-settle marks /run/rdma-provision/settled just
# before it), the devices it will see need no extra run, and neither do those the mark
# lists (udev's ids of the devices that run saw: its RUN program, this one, runs after
# udev wrote the database file apply waited for). Checked before sourcing anything: udev
# settles only when this program has ended, and sourcing dracut-lib.sh costs tenths of a
# second per event under emulation (tests/bench/qemu_time_to_root.sh). The path is
# RP_RUN's (rdma-provision-lib.sh).
if [ -d /run/systemd/system ]; then
    [ -e /run/rdma-provision/settled ] || exit 0
    # udev gives its RUN programs the event's properties: IFINDEX for a net device
    # (net/core/net-sysfs.c netdev_uevent), DEVPATH ending in the RDMA device's name.
    case $SUBSYSTEM in
        net) _rp_id=n$IFINDEX ;;
        *) _rp_id=+$SUBSYSTEM:${DEVPATH##*/} ;;
    esac
    while read -r _rp_seen; do
        [ "$_rp_seen" = "$_rp_id" ] && exit 0
    done < /run/rdma-provision/settled
fi
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
. /lib/rdma-provision-lib.sh
rp_queue
exit 0
