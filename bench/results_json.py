# SPDX-License-Identifier: GPL-2.0
"""bench/results.json: the numbers of bench/results.md in a stable shape
(schema "hixl-bench-results", version 1; docs/developing.md, "Benchmarks",
describes it), so two runs can be compared (bench/bench-diff.py).

bench/bench-results.py writes it beside results.md (--json), from the same
parsed raw lines; `bench-results.py --from-md results.md --json out.json`
imports a results.md written before the JSON existed.

Every table is one function in TABLES taking the parsed run (a dict: info,
memcpy, res, na, reg_md, submit_md, n, and whatever a later parser adds) and
returning the table's dict, or None when its raw lines are absent: the
section is then left out of "tables".  A new table (latency, the main job's
configurations) is one more function appended to TABLES.

A table:
  title, unit, better ("higher" or "lower": which way of the tool's value
  is an improvement), key (the fields naming a point), tools, pairs
  ([hixl, peer], ...: the ratio "hixl/peer" = median / median),
  points: [{<key fields>, "values": {tool: {median, min, max, n}},
            "ratios": {"hixl/peer": x}, "na": {tool: reason}, "info": {...}}],
  summary: {<value of key[0]>: {"hixl/peer": {"geomean": x, "points": n}}}
"""
import math
import re
import statistics

SCHEMA = "hixl-bench-results"
SCHEMA_VERSION = 1
MIB = 1 << 20

MATRIX_TOOLS = ["hixl-sync", "hixl-async", "perftest", "ucx"]
MATRIX_PAIRS = [["hixl-sync", "perftest"], ["hixl-async", "perftest"],
                ["hixl-sync", "ucx"], ["hixl-async", "ucx"]]


def rnd(x, digits=4):
    return None if x is None else round(float(x), digits)


def spread(vals, n=None):
    """{median, min, max, n} of the repetitions of one tool at one point."""
    return {"median": rnd(statistics.median(vals)), "min": rnd(min(vals)),
            "max": rnd(max(vals)), "n": n if n is not None else len(vals)}


