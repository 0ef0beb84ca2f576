#!/usr/bin/env bash
# End-to-end boots of the dracut module: a client VM mounts its root over NFS/RDMA from a
# server VM, both on Soft-RoCE, the client's RDMA set up by rdma-provision in its initramfs.
#
#   tests/e2e/run.sh                 every scenario and the image check
#   tests/e2e/run.sh 1 3 4           some of them (by number or name)
#   tests/e2e/run.sh --list          the names
#
# Prints each one's PASS/FAIL with its wall time and the decisive log lines, and ends with
# "N passed, N failed". Serial logs: tests/e2e/work/logs/<scenario>/ (the latest run), and a
# copy of every failed run under tests/e2e/work/failed/. Environment: E2E_ACCEL=tcg|kvm
# (default: KVM only if a marker boot proves it), E2E_NO_BOOTSTRAP=1 (skip
# rules/bootstrap.sh --boot or --e2e, whichever the scenarios need; E2E_BOOTSTRAP_ARGS
# adds to it), E2E_KEEP_LOGS=0 (drop the logs of passed scenarios),
# E2E_INITRD_COMPRESS and E2E_PXE_COMPRESS (the images' compression, lib.sh).
set -uo pipefail

E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E/../.." && pwd)
# Each guest kernel its own work directory (images, logs, the exported root).
if [[ ${E2E_KERNEL:-6.1} == 6.1 ]]; then
    W=${E2E_WORK:-$E2E/work}
else
    W=${E2E_WORK:-$E2E/work-$E2E_KERNEL}
fi
# shellcheck source=tests/e2e/lib.sh
. "$E2E/lib.sh"

SCENARIOS=(1-shell-init 2-systemd-init 3-bad-parameter 4-server-absent 5-disabled 6-roce-v1 7-with-50rdma 8-netlink-requests
    9-binary-fault 10-broken-config 11-port-inactive 12-rd-break 13-pxe 14-dhcp
    15-network-manager 16-verify-peer 17-verify-no-listener 18-dracut-ng 19-nm-no-generator
    20-hca-standin 21-verify-load 22-siw 23-nvmf-root image)
declare -A NEEDS=(  # images each one needs
    [1-shell-init]="server client-shell" [2-systemd-init]="server client-systemd"
    [3-bad-parameter]="server client-shell" [4-server-absent]="client-shell"
    [5-disabled]="server client-systemd" [6-roce-v1]="server client-systemd"
    [7-with-50rdma]="server client-systemd-50rdma" [8-netlink-requests]="nlmon"
    [9-binary-fault]="server client-shell-fault" [10-broken-config]="server client-shell-badconf"
    [11-port-inactive]="server client-shell" [12-rd-break]="server client-shell"
    [13-pxe]="client-pxe server-pxe" [14-dhcp]="client-pxe server-pxe client-shell"
    [15-network-manager]="server client-systemd-nm"
    [16-verify-peer]="server client-shell" [17-verify-no-listener]="server client-shell client-systemd"
    [18-dracut-ng]="server client-ng-shell client-ng-systemd"
    [19-nm-no-generator]="server client-systemd-nm-nogen"
    [20-hca-standin]="server client-shell-fault"
    [21-verify-load]="server client-shell"
    [22-siw]="server client-shell-siw"
    [23-nvmf-root]="server-nvmf client-shell-nvmf client-ng-shell-nvmf"
    [image]="client-shell client-systemd client-shell-without client-shell-rdma-core"
)

build_images() {  # the images the selected scenarios need
    local want=" $* " rc=0
    [[ $want == *" server "* ]] && { build_image server "base bash udev-rules e2e-nfs-server" \
        "e2e_nfsroot=$W/nfsroot" "e2e_verify_bin=$PKG_ROOT/usr/sbin/rdma-provision" || rc=1; }
    [[ $want == *" client-shell "* ]] && { build_image client-shell \
        "$CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" || rc=1; }
    [[ $want == *" client-systemd "* ]] && { build_image client-systemd \
        "$SYSTEMD_MODULES $CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" || rc=1; }
    [[ $want == *" client-shell-without "* ]] && { build_image client-shell-without \
        "$CLIENT_MODULES e2e-client" || rc=1; }
    [[ $want == *" client-systemd-50rdma "* ]] && { build_image client-systemd-50rdma \
        "$SYSTEMD_MODULES $CLIENT_MODULES rdma rdma-provision e2e-client" "${CLIENT_CONF[@]/rdma_provision_rdma_core=no/rdma_provision_rdma_core=yes}" || rc=1; }
    [[ $want == *" nlmon "* ]] && { build_image nlmon "base bash e2e-client e2e-nlmon" \
        "e2e_nlmon_bins=\"$W/bin/nl_ops $W/bin/nlcap $W/bin/rdma-provision\"" || rc=1; }
    [[ $want == *" client-shell-fault "* ]] && { build_image client-shell-fault \
        "$CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" "e2e_fault_wrapper=yes" || rc=1; }
    [[ $want == *" client-shell-badconf "* ]] && { build_image client-shell-badconf \
        "$CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" "e2e_broken_config=$E2E/broken.conf" || rc=1; }
    # dracut's network-manager module instead of network-legacy (RHEL, Fedora).
    [[ $want == *" client-systemd-nm "* ]] && { build_image client-systemd-nm \
        "$SYSTEMD_MODULES ${CLIENT_MODULES/network-legacy/network-manager} rdma-provision e2e-client" \
        "${CLIENT_CONF[@]}" || rc=1; }
    # ... and the same without NetworkManager's initrd generator (a build host without it).
    [[ $want == *" client-systemd-nm-nogen "* ]] && { build_image client-systemd-nm-nogen \
        "$SYSTEMD_MODULES ${CLIENT_MODULES/network-legacy/network-manager} rdma-provision e2e-client e2e-no-nm-generator" \
        "${CLIENT_CONF[@]}" || rc=1; }
    # The PXE pair: the client's image first, then the server that serves it. Both
    # compressed: iPXE fetches the client's image over the emulated NIC, and the server's
    # image carries it.
    [[ $want == *" client-pxe "* ]] && { E2E_INITRD_COMPRESS=$E2E_PXE_COMPRESS build_image client-pxe "$CLIENT_MODULES rdma-provision e2e-client" \
        "${CLIENT_CONF[@]/#rdma_provision_config=*/rdma_provision_config=$E2E/cluster.conf}" || rc=1; }
    [[ $want == *" server-pxe "* ]] && { prepare_pxe_dir && E2E_INITRD_COMPRESS=$E2E_PXE_COMPRESS build_image server-pxe \
        "base bash udev-rules e2e-nfs-server" "e2e_nfsroot=$W/nfsroot" "e2e_pxe_dir=$W/pxe" \
        "e2e_verify_bin=$PKG_ROOT/usr/sbin/rdma-provision" \
        "# pxe files: $(cat "$W/pxe"/* | sha256sum | cut -d' ' -f1)" || rc=1; }
    # dracut-ng (trixie's dracut 106, run from its own tree): both init flavours.
    [[ $want == *" client-ng-shell "* ]] && { DRACUT_FLAVOUR=ng build_image client-ng-shell \
        "$CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" || rc=1; }
    [[ $want == *" client-ng-systemd "* ]] && { DRACUT_FLAVOUR=ng build_image client-ng-systemd \
        "$SYSTEMD_MODULES $CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]}" || rc=1; }
    # Soft-iWARP instead of Soft-RoCE (scenario 22, E2E_KERNEL=6.12: the siw.ko bootstrap
    # built for it); image-needs told the target's soft driver is siw.
    [[ $want == *" client-shell-siw "* ]] && { build_image client-shell-siw \
        "$CLIENT_MODULES rdma-provision e2e-client" \
        "${CLIENT_CONF[@]/rdma_provision_drivers=rdma_rxe/rdma_provision_drivers=siw}" || rc=1; }
    # NVMe over Fabrics over RDMA (scenario 23): the server also serves the root as a block
    # device (nvmet, from a RAM disk); the client mounts it (rootfs-block, ext4, nvme_rdma).
    [[ $want == *" server-nvmf "* ]] && { prepare_nvmf_root && build_image server-nvmf \
        "base bash udev-rules e2e-nfs-server" "e2e_nfsroot=$W/nfsroot" "e2e_nvmf_image=$W/nvmfroot.img" || rc=1; }
    [[ $want == *" client-shell-nvmf "* ]] && { build_image client-shell-nvmf \
        "$CLIENT_MODULES rootfs-block rdma-provision e2e-client" "${CLIENT_CONF[@]}" \
        'add_drivers+=" nvme_rdma ext4 "' || rc=1; }
    # ... and the same client built by dracut-ng 106 (whose 95nvmf would carry nvme_rdma,
    # not in this image: the binary connects).
    [[ $want == *" client-ng-shell-nvmf "* ]] && { DRACUT_FLAVOUR=ng build_image client-ng-shell-nvmf \
        "$CLIENT_MODULES rootfs-block rdma-provision e2e-client" "${CLIENT_CONF[@]}" \
        'add_drivers+=" nvme_rdma ext4 "' || rc=1; }
    [[ $want == *" client-shell-rdma-core "* ]] && { build_image client-shell-rdma-core \
        "$CLIENT_MODULES rdma-provision e2e-client" "${CLIENT_CONF[@]/rdma_provision_rdma_core=no/rdma_provision_rdma_core=yes}" || rc=1; }
    return $rc
}

rename_logs() {  # PREFIX: keep one boot's logs when a scenario boots twice
    local f
    for f in "$RUN_DIR"/client.* "$RUN_DIR"/server.*; do
        [[ -e $f ]] && mv -f "$f" "$RUN_DIR/$1-${f##*/}"
    done
}

client_booted_checks() {  # the network root was reached and is what it must be
    local log=${CLIENT_LOG:-$RUN_DIR/client.log}
    check_true "$CLIENT_RC" "client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'E2E-ONLINE: .* rdma-provision done before: yes' \
        "rdma-provision ran before dracut configured the interface (ifup -> netroot)"
    check_line "$log" 'E2E-RESULT: BOOTED' "the client booted into the NFS root"
    check_line "$log" 'NFSROOT: root mount: .* / nfs4 .*proto=rdma,port=20049' "/ is NFS over RDMA, port 20049"
    check_line "$log" "NFSROOT: netdev $NIC address $CLI_MAC" "the NIC has its persistent name $NIC"
}

# ---------------------------------------------------------------- scenarios
scenario_boot() {  # IMAGE [MORE ARGS]: shared by 1, 2 and 7: the full boot with rd.rdma.required=1
    local img=$1 log=$RUN_DIR/client.log
    boot_pair yes "$img" "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1${2:+ $2}" 300
    client_booted_checks
    check_line "$log" 'NFSROOT: configfs rxe0/1 default_roce_mode: RoCE v2' "RoCE mode in configfs"
    check_line "$log" 'NFSROOT: configfs rxe0/1 default_roce_tos: 106' "RoCE ToS in configfs"
    check_line "$log" 'NFSROOT: \| +"exit_code": 0' "state.json handed to the real root: exit_code 0"
    check_line "$log" 'NFSROOT: \| +"summary": ' "state.json summary"
    check_order "$log" "$NIC: renamed from eth0" 'rdma-provision: [0-9]+ actions? planned' \
        "udev gave the persistent name when the NIC appeared, before apply ran"
    check_line "$log" 'rdma-provision: .*soft-link rxe0' "rdma-provision created the Soft-RoCE link"
    check_line "$log" 'rdma-provision: [0-9]+ actions? planned, deadline 45 s' \
        "the binary got the command line baked into the image (rd.rdma.timeout=45 in /etc/cmdline.d)"
    check_line "$RUN_DIR/server.log" 'E2E-SERVER: client done' "server saw the client's write over NFS/RDMA"
    # The real root's own run (nfsroot/init, as rdma-provision.service): nothing to do,
    # and the interface that carries the root stays up (the write above came after it).
    check_line "$log" 'NFSROOT: second apply: exit 0 in 0\.[0-9]+ s' "second apply on the real root: exit 0 within 1 s"
    check_line "$log" 'NFSROOT: second apply \| .*summary: 0 done, [0-9]+ already, [0-9]+ checked, 0 skipped, 0 failed' \
        "second apply changed nothing"
    check_line "$log" "NFSROOT: netdev $NIC address .* operstate up" "$NIC, which carries the root, is up after it"
    check_line "$log" 'NFSROOT: metrics \| rdma_provision_exit_code 0' "the real root's run wrote node_exporter's textfile"
    check_line "$log" 'NFSROOT: metrics \| rdma_provision_port_state\{device="rxe0",port="1",netdev="fabric0"\} 4' \
        "... with the port's state"
}

