#!/bin/bash
# 98e2e-no-nm-generator: test-harness-only. Takes NetworkManager's initrd generator out of
# an image that has dracut's network-manager module, as when the image is built on a host
# without it (35network-manager installs it with `inst_multiple -o`): scenario 19.
check() { return 255; }
depends() { echo network-manager; }
install() {
    rm -f "$initdir"/usr/lib/nm-initrd-generator "$initdir"/usr/libexec/nm-initrd-generator \
        "$initdir"/usr/lib/NetworkManager/nm-initrd-generator \
        "$initdir"/usr/libexec/NetworkManager/nm-initrd-generator
}
