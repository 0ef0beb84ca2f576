#!/usr/bin/env python3
"""Reads tests/mutation/mutants.txt for run.sh: checks every mutant against the tree and
applies one. The file format is described at the top of mutants.txt.

  mutants.py list  DATA           one line per mutant: id, file, "equivalent" or "-", targets
  mutants.py apply DATA ID        applies mutant ID to its file, in place
  mutants.py field DATA ID KEY    prints one field of a mutant (why, equivalent, file, ...)

Every command first checks the whole file: unique ids, a file that exists, an original
text found exactly once in it, a replacement that differs, a reason, targets. Anything
wrong stops with a message naming the mutant and its line: the list cannot go stale
without saying so.
"""

import os
import re
import sys

KEYS = ("file", "from", "to", "tests", "why", "equivalent")


def fail(msg):
    sys.exit(f"mutants: {msg}")


def parse(path):
    targets = []  # (prefix, [targets])
    mutants = []
    cur = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, value = line.partition(" ")
            value = value.strip()
            if key == "targets":
                prefix, _, rest = value.partition(" ")
                if not rest.split():
                    fail(f"{path}:{n}: 'targets {prefix}' names no test target")
                targets.append((prefix, rest.split()))
            elif key == "mutant":
                if not value or " " in value:
                    fail(f"{path}:{n}: a mutant needs one id: 'mutant <id>'")
                cur = {"id": value, "line": n}
                mutants.append(cur)
            elif key in KEYS:
                if cur is None:
                    fail(f"{path}:{n}: '{key}' before the first 'mutant'")
                if key in cur:
                    fail(f"{path}:{n}: mutant {cur['id']} has '{key}' twice")
                cur[key] = value
            else:
                fail(f"{path}:{n}: unknown key '{key}' (known: targets, mutant, {', '.join(KEYS)})")
    return targets, mutants


def targets_of(m, targets):
    if "tests" in m:
        return m["tests"].split()
    best = None
    for prefix, t in targets:
        if m["file"].startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, t)
    return best[1] if best else []


def check(path, root):
    targets, mutants = parse(path)
    seen = set()
    for m in mutants:
        where = f"{path}:{m['line']}: mutant {m['id']}"
        if m["id"] in seen:
            fail(f"{where}: the id is used twice")
        seen.add(m["id"])
        for key in ("file", "from", "to", "why"):
            if key not in m:
                fail(f"{where}: no '{key}'")
        if not m["from"]:
            fail(f"{where}: 'from' is empty")
        if m["from"] == m["to"]:
            fail(f"{where}: 'to' is the same as 'from'")
        if "equivalent" in m and not m["equivalent"]:
            fail(f"{where}: 'equivalent' needs the reason")
        src = os.path.join(root, m["file"])
        if not os.path.isfile(src):
            fail(f"{where}: {m['file']} does not exist")
        with open(src, encoding="utf-8") as f:
            text = f.read()
        count = text.count(m["from"])
        if count != 1:
            fail(f"{where}: the original text is found {count} times in {m['file']}, "
                 f"not exactly once: {m['from']!r}")
        m["targets"] = targets_of(m, targets)
        if not m["targets"]:
            fail(f"{where}: no test targets (no 'tests' and no 'targets' line for {m['file']})")
        for t in m["targets"]:
            if not target_exists(root, t):
                fail(f"{where}: test target {t} is declared in no BUILD.bazel (moved?)")
    for _, ts in targets:
        for t in ts:
            if not target_exists(root, t):
                fail(f"{path}: 'targets' names {t}, which no BUILD.bazel declares (moved?)")
    return mutants


def target_exists(root, label):
    """//pkg:name is declared as name = "name" in pkg/BUILD.bazel (what bazel would say,
    without starting it: a stale label must fail the list check, not the mutation run)."""
    pkg, _, name = label[2:].partition(":")
    build = os.path.join(root, pkg, "BUILD.bazel")
    if not os.path.isfile(build):
        return False
    with open(build, encoding="utf-8") as f:
        if re.search(r'name\s*=\s*"' + re.escape(name) + '"', f.read()):
            return True
    # Names made in a comprehension (tests/conformance: peer + "_test") have their source.
    return os.path.isfile(os.path.join(root, pkg, name + ".cc"))


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, path = argv[1], argv[2]
    root = os.getcwd()
    mutants = check(path, root)
    by_id = {m["id"]: m for m in mutants}
    if cmd == "list":
        for m in mutants:
            eq = "equivalent" if "equivalent" in m else "-"
            print(f"{m['id']}\t{m['file']}\t{eq}\t{' '.join(m['targets'])}")
    elif cmd == "apply":
        m = by_id.get(argv[3]) if len(argv) > 3 else None
        if not m:
            fail(f"no mutant {argv[3:]}")
        src = os.path.join(root, m["file"])
        with open(src, encoding="utf-8") as f:
            text = f.read()
        with open(src, "w", encoding="utf-8") as f:
            f.write(text.replace(m["from"], m["to"], 1))
    elif cmd == "field":
        m = by_id.get(argv[3]) if len(argv) > 4 else None
        if not m:
            fail(f"no mutant {argv[3:4]}")
        print(m.get(argv[4], ""))
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
