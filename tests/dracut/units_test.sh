#!/usr/bin/env bash
# The real root's units, as systemd reads them: rdma-provision.service (apply) runs before
# the network, so the peer check of rd.rdma.verify=peer runs in its own unit after
# network-online.target (issue #27 item 5), enabled with it.
#   units_test.sh <rdma-provision.service> <rdma-provision-verify.service>
set -uo pipefail
APPLY=$1
VERIFY=$2
failed=0

# values FILE SECTION KEY: every value of KEY in SECTION, space-separated words, one a line
# (systemd joins repeated list keys).
values() {
    awk -v sec="[$2]" -v key="$3" '
        /^\[/ { in_sec = ($0 == sec); next }
        in_sec && index($0, key "=") == 1 { v = substr($0, length(key) + 2); n = split(v, w, " "); for (i = 1; i <= n; i++) print w[i] }
    ' "$1"
}

expect() {  # expect WHAT FILE SECTION KEY VALUE
    if values "$2" "$3" "$4" | grep -qxF -- "$5"; then
        echo "ok: $1"
    else
        echo "FAILED: $1: [$3] $4= has no $5 in $2"
        failed=1
    fi
}
expect_not() {
    if values "$2" "$3" "$4" | grep -qxF -- "$5"; then
        echo "FAILED: $1: [$3] $4= has $5 in $2"
        failed=1
    else
        echo "ok: $1"
    fi
}

expect "apply runs before the network is configured" "$APPLY" Unit Before network-pre.target
expect_not "apply does not wait for the network" "$APPLY" Unit After network-online.target
expect "enabling apply enables the peer check" "$APPLY" Install Also rdma-provision-verify.service
expect "the peer check waits for the network to be online" "$VERIFY" Unit After network-online.target
expect "... and pulls it in (network-online.target is passive)" "$VERIFY" Unit Wants network-online.target
expect "... and comes after apply" "$VERIFY" Unit After rdma-provision.service
expect "it is the boot's peer check" "$VERIFY" Service ExecStart "--boot"
expect "it is part of the normal boot" "$VERIFY" Install WantedBy multi-user.target
if command -v systemd-analyze > /dev/null; then
    # systemd's own reading of both files (unknown keys, bad values); the binary need not
    # exist here, so only the parse errors count.
    dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/units.XXXXXX")
    cp "$APPLY" "$VERIFY" "$dir/"
    out=$(cd "$dir" && systemd-analyze verify --man=no rdma-provision.service rdma-provision-verify.service 2>&1 |
        grep -v -e 'Command /usr/sbin/rdma-provision is not executable' -e 'not found' -e '^$' || true)
    if [[ -z $out ]]; then
        echo "ok: systemd-analyze verify reads both units without complaint"
    else
        echo "FAILED: systemd-analyze verify: $out"
        failed=1
    fi
fi
exit $failed
