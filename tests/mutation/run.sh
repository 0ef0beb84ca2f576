#!/bin/bash
# Mutation check of the host tests (#32): applies each one-line mutation listed in
# tests/mutation/mutants.txt to its file under provision/, runs the test targets related
# to that file, restores the file whatever happens, and tallies:
#
#   N killed, N survived (N equivalent apart)
#
# with the survivors named. A mutant survives when its tests all pass: a bug of that kind
# would pass CI. The goal is at least 95 % of the non-equivalent mutants killed; exit 0
# when met, 1 when not, 2 on an error (a stale list, a tree that fails unmutated, a mutant
# that does not build).
#
# It edits files in place: run it in a clone of its own, not in a tree being edited:
#   git clone /path/to/rdma-provision /tmp/mut && ln -s /path/to/rdma-provision/.cache /tmp/mut/.cache
#   cd /tmp/mut && tests/mutation/run.sh [MUTANT_ID ...]
# It refuses to start when the files it mutates have uncommitted changes. On demand only
# (about 11 minutes on 2 cores for 84 mutants, once a fresh clone's first Bazel build of the
# third-party libraries is done), not in tests/run.sh or CI.
#
# Environment: MUTATION_DATA (default tests/mutation/mutants.txt), MUTATION_LOGS (a
# directory for each mutant's bazel output; default a fresh one under /tmp),
# BAZEL (default bazel). Everything runs under nice -n 10.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 2
DATA="${MUTATION_DATA:-tests/mutation/mutants.txt}"
LOGS="${MUTATION_LOGS:-$(mktemp -d /tmp/rdma-provision-mutation.XXXXXX)}"
BAZEL="${BAZEL:-bazel}"
HELPER=(python3 tests/mutation/mutants.py)
mkdir -p "$LOGS"

say() { printf 'mutation: %s\n' "$*"; }

# The mutant list, checked against the tree before anything runs.
LIST="$("${HELPER[@]}" list "$DATA")" || exit 2
declare -a IDS FILES EQUIV TARGETS
while IFS=$'\t' read -r id file eq targets; do
  IDS+=("$id"); FILES+=("$file"); EQUIV+=("$eq"); TARGETS+=("$targets")
done <<<"$LIST"

# Only the mutants named on the command line, if any.
if [ $# -gt 0 ]; then
  for want in "$@"; do
    printf '%s\n' "${IDS[@]}" | grep -qxF -- "$want" || { say "no mutant $want in $DATA"; exit 2; }
  done
fi
selected() {
  [ $# -eq 1 ] && return 0
  local id="$1"; shift
  for want in "$@"; do [ "$want" = "$id" ] && return 0; done
  return 1
}

# Files are edited in place: never over uncommitted work.
dirty="$(git status --porcelain -- $(printf '%s\n' "${FILES[@]}" | sort -u))"
if [ -n "$dirty" ]; then
  say "refusing to run: these files have uncommitted changes (run it in a clean clone):"
  printf '%s\n' "$dirty"
  exit 2
fi

# Restores the mutated file, whatever ends the run (error, Ctrl-C, kill).
ACTIVE=""
BACKUP="$LOGS/original"
restore() {  # [quiet]
  if [ -n "$ACTIVE" ]; then
    cp "$BACKUP" "$ACTIVE" && [ $# -eq 0 ] && say "restored $ACTIVE"
    ACTIVE=""
  fi
  return 0
}
trap restore EXIT
trap 'restore; exit 130' INT
trap 'restore; exit 143' TERM HUP

run_tests() {  # log, targets...: bazel test's exit code
  local log="$1"; shift
  nice -n 10 "$BAZEL" test --color=no --curses=no --noshow_progress --test_output=errors \
    "$@" >"$log" 2>&1
}

start=$(date +%s)
# 1. The unmutated tree must pass every target the mutants use.
all_targets=$(printf '%s\n' "${TARGETS[@]}" | tr ' ' '\n' | sort -u)
say "baseline: $(echo $all_targets | wc -w) targets on the unmutated tree"
if ! run_tests "$LOGS/baseline.log" $all_targets; then
  say "the unmutated tree fails its tests: see $LOGS/baseline.log"
  exit 2
fi

killed=0; survived=0; equivalent=0; errors=0; total=0
survivors=(); error_list=(); equiv_list=()
for i in "${!IDS[@]}"; do
  id="${IDS[$i]}"; file="${FILES[$i]}"
  selected "$id" "$@" || continue
  total=$((total + 1))
  why="$("${HELPER[@]}" field "$DATA" "$id" why)" || exit 2
  cp "$file" "$BACKUP" || exit 2
  ACTIVE="$file"
  "${HELPER[@]}" apply "$DATA" "$id" || { restore; exit 2; }
  t0=$(date +%s)
  run_tests "$LOGS/$id.log" ${TARGETS[$i]}
  rc=$?
  restore quiet
  secs=$(( $(date +%s) - t0 ))
  first_failure="$(grep -m1 -o '\[  FAILED  \] [A-Za-z0-9_]*\.[A-Za-z0-9_/]*' "$LOGS/$id.log" |
                   sed 's/\[  FAILED  \] //')"
  [ -z "$first_failure" ] && first_failure="$(grep -m1 -oE '//[^ ]+ +(FAILED|TIMEOUT)' "$LOGS/$id.log" |
                                               tr -s ' ')"
  if [ "${EQUIV[$i]}" = "equivalent" ]; then
    if [ $rc -eq 0 ]; then
      equivalent=$((equivalent + 1)); equiv_list+=("$id")
      say "equivalent $id (${secs} s)"
    else
      errors=$((errors + 1)); error_list+=("$id: marked equivalent but its tests fail (rc $rc)")
      say "ERROR      $id: marked equivalent, but killed by ${first_failure:-?} (${secs} s)"
    fi
    continue
  fi
  case $rc in
    0) survived=$((survived + 1)); survivors+=("$id ($file): $why")
       say "SURVIVED   $id (${secs} s): $why" ;;
    3) killed=$((killed + 1))
       say "killed     $id by ${first_failure:-?} (${secs} s)" ;;
    *) errors=$((errors + 1)); error_list+=("$id: bazel exit $rc (1: did not build), see $LOGS/$id.log")
       say "ERROR      $id: bazel exit $rc, see $LOGS/$id.log (${secs} s)" ;;
  esac
done

elapsed=$(( $(date +%s) - start ))
counted=$((killed + survived))
echo
say "$killed killed, $survived survived ($equivalent equivalent apart, $errors errors) of $total mutants in $((elapsed / 60)) min $((elapsed % 60)) s"
for s in "${survivors[@]+"${survivors[@]}"}"; do say "survived: $s"; done
for e in "${equiv_list[@]+"${equiv_list[@]}"}"; do
  say "equivalent: $e: $("${HELPER[@]}" field "$DATA" "$e" equivalent)"
done
for e in "${error_list[@]+"${error_list[@]}"}"; do say "error: $e"; done
say "logs: $LOGS"
[ $errors -gt 0 ] && exit 2
if [ $counted -gt 0 ]; then
  # killed / non-equivalent >= 95 %
  if [ $((killed * 100)) -ge $((counted * 95)) ]; then
    say "goal met: $((killed * 1000 / counted / 10)).$((killed * 1000 / counted % 10)) % of $counted non-equivalent mutants killed (goal 95 %)"
    exit 0
  fi
  say "goal missed: $((killed * 1000 / counted / 10)).$((killed * 1000 / counted % 10)) % of $counted non-equivalent mutants killed (goal 95 %)"
  exit 1
fi
exit 0
