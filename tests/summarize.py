#!/usr/bin/env python3
"""The tally of one `bazel test` invocation, for the closing line CI reads.

Every test target's result is taken from the build event file that invocation wrote
(--build_event_json_file): its testResult events (one per shard, the last attempt counts)
name the test.xml files to read, so leftovers of earlier runs in bazel-testlogs are never
seen. Test cases are counted from those files (gtest writes a skipped case as
`<testcase result="skipped"><skipped .../>`, a disabled one as `status="notrun"`).

Counted as failures, each with a line on stderr saying why:
  - no test target at all (neither asked for nor in the build events);
  - a target asked for without a result in this invocation (it failed to build, was not
    run, or the invocation ended early), or a shard without one;
  - a failing test case, or a test.xml that cannot be read or holds no test case;
  - a shard Bazel reports as not PASSED although no case of it failed (a crash after the
    last test, a nonzero exit status, a timeout);
  - with CI=true: a skipped test case that is not on the allow-list (one
    `Suite.Test  # reason` per line; an entry without a reason is itself a failure).
Skipped test cases are listed by name either way.

usage: summarize.py [--allowlist FILE] BUILD_EVENTS_JSON [LABEL...]
  LABEL: the test targets the invocation was asked to run (from `bazel query`).
  stdout: "PASSED FAILED SKIPPED" (one line); stderr: what failed and what was skipped.
  Exit status 0 when the tally was made (whatever it counts), 2 when it could not be."""

import argparse
import json
import os
import sys
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET


class Tally:
    def __init__(self, ci, allowed):
        self.passed = self.failed = self.skipped = 0
        self.ci = ci
        self.allowed = allowed  # "Suite.Test" -> reason
        self.skipped_names = set()

    def fail(self, why):
        self.failed += 1
        print(f"  FAILED  {why}", file=sys.stderr)

    def skip(self, label, name, message):
        self.skipped_names.add(name)
        shown = f"{label} {name}" + (f": {message}" if message else "")
        if name in self.allowed:
            self.skipped += 1
            print(f"  skipped {shown} (allow-listed: {self.allowed[name]})", file=sys.stderr)
        elif self.ci:
            self.fail(f"{shown} (skipped in CI and not on the skip allow-list)")
        else:
            self.skipped += 1
            print(f"  skipped {shown} (CI would count it as failed: not on the allow-list)",
                  file=sys.stderr)


def read_allowlist(path, tally):
    """{"Suite.Test": reason}; a line without a reason counts as a failure."""
    allowed = {}
    if not path:
        return allowed
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            entry, _, reason = line.partition("#")
            entry, reason = entry.strip(), reason.strip()
            if not entry:
                continue
            if len(entry.split()) != 1 or not reason:
                tally.fail(f"{path}:{n}: '{line.strip()}': want 'Suite.Test  # reason'")
                continue
            allowed[entry] = reason
    return allowed


def read_events(path):
    """The testResult (last attempt per run and shard), testSummary and failed
    targetCompleted events of a build event file, by label."""
    results, summaries, broken, labels = {}, {}, {}, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"summarize.py: {path}:{n}: not JSON ({e})")
            eid = event.get("id", {})
            if "testResult" in eid:
                key = eid["testResult"]
                label = key["label"]
                shard = (key.get("run", 1), key.get("shard", 1))
                attempt = key.get("attempt", 1)
                if "aborted" in event:
                    result = {"status": "ABORTED", "why": event["aborted"].get("description", "")}
                else:
                    result = event.get("testResult", {})
                have = results.setdefault(label, {})
                if shard not in have or have[shard][0] <= attempt:
                    have[shard] = (attempt, result)
                labels.append(label)
            elif "testSummary" in eid:
                label = eid["testSummary"]["label"]
                summaries[label] = event.get("testSummary") or {
                    "overallStatus": "ABORTED",
                    "why": event.get("aborted", {}).get("description", ""),
                }
                labels.append(label)
            elif "targetCompleted" in eid:
                label = eid["targetCompleted"]["label"]
                completed = event.get("completed")
                if completed is None or not completed.get("success"):
                    detail = (completed or {}).get("failureDetail", {}).get("message", "")
                    if "aborted" in event:
                        detail = event["aborted"].get("description", "") or detail
                    broken[label] = detail.splitlines()[0] if detail else ""
    return results, summaries, broken, labels


