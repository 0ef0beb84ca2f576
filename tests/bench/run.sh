#!/usr/bin/env bash
# Benchmarks: figures printed side by side in one run (never asserted by the tests).
#   tests/bench/run.sh
# Measured so far: module loading in a QEMU guest (parallel libkmod vs modprobe; skip with
# BENCH_QEMU=0), plan scaling on generated fixtures and the 10,000-node table, carrier
# reaction latency in a network namespace, and the footprint (stripped size, peak RSS of
# apply). Still to come: the whole provisioning step vs the scripted manual procedure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash rules/bootstrap.sh >/dev/null
echo "machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%d)"

if [[ ${BENCH_QEMU:-1} != 0 ]]; then
  echo "== 2. module loading in a QEMU guest (tests/bench/qemu_modules.sh)"
  bash tests/bench/qemu_modules.sh
fi

echo "== 3. plan scaling and the 10,000-node table (host g++, -c opt)"
bazel run -c opt //tests/bench:plan_bench 2>/dev/null

echo "== 4. reaction latency: veth peer carrier-up to LinkWatcher (network namespace)"
bazel run -c opt //tests/netns:carrier_latency_bench 2>/dev/null || echo "(needs root and namespaces)"

echo "== 5. footprint of the release binary"
bazel build --config=musl -c opt //provision:rdma-provision 2>/dev/null
bin=$(bazel info --config=musl -c opt bazel-bin 2>/dev/null)/provision/rdma-provision
size=$(stat -c %s "$bin")
printf 'stripped size: %d bytes = %.2f MiB (goal <= 1.50 MiB)\n' "$size" "$(echo "$size/1048576" | bc -l)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/fixtures/mkfixtures.py tests/fixtures/four-hca.sys "$tmp/four-hca"
/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" apply --log stderr --root "$tmp/four-hca" \
  --cmdline-string 'rd.rdma.wait=mlx4_0/1 rd.rdma.roce=*:v2' >/dev/null 2>&1 || true
printf 'peak RSS of apply on four-hca: %d KiB (goal <= 4096 KiB)\n' "$(cat "$tmp/rss")"
