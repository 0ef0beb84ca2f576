#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser with clang's libFuzzer under ASan and UBSan,
# outside Bazel (the same sources the fuzz_target()s build).
#
#   tests/fuzz/run.sh                 smoke: 10 s per target (part of tests/run.sh)
#   tests/fuzz/run.sh 600             a longer run: 600 s per target
#   tests/fuzz/run.sh 60 cmdline      one target
#   FUZZ_RUNS=10000000 tests/fuzz/run.sh 1800
#                                     a campaign: 10 million executions or 1800 s per target,
#                                     whichever comes first; FUZZ_MERGE=1 then adds what
#                                     grew the coverage to tests/fuzz/corpus/<target>/
#                                     (libFuzzer -merge=1 keeps only inputs with new
#                                     coverage: the tree keeps the minimised corpus, which
#                                     the Bazel <target>_smoke tests replay)
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

base="provision/base/drivers.cc provision/base/root.cc provision/base/modprobe.cc provision/base/result.cc provision/base/sort.cc provision/base/source.cc provision/base/strings.cc provision/base/types.cc"
config="$base provision/config/config.cc provision/inputs/kernel_args.cc provision/inputs/record.cc provision/inputs/text.cc provision/inputs/values.cc provision/inputs/network_values.cc provision/inputs/rdma_values.cc provision/inputs/dcb_values.cc provision/inputs/expect_values.cc"
declare -A SRCS=(
  [cmdline]="$config provision/inputs/cmdline.cc provision/inputs/cmdline_dracut.cc provision/inputs/cmdline_nvmf.cc"
  [native_conf]="$config provision/inputs/native_conf.cc"
  [mlx4_conf]="$config provision/inputs/mlx4_conf.cc"
  [modules_conf]="$config provision/inputs/modules_conf.cc"
  [modprobe_conf]="$config provision/inputs/modprobe_conf.cc"
  [ipoib_rules]="$config provision/inputs/ipoib_rules.cc provision/inputs/udev_rules.cc"
  [link_files]="$config provision/inputs/link_files.cc"
  [sysfs_values]="$base"
  [json]="$base provision/base/json.cc"
  [sysfs_tree]="$base provision/inventory/sysfs.cc provision/inventory/sysfs_net.cc provision/inventory/inventory.cc provision/inventory/shown.cc"
  [nvme_replies]="$base provision/kernel/nvme_fabrics.cc"
  [netlink_replies]="$base provision/kernel/nl_io.cc provision/kernel/rtnl.cc provision/kernel/rtnl_addr.cc provision/kernel/rtnl_testing.cc provision/kernel/rdma_nl.cc provision/kernel/dcbnl.cc"
)
# netlink_replies links libnl (built by Bazel from Debian's source, uninstrumented: the
# parsers under test are ours) and compiles against rdma-core's copies of the uapi headers.
libnl_flags() {
  bazel build @libnl//:nl-3 @libnl//:nl-route-3 >/dev/null 2>&1 || return 1
  local ob bin
  ob=$(bazel info output_base 2>/dev/null) bin=$(bazel info bazel-bin 2>/dev/null)
  echo "-I$ob/external/libnl/include -I$ob/external/rdma_core/kernel-headers" \
    "$bin/external/libnl/libnl-route-3.a $bin/external/libnl/libnl-3.a -lpthread"
}
targets=("$@")
((${#targets[@]})) || targets=(cmdline native_conf mlx4_conf modules_conf modprobe_conf ipoib_rules link_files sysfs_values json sysfs_tree netlink_replies nvme_replies)
runs=${FUZZ_RUNS:--1}

# Each target builds and runs on its own (FUZZ_JOBS at once, default the number of CPUs):
# one clang++ and one fuzzer process per target, single-threaded, so two cores halve the
# smoke run. Each writes its line to $out/<target>/result; they are printed in order.
fuzz_one() {
  local t=$1 bin=$out/$1/fuzz extra=$2 done_line rss cov before
  local result=$out/$t/result
  mkdir -p "$out/$t/corpus"
  # shellcheck disable=SC2086  # word splitting of the source and flag lists is meant
  if ! $CXX -std=c++17 -O1 -g -I. -fsanitize=fuzzer,address,undefined \
      -fno-sanitize-recover=undefined -o "$bin" tests/fuzz/${t}_fuzz.cc ${SRCS[$t]} $extra \
      2>"$out/$t/build.log"; then
    echo "fuzz $t: FAILED to build (see $out/$t/build.log)" >"$result"
    return
  fi
  if "$bin" -max_total_time="$secs" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/$t/" "$out/$t/corpus" "tests/fuzz/corpus/$t" \
      >"$out/$t/run.log" 2>&1; then
    done_line=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$out/$t/run.log" | tail -1)
    rss=$(grep -oE 'rss: [0-9]+Mb' "$out/$t/run.log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$out/$t/run.log" | tail -1)
    echo "fuzz $t: ok (${done_line:-no count}s, limit ${secs} s, $cov, peak $rss, ASan+UBSan)" >"$result"
    if [[ ${FUZZ_MERGE:-0} == 1 ]]; then
      before=$(ls "tests/fuzz/corpus/$t" | wc -l)
      "$bin" -merge=1 -max_len=4096 "tests/fuzz/corpus/$t" "$out/$t/corpus" >"$out/$t/merge.log" 2>&1
      echo "fuzz $t: corpus in the tree $before -> $(ls "tests/fuzz/corpus/$t" | wc -l) files" >>"$result"
    fi
  else
    {
      echo "fuzz $t: FAILED; log and reproducer in $out/$t/"
      grep -E 'ERROR|SUMMARY|runtime error' "$out/$t/run.log" | head -5
    } >"$result"
  fi
}

jobs_max=${FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  mkdir -p "$out/$t"
  rm -f "$out/$t/result"
  extra=
  if [[ -z ${SRCS[$t]:-} ]]; then
    echo "fuzz $t: FAILED: no such target (${!SRCS[*]})" >"$out/$t/result"
    continue
  fi
  if [[ $t == netlink_replies ]] && ! extra=$(libnl_flags); then
    echo "fuzz $t: FAILED to build libnl with Bazel" >"$out/$t/result"
    continue
  fi
  while (($(jobs -pr | wc -l) >= jobs_max)); do wait -n; done
  fuzz_one "$t" "$extra" &
done
wait

passed=0 failed=0
for t in "${targets[@]}"; do
  if [[ -f $out/$t/result ]]; then
    cat "$out/$t/result"
    if head -n 1 "$out/$t/result" | grep -q ': ok ('; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  else
    echo "fuzz $t: FAILED: no result"
    failed=$((failed + 1))
  fi
done
echo "${passed} passed, ${failed} failed"
[[ $failed -eq 0 ]]