scenario_1-shell-init() {
    # Also the link the fabric expects (rd.rdma.expect): Soft-RoCE on a virtio NIC of
    # unknown speed is 2.5 Gb/sec (1X SDR) (ib_get_eth_speed: 1000 Mb/s and below is one
    # SDR lane), read from the real kernel's rate file.
    local log=$RUN_DIR/client.log
    scenario_boot client-shell "rd.rdma.expect=rxe0/1:rate=2.5,width=1x,link_layer=Ethernet,phys_state=LinkUp"
    check_line "$log" 'rdma-provision: checked +check-link rxe0/1: .* -> 2\.5 Gb/sec, 1X, Ethernet, LinkUp .*2\.5 Gb/sec \(1X SDR\), Ethernet, LinkUp: as expected' \
        "the port's link read from the kernel as the fabric expects it (check-link)"
    check_line "$log" 'NFSROOT: metrics \| rdma_provision_link_expected\{device="rxe0",port="1",expected="2\.5 Gb/sec, 1X, Ethernet, LinkUp"\} 1' \
        "... and counted in the real root's metrics"
}

systemd_apply_checks() {  # the systemd unit's apply (2, 7): no settle of the whole machine
    local log=$RUN_DIR/client.log
    if [[ ${1:-} == absent ]]; then
        check_line "$log" "rdma-provision: udev's coldplug: went on after [0-9.]+ s: udev has handled every event \(/usr/bin/udevadm settle --timeout=60\)" \
            "mlx5_0 named and absent: apply waited for udev's end (its background udevadm settle), not for the deadline"
        check_count "$log" '^\[ *[0-9.]+\] rdma-provision: warning: cmdline: rd\.rdma\.roce=mlx5_0/1:v2: RoCE defaults: no RoCE port mlx5_0/1 is present' 1 \
            "... then said it absent, once"
    else
        check_line "$log" "rdma-provision: udev's coldplug: went on after [0-9.]+ s: everything this plan names is here and udev has handled it" \
            "apply went on once $NIC was there and named by udev, without waiting for the rest of coldplug"
    fi
    # fabric0's udev RUN program (61-rdma-provision.rules) runs after udev wrote the
    # database file apply waited for, often after apply's mark: the mark lists the devices
    # apply saw, so no second run is queued for it.
    check_count "$log" '^\[ *[0-9.]+\] rdma-provision: summary:' 1 \
        "one apply in the initramfs: none queued again for the NIC apply had seen"
}

scenario_2-systemd-init() {
    local log=$RUN_DIR/client.log
    scenario_boot client-systemd
    systemd_apply_checks
    check_order "$log" 'Finished .*rdma-provision-ea' 'Start(ing|ed) .*systemd-udevd' \
        "rdma-provision-early.service (naming rules) finished before udevd started"
    check_order "$log" 'Finished .*rdma-provision-ap' 'Starting .*dracut-initqueue' \
        "rdma-provision-apply.service finished before dracut-initqueue.service (ifup, netroot)"
    check_order "$log" 'Finished .*rdma-provision-ap' 'Reached target .*network-pre' \
        "rdma-provision-apply.service is ordered before network-pre.target"
    check_order "$log" 'Finished .*rdma-provision-ha' 'Starting .*initrd-cleanup' \
        "the hand-off ran before initrd-cleanup (switch-root)"
}

scenario_3-bad-parameter() {
    # A misspelt parameter. (a) With rd.rdma.required=1: the error names it, the boot stops
    # in dracut's emergency path and the VM powers off. (b) Without: the same error, nothing
    # is provisioned, the boot goes on (here to a root over NFS/TCP, as RDMA is not there).
    local log=$RUN_DIR/required-client.log bad="rd.rdma.mlx=0000:81:00.0/eth"
    boot_pair no client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS $bad rd.rdma.required=1" 240
    rename_logs required
    check_true "$CLIENT_RC" "(a) required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "rd\.rdma\.mlx=0000:81:00\.0/eth: unknown parameter" "(a) the error names the parameter"
    check_line "$log" 'rdma-provision: .*invalid input.*stopping the boot' "(a) the boot is stopped, with the reason"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(a) dracut's emergency path ran"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "(a) the boot did not go on"

    log=$RUN_DIR/not-required-client.log
    boot_pair yes client-shell \
        "$BOOT $ROOT_TCP ip=$CLI_IP:::$MASK:e2e-client::none rd.neednet=1 $RDMA_ARGS $bad" 300
    rename_logs not-required
    check_true "$CLIENT_RC" "(b) not required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "rd\.rdma\.mlx=0000:81:00\.0/eth: unknown parameter" "(b) the error names the parameter"
    check_line "$log" 'rdma-provision: invalid input.*the boot continues' "(b) the boot continues, and says so"
    check_line "$log" 'E2E-RESULT: BOOTED' "(b) the client booted into the NFS root"
    check_line "$log" 'NFSROOT: rdma devices: none' "(b) nothing was provisioned"
}

scenario_4-server-absent() {
    # No server: rdma-provision succeeds, the NFS mount cannot; the failure must be bounded,
    # give its reason, and power the VM off by itself.
    local log=$RUN_DIR/client.log
    # rd.retry=10 (the last one counts): fail fast once the mount has failed.
    boot_pair no client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.retry=10" 420
    check_true "$CLIENT_RC" "client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s (deadline 420 s)"
    check_line "$log" 'E2E-ONLINE: .* rdma-provision done before: yes' "rdma-provision finished before ifup"
    check_line "$log" "Resolving $SRV_IP via ARP on $NIC failed" "the reason: the server does not answer"
    check_line "$log" 'mount(\.nfs4?)?: .*' "the mount failure is reported"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "dracut's emergency path ran"
    check_line "$log" 'E2E-EMERGENCY: unfinished .*nfsroot' "the reason: the NFS root never came"
    check_line "$log" 'E2E-EMERGENCY: state.json \| +"exit_code": 0' "rdma-provision itself had succeeded"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "the boot did not go on"
}

scenario_5-disabled() {
    # rd.rdma=0: the tool does nothing and says so once; the root comes over NFS/TCP.
    local log=$RUN_DIR/client.log
    boot_pair yes client-systemd \
        "$BOOT $ROOT_TCP ip=$CLI_IP:::$MASK:e2e-client::none rd.neednet=1 $RDMA_ARGS rd.rdma.required=1 rd.rdma=0" 300
    check_true "$CLIENT_RC" "client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_count "$log" 'rdma-provision: .*disabled' 1 "rdma-provision said it is disabled, once"
    check_line "$log" 'E2E-RESULT: BOOTED' "the client booted into the NFS root"
    check_line "$log" 'NFSROOT: root mount: .* / nfs4 .*proto=tcp' "/ is NFS over TCP"
    check_line "$log" 'NFSROOT: rdma devices: none' "no RDMA device was created"
    check_line "$log" 'NFSROOT: \| +"enabled": false' "state.json says disabled"
}

scenario_6-roce-v1() {
    # RoCE v1 asked on Soft-RoCE (v2 only). (a) Not required: the kernel's EINVAL is
    # reported clearly, the rest of the boot is unaffected. (b) With rd.rdma.required=1:
    # the same error stops the boot (the unit fails, OnFailure=emergency.target).
    local log=$RUN_DIR/not-required-client.log v1="${RDMA_ARGS/rxe0\/1:v2:106/rxe0/1:v1:106}"
    boot_pair yes client-systemd "$BOOT $ROOT_RDMA $IP_NIC $v1" 300
    rename_logs not-required
    CLIENT_LOG=$log client_booted_checks
    check_line "$log" 'rdma-provision: .*(roce|default_roce_mode).*(Invalid argument|EINVAL)' \
        "the kernel's EINVAL for RoCE v1 is reported"
    check_line "$log" 'rdma-provision: apply: some actions failed.*the boot continues' \
        "not required: the boot continues, the failure is logged"
    check_line "$log" 'NFSROOT: configfs rxe0/1 default_roce_mode: RoCE v2' "the RoCE mode stayed v2"
    check_line "$log" 'NFSROOT: \| +"exit_code": 1' "state.json records the failure (exit_code 1)"

    log=$RUN_DIR/required-client.log
    boot_pair no client-systemd "$BOOT $ROOT_RDMA $IP_NIC $v1 rd.rdma.required=1" 240
    rename_logs required
    check_true "$CLIENT_RC" "(required) client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'rdma-provision: FATAL: apply: some actions failed.*Invalid argument.*stopping the boot' \
        "(required) the boot is stopped, with the kernel's error as the reason"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(required) the emergency path ran (OnFailure=emergency.target)"
    check_no_line "$log" 'E2E-ONLINE: ' "(required) dracut never configured the network"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "(required) the boot did not go on"
}

scenario_7-with-50rdma() {
    # rdma-core's own dracut module (kernel-boot/dracut/50rdma, from rdma-core's source) in
    # the same image as ours: its rdma-load-modules@ units, its naming rules and rdma_rename
    # (Debian's rdma-core 44: it renames by PCI location and does not know the kernel's
    # "named by the user" mark). The boot must be scenario 2's, with rxe0 still rxe0. That
    # siw0 would be renamed without the /run guard is the CLI test's
    # (tests/cli/commands_cli_test.cc RdmaCoresRenamingRuleLeavesOurSoftDevicesAlone).
    local img=$W/img/client-systemd-50rdma.img log=$RUN_DIR/client.log l=$RUN_DIR/lsinitrd.txt
    lsinitrd "$img" > "$l" 2>&1
    check_line "$l" 'udev/rules\.d/60-rdma-persistent-naming\.rules$' "50rdma: rdma-core's naming rules are in the image"
    check_line "$l" 'udev/rdma_rename$' "50rdma: rdma_rename is in the image"
    check_line "$l" 'initrd\.target\.wants/rdma-load-modules@rdma\.service' "50rdma: its module-loading units are wanted by initrd.target"
    check_line "$l" 'initrd\.target\.wants/rdma-provision-apply\.service' "ours: rdma-provision-apply.service is wanted by initrd.target"
    check_line "$l" 'udev/rules\.d/61-rdma-provision\.rules$' "ours: 61-rdma-provision.rules, after rdma-core's 60- rules"
    check_line "$W/logs/build-client-systemd-50rdma.log" "rdma-core's 50rdma is in this image too" \
        "the image build says how the two modules share the image"
    # The command line also names a card this node lacks (the same image on another
    # node): apply waits for udev's end for it, says it absent, and the boot goes on.
    # rd.rdma.required=0 after the harness's =1 (the later token wins): under required an
    # absent target fails the boot (a require action; tests/cli/loud_boot_cli_test.cc).
    scenario_boot client-systemd-50rdma "rd.rdma.roce=mlx5_0/1:v2 rd.rdma.required=0"
    systemd_apply_checks absent
    check_line "$log" 'NFSROOT: rdma device rxe0 port 1 state: 4: ACTIVE' "rxe0 still has its name after rdma-core's rules ran (NAME_FALLBACK renames by PCI location; rxe has no PCI parent)"
}

