#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine lacks to build and test rdma-provision:
# apt packages, zig (npm) and the third-party source packages (apt-get source), every
# download checked against rules/sources.lock. Idempotent: a second run only verifies.
#
#   rules/bootstrap.sh            build + unit tests
#   rules/bootstrap.sh --e2e      also the kernel, dracut and QEMU for the boot tests
#   rules/bootstrap.sh --boot     only the 6.1 boots that need no more (tests/e2e/run.sh
#                                 picks it when its scenarios allow): no second kernel,
#                                 Soft-iWARP build, dracut-ng or NetworkManager
#   --no-tests                    without the tests' tools (formatter, fuzzers' clang,
#                                 linters): the demo's `--boot --no-tests`
#
# The cache lives in $RDMA_PROVISION_CACHE (default: <repo>/.cache), ignored by git/bazel.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RDMA_PROVISION_CACHE:-$REPO/.cache}
LOCK=$REPO/rules/sources.lock
WANT_BOOT=0 WANT_E2E=0 WANT_TESTS=1
for a in "$@"; do
  case "$a" in
    --e2e) WANT_BOOT=1 WANT_E2E=1 ;;
    --boot) WANT_BOOT=1 ;;
    --no-tests) WANT_TESTS=0 ;;
    *) echo "bootstrap: unknown argument '$a' (known: --e2e, --boot, --no-tests)" >&2; exit 2 ;;
  esac
done

say() { echo "bootstrap: $*"; }
die() { echo "bootstrap: FAILED: $*" >&2; exit 1; }

# ---------------------------------------------------------------- apt packages
# name[=version-prefix]: the prefix is checked after installation, so a machine with an
# unexpected version fails here with a clear message instead of deep inside the build.
# The release binary and its packages (rpm for rpmbuild).
BUILD_PKGS=(
  bazel-bootstrap=4.2.3 g++ python3 flex bison patch xz-utils ca-certificates
  googletest=1.12.1 libtomlplusplus-dev=3.3.0 nlohmann-json3-dev=3.11.2
  iproute2 kmod nodejs npm file bc binutils openssl tar rpm
)
# The tests beyond the build: the formatter, the fuzzers' clang, the packages' linters.
# dhcp-hosts' output is checked by the DHCP servers' own configuration tests (dhcpd -t,
# kea-dhcp4 -t, dnsmasq --test).
TEST_PKGS=(clang-format clang-14 libclang-rt-14-dev time strace lintian rpmlint
  isc-dhcp-server=4.4.3 kea-dhcp4-server=2.2.0 dnsmasq-base=2.90)
# The boots on Debian's 6.1 (the demo's).
BOOT_PKGS=(
  dracut-core=059 dracut-network=059 qemu-system-x86 qemu-utils linux-image-amd64
  busybox-static nfs-kernel-server rpcbind cpio kmod rdma-core ibverbs-utils ibverbs-providers
  dnsmasq-base
)
# The other boots: the netlink comparison's strace, NetworkManager's initramfs, and the
# builds of dracut-ng's helpers and of siw.ko for the 6.12 kernel.
E2E_PKGS=(strace network-manager libkmod-dev pkg-config make gcc)

pkg_version() { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
  awk '$3 == "installed" { print $4 }'; }

