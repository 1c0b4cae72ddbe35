#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw lines of `make bench` (bench/bench-all-guest.sh, written by
bench/bench-matrix) into bench/results.md, the plot bench/results.png and
the summary ratios of every table, bench/results.json (bench/results_json.py;
compare two with bench/bench-diff.py).

Raw lines:
  memcpy BYTES SECONDS
  res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS
  na REP TOOL OP BLOCK BATCH REASON...
  info KEY VALUE...

Usage:
  bench-results.py --raw RAW --machine M --kernel K --out results.md [--png results.png]
                   [--json results.json] [--reg results-reg.md]
                   [--submit results-submit.md] [--vm-seconds N] [--host-load L]
                   [--lat raw-lat.txt] [--mainjob results-default.txt] [--note TEXT]
  bench-results.py --from-md results.md --json results.json [--note TEXT]
      (results.json from a results.md written before the JSON existed)
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_json  # noqa: E402  (bench/results_json.py: results.json)
import latreport  # noqa: E402  (bench/latreport.py: the latency section)
import localreport  # noqa: E402  (bench/localreport.py: the same-host section)
import pysubmit  # noqa: E402  (bench/pysubmit.py: the Python section)
import railsreport  # noqa: E402  (bench/railsreport.py: the rails section)
import tablereport  # noqa: E402  (bench/tablereport.py: the region-table section)
import nixlreport  # noqa: E402  (bench/nixlreport.py: the NIXL section)
import gpureport  # noqa: E402  (bench/gpureport.py: the device-memory section)
import mooncakereport  # noqa: E402  (bench/mooncakereport.py: the Mooncake section)
import scalereport  # noqa: E402  (bench/scalereport.py: the scale curves)
from benchstats import GIB, MIB, geomean, med, ratio, size_name, spread  # noqa: E402

TOOLS = ["hixl-sync", "hixl-async", "perftest", "ucx"]
LABEL = {"hixl-sync": "hixl sync (ioctl)", "hixl-async": "hixl async (io_uring)",
         "perftest": "perftest", "ucx": "UCX"}
SHORT = {"hixl-sync": "sync", "hixl-async": "async", "perftest": "perftest", "ucx": "UCX"}
PAIRS = [("hixl-sync", "perftest"), ("hixl-async", "perftest"),
         ("hixl-sync", "ucx"), ("hixl-async", "ucx")]


def parse(path):
    info, memcpy, res, na = {}, [], {}, {}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) == 4 and f[1] == "section_seconds":
            info.setdefault("sections", []).append((f[2], int(f[3])))
        elif f[0] == "info" and len(f) >= 2:
            info[f[1]] = " ".join(f[2:])
        elif f[0] == "memcpy" and len(f) == 3:
            memcpy.append(int(f[1]) / float(f[2]) / MIB)
        elif f[0] == "res" and len(f) == 9:
            _, rep, tool, op, block, batch, nbytes, secs, cpu = f
            key = (op, int(block), int(batch))
            r = res.setdefault(key, {}).setdefault(tool, [])
            r.append((int(nbytes) / float(secs) / MIB, float(cpu) / (int(nbytes) / GIB)))
        elif f[0] == "na" and len(f) >= 7:
            key = (f[3], int(f[4]), int(f[5]))
            na.setdefault(key, {}).setdefault(f[2], []).append(" ".join(f[6:]))
    return info, memcpy, res, na


class Notes:
    """Footnotes for n/a cells: one number per distinct reason."""

    def __init__(self):
        self.reasons = []

    def mark(self, reasons):
        # the most frequent reason of the cell, trimmed
        r = max(set(reasons), key=reasons.count).strip()
        if r not in self.reasons:
            self.reasons.append(r)
        return f"n/a [{self.reasons.index(r) + 1}]"


def cell(res, na, notes, key, tool, idx, digits=1):
    vals = [x[idx] for x in res.get(key, {}).get(tool, [])]
    if vals:
        s = spread(vals, digits)
        missing = na.get(key, {}).get(tool, [])
        if missing:
            s += f" {notes.mark(missing)}"
        return s
    missing = na.get(key, {}).get(tool, [])
    return notes.mark(missing) if missing else "-"


