#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""NIXL's Python nixl_agent with backends=["HIXL"], driven in the call
sequence of vLLM's NixlConnector (vllm/distributed/kv_transfer/kv_connector/
v1/nixl_connector.py): a prefill process holding KV blocks in torch (CPU)
tensors, a decode process pulling scattered blocks into numpy arrays with a
READ that carries a notification, the prefill side answering with send_notif.

With --cuda both sides hold their KV cache in device memory, as
NixlConnector does with its default kv_buffer_device "cuda": allocations
of the stand-in CUDA driver (tests/gpu/fake_cuda.c, build/fake-cuda/
libcuda.so.1; its device memory is mapped PROT_NONE, so any CPU access by
hixl or NIXL kills the process), registered as VRAM by address, the READ
device to device, checked through cuMemcpyDtoH.

Two ways to run it, the same checks (CHECKS):
- under pytest, collected by tests/python/test_nixl_agent.py, whose process
  imports torch once and forks the prefill side (make check: a VM boot pays
  torch's import once); tests/python/conftest.py writes its results to
  $HIXL_WORK/nixl-python.tap;
- standalone: TAP on stdout; exit 0 all passed, 1 a failure, 77 (skip) with
  the reason when there is no /dev/hixl, no NIXL build (make nixl records its
  prefix in build/nixl/prefix) or no torch.

Usage: tests/nixl/test_nixl_vllm.py [--cuda]  (the decode side; it starts
       the prefill side as `--prefill [--cuda]`, which talks pickles on
       stdin/stdout)
       tests/nixl/test_nixl_vllm.py --pair-prefill MY_IP PORT
       tests/nixl/test_nixl_vllm.py --pair-decode MY_IP PEER_IP PORT
           the two sides on two hosts (make check's two VMs, tests/pair/
           guest.sh): the pickles over a TCP connection to PEER_IP:PORT (as
           vLLM's side channel), each side's hixl engine on MY_IP (the
           backend parameter "engine"), the KV blocks in numpy on both
           sides (no torch import); the decode side prints the TAP, the
           prefill side exits 0 when it served the decode side to the end
"""

import ctypes
import glob
import os
import pickle
import socket
import subprocess
import sys
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(REPO, "build", "nixl")
LAYERS = 4  # regions: 2 layers x (K, V), one registration each, as vLLM
NUM_BLOCKS = 64
BLOCK_LEN = 32 << 10  # bytes of one KV block of one region


_tap = sys.stdout  # TAP; NIXL's Python logger prints on stdout, main() moves it to stderr


def tap(line):
    _tap.write(line + "\n")
    _tap.flush()


class Skip(Exception):
    """What this machine lacks for the test (the reason)."""


def skip(why):
    raise Skip(why)


#: the checks, in order: (id, what it shows)
CHECKS = [
    ("backend", 'nixl_agent(backends=["HIXL"]) made the backend'),
    ("remote_agent", "add_remote_agent(get_agent_metadata()) names the prefill agent"),
    ("read", "make_prepped_xfer READ of 96 scattered 32 KiB blocks, transfer, check_xfer_state: "
             "the prefill side's blocks (torch; numpy across two VMs; device memory with --cuda) "
             "in the decode side's byte for byte"),
    ("notif", "the prefill side's get_new_notifs() has the READ's notification"),
    ("send_notif", "send_notif(decode) arrives in the decode side's get_new_notifs()"),
    ("release", "both sides released, deregistered and removed the remote agent"),
]


FAKE_CUDA = os.environ.get("HIXL_TEST_FAKE_CUDA",
                           os.path.join(REPO, "build", "fake-cuda", "libcuda.so.1"))


def requirements(tensors="torch"):
    """Skip (raise Skip) unless /dev/hixl, numpy and (tensors="torch": the
    prefill side's tensors) torch are there; tensors="cuda": the stand-in
    CUDA driver and /dev/udmabuf, which its exports need."""
    if not os.access("/dev/hixl", os.R_OK | os.W_OK):
        skip("no /dev/hixl (hixl.ko not loaded): run in the test VM")
    if tensors == "cuda":
        if not os.path.exists("/dev/udmabuf"):
            skip("/dev/udmabuf missing (CONFIG_UDMABUF): the stand-in GPU exports udmabufs")
        if not os.path.exists(FAKE_CUDA):
            skip("the stand-in CUDA driver is not built (make tests): %s" % FAKE_CUDA)
    import importlib.util

    for m in ("numpy", "torch") if tensors == "torch" else ("numpy",):
        if importlib.util.find_spec(m) is None:
            skip("no %s for %s (make deps)" % (m, sys.executable))


def nixl_api():
    """NIXL's Python package from the prefix `make nixl` built against."""
    if not os.path.exists(os.path.join(BUILD, "libplugin_HIXL.so")):
        skip("the NIXL backend plugin is not built (make nixl NIXL_PREFIX=...)")
    try:
        with open(os.path.join(BUILD, "prefix")) as f:
            prefix = f.read().strip()
    except OSError:
        skip("no build/nixl/prefix: make nixl NIXL_PREFIX=... (scripts/build-nixl.sh) first")
    pkgs = glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages", "nixl*", "_api.py"))
    if not pkgs:
        skip("NIXL at %s has no Python package" % prefix)
    # NIXL's extension has no run path to libnixl.so (libserdes.so): load
    # libnixl.so by its path first (its own run path finds libserdes.so), so
    # the extension's dependencies are libraries already loaded
    ctypes.CDLL(os.path.join(prefix, "lib", "libnixl.so"), mode=ctypes.RTLD_GLOBAL)
    sys.path.insert(0, os.path.dirname(os.path.dirname(pkgs[0])))
    os.environ.setdefault("NIXL_PLUGIN_DIR", BUILD)
    mod = __import__(os.path.basename(os.path.dirname(pkgs[0])) + "._api", fromlist=["_api"])
    return mod.nixl_agent, mod.nixl_agent_config


def expected_all():
    """The prefill side's KV bytes: [region][block] -> BLOCK_LEN bytes."""
    import numpy as np

    i = np.arange(BLOCK_LEN, dtype=np.uint32)[None, None, :]
    k = np.arange(LAYERS * NUM_BLOCKS, dtype=np.uint32).reshape(LAYERS, NUM_BLOCKS, 1)
    return ((i * np.uint32(2654435761) + k * np.uint32(40503)) >> 13).astype(np.uint8)


def new_agent(role, params=None):
    """An agent named role-<uuid> with the backend HIXL: as vLLM makes it
    (nixl_agent_config(backends=["HIXL"]), the backend's default parameters)
    or, with params, by create_backend("HIXL", params)."""
    nixl_agent, nixl_agent_config = nixl_api()
    name = role + "-" + str(uuid.uuid4())
    if params is None:
        return nixl_agent(name, nixl_agent_config(backends=["HIXL"]))
    agent = nixl_agent(name, nixl_agent_config(backends=[]))
    agent.create_backend("HIXL", params)
    return agent


class FakeCuda:
    """The stand-in CUDA driver, loaded by its path before hixl's
    dlopen("libcuda.so.1") (which then finds it by its soname): device
    allocations of NUM_BLOCKS * BLOCK_LEN bytes, filled and read back with
    cuMemcpyHtoD/DtoH, as a GPU's KV cache is from the host."""

    def __init__(self):
        self.cu = ctypes.CDLL(FAKE_CUDA, mode=ctypes.RTLD_GLOBAL)
        if self.cu.cuInit(0) != 0:
            raise RuntimeError("the stand-in's cuInit failed")

    def alloc(self, data):
        """A device allocation holding data (a numpy uint8 array): its address."""
        d = ctypes.c_ulonglong()
        if self.cu.cuMemAlloc_v2(ctypes.byref(d), ctypes.c_size_t(data.nbytes)) != 0:
            raise RuntimeError("cuMemAlloc failed")
        self.htod(d.value, data)
        return d.value

    def htod(self, d, data):
        if self.cu.cuMemcpyHtoD_v2(ctypes.c_ulonglong(d), data.ctypes.data_as(ctypes.c_void_p),
                                   ctypes.c_size_t(data.nbytes)) != 0:
            raise RuntimeError("cuMemcpyHtoD failed")

    def dtoh(self, d, n):
        """n bytes of device memory at d, as a numpy uint8 array."""
        import numpy as np

        out = np.empty(n, dtype=np.uint8)
        if self.cu.cuMemcpyDtoH_v2(out.ctypes.data_as(ctypes.c_void_p), ctypes.c_ulonglong(d),
                                   ctypes.c_size_t(n)) != 0:
            raise RuntimeError("cuMemcpyDtoH failed")
        return out


def send(out, obj):
    out.write(pickle.dumps(obj))
    out.flush()


def block_descs(bases):
    """vLLM's blocks_data: one (addr, len, device) per block of each region."""
    return [(base + b * BLOCK_LEN, BLOCK_LEN, 0) for base in bases for b in range(NUM_BLOCKS)]


def prefill(inp, out, params=None, tensors="torch"):
    """The KV producer: torch tensors (tensors="torch"), numpy arrays
    ("numpy") or device memory ("cuda", registered as VRAM), registered;
    answers the decode side.  inp, out: binary files
    of the pickle channel from and to the decode side; params: the HIXL
    backend's parameters (new_agent())."""
    agent = new_agent("prefill", params)
    exp = expected_all()
    if tensors == "torch":
        import torch

        kv = [torch.from_numpy(exp[r]).clone() for r in range(LAYERS)]
        caches_data = [(t.data_ptr(), t.numel() * t.element_size(), 0, "") for t in kv]
    elif tensors == "cuda":
        cu = FakeCuda()
        caches_data = [(cu.alloc(exp[r].reshape(-1)), exp[r].nbytes, 0, "") for r in range(LAYERS)]
    else:
        kv = [exp[r].copy() for r in range(LAYERS)]
        caches_data = [(a.ctypes.data, a.nbytes, 0, "") for a in kv]
    mem = "VRAM" if tensors == "cuda" else "DRAM"
    descs = agent.get_reg_descs(caches_data, mem)
    agent.register_memory(descs, backends=["HIXL"])
    bases = [c[0] for c in caches_data]
    src = agent.prep_xfer_dlist("NIXL_INIT_AGENT", agent.get_xfer_descs(block_descs(bases), mem))
    send(out, {"md": agent.get_agent_metadata(), "bases": bases, "name": agent.name, "mem": mem})

    decode_md = pickle.load(inp)  # the decode side's metadata, for send_notif
    decode = agent.add_remote_agent(decode_md)
    # wait for the decode side's READ notification (vLLM: _get_new_notifs)
    got = None
    deadline = time.time() + 60
    while got is None and time.time() < deadline:
        for who, msgs in agent.get_new_notifs().items():
            for m in msgs:
                if m == b"req-1":
                    got = who
        time.sleep(0.001)
    if got is not None:
        agent.send_notif(decode, b"done:req-1")
    send(out, {"notif_from": got})
    pickle.load(inp)  # "exit"
    agent.remove_remote_agent(decode)
    agent.release_dlist_handle(src)
    agent.deregister_memory(descs, backends=["HIXL"])
    send(out, {"bye": True})


def decode(inp, out, ok, params=None, cuda=False):
    """The KV consumer (vLLM's NixlConnector on the decode side) against the
    prefill side behind inp/out (binary files of its pickle channel); calls
    ok(index into CHECKS, passed, why) for each check, in order; params: the
    HIXL backend's parameters (new_agent()); cuda: the KV cache in device
    memory (FakeCuda), registered as VRAM."""
    import numpy as np

    agent = new_agent("decode", params)
    ok(0, "HIXL" in agent.backends)
    kv = [np.zeros((NUM_BLOCKS, BLOCK_LEN), dtype=np.uint8) for _ in range(LAYERS)]
    if cuda:
        cu = FakeCuda()
        bases = [cu.alloc(a.reshape(-1)) for a in kv]
    else:
        bases = [a.ctypes.data for a in kv]
    mem = "VRAM" if cuda else "DRAM"
    descs = agent.get_reg_descs([(b, NUM_BLOCKS * BLOCK_LEN, 0, "") for b in bases], mem)
    agent.register_memory(descs, backends=["HIXL"])
    dst = agent.prep_xfer_dlist("NIXL_INIT_AGENT", agent.get_xfer_descs(block_descs(bases), mem))

    info = pickle.load(inp)
    remote = agent.add_remote_agent(info["md"])  # bytes, passed on as vLLM does
    rname = remote.decode() if isinstance(remote, bytes) else remote
    ok(1, rname == info["name"], "%r" % remote)
    src = agent.prep_xfer_dlist(remote, agent.get_xfer_descs(block_descs(info["bases"]),
                                                             info.get("mem", "DRAM")))

    # a request's blocks: scattered ids on both sides, every region (vLLM's
    # _get_block_descs_ids: region * num_blocks + block)
    rng = np.random.default_rng(3)
    remote_blocks = rng.choice(NUM_BLOCKS, 24, replace=False)
    local_blocks = rng.choice(NUM_BLOCKS, 24, replace=False)
    rids = [r * NUM_BLOCKS + int(b) for r in range(LAYERS) for b in remote_blocks]
    lids = [r * NUM_BLOCKS + int(b) for r in range(LAYERS) for b in local_blocks]
    handle = agent.make_prepped_xfer("READ", dst, lids, src, rids, notif_msg=b"req-1")
    state = agent.transfer(handle)
    deadline = time.time() + 60
    while state == "PROC" and time.time() < deadline:
        state = agent.check_xfer_state(handle)
        time.sleep(0.0002)
    agent.release_xfer_handle(handle)
    if cuda:
        kv = [cu.dtoh(b, NUM_BLOCKS * BLOCK_LEN).reshape(NUM_BLOCKS, BLOCK_LEN) for b in bases]
    exp = expected_all()
    bad = sum(not np.array_equal(kv[r][lb], exp[r][rb])
              for r in range(LAYERS) for lb, rb in zip(local_blocks, remote_blocks))
    untouched = [b for b in range(NUM_BLOCKS) if b not in set(int(x) for x in local_blocks)]
    stray = sum(bool(kv[r][b].any()) for r in range(LAYERS) for b in untouched)
    ok(2, state == "DONE" and bad == 0 and stray == 0,
       "state %s, %d blocks differ, %d untouched blocks written" % (state, bad, stray))

    send(out, agent.get_agent_metadata())
    res = pickle.load(inp)
    ok(3, res["notif_from"] == agent.name, "from %r" % res["notif_from"])
    got = False
    deadline = time.time() + 30
    while not got and time.time() < deadline:
        got = b"done:req-1" in agent.get_new_notifs().get(rname, [])
        time.sleep(0.001)
    ok(4, got)

    agent.remove_remote_agent(remote)
    agent.release_dlist_handle(src)
    agent.release_dlist_handle(dst)
    agent.deregister_memory(descs, backends=["HIXL"])
    send(out, "exit")
    ok(5, pickle.load(inp).get("bye"))


def pair_prefill(my_ip, port):
    """--pair-prefill: serve one decode side that connects to my_ip:port
    (waits up to 240 s for it); 0 when served to the end."""
    with socket.create_server((my_ip, port)) as srv:
        srv.settimeout(240)
        conn, _ = srv.accept()
    with conn, conn.makefile("rb") as inp, conn.makefile("wb") as out:
        conn.settimeout(120)
        prefill(inp, out, {"engine": my_ip}, "numpy")
    return 0


def pair_connect(peer_ip, port):
    """The decode side's connection to the prefill side, retried for up to
    240 s while the other VM finishes the step before."""
    deadline = time.time() + 240
    while True:
        try:
            conn = socket.create_connection((peer_ip, port), timeout=5)
            conn.settimeout(120)
            return conn
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--pair-prefill":
        try:
            requirements(tensors="numpy")
        except Skip as e:
            print("test_nixl_vllm: %s" % e, file=sys.stderr)
            return 77
        os.dup2(2, 1)  # NIXL's logger
        return pair_prefill(sys.argv[2], int(sys.argv[3]))
    pair = len(sys.argv) == 5 and sys.argv[1] == "--pair-decode"
    cuda = "--cuda" in sys.argv[1:3]
    if len(sys.argv) > 1 and sys.argv[1] == "--prefill":
        # pickles on the original stdout; anything else printed goes to stderr
        out = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
        prefill(sys.stdin.buffer, out, tensors="cuda" if cuda else "torch")
        return 0
    try:
        requirements(tensors="numpy" if pair else "cuda" if cuda else "torch")
        nixl_api()
    except Skip as e:
        tap("1..0 # SKIP %s" % e)
        return 77
    global _tap
    sys.stdout.flush()
    _tap = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    n = 0
    failed = 0

    def ok(i, cond, why=""):
        nonlocal n, failed
        n += 1
        failed += not cond
        tap("%s %d - %s%s" % ("ok" if cond else "not ok", n, CHECKS[i][1],
                              " # " + why if why and not cond else ""))

    tap("TAP version 13")
    if pair:
        with pair_connect(sys.argv[3], int(sys.argv[4])) as conn, \
                conn.makefile("rb") as inp, conn.makefile("wb") as out:
            decode(inp, out, ok, {"engine": sys.argv[2]})
        tap("1..%d" % n)
        return 1 if failed or n != len(CHECKS) else 0
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--prefill"]
                         + (["--cuda"] if cuda else []),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        decode(p.stdout, p.stdin, ok, cuda=cuda)
    finally:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
    tap("1..%d" % n)
    return 1 if failed or n != len(CHECKS) else 0


if __name__ == "__main__":
    sys.exit(main())
