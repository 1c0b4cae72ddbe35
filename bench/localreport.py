#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/localreport.py - the same-host section from the raw lines
of bench/bench-local-guest.sh: the kernel copy inline (hixl-local-1) and
parallel (hixl-local-par) vs rxe (hixl-rdma) vs UCX's intra-host transport
(ucx-intra) vs single-thread memcpy of the same block (memcpy), throughput
and CPU seconds per GiB, and the ratios against the same-host copy's goals.

bench/bench-results.py includes section() in results.md (make bench) and
passes parse() to bench/results_json.py (the `local` and `local_cpu`
tables); run alone it writes bench/results-local.md (make bench-local):

    bench/localreport.py --raw RAW --kernel KVER --out bench/results-local.md

Raw lines: bench-matrix's "res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU"
and "na ..." (TOOL renamed by the guest script), "memcpy BYTES SECONDS"
(256 MiB, bench-matrix memcpy), "memcpyblk BLOCK BYTES SECONDS [CPU]"
(bench/memcpy-blocks.c), "info KEY VALUE...".
"""
from benchstats import GIB, MIB, geomean, med, ratio, report_main, size_name, spread

TOOLS = ["hixl-local-1", "hixl-local-par", "hixl-rdma", "ucx-intra", "memcpy"]
# [hixl, peer]: the ratios the section and results.json give
PAIRS = [["hixl-local-1", "memcpy"], ["hixl-local-par", "memcpy"],
         ["hixl-local-par", "ucx-intra"], ["hixl-local-par", "hixl-local-1"],
         ["hixl-local-par", "hixl-rdma"]]
# the same-host copy's goals at >= 64 KiB blocks: (pair, bound, strictly above?, text)
GOALS = [(("hixl-local-1", "memcpy"), 0.8, False, "one stream >= 0.8x memcpy"),
         (("hixl-local-par", "memcpy"), 1.0, True, "parallel > 1.0x memcpy"),
         (("hixl-local-par", "ucx-intra"), 1.0, False, "parallel >= 1.0x UCX intra-host")]


def parse(path):
    """{"info", "memcpy" (256 MiB MiB/s list), "res": {(op, block, batch):
    {tool: [(MiB/s, CPU s/GiB)]}}, "na": {key: {tool: [reason]}}}; memcpy
    of a block counts for every op and batch of that block."""
    info, memcpy, res, na, blk = {}, [], {}, {}, {}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            info[f[1]] = " ".join(f[2:])
        elif f[0] == "memcpy" and len(f) == 3:
            memcpy.append(int(f[1]) / float(f[2]) / MIB)
        elif f[0] == "memcpyblk" and len(f) in (4, 5):
            nbytes, secs = int(f[2]), float(f[3])
            cpu = float(f[4]) if len(f) == 5 else secs
            blk.setdefault(int(f[1]), []).append((nbytes / secs / MIB, cpu / (nbytes / GIB)))
        elif f[0] == "res" and len(f) == 9 and f[2] in TOOLS:
            _, _, tool, op, block, batch, nbytes, secs, cpu = f
            key = (op, int(block), int(batch))
            res.setdefault(key, {}).setdefault(tool, []).append(
                (int(nbytes) / float(secs) / MIB, float(cpu) / (int(nbytes) / GIB)))
        elif f[0] == "na" and len(f) >= 7 and f[2] in TOOLS:
            key = (f[3], int(f[4]), int(f[5]))
            na.setdefault(key, {}).setdefault(f[2], []).append(" ".join(f[6:]))
    for key in list(res) + list(na):
        if key[1] in blk:
            res.setdefault(key, {})["memcpy"] = blk[key[1]]
    return {"info": info, "memcpy": memcpy, "res": res, "na": na}


def keys_of(p):
    return sorted(set(p["res"]) | set(p["na"]), key=lambda k: (k[0] != "write", k[1], k[2]))


def medians(p, key, idx):
    return {t: med([x[idx] for x in p["res"].get(key, {}).get(t, [])]) for t in TOOLS}


def goal_lines(p):
    """One line per goal: how many points of >= 64 KiB meet it, geomean, min."""
    out = []
    for (h, q), want, strict, text in GOALS:
        rs = []
        for k in keys_of(p):
            if k[1] < 64 * 1024:
                continue
            m = medians(p, k, 0)
            if m[h] and m[q]:
                rs.append(m[h] / m[q])
        if not rs:
            out.append(f"- {text}: not measured (no {h} or {q} numbers)")
            continue
        met = sum(1 for r in rs if (r > want if strict else r >= want))
        out.append(f"- {text} (`{h}/{q}`): met at {met} of {len(rs)} points; "
                   f"geomean {geomean(rs):.2f}, min {min(rs):.2f}, max {max(rs):.2f}")
    return out


def section(p, heading="## Same-host links: kernel copy vs rxe vs UCX intra-host vs memcpy"):
    """results.md's section, a list of lines."""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-local-guest.sh` in the same VM boot: two engines of one "
      "process that pair (`HIXL_TRANSPORT=auto`), one `TRANSFER` ioctl of B one-block "
      "descriptors after the other (bench-matrix's `hixl-sync`, staging off), with the module "
      "parameter `local_copy_threads=1` (**local 1**: the copy inline in the caller) and "
      f"`-1` (**local par**: the default, {info.get('local_copy_threads_default', '?')} here "
      "as read before the run; batches of 2 MiB and more split across CPUs); the same engines "
      "not paired (`HIXL_TRANSPORT=rdma`: **rxe**); `ucx_perftest` `ucp_put_bw`/`ucp_get` "
      f"with `UCX_TLS={info.get('ucx_tls', '?')}` (**UCX**; `cma` alone fails: UCP has no "
      "active-message transport for its wire-up) and `-O B`; and single-thread `memcpy()` of "
      "one block-sized buffer into another (**memcpy**, bench/memcpy-blocks.c: the cache "
      "footprint of the hixl points).  Interleaved per repetition, order rotating; "
      "medians (min..max) of the repetitions.  CPU s/GiB: whole-VM busy time from "
      "`/proc/stat` per GiB for hixl, rxe and UCX (the ioctl caller's system time and the "
      "copy kworkers alike; for UCX minus bench-matrix's own), `getrusage()` of the "
      "process for memcpy.")
    w("")
    if p["memcpy"]:
        w(f"Single-thread memcpy of 256 MiB (DRAM-bound): {med(p['memcpy']):.0f} MiB/s "
          f"(median of {len(p['memcpy'])}).")
        w("")
    w(f"Guest: {info.get('kernel', '?')}, {info.get('ncpu', '?')} vCPUs under QEMU/TCG on a "
      "2-core host shared with other builds and VMs: absolute numbers mean nothing and the spread "
      "is wide; the ratios are of medians measured in this boot only.")
    w("")
    w("| op | block | batch | local 1 MiB/s | local par MiB/s | rxe MiB/s | UCX MiB/s | "
      "memcpy MiB/s | CPU s/GiB local 1 / par / rxe / UCX / memcpy | "
      "local 1 / memcpy | par / memcpy | par / UCX | par / local 1 |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")

    def cellv(key, tool):
        v = spread([x[0] for x in p["res"].get(key, {}).get(tool, [])], 0)
        if v:
            return v
        reasons = p["na"].get(key, {}).get(tool)
        return f"n/a ({max(set(reasons), key=reasons.count)[:60]})" if reasons else "-"

    for k in keys_of(p):
        m, c = medians(p, k, 0), medians(p, k, 1)
        cpu = " / ".join(f"{c[t]:.2f}" if c[t] is not None else "-" for t in TOOLS)
        w(f"| {k[0]} | {size_name(k[1])} | {k[2]} | " +
          " | ".join(cellv(k, t) for t in TOOLS) + f" | {cpu} | " +
          f"{ratio(m['hixl-local-1'], m['memcpy'])} | "
          f"{ratio(m['hixl-local-par'], m['memcpy'])} | "
          f"{ratio(m['hixl-local-par'], m['ucx-intra'])} | "
          f"{ratio(m['hixl-local-par'], m['hixl-local-1'])} |")
    w("")
    w("Against the same-host copy's goals (one stream >= 0.8x memcpy, parallel > 1.0x memcpy and >= 1.0x UCX), over the points of 64 KiB blocks and more:")
    w("")
    out.extend(goal_lines(p))
    w("")
    return out


def main():
    report_main("localreport", parse, section, lambda p: p["res"],
                "Same-host links: the kernel copy, inline and parallel", "bench-local")


if __name__ == "__main__":
    main()
