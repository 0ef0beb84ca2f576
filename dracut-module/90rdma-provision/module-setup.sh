#!/bin/bash
# 90rdma-provision: puts the static rdma-provision binary, its configuration, rdma-core's
# files and the RDMA kernel modules into the initramfs, and runs the binary at the right
# moments of both initramfs flavours (dracut's shell init, systemd). Design: README.md.
#
# dracut.conf settings (all optional):
#   rdma_provision_binary=FILE   the static binary (default /usr/sbin/rdma-provision)
#   rdma_provision_config=FILE   the configuration, installed as
#                                /etc/rdma-provision/rdma-provision.conf
#                                (default: that file on the host, when present)
#   rdma_provision_drivers="MOD ..."
#                                the RDMA drivers of the target (e.g. "mlx5_ib",
#                                "mlx4_ib mlx4_en", "rdma_rxe"), instead of the host's
#                                (host-only) or all of them (generic images)
#   rdma_provision_rdma_core=no  leave out rdma-core's files and the modules they list

_rp_binary() { echo "${rdma_provision_binary:-/usr/sbin/rdma-provision}"; }
_rp_config() { echo "${rdma_provision_config:-$dracutsysrootdir/etc/rdma-provision/rdma-provision.conf}"; }

# RDMA drivers that a NIC driver needs beside it (the NIC driver's own request_module may
# fail in an initramfs); the binary loads them, the image must carry them.
_rp_rdma_modules_for() {
    case "$1" in
        mlx4_core | mlx4_en) echo mlx4_core mlx4_en mlx4_ib ;;
        mlx5_core) echo mlx5_core mlx5_ib ;;
        bnxt_en) echo bnxt_en bnxt_re ;;
        cxgb4) echo cxgb4 iw_cxgb4 ;;
        qede | qed) echo qede qedr ;;
        ice | i40e) echo "$1" irdma ;;
        hns3) echo hns3 hns_roce_hw_v2 ;;
        be2net) echo be2net ocrdma ;;
        mana) echo mana mana_ib ;;
        # Drivers that are RDMA drivers themselves (hfi1, ib_qib, efa, vmw_pvrdma, erdma...).
        *) echo "$1" ;;
    esac
}

# The host's RDMA devices (sysfs), as the modules of their PCI drivers.
_rp_host_rdma_pci_drivers() {
    local _d _m
    for _d in "$dracutsysrootdir"/sys/class/infiniband/*; do
        [[ -e $_d/device/driver/module ]] || continue
        _m=$(readlink -f "$_d/device/driver/module")
        echo "${_m##*/}"
    done | sort -u
}

