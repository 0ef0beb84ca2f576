#!/usr/bin/env bash
# rdma-provision-lib.sh (the dracut hooks' steps and failure policy) under /bin/sh, with
# dracut's logging stubbed and the real binary run on a fixture tree: the decisions come
# from the binary's state.env (required, summary, errors, disabled), not from the shell
# reading the command line or JSON.
#   lib_test.sh <rdma-provision binary> <rdma-provision-lib.sh>
# shellcheck disable=SC2016 # the steps are sh code, expanded where they run
set -uo pipefail
BIN=$(realpath "$1")
LIB=$(realpath "$2")
FIX=$TEST_SRCDIR/$TEST_WORKSPACE/tests/fixtures
failed=0

# run FIXTURE CMDLINE CONFIG STEPS: runs STEPS (sh code) with the library sourced, its
# paths under a fresh copy of the fixture, and RP_BIN calling the binary there with
# CMDLINE (and CONFIG as the native configuration when not empty). Prints what dracut's
# warn/info/die would have shown.
run() {
    local fixture=$1 cmdline=$2 config=$3 steps=$4 root
    root=$(mktemp -d "$TEST_TMPDIR/root.XXXXXX")
    tar -xf "$FIX/$fixture.tar" -C "$root"
    if [[ -n $config ]]; then
        mkdir -p "$root/etc/rdma-provision"
        printf '%s\n' "$config" > "$root/etc/rdma-provision/rdma-provision.conf"
    fi
    cat > "$root/rp" << EOF
#!/bin/sh
cmd=\$1
shift
[ "\$cmd" = apply ] && set -- --log stderr "\$@"
exec "$BIN" "\$cmd" --root "$root" --cmdline-string '$cmdline' "\$@"
EOF
    chmod +x "$root/rp"
    # shellcheck disable=SC2016
    TEST_CMDLINE=$cmdline /bin/sh -c '
        warn() { echo "WARN: $*"; }
        info() { echo "INFO: $*"; }
        die() { echo "DIE: $*"; exit 1; }
        # Stands in for dracut-lib.sh getargbool (used only when the binary left no state).
        getargbool() {
            case " $TEST_CMDLINE " in *" rd.rdma.required "* | *" rd.rdma.required=1 "*) return 0 ;; esac
            return 1
        }
        . "$1"
        RP_BIN=$2/rp RP_RUN=$2/run/rdma-provision RP_RULES=$2/rules RP_JOB=$2/job
        rp_cmdline_opt() { :; }
        '"$steps" sh "$LIB" "$root" 2>&1
    echo "exit $?"
}

# expect NAME OUTPUT LINE...: each LINE (a grep -E pattern) must be in OUTPUT.
expect() {
    local name=$1 out=$2 line l
    shift 2
    for line in "$@"; do
        if ! grep -qE -- "$line" <<< "$out"; then
            echo "FAIL $name: no line matching: $line"
            while IFS= read -r l; do echo "    | $l"; done <<< "$out"
            failed=1
            return
        fi
    done
    echo "ok   $name"
}

expect_none() {  # expect_none NAME OUTPUT LINE...: no LINE in OUTPUT
    local name=$1 out=$2 line
    shift 2
    for line in "$@"; do
        if grep -qE -- "$line" <<< "$out"; then
            echo "FAIL $name: a line matching: $line"
            failed=1
            return
        fi
    done
    echo "ok   $name"
}

bad='rd.rdma.mlx=0000:81:00.0/eth'

# Soft-RoCE on a bond dracut makes (bond=): absent at apply, made by ifup later. The first
# apply defers the link and what names its device (no failure under required), state.env
# names the bond, and the online hook runs apply again at the bond's online point only.
online_steps='rp_early && rp_apply; echo "state: $(sed -n "s/^RP_ONLINE_APPLY=//p;s/^RP_EXIT_CODE=//p" "$RP_RUN/state.env" | tr "\n" " ")"
    rp_online_apply eth0; echo "eth0 done"; rp_online_apply bond0'
out=$(run rxe-virtio 'bond=bond0:eth0:mode=active-backup ip=bond0:dhcp rd.rdma.rxe=bond0 rd.rdma.roce=rxe1/1:v2:106 rd.rdma.wait=rxe1/1 rd.rdma.rxe=eth0 rd.rdma.required=1' '' "$online_steps")
expect "a soft link on a dracut bond waits for the bond's online point, which runs apply again" "$out" \
    "^state: '0' 'bond0' $" '^eth0 done$' \
    '^INFO: rdma-provision: bond0 is online: apply again for what waited for it$' '^exit 0$'
