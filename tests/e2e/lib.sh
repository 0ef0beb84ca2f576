#!/usr/bin/env bash
# lib.sh: the machinery of the end-to-end harness (sourced by run.sh): the binary, the
# dracut images, the accelerator, the VMs and the checks on their serial logs.
# Rules it keeps: VMs talk only to each other over "-netdev dgram" on 127.0.0.1 (never
# user-mode networking, never another address); every QEMU gets a timeout and is stopped
# by its PID; nothing is left running when the harness exits, pass or fail.

KVER=${E2E_KVER:-}
KERNEL=
# E2E_KERNEL=6.12: Debian's 6.12 from bookworm-backports, unpacked by rules/bootstrap.sh
# --e2e under .cache/k612 (with the siw.ko built for it) and never installed: dracut gets
# its module tree with --kmoddir, QEMU its vmlinuz. Default: the machine's 6.1.
E2E_KERNEL=${E2E_KERNEL:-6.1}
KMODDIR=
QEMU_ACCEL=()
STARTED_PIDS=()   # "timeout" processes wrapping QEMU
declare -A VM_PID VM_QEMU_PIDFILE

say() { echo "e2e: $*"; }
die_e2e() { echo "e2e: FATAL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --------------------------------------------------------------------- cleanup
stop_pid() {  # pid: TERM, then KILL after 3 s
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -0 "$pid" 2> /dev/null || return 0
    kill -TERM "$pid" 2> /dev/null
    for i in 1 2 3 4 5 6; do
        kill -0 "$pid" 2> /dev/null || return 0
        sleep 0.5
    done
    kill -KILL "$pid" 2> /dev/null
}

stop_vm() {  # name
    local name=$1 qpid=
    [[ -f ${VM_QEMU_PIDFILE[$name]:-} ]] && qpid=$(cat "${VM_QEMU_PIDFILE[$name]}" 2> /dev/null)
    stop_pid "${VM_PID[$name]:-}"
    [[ -n $qpid ]] && [[ $(cat "/proc/$qpid/comm" 2> /dev/null) == qemu-system-* ]] && stop_pid "$qpid"
    wait "${VM_PID[$name]:-}" 2> /dev/null
    return 0
}

cleanup_all() {
    local name
    for name in "${!VM_PID[@]}"; do stop_vm "$name"; done
}

# --------------------------------------------------------------------- kernel
pick_kernel() {
    if [[ $E2E_KERNEL == 6.12 ]]; then
        local k612=${RDMA_PROVISION_CACHE:-$REPO/.cache}/k612
        KVER=$(cat "$k612/kver" 2> /dev/null)
        KERNEL=$k612/root/boot/vmlinuz-$KVER
        KMODDIR=$k612/root/lib/modules/$KVER
        [[ -n $KVER && -r $KERNEL && -d $KMODDIR ]] ||
            die_e2e "no 6.12 kernel under $k612: run rules/bootstrap.sh --e2e"
        return
    fi
    [[ $E2E_KERNEL == 6.1 ]] || die_e2e "E2E_KERNEL=$E2E_KERNEL: 6.1 or 6.12"
    if [[ -z $KVER ]]; then
        local d
        for d in /lib/modules/*-amd64; do [[ -d $d ]] && echo "${d##*/}"; done | sort -V > "$W/kvers"
        KVER=$(tail -n1 "$W/kvers")
    fi
    KERNEL=/boot/vmlinuz-$KVER
    [[ -n $KVER && -r $KERNEL && -d /lib/modules/$KVER ]] ||
        die_e2e "no Debian kernel found (/boot/vmlinuz-*, /lib/modules/*): run rules/bootstrap.sh --e2e"
}

