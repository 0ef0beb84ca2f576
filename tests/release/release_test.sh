#!/usr/bin/env bash
# Checks the release binary (run with --config=musl -c opt): fully static, runs here,
# contains the four statically linked verbs providers, and its stripped size.
set -euo pipefail
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
info=$(file -L "$bin")
echo "$info"
[[ $info == *"statically linked"* ]] || fail "not statically linked"
version=$("$bin" --version) || fail "--version does not run"
echo "$version"
# The stripped binary has no symbol table for nm: --version reads the providers' own
# registration records (verbs_provider_<name>), which are what registers them at start.
grep -qx 'verbs providers (static): mlx4 mlx5 rxe siw' <<<"$version" ||
  fail "the four verbs providers are not all linked in"
tmp=$(mktemp)
strip -o "$tmp" "$bin"
size=$(stat -c %s "$tmp")
rm -f "$tmp"
printf 'stripped size: %d bytes (%.2f MiB; goal <= 1.50 MiB)\n' "$size" "$(echo "$size / 1048576" | bc -l)"
(( size <= 1572864 )) || fail "stripped size $size exceeds 1.5 MiB"