expect_none "... never a failure before the bond exists" "$out" '^DIE: ' 'FATAL'

# BOOTIF naming an InfiniBand port (cx5-ib: ib0 on port GUID 0c42:a103:0016:b2c4; iPXE's
# Ethernet-compatible address of it is 0c:42:a1:16:b2:c4): where the configuration names
# the port's interface, the cmdline hook writes what names it for dracut where getcmdline
# reads it, and the later steps' command line has it too.
bootif_steps='getarg() { case " $TEST_CMDLINE " in *" $1"*) return 0 ;; esac; return 1; }
    getcmdline() { echo "$(cat "$RP_CMDLINE_D"/*.conf 2>/dev/null) $TEST_CMDLINE"; }
    RP_CMDLINE_D=$2/cmdline.d; rp_bootif; cat "$RP_CMDLINE_D"/*.conf 2>/dev/null; cat "$RP_RUN/cmdline" 2>/dev/null'
out=$(run cx5-ib 'BOOTIF=01-0c-42-a1-16-b2-c4 rd.rdma.name=ibfab0:0c42:a103:0016:b2c4' '' "$bootif_steps")
expect "BOOTIF naming a named IPoIB port: handed to dracut through /etc/cmdline.d" "$out" \
    '^INFO: rdma-provision: rd.bootif=0 ip=ibfab0:dhcp: BOOTIF \(htype 1 and a MAC\) names the InfiniBand port 0c42:a103:0016:b2c4 .*, ibfab0 \(cmdline: rd.rdma.name=ibfab0:0c42:a103:0016:b2c4\): the initramfs gives dracut' \
    '^rd.bootif=0 ip=ibfab0:dhcp$' '^rd.bootif=0 ip=ibfab0:dhcp BOOTIF=01-0c-42-a1-16-b2-c4 rd.rdma.name' '^exit 0$'
out=$(run cx5-ib 'BOOTIF=01-0c-42-a1-16-b2-c4' '' "$bootif_steps")
expect_none "... not when nothing names the port's interface (the plan says what to write)" "$out" \
    'rd.bootif=0' '^INFO: '
out=$(run cx5-ib 'ip=ibfab0:dhcp rd.rdma.name=ibfab0:0c42:a103:0016:b2c4' '' "$bootif_steps")
expect_none "... nor without BOOTIF" "$out" 'rd.bootif=0' '^INFO: '

# An NVMe over Fabrics target over RDMA: dracut's 95nvmf asks for the network for tcp
# only; the binary says the boot needs it (RP_NEED_NETWORK) and the early step writes
# rd.neednet=1 where dracut's getcmdline reads it, as 95nvmf does for tcp.
nvmf_steps='RP_CMDLINE_D=$2/cmdline.d; rp_early; cat "$RP_CMDLINE_D"/*.conf 2>/dev/null'
out=$(run cx5-roce 'rd.nvmf.discover=rdma,10.0.0.1' '' "$nvmf_steps")
expect "an NVMe target over RDMA: rd.neednet=1 for dracut, with the reason" "$out" \
    '^INFO: rdma-provision: rd.neednet=1: cmdline: rd.nvmf.discover=rdma,10.0.0.1: an NVMe over Fabrics target over RDMA' \
    '^rd.neednet=1$'
out=$(run cx5-roce 'rd.nvmf.discover=tcp,10.0.0.1' '' "$nvmf_steps")
expect_none "over tcp dracut asks itself: nothing written" "$out" 'rd.neednet=1'

out=$(run cx3-vpi "$bad rd.rdma.required=1" '' 'rp_early')
expect "invalid input with rd.rdma.required=1 stops the boot" "$out" \
    "^WARN: rdma-provision: error: cmdline: $bad: unknown parameter 'rd.rdma.mlx'" \
    '^DIE: rdma-provision: invalid input \(the errors above\), nothing will be provisioned; rd.rdma.required=1: stopping the boot$' \
    '^exit 1$'

out=$(run cx3-vpi "$bad" $'[general]\nrequired = yes' 'rp_early')
expect "invalid input with 'required = yes' in the config stops the boot (the binary's reading)" "$out" \
    '^DIE: rdma-provision: invalid input .*stopping the boot$'

out=$(run cx3-vpi "$bad" '' 'rp_early; echo "invalid-input marker: $(ls "$RP_RUN/invalid-input")"')
expect "invalid input without required: a warning and the boot continues" "$out" \
    '^WARN: rdma-provision: invalid input \(the errors above\), nothing will be provisioned; the boot continues \(rd.rdma.required is not set\)$' \
    '^invalid-input marker: .*/invalid-input$' '^exit 0$'