# --------------------------------------------------------------------- binary
build_binary() {  # -> $W/bin/rdma-provision (a copy: a rebuild during the run changes nothing)
    mkdir -p "$W/bin"
    if [[ -n ${E2E_BINARY:-} ]]; then  # a prebuilt binary, e.g. from a release
        cp -f "$E2E_BINARY" "$W/bin/rdma-provision" || die_e2e "cannot copy E2E_BINARY=$E2E_BINARY"
        file -b "$W/bin/rdma-provision" | grep -q 'statically linked' ||
            die_e2e "$E2E_BINARY is not statically linked"
        say "binary: $E2E_BINARY: $("$W/bin/rdma-provision" --version 2>&1 | head -n1)"
        return
    fi
    say "building the release binary: bazel build --config=musl -c opt //provision:rdma-provision"
    # E2E_PROGRESS=1 (the demo): Bazel's own progress lines, every 20 s, as it goes.
    local rc
    (cd "$REPO" && bazel build --config=musl -c opt --curses=no --show_progress_rate_limit=20 \
        //provision:rdma-provision 2>&1) |
        tee "$W/logs/bazel-build.log" |
        grep --line-buffered -E '^\[[0-9,]+ / [0-9,]+\]|^INFO: Elapsed' |
        sed -u 's/^/    bazel: /' | if [[ ${E2E_PROGRESS:-0} == 1 ]]; then cat; else cat > /dev/null; fi
    rc=${PIPESTATUS[0]}
    if ((rc != 0)); then
        tail -n 20 "$W/logs/bazel-build.log" >&2
        die_e2e "bazel build failed (log: $W/logs/bazel-build.log)"
    fi
    # Not the bazel-bin symlink: it follows whichever configuration was built last.
    local bin
    bin=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2> /dev/null)/provision/rdma-provision
    [[ -x $bin ]] || die_e2e "no binary at $bin"
    cp -f "$bin" "$W/bin/rdma-provision.tmp" && mv -f "$W/bin/rdma-provision.tmp" "$W/bin/rdma-provision"
    file -b "$W/bin/rdma-provision" | grep -q 'statically linked' ||
        die_e2e "$bin is not statically linked: $(file -b "$bin")"
    say "binary: $("$W/bin/rdma-provision" --version 2>&1 | head -n1) ($(stat -c %s "$W/bin/rdma-provision") bytes, $(file -b "$W/bin/rdma-provision" | cut -d, -f1-2))"
}

# What users install: the .deb that rules/package.sh makes from that binary, unpacked into
# $W/pkgroot (dpkg-deb -x, a scratch root); the images take the dracut module and the
# binary from there, at the package's paths, not from the build tree.
PKG_ROOT=$W/pkgroot
install_package() {
    rm -rf "$W/pkg" "$PKG_ROOT"
    bash "$REPO/rules/package.sh" --binary "$W/bin/rdma-provision" --out "$W/pkg" --no-lint \
        > "$W/logs/package.log" 2>&1 || {
        tail -n 20 "$W/logs/package.log" >&2
        die_e2e "rules/package.sh failed (log: $W/logs/package.log)"
    }
    local deb
    deb=$(ls "$W"/pkg/rdma-provision_*_amd64.deb)
    dpkg-deb -x "$deb" "$PKG_ROOT" || die_e2e "dpkg-deb -x $deb"
    [[ -x $PKG_ROOT/usr/sbin/rdma-provision && -d $PKG_ROOT/usr/lib/dracut/modules.d/90rdma-provision ]] ||
        die_e2e "$deb lacks the binary or the dracut module"
    say "package: ${deb##*/} unpacked into $PKG_ROOT (the images use its module and binary)"
}

# The test-only tools scenario 8 runs in the guest (tests/nlmon), static like the binary.
build_test_tools() {
    say "building tests/nlmon tools: bazel build --config=musl -c opt //tests/nlmon:nl_ops //tests/nlmon:nlcap"
    (cd "$REPO" && bazel build --config=musl -c opt //tests/nlmon:nl_ops //tests/nlmon:nlcap) \
        > "$W/logs/bazel-build-tools.log" 2>&1 || {
        tail -n 20 "$W/logs/bazel-build-tools.log" >&2
        die_e2e "bazel build failed (log: $W/logs/bazel-build-tools.log)"
    }
    local bin t
    bin=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2> /dev/null)/tests/nlmon
    for t in nl_ops nlcap; do
        cp -f "$bin/$t" "$W/bin/$t.tmp" && mv -f "$W/bin/$t.tmp" "$W/bin/$t" || die_e2e "no $bin/$t"
    done
}

