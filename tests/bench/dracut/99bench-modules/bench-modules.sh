#!/bin/bash
# Benchmark driver (runs inside the guest, from the pre-trigger hook): loads the RDMA module
# set with three methods, alternating A B C A B C ..., unloading everything in between:
#   parallel    load_bench (rdma-provision's parallel libkmod loader), one process
#   sequential  one "modprobe <m>" per module, in the given order
#   modprobe-a  one "modprobe -a <all modules>"
# Prints "BENCH: <method> round <i> <seconds>" per run, then the table.
. /etc/bench-modules.conf
read -r -a MODS <<< "$BENCH_MODULES"
ROUNDS=${BENCH_ROUNDS:-5}
METHODS=(parallel sequential modprobe-a)
KVER=$(uname -r)
FAIL=0

. /usr/lib/bench/bench-common.sh

echo "BENCH-INFO: kernel $KVER, $(grep -c ^processor /proc/cpuinfo) CPU(s), ${#MODS[@]} modules: ${MODS[*]}"
echo "BENCH-INFO: rounds $ROUNDS, order ${METHODS[*]}"
loaded_names > /run/bench-baseline || { echo "BENCH-ERROR: cannot read /proc/modules"; exit 1; }
echo "BENCH-INFO: modules loaded before the first run: $(tr '\n' ' ' < /run/bench-baseline)"
for m in "${MODS[@]}"; do
    if grep -qx "${m//-/_}" /run/bench-baseline; then
        echo "BENCH-ERROR: $m is loaded before the benchmark (cannot be measured)"
        FAIL=1
    fi
done

check_loaded() {  # every module of the set is in /proc/modules
    local m missing=
    for m in "${MODS[@]}"; do
        grep -q "^${m//-/_} " /proc/modules || missing+=" $m"
    done
    [[ -z $missing ]] && return 0
    echo "BENCH-ERROR: not loaded after the run:$missing"
    return 1
}

run_method() {  # method round
    local t0 t1 rc=0 m
    case $1 in
        parallel)
            t0=$(mark)
            load_bench "${MODS[@]}" > /run/bench-lb.out 2>&1 || rc=$?
            t1=$(mark)
            echo "BENCH-DETAIL: parallel round $2 $(tail -n1 /run/bench-lb.out)"
            ((rc)) && sed 's/^/BENCH-DETAIL: load_bench | /' /run/bench-lb.out
            ;;
        sequential)
            t0=$(mark)
            for m in "${MODS[@]}"; do modprobe "$m" || rc=$?; done
            t1=$(mark)
            ;;
        modprobe-a)
            t0=$(mark)
            modprobe -a "${MODS[@]}" || rc=$?
            t1=$(mark)
            ;;
    esac
    ((rc)) && { echo "BENCH-ERROR: $1 round $2 exited with status $rc"; FAIL=1; }
    check_loaded || FAIL=1
    echo "BENCH: $1 round $2 $(secs "$t0" "$t1")" | tee -a /run/bench-results
    unload_all || FAIL=1
}

: > /run/bench-results
for ((r = 1; r <= ROUNDS; r++)); do
    for meth in "${METHODS[@]}"; do run_method "$meth" "$r"; done
done
awk -f /usr/lib/bench/bench-table.awk /run/bench-results || FAIL=1
echo "BENCH-STATUS: $([[ $FAIL == 0 ]] && echo ok || echo errors)"
exit $FAIL