out=$(run cx3-sriov-eth 'rd.rdma.mlx4=0000:03:00.0/ib,ib rd.rdma.required=1' '' 'rp_early && rp_apply')
expect "a failed action with required: die with the summary and each error from state.env" "$out" \
    '^WARN: rdma-provision: .*error: .*mlx4_port1' \
    "^DIE: rdma-provision: apply: some actions failed \(exit 1\): summary: 0 done, 0 already, 0 checked, 0 skipped, 2 failed in [0-9.]+ s; [^;]*/mlx4_port1: writing 'ib' refused: the file is read-only; [^;]*/mlx4_port2: writing 'ib' refused: the file is read-only; rd.rdma.required=1: stopping the boot$"

# Under systemd the same failure takes emergency.target: a unit of ours fails (its
# OnFailure=); a hook that dracut-initqueue.service runs (the online hook) starts that
# target as OnFailure= would and ends its shell, never dracut's die() (halt, the reason
# only in the kernel log).
systemd_steps='hookdir=$RP_RUN/../hooks; systemctl() { echo "systemctl $*"; };'
out=$(run cx3-sriov-eth 'rd.rdma.mlx4=0000:03:00.0/ib,ib rd.rdma.required=1' '' "$systemd_steps"' DRACUT_SYSTEMD=1; rp_early && rp_apply; echo "not reached"')
expect "under systemd, a hook's failure with required: emergency.target, not die" "$out" \
    "^WARN: rdma-provision: FATAL: apply: some actions failed \(exit 1\): summary: .*rd.rdma.required=1: stopping the boot$" \
    '^WARN: rdma-provision: starting emergency.target' '^systemctl --no-block --job-mode=replace-irreversibly start emergency.target$' '^exit 1$'
expect_none "... and the hook's shell ends there" "$out" '^DIE: ' '^not reached$'
out=$(run cx3-sriov-eth 'rd.rdma.mlx4=0000:03:00.0/ib,ib rd.rdma.required=1' '' "$systemd_steps"' RP_CONTEXT=unit; rp_early && rp_apply; echo "returned $?"; cat "$hookdir/emergency/01-rdma-provision.sh"')
expect "in a unit of ours: the unit fails, its OnFailure= takes over" "$out" \
    '^WARN: rdma-provision: FATAL: apply: ' '^returned 1$' \
    '^warn "rdma-provision: FATAL: \$\(cat /run/rdma-provision/failed\); rd.rdma.required=1 stopped the boot"$' '^exit 0$'
expect_none "... without starting anything itself" "$out" '^systemctl ' '^DIE: '

out=$(run cx3-sriov-eth 'rd.rdma.mlx4=0000:03:00.0/ib,ib' '' 'rp_early && rp_apply')
expect "a failed action without required: a warning and the boot continues" "$out" \
    '^WARN: rdma-provision: apply: some actions failed \(exit 1\): summary: 0 done.*; the boot continues \(rd.rdma.required is not set\)$' \
    '^exit 0$'

out=$(run cx3-vpi 'rd.rdma=0 rd.rdma.required=1' '' 'rp_early && rp_apply && ls "$RP_RUN/disabled" && rp_handoff')
expect "rd.rdma=0: the binary's state marks the module disabled" "$out" \
    '/run/rdma-provision/disabled$' '^INFO: rdma-provision: handing over to the real root' '^exit 0$'

out=$(run cx3-vpi 'rd.rdma.mlx4=0000:81:00.0/eth rd.rdma.required=1' '' 'rp_early && rp_apply && . "$RP_RUN/state.env" && echo "state: $RP_EXIT_CODE $RP_REQUIRED $RP_DONE"')
expect "a good run: nothing said, state.env has the outcome" "$out" '^state: 0 1 1$' '^exit 0$'

out=$(run cx3-vpi 'rd.rdma.required=1' '' 'RP_BIN=/nonexistent/rdma-provision; rp_early')
expect "no binary, no state: dracut's own reading of rd.rdma.required decides" "$out" \
    '^DIE: rdma-provision: could not write the naming rules .* \(exit 127\); rd.rdma.required=1: stopping the boot$'

