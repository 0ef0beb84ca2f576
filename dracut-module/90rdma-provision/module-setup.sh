#!/bin/bash
# 90rdma-provision: puts the static rdma-provision binary, its configuration, rdma-core's
# files and the RDMA kernel modules into the initramfs, and runs the binary at the right
# moments of both initramfs flavours (dracut's shell init, systemd). Design: README.md.
# What goes into the image is the binary's answer ("rdma-provision image-needs"): this
# file knows no driver, no configuration grammar and no rdma-core file format.
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

_rp_host_has_rdma() {
    local _d
    for _d in "$dracutsysrootdir"/sys/class/infiniband/*; do
        [[ -e $_d ]] && return 0
    done
    return 1
}

_rp_want_rdma_core() { [[ ${rdma_provision_rdma_core:-yes} != no ]]; }

# What the image must carry, as the binary says it: "rdma-provision image-needs" prints one
# item a line, "module NAME", "module-dir DIR" (under the kernel's tree) or "file PATH
# [DEST]", each followed by "  # why". It knows the drivers, the configuration's grammar
# and rdma-core's files; this module only installs what it prints. Sets _rp_needs; when
# the binary fails, reports its message through dfatal and returns 1: an image without
# the modules it needs must not be built.
#
# dracut facts used here: $dracutsysrootdir is --sysroot (dracut.sh, "--sysroot"), the
# root the image is built from; $hostonly is set for host-only images (dracut.sh,
# 'hostonly="-h"'); $kernel_cmdline is dracut.conf's kernel_cmdline= / --kernel-cmdline,
# baked into the image as /etc/cmdline.d/01-default.conf (dracut.sh); $DRACUT_TMPDIR is
# dracut's scratch directory (dracut.sh); dfatal and dwarn log (dracut-logger.sh).
_rp_image_needs() {
    [[ ${_rp_needs_done-} ]] && return 0
    local _bin _err=$DRACUT_TMPDIR/rdma-provision-image-needs.err _l _rc=0
    local _args=(image-needs --root "${dracutsysrootdir:-/}" --cmdline-string "${kernel_cmdline-}")
    _bin=$(_rp_binary)
    # A configuration given in dracut.conf is a path on the build system; the binary
    # reads it under the root.
    [[ -n ${rdma_provision_config-} ]] \
        && _args+=(--config "${rdma_provision_config#"$dracutsysrootdir"}")
    if [[ -n ${rdma_provision_drivers-} ]]; then
        _args+=(--drivers "$rdma_provision_drivers")
    elif [[ ! $hostonly ]]; then
        _args+=(--generic)
    fi
    _rp_want_rdma_core || _args+=(--no-rdma-core)
    # NetworkManager configures the image's network: its initrd generator's reading of ip=,
    # bootdev= and ib.pkey= is checked against the IPoIB interfaces the inputs name.
    dracut_module_included network-manager && _args+=(--network-manager)
    _rp_needs=$("$_bin" "${_args[@]}" 2> "$_err") || _rc=$?
    if ((_rc != 0)); then
        while IFS= read -r _l; do
            [[ $_l ]] && dfatal "90rdma-provision: $_l"
        done < "$_err"
        dfatal "90rdma-provision: '$_bin ${_args[*]}' failed (exit $_rc): the image would miss the RDMA modules and files it needs"
        return 1
    fi
    while IFS= read -r _l; do
        [[ $_l ]] && dwarn "90rdma-provision: $_l"
    done < "$_err"
    _rp_needs_done=1
}

# The items of one kind ($1: module, module-dir or file) that image-needs printed, one a
# line, without the kind and the reason.
_rp_needed() {
    local _l
    while IFS= read -r _l; do
        _l=${_l%%  # *}
        [[ ${_l%% *} == "$1" ]] && echo "${_l#* }"
    done <<< "$_rp_needs"
}

# called by dracut
check() {
    require_binaries "$(_rp_binary)" || return 1
    # Host-only images get the module when the host has RDMA hardware or our configuration;
    # others only when asked for (--add rdma-provision): 255 means "only on request"
    # (dracut-init.sh, check_module). require_binaries: dracut-init.sh.
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
    local _mods _d
    # A non-zero status stops dracut ("installkernel failed in module", dracut.sh).
    _rp_image_needs || return 1
    mapfile -t _mods < <(_rp_needed module)
    # instmods takes "=DIR" for every module under the kernel's DIR (dracut-init.sh).
    for _d in $(_rp_needed module-dir); do
        _mods+=("=$_d")
    done
    # NFS over RDMA (xprtrdma is rpcrdma's alias) when dracut's nfs module is in the image
    # (dracut_module_included, dracut-init.sh): a dracut fact the binary cannot know.
    dracut_module_included nfs && _mods+=(rpcrdma)
    # Our choice is explicit, so the host-only filter is off: with $hostonly set, instmods
    # passes -H and dracut-install leaves out modules the build host has not loaded
    # (dracut-init.sh, instmods).
    hostonly='' instmods "${_mods[@]}"
    return 0
}

# called by dracut
install() {
    local _src _dest _f
    # dracut ignores install()'s status (dracut.sh calls module_install without a check),
    # so a failure stops it here, as 00systemd's install() does.
    _rp_image_needs || exit 1
    inst_simple "$(_rp_binary)" /usr/sbin/rdma-provision
    # The binary's inputs: paths under the root (inst_simple hands $dracutsysrootdir to
    # dracut-install as -r, dracut-init.sh); DEST when the file goes elsewhere in the image.
    while read -r _src _dest; do
        inst_simple "$_src" ${_dest:+"$_dest"} || {
            dfatal "90rdma-provision: cannot install $_src${_dest:+ as $_dest}, which rdma-provision reads at boot"
            exit 1
        }
    done < <(_rp_needed file)

    inst_simple "$moddir/rdma-provision-lib.sh" /lib/rdma-provision-lib.sh
    inst_script "$moddir/rdma-provision-queue.sh" /sbin/rdma-provision-queue
    inst_rules "$moddir/61-rdma-provision.rules"
    inst_multiple udevadm cat mkdir mv rm tr sleep  # sleep: the hooks' watchdog (rp_run_bin)

    # Hook names are dracut's hookdirs (dracut-init.sh); inst_hook, inst_rules, inst_script
    # and dracut_need_initqueue: dracut-init.sh; pre-pivot is sourced by init.sh (99base).
    inst_hook initqueue/finished 50 "$moddir/rdma-provision-finished.sh"
    # BOOTIF naming an InfiniBand port: handed to dracut as its IPoIB interface, between
    # dracut's parse-bond.sh (96) and parse-ip-opts.sh (98); cmdline hooks run under both
    # init flavours (dracut-cmdline.sh under systemd).
    inst_hook cmdline 97 "$moddir/rdma-provision-bootif.sh"
    # rd.rdma.verify=peer: sourced by ifup/nm-run once an interface is configured, before
    # netroot mounts the root (both init flavours run initqueue/online hooks).
    inst_hook initqueue/online 50 "$moddir/rdma-provision-online.sh"
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

    # rdma-core's own module (50rdma) in the same image: both run, by design. Its
    # rdma-load-modules@ units load the lists we load too (a second load of a module is a
    # no-op); its 60-rdma-persistent-naming.rules renames RDMA devices here as in the real
    # root (select devices by pci-/guid-/netdev-; the early step keeps our soft devices out
    # of it); our 61-rdma-provision.rules sorts after it, so apply sees renamed devices;
    # 70-persistent-ipoib.rules is read as our input and our NAME:= wins over it.
    if dracut_module_included rdma; then
        dinfo "90rdma-provision: rdma-core's 50rdma is in this image too: its module lists load twice (harmless), its rdma_rename names RDMA devices (rdma-provision selects them by pci-/guid-/netdev- and keeps its soft devices out), rdma-provision's interface names win (NAME:=)"
    fi
}
