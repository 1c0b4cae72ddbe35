#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/gpureport.py - device memory beside host memory at the KV job's
shape, from the raw lines of bench/bench-gpu-guest.sh: GB/s (10^9
bytes/s) and whole-VM CPU s/GiB of the initiator's KV cache in host memory
(gpu-host), in the stand-in GPU's memory registered peer-to-peer
(gpu-p2p) and registered staged (gpu-staged), WRITE and READ, the ratios
to host memory, the bytes verified and, for staged, the bytes the engine's
counter says went through its bounce buffers.

Run alone it writes bench/results-gpu.md (make bench-gpu):

    bench/gpureport.py --raw RAW --kernel KVER --out bench/results-gpu.md

Raw lines (bench/bench-gpu.c): "res REP TOOL OP BLOCK BATCH BYTES SECONDS
CPU", "na REP TOOL OP BLOCK BATCH REASON...", "verified REP TOOL OP
BYTES_EQUAL BYTES", "staged REP TOOL OP BYTES", "info KEY VALUE...".
"""
from benchstats import GIB, med, ratio, report_main, size_name, spread

TOOLS = ["gpu-host", "gpu-p2p", "gpu-staged"]
GB = 1e9


def parse(path):
    """{"info", "res": {(op, block, batch): {tool: [(GB/s, CPU s/GiB)]}},
    "na": {key: {tool: [reason]}}, "verified": {(op, tool): [equal, total]},
    "staged": {op: [bytes]}}"""
    p = {"info": {}, "res": {}, "na": {}, "verified": {}, "staged": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            p["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "res" and len(f) == 9 and f[2] in TOOLS:
            _, _, tool, op, block, batch, nbytes, secs, cpu = f
            p["res"].setdefault((op, int(block), int(batch)), {}).setdefault(tool, []).append(
                (int(nbytes) / float(secs) / GB, float(cpu) / (int(nbytes) / GIB)))
        elif f[0] == "na" and len(f) >= 7 and f[2] in TOOLS:
            key = (f[3], int(f[4]), int(f[5]))
            p["na"].setdefault(key, {}).setdefault(f[2], []).append(" ".join(f[6:]))
        elif f[0] == "verified" and len(f) == 6 and f[2] in TOOLS:
            v = p["verified"].setdefault((f[3], f[2]), [0, 0])
            v[0] += int(f[4])
            v[1] += int(f[5])
        elif f[0] == "staged" and len(f) == 5:
            p["staged"].setdefault(f[3], []).append(int(f[4]))
    return p


def section(p, heading="## Device memory: peer-to-peer and staged beside host memory"):
    """The report's section, a list of lines."""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-gpu-guest.sh` in one VM boot: two engines on 10.77.0.1 (rxe0), Transport "
      "`rdma`, no staging pool; the initiator's KV cache "
      f"({info.get('config', '?')}) moved to or from the other engine's host memory, one "
      "`hixl_transfer_async()` a layer with every layer in flight, each layer's blocks "
      "scattered on both sides; a fresh pair of engines per measurement, interleaved per "
      "repetition with the order rotating; medians (min..max).  **gpu-host**: the KV cache "
      "in host memory; **gpu-p2p**: in the stand-in CUDA driver's device memory "
      "(tests/gpu/fake_cuda.c), registered by address and exported as a dma-buf "
      "(`DeviceMemPath` `p2p`); **gpu-staged**: the same memory registered staged "
      "(`DeviceMemPath` `staged`, lib/staged.c: four 1 MiB pinned bounce buffers a "
      "transfer, the copies pipelined with the RDMA).  Every moved byte is compared with "
      "its source afterwards (device memory through `cuMemcpyDtoH`).")
    w("")
    w("What this measures and what it does not: the stand-in's device memory is a memfd, "
      "its `cuMemcpy*Async` copies `pread`/`pwrite` on a thread per stream, so a staged "
      "round's two copies run on the VM's own vCPUs, competing with rxe for them; a GPU's "
      "copy engine would take them off the CPU.  What the ratio shows is the pipeline's "
      "overhead and overlap under that handicap, not a GPU's.  Over rxe, peer-to-peer "
      "device memory is read through the udmabuf's kernel mapping like host memory.")
    w("")
    w(f"Guest: {info.get('kernel', '?')}, {info.get('ncpu', '?')} vCPUs under QEMU/TCG: "
      "absolute numbers mean nothing; compare within this boot only.")
    w("")
    if info.get("skipped"):
        w(f"Not measured: {info['skipped']}.")
        w("")
        return out
    w("| op | block | descriptors | gpu-host GB/s | gpu-p2p GB/s | gpu-staged GB/s | "
      "p2p / host | staged / host | CPU s/GiB host / p2p / staged | bytes verified "
      "host / p2p / staged | staged bytes through bounce buffers (median) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")

    def cell(key, tool, idx, digits):
        v = spread([x[idx] for x in p["res"].get(key, {}).get(tool, [])], digits)
        if v:
            return v
        reasons = p["na"].get(key, {}).get(tool)
        return f"n/a ({max(set(reasons), key=reasons.count)[:60]})" if reasons else "-"

    def verified(op, tool):
        v = p["verified"].get((op, tool))
        return f"{v[0]} of {v[1]}" if v else "-"

    keys = sorted(set(p["res"]) | set(p["na"]), key=lambda k: (k[0] != "write", k[1], k[2]))
    for k in keys:
        m = {t: med([x[0] for x in p["res"].get(k, {}).get(t, [])]) for t in TOOLS}
        cpu = {t: med([x[1] for x in p["res"].get(k, {}).get(t, [])]) for t in TOOLS}
        st = med(p["staged"].get(k[0], []))
        w(f"| {k[0]} | {size_name(k[1])} | {k[2]} | " +
          " | ".join(cell(k, t, 0, 4) for t in TOOLS) + " | " +
          f"{ratio(m['gpu-p2p'], m['gpu-host'])} | {ratio(m['gpu-staged'], m['gpu-host'])} | " +
          " / ".join(f"{cpu[t]:.2f}" if cpu[t] is not None else "-" for t in TOOLS) + " | " +
          " / ".join(verified(k[0], t) for t in TOOLS) + " | " +
          (f"{st:.0f}" if st is not None else "-") + " |")
    w("")
    nf = info.get("failed_measurements")
    if nf and nf != "0":
        w(f"{nf} measurement(s) failed (their `na` reason is in the cell).")
        w("")
    return out


def main():
    report_main("gpureport", parse, section, lambda p: p["res"] or p["na"] or
                p["info"].get("skipped"),
                "Device memory beside host memory: peer-to-peer and staged", "bench-gpu")


if __name__ == "__main__":
    main()
