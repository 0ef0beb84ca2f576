# shellcheck shell=bash
# qemu_lib.sh: what the QEMU benchmarks share (sourced by qemu_modules.sh and
# qemu_provision.sh): the kernel, a private dracut base with the bench modules, images
# rebuilt only when an input changed, one guest under timeout, its BENCH lines.
# The caller sets REPO, HERE (tests/bench) and W (its work directory) before sourcing.
# Environment: BENCH_SMP (2), BENCH_MEM (1024), BENCH_TIMEOUT_S (1200), BENCH_ACCEL
# (tcg|kvm, default tcg), BENCH_KVER (newest /lib/modules/*-amd64).

SMP=${BENCH_SMP:-2}
MEM=${BENCH_MEM:-1024}
TMO=${BENCH_TIMEOUT_S:-1200}

say() { echo "bench: $*"; }
die() { echo "bench: FATAL: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

mkdir -p "$W"
QPID_FILE=$W/qemu.pid
TPID=
bench_cleanup() {  # stop the timeout wrapper and QEMU (by its pidfile), nothing else
    local qpid=
    [[ -f $QPID_FILE ]] && qpid=$(cat "$QPID_FILE" 2> /dev/null || true)
    if [[ -n $TPID ]] && kill -0 "$TPID" 2> /dev/null; then kill -TERM "$TPID" 2> /dev/null || true; fi
    if [[ -n $qpid ]] && [[ $(cat "/proc/$qpid/comm" 2> /dev/null) == qemu-system-* ]]; then
        kill -TERM "$qpid" 2> /dev/null || true
        sleep 2
        kill -0 "$qpid" 2> /dev/null && kill -KILL "$qpid" 2> /dev/null || true
    fi
    [[ -n $TPID ]] && wait "$TPID" 2> /dev/null || true
    rm -f "$QPID_FILE"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ kernel and modules
KVER=${BENCH_KVER:-$(for d in /lib/modules/*-amd64; do [[ -d $d ]] && echo "${d##*/}"; done | sort -V | tail -n1)}
KERNEL=/boot/vmlinuz-$KVER
[[ -n $KVER && -r $KERNEL && -d /lib/modules/$KVER ]] || die "no Debian kernel (/boot/vmlinuz-*, /lib/modules/*)"

# present_modules NAME... -> the ones this kernel has (others are reported and left out)
present_modules() {
    local m out=() missing=()
    for m in "$@"; do
        if modinfo -k "$KVER" -F filename "$m" > /dev/null 2>&1; then out+=("$m"); else missing+=("$m"); fi
    done
    ((${#missing[@]})) && say "not in kernel $KVER (left out): ${missing[*]}" >&2
    echo "${out[*]}"
}

# bazel_bin TARGET NAME -> copies the static, -c opt musl build of TARGET to $W/bin/NAME
bazel_bin() {
    local target=$1 name=$2 path
    say "building: bazel build --config=musl -c opt $target"
    (cd "$REPO" && bazel build --config=musl -c opt "$target") > "$W/bazel-build.log" 2>&1 ||
        { tail -n 20 "$W/bazel-build.log" >&2; die "bazel build failed (log: $W/bazel-build.log)"; }
    path=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2> /dev/null)/${target#//}
    path=${path/://}
    [[ -x $path ]] || die "no $path"
    file -b "$path" | grep -q 'statically linked' || die "$path is not statically linked"
    mkdir -p "$W/bin"
    cp -f "$path" "$W/bin/$name"
}

# ------------------------------------------------------------------ images
# A private dracut base: the system's dracut plus our module and the bench modules
# (nothing is installed system-wide).
BASE=$W/dracut-base
rm -rf "$BASE" && mkdir -p "$BASE/modules.d" "$W/conf.d-empty" "$W/img"
for f in /usr/lib/dracut/*; do [[ ${f##*/} == modules.d ]] || ln -s "$f" "$BASE/${f##*/}"; done
for m in /usr/lib/dracut/modules.d/*; do
    [[ ${m##*/} == *rdma-provision ]] || ln -s "$m" "$BASE/modules.d/${m##*/}"
done
ln -s "$REPO/dracut-module/90rdma-provision" "$BASE/modules.d/90rdma-provision"
for m in "$HERE"/dracut/*; do ln -s "$m" "$BASE/modules.d/${m##*/}"; done