def geomean(v):
    v = [x for x in v if x and x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def pair_name(h, p):
    return f"{h}/{p}"


def summarize(points, pairs, group):
    """Geometric mean of every pair's ratios over the points of each value of
    the field `group` (the op, the registration step)."""
    out = {}
    for pt in points:
        g = out.setdefault(str(pt[group]), {})
        for h, p in pairs:
            r = pt["ratios"].get(pair_name(h, p))
            if r:
                g.setdefault(pair_name(h, p), []).append(r)
    return {g: {k: {"geomean": rnd(geomean(v)), "points": len(v)} for k, v in d.items()}
            for g, d in out.items()}


def ratios_of(values, pairs, printed=None):
    """hixl median / peer median for each pair with both medians; `printed`
    (pair name -> ratio) overrides: the ratio a table printed from medians
    it did not print unrounded."""
    out = {}
    for h, p in pairs:
        name = pair_name(h, p)
        if printed and printed.get(name) is not None:
            out[name] = rnd(printed[name])
        elif h in values and p in values and values[p]["median"]:
            out[name] = rnd(values[h]["median"] / values[p]["median"])
    return out


# ---------------------------------------------------------------- tables

def _op_table(res, na, idx, tools, pairs, head, n=None, printed=None, info=None):
    """A table of points keyed (op, block, batch) - WRITE before READ, then
    by block and batch: res {key: {tool: [(value, value, ...)]}} whose
    element idx is this table's, na {key: {tool: [reason]}}; head (title,
    unit, better); n the repetitions (default: the values there are);
    printed {key: {pair: ratio}} ratios_of() takes over; info the points'
    "info".  None when there is no point."""
    keys = sorted(set(res) | set(na), key=lambda k: (k[0] != "write", k[1], k[2]))
    if not keys:
        return None
    points = []
    for k in keys:
        values = {}
        for t in tools:
            v = [x[idx] for x in res.get(k, {}).get(t, [])]
            if v:
                values[t] = spread(v, n)
        pt = {"op": k[0], "block": k[1], "batch": k[2], "values": values,
              "ratios": ratios_of(values, pairs, (printed or {}).get(k))}
        if info:
            pt["info"] = dict(info)
        reasons = {t: max(set(r), key=r.count).strip() for t, r in na.get(k, {}).items() if r}
        if reasons:
            pt["na"] = reasons
        points.append(pt)
    title, unit, better = head
    return {"title": title, "unit": unit, "better": better, "key": ["op", "block", "batch"],
            "tools": tools, "pairs": pairs, "points": points,
            "summary": summarize(points, pairs, "op")}


def _matrix(run, idx, title, unit, better):
    printed = run.get("printed", {}).get("throughput" if idx == 0 else "cpu", {})
    return _op_table(run.get("res") or {}, run.get("na") or {}, idx, MATRIX_TOOLS,
                     MATRIX_PAIRS, (title, unit, better), run.get("n"), printed)


def table_throughput(run):
    """WRITE/READ throughput matrix (bench-matrix res lines), MiB/s."""
    return _matrix(run, 0, "throughput, hixl sync/async vs perftest and UCX", "MiB/s", "higher")


def table_cpu(run):
    """Whole-VM CPU seconds per GiB moved, same points."""
    return _matrix(run, 1, "CPU seconds per GiB moved (whole VM)", "s/GiB", "lower")


def table_registration(run):
    """hixl vs ibv_reg_mr (bench-reg's markdown table: its only output)."""
    rows = md_table(run.get("reg_md"), "buffer")
    if not rows:
        return None
    steps = [("reg", "hixl reg", "ibv_reg_mr", "reg ratio"),
             ("dereg", "hixl dereg", "ibv_dereg_mr", "dereg ratio")]
    used = {c for s in steps for c in s[1:]} | {"buffer"}
    pairs = [["hixl", "ibv"]]
    m = re.search(r"(\d+) repetitions each", run["reg_md"])
    n = int(m[1]) if m else None
    points = []
    for step, hc, pc, rc in steps:
        for row in rows:
            h, p = parse_cell(row.get(hc, ""), n), parse_cell(row.get(pc, ""), n)
            if not h or not p:
                continue
            values = {"hixl": h, "ibv": p}
            pt = {"step": step, "buffer": row["buffer"], "values": values,
                  "ratios": ratios_of(values, pairs, {"hixl/ibv": num(row.get(rc))})}
            info = {c: v for c, v in row.items() if c not in used}
            if info:
                pt["info"] = info
            points.append(pt)
    return {"title": "registration of 1 GiB, hixl vs ibv_reg_mr", "unit": "ms",
            "better": "lower", "key": ["step", "buffer"], "tools": ["hixl", "ibv"],
            "pairs": pairs, "points": points, "summary": summarize(points, pairs, "step")}


def table_submit(run):
    """Submission rate, io_uring URING_CMD vs TRANSFER ioctl (bench-submit)."""
    rows = md_table(run.get("submit_md"), "op")
    if not rows:
        return None
    pairs = [["uring", "ioctl"]]
    points = []
    for row in rows:
        n = int(num(row.get("runs")) or 0) or None
        h = parse_cell(row.get("uring desc/s", ""), n)
        p = parse_cell(row.get("ioctl desc/s", ""), n)
        if not h or not p:
            continue
        values = {"ioctl": p, "uring": h}
        points.append({"op": row["op"].lower(), "batch": int(row["batch"]), "values": values,
                       "ratios": ratios_of(values, pairs, {"uring/ioctl": num(row.get("ratio"))})})
    return {"title": "submission rate of 4 KiB descriptors, URING_CMD vs ioctl",
            "unit": "descriptors/s", "better": "higher", "key": ["op", "batch"],
            "tools": ["ioctl", "uring"], "pairs": pairs, "points": points,
            "summary": summarize(points, pairs, "op")}


def table_latency(run):
    """Sync 1-descriptor latency, hixl (hybrid polling on and off) vs
    ib_write_lat/ib_read_lat (bench/latreport.py's parse() of
    bench-lat-guest.sh's lines), us; each value the median/min/max over the
    repetitions of that percentile.  ib_write_lat prints half its ping-pong:
    a point's info says so, the ratio is of the printed figures."""
    lat = (run.get("lat") or {}).get("lat")
    if not lat:
        return None
    tools = ["hixl-poll", "hixl-nopoll", "perftest"]
    pairs = [["hixl-poll", "perftest"], ["hixl-nopoll", "perftest"], ["hixl-poll", "hixl-nopoll"]]
    points = []
    for (op, size) in sorted(lat, key=lambda k: (k[0] != "write", k[1])):
        for i, stat in ((0, "p50"), (1, "p99")):
            values = {}
            for t in tools:
                v = [x[i] for x in lat[(op, size)].get(t, []) if x[i] is not None]
                if v:
                    values[t] = spread(v)
            if not values:
                continue
            pt = {"op": op, "size": size, "stat": stat, "values": values,
                  "ratios": ratios_of(values, pairs)}
            if op == "write":
                pt["info"] = {"perftest": "ib_write_lat prints half of its round trip"}
            points.append(pt)
    return {"title": "sync 1-descriptor latency, hixl vs ib_write_lat/ib_read_lat", "unit": "us",
            "better": "lower", "key": ["op", "size", "stat"], "tools": tools, "pairs": pairs,
            "points": points, "summary": summarize(points, pairs, "stat")}


def table_main_job(run):
    """The main job (tools/hixl-bench) with its defaults vs its best known
    configuration, 0.2's defaults and ib_write_bw/ib_read_bw at its block size
    (bench-default-guest.sh's "mainjob REP CONFIG OP MIB_PER_S" lines,
    `make bench-default`), MiB/s."""
    mj = run.get("mainjob")
    if not mj:
        return None
    tools = ["defaults", "best", "v0.2", "perftest"]
    pairs = [["defaults", "best"], ["defaults", "perftest"], ["defaults", "v0.2"]]
    block = int((run.get("mainjob_info") or {}).get("block", 32768))
    points = []
    for op in ("write", "read"):
        values = {t: spread(mj[(t, op)]) for t in tools if mj.get((t, op))}
        if values:
            points.append({"op": op, "block": block, "values": values,
                           "ratios": ratios_of(values, pairs),
                           "info": {"best": "hixl-bench --pool 0:0 --inflight 8"}})
    if not points:
        return None
    return {"title": "main job (hixl-bench): defaults vs best configuration vs perftest",
            "unit": "MiB/s", "better": "higher", "key": ["op", "block"], "tools": tools,
            "pairs": pairs, "points": points, "summary": summarize(points, pairs, "op")}


def parse_mainjob(path):
    """(run["mainjob"], run["mainjob_info"]) from bench/results-default.txt."""
    mj, conf = {}, {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) == 5 and f[0] == "mainjob":
            mj.setdefault((f[2], f[3]), []).append(float(f[4]))
        elif len(f) >= 3 and f[:2] == ["info", "config"]:
            conf = dict(zip(f[2::2], f[3::2]))
    return mj, conf


def _local(run, idx, title, unit, better):
    """The same-host section (bench/localreport.py's parse()): hixl-local-1,
    hixl-local-par, hixl-rdma, ucx-intra, memcpy; idx 0 MiB/s, 1 CPU s/GiB."""
    loc = run.get("local")
    if not loc or not loc.get("res"):
        return None
    tools = ["hixl-local-1", "hixl-local-par", "hixl-rdma", "ucx-intra", "memcpy"]
    pairs = [["hixl-local-1", "memcpy"], ["hixl-local-par", "memcpy"],
             ["hixl-local-par", "ucx-intra"], ["hixl-local-par", "hixl-local-1"],
             ["hixl-local-par", "hixl-rdma"]]
    info = {"ucx-intra": "UCX_TLS=" + (loc.get("info", {}).get("ucx_tls") or "?")}
    return _op_table(loc["res"], loc.get("na") or {}, idx, tools, pairs, (title, unit, better),
                     info=info)


def table_local(run):
    """Same-host links: the kernel copy inline (local_copy_threads=1) and
    parallel vs rxe vs UCX intra-host vs single-thread memcpy, MiB/s."""
    return _local(run, 0, "same-host links: kernel copy (1 CPU, parallel) vs rxe, UCX "
                  "intra-host, memcpy", "MiB/s", "higher")


def table_local_cpu(run):
    """The same points' CPU seconds per GiB (whole VM; memcpy: its own)."""
    return _local(run, 1, "same-host links: CPU seconds per GiB", "s/GiB", "lower")


def table_rails(run):
    """Rails (bench/railsreport.py's parse()): one batch with one rail, two
    rails, and two with rail 1 taken away mid-batch, GB/s; each point's info
    the bytes verified and when rail 1 went down (ms into the batch)."""
    r = run.get("rails")
    if not r or not (r.get("res") or r.get("na")):
        return None
    tools = ["rails-1", "rails-2", "rails-2-down"]
    pairs = [["rails-2", "rails-1"], ["rails-2-down", "rails-2"]]
    res = r.get("res") or {}
    # the ratios of the unrounded medians (GB/s under TCG is 0.0x: rnd() would cost digits)
    printed = {}
    for k, by_tool in res.items():
        m = {tool: statistics.median([x[0] for x in v]) for tool, v in by_tool.items() if v}
        printed[k] = {pair_name(h, q): m[h] / m[q] for h, q in pairs
                      if m.get(h) is not None and m.get(q)}
    t = _op_table(res, r.get("na") or {}, 0, tools, pairs,
                  ("one large batch: one rail vs two, and two with rail 1 taken away mid-batch",
                   "GB/s", "higher"), printed=printed)
    for pt in t["points"] if t else []:
        info = {}
        for tool in tools:
            v = r.get("verified", {}).get((pt["op"], tool))
            if v:
                info[tool + " verified"] = f"{v[0]} of {v[1]} bytes"
        down = r.get("down", {}).get((pt["op"], "rails-2-down"))
        if down:
            info["rails-2-down down_ms"] = down
        if info:
            pt["info"] = info
    return t


def _nixl(run, idx, title, unit, better):
    """The NIXL section (bench/nixlreport.py's parse()): native (hixl's own
    API), nixl-hixl (NIXL with the backend HIXL), nixl-ucx (NIXL's UCX
    backend); key (op, block, batch) with batch the descriptors per layer;
    idx 0 MiB/s, 1 descriptors/s, 2 CPU s/GiB, 3 submit us per layer."""
    r = run.get("nixl")
    if not r or not (r.get("res") or r.get("na")):
        return None
    tools = ["native", "nixl-hixl", "nixl-ucx"]
    pairs = [["nixl-hixl", "native"], ["nixl-hixl", "nixl-ucx"]]
    info = {"batch": "descriptors per layer (scattered 32 KiB KV blocks), 4 layers in flight",
            "nixl-hixl": "goal: nixl-hixl/native >= 0.95"}
    return _op_table(r.get("res") or {}, r.get("na") or {}, idx, tools, pairs,
                     (title, unit, better), info=info)


def table_nixl(run):
    """NIXL+HIXL vs hixl's own API vs NIXL+UCX on the main job's shape, MiB/s."""
    return _nixl(run, 0, "NIXL: NIXL+HIXL vs hixl's own API vs NIXL+UCX, main job's shape",
                 "MiB/s", "higher")


def table_nixl_descs(run):
    """The same points as descriptors (blocks) moved per second."""
    return _nixl(run, 1, "NIXL: descriptors per second", "descriptors/s", "higher")


def _gpu(run, idx, title, unit, better):
    """Device memory (bench/gpureport.py's parse()): the KV job's shape with
    the initiator's KV cache in host memory, the stand-in GPU's memory
    peer-to-peer, and staged; idx 0 GB/s, 1 CPU s/GiB."""
    r = run.get("gpu")
    if not r or not (r.get("res") or r.get("na")):
        return None
    tools = ["gpu-host", "gpu-p2p", "gpu-staged"]
    pairs = [["gpu-staged", "gpu-host"], ["gpu-p2p", "gpu-host"]]
    info = {"batch": "descriptors in all (layers x descriptors a layer)",
            "gpu-staged": "goal: gpu-staged/gpu-host >= 0.8 at 32 KiB blocks"}
    return _op_table(r.get("res") or {}, r.get("na") or {}, idx, tools, pairs,
                     (title, unit, better), info=info)


def table_gpu(run):
    """Device memory beside host memory, GB/s."""
    return _gpu(run, 0, "device memory (stand-in GPU) peer-to-peer and staged vs host memory",
                "GB/s", "higher")


def table_gpu_cpu(run):
    """The same points, whole-VM CPU seconds per GiB."""
    return _gpu(run, 1, "device memory: CPU seconds per GiB", "s/GiB", "lower")


def _mooncake_points(key, vals_of, pairs, impls=("mooncake", "hixl")):
    """a point of a Mooncake table: key {field: value}, vals_of(impl) the
    impl's repetitions"""
    values = {i: spread(v) for i in impls for v in [vals_of(i)] if v}
    return dict(key, values=values, ratios=ratios_of(values, pairs))


KV_IMPLS = ("mooncake", "hixl", "hixl-c")	# bench/mooncakereport.py's KV_IMPLS


def _mooncake_kv(run, idx, title, unit, better):
    """The KV job of the Mooncake section (bench/mooncakereport.py's
    parse()): Mooncake's TransferEngine, hixl.mooncake (the same Python
    code) and hixl's C API on the same shape, key op; idx 0 GB/s, 1 CPU
    s/GiB."""
    m = run.get("mooncake")
    if not m or not m.get("kv"):
        return None
    pairs = [["hixl", "mooncake"], ["hixl-c", "mooncake"]]
    points = [_mooncake_points({"op": op},
                               lambda i, op=op: [x[idx] for x in m["kv"][op].get(i, [])],
                               pairs, KV_IMPLS) for op in ("write", "read") if op in m["kv"]]
    return {"title": title, "unit": unit, "better": better, "key": ["op"],
            "tools": list(KV_IMPLS), "pairs": pairs, "points": points,
            "summary": summarize(points, pairs, "op")}


def table_mooncake(run):
    """The KV job's GB/s, Mooncake vs hixl.mooncake vs hixl's C API."""
    return _mooncake_kv(run, 0, "KV job, Mooncake's TransferEngine vs hixl.mooncake "
                        "(same Python code)", "GB/s", "higher")


def table_mooncake_cpu(run):
    """The same KV job's whole-VM CPU seconds per GiB."""
    return _mooncake_kv(run, 1, "KV job, Mooncake vs hixl.mooncake: CPU seconds per GiB",
                        "s/GiB", "lower")


def table_mooncake_time(run):
    """Mooncake vs hixl.mooncake: milliseconds to build and submit one
    8,192-descriptor request, and to register / unregister each buffer
    size; key (step, bytes)."""
    m = run.get("mooncake")
    if not m or not (m.get("submit") or m.get("reg")):
        return None
    pairs = [["hixl", "mooncake"]]
    points = []
    if m.get("submit"):
        points.append(_mooncake_points(
            {"step": "submit", "bytes": 8192 * 64},
            lambda i: [(x[0] + x[1]) * 1e3 for x in m["submit"].get(i, [])], pairs))
    sizes = sorted({x[0] for v in m.get("reg", {}).values() for x in v}, reverse=True)
    for step, idx in (("reg", 1), ("dereg", 2)):
        for n in sizes:
            points.append(_mooncake_points(
                {"step": step, "bytes": n},
                lambda i, n=n, idx=idx: [x[idx] * 1e3 for x in m["reg"].get(i, []) if x[0] == n],
                pairs))
    return {"title": "Mooncake vs hixl.mooncake: request build + submit (8,192 descriptors) "
            "and registration", "unit": "ms", "better": "lower", "key": ["step", "bytes"],
            "tools": ["mooncake", "hixl"], "pairs": pairs, "points": points,
            "summary": summarize(points, pairs, "step")}


def table_region_table(run):
    """CONNECT time against registrations per side (bench/tablereport.py's
    parse()), ms; no peer."""
    t = run.get("table")
    if not t or not t.get("runs"):
        return None
    points = [{"regions": n, "values": {"hixl": spread([x[0] for x in t["runs"][n]])},
               "ratios": {}} for n in sorted(t["runs"])]
    return {"title": "CONNECT time against registrations per side", "unit": "ms",
            "better": "lower", "key": ["regions"], "tools": ["hixl"], "pairs": [],
            "points": points, "summary": {}}


def _scale_table(title, unit, better, key, points):
    """A scale curve: one tool, no peer (points [{key..., values}])"""
    return {"title": title, "unit": unit, "better": better, "key": key, "tools": ["hixl"],
            "pairs": [], "points": points, "summary": {}} if points else None


def table_scale_links(run):
    """Fan-out / fan-in (bench/scalereport.py's parse()): aggregate GB/s of
    the KV job to or from N links at once; each point's info the fairness
    (slowest / fastest link's bytes/s, median over the repetitions)."""
    sc = run.get("scale") or {}
    pts = []
    for (d, n), v in sorted(sc.get("links", {}).items()):
        pt = {"dir": d, "links": n, "values": {"hixl": spread([x[0] for x in v])}, "ratios": {}}
        fair = sc.get("fair", {}).get((d, n))
        if fair:
            pt["info"] = {"fairness": rnd(statistics.median(fair))}
        pts.append(pt)
    return _scale_table("fan-out and fan-in: the KV job to or from N links at once",
                        "GB/s", "higher", ["dir", "links"], pts)


def table_scale_connect(run):
    """CONNECT time per link (the median of a run's N CONNECTs), ms."""
    sc = run.get("scale") or {}
    pts = [{"links": n, "values": {"hixl": spread(v)}, "ratios": {}}
           for n, v in sorted(sc.get("connect", {}).items())]
    return _scale_table("CONNECT time per link as links grow", "ms", "lower", ["links"], pts)


def table_scale_descs(run):
    """Time per descriptor of one request of D descriptors, us."""
    sc = run.get("scale") or {}
    pts = [{"op": op, "descs": d, "values": {"hixl": spread(v)}, "ratios": {}}
           for (op, d), v in sorted(sc.get("descs", {}).items(),
                                    key=lambda kv: (kv[0][0] != "write", kv[0][1]))]
    return _scale_table("time per descriptor against descriptors per request",
                        "us/descriptor", "lower", ["op", "descs"], pts)


TABLES = [
    ("throughput", table_throughput),
    ("cpu", table_cpu),
    ("registration", table_registration),
    ("submit", table_submit),
    ("latency", table_latency),
    ("main_job", table_main_job),
    ("local", table_local),
    ("local_cpu", table_local_cpu),
    ("rails", table_rails),
    ("nixl", table_nixl),
    ("nixl_descs", table_nixl_descs),
    ("region_table", table_region_table),
    ("gpu", table_gpu),
    ("gpu_cpu", table_gpu_cpu),
    ("mooncake", table_mooncake),
    ("mooncake_cpu", table_mooncake_cpu),
    ("mooncake_time", table_mooncake_time),
    ("scale_links", table_scale_links),
    ("scale_connect", table_scale_connect),
    ("scale_descs", table_scale_descs),
]


def build(run, meta):
    """The whole document: meta (machine, kernel, tools, repetitions, ...)
    and every table the run has."""
    doc = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION}
    doc.update(meta)
    mc = run.get("memcpy")
    if mc:
        doc["memcpy_mib_s"] = spread(mc, run.get("memcpy_n"))
    tables = {}
    for name, fn in TABLES:
        t = fn(run)
        if t:
            tables[name] = t
    doc["tables"] = tables
    return doc


