#!/usr/bin/env python3
"""Mutants nobody chose (#46): generates one-line mutants of provision/ by program, draws a
seeded random sample, judges each by every host test that depends on its file (Bazel's
reverse dependencies), and prints the seed, the score per folder and each survivor.

  tests/mutation/sample.py [--seed S] [--count N] [--list] [--only FILE_PREFIX]
      [--equivalents FILE]

--list prints the sampled mutants without running them. The same seed, tree and operator
set give the same sample. A mutant that does not compile is "stillborn": counted apart,
as it could never reach CI. Mutants argued equivalent in tests/mutation/equivalents.txt
(one "file:line operator: reason" a line) are run too (a failing test proves the reason
wrong) and counted apart.

It edits files in place: run it in a clone of its own (tests/mutation/run.sh says how);
it refuses to start on a tree with uncommitted changes under provision/.
"""

import argparse
import collections
import os
import random
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EQUIV_DEFAULT = os.path.join(ROOT, "tests", "mutation", "equivalents.txt")

# (name, pattern, replacement): applied to the first match outside string literals and
# comments. Binary operators are matched with the spaces clang-format puts around them,
# so template brackets, ->, << and >> never match.
OPERATORS = [
    ("lt-to-le", r" < ", " <= "),
    ("le-to-lt", r" <= ", " < "),
    ("gt-to-ge", r" > ", " >= "),
    ("ge-to-gt", r" >= ", " > "),
    ("eq-to-ne", r" == ", " != "),
    ("ne-to-eq", r" != ", " == "),
    ("and-to-or", r" && ", " || "),
    ("or-to-and", r" \|\| ", " && "),
    ("plus-to-minus", r" \+ ", " - "),
    ("minus-to-plus", r" - ", " + "),
    ("true-to-false", r"\btrue\b", "false"),
    ("false-to-true", r"\bfalse\b", "true"),
    ("byte-order-dropped", r"\b(?:htonl|ntohl|htons|ntohs)\(", "("),
]
INT_LITERAL = re.compile(r"(?<![\w.'])(\d+)(?![\w.'])")
CALL_STATEMENT = re.compile(r"^(\s*)(?!return\b|if\b|for\b|while\b|switch\b|case\b|else\b|"
                            r"delete\b|throw\b)[A-Za-z_][\w:]*(?:(?:\.|->)[A-Za-z_]\w*)*\(.*\);\s*$")
IF_OPEN = re.compile(r"\bif \(")


def code_mask(line):
    """Which characters are code: not inside a string or character literal, nor after //."""
    mask = [True] * len(line)
    i, quote = 0, None
    while i < len(line):
        c = line[i]
        if quote:
            mask[i] = False
            if c == "\\":
                if i + 1 < len(line):
                    mask[i + 1] = False
                i += 2
                continue
            if c == quote:
                quote = None
        elif line.startswith("//", i):
            for j in range(i, len(line)):
                mask[j] = False
            break
        elif c in "\"'" and not (c == "'" and i > 0 and line[i - 1].isalnum()):
            quote = c
            mask[i] = False
        i += 1
    return mask


def in_code(mask, start, end):
    return all(mask[start:end])


def candidates_of_line(path, n, line, prev):
    s = line.strip()
    if (not s or s.startswith(("//", "#", "*", "/*", "static_assert", "using ", "namespace",
                               "template", "}", "{")) or "R\"(" in line):
        return []
    mask = code_mask(line)
    has_string = '"' in line
    out = []
    for name, pattern, repl in OPERATORS:
        if name in ("plus-to-minus", "minus-to-plus") and has_string:
            continue  # string concatenation: would not compile
        for m in re.finditer(pattern, line):
            if in_code(mask, m.start(), m.end()):
                out.append((path, n, name, line[:m.start()] + repl + line[m.end():]))
                break
    for m in INT_LITERAL.finditer(line):
        if not in_code(mask, m.start(), m.end()):
            continue
        v = int(m.group(1))
        out.append((path, n, "int-plus-one", line[:m.start()] + str(v + 1) + line[m.end():]))
        if v > 0:
            out.append((path, n, "int-minus-one", line[:m.start()] + str(v - 1) + line[m.end():]))
        break
    m = IF_OPEN.search(line)
    if m and in_code(mask, m.start(), m.end()):
        depth, i = 1, m.end()
        while i < len(line) and depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0) if mask[i] else 0
            i += 1
        cond = line[m.end():i - 1]
        # An if with a declaration or an init-statement cannot be negated as a whole.
        if depth == 0 and ";" not in cond and not re.match(r"(auto|const)\b", cond):
            out.append((path, n, "negate-condition",
                        line[:m.end()] + "!(" + cond + "))" + line[i:]))
    if (CALL_STATEMENT.match(line) and mask[len(line.rstrip()) - 1] and
            prev.rstrip().endswith((";", "{", "}")) and line.count("(") == line.count(")")):
        indent = CALL_STATEMENT.match(line).group(1)
        out.append((path, n, "call-deleted", indent + ";"))
    return out


def all_candidates():
    out = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "provision")):
        for f in sorted(files):
            if not f.endswith(".cc"):
                continue
            path = os.path.relpath(os.path.join(dirpath, f), ROOT)
            with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
                lines = fh.read().split("\n")
                for n, line in enumerate(lines, 1):
                    out.extend(candidates_of_line(path, n, line, lines[n - 2] if n > 1 else ""))
    out.sort(key=lambda c: (c[0], c[1], c[2]))
    return out


