#!/usr/bin/env bash
# Installable packages of rdma-provision: a .deb (dpkg-deb) and an .rpm (rpmbuild), the
# same files at the conventional paths, then lintian and rpmlint on them.
#
#   rules/package.sh [--binary FILE] [--out DIR] [--no-lint]
#
#   /usr/sbin/rdma-provision                          the static release binary
#   /usr/lib/dracut/modules.d/90rdma-provision/       the dracut module
#   /usr/lib/systemd/system/rdma-provision.service    the real root's unit
#   /usr/lib/systemd/system/rdma-provision-verify.service
#                                                     its peer check, once online
#   /usr/lib/systemd/system/rdma-provision-listener.service
#                                                     the peer-check listener (disabled)
#   /usr/share/man/man8/rdma-provision.8.gz           the man pages (and man5's
#     rdma-provision.conf.5.gz, man7's rdma-provision.cmdline.7.gz)
#   /usr/share/bash-completion/completions/rdma-provision
#                                                     bash completion (asks the binary)
#   /etc/rdma-provision/rdma-provision.conf           conffile: the example, every setting
#                                                     commented out (it changes nothing)
#   /usr/share/doc/rdma-provision/                    README, docs/, the example as shipped,
#                                                     copyright, changelog
#
# Default binary: bazel build --config=musl -c opt //provision:rdma-provision. Output:
# DIR (default bazel-out-independent .cache/packages/) holds rdma-provision_<v>-1_amd64.deb,
# rdma-provision-<v>-1.x86_64.rpm and the lint reports. Exits non-zero when a package
# cannot be built or a linter reports an error (warnings are printed, not fatal).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/.cache/packages
BINARY=
LINT=1
while (($#)); do
  case $1 in
    --binary) BINARY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --no-lint) LINT=0; shift ;;
    *) echo "package: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
say() { echo "package: $*"; }
die() { echo "package: FAILED: $*" >&2; exit 1; }

VERSION=$(sed -n 's/^#define RDMA_PROVISION_VERSION "\(.*\)"/\1/p' "$REPO/provision/version.h")
[[ -n $VERSION ]] || die "no version in provision/version.h"
RELEASE=1
if [[ -z $BINARY ]]; then
  (cd "$REPO" && bazel build --config=musl -c opt //provision:rdma-provision) >/dev/null 2>&1 ||
    die "bazel build --config=musl -c opt //provision:rdma-provision"
  BINARY=$(cd "$REPO" && bazel info --config=musl -c opt bazel-bin 2>/dev/null)/provision/rdma-provision
fi
file -b "$BINARY" | grep -q 'statically linked' || die "$BINARY is not a static binary"

# ---------------------------------------------------------------- the installed tree
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
ROOT=$STAGE/root
DOC=$ROOT/usr/share/doc/rdma-provision
install -D -m 0755 "$BINARY" "$ROOT/usr/sbin/rdma-provision"
strip --strip-all "$ROOT/usr/sbin/rdma-provision" 2>/dev/null || true
MOD=$ROOT/usr/lib/dracut/modules.d/90rdma-provision
install -d "$MOD"
for f in "$REPO"/dracut-module/90rdma-provision/*; do
  case ${f##*/} in
    README.md) install -D -m 0644 "$f" "$DOC/dracut-module.md" ;;  # documentation, not module
    *.sh) install -m 0755 "$f" "$MOD/" ;;
    *) install -m 0644 "$f" "$MOD/" ;;
  esac
done
for unit in rdma-provision.service rdma-provision-verify.service rdma-provision-listener.service; do
  install -D -m 0644 "$REPO/dracut-module/$unit" "$ROOT/usr/lib/systemd/system/$unit"
done
install -d "$ROOT/usr/share/man/man8"
gzip -9n < "$REPO/configs/rdma-provision.8" > "$ROOT/usr/share/man/man8/rdma-provision.8.gz"
install -d "$ROOT/usr/share/man/man5" "$ROOT/usr/share/man/man7"
gzip -9n < "$REPO/configs/rdma-provision.conf.5" > "$ROOT/usr/share/man/man5/rdma-provision.conf.5.gz"
gzip -9n < "$REPO/configs/rdma-provision.cmdline.7" > "$ROOT/usr/share/man/man7/rdma-provision.cmdline.7.gz"
install -D -m 0644 "$REPO/configs/rdma-provision.bash-completion" \
  "$ROOT/usr/share/bash-completion/completions/rdma-provision"
