#!/bin/bash
# 99e2e-client: test-harness-only additions to the client images. A failed boot must never
# sit in an emergency shell: the emergency hooks report what is known and power off.
# An initqueue/online hook shows when dracut configured the interface.
check() { return 255; }
depends() { echo base; }
install() {
    inst_hook emergency 00 "$moddir/e2e-emergency.sh"
    inst_hook shutdown-emergency 00 "$moddir/e2e-emergency.sh"
    inst_hook initqueue/online 99 "$moddir/e2e-online.sh"
    inst_multiple cat ls tr grep sed
    # e2e_fault_wrapper=yes (dracut.conf of the scenario 9 image): the binary behind a
    # wrapper that can make apply abort or hang (e2e-fault.sh). 90rdma-provision has
    # installed the binary already (modules install in the order of their numbers).
    # e2e_broken_config=FILE (scenario 10): the configuration replaced after
    # 90rdma-provision checked and installed the good one (its image-needs refuses to
    # build from a broken one), as an image edited after the build would carry it.
    if [[ -n ${e2e_broken_config:-} ]]; then
        cp "$e2e_broken_config" "$initdir/etc/rdma-provision/rdma-provision.conf"
    fi
    if [[ ${e2e_fault_wrapper:-} == yes ]]; then
        mv "$initdir/usr/sbin/rdma-provision" "$initdir/usr/sbin/rdma-provision.real"
        inst_simple "$moddir/e2e-fault.sh" /usr/sbin/rdma-provision
        inst_multiple sleep sed ip
    fi
}
