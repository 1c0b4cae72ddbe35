#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two bench/results.json (bench/bench-results.py; schema in
docs/developing.md, "Benchmarks"): per table and point, each hixl/peer ratio
in A and in B and their change, and which points got worse by more than the
noise their repetitions show.

Usage:
  bench-diff.py [--flagged] [--absolute] A.json B.json

A point is worse beyond its spread when the ratio's band in B lies wholly on
the worse side of its band in A.  A run's band at a point is the ratio of
medians scaled by the hixl tool's own spread there: from
ratio * min/median to ratio * max/median of the hixl tool's repetitions
(the peer's median stays: the peer is there to cancel how fast the machine
was during the run).  Worse is lower for a table whose "better" is "higher"
(throughput, submission rate) and higher for "lower" (CPU per GiB,
registration time).  --absolute compares the hixl tools' own values instead
of ratios (two runs on the same machine): worse when B's min..max lies
wholly on the worse side of A's.

Prints one line per point and pair (--flagged: only the flagged ones), each
table's geometric means A -> B over the points both runs have, and "N worse beyond their spread of M
compared".  Exit status: 0 nothing flagged, 1 some point flagged, 2 usage
or schema error.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_json  # noqa: E402


def label(table, pt):
    out = []
    for k in table["key"]:
        v = pt[k]
        if k in ("block", "size") and isinstance(v, int):
            v = (f"{v >> 20} MiB" if v >= 1 << 20 and not v & ((1 << 20) - 1) else
                 f"{v >> 10} KiB" if v >= 1 << 10 and not v & 1023 else f"{v} B")
        elif k == "batch":
            v = f"batch {v}"
        elif k == "op":
            v = str(v).upper()
        out.append(str(v))
    return " ".join(out)


def band(pt, h, p, absolute):
    """(value, lo, hi) of a point's pair: the ratio and its band, or with
    absolute the hixl tool's median, min and max."""
    vals = pt.get("values", {})
    if h not in vals:
        return None
    v = vals[h]
    if absolute:
        return v["median"], v["min"], v["max"]
    r = pt.get("ratios", {}).get(results_json.pair_name(h, p))
    if r is None:
        return None
    if not v["median"]:
        return r, r, r
    return r, r * v["min"] / v["median"], r * v["max"] / v["median"]


def compare(name, ta, tb, args, out):
    """Print one table's comparison; returns (flagged, compared)."""
    higher = ta["better"] == "higher"
    pa = {tuple(p[k] for k in ta["key"]): p for p in ta["points"]}
    pb = {tuple(p[k] for k in tb["key"]): p for p in tb["points"]}
    what = "hixl values" if args.absolute else "ratio"
    out(f"== {name}: {ta['title']} ({ta['unit']}, {ta['better']} is better), {what} A -> B")
    flagged = compared = 0
    pairs = ta["pairs"]
    if args.absolute:   # each hixl tool once
        seen, pairs = set(), []
        for h, p in ta["pairs"]:
            if h not in seen:
                seen.add(h)
                pairs.append([h, p])
    for k, a in pa.items():
        b = pb.get(k)
        if b is None:
            continue
        for h, p in pairs:
            x, y = band(a, h, p, args.absolute), band(b, h, p, args.absolute)
            if not x or not y:
                continue
            compared += 1
            worse = y[2] < x[1] if higher else y[1] > x[2]
            flagged += worse
            if worse or not args.flagged:
                what = h if args.absolute else results_json.pair_name(h, p)
                change = f"x{y[0] / x[0]:.2f}" if x[0] else ""
                line = f"  {label(ta, a):28} {what:22} {x[0]:8.2f} -> {y[0]:8.2f} {change:>6}"
                if worse:
                    line += (f"  WORSE beyond spread: B {y[1]:.2f}..{y[2]:.2f}, "
                             f"A {x[1]:.2f}..{x[2]:.2f}")
                out(line)
    only_a = [label(ta, pa[k]) for k in pa if k not in pb]
    only_b = [label(tb, pb[k]) for k in pb if k not in pa]
    if only_a:
        out(f"  points only in A: {', '.join(only_a)}")
    if only_b:
        out(f"  points only in B: {', '.join(only_b)}")
    if not args.absolute:
        # the summary's geometric means, over the points both runs have
        common = {}
        for k, a in pa.items():
            if k not in pb:
                continue
            for h, p in ta["pairs"]:
                name = results_json.pair_name(h, p)
                ra, rb = a["ratios"].get(name), pb[k]["ratios"].get(name)
                if ra and rb:
                    common.setdefault((str(a[ta["key"][0]]), name), []).append((ra, rb))
        for (g, name), v in sorted(common.items()):
            ga = results_json.geomean([x for x, _ in v])
            gb = results_json.geomean([y for _, y in v])
            out(f"  geomean {g:20} {name:22} {ga:8.2f} -> {gb:8.2f}  x{gb / ga:.2f}"
                f" ({len(v)} points in both)")
    return flagged, compared


def describe(doc):
    return (f"{'imported from ' + doc['imported_from'] if doc.get('imported_from') else 'raw lines'}, "
            f"kernel {doc.get('kernel', '?')}, {doc.get('repetitions', '?')} repetitions")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--flagged", action="store_true", help="print only the flagged points")
    ap.add_argument("--absolute", action="store_true",
                    help="compare the hixl tools' own values, not ratios")
    args = ap.parse_args()
    docs = []
    for path in (args.a, args.b):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"bench-diff: {path}: {e}", file=sys.stderr)
            return 2
        errs = results_json.check(doc)
        if errs:
            print(f"bench-diff: {path}: " + "; ".join(errs[:5]), file=sys.stderr)
            return 2
        docs.append(doc)
    a, b = docs
    print(f"A: {args.a}: {describe(a)}")
    print(f"B: {args.b}: {describe(b)}")
    flagged = compared = 0
    order = [n for n, _ in results_json.TABLES]
    for name in sorted(a["tables"], key=lambda n: (order.index(n) if n in order else len(order), n)):
        ta, tb = a["tables"][name], b["tables"].get(name)
        if tb is None:
            print(f"== {name}: only in A")
            continue
        f, c = compare(name, ta, tb, args, print)
        flagged += f
        compared += c
    for name in b["tables"]:
        if name not in a["tables"]:
            print(f"== {name}: only in B")
    print(f"{flagged} worse beyond their spread of {compared} compared")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
