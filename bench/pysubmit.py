#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/pysubmit.py - the Python package's side of a KV-cache request:
the Python-side time to build and submit one 8,192-descriptor request
(64 layers x 128 blocks, the shape of a paged KV cache) with
hixl.Hixl.transfer_async(), descriptors given as

  list     a list of hixl.TransferOpDesc built in a Python loop (HIXL's way)
  numpy    an (n, 3) uint64 numpy array computed from the block ids
  arrays   two uint64 numpy arrays (local, remote addresses) computed from
           the block ids and the block size: hixl.OpDescs.from_arrays()
  blocks   hixl.OpDescs.from_blocks(layer bases, block size, block ids)

Timed, each request waited for before the next (the transfer itself is
not timed): build, from the block ids to the descriptors; convert, reading
them into the C array the library takes (hixl.OpDescs(descs): the
descs_from() that transfer_async() runs first on any form, none for an
OpDescs); submit, transfer_async() of that array (the library and the
kernel queueing the request: no Python work per descriptor).
Python-side = build + convert.  Reps are interleaved list/numpy/blocks;
the report gives medians (min..max) and the ratio list / form of the
Python-side time.  Every form's bytes are checked once.  Where the numpy
form's build goes: after each rep, the same build again with each numpy
statement timed alone (STEPS), and numpy's floor: one ufunc call on one
element (its per-call cost) and on 8,192 contiguous uint64 (FLOORS).

Run in the bench VM (bench/bench.sh py, `make bench-py`, and in `make bench`
by bench/bench-all-guest.sh):

    bench/pysubmit.py --run --raw RAW [--reps 15] [--ip 10.77.0.1]

bench/bench-results.py includes section() in results.md; alone:

    bench/pysubmit.py --raw RAW --kernel KVER --out bench/results-py.md

Raw lines: "res REP FORM NDESCS BUILD_S CONVERT_S SUBMIT_S", "verified FORM 0|1",
"step REP NAME S" (STEPS and FLOORS), "info KEY VALUE...".
"""
import argparse
import os
import sys
import time

from benchstats import med, spread

FORMS = ["list", "numpy", "arrays", "blocks"]
#: the numpy build's statements, timed one by one
STEPS = [("alloc", "`np.empty((64, 128, 3))`"),
         ("laddr", "local addresses (`lbases[:, None] + lids.astype(uint64) * BLOCK`)"),
         ("lstore", "storing them in column 0 (`d[:, :, 0] = t`, strided)"),
         ("raddr", "remote addresses"), ("rstore", "storing them in column 1"),
         ("len", "the length column (`d[:, :, 2] = BLOCK`)")]
#: numpy's floor: one ufunc call on 1 element, on 8,192 contiguous uint64
FLOORS = [("call1", "one `np.add(out=)` call on 1 element"),
          ("add8192", "one `np.add(out=)` over 8,192 contiguous uint64")]
LAYERS, BLOCKS, BLOCK = 64, 128, 64	# 8,192 descriptors of 64 bytes


def measure(raw, reps, ip):
    """the measurement (needs /dev/hixl: the bench VM); raw lines to raw"""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(repo, "python"))
    import numpy as np
    import hixl

    out = open(raw, "w")
    out.write("info python %s\ninfo numpy %s\ninfo hixl %s\n"
              % (sys.version.split()[0], np.__version__, hixl.version()))
    a, b = hixl.Hixl(), hixl.Hixl()
    for e, port in ((a, 19900), (b, 19901)):
        assert e.initialize("%s:%d" % (ip, port)) == hixl.SUCCESS, hixl.last_error()
    src = np.random.default_rng(1).integers(0, 256, (LAYERS, BLOCKS, BLOCK), dtype=np.uint8)
    dst = np.zeros_like(src)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == hixl.SUCCESS, hixl.last_error()
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == hixl.SUCCESS, hixl.last_error()
    assert a.connect(b.local_engine, 10000) == hixl.SUCCESS, hixl.last_error()
    layer = BLOCKS * BLOCK
    lbase, rbase = src.ctypes.data, dst.ctypes.data
    lbases = lbase + np.arange(LAYERS, dtype=np.uint64) * layer
    rbases = rbase + np.arange(LAYERS, dtype=np.uint64) * layer
    rng = np.random.default_rng(2)

    def build(form, lids, rids):
        if form == "list":
            TOD = hixl.TransferOpDesc
            lids_l, rids_l = lids.tolist(), rids.tolist()
            return [TOD(lbase + l * layer + i * BLOCK, rbase + l * layer + j * BLOCK, BLOCK)
                    for l in range(LAYERS) for i, j in zip(lids_l, rids_l)]
        if form == "numpy":
            d = np.empty((LAYERS, len(lids), 3), dtype=np.uint64)
            d[:, :, 0] = lbases[:, None] + lids[None, :].astype(np.uint64) * BLOCK
            d[:, :, 1] = rbases[:, None] + rids[None, :].astype(np.uint64) * BLOCK
            d[:, :, 2] = BLOCK
            return d.reshape(-1, 3)
        if form == "arrays":
            la = (lbases[:, None] + lids.astype(np.uint64) * np.uint64(BLOCK)).ravel()
            ra = (rbases[:, None] + rids.astype(np.uint64) * np.uint64(BLOCK)).ravel()
            return la, ra, BLOCK
        return hixl.OpDescs.from_blocks(lbases, rbases, BLOCK, lids, rids)

    def steps(rep, lids, rids):
        """the numpy build once more, each statement timed alone"""
        T = time.perf_counter
        t = {}
        t0 = T()
        d = np.empty((LAYERS, len(lids), 3), dtype=np.uint64)
        t1 = T()
        la = lbases[:, None] + lids[None, :].astype(np.uint64) * BLOCK
        t2 = T()
        d[:, :, 0] = la
        t3 = T()
        ra = rbases[:, None] + rids[None, :].astype(np.uint64) * BLOCK
        t4 = T()
        d[:, :, 1] = ra
        t5 = T()
        d[:, :, 2] = BLOCK
        t6 = T()
        t.update(alloc=t1 - t0, laddr=t2 - t1, lstore=t3 - t2, raddr=t4 - t3, rstore=t5 - t4,
                 len=t6 - t5)
        x1, y1, z1 = (np.ones(1, np.uint64) for _ in range(3))
        x, y, z = (np.ones(LAYERS * BLOCKS, np.uint64) for _ in range(3))
        t0 = T()
        np.add(x1, y1, out=z1)
        t1 = T()
        np.add(x, y, out=z)
        t2 = T()
        t.update(call1=t1 - t0, add8192=t2 - t1)
        for k, v in t.items():
            out.write("step %d %s %.9f\n" % (rep, k, v))

    def wait(req):
        err, st = req.wait(120000)
        assert (err, st) == (0, hixl.TransferStatus.COMPLETED), (err, st, hixl.last_error())

    for rep in range(-1, reps):		# rep -1: warm-up, and the byte check
        for form in FORMS:
            lids = np.arange(BLOCKS, dtype=np.int64)
            rids = rng.permutation(BLOCKS)
            if rep < 0:
                dst[:] = 0
            t0 = time.perf_counter()
            descs = build(form, lids, rids)
            t1 = time.perf_counter()
            # what transfer_async() does first with any form (descs_from()):
            # the rest of the Python-side work; given an OpDescs it is none
            ready = hixl.OpDescs.from_arrays(*descs) if form == "arrays" else hixl.OpDescs(descs)
            t2 = time.perf_counter()
            ret, req = a.transfer_async(b.local_engine, hixl.WRITE, ready)
            t3 = time.perf_counter()
            assert ret == hixl.SUCCESS, hixl.last_error()
            wait(req)
            if rep < 0:
                ok = np.array_equal(dst[:, rids], src[:, lids])
                out.write("verified %s %d\n" % (form, int(ok)))
            else:
                out.write("res %d %s %d %.9f %.9f %.9f\n"
                          % (rep, form, LAYERS * BLOCKS, t1 - t0, t2 - t1, t3 - t2))
                if form == "numpy":
                    steps(rep, lids, rids)
            out.flush()
    a.finalize()
    b.finalize()
    out.close()


def parse(path):
    """{"info", "res": {form: [(build, submit, floor) s]}, "n": descriptors,
    "verified": {form: bool}}"""
    p = {"info": {}, "res": {}, "n": 0, "verified": {}, "step": {}}
    for line in open(path, errors="replace"):
        f = line.split()
        if not f:
            continue
        if f[0] == "info" and len(f) >= 2:
            p["info"][f[1]] = " ".join(f[2:])
        elif f[0] == "res" and len(f) == 7 and f[2] in FORMS:
            p["res"].setdefault(f[2], []).append(tuple(float(x) for x in f[4:7]))
            p["n"] = int(f[3])
        elif f[0] == "step" and len(f) == 4:
            p["step"].setdefault(f[2], []).append(float(f[3]))
        elif f[0] == "verified" and len(f) == 3:
            p["verified"][f[1]] = f[2] == "1"
    return p


def section(p):
    """results.md's lines for the parsed raw lines"""
    def ms(form, fn):
        return [fn(*r) * 1e3 for r in p["res"].get(form, [])]

    def pyside(b, c, s):
        return b + c

    lst = med(ms("list", pyside))
    out = ["## Python: building and submitting one KV-cache request\n",
           "bench/pysubmit.py: one request of %d descriptors (%d layers x %d blocks of %d "
           "bytes, shuffled remote ids) by `transfer_async()`, %d repetitions interleaved, "
           "ms median (min..max).  build: block ids to descriptors; convert: those into the "
           "C array the library takes (`hixl.OpDescs(descs)`, what `transfer_async()` does "
           "first); Python-side = build + convert; submit: `transfer_async()` of the array "
           "(the library's and the kernel's share, the same for every form); ratio = list / "
           "form of the Python-side time.  Goal: Python-side <= 1 ms and >= 20x faster than "
           "the list.  Under TCG a CPU instruction costs several times a real CPU's (numpy's "
           "vector code most): the ratio is the figure.  Python %s, numpy %s.\n"
           % (p["n"], LAYERS, BLOCKS, BLOCK, len(p["res"].get("list", [])),
              p["info"].get("python", "?"), p["info"].get("numpy", "?")),
           "| descriptors given as | build | convert | Python-side | ratio | submit | bytes |",
           "|---|---|---|---|---|---|---|"]
    names = {"list": "list of `TransferOpDesc`", "numpy": "(n, 3) uint64 numpy array",
             "arrays": "two uint64 numpy arrays, `OpDescs.from_arrays()`",
             "blocks": "`OpDescs.from_blocks()`"}
    for form in FORMS:
        if form not in p["res"]:
            continue
        side = ms(form, pyside)
        m = med(side)
        r = "%.1f" % (lst / m) if lst and m else "-"
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            names[form], spread(ms(form, lambda b, c, s: b), 3),
            spread(ms(form, lambda b, c, s: c), 3), spread(side, 3), r,
            spread(ms(form, lambda b, c, s: s), 3),
            "checked" if p["verified"].get(form) else "MISMATCH"))
    if p["step"]:
        def st(names):
            return ", ".join("%s %.3f" % (what, med([v * 1e3 for v in p["step"][k]]))
                             for k, what in names if k in p["step"])
        total = med([sum(p["step"][k][i] for k, _ in STEPS if k in p["step"]) * 1e3
                     for i in range(min(len(p["step"][k]) for k, _ in STEPS if k in p["step"]))])
        out += ["", "Where the numpy form's build goes (the same build again right after the "
                "timed one, each statement timed alone, ms median): " + st(STEPS) +
                "; together %.3f.  numpy's floor in this VM: " % total + st(FLOORS) + ".  The (n, 3) "
                "array's convert is hixl's whole share: the buffer is taken in place (C-contiguous "
                "8-byte integers: no copy, no per-element Python work)."]
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", action="store_true", help="measure (in the VM) into --raw")
    ap.add_argument("--raw", required=True)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--ip", default="10.77.0.1")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--vm-seconds", default="?")
    ap.add_argument("--host-load", default="?")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.run:
        measure(a.raw, a.reps, a.ip)
        return
    lines = ["# Python: building and submitting a KV-cache request\n",
             "Debian kernel %s, QEMU/TCG, rxe0 (`make bench-py`); the VM run took %s s, "
             "host load %s.\n" % (a.kernel, a.vm_seconds, a.host_load)]
    text = "\n".join(lines + section(parse(a.raw)))
    if a.out:
        open(a.out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
