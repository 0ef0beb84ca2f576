#!/usr/bin/env python3
"""Counts test cases from Bazel's test.xml files of the given test targets, for the
closing line CI reads ("N passed, N failed"); a sharded target has one per shard. A target
without a test.xml (it failed to build or was not run), or a shard without one, counts as
one failure, so a broken build can never look green.

usage: summarize.py <testlogs dir> <label>...   -> prints "passed failed" to stdout,
details of failures to stderr."""

import glob
import os
import sys
import xml.etree.ElementTree as ET


def result_files(target_dir):
    """test.xml of the target, or of each of its shards (shard_K_of_N/test.xml; None for
    a shard without one); [] when there is none."""
    whole = os.path.join(target_dir, "test.xml")
    if os.path.exists(whole):
        return [whole]
    shards = glob.glob(os.path.join(target_dir, "shard_*_of_*"))
    if not shards:
        return []
    total = int(shards[0].rsplit("_of_", 1)[1])
    files = []
    for k in range(1, total + 1):
        xml = os.path.join(target_dir, f"shard_{k}_of_{total}", "test.xml")
        files.append(xml if os.path.exists(xml) else None)
    return files


def main():
    testlogs, labels = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for label in labels:
        pkg, _, name = label.lstrip("/").partition(":")
        xmls = result_files(os.path.join(testlogs, pkg, name))
        if not xmls:
            print(f"  {label}: no test result (build failure?)", file=sys.stderr)
            failed += 1
            continue
        if None in xmls:
            print(f"  {label}: a shard has no test result", file=sys.stderr)
            failed += 1
            xmls = [x for x in xmls if x]
        cases = [tc for xml in xmls for tc in ET.parse(xml).iter("testcase")]
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
