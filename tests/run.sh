#!/usr/bin/env bash
# The test command: installs what is missing (rules/bootstrap.sh), then runs every test
# under the host toolchain and under the static musl toolchain, checks the release
# binary, fuzzes every parser briefly, boots QEMU scenarios 1, 3, 4, 7 and 8 of the end-to-end
# harness, and ends with the line CI reads: "N passed, N failed, N skipped".
#
# Bazel's tests are tallied from the build events of each invocation (tests/summarize.py):
# a target without a result in it, or a tally that cannot be made, counts as failed.
# Skipped test cases are listed; with CI=true they fail unless tests/skip_allowlist.txt
# names them with a reason.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash rules/bootstrap.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

events_dir=$(mktemp -d "${TMPDIR:-/tmp}/rdma-provision-tests.XXXXXX")
trap 'rm -rf "$events_dir"' EXIT

total_pass=0 total_fail=0 total_skip=0
# Each phase's time (the time since the previous phase ended), printed with its tally and
# again at the end, so that CI's budget is visible phase by phase.
phase_mark=$SECONDS
phase_times="$(printf '  %-22s %4d min %02d s' bootstrap $((SECONDS / 60)) $((SECONDS % 60)))"$'\n'
# add_counts <what> <line>: adds "P F S" (or "P passed, F failed[, S skipped]"); anything
# else is one failure, so a broken step can never look green.
add_counts() {
  local what=$1 line=$2 p f k
  if [[ $line =~ ^([0-9]+)\ ([0-9]+)\ ([0-9]+)$ ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} k=${BASH_REMATCH[3]}
  elif [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} k=${BASH_REMATCH[4]:-0}
  else
    echo "--- $what: FAILED: no tally (got '${line}')"
    total_fail=$((total_fail + 1))
    return
  fi
  total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + k))
  local took=$((SECONDS - phase_mark))
  phase_mark=$SECONDS
  phase_times+="$(printf '  %-22s %4d min %02d s' "$what" $((took / 60)) $((took % 60)))"$'\n'
  echo "--- $what: $p passed, $f failed, $k skipped ($((took / 60)) min $((took % 60)) s)"
}

# bazel_tests <name> <targets> <bazel test arguments...>: runs them with a fresh build event
# file and tallies that invocation only.
bazel_tests() {
  local name=$1 targets=$2; shift 2
  local events=$events_dir/$name.json counts
  rm -f "$events"
  bazel test "$@" --keep_going --build_event_json_file="$events" 2>&1 |
    grep -vE '^(Loading|Analyzing|INFO: From|\[[0-9,]+ / [0-9,]+\])'
  # shellcheck disable=SC2086  # one label per word
  if ! counts=$(python3 tests/summarize.py --allowlist tests/skip_allowlist.txt "$events" \
      $targets); then
    counts="summarize.py failed"
  fi
  add_counts "$name" "$counts"
}

run_config() {  # name, bazel flags...
  local name=$1; shift
  echo "=== tests ($name): bazel test $* //..."
  local targets
  if ! targets=$(bazel query --noshow_progress 'tests(//...) except attr(tags, manual, //...)' \
      2>"$events_dir/query.err"); then
    cat "$events_dir/query.err"
    targets=""
    add_counts "$name: bazel query" "query failed"
  fi
  bazel_tests "$name" "$targets" "$@" //...
}

run_config host
# The musl tests in the release's own configuration (-c opt: -Os, NDEBUG): the code they
# test is the code that ships, and the release binary, the package and the end-to-end
# images reuse what this run compiles instead of building it a second time.
run_config musl --config=musl -c opt

echo "=== release binary: bazel test --config=musl -c opt //tests/release:release_test"
bazel_tests release //tests/release:release_test --config=musl -c opt --test_output=all \
  //tests/release:release_test

echo "=== packages: rules/package.sh (.deb and .rpm of the release binary; lintian, rpmlint)"
if pkg=$(bash rules/package.sh --out .cache/packages 2>&1); then
  echo "$pkg"
  add_counts packages "1 passed, 0 failed"
else
  echo "$pkg"
  add_counts packages "0 passed, 1 failed"
fi