# ---------------------------------------------------------------- markdown

def num(s):
    try:
        return float(str(s).strip())
    except (TypeError, ValueError):
        return None


CELL = re.compile(r"^\s*(-?[0-9.]+)\s*\(\s*(-?[0-9.]+)\.\.(-?[0-9.]+)\s*\)")


def parse_cell(s, n=None):
    """"18.6 (17.2..19.3)" (maybe followed by "n/a [1]") -> spread dict."""
    m = CELL.match(s or "")
    if not m:
        return None
    med, lo, hi = (float(x) for x in m.groups())
    return {"median": rnd(med), "min": rnd(lo), "max": rnd(hi), "n": n}


def md_table(text, first=None, after=None):
    """Rows (dicts by header) of the first markdown table in text (after the
    line starting with `after`, when given) whose first column is `first`."""
    if not text:
        return []
    lines = text.splitlines()
    if after:
        idx = [i for i, l in enumerate(lines) if l.startswith(after)]
        if not idx:
            return []
        lines = lines[idx[0] + 1:]
    i = 0
    while i < len(lines):
        if lines[i].startswith("|"):
            head = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            j = i + 2
            rows = []
            while j < len(lines) and lines[j].startswith("|"):
                cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
                rows.append(dict(zip(head, cells)))
                j += 1
            if first is None or head[0] == first:
                return rows
            i = j
        else:
            i += 1
    return []


