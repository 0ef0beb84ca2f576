#!/bin/bash
# cmdline hook of the nlmon image (before udev, and before dracut asks for a root): each kernel request rdma-provision makes, then the same
# operation by iproute2, on the guest's real kernel. Route netlink is captured by nlcap
# on an nlmon tap; RDMA netlink by strace's dump of sendmsg/recvmsg, as the kernel's taps
# leave NETLINK_RDMA out (net/netlink/af_netlink.c netlink_filter_tap). Between the two
# sides the first one's effect is undone, uncaptured, so both start from the same state.
# Everything goes to /run/nlmon.out, printed once at the end (no kernel lines inside the
# hex), then the VM powers off.
OUT=/run/nlmon.out
: > "$OUT"
note() { echo "E2E-NLMON: $*" >> "$OUT"; }

cap() {  # LABEL CMD...: route netlink through the nlmon tap
    local label=$1
    shift
    nlcap "$label" nlmon0 -- "$@" >> "$OUT" 2>&1
}
rcap() {  # LABEL CMD...: RDMA netlink through strace
    local label=$1 rc=0
    shift
    strace -f -qq -e trace=sendto,sendmsg,recvfrom,recvmsg -e write=all -e read=all \
        -o /run/strace.txt "$@" > /run/strace.cmd 2>&1 || rc=$?
    sed "s/^/STRACE $label /" /run/strace.txt >> "$OUT"
    sed "s/^/OUTPUT $label /" /run/strace.cmd >> "$OUT"
    echo "STRACE $label exit=$rc" >> "$OUT"
}
state() {  # LABEL CMD...: what the kernel shows after one side ran
    local label=$1
    shift
    "$@" 2>&1 | sed -e 's/^[0-9]*: //' -e "s/^/STATE $label /" >> "$OUT"
}
links() { ip -o link show | grep -E ': rpd[0-9]' | sed 's/ qlen [0-9]*//'; }
addrs() { ip -o addr show dev rpd0 | sed 's/valid_lft.*//'; }
routes() { ip route show dev rpd0; }

