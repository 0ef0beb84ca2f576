#!/bin/sh
# cmdline hook (dracut's shell init): check the rd.rdma.* parameters and the configuration
# now, before udevd starts, and write the naming rules udev will use; then queue apply in
# the initqueue, where it runs before dracut's ifup jobs (see README.md).
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
type rp_early > /dev/null 2>&1 || . /lib/rdma-provision-lib.sh

rp_early
rp_queue