def section(text, heading):
    """The lines of a "## heading" section up to the next "## "."""
    out, on = [], False
    for l in text.splitlines():
        if l.startswith("## "):
            on = l.startswith(heading)
            continue
        if on:
            out.append(l)
    return "\n".join(out)


def size_bytes(s):
    n, unit = s.split()
    return int(float(n) * {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit])


def import_md(path, source_name=None):
    """Parse a results.md written by bench-results.py (before results.json
    existed) back into the run dict and meta build() takes.  A cell gives
    median (min..max) only: the repetitions are rebuilt as [min, median,
    max], n from the header's repetition count; ratios are the printed ones
    (2 digits, from the unrounded medians)."""
    text = open(path).read()
    meta = {"source": "results.md", "imported_from": source_name or path,
            "generated_by": "bench/bench-results.py --from-md"}
    m = re.search(r"Machine: (\S+) host \((.*), (\d+) cores\), running one QEMU/TCG guest "
                  r"\((.*), (\d+) vCPUs, ([^)]*)\) on Debian kernel (\S+)", text)
    if m:
        meta["machine"] = {"arch": m[1], "host_cpu": m[2], "host_cores": int(m[3]),
                           "guest_cpu": m[4], "guest_vcpus": int(m[5]), "guest_memory": m[6]}
        meta["kernel"] = m[7]
    m = re.search(r"which took (\d+) min (\d+) s", text)
    if m:
        meta["vm_seconds"] = int(m[1]) * 60 + int(m[2])
    m = re.search(r"perftest (\S+), UCX (\S+?)\.?\n", text)
    if m:
        meta["tools"] = {"perftest": m[1], "ucx": m[2]}
    m = re.search(r"Host load average \(1 min\) when the VM started / ended: ([^.]*\.?[0-9]*"
                  r" / [0-9.]+)", text)
    if m:
        meta["host_load"] = m[1]
    m = re.search(r"^- (\d+) repetitions", text, re.M)
    reps = int(m[1]) if m else None
    meta["repetitions"] = reps
    m = re.search(r"- \*\*hixl async\*\*:.*?(\d+) batches in flight", text)
    if m:
        meta["inflight"] = int(m[1])
    run = {"res": {}, "na": {}, "n": reps, "printed": {"throughput": {}, "cpu": {}}}
    m = re.search(r"\*\*memcpy\*\*: .*?(\d+) copies: ([0-9.]+ \([0-9.]+\.\.[0-9.]+\)) MiB/s", text)
    if m:
        c = parse_cell(m[2])
        run["memcpy"] = [c["min"], c["median"], c["max"]]
        run["memcpy_n"] = int(m[1])
    notes = {}
    for m in re.finditer(r"^(\d+)\. `(.*)`$", text, re.M):
        notes[m[1]] = m[2]
    short = {"sync": "hixl-sync", "async": "hixl-async", "perftest": "perftest", "UCX": "ucx"}
    col = {"hixl sync": "hixl-sync", "hixl async": "hixl-async", "perftest": "perftest",
           "UCX": "ucx"}

    def take(key, row, idx, table):
        for c, tool in col.items():
            s = row.get(c, "")
            cell = parse_cell(s)
            if cell:
                slot = run["res"].setdefault(key, {}).setdefault(tool, [(0, 0)] * 3)
                for i, v in enumerate((cell["min"], cell["median"], cell["max"])):
                    t = list(slot[i])
                    t[idx] = v
                    slot[i] = tuple(t)
            m = re.search(r"n/a \[(\d+)\]", s)
            if m and idx == 0:
                run["na"].setdefault(key, {}).setdefault(tool, []).append(notes.get(m[1], "n/a"))
        pr = {}
        for c, v in row.items():
            if " / " in c and num(v) is not None:
                h, p = c.split(" / ")
                pr[pair_name(short[h], short[p])] = num(v)
        run["printed"][table][key] = pr

    for op in ("WRITE", "READ"):
        for row in md_table(section(text, f"## {op} throughput"), "block"):
            take((op.lower(), size_bytes(row["block"]), int(row["batch"])), row, 0, "throughput")
    for row in md_table(section(text, "## CPU seconds per GiB"), "op"):
        take((row["op"].lower(), size_bytes(row["block"]), int(row["batch"])), row, 1, "cpu")
    run["reg_md"] = section(text, "## Registration")
    run["submit_md"] = section(text, "## Submission rate")
    return run, meta


