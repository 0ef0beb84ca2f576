#!/bin/bash
# 95e2e-nfs-server: test-harness-only NFS server in an initramfs. It exports a tiny root
# (e2e_nfsroot= in the dracut configuration: a directory on the build host) over NFS/RDMA
# on port 20049 on its own Soft-RoCE link, set up with iproute2's "rdma" tool: the server
# stays independent of the binary under test.
check() { return 255; }
depends() { echo base; }
installkernel() {
    hostonly='' instmods virtio_pci virtio_net rdma_rxe ib_core ib_uverbs rdma_cm rdma_ucm \
        crc32_generic crc32-pclmul nfsd rpcrdma configfs
    # Soft-iWARP where the kernel has it (the siw.ko bootstrap builds for 6.12, in updates/
    # of the tree dracut was given: $srcmods, dracut.sh).
    if [[ -n $(find "$srcmods" -name 'siw.ko*' -print -quit 2> /dev/null) ]]; then
        hostonly='' instmods siw crc32c_generic
    fi
    # e2e_nvmf_image= (scenario 23): an NVMe over Fabrics target over RDMA (nvmet) serving
    # the root as a block device from a RAM disk (brd).
    [[ -n ${e2e_nvmf_image:-} ]] && hostonly='' instmods brd nvmet nvmet-rdma
    return 0
}
install() {
    inst_multiple ip rdma exportfs rpc.nfsd rpc.mountd rpcbind cp mount umount mkdir touch \
        cat sleep ls sync chmod seq tr grep wc
    inst_multiple -o /etc/netconfig /etc/services /etc/protocols /etc/rpc /etc/nsswitch.conf
    [[ -d $e2e_nfsroot ]] || { derror "e2e_nfsroot is not a directory: '$e2e_nfsroot'"; return 1; }
    mkdir -p "$initdir/export-src" "$initdir/var/lib/nfs/v4recovery" "$initdir/run/rpcbind"
    cp -a "$e2e_nfsroot" "$initdir/export-src/root"
    # e2e_pxe_dir= (scenario 13): what the server hands out to network-booting clients
    # (boot.ipxe, the kernel, the client's initramfs), served by busybox's httpd, with
    # dnsmasq answering DHCP on the guests' private segment from the host entries
    # rdma-provision dhcp-hosts made (dhcp-hosts.conf in that directory).
    if [[ -n ${e2e_pxe_dir:-} ]]; then
        [[ -d $e2e_pxe_dir ]] || { derror "e2e_pxe_dir is not a directory: '$e2e_pxe_dir'"; return 1; }
        mkdir -p "$initdir/srv/pxe"
        cp -a "$e2e_pxe_dir/." "$initdir/srv/pxe/"
        mv "$initdir/srv/pxe/dhcp-hosts.conf" "$initdir/etc/dhcp-hosts.conf"
        inst_multiple busybox dnsmasq
    fi
    # e2e_verify_bin= (scenarios 16, 17): rdma-provision, for `verify --listen` only (the
    # server's RDMA and NFS stay set up by iproute2 and nfs-utils).
    if [[ -n ${e2e_verify_bin:-} ]]; then
        inst_simple "$e2e_verify_bin" /usr/sbin/rdma-provision
    fi
    if [[ -n ${e2e_nvmf_image:-} ]]; then
        [[ -f $e2e_nvmf_image ]] || { derror "e2e_nvmf_image is not a file: '$e2e_nvmf_image'"; return 1; }
        inst_simple "$e2e_nvmf_image" /export-src/nvmf.img
        inst_multiple ln
    fi
    inst_hook cmdline 99 "$moddir/e2e-server-cmdline.sh"
    inst_hook pre-mount 50 "$moddir/e2e-server.sh"
}
