#!/bin/bash
# Benchmark driver (in the guest, from the pre-trigger hook): the whole provisioning step,
#   A  rdma-provision apply (/etc/bench/rdma-provision.conf)
#   B  manual-procedure.sh  (the guides' commands, /etc/bench/manual.conf)
# and the same two with the module set loaded beforehand (untimed), as when udev has loaded
# it already: A_loaded, B_loaded (the cost of the step beside the kernel's module loading);
# Right after A_loaded (nothing undone) A runs once more, finding everything in place:
# A_again, the tool's own fixed cost (start, discovery, plan, checks).
# Alternating A B A_loaded A_again B_loaded ..., each run from the same state: modules of the set unloaded, the
# NIC under its kernel name, down, without address, no Soft-RoCE device, configfs not
# mounted. Both do the same work: load the module set, name the NIC by its MAC address,
# bring it up with its address, create the Soft-RoCE device on it, set RoCE v2 and the ToS
# for its port, wait for the port to be ACTIVE. Each run is checked afterwards (untimed).
# Prints "BENCH: <method> round <i> wall <s> cpu <s>" per run: wall clock, and user + system
# time of the whole process tree (bash's "times" for the reaped children of this shell).
# Before each run udev has handled every event (udevadm settle, untimed).
. /etc/bench/manual.conf  # MODULES NIC_MAC NIC_NAME ADDRESS RXE ROCE_MODE TOS
. /usr/lib/bench/bench-common.sh
ROUNDS=${BENCH_ROUNDS:-5}
CM=/sys/kernel/config/rdma_cm
FAIL=0

nic_by_mac() {
    local d
    for d in /sys/class/net/*; do
        [[ $(< "$d/address") == "$NIC_MAC" ]] && { echo "${d##*/}"; return 0; }
    done
    return 1
}

# The NIC: virtio_net is loaded here (no coldplug before pre-trigger); 10 s at most.
modprobe virtio_pci 2> /dev/null
modprobe virtio_net || { echo "BENCH-ERROR: modprobe virtio_net"; exit 1; }
for ((i = 0; i < 100; i++)); do KNAME=$(nic_by_mac) && break; sleep 0.1; done
[[ -n ${KNAME:-} ]] || { echo "BENCH-ERROR: no NIC with address $NIC_MAC"; exit 1; }
# The crc32 shash rdma_rxe asks the kernel for: loaded once, so neither method pays for it.
modprobe -q crypto-crc32 || true
loaded_names > /run/bench-baseline
echo "BENCH-INFO: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPU(s), NIC $KNAME ($NIC_MAC)"
echo "BENCH-INFO: modules: $MODULES; rounds $ROUNDS, order A B"
for m in $MODULES; do
    grep -qx "${m//-/_}" /run/bench-baseline && { echo "BENCH-ERROR: $m is loaded before the benchmark"; FAIL=1; }
done

# user+sys of the reaped children, in seconds, from the second line of "times"
children_cpu() {
    awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%.3f", t }' "$1"
}

check_done() {  # the wanted state, after a run
    local m bad= mode tos
    for m in $MODULES; do grep -q "^${m//-/_} " /proc/modules || bad+=" module $m not loaded;"; done
    [[ -d /sys/class/net/$NIC_NAME ]] || bad+=" no $NIC_NAME;"
    [[ $(cat "/sys/class/net/$NIC_NAME/operstate" 2> /dev/null) == up ]] || bad+=" $NIC_NAME not up;"
    ip -o addr show dev "$NIC_NAME" 2> /dev/null | grep -q " ${ADDRESS} " || bad+=" $NIC_NAME lacks $ADDRESS;"
    grep -q ACTIVE "/sys/class/infiniband/$RXE/ports/1/state" 2> /dev/null || bad+=" $RXE/1 not ACTIVE;"
    if grep -q ' /sys/kernel/config configfs ' /proc/mounts && mkdir -p "$CM/$RXE"; then
        mode=$(cat "$CM/$RXE/ports/1/default_roce_mode") tos=$(cat "$CM/$RXE/ports/1/default_roce_tos")
        [[ $mode == "$ROCE_MODE" ]] || bad+=" default_roce_mode is '$mode';"
        [[ $tos == "$TOS" ]] || bad+=" default_roce_tos is '$tos';"
        rmdir "$CM/$RXE"
    else
        bad+=" configfs rdma_cm/$RXE not available;"
    fi
    [[ -z $bad ]] && return 0
    echo "BENCH-ERROR: $1 round $2:$bad"
    return 1
}

undo() {  # back to the starting state
    [[ -d $CM/$RXE ]] && rmdir "$CM/$RXE"
    [[ -d /sys/class/infiniband/$RXE ]] && rdma link delete "$RXE"
    if [[ -d /sys/class/net/$NIC_NAME ]]; then
        ip link set dev "$NIC_NAME" down
        ip addr flush dev "$NIC_NAME"
        ip link set dev "$NIC_NAME" name "$KNAME"
    fi
    grep -q ' /sys/kernel/config configfs ' /proc/mounts && umount /sys/kernel/config
    unload_all > /dev/null || return 1
    [[ -d /sys/class/net/$KNAME && ! -d /sys/class/infiniband/$RXE ]] &&
        [[ $(cat "/sys/class/net/$KNAME/operstate") == down ]] && return 0
    echo "BENCH-ERROR: the starting state could not be restored"
    return 1
}