scenario_8-netlink-requests() {
    # The requests rdma-provision sends, beside iproute2's for the same operation, on the
    # guest's real kernel (tests/e2e/dracut/96e2e-nlmon, tests/nlmon/compare.py): rename,
    # up/down, MTU, IPv4/IPv6 address, routes, P_Key child, IPoIB mode (refused: no IPoIB
    # device here), rxe and siw links (siw refused: not in Debian's 6.1 kernel), a second
    # rxe link on one interface (EEXIST); then rdma-provision itself, twice.
    local log=$RUN_DIR/guest.log t0
    t0=$(now)
    start_vm guest "$W/img/nlmon.img" "console=ttyS0 panic=-1 rd.shell=0 root=/dev/vda" \
        "$CLI_MAC" "$PORT_A" "$PORT_B" 240
    local rc=0
    wait_vm guest || rc=$?
    check_true "$rc" "the guest powered off by itself (exit $rc) in $(elapsed "$t0") s"
    check_line "$log" 'E2E-RESULT: NLMON-DONE' "the guest ran every operation"
    plain "$log" > "$RUN_DIR/guest.txt"
    python3 "$REPO/tests/nlmon/compare.py" "$RUN_DIR/guest.txt" > "$RUN_DIR/compare.txt" 2>&1
    local crc=$?
    cat "$RUN_DIR/compare.txt" | sed 's/^/    | /'
    check_true "$crc" "every request is the same as iproute2's or equivalent, answered alike: $(tail -n1 "$RUN_DIR/compare.txt")"
    check_line "$log" "nl-ops: errno=17 rxe_u: cannot create rxe device 'rxe_u' on eth0: eth0 has a rxe device already" \
        "the kernel's EEXIST for a second Soft-RoCE device on one interface is explained"
    check_line "$log" 'nl-ops: errno=95 rpd0: cannot set IPoIB mode connected: rpd0 is not an IPoIB interface' \
        "the kernel's EOPNOTSUPP for IPoIB link data on another kind of link is explained"
    check_line "$log" 'nl-ops: errno=95 eth0: DCB state \(IEEE_GET\): its driver has no DCB support \(no dcbnl_ops\)' \
        "the kernel's EOPNOTSUPP for DCB on virtio_net is explained"
    check_line "$RUN_DIR/compare.txt" '== dcb-app-add' "DCB requests were compared (get, PFC, ETS, APP add and delete)"
    check_line "$log" 'E2E-NLMON: plan with rxe_t on eth0: plan: [0-9]+ actions?' "rdma-provision planned with rxe_t already on eth0"
    check_no_line "$log" 'E2E-NLMON: plan with rxe_t on eth0: .*soft-link' "... and planned no second link: it sees rxe_t through RDMA netlink (the kernel would answer EEXIST)"
    check_line "$log" 'E2E-NLMON: first apply: .*soft-link rxe0.*done' "apply created rxe0 on eth0"
    check_line "$log" 'E2E-NLMON: second apply: .*0 done' "a second apply changes nothing"
}

scenario_9-binary-fault() {
    # The binary dies or hangs in apply (test-only image: e2e-fault.sh stands in for it and
    # runs the real one for everything else). (a) It aborts, not required: the hooks name
    # the signal once and the boot goes on (root over NFS/TCP); the real root gets a state
    # saying what happened. (b) It hangs, required: the hooks' watchdog kills it at
    # rd.rdma.timeout + 15 s and the boot stops, bounded.
    local log=$RUN_DIR/abort-client.log
    boot_pair yes client-shell-fault \
        "$BOOT $ROOT_TCP ip=$CLI_IP:::$MASK:e2e-client:$NIC:none rd.neednet=1 $RDMA_ARGS e2e.fault=abort" 300
    rename_logs abort
    check_true "$CLIENT_RC" "(a) abort: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    # Once in the kernel log (dracut's warn also echoes it to the console, untimestamped).
    check_count "$log" '^\[ *[0-9.]+\] dracut Warning: rdma-provision: apply was killed by SIGABRT \(exit 134\) before it finished; .*the boot continues' 1 \
        "(a) the crash is reported once, with the signal, and the boot continues"
    check_line "$log" 'E2E-RESULT: BOOTED' "(a) the client booted into the NFS root"
    check_line "$log" 'NFSROOT: root mount: .* / nfs4 .*proto=tcp' "(a) / is NFS over TCP"
    check_line "$log" 'NFSROOT: \| +"exit_code": 134' "(a) the real root's state.json: exit_code 134"
    check_line "$log" 'NFSROOT: \| +"crashed": "apply was killed by SIGABRT' "(a) ... and what happened"

    log=$RUN_DIR/hang-client.log
    boot_pair no client-shell-fault \
        "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.rdma.timeout=10 e2e.fault=hang" 240
    rename_logs hang
    check_true "$CLIENT_RC" "(b) hang: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'rdma-provision: apply was still running 25 s after it started \(rd.rdma.timeout 10 s \+ 15 s\): killed; .*stopping the boot' \
        "(b) the watchdog killed the hung apply at rd.rdma.timeout + 15 s and says so"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(b) dracut's emergency path ran"
    check_line "$log" 'E2E-EMERGENCY: state.json \| +"exit_code": 137' "(b) the state records the kill (137)"
    check_no_line "$log" 'E2E-ONLINE: ' "(b) dracut never configured the network"
}

scenario_10-broken-config() {
    # A syntax error in the configuration baked into the image (tests/e2e/broken.conf,
    # line 6): the error with file:line on the console (the kernel log), nothing applied,
    # and the policy of a bad parameter: the boot continues, or stops when required.
    local log=$RUN_DIR/not-required-client.log
    local err='rdma-provision: error: /etc/rdma-provision/rdma-provision\.conf:6: section header .\[roce. is missing its closing .\].'
    # The first line of defence: dracut does not build an image from it (the image is
    # then built with the good one, and e2e_broken_config puts the broken one in).
    local refused=0
    build_image client-shell-badconf-refused "$CLIENT_MODULES rdma-provision e2e-client" \
        "${CLIENT_CONF[@]/#rdma_provision_config=*/rdma_provision_config=$E2E/broken.conf}" > /dev/null 2>&1 || refused=1
    cp "$W/logs/build-client-shell-badconf-refused.log" "$RUN_DIR/" 2> /dev/null
    check_true "$((1 - refused))" "dracut refused to build an image from the broken configuration"
    check_line "$RUN_DIR/build-client-shell-badconf-refused.log" '90rdma-provision: error: .*/broken\.conf:6: section header' \
        "... naming file and line"
    boot_pair yes client-shell-badconf \
        "$BOOT $ROOT_TCP ip=$CLI_IP:::$MASK:e2e-client::none rd.neednet=1 $RDMA_ARGS" 300
    rename_logs not-required
    check_true "$CLIENT_RC" "(a) not required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "$err" "(a) the error names the file and line"
    check_line "$log" 'rdma-provision: invalid input.*the boot continues' "(a) the boot continues, and says so"
    check_line "$log" 'E2E-RESULT: BOOTED' "(a) the client booted into the NFS root (over TCP)"
    check_line "$log" 'NFSROOT: rdma devices: none' "(a) nothing was provisioned"

    log=$RUN_DIR/required-client.log
    boot_pair no client-shell-badconf "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1" 240
    rename_logs required
    check_true "$CLIENT_RC" "(b) required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "$err" "(b) the error names the file and line"
    check_line "$log" 'rdma-provision: .*invalid input.*stopping the boot' "(b) the boot is stopped, with the reason"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(b) dracut's emergency path ran"
}

link_off_at_start() {  # BOOT_HOOK: the client's NIC has no carrier when the guest starts
    vm_monitor client "set_link n0 off" && vm_monitor client cont
}

link_off_until_provisioned() {  # BOOT_HOOK: ... and gets it back once rdma-provision gave up
    link_off_at_start || return
    if wait_for_line client 'rdma-provision: apply: the deadline' 180; then
        vm_monitor client "set_link n0 on"
        echo "link restored at $(elapsed "$BOOT_T0") s" > "$RUN_DIR/link-restored"
    fi
}

scenario_11-port-inactive() {
    # The NIC under Soft-RoCE has no carrier (QEMU's set_link off before the guest runs),
    # with rd.rdma.wait=rxe0/1: the wait ends at rd.rdma.timeout, the report names the port
    # and its state, exit 3. (a) Not required: the boot goes on; the harness gives the link
    # back then, and the root comes over NFS/RDMA. (b) Required: emergency, bounded.
    local log=$RUN_DIR/not-required-client.log
    BOOT_T0=$(now) BOOT_HOOK=link_off_until_provisioned \
        boot_pair yes client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.timeout=15" 300
    rename_logs not-required
    check_true "$CLIENT_RC" "(a) not required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'timed-out +wait-port +rxe0/1: .*port 1 of rxe0 is (DOWN|ACTIVE but fabric0 under it has no carrier)' "(a) the report names the port, its state and the interface"
    check_line "$log" 'rdma-provision: apply: the deadline \(rd.rdma.timeout\) passed before everything was done \(exit 3\).*the boot continues' \
        "(a) exit 3 at the deadline, and the boot continues"
    check_true "$([[ -e $RUN_DIR/link-restored ]]; echo $?)" "(a) the harness gave the link back after that ($(cat "$RUN_DIR/link-restored" 2> /dev/null))"
    check_line "$log" 'E2E-RESULT: BOOTED' "(a) the client booted into the NFS root"
    check_line "$log" 'NFSROOT: root mount: .* / nfs4 .*proto=rdma' "(a) / is NFS over RDMA once the link is back"

    log=$RUN_DIR/required-client.log
    BOOT_HOOK=link_off_at_start \
        boot_pair no client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.timeout=15 rd.rdma.required=1" 240
    rename_logs required
    check_true "$CLIENT_RC" "(b) required: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'timed-out +wait-port +rxe0/1: .*port 1 of rxe0 is (DOWN|ACTIVE but fabric0 under it has no carrier)' "(b) the report names the port, its state and the interface"
    check_line "$log" 'rdma-provision: .*deadline.*\(exit 3\).*stopping the boot' "(b) exit 3 stops the boot"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(b) dracut's emergency path ran"
    check_line "$log" 'E2E-EMERGENCY: state.json \| +"exit_code": 3' "(b) state.json: exit_code 3"
}

at_the_break() {  # BOOT_HOOK: what an administrator at the rd.break=$BREAK_AT shell looks at, then exit
    local bp=$BREAK_AT cmd
    wait_for_line client "$bp:/# " 240 || { echo "(no $bp shell)" >> "$RUN_DIR/break-missing"; return; }
    # Typed as on a terminal (Enter is a carriage return); the guest's shell expands it.
    cmd=$(printf 'echo "E2E-BREAK %s: $(ls /run/rdma-provision /etc/udev/rules.d /lib/dracut/hooks/initqueue | tr "\\n" " ")"; sed -n "s/^RP_EXIT_CODE/E2E-BREAK %s: state.env RP_EXIT_CODE/p" /run/rdma-provision/state.env; rdma-provision explain | sed "s/^/E2E-EXPLAIN %s: /"; exit\r' "$bp" "$bp" "$bp")
    vm_type client "$cmd"
}

