#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-peer.py HIXL_BENCH - a hostile hixl-bench server on 127.0.0.1.

Each case accepts one `hixl-bench --client 127.0.0.1:PORT --json`, reads its
HELLO (checked: the model the command line gave), answers with something
garbled, and checks the client fails cleanly: exit status 1 (no crash, no
hang), one {"ok":false,...} object on stdout whose error names what was
wrong.  Needs no device: the client checks the server's TABLE before it sets
its own engine up.  The last case sends a good TABLE: the client then goes on
to its engine, which fails without /dev/hixl (exit 77) and must tell the
server so with an ERROR.  Prints one line per case; exit status 0 when every
case passed.
"""
import json, os, socket, struct, subprocess, sys, threading

BENCH = sys.argv[1] if len(sys.argv) > 1 else "tools/hixl-bench"
MAGIC, VERSION = 0x4858424E, 1
HELLO, TABLE, MODE, READY, VERIFY, RESULT, BYE, ERROR = range(1, 9)
LAYERS, KV_HEADS, HEAD_DIM, DTYPE, BLOCK_TOKENS, TOKENS, SEED = 2, 1, 8, 2, 4, 64, 7
NBLOCKS = TOKENS // BLOCK_TOKENS
BLOCK_BYTES = BLOCK_TOKENS * KV_HEADS * HEAD_DIM * DTYPE
CACHE = LAYERS * 2 * NBLOCKS * BLOCK_BYTES


def hdr(t, n, magic=MAGIC, version=VERSION):
    return struct.pack(">IHHI", magic, version, t, n)


def table(name=b"10.77.0.9:18100", base=0x7F0000000000, size=CACHE, n=NBLOCKS, blocks=None,
          reserved=0):
    blocks = list(range(NBLOCKS)) if blocks is None else blocks
    p = name.ljust(64, b"\0")[:64] + struct.pack(">QQII", base, size, n, reserved)
    p += b"".join(struct.pack(">I", b) for b in blocks)
    return hdr(TABLE, len(p)) + p


def error(msg, err=28):
    p = struct.pack(">i", err) + msg
    return hdr(ERROR, len(p)) + p


def recv_exact(c, n):
    b = b""
    while len(b) < n:
        got = c.recv(n - len(b))
        if not got:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += got
    return b


# (name, what the server sends after HELLO, words the client's error must hold, status)
CASES = [
    ("bad magic", hdr(TABLE, 0, magic=0x47455420), "magic", 1),
    ("other version", hdr(TABLE, 0, version=9), "version 9", 1),
    ("unexpected type", hdr(READY, 0), "READY", 1),
    ("unknown type", hdr(77, 0), "type 77", 1),
    ("huge length", hdr(TABLE, 0xFFFFFFF0), "bytes", 1),
    ("short TABLE", hdr(TABLE, 10) + b"x" * 10, "TABLE of 10 bytes", 1),
    ("truncated", hdr(TABLE, 100) + b"x" * 20, "closed", 1),
    ("closed at once", b"", "closed", 1),
    ("block count", table(n=NBLOCKS + 1, blocks=list(range(NBLOCKS + 1))), "garbled TABLE", 1),
    ("cache size", table(size=CACHE * 2), "garbled TABLE", 1),
    ("address wraps", table(base=2**64 - 4096), "garbled TABLE", 1),
    ("null address", table(base=0), "garbled TABLE", 1),
    ("reserved", table(reserved=1), "garbled TABLE", 1),
    ("block outside", table(blocks=list(range(NBLOCKS - 1)) + [NBLOCKS]), "outside the cache", 1),
    ("block twice", table(blocks=[1] + list(range(1, NBLOCKS))), "twice", 1),
    ("name unterminated", table(name=b"1" * 64), "engine name", 1),
    ("name without port", table(name=b"10.77.0.9"), "engine name", 1),
    ("peer's error", error(b"no room\x01\xff for you"), "the peer says: no room?? for you", 1),
    ("garbled error", hdr(ERROR, 2) + b"xx", "ERROR of 2 bytes", 1),
    # a good table: the client reaches its own engine (no /dev/hixl here: 77)
    ("good table", table(), None, 77),
]


def run(case):
    name, answer, words, want_rc = case
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    port = ls.getsockname()[1]
    seen = {}

    def serve():
        c, _ = ls.accept()
        c.settimeout(20)
        h = recv_exact(c, 12)
        magic, ver, t, n = struct.unpack(">IHHI", h)
        seen["hello"] = (magic, ver, t, n) == (MAGIC, VERSION, HELLO, 56) and \
            struct.unpack(">7Q", recv_exact(c, 56)) == \
            (LAYERS, KV_HEADS, HEAD_DIM, DTYPE, BLOCK_TOKENS, TOKENS, SEED)
        c.sendall(answer)
        if name == "closed at once" or name == "truncated":
            c.close()
            return
        try:
            rest = c.recv(4096)
            if len(rest) >= 12:
                seen["reply"] = struct.unpack(">IHHI", rest[:12])[2]
        except OSError:
            pass
        c.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    p = subprocess.run([BENCH, "--client", "127.0.0.1:%d" % port, "--json", "--local",
                        "10.77.0.9", "--layers", str(LAYERS), "--kv-heads", str(KV_HEADS),
                        "--head-dim", str(HEAD_DIM), "--dtype-bytes", str(DTYPE),
                        "--block-tokens", str(BLOCK_TOKENS), "--tokens", str(TOKENS),
                        "--seed", str(SEED), "--connect-wait", "5"],
                       capture_output=True, text=True, timeout=60)
    th.join(10)
    ls.close()
    problems = []
    if not seen.get("hello"):
        problems.append("no well-formed HELLO with the model")
    if p.returncode != want_rc:
        problems.append("exit status %d, not %d" % (p.returncode, want_rc))
    try:
        doc = json.loads(p.stdout)
        if doc.get("ok") is not False or set(doc) != {"ok", "error", "errno"}:
            problems.append("JSON %r" % doc)
        if words and words not in doc.get("error", ""):
            problems.append("error %r lacks %r" % (doc.get("error"), words))
    except ValueError:
        problems.append("stdout is not one JSON object: %r" % p.stdout)
    if name == "good table" and os.path.exists("/dev/hixl"):
        return None   # a real engine: the run goes on to connect; not this test's
    if name == "good table" and seen.get("reply") != ERROR:
        problems.append("the client did not send ERROR when its engine failed")
    return problems


failed = 0
for case in CASES:
    problems = run(case)
    if problems is None:
        print("bench-peer: %-18s skipped (/dev/hixl exists)" % case[0])
        continue
    print("bench-peer: %-18s %s" % (case[0], "; ".join(problems) or "ok"))
    failed += bool(problems)
sys.exit(1 if failed else 0)
