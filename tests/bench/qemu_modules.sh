#!/usr/bin/env bash
# qemu_modules.sh: inside one QEMU guest (TCG by default), time loading the RDMA module set
# with rdma-provision's parallel libkmod loader (load_bench) vs one "modprobe" per module vs
# "modprobe -a", alternating the methods round by round and unloading everything in between.
#
#   tests/bench/qemu_modules.sh            # 5 rounds, 2 vCPUs, TCG
#   BENCH_ROUNDS=7 BENCH_SMP=1 tests/bench/qemu_modules.sh
#
# Environment: BENCH_ROUNDS (5), BENCH_SMP (2), BENCH_MEM (1024), BENCH_TIMEOUT_S (1200),
# BENCH_ACCEL (tcg|kvm, default tcg), BENCH_KVER (newest /lib/modules/*-amd64),
# BENCH_LOAD_BENCH (a prebuilt static load_bench; default: bazel build it).
# The image (dracut, tests/bench/dracut/99bench-modules) is rebuilt only when an input changed.
# Outputs under tests/e2e/work/bench/ (git-ignored): image, serial log, build logs.
# No network device at all; QEMU runs under timeout and is stopped by its pidfile on exit.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tests/bench
W=$REPO/tests/e2e/work/bench
ROUNDS=${BENCH_ROUNDS:-5}
SMP=${BENCH_SMP:-2}
MEM=${BENCH_MEM:-1024}
TMO=${BENCH_TIMEOUT_S:-1200}
WANTED=(ib_core ib_uverbs rdma_ucm rdma_cm iw_cm ib_cm ib_ipoib ib_umad rdma_rxe rpcrdma
        mlx4_core mlx4_ib mlx4_en mlx5_core mlx5_ib ib_iser ib_srp ib_isert)

