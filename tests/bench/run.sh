#!/usr/bin/env bash
# Benchmarks: every figure measured side by side in one run, printed with medians, spreads
# and ratios, then one summary table against the goals. Never asserted by the tests.
#
#   tests/bench/run.sh                 everything (about 30 minutes on 2 cores, TCG)
#   BENCH_QEMU=0 tests/bench/run.sh    without the QEMU guests (sections 1, 2 and 6)
#
#   1. the provisioning step in QEMU: rdma-provision apply vs the scripted manual procedure
#      (tests/bench/qemu_provision.sh), wall and CPU time of the process tree, and the
#      initramfs footprint of each
#   2. loading the RDMA module set in QEMU: parallel libkmod vs modprobe (qemu_modules.sh)
#   3. scaling on generated fixtures: plan in process, apply --root as a process
#      (plan_bench), and the 10,000-node table
#   4. reaction latency: veth peer carrier-up to the LinkWatcher, in a network namespace
#   5. footprint: stripped size and peak RSS of the release binary
#   6. time to root in QEMU: the diskless client booted with rdma-provision, the guides'
#      manual procedure, rdma-core's own way and the kernel-only floor
#      (tests/bench/qemu_time_to_root.sh)
# Environment: BENCH_ROUNDS (QEMU pairs/rounds, default 7), BENCH_QEMU (1), and those of
# tests/bench/qemu_lib.sh. Section outputs are kept in tests/e2e/work/bench-results/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPO=$PWD
OUT=$REPO/tests/e2e/work/bench-results
mkdir -p "$OUT"
export BENCH_ROUNDS=${BENCH_ROUNDS:-7}
BOOTSTRAP_ARGS=()
[[ ${BENCH_QEMU:-1} != 0 ]] && BOOTSTRAP_ARGS=(--e2e)
bash rules/bootstrap.sh "${BOOTSTRAP_ARGS[@]}" > "$OUT/bootstrap.log" 2>&1 ||
  { tail -n 20 "$OUT/bootstrap.log" >&2; exit 1; }
MACHINE="$(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), host kernel $(uname -r)"
echo "machine: $MACHINE; $(date -u +%Y-%m-%d)"

section() {  # NAME TITLE COMMAND...: runs it, shows and keeps its output
  local name=$1 title=$2
  shift 2
  echo
  echo "== $title"
  "$@" 2>&1 | tee "$OUT/$name.txt" || echo "(section failed: see $OUT/$name.txt)" | tee -a "$OUT/$name.txt"
}

bazel build --config=musl -c opt //provision:rdma-provision > "$OUT/build.log" 2>&1
RELEASE=$(bazel info --config=musl -c opt bazel-bin 2> /dev/null)/provision/rdma-provision

if [[ ${BENCH_QEMU:-1} != 0 ]]; then
  section provision "1. provisioning step in a QEMU guest, A = rdma-provision, B = manual script" \
    bash tests/bench/qemu_provision.sh
  section modules "2. loading the RDMA module set in a QEMU guest" bash tests/bench/qemu_modules.sh
fi

section scaling "3. scaling on generated fixtures and the 10,000-node table (-c opt; apply: the release binary)" \
  bazel run -c opt //tests/bench:plan_bench -- 21 "$RELEASE"

section latency "4. reaction latency: veth peer carrier-up to LinkWatcher (network namespace)" \
  bazel run -c opt //tests/netns:carrier_latency_bench

footprint() {
  local size tmp
  size=$(stat -c %s "$RELEASE")
  printf 'stripped size: %d bytes = %.2f MiB (goal <= 1.50 MiB)\n' "$size" "$(echo "$size/1048576" | bc -l)"
  tmp=$(mktemp -d)
  python3 tests/fixtures/mkfixtures.py tests/fixtures/four-hca.sys "$tmp/four-hca" > /dev/null
  /usr/bin/time -f '%M' -o "$tmp/rss" "$RELEASE" apply --log stderr --root "$tmp/four-hca" \
    --cmdline-string 'rd.rdma.wait=mlx4_0/1 rd.rdma.roce=*:v2' > /dev/null 2>&1 || true
  printf 'peak RSS of apply on four-hca: %d KiB (goal <= 4096 KiB)\n' "$(cat "$tmp/rss")"
  rm -rf "$tmp"
}
section footprint "5. footprint of the release binary (initramfs sizes: section 1)" footprint

if [[ ${BENCH_QEMU:-1} != 0 ]]; then
  section root "6. time to root in QEMU: A rdma-provision, B manual procedure, C rdma-core's way, F the floor" \
    env BENCH_ROUNDS="${BENCH_ROOT_ROUNDS:-5}" bash tests/bench/qemu_time_to_root.sh
fi

# ------------------------------------------------------------------ summary
pick() {  # FILE EXTENDED-REGEX -> the first matching line, or "(not measured)"
  local l
  l=$(grep -aE -m1 "$2" "$OUT/$1.txt" 2> /dev/null || true)
  echo "${l:-(not measured)}"
}
echo
echo "== summary against the goals ($(date -u +%Y-%m-%d); $MACHINE)"
{
  echo "1. provisioning, whole step:      $(pick provision '^wall B/A')"
  echo "                                  $(pick provision '^cpu  B/A')"
  echo "   modules loaded beforehand:     $(pick provision '^wall B_loaded/A_loaded')"
  echo "                                  $(pick provision '^cpu  B_loaded/A_loaded')"
  echo "   medians (s):                   A $(pick provision '^A  ' | awk '{ print "wall " $3 ", cpu " $6 }'); B $(pick provision '^B  ' | awk '{ print "wall " $3 ", cpu " $6 }')"
  echo "2. module loading:                $(pick modules '^ratio sequential/parallel')"
  echo "3. scaling:                       $(pick scaling '^fit plan')"
  echo "                                  $(pick scaling '^fit apply')"
  echo "                                  $(pick scaling '^10,000-node table')"
  echo "4. carrier reaction:              $(pick latency 'from set-up call')"
  echo "   apply syscalls, 64 ports:      $(pick scaling 'strace -f\): +64 ')"
  echo "5. footprint:                     $(pick footprint '^stripped size')"
  echo "                                  $(pick footprint '^peak RSS')"
  echo "6. time to root:                 $(pick root '^ratios of medians')"
  echo "                                  $(pick root '^goal RDMA share A <= 1/3')"
  echo "                                  $(pick root '^goal RDMA share A within')"
  echo "                                  $(pick root '^goal whole')"
  echo "   initramfs, added to the base:  90rdma-provision $(pick provision '^\+ 90rdma-provision' | awk '{ print $NF }') bytes; tools of the manual script $(pick provision '^\+ tools' | awk '{ print $NF }') bytes"
} | tee "$OUT/summary.txt"