# both CAPTURE OP STATE-FN UNDO OURS... -- IP...: one operation, both sides, each captured
# by CAPTURE (cap or rcap); UNDO (a function name) runs after each side.
both() {
    local capture=$1 op=$2 st=$3 undo=$4 ours=() ip=()
    shift 4
    while [ $# -gt 0 ] && [ "$1" != -- ]; do ours+=("$1"); shift; done
    shift
    ip=("$@")
    "$capture" "$op.ours" nl-ops "${ours[@]}"
    state "$op.ours" "$st"
    "$undo" > /dev/null 2>&1
    "$capture" "$op.ip" "${ip[@]}"
    state "$op.ip" "$st"
    "$undo" > /dev/null 2>&1
}
pair() { both cap "$@"; }    # route netlink
rpair() { both rcap "$@"; }  # RDMA netlink
nothing() { :; }
rename_back() { ip link set rpd1 name rpd0; }
mtu_back() { ip link set rpd0 mtu 1500; }
down_again() { ip link set rpd0 down; }
up_again() { ip link set rpd0 up; }
addr_del() { ip addr del 10.99.0.1/24 dev rpd0; }
addr6_del() { ip addr del fd00:99::1/64 dev rpd0; }
route_del() { ip route del 10.98.0.0/16; }
default_del() { ip route del default; }
onlink_del() { ip route del 10.97.0.0/16; }
rxe_del() { rdma link delete rxe_t; }
soft_links() { rdma link show | sed 's/ state [A-Z_]* physical_state [A-Z_]*//'; }
rdma_devs() { rdma dev show | sed 's/ node_guid.*//'; }
rdma_rename_back() { rdma dev set rxe_r name rxe_t; }

run() {
    echo 1 > /proc/sys/kernel/sysrq
    modprobe -a virtio_pci virtio_net nlmon ib_ipoib crc32_generic rdma_rxe || note "modprobe failed"
    modprobe dummy numdummies=0 || note "modprobe dummy failed"
    local i
    for i in $(seq 1 100); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
    ip link add nlmon0 type nlmon && ip link set nlmon0 up || note "no nlmon tap"
    ip link add rpd0 type dummy || note "no dummy link"
    note "kernel $(uname -r), iproute2 $(ip -V 2>&1)"

    pair rename links rename_back rename rpd0 rpd1 -- ip link set dev rpd0 name rpd1
    pair mtu links mtu_back mtu rpd0 1400 -- ip link set dev rpd0 mtu 1400
    pair up links down_again up rpd0 -- ip link set dev rpd0 up
    up_again
    pair down links up_again down rpd0 -- ip link set dev rpd0 down
    pair address addrs addr_del addr rpd0 10.99.0.1/24 -- ip addr add 10.99.0.1/24 brd + dev rpd0
    pair address6 addrs addr6_del addr rpd0 fd00:99::1/64 -- ip addr add fd00:99::1/64 dev rpd0
    ip addr add 10.99.0.1/24 dev rpd0
    pair route routes route_del route rpd0 10.98.0.0/16 10.99.0.254 -- \
        ip route add 10.98.0.0/16 via 10.99.0.254 dev rpd0
    pair default-route routes default_del route rpd0 default 10.99.0.254 -- \
        ip route add default via 10.99.0.254 dev rpd0
    pair onlink-route routes onlink_del route rpd0 10.97.0.0/16 - -- \
        ip route add 10.97.0.0/16 dev rpd0
    # No IPoIB device here: the kernel refuses both (ipoib_netlink.c ipoib_new_child_link:
    # the parent is not ARPHRD_INFINIBAND; rtnetlink.c __rtnl_newlink: rpd0's link ops
    # have no ipoib changelink), and the requests are still captured and compared.
    pair pkey-child links nothing pkey-child rpd0 rpd0.8001 0x8001 connected -- \
        ip link add link rpd0 name rpd0.8001 type ipoib pkey 0x8001 mode connected
    pair pkey-child-default links nothing pkey-child rpd0 rpd0.8002 0x8002 -- \
        ip link add link rpd0 name rpd0.8002 type ipoib pkey 0x8002
    pair ipoib-mode links nothing ipoib-mode rpd0 connected -- \
        ip link set dev rpd0 type ipoib mode connected
    rpair rxe soft_links rxe_del soft-link rxe rxe_t eth0 -- rdma link add rxe_t type rxe netdev eth0
    # A second Soft-RoCE device on the same interface: rxe_newlink refuses with EEXIST
    # (drivers/infiniband/sw/rxe/rxe.c); both sides must meet the same answer.
    rdma link add rxe_t type rxe netdev eth0
    rpair rxe-again soft_links nothing soft-link rxe rxe_u eth0 -- rdma link add rxe_u type rxe netdev eth0
    # Debian's 6.1 kernel has no siw (CONFIG_RDMA_SIW unset): refused, still compared.
    rpair siw soft_links nothing soft-link siw siw_t eth0 -- rdma link add siw_t type siw netdev eth0
    # A fixed RDMA device name (rd.rdma.devname): rxe_t renamed rxe_r, as `rdma dev set`
    # does it (RDMA_NLDEV_CMD_SET with the device's index and the new name; nldev_set_doit
    # -> ib_device_rename), and back, uncaptured, between the sides.
    rpair rdma-rename rdma_devs rdma_rename_back rdma-rename rxe_t rxe_r -- rdma dev set rxe_t name rxe_r

    # DCB (#31) on virtio_net, which has no DCB: the kernel refuses every request alike
    # (net/dcb/dcbnl.c dcb_doit: EOPNOTSUPP without dcbnl_ops), and each is still captured
    # and compared. `dcb pfc set` and `dcb ets set` read first, as rdma-provision does, so
    # only their get reaches the kernel; `dcb app add`/`del` write at once.
    pair dcb-get nothing nothing dcb-get eth0 -- dcb pfc show dev eth0
    pair dcb-pfc nothing nothing dcb-pfc eth0 0x08 -- dcb pfc set dev eth0 prio-pfc all:off 3:on
    pair dcb-ets nothing nothing dcb-ets eth0 50/0/0/50/0/0/0/0 -- \
        dcb ets set dev eth0 tc-tsa all:ets tc-bw all:0 0:50 3:50
    pair dcb-app-add nothing nothing dcb-app-add eth0 26:3 -- dcb app add dev eth0 dscp-prio 26:3
    pair dcb-app-del nothing nothing dcb-app-del eth0 26:3 -- dcb app del dev eth0 dscp-prio 26:3

    # rdma-provision itself, twice, where rxe_t already sits on eth0: the plan must see it
    # (RDMA netlink, not a sysfs parent file) and create nothing; the kernel would answer
    # EEXIST to a second link.
    note "plan with rxe_t on eth0: $(rdma-provision plan --cmdline-string 'rd.rdma.rxe=eth0' 2>&1 | tr '\n' '|')"
    rxe_del
    note "first apply: $(rdma-provision apply --log stderr --cmdline-string 'rd.rdma.rxe=eth0' 2>&1 | tr '\n' '|')"
    note "second apply: $(rdma-provision apply --log stderr --cmdline-string 'rd.rdma.rxe=eth0' 2>&1 | tr '\n' '|')"
    note "rdma links: $(soft_links | tr '\n' '|')"
    note "done"
}

run
echo 1 > /proc/sys/kernel/printk
sleep 1
cat "$OUT" > /dev/console
echo "E2E-RESULT: NLMON-DONE" > /dev/console
echo o > /proc/sysrq-trigger
sleep 60