run() {  # method round
    local w0 w1 rc=0 m
    if [[ $1 == *_loaded ]]; then
        for m in $MODULES; do modprobe "$m" || { echo "BENCH-ERROR: preloading $m"; FAIL=1; }; done
    fi
    # Start from a quiet system: the uevents of the undo or preload handled (untimed).
    udevadm settle --timeout=10 || echo "BENCH-DETAIL: $1 round $2: udevadm settle timed out"
    times > /run/bench-t0
    w0=$EPOCHREALTIME
    case ${1:0:1} in
        A) rdma-provision apply --config /etc/bench/rdma-provision.conf --cmdline-string '' \
            --log stderr > /run/bench-out 2>&1 || rc=$? ;;
        B) bash /usr/bin/manual-procedure.sh > /run/bench-out 2>&1 || rc=$? ;;
    esac
    w1=$EPOCHREALTIME
    times > /run/bench-t1
    if ((rc)); then
        echo "BENCH-ERROR: $1 round $2 exited with status $rc"
        sed "s/^/BENCH-DETAIL: $1 | /" /run/bench-out
        FAIL=1
    fi
    if [[ $2 == 1 ]]; then
        sed "s/^/BENCH-DETAIL: $1 round 1 | /" /run/bench-out
    elif [[ $1 == A* ]]; then
        echo "BENCH-DETAIL: $1 round $2 $(grep 'summary:' /run/bench-out)"
    fi
    check_done "$1" "$2" || FAIL=1
    echo "BENCH: $1 round $2 wall $(secs "$w0" "$w1") cpu $(awk -v a="$(children_cpu /run/bench-t0)" \
        -v b="$(children_cpu /run/bench-t1)" 'BEGIN { printf "%.3f", b - a }')" | tee -a /run/bench-results
}

# Reference: what starting one process costs in this guest (5 runs each, the median).
ref() {  # label command...
    local label=$1 i w0 w1 rc all=()
    shift
    for ((i = 0; i < 5; i++)); do
        times > /run/bench-t0
        w0=$EPOCHREALTIME
        rc=0
        "$@" > /dev/null 2>&1 || rc=$?
        w1=$EPOCHREALTIME
        times > /run/bench-t1
        ((rc)) && { echo "BENCH-ERROR: reference '$label' exited with status $rc"; FAIL=1; }
        all+=("$(secs "$w0" "$w1") $(awk -v a="$(children_cpu /run/bench-t0)" -v b="$(children_cpu /run/bench-t1)" 'BEGIN { printf "%.3f", b - a }')")
    done
    printf '%s\n' "${all[@]}" | sort -n | awk -v l="$label" '
        { w[NR] = $1; c[NR] = $2 }
        END { printf "BENCH-REF: %-40s wall %s s (%s..%s), cpu %s s (median of 5)\n", l, w[3], w[1], w[5], c[3] }'
}
ref "cat /dev/null (a dynamic binary)" cat /dev/null
ref "ip -V" ip -V
ref "rdma-provision --version (static)" rdma-provision --version
ref "ibv_devinfo -l" ibv_devinfo -l

: > /run/bench-results
for ((r = 1; r <= ROUNDS; r++)); do
    run A "$r" && undo && run B "$r" && undo &&
        run A_loaded "$r" && run A_again "$r" && undo && run B_loaded "$r" && undo || { FAIL=1; break; }
done
awk -f /usr/lib/bench/provision-table.awk /run/bench-results || FAIL=1

# Where A's fixed cost goes, with everything in place (untimed in the table): the whole
# run, discovery + inputs + plan, discovery alone; and the syscalls of the whole run
# (strace -c, when the image has strace; its timings are not used: under TCG strace's
# decoding of netlink messages costs more than the calls).
if ((FAIL == 0)); then
    for m in $MODULES; do modprobe "$m"; done
    A_CMD=(rdma-provision apply --config /etc/bench/rdma-provision.conf --cmdline-string '' --log stderr)
    "${A_CMD[@]}" > /dev/null 2>&1
    udevadm settle --timeout=10
    ref "apply, everything in place" "${A_CMD[@]}"
    ref "plan (discovery, inputs, plan)" rdma-provision plan --config /etc/bench/rdma-provision.conf --cmdline-string ''
    ref "status (discovery)" rdma-provision status
    ref "modprobe ib_core (loaded: a no-op)" modprobe ib_core
    ref "ip link show" ip link show
    ref "rdma link show" rdma link show
    ref "ibv_devinfo -d $RXE -i 1" ibv_devinfo -d "$RXE" -i 1
    ref "modprobe of the set, one by one (loaded)" bash -c 'for m in $1; do modprobe "$m"; done' - "$MODULES"
    ref "the same, 7 x modprobe ib_core" bash -c 'for m in 1 2 3 4 5 6 7; do modprobe ib_core; done'
    undo || FAIL=1
    # B step by step (modules loaded beforehand): each command's start time.
    for m in $MODULES; do modprobe "$m"; done
    udevadm settle --timeout=10
    # (bash does not take PS4 from the environment when run as root; the sourced script's
    # own commands are traced at depth 2: "++ <time> <command>")
    bash -c 'PS4="+ \$EPOCHREALTIME "; set -x; . /usr/bin/manual-procedure.sh' 2>&1 > /dev/null |
        awk '/^\+\+ [0-9]/ { if (t) printf "BENCH-STEPS: B %7.3f s  %s\n", $2 - t, cmd; t = $2; cmd = $0; sub(/^\+\+ [0-9.]+ /, "", cmd) }
             END { print "BENCH-STEPS: B (last step not timed) " cmd }'
    if command -v strace > /dev/null; then
        strace -f -c -o /run/bench-strace-c "${A_CMD[@]}" > /dev/null 2>&1
        sed 's/^/BENCH-PROFILE: /' /run/bench-strace-c
    fi
    undo || FAIL=1
fi
echo "BENCH-STATUS: $([[ $FAIL == 0 ]] && echo ok || echo errors)"
exit $FAIL