say() { echo "bench: $*"; }
die() { echo "bench: FATAL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

mkdir -p "$W"
QPID_FILE=$W/qemu.pid
TPID=
cleanup() {  # stop the timeout wrapper and QEMU (by its pidfile), nothing else
    local qpid=
    [[ -f $QPID_FILE ]] && qpid=$(cat "$QPID_FILE" 2> /dev/null || true)
    if [[ -n $TPID ]] && kill -0 "$TPID" 2> /dev/null; then kill -TERM "$TPID" 2> /dev/null || true; fi
    if [[ -n $qpid ]] && [[ $(cat "/proc/$qpid/comm" 2> /dev/null) == qemu-system-* ]]; then
        kill -TERM "$qpid" 2> /dev/null || true
        sleep 2
        kill -0 "$qpid" 2> /dev/null && kill -KILL "$qpid" 2> /dev/null || true
    fi
    [[ -n $TPID ]] && wait "$TPID" 2> /dev/null || true
    rm -f "$QPID_FILE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ kernel and module set
KVER=${BENCH_KVER:-$(for d in /lib/modules/*-amd64; do [[ -d $d ]] && echo "${d##*/}"; done | sort -V | tail -n1)}
KERNEL=/boot/vmlinuz-$KVER
[[ -n $KVER && -r $KERNEL && -d /lib/modules/$KVER ]] || die "no Debian kernel (/boot/vmlinuz-*, /lib/modules/*)"
MODS=() MISSING=()
for m in "${WANTED[@]}"; do
    if modinfo -k "$KVER" -F filename "$m" > /dev/null 2>&1; then MODS+=("$m"); else MISSING+=("$m"); fi
done
((${#MODS[@]})) || die "none of the RDMA modules exists in $KVER"
say "kernel $KVER; ${#MODS[@]} modules: ${MODS[*]}"
((${#MISSING[@]})) && say "not in this kernel (skipped): ${MISSING[*]}"

# ------------------------------------------------------------------ load_bench
if [[ -n ${BENCH_LOAD_BENCH:-} ]]; then
    LB_SRC=$BENCH_LOAD_BENCH
else
    say "building: bazel build --config=musl -c opt //tests/modules:load_bench"
    (cd "$REPO" && bazel build --config=musl -c opt //tests/modules:load_bench) > "$W/bazel-build.log" 2>&1 ||
        { tail -n 20 "$W/bazel-build.log" >&2; die "bazel build failed (log: $W/bazel-build.log)"; }
    LB_SRC=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2> /dev/null)/tests/modules/load_bench
fi
[[ -x $LB_SRC ]] || die "no load_bench at $LB_SRC"
file -b "$LB_SRC" | grep -q 'statically linked' || die "$LB_SRC is not statically linked"
mkdir -p "$W/bin"
cp -f "$LB_SRC" "$W/bin/load_bench"

# ------------------------------------------------------------------ image
# A private dracut base: the system's dracut plus our test module (nothing installed system-wide).
BASE=$W/dracut-base
rm -rf "$BASE" && mkdir -p "$BASE/modules.d" "$W/conf.d-empty"
for f in /usr/lib/dracut/*; do [[ ${f##*/} == modules.d ]] || ln -s "$f" "$BASE/${f##*/}"; done
for m in /usr/lib/dracut/modules.d/*; do ln -s "$m" "$BASE/modules.d/${m##*/}"; done
ln -s "$HERE/dracut/99bench-modules" "$BASE/modules.d/99bench-modules"
IMG=$W/bench-modules.img CONF=$W/bench-modules.conf
{
    printf 'bench_modules="%s"\n' "${MODS[*]}"
    printf 'bench_load_bench="%s"\n' "$W/bin/load_bench"
    printf 'bench_rounds=%s\n' "$ROUNDS"
} > "$CONF"
KEY=$({
    echo "$KVER|$(dpkg-query -W -f='${Version}' dracut-core 2> /dev/null || true)"
    cat "$CONF"
    sha256sum "$W/bin/load_bench"
    find "$HERE/dracut" -type f -print0 | sort -z | xargs -0 sha256sum
} | sha256sum | cut -d' ' -f1)
if [[ -f $IMG && -f $IMG.key && $(cat "$IMG.key") == "$KEY" ]]; then
    say "image: up to date ($(stat -c %s "$IMG") bytes)"
else
    t0=$(now)
    rm -f "$IMG" "$IMG.key"
    dracutbasedir=$BASE dracut --no-hostonly --no-hostonly-cmdline --no-compress \
        --conf "$CONF" --confdir "$W/conf.d-empty" --kver "$KVER" --force \
        --modules "bash base bench-modules" "$IMG" > "$W/build.log" 2>&1 ||
        { tail -n 25 "$W/build.log" >&2; die "dracut failed (log: $W/build.log)"; }
    echo "$KEY" > "$IMG.key"
    say "image: built in $(elapsed "$t0") s, $(stat -c %s "$IMG") bytes (log: $W/build.log)"
fi

# ------------------------------------------------------------------ boot
case ${BENCH_ACCEL:-tcg} in
    tcg) ACCEL=(-accel tcg) ;;
    kvm) ACCEL=(-accel kvm -cpu host) ;;
    *) die "BENCH_ACCEL must be tcg or kvm" ;;
esac
LOG=$W/serial.log
rm -f "$LOG" "$QPID_FILE"
say "booting: ${ACCEL[*]} -smp $SMP -m $MEM, $ROUNDS rounds, timeout ${TMO} s (serial log: $LOG)"
t0=$(now)
timeout --kill-after=5 "$TMO" qemu-system-x86_64 "${ACCEL[@]}" \
    -m "$MEM" -smp "$SMP" -nodefaults -nic none -display none -no-reboot \
    -kernel "$KERNEL" -initrd "$IMG" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 rd.shell=0 rd.retry=30" \
    -serial "file:$LOG" -pidfile "$QPID_FILE" \
    < /dev/null > "$W/qemu.log" 2>&1 &
TPID=$!
RC=0
wait "$TPID" || RC=$?
TPID=
say "VM exited with status $RC after $(elapsed "$t0") s$([[ $RC == 124 ]] && echo ' (TIMEOUT)')"

# ------------------------------------------------------------------ results
PLAIN=$W/serial.plain
sed 's/\x1b\[[0-9;]*m//g' "$LOG" | tr -d '\r' > "$PLAIN"
grep -aE '^BENCH-(INFO|ERROR|STATUS)|^BENCH: ' "$PLAIN" || true
echo
if ! grep -aq '^BENCH: ' "$PLAIN"; then
    tail -n 30 "$PLAIN" >&2
    die "no BENCH lines in the serial log"
fi
echo "=== table (from the serial log's BENCH lines; ${BENCH_ACCEL:-tcg}, -smp $SMP)"
grep -a '^BENCH: ' "$PLAIN" | awk -f "$HERE/dracut/99bench-modules/bench-table.awk" | sed 's/^BENCH-TABLE: //'
grep -aq '^BENCH-STATUS: ok' "$PLAIN" || { say "the guest reported errors (see above / $LOG)"; exit 1; }
[[ $RC == 0 ]] || exit 1
