#!/bin/bash
# 50rdma (test harness): what rdma-core's own dracut module puts into an image, for
# scenario 7, which builds an image with it beside 90rdma-provision. rdma-core ships that
# module as kernel-boot/dracut/50rdma (installed by RHEL's and Fedora's rdma-core package);
# Debian's package and source archive do not carry it, so this one does the same with
# Debian's installed rdma-core files: in a systemd image, its module lists
# (/etc/rdma/modules/*.conf), its udev rules (60-rdma-persistent-naming.rules with
# rdma_rename, 75-rdma-description, 90-rdma-hw-modules, 90-rdma-ulp-modules, 90-rdma-umad),
# and rdma-load-modules@{rdma,roce,infiniband}.service wanted by initrd.target; all RDMA
# kernel modules. Named "rdma" like rdma-core's, so `dracut_module_included rdma` sees it.
check() { return 255; }
depends() { echo systemd; }
installkernel() { hostonly='' instmods "=drivers/infiniband"; }
install() {
    local _f _u
    for _f in /etc/rdma/modules/*.conf; do
        [[ -e $_f ]] && inst_simple "$_f"
    done
    inst_rules 60-rdma-persistent-naming.rules 75-rdma-description.rules \
        90-rdma-hw-modules.rules 90-rdma-ulp-modules.rules 90-rdma-umad.rules
    inst_multiple -o "$systemdsystemunitdir"/rdma-hw.target \
        "$systemdsystemunitdir"/rdma-load-modules@.service
    for _u in rdma roce infiniband; do
        $SYSTEMCTL -q --root "$initdir" add-wants initrd.target "rdma-load-modules@$_u.service"
    done
}
