#!/bin/sh
# pre-mount hook of the e2e server: Soft-RoCE link, NFS server exporting /export/root over
# RDMA (port 20049) and TCP; waits until the client wrote /client-done in its root (or
# e2e.lifetime seconds), then powers off.
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
srv() { echo "E2E-SERVER: $*" > /dev/console; }
run() {
    _out=$("$@" 2>&1)
    _rc=$?
    [ $_rc -eq 0 ] || srv "FAILED ($_rc): $* -> $_out"
    return $_rc
}
put() { # put VALUE FILE
    ( echo "$1" > "$2" ) 2> /dev/null || srv "FAILED: echo '$1' > $2"
}
_ip=$(getarg e2e.ip=)
_life=$(getarg e2e.lifetime=)
_life=${_life:-900}
_nic=
for _t in $(seq 1 100); do
    for _d in /sys/class/net/*; do
        [ -e "$_d/device" ] && _nic=${_d##*/} && break 2
    done
    sleep 0.1
done
srv "network interface: '$_nic'"
run ip addr add "$_ip" dev "$_nic"
run ip link set "$_nic" up
# e2e.aux-ip= (scenario 16): the address of a second NIC on the client's aux segment.
_aux_ip=$(getarg e2e.aux-ip=)
if [ -n "$_aux_ip" ]; then
    _aux=
    for _t in $(seq 1 100); do
        for _d in /sys/class/net/*; do
            [ -e "$_d/device" ] && [ "${_d##*/}" != "$_nic" ] && _aux=${_d##*/} && break 2
        done
        sleep 0.1
    done
    srv "aux interface: '${_aux:-}'"
    run ip addr add "$_aux_ip" dev "${_aux:-none}"
    run ip link set "${_aux:-none}" up
fi
# e2e.soft=siw (scenario 22): Soft-iWARP instead of Soft-RoCE.
if [ "$(getarg e2e.soft=)" = siw ]; then
    run modprobe siw
    run rdma link add siw0 type siw netdev "$_nic"
else
    run modprobe rdma_rxe
    run rdma link add rxe0 type rxe netdev "$_nic"
fi
run modprobe nfsd
run modprobe rpcrdma
mkdir -p /export /proc/fs/nfsd /var/lib/nfs/v4recovery /run/rpcbind
run mount -t tmpfs -o size=64m tmpfs /export
run cp -a /export-src/root /export/root
chmod 1777 /export
grep -q ' /proc/fs/nfsd ' /proc/mounts || run mount -t nfsd nfsd /proc/fs/nfsd
touch /var/lib/nfs/etab /var/lib/nfs/rmtab
[ -e /etc/exports ] || : > /etc/exports
run rpcbind -w
# Short grace and lease times, set before nfsd starts (otherwise the grace period is 90 s).
put 10 /proc/fs/nfsd/nfsv4gracetime
put 10 /proc/fs/nfsd/nfsv4leasetime
run exportfs -o rw,no_root_squash,insecure,no_subtree_check,fsid=1 '*:/export'
run rpc.mountd -N 2 -N 3
run rpc.nfsd -N 3 -V 4 8
put "rdma 20049" /proc/fs/nfsd/portlist
srv "portlist: $(cat /proc/fs/nfsd/portlist | tr '\n' ' ')"
# e2e.nvmf=NQN (scenario 23): the root as namespace 1 of subsystem NQN, an NVMe over Fabrics
# target over RDMA on this address, port 4420, through nvmet's configfs
# (drivers/nvme/target/configfs.c; blktests' common/nvme does the same); e2e.nvmf-host=
# the only host allowed to it, so a client that sends another NQN is refused.
_nvmf=$(getarg e2e.nvmf=)
if [ -n "$_nvmf" ] && [ -e /export-src/nvmf.img ]; then
    run modprobe brd rd_nr=1 rd_size=65536 max_part=0
    run cp /export-src/nvmf.img /dev/ram0
    run modprobe nvmet
    run modprobe nvmet-rdma
    grep -q ' /sys/kernel/config ' /proc/mounts || run mount -t configfs none /sys/kernel/config
    _cfs=/sys/kernel/config/nvmet
    _sub=$_cfs/subsystems/$_nvmf
    run mkdir "$_sub"
    _host=$(getarg e2e.nvmf-host=)
    if [ -n "$_host" ]; then
        run mkdir "$_cfs/hosts/$_host"
        put 0 "$_sub/attr_allow_any_host"
        run ln -s "$_cfs/hosts/$_host" "$_sub/allowed_hosts/$_host"
    else
        put 1 "$_sub/attr_allow_any_host"
    fi
    run mkdir "$_sub/namespaces/1"
    put /dev/ram0 "$_sub/namespaces/1/device_path"
    put 1 "$_sub/namespaces/1/enable"
    _port=$_cfs/ports/1
    run mkdir "$_port"
    put rdma "$_port/addr_trtype"
    put ipv4 "$_port/addr_adrfam"
    put "${_ip%/*}" "$_port/addr_traddr"
    put 4420 "$_port/addr_trsvcid"
    run ln -s "$_sub" "$_port/subsystems/$_nvmf"
    srv "nvmet: $_nvmf namespace 1 ($(cat /sys/block/ram0/size) sectors) on rdma ${_ip%/*}:4420, host ${_host:-any}"
