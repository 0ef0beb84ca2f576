#!/bin/bash
# manual-procedure.sh (script B): the provisioning step done the way the configuration
# guides describe it, with the standard tools, one command per step:
#   modprobe each RDMA module; give the NIC its persistent name, bring it up with its
#   address (ip); create the Soft-RoCE device (rdma link add); set the RDMA-CM defaults
#   (mount configfs, mkdir, echo); poll ibv_devinfo until the port is PORT_ACTIVE.
# Arguments come from /etc/bench/manual.conf (written by the dracut module):
#   MODULES="..." NIC_MAC=.. NIC_NAME=.. ADDRESS=a.b.c.d/n RXE=rxe0 ROCE_MODE="RoCE v2" TOS=106
#   STEPS="modules name up address rxe roce wait" (the default: every step; the boots of
#   tests/bench/qemu_time_to_root.sh leave out what another part of their boot does)
# Exits non-zero on the first failing step, or when the port is not ACTIVE within 30 s.
set -eu
STEPS="modules name up address rxe roce wait"
. /etc/bench/manual.conf
step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

if step modules; then
    for m in $MODULES; do
        modprobe "$m"
    done
fi

# The NIC by its MAC address (what a udev rule would match), renamed and brought up.
if step name; then
    cur=
    for d in /sys/class/net/*; do
        [ "$(cat "$d/address")" = "$NIC_MAC" ] && cur=${d##*/}
    done
    [ -n "$cur" ] || { echo "manual: no NIC with address $NIC_MAC" >&2; exit 1; }
    [ "$cur" = "$NIC_NAME" ] || ip link set dev "$cur" name "$NIC_NAME"
fi
step up && ip link set dev "$NIC_NAME" up
step address && ip addr add "$ADDRESS" dev "$NIC_NAME"

step rxe && rdma link add "$RXE" type rxe netdev "$NIC_NAME"

if step roce; then
    grep -q ' /sys/kernel/config configfs ' /proc/mounts || mount -t configfs none /sys/kernel/config
    mkdir -p "/sys/kernel/config/rdma_cm/$RXE"
    echo "$ROCE_MODE" > "/sys/kernel/config/rdma_cm/$RXE/ports/1/default_roce_mode"
    echo "$TOS" > "/sys/kernel/config/rdma_cm/$RXE/ports/1/default_roce_tos"
fi

step wait || exit 0
tries=0
until ibv_devinfo -d "$RXE" -i 1 | grep -q PORT_ACTIVE; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || { echo "manual: $RXE port 1 not ACTIVE after 30 s" >&2; exit 1; }
    sleep 0.1
done