def read_equivalents(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, _, reason = line.partition(": ")
            out[key] = reason
    return out


def bazel(*args, check=True):
    return subprocess.run(["nice", "-n", "10", "bazel", *args], cwd=ROOT, text=True,
                          capture_output=True, check=check)


def host_tests():
    q = bazel("query", "--noshow_progress", "tests(//...) except attr(tags, manual, //...)")
    return set(q.stdout.split())


def tests_of(path, cache, hosts):
    if path in cache:
        return cache[path]
    pkg, name = os.path.dirname(path), os.path.basename(path)
    q = bazel("query", "--noshow_progress", f"rdeps(//..., //{pkg}:{name})", check=False)
    cache[path] = sorted(set(q.stdout.split()) & hosts)
    return cache[path]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--only", default="provision/")
    ap.add_argument("--equivalents", default=EQUIV_DEFAULT)
    a = ap.parse_args(argv)
    seed = a.seed if a.seed is not None else int(time.time()) % 100000
    pool = [c for c in all_candidates() if c[0].startswith(a.only)]
    rng = random.Random(seed)
    sample = sorted(rng.sample(pool, min(a.count, len(pool))), key=lambda c: (c[0], c[1]))
    print(f"mutation sample: seed {seed}, {len(sample)} of {len(pool)} generated mutants "
          f"(rerun: tests/mutation/sample.py --seed {seed} --count {a.count})", flush=True)
    if a.list:
        for path, n, op, text in sample:
            print(f"{path}:{n} {op}: {text.strip()}")
        return 0
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "provision"], cwd=ROOT,
                           text=True, capture_output=True).stdout
    if dirty.strip():
        sys.exit("mutation sample: provision/ has uncommitted changes; run it in a clean clone")
    # A kill (SIGTERM, SIGHUP) ends the run through the `finally` that restores the file.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(143))
    equivalents = read_equivalents(a.equivalents)
    hosts = host_tests()
    cache = {}
    tally = collections.defaultdict(collections.Counter)
    survivors, stillborn, wrong_equiv = [], [], []
    start = time.time()
    for i, (path, n, op, text) in enumerate(sample, 1):
        folder = path.split("/")[1]
        key = f"{path}:{n} {op}"
        targets = tests_of(path, cache, hosts)
        if not targets:
            tally[folder]["untested"] += 1
            survivors.append(f"{key}: no host test depends on {path}")
            print(f"[{i}/{len(sample)}] SURVIVED {key}: no host test depends on it", flush=True)
            continue
        full = os.path.join(ROOT, path)
        with open(full, encoding="utf-8") as f:
            original = f.read()
        lines = original.split("\n")
        before = lines[n - 1]
        lines[n - 1] = text
        t0 = time.time()
        try:
            with open(full, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            r = bazel("test", "--color=no", "--curses=no", "--noshow_progress",
                      "--test_output=errors", *targets, check=False)
        finally:
            with open(full, "w", encoding="utf-8") as f:
                f.write(original)
        secs = time.time() - t0
        if r.returncode == 1:
            tally[folder]["stillborn"] += 1
            stillborn.append(key)
            verdict = "stillborn (does not build)"
        elif key in equivalents:
            if r.returncode == 0:
                tally[folder]["equivalent"] += 1
                verdict = "equivalent"
            else:
                wrong_equiv.append(key)
                tally[folder]["killed"] += 1
                verdict = "killed (argued equivalent: the reason is wrong)"
        elif r.returncode == 3:
            tally[folder]["killed"] += 1
            first = re.search(r"\[  FAILED  \] (\S+)", r.stdout + r.stderr)
            verdict = "killed" + (f" by {first.group(1)}" if first else "")
        elif r.returncode == 0:
            tally[folder]["survived"] += 1
            survivors.append(f"{key}: {before.strip()}  ->  {text.strip()}")
            verdict = "SURVIVED"
        else:
            tally[folder]["error"] += 1
            stillborn.append(f"{key} (bazel exit {r.returncode})")
            verdict = f"error (bazel exit {r.returncode})"
        print(f"[{i}/{len(sample)}] {verdict}: {key} ({secs:.0f} s, {len(targets)} targets)",
              flush=True)
    elapsed = int(time.time() - start)
    print()
    total = collections.Counter()
    for folder in sorted(tally):
        t = tally[folder]
        total.update(t)
        judged = t["killed"] + t["survived"] + t["untested"]
        score = f"{100.0 * t['killed'] / judged:.0f} %" if judged else "-"
        print(f"  {folder:10} {t['killed']:3} killed, {t['survived'] + t['untested']:3} survived"
              f" ({t['equivalent']} equivalent, {t['stillborn'] + t['error']} stillborn): {score}")
    for s in survivors:
        print(f"survived: {s}")
    for s in wrong_equiv:
        print(f"argued equivalent, but killed: {s}")
    judged = total["killed"] + total["survived"] + total["untested"]
    pct = 100.0 * total["killed"] / judged if judged else 0.0
    print(f"mutation sample: seed {seed}: {total['killed']} killed, "
          f"{total['survived'] + total['untested']} survived ({total['equivalent']} equivalent "
          f"apart, {total['stillborn'] + total['error']} stillborn) of {len(sample)}: "
          f"{pct:.1f} % killed in {elapsed // 60} min {elapsed % 60} s")
    return 0 if pct >= 90.0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