fi
srv "rdma link: $(rdma link show 2>&1 | tr '\n' ' ')"
# e2e.verify-listen=1 (scenario 16): answer the clients' rd.rdma.verify=peer checks.
# e2e.verify-listen=load (scenario 21): the same within limits (4 sessions, the segment's
# first 16 addresses, its metrics in /run/listener.prom), and the listener's memory and
# file descriptors printed whenever the client asks (a probe-NAME file in its root).
_listen=$(getarg e2e.verify-listen=)
if [ -n "$_listen" ]; then
    if [ -x /usr/sbin/rdma-provision ]; then
        run modprobe rdma_ucm
        run modprobe ib_uverbs
        _limits=
        [ "$_listen" = load ] &&
            _limits="--max-sessions 4 --allow 10.77.0.0/28 --metrics /run/listener.prom"
        # shellcheck disable=SC2086
        ( /usr/sbin/rdma-provision verify --listen "${_ip%/*}" $_limits 2>&1 | while read -r _l; do srv "$_l"; done ) &
    else
        srv "FAILED: e2e.verify-listen=$_listen but the image has no rdma-provision (e2e_verify_bin=)"
    fi
fi
if [ "$_listen" = load ]; then
    # The listener's device goes away and comes back (what a driver reload does): it must
    # let the removal finish (its ids and verbs context closed) and listen again. nfsd
    # listens on every address and follows the device by itself.
    sleep 1
    ( rdma link delete rxe0 > /tmp/rdel.log 2>&1; echo $? > /tmp/rdel.rc ) &
    _t=0
    while [ ! -e /tmp/rdel.rc ] && [ $_t -lt 100 ]; do
        sleep 0.2
        _t=$((_t + 1))
    done
    if [ -e /tmp/rdel.rc ]; then
        srv "device removal: rdma link delete rxe0: exit $(cat /tmp/rdel.rc) within $((_t / 5 + 1)) s"
        run rdma link add rxe0 type rxe netdev "$_nic"
    else
        srv "FAILED: device removal: rdma link delete rxe0 still waiting after 20 s"
    fi
    (
        _pid=
        for _t in $(seq 1 50); do
            for _p in /proc/[0-9]*; do
                [ "$(cat "$_p/comm" 2> /dev/null)" = rdma-provision ] && _pid=${_p#/proc/} && break 2
            done
            sleep 0.1
        done
        srv "listener pid: ${_pid:-none}"
        _t=0
        while [ -n "$_pid" ] && [ $_t -lt $((_life * 5)) ]; do
            for _f in /export/root/probe-*; do
                [ -e "$_f" ] || continue
                _n=${_f##*/probe-}
                [ -e "/tmp/probed-$_n" ] && continue
                : > "/tmp/probed-$_n"
                srv "listener $_n: $(grep VmRSS "/proc/$_pid/status" | tr -s ' \t' ' '), fds $(ls "/proc/$_pid/fd" | wc -l)"
                grep -v '^#' /run/listener.prom 2> /dev/null | while read -r _m; do srv "listener $_n metric: $_m"; done
            done
            sleep 0.2
            _t=$((_t + 1))
        done
    ) &
fi
# Network boot (scenarios 13, 14): DHCP with the boot program's address and the cluster's
# host entries (the fixed addresses by MAC that iPXE, then dracut's dhclient, get), which
# `rdma-provision dhcp-hosts --format dnsmasq` made of the client image's node table;
# HTTP for the files. dnsmasq bound to this NIC on 10.77.0.0/24, the guests' private
# segment, DHCP only (port=0: no DNS), as root (the image has no other user).
if [ -d /srv/pxe ]; then
    _ip4=${_ip%/*}
    {
        echo "port=0"
        echo "interface=$_nic"
        echo "bind-interfaces"
        echo "user=root"
        echo "pid-file=/tmp/dnsmasq.pid"
        echo "log-facility=/tmp/dnsmasq.log"
        echo "log-dhcp"
        echo "dhcp-leasefile=/tmp/dnsmasq.leases"
        echo "dhcp-range=${_ip4%.*}.100,${_ip4%.*}.199,255.255.255.0,1h"
        echo "dhcp-boot=http://$_ip4/boot.ipxe"
        # e2e.rootpath= (scenario 14 (c), root=dhcp): DHCP option 17, the client's root.
        _rootpath=$(getarg e2e.rootpath=)
        [ -n "$_rootpath" ] && echo "dhcp-option=option:root-path,$_rootpath"
        echo "conf-file=/etc/dhcp-hosts.conf"
    } > /etc/dnsmasq.conf
    run dnsmasq --conf-file=/etc/dnsmasq.conf
    run busybox httpd -p "$_ip4:80" -h /srv/pxe
    srv "PXE: dnsmasq and httpd on $_nic ($_ip4): $(ls /srv/pxe | tr '\n' ' ')"
    srv "PXE: dnsmasq's host entries: $(grep -v '^#' /etc/dhcp-hosts.conf | tr '\n' ' ')"
fi
srv "READY"
# e2e.clients=N: stay until N clients have each written client-done-<mac> (one after the
# other, over the same segment); 1 by default (client-done).
_clients=$(getarg e2e.clients=)
_clients=${_clients:-1}
_t=0
while [ $_t -lt "$_life" ]; do
    if [ "$_clients" -le 1 ]; then
        [ -e /export/root/client-done ] && break
    else
        _n=$(ls /export/root/ | grep -c '^client-done-')
        [ "$_n" -ge "$_clients" ] && break
    fi
    sleep 1
    _t=$((_t + 1))
done
if [ -e /export/root/client-done ]; then
    for _f in /export/root/client-done-*; do
        [ -e "$_f" ] && srv "client done: $(cat "$_f")"
    done
    # What dnsmasq handed out (its DHCPACK lines: address, MAC, host name).
    grep -h 'DHCPACK' /tmp/dnsmasq.log 2> /dev/null | while read -r _l; do srv "dnsmasq: ${_l#*dnsmasq-dhcp*: }"; done
else
    srv "lifetime of $_life s over"
fi
sync
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 60
