#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/bench/test-results-json.py - bench/results.json and bench/bench-diff.py
on the build host (no VM, no device, stdlib only; no plot, so no matplotlib).

Runs bench/bench-results.py on the synthetic raw lines of fixtures/ (the
format bench/bench-matrix prints: res, na, memcpy, info) and checks the JSON
against schema 1 (bench/results_json.py, docs/developing.md "Benchmarks"):
every median/min/max is that of the fixture's repetitions, every ratio the
hixl median / peer median, every summary the geometric mean of its ratios,
sections without raw lines absent.  Then bench-diff.py on fixtures A and B
(B: hixl sync WRITE 4 KiB batch 1 slower beyond its spread, 20 (19..21) ->
14 (13..15) MiB/s; hixl async READ 64 KiB batch 1 slower within it, 50
(45..55) -> 44 (40..52): its median below A's min, its max above it) must
flag exactly the first; the same-host section (--local, fixtures/raw-local.txt,
bench/localreport.py) must give the local and local_cpu tables with the
fixture's medians and ratios and results.md the goal lines; the rails
section (--rails, fixtures/raw-rails.txt, bench/railsreport.py) the rails
table (GB/s medians, ratios, bytes verified, a failed measurement as n/a)
and the time lost in results.md; the NIXL section (--nixl,
fixtures/raw-nixl.txt, bench/nixlreport.py) the nixl and nixl_descs tables
and the goal line in results.md; the
--from-md import of the results.md written from A must give A's numbers
back; the committed bench/results.json must pass the schema.  TAP output.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.join(REPO, "bench"))
import results_json  # noqa: E402

n_test = 0
failed = 0


def ok(cond, name, detail=""):
    global n_test, failed
    n_test += 1
    if cond:
        print(f"ok {n_test} - {name}")
    else:
        failed += 1
        print(f"not ok {n_test} - {name}")
        for l in str(detail).splitlines()[:20]:
            print(f"# {l}")


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO)


def results(tmp, name, raw, *extra):
    out = os.path.join(tmp, name)
    p = run("bench/bench-results.py", "--raw", os.path.join(FIX, raw), "--machine", "x86_64",
            "--kernel", "k", "--out", out + ".md", "--json", out + ".json", *extra)
    ok(p.returncode == 0, f"bench-results.py writes {name}.json", p.stderr)
    try:
        return json.load(open(out + ".json"))
    except (OSError, ValueError) as e:
        ok(False, f"{name}.json loads", e)
        return {"tables": {}}


def raw_values(raw):
    """(op, block, batch) -> tool -> [MiB/s, ...], [CPU s/GiB, ...]"""
    out = {}
    for line in open(os.path.join(FIX, raw)):
        f = line.split()
        if f and f[0] == "res":
            nbytes, secs, cpu = int(f[6]), float(f[7]), float(f[8])
            t = out.setdefault((f[3], int(f[4]), int(f[5])), {}).setdefault(f[2], ([], []))
            t[0].append(nbytes / secs / (1 << 20))
            t[1].append(cpu / (nbytes / (1 << 30)))
    return out


def close(a, b, rel=1e-3, absolute=0.0):
    return a is not None and b is not None and abs(a - b) <= max(rel * abs(b), absolute)


