#!/bin/bash
# 96e2e-nlmon: test-harness-only image for scenario 8-netlink-requests. A cmdline hook
# runs each kernel request of rdma-provision (tests/nlmon/nl_ops) and the same operation
# through iproute2's ip and rdma, captured with an nlmon tap (route netlink) and strace
# (RDMA netlink), prints what was captured and powers off. e2e_nlmon_bins (dracut conf):
# the nl-ops, nlcap and rdma-provision binaries to install.
check() { return 255; }
depends() { echo base; }
install() {
    local b b_name
    for b in $e2e_nlmon_bins; do
        b_name=${b##*/}
        inst_simple "$b" "/usr/bin/${b_name//_/-}" || return 1
    done
    inst_multiple ip rdma dcb strace modprobe sed grep cat sleep
    instmods nlmon dummy rdma_rxe ib_ipoib crc32_generic virtio_pci virtio_net
    inst_hook cmdline 99 "$moddir/e2e-nlmon.sh"
}