install_apt() {  # WHAT PACKAGE[=VERSION-PREFIX]...
  local what=$1 missing=() spec name t0
  shift
  for spec in "$@"; do
    name=${spec%%=*}
    # node and npm may come from a non-Debian install already on the machine.
    if [[ $name == nodejs || $name == npm ]] && command -v "${name/nodejs/node}" >/dev/null; then
      continue
    fi
    [[ -n $(pkg_version "$name") ]] || missing+=("$name")
  done
  if ((${#missing[@]})); then
    t0=$SECONDS
    if [[ ! -f $CACHE/apt.updated ]]; then
      say "apt-get update"
      apt-get update -qq || die "apt-get update"
      touch "$CACHE/apt.updated"
    fi
    # What apt will fetch, said before it starts (it prints nothing with -qq).
    local mb
    mb=$(apt-get install -qq --print-uris --no-install-recommends "${missing[@]}" 2>/dev/null |
      awk '$1 ~ /^\x27/ { s += $3 } END { printf "%.1f", s / 1048576 }')
    say "installing $what: ${#missing[@]} package(s) and their dependencies, ${mb:-?} MB to download: ${missing[*]}"
    # No service a package brings is started (the DHCP servers, the NFS server): the
    # tests run them by hand. invoke-rc.d asks policy-rc.d; 101 is "action forbidden".
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [[ ! -e $policy ]]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >>"$CACHE/apt-install.log" 2>&1 ||
      { ((own_policy)) && rm -f "$policy"; tail -n 30 "$CACHE/apt-install.log" >&2; die "apt-get install ${missing[*]} (log: $CACHE/apt-install.log)"; }
    ((own_policy)) && rm -f "$policy"
    say "installed $what in $((SECONDS - t0)) s"
  fi
  for spec in "$@"; do
    [[ $spec == *=* ]] || continue
    name=${spec%%=*}
    local want=${spec#*=} have
    have=$(pkg_version "$name")
    [[ $have == "$want"* ]] || die "$name is $have, expected $want* (see rules/bootstrap.sh)"
  done
}

# ---------------------------------------------------------------- pinned files
# lock_rows KIND -> "name version suite file sha" lines
lock_rows() { awk -v k="$1" '$1 == k { print $2, $3, $4, $5, $6 }' "$LOCK"; }

verify_sha256() {  # file expected
  local got
  got=$(sha256sum "$1" | cut -d' ' -f1)
  [[ $got == "$2" ]] || { rm -f "$1"; die "checksum mismatch for $(basename "$1"): expected sha256 $2, got $got (file removed; run again to re-fetch)"; }
}

# A scratch apt configuration with deb-src (source packages) or deb (binary packages) lines
# for one suite, built from the system's own debian.sources, so the system's configuration
# is never touched.
apt_suite_opts() {  # deb-src|deb suite -> prints apt options
  local type=$1 suite=$2 dir=$CACHE/apt/$2
  [[ $type == deb ]] && dir=$CACHE/apt/bin-$2
  if [[ ! -f $dir/stamp ]]; then
    mkdir -p "$dir/parts" "$dir/lists/partial"
    local src=/etc/apt/sources.list.d/debian.sources
    [[ -f $src ]] || die "no $src to derive $type entries from"
    awk -v suite="$suite" -v type="$type" 'BEGIN { RS = ""; ORS = "\n\n" } NR == 1 {
        gsub(/Types: deb\n/, "Types: " type "\n"); sub(/Suites: [^\n]*/, "Suites: " suite); print }' \
      "$src" >"$dir/parts/src.sources"
    apt-get -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$dir/parts" \
      -o Dir::State::Lists="$dir/lists" update -qq >"$dir/update.log" 2>&1 ||
      { cat "$dir/update.log" >&2; die "apt-get update for $type $suite"; }
    touch "$dir/stamp"
  fi
  echo "-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$dir/parts -o Dir::State::Lists=$dir/lists"
}
apt_src_opts() { apt_suite_opts deb-src "$1"; }

fetch_sources() {  # [kind]: src (default) or e2esrc
  local kind=${1:-src}
  mkdir -p "$CACHE/dl"
  local name ver suite file sha
  while read -r name ver suite file sha; do
    local path=$CACHE/dl/$file
    if [[ -f $path ]]; then verify_sha256 "$path" "$sha"; continue; fi
    say "fetching source package $name $ver ($suite)"
    local opts
    opts=$(apt_src_opts "$suite")
    # The .dsc of some packages is missing from the archive here: apt-get then exits non-zero
    # after fetching the tarballs. What counts is whether the pinned files arrived intact.
    (cd "$CACHE/dl" && apt-get $opts source --download-only "$name=$ver" >"$CACHE/dl/$name.log" 2>&1) || true
    [[ -f $path ]] || { tail -n 5 "$CACHE/dl/$name.log" >&2; die "$file was not downloaded (apt-get source $name=$ver, suite $suite)"; }
    verify_sha256 "$path" "$sha"
  done < <(lock_rows "$kind")
}

# Unpack orig + debian tarballs and apply Debian's quilt series, the way dpkg-source would.
unpack_sources() {  # [kind]: src (default) or e2esrc
  local kind=${1:-src}
  mkdir -p "$CACHE/src"
  local name ver
  while read -r name ver; do
    local stamp=$CACHE/src/$name.stamp want="$name $ver $(lock_rows "$kind" | awk -v n="$name" '$1 == n { print $5 }' | tr '\n' ' ')"
    if [[ -f $stamp && $(cat "$stamp") == "$want" && -d $CACHE/src/$name ]]; then continue; fi
    say "unpacking $name $ver"
    rm -rf "$CACHE/src/$name" "$CACHE/src/$name.tmp"
    mkdir -p "$CACHE/src/$name.tmp"
    local orig deb
    orig=$(lock_rows "$kind" | awk -v n="$name" '$1 == n && $4 ~ /orig/ { print $4 }')
    deb=$(lock_rows "$kind" | awk -v n="$name" '$1 == n && $4 ~ /debian/ { print $4 }')
    tar -xf "$CACHE/dl/$orig" -C "$CACHE/src/$name.tmp" --strip-components=1 || die "unpack $orig"
    if [[ -n $deb ]]; then
      tar -xf "$CACHE/dl/$deb" -C "$CACHE/src/$name.tmp" || die "unpack $deb"
    fi
    local series=$CACHE/src/$name.tmp/debian/patches/series p
    if [[ -f $series ]]; then
      while read -r p _; do
        [[ -z $p || $p == \#* ]] && continue
        patch -d "$CACHE/src/$name.tmp" -p1 -s -N <"$CACHE/src/$name.tmp/debian/patches/$p" ||
          die "Debian patch $p of $name does not apply"
      done <"$series"
    fi
    mv "$CACHE/src/$name.tmp" "$CACHE/src/$name"
    echo "$want" >"$stamp"
  done < <(lock_rows "$kind" | awk '{ print $1, $2 }' | sort -u)
}

# dracut-ng's C helpers, built in its own tree (dracut.sh finds them there by
# dracutbasedir): against this machine's libkmod, so its binaries' glibc 2.38 is not needed.
build_dracut_ng() {
  local dir=$CACHE/src/dracut stamp=$CACHE/src/dracut.built
  [[ -f $stamp && $(cat "$stamp") == "$(cat "$CACHE/src/dracut.stamp")" && -x $dir/dracut-install ]] && return
  say "building dracut-ng's helpers (dracut-install, dracut-util, skipcpio)"
  (cd "$dir" && ./configure --disable-documentation >"$dir/build.log" 2>&1 &&
    make -j2 dracut-install src/skipcpio/skipcpio dracut-util >>"$dir/build.log" 2>&1) ||
    { tail -n 20 "$dir/build.log" >&2; die "building dracut-ng's helpers (log: $dir/build.log)"; }
  "$dir/dracut-install" --help >/dev/null 2>&1 || die "dracut-ng's dracut-install does not run"
  cp "$CACHE/src/dracut.stamp" "$stamp"
}

install_zig() {
  local name ver _suite file integrity
  read -r name ver _suite file integrity < <(lock_rows npm | grep zig)
  local dir=$CACHE/zig
  if [[ -x $dir/zig && -f $dir/.integrity && $(cat "$dir/.integrity") == "$integrity" ]]; then return; fi
  say "fetching $name@$ver from npm"
  mkdir -p "$CACHE/dl"
  if [[ ! -f $CACHE/dl/$file ]]; then
    (cd "$CACHE/dl" && npm pack --silent "$name@$ver" >/dev/null 2>"$CACHE/dl/npm.log") ||
      { cat "$CACHE/dl/npm.log" >&2; die "npm pack $name@$ver"; }
  fi
  [[ -f $CACHE/dl/$file ]] || die "npm pack $name@$ver did not produce $file"
  local got
  got="sha512-$(openssl dgst -sha512 -binary "$CACHE/dl/$file" | base64 -w0)"
  [[ $got == "$integrity" ]] || { rm -f "$CACHE/dl/$file"; die "integrity mismatch for $file: expected $integrity, got $got (file removed)"; }
  rm -rf "$dir" "$dir.tmp"
  mkdir -p "$dir.tmp"
  tar -xzf "$CACHE/dl/$file" -C "$dir.tmp" --strip-components=1 || die "unpack $file"
  "$dir.tmp/zig" version | grep -q '^0\.11\.' || die "zig in $file does not report version 0.11"
  echo "$integrity" >"$dir.tmp/.integrity"
  mv "$dir.tmp" "$dir"
}

# ---------------------------------------------------------------- second guest kernel
# Debian's 6.12 (bookworm-backports, Debian 13's kernel line) beside the machine's 6.1, for
# the e2e boots (#28): its image and headers packages unpacked into $CACHE/k612/root, never
# installed here (the harness boots its vmlinuz and gives dracut the module tree with
# --kmoddir). Plus the kernel's own Soft-iWARP driver, which Debian builds into neither
# kernel (CONFIG_RDMA_SIW is not set), built out of tree from the source package's
# drivers/infiniband/sw/siw with its own Makefile, the packaged kernel's compiler (gcc-12,
# set by the headers' .kernelvariables) and configuration; Debian's patches touch neither
# drivers/infiniband nor include/rdma, so the upstream tarball's siw is the one it ships.
K612=$CACHE/k612

fetch_debs() {  # kind: binary packages by exact version, into $CACHE/dl
  local name ver suite file sha
  mkdir -p "$CACHE/dl"
  while read -r name ver suite file sha; do
    local path=$CACHE/dl/$file
    if [[ -f $path ]]; then verify_sha256 "$path" "$sha"; continue; fi
    say "fetching package $name $ver ($suite)"
    local opts
    opts=$(apt_suite_opts deb "$suite")
    (cd "$CACHE/dl" && apt-get $opts download "$name=$ver" >"$CACHE/dl/$name.log" 2>&1) ||
      { tail -n 5 "$CACHE/dl/$name.log" >&2; die "apt-get download $name=$ver ($suite)"; }
    [[ -f $path ]] || die "$file was not downloaded (apt-get download $name=$ver)"
    verify_sha256 "$path" "$sha"
  done < <(lock_rows "$1")
}

setup_kernel612() {
  local want stamp=$K612/stamp
  want=$(lock_rows e2ekernel; lock_rows e2ekernsrc)
  if [[ -f $stamp && $(cat "$stamp") == "$want" && -f $K612/kver ]]; then return; fi
  fetch_debs e2ekernel
  fetch_sources e2ekernsrc
  say "unpacking Debian's 6.12 kernel and building its siw.ko out of tree"
  rm -rf "$K612" && mkdir -p "$K612/root" "$K612/siw"
  local file
  while read -r _ _ _ file _; do
    dpkg-deb -x "$CACHE/dl/$file" "$K612/root" || die "dpkg-deb -x $file"
  done < <(lock_rows e2ekernel)
  local kver
  kver=$(basename "$(ls -d "$K612"/root/lib/modules/*/ | head -n1)")
  [[ -r $K612/root/boot/vmlinuz-$kver ]] || die "no vmlinuz-$kver in the 6.12 image package"
  local orig
  orig=$(lock_rows e2ekernsrc | awk '$4 ~ /orig/ { print $4 }')
  tar -xJf "$CACHE/dl/$orig" -C "$K612/siw" --strip-components=5 --wildcards \
    '*/drivers/infiniband/sw/siw/*' || die "extracting drivers/infiniband/sw/siw from $orig"
  local hdr=$K612/root/usr/src/linux-headers-$kver common
  common=$(ls -d "$K612"/root/usr/src/linux-headers-*-common | head -n1)
  # -f: the headers' Makefile includes the common one by its absolute /usr/src path.
  # CONFIG_RDMA_SIW=m: siw's own Makefile builds it (obj-$(CONFIG_RDMA_SIW)); no BTF for it
  # (that needs pahole; the module loads without).
  make -j2 -C "$hdr" -f "$common/Makefile" M="$K612/siw" CONFIG_RDMA_SIW=m \
    CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$K612/siw/build.log" 2>&1 ||
    { tail -n 20 "$K612/siw/build.log" >&2; die "building siw.ko for $kver (log: $K612/siw/build.log)"; }
  local magic
  magic=$(modinfo -F vermagic "$K612/siw/siw.ko")
  [[ $magic == "$kver "* ]] || die "siw.ko's vermagic '$magic' is not $kver's"
  mkdir -p "$K612/root/lib/modules/$kver/updates"
  strip --strip-debug -o "$K612/root/lib/modules/$kver/updates/siw.ko" "$K612/siw/siw.ko"
  depmod -b "$K612/root" "$kver" || die "depmod for $kver"
  echo "$kver" >"$K612/kver"
  echo "$want" >"$stamp"
}

mkdir -p "$CACHE"
rm -f "$CACHE/apt.updated"
install_apt "the build's packages" "${BUILD_PKGS[@]}"
((WANT_TESTS)) && install_apt "the tests' tools" "${TEST_PKGS[@]}"
((WANT_BOOT)) && install_apt "the boots' kernel, dracut, QEMU and NFS server" "${BOOT_PKGS[@]}"
((WANT_E2E)) && install_apt "the other boots' tools" "${E2E_PKGS[@]}"
install_zig
fetch_sources
unpack_sources
if ((WANT_E2E)); then
  fetch_sources e2esrc
  unpack_sources e2esrc
  build_dracut_ng
  setup_kernel612
fi
say "ready (cache: $CACHE)"
