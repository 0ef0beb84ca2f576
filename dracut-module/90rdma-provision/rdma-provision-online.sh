#!/bin/sh
# initqueue/online hook of 90rdma-provision (sourced by dracut's ifup or nm-run with the
# interface as $1, before /sbin/netroot mounts the root): apply again where a soft link
# waited for this interface (a bond dracut makes), rd.rdma.verify=peer's check, then the
# NVMe over Fabrics targets over RDMA (a block root waits for their namespaces).
type rp_verify > /dev/null 2>&1 || . /lib/rdma-provision-lib.sh
rp_online_apply "${1:-}"
rp_verify "${1:-}"
rp_nvmf "${1:-}"
