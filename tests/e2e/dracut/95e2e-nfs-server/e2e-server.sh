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
run modprobe rdma_rxe
run rdma link add rxe0 type rxe netdev "$_nic"
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
srv "rdma link: $(rdma link show 2>&1 | tr '\n' ' ')"
srv "READY"
_t=0
while [ $_t -lt "$_life" ]; do
    [ -e /export/root/client-done ] && break
    sleep 1
    _t=$((_t + 1))
done
if [ -e /export/root/client-done ]; then
    srv "client done: $(cat /export/root/client-done)"
else
    srv "lifetime of $_life s over"
fi
sync
echo 1 > /proc/sys/kernel/sysrq
echo o > /proc/sysrq-trigger
sleep 60