def check_doc(doc, raw, name):
    errs = results_json.check(doc)
    ok(not errs, f"{name}: passes results_json.check()", "\n".join(errs))
    ok(doc.get("schema") == "hixl-bench-results" and doc.get("schema_version") == 1,
       f"{name}: schema hixl-bench-results version 1")
    ok(doc.get("repetitions") == 3 and doc.get("kernel") == "6.12.0-test-amd64"
       and doc.get("tools", {}).get("perftest") == "4.5-test"
       and doc.get("machine", {}).get("guest_vcpus") == 2,
       f"{name}: repetitions, kernel, tool versions, machine from the info lines",
       {k: v for k, v in doc.items() if k != "tables"})
    mc = [268435456 / s / (1 << 20) for s in (0.25, 0.2, 0.225)]
    ok(close(doc.get("memcpy_mib_s", {}).get("median"), statistics.median(mc)),
       f"{name}: memcpy median", doc.get("memcpy_mib_s"))
    vals = raw_values(raw)
    bad = []
    for tname, idx in (("throughput", 0), ("cpu", 1)):
        t = doc["tables"].get(tname, {"points": []})
        if len(t["points"]) != len(vals):
            bad.append(f"{tname}: {len(t['points'])} points, raw has {len(vals)}")
        for pt in t["points"]:
            k = (pt["op"], pt["block"], pt["batch"])
            for tool, v in vals.get(k, {}).items():
                s = pt["values"].get(tool)
                x = v[idx]
                if not s or not (close(s["median"], statistics.median(x)) and
                                 close(s["min"], min(x)) and close(s["max"], max(x)) and
                                 s["n"] == len(x)):
                    bad.append(f"{tname} {k} {tool}: {s} vs {x}")
            if "ucx" in pt["values"] or "ucx" not in pt.get("na", {}):
                bad.append(f"{tname} {k}: ucx has values or no n/a reason")
    ok(not bad, f"{name}: every median, min, max and n is the fixture's", "\n".join(bad))
    bad = []
    for tname, t in doc["tables"].items():
        for pt in t["points"]:
            for h, p in t["pairs"]:
                r = pt["ratios"].get(f"{h}/{p}")
                v = pt["values"]
                if h in v and p in v:
                    want = v[h]["median"] / v[p]["median"]
                    # registration and submission: the ratio their table printed
                    exact = tname in ("throughput", "cpu")
                    if not close(r, want, 1e-3 if exact else 0, 0 if exact else 0.006):
                        bad.append(f"{tname} {pt}: {h}/{p} {r} != {want}")
                elif r is not None:
                    bad.append(f"{tname} {pt}: ratio {h}/{p} without both medians")
        for g, pairs in t["summary"].items():
            for pair, s in pairs.items():
                rs = [pt["ratios"][pair] for pt in t["points"]
                      if str(pt[t["key"][0]]) == g and pair in pt["ratios"]]
                gm = math.exp(sum(map(math.log, rs)) / len(rs))
                if s["points"] != len(rs) or not close(s["geomean"], gm):
                    bad.append(f"{tname} summary {g} {pair}: {s} vs {gm} over {len(rs)}")
    ok(not bad, f"{name}: every ratio = hixl median / peer median, every geomean of them",
       "\n".join(bad))


