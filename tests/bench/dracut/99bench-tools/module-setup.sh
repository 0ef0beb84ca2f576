#!/bin/bash
# 99bench-tools: test-only dracut module with what the scripted manual procedure (script B
# of tests/bench/qemu_provision.sh) needs: kmod's modprobe, iproute2's ip and rdma,
# ibv_devinfo with libibverbs and the Soft-RoCE provider, mount, and the script itself.
# The benchmark compares the size of an image with this module to one with 90rdma-provision.
check() { return 255; }
depends() { echo bash base; }
install() {
    inst_multiple modprobe ip rdma ibv_devinfo mount grep sleep cat mkdir
    # libibverbs finds its providers through /etc/libibverbs.d/*.driver and dlopen().
    inst_multiple /etc/libibverbs.d/rxe.driver
    inst_libdir_file "libibverbs/librxe-rdmav*.so"
    inst_simple "$moddir/manual-procedure.sh" /usr/bin/manual-procedure.sh
}