echo "=== the listener's unit: systemd-analyze security --offline=true (exposure at most 2.0)"
# --threshold is the exposure x 10: fails above 2.0, prints the table's last line.
if sec=$(systemd-analyze security --offline=true --threshold=20 \
  dracut-module/rdma-provision-listener.service 2>&1); then
  echo "$sec" | tail -n 1
  add_counts unit-security "1 passed, 0 failed"
else
  echo "$sec" | grep -E '✗|Overall'
  add_counts unit-security "0 passed, 1 failed"
fi

echo "=== the mutant list against the tree: tests/mutation/mutants.py list (each mutant's line is there once)"
# The mutation check itself runs on demand (tests/mutation/run.sh); this keeps its list
# from going stale unnoticed when a mutated line is rewritten.
if mut=$(python3 tests/mutation/mutants.py list tests/mutation/mutants.txt 2>&1); then
  echo "$(echo "$mut" | wc -l) mutants, each found once"
  add_counts mutant-list "1 passed, 0 failed"
else
  echo "$mut" | tail -n 3
  add_counts mutant-list "0 passed, 1 failed"
fi

echo "=== the layering: tests/layering/layers.py (no include up the stack, no cycle, no file over 450 lines; planted faults found)"
layers=$(python3 tests/layering/layers.py 2>&1)
echo "$layers" | grep -v ' passed, '
add_counts layering "$(echo "$layers" | tail -n 1)"

echo "=== fuzzing smoke run: every parser under libFuzzer with ASan+UBSan (tests/fuzz/run.sh)"
fuzz=$(bash tests/fuzz/run.sh "${FUZZ_SECONDS:-5}" 2>&1)
echo "$fuzz" | grep -v ' passed, '
add_counts fuzzing "$(echo "$fuzz" | tail -n 1)"

# E2E_SCENARIOS: which boots to run (default 1 3 4 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 23: shell-init root over
# NFS/RDMA, a bad parameter, the server absent, systemd with rdma-core's 50rdma beside
# ours, our netlink requests against iproute2's on the guest kernel, the binary aborting
# and hanging, a broken configuration in the image, a port without carrier, rd.break
# shells, two diskless nodes PXE-booting from the server, DHCP on our interface,
# NetworkManager in the initramfs, the RDMA path verified against a listener and failing
# without one, dracut-ng 106, NetworkManager without its initrd generator, a hardware
# stand-in whose port is DOWN on a down link until the plan brings it up, the listener
# under load and faults, the root on NVMe over Fabrics over RDMA); "all" runs
# every scenario, "none" skips the boots.
scen=${E2E_SCENARIOS:-1 3 4 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 23}
if [[ $scen != none ]]; then
  [[ $scen == all ]] && scen=""
  echo "=== end-to-end boots in QEMU: tests/e2e/run.sh ${scen:-(all scenarios)}"
  e2e=$(bash tests/e2e/run.sh $scen 2>&1)
  echo "$e2e" | grep -v '^[0-9]* passed, [0-9]* failed$'
  add_counts "end-to-end" "$(echo "$e2e" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)"
fi

# E2E_SCENARIOS_612: the boots on Debian's 6.12 (bookworm-backports, Debian 13's kernel
# line), beside 6.1's (default: the shell and systemd boots over Soft-RoCE, the netlink
# comparison, the port without carrier (Soft-RoCE's port state is the kernel's to decide),
# the RDMA path verified against the server's listener over Soft-RoCE, and Soft-iWARP end
# to end with the siw.ko bootstrap builds for it, its peer checked, and the root on NVMe
# over Fabrics over RDMA); "none" skips them.
scen612=${E2E_SCENARIOS_612:-1 7 8 11 16 22 23}
if [[ $scen612 != none && $scen != none ]]; then
  echo "=== end-to-end boots on the 6.12 kernel: E2E_KERNEL=6.12 tests/e2e/run.sh $scen612"
  # shellcheck disable=SC2086  # scenario names, one per word
  e2e612=$(E2E_KERNEL=6.12 E2E_NO_BOOTSTRAP=1 bash tests/e2e/run.sh $scen612 2>&1)
  echo "$e2e612" | grep -v '^[0-9]* passed, [0-9]* failed$'
  add_counts "end-to-end (6.12)" "$(echo "$e2e612" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)"
fi

echo "=== time per phase (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
printf '%s' "$phase_times"
echo "${total_pass} passed, ${total_fail} failed, ${total_skip} skipped"
[[ $total_fail -eq 0 ]]
