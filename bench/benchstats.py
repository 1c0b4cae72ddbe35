# SPDX-License-Identifier: GPL-2.0
"""The numbers of a benchmark report, one way for every report
(bench-results.py, localreport.py, railsreport.py): the median and spread
of repetitions, a ratio of medians, a geometric mean, a block size."""
import math
import statistics

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
