#!/bin/sh
# cmdline hook 97, under both init flavours (dracut-cmdline.service runs the cmdline hooks
# under systemd): a BOOTIF that names an InfiniBand port is handed to dracut as that port's
# IPoIB interface (rdma-provision bootif), before parse-ip-opts.sh (cmdline 98) and
# nm-config.sh (cmdline 99) or nm-initrd-generator's unit read the command line.
type getarg > /dev/null 2>&1 || . /lib/dracut-lib.sh
type rp_bootif > /dev/null 2>&1 || . /lib/rdma-provision-lib.sh

rp_bootif