# A binary that dies or hangs in apply (the e2e scenario 9's test-only wrappers, here
# around the real binary): the hooks report it once, with the signal or the watchdog's
# limit, bounded, and leave the real root a state saying what happened.
fault() {  # STEPS to replace RP_BIN by a wrapper whose "apply" runs $1
    echo 'mkdir -p "$RP_RUN"; printf "#!/bin/sh\n[ \"\$1\" = apply ] && '"$1"'\nexec %s \"\$@\"\n" "$RP_BIN" > "$RP_RUN/../fault"; chmod +x "$RP_RUN/../fault"; RP_BIN=$RP_RUN/../fault;'
}
out=$(run cx3-vpi 'rd.rdma.mlx4=0000:81:00.0/eth rd.rdma.required=1' '' "$(fault 'kill -ABRT \$\$') rp_early && rp_apply")
expect "the binary aborts, required: stopped with the signal named" "$out" \
    '^DIE: rdma-provision: apply was killed by SIGABRT \(exit 134\) before it finished; nothing more is known of this run; rd.rdma.required=1: stopping the boot$'
out=$(run cx3-vpi 'rd.rdma.mlx4=0000:81:00.0/eth' '' "$(fault 'kill -SEGV \$\$') rp_early; rp_apply; cat \"\$RP_RUN/state.json\"; . \"\$RP_RUN/state.env\"; echo \"env: \$RP_EXIT_CODE \$RP_ERRORS\"")
expect "the binary crashes, not required: a warning, and a state for the real root" "$out" \
    '^WARN: rdma-provision: apply was killed by SIGSEGV \(exit 139\) before it finished; nothing more is known of this run; the boot continues' \
    '"exit_code": 139,' '"crashed": "apply was killed by SIGSEGV \(exit 139\) before it finished"' \
    '^env: 139 apply was killed by SIGSEGV' '^exit 0$'
t0=$(date +%s)
out=$(run cx3-vpi 'rd.rdma.mlx4=0000:81:00.0/eth rd.rdma.timeout=1' '' "RP_GRACE=1; $(fault 'exec sleep 60') rp_early; rp_apply; ls \"\$RP_RUN/watchdog\"")
t1=$(date +%s)
expect "the binary hangs: killed by the watchdog at rd.rdma.timeout + grace, in $((t1 - t0)) s" "$out" \
    '^WARN: rdma-provision: apply was still running 2 s after it started \(rd.rdma.timeout 1 s \+ 1 s\): killed; nothing more is known of this run; the boot continues' \
    '/watchdog$' '^exit 0$'
((t1 - t0 < 15)) || { echo "FAIL the hung binary's run took $((t1 - t0)) s (limit 2 s + 1 s for the kill)"; failed=1; }

# rd.rdma.verify=peer: the online hook's step runs `verify --boot` once per boot and applies
# the policy to its exit status; without peer it never calls the binary.
out=$(run cx3-vpi 'rd.rdma.verify=ports rd.rdma.required=1' '' 'rp_early && rp_verify; ls "$RP_RUN/verify.done" 2>&1 | sed "s/^/done: /"')
expect "rd.rdma.verify=ports: the online step does nothing (apply checks the ports)" "$out" \
    '^done: .*No such file' '^exit 0$'
out=$(run cx3-vpi 'rd.rdma.verify=peer rd.rdma.required=1' '' 'rp_early && rp_verify')
expect "rd.rdma.verify=peer with no address and no NFS root: the binary says why, the policy stops the boot" "$out" \
    "^WARN: rdma-provision: .*error: cmdline: rd.rdma.verify=peer: peer: no address given and root=/netroot= names no NFS server by address; write rd.rdma.verify=peer:ADDR$" \
    '^DIE: rdma-provision: verify: rd.rdma.verify=peer has no peer to check \(exit 2: the error above\); rd.rdma.required=1: stopping the boot$'
out=$(run cx3-vpi 'rd.rdma.verify=peer root=nfs4:10.77.0.1:/export/root:rdma,port=20049' '' \
    'rp_early && rp_verify && . "$RP_RUN/verify.env" && echo "verify.env: $RP_EXIT_CODE $RP_SKIPPED" && rm "$RP_RUN/verify.env" && rp_verify && ls "$RP_RUN/verify.env" 2>&1 | sed "s/^/again: /"')
expect "rd.rdma.verify=peer: the NFS server of root= is the peer; verify.env for the real root; once per boot" "$out" \
    '^WARN: rdma-provision: .*verify-peer 10.77.0.1:7472: .*needs the running kernel' \
    '^verify.env: 0 1$' '^again: .*No such file' '^exit 0$'

exit $failed
