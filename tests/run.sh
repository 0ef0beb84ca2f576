#!/usr/bin/env bash
# The test command: installs what is missing (rules/bootstrap.sh), then runs every test
# under the host toolchain and under the static musl toolchain, checks the release
# binary, fuzzes every parser briefly, boots QEMU scenarios 1, 3 and 4 of the end-to-end
# harness, and ends with the line CI reads: "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash rules/bootstrap.sh || { echo "0 passed, 1 failed"; exit 1; }

total_pass=0 total_fail=0
run_config() {  # name, bazel flags...
  local name=$1; shift
  echo "=== tests ($name): bazel test $* //..."
  local targets
  targets=$(bazel query --noshow_progress 'tests(//...) except attr(tags, manual, //...)' 2>/dev/null)
  bazel test "$@" --keep_going //... 2>&1 | grep -vE '^(Loading|Analyzing|INFO: From|\[[0-9,]+ / [0-9,]+\])'
  local logs counts
  logs=$(bazel info "$@" bazel-testlogs 2>/dev/null)
  counts=$(python3 tests/summarize.py "$logs" $targets)
  echo "--- $name: ${counts% *} passed, ${counts#* } failed"
  total_pass=$((total_pass + ${counts% *}))
  total_fail=$((total_fail + ${counts#* }))
}

run_config host
run_config musl --config=musl

echo "=== release binary: bazel test --config=musl -c opt //tests/release:release_test"
bazel test --config=musl -c opt --test_output=all //tests/release:release_test 2>&1 |
  grep -vE '^(Loading|Analyzing|INFO: From|\[[0-9,]+ / [0-9,]+\])'
logs=$(bazel info --config=musl -c opt bazel-testlogs 2>/dev/null)
counts=$(python3 tests/summarize.py "$logs" //tests/release:release_test)
total_pass=$((total_pass + ${counts% *}))
total_fail=$((total_fail + ${counts#* }))

echo "=== fuzzing smoke run: every parser under libFuzzer with ASan+UBSan (tests/fuzz/run.sh)"
fuzz=$(bash tests/fuzz/run.sh "${FUZZ_SECONDS:-5}" 2>&1)
echo "$fuzz" | grep -v ' passed, '
counts=$(echo "$fuzz" | tail -n 1)
total_pass=$((total_pass + ${counts%% passed*}))
f=${counts#*, }
total_fail=$((total_fail + ${f%% failed*}))

# E2E_SCENARIOS: which boots to run (default 1 3 4: shell-init root over NFS/RDMA, a bad
# parameter, the server absent); "all" runs every scenario, "none" skips the boots.
scen=${E2E_SCENARIOS:-1 3 4}
if [[ $scen != none ]]; then
  [[ $scen == all ]] && scen=""
  echo "=== end-to-end boots in QEMU: tests/e2e/run.sh ${scen:-(all scenarios)}"
  e2e=$(bash tests/e2e/run.sh $scen 2>&1)
  echo "$e2e" | grep -v '^[0-9]* passed, [0-9]* failed$'
  counts=$(echo "$e2e" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  if [[ -z $counts ]]; then
    counts="0 passed, 1 failed"
  fi
  total_pass=$((total_pass + ${counts%% passed*}))
  f=${counts#*, }
  total_fail=$((total_fail + ${f%% failed*}))
fi

echo "${total_pass} passed, ${total_fail} failed"
[[ $total_fail -eq 0 ]]
