#!/bin/bash
# 99bench-boot: test-only dracut module of tests/bench/qemu_time_to_root.sh (systemd
# initramfs). In every image: a console mark when udev's coldplug trigger has finished,
# where every method's provisioning starts. For the methods other than rdma-provision
# (bench_boot_method=B|C|F in the dracut configuration): their provisioning step
# (manual-procedure.sh with /etc/bench/manual.conf from bench_manual_conf) as a unit
# ordered exactly like rdma-provision-apply.service, and a mark when it ends.
check() { return 255; }
depends() { echo systemd bash; }
install() {
    inst_simple "$moddir/bench-mark.service" "$systemdsystemunitdir/bench-mark.service"
    $SYSTEMCTL -q --root "$initdir" add-wants initrd.target bench-mark.service
    [[ ${bench_boot_method:-A} == A ]] && return 0
    inst_simple "$bench_manual_conf" /etc/bench/manual.conf
    inst_multiple udevadm
    inst_simple "$moddir/bench-provision.service" "$systemdsystemunitdir/bench-provision.service"
    $SYSTEMCTL -q --root "$initdir" add-wants initrd.target bench-provision.service
}