_rp_host_has_rdma() {
    local _d
    for _d in "$dracutsysrootdir"/sys/class/infiniband/*; do
        [[ -e $_d ]] && return 0
    done
    return 1
}

# Whether the configuration, the command line baked into the image (kernel_cmdline=) or,
# host-only, the running command line asks for Soft-RoCE ($1 = rxe) or Soft-iWARP (siw).
_rp_soft_asked() {
    local _conf _cmdline="$kernel_cmdline"
    _conf=$(_rp_config)
    [[ -f $_conf ]] && grep -Eq "^[[:space:]]*\[[[:space:]]*$1[[:space:]]" "$_conf" && return 0
    [[ $hostonly ]] && _cmdline+=" $(< /proc/cmdline)"
    [[ " $_cmdline " == *" rd.rdma.$1="* ]] && return 0
    [[ $hostonly ]] && [[ -d /sys/module/$([[ $1 == rxe ]] && echo rdma_rxe || echo siw) ]] && return 0
    return 1
}

# The RDMA drivers the image carries (see rdma_provision_drivers above).
_rp_drivers() {
    local _m
    if [[ -n ${rdma_provision_drivers-} ]]; then
        echo "$rdma_provision_drivers"
        return
    fi
    if [[ $hostonly ]]; then
        for _m in $(_rp_host_rdma_pci_drivers); do
            _rp_rdma_modules_for "$_m"
        done
        _rp_soft_asked rxe && echo rdma_rxe
        _rp_soft_asked siw && echo siw
    else
        echo "=drivers/infiniband/hw" mlx4_en mlx5_core rdma_rxe siw
    fi
}

# Modules named by rdma-core's module lists (/etc/rdma/modules/*.conf): the binary loads
# them, so the image must have them.
_rp_rdma_core_listed_modules() {
    local _f _l
    for _f in "$dracutsysrootdir"/etc/rdma/modules/*.conf; do
        [[ -f $_f ]] || continue
        while read -r _l _ || [[ -n $_l ]]; do
            [[ -z $_l || $_l == \#* || $_l == \;* ]] && continue
            echo "$_l"
        done < "$_f"
    done
}

_rp_want_rdma_core() { [[ ${rdma_provision_rdma_core:-yes} != no ]]; }

# called by dracut
check() {
    require_binaries "$(_rp_binary)" || return 1
    # Host-only images get the module when the host has RDMA hardware or our configuration;
    # others only when asked for (--add rdma-provision).
    if [[ $hostonly ]]; then
        _rp_host_has_rdma && return 0
        [[ -f $(_rp_config) ]] && return 0
    fi
    return 255
}

# called by dracut
depends() {
    echo base udev-rules
    return 0
}

# called by dracut
installkernel() {
    local _drivers _m _hw=
    _drivers=$(_rp_drivers)
    # RDMA core and the user-space/connection-manager modules, whatever the hardware; our
    # choice is explicit, so the host-only filter (modules loaded on the host) is off.
    hostonly='' instmods ib_core ib_uverbs rdma_ucm rdma_cm ib_cm iw_cm configfs
    # shellcheck disable=SC2086
    hostonly='' instmods $_drivers
    for _m in $_drivers; do
        case $_m in
            rdma_rxe)
                # rxe asks the crypto API for "crc32" and declares no softdep.
                hostonly='' instmods crc32_generic crc32-pclmul
                ;;
            siw) ;;
            *) _hw=1 ;;
        esac
    done
    # IPoIB only with hardware that can do InfiniBand (not for Soft-RoCE/iWARP alone).
    [[ $_hw ]] && hostonly='' instmods ib_ipoib
    # NFS over RDMA (xprtrdma is rpcrdma's alias).
    dracut_module_included nfs && hostonly='' instmods rpcrdma
    if _rp_want_rdma_core; then
        # shellcheck disable=SC2046
        hostonly='' instmods $(_rp_rdma_core_listed_modules)
    fi
    return 0
}

# called by dracut
install() {
    local _conf _f
    inst_simple "$(_rp_binary)" /usr/sbin/rdma-provision
    _conf=$(_rp_config)
    if [[ -f $_conf ]]; then
        inst_simple "$_conf" /etc/rdma-provision/rdma-provision.conf
    fi

    if _rp_want_rdma_core; then
        inst_multiple -o /etc/rdma/mlx4.conf /etc/udev/rules.d/70-persistent-ipoib.rules
        for _f in "$dracutsysrootdir"/etc/rdma/modules/*.conf; do
            [[ -f $_f ]] && inst_simple "${_f#"$dracutsysrootdir"}"
        done
        # modprobe.d files with options for RDMA modules (mlx4_en's PFC masks, mlx4_core's
        # port_type_array...), which the binary reads and modprobe applies.
        for _f in "$dracutsysrootdir"/{etc,lib,usr/lib}/modprobe.d/*.conf; do
            [[ -f $_f ]] || continue
            grep -Eq '^[[:space:]]*(options|blacklist|softdep|install)[[:space:]]+(mlx4_|mlx5_|ib_|rdma_|iw_|rpcrdma|xprtrdma|svcrdma|bnxt_re|irdma|qedr|hfi1|siw)' "$_f" \
                && inst_simple "${_f#"$dracutsysrootdir"}"
        done
    fi

    inst_simple "$moddir/rdma-provision-lib.sh" /lib/rdma-provision-lib.sh
    inst_script "$moddir/rdma-provision-queue.sh" /sbin/rdma-provision-queue
    inst_rules "$moddir/61-rdma-provision.rules"
    inst_multiple udevadm cat mkdir mv rm sed tr

    inst_hook initqueue/finished 50 "$moddir/rdma-provision-finished.sh"
    if dracut_module_included systemd; then
        inst_script "$moddir/rdma-provision-boot.sh" /sbin/rdma-provision-boot
        for _f in rdma-provision-early rdma-provision-apply rdma-provision-handoff; do
            inst_simple "$moddir/$_f.service" "$systemdsystemunitdir/$_f.service"
            $SYSTEMCTL -q --root "$initdir" add-wants initrd.target "$_f.service"
        done
    else
        inst_hook cmdline 20 "$moddir/rdma-provision-cmdline.sh"
        inst_hook pre-pivot 20 "$moddir/rdma-provision-pre-pivot.sh"
    fi
    dracut_need_initqueue
}
