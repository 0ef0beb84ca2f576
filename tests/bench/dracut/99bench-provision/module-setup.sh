#!/bin/bash
# 99bench-provision: test-only dracut module for tests/bench/qemu_provision.sh. It puts the
# static rdma-provision and its configuration (method A), the scripted manual procedure and
# its tools (method B, from 99bench-tools), the kernel modules both load and the benchmark
# driver into the image; the driver runs as a pre-trigger hook and powers the VM off.
# Inputs (dracut configuration variables, set by qemu_provision.sh):
#   bench_modules="..."       the RDMA modules both methods load
#   bench_binary=/path        the static rdma-provision
#   bench_config=/path        A's configuration (native format)
#   bench_manual_conf=/path   B's settings (shell variables)
#   bench_rounds=N            alternating pairs (default 5)
check() { return 255; }
depends() { echo bash base udev-rules bench-tools; }
installkernel() {
    hostonly='' instmods $bench_modules virtio_pci virtio_net crc32_generic crc32-pclmul
}
install() {
    local f
    for f in "${bench_binary:-}" "${bench_config:-}" "${bench_manual_conf:-}"; do
        [[ -f $f ]] || { dfatal "99bench-provision: missing input file '$f'"; return 1; }
    done
    inst_multiple rmmod umount awk sort cut tail tee tr sed rmdir udevadm
    # Optional: strace, for the syscall profile of method A printed after the table.
    inst_multiple -o strace
    inst_simple "$bench_binary" /usr/bin/rdma-provision
    inst_simple "$bench_config" /etc/bench/rdma-provision.conf
    inst_simple "$bench_manual_conf" /etc/bench/manual.conf
    inst_simple "$moddir/bench-provision.sh" /usr/bin/bench-driver.sh
    inst_simple "$moddir/provision-table.awk" /usr/lib/bench/provision-table.awk
    inst_simple "$moddir/../99bench-modules/bench-common.sh" /usr/lib/bench/bench-common.sh
    printf 'BENCH_ROUNDS=%s\n' "${bench_rounds:-5}" >> "$initdir/etc/bench/manual.conf"
    inst_hook cmdline 99 "$moddir/../99bench-modules/bench-cmdline.sh"
    inst_hook pre-trigger 90 "$moddir/../99bench-modules/bench-hook.sh"
    inst_hook emergency 00 "$moddir/../99bench-modules/bench-poweroff.sh"
}
