#!/bin/bash
# 99bench-modules: test-only dracut module for tests/bench/qemu_modules.sh. It puts the RDMA
# module set, load_bench, kmod's modprobe and the benchmark driver into the image; the driver
# runs as a pre-trigger hook and powers the VM off through sysrq when it is done.
# Inputs (dracut configuration variables, set by qemu_modules.sh):
#   bench_modules="ib_core ..."   the module set, in the order it is given to each method
#   bench_load_bench=/path        the static load_bench binary
#   bench_rounds=N                alternating rounds (default 5)
check() { return 255; }
depends() { echo bash base; }
installkernel() {
    # crc32_generic: rdma_rxe's ICRC needs a crc32 shash.
    hostonly='' instmods $bench_modules crc32_generic
}
install() {
    [[ -x ${bench_load_bench:-} ]] || { dfatal "99bench-modules: bench_load_bench not set/executable"; return 1; }
    inst_multiple modprobe rmmod awk sort cat grep sed tr sleep cut tail tee
    inst_simple "$bench_load_bench" /usr/bin/load_bench
    inst_simple "$moddir/bench-modules.sh" /usr/bin/bench-driver.sh
    inst_simple "$moddir/bench-table.awk" /usr/lib/bench/bench-table.awk
    inst_simple "$moddir/bench-common.sh" /usr/lib/bench/bench-common.sh
    mkdir -p "$initdir/etc"
    {
        printf 'BENCH_MODULES="%s"\n' "$bench_modules"
        printf 'BENCH_ROUNDS=%s\n' "${bench_rounds:-5}"
    } > "$initdir/etc/bench-modules.conf"
    inst_hook cmdline 99 "$moddir/bench-cmdline.sh"
    inst_hook pre-trigger 90 "$moddir/bench-hook.sh"
    inst_hook emergency 00 "$moddir/bench-poweroff.sh"
}