scenario_12-rd-break() {
    # rd.break=pre-udev, initqueue and pre-mount, one boot each (dracut's getarg takes the
    # last rd.break=; shell flavour, init.sh breaks before each hook): at the shell the
    # harness types what an administrator looks at, then exit continues the boot. Before
    # pre-udev the early step has run (its log, state.env and the naming rules); before the
    # initqueue apply is queued there (00-rdma-provision.sh), not run; before pre-mount it
    # has run (state.json, exit 0).
    local bp log
    for bp in pre-udev initqueue pre-mount; do
        BREAK_AT=$bp BOOT_HOOK=at_the_break BOOT_HOOK_MODE=console boot_pair yes client-shell \
            "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.break=$bp" 300
        rename_logs "$bp"
        log=$RUN_DIR/$bp-client.log
        check_true "$CLIENT_RC" "$bp: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
        check_line "$log" 'E2E-RESULT: BOOTED' "$bp: exit at the shell continued the boot into the NFS root"
    done
    check_true "$([[ ! -e $RUN_DIR/break-missing ]]; echo $?)" "a shell opened at each break point $(cat "$RUN_DIR/break-missing" 2> /dev/null)"
    log=$RUN_DIR/pre-udev-client.log
    check_line "$log" 'E2E-BREAK pre-udev: .*60-rdma-provision\.rules.* /run/rdma-provision: .*early\.log .*state\.env' \
        "pre-udev: the early step's log and state, and the naming rules before udev starts"
    check_no_line "$log" 'E2E-BREAK pre-udev: .*state\.json' "pre-udev: apply has not run"
    log=$RUN_DIR/initqueue-client.log
    check_line "$log" 'E2E-BREAK initqueue: .*00-rdma-provision\.sh' "initqueue: apply is queued as the first initqueue job"
    check_no_line "$log" 'E2E-BREAK initqueue: .*state\.json' "initqueue: ... and has not run"
    log=$RUN_DIR/pre-mount-client.log
    check_line "$log" 'E2E-BREAK pre-mount: .*apply\.log .*state\.json' "pre-mount: apply has run: its log and state.json"
    check_line "$log" "E2E-BREAK pre-mount: state.env RP_EXIT_CODE='0'" "pre-mount: state.env says exit 0"
    check_line "$log" 'E2E-EXPLAIN pre-mount: initramfs .*exit 0: all done' "pre-mount: explain tells the initramfs run's outcome"
    check_line "$log" 'E2E-EXPLAIN pre-mount: +record: /run/rdma-provision/initramfs/state.json' "pre-mount: ... and where its record is"
    check_line "$log" 'NFSROOT: root mount: .* / nfs4 .*proto=rdma' "pre-mount: / is NFS over RDMA"
}

# ------------------------------------------------------------------ the diskless path (PXE)
# One image and one command line for every node; the boot script lives on the server.
PXE_MACS=(52:54:00:77:00:02 52:54:00:77:00:03)
PXE_NAMES=(nodea0 nodeb0)   # their rows in tests/e2e/cluster.conf
PXE_IPS=(10.77.0.2 10.77.0.3)  # their rows' lease= (the server's host entries)
PXE_HOSTS=(nodea nodeb)         # ... and host=
PXE_CMDLINE="$BOOT $ROOT_RDMA ip=dhcp rd.neednet=1 rd.rdma.roce=rxe0/1:v2:106 rd.rdma.wait=rxe0/1"
PXE_BROKEN_MAC=52:54:00:77:00:04  # the server's script gives it a corrupt initramfs
PXE_STRANGER_MAC=52:54:00:77:00:05  # no row in the node table, no static lease

prepare_pxe_dir() {  # $W/pxe: what the server's httpd serves, and its DHCP host entries
    local d=$W/pxe
    rm -rf "$d" && mkdir -p "$d"
    # The server's half of the node table the client image carries.
    "$W/bin/rdma-provision" dhcp-hosts --format dnsmasq --config "$E2E/cluster.conf" \
        --cmdline-string '' --output "$d/dhcp-hosts.conf" || die_e2e "dhcp-hosts of $E2E/cluster.conf"
    cp "$KERNEL" "$d/vmlinuz"
    cp "$W/img/client-pxe.img" "$d/client.img"
    # A corrupt initramfs for the node $PXE_BROKEN_MAC (4 MiB of 0xff: no archive magic).
    head -c 4194304 /dev/zero | tr '\0' '\377' > "$d/corrupt.img"
    cat > "$d/boot.ipxe" << EOF
#!ipxe
echo E2E-PXE: \${net0/mac} configured \${net0/ip} by DHCP, boot file \${filename}
iseq \${net0/mac} $PXE_BROKEN_MAC && goto corrupt ||
iseq \${net0/mac} $PXE_STRANGER_MAC && set extra rd.retry=10 ||
kernel http://$SRV_IP/vmlinuz initrd=client.img $PXE_CMDLINE \${extra}
initrd http://$SRV_IP/client.img
echo E2E-PXE: kernel and initramfs loaded over HTTP
boot
:corrupt
kernel http://$SRV_IP/vmlinuz initrd=corrupt.img $PXE_CMDLINE
initrd http://$SRV_IP/corrupt.img
echo E2E-PXE: kernel and a corrupt initramfs loaded over HTTP
boot
EOF
}

# pxe_node NAME MAC MODE: one client boot (MODE pxe, or direct: -kernel/-initrd/-append of
# the same image and command line); PXE_TO_ROOT: power-on to the NFS root's init, in s.
pxe_node() {
    local name=$1 mac=$2 mode=$3 t0 rc=0
    t0=$(now)
    if [[ $mode == pxe ]]; then
        start_vm "$name" "" "" "$mac" "$PORT_B" "$PORT_A" 400 pxe
    else
        start_vm "$name" "$W/img/client-pxe.img" "$PXE_CMDLINE" "$mac" "$PORT_B" "$PORT_A" 400
    fi
    PXE_TO_ROOT=timeout
    wait_for_line "$name" 'NFSROOT: running /sbin/init' 400 && PXE_TO_ROOT=$(elapsed "$t0")
    wait_vm "$name" || rc=$?
    check_true "$rc" "$name: powered off by itself (exit $rc) in $(elapsed "$t0") s"
}

scenario_13-pxe() {
    # Two diskless nodes with no kernel of their own boot one after the other through
    # their NIC's boot ROM (SeaBIOS + Debian's iPXE): DHCP from the server VM (dnsmasq,
    # the host entries rdma-provision dhcp-hosts made of the same node table the image
    # carries, boot file http://10.77.0.1/boot.ipxe), the kernel and
    # the one initramfs over HTTP (busybox httpd), the command line in the server's
    # script. Each node finds its row of the image's node table by its MAC (name and
    # Soft-RoCE device), gets its address by DHCP, and mounts its root over NFS/RDMA.
    # Before them node A boots the same image directly (-kernel), for the firmware's share,
    # and a third node gets a corrupt initramfs from the server's script.
    local i name log
    start_vm server "$W/img/server-pxe.img" \
        "console=ttyS0 panic=-1 rd.shell=0 e2e.ip=$SRV_IP/24 e2e.lifetime=1100 e2e.clients=2" \
        "$SRV_MAC" "$PORT_A" "$PORT_B" 1200
    if ! wait_for_line server 'E2E-SERVER: READY' 240; then
        check_true 1 "the server came up"
        return
    fi
    check_line "$RUN_DIR/server.log" 'E2E-SERVER: PXE: dnsmasq and httpd on' "the server serves DHCP and HTTP on the private segment"
    check_line "$RUN_DIR/server.log" "E2E-SERVER: PXE: dnsmasq's host entries: dhcp-host=${PXE_MACS[0]},${PXE_IPS[0]},${PXE_HOSTS[0]} dhcp-host=${PXE_MACS[1]},${PXE_IPS[1]},${PXE_HOSTS[1]}" \
        "the server's host entries are what rdma-provision dhcp-hosts made of the image's node table"
    local times=()
    # First node A the usual way (-kernel), for the firmware's share of the PXE boots.
    pxe_node direct "${PXE_MACS[0]}" direct
    local direct=$PXE_TO_ROOT
    check_line "$RUN_DIR/direct.log" 'E2E-RESULT: BOOTED' "direct: the same image and command line booted with -kernel"
    # A server that serves a corrupt initramfs: the kernel says so, and the boot ends.
    pxe_node broken "$PXE_BROKEN_MAC" pxe
    check_line "$RUN_DIR/broken.log" 'E2E-PXE: kernel and a corrupt initramfs loaded over HTTP' "broken: iPXE loaded what the server served"
    check_line "$RUN_DIR/broken.log" 'Initramfs unpacking failed' "broken: the kernel's own message names the initramfs"
    check_line "$RUN_DIR/broken.log" 'Kernel panic' "broken: ... and the boot ends there (panic=-1, no hang)"
    # A node the table does not know: the defaults apply, it warns once (two rows are as
    # near its MAC: no guess), and without its row it has no Soft-RoCE device, so the
    # wait the command line names fails at once and the root over RDMA cannot come:
    # bounded (dracut's retries: boot.ipxe gives this node rd.retry=10, and getarg takes
    # the last one; an unset iPXE setting, \${extra} on the others, expands to nothing).
    pxe_node stranger "$PXE_STRANGER_MAC" pxe
    log=$RUN_DIR/stranger.log
    check_count "$log" "^\\[ *[0-9.]+\\] rdma-provision: warning: /etc/rdma-provision/rdma-provision.conf: the node table \\(2 rows\\) has no row for this node \\(${PXE_STRANGER_MAC}\\): the defaults apply" 1 \
        "stranger: the node table has no row for its MAC, and it warns so once"
    check_line "$log" 'rdma-provision: error: failed  wait-port rxe0/1: absent -> ACTIVE: rxe0/1: no such RDMA port is present; none is present  \[cmdline: rd.rdma.wait=rxe0/1\]' \
        "stranger: the wait for what only its row would make fails at once, naming it"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "stranger: no root over RDMA without its row: dracut's emergency path, bounded"
    check_line "$log" 'Kernel command line: .* rd\.retry=30 .* rd\.retry=10 *$' "stranger: iPXE gave it rd.retry=10 after the usual rd.retry=30"
    for i in 0 1; do
        name=node$i log=$RUN_DIR/node$i.log
        pxe_node "$name" "${PXE_MACS[$i]}" pxe
        times+=("${PXE_NAMES[$i]} $PXE_TO_ROOT s,")
        check_line "$log" 'iPXE .*Open Source Network Boot Firmware' "$name: the NIC's boot ROM ran (no -kernel, no disk)"
        check_line "$log" "E2E-PXE: ${PXE_MACS[$i]} configured ${PXE_IPS[$i]//./\\.} by DHCP, boot file http://" "$name: iPXE got its lease and the boot file"
        check_line "$log" 'E2E-PXE: kernel and initramfs loaded over HTTP' "$name: kernel and initramfs came over HTTP"
        check_line "$log" "NFSROOT: netdev ${PXE_NAMES[$i]} address ${PXE_MACS[$i]}" "$name: its own row's name, ${PXE_NAMES[$i]}"
        check_line "$log" "rdma-provision: done  soft-link rxe0: .*on ${PXE_NAMES[$i]}.*\\(node table\\)" "$name: its row's Soft-RoCE device"
        check_line "$log" "NFSROOT: root mount: .* / nfs4 .*proto=rdma,port=20049.*clientaddr=${PXE_IPS[$i]//./\\.}," "$name: / is NFS over RDMA from its DHCP address"
        check_line "$log" 'E2E-RESULT: BOOTED' "$name: booted into the NFS root"
        check_no_line "$log" 'Kernel command line: .*rd\.retry=10' "$name: the stranger's rd.retry=10 is not on its command line"
    done
    times+=("${PXE_NAMES[0]} with -kernel $direct s")
    # The server reports every client once the last one is done, then powers off.
    wait_for_line server "E2E-SERVER: client done: client ${PXE_MACS[1]}" 30 > /dev/null && sleep 3
    stop_vm server
    check_count "$RUN_DIR/server.log" 'E2E-SERVER: client done' 2 "the server saw both nodes write to their root (two MACs)"
    for i in 0 1; do
        check_line "$RUN_DIR/server.log" "E2E-SERVER: dnsmasq: .*DHCPACK\\([^)]*\\) ${PXE_IPS[$i]//./\\.} ${PXE_MACS[$i]} ${PXE_HOSTS[$i]}" \
            "dnsmasq gave ${PXE_NAMES[$i]}'s MAC its row's lease= and host= (generated entry)"
    done
    CHECKS+=("ok   power-on to the NFS root's init (wall, TCG): PXE ${times[*]}")
}

