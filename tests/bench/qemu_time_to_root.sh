#!/usr/bin/env bash
# qemu_time_to_root.sh: the diskless client of tests/e2e (systemd initramfs, Soft-RoCE,
# root over NFS/RDMA from the server VM) booted with four ways of making its RDMA ready,
# alternating A B C F A B C F ... (TCG):
#   A  rdma-provision (dracut-module/90rdma-provision), as scenario 2 boots it
#   B  the guides' manual procedure (tests/bench/dracut/99bench-tools/manual-procedure.sh:
#      modprobe each module the guides list, rename by MAC, link up, rdma link add, RoCE
#      defaults in configfs, poll ibv_devinfo until ACTIVE) as a unit at the same point
#   C  rdma-core's own way: its udev rules and module lists through rdma-load-modules@
#      (tests/e2e/dracut/50rdma), the NIC named by dracut's ifname=, and the steps
#      rdma-core has no tool for (rdma link add, configfs, the wait) as in B
#   F  the floor: rdma_rxe and rpcrdma loaded by dracut at the start (force_drivers), the
#      NIC named by ifname=, one `rdma link add`: the kernel's own cost, nothing else
# From each client's serial log (/proc/uptime and printk times): when udev's coldplug
# trigger finished, when the provisioning ended, when dracut configured the interface
# (initqueue/online) and when the NFS root's init ran, and the modules loaded by then.
# Prints medians with min..max per method and the ratios the goals name (#15).
#
#   tests/bench/qemu_time_to_root.sh          # 3 rounds (12 pair boots, about 15 min)
#   BENCH_ROUNDS=5 tests/bench/qemu_time_to_root.sh
#   E2E_KERNEL=6.12 BENCH_ROUNDS=5 tests/bench/qemu_time_to_root.sh   # on Debian's 6.12
#   BENCH_METHODS="A" BENCH_APPEND="systemd.log_target=kmsg" ...   # to look into one method
#
# Work directory: tests/e2e/work/bench-root/ (logs per boot, images). The VMs talk only to
# each other over -netdev dgram on 127.0.0.1 (tests/e2e/lib.sh).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tests/bench
E2E=$REPO/tests/e2e
# E2E_KERNEL=6.12: the same on Debian's 6.12 (tests/e2e/lib.sh), in a work directory of its own.
W=${BENCH_ROOT_WORK:-$REPO/tests/e2e/work/bench-root$([[ ${E2E_KERNEL:-6.1} == 6.1 ]] || echo "-$E2E_KERNEL")}
ROUNDS=${BENCH_ROUNDS:-3}
# shellcheck source=../e2e/lib.sh
. "$E2E/lib.sh"
mkdir -p "$W/logs" "$W/conf"
trap 'cleanup_all' EXIT
trap 'cleanup_all; exit 130' INT TERM

pick_kernel
build_binary
install_package
QEMU_ACCEL=(-accel tcg)  # the same emulation for every boot (tests/e2e/lib.sh pick_accel)
prepare_dracut_base
for m in "$HERE"/dracut/*; do ln -sfn "$m" "$W/dracut-base/modules.d/${m##*/}"; done
prepare_nfsroot

present() {  # NAME... -> those this kernel has
    local m out=()
    local base=()  # 6.12's tree is unpacked, not installed: KMODDIR=<root>/lib/modules/<kver>
    [[ -n $KMODDIR ]] && base=(-b "${KMODDIR%/lib/modules/*}")
    for m in "$@"; do modinfo "${base[@]}" -k "$KVER" -F filename "$m" > /dev/null 2>&1 && out+=("$m"); done
    echo "${out[*]}"
}
# The guides' module list (as tests/bench/qemu_provision.sh's method B loads it).
GUIDE_MODULES=$(present ib_uverbs rdma_ucm rdma_cm ib_ipoib ib_umad rdma_rxe rpcrdma)
manual_conf() {  # METHOD STEPS MODULES
    cat > "$W/conf/manual-$1.conf" << CONF
# Method $1 of tests/bench/qemu_time_to_root.sh (written by it).
STEPS="$2"
MODULES="$3"
NIC_MAC=$CLI_MAC
NIC_NAME=$NIC
ADDRESS=
RXE=rxe0
ROCE_MODE="RoCE v2"
TOS=106
CONF
}
# The address is dracut's (ip=) in every method.
manual_conf B "modules name up rxe roce wait" "$GUIDE_MODULES"
manual_conf C "up rxe roce wait" ""
manual_conf F "rxe" ""