def main():
    tmp = tempfile.mkdtemp(prefix="hixl-bench-json.")
    reg, sub = os.path.join(FIX, "reg.md"), os.path.join(FIX, "submit.md")
    a = results(tmp, "a", "raw-a.txt", "--reg", reg, "--submit", sub)
    check_doc(a, "raw-a.txt", "A")
    ok(sorted(a["tables"]) == ["cpu", "registration", "submit", "throughput"],
       "A: the tables its lines have, and no others (latency, main job absent)",
       sorted(a["tables"]))
    t = a["tables"].get("registration", {"points": []})
    thp = [p for p in t["points"] if p["buffer"] == "2 MiB THP" and p["step"] == "reg"]
    ok(len(t["points"]) == 4 and thp and thp[0]["values"]["hixl"] ==
       {"median": 15.0, "min": 9.0, "max": 30.0, "n": 5}
       and thp[0]["info"].get("hixl runs") == "252",
       "A: registration points from bench-reg's table, extra columns in info", t["points"])
    t = a["tables"].get("submit", {"points": []})
    ok([(p["op"], p["batch"], p["ratios"]) for p in t["points"]] ==
       [("write", 1, {"uring/ioctl": 1.25}), ("read", 1, {"uring/ioctl": 1.5})],
       "A: submission points from bench-submit's table", t["points"])
    md = open(os.path.join(tmp, "a.md")).read()
    ok("bench/results.json" in md, "results.md names results.json")

    # latency (bench-lat's lines) and the main job (make bench-default's)
    d = results(tmp, "d", "raw-b.txt", "--lat", os.path.join(FIX, "raw-lat.txt"),
                "--mainjob", os.path.join(FIX, "mainjob.txt"))
    ok(not results_json.check(d) and {"latency", "main_job"} <= set(d["tables"]),
       "D: --lat and --mainjob give the latency and main_job tables, valid",
       results_json.check(d) or sorted(d["tables"]))
    t = d["tables"].get("latency", {"points": []})
    p50 = [p for p in t["points"] if (p["op"], p["size"], p["stat"]) == ("write", 64, "p50")]
    ok(p50 and p50[0]["values"]["hixl-poll"] == {"median": 100.0, "min": 90.0, "max": 110.0, "n": 3}
       and p50[0]["values"]["perftest"] == {"median": 45.0, "min": 40.0, "max": 50.0, "n": 2}
       and close(p50[0]["ratios"]["hixl-poll/perftest"], 100.0 / 45.0)
       and close(p50[0]["ratios"]["hixl-poll/hixl-nopoll"], 100.0 / 125.0),
       "D: latency p50 medians over the repetitions, perftest's 'inf' left out, ratios "
       "of medians", t["points"])
    ok(set(t.get("summary", {})) == {"p50", "p99"}, "D: latency summary per percentile",
       t.get("summary"))
    md = open(os.path.join(tmp, "d.md")).read()
    row = [l for l in md.splitlines() if l.startswith("| WRITE | 64 B | 7 | 3 | 37 |")]
    ok(len(row) == 1 and row[0].endswith("| 32 | n/a | n/a | 90 |")
       and "hixl's own time per TRANSFER (p50, traced): 23 us, goal 10 us: not met" in md
       and "37 us after hixl's, 9 us when the floor posts at once, 32 us after a 20 us gap" in md,
       "D: the traced stages' table (a stage not traced is n/a) and its goal line", row)
    t = d["tables"].get("main_job", {"points": []})
    w = [p for p in t["points"] if p["op"] == "write"]
    r = [p for p in t["points"] if p["op"] == "read"]
    ok(w and w[0]["block"] == 32768 and w[0]["values"]["defaults"]["median"] == 55.0
       and close(w[0]["ratios"]["defaults/best"], 55.0 / 58.0)
       and close(w[0]["ratios"]["defaults/perftest"], 55.0 / 40.0)
       and close(w[0]["ratios"]["defaults/v0.2"], 55.0 / 33.0)
       and r and r[0]["ratios"] == {"defaults/perftest": 2.0},
       "D: main job medians and ratios; a pair without both medians is left out", t["points"])

    # the same-host section (bench/localreport.py, bench-local-guest.sh's lines)
    e = results(tmp, "e", "raw-b.txt", "--local", os.path.join(FIX, "raw-local.txt"))
    ok(not results_json.check(e) and {"local", "local_cpu"} <= set(e["tables"]),
       "E: --local gives the local and local_cpu tables, valid",
       results_json.check(e) or sorted(e["tables"]))
    t = e["tables"].get("local", {"points": []})
    mib = lambda secs: 64.0 / secs  # noqa: E731  (64 MiB moved)
    w64 = [p for p in t["points"] if (p["op"], p["block"], p["batch"]) == ("write", 65536, 1)]
    r4m = [p for p in t["points"] if (p["op"], p["block"], p["batch"]) == ("read", 4194304, 8)]
    want1 = statistics.median([mib(0.128), mib(0.064), mib(0.1)])
    wantp = statistics.median([mib(0.05), mib(0.04), mib(0.08)])
    wantu = statistics.median([mib(0.032), mib(0.064)])
    ok(len(t["points"]) == 2 and w64 and r4m
       and close(w64[0]["values"]["hixl-local-1"]["median"], want1)
       and w64[0]["values"]["hixl-local-1"]["n"] == 3
       and close(w64[0]["values"]["memcpy"]["median"], mib(0.1))
       and close(w64[0]["values"]["ucx-intra"]["median"], wantu)
       and close(w64[0]["ratios"]["hixl-local-par/memcpy"], wantp / mib(0.1))
       and close(w64[0]["ratios"]["hixl-local-par/ucx-intra"], wantp / wantu)
       and close(w64[0]["ratios"]["hixl-local-par/hixl-local-1"], wantp / want1)
       and close(w64[0]["ratios"]["hixl-local-par/hixl-rdma"], wantp / mib(1.0))
       and w64[0]["na"] == {"ucx-intra": "ucx_perftest: cma failed"}
       and "hixl-sync" not in w64[0]["values"]
       and close(r4m[0]["values"]["memcpy"]["median"], mib(0.032))
       and "hixl-local-par/ucx-intra" not in r4m[0]["ratios"],
       "E: local medians per tool, memcpy of the block at every op and batch, ratios of "
       "medians, UCX's n/a reason, other tools' lines ignored", t["points"])
    t = e["tables"].get("local_cpu", {"points": []})
    w64 = [p for p in t["points"] if (p["op"], p["block"], p["batch"]) == ("write", 65536, 1)]
    ok(w64 and t.get("better") == "lower"
       and close(w64[0]["values"]["hixl-local-par"]["median"], 0.1 * 16)
       and close(w64[0]["values"]["memcpy"]["median"], 0.1 * 16),
       "E: local_cpu is CPU s/GiB (whole VM for hixl; memcpy's own getrusage)", t["points"])
    md = open(os.path.join(tmp, "e.md")).read()
    ok("## Same-host links: kernel copy vs rxe" in md and "UCX_TLS=cma,posix" in md
       and "one stream >= 0.8x memcpy (`hixl-local-1/memcpy`): met at 1 of 2 points" in md
       and "parallel > 1.0x memcpy (`hixl-local-par/memcpy`): met at 2 of 2 points" in md
       and "parallel >= 1.0x UCX intra-host (`hixl-local-par/ucx-intra`): met at 0 of 1" in md,
       "E: results.md's same-host section says which UCX transport ran and the goal per pair",
       md[md.find("## Same-host"):][:3000])
    p = run("bench/localreport.py", "--raw", os.path.join(FIX, "raw-local.txt"), "--kernel", "k",
            "--out", os.path.join(tmp, "local.md"))
    lm = open(os.path.join(tmp, "local.md")).read() if p.returncode == 0 else ""
    ok(p.returncode == 0 and "| write | 64 KiB | 1 |" in lm and "| read | 4 MiB | 8 |" in lm,
       "localreport.py alone writes results-local.md's table", p.stderr + lm[:2000])

    # the rails section (bench/railsreport.py, bench-rails-guest.sh's lines)
    f = results(tmp, "f", "raw-b.txt", "--rails", os.path.join(FIX, "raw-rails.txt"))
    t = f["tables"].get("rails", {"points": []})
    gbs = lambda secs: 67108864 / secs / 1e9  # noqa: E731
    w = [pt for pt in t["points"] if pt["op"] == "write"]
    r = [pt for pt in t["points"] if pt["op"] == "read"]
    want1 = statistics.median([gbs(2.0), gbs(2.2), gbs(1.6)])
    want2 = statistics.median([gbs(2.5), gbs(2.0), gbs(2.2)])
    wantd = statistics.median([gbs(3.0), gbs(4.0)])
    ok(not results_json.check(f) and t.get("unit") == "GB/s" and len(w) == 1 and len(r) == 1
       and w[0]["block"] == 1048576 and w[0]["batch"] == 64
       and close(w[0]["values"]["rails-1"]["median"], want1, 0, 1e-4)
       and close(w[0]["values"]["rails-2"]["median"], want2, 0, 1e-4)
       and w[0]["values"]["rails-2-down"]["n"] == 2
       and close(w[0]["values"]["rails-2-down"]["median"], wantd, 0, 1e-4)
       and close(w[0]["ratios"]["rails-2/rails-1"], want2 / want1)
       and close(w[0]["ratios"]["rails-2-down/rails-2"], wantd / want2)
       and "Connection reset" in w[0]["na"]["rails-2-down"]
       and w[0]["info"]["rails-2-down verified"] == f"{2 * 67108864 + 20971520} of "
       f"{3 * 67108864} bytes"
       and w[0]["info"]["rails-2-down down_ms"] == [600.0, 500.0, 700.0]
       and "rails-2-down" not in r[0]["values"] and "rails-2-down/rails-2" not in r[0]["ratios"],
       "F: --rails gives the rails table: GB/s medians, ratios, bytes verified, the failed "
       "measurement n/a", t["points"])
    md = open(os.path.join(tmp, "f.md")).read()
    sec = md[md.find("## Rails"):]
    ok("| write | 1 MiB | 64 |" in sec and "| +1.300 |" in sec and "| 600 (500..700) |" in sec
       and "rail 0" in sec and "1 measurement(s) failed" in sec,
       "F: results.md's rails section: the time lost (median seconds, down - two rails), when "
       "rail 1 went down, what is measured today", sec[:3000])
    p = run("bench/railsreport.py", "--raw", os.path.join(FIX, "raw-rails.txt"), "--kernel", "k",
            "--out", os.path.join(tmp, "rails.md"))
    rm = open(os.path.join(tmp, "rails.md")).read() if p.returncode == 0 else ""
    ok(p.returncode == 0 and "| write | 1 MiB | 64 |" in rm and "| read | 1 MiB | 64 |" in rm
       and "8100 / 2" in rm,
       "railsreport.py alone writes results-rails.md's table", p.stderr + rm[:2000])
    ok("rails" not in e["tables"], "E: no --rails, no rails table", sorted(e["tables"]))

    # the NIXL section (bench/nixlreport.py, bench-nixl-guest.sh's lines)
    g = results(tmp, "g", "raw-b.txt", "--nixl", os.path.join(FIX, "raw-nixl.txt"))
    t = g["tables"].get("nixl", {"points": []})
    mibs = lambda secs: 268435456 / secs / 1048576  # noqa: E731
    w = [pt for pt in t["points"] if pt["op"] == "write"]
    r = [pt for pt in t["points"] if pt["op"] == "read"]
    wn, wh = (statistics.median([mibs(x) for x in v]) for v in ((2.0, 1.9, 2.1), (2.1, 2.0, 2.2)))
    ok(not results_json.check(g) and t.get("unit") == "MiB/s" and len(w) == 1 and len(r) == 1
       and w[0]["block"] == 32768 and w[0]["batch"] == 256
       and close(w[0]["values"]["native"]["median"], wn, 0, 0.1)
       and close(w[0]["values"]["nixl-hixl"]["median"], wh, 0, 0.1)
       and close(w[0]["ratios"]["nixl-hixl/native"], wh / wn)
       and "libucx-dev" in w[0]["na"]["nixl-ucx"] and "nixl-ucx" not in w[0]["values"]
       and close(r[0]["ratios"]["nixl-hixl/nixl-ucx"], 2.0)
       and close(g["tables"]["nixl_descs"]["points"][0]["values"]["native"]["median"],
                 wn * 32, 0, 5),
       "G: --nixl gives the nixl and nixl_descs tables: medians, nixl-hixl/native, UCX n/a "
       "with its reason", t["points"])
    md = open(os.path.join(tmp, "g.md")).read()
    sec = md[md.find("## NIXL"):]
    ok(f"| write | {wh / wn:.2f} (met) |" in sec and "| read | 1.00 (met) | 2.00 |" in sec
       and "n/a (NIXL's UCX plugin not built" in sec and "| +50 |" in sec,
       "G: results.md's NIXL section: the ratio against the 0.95 goal, UCX's reason, the submit "
       "time difference", sec[:3000])
    ok("nixl" not in e["tables"], "E: no --nixl, no nixl table", sorted(e["tables"]))

    b = results(tmp, "b", "raw-b.txt", "--reg", reg)
    check_doc(b, "raw-b.txt", "B")
    ok("submit" not in b["tables"], "B: no --submit, no submit section", sorted(b["tables"]))

    # a run without the matrix: only memcpy and info lines
    lines = [l for l in open(os.path.join(FIX, "raw-a.txt")) if l.split()[0] in ("info", "memcpy")]
    open(os.path.join(tmp, "raw-c.txt"), "w").writelines(lines)
    p = run("bench/bench-results.py", "--raw", os.path.join(tmp, "raw-c.txt"), "--machine", "x86_64",
            "--kernel", "k", "--out", os.path.join(tmp, "c.md"), "--json",
            os.path.join(tmp, "c.json"))
    c = json.load(open(os.path.join(tmp, "c.json"))) if p.returncode == 0 else {"tables": None}
    ok(c["tables"] == {} and not results_json.check(c),
       "no res/na lines, no --reg/--submit: no table sections, still valid", p.stderr or c)

    ja, jb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    p = run("bench/bench-diff.py", ja, jb)
    worse = [l for l in p.stdout.splitlines() if "WORSE" in l]
    ok(p.returncode == 1 and len(worse) == 1 and "WRITE 4 KiB batch 1" in worse[0]
       and "hixl-sync/perftest" in worse[0]
       and "1 worse beyond their spread of" in p.stdout,
       "bench-diff A B flags exactly the point slower beyond its spread (exit 1)",
       f"exit {p.returncode}\n{p.stdout}{p.stderr}")
    gm = [l.split() for l in p.stdout.splitlines() if l.split()[:3] == ["geomean", "write", "hixl-sync/perftest"]]
    ok(gm and gm[0][3:6] == ["0.74", "->", "0.62"] and "(2 points in both)" in " ".join(gm[0]),
       "bench-diff A B: the geometric mean of WRITE sync/perftest A -> B", p.stdout)
    ok("READ 64 KiB batch 1" in p.stdout and "== submit: only in A" in p.stdout,
       "bench-diff A B lists the point slower within its spread, unflagged, and the "
       "section only A has", p.stdout)
    p = run("bench/bench-diff.py", "--absolute", "--flagged", ja, jb)
    worse = [l for l in p.stdout.splitlines() if "WORSE" in l]
    ok(p.returncode == 1 and len(worse) == 1 and "WRITE 4 KiB batch 1" in worse[0]
       and "hixl-sync" in worse[0], "bench-diff --absolute flags the same point",
       p.stdout + p.stderr)
    p = run("bench/bench-diff.py", ja, ja)
    ok(p.returncode == 0 and "0 worse beyond their spread" in p.stdout,
       "bench-diff A A flags nothing (exit 0)", p.stdout + p.stderr)
    p = run("bench/bench-diff.py", jb, ja)
    ok(p.returncode == 0, "bench-diff B A (faster) flags nothing", p.stdout + p.stderr)
    bad = os.path.join(tmp, "bad.json")
    json.dump({"schema": "other"}, open(bad, "w"))
    p = run("bench/bench-diff.py", ja, bad)
    ok(p.returncode == 2, "bench-diff refuses a document of another schema (exit 2)",
       p.stdout + p.stderr)

    # results.md from A, imported back: A's numbers at the md's precision
    ji = os.path.join(tmp, "imported.json")
    p = run("bench/bench-results.py", "--from-md", os.path.join(tmp, "a.md"), "--json", ji)
    ok(p.returncode == 0, "--from-md imports the results.md written from A", p.stderr)
    i = json.load(open(ji)) if p.returncode == 0 else {"tables": {}}
    bad = [] if i.get("source") == "results.md" and i.get("imported_from") == "a.md" \
        else [f"source {i.get('source')} imported_from {i.get('imported_from')}"]
    if sorted(i["tables"]) != sorted(a["tables"]):
        bad.append(f"tables {sorted(i['tables'])} vs {sorted(a['tables'])}")
    for tname, ta in a["tables"].items():
        ti = i["tables"].get(tname, {"points": []})
        if [{k: p[k] for k in ta["key"]} for p in ti["points"]] != \
           [{k: p[k] for k in ta["key"]} for p in ta["points"]]:
            bad.append(f"{tname}: other points")
            continue
        for pa, pi in zip(ta["points"], ti["points"]):
            for tool, v in pa["values"].items():
                w = pi["values"].get(tool, {})
                if any(not close(w.get(f), v[f], 0, 0.006) for f in ("median", "min", "max")):
                    bad.append(f"{tname} {tool} {pa['values'][tool]} -> {w}")
            for r, v in pa["ratios"].items():
                if not close(pi["ratios"].get(r), v, 0, 0.006):
                    bad.append(f"{tname} {r} {v} -> {pi['ratios'].get(r)}")
            if pa.get("na") != pi.get("na"):
                bad.append(f"{tname} na {pa.get('na')} -> {pi.get('na')}")
    ok(not bad and not results_json.check(i),
       "--from-md gives A's tables, points, medians, ratios and n/a reasons back", "\n".join(bad))

    committed = json.load(open(os.path.join(REPO, "bench", "results.json")))
    errs = results_json.check(committed)
    ok(not errs and committed["tables"].get("throughput", {}).get("points"),
       "the committed bench/results.json passes the schema", "\n".join(errs))
    p = run("bench/bench-results.py", "--from-md", os.path.join(REPO, "bench", "results.md"),
            "--json", os.path.join(tmp, "committed.json"))
    ok(p.returncode == 0, "the committed bench/results.md imports", p.stderr)

    print(f"1..{n_test}")
    subprocess.run(["rm", "-rf", tmp])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
