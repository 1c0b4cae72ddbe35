#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kv_connector.py - what a KV connector does, in two processes: the
decode process allocates KV blocks for a request in its paged cache (a
torch tensor: layers x K/V x blocks x tokens x heads x dim, bf16) and sends
the prefill process its engine name, cache address and block ids (here
one JSON line on a pipe: a connector uses its own side channel); the
prefill process, which computed those tokens' KV into blocks of its own
cache, WRITEs them block id to block id in one request
(hixl.OpDescs.from_blocks: one C call for every layer's blocks), awaits it
in asyncio, and sends the notification "kv_ready" with the request id; the
decode process waits for that notification on the engine's event
descriptor (loop.add_reader, no polling) and checks every block.

Usage: kv_connector.py [--numpy] [IP [PORT]]   (default 10.77.0.1 19600;
the decode engine takes PORT + 1; --numpy: numpy arrays instead of torch
tensors, e.g. where torch is not installed)
Exit status: 0 when the blocks arrived intact, 77 when there is no hixl
device (hixl.ko not loaded), 1 otherwise.
"""

import asyncio
import json
import os
import subprocess
import sys

import hixl

LAYERS, BLOCKS, TOKENS, HEADS, DIM = 4, 16, 16, 4, 64	# 1 MiB of bf16 per side
PREFILL_IDS = [3, 4, 5, 9, 14]		# where prefill computed the request's KV
DECODE_IDS = [0, 6, 7, 8, 15]		# where decode allocated room for it


def name(ip, port):
    return "[%s]:%d" % (ip, port) if ":" in ip else "%s:%d" % (ip, port)


def new_cache(use_numpy, seed):
    """(cache, base address, bytes per block, fill(block) -> expected
    contents): zeros, or with seed, the "computed" KV of every block"""
    shape = (LAYERS, 2, BLOCKS, TOKENS, HEADS, DIM)
    if use_numpy:
        import numpy as np
        cache = np.zeros(shape, np.uint16)			# bf16 bit patterns
        if seed is not None:
            cache[:] = np.random.default_rng(seed).integers(0, 1 << 16, shape, np.uint16)
        base = cache.ctypes.data
    else:
        import torch
        cache = torch.zeros(shape, dtype=torch.bfloat16)
        if seed is not None:
            cache.copy_(torch.randn(shape, generator=torch.Generator().manual_seed(seed)))
        base = cache.data_ptr()
    block_bytes = TOKENS * HEADS * DIM * 2
    return cache, base, block_bytes


def bases(base, block_bytes):
    """the start of every (layer, K/V) plane: one region a plane, blocks in it"""
    plane = BLOCKS * block_bytes
    return [base + i * plane for i in range(LAYERS * 2)]


def same(a, b):
    if hasattr(a, "equal"):
        return bool(a.equal(b))
    return bool((a == b).all())


async def wait_notify(engine, want):
    """the first notification named want, waiting on the event descriptor"""
    loop = asyncio.get_running_loop()
    ready = asyncio.Event()
    fd = engine.fileno()
    loop.add_reader(fd, ready.set)
    try:
        while True:
            ret, notes = engine.get_notifies()
            assert ret == hixl.SUCCESS, hixl.last_error()
            for n in notes:
                if n.name == want:
                    return n
            ready.clear()
            await ready.wait()
    finally:
        loop.remove_reader(fd)


async def decode(ip, port, use_numpy):
    engine = hixl.Hixl()
    if engine.initialize(name(ip, port + 1)) != hixl.SUCCESS:
        return 77 if not os.path.exists("/dev/hixl") else 1
    cache, base, block_bytes = new_cache(use_numpy, None)
    ret, _ = engine.register_mem(cache, hixl.MEM_HOST)
    assert ret == hixl.SUCCESS, hixl.last_error()
    print(json.dumps({"engine": engine.local_engine, "base": base, "block_bytes": block_bytes,
                      "block_ids": DECODE_IDS}), flush=True)
    note = await asyncio.wait_for(wait_notify(engine, "kv_ready"), 120)
    want, _, _ = new_cache(use_numpy, 7)	# what prefill computed (same seed)
    ok = all(same(cache[:, :, d], want[:, :, p]) for p, d in zip(PREFILL_IDS, DECODE_IDS))
    untouched = [b for b in range(BLOCKS) if b not in DECODE_IDS]
    ok = ok and not any(bool((cache[:, :, b] != 0).any()) for b in untouched)
    print("decode: request %s: %d blocks x %d layers %s" % (
        note.notify_msg, len(DECODE_IDS), LAYERS, "intact" if ok else "CORRUPT"), flush=True)
    engine.finalize()
    return 0 if ok else 1


async def prefill(ip, port, use_numpy, peer):
    engine = hixl.Hixl()
    if engine.initialize(name(ip, port)) != hixl.SUCCESS:
        return 77 if not os.path.exists("/dev/hixl") else 1
    cache, base, block_bytes = new_cache(use_numpy, 7)
    ret, _ = engine.register_mem(cache, hixl.MEM_HOST)
    assert ret == hixl.SUCCESS, hixl.last_error()
    remote = peer["engine"]
    assert engine.connect(remote, timeout_in_millis=10000) == hixl.SUCCESS, hixl.last_error()
    descs = hixl.OpDescs.from_blocks(bases(base, block_bytes),
                                     bases(peer["base"], peer["block_bytes"]),
                                     block_bytes, PREFILL_IDS, peer["block_ids"])
    ret = await engine.transfer(remote, hixl.WRITE, descs, timeout_in_millis=60000)
    assert ret == hixl.SUCCESS, hixl.last_error()
    ret = engine.send_notify(remote, hixl.NotifyDesc("kv_ready", "req-42"))
    assert ret == hixl.SUCCESS, hixl.last_error()
    print("prefill: wrote %d descriptors, %d bytes, notified %s" % (
        len(descs), descs.nbytes, remote), flush=True)
    engine.finalize()
    return 0


def main():
    args = [a for a in sys.argv[1:] if a != "--numpy"]
    use_numpy = "--numpy" in sys.argv[1:]
    if args and args[0] == "decode":		# the child
        return asyncio.run(decode(args[1], int(args[2]), use_numpy))
    ip = args[0] if args else "10.77.0.1"
    port = int(args[1]) if len(args) > 1 else 19600
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "decode", ip, str(port)]
                             + (["--numpy"] if use_numpy else []),
                             stdout=subprocess.PIPE, text=True)
    first = child.stdout.readline()
    if not first:
        return child.wait()
    rc = asyncio.run(prefill(ip, port, use_numpy, json.loads(first)))
    sys.stdout.write(child.stdout.read())
    return max(rc, child.wait())


if __name__ == "__main__":
    sys.exit(main())
