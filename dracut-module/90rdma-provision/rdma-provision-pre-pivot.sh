#!/bin/sh
# pre-pivot hook (dracut's shell init): the hand-off to the real root.
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
type rp_handoff > /dev/null 2>&1 || . /lib/rdma-provision-lib.sh

rp_handoff
