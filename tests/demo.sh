#!/usr/bin/env bash
# The main job on a built-in example: a diskless client VM boots with a dracut initramfs
# carrying our module, rdma-provision makes Soft-RoCE ready (persistent name, rxe link,
# RoCE v2 + ToS 106, port ACTIVE), and dracut mounts the root over NFS/RDMA from a server
# VM (scenario 2 of tests/e2e: systemd in the initramfs). Prints the decisive lines.
# DEMO_SCENARIO=1 shows the shell-init flavour instead; DEMO_SCENARIO=13 the PXE boot of two
# diskless nodes from the server VM.
#
# It installs only what that boot needs (rules/bootstrap.sh --boot --no-tests: no test
# tools, second kernel, Soft-iWARP, dracut-ng or NetworkManager) and shows each long
# step's progress: a line per package group and download, Bazel's own progress.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
t0=$SECONDS
if [[ -x .cache/zig/zig && -d .cache/src/rdma-core ]] && command -v qemu-system-x86_64 > /dev/null; then
    echo "demo: the tools are here: about 1 minute (the images if an input changed, then the boot)"
else
    echo "demo: first run: about 10 minutes on 2 cores: Debian's packages (about 460 MB) 4-6,"
    echo "demo: the source packages and Zig 1, the release build 2-4, the images and the boot 1;"
    echo "demo: later runs about half a minute"
fi
bash rules/bootstrap.sh --boot --no-tests
E2E_NO_BOOTSTRAP=1 E2E_PROGRESS=1 bash tests/e2e/run.sh "${DEMO_SCENARIO:-2}"
echo "demo: $((SECONDS - t0)) s in all"
