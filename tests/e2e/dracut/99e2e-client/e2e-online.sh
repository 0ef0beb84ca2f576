#!/bin/sh
# initqueue/online hook of the e2e client: dracut's ifup sources it once it configured an
# interface, just before it calls netroot. Shows whether rdma-provision had run by then.
_e2e_done=no
[ -e /run/rdma-provision/initqueue.done ] && _e2e_done=yes
read -r _e2e_up _ < /proc/uptime
echo "E2E-ONLINE: $1 configured by dracut at uptime $_e2e_up; rdma-provision done before: $_e2e_done; rdma devices: $(ls /sys/class/infiniband 2> /dev/null | tr '\n' ' ')" > /dev/console
