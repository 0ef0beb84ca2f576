#!/usr/bin/env bash
# qemu_provision.sh: the provisioning step in one QEMU guest (TCG by default), side by side:
#   A  rdma-provision apply            (the static release binary, one process)
#   B  the scripted manual procedure   (dracut/99bench-tools/manual-procedure.sh: modprobe
#      per module, ip, rdma link add, mkdir/echo into configfs, ibv_devinfo polling)
# alternating A B A B ..., the state undone between runs (see dracut/99bench-provision).
# Both: load the RDMA module set, name the NIC by its MAC, bring it up with an address,
# create the Soft-RoCE device on it, set RoCE v2 and ToS 106 on its port, wait for the port
# to be ACTIVE. Prints wall and CPU time (user + system of the whole process tree) with
# medians, spreads and the ratios B/A; then the initramfs footprint: the same base image
# alone, with 90rdma-provision, and with the tools script B needs.
#
#   tests/bench/qemu_provision.sh              # 5 pairs, 2 vCPUs, TCG
#   BENCH_ROUNDS=7 tests/bench/qemu_provision.sh
#
# Environment: BENCH_ROUNDS (5) and those of qemu_lib.sh. Outputs under
# tests/e2e/work/bench-provision/ (git-ignored). The guest's one NIC is on "-netdev dgram"
# between two 127.0.0.1 ports and nobody listens on the other: nothing leaves the machine.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tests/bench
W=$REPO/tests/e2e/work/bench-provision
ROUNDS=${BENCH_ROUNDS:-5}
# shellcheck source=qemu_lib.sh
. "$HERE/qemu_lib.sh"

MODULES=$(present_modules ib_uverbs rdma_ucm rdma_cm ib_ipoib ib_umad rdma_rxe rpcrdma)
NIC_MAC=52:54:00:77:00:42 NIC_NAME=fabric0 ADDRESS=10.77.0.2/24 RXE=rxe0 TOS=106
say "kernel $KVER; module set: $MODULES"

bazel_bin //provision:rdma-provision rdma-provision

# A's configuration and B's settings: the same node, the same wanted state.
mkdir -p "$W/conf"
cat > "$W/conf/rdma-provision.conf" << CONF
# Method A of tests/bench/qemu_provision.sh (written by it).
[general]
timeout = 30
wait = $RXE/1
[modules]
load = ${MODULES// /, }
[name $NIC_NAME]
match = $NIC_MAC
[address $NIC_NAME]
address = $ADDRESS
[rxe $NIC_NAME]
name = $RXE
[roce $RXE/1]
mode = v2
tos = $TOS
CONF
cat > "$W/conf/manual.conf" << CONF
# Method B of tests/bench/qemu_provision.sh (written by it).
MODULES="$MODULES"
NIC_MAC=$NIC_MAC
NIC_NAME=$NIC_NAME
ADDRESS=$ADDRESS
RXE=$RXE
ROCE_MODE="RoCE v2"
TOS=$TOS
CONF

build_image bench-provision "bash base udev-rules bench-provision" \
    "bench_modules=\"$MODULES\"" "bench_binary=\"$W/bin/rdma-provision\"" \
    "bench_config=\"$W/conf/rdma-provision.conf\"" "bench_manual_conf=\"$W/conf/manual.conf\"" \
    "bench_rounds=$ROUNDS"

# Footprint: one base image (the same kernel modules), then with each method's files.
FP_DRIVERS="add_drivers+=\" $MODULES virtio_pci virtio_net \""
build_image fp-base "bash base udev-rules" "$FP_DRIVERS"
build_image fp-rdma-provision "bash base udev-rules rdma-provision" "$FP_DRIVERS" \
    "rdma_provision_binary=\"$W/bin/rdma-provision\"" "rdma_provision_config=\"$W/conf/rdma-provision.conf\"" \
    'rdma_provision_drivers="rdma_rxe"' 'rdma_provision_rdma_core=no'
build_image fp-manual-tools "bash base udev-rules bench-tools" "$FP_DRIVERS"

LPORT=$((20000 + RANDOM % 20000))
RC=0
boot_guest "$W/img/bench-provision.img" \
    "console=ttyS0 quiet loglevel=3 panic=-1 rd.shell=0 rd.retry=30 net.ifnames=0" \
    -netdev "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$LPORT,remote.type=inet,remote.host=127.0.0.1,remote.port=$((LPORT + 1))" \
    -device "virtio-net-pci,netdev=n0,mac=$NIC_MAC" || RC=$?

show_results "INFO|ERROR|STATUS|DETAIL|REF|STEPS|PROFILE" "provisioning step" \
    "$HERE/dracut/99bench-provision/provision-table.awk"
echo "=== initramfs footprint (uncompressed cpio; the same base and kernel modules)"
s0=$(stat -c %s "$W/img/fp-base.img")
s1=$(stat -c %s "$W/img/fp-rdma-provision.img")
s2=$(stat -c %s "$W/img/fp-manual-tools.img")
printf '%-28s %12s %12s\n' image bytes added
printf '%-28s %12d %12s\n' base "$s0" -
printf '%-28s %12d %12d\n' "+ 90rdma-provision" "$s1" $((s1 - s0))
printf '%-28s %12d %12d\n' "+ tools of the manual script" "$s2" $((s2 - s0))
grep -aq '^BENCH-STATUS: ok' "$W/serial.plain" || { say "the guest reported errors (see above / $W/serial.log)"; exit 1; }
[[ $RC == 0 ]] || exit 1