scenario_14-dhcp() {
    # DHCP on our interface, without PXE: ip=fabric0:dhcp (dracut's dhclient on the name
    # rdma-provision gave) with the server VM answering on the private segment only
    # (dnsmasq, the node table's host entry for its MAC). (a) The address comes by DHCP on fabric0
    # and the root over NFS/RDMA. (b) No DHCP server: the boot ends, bounded, with
    # dracut's reason, rdma-provision having done its part. (c) root=dhcp with
    # rd.rdma.verify=peer: the peer is the server of the DHCP root-path.
    local log=$RUN_DIR/dhcp-client.log
    start_vm server "$W/img/server-pxe.img" \
        "console=ttyS0 panic=-1 rd.shell=0 e2e.ip=$SRV_IP/24 e2e.lifetime=400" \
        "$SRV_MAC" "$PORT_A" "$PORT_B" 460
    if ! wait_for_line server 'E2E-SERVER: READY' 240; then
        check_true 1 "the server came up"
        return
    fi
    local t0 rc=0
    t0=$(now)
    start_vm client "$W/img/client-shell.img" "$BOOT $ROOT_RDMA ip=$NIC:dhcp rd.neednet=1 $RDMA_ARGS" \
        "$CLI_MAC" "$PORT_B" "$PORT_A" 300
    wait_vm client || rc=$?
    wait_for_line server 'E2E-SERVER: client done' 30 > /dev/null && sleep 2
    stop_vm server
    rename_logs dhcp
    check_true "$rc" "(a) client VM powered off by itself (exit $rc) in $(elapsed "$t0") s"
    check_line "$log" 'E2E-ONLINE: fabric0 configured by dracut .* rdma-provision done before: yes' \
        "(a) dracut configured fabric0, the name rdma-provision gave, after it had run"
    check_line "$log" "NFSROOT: root mount: .* / nfs4 .*proto=rdma,port=20049.*clientaddr=${CLI_IP//./\\.}," \
        "(a) / is NFS over RDMA from the address DHCP gave fabric0"
    check_line "$log" 'E2E-RESULT: BOOTED' "(a) booted into the NFS root"

    # (c) root=dhcp and rd.rdma.verify=peer: the peer is the NFS server of the root-path
    # DHCP gave (dnsmasq's option 17), which dracut's dhclient-script recorded in
    # /tmp/dhclient.fabric0.dhcpopts before the online hook; the server's listener answers.
    log=$RUN_DIR/root-dhcp-client.log
    start_vm server "$W/img/server-pxe.img" \
        "console=ttyS0 panic=-1 rd.shell=0 e2e.ip=$SRV_IP/24 e2e.lifetime=400 e2e.rootpath=nfs4:$SRV_IP:/export/root:rdma,port=20049,vers=4.2 e2e.verify-listen=1" \
        "$SRV_MAC" "$PORT_A" "$PORT_B" 460
    if wait_for_line server 'E2E-SERVER: READY' 240; then
        rc=0 t0=$(now)
        start_vm client "$W/img/client-shell.img" \
            "$BOOT root=dhcp rw ip=$NIC:dhcp rd.neednet=1 $RDMA_ARGS rd.rdma.required=1 rd.rdma.verify=peer" \
            "$CLI_MAC" "$PORT_B" "$PORT_A" 300
        wait_vm client || rc=$?
        wait_for_line server 'E2E-SERVER: client done' 30 > /dev/null && sleep 2
    else
        check_true 1 "(c) the server came up"
    fi
    stop_vm server
    rename_logs root-dhcp
    check_true "$rc" "(c) root=dhcp: client VM powered off by itself (exit $rc) in $(elapsed "$t0") s"
    check_line "$log" "rdma-provision: checked +verify-peer +$SRV_IP:7472: .*\\[cmdline: rd.rdma.verify=peer \\(the NFS server of /tmp/dhclient\\.fabric0\\.dhcpopts \\(new_root_path\\)\\)\\]" \
        "(c) the peer check took the server from the DHCP root-path dracut recorded for fabric0"
    check_order "$log" 'rdma-provision: checked +verify-peer' "E2E-ONLINE: $NIC configured" \
        "(c) ... at the online point, before netroot mounted the root"
    check_line "$RUN_DIR/root-dhcp-server.log" "E2E-SERVER: rdma-provision: verify: connection from ${CLI_IP%/*} on rxe0/1" \
        "(c) the server's listener saw the client"
    check_line "$log" "NFSROOT: root mount: .* / nfs4 .*proto=rdma,port=20049" "(c) / is NFS over RDMA from the DHCP root-path"
    check_line "$log" 'E2E-RESULT: BOOTED' "(c) booted into the NFS root"
    check_line "$log" 'NFSROOT: second apply \| .*no peer to check: cmdline: root=dhcp takes the NFS server from DHCP, which only the initramfs knows' \
        "(c) the real root's apply says why it checks no peer (DHCP's server is the initramfs' to know)"
    check_line "$log" 'NFSROOT: second apply \| .*summary: 0 done, 0 already, 1 checked, 0 skipped, 0 failed' \
        "(c) ... its port check counted as checked, not done"

    log=$RUN_DIR/no-server-client.log
    boot_pair no client-shell "$BOOT $ROOT_RDMA ip=$NIC:dhcp rd.neednet=1 $RDMA_ARGS rd.retry=10" 420
    rename_logs no-server
    check_true "$CLIENT_RC" "(b) no DHCP server: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'rdma-provision: summary: .* 0 failed' "(b) rdma-provision did its part"
    check_line "$log" 'dracut Warning: dhcp for interface fabric0 failed' "(b) dracut says DHCP failed on fabric0"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(b) dracut's emergency path ran"
    check_line "$log" 'E2E-EMERGENCY: unfinished .*' "(b) the reason: what never finished"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "(b) the boot did not go on"
}

scenario_15-network-manager() {
    # The systemd initramfs with dracut's network-manager module in place of network-legacy,
    # as RHEL 8-10 and Fedora build it: nm-initrd-generator turns ip= into a connection for
    # fabric0, the name our early rules gave when the NIC appeared; our apply finishes
    # before NetworkManager starts; the root comes over NFS/RDMA as in scenario 2.
    local log=$RUN_DIR/client.log l=$RUN_DIR/lsinitrd.txt
    lsinitrd "$W/img/client-systemd-nm.img" > "$l" 2>&1
    check_line "$l" 'NetworkManager/nm-initrd-generator$' "the image has NetworkManager's initrd generator"
    check_line "$l" 'initrd\.target\.wants/nm-initrd\.service' "... and nm-initrd.service"
    check_no_line "$l" '/ifup$' "... and not network-legacy's ifup"
    scenario_boot client-systemd-nm
    check_order "$log" 'Finished .*rdma-provision-ap' 'Start(ing|ed) .*(nm-initrd|NetworkManager)' \
        "rdma-provision-apply.service finished before NetworkManager started"
}

scenario_16-verify-peer() {
    # rd.rdma.verify=peer with rd.rdma.required=1: once dracut configured the interface,
    # before the NFS mount, the module's online hook checks the port with a loopback RC QP
    # pair and connects to the server's `rdma-provision verify --listen` (the peer is the
    # NFS server of root=), writes into its buffer and times round trips.
    # A second NIC, aux0, sorts first and comes online first with a static address on
    # another segment: dracut sources the online hook for it too, before fabric0 has its
    # address, and no route leads to the peer then: the check waits for fabric0. dracut's
    # setup_net ARPs the root server on aux0 (arping -f -w 60, net-lib.sh): the server has a
    # NIC on that segment (10.77.1.1), and a Linux host answers an ARP request for any of
    # its addresses on any interface (arp_ignore=0, net/ipv4/arp.c arp_process), so the
    # ARP is answered at once instead of after 60 s; no route to the peer comes of it.
    local log=$RUN_DIR/client.log
    local aux="ip=10.77.1.2:::$MASK:e2e-client:aux0:none ifname=aux0:52:54:00:77:01:02 bootdev=$NIC"
    CLIENT_NIC2=52:54:00:77:01:02 SERVER_NIC2=52:54:00:77:01:01 \
        SERVER_APPEND="e2e.verify-listen=1 e2e.aux-ip=10.77.1.1/24" \
        boot_pair yes client-shell "$BOOT $ROOT_RDMA $aux $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.rdma.verify=peer" 300
    client_booted_checks
    check_line "$log" 'rdma-provision: verify: aux0 is online, but the route to the peer 10\.77\.0\.1 does not exist yet: the peer is checked when that interface is online' \
        "aux0 came online first: no route to the peer through it, the check waited"
    check_order "$log" 'verify: aux0 is online, but the route' 'rdma-provision: checked +verify-peer' \
        "... and ran once fabric0, which routes to the peer, was online"
    check_line "$log" 'rdma-provision: checked +verify-port +rxe0/1: .*GID ::ffff:10\.77\.0\.2 \(index [0-9]+, RoCE v2\), RDMA WRITE of [0-9]+ bytes checked, 8 round trips, median' \
        "the loopback on rxe0/1 (at network-online) used the IPv4 RoCE v2 GID, checked its RDMA WRITE and timed round trips"
    check_order "$log" 'rdma-provision: checked +verify-port' 'rdma-provision: checked +verify-peer' "the port was checked before the peer"
    check_line "$log" "rdma-provision: checked +verify-peer +$SRV_IP:7472: .*via rxe0/1 GID ::ffff:10\.77\.0\.2, RDMA WRITE of 4096 bytes checked by the peer, 8 round trips, median" \
        "verify --boot: connected to the NFS server's listener by the IPv4 GID, the peer checked the write"
    check_order "$log" 'rdma-provision: checked +verify-peer' "E2E-ONLINE: $NIC configured" \
        "the peer was verified at the network-online point, before netroot mounted the root"
    check_line "$RUN_DIR/server.log" "E2E-SERVER: rdma-provision: verify: connection from ${CLI_IP%/*} on rxe0/1" "the server's listener saw the client"
    check_line "$RUN_DIR/server.log" 'E2E-SERVER: rdma-provision: verify: .*DISCONNECTED after 9 message\(s\); RDMA WRITE checked' \
        "... which wrote 4096 bytes it checked, then 8 round trips"
    check_line "$log" "NFSROOT: verify.env \| RP_EXIT_CODE='0'" "the real root sees the peer check's result (verify.env)"
    check_line "$log" "NFSROOT: verify.env \\| RP_SUMMARY='summary: 0 done, 0 already, 2 checked, 0 skipped, 0 failed" "... both checks (verify.env)"
    check_line "$log" 'rdma-provision: verify: 2 checks, [0-9.]+ s CPU' "what the checks cost the boot's CPU"
    check_line "$log" 'NFSROOT: metrics \| rdma_provision_verify\{check="peer",object="10.77.0.1:7472"\} 1' \
        "the real root's run checked the path again, for the fleet's metrics"
    check_line "$log" 'NFSROOT: second apply \| .*summary: 0 done, [0-9]+ already, 2 checked, 0 skipped, 0 failed' \
        "the real root's second apply: its two checks counted as checked, 0 done (nothing changed)"
    check_line "$log" 'NFSROOT: metrics \| rdma_provision_actions\{outcome="checked"\} 2' "... and so in the metrics"
}

