#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/nixlreport.py - the NIXL section from the raw lines of
bench/bench-nixl-guest.sh: the main job's shape (32 KiB blocks, layers of
256 scattered descriptors) moved through hixl's own API (native), through
NIXL with the backend HIXL (nixl-hixl) and with NIXL's backend UCX
(nixl-ucx), WRITE and READ: MiB/s, descriptors per second, whole-VM CPU
seconds per GiB, the microseconds per layer spent in the submitting calls,
and the ratios nixl-hixl / native (the plugin's overhead; goal >= 0.95) and
nixl-hixl / nixl-ucx.

bench/bench-results.py includes section() in results.md (make bench) and
passes parse() to bench/results_json.py (the `nixl` table); run alone it
writes bench/results-nixl.md (make bench-nixl):

    bench/nixlreport.py --raw RAW --kernel KVER --out bench/results-nixl.md

Raw lines (bench/bench-nixl.cpp): "res REP TOOL OP BLOCK_KIB DESCS LAYERS
BYTES SECONDS CPU POST_US", "split REP TOOL OP MAKE_US STATUS_US
STATUS_PER_LAYER", "na REP TOOL OP BLOCK_KIB DESCS REASON...",
"info KEY VALUE...".
"""
from benchstats import GIB, MIB, med, ratio, report_main, spread

TOOLS = ["native", "nixl-hixl", "nixl-ucx"]
# [measured, against]: the ratios the section and results.json give
PAIRS = [["nixl-hixl", "native"], ["nixl-hixl", "nixl-ucx"]]
GOAL = 0.95


def parse(path):
    """{"info", "res": {(op, block_bytes, descs): {tool: [(MiB/s, desc/s,
    CPU s/GiB, post us)]}}, "na": {key: {tool: [reason]}}}"""
    p = {"info": {}, "res": {}, "na": {}, "split": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            p["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "res" and len(f) == 11 and f[2] in TOOLS:
            _, _, tool, op, bk, descs, _layers, nbytes, secs, cpu, post = f
            block, nb, s = int(bk) << 10, int(nbytes), float(secs)
            key = (op, block, int(descs))
            p["res"].setdefault(key, {}).setdefault(tool, []).append(
                (nb / s / MIB, nb / block / s, float(cpu) / (nb / GIB), float(post)))
        elif f[0] == "split" and len(f) == 7 and f[2] in TOOLS:
            p["split"].setdefault((f[3], f[2]), []).append(tuple(float(x) for x in f[4:7]))
        elif f[0] == "na" and len(f) >= 7 and f[2] in TOOLS:
            key = (f[3], int(f[4]) << 10, int(f[5]))
            p["na"].setdefault(key, {}).setdefault(f[2], []).append(" ".join(f[6:]))
    return p


def keys_of(p):
    return sorted(set(p["res"]) | set(p["na"]), key=lambda k: (k[0] != "write", k[1], k[2]))


def medians(p, key, idx):
    return {t: med([x[idx] for x in p["res"].get(key, {}).get(t, [])]) for t in TOOLS}


def why_na(p, key, tool):
    r = p["na"].get(key, {}).get(tool)
    return max(set(r), key=r.count) if r else None


def section(p, heading="## NIXL: NIXL+HIXL vs hixl's own API (and NIXL+UCX)"):
    """results.md's section, a list of lines."""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-nixl-guest.sh` in one VM boot (build/nixl/bench-nixl, a fresh process "
      f"per measurement; {info.get('config', '?')}): the main job's shape, KV blocks moved as "
      "layers of scattered descriptors (random permutations of the blocks on both sides, the "
      "same for every tool), 4 layers in flight, one unmeasured pass then 2 timed ones, every "
      "block compared with its source afterwards.  Two engines (agents) in one process over "
      "rxe0.  **native**: hixl's own API, `hixl_transfer_async()` of the layer's descriptor "
      "array, `hixl_get_transfer_status()` polled, `hixl_request_free()`.  **nixl-hixl**: "
      "NIXL " + info.get("nixl", "?") + "'s `nixlAgent` with the backend HIXL in vLLM "
      "NixlConnector's sequence: both sides' blocks prepped once (`prepXferDlist`, one "
      "descriptor per block), per layer `makeXferReq()` with the layer's block ids, "
      "`postXferReq()`, `getXferStatus()` polled, `releaseXferReq()`.  **nixl-ucx**: the "
      "same through NIXL's own UCX backend (UCX " + info.get("ucx", "?") + ", RC over rxe0, UD "
      "for the wire-up; the target agent runs NIXL's progress thread, which UCX needs to "
      "answer the wire-up).  The initiator of every tool polls the same way (its status "
      "call, then 50 us of sleep when none of its layers ended).  Interleaved per repetition, order rotating; medians (min..max).")
    w("")
    w("Columns: throughput; descriptors per second (blocks moved / s); whole-VM CPU s per "
      "GiB (`/proc/stat`); **submit us/layer**: wall microseconds per layer in the "
      "submitting calls (native: `hixl_transfer_async`; NIXL: `makeXferReq` + `postXferReq`, "
      "NIXL's descriptor lookup and the backend's `prepXfer`/`postXfer`).  Under QEMU/TCG "
      "(guest " + info.get("kernel", "?") + ", " + info.get("ncpu", "?") + " vCPUs on a "
      "shared 2-core host) only the ratios mean anything.")
    w("")
    w("| op | block | descs/layer | tool | MiB/s | descriptors/s | CPU s/GiB | "
      "submit us/layer |")
    w("|---|---|---|---|---|---|---|---|")
    for k in keys_of(p):
        for t in TOOLS:
            v = p["res"].get(k, {}).get(t, [])
            if v:
                cells = [spread([x[0] for x in v]), spread([x[1] for x in v], 0),
                         spread([x[2] for x in v], 2), spread([x[3] for x in v], 0)]
            else:
                why = why_na(p, k, t)
                cells = [f"n/a ({why})" if why else "-", "", "", ""]
            w(f"| {k[0]} | {k[1] >> 10} KiB | {k[2]} | {t} | " + " | ".join(cells) + " |")
    w("")
    w("| op | nixl-hixl / native (goal >= 0.95) | nixl-hixl / nixl-ucx | "
      "CPU s/GiB nixl-hixl / native | submit us/layer nixl-hixl - native |")
    w("|---|---|---|---|---|")
    for k in keys_of(p):
        m, c, s = medians(p, k, 0), medians(p, k, 2), medians(p, k, 3)
        r = ratio(m["nixl-hixl"], m["native"])
        mark = "" if r == "-" else (" (met)" if float(r) >= GOAL else " (missed)")
        d = (f"{s['nixl-hixl'] - s['native']:+.0f}"
             if s["nixl-hixl"] is not None and s["native"] is not None else "-")
        w(f"| {k[0]} | {r}{mark} | {ratio(m['nixl-hixl'], m['nixl-ucx'])} | "
          f"{ratio(c['nixl-hixl'], c['native'])} | {d} |")
    w("")
    if p["split"]:
        w("Where the submit and the polling went (medians): **makeXferReq us/layer**, the part "
          "of the submit in `makeXferReq` (NIXL's lookup of the layer's block ids in the "
          "prepped lists and the backend's `prepXfer`; the rest is `postXferReq`, for HIXL "
          "the same `hixl_transfer_async()` native makes); **status us/call**, one status "
          "call (native `hixl_get_transfer_status()`, NIXL `getXferStatus()` down to the "
          "backend's `checkXfer`); **status calls/layer**.")
        w("")
        w("| op | tool | makeXferReq us/layer | status us/call | status calls/layer |")
        w("|---|---|---|---|---|")
        for (op, t) in sorted(p["split"], key=lambda k: (k[0] != "write", TOOLS.index(k[1]))):
            v = p["split"][(op, t)]
            w(f"| {op} | {t} | {spread([x[0] for x in v], 0)} | {spread([x[1] for x in v], 2)} | "
              f"{spread([x[2] for x in v], 0)} |")
        w("")
    nf = info.get("failed_measurements")
    if nf and nf != "0":
        w(f"{nf} measurement(s) failed; their reason is in the cell.")
        w("")
    return out


def main():
    report_main("nixlreport", parse, section, lambda p: p["res"] or p["na"],
                "NIXL: NIXL+HIXL vs hixl's own API (and NIXL+UCX)", "bench-nixl")


if __name__ == "__main__":
    main()
