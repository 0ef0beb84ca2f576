#!/usr/bin/env bash
# The main job on a built-in example. Until the QEMU demo lands: the release binary's
# status and plan on a bundled fixture (a ConnectX-3 VPI node) and status of this machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash rules/bootstrap.sh
bazel build --config=musl -c opt //provision:rdma-provision 2>&1 | tail -n 1
bin=$(bazel info --config=musl -c opt bazel-bin 2>/dev/null)/provision/rdma-provision
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 tests/fixtures/mkfixtures.py tests/fixtures/cx3-vpi.sys "$tmp/cx3-vpi"
echo "== $("$bin" --version | head -n 1): $(file -b "$bin" | cut -d, -f1-5)"
echo "== status of the bundled fixture tests/fixtures/cx3-vpi.sys"
"$bin" status --root "$tmp/cx3-vpi"
cmdline="rd.rdma.mlx4=0000:81:00.0/eth,eth rd.rdma.mlx4.pfc=0x08 rd.rdma.roce=mlx4_0/2:v2:106 rd.rdma.wait=mlx4_0/1"
echo "== plan for: $cmdline"
"$bin" plan --root "$tmp/cx3-vpi" --cmdline-string "$cmdline" || true
echo "== status of this machine"
"$bin" status