scenario_22-siw() {
    # Soft-iWARP end to end (#28): the kernel's own siw driver, which Debian builds into no
    # kernel, built by rules/bootstrap.sh from Debian's 6.12 source package for Debian's
    # 6.12 kernel (E2E_KERNEL=6.12). Both VMs run iWARP: the server makes siw0 with
    # iproute2's rdma and exports over NFS/RDMA; the client's rd.rdma.siw makes siw0 on its
    # NIC, waits for its port, and the peer check connects through rdma_cm (iw_cm: an
    # iWARP QP is connected over TCP, siw_qp.c), before the root is mounted over
    # NFS/RDMA, iWARP underneath.
    local log=$RUN_DIR/client.log
    if [[ $E2E_KERNEL != 6.12 ]]; then
        CHECKS+=("FAIL needs E2E_KERNEL=6.12: Debian's $E2E_KERNEL kernel has no siw, and bootstrap builds siw.ko for 6.12 only")
        CHECK_FAILED=1
        return
    fi
    SERVER_APPEND="e2e.soft=siw e2e.verify-listen=1" boot_pair yes client-shell-siw \
        "$BOOT $ROOT_RDMA $IP_NIC rd.rdma.siw=$NIC rd.rdma.name=$NIC:$CLI_MAC rd.rdma.wait=siw0/1 rd.rdma.required=1 rd.rdma.verify=peer" 300
    client_booted_checks
    check_line "$RUN_DIR/server.log" 'E2E-SERVER: rdma link: .*siw0/1 state ACTIVE' "the server's Soft-iWARP link is up"
    check_line "$log" 'siw: loading out-of-tree module' "the client's kernel loaded the siw.ko built for it (out of tree: it taints)"
    check_line "$log" 'rdma-provision: done +soft-link +siw0: .*siw on fabric0' "rdma-provision made the Soft-iWARP link on the named NIC"
    check_line "$log" 'rdma-provision: (done|already) +wait-port +siw0/1' "... and waited for its port"
    check_line "$log" "rdma-provision: checked +verify-peer +$SRV_IP:7472: .*via siw0/1 address ${CLI_IP//./\\.} \\(iWARP\\), RDMA WRITE of 4096 bytes checked by the peer" \
        "the peer check connected over iWARP (rdma_cm, iw_cm) and the server checked the write"
    check_line "$RUN_DIR/server.log" 'E2E-SERVER: client done' "the server saw the client's write over NFS/RDMA on iWARP"
}

