#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/mcbench.py - one measurement of `make bench-mooncake`: the same
Python code against Mooncake's TransferEngine (`from mooncake.engine import
TransferEngine`, the build of scripts/build-mooncake.sh) or hixl's
(`from hixl.mooncake import TransferEngine`), protocol "rdma", metadata
"P2PHANDSHAKE", two engines on --ip (10.77.0.1, rxe0): this process the
initiator, a child process (this script with --target) the target, as
Mooncake needs one engine a process.

    bench/mcbench.py --impl mooncake|hixl --rep R --raw RAW kv    [--layers 8]
    bench/mcbench.py --impl mooncake|hixl --rep R --raw RAW reg   [--reg-mib 1024] [--reg-min-mib 256]

kv: the KV job's shape: LAYERS layers of DESCS (256) scattered BLOCK_KIB
(32) KiB blocks (local block lp[i] <-> remote block rp[i], two random
permutations a layer), one batch_transfer_sync_write (then _read) of a
layer's 256 descriptors (three lists of ints) per call, the layers one
after another; a warm-up layer first (connects), then one timed pass per
op.  Wall seconds of the pass and whole-VM CPU seconds (user + nice +
system + irq + softirq + steal of /proc/stat's "cpu" line, both engines
and rxe's softirq work) over it.  Every byte is checked afterwards (WRITE:
crc32 of the target's buffer against the image expected; READ: the local
buffer against the pattern the target filled).  Then SUBMIT_ITERS (5)
times the Python cost of one 8,192-descriptor request (64 layers x 128
blocks of 64 B, bench/pysubmit.py's shape): building the three lists in
Python (build), batch_transfer_async_write() returning (submit); the
completion (get_batch_transfer_status) is waited for, untimed.

reg: registration time of one buffer (anonymous mmap, every page touched
first) with register_memory() and unregister_memory(), REG_MIB (1024)
first, then halving down to REG_MIN_MIB (256; so both engines have
sizes in common), and on below it while they fail (down to 1 MiB): every
size that registers is timed, every one that fails named.  Each size
that registers is registered and unregistered REG_TIMES (5) times over
in the same process and buffer, each time a "reg" line: one sample of a
~0.2 s call on a shared TCG host varies by 2x from run to run, and the
first of a process is timed like the others.

Raw lines appended to RAW (bench/mooncakereport.py reads them):
"kv REP IMPL OP LAYERS DESCS BLOCK BYTES SECONDS CPU_S",
"verified REP IMPL OP 0|1", "submit REP IMPL NDESCS BUILD_S SUBMIT_S",
"reg REP IMPL BYTES REG_S DEREG_S", "regfail REP IMPL BYTES REASON...",
"na REP IMPL WHAT REASON...", "info KEY VALUE...".  A failing call gives
an "na" line naming the call, its return value and the engine's last
error log line (MCB_ERRLOG: the file this process's stderr goes to).
Mooncake's prefix: MOONCAKE_PREFIX (its python/ is put first on sys.path).
"""
import argparse
import mmap
import os
import subprocess
import sys
import time
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESCS, BLOCK = 256, 32 << 10
SUB_LAYERS, SUB_BLOCKS, SUB_BLOCK = 64, 128, 64
SUBMIT_ITERS = 5
MIB = 1 << 20


def engine_class(impl):
    """TransferEngine of Mooncake (MOONCAKE_PREFIX/python) or of hixl (python/)"""
    if impl == "mooncake":
        sys.path.insert(0, os.path.join(os.environ["MOONCAKE_PREFIX"], "python"))
        from mooncake.engine import TransferEngine
    else:
        sys.path.insert(0, os.path.join(REPO, "python"))
        from hixl.mooncake import TransferEngine
    return TransferEngine


def cpu_busy():
    """whole-machine busy seconds from /proc/stat's "cpu" line (USER_HZ 100)"""
    f = open("/proc/stat").readline().split()
    v = [int(x) for x in f[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def close(m):
    """unmap m; a view still alive (BufferError) leaves it to the process's exit"""
    try:
        m.close()
    except BufferError:
        pass


def buffer(nbytes):
    """(mmap, numpy uint8 view, address) of page-aligned anonymous memory, touched"""
    import numpy as np
    m = mmap.mmap(-1, nbytes)
    a = np.frombuffer(m, dtype=np.uint8)
    a[::4096] = 0
    return m, a, a.ctypes.data


def pattern(seed, nbytes):
    """the bytes a side fills its buffer with: uint64 words seed<<40 | index"""
    import numpy as np
    return (np.arange(nbytes // 8, dtype=np.uint64) | np.uint64(seed << 40)).view(np.uint8)


def last_error(impl):
    """the engine's last error-looking log line (MCB_ERRLOG), or hixl.last_error()"""
    if impl == "hixl":
        import hixl
        return hixl.last_error() or "-"
    path = os.environ.get("MCB_ERRLOG")
    try:
        lines = [l.strip() for l in open(path, errors="replace") if l[:1] in "EF" or "rror" in l]
        return lines[-1][-200:] if lines else "-"
    except (OSError, TypeError):
        return "-"


def target(args):
    """the target engine: init, register LAYERS x DESCS x BLOCK, then serve
    commands on stdin ("fill SEED", "crc", "quit"), answers "MCB ..." on stdout"""
    TE = engine_class(args.impl)
    te = TE()
    say = lambda s: (sys.stdout.write("MCB " + s + "\n"), sys.stdout.flush())
    rc = te.initialize(args.ip, "P2PHANDSHAKE", "rdma", "")
    if rc != 0:
        say("fail initialize returned %d: %s" % (rc, last_error(args.impl)))
        return
    n = args.layers * DESCS * BLOCK
    m, a, addr = buffer(n)
    rc = te.register_memory(addr, n)
    if rc != 0:
        say("fail target register_memory(%d) returned %d: %s" % (n, rc, last_error(args.impl)))
        return
    say("ready %s:%d %d" % (args.ip, te.get_rpc_port(), addr))
    for line in sys.stdin:
        f = line.split()
        if not f or f[0] == "quit":
            break
        if f[0] == "fill":
            a[:] = pattern(int(f[1]), n)
            say("ok")
        elif f[0] == "crc":
            say("crc %d" % zlib.crc32(a))
    te.unregister_memory(addr)
    del a
    close(m)


class Target:
    """the child process running target(); its stderr to WORK/mcbench-target-IMPL.err"""

    def __init__(self, args):
        err = os.path.join(os.path.dirname(os.path.abspath(args.raw)),
                           "mcbench-target-%s.err" % args.impl)
        self.errlog = err
        env = dict(os.environ, MCB_ERRLOG=err)
        self.p = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--impl", args.impl, "--ip", args.ip,
             "--layers", str(args.layers), "--raw", args.raw, "--target"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(err, "a"),
            text=True, env=env)

    def reply(self):
        for line in self.p.stdout:
            if line.startswith("MCB "):
                return line[4:].strip()
        return "fail target exited (%s)" % self.p.wait()

    def cmd(self, s):
        self.p.stdin.write(s + "\n")
        self.p.stdin.flush()
        return self.reply()

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
            self.p.wait(60)
        except Exception:
            self.p.kill()


def kv(args, out):
    """the KV job's WRITE and READ passes and the submit cost (see the header)"""
    import numpy as np
    impl, rep = args.impl, args.rep
    TE = engine_class(impl)
    na = lambda what, why: out.write("na %d %s %s %s\n" % (rep, impl, what, why))
    te = TE()
    rc = te.initialize(args.ip, "P2PHANDSHAKE", "rdma", "")
    if rc != 0:
        return na("initialize", "initialize returned %d: %s" % (rc, last_error(impl)))
    tg = Target(args)
    try:
        r = tg.reply()
        if not r.startswith("ready"):
            return na("target", r)
        _, session, raddr = r.split()
        raddr = int(raddr)
        L, layer = args.layers, DESCS * BLOCK
        n = L * layer
        m, a, laddr = buffer(n)
        rc = te.register_memory(laddr, n)
        if rc != 0:
            return na("register", "register_memory(%d) returned %d: %s" % (n, rc, last_error(impl)))
        rng = np.random.default_rng(1000 + rep)
        lp = [rng.permutation(DESCS) for _ in range(L)]
        rp = [rng.permutation(DESCS) for _ in range(L)]
        loc = [[laddr + l * layer + int(i) * BLOCK for i in lp[l]] for l in range(L)]
        rem = [[raddr + l * layer + int(i) * BLOCK for i in rp[l]] for l in range(L)]
        lens = [BLOCK] * DESCS
        blocks = a.reshape(L, DESCS, BLOCK)
        for op in ("write", "read"):
            call = te.batch_transfer_sync_write if op == "write" else te.batch_transfer_sync_read
            if op == "write":
                a[:] = pattern(2 * rep + 1, n)
            else:
                tg.cmd("fill %d" % (2 * rep + 2))
            # warm-up: layer 0 (the first transfer opens the segment / connects)
            rc = call(session, loc[0], rem[0], lens)
            if rc != 0:
                na(op, "warm-up batch_transfer_sync_%s(256 x 32 KiB) returned %d: %s"
                   % (op, rc, last_error(impl)))
                continue
            if op == "read":
                a[:] = 0
            c0, t0 = cpu_busy(), time.perf_counter()
            for l in range(L):
                rc = call(session, loc[l], rem[l], lens)
                if rc != 0:
                    break
            t1, c1 = time.perf_counter(), cpu_busy()
            if rc != 0:
                na(op, "batch_transfer_sync_%s of layer %d (256 x 32 KiB) returned %d: %s"
                   % (op, l, rc, last_error(impl)))
                continue
            out.write("kv %d %s %s %d %d %d %d %.6f %.2f\n"
                      % (rep, impl, op, L, DESCS, BLOCK, n, t1 - t0, c1 - c0))
            if op == "write":
                exp = np.empty_like(blocks)
                for l in range(L):
                    exp[l, rp[l]] = blocks[l, lp[l]]
                ok = tg.cmd("crc") == "crc %d" % zlib.crc32(exp)
                del exp
            else:
                src = pattern(2 * rep + 2, n).reshape(L, DESCS, BLOCK)
                ok = all(np.array_equal(blocks[l, lp[l]], src[l, rp[l]]) for l in range(L))
                del src
            out.write("verified %d %s %s %d\n" % (rep, impl, op, int(ok)))
            out.flush()
        # the Python cost of one 8,192-descriptor request (64 B blocks)
        for it in range(SUBMIT_ITERS + 1):	# iteration 0: warm-up, not written
            perm = [int(x) for x in rng.permutation(SUB_BLOCKS)]
            t0 = time.perf_counter()
            sl, sr, sn = [], [], []
            for l in range(SUB_LAYERS):
                lb, rb = laddr + l * SUB_BLOCKS * SUB_BLOCK, raddr + l * SUB_BLOCKS * SUB_BLOCK
                for i in range(SUB_BLOCKS):
                    sl.append(lb + i * SUB_BLOCK)
                    sr.append(rb + perm[i] * SUB_BLOCK)
                    sn.append(SUB_BLOCK)
            t1 = time.perf_counter()
            bid = te.batch_transfer_async_write(session, sl, sr, sn)
            t2 = time.perf_counter()
            if not bid or bid < 0:
                na("submit", "batch_transfer_async_write(8192 x 64 B) returned %s: %s"
                   % (bid, last_error(impl)))
                break
            rc = te.get_batch_transfer_status([bid])
            if rc != 0:
                na("submit", "get_batch_transfer_status returned %d: %s" % (rc, last_error(impl)))
                break
            if it:
                out.write("submit %d %s %d %.9f %.9f\n" % (rep, impl, len(sl), t1 - t0, t2 - t1))
        te.unregister_memory(laddr)
        del blocks, a
        close(m)
    finally:
        tg.close()
        out.flush()


def reg(args, out):
    """registration times of buffers of REG_MIB, halving (see the header)"""
    impl, rep = args.impl, args.rep
    TE = engine_class(impl)
    te = TE()
    rc = te.initialize(args.ip, "P2PHANDSHAKE", "rdma", "")
    if rc != 0:
        out.write("na %d %s reg initialize returned %d: %s\n" % (rep, impl, rc, last_error(impl)))
        return
    mib = args.reg_mib
    while mib >= 1:
        n = mib * MIB
        m, a, addr = buffer(n)
        ok = 0		# registrations of this size that succeeded
        for _ in range(max(1, args.reg_times)):
            t0 = time.perf_counter()
            rc = te.register_memory(addr, n)
            t1 = time.perf_counter()
            if rc != 0:
                break
            ok += 1
            rc2 = te.unregister_memory(addr)
            t2 = time.perf_counter()
            out.write("reg %d %s %d %.6f %.6f\n" % (rep, impl, n, t1 - t0, t2 - t1))
            if rc2 != 0:
                out.write("na %d %s dereg unregister_memory(%d) returned %d\n" % (rep, impl, n, rc2))
                break
        if rc != 0 and ok:
            out.write("na %d %s reg register_memory(%d) returned %d the %d. time: %s\n"
                      % (rep, impl, n, rc, ok + 1, last_error(impl)))
        elif rc != 0:
            out.write("regfail %d %s %d register_memory returned %d after %.3f s: %s\n"
                      % (rep, impl, n, rc, t1 - t0, last_error(impl)))
        out.flush()
        del a
        close(m)
        if ok and mib <= args.reg_min_mib:
            break
        mib //= 2


def main():
    ap = argparse.ArgumentParser(prog="mcbench")
    ap.add_argument("--impl", choices=["mooncake", "hixl"], required=True)
    ap.add_argument("--ip", default="10.77.0.1")
    ap.add_argument("--rep", type=int, default=1)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--reg-mib", type=int, default=1024)
    ap.add_argument("--reg-min-mib", type=int, default=256)
    ap.add_argument("--reg-times", type=int, default=5)
    ap.add_argument("--target", action="store_true", help="(internal) the target process")
    ap.add_argument("what", nargs="?", choices=["kv", "reg"], default="kv")
    args = ap.parse_args()
    if args.target:
        return target(args)
    with open(args.raw, "a") as out:
        (kv if args.what == "kv" else reg)(args, out)


if __name__ == "__main__":
    main()