# build_image NAME "DRACUT MODULES" CONF_LINES... -> $W/img/NAME.img (uncompressed),
# rebuilt only when an input (configuration, files it names, our dracut modules) changed.
build_image() {
    local name=$1 modules=$2
    shift 2
    local img=$W/img/$name.img conf=$W/img/$name.conf key t0
    printf '%s\n' "$@" > "$conf"
    key=$({
        echo "$name|$modules|$KVER|$(dpkg-query -W -f='${Version}' dracut-core 2> /dev/null || true)"
        cat "$conf"
        find "$HERE/dracut" "$REPO/dracut-module" "$W/bin" -type f -print0 2> /dev/null | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1)
    if [[ -f $img && -f $img.key && $(cat "$img.key") == "$key" ]]; then
        say "image $name: up to date ($(stat -c %s "$img") bytes)"
        return 0
    fi
    t0=$(now)
    rm -f "$img" "$img.key"
    dracutbasedir=$BASE dracut --no-hostonly --no-hostonly-cmdline --no-compress \
        --conf "$conf" --confdir "$W/conf.d-empty" --kver "$KVER" --force \
        --modules "$modules" "$img" > "$W/build-$name.log" 2>&1 ||
        { tail -n 25 "$W/build-$name.log" >&2; die "dracut failed for $name (log: $W/build-$name.log)"; }
    echo "$key" > "$img.key"
    say "image $name: built in $(elapsed "$t0") s, $(stat -c %s "$img") bytes (log: $W/build-$name.log)"
}

# ------------------------------------------------------------------ one guest
# boot_guest IMAGE APPEND QEMU_ARGS... -> the serial log as plain text in $W/serial.plain;
# returns QEMU's exit status (124: the timeout).
boot_guest() {
    local img=$1 append=$2 accel rc=0 t0
    shift 2
    case ${BENCH_ACCEL:-tcg} in
        tcg) accel=(-accel tcg) ;;
        kvm) accel=(-accel kvm -cpu host) ;;
        *) die "BENCH_ACCEL must be tcg or kvm" ;;
    esac
    rm -f "$W/serial.log" "$QPID_FILE"
    say "booting: ${accel[*]} -smp $SMP -m $MEM, timeout ${TMO} s (serial log: $W/serial.log)"
    t0=$(now)
    timeout --kill-after=5 "$TMO" qemu-system-x86_64 "${accel[@]}" \
        -m "$MEM" -smp "$SMP" -nodefaults -display none -no-reboot \
        -kernel "$KERNEL" -initrd "$img" -append "$append" "$@" \
        -serial "file:$W/serial.log" -pidfile "$QPID_FILE" \
        < /dev/null > "$W/qemu.log" 2>&1 &
    TPID=$!
    wait "$TPID" || rc=$?
    TPID=
    say "VM exited with status $rc after $(elapsed "$t0") s$([[ $rc == 124 ]] && echo ' (TIMEOUT)')"
    sed 's/\x1b\[[0-9;]*m//g' "$W/serial.log" | tr -d '\r' > "$W/serial.plain"
    return "$rc"
}

# show_results LINE-KINDS TITLE AWK-TABLE: the guest's BENCH lines of those kinds (a regex
# alternation, e.g. "INFO|ERROR|STATUS"), then the table the awk script makes of the
# "BENCH: " lines; dies when there are none.
show_results() {
    local kinds=$1 title=$2 table=$3 plain=$W/serial.plain
    grep -aE "^BENCH-($kinds)|^BENCH: " "$plain" || true
    echo
    if ! grep -aq '^BENCH: ' "$plain"; then
        tail -n 30 "$plain" >&2
        die "no BENCH lines in the serial log"
    fi
    echo "=== $title (from the serial log; ${BENCH_ACCEL:-tcg}, -smp $SMP)"
    grep -a '^BENCH: ' "$plain" | awk -f "$table" | sed 's/^BENCH-TABLE: //'
}
