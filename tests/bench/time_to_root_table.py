#!/usr/bin/env python3
"""The table of tests/bench/qemu_time_to_root.sh: per method, medians with min..max of
  provisioning   udev's coldplug trigger finished -> the method's provisioning ended
  RDMA share     udev's coldplug trigger finished -> dracut configured the interface
  whole          kernel start -> the NFS root's init runs (uptime)
the modules loaded by then, and the ratios and goals of #15.

Input: one line per boot, "METHOD ROUND TRIGGER PROVISIONED ONLINE ROOT MODULES RDMA-LIST"
(uptimes in seconds, "-" when a mark is missing)."""

import statistics
import sys

NAMES = {"A": "rdma-provision", "B": "manual procedure", "C": "rdma-core's way",
         "F": "floor (kernel only)"}


def spread(values):
    if not values:
        return "(none)", None
    med = statistics.median(values)
    return "%6.2f (%5.2f..%5.2f)" % (med, min(values), max(values)), med


def main(path):
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 7:
                continue
            rows.setdefault(p[0], []).append(p)
    print("%-22s %3s  %-22s %-22s %-22s %s" % (
        "method", "n", "provisioning (s)", "RDMA share (s)", "whole: to root (s)",
        "modules at root (RDMA)"))
    med = {}
    for m in "ABCF":
        boots = rows.get(m, [])

        def col(fn):
            out = []
            for p in boots:
                try:
                    out.append(fn(p))
                except ValueError:
                    pass  # a missing mark: that boot does not count for the column
            return out

        prov, mprov = spread(col(lambda p: float(p[3]) - float(p[2])))
        share, mshare = spread(col(lambda p: float(p[4]) - float(p[2])))
        whole, mwhole = spread(col(lambda p: float(p[5])))
        mods = sorted({p[6] for p in boots})
        rdma = sorted({p[7] if len(p) > 7 else "" for p in boots})
        ok = sum(1 for p in boots if p[5] != "-")
        med[m] = (mshare, mwhole)
        print("%-22s %3s  %-22s %-22s %-22s %s (%s)" % (
            "%s %s" % (m, NAMES[m]), "%d/%d" % (ok, len(boots)), prov, share, whole,
            "/".join(mods), " | ".join(r.replace(",", " ").strip() for r in rdma)))

    def ratio(a, b, i):
        if med.get(a, (None, None))[i] and med.get(b, (None, None))[i]:
            return med[a][i] / med[b][i]
        return None

    def shown(r):
        return "%.2fx" % r if r is not None else "n/a"

    print("ratios of medians: RDMA share B/A %s, C/A %s, A/F %s; whole B/A %s, C/A %s, A/F %s" % (
        shown(ratio("B", "A", 0)), shown(ratio("C", "A", 0)), shown(ratio("A", "F", 0)),
        shown(ratio("B", "A", 1)), shown(ratio("C", "A", 1)), shown(ratio("A", "F", 1))))
    ba, af = ratio("B", "A", 0), ratio("A", "F", 0)
    wb, wc = ratio("B", "A", 1), ratio("C", "A", 1)
    verdict = lambda c: "met" if c else "NOT met"  # noqa: E731
    print("goal RDMA share A <= 1/3 of B: %s (B/A %s)" % (
        verdict(ba is not None and ba >= 3), shown(ba)))
    print("goal RDMA share A within 1.2x of the floor: %s (A/F %s)" % (
        verdict(af is not None and af <= 1.2), shown(af)))
    print("goal whole time to root A faster than B and C: %s (B/A %s, C/A %s)" % (
        verdict(wb is not None and wc is not None and wb > 1 and wc > 1), shown(wb), shown(wc)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
