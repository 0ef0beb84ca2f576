#!/usr/bin/env bash
# The main job on a built-in example: a diskless client VM boots with a dracut initramfs
# carrying our module, rdma-provision makes Soft-RoCE ready (persistent name, rxe link,
# RoCE v2 + ToS 106, port ACTIVE), and dracut mounts the root over NFS/RDMA from a server
# VM (scenario 2 of tests/e2e: systemd in the initramfs). Prints the decisive lines.
# DEMO_SCENARIO=1 shows the shell-init flavour instead; DEMO_SCENARIO=13 the PXE boot of two
# diskless nodes from the server VM.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec bash tests/e2e/run.sh "${DEMO_SCENARIO:-2}"