def host_cpu():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def plot(res, memcpy_mib, ops, blocks, batches, title, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = {"hixl-sync": ("tab:blue", "o", "-"), "hixl-async": ("tab:green", "s", "-"),
             "perftest": ("tab:orange", "^", "--"), "ucx": ("tab:red", "v", "--")}
    fig, axes = plt.subplots(len(ops), len(batches), figsize=(4.2 * len(batches), 3.6 * len(ops)),
                             sharex=True, sharey=True, squeeze=False)
    for r, op in enumerate(ops):
        for c, batch in enumerate(batches):
            ax = axes[r][c]
            for tool in TOOLS:
                xs, ys, lo, hi = [], [], [], []
                for b in blocks:
                    v = [x[0] for x in res.get((op, b, batch), {}).get(tool, [])]
                    if v:
                        xs.append(b / 1024)
                        ys.append(med(v))
                        lo.append(med(v) - min(v))
                        hi.append(max(v) - med(v))
                if xs:
                    color, marker, ls = style[tool]
                    ax.errorbar(xs, ys, yerr=[lo, hi], color=color, marker=marker, ls=ls,
                                capsize=2, ms=4, lw=1.3, label=LABEL[tool])
            ax.set_xscale("log", base=2)
            ax.set_xticks([b / 1024 for b in blocks])
            ax.set_xticklabels([size_name(b).replace(" ", "\n") for b in blocks], fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.set_title(f"{op.upper()}, batch {batch}", fontsize=10)
            if c == 0:
                ax.set_ylabel("MiB/s (median, min..max)")
            if r == len(ops) - 1:
                ax.set_xlabel("block size")
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle(title + (f"; memcpy ceiling {memcpy_mib:.0f} MiB/s" if memcpy_mib else ""),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw")
    ap.add_argument("--machine")
    ap.add_argument("--kernel")
    ap.add_argument("--out")
    ap.add_argument("--png")
    ap.add_argument("--json", help="write the summary ratios of every table here")
    ap.add_argument("--from-md", help="import this results.md into --json (no raw lines)")
    ap.add_argument("--note", help="a sentence about the run, kept in --json as \"note\"")
    ap.add_argument("--reg")
    ap.add_argument("--submit")
    ap.add_argument("--vm-seconds", type=int)
    ap.add_argument("--lat", help="bench/bench-lat-guest.sh's raw lines (latency section)")
    ap.add_argument("--py", help="bench/pysubmit.py's raw lines (the Python section)")
    ap.add_argument("--local", help="bench/bench-local-guest.sh's raw lines (same-host section)")
    ap.add_argument("--rails", help="bench/bench-rails-guest.sh's raw lines (rails section)")
    ap.add_argument("--nixl", help="bench/bench-nixl-guest.sh's raw lines (the NIXL section)")
    ap.add_argument("--table", help="bench/bench-table-guest.sh's raw lines (region tables)")
    ap.add_argument("--gpu", help="bench/bench-gpu-guest.sh's raw lines (device memory)")
    ap.add_argument("--mooncake", help="bench/bench-mooncake-guest.sh's raw lines (Mooncake)")
    ap.add_argument("--scale", help="bench/bench-scale-guest.sh's raw lines (scale curves)")
    ap.add_argument("--scale-png", help="write the scale curves' plot here")
    ap.add_argument("--mainjob", help="bench/results-default.txt (make bench-default): the "
                    "main job's table in --json")
    ap.add_argument("--host-load", help="the host's 1-minute load average at start / end")
    a = ap.parse_args()
    if a.from_md:
        if not a.json:
            ap.error("--from-md needs --json")
        run, meta = results_json.import_md(a.from_md, os.path.basename(a.from_md))
        if a.note:
            meta["note"] = a.note
        write_json(a.json, results_json.build(run, meta))
        return
    if not (a.raw and a.machine and a.kernel and a.out):
        ap.error("--raw, --machine, --kernel and --out are required")

    info, memcpy, res, na = parse(a.raw)
    keys = sorted(set(res) | set(na), key=lambda k: (k[0] != "write", k[1], k[2]))
    ops = [op for op in ("write", "read") if any(k[0] == op for k in keys)]
    blocks = sorted({k[1] for k in keys})
    batches = sorted({k[2] for k in keys})
    mc = med(memcpy)
    notes = Notes()
    c = info.get("config", "").split()
    conf = dict(zip(c[0::2], c[1::2]))
    reps = conf.get("reps", "?")
    min_mib = int(conf.get("min_bytes", 32 * MIB)) // MIB
    max_batch = int(conf.get("max_batch_bytes", 0))
    out = []
    w = out.append

    w("# hixl benchmarks: side by side\n")
    w(f"Machine: {a.machine} host ({host_cpu()}, {os.cpu_count()} cores), running one QEMU/TCG "
      f"guest ({info.get('cpu', '?')}, {info.get('ncpu', '?')} vCPUs, "
      f"{info.get('memory', '?')}) on Debian kernel {info.get('kernel', a.kernel)} "
      "(stock, no debug options), Soft-RoCE rxe0 loopback on a veth with MTU 9000. "
      "Everything below was measured in one VM boot by `make bench` "
      f"(bench/bench.sh all){f', which took {a.vm_seconds // 60} min {a.vm_seconds % 60} s' if a.vm_seconds else ''}; "
      f"perftest {info.get('perftest', '?')}, UCX {info.get('ucx', '?')}.\n")
    w("**Under QEMU/TCG only the ratios mean anything**: every instruction, the RDMA "
      "device's included, is emulated, so absolute MiB/s say nothing about hardware. "
      f"{'Host load average (1 min) when the VM started / ended: ' + a.host_load + '. ' if a.host_load else ''}"
      "Benchmarks never assert speeds: nothing here passes or fails.\n")

    w("## How it was measured\n")
    w(f"- Points: WRITE and READ; blocks {', '.join(size_name(b) for b in blocks)}; "
      f"batches of {', '.join(str(b) for b in batches)} descriptors (messages). At each "
      f"point every tool moves the same bytes: max({min_mib} MiB, one batch, 8 blocks), from one "
      "block-sized buffer on one side to one on the other (perftest and ucx_perftest "
      "reuse one message buffer per side, and so does hixl here)." +
      (f" A point whose one batch is over {max_batch // MIB} MiB is not run (n/a; "
       "`BENCH_MAX_BATCH_MIB`, the time budget of `make bench`)." if max_batch else ""))
    w(f"- {reps} repetitions; within a repetition the tools run point by point, one after "
      "the other, their order rotating with the repetition. Cells: median (min..max) over "
      "the repetitions; ratios are ratios of medians, hixl / peer (above 1: hixl faster, "
      "or for CPU, costlier).")
    w("- **hixl sync**: two engines in one process (`bench/bench-matrix`), staging pool "
      "off (SETUP pool_buffers=0, pool_buffer_mb=0: every descriptor is a direct RDMA "
      "op), one `HIXL_IOC_TRANSFER` ioctl of *batch* descriptors after the other.")
    w(f"- **hixl async**: the same, as `IORING_OP_URING_CMD` on an SQE128/CQE32 ring, "
      f"{conf.get('inflight', '?')} batches in flight (fewer when the point has fewer), "
      "the next submitted as each CQE arrives.")
    w("- **perftest**: `ib_write_bw` / `ib_read_bw -d rxe0 -R -F -N -s BLOCK -n MESSAGES "
      "-t BATCH -l BATCH` (RDMA CM; post list = tx depth = batch, so CQ moderation = "
      "batch: *batch* work requests posted with one call, one completion, then the next "
      "list: the shape of a hixl batch; batch 1: `-t 1`). Throughput: its "
      "\"BW average\".")
    w(f"- **UCX**: `ucx_perftest -t ucp_put_bw` / `ucp_get -s BLOCK -n MESSAGES -O BATCH "
      f"-w min(BATCH, max(1, MESSAGES/8))` (at most *batch* operations outstanding, refilled one at "
      f"a time; a few unmeasured warm-up operations) over UCP "
      f"(`ucx_info -d` in the VM: {info.get('ucx_transports', '?').strip()}) with "
      f"`{info.get('env', '?')}`: RC carries the data; UD is there only for UCP's "
      "wire-up (with `rc_verbs` alone UCP fails with \"no auxiliary transport\"; UD over "
      "rxe times out on GID indexes 0 and 1, the link-local and IPv4-mapped ones, and "
      "works on 2, fd77::1). Throughput: its \"Final\" overall bandwidth.")
    w("- Both peers poll their completion queues (perftest 4.5's bandwidth tests have no "
      "event mode; `ucx_perftest -E sleep` hangs here) and UCX's responder spins too; "
      "hixl sleeps until its completions arrive. On 2 vCPUs a spinning process takes CPU "
      "away from rxe, which does its work in softirq and kernel threads: part of what "
      "the ratios show.")
    w("- **CPU s/GiB**: whole-VM busy time (user + nice + system + irq + softirq + steal "
      "from `/proc/stat`) while the bytes move, divided by GiB moved. hixl: read before "
      "and after its timed loop. Peers: `/proc/stat` sampled every 10 ms while they run, "
      "interpolated over the interval each tool reports as measured (ending when its "
      "result line appears), minus the sampler's own CPU; setup and teardown are left "
      "out for every tool alike. Resolution: 10 ms ticks.")
    w("- Raw lines of the run: `build/vm/bench-all/raw.txt`; tables and plot: "
      "`bench/bench-results.py`, which also writes every table's medians, min..max and "
      "hixl/peer ratios with their geometric means to `bench/results.json` (compare two "
      "runs with `bench/bench-diff.py A.json B.json`).")
    if mc:
        w(f"- **memcpy**: single thread, 256 MiB buffers, {len(memcpy)} copies: "
          f"{spread(memcpy)} MiB/s, the physical ceiling for a software RDMA device, "
          "which copies every byte at least once.\n")

    secs = ([("transfer matrix", int(info["matrix_seconds"]))] if info.get("matrix_seconds")
            else []) + info.get("sections", [])
    if secs:
        w("- Where the VM's time went, section by section (wall seconds, in the order run): " +
          ", ".join(f"{n} {t}" for n, t in secs) +
          (f"; the guest's whole run {info['guest_seconds']} s" if info.get("guest_seconds")
           else "") + ".\n")

    # ---- summary
    w("## Summary\n")
    w("Geometric mean over all blocks and batches of the throughput ratio (and of the "
      "CPU s/GiB ratio), hixl / peer:\n")
    w("| op | " + " | ".join(f"{SHORT[h]} / {SHORT[p]}" for h, p in PAIRS) + " |")
    w("|---|" + "---|" * len(PAIRS))
    for op in ops:
        cells = []
        for h, p in PAIRS:
            tr, cr = [], []
            for k in keys:
                if k[0] != op:
                    continue
                hv = res.get(k, {}).get(h, [])
                pv = res.get(k, {}).get(p, [])
                if hv and pv:
                    tr.append(med([x[0] for x in hv]) / med([x[0] for x in pv]))
                    cr.append(med([x[1] for x in hv]) / med([x[1] for x in pv]))
            g, gc = geomean(tr), geomean(cr)
            cells.append(f"{g:.2f} (CPU {gc:.2f}), {len(tr)} points" if g else "n/a")
        w(f"| {op.upper()} | " + " | ".join(cells) + " |")
    w("")

    # ---- throughput
    for op in ops:
        w(f"## {op.upper()} throughput, MiB/s\n")
        w("| block | batch | hixl sync | hixl async | perftest | UCX | sync / perftest | "
          "async / perftest | sync / UCX | async / UCX |")
        w("|---|---|---|---|---|---|---|---|---|---|")
        for k in keys:
            if k[0] != op:
                continue
            m = {t: med([x[0] for x in res.get(k, {}).get(t, [])]) for t in TOOLS}
            w(f"| {size_name(k[1])} | {k[2]} | " +
              " | ".join(cell(res, na, notes, k, t, 0) for t in TOOLS) + " | " +
              " | ".join(ratio(m[h], m[p]) for h, p in PAIRS) + " |")
        w("")

    # ---- fraction of memcpy
    if mc:
        w("## Throughput as a fraction of memcpy\n")
        w(f"Median throughput / memcpy median ({mc:.0f} MiB/s).\n")
        w("| op | block | batch | hixl sync | hixl async | perftest | UCX |")
        w("|---|---|---|---|---|---|---|")
        for k in keys:
            cells = []
            for t in TOOLS:
                v = [x[0] for x in res.get(k, {}).get(t, [])]
                cells.append(f"{100 * med(v) / mc:.1f}%" if v else "n/a")
            w(f"| {k[0].upper()} | {size_name(k[1])} | {k[2]} | " + " | ".join(cells) + " |")
        w("")

    # ---- CPU
    w("## CPU seconds per GiB moved (whole VM)\n")
    w("| op | block | batch | hixl sync | hixl async | perftest | UCX | sync / perftest | "
      "async / perftest | sync / UCX | async / UCX |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        m = {t: med([x[1] for x in res.get(k, {}).get(t, [])]) for t in TOOLS}
        w(f"| {k[0].upper()} | {size_name(k[1])} | {k[2]} | " +
          " | ".join(cell(res, na, notes, k, t, 1, 2) for t in TOOLS) + " | " +
          " | ".join(ratio(m[h], m[p]) for h, p in PAIRS) + " |")
    w("")

    if notes.reasons:
        w("n/a: no number, for this reason (the tool's own message):\n")
        for i, r in enumerate(notes.reasons):
            w(f"{i + 1}. `{r}`")
        w("")

    w("![throughput vs block size](results.png)\n")
    w("`bench/results.png`: throughput against block size, one panel per op and batch, "
      "medians with min..max bars.\n")

    # ---- registration
    w("## Registration: hixl vs ibv_reg_mr\n")
    reg = a.reg if a.reg and os.path.exists(a.reg) else None
    if reg:
        w("Measured in the same VM run by `bench/bench-reg --size 1024 --reps 5` "
          "(the same program and table as `make bench-reg`, bench/results-reg.md).\n")
        lines = open(reg).read().splitlines()
        body = [l for l in lines if not l.startswith("# ")]
        w("\n".join(body).strip() + "\n")
    else:
        w("Not measured in this run (BENCH_REG=0): see "
          "[results-reg.md](results-reg.md) (`make bench-reg`).\n")

    # ---- latency (bench/latreport.py, the same tables as results-lat.md)
    if a.lat and os.path.exists(a.lat):
        out.extend(latreport.section(latreport.parse(a.lat)))
    else:
        w("## Latency\n")
        w("Not measured in this run (BENCH_LAT=0): see [results-lat.md](results-lat.md) "
          "(`make bench-lat`).\n")

    # ---- same-host links and rails (bench/localreport.py, bench/railsreport.py;
    # alone as results-local.md, results-rails.md)
    local = optional_section(out, localreport, a.local, lambda p: p["res"], "Same-host links",
                             "BENCH_LOCAL", "local")
    rails = optional_section(out, railsreport, a.rails, lambda p: p["res"] or p["na"], "Rails",
                             "BENCH_RAILS", "rails")
    optional_section(out, pysubmit, a.py, lambda p: p["res"], "Python submission", "BENCH_PY",
                     "py")
    nixl = optional_section(out, nixlreport, a.nixl, lambda p: p["res"] or p["na"], "NIXL",
                            "BENCH_NIXL", "nixl")
    table = optional_section(out, tablereport, a.table, lambda p: p["runs"],
                             "Region tables: CONNECT time against registrations per side",
                             "BENCH_TABLE", "table")
    gpu = optional_section(out, gpureport, a.gpu,
                           lambda p: p["res"] or p["na"] or p["info"].get("skipped"),
                           "Device memory: peer-to-peer and staged beside host memory",
                           "BENCH_GPU", "gpu")
    mooncake = optional_section(
        out, mooncakereport, a.mooncake,
        lambda p: p["kv"] or p["na"] or p["reg"] or p["regfail"],
        "Mooncake's TransferEngine beside hixl", "BENCH_MOONCAKE", "mooncake", own_heading=True)
    scale = optional_section(out, scalereport, a.scale,
                             lambda p: p["links"] or p["descs"] or p["kmem"],
                             "Scale: fan-in and fan-out, kernel memory, descriptors per request",
                             "BENCH_SCALE", "scale")
    if scale and a.scale_png:
        scalereport.plot(scale, a.scale_png)

    # ---- submission
    w("## Submission rate: TRANSFER ioctl vs io_uring URING_CMD\n")
    sub = a.submit if a.submit and os.path.exists(a.submit) else None
    if sub:
        w("Copied from [results-submit.md](results-submit.md) (`make bench-submit`, "
          "bench/bench-submit.c, a separate VM run).\n")
        lines = open(sub).read().splitlines()
        body = [l for l in lines if not l.startswith("# ")]
        w("\n".join(body).strip() + "\n")
    else:
        w("Will be in [results-submit.md](results-submit.md), written by "
          "`make bench-submit` (bench/bench-submit.c).\n")

    open(a.out, "w").write("\n".join(out))
    if a.json:
        run = {"info": info, "memcpy": memcpy, "res": res, "na": na,
               "reg_md": open(reg).read() if reg else None,
               "submit_md": open(sub).read() if sub else None}
        if a.lat and os.path.exists(a.lat):
            run["lat"] = latreport.parse(a.lat)
        if local:
            run["local"] = local
        if rails:
            run["rails"] = rails
        if nixl:
            run["nixl"] = nixl
        for k, v in (("table", table), ("gpu", gpu), ("mooncake", mooncake), ("scale", scale)):
            if v:
                run[k] = v
        if a.mainjob and os.path.exists(a.mainjob):
            run["mainjob"], run["mainjob_info"] = results_json.parse_mainjob(a.mainjob)
        meta = json_meta(a, info, conf)
        if a.note:
            meta["note"] = a.note
        write_json(a.json, results_json.build(run, meta))
    if a.png:
        plot(res, mc, ops, blocks, batches,
             f"hixl vs perftest vs UCX, rxe0 under QEMU/TCG, kernel {info.get('kernel', a.kernel)}",
             a.png)


def optional_section(out, report, raw, measured, heading, env, name, own_heading=False):
    """report.section() of the raw lines at raw (a path or None) appended to
    out (own_heading: with "## heading", not the report's own), or a note
    that this run did not measure it (env=0) and where its own run's file
    is (make bench-NAME, results-NAME.md); the parsed lines, or None."""
    p = report.parse(raw) if raw and os.path.exists(raw) else None
    if p and measured(p):
        out.extend(report.section(p, f"## {heading}") if own_heading else report.section(p))
        return p
    out.append(f"## {heading}\n")
    out.append(f"Not measured in this run ({env}=0): see [results-{name}.md](results-{name}.md) "
               f"(`make bench-{name}`).\n")
    return None


def json_meta(a, info, conf):
    """results.json's description of the run (bench/results_json.py)."""
    def intish(v):
        try:
            return int(v)
        except (TypeError, ValueError):
            return None
    meta = {"source": "raw", "generated_by": "bench/bench-results.py",
            "machine": {"arch": a.machine, "host_cpu": host_cpu(), "host_cores": os.cpu_count(),
                        "guest_cpu": info.get("cpu"), "guest_vcpus": intish(info.get("ncpu")),
                        "guest_memory": info.get("memory")},
            "kernel": info.get("kernel", a.kernel),
            "tools": {"perftest": info.get("perftest"), "ucx": info.get("ucx"),
                      "ucx_transports": (info.get("ucx_transports") or "").strip() or None,
                      "ucx_env": info.get("env")},
            "repetitions": intish(conf.get("reps")),
            "inflight": intish(conf.get("inflight")),
            "min_bytes": intish(conf.get("min_bytes"))}
    if intish(conf.get("max_batch_bytes")):
        meta["max_batch_bytes"] = intish(conf.get("max_batch_bytes"))
    if a.vm_seconds:
        meta["vm_seconds"] = a.vm_seconds
    if a.host_load:
        meta["host_load"] = a.host_load
    return meta


def write_json(path, doc):
    errs = results_json.check(doc)
    if errs:
        sys.exit("bench-results: results.json fails its own schema: " + "; ".join(errs))
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
