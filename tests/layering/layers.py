#!/usr/bin/env python3
"""The layering of provision/ as the build enforces it (run by tests/run.sh):

  * every #include "provision/<folder>/..." points down the stack or sideways, never up:
    the order of the stages is written once, in rules/layers.bzl (PROVISION_LAYERS),
    whose layer_visibility() lets Bazel refuse a dependency up the stack as well;
  * every target of provision/<folder>/BUILD.bazel says who may use it with
    layer_visibility("<folder>") (or a narrower list), never //visibility:public;
  * no include cycle between files;
  * no file of provision/ over MAX_LINES lines.

Then the checker checks itself: a planted back arrow, a planted cycle, a planted
oversize file and a planted public target must each fail it. Prints one line per finding and "N passed, N failed".

  tests/layering/layers.py [ROOT]     (ROOT: the repository, by default this one)
"""
import os
import re
import shutil
import sys
import tempfile



def read_layers(root):
    """PROVISION_LAYERS of rules/layers.bzl, lowest first. A folder may include its own
    and any folder before it."""
    with open(os.path.join(root, "rules", "layers.bzl"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"PROVISION_LAYERS = \[([^\]]*)\]", text)
    return re.findall(r'"([a-z_]+)"', m.group(1)) if m else []


LAYERS = read_layers(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MAX_LINES = 450
INCLUDE = re.compile(r'^\s*#\s*include\s+"(provision/[^"]+)"', re.M)


def sources(root):
    base = os.path.join(root, "provision")
    for folder, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith((".cc", ".h")):
                path = os.path.join(folder, f)
                yield os.path.relpath(path, root), path


def layer_of(rel):
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 else None  # provision/version.h: no layer, a leaf


def findings(root):
    out = []
    graph = {}
    for rel, path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > MAX_LINES:
            out.append(f"{rel}: {lines} lines, over {MAX_LINES}: split it")
        me = layer_of(rel)
        if me is not None and me not in LAYERS:
            out.append(f"{rel}: folder {me!r} is not in PROVISION_LAYERS (rules/layers.bzl)")
            continue
        graph[rel] = []
        for inc in INCLUDE.findall(text):
            graph[rel].append(inc)
            other = layer_of(inc)
            if other is None or me is None:
                continue
            if other not in LAYERS:
                out.append(f"{rel}: includes {inc}, of no known layer")
            elif LAYERS.index(other) > LAYERS.index(me):
                out.append(f"{rel}: includes {inc}: {me}/ may not reach up to {other}/ "
                           f"(order: {' < '.join(LAYERS)})")
    # Include cycles between files (#pragma once hides them from the compiler).
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                out.append("include cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt in graph and state.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [])
    out += visibility_findings(root)
    return out


VISIBILITY = re.compile(r"visibility\s*=\s*([^\n]+)")


def visibility_findings(root):
    """A target of a layer's package visible to all (or to layers below) escapes the
    order; each must name layer_visibility of its own folder, or a list without
    //visibility:public."""
    out = []
    for layer in LAYERS:
        path = os.path.join(root, "provision", layer, "BUILD.bazel")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in VISIBILITY.finditer(text):
            value = m.group(1).strip().rstrip(",")
            line = text.count("\n", 0, m.start()) + 1
            if value.startswith("layer_visibility("):
                if value != f'layer_visibility("{layer}")':
                    out.append(f"provision/{layer}/BUILD.bazel:{line}: {value}: the layer is {layer}")
            elif "//visibility:public" in value:
                out.append(f"provision/{layer}/BUILD.bazel:{line}: //visibility:public: "
                           f'use layer_visibility("{layer}")')
    return out


def self_test(root):
    """Each planted fault must be found; returns the faults the checker missed."""
    missed = []
    plants = {
        "back arrow": ("provision/base/strings.cc", '\n#include "provision/cli/commands.h"\n'),
        "oversize": ("provision/base/result.cc", "\n" * (MAX_LINES + 1)),
        "cycle": ("provision/base/result.h", '\n#include "provision/base/strings.h"\n'
                  '#include "provision/base/result.h"\n'),
        "public target": ("provision/plan/BUILD.bazel",
                          '\ncc_library(name = "x", visibility = ["//visibility:public"])\n'),
    }
    for name, (rel, text) in plants.items():
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(root, "provision"), os.path.join(tmp, "provision"))
            shutil.copytree(os.path.join(root, "rules"), os.path.join(tmp, "rules"),
                            ignore=shutil.ignore_patterns("*.tar*", "*.zip"))
            with open(os.path.join(tmp, rel), "a", encoding="utf-8") as f:
                f.write(text)
            if not findings(tmp):
                missed.append(f"self-test: the planted {name} in {rel} was not found")
    return missed


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    if len(LAYERS) < 2:
        print("rules/layers.bzl: no PROVISION_LAYERS list read; nothing could be checked")
        print("0 passed, 2 failed")
        return 1
    found = findings(root)
    missed = self_test(root)
    for line in found + missed:
        print(line)
    failed = (1 if found else 0) + (1 if missed else 0)
    print(f"{2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
