#!/bin/sh
# rdma-provision-lib.sh: what the dracut hooks and the systemd units of 90rdma-provision
# share, installed as /lib/rdma-provision-lib.sh. Every decision about RDMA is the binary's;
# this file only runs it at the right moments, hands it the command line dracut sees, and
# applies the failure policy (rd.rdma.required). Needs dracut-lib.sh's warn and die, and its
# getcmdline and getargbool (rdma-provision-boot defines warn and loads the rest on demand).

RP_BIN=/usr/sbin/rdma-provision
RP_RUN=/run/rdma-provision
# Naming rules for the initramfs' udev, written before udevd starts. apply writes the same
# rules to /run/udev/rules.d/60-rdma-provision.rules itself, for the real root.
RP_RULES=/etc/udev/rules.d/60-rdma-provision.rules
# The initqueue job. dracut's main loop sources queued jobs in glob order, so "00-" runs
# before the "ifup-<if>" jobs that 90-net.rules queues (and ifup is what calls netroot).
RP_JOB=/lib/dracut/hooks/initqueue/00-rdma-provision.sh
# Where dracut reads more of the command line from (dracut-lib.sh getcmdline).
RP_CMDLINE_D=/etc/cmdline.d

# The command line as dracut reads it: /etc/cmdline.d/*.conf and /etc/cmdline (baked into
# the image, e.g. by dracut's kernel_cmdline=) come before /proc/cmdline. Prints the option
# that gives the binary the same text, or nothing when /proc/cmdline alone is the truth.
# The early step writes it once, after dracut's cmdline hooks; later steps of the same
# boot reuse that file.
rp_cmdline_opt() {
    if [ "${1:-}" != early ] && [ -s "$RP_RUN/cmdline" ]; then
        echo "--cmdline $RP_RUN/cmdline"
        return 0
    fi
    _rp_extra=
    for _rp_f in /etc/cmdline /etc/cmdline.d/*.conf; do
        [ -s "$_rp_f" ] && _rp_extra=1
    done
    [ -n "$_rp_extra" ] || return 0
    mkdir -p "$RP_RUN"
    getcmdline > "$RP_RUN/cmdline"
    echo "--cmdline $RP_RUN/cmdline"
}

# Shows what the binary printed (stdout and stderr of a non-kmsg run) as dracut warnings,
# each line prefixed with the tool's name, so it reaches the console and the kernel log.
rp_show() {
    [ -s "$1" ] || return 0
    while read -r _rp_line || [ -n "$_rp_line" ]; do
        [ -n "$_rp_line" ] && warn "rdma-provision: $_rp_line"
    done < "$1"
}

# The binary's state: /run/rdma-provision/state.env, KEY='value' lines for sh, written by
# the early step (what the inputs say, valid or not) and by apply (what was done). Sets
# RP_ENABLED, RP_REQUIRED, RP_SUMMARY, RP_ERRORS (one error a line) and the rest of
# provision/report/handoff.h's list.
# Returns 1 when the binary left no state (it could not run).
rp_state() {
    RP_ENABLED='' RP_REQUIRED='' RP_SUMMARY='' RP_ERRORS=''
    [ -r "$RP_RUN/state.env" ] || return 1
    # shellcheck disable=SC1091 # written by the binary at run time
    . "$RP_RUN/state.env"
}

# Whether a failure must stop the boot: the binary's reading of rd.rdma.required and the
# configuration's "required". Only when the binary left no state at all, dracut's own
# reading of the command line decides (getargbool, dracut-lib.sh).
rp_required() {
    if rp_state; then
        [ "$RP_REQUIRED" = 1 ]
        return
    fi
    getargbool 0 rd.rdma.required
}

# The failure policy. $1 says what went wrong. Not required: a clear warning and the boot
# goes on. Required: dracut's emergency path with the reason; how depends on where we run
# ($RP_CONTEXT, DRACUT_SYSTEMD): sourced by dracut's shell init or its initqueue loop ->
# die (dracut's own fatal path, which also leaves the reason in the emergency hooks); a
# systemd unit of ours -> the reason is recorded for the emergency shell and the unit
# fails, and its OnFailure=emergency.target takes over; a hook that dracut-initqueue.service
# runs under systemd (the online hook: ifup, dhclient's setup job, nm-run) -> the same
# emergency.target, started as OnFailure= would. There die() would not take it:
# dracut-lib.sh die() under DRACUT_SYSTEMD runs `systemctl --no-block --force halt`
# (dracut 059; poweroff in dracut-ng 106) with the reason only in the kernel log, and
# dracut-initqueue.service has no OnFailure= (its ExecStart=- ignores the exit status).
rp_fail() {
    # The text may quote kernel or input values, and die() writes it into a shell script
    # (emergency/01-die.sh): no double quote, dollar, backquote or backslash survives.
    # shellcheck disable=SC1003
    _rp_msg=$(printf '%s' "$1" | tr '"$`\\' "'''/")
    if ! rp_required; then
        warn "rdma-provision: $_rp_msg; the boot continues (rd.rdma.required is not set)"
        return 0
    fi
    mkdir -p "$RP_RUN"
    echo "$_rp_msg" > "$RP_RUN/failed"
    if [ "$RP_CONTEXT" = unit ] || [ -n "${DRACUT_SYSTEMD:-}" ]; then
        warn "rdma-provision: FATAL: $_rp_msg; rd.rdma.required=1: stopping the boot"
        # dracut's emergency shell repeats it, as it does die()'s reason.
        mkdir -p "${hookdir:-/lib/dracut/hooks}/emergency"
        # shellcheck disable=SC2016
        echo 'warn "rdma-provision: FATAL: $(cat /run/rdma-provision/failed); rd.rdma.required=1 stopped the boot"' \
            > "${hookdir:-/lib/dracut/hooks}/emergency/01-rdma-provision.sh"
        [ "$RP_CONTEXT" = unit ] && return 1
        # Our units' OnFailure=emergency.target with OnFailureJobMode=replace-irreversibly
        # (rdma-provision-apply.service), from the shell; then this hook's shell ends, as
        # die() ends it, so that netroot never mounts the root (ifup and dhclient's setup
        # job call /sbin/netroot after the online hooks, 35network-legacy).
        warn "rdma-provision: starting emergency.target (as a failed unit's OnFailure= would)"
        systemctl --no-block --job-mode=replace-irreversibly start emergency.target
        exit 1
    fi
    die "rdma-provision: $_rp_msg; rd.rdma.required=1: stopping the boot"
}

# Early step, before udevd starts: reads and validates every input (the binary prints each
# error with its source) and writes the naming rules, so udev gives the persistent names
# when the interfaces appear, before anything configures them.
rp_early() {
    mkdir -p "$RP_RUN" /etc/udev/rules.d
    rm -f "$RP_RUN/invalid-input"
    _rp_rc=0
    # shellcheck disable=SC2046
    "$RP_BIN" udev-rules --output "$RP_RULES" --state-env "$RP_RUN/state.env" $(rp_cmdline_opt early) \
        > "$RP_RUN/early.log" 2>&1 || _rp_rc=$?
    # (A valid input's warnings the binary leaves to apply: said once per boot.)
    rp_show "$RP_RUN/early.log"
    case $_rp_rc in
        0)
            rp_need_network
            rp_preload
            return 0
            ;;
        2)
            # Nothing will be applied: apply would refuse the same input and repeat the errors.
            : > "$RP_RUN/invalid-input"
            : > "$RP_RUN/initqueue.done"
            rp_fail "invalid input (the errors above), nothing will be provisioned"
            return
            ;;
        *)
            rp_fail "could not write the naming rules $RP_RULES (exit $_rp_rc)"
            return
            ;;
    esac
}

# The binary says the boot needs the network that nothing else asks for (an NVMe over
# Fabrics target over RDMA: dracut's 95nvmf writes rd.neednet=1 for tcp only): ask dracut
# for it the way 95nvmf does, through /etc/cmdline.d, before the network modules' pre-udev
# and initqueue steps read rd.neednet.
rp_need_network() {
    RP_NEED_NETWORK=''
    rp_state || return 0
    [ -n "$RP_NEED_NETWORK" ] || return 0
    getargbool 0 rd.neednet && return 0
    mkdir -p "$RP_CMDLINE_D"
    echo "rd.neednet=1" > "$RP_CMDLINE_D/90-rdma-provision-neednet.conf"
    info "rdma-provision: rd.neednet=1: $RP_NEED_NETWORK"
}

# BOOTIF naming an InfiniBand port whose IPoIB interface the configuration names: dracut
# (net-lib.sh fix_bootif) and NetworkManager's generator match BOOTIF as a 6-byte Ethernet
# address only, so the boot would wait for an interface that never comes. The binary
# prints the parameters that name the IPoIB interface instead (rd.bootif=0, and
# ip=<name>:dhcp where no ip= says otherwise: plan/bootif.cc), with the reason on stderr;
# written where getcmdline reads them before /proc/cmdline, and into the command line the
# later steps read.
rp_bootif() {
    getarg BOOTIF= > /dev/null || return 0
    mkdir -p "$RP_RUN"
    # shellcheck disable=SC2046
    _rp_words=$("$RP_BIN" bootif $(rp_cmdline_opt early) 2> "$RP_RUN/bootif.log") || _rp_words=
    [ -n "$_rp_words" ] || return 0
    mkdir -p "$RP_CMDLINE_D"
    echo "$_rp_words" > "$RP_CMDLINE_D/97-rdma-provision-bootif.conf"
    info "rdma-provision: $_rp_words: $(cat "$RP_RUN/bootif.log")"
    getcmdline > "$RP_RUN/cmdline"
}

# The modules the plan needs that need no device (Soft-RoCE, rdma_cm, IPoIB, NFS/RDMA: the
# binary decides, `preload`), loaded in the background from the early step on, so the
# kernel initialises them while udevd starts and coldplugs instead of during apply. The
# binary is bounded by rd.rdma.timeout and reports each load itself; apply plans again
# whatever is not loaded by then (a second load of a module being loaded waits for it).
rp_preload() {
    [ -e "$RP_RUN/disabled" ] && return 0
    # shellcheck disable=SC2046
    "$RP_BIN" preload $(rp_cmdline_opt) < /dev/null > "$RP_RUN/preload.log" 2>&1 &
}

# Puts apply into dracut's initqueue (shell init, or a device that appeared after the
# systemd unit's run). The job is sourced by the loop, so the policy's die() acts there.
rp_queue() {
    [ -d /lib/dracut/hooks/initqueue ] || return 0
    [ -e "$RP_RUN/invalid-input" ] && return 0
    [ -e "$RP_RUN/disabled" ] && return 0
    mkdir -p "$RP_RUN"
    {
        # shellcheck disable=SC2016
        echo '[ -e "$job" ] && rm -f -- "$job"'
        echo 'type rp_apply > /dev/null 2>&1 || . /lib/rdma-provision-lib.sh'
        # While udev's coldplug still runs, the first run waits for it itself: dracut 059's
        # init.sh runs a full `udevadm settle` after the trigger, dracut-ng's (106) does
        # not, and the initqueue loop's own settle returns at once here
        # (--exit-if-exists=initqueue/work, which queuing touches). An empty queue (dracut's
        # own UDEV_QUEUE_EMPTY test) or a later run (61-rdma-provision.rules) goes at once.
        # shellcheck disable=SC2016
        echo 'if [ -e "$RP_RUN/settled" ] || udevadm settle --timeout=0 > /dev/null 2>&1; then rp_apply; else rp_apply "--udev-settle $RP_COLDPLUG_S"; fi'
    } > "/tmp/$$-rdma-provision-job.sh"
    mv -f "/tmp/$$-rdma-provision-job.sh" "$RP_JOB"
    : >> /lib/dracut/hooks/initqueue/work
}

# The summary and the error of each failed action, from the binary's state (or the state
# file $1, e.g. verify.env), on one line: the console must say why even if the kernel
# rate-limited some of the binary's lines.
rp_state_reason() {
    if [ -n "${1:-}" ]; then
        RP_SUMMARY='' RP_ERRORS=''
        [ -r "$1" ] || return 0
        # shellcheck disable=SC1090 # written by the binary at run time
        . "$1"
    else
        rp_state || return 0
    fi
    _rp_reason=$RP_SUMMARY
    while IFS= read -r _rp_line; do
        [ -n "$_rp_line" ] && _rp_reason="${_rp_reason:+$_rp_reason; }$_rp_line"
    done << EOF
$RP_ERRORS
EOF
    [ -n "$_rp_reason" ] && echo ": $_rp_reason"
}

# The watchdog's margin past the binary's own deadline (RP_TIMEOUT, rd.rdma.timeout): time
# to report and write its state after the last wait has ended.
RP_GRACE=${RP_GRACE:-15}

# The name of signal $1 as kill -l spells it, for the few a crash or a kill gives.
rp_signal_name() {
    case $1 in
        4) echo SIGILL ;; 6) echo SIGABRT ;; 7) echo SIGBUS ;; 8) echo SIGFPE ;;
        9) echo SIGKILL ;; 11) echo SIGSEGV ;; 15) echo SIGTERM ;; *) echo "signal $1" ;;
    esac
}

# How long the first apply may wait for udev's coldplug (apply --udev-settle), before its
# own deadline (rd.rdma.timeout) starts.
RP_COLDPLUG_S=60

# Runs "rdma-provision $1" (a command and its options: "apply", "verify --boot") with a
# watchdog, its output in $RP_RUN/$2; $3 seconds more for the watchdog (the coldplug
# wait). The binary bounds its own run by rd.rdma.timeout; a process stuck in a system
# call, or killed, never reports. Past that deadline plus RP_GRACE seconds the watchdog
# kills it (and records that it did); when even SIGKILL does not end it (a task in an
# uninterruptible sleep), it wakes this shell (SIGUSR1 interrupts wait) and the boot goes
# on without it. Sets _rp_rc: the exit status, 128+N after signal N, 255 when the process
# had to be left behind.
rp_run_bin() {
    rp_state > /dev/null 2>&1 || true  # RP_TIMEOUT from the early step
    _rp_limit=$((${RP_TIMEOUT:-60} + RP_GRACE + ${3:-0}))
    rm -f "$RP_RUN/watchdog"
    # shellcheck disable=SC2046,SC2086 # $1: the command and its options, split on purpose
    "$RP_BIN" $1 $(rp_cmdline_opt) > "$RP_RUN/$2" 2>&1 &
    _rp_pid=$!
    _rp_shell=$$
    (
        _rp_i=0
        while [ "$_rp_i" -lt "$_rp_limit" ]; do
            sleep 1
            kill -0 "$_rp_pid" 2> /dev/null || exit 0
            _rp_i=$((_rp_i + 1))
        done
        echo "$_rp_limit" > "$RP_RUN/watchdog"
        kill -KILL "$_rp_pid" 2> /dev/null
        sleep 3
        kill -0 "$_rp_pid" 2> /dev/null && kill -USR1 "$_rp_shell"
    ) < /dev/null > /dev/null 2>&1 &
    _rp_wd=$!
    trap ':' USR1
    _rp_rc=0
    wait "$_rp_pid" || _rp_rc=$?
    trap - USR1
    kill "$_rp_wd" 2> /dev/null
    kill -0 "$_rp_pid" 2> /dev/null && _rp_rc=255
    return 0
}

# What the real root must learn when the binary ended without writing its state (killed,
# crashed, or left behind): state.json and state.env say so, with the reason. Only our own
# words and numbers go in (no quote or backslash to escape).
rp_record_crash() {
    mkdir -p "$RP_RUN"
    printf '{\n  "exit_code": %s,\n  "crashed": "%s",\n  "summary": "",\n  "actions": []\n}\n' \
        "$1" "$2" > "$RP_RUN/state.json"
    printf "RP_EXIT_CODE='%s'\nRP_SUMMARY=''\nRP_ERRORS='%s'\n" "$1" "$2" >> "$RP_RUN/state.env"
}

# One "rdma-provision apply" (with the options $1: the systemd unit's --udev-settle) and
# the policy for its exit status (0 all done, 1 some action failed, 2 invalid input, 3
# deadline; above 128 a signal ended it). The binary reports each action to /dev/kmsg
# itself.
rp_apply() {
    mkdir -p "$RP_RUN"
    if [ -e "$RP_RUN/invalid-input" ]; then
        : > "$RP_RUN/initqueue.done"
        return 0
    fi
    case ${1:-} in
        --udev-settle*)
            rp_run_bin "apply $1" apply.log "$RP_COLDPLUG_S"
            # The binary marked it before its last look; marked here too if it never got
            # there (killed), so that later devices still get their runs.
            mkdir -p "$RP_RUN"
            : >> "$RP_RUN/settled"
            ;;
        *) rp_run_bin apply apply.log ;;
    esac
    rp_show "$RP_RUN/apply.log"
    rp_state && [ "$RP_ENABLED" = 0 ] && : > "$RP_RUN/disabled"
    : > "$RP_RUN/initqueue.done"
    case $_rp_rc in
        0) return 0 ;;
        1) rp_fail "apply: some actions failed (exit 1)$(rp_state_reason)" ;;
        2) rp_fail "apply: invalid input, nothing applied (exit 2)" ;;
        3) rp_fail "apply: the deadline (rd.rdma.timeout) passed before everything was done (exit 3)$(rp_state_reason)" ;;
        *)
            if [ "$_rp_rc" = 255 ]; then
                _rp_why="apply did not end even after SIGKILL (stuck in the kernel); left behind after $_rp_limit s"
            elif [ -e "$RP_RUN/watchdog" ]; then
                _rp_why="apply was still running $_rp_limit s after it started (rd.rdma.timeout ${RP_TIMEOUT:-60} s + $RP_GRACE s): killed"
            elif [ "$_rp_rc" -gt 128 ]; then
                _rp_why="apply was killed by $(rp_signal_name $((_rp_rc - 128))) (exit $_rp_rc) before it finished"
            else
                _rp_why="apply: exit status $_rp_rc"
            fi
            [ "$_rp_rc" -gt 128 ] && rp_record_crash "$_rp_rc" "$_rp_why"
            rp_fail "$_rp_why; nothing more is known of this run"
            ;;
    esac
}

# A soft link on an interface dracut makes after apply (its bond=): the binary deferred it
# and what names its device to that interface's online point (state.env RP_ONLINE_APPLY),
# where apply runs again, before the peer check, the NVMe connects and /sbin/netroot. The
# second run plans everything again (what is done is "already") and finds the interface
# present: nothing is deferred then, and its state.env replaces the first one's. $1: the
# interface that has just come online.
rp_online_apply() {
    [ -n "${1:-}" ] || return 0
    [ -e "$RP_RUN/invalid-input" ] && return 0
    RP_ONLINE_APPLY=''
    rp_state || return 0
    case " $RP_ONLINE_APPLY " in
        *" $1 "*) ;;
        *) return 0 ;;
    esac
    info "rdma-provision: $1 is online: apply again for what waited for it"
    rp_apply
}

# rd.rdma.verify=peer: once the network is up (initqueue/online, which dracut's ifup and
# nm-run source for each interface before /sbin/netroot mounts the root), the binary
# connects to the peer through rdma_cm and reports the path; once per boot. A failure
# follows the policy: under rd.rdma.required=1 the boot stops before the mount with the
# failing stage named (address or route resolution, connect, data transfer).
# $1: the interface that has just come online. dracut sources the online hooks once per
# configured interface, the first to come up first; the binary checks the peer only when
# the route to it goes through $1 (else exit 4: a later interface's turn). Without $1 (the
# hand-off, when no interface led to the peer) the check runs whatever the route, so that
# its failure is said.
rp_verify() {
    [ -e "$RP_RUN/verify.done" ] && return 0
    [ -e "$RP_RUN/invalid-input" ] && return 0
    rp_state || return 0
    [ "${RP_ENABLED:-1}" = 1 ] && [ "${RP_VERIFY:-0}" = peer ] || return 0
    mkdir -p "$RP_RUN"
    : > "$RP_RUN/verify.done"
    rp_run_bin "verify --boot${1:+ --online $1}" verify.log
    rp_show "$RP_RUN/verify.log"
    case $_rp_rc in
        0) return 0 ;;
        4)
            rm -f "$RP_RUN/verify.done"
            : > "$RP_RUN/verify.later"
            return 0
            ;;
        2) rp_fail "verify: rd.rdma.verify=peer has no peer to check (exit 2: the error above)" ;;
        *)
            if [ "$_rp_rc" -gt 128 ] || [ -e "$RP_RUN/watchdog" ]; then
                rp_fail "verify was killed or crashed (exit $_rp_rc) before it could tell whether the RDMA path to the peer works"
            else
                rp_fail "verify: the RDMA path to the peer does not work (exit $_rp_rc)$(rp_state_reason "$RP_RUN/verify.env")"
            fi
            ;;
    esac
}

# NVMe over Fabrics targets over RDMA (rd.nvmf.discover=rdma,...; the early step's
# RP_NVMF_RDMA): connected by the binary once the network is up, at the same online point
# as rd.rdma.verify=peer and after it, once per boot: dracut's 95nvmf would run `nvme
# connect-all` when udev settles, before the RDMA port is named, up or addressed. dracut's
# own connect-all, where its module is in the image, finds them connected and skips them.
# $1: the interface that has just come online; a target whose route goes through another
# waits for that one's turn (exit 4). Under rd.rdma.required=1 a target not connected stops
# the boot before the root is waited for, with the reason.
rp_nvmf() {
    [ -e "$RP_RUN/nvmf.done" ] && return 0
    [ -e "$RP_RUN/invalid-input" ] && return 0
    RP_NVMF_RDMA=''
    rp_state || return 0
    [ "${RP_ENABLED:-1}" = 1 ] && [ -n "$RP_NVMF_RDMA" ] || return 0
    mkdir -p "$RP_RUN"
    : > "$RP_RUN/nvmf.done"
    rp_run_bin "nvmf --boot${1:+ --online $1}" nvmf.log
    rp_show "$RP_RUN/nvmf.log"
    case $_rp_rc in
        0) return 0 ;;
        4)
            # Connected what this interface leads to; the rest at a later one.
            rm -f "$RP_RUN/nvmf.done"
            return 0
            ;;
        2) rp_fail "nvmf: invalid input, nothing connected (exit 2)" ;;
        *)
            if [ "$_rp_rc" -gt 128 ] || [ -e "$RP_RUN/watchdog" ]; then
                rp_fail "nvmf was killed or crashed (exit $_rp_rc) before the NVMe over Fabrics root was connected"
            else
                rp_fail "nvmf: the NVMe over Fabrics target over RDMA is not connected (exit $_rp_rc)$(rp_state_reason "$RP_RUN/nvmf.env")"
            fi
            ;;
    esac
}

# Before switch-root: a run that udev queued late and the initqueue did not get to is done
# now, so the real root gets the final state; then one line says what is handed over
# (/run survives switch-root: state.json, state.env and apply's /run/udev/rules.d rules).
rp_handoff() {
    [ -e "$RP_JOB" ] && rm -f -- "$RP_JOB" && { rp_apply || return; }
    # The peer check waited for an interface that leads to the peer and none came: run
    # it now, so that its failure (no route) is said and follows the policy.
    if [ -e "$RP_RUN/verify.later" ] && [ ! -e "$RP_RUN/verify.done" ]; then
        rp_verify || return
    fi
    if [ -e "$RP_RUN/state.json" ]; then
        info "rdma-provision: handing over to the real root: $RP_RUN/state.json, state.env"
    fi
    return 0
}