# Scenario 21's misbehaving client (tests/e2e/tools), into the exported root.
build_fault_client() {
    say "building the fault client: bazel build --config=musl -c opt //tests/e2e/tools:verify_fault"
    (cd "$REPO" && bazel build --config=musl -c opt //tests/e2e/tools:verify_fault) \
        > "$W/logs/bazel-build-fault.log" 2>&1 || {
        tail -n 20 "$W/logs/bazel-build-fault.log" >&2
        die_e2e "bazel build failed (log: $W/logs/bazel-build-fault.log)"
    }
    local bin
    bin=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2> /dev/null)/tests/e2e/tools
    cp -f "$bin/verify_fault" "$W/bin/verify_fault.tmp" && mv -f "$W/bin/verify_fault.tmp" "$W/bin/verify_fault" ||
        die_e2e "no $bin/verify_fault"
}

# --------------------------------------------------------------------- accelerator
# KVM only if a short marker boot proves it: /dev/kvm can exist and still not run a stock
# kernel (a nested PVM host stalls in the decompressor).
pick_accel() {
    case ${E2E_ACCEL:-auto} in
        tcg) QEMU_ACCEL=(-accel tcg); say "accelerator: tcg (E2E_ACCEL)"; return ;;
        kvm) QEMU_ACCEL=(-accel kvm -cpu host); say "accelerator: kvm (E2E_ACCEL)"; return ;;
    esac
    QEMU_ACCEL=(-accel tcg)
    if [[ ! -w /dev/kvm ]]; then
        say "accelerator: tcg (no usable /dev/kvm)"
        return
    fi
    local d=$W/kvm-check t0
    rm -rf "$d" && mkdir -p "$d/root/bin" "$d/root/dev" "$d/root/proc"
    cp /bin/busybox "$d/root/bin/busybox" 2> /dev/null || { say "accelerator: tcg (no busybox for the KVM check)"; return; }
    cat > "$d/root/init" << 'EOF'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs dev /dev
echo E2E-KVM-MARKER > /dev/ttyS0
/bin/busybox poweroff -f
EOF
    chmod +x "$d/root/init"
    (cd "$d/root" && find . | cpio -o -H newc --quiet) > "$d/marker.cpio"
    t0=$(now)
    timeout --kill-after=3 "${E2E_KVM_CHECK_S:-25}" qemu-system-x86_64 -accel kvm -cpu host \
        -m 256 -smp 1 -nodefaults -display none -no-reboot -kernel "$KERNEL" \
        -initrd "$d/marker.cpio" -append "console=ttyS0 panic=-1" \
        -serial "file:$d/serial.log" < /dev/null > "$d/qemu.log" 2>&1
    if grep -q E2E-KVM-MARKER "$d/serial.log" 2> /dev/null; then
        QEMU_ACCEL=(-accel kvm -cpu host)
        say "accelerator: kvm (marker boot in $(elapsed "$t0") s)"
    else
        say "accelerator: tcg (the KVM marker boot did not reach init within ${E2E_KVM_CHECK_S:-25} s)"
    fi
}

# --------------------------------------------------------------------- dracut images
# A private dracut base directory: the system's dracut with our module and the harness'
# modules added, so nothing is installed into /usr/lib/dracut.
prepare_dracut_base() {
    local base=$W/dracut-base f m
    rm -rf "$base" && mkdir -p "$base/modules.d"
    for f in /usr/lib/dracut/*; do
        [[ ${f##*/} == modules.d ]] || ln -s "$f" "$base/${f##*/}"
    done
    for m in /usr/lib/dracut/modules.d/*; do
        [[ ${m##*/} == *rdma-provision ]] && continue  # an installed copy: ours replaces it
        ln -s "$m" "$base/modules.d/${m##*/}"
    done
    ln -s "$PKG_ROOT/usr/lib/dracut/modules.d/90rdma-provision" "$base/modules.d/90rdma-provision"
    for m in "$E2E"/dracut/*; do ln -s "$m" "$base/modules.d/${m##*/}"; done
    mkdir -p "$W/conf.d-empty"
}

