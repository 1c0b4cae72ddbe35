#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/tablereport.py - the region-table section from the raw lines of
bench/bench-table-guest.sh: a CONNECT's wall time against the number of
registrations on each side (1 to 10,000), its time per region, how it
grows (the log-log slope between the two largest counts: 1.0 is linear)
and the goal (10,000 regions a side connect within 1 s).

Run alone it writes bench/results-table.md (make bench-table):

    bench/tablereport.py --raw RAW --kernel KVER --out bench/results-table.md

Raw lines: "table REP REGIONS CONNECT_MS REG_MS CPU_SECONDS"
(bench/bench-table.c), "info KEY VALUE...".
"""
import math

from benchstats import med, report_main, spread

GOAL_REGIONS, GOAL_MS = 10000, 1000.0


def parse(path):
    """{"info": {key: value}, "runs": {regions: [(connect ms, reg ms, cpu s)]}}"""
    info, runs = {}, {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) >= 2 and f[0] == "info":
            info[f[1]] = " ".join(f[2:])
        elif len(f) == 6 and f[0] == "table":
            runs.setdefault(int(f[2]), []).append((float(f[3]), float(f[4]), float(f[5])))
    return {"info": info, "runs": runs}


def slope(p):
    """log(connect ms) growth over log(regions) between the two largest
    counts, None with fewer than two counts >= 100."""
    big = sorted(n for n in p["runs"] if n >= 100)
    if len(big) < 2:
        return None
    n0, n1 = big[-2], big[-1]
    t0 = med([r[0] for r in p["runs"][n0]])
    t1 = med([r[0] for r in p["runs"][n1]])
    if not t0 or not t1:
        return None
    return math.log(t1 / t0) / math.log(n1 / n0)


def section(p, heading="## Region tables: CONNECT time against registrations per side"):
    out = [heading, "",
           "Two engines of one process, each with N registrations of one 4 KiB page "
           "(bench/bench-table.c); the CONNECT returns when both tables are exchanged. "
           "Median (min..max) of the repetitions; per region: the median over N.", "",
           "| regions a side | CONNECT ms | per region, us | 2 x N REG_MEMs, ms | CPU s (whole VM) |",
           "|---:|---:|---:|---:|---:|"]
    for n in sorted(p["runs"]):
        r = p["runs"][n]
        conn = med([x[0] for x in r])
        out.append(f"| {n} | {spread([x[0] for x in r])} | {conn * 1000.0 / n:.0f} | "
                   f"{spread([x[1] for x in r])} | {spread([x[2] for x in r], 2)} |")
    s = slope(p)
    out.append("")
    if s is not None:
        out.append(f"Growth between the two largest counts: CONNECT time ~ regions^{s:.2f} "
                   "(1.00 is linear).")
    goal = p["runs"].get(GOAL_REGIONS)
    if goal:
        t = med([x[0] for x in goal])
        verdict = "met" if t <= GOAL_MS else "not met"
        out.append(f"Goal: {GOAL_REGIONS} regions a side connect within {GOAL_MS:.0f} ms: "
                   f"{t:.0f} ms, {verdict}.")
    out.append("")
    return out


def main():
    report_main("tablereport", parse, section, lambda p: p["runs"],
                "Region tables: what registrations cost a CONNECT", "bench-table")


if __name__ == "__main__":
    main()
