#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The latency tables of `make bench-lat` (bench/results-lat.md) and of
`make bench` (a section of bench/results.md, through bench-results.py
--lat): the raw lines of bench/bench-lat-guest.sh.

Raw lines:
  lat REP TOOL OP SIZE N P50_US P99_US MEAN_US MIN_US MAX_US CPU_SECONDS SECONDS
  res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS
  na REP TOOL OP BLOCK BATCH REASON...
  stage TOOL OP SIZE STAGE N P50_US   (bench/latstages.py: a traced run)
  info KEY VALUE...

Usage (results-lat.md):
  latreport.py --raw RAW --machine M --kernel K [--vm-seconds N] --out results-lat.md

As a module: parse(path) -> data; section(data) -> markdown lines;
summary(data) -> {name: ratio} (for results.json).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchstats  # noqa: E402
from benchstats import med  # noqa: E402

GIB = 1 << 30
MIB = 1 << 20
LAT_TOOLS = ["hixl-poll", "hixl-nopoll", "perftest"]
KV_TOOLS = ["kverbs", "kverbs-gap20", "kverbs-gap50"]
BW_TOOLS = ["hixl-sync-poll", "hixl-sync-nopoll", "perftest"]


def num(x):
    """a finite float, or None (perftest prints "inf" when its timing failed)"""
    try:
        v = float(x)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse(path):
    """{'info': {}, 'lat': {(op, size): {tool: [(p50, p99, cpu_us_per_op)]}},
    'bw': {op: {tool: [(MiB/s, CPU s/GiB)]}}, 'na': [...],
    'stages': {(op, size): {tool: {stage: p50_us}}}}"""
    d = {"info": {}, "lat": {}, "bw": {}, "na": [], "stages": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            d["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "lat" and len(f) == 13:
            _, rep, tool, op, size, n, p50, p99, mean, lo, hi, cpu, secs = f
            cpu_op = num(cpu) / int(n) * 1e6 if num(cpu) is not None else None
            if num(p50) is None or num(p99) is None:
                d["na"].append(line.strip() + " (not finite: left out)")
                continue
            d["lat"].setdefault((op, int(size)), {}).setdefault(tool, []).append(
                (num(p50), num(p99), cpu_op))
        elif f[0] == "res" and len(f) == 9:
            _, rep, tool, op, block, batch, nbytes, secs, cpu = f
            d["bw"].setdefault(op, {}).setdefault(tool, []).append(
                (int(nbytes) / float(secs) / MIB, float(cpu) / (int(nbytes) / GIB)))
        elif f[0] == "stage" and len(f) == 7 and num(f[6]) is not None:
            _, tool, op, size, name, n, p50 = f
            d["stages"].setdefault((op, int(size)), {}).setdefault(tool, {})[name] = num(p50)
        elif f[0] == "na":
            d["na"].append(" ".join(f[1:]))
    return d


def spread(v, digits=1):
    """benchstats.spread(), a lone value without its range, "n/a" for none."""
    v = [x for x in v if x is not None]
    if len(v) == 1:
        return f"{v[0]:.{digits}f}"
    return benchstats.spread(v, digits) or "n/a"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def size_name(b):
    return f"{b} B" if b < 1024 else f"{b >> 10} KiB"


def _cells(t, tool, i):
    """One table cell: field i of a point's runs of tool, median (min..max)."""
    return spread([x[i] for x in t.get(tool, [])])


def _lat(d, key, tool, i):
    return med([x[i] for x in d["lat"].get(key, {}).get(tool, [])])


def _rtt(op, v):
    # ib_write_lat prints half of its ping-pong's round trip; ib_read_lat a whole READ
    return None if v is None else (2 * v if op == "write" else v)


def summary(data):
    """The summary ratios, hixl / peer (latency: below 1 is better; throughput:
    above 1 is better; CPU: below 1 is cheaper)."""
    s = {}
    for (op, size) in sorted(data["lat"]):
        k = (op, size)
        pp50, pp99 = _lat(data, k, "perftest", 0), _lat(data, k, "perftest", 1)
        for t in ("hixl-poll", "hixl-nopoll"):
            tag = f"lat_{op}_{size}B_{t.split('-')[1]}"
            h50, h99 = _lat(data, k, t, 0), _lat(data, k, t, 1)
            if h50 is not None and pp50:
                s[tag + "_p50_vs_perftest"] = round(h50 / pp50, 3)
                s[tag + "_p50_vs_perftest_rtt"] = round(h50 / _rtt(op, pp50), 3)
            if h99 is not None and pp99:
                s[tag + "_p99_vs_perftest"] = round(h99 / pp99, 3)
        h50 = _lat(data, k, "hixl-poll", 0)
        for t in KV_TOOLS:
            kv = _lat(data, k, t, 0)
            if kv is None:
                continue
            name = t.replace("-", "_")
            if pp50:
                s[f"{name}_{op}_{size}B_p50_vs_perftest_rtt"] = round(kv / _rtt(op, pp50), 3)
            if h50 is not None:
                s[f"lat_{op}_{size}B_poll_p50_vs_{name}"] = round(h50 / kv, 3)
    for op, tools in sorted(data["bw"].items()):
        p = med([x[0] for x in tools.get("perftest", [])])
        pc = med([x[1] for x in tools.get("perftest", [])])
        for t in ("hixl-sync-poll", "hixl-sync-nopoll"):
            h = med([x[0] for x in tools.get(t, [])])
            hc = med([x[1] for x in tools.get(t, [])])
            tag = f"sync_4KiB_b1_{op}_{t.split('-')[2]}"
            if h is not None and p:
                s[tag + "_vs_perftest"] = round(h / p, 3)
            if hc is not None and pc:
                s[tag + "_cpu_vs_perftest"] = round(hc / pc, 3)
    return s


def section(data, level="##"):
    """Markdown lines: how it was measured, the latency table, the sync 4 KiB
    batch-1 throughput with hybrid polling on and off."""
    info = data["info"]
    out = []
    w = out.append
    on = info.get("poll_us", "?")
    w(f"{level} Latency: one synchronous transfer, hixl vs ib_write_lat / ib_read_lat\n")
    w(f"- **hixl**: `bench/bench-lat`, two engines in one process, staging pool off, "
      f"{info.get('lat_iters', '?')} `HIXL_IOC_TRANSFER` ioctls of one descriptor one "
      "after the other (after 100 untimed), each timed from just before the ioctl to just "
      "after it returned. **poll**: the module's hybrid polling on "
      f"(`poll_us={on}`: the caller spins on the completion for at most that, adaptively "
      "1.5x the link's recent completion time, before it sleeps); **nopoll**: "
      "`poll_us=0` (sleep at once), set through `/sys/module/hixl/parameters/poll_us` "
      "between runs of the same boot.")
    w("- **perftest**: `ib_write_lat` / `ib_read_lat -d rxe0 -R -F -s SIZE -n N` (RDMA "
      "CM, busy-polling its CQ); p50 is its `t_typical`, p99 its `99% percentile`. "
      "`ib_read_lat` times one READ, a round trip, like hixl's READ. `ib_write_lat` is a "
      "ping-pong (each side WRITEs, the other spins on the memory) and prints *half* its "
      "round trip, one WRITE's one-way time; a hixl WRITE returns when the WRITE's "
      "acknowledgement has come back, a round trip. So for WRITE the table gives both "
      "ratios: to the printed figure (the issue's goal) and to the round trip (2x it).")
    w("- Tools interleaved per point, their order rotating with the repetition; cells: "
      "median (min..max) over repetitions, in microseconds; ratios of medians, hixl / "
      "perftest (below 1: hixl faster). CPU us/op: whole-VM busy time (`/proc/stat`) "
      "over the timed ops / ops (perftest's is not measured: it spins a CPU per side).\n")
    w("| op | size | hixl poll p50 | hixl poll p99 | hixl nopoll p50 | hixl nopoll p99 | "
      "perftest p50 | perftest p99 | poll / perftest p50 | poll / perftest p99 | "
      "nopoll / perftest p50 | poll / perftest round trip p50 | CPU us/op poll | "
      "CPU us/op nopoll |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    keys = sorted(data["lat"], key=lambda k: (k[0] != "write", k[1]))
    for k in keys:
        t = data["lat"][k]
        col = lambda tool, i: _cells(t, tool, i)
        m = {(tool, i): _lat(data, k, tool, i) for tool in LAT_TOOLS for i in (0, 1, 2)}
        w(f"| {k[0].upper()} | {size_name(k[1])} | {col('hixl-poll', 0)} | {col('hixl-poll', 1)} | "
          f"{col('hixl-nopoll', 0)} | {col('hixl-nopoll', 1)} | {col('perftest', 0)} | "
          f"{col('perftest', 1)} | {ratio(m['hixl-poll', 0], m['perftest', 0])} | "
          f"{ratio(m['hixl-poll', 1], m['perftest', 1])} | "
          f"{ratio(m['hixl-nopoll', 0], m['perftest', 0])} | "
          f"{ratio(m['hixl-poll', 0], _rtt(k[0], m['perftest', 0]))} | "
          f"{col('hixl-poll', 2)} | {col('hixl-nopoll', 2)} |")
    w("")
    if any(t in data["lat"][k] for k in keys for t in KV_TOOLS):
        out += kverbs_section(data, keys, level)
    if data.get("stages"):
        out += stages_section(data, level)
    if data["bw"]:
        w(f"{level} Sync 4 KiB batch-1 throughput: hybrid polling on and off\n")
        w("`bench/bench-matrix run --blocks 4 --batches 1 --tools hixl-sync,perftest` "
          f"once with `poll_us={on}` and once with `poll_us=0` per repetition (so perftest "
          "runs twice as often): one `TRANSFER` ioctl of one 4 KiB descriptor after the "
          "other beside `ib_write_bw` / `ib_read_bw -t 1 -l 1`; CPU s/GiB as in the "
          "matrix (whole VM). Cells: median (min..max) MiB/s and CPU s/GiB; ratios hixl / "
          "perftest.\n")
        w("| op | hixl poll MiB/s | hixl nopoll MiB/s | perftest MiB/s | poll / perftest | "
          "nopoll / perftest | CPU s/GiB poll | CPU s/GiB nopoll | CPU s/GiB perftest | "
          "CPU poll / perftest | CPU nopoll / perftest |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for op in [o for o in ("write", "read") if o in data["bw"]]:
            t = data["bw"][op]
            m = {(x, i): med([v[i] for v in t.get(x, [])]) for x in BW_TOOLS for i in (0, 1)}
            sp = lambda x, i, dg=1: spread([v[i] for v in t.get(x, [])], dg)
            w(f"| {op.upper()} | {sp('hixl-sync-poll', 0)} | {sp('hixl-sync-nopoll', 0)} | "
              f"{sp('perftest', 0)} | {ratio(m['hixl-sync-poll', 0], m['perftest', 0])} | "
              f"{ratio(m['hixl-sync-nopoll', 0], m['perftest', 0])} | "
              f"{sp('hixl-sync-poll', 1, 2)} | {sp('hixl-sync-nopoll', 1, 2)} | "
              f"{sp('perftest', 1, 2)} | {ratio(m['hixl-sync-poll', 1], m['perftest', 1])} | "
              f"{ratio(m['hixl-sync-nopoll', 1], m['perftest', 1])} |")
        w("")
    if data["na"]:
        w("Not measured: " + "; ".join(f"`{x}`" for x in data["na"]) + "\n")
    return out


def kverbs_section(data, keys, level):
    """The kernel verbs floor beside perftest's round trip and hixl."""
    out = []
    w = out.append
    w(f"{level} The kernel verbs floor: what any kernel consumer of the device pays\n")
    w("- **kverbs**: `bench/kverbs/kverbs_lat.ko`, loaded once per cell: one signaled "
      "one-WR WRITE or READ at a time between two RC QPs of this VM over RDMA CM and "
      "rxe0, posted with `ib_post_send()` and spun on with `ib_poll_cq()` (running the "
      "CPU's pending softirqs each turn, as hixl's spinner does), one DMA-mapped buffer a "
      "side and the PD's global rkey: a kernel consumer with nothing of hixl's in the way "
      "(no ioctl, lookup or planning). Timed from just before the post to the completion; "
      "p50 and p99 of the same count of WRs as hixl's. **+20 us**, **+50 us**: the same, "
      "the poster busy-waiting that long (untimed) between a completion and its next post, "
      "as a caller's own work between transfers, hixl's ioctl return and planning "
      "included, leaves it.")
    w("- Read it as: kverbs / perftest round trip is what the device charges a kernel "
      "consumer over a user-space one; hixl / kverbs is what hixl adds to a kernel "
      "consumer's floor.\n")
    w("| op | size | perftest round trip p50 | kverbs p50 | kverbs +20 us p50 | "
      "kverbs +50 us p50 | kverbs p99 | hixl poll p50 | kverbs / perftest round trip | "
      "kverbs +20 us / perftest round trip | kverbs +50 us / perftest round trip | "
      "hixl poll / kverbs | hixl poll / kverbs +20 us | hixl poll / kverbs +50 us |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        t = data["lat"][k]
        col = lambda tool, i: _cells(t, tool, i)
        m = {tool: _lat(data, k, tool, 0) for tool in LAT_TOOLS + KV_TOOLS}
        rtt = _rtt(k[0], m["perftest"])
        w(f"| {k[0].upper()} | {size_name(k[1])} | "
          f"{'n/a' if rtt is None else f'{rtt:.1f}'} | {col('kverbs', 0)} | "
          f"{col('kverbs-gap20', 0)} | {col('kverbs-gap50', 0)} | {col('kverbs', 1)} | "
          f"{col('hixl-poll', 0)} | {ratio(m['kverbs'], rtt)} | "
          f"{ratio(m['kverbs-gap20'], rtt)} | {ratio(m['kverbs-gap50'], rtt)} | "
          f"{ratio(m['hixl-poll'], m['kverbs'])} | "
          f"{ratio(m['hixl-poll'], m['kverbs-gap20'])} | "
          f"{ratio(m['hixl-poll'], m['kverbs-gap50'])} |")
    w("")
    return out


HIXL_STAGES = ["entry", "post", "wake", "device", "notice", "return", "user", "own", "cycle"]
KV_STAGES = ["wake", "device", "turn", "cycle"]
OWN_GOAL_US = 10


def _range(v, digits=0):
    v = [x for x in v if x is not None]
    if not v:
        return "n/a"
    lo, hi = min(v), max(v)
    return f"{lo:.{digits}f}" if lo == hi else f"{lo:.{digits}f}-{hi:.{digits}f}"


def stages_section(data, level):
    """Where a one-descriptor TRANSFER's time goes: the traced runs' stages."""
    out = []
    w = out.append
    st = data["stages"]
    keys = sorted(st, key=lambda k: (k[0] != "write", k[1]))
    w(f"{level} Where a one-descriptor TRANSFER's time goes (traced)\n")
    w("One more run of `bench-lat` (polling on) and of `kverbs_lat.ko` (no gap and 20 us) "
      "per point, recorded with tracefs: the ioctl's entry and exit (`raw_syscalls`), "
      "hixl's `hixl_xfer_submit` and `hixl_xfer_complete` tracepoints, kprobes on rxe's "
      "`rxe_post_send()` and `rxe_cq_post()` and the start of rxe's work items "
      "(`workqueue_execute_start`); bench/latstages.py gives each stage's p50 over the "
      "run's transfers, in microseconds. **entry**: ioctl entry to the submit tracepoint "
      "(copy-in, lookups, plan); **post**: to `rxe_post_send()`; **wake**: the post to "
      "rxe's first work item after it (on 6.12 a kernel QP's post queues its work on "
      "rxe's workqueue); **device**: that item's start to the CQE written (requester, "
      "responder, completer); **notice**: the CQE to the complete tracepoint (the "
      "spinner's poll and the WR's handler); **return**: to the ioctl's exit; **user**: "
      "to the next ioctl (bench-lat's loop); **own**: per transfer, entry + post + notice "
      "+ return + user, hixl's own time; **turn**: kverbs' CQE to its next post; "
      "**cycle**: one post to the next. Each traced event costs its thread about a "
      "microsecond here, so the traced run is slower than the table above, and every "
      "stage carries its events' share.\n")
    w("| op | size | " + " | ".join(f"hixl {x}" for x in HIXL_STAGES) + " | " +
      " | ".join(f"kverbs {x}" for x in KV_STAGES) + " | " +
      " | ".join(f"kverbs +20 us {x}" for x in KV_STAGES) + " |")
    w("|---|---|" + "---|" * (len(HIXL_STAGES) + 2 * len(KV_STAGES)))
    cell = lambda v: "n/a" if v is None else f"{v:.0f}"
    for k in keys:
        t = st[k]
        h, kv, kg = t.get("hixl-poll", {}), t.get("kverbs", {}), t.get("kverbs-gap20", {})
        w(f"| {k[0].upper()} | {size_name(k[1])} | " +
          " | ".join(cell(h.get(x)) for x in HIXL_STAGES) + " | " +
          " | ".join(cell(kv.get(x)) for x in KV_STAGES) + " | " +
          " | ".join(cell(kg.get(x)) for x in KV_STAGES) + " |")
    w("")
    own = [st[k].get("hixl-poll", {}).get("own") for k in keys]
    wake = [st[k].get("hixl-poll", {}).get("wake") for k in keys]
    kwake = [st[k].get("kverbs", {}).get("wake") for k in keys]
    gwake = [st[k].get("kverbs-gap20", {}).get("wake") for k in keys]
    if any(x is not None for x in own):
        met = all(x is not None and x <= OWN_GOAL_US for x in own)
        w(f"hixl's own time per TRANSFER (p50, traced): {_range(own)} us, goal "
          f"{OWN_GOAL_US} us: {'met' if met else 'not met'}. rxe's wake-up after the post: "
          f"{_range(wake)} us after hixl's, {_range(kwake)} us when the floor posts at once, "
          f"{_range(gwake)} us after a 20 us gap.\n")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--vm-seconds", type=int)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    data = parse(a.raw)
    info = data["info"]
    out = ["# hixl latency: one synchronous transfer vs perftest\n",
           f"Machine: {a.machine} host, one QEMU/TCG guest ({info.get('ncpu', '?')} vCPUs) on "
           f"Debian kernel {info.get('kernel', a.kernel)} (stock), Soft-RoCE rxe0 loopback on "
           f"a veth with MTU 9000; perftest {info.get('perftest', '?')}. Measured in one VM "
           "boot by `make bench-lat` (bench/bench.sh lat, bench/bench-lat-guest.sh)"
           f"{f', {a.vm_seconds // 60} min {a.vm_seconds % 60} s' if a.vm_seconds else ''}. "
           "**Under QEMU/TCG only the ratios mean anything**; nothing here passes or fails. "
           "Raw lines: `build/vm/bench-lat/raw-lat.txt`.\n"]
    out += section(data)
    s = summary(data)
    raw = [l.rstrip("\n") for l in open(a.raw, errors="replace") if l.split()[:1] in (["lat"], ["res"], ["na"], ["info"], ["stage"])]
    if s:
        out.append("Summary ratios (hixl / peer, kverbs / perftest; the names are results.json's):\n")
        out.append("```")
        out += [f"{k} {v}" for k, v in s.items()]
        out.append("```\n")
    out.append("Raw lines of the run (bench/bench-lat-guest.sh's format):\n")
    out.append("```")
    out += raw
    out.append("```\n")
    open(a.out, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
