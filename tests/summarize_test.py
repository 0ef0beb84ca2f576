#!/usr/bin/env python3
"""tests/summarize.py against build event files and test.xml files written here as Bazel
4.2.3 and gtest 1.12 write them (shapes copied from real runs): what it counts, and that
everything it cannot vouch for counts as failed. Writes its own cases to $XML_OUTPUT_FILE
so that the tally counts them one by one."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.sax.saxutils

HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARIZE = os.path.join(HERE, "summarize.py")

PASS_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="2" failures="0" disabled="0" errors="0" time="0" name="AllTests">
  <testsuite name="Loader" tests="2" failures="0" disabled="0" skipped="0" errors="0">
    <testcase name="LoadsIt" status="run" result="completed" time="0" classname="Loader" />
    <testcase name="ResolvesIt" status="run" result="completed" time="0" classname="Loader" />
  </testsuite>
</testsuites>
"""

SKIP_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1" disabled="1" errors="0" time="0" name="AllTests">
  <testsuite name="Netns" tests="3" failures="1" disabled="1" skipped="1" errors="0">
    <testcase name="NeedsRoot" status="run" result="skipped" time="0" classname="Netns">
      <skipped message="tests/netns/netns.cc:39&#x0A;namespaces are forbidden"><![CDATA[x]]></skipped>
    </testcase>
    <testcase name="FailsThenSkips" status="run" result="completed" time="0" classname="Netns">
      <failure message="a.cc:4&#x0A;Failed" type=""><![CDATA[a.cc:4
Failed]]></failure>
      <skipped message="a.cc:4&#x0A;"><![CDATA[a.cc:4]]></skipped>
    </testcase>
    <testcase name="DISABLED_Later" status="notrun" result="suppressed" time="0" classname="Netns" />
  </testsuite>
</testsuites>
"""

# What Bazel's test-setup.sh writes when the test binary wrote none (it crashed).
CRASH_XML = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="tests/x/crash_test" tests="1" failures="0" errors="1">
    <testcase name="tests/x/crash_test" status="run" duration="0" time="0"><error message="exited with error code 134"></error></testcase>
  </testsuite>
</testsuites>
"""