# The conffile: the example with every setting commented out, so installing the package
# changes nothing until an administrator says what the node has.
install -d "$ROOT/etc/rdma-provision"
{
  echo "# rdma-provision's configuration: see rdma-provision(8). Every setting of the example"
  echo "# below is commented out; the example as shipped is in"
  echo "# /usr/share/doc/rdma-provision/examples/rdma-provision.conf."
  echo "#"
  sed -E 's/^([^#[:space:]])/#\1/; s/^([[:space:]]+[^#[:space:]])/#\1/' "$REPO/configs/rdma-provision.conf"
} > "$ROOT/etc/rdma-provision/rdma-provision.conf"
chmod 0644 "$ROOT/etc/rdma-provision/rdma-provision.conf"
install -D -m 0644 "$REPO/configs/rdma-provision.conf" "$DOC/examples/rdma-provision.conf"
install -m 0644 "$REPO/README.md" "$DOC/README.md"
for f in "$REPO"/docs/*.md; do install -D -m 0644 "$f" "$DOC/docs/$(basename "$f")"; done
cat > "$DOC/copyright" << EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rdma-provision
Source: https://example.invalid/rdma-provision

Files: *
Copyright: 2026 the rdma-provision authors
License: Apache-2.0
 On Debian systems, the full text of the Apache License, Version 2.0 can be found
 in /usr/share/common-licenses/Apache-2.0.
EOF
DATE=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}")
{
  echo "rdma-provision ($VERSION-$RELEASE) unstable; urgency=medium"
  echo
  echo "  * Built from $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'a source tree')."
  echo
  echo " -- rdma-provision maintainers <rdma-provision@example.invalid>  $DATE"
} | gzip -9n > "$DOC/changelog.Debian.gz"
install -d "$ROOT/usr/share/lintian/overrides"
cat > "$ROOT/usr/share/lintian/overrides/rdma-provision" << EOF
# Static on purpose: it runs in the initramfs before any shared library is there.
rdma-provision: statically-linked-binary [usr/sbin/rdma-provision]
EOF
find "$ROOT" -type d -exec chmod 0755 {} +

mkdir -p "$OUT"
DESC_SHORT="RDMA provisioning in early boot for diskless nodes"
DESC_LONG="One static program and a dracut module that make a node's RDMA
hardware ready in the initramfs, before the root file system is mounted:
mlx4 port types, PFC options, RDMA modules, persistent IPoIB and Ethernet
names, RoCE defaults, Soft-RoCE links, IPoIB modes, P_Key children and
MTUs, and waiting for ports, from one validated configuration and
rd.rdma.* kernel parameters, so a diskless node can mount its root over
NFS/RDMA or NFS over IPoIB."

# ---------------------------------------------------------------- .deb
DEB=$OUT/rdma-provision_${VERSION}-${RELEASE}_amd64.deb
mkdir -p "$ROOT/DEBIAN"
cat > "$ROOT/DEBIAN/control" << EOF
Package: rdma-provision
Version: $VERSION-$RELEASE
Architecture: amd64
Maintainer: rdma-provision maintainers <rdma-provision@example.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
Recommends: dracut-core | dracut
Suggests: rdma-core, prometheus-node-exporter
Section: admin
Priority: optional
Homepage: https://example.invalid/rdma-provision
Description: $DESC_SHORT
$(echo "$DESC_LONG" | sed 's/^/ /')
EOF
echo /etc/rdma-provision/rdma-provision.conf > "$ROOT/DEBIAN/conffiles"
# Installed without dracut: one line says what that means (the package is still usable on
# the real root), instead of a module that silently never runs.
cat > "$STAGE/postinst" << 'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" -eq 1 ] 2>/dev/null; then
    if ! command -v dracut > /dev/null 2>&1; then
        echo "rdma-provision: dracut is not installed: the initramfs module in /usr/lib/dracut/modules.d/90rdma-provision stays unused until it is (rdma-provision.service works on the real root)" >&2
    fi
fi
exit 0
EOF
install -m 0755 "$STAGE/postinst" "$ROOT/DEBIAN/postinst"
# The message, checked here: what the script says with no dracut on the PATH.
msg=$(PATH=/nonexistent /bin/sh "$STAGE/postinst" configure 2>&1) &&
  [[ $msg == "rdma-provision: dracut is not installed: "* ]] ||
  die "postinst without dracut said: '$msg'"
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
  xargs md5sum) > "$ROOT/DEBIAN/md5sums"
dpkg-deb --root-owner-group --build "$ROOT" "$DEB" >/dev/null || die "dpkg-deb --build"
rm -rf "$ROOT/DEBIAN"
say "$(basename "$DEB"): $(stat -c %s "$DEB") bytes"

# ---------------------------------------------------------------- .rpm
RPM_TOP=$STAGE/rpm
mkdir -p "$RPM_TOP"/{BUILD,RPMS,SOURCES,SPECS,SRPMS}
{
  cat << EOF
Name: rdma-provision
Version: $VERSION
Release: $RELEASE
Summary: $DESC_SHORT
License: Apache-2.0
Group: System Environment/Base
Packager: rdma-provision maintainers <rdma-provision@example.invalid>
URL: https://example.invalid/rdma-provision
BuildArch: x86_64
Recommends: dracut

%description
$DESC_LONG

%post
$(sed '1d' "$STAGE/postinst")

%prep
%build
%install
mkdir -p %{buildroot}
cp -a $ROOT/. %{buildroot}/

%files
%attr(0755,root,root) /usr/sbin/rdma-provision
/usr/lib/dracut/modules.d/90rdma-provision
/usr/lib/systemd/system/rdma-provision.service
/usr/lib/systemd/system/rdma-provision-verify.service
/usr/lib/systemd/system/rdma-provision-listener.service
/usr/share/man/man8/rdma-provision.8.gz
/usr/share/man/man5/rdma-provision.conf.5.gz
/usr/share/man/man7/rdma-provision.cmdline.7.gz
/usr/share/bash-completion/completions/rdma-provision
%dir /etc/rdma-provision
%config(noreplace) /etc/rdma-provision/rdma-provision.conf
%doc /usr/share/doc/rdma-provision
%exclude /usr/share/lintian

%changelog
* $(date -d "$DATE" '+%a %b %d %Y') rdma-provision maintainers <rdma-provision@example.invalid> - $VERSION-$RELEASE
- Built from $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'a source tree').
EOF
} > "$RPM_TOP/SPECS/rdma-provision.spec"
command -v rpmbuild >/dev/null || die "rpmbuild is missing (Debian package rpm; rules/bootstrap.sh installs it)"
rpmbuild --quiet -bb --define "_topdir $RPM_TOP" --define "_build_id_links none" \
  --define "__strip /bin/true" --define "debug_package %{nil}" \
  "$RPM_TOP/SPECS/rdma-provision.spec" >"$STAGE/rpmbuild.log" 2>&1 ||
  { tail -n 20 "$STAGE/rpmbuild.log" >&2; die "rpmbuild"; }
RPM=$OUT/rdma-provision-${VERSION}-${RELEASE}.x86_64.rpm
cp "$RPM_TOP/RPMS/x86_64/$(basename "$RPM")" "$RPM"
say "$(basename "$RPM"): $(stat -c %s "$RPM") bytes"

# ---------------------------------------------------------------- lint
((LINT)) || exit 0
rc=0
if command -v lintian >/dev/null; then
  lintian --no-tag-display-limit "$DEB" > "$OUT/lintian.txt" 2>&1 || true
  errors=$(grep -c '^E: ' "$OUT/lintian.txt" || true)
  say "lintian: $errors errors, $(grep -c '^W: ' "$OUT/lintian.txt" || true) warnings ($OUT/lintian.txt)"
  grep -E '^(E|W): ' "$OUT/lintian.txt" | sed 's/^/    /' || true
  ((errors == 0)) || rc=1
else
  say "lintian is missing (rules/bootstrap.sh installs it)"; rc=1
fi
if command -v rpmlint >/dev/null; then
  # What this package is on purpose, as rpmlint's filters say it: static (the initramfs),
  # and unsigned (signing is the distributing repository's step, with its key).
  printf 'Filters = ["statically-linked-binary", "no-signature"]\n' > "$STAGE/rpmlint.toml"
  rpmlint -c "$STAGE/rpmlint.toml" "$RPM" > "$OUT/rpmlint.txt" 2>&1 || true
  errors=$(grep -cE ': E: ' "$OUT/rpmlint.txt" || true)
  say "rpmlint: $errors errors, $(grep -cE ': W: ' "$OUT/rpmlint.txt" || true) warnings ($OUT/rpmlint.txt)"
  grep -E ': (E|W): ' "$OUT/rpmlint.txt" | sed 's/^/    /' || true
  ((errors == 0)) || rc=1
else
  say "rpmlint is missing (rules/bootstrap.sh installs it)"; rc=1
fi
exit $rc