scenario_21-verify-load() {
    # The listener as a service under load and faults: the server runs verify --listen
    # --max-sessions 4 --allow 10.77.0.0/28; the client boots as in 16, then from its real
    # root (nfsroot/init, e2e.load=1) sends 10 clients in a row, one killed mid-check, short
    # and garbage hellos, one from outside --allow; then 2 silent ones (held past the 15 s
    # deadline) and 2 hanging ones take all 4 sessions, a valid hello must be answered busy,
    # 8 start at once (busy, retried once the hanging two are killed), then 4 more at once.
    local log=$RUN_DIR/client.log srv=$RUN_DIR/server.log
    # The server deletes and re-adds its rxe0 under the listener first; a client whose
    # boot check came in that window was (rightly) refused and its boot stopped under
    # rd.rdma.required=1 (CI, stop 48): the client starts once the listener listens again.
    SERVER_APPEND="e2e.verify-listen=load" SERVER_WAIT='E2E-SERVER: rdma-provision: verify: listening again on' \
        boot_pair yes client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.rdma.verify=peer e2e.load=1" 300
    client_booted_checks
    check_line "$srv" 'E2E-SERVER: device removal: rdma link delete rxe0: exit 0' "the server's rxe0 was deleted under the listener, which let it go"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: 10\.77\.0\.1:7472: RDMA_CM_EVENT_DEVICE_REMOVAL: closing everything, to start anew' "the listener saw its device go and closed everything"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: listening again on 10\.77\.0\.1:7472' "... and listened again once rxe0 was back"
    check_line "$log" "rdma-provision: checked +verify-peer +$SRV_IP:7472" "the boot's own peer check passed against the limited listener"
    local n
    n=$(grep -cE 'NFSROOT: load: client row[0-9]+ passed' "$log")
    check_true "$([[ $n -eq 10 ]]; echo $?)" "10 clients in a row passed ($n)"
    check_line "$log" 'NFSROOT: load: killed mid-check: verify_fault hang: established' "a client connected, then was killed mid-check"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: 10\.77\.0\.2: RDMA_CM_EVENT_DISCONNECTED after 0 message\(s\); RDMA WRITE not checked' \
        "... and the listener freed its session when the kernel disconnected it"
    check_line "$log" 'NFSROOT: load: verify_fault short: rejected \(reason 28, plain\)' "a short hello: a plain reject"
    check_line "$log" 'NFSROOT: load: verify_fault garbage: rejected \(reason 28, plain\)' "garbage private data: a plain reject"
    check_line "$log" 'NFSROOT: load: outside --allow: verify_fault hello: rejected \(reason 28, plain\)' "a source outside --allow: a plain reject"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: 10\.77\.0\.50: not in --allow: rejected' "... which the listener names"
    n=$(grep -cE 'NFSROOT: load: (silent: verify_fault silent:20|holding: verify_fault hang): established' "$log")
    check_true "$([[ $n -eq 4 ]]; echo $?)" "two silent and two hanging clients held all 4 sessions ($n established)"
    check_line "$log" 'NFSROOT: load: at the cap: verify_fault hello: rejected \(reason 28, busy\)' "a valid hello at the cap: answered busy"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: 10\.77\.0\.2: busy \(at --max-sessions\): asked to retry' "... which the listener names"
    n=$(grep -cE 'NFSROOT: load: client burst[0-9]+ passed' "$log")
    check_true "$([[ $n -eq 8 ]]; echo $?)" "8 clients at once at the cap (the hanging two killed 2 s later), all passed ($n)"
    check_line "$srv" 'E2E-SERVER: rdma-provision: verify: 10\.77\.0\.2: no end within 15 s \(client silent or gone\): closed' "silent sessions closed at the 15 s deadline"
    n=$(grep -cE 'NFSROOT: load: client after[0-9]+ passed' "$log")
    check_true "$([[ $n -eq 4 ]]; echo $?)" "4 well-behaved clients after the faults passed ($n)"
    check_line "$srv" 'E2E-SERVER: listener after metric: rdma_provision_listener_active_sessions 0' "no session left open"
    check_line "$srv" 'E2E-SERVER: listener after metric: rdma_provision_listener_busy_total [1-9]' "busy answers counted"
    check_line "$srv" 'E2E-SERVER: listener after metric: rdma_provision_listener_refusals_total 3' "3 refusals counted (short, garbage, outside --allow)"
    check_line "$srv" 'E2E-SERVER: listener after metric: rdma_provision_listener_expired_total 2' "2 sessions expired"
    check_line "$srv" 'E2E-SERVER: listener after metric: rdma_provision_listener_relistens_total 1' "1 re-listen counted"
    local before after rss0 rss1 fd0 fd1
    before=$(grep -m1 'E2E-SERVER: listener before: VmRSS' "$srv")
    after=$(grep -m1 'E2E-SERVER: listener after: VmRSS' "$srv")
    rss0=$(sed -nE 's/.*VmRSS: ([0-9]+) kB.*/\1/p' <<< "$before") fd0=${before##*fds }
    rss1=$(sed -nE 's/.*VmRSS: ([0-9]+) kB.*/\1/p' <<< "$after") fd1=${after##*fds }
    fd0=${fd0%$'\r'} fd1=${fd1%$'\r'}  # the console's line ends
    check_true "$([[ -n $rss0 && -n $rss1 && $fd0 == "$fd1" && $((rss1 - rss0)) -le 1024 ]]; echo $?)" \
        "the listener's memory and fds bounded: before VmRSS ${rss0:-?} kB, ${fd0:-?} fds; after ${rss1:-?} kB, ${fd1:-?} fds"
    check_line "$log" 'NFSROOT: load: done in [0-9.]+ s' "the load test's time"
}

scenario_17-verify-no-listener() {
    # The same boot against a server without a listener, rd.rdma.required=1: the connect
    # stage fails with the kernel's reason (IB CM reject 8: no listener on the port) and
    # the boot stops before the mount, bounded. (a) Shell init: dracut's die(). (b) systemd
    # init: the online hook runs in dracut-initqueue.service, where die() would halt with
    # the reason only in the kernel log; the failure takes emergency.target instead, as a
    # failed apply does (the unit's OnFailure=): the reason on the console, no die().
    local log=$RUN_DIR/shell-client.log
    boot_pair yes client-shell "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.rdma.verify=peer" 240
    rename_logs shell
    check_true "$CLIENT_RC" "(a) client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'rdma-provision: checked +verify-port +rxe0/1' "(a) the port itself passed its loopback"
    check_line "$log" "failed +verify-peer +$SRV_IP:7472: .*: $SRV_IP:7472: connect \\(via rxe0/1\\): rejected: no listener on that port \\(IB CM reject reason 8" \
        "(a) the failing stage is named: connect, rejected, no listener on that port"
    check_line "$log" 'rdma-provision: verify: the RDMA path to the peer does not work \(exit 1\).*stopping the boot' \
        "(a) rd.rdma.required=1: the failure stops the boot"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(a) dracut's emergency path ran"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "(a) the root was not mounted"

    log=$RUN_DIR/systemd-client.log
    boot_pair yes client-systemd "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 rd.rdma.verify=peer" 240
    rename_logs systemd
    check_true "$CLIENT_RC" "(b) systemd: client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "failed +verify-peer +$SRV_IP:7472: .*rejected: no listener on that port" "(b) the failing stage is named"
    check_line "$log" 'rdma-provision: FATAL: verify: the RDMA path to the peer does not work \(exit 1\).*rd.rdma.required=1: stopping the boot' \
        "(b) the reason on the console, as a failed apply's under systemd"
    check_line "$log" 'rdma-provision: starting emergency.target \(as a failed unit.s OnFailure= would\)' \
        "(b) emergency.target started, the path of a failed apply's unit"
    check_order "$log" 'rdma-provision: starting emergency.target' 'Reached target emergency.target' \
        "(b) systemd reached emergency.target after it"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(b) the emergency path ran"
    check_line "$log" 'E2E-EMERGENCY: rdma-provision failure: verify: the RDMA path to the peer does not work' \
        "(b) ... and the emergency hooks have the reason"
    check_no_line "$log" 'E2E-EMERGENCY: die: |dracut: FATAL: rdma-provision' "(b) not dracut's die() (its halt, the reason only in the kernel log)"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "(b) the root was not mounted"
}

scenario_18-dracut-ng() {
    # The images built by dracut-ng 106 (trixie's dracut, from its own tree beside the
    # machine's 059): shell init and systemd, each the boot of scenario 1 (names, RoCE,
    # root over NFS/RDMA, the state handed over), with rd.rdma.verify=peer against the
    # server's listener on the systemd one.
    local img log
    for img in client-ng-shell client-ng-systemd; do
        log=$RUN_DIR/$img-client.log
        local extra="" server_extra=""
        [[ $img == client-ng-systemd ]] && extra="rd.rdma.verify=peer" server_extra="e2e.verify-listen=1"
        SERVER_APPEND=$server_extra \
            boot_pair yes "$img" "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS rd.rdma.required=1 $extra" 300
        rename_logs "$img"
        CLIENT_LOG=$log client_booted_checks
        check_line "$log" 'rdma-provision: .*soft-link rxe0' "$img: rdma-provision created the Soft-RoCE link"
        check_line "$log" 'NFSROOT: configfs rxe0/1 default_roce_tos: 106' "$img: RoCE ToS in configfs"
        check_line "$log" 'NFSROOT: \| +"exit_code": 0' "$img: state.json handed to the real root: exit_code 0"
        check_line "$W/logs/build-$img.log" 'dracut\[I\]: Executing: .*/src/dracut/dracut.sh' "$img: the image was built by dracut-ng's dracut.sh"
    done
    log=$RUN_DIR/client-ng-systemd-client.log
    check_line "$log" 'Finished .*rdma-provision-ap' "client-ng-systemd: rdma-provision-apply.service ran under dracut-ng's systemd units"
    check_line "$log" "rdma-provision: checked +verify-peer +$SRV_IP:7472" "client-ng-systemd: the peer verified from dracut-ng's online hook"
}

scenario_19-nm-no-generator() {
    # An initramfs with dracut's network-manager module but without nm-initrd-generator
    # (35network-manager installs it only when the build host has it): rdma-provision does
    # its part and says once, on the console, that nothing will configure the network; the
    # root cannot come; dracut's emergency path ends the boot, bounded.
    local log=$RUN_DIR/client.log
    boot_pair yes client-systemd-nm-nogen "$BOOT $ROOT_RDMA $IP_NIC $RDMA_ARGS" 300
    check_true "$CLIENT_RC" "client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" 'rdma-provision: .*warning: /usr/sbin/NetworkManager: NetworkManager is in this initramfs but nm-initrd-generator is not' \
        "the missing generator is named on the console"
    local n
    n=$(grep -c 'nm-initrd-generator is not' "$log")
    check_true "$([[ $n == 1 ]]; echo $?)" "... once ($n time(s): the early step leaves the input's warnings to apply)"
    check_line "$log" 'rdma-provision: .*soft-link rxe0' "rdma-provision did its part"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "dracut's emergency path ran"
    check_no_line "$log" 'E2E-RESULT: BOOTED' "the root was not mounted"
}

scenario_image() {
    # lsinitrd: our binary, config and exactly the modules the client needs; sizes with and
    # without the module; rdma-core's files and their modules when asked for.
    local with=$W/img/client-shell.img without=$W/img/client-shell-without.img
    local core=$W/img/client-shell-rdma-core.img l=$RUN_DIR
    lsinitrd "$with" > "$l/with.txt" 2>&1
    lsinitrd "$without" > "$l/without.txt" 2>&1
    lsinitrd "$core" > "$l/rdma-core.txt" 2>&1
    check_line "$l/with.txt" ' usr/sbin/rdma-provision$' "the binary is in the image"
    check_line "$l/with.txt" ' etc/rdma-provision/rdma-provision.conf$' "the configuration is in the image"
    check_line "$l/with.txt" 'usr/lib/systemd/system|lib/dracut/hooks/cmdline/20-rdma-provision-cmdline.sh' "the cmdline hook is in the image"
    lsinitrd "$W/img/client-systemd.img" > "$l/systemd.txt" 2>&1
    local u
    for u in early apply handoff; do
        check_line "$l/systemd.txt" "initrd\.target\.wants/rdma-provision-$u\.service" \
            "systemd flavour: rdma-provision-$u.service is in the image and wanted by initrd.target"
    done
    mods() { grep -oE '[^/ ]+\.ko(\.[a-z]+)?$' "$1" | sed -E 's/\.ko(\.[a-z]+)?$//' | sort -u | tr '\n' ' '; }
    rdma_mods() { grep -E '/kernel/drivers/infiniband/' "$1" > "$1.ib"; mods "$1.ib"; }
    local added want_added rdma want_rdma
    # The RDMA stack in the image: core, verbs, CM and Soft-RoCE; no IPoIB, no HCA driver.
    rdma=$(rdma_mods "$l/with.txt")
    want_rdma="ib_cm ib_core ib_uverbs iw_cm rdma_cm rdma_rxe rdma_ucm "
    check_true "$([[ $rdma == "$want_rdma" ]]; echo $?)" \
        "RDMA modules in the client image are exactly: $rdma$([[ $rdma == "$want_rdma" ]] || echo " (expected: $want_rdma)")"
    # What the module adds to the same image without it (nfs already brings rpcrdma and,
    # through it, ib_core/rdma_cm; kernel-network-modules brings the Ethernet drivers).
    added=$(comm -23 <(mods "$l/with.txt" | tr ' ' '\n' | sed '/^$/d') <(mods "$l/without.txt" | tr ' ' '\n' | sed '/^$/d') | tr '\n' ' ')
    want_added="crc32-pclmul crc32_generic ib_uverbs rdma_rxe rdma_ucm "
    check_true "$([[ $added == "$want_added" ]]; echo $?)" \
        "kernel modules added by 90rdma-provision: $added$([[ $added == "$want_added" ]] || echo " (expected: $want_added)")"
    check_line "$l/with.txt" 'xprtrdma/rpcrdma\.ko' "rpcrdma (NFS over RDMA) is in the image"
    local s1 s0
    s1=$(stat -c %s "$with") s0=$(stat -c %s "$without")
    CHECKS+=("ok   image size: $s1 bytes with 90rdma-provision, $s0 bytes without (+$((s1 - s0)) bytes)")
    if [[ -d /etc/rdma/modules ]]; then
        check_line "$l/rdma-core.txt" ' etc/rdma/modules/rdma\.conf$' "rdma_provision_rdma_core=yes: rdma-core's module lists are installed"
        # [modules] defer = yes, the default: what only rdma-core's lists ask for loads on
        # the real root (rdma-provision.service, or rdma-core's rdma-load-modules@), so
        # the lists add no module to the image: each one they name that is in it is in
        # the same image without rdma-core's files too (the RDMA core set, nfs' rpcrdma).
        local m f added_by_lists= deferred=
        for m in $(grep -hvE '^[[:space:]]*(#|;|$)' /etc/rdma/modules/*.conf | awk '{print $1}' | sort -u); do
            modinfo -k "$KVER" "$m" > /dev/null 2>&1 || continue  # not built for this kernel
            f=$(modinfo -k "$KVER" -F filename "$m" | sed 's#.*/##; s/\.ko.*//')
            if grep -qE "/$f\.ko" "$l/rdma-core.txt"; then
                grep -qE "/$f\.ko" "$l/with.txt" || added_by_lists+=" $m"
            else
                deferred+=" $m"
            fi
        done
        check_true "$([[ -z $added_by_lists ]]; echo $?)" "rdma_provision_rdma_core=yes: the lists add no module to the image (deferred to the real root:${deferred:- none})${added_by_lists:+ (added:$added_by_lists)}"
    fi
}

scenario_20-hca-standin() {
    # A hardware stand-in (e2e-fault.sh, e2e.hca=): the RDMA device is registered before
    # apply on a link that is down, as an HCA driver registers it at probe, and its port
    # is DOWN. No soft-link setting, and the NIC named by dracut's own ifname=: the
    # configuration gives the device a fixed name (rd.rdma.devname, #44), then only waits
    # for and checks its port by that name. The rename comes first (RDMA netlink, as `rdma
    # dev set` does it); the plan brings the link up before the wait (before, the wait ran
    # to the deadline: nothing set the link up), the port becomes ACTIVE, the loopback
    # check passes, the root comes over NFS/RDMA, and on the real root the device still has
    # its fixed name and the second apply has nothing to rename.
    local log=$RUN_DIR/client.log
    boot_pair yes client-shell-fault \
        "$BOOT $ROOT_RDMA $IP_NIC rd.rdma.devname=hca0:netdev-$NIC rd.rdma.roce=hca0/1:v2:106 ifname=$NIC:$CLI_MAC rd.rdma.wait=hca0/1 rd.rdma.verify=ports rd.rdma.required=1 e2e.hca=$NIC" 300
    check_line "$log" "E2E-HCA: rxe0 on $NIC, link down: 1: DOWN" "the stand-in device is registered on a down link, its port DOWN"
    check_line "$log" "rdma-provision: done +rdma-rename +rxe0: rxe0 -> hca0 .*\\[cmdline: rd.rdma.devname=hca0:netdev-$NIC\\]" \
        "the device under $NIC was given its fixed name hca0"
    check_line "$log" "rdma-provision: done +link-up +$NIC: down -> up .*\\[cmdline: rd.rdma.wait=hca0/1\\]" \
        "the wait brought the port's interface up (nothing else here names it: dracut's ifname= names the NIC)"
    # Soft-RoCE is ACTIVE at NETDEV_UP (rxe_notify), so the wait's first look after the
    # link-up finds it so ("already"); a ConnectX would take its carrier's time ("done").
    check_line "$log" 'rdma-provision: (done|already) +wait-port +hca0/1: DOWN \(fabric0 down\) before action 1 -> ACTIVE' \
        "the plan saw the port DOWN with its link down; the wait found it ACTIVE once the link was up"
    check_order "$log" "rdma-provision: done +rdma-rename +rxe0" "rdma-provision: (done|already) +roce-tos +hca0/1" "the rename before the RoCE default that names the new name"
    check_order "$log" "rdma-provision: done +link-up +$NIC" 'rdma-provision: (done|already) +wait-port +hca0/1' "link-up before the wait"
    check_line "$log" 'rdma-provision: checked +verify-port +hca0/1: .*RDMA WRITE of [0-9]+ bytes checked' \
        "the port was loopback-checked once ACTIVE, under its new name"
    check_line "$log" 'NFSROOT: rdma device hca0 port 1 state: 4: ACTIVE' "the real root has the device under its fixed name"
    check_no_line "$log" 'NFSROOT: rdma device rxe0 ' "... and none under the old one"
    check_line "$log" 'NFSROOT: configfs hca0/1 default_roce_tos: 106' "the RoCE default set under the new name holds"
    check_no_line "$log" 'NFSROOT: second apply \| .*rdma-rename' "the real root's apply has nothing to rename (the name held)"
    client_booted_checks
}

scenario_23-nvmf-root() {
    # The root on NVMe over Fabrics over RDMA (#41): the server exports it as namespace 1 of
    # a subsystem that allows one host, through nvmet over its Soft-RoCE link; the client
    # names no network root (root=UUID= of the image) and no rd.neednet: rd.nvmf.discover=rdma,...
    # alone makes the early step ask dracut for the network, apply makes the RDMA port
    # ready, and at the online point the binary connects (discovery, the subsystem, its
    # namespace) through /dev/nvme-fabrics, before dracut's wait for the root device ends.
    local log=$RUN_DIR/client.log nqn=nqn.2026-11.io.rdma-provision:e2e-root
    local hostid=5e7c1d2a-8b4f-4e6a-9c3d-1f2e3a4b5c6d
    local hostnqn=nqn.2014-08.org.nvmexpress:uuid:$hostid
    SERVER_IMG=server-nvmf SERVER_APPEND="e2e.nvmf=$nqn e2e.nvmf-host=$hostnqn" SERVER_WAIT='E2E-SERVER: READY' \
        boot_pair yes client-shell-nvmf \
        "$BOOT root=UUID=$NVMF_UUID rootfstype=ext4 rw ip=$CLI_IP:::$MASK:e2e-client:$NIC:none $RDMA_ARGS rd.nvmf.discover=rdma,$SRV_IP rd.nvmf.hostnqn=$hostnqn rd.nvmf.hostid=$hostid rd.rdma.required=1 rd.rdma.verify=peer" 300
    check_line "$RUN_DIR/server.log" "E2E-SERVER: nvmet: $nqn namespace 1 .* on rdma $SRV_IP:4420, host $hostnqn" \
        "the server exports the root over NVMe/RDMA to this host only"
    check_true "$CLIENT_RC" "client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "rdma-provision: done +nvmf-connect +nvmf $SRV_IP:4420: not connected -> .*connected $nqn as /dev/nvme[0-9]+n1 \\(nvme[0-9]+\\)" \
        "the binary connected the subsystem and found its namespace's block device"
    check_order "$log" 'rdma-provision: (done|already) +wait-port +rxe0/1' 'rdma-provision: done +nvmf-connect' \
        "the RDMA port was ready before the connect"
    # rd.rdma.verify=peer: the peer is the target, tried as the kernel's host opens its
    # admin queue before the connect is written to /dev/nvme-fabrics.
    check_line "$log" "rdma-provision: checked +verify-nvmf +nvmf $SRV_IP:4420: not verified -> accepts an NVMe/RDMA admin queue \\(via rxe0/1 GID [^ ]+: the target accepted an admin queue of 32" \
        "the target was checked through rdma_cm before the connect (rd.rdma.verify=peer)"
    check_order "$log" 'rdma-provision: checked +verify-nvmf' 'rdma-provision: done +nvmf-connect' \
        "the check came before the connect"
    check_line "$log" 'E2E-RESULT: BOOTED' "the client booted into the root on NVMe/RDMA"
    check_line "$log" 'NFSROOT: root mount: /dev/nvme[0-9]+n1 / ext4 ' "/ is the NVMe namespace, ext4"
    check_line "$log" "NFSROOT: nvme controller nvme[0-9]+: rdma traddr=$SRV_IP,trsvcid=4420 live $nqn" \
        "the real root has the controller, live over RDMA"
    check_line "$log" "NFSROOT: status \\|   nvme[0-9]+  rdma  traddr=$SRV_IP,trsvcid=4420  live  $nqn  /dev/nvme[0-9]+n1  via $NIC \\(rxe0/1\\)" \
        "status shows the controller, its namespace and the RDMA port it goes through"
    check_no_line "$log" "NFSROOT: nvme controller .*nqn.2014-08.org.nvmexpress.discovery" \
        "the discovery controller was removed once its log was read"
    check_line "$log" "NFSROOT: nvmf.env \\| RP_SUMMARY='summary: 1 done" "the connect's record reached the real root"
    check_line "$log" 'dracut: rdma-provision: rd.neednet=1: cmdline: rd.nvmf.discover=rdma' \
        "the early step asked dracut for the network (no rd.neednet on the command line)"
    check_line "$log" "NFSROOT: metrics \\| rdma_provision_nvmf_controller\\{controller=\"nvme[0-9]+\",address=\"traddr=$SRV_IP,trsvcid=4420\",subsysnqn=\"$nqn\",state=\"live\"\\} 1" \
        "the real root's metrics count the controller live"

    # (c) The same client built by dracut-ng 106: the same connect at its online point.
    rename_logs ok
    log=$RUN_DIR/client.log
    SERVER_IMG=server-nvmf SERVER_APPEND="e2e.nvmf=$nqn e2e.nvmf-host=$hostnqn" SERVER_WAIT='E2E-SERVER: READY' \
        boot_pair yes client-ng-shell-nvmf \
        "$BOOT root=UUID=$NVMF_UUID rootfstype=ext4 rw ip=$CLI_IP:::$MASK:e2e-client:$NIC:none $RDMA_ARGS rd.nvmf.discover=rdma,$SRV_IP rd.nvmf.hostnqn=$hostnqn rd.nvmf.hostid=$hostid rd.rdma.required=1" 300
    rename_logs ng
    log=$RUN_DIR/ng-client.log
    check_line "$W/logs/build-client-ng-shell-nvmf.log" 'dracut\[I\]: Executing: .*/src/dracut/dracut.sh' \
        "(dracut-ng) the image was built by dracut-ng's dracut.sh"
    check_true "$CLIENT_RC" "(dracut-ng) client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "rdma-provision: done +nvmf-connect +nvmf $SRV_IP:4420: not connected -> .*connected $nqn as /dev/nvme[0-9]+n1 \\(nvme[0-9]+\\)" \
        "(dracut-ng) the binary connected the subsystem at dracut-ng's online point"
    check_line "$log" 'E2E-RESULT: BOOTED' "(dracut-ng) the client booted into the root on NVMe/RDMA"
    check_line "$log" 'NFSROOT: root mount: /dev/nvme[0-9]+n1 / ext4 ' "(dracut-ng) / is the NVMe namespace, ext4"

    # (b) The target absent (no server): the connect is tried again while the path may
    # come (rd.rdma.timeout 10 s here), then fails saying why, and rd.rdma.required=1 stops
    # the boot there, not in dracut's wait for a root device that never comes.
    boot_pair no client-shell-nvmf \
        "$BOOT root=UUID=$NVMF_UUID rootfstype=ext4 rw ip=$CLI_IP:::$MASK:e2e-client:$NIC:none $RDMA_ARGS rd.nvmf.discover=rdma,$SRV_IP rd.nvmf.hostnqn=$hostnqn rd.nvmf.hostid=$hostid rd.rdma.required=1 rd.rdma.timeout=10" 240
    rename_logs absent
    log=$RUN_DIR/absent-client.log
    check_true "$CLIENT_RC" "(absent) client VM powered off by itself (exit $CLIENT_RC) in $CLIENT_WALL s"
    check_line "$log" "rdma-provision: error: failed +nvmf-connect +nvmf $SRV_IP:4420: .*discovery: cannot connect: (the RDMA connection failed|the target did not answer in time)" \
        "(absent) the connect failed, saying why"
    check_line "$log" 'E2E-RESULT: EMERGENCY' "(absent) the boot stopped there (rd.rdma.required=1)"
    check_line "$log" 'E2E-EMERGENCY: rdma-provision failure: nvmf: the NVMe over Fabrics target over RDMA is not connected' \
        "(absent) ... with the reason"
}

# ---------------------------------------------------------------- main
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }

main() {
    local selected=() a s
    for a in "$@"; do
        case $a in
            --list) printf '%s\n' "${SCENARIOS[@]}"; return 0 ;;
            -h | --help) usage; return 0 ;;
            all) selected+=("${SCENARIOS[@]}") ;;
            *)
                for s in "${SCENARIOS[@]}"; do
                    [[ $s == "$a" || ${s%%-*} == "$a" ]] && { selected+=("$s"); continue 2; }
                done
                echo "e2e: unknown scenario '$a' (known: ${SCENARIOS[*]})" >&2
                return 2
                ;;
        esac
    done
    if ((${#selected[@]} == 0)); then
        selected=("${SCENARIOS[@]}")
        # Debian's 6.1 has no siw, nor a siw.ko built for it: all of 6.1's is the others.
        [[ ${E2E_KERNEL:-6.1} == 6.1 ]] && selected=("${selected[@]/22-siw/}")
        mapfile -t selected < <(printf '%s\n' "${selected[@]}" | grep .)
    fi

    mkdir -p "$W/logs"
    trap 'cleanup_all' EXIT
    trap 'cleanup_all; echo "e2e: interrupted; every VM it started is stopped" >&2; exit 130' INT TERM

    local t_all images=() passed=0 failed=0
    t_all=$(now)
    if [[ ${E2E_NO_BOOTSTRAP:-0} != 1 ]]; then
        # Only what the scenarios need: the 6.1 boots but 8 (strace), 15 and 19
        # (NetworkManager) and 18 (dracut-ng) need nothing beyond --boot.
        local boot=--boot s
        [[ ${E2E_KERNEL:-6.1} == 6.1 ]] || boot=--e2e
        for s in "${selected[@]}"; do
            case ${s%%-*} in 8 | 15 | 18 | 19 | 22 | 23) boot=--e2e ;; esac
        done
        say "rules/bootstrap.sh $boot ${E2E_BOOTSTRAP_ARGS:-}"
        # shellcheck disable=SC2086
        bash "$REPO/rules/bootstrap.sh" $boot ${E2E_BOOTSTRAP_ARGS:-} ||
            { echo "0 passed, ${#selected[@]} failed"; return 1; }
    fi
    pick_kernel
    say "kernel $KVER, dracut $(dpkg-query -W -f='${Version}' dracut-core 2> /dev/null), $(qemu-system-x86_64 --version | head -n1)"
    build_binary
    install_package
    [[ " ${selected[*]} " == *" 8-netlink-requests "* ]] && build_test_tools
    [[ " ${selected[*]} " == *" 21-verify-load "* ]] && build_fault_client
    pick_accel
    prepare_dracut_base
    [[ " ${selected[*]} " == *" 18-dracut-ng "* || " ${selected[*]} " == *" 23-nvmf-root "* ]] && prepare_dracut_ng_base
    prepare_nfsroot
    for s in "${selected[@]}"; do read -ra a <<< "${NEEDS[$s]}" && images+=("${a[@]}"); done
    local build_ok=0
    mapfile -t images < <(printf '%s\n' "${images[@]}" | sort -u)
    build_images "${images[@]}" || build_ok=1

    local summary=()
    for s in "${selected[@]}"; do
        RUN_DIR=$W/logs/$s
        rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
        CHECKS=() CHECK_FAILED=0
        local t0 wall verdict keep=
        t0=$(now)
        if ((build_ok != 0)); then
            CHECKS+=("FAIL an image could not be built (see $W/logs/build-*.log)")
            CHECK_FAILED=1
        else
            "scenario_$s"
        fi
        wall=$(elapsed "$t0")
        cleanup_all
        if ((CHECK_FAILED)); then
            verdict=FAIL
            failed=$((failed + 1))
            keep=$W/failed/$(date +%Y%m%d-%H%M%S)-$s
            mkdir -p "$keep" && cp -a "$RUN_DIR/." "$keep/"
        else
            verdict=PASS
            passed=$((passed + 1))
            [[ ${E2E_KEEP_LOGS:-1} == 0 ]] && rm -f "$RUN_DIR"/*.log
        fi
        echo "=== $verdict $s (${wall} s)"
        printf '    %s\n' "${CHECKS[@]}"
        [[ $verdict == FAIL ]] && echo "    logs: $keep"
        summary+=("$verdict $s ${wall} s")
    done
    echo "=== summary (total $(elapsed "$t_all") s, accelerator ${QEMU_ACCEL[1]})"
    printf '    %s\n' "${summary[@]}"
    echo "$passed passed, $failed failed"
    ((failed == 0))
}

main "$@"