def local_path(uri):
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "file":
        return None
    return urllib.request.url2pathname(parsed.path)


def count_xml(tally, label, shard_name, path):
    """Counts the test cases of one test.xml; True when one of them failed."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        tally.fail(f"{label}{shard_name}: cannot read {path}: {e}")
        return True
    cases = list(root.iter("testcase"))
    if not cases:
        tally.fail(f"{label}{shard_name}: {path} holds no test case")
        return True
    any_failed = False
    for tc in cases:
        suite, name = tc.get("classname"), tc.get("name", "?")
        full = f"{suite}.{name}" if suite else name
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        skipped = tc.find("skipped")
        if bad is not None:
            any_failed = True
            message = (bad.get("message") or bad.text or "").strip().replace("\n", " | ")
            tally.fail(f"{label} {full}" + (f": {message[:300]}" if message else ""))
        elif tc.get("result") == "skipped" or skipped is not None:
            message = "" if skipped is None else (skipped.get("message") or skipped.text or "")
            # gtest puts "file:line" first, then the text given to GTEST_SKIP().
            lines = [l for l in message.strip().splitlines() if l.strip()]
            tally.skip(label, full, " ".join(lines[1:] or lines)[:200])
        elif tc.get("status") == "notrun":
            tally.skip(label, full, "disabled")
        else:
            tally.passed += 1
    return any_failed


def count_target(tally, label, results, summary, broken_why):
    if not results:
        why = "no test result in this invocation"
        if broken_why is not None:
            why += " (it failed to build" + (f": {broken_why}" if broken_why else "") + ")"
        elif summary and summary.get("overallStatus"):
            why += f" (Bazel's summary: {summary['overallStatus']})"
        tally.fail(f"{label}: {why}")
        return
    shards = int((summary or {}).get("shardCount") or 1)
    runs = int((summary or {}).get("runCount") or 1)
    if summary is None:
        tally.fail(f"{label}: no test summary in this invocation")
    expected = {(r, s) for r in range(1, runs + 1) for s in range(1, shards + 1)}
    for key in sorted(expected - set(results)):
        tally.fail(f"{label} (run {key[0]}, shard {key[1]} of {shards}): no test result")
    for key in sorted(results):
        _, result = results[key]
        shard_name = f" (shard {key[1]} of {shards})" if shards > 1 else ""
        status = result.get("status", "NO_STATUS")
        xmls = [o for o in result.get("testActionOutput", []) if o.get("name") == "test.xml"]
        case_failed = False
        if not xmls:
            if status != "ABORTED":
                tally.fail(f"{label}{shard_name}: {status}, and no test.xml")
            case_failed = True
        for out in xmls:
            path = local_path(out.get("uri", ""))
            if path is None:
                tally.fail(f"{label}{shard_name}: test.xml is not a local file: {out.get('uri')}")
                case_failed = True
                continue
            case_failed |= count_xml(tally, label, shard_name, path)
        if status == "ABORTED":
            tally.fail(f"{label}{shard_name}: aborted" +
                       (f": {result['why']}" if result.get("why") else ""))
        elif status != "PASSED" and not case_failed:
            tally.fail(f"{label}{shard_name}: Bazel reports {status} although no test case "
                       "failed (a crash after the tests, the exit status, or a timeout; "
                       "see its test.log)")


def main():
    ap = argparse.ArgumentParser(add_help=True)
    ap.add_argument("--allowlist", default="")
    ap.add_argument("events")
    ap.add_argument("labels", nargs="*")
    args = ap.parse_args()

    tally = Tally(ci=os.environ.get("CI") == "true", allowed={})
    tally.allowed = read_allowlist(args.allowlist, tally)
    if not os.path.isfile(args.events):
        tally.fail(f"no build event file {args.events}: Bazel did not run or wrote nothing")
        results, summaries, broken, seen = {}, {}, {}, []
    else:
        results, summaries, broken, seen = read_events(args.events)

    labels = list(dict.fromkeys(args.labels + seen))
    if not labels:
        tally.fail("no test target found: nothing was asked for and nothing ran")
    for label in labels:
        count_target(tally, label, results.get(label, {}), summaries.get(label),
                     broken.get(label))
    for name in sorted(set(tally.allowed) - tally.skipped_names):
        print(f"  note: {name} is on the skip allow-list but was not skipped here",
              file=sys.stderr)
    print(tally.passed, tally.failed, tally.skipped)


if __name__ == "__main__":
    main()