# dracut-ng (trixie's dracut 106) run from its own tree, unpacked and its C helpers built by
# rules/bootstrap.sh --e2e, beside the machine's dracut 059: $W/dracut-ng-base holds its
# files, its modules and ours, as $W/dracut-base does for the installed dracut.
DRACUT_NG=${RDMA_PROVISION_CACHE:-$REPO/.cache}/src/dracut
prepare_dracut_ng_base() {
    local base=$W/dracut-ng-base f m
    [[ -x $DRACUT_NG/dracut-install && -f $DRACUT_NG/dracut.sh ]] ||
        die_e2e "no dracut-ng in $DRACUT_NG: run rules/bootstrap.sh --e2e"
    rm -rf "$base" && mkdir -p "$base/modules.d"
    for f in "$DRACUT_NG"/*.sh "$DRACUT_NG"/dracut.conf.d "$DRACUT_NG"/install.d; do
        ln -s "$f" "$base/${f##*/}"
    done
    # The helpers as files (a symlink would be copied into the image as a link to the tree).
    cp "$DRACUT_NG/src/install/dracut-install" "$DRACUT_NG/dracut-util" "$DRACUT_NG/src/skipcpio/skipcpio" "$base/"
    for m in "$DRACUT_NG"/modules.d/*; do ln -s "$m" "$base/modules.d/${m##*/}"; done
    ln -s "$PKG_ROOT/usr/lib/dracut/modules.d/90rdma-provision" "$base/modules.d/90rdma-provision"
    for m in "$E2E"/dracut/*; do ln -s "$m" "$base/modules.d/${m##*/}"; done
}

prepare_nfsroot() {  # the tiny root the server exports
    local r=$W/nfsroot
    rm -rf "$r" && mkdir -p "$r"/{bin,sbin,etc,usr/lib,proc,sys,dev,run,tmp,sysroot}
    cp /bin/busybox "$r/bin/busybox"
    ln -s busybox "$r/bin/sh"
    cp "$E2E/nfsroot/init" "$r/sbin/init" && chmod 0755 "$r/sbin/init"
    # The real root's own run (what rdma-provision.service does there): the same binary
    # and configuration as the client's initramfs.
    mkdir -p "$r/usr/sbin" "$r/etc/rdma-provision"
    cp "$PKG_ROOT/usr/sbin/rdma-provision" "$r/usr/sbin/rdma-provision"
    cp "$E2E/client.conf" "$r/etc/rdma-provision/rdma-provision.conf"
    # Scenario 21's fault client, once built (build_fault_client).
    [[ -x $W/bin/verify_fault ]] && cp "$W/bin/verify_fault" "$r/usr/sbin/verify_fault"
    # systemd's switch-root wants an OS tree.
    printf 'NAME="rdma-provision e2e root"\nID=e2e\nPRETTY_NAME="rdma-provision e2e root"\n' > "$r/etc/os-release"
    cp "$r/etc/os-release" "$r/usr/lib/os-release"
}

