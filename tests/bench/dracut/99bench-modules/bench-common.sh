# shellcheck shell=bash
# bench-common.sh: shell functions of the in-guest benchmark drivers (sourced by bash).
# loaded_names: the loaded modules, sorted. mark: the wall clock (no fork). secs A B: B - A.
# unload_all: removes everything loaded since /run/bench-baseline, leaves first (use
# count 0) with modprobe -r, i.e. in reverse dependency order, until nothing new is left or
# no progress is made; prints BENCH-ERROR and fails when something stays.
loaded_names() { cut -d' ' -f1 /proc/modules | sort; }
mark() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

unload_all() {
    local pass name refs _ removed left n
    n=$(loaded_names | grep -cvxF -f /run/bench-baseline)
    for ((pass = 0; pass < 20; pass++)); do
        removed=0 left=0
        while read -r name _ refs _; do
            grep -qx "$name" /run/bench-baseline && continue
            left=1
            if [[ $refs == 0 ]]; then
                modprobe -r "$name" 2> /dev/null && removed=1
            fi
        done < /proc/modules
        ((left)) || { echo "BENCH-DETAIL: unloaded $n modules (set + dependencies), none left"; return 0; }
        ((removed)) || break
    done
    left=$(loaded_names | grep -vxF -f /run/bench-baseline | tr '\n' ' ')
    [[ -z $left ]] && return 0
    echo "BENCH-ERROR: still loaded after unloading: $left"
    return 1
}