# ---------------------------------------------------------------- checks

def check(doc):
    """Problems with a document against schema 1 (an empty list: none)."""
    errs = []
    if doc.get("schema") != SCHEMA or doc.get("schema_version") != SCHEMA_VERSION:
        errs.append(f"schema {doc.get('schema')!r} version {doc.get('schema_version')!r}")
    tables = doc.get("tables")
    if not isinstance(tables, dict):
        return errs + ["no tables"]
    for name, t in tables.items():
        for f in ("title", "unit", "better", "key", "tools", "pairs", "points", "summary"):
            if f not in t:
                errs.append(f"{name}: no {f}")
        if t.get("better") not in ("higher", "lower"):
            errs.append(f"{name}: better is {t.get('better')!r}")
        seen = set()
        for pt in t.get("points", []):
            k = tuple(pt.get(f) for f in t.get("key", []))
            if None in k or k in seen:
                errs.append(f"{name}: point key {k} missing or repeated")
            seen.add(k)
            for tool, v in pt.get("values", {}).items():
                if tool not in t.get("tools", []):
                    errs.append(f"{name} {k}: unknown tool {tool}")
                if not v["min"] <= v["median"] <= v["max"]:
                    errs.append(f"{name} {k} {tool}: not min <= median <= max")
            for h, p in t.get("pairs", []):
                r = pt.get("ratios", {}).get(pair_name(h, p))
                vals = pt.get("values", {})
                if (h in vals and p in vals) != (r is not None):
                    errs.append(f"{name} {k}: ratio {h}/{p} present without both medians "
                                "or missing with both")
    return errs