class Workspace:
    """A build event file and the test.xml files it names."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.events = []

    def xml(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def result(self, label, status="PASSED", xml=PASS_XML, shard=1, attempt=1, run=1):
        outputs = [{"name": "test.log", "uri": "file:///nonexistent/test.log"}]
        if xml is not None:
            path = self.xml(f"{label.replace('/', '_').replace(':', '_')}_{run}_{shard}_"
                            f"{attempt}.xml", xml)
            outputs.append({"name": "test.xml", "uri": "file://" + path})
        self.events.append({
            "id": {"testResult": {"label": label, "run": run, "shard": shard,
                                  "attempt": attempt, "configuration": {"id": "c"}}},
            "testResult": {"testActionOutput": outputs, "status": status},
        })

    def summary(self, label, status="PASSED", shards=None):
        s = {"overallStatus": status, "totalRunCount": shards or 1, "runCount": 1}
        if shards:
            s["shardCount"] = shards
        self.events.append({"id": {"testSummary": {"label": label, "configuration": {"id": "c"}}},
                            "testSummary": s})

    def build_failure(self, label, message):
        self.events.append({
            "id": {"targetCompleted": {"label": label, "configuration": {"id": "c"}}},
            "completed": {"failureDetail": {"message": message}},
        })

    def run(self, *labels, ci=False, allowlist=None, raw=None):
        path = os.path.join(self.tmp, "events.json")
        with open(path, "w", encoding="utf-8") as f:
            if raw is not None:
                f.write(raw)
            for e in self.events:
                f.write(json.dumps(e) + "\n")
        args = [sys.executable, SUMMARIZE]
        if allowlist is not None:
            args += ["--allowlist", self.xml("allow.txt", allowlist)]
        env = dict(os.environ)
        env.pop("CI", None)
        if ci:
            env["CI"] = "true"
        p = subprocess.run(args + [path] + list(labels), capture_output=True, text=True, env=env)
        return p


class Summarize(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.ws = Workspace(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def counts(self, p):
        self.assertEqual(p.returncode, 0, p.stderr)
        return tuple(int(x) for x in p.stdout.split())

    def test_passing_target_counts_its_cases(self):
        self.ws.result("//t:a")
        self.ws.summary("//t:a")
        self.assertEqual(self.counts(self.ws.run("//t:a")), (2, 0, 0))

    def test_no_target_at_all_is_a_failure(self):
        p = self.ws.run()
        self.assertEqual(self.counts(p), (0, 1, 0))
        self.assertIn("no test target found", p.stderr)

    def test_missing_event_file_is_a_failure(self):
        p = subprocess.run([sys.executable, SUMMARIZE, os.path.join(self._tmp.name, "none.json"),
                            "//t:a"], capture_output=True, text=True)
        self.assertEqual(self.counts(p), (0, 2, 0))
        self.assertIn("no build event file", p.stderr)
        self.assertIn("//t:a: no test result in this invocation", p.stderr)

    def test_target_asked_for_without_a_result_fails_even_with_an_old_xml_around(self):
        self.ws.xml("test.xml", PASS_XML)  # a leftover: no event names it
        self.ws.build_failure("//t:b", "gcc failed: error executing command\nmore")
        self.ws.result("//t:a")
        self.ws.summary("//t:a")
        p = self.ws.run("//t:a", "//t:b")
        self.assertEqual(self.counts(p), (2, 1, 0))
        self.assertIn("//t:b: no test result in this invocation (it failed to build: gcc failed: "
                      "error executing command)", p.stderr)

    def test_a_missing_shard_fails(self):
        self.ws.result("//t:s", shard=1)
        self.ws.summary("//t:s", shards=2)
        p = self.ws.run("//t:s")
        self.assertEqual(self.counts(p), (2, 1, 0))
        self.assertIn("shard 2 of 2): no test result", p.stderr)

    def test_every_shard_is_counted(self):
        self.ws.result("//t:s", shard=1)
        self.ws.result("//t:s", shard=2)
        self.ws.summary("//t:s", shards=2)
        self.assertEqual(self.counts(self.ws.run("//t:s")), (4, 0, 0))

    def test_failed_status_without_a_failing_case_fails(self):
        self.ws.result("//t:exit", status="FAILED")
        self.ws.summary("//t:exit", status="FAILED")
        p = self.ws.run("//t:exit")
        self.assertEqual(self.counts(p), (2, 1, 0))
        self.assertIn("Bazel reports FAILED although no test case failed", p.stderr)

    def test_a_crash_counts_once(self):
        self.ws.result("//t:crash", status="FAILED", xml=CRASH_XML)
        self.ws.summary("//t:crash", status="FAILED")
        p = self.ws.run("//t:crash")
        self.assertEqual(self.counts(p), (0, 1, 0))
        self.assertIn("exited with error code 134", p.stderr)

    def test_timeout_without_xml_fails(self):
        self.ws.result("//t:slow", status="TIMEOUT", xml=None)
        self.ws.summary("//t:slow", status="FAILED")
        p = self.ws.run("//t:slow")
        self.assertEqual(self.counts(p), (0, 1, 0))
        self.assertIn("TIMEOUT, and no test.xml", p.stderr)

    def test_the_last_attempt_counts(self):
        self.ws.result("//t:f", status="FAILED", xml=CRASH_XML, attempt=1)
        self.ws.result("//t:f", status="PASSED", attempt=2)
        self.ws.summary("//t:f", status="FLAKY")
        self.assertEqual(self.counts(self.ws.run("//t:f")), (2, 0, 0))

    def test_unreadable_or_empty_xml_fails(self):
        self.ws.result("//t:bad", xml="<testsuites><testsuite>")
        self.ws.result("//t:empty", xml="<testsuites/>")
        self.ws.summary("//t:bad")
        self.ws.summary("//t:empty")
        p = self.ws.run("//t:bad", "//t:empty")
        self.assertEqual(self.counts(p), (0, 2, 0))
        self.assertIn("holds no test case", p.stderr)

    def test_skips_are_named_and_counted_outside_ci(self):
        self.ws.result("//t:n", status="FAILED", xml=SKIP_XML)
        self.ws.summary("//t:n", status="FAILED")
        p = self.ws.run("//t:n")
        self.assertEqual(self.counts(p), (0, 1, 2))
        self.assertIn("skipped //t:n Netns.NeedsRoot: namespaces are forbidden", p.stderr)
        self.assertIn("skipped //t:n Netns.DISABLED_Later: disabled", p.stderr)
        self.assertIn("FAILED  //t:n Netns.FailsThenSkips", p.stderr)

    def test_skips_fail_in_ci_unless_allow_listed(self):
        self.ws.result("//t:n", status="FAILED", xml=SKIP_XML)
        self.ws.summary("//t:n", status="FAILED")
        p = self.ws.run("//t:n", ci=True, allowlist="# header\n\nNetns.NeedsRoot  # no root\n")
        self.assertEqual(self.counts(p), (0, 2, 1))
        self.assertIn("Netns.NeedsRoot: namespaces are forbidden (allow-listed: no root)", p.stderr)
        self.assertIn("Netns.DISABLED_Later: disabled (skipped in CI and not on the skip "
                      "allow-list)", p.stderr)

    def test_allow_list_entry_without_a_reason_fails(self):
        self.ws.result("//t:a")
        self.ws.summary("//t:a")
        p = self.ws.run("//t:a", allowlist="Netns.NeedsRoot\n")
        self.assertEqual(self.counts(p), (2, 1, 0))
        self.assertIn("allow.txt:1: 'Netns.NeedsRoot': want 'Suite.Test  # reason'", p.stderr)

    def test_events_that_are_not_json_are_no_tally(self):
        p = self.ws.run("//t:a", raw="{not json\n")
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(p.stdout, "")


class XmlResult(unittest.TextTestResult):
    """Remembers every case's outcome for the JUnit XML Bazel reads."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append((test, None, ""))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append((test, "failure", self._exc_info_to_string(err, test)))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append((test, "error", self._exc_info_to_string(err, test)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes.append((test, "skipped", reason))


def write_xml(path, outcomes):
    esc = xml.sax.saxutils.quoteattr
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>", '  <testsuite name="Summarize">']
    for test, kind, text in outcomes:
        name = test.id().rsplit(".", 1)[-1]
        lines.append(f'    <testcase classname="Summarize" name={esc(name)} status="run">')
        if kind:
            lines.append(f"      <{kind} message={esc(text.strip()[-500:])}/>")
        lines.append("    </testcase>")
    lines += ["  </testsuite>", "</testsuites>"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Summarize)
    result = unittest.TextTestRunner(resultclass=XmlResult, verbosity=2).run(suite)
    if os.environ.get("XML_OUTPUT_FILE"):
        write_xml(os.environ["XML_OUTPUT_FILE"], result.outcomes)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