# The exported root as an ext4 image (scenario 23: the server serves it as a block device
# through nvmet over RDMA), made again only when the tiny root's contents changed.
NVMF_UUID=7a3c52f1-4d0e-4f6a-9b1e-2c8d5e6f7a80
prepare_nvmf_root() {
    local img=$W/nvmfroot.img key
    key=$(cd "$W/nfsroot" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
    [[ -f $img && $(cat "$img.key" 2> /dev/null) == "$key" ]] && return 0
    rm -f "$img" "$img.key"
    mkfs.ext4 -q -F -L e2e-nvmfroot -U "$NVMF_UUID" -d "$W/nfsroot" "$img" 48M || return 1
    echo "$key" > "$img.key"
}

# The images' compression (E2E_INITRD_COMPRESS=none|zstd|gzip|...; E2E_PXE_COMPRESS for
# the PXE pair, which goes over the emulated network): none by default. Measured on the
# client-shell image (2 cores): dracut 059's own choice, gzip -9, takes 33.0 s to build
# (29 of them compressing), zstd 12.0 s, none 3.7 s (89.7 MB; the guests have 1 GiB); the
# shell boot reached its root at uptime 23.9 s (gzip), 25.6 s (zstd), 23.3 s (none).
E2E_INITRD_COMPRESS=${E2E_INITRD_COMPRESS:-none}
E2E_PXE_COMPRESS=${E2E_PXE_COMPRESS:-zstd}

# build_image NAME MODULES CONF_LINES... -> $W/img/NAME.img, rebuilt only when an input changed.
# DRACUT_FLAVOUR=ng: built by dracut-ng (prepare_dracut_ng_base) instead of the machine's.
build_image() {
    local name=$1 modules=$2
    shift 2
    local img=$W/img/$name.img conf=$W/img/$name.conf key t0 flavour=${DRACUT_FLAVOUR:-system}
    local dracut=(dracut) base=$W/dracut-base version by=
    version=$(dpkg-query -W -f='${Version}' dracut-core 2> /dev/null)
    if [[ $flavour == ng ]]; then
        dracut=(bash "$DRACUT_NG/dracut.sh") base=$W/dracut-ng-base by=" by dracut-ng"
        version="ng $(cat "$DRACUT_NG/../dracut.stamp" 2> /dev/null)"
    fi
    mkdir -p "$W/img"
    {
        printf '%s\n' "$@"
        printf 'add_drivers+=" virtio_pci virtio_net "\n'
    } > "$conf"
    key=$({
        echo "$name|$modules|$KVER|$version|$E2E_INITRD_COMPRESS"
        cat "$conf"
        find "$REPO/dracut-module/90rdma-provision" "$E2E/dracut" "$E2E/nfsroot" "$E2E/client.conf" \
            -type f -print0 | sort -z | xargs -0 sha256sum
        [[ " $modules " == *" rdma-provision "* ]] && sha256sum "$W/bin/rdma-provision"
        # The server carries the exported root (whose rdma-provision the real root runs)
        # and the listener's binary: a new binary is a new server image too.
        grep -qE '^e2e_(nfsroot|verify_bin)=' "$conf" && sha256sum "$W/bin/rdma-provision" "$W/nfsroot/sbin/init" $(ls "$W/nfsroot/usr/sbin/verify_fault" 2> /dev/null)
        grep -q '^e2e_nvmf_image=' "$conf" && cat "$W/nvmfroot.img.key"
        [[ " $modules " == *" e2e-nlmon "* ]] && sha256sum "$W/bin/rdma-provision" "$W"/bin/nl_ops "$W"/bin/nlcap
    } | sha256sum | cut -d' ' -f1)
    if [[ -f $img && -f $img.key && $(cat "$img.key") == "$key" ]]; then
        say "image $name: up to date ($(stat -c %s "$img") bytes)"
        return 0
    fi
    local compress=(--compress="$E2E_INITRD_COMPRESS")
    [[ $E2E_INITRD_COMPRESS == none ]] && compress=(--no-compress)
    t0=$(now)
    rm -f "$img" "$img.key"
    dracutbasedir=$base "${dracut[@]}" --no-hostonly --no-hostonly-cmdline \
        --conf "$conf" --confdir "$W/conf.d-empty" --kver "$KVER" ${KMODDIR:+--kmoddir "$KMODDIR"} --force "${compress[@]}" \
        --modules "$modules" "$img" > "$W/logs/build-$name.log" 2>&1 || {
        tail -n 25 "$W/logs/build-$name.log" >&2
        say "image $name: dracut FAILED (log: $W/logs/build-$name.log)"
        return 1
    }
    echo "$key" > "$img.key"
    say "image $name: built$by in $(elapsed "$t0") s, $(stat -c %s "$img") bytes"
}

# --------------------------------------------------------------------- VMs
# start_vm NAME IMAGE APPEND MAC LOCAL_PORT REMOTE_PORT TIMEOUT_S [paused|console|pxe]
# "pxe": no kernel, initramfs or command line from QEMU: the machine boots from its NIC
# (SeaBIOS, then Debian's ipxe-qemu ROM), with the BIOS console on the serial port
# (graphics=off) and a reboot, which -no-reboot turns into an exit, 1 s after a failed
# boot instead of SeaBIOS' 60 s retry loop. IMAGE and APPEND are unused.
# "paused": QEMU starts stopped (-S) with a monitor socket (vm_monitor), so the harness can
# change the machine (set_link) before the guest runs its first instruction.
start_vm() {
    local name=$1 img=$2 append=$3 mac=$4 lport=$5 rport=$6 tmo=$7 paused=${8:-}
    local log=$RUN_DIR/$name.log pidf=$RUN_DIR/$name.pid extra=()
    local boot=(-kernel "$KERNEL" -initrd "$img" -append "$append")
    [[ $paused == pxe ]] && boot=(-boot order=n,reboot-timeout=1000 -machine graphics=off)
    rm -f "$log" "$pidf" "$RUN_DIR/$name.mon"
    local serial=(-serial "file:$log")
    [[ $paused == paused ]] && extra=(-S -monitor "unix:$RUN_DIR/$name.mon,server=on,wait=off")
    # "console": the serial port is also a socket the harness can type into (vm_type); the
    # log records everything the guest writes, connected or not.
    [[ $paused == console ]] && serial=(-chardev "socket,id=con0,path=$RUN_DIR/$name.con,server=on,wait=off,logfile=$log" -serial chardev:con0)
    # CLIENT_NIC2=MAC: the client gets a second NIC first on the PCI bus (so it appears and
    # comes online first), on a UDP port pair of 127.0.0.1 of its own.
    # SERVER_NIC2=MAC: the server's end of that pair, after its first NIC on the bus (the
    # server's script takes the first as its fabric, e2e.aux-ip= addresses this one).
    local nic2=() srv_nic2=()
    local aux_net="dgram,id=n1,local.type=inet,local.host=127.0.0.1,local.port=$((lport + 20000)),remote.type=inet,remote.host=127.0.0.1,remote.port=$((rport + 20000))"
    [[ $name == client && -n ${CLIENT_NIC2:-} ]] && nic2=(
        -netdev "$aux_net" -device "virtio-net-pci,netdev=n1,mac=$CLIENT_NIC2")
    [[ $name == server && -n ${SERVER_NIC2:-} ]] && srv_nic2=(
        -netdev "$aux_net" -device "virtio-net-pci,netdev=n1,mac=$SERVER_NIC2")
    timeout --kill-after=5 "$tmo" qemu-system-x86_64 "${QEMU_ACCEL[@]}" \
        -m 1024 -smp 1 -nodefaults -display none -no-reboot \
        "${boot[@]}" "${nic2[@]}" \
        -netdev "dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport" \
        -device "virtio-net-pci,netdev=n0,mac=$mac" "${srv_nic2[@]}" \
        "${serial[@]}" -pidfile "$pidf" "${extra[@]}" \
        < /dev/null > "$RUN_DIR/$name.qemu.log" 2>&1 &
    VM_PID[$name]=$!
    VM_QEMU_PIDFILE[$name]=$pidf
    echo "$append" > "$RUN_DIR/$name.cmdline"
}

# vm_monitor NAME COMMAND: one human-monitor command (QEMU's HMP: "set_link n0 off",
# "cont") on a VM started "paused"; waits up to 10 s for the socket and the prompt.
vm_monitor() {
    python3 - "$RUN_DIR/$1.mon" "$2" << 'PY'
import socket, sys, time
path, command = sys.argv[1], sys.argv[2]
end = time.time() + 10
while True:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        break
    except OSError:
        if time.time() > end:
            sys.exit("e2e: no monitor socket at " + path)
        time.sleep(0.1)
s.settimeout(10)
def until_prompt():
    got = b""
    while not got.endswith(b"(qemu) "):
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    return got
until_prompt()
s.sendall(command.encode() + b"\n")
answer = until_prompt().decode(errors="replace")
# The monitor echoes the command; anything else before the prompt is QEMU's complaint.
lines = [l for l in answer.replace("\r", "").split("\n") if l and "(qemu)" not in l and command not in l]
if lines:
    sys.exit("e2e: monitor: " + command + ": " + " ".join(lines))
PY
}

# vm_type NAME TEXT: types TEXT on the serial console of a VM started with "console".
vm_type() {
    python3 - "$RUN_DIR/$1.con" "$2" << 'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
for ch in sys.argv[2]:  # a terminal's pace: the guest's tty has a small input buffer
    s.sendall(ch.encode())
    time.sleep(0.002)
time.sleep(0.5)
PY
}

# wait_vm NAME -> exit status of timeout(1): 0 = the VM powered off by itself, 124 = timeout
wait_vm() {
    local rc=0
    wait "${VM_PID[$1]}" || rc=$?
    unset "VM_PID[$1]"
    return $rc
}

# wait_for_line NAME REGEX SECONDS: until the VM's serial log shows the line or it exits
wait_for_line() {
    local name=$1 re=$2 s=$3 i
    for ((i = 0; i < s * 2; i++)); do
        grep -qE "$re" "$RUN_DIR/$name.log" 2> /dev/null && return 0
        kill -0 "${VM_PID[$name]:-0}" 2> /dev/null || return 1
        sleep 0.5
    done
    return 1
}

# --------------------------------------------------------------------- checks
# Each check records one line: "ok   <what>: <the decisive log line>" or "FAIL <what>".
CHECKS=()
CHECK_FAILED=0
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1" 2> /dev/null | tr -d '\r'; }  # serial log without colours
check_line() {  # LOG REGEX WHAT: the first matching line is the evidence
    local line
    line=$(plain "$1" | grep -m1 -aE "$2")
    if [[ -n $line ]]; then
        CHECKS+=("ok   $3: ${line:0:220}")
    else
        CHECKS+=("FAIL $3: no line matching /$2/ in ${1##*/}")
        CHECK_FAILED=1
    fi
}
check_no_line() {  # LOG REGEX WHAT
    local line
    line=$(plain "$1" | grep -m1 -aE "$2")
    if [[ -z $line ]]; then
        CHECKS+=("ok   $3")
    else
        CHECKS+=("FAIL $3: found ${line:0:200}")
        CHECK_FAILED=1
    fi
}
check_count() {  # LOG REGEX N WHAT
    local n line
    n=$(plain "$1" | grep -caE "$2")
    line=$(plain "$1" | grep -m1 -aE "$2")
    if [[ $n -eq $3 ]]; then
        CHECKS+=("ok   $4 ($n time(s)): ${line:0:200}")
    else
        CHECKS+=("FAIL $4: /$2/ seen $n times, expected $3")
        CHECK_FAILED=1
    fi
}
check_order() {  # LOG REGEX_FIRST REGEX_THEN WHAT: the first line of each, in this order
    local a b
    a=$(plain "$1" | grep -n -m1 -aE "$2" | cut -d: -f1)
    b=$(plain "$1" | grep -n -m1 -aE "$3" | cut -d: -f1)
    if [[ -n $a && -n $b && $a -lt $b ]]; then
        CHECKS+=("ok   $4 (log lines $a < $b)")
    else
        CHECKS+=("FAIL $4: /$2/ at line ${a:-none}, /$3/ at line ${b:-none}")
        CHECK_FAILED=1
    fi
}
check_true() {  # CONDITION-RESULT(0/1) WHAT
    if [[ $1 -eq 0 ]]; then CHECKS+=("ok   $2"); else CHECKS+=("FAIL $2"); CHECK_FAILED=1; fi
}

# --------------------------------------------------------------------- the guests' network
# (shared with tests/bench/qemu_time_to_root.sh, which boots the same client)
# 10.77.0.0/24 exists only inside the guests; QEMU carries their frames over UDP between
# two ports on 127.0.0.1, different for each run of the harness.
SRV_IP=10.77.0.1 CLI_IP=10.77.0.2 MASK=255.255.255.0
SRV_MAC=52:54:00:77:00:01 CLI_MAC=52:54:00:77:00:02
NIC=fabric0   # the client NIC's persistent name, given by rd.rdma.name
PORT_A=$((20000 + ($$ % 10000) * 2)) PORT_B=$((20001 + ($$ % 10000) * 2))

BOOT="console=ttyS0 panic=-1 rd.shell=0 rd.retry=30"
ROOT_RDMA="root=nfs4:$SRV_IP:/export/root:rdma,port=20049,vers=4.2 rw"
ROOT_TCP="root=nfs4:$SRV_IP:/export/root:vers=4.2 rw"
IP_NIC="ip=$CLI_IP:::$MASK:e2e-client:$NIC:none rd.neednet=1"
RDMA_ARGS="rd.rdma.rxe=$NIC rd.rdma.roce=rxe0/1:v2:106 rd.rdma.name=$NIC:$CLI_MAC rd.rdma.wait=rxe0/1"

CLIENT_MODULES="base bash udev-rules network-legacy network nfs"
SYSTEMD_MODULES="systemd systemd-initrd dracut-systemd"
CLIENT_CONF=(
    "rdma_provision_binary=$PKG_ROOT/usr/sbin/rdma-provision"
    "rdma_provision_config=$E2E/client.conf"
    "rdma_provision_drivers=rdma_rxe"
    "rdma_provision_rdma_core=no"
    # Baked into the image (/etc/cmdline.d): the module must hand it to the binary too.
    'kernel_cmdline="rd.rdma.timeout=45"'
)

# --------------------------------------------------------------------- one boot
# boot_pair SERVER(yes|no) CLIENT_IMAGE CLIENT_APPEND CLIENT_TIMEOUT
# -> CLIENT_RC (0: powered off by itself), CLIENT_WALL; logs client.log / server.log
# SERVER_IMG: the server's image (default server; server-nvmf for scenario 23).
boot_pair() {
    local with_server=$1 img=$2 append=$3 tmo=$4 t0
    if [[ $with_server == yes ]]; then
        start_vm server "$W/img/${SERVER_IMG:-server}.img" \
            "console=ttyS0 panic=-1 rd.shell=0 e2e.ip=$SRV_IP/24 e2e.lifetime=$((tmo + 60))${SERVER_APPEND:+ $SERVER_APPEND}" \
            "$SRV_MAC" "$PORT_A" "$PORT_B" $((tmo + 90))
        # SERVER_WAIT (a regex): the client starts once the server printed it, for a
        # scenario whose server does something the client must not race (21: the
        # listener's device removed and re-listened on before the client's boot check).
        if [[ -n ${SERVER_WAIT:-} ]] && ! wait_for_line server "$SERVER_WAIT" 120; then
            echo "    server: no line matching /$SERVER_WAIT/ within 120 s; the client starts anyway" >&2
        fi
    fi
    t0=$(now)
    # BOOT_HOOK (a function): starts the client paused and is called with it, to act on
    # the machine while it boots (it must let the guest run: vm_monitor client cont);
    # BOOT_HOOK_MODE=console starts it running, with a console the hook can type into.
    start_vm client "$W/img/$img.img" "$append" "$CLI_MAC" "$PORT_B" "$PORT_A" "$tmo" \
        "${BOOT_HOOK:+${BOOT_HOOK_MODE:-paused}}"
    [[ -n ${BOOT_HOOK:-} ]] && "$BOOT_HOOK"
    CLIENT_RC=0
    wait_vm client || CLIENT_RC=$?
    CLIENT_WALL=$(elapsed "$t0")
    if [[ $with_server == yes ]]; then
        # The server powers off once the client wrote /client-done; stop it otherwise. It
        # looks once a second (guest time, slower under emulation on a loaded host): the
        # harness gives it 10 s to see the write, which it said within 1 s on an idle one.
        wait_for_line server 'E2E-SERVER: client done' 10 > /dev/null && sleep 3
        stop_vm server
    fi
}

