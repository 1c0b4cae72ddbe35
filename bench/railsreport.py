#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/railsreport.py - the rails section from the raw
lines of bench/bench-rails-guest.sh: one rail (rails-1) vs two rails
(rails-2) vs two rails with the second taken away mid-batch (rails-2-down),
WRITE and READ of one large batch, GB/s (10^9 bytes/s), the time the
taken-away rail cost against the undisturbed two-rail run, the bytes
verified and the packets each rail's rxe device sent.

bench/bench-results.py includes section() in results.md (make bench) and
passes parse() to bench/results_json.py (the `rails` table); run alone it
writes bench/results-rails.md (make bench-rails):

    bench/railsreport.py --raw RAW --kernel KVER --out bench/results-rails.md

Raw lines (bench/bench-rails.c, bench-rails-guest.sh):
"res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU", "na REP TOOL OP BLOCK
BATCH REASON...", "verified REP TOOL OP BYTES_EQUAL BYTES", "down REP TOOL
OP MS [why...]", "pkts REP TOOL OP rxe0 N rxe1 N", "info KEY VALUE...".
"""
from benchstats import med, ratio, report_main, size_name, spread

TOOLS = ["rails-1", "rails-2", "rails-2-down"]
# [measured, against]: the ratios the section and results.json give
PAIRS = [["rails-2", "rails-1"], ["rails-2-down", "rails-2"]]
GB = 1e9


def parse(path):
    """{"info", "res": {(op, block, batch): {tool: [(GB/s, CPU s, seconds)]}},
    "na": {key: {tool: [reason]}}, "verified": {(op, tool): [equal, total]},
    "down": {(op, tool): [ms]}, "pkts": {(op, tool): {dev: [n]}}}"""
    p = {"info": {}, "res": {}, "na": {}, "verified": {}, "down": {}, "pkts": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            p["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "res" and len(f) == 9 and f[2] in TOOLS:
            _, _, tool, op, block, batch, nbytes, secs, cpu = f
            key = (op, int(block), int(batch))
            p["res"].setdefault(key, {}).setdefault(tool, []).append(
                (int(nbytes) / float(secs) / GB, float(cpu), float(secs)))
        elif f[0] == "na" and len(f) >= 7 and f[2] in TOOLS:
            key = (f[3], int(f[4]), int(f[5]))
            p["na"].setdefault(key, {}).setdefault(f[2], []).append(" ".join(f[6:]))
        elif f[0] == "verified" and len(f) == 6 and f[2] in TOOLS:
            v = p["verified"].setdefault((f[3], f[2]), [0, 0])
            v[0] += int(f[4])
            v[1] += int(f[5])
        elif f[0] == "down" and len(f) >= 5 and f[2] in TOOLS:
            p["down"].setdefault((f[3], f[2]), []).append(float(f[4]))
        elif f[0] == "pkts" and len(f) == 8 and f[2] in TOOLS:
            d = p["pkts"].setdefault((f[3], f[2]), {})
            d.setdefault(f[4], []).append(int(f[5]))
            d.setdefault(f[6], []).append(int(f[7]))
    return p


def keys_of(p):
    return sorted(set(p["res"]) | set(p["na"]), key=lambda k: (k[0] != "write", k[1], k[2]))


def medians(p, key, idx):
    return {t: med([x[idx] for x in p["res"].get(key, {}).get(t, [])]) for t in TOOLS}


def section(p, heading="## Rails: one rail vs two, and two with rail 1 taken away"):
    """results.md's section, a list of lines."""
    info = p["info"]
    out = [heading, ""]
    w = out.append
    w("`bench/bench-rails-guest.sh` in one VM boot: two engines on "
      "10.77.0.1 (rxe0), Transport `rdma`, no staging pool, one `hixl_transfer_sync()` of "
      f"one batch ({info.get('config', '?')}: MiB and descriptor KiB), a fresh pair of "
      "engines per measurement.  **rails-1**: no extra rail; **rails-2**: both engines with "
      "the extra rail 10.78.0.1 (rxe1 on veth2; option `Rails`, SETUP's "
      "`HIXL_SETUP_RAILS`); **rails-2-down**: rails-2, and `rdma link delete rxe1` once the "
      "first bytes of the descriptor a quarter of the way in have landed (rail 1's device "
      "goes: its work requests flush and the batch fails over to rail 0), `rdma link add` "
      "again after the batch (its time includes the watching thread's polling, a check "
      "every 200 us until then, and the `rdma` command).  Interleaved per repetition, order rotating; "
      "medians (min..max) of the repetitions.  Every destination byte is compared with its "
      "source after each batch.")
    w("")
    w("What this measures: a batch of 1 MiB descriptors on two rails is striped (kmod/xrail.c: "
      "512 KiB chunks, each to the rail with the fewest bytes), so the packet columns (rxe's "
      "`sent_pkts` per device over the measurement) split about evenly; under QEMU/TCG both "
      "rails share the VM's vCPUs, so rails-2 / rails-1 is what the vCPUs allow, not what "
      "two NICs would.  rails-2-down's time lost is the failover: the rail's unfinished "
      "pieces posted again on rail 0.  No ratio is a goal or a test here.")
    w("")
    w(f"Guest: {info.get('kernel', '?')}, {info.get('ncpu', '?')} vCPUs under QEMU/TCG on a "
      "2-core host shared with other builds and VMs: absolute numbers mean nothing; compare "
      "within this boot only.  Rails: " + info.get("rails", "?") + ".")
    w("")
    w("| op | block | batch | rails-1 GB/s | rails-2 GB/s | rails-2-down GB/s | "
      "rails-2 / rails-1 | down / rails-2 | time lost to rail 1 going, s (median) | "
      "rail 1 down at, ms into the batch | bytes verified 1 / 2 / 2-down | "
      "packets rxe0 / rxe1 (median) 1; 2; 2-down |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def cellv(key, tool):
        v = spread([x[0] for x in p["res"].get(key, {}).get(tool, [])], 4)
        if v:
            return v
        reasons = p["na"].get(key, {}).get(tool)
        return f"n/a ({max(set(reasons), key=reasons.count)[:60]})" if reasons else "-"

    def verified(op, tool):
        v = p["verified"].get((op, tool))
        return f"{v[0]} of {v[1]}" if v else "-"

    def pkts(op, tool):
        d = p["pkts"].get((op, tool), {})

        def one(k):
            if not d.get(k):
                return "-"
            # a device deleted and added again starts its counters at 0
            return "re-added" if any(x < 0 for x in d[k]) else f"{med(d[k]):.0f}"
        return " / ".join(one(k) for k in ("rxe0", "rxe1"))

    for k in keys_of(p):
        op = k[0]
        m, secs = medians(p, k, 0), medians(p, k, 2)
        lost = (f"{secs['rails-2-down'] - secs['rails-2']:+.3f}"
                if secs["rails-2-down"] is not None and secs["rails-2"] is not None else "-")
        down = spread(p["down"].get((op, "rails-2-down"), []), 0) or "-"
        w(f"| {op} | {size_name(k[1])} | {k[2]} | " +
          " | ".join(cellv(k, t) for t in TOOLS) + " | " +
          f"{ratio(m['rails-2'], m['rails-1'])} | {ratio(m['rails-2-down'], m['rails-2'])} | "
          f"{lost} | {down} | " + " / ".join(verified(op, t) for t in TOOLS) + " | " +
          "; ".join(pkts(op, t) for t in TOOLS) + " |")
    w("")
    nf = info.get("failed_measurements")
    if nf and nf != "0":
        w(f"{nf} measurement(s) failed (their `na` reason is in the cell); their bytes are "
          "counted in the verified column as they landed.")
        w("")
    return out


def main():
    report_main("railsreport", parse, section, lambda p: p["res"] or p["na"],
                "Rails: one rail vs two, and a rail taken away", "bench-rails")


if __name__ == "__main__":
    main()