# The bench modules' files change the images too (lib.sh's key covers tests/e2e only).
BENCH_KEY="# bench files $(find "$HERE/dracut" -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
CRC="crc32_generic crc32-pclmul"  # rdma_rxe needs a crc32 (no softdep; PROBES.md)
IMG_B=("bench_boot_method=B" "bench_manual_conf=$W/conf/manual-B.conf"
    "add_drivers+=\" $GUIDE_MODULES $CRC \"" "$BENCH_KEY")
IMG_C=("bench_boot_method=C" "bench_manual_conf=$W/conf/manual-C.conf"
    "add_drivers+=\" rdma_rxe rpcrdma $CRC \"" "$BENCH_KEY")
IMG_F=("bench_boot_method=F" "bench_manual_conf=$W/conf/manual-F.conf"
    "force_drivers+=\" $CRC rdma_rxe rpcrdma \"" "$BENCH_KEY")
ok=0
build_image server "base bash udev-rules e2e-nfs-server" "e2e_nfsroot=$W/nfsroot" || ok=1
build_image root-A "$SYSTEMD_MODULES $CLIENT_MODULES rdma-provision e2e-client bench-boot" \
    "${CLIENT_CONF[@]}" "bench_boot_method=A" "$BENCH_KEY" || ok=1
build_image root-B "$SYSTEMD_MODULES $CLIENT_MODULES e2e-client bench-tools bench-boot" \
    "${IMG_B[@]}" || ok=1
build_image root-C "$SYSTEMD_MODULES $CLIENT_MODULES rdma e2e-client bench-tools bench-boot" \
    "${IMG_C[@]}" || ok=1
build_image root-F "$SYSTEMD_MODULES $CLIENT_MODULES e2e-client bench-tools bench-boot" \
    "${IMG_F[@]}" || ok=1
((ok == 0)) || die_e2e "an image could not be built (logs: $W/logs/build-*.log)"

declare -A APPEND=(
    [A]="$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS"
    [B]="$BOOT $ROOT_RDMA $IP_NIC"
    [C]="$BOOT $ROOT_RDMA $IP_NIC ifname=$NIC:$CLI_MAC"
    [F]="$BOOT $ROOT_RDMA $IP_NIC ifname=$NIC:$CLI_MAC"
)

# One boot's figures: METHOD ROUND rc trig prov online root modules rdma-modules
RESULTS=$W/results.txt
: > "$RESULTS"
figures() {  # METHOD ROUND LOG
    local log=$3 plain trig prov online root mods rdma
    plain=$(plain "$log")
    trig=$(grep -aoE 'BENCH-MARK: udev-triggered uptime [0-9.]+' <<< "$plain" | awk '{ print $NF; exit }')
    if [[ $1 == A ]]; then  # the printk time of apply's summary line
        prov=$(grep -aE '^\[ *[0-9.]+\] rdma-provision: summary:' <<< "$plain" |
            sed -E 's/^\[ *([0-9.]+)\].*/\1/' | head -n1)
    else
        prov=$(grep -aoE 'BENCH-MARK: provisioned uptime [0-9.]+' <<< "$plain" | awk '{ print $NF; exit }')
    fi
    online=$(grep -aoE 'E2E-ONLINE: .* at uptime [0-9.]+' <<< "$plain" | awk '{ print $NF; exit }')
    root=$(grep -aoE 'NFSROOT: running /sbin/init from the network root, uptime [0-9.]+' <<< "$plain" |
        awk '{ print $NF; exit }')
    mods=$(grep -aoE 'NFSROOT: modules loaded: [0-9]+' <<< "$plain" | awk '{ print $NF; exit }')
    rdma=$(grep -aE 'NFSROOT: modules loaded: ' <<< "$plain" | sed 's/.*RDMA: //' | head -n1)
    echo "$1 $2 ${trig:--} ${prov:--} ${online:--} ${root:--} ${mods:--} ${rdma// /,}" >> "$RESULTS"
}

for ((r = 1; r <= ROUNDS; r++)); do
    for m in ${BENCH_METHODS:-A B C F}; do
        RUN_DIR=$W/logs/$m-$r
        rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
        boot_pair yes "root-$m" "${APPEND[$m]} ${BENCH_APPEND:-}" 300
        figures "$m" "$r" "$RUN_DIR/client.log"
        say "round $r method $m: $(tail -n1 "$RESULTS") (client exit $CLIENT_RC, $CLIENT_WALL s)"
    done
done

python3 "$HERE/time_to_root_table.py" "$RESULTS"
