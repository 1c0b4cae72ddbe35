#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/mooncakereport.py - the Mooncake report from the raw lines of
bench/bench-mooncake-guest.sh (bench/mcbench.py): Mooncake's
TransferEngine vs hixl.mooncake's, the same Python code, per point the
medians (min..max) of the repetitions and the ratio hixl / Mooncake:

  KV job      GB/s (10^9 bytes/s) of a pass of layers of 256 scattered
              32 KiB blocks, WRITE and READ; whole-VM CPU seconds per GiB
              (2^30 bytes) moved; bytes verified
  submit      Python-side microseconds to build and to submit one
              8,192-descriptor request (batch_transfer_async_write)
  reg         milliseconds to register (and unregister) the largest buffer
              that registered, and the sizes that failed, with the error

Where a side failed, the cell names the failing call and its error (the
"na"/"regfail" lines); no number is made up.  Run by bench/bench.sh
mooncake (`make bench-mooncake`):

    bench/mooncakereport.py --raw RAW --kernel KVER --out bench/results-mooncake.md

Raw lines: "kv REP IMPL OP LAYERS DESCS BLOCK BYTES SECONDS CPU_S",
"verified REP IMPL OP 0|1", "submit REP IMPL NDESCS BUILD_S SUBMIT_S",
"reg REP IMPL BYTES REG_S DEREG_S", "regfail REP IMPL BYTES REASON...",
"na REP IMPL WHAT REASON...", "info KEY VALUE...".
"""
from benchstats import GIB, med, ratio, report_main, size_name, spread

IMPLS = ["mooncake", "hixl"]
KV_IMPLS = IMPLS + ["hixl-c"]	# hixl's C API (bench/bench-gpu --sync): the KV job only
GB = 1e9


def parse(path):
    """{"info", "kv": {op: {impl: [(GB/s, CPU s/GiB, s, layers)]}},
    "verified": {(op, impl): [ok, n]}, "submit": {impl: [(build, submit)]},
    "reg": {impl: [(bytes, reg s, dereg s)]}, "regfail": {impl: {bytes: [why]}},
    "na": {what: {impl: [why]}}}"""
    p = {"info": {}, "kv": {}, "verified": {}, "submit": {}, "reg": {}, "regfail": {}, "na": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            p["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "kv" and len(f) == 10 and f[2] in KV_IMPLS:
            n, secs, cpu = int(f[7]), float(f[8]), float(f[9])
            p["kv"].setdefault(f[3], {}).setdefault(f[2], []).append(
                (n / secs / GB, cpu / (n / GIB), secs, int(f[4])))
        elif f[0] == "verified" and len(f) == 5 and f[2] in KV_IMPLS:
            v = p["verified"].setdefault((f[3], f[2]), [0, 0])
            v[0] += int(f[4])
            v[1] += 1
        elif f[0] == "submit" and len(f) == 6 and f[2] in IMPLS:
            p["submit"].setdefault(f[2], []).append((float(f[4]), float(f[5])))
        elif f[0] == "reg" and len(f) == 6 and f[2] in IMPLS:
            p["reg"].setdefault(f[2], []).append((int(f[3]), float(f[4]), float(f[5])))
        elif f[0] == "regfail" and len(f) >= 4 and f[2] in IMPLS:
            p["regfail"].setdefault(f[2], {}).setdefault(int(f[3]), []).append(" ".join(f[4:]))
        elif f[0] == "na" and len(f) >= 4 and f[2] in KV_IMPLS:
            p["na"].setdefault(f[3], {}).setdefault(f[2], []).append(" ".join(f[4:]))
    return p


def why(p, impl, *whats):
    """the most frequent failure reason of impl for any of whats, or None"""
    r = [x for w in whats for x in p["na"].get(w, {}).get(impl, [])]
    return max(set(r), key=r.count)[:240] if r else None


def cell(v, digits, p, impl, *whats):
    """median (min..max) of v, or "n/a (reason)", or "-" """
    s = spread(v, digits)
    if s:
        return s
    r = why(p, impl, *whats)
    return f"n/a: {r}" if r else "-"


def section(p, heading="## Results"):
    """the report's body, a list of lines"""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-mooncake-guest.sh` in one VM boot: the same Python code (`bench/mcbench.py`) "
      "against **mooncake**, Mooncake's own `mooncake.engine.TransferEngine` "
      f"({info.get('mooncake') or 'not built'}; built by `scripts/build-mooncake.sh`, protocol "
      "`rdma`, `MC_TE_FILTERS=rxe0`, metadata `P2PHANDSHAKE`), and **hixl**, "
      "`hixl.mooncake.TransferEngine` (the same calls, `HIXL_TRANSPORT=rdma`): two engines, "
      "initiator and target in two processes, on 10.77.0.1 (rxe0, Soft-RoCE).  Per repetition "
      f"({info.get('config', '?')}) the two take turns, the order rotating; a fresh pair of "
      "processes per measurement.  Medians (min..max) of the repetitions; the ratio is "
      "hixl / Mooncake of the medians (above 1: hixl moves more, or takes longer / more CPU, "
      "as the column says).")
    w("")
    if info.get("mooncake_na"):
        w(f"**Mooncake was not measured**: {info['mooncake_na']}.")
        w("")
    w(f"Guest: {info.get('kernel', '?')}, {info.get('ncpu', '?')} vCPUs, "
      f"{info.get('mem_mib', '?')} MiB under QEMU/TCG on a 2-core host shared with other builds "
      f"and VMs; Python {info.get('python', '?')}.  Absolute numbers mean little; compare "
      "within this boot only.")
    w("")
    w("### KV job: layers of 256 scattered 32 KiB blocks")
    w("")
    w("One `batch_transfer_sync_write` (`_read`) per layer with three lists of 256 ints "
      "(local addresses, remote addresses, lengths: two random block permutations a layer), "
      "the layers one after another, after an untimed warm-up layer (the first transfer "
      "connects).  CPU: whole-VM busy seconds (user + nice + system + irq + softirq + steal "
      "of /proc/stat: both engines and rxe's softirq work) over the pass, per GiB moved.  "
      "Every byte is checked after the pass (WRITE: crc32 of the target's buffer against "
      "the expected image; READ: the initiator's buffer against the target's pattern).")
    w("")
    w("**hixl-c** is hixl's own C API on the same shape (`bench/bench-gpu --mem host --sync`: "
      "one `hixl_transfer_sync()` of 256 scattered 32 KiB blocks a layer, the layers one "
      "after another, after an untimed pass; both engines in one process): what the Python "
      "layer of hixl.mooncake costs against it.")
    w("")
    w("| op | layers | mooncake GB/s | hixl GB/s | hixl-c GB/s | hixl / mooncake | "
      "hixl-c / mooncake | mooncake CPU s/GiB | hixl CPU s/GiB | hixl-c CPU s/GiB | "
      "hixl / mooncake CPU | verified mooncake / hixl / hixl-c |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for op in ("write", "read"):
        d = p["kv"].get(op, {})
        gbs = {i: [x[0] for x in d.get(i, [])] for i in KV_IMPLS}
        cpu = {i: [x[1] for x in d.get(i, [])] for i in KV_IMPLS}
        layers = sorted({x[3] for i in KV_IMPLS for x in d.get(i, [])})
        ver = []
        for i in KV_IMPLS:
            v = p["verified"].get((op, i))
            ver.append(f"{v[0]} of {v[1]} passes" if v else "-")
        w(f"| {op.upper()} | {','.join(map(str, layers)) or '-'} | "
          f"{cell(gbs['mooncake'], 3, p, 'mooncake', op, 'kv', 'target', 'register', 'initialize')} | "
          f"{cell(gbs['hixl'], 3, p, 'hixl', op, 'kv', 'target', 'register', 'initialize')} | "
          f"{cell(gbs['hixl-c'], 3, p, 'hixl-c', op)} | "
          f"{ratio(med(gbs['hixl']), med(gbs['mooncake']))} | "
          f"{ratio(med(gbs['hixl-c']), med(gbs['mooncake']))} | "
          f"{cell(cpu['mooncake'], 2, p, 'mooncake', op, 'kv')} | "
          f"{cell(cpu['hixl'], 2, p, 'hixl', op, 'kv')} | "
          f"{cell(cpu['hixl-c'], 2, p, 'hixl-c', op)} | "
          f"{ratio(med(cpu['hixl']), med(cpu['mooncake']))} | {' / '.join(ver)} |")
    w("")
    w("### Python cost of one 8,192-descriptor request")
    w("")
    w("64 layers x 128 blocks of 64 B (`bench/pysubmit.py`'s shape): **build**, the three "
      "Python lists of ints from the block ids (the same loop for both, in the initiator's "
      "process with its engine loaded: a difference there is what else runs on the VM's "
      "vCPUs meanwhile, e.g. the engines' own threads, not the loop); **submit**, "
      "`batch_transfer_async_write()` until it returns (the engine's Python binding reading "
      "the lists, and queueing the request); the wait "
      "(`get_batch_transfer_status`) is not timed.  Microseconds.")
    w("")
    w("| step | mooncake us | hixl us | hixl / mooncake |")
    w("|---|---|---|---|")
    for k, name in ((0, "build"), (1, "submit"), (None, "build + submit")):
        v = {}
        for i in IMPLS:
            v[i] = [(x[0] + x[1] if k is None else x[k]) * 1e6 for x in p["submit"].get(i, [])]
        w(f"| {name} | {cell(v['mooncake'], 0, p, 'mooncake', 'submit', 'kv')} | "
          f"{cell(v['hixl'], 0, p, 'hixl', 'submit', 'kv')} | "
          f"{ratio(med(v['hixl']), med(v['mooncake']))} |")
    w("")
    w("### Registration")
    w("")
    cfg = info.get("config", "").split()
    times = cfg[cfg.index("reg_times") + 1] if "reg_times" in cfg[:-1] else "1"
    w(f"`register_memory()` of one anonymous buffer, every page touched first, "
      "then `unregister_memory()`, a fresh engine per repetition, each size that registers "
      f"{times} times over in it (cells: median (min..max) of all of them): "
      f"{info.get('config', '').split('reg_mib ')[-1] or '1024'} MiB first, then halving "
      "down to 256 MiB, and further while a size fails.  2 GiB is not tried "
      "(../shared/third_party/README-mooncake.md: Mooncake's registration of 2 GiB on rxe "
      "fails with ENOMEM and a kernel WARNING in rxe).  The sizes go largest first in one "
      "process: compare a row across the two engines, not the rows of a column with each "
      "other.  Milliseconds.")
    w("")
    w("| buffer | mooncake register ms | hixl register ms | hixl / mooncake | "
      "mooncake unregister ms | hixl unregister ms | hixl / mooncake |")
    w("|---|---|---|---|---|---|---|")
    sizes = sorted({x[0] for i in IMPLS for x in p["reg"].get(i, [])} |
                   {n for i in IMPLS for n in p["regfail"].get(i, {})}, reverse=True)
    for n in sizes:
        row = []
        for idx in (1, 2):
            v = {i: [x[idx] * 1e3 for x in p["reg"].get(i, []) if x[0] == n] for i in IMPLS}
            cells = []
            for i in IMPLS:
                c = spread(v[i], 2)
                if not c:
                    rs = p["regfail"].get(i, {}).get(n)
                    c = (f"failed ({len(rs)}x): {max(set(rs), key=rs.count)[:200]}" if rs and idx == 1
                         else "failed" if rs else "-")
                cells.append(c)
            row += cells + [ratio(med(v["hixl"]), med(v["mooncake"]))]
        w(f"| {size_name(n)} | " + " | ".join(row) + " |")
    for i in IMPLS:
        ok = [x[0] for x in p["reg"].get(i, [])]
        w("")
        w(f"Largest buffer {i} registered: {size_name(max(ok)) if ok else 'none'}"
          + (f" ({why(p, i, 'reg')})" if not ok and why(p, i, "reg") else "") + ".")
    w("")
    other = {k: v for k, v in p["na"].items() if k not in ("write", "read", "submit", "reg")}
    if other:
        w("Other failures: " + "; ".join(
            f"{i} {k}: {max(set(r), key=r.count)[:240]}" for k, d in other.items()
            for i, r in d.items()) + ".")
        w("")
    nf = info.get("failed_measurements")
    if nf and nf != "0":
        w(f"{nf} measurement process(es) exited non-zero (their reason is in the cells above).")
        w("")
    w("### Goal: hixl at least as fast as Mooncake at every point, at most 0.7x its CPU per GiB")
    w("")
    gl = goals(p)
    for name, r, good in gl:
        w(f"- {name}: " + ("not measured" if r is None else
                           f"{r:.2f}, {'met' if good else 'NOT met'}") + ".")
    w("")
    if any(r is not None and not good and "register" in name for name, r, good in gl):
        w("Where registration's time goes: `make bench-reg` (hixl's REG_MEM and DEREG_MEM "
          "beside `ibv_reg_mr()` / `ibv_dereg_mr()` on the same buffers, results.md's "
          "registration section) and docs/developing.md, \"Registration beside ib_umem\" "
          "(a traced breakdown).")
        w("")
    w("Not measured here: Mooncake's C++ `submitTransfer` path (`transfer_engine_bench`, which "
      "scripts/build-mooncake.sh puts in the prefix's bin/) and the TCP protocol.")
    w("")
    return out


def goals(p):
    """[(point, ratio or None, goal met)]: throughput hixl / Mooncake >= 1.0
    and CPU per GiB hixl / Mooncake <= 0.7 for each op of the KV job, and
    Mooncake's time / hixl's >= 1.0 for the submit cost and for every
    buffer size's registration and unregistration both registered."""
    out = []
    for op in ("write", "read"):
        d = p["kv"].get(op, {})
        g = {i: med([x[0] for x in d.get(i, [])]) for i in KV_IMPLS}
        c = {i: med([x[1] for x in d.get(i, [])]) for i in KV_IMPLS}
        for h, name in (("hixl", "hixl"), ("hixl-c", "hixl's C API")):
            r = g[h] / g["mooncake"] if g[h] and g["mooncake"] else None
            out.append((f"KV job {op.upper()} throughput, {name} / Mooncake", r,
                        r is not None and r >= 1.0))
            r = c[h] / c["mooncake"] if c[h] and c["mooncake"] else None
            out.append((f"KV job {op.upper()} CPU s/GiB, {name} / Mooncake", r,
                        r is not None and r <= 0.7))
    t = {i: med([x[0] + x[1] for x in p["submit"].get(i, [])]) for i in IMPLS}
    r = t["mooncake"] / t["hixl"] if t["hixl"] and t["mooncake"] else None
    out.append(("8,192-descriptor request build + submit, Mooncake's time / hixl's", r,
                r is not None and r >= 1.0))
    sizes = sorted({x[0] for x in p["reg"].get("hixl", [])} &
                   {x[0] for x in p["reg"].get("mooncake", [])}, reverse=True)
    for n in sizes:
        for idx, what in ((1, "register"), (2, "unregister")):
            t = {i: med([x[idx] for x in p["reg"][i] if x[0] == n]) for i in IMPLS}
            r = t["mooncake"] / t["hixl"] if t["hixl"] and t["mooncake"] else None
            out.append((f"{what} {size_name(n)}, Mooncake's time / hixl's", r,
                        r is not None and r >= 1.0))
    return out


def main():
    report_main("mooncakereport", parse, section,
                lambda p: p["kv"] or p["na"] or p["reg"] or p["regfail"],
                "Mooncake's TransferEngine beside hixl.mooncake", "bench-mooncake")


if __name__ == "__main__":
    main()
