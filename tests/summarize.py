#!/usr/bin/env python3
"""Counts test cases from Bazel's test.xml files of the given test targets, for the
closing line CI reads ("N passed, N failed"). A target without a test.xml (it failed to
build or was not run) counts as one failure, so a broken build can never look green.

usage: summarize.py <testlogs dir> <label>...   -> prints "passed failed" to stdout,
details of failures to stderr."""

import os
import sys
import xml.etree.ElementTree as ET


def main():
    testlogs, labels = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for label in labels:
        pkg, _, name = label.lstrip("/").partition(":")
        xml = os.path.join(testlogs, pkg, name, "test.xml")
        if not os.path.exists(xml):
            print(f"  {label}: no test result (build failure?)", file=sys.stderr)
            failed += 1
            continue
        cases = list(ET.parse(xml).iter("testcase"))
        for tc in cases:
            bad = tc.find("failure") is not None or tc.find("error") is not None
            if bad:
                failed += 1
                print(f"  {label}: {tc.get('classname')}.{tc.get('name')} FAILED", file=sys.stderr)
            elif tc.get("result") == "skipped" or tc.find("skipped") is not None:
                pass
            else:
                passed += 1
        if not cases:
            print(f"  {label}: test.xml without test cases", file=sys.stderr)
            failed += 1
    print(passed, failed)


if __name__ == "__main__":
    main()
