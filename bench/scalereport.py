#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/scalereport.py - the scale section from the raw lines of
bench/bench-scale-guest.sh: the KV job fanned out to and in from N links
at once (aggregate GB/s, 10^9 bytes/s, and fairness, the slowest link's
bytes/s over the fastest's), the CONNECT time and kernel memory (KiB)
per link as links grow, the kernel memory per registered GiB, and the
time per descriptor (us) of one request of D descriptors; each curve a
table of medians (min..max) with its log-log slope, each goal "met" or
"not met" from the numbers.

Run alone it writes bench/results-scale.md (make bench-scale):

    bench/scalereport.py --raw RAW --kernel KVER --out bench/results-scale.md [--png PNG]
    bench/scalereport.py --raw RAW --plot-only --png bench/results-scale.png

Raw lines (bench/bench-scale.c): "connect REP N MEDIAN_MS MIN_MS MAX_MS",
"kmem REP WHAT N STAGE SLAB SUNRECLAIM PAGETABLES VMALLOC KSTACK PERCPU"
(KiB), "slabgrow REP WHAT N CACHE KIB", "rdmares REP N STAGE PD CQ QP CM_ID
MR", "links REP DIR N BYTES
SECONDS CPU", "perlink REP DIR N BPS...", "submitted REP DIR N REQUESTS SECONDS", "descs REP OP D REQUESTS BYTES
SECONDS CPU", "regtime REP BYTES REG_MS DEREG_MS", "verified REP MODE DIR N EQUAL
BYTES", "na REP MODE N REASON...", "info KEY VALUE...".
"""
import math
import sys

from benchstats import GIB, MIB, med, report_main, spread

GB = 1e9
DIRS = ["fanout", "fanin"]
# goals and budgets, stated in the report
AGG_MIN = 0.9			# aggregate GB/s at every N >= this x the 1-link figure
FAIR_MIN = 0.8			# slowest link / fastest link, at every N > 1
# Slab per link, both ends (one VM holds both): 256 KiB an end, so that a
# decode engine linked to 128 prefill engines holds at most 32 MiB of slab
# for them; an end's receive ring alone is 32 messages of 4 KiB
SLAB_PER_LINK_KIB = 512
# every counted kernel field per registered GiB: 8 MiB, under 1 % of what
# is registered, the RDMA driver's own page lists included (rxe keeps 16
# bytes per 4 KiB page of an MR: 4 MiB a GiB)
KMEM_PER_GIB_KIB = 8192
FLAT_MAX = 1.25			# time per descriptor at the largest D / at 256, either way
FLAT_FROM = 256


def parse(path):
    """The raw lines as {"info", "links": {(dir, n): [(GB/s, CPU s/GiB)]},
    "fair": {(dir, n): [min/max per-link bytes/s]}, "fairmed": {(dir, n):
    [min/median]}, "fastpos": {(dir, n): [the fastest link's place in the
    submission order, 0..1]}, "submit": {(dir, n): [ms to issue every
    request]}, "connect": {n: [ms]},
    "kmem": {(what, n, rep): {stage: [KiB x 6]}}, "res": {(n, rep): {stage:
    [counts x 5]}}, "regtime": {bytes: [(reg ms, dereg ms)]}, "descs": {(op,
    d): [us per descriptor]}, "verified": {mode: [equal, bytes]}, "na":
    [reason], "grow": {(what, n): {slab cache: [KiB]}}}."""
    p = {"info": {}, "links": {}, "fair": {}, "connect": {}, "kmem": {}, "res": {},
         "regtime": {}, "descs": {}, "verified": {}, "na": [], "grow": {},
         "fairmed": {}, "fastpos": {}, "submit": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        try:
            if f[0] == "info" and len(f) >= 2:
                p["info"][f[1]] = " ".join(f[2:])
            elif f[0] == "connect" and len(f) == 6:
                p["connect"].setdefault(int(f[2]), []).append(float(f[3]))
            elif f[0] == "kmem" and len(f) == 11:
                key = (f[2], int(f[3]), int(f[1]))
                p["kmem"].setdefault(key, {})[f[4]] = [int(x) for x in f[5:]]
            elif f[0] == "rdmares" and len(f) == 9:
                p["res"].setdefault((int(f[2]), int(f[1])), {})[f[3]] = [int(x) for x in f[4:]]
            elif f[0] == "links" and len(f) == 7:
                nbytes, secs, cpu = int(f[4]), float(f[5]), float(f[6])
                p["links"].setdefault((f[2], int(f[3])), []).append(
                    (nbytes / secs / GB, cpu / (nbytes / GIB)))
            elif f[0] == "perlink" and len(f) >= 5:
                bps = [float(x) for x in f[4:]]
                p["fair"].setdefault((f[2], int(f[3])), []).append(min(bps) / max(bps))
                p["fairmed"].setdefault((f[2], int(f[3])), []).append(min(bps) / med(bps))
                # where the fastest link was in the submission order, 0..1
                p["fastpos"].setdefault((f[2], int(f[3])), []).append(
                    bps.index(max(bps)) / len(bps))
            elif f[0] == "submitted" and len(f) == 6:
                p["submit"].setdefault((f[2], int(f[3])), []).append(float(f[5]) * 1000)
            elif f[0] == "descs" and len(f) == 8:
                p["descs"].setdefault((f[2], int(f[3])), []).append(
                    float(f[6]) * 1e6 / (int(f[3]) * int(f[4])))
            elif f[0] == "slabgrow" and len(f) == 6:
                g = p["grow"].setdefault((f[2], int(f[3])), {})
                g.setdefault(f[4], []).append(int(f[5]))
            elif f[0] == "regtime" and len(f) == 5:
                p["regtime"].setdefault(int(f[2]), []).append((float(f[3]), float(f[4])))
            elif f[0] == "verified" and len(f) == 7:
                v = p["verified"].setdefault(f[2], [0, 0])
                v[0] += int(f[5])
                v[1] += int(f[6])
            elif f[0] == "na" and len(f) >= 4:
                p["na"].append(" ".join(f[2:]))
        except (ValueError, ZeroDivisionError):
            p["na"].append("unreadable line: " + line.strip()[:80])
    return p


def slope(points):
    """Least-squares slope of log(y) over log(x) for [(x, y)] with x, y > 0
    (1.0: y grows linearly with x, 0: flat); None with fewer than two."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def sl(v):
    """A slope to two decimals, never "-0.00"."""
    return f"{v:.2f}".replace("-0.00", "0.00")


def verdict(ok):
    return "met" if ok else "not met"


def kmem_deltas(p, what):
    """{n: [[delta KiB x 6] per rep]} of kmem WHAT lines: after - before."""
    out = {}
    for (w, n, _), st in sorted(p["kmem"].items()):
        if w == what and "before" in st and "after" in st:
            out.setdefault(n, []).append([a - b for a, b in zip(st["after"], st["before"])])
    return out


def grow(p, what, n, per, unit, w):
    """The slab caches that grew most (slabgrow lines of WHAT, N), KiB per
    unit (n / per units), median over the repetitions."""
    g = p["grow"].get((what, n))
    if not g:
        return
    top = sorted(((med(v), c) for c, v in g.items()), reverse=True)[:6]
    w(f"- Slab caches that grew most (/proc/slabinfo, KiB per {unit}): " +
      ", ".join(f"{c} {k / per:.1f}" for k, c in top) + ".")


def links_part(p, w):
    """The fan-out / fan-in table and its goals."""
    ns = sorted({n for _, n in p["links"]})
    if not ns:
        w("**Fan-out / fan-in: not measured.**")
        w("")
        return
    w("### Fan-out and fan-in: the KV job to and from N links at once")
    w("")
    w("Fairness: the slowest link's bytes/s over the fastest's; beside it the slowest "
      "over the median link's (a fast few or a slow few).")
    w("")
    w("| links | fan-out GB/s | fan-in GB/s | fan-out / 1 link | fan-in / 1 link | "
      "fairness fan-out | fairness fan-in | slowest / median out / in | "
      "CPU s/GiB fan-out / fan-in | ms to issue every request, out / in |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    m = {(d, n): med([x[0] for x in p["links"].get((d, n), [])]) for d in DIRS for n in ns}
    for n in ns:
        cells = [spread([x[0] for x in p["links"].get((d, n), [])], 4) or "-" for d in DIRS]
        rel = [f"{m[(d, n)] / m[(d, 1)]:.2f}" if m.get((d, 1)) and m[(d, n)] else "-"
               for d in DIRS]
        fair = [spread(p["fair"].get((d, n), []), 2) or "-" for d in DIRS]
        cpu = [med([x[1] for x in p["links"].get((d, n), [])]) for d in DIRS]
        fm = [med(p["fairmed"].get((d, n), [])) for d in DIRS]
        w(f"| {n} | {cells[0]} | {cells[1]} | {rel[0]} | {rel[1]} | {fair[0]} | {fair[1]} | "
          + " / ".join(f"{x:.2f}" if x is not None else "-" for x in fm) + " | "
          + " / ".join(f"{c:.2f}" if c is not None else "-" for c in cpu) + " | "
          + " / ".join(f"{x:.1f}" if x is not None else "-"
                       for x in (med(p["submit"].get((d, n), [])) for d in DIRS)) + " |")
    w("")
    for d in DIRS:
        s = slope([(n, m[(d, n)]) for n in ns])
        if s is not None:
            w(f"- {d}: aggregate GB/s ~ links^{sl(s)} (log-log slope over "
              f"{len(ns)} counts; 0.00 is flat).")
    for d in DIRS:
        base = m.get((d, 1))
        if not base:
            w(f"- Goal, {d} aggregate >= {AGG_MIN}x the 1-link figure: not measured "
              "(no 1-link run).")
            continue
        rel = [(m[(d, n)] / base, n) for n in ns if n > 1 and m[(d, n)]]
        if not rel:
            w(f"- Goal, {d} aggregate >= {AGG_MIN}x the 1-link figure: not measured "
              "(no run with > 1 link).")
            continue
        worst = min(rel)
        w(f"- Goal, {d} aggregate >= {AGG_MIN}x the 1-link figure at every count: worst "
          f"{worst[0]:.2f}x at {worst[1]} links, {verdict(worst[0] >= AGG_MIN)}.")
    for d in DIRS:
        fs = [(med(p["fair"][(d, n)]), n) for n in ns if n > 1 and p["fair"].get((d, n))]
        if not fs:
            w(f"- Goal, {d} fairness >= {FAIR_MIN}: not measured (no run with > 1 link).")
            continue
        worst = min(fs)
        pos = med(p["fastpos"].get((d, worst[1]), []))
        where = (f"; there the fastest link was {pos * 100:.0f}% into the submission order "
                 "(median)" if pos is not None else "")
        w(f"- Goal, {d} fairness (slowest / fastest link's bytes/s, median over "
          f"repetitions) >= {FAIR_MIN} at every count > 1: worst {worst[0]:.2f} at "
          f"{worst[1]} links{where}, {verdict(worst[0] >= FAIR_MIN)}.")
    w("")


def connect_part(p, w):
    """The CONNECT time table."""
    if not p["connect"]:
        w("**CONNECT time per link: not measured.**")
        w("")
        return
    ns = sorted(p["connect"])
    w("### CONNECT time per link as links grow")
    w("")
    w("The hub's N CONNECTs one after the other, each timed; per run the median over its "
      "N CONNECTs, then median (min..max) over the repetitions.  With one link the "
      "median is the run's first CONNECT, which alone pays the address and route "
      "resolution of a fresh process.")
    w("")
    w("| links | CONNECT ms (median of the run) |")
    w("|---:|---:|")
    for n in ns:
        w(f"| {n} | {spread(p['connect'][n], 2)} |")
    w("")
    s = slope([(n, med(p["connect"][n])) for n in ns])
    if s is not None:
        w(f"CONNECT ms ~ links^{sl(s)} (log-log slope; 0.00: a link costs the same "
          "whatever the number already up).")
        w("")


def memlink_part(p, w):
    """Kernel memory and RDMA resources per link, and the budgets."""
    dk = kmem_deltas(p, "links")
    res = {}
    for (n, _), st in sorted(p["res"].items()):
        if "before" in st and "after" in st and min(st["before"] + st["after"]) >= 0:
            res.setdefault(n, []).append([a - b for a, b in zip(st["after"], st["before"])])
    if not dk:
        w("**Kernel memory per link: not measured.**")
        w("")
        return
    w("### Kernel memory and RDMA resources per link")
    w("")
    w("`/proc/meminfo` and `rdma resource show` (every device) before the hub's first "
      "CONNECT and after its last, all engines made and registered before; per link = "
      "delta / N, both ends of the link (the hub's side and the peer's) together; median "
      "over the repetitions, KiB.  Kernel total = Slab + PageTables + VmallocUsed + "
      "KernelStack + Percpu (SUnreclaim is part of Slab).")
    w("")
    w("| links | Slab KiB/link | SUnreclaim | PageTables | VmallocUsed | KernelStack | "
      "Percpu | kernel total KiB/link | PD / CQ / QP / cm_id / MR per link |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = {}
    for n in sorted(dk):
        per = [med([d[i] for d in dk[n]]) / n for i in range(6)]
        tot[n] = (per[0] + per[2] + per[3] + per[4] + per[5], per[0])
        r = res.get(n)
        rcell = " / ".join(f"{med([x[i] for x in r]) / n:.2f}" for i in range(5)) if r else "-"
        w(f"| {n} | " + " | ".join(f"{v:.1f}" for v in per) + f" | {tot[n][0]:.1f} | {rcell} |")
    w("")
    big = max(dk)
    if big < 8:
        w(f"- Memory budgets per link: not judged (largest count {big} links; the "
          "budgets are judged at 8 links or more, where one link's noise is diluted).")
    else:
        w(f"- Budget, Slab per link (both ends) <= {SLAB_PER_LINK_KIB} KiB, 256 KiB an end "
          f"(at {big} links): "
          f"{tot[big][1]:.1f} KiB, {verdict(tot[big][1] <= SLAB_PER_LINK_KIB)}.")
        w(f"- Kernel total per link at {big} links: {tot[big][0]:.1f} KiB (no budget: "
          "most of it is rxe's queues, a NIC's would differ).")
    grow(p, "links", big, big, "link", w)
    w("")


def memreg_part(p, w):
    """Kernel memory per registered GiB, and its budget."""
    dk = kmem_deltas(p, "reg")
    if not dk:
        w("**Kernel memory per registered GiB: not measured.**")
        w("")
        return
    w("### Kernel memory per registered GiB")
    w("")
    w("One engine, host memory touched first (its page tables exist before), then one "
      "`hixl_register_mem()`; `/proc/meminfo` before and after, per GiB = delta / GiB "
      "registered, median over the repetitions, KiB; left after deregistration: the "
      "kernel total after `hixl_deregister_mem()` less before.")
    w("")
    w("| registered | Slab KiB/GiB | SUnreclaim | PageTables | VmallocUsed | KernelStack | "
      "Percpu | kernel total KiB/GiB | left after dereg, KiB | REG_MEM ms | DEREG ms |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst = None
    for nbytes in sorted(dk):
        g = nbytes / GIB
        per = [med([d[i] for d in dk[nbytes]]) / g for i in range(6)]
        total = per[0] + per[2] + per[3] + per[4] + per[5]
        worst = total if worst is None else max(worst, total)
        left = []
        for (wh, n, _), st in p["kmem"].items():
            if wh == "reg" and n == nbytes and "dereg" in st and "before" in st:
                d = [a - b for a, b in zip(st["dereg"], st["before"])]
                left.append(d[0] + d[2] + d[3] + d[4] + d[5])
        rt = p["regtime"].get(nbytes, [])
        w(f"| {nbytes // MIB} MiB | " + " | ".join(f"{v:.1f}" for v in per) +
          f" | {total:.1f} | {spread(left, 0) or '-'} | "
          f"{spread([x[0] for x in rt], 1) or '-'} | {spread([x[1] for x in rt], 1) or '-'} |")
    w("")
    w(f"- Budget, kernel total per registered GiB <= {KMEM_PER_GIB_KIB} KiB (under 1 %, the "
      "RDMA driver's page lists included): "
      f"{worst:.1f} KiB, {verdict(worst <= KMEM_PER_GIB_KIB)}.")
    w("")


def descs_part(p, w):
    """Time per descriptor against descriptors per request, and flatness."""
    ds = sorted({d for _, d in p["descs"]})
    if not ds:
        w("**Time per descriptor: not measured.**")
        w("")
        return
    w("### Time per descriptor against descriptors per request")
    w("")
    w("One `hixl_transfer_async()` request of D descriptors (4 KiB blocks, scattered on "
      "both sides of one link) and its wait, repeated one after the other below 16,384 "
      "descriptors (until 16,384 descriptors or 64 requests); us per descriptor = "
      "seconds / (D x requests) x 10^6, median (min..max).  D = 65,536 is HIXL_MAX_DESCS, the most one TRANSFER takes "
      "(the library would split a longer request).")
    w("")
    w("| descriptors | WRITE us/descriptor | READ us/descriptor | WRITE ms a request | "
      "READ ms a request |")
    w("|---:|---:|---:|---:|---:|")
    for d in ds:
        cells = [spread(p["descs"].get((op, d), []), 2) or "-" for op in ("write", "read")]
        tot = [med(p["descs"].get((op, d), [])) for op in ("write", "read")]
        w(f"| {d} | {cells[0]} | {cells[1]} | " +
          " | ".join(f"{t * d / 1000:.1f}" if t is not None else "-" for t in tot) + " |")
    w("")
    top = ds[-1]
    for op in ("write", "read"):
        s = slope([(d, med(p["descs"].get((op, d), []))) for d in ds if d >= FLAT_FROM])
        if s is not None:
            w(f"- {op.upper()}: us/descriptor ~ D^{sl(s)} from {FLAT_FROM} descriptors on "
              "(log-log slope; 0.00 is flat).")
        a, b = med(p["descs"].get((op, FLAT_FROM), [])), med(p["descs"].get((op, top), []))
        if a and b and top > FLAT_FROM:
            w(f"- Goal, {op.upper()} time per descriptor flat past the first hundred "
              f"({top} descriptors within {FLAT_MAX}x of {FLAT_FROM}, either way): "
              f"{b:.2f} / {a:.2f} us = {b / a:.2f}x, "
              f"{verdict(1 / FLAT_MAX <= b / a <= FLAT_MAX)}.")
        else:
            w(f"- Goal, {op.upper()} time per descriptor flat past the first hundred: not "
              f"measured (needs {FLAT_FROM} and a larger count).")
    if top < 65536:
        w(f"- The largest count measured is {top}, not 65,536 (SCALE_DESCS).")
    w("")


def section(p, heading="## Scale: links, registered memory, descriptors per request"):
    """The report's section, a list of markdown lines."""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-scale-guest.sh` in one VM boot, engines on 10.77.0.1 (rxe0), "
      "Transport `rdma`, no staging pool (every descriptor a work request), "
      f"settings: {info.get('config', '?')}.  Fan-out / fan-in: a hub engine and N peer "
      "engines of one process; the hub WRITEs (fan-out) or READs (fan-in) the KV job, "
      "the same total bytes whatever N (each link total / N, its 32 KiB blocks scattered "
      "on both sides, requests of at most 256 descriptors), every request of every link "
      "issued before the first wait; a link's bytes/s counts from the first submission "
      "to its last request's completion; fairness is the slowest link's over the "
      "fastest's.  Every moved byte is compared with its source afterwards.  Medians "
      "(min..max) of the repetitions (bench/bench-scale.c's header has the details).")
    w("")
    w(f"Guest: {info.get('kernel', '?')}, {info.get('ncpu', '?')} vCPUs under QEMU/TCG, "
      f"{int(info.get('memtotal_kib', '0')) >> 10} MiB: absolute numbers mean nothing "
      "off this machine; Soft-RoCE's queues live in vmalloc memory, a NIC's in its own "
      "and host memory, so the per-link memory is rxe's as much as hixl's.")
    w("")
    if info.get("skipped"):
        w(f"Not measured: {info['skipped']}.")
        w("")
        return out
    links_part(p, w)
    connect_part(p, w)
    memlink_part(p, w)
    memreg_part(p, w)
    descs_part(p, w)
    for mode, (eq, tot) in sorted(p["verified"].items()):
        w(f"Bytes verified ({mode}): {eq} of {tot}" +
          (", every byte." if eq == tot else ", NOT every byte: the run failed."))
    nf = info.get("failed_measurements")
    if nf and nf != "0":
        w(f"{nf} run(s) of bench-scale failed.")
    for reason in sorted(set(p["na"])):
        w(f"- failed: {reason}")
    w("")
    return out


def plot(p, png):
    """One PNG: aggregate GB/s against links, CONNECT ms and kernel KiB per
    link against links, us per descriptor against descriptors per request."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(13, 3.8))
    for d, color in (("fanout", "tab:blue"), ("fanin", "tab:green")):
        ns = sorted(n for dd, n in p["links"] if dd == d)
        if ns:
            ys = [med([x[0] for x in p["links"][(d, n)]]) for n in ns]
            ax[0].plot(ns, ys, marker="o", color=color, label=d)
    ax[0].set_title("aggregate GB/s against links", fontsize=10)
    ax[0].set_xlabel("links")
    ax[1].set_xlabel("links")
    ax[2].set_xlabel("descriptors per request")
    dk = kmem_deltas(p, "links")
    if p["connect"]:
        ns = sorted(p["connect"])
        ax[1].plot(ns, [med(p["connect"][n]) for n in ns], marker="o", color="tab:red",
                   label="CONNECT ms")
    if dk:
        ns = sorted(dk)
        ax[1].plot(ns, [med([d[0] + d[2] + d[3] + d[4] + d[5] for d in dk[n]]) / n
                        for n in ns], marker="s", color="tab:purple",
                   label="kernel KiB per link")
    ax[1].set_title("per link against links", fontsize=10)
    for op, color in (("write", "tab:blue"), ("read", "tab:green")):
        ds = sorted(d for o, d in p["descs"] if o == op)
        if ds:
            ax[2].plot(ds, [med(p["descs"][(op, d)]) for d in ds], marker="o", color=color,
                       label=op.upper())
    ax[2].set_title("us per descriptor against descriptors per request", fontsize=10)
    for a in ax:
        a.set_xscale("log", base=2)
        a.set_yscale("log")
        a.grid(True, alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    fig.suptitle("hixl scale curves (QEMU/TCG, rxe; medians)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(png, dpi=100)


def main():
    """report_main()'s command line, and --png PNG (the plot) beside it;
    --plot-only --raw RAW --png PNG writes the plot alone."""
    argv = sys.argv[1:]
    png = None
    if "--png" in argv:
        i = argv.index("--png")
        png = argv[i + 1] if i + 1 < len(argv) else sys.exit("scalereport: --png needs a path")
        del argv[i:i + 2]
    if "--plot-only" in argv:
        if not png or "--raw" not in argv or argv.index("--raw") + 1 >= len(argv):
            sys.exit("scalereport: --plot-only needs --raw RAW --png PNG")
        plot(parse(argv[argv.index("--raw") + 1]), png)
        return
    sys.argv[1:] = argv
    report_main("scalereport", parse, section,
                lambda p: p["links"] or p["descs"] or p["kmem"] or p["info"].get("skipped"),
                "Scale: links, registered memory, descriptors per request", "bench-scale")
    if png:
        plot(parse(sys.argv[sys.argv.index("--raw") + 1]), png)


if __name__ == "__main__":
    main()
