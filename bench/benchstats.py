# SPDX-License-Identifier: GPL-2.0
"""The numbers of a benchmark report, one way for every report
(bench-results.py, localreport.py, railsreport.py): the median and spread
of repetitions, a ratio of medians, a geometric mean, a block size; and
the command line of a section's report run alone (report_main())."""
import argparse
import math
import statistics
import sys

MIB = 1 << 20
GIB = 1 << 30


def med(v):
    """Median of the values that are not None; None when there are none."""
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def spread(v, digits=1):
    """ "median (min..max)" of the repetitions, None without any."""
    v = [x for x in v if x is not None]
    if not v:
        return None
    return f"{med(v):.{digits}f} ({min(v):.{digits}f}..{max(v):.{digits}f})"


def ratio(a, b):
    """a / b to two decimals, "-" when either is missing (or b is 0)."""
    return f"{a / b:.2f}" if a and b else "-"


def geomean(v):
    """Geometric mean of the positive values, None without any."""
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def size_name(b):
    """Bytes as "N MiB" from 1 MiB up, else "N KiB"."""
    return f"{b >> 20} MiB" if b >= MIB else f"{b >> 10} KiB"


def report_main(name, parse, section, measured, title, target, in_make_bench=True):
    """main() of a section's report run alone (bench/bench.sh's
    guest_report): --raw RAW --kernel KVER --out OUT [--host-load L]
    [--vm-seconds S]; exits with an error when measured(parse(RAW)) is
    false; OUT: "# title", the run's line (make target; in_make_bench:
    whether it says `make bench` measures the same), section(p,
    "## Results")."""
    ap = argparse.ArgumentParser(prog=name)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--host-load", help="the host's 1-minute load average at start / end")
    ap.add_argument("--vm-seconds", type=int)
    a = ap.parse_args()
    p = parse(a.raw)
    if not measured(p):
        sys.exit(f"{name}: no results in {a.raw}")
    lines = [f"# {title}", "",
             f"`make {target}` (`bench/bench.sh {target[len('bench-'):]}`): one boot of "
             f"Debian's {a.kernel} under QEMU/TCG, hixl.ko built against its headers" +
             ("; `make bench` measures the same in its own boot (bench/results.md)."
              if in_make_bench else "; not part of `make bench`.") +
             (f"  VM run: {a.vm_seconds} s." if a.vm_seconds else "") +
             (f"  Host load (1 min) at start / end: {a.host_load}." if a.host_load else ""),
             ""]
    lines += section(p, "## Results")
    open(a.out, "w").write("\n".join(lines))
