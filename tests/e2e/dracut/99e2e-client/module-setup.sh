#!/bin/bash
# 99e2e-client: test-harness-only additions to the client images. A failed boot must never
# sit in an emergency shell: the emergency hooks report what is known and power off.
# An initqueue/online hook shows when dracut configured the interface.
check() { return 255; }
depends() { echo base; }
install() {
    inst_hook emergency 00 "$moddir/e2e-emergency.sh"
    inst_hook shutdown-emergency 00 "$moddir/e2e-emergency.sh"
    inst_hook initqueue/online 99 "$moddir/e2e-online.sh"
    inst_multiple cat ls tr grep sed
}
