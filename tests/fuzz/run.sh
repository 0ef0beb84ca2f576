#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser with clang's libFuzzer under ASan and UBSan,
# outside Bazel (the same sources the fuzz_target()s build).
#
#   tests/fuzz/run.sh                 smoke: 10 s per target (part of tests/run.sh)
#   tests/fuzz/run.sh 600             a longer run: 600 s per target
#   tests/fuzz/run.sh 60 cmdline      one target
#
# Prints one line per target and "N passed, N failed" at the end; crashes are kept in
# tests/fuzz/out/<target>/ (git-ignored).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
secs=${1:-10}
shift || true
CXX=${CXX:-clang++-14}
out=tests/fuzz/out
mkdir -p "$out"

base="provision/base/modprobe.cc provision/base/result.cc provision/base/strings.cc provision/base/types.cc"
config="$base provision/config/config.cc provision/inputs/record.cc provision/inputs/text.cc provision/inputs/values.cc"
declare -A SRCS=(
  [cmdline]="$config provision/inputs/cmdline.cc"
  [native_conf]="$config provision/inputs/native_conf.cc"
  [mlx4_conf]="$config provision/inputs/mlx4_conf.cc"
  [modules_conf]="$config provision/inputs/modules_conf.cc"
  [modprobe_conf]="$config provision/inputs/modprobe_conf.cc"
  [ipoib_rules]="$config provision/inputs/ipoib_rules.cc"
  [sysfs_values]="$base"
  [json]="$base provision/base/json.cc"
)
targets=("$@")
((${#targets[@]})) || targets=(cmdline native_conf mlx4_conf modules_conf modprobe_conf ipoib_rules sysfs_values json)

passed=0 failed=0
for t in "${targets[@]}"; do
  bin=$out/$t/fuzz
  mkdir -p "$out/$t/corpus"
  if ! $CXX -std=c++17 -O1 -g -I. -fsanitize=fuzzer,address,undefined \
      -fno-sanitize-recover=undefined -o "$bin" tests/fuzz/${t}_fuzz.cc ${SRCS[$t]} \
      2>"$out/$t/build.log"; then
    echo "fuzz $t: FAILED to build (see $out/$t/build.log)"
    failed=$((failed + 1))
    continue
  fi
  if "$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/$t/" "$out/$t/corpus" "tests/fuzz/corpus/$t" \
      >"$out/$t/run.log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$out/$t/run.log" | tail -1)
    echo "fuzz $t: ok (${runs:-no count}, ${secs} s, ASan+UBSan)"
    passed=$((passed + 1))
  else
    echo "fuzz $t: FAILED; log and reproducer in $out/$t/"
    grep -E 'ERROR|SUMMARY|runtime error' "$out/$t/run.log" | head -5
    failed=$((failed + 1))
  fi
done
echo "${passed} passed, ${failed} failed"
[[ $failed -eq 0 ]]
