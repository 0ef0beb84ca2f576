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
WANTED=(ib_core ib_uverbs rdma_ucm rdma_cm iw_cm ib_cm ib_ipoib ib_umad rdma_rxe rpcrdma
        mlx4_core mlx4_ib mlx4_en mlx5_core mlx5_ib ib_iser ib_srp ib_isert)
# shellcheck source=qemu_lib.sh
. "$HERE/qemu_lib.sh"

read -r -a MODS <<< "$(present_modules "${WANTED[@]}")"
((${#MODS[@]})) || die "none of the RDMA modules exists in $KVER"
say "kernel $KVER; ${#MODS[@]} modules: ${MODS[*]}"

if [[ -n ${BENCH_LOAD_BENCH:-} ]]; then
    mkdir -p "$W/bin" && cp -f "$BENCH_LOAD_BENCH" "$W/bin/load_bench"
else
    bazel_bin //tests/modules:load_bench load_bench
fi

build_image bench-modules "bash base bench-modules" \
    "bench_modules=\"${MODS[*]}\"" "bench_load_bench=\"$W/bin/load_bench\"" "bench_rounds=$ROUNDS"
RC=0
boot_guest "$W/img/bench-modules.img" \
    "console=ttyS0 quiet loglevel=3 panic=-1 rd.shell=0 rd.retry=30" -nic none || RC=$?

# ------------------------------------------------------------------ results
show_results "INFO|ERROR|STATUS" "module loading" "$HERE/dracut/99bench-modules/bench-table.awk"
grep -aq '^BENCH-STATUS: ok' "$W/serial.plain" || { say "the guest reported errors (see above / $W/serial.log)"; exit 1; }
[[ $RC == 0 ]] || exit 1
