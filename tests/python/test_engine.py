# SPDX-License-Identifier: MIT
"""hixl engines on the test VM's rxe0 (skipped without /dev/hixl): two
engines in this process, numpy KV blocks moved byte for byte, sync and
async, links, notifications and every error a method returns."""

import ctypes
import gc
import mmap
import os
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import hixl
from conftest import IP, IP6, Engine, name, next_port

S = hixl.SUCCESS
T = 10000	# ms: generous, the VM runs under TCG


def poll(fn, until, tries=400, pause=0.025):
    """fn() until until(result) holds (at most tries * pause s); the last result"""
    for _ in range(tries):
        r = fn()
        if until(r):
            return r
        time.sleep(pause)
    return r


def kv(seed, layers=2, blocks=16, block_bytes=16384):
    """a KV cache: layers x blocks x block_bytes of pseudo-random bytes"""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, size=(layers, blocks, block_bytes), dtype=np.uint8)


def block_descs(local, remote_addr, blocks):
    """one TransferOpDesc per (layer, block) in blocks, local array -> remote address"""
    per = local[0, 0].nbytes
    descs = []
    for layer in range(local.shape[0]):
        for b in blocks:
            off = (layer * local.shape[1] + b) * per
            descs.append(hixl.TransferOpDesc(local.ctypes.data + off, remote_addr + off, per))
    return descs


def accepted(fn):
    """a call by the accepting engine: its side is READY a moment after the
    connector's connect() returned (FAILED with EAGAIN until then)"""
    return poll(fn, lambda r: not (r == hixl.FAILED and "EAGAIN" in hixl.last_error()))


# ---- lifetime ----------------------------------------------------------------

def test_initialize_finalize(engines):
    (a,) = engines(1)
    assert a.initialize(a.name) == S		# again: nothing happens
    assert a.device != ""
    assert a.finalize() is None
    assert a.finalize() is None
    assert a.connect(name(1)) == hixl.FAILED
    assert "not initialized" in hixl.last_error()
    assert a.initialize(a.name) == S		# the port is free again
    assert a.local_engine == a.name
    (client,) = engines(1, client=True)		# no port: a client only
    assert client.local_engine == IP
    (any_port,) = engines(1, port=0)		# port 0: one the kernel picks
    host, port = any_port.local_engine.rsplit(":", 1)
    assert host == IP and int(port) > 0
    src, dst = kv(2, 1, 1, 4096), np.zeros((1, 1, 4096), dtype=np.uint8)
    assert client.register_mem(src, hixl.MEM_HOST)[0] == S, hixl.last_error()
    assert any_port.register_mem(dst, hixl.MEM_HOST)[0] == S
    assert client.connect(any_port.local_engine, T) == S, hixl.last_error()
    op = [hixl.TransferOpDesc(src, dst.ctypes.data)]
    assert client.transfer_sync(any_port.local_engine, hixl.WRITE, op, T) == S
    assert np.array_equal(src, dst)
    assert client.connect(IP, T) == hixl.PARAM_INVALID		# a peer needs a port


def test_initialize_errors(engines):
    (a,) = engines(1)
    h = hixl.Hixl()
    assert h.initialize("10.77.0.1:99999") == hixl.PARAM_INVALID
    assert h.initialize("not an address") == hixl.PARAM_INVALID
    assert h.initialize(name(next_port()), {hixl.OPTION_LOCAL_COMM_RES: "{}"}) == \
        hixl.PARAM_INVALID
    assert h.initialize(name(next_port()), {hixl.OPTION_BUFFER_POOL: "4:"}) == hixl.PARAM_INVALID
    assert h.initialize(name(next_port()), {hixl.OPTION_RDMA_TRAFFIC_CLASS: "3"}) == \
        hixl.PARAM_INVALID
    assert h.initialize("10.77.0.99:%d" % next_port()) == hixl.FAILED	# not local
    assert h.initialize(a.name) == hixl.FAILED				# port taken
    assert "EADDRINUSE" in hixl.last_error()
    assert h.register_mem(bytearray(64), hixl.MEM_HOST) == (hixl.FAILED, 0)
    opts = {hixl.OPTION_BUFFER_POOL: "2:1", hixl.OPTION_RDMA_SERVICE_LEVEL: "3",
            hixl.OPTION_AUTO_CONNECT: "0"}
    assert h.initialize(name(next_port()), opts) == S
    h.finalize()


# ---- memory --------------------------------------------------------------------

def test_register_forms(engines):
    (a,) = engines(1)
    arr = np.zeros(1 << 16, dtype=np.uint8)
    ret, h1 = a.register_mem(hixl.MemDesc(arr.ctypes.data, arr.nbytes), hixl.MEM_HOST)
    assert ret == S and h1 != 0
    assert a.register_mem(hixl.MemDesc(arr.ctypes.data, arr.nbytes), hixl.MEM_HOST) == (S, h1)
    assert a.deregister_mem(h1) == S
    assert a.deregister_mem(h1) == S		# HIXL: a handle no longer live is SUCCESS
    assert a.deregister_mem(0) == hixl.PARAM_INVALID
    handles = []
    with mmap.mmap(-1, 1 << 16) as m:
        for obj in (arr, bytearray(1 << 16), memoryview(bytearray(8192))[4096:], m,
                    np.ones((8, 512), dtype=np.float64)):
            ret, h = a.register_mem(obj, hixl.MemType.MEM_HOST)
            assert ret == S, (type(obj), hixl.last_error())
            handles.append(h)
        assert len(set(handles)) == len(handles)
        with pytest.raises(BufferError):
            m.close()		# held while registered
        for h in handles:
            assert a.deregister_mem(h) == S
    ro = b"\x01" * 4096		# read-only buffer: registered read-only
    ret, h = a.register_mem(ro, hixl.MEM_HOST)
    assert ret == S
    assert a.deregister_mem(h) == S


def test_register_errors(engines):
    (a,) = engines(1)
    arr = np.zeros(1 << 16, dtype=np.uint8)
    assert a.register_mem(hixl.MemDesc(arr.ctypes.data, 0), hixl.MEM_HOST) == \
        (hixl.PARAM_INVALID, 0)
    ret, h = a.register_mem(arr, hixl.MEM_HOST)
    assert ret == S
    part = hixl.MemDesc(arr.ctypes.data + 4096, 4096)	# overlaps
    assert a.register_mem(part, hixl.MEM_HOST) == (hixl.PARAM_INVALID, 0)
    assert "EEXIST" in hixl.last_error()
    assert a.register_mem(hixl.MemDesc(arr[:16], 4096), hixl.MEM_HOST) == \
        (hixl.PARAM_INVALID, 0)			# longer than the buffer
    assert a.register_mem(hixl.MemDesc(0x10, 4096), hixl.MEM_HOST) == (hixl.PARAM_INVALID, 0)
    assert a.register_mem(bytearray(64), 7) == (hixl.PARAM_INVALID, 0)
    null = os.open("/dev/null", os.O_RDWR)
    dev = hixl.MemDesc(0x100000, 4096, dmabuf_fd=null)
    assert a.register_mem(dev, hixl.MEM_DEVICE) == (hixl.PARAM_INVALID, 0)	# EBADF
    os.close(null)
    # dmabuf_fd -1 (the default): device memory by address; not host memory,
    # and no GPU knows it (tests/python/test_gpu.py has the rest)
    dev = hixl.MemDesc(0x100000, 4096)
    assert a.register_mem(dev, hixl.MEM_DEVICE)[0] != S
    assert "GPU" in hixl.last_error(), hixl.last_error()
    with pytest.raises(BufferError):
        a.register_mem(np.zeros((4, 4))[:, ::2], hixl.MEM_HOST)
    assert a.deregister_mem(h) == S


def test_buffer_kept_alive(pair):
    a, b = pair
    arr = np.zeros(1 << 16, dtype=np.uint8)
    ref = weakref.ref(arr)
    addr, count = arr.ctypes.data, sys.getrefcount(arr)
    ret, h = b.register_mem(arr, hixl.MEM_HOST)
    assert ret == S
    assert sys.getrefcount(arr) == count + 1	# the held export
    del arr
    gc.collect()
    assert ref() is not None			# still held by b
    src = np.full(1 << 16, 0x5A, dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    # b registered after a's connect: the new region reaches a without a new link
    op = [hixl.TransferOpDesc(src, addr, src.nbytes)]
    assert accepted(lambda: a.transfer_sync(b.name, hixl.WRITE, op, T)) == S, hixl.last_error()
    assert ctypes.string_at(addr, 1 << 16) == bytes(src)
    assert b.deregister_mem(h) == S
    gc.collect()
    assert ref() is None			# released with the registration


def test_finalize_releases_buffers(engines):
    (a,) = engines(1)
    arr = bytearray(8192)
    assert a.register_mem(arr, hixl.MEM_HOST)[0] == S
    with pytest.raises(BufferError):
        arr.extend(b"x")
    a.finalize()
    arr.extend(b"x")		# the export is gone


def test_local_only(pair):
    a, b = pair
    loc = kv(1, 1, 1, 4096)
    dst = np.zeros_like(loc)
    assert a.register_mem(hixl.MemDesc(loc, local_only=True), hixl.MEM_HOST)[0] == S
    hidden = np.zeros_like(loc)
    assert b.register_mem(hixl.MemDesc(hidden, local_only=True), hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    ok = [hixl.TransferOpDesc(loc, dst.ctypes.data)]
    assert a.transfer_sync(b.name, hixl.WRITE, ok, T) == S, hixl.last_error()
    assert np.array_equal(loc, dst)
    bad = [hixl.TransferOpDesc(loc, hidden.ctypes.data)]	# not in b's table
    assert a.transfer_sync(b.name, hixl.WRITE, bad, T) == hixl.PARAM_INVALID


# ---- links ---------------------------------------------------------------------

def test_connect_disconnect(engines):
    a, b = engines(2)
    assert a.get_async_connect_status(b.name) == (S, hixl.NOT_CONNECT)
    assert a.connect(b.name) == S			# default timeout, 1000 ms
    assert a.connect(b.name, timeout_in_millis=T) == hixl.ALREADY_CONNECTED
    assert a.get_async_connect_status(b.name) == (S, hixl.CONNECTED)
    ret, all_ = a.get_all_async_connect_status()
    assert ret == S and all_ == {b.name: hixl.AsyncConnectStatus.CONNECTED}
    assert isinstance(all_[b.name], hixl.AsyncConnectStatus)
    assert a.disconnect(b.name, timeout_in_millis=T) == S
    assert a.disconnect(b.name) == hixl.NOT_CONNECTED
    assert a.get_all_async_connect_status() == (S, {})
    assert a.connect(b.name, 0) == hixl.PARAM_INVALID
    assert a.connect(name(0)) == hixl.PARAM_INVALID		# port 0
    assert a.connect("10.77.0.1:") == hixl.PARAM_INVALID
    assert a.get_async_connect_status("bad name") == (hixl.PARAM_INVALID, hixl.NOT_CONNECT)


def test_connect_nobody(engines):
    (a,) = engines(1)
    nobody = name(next_port())
    assert a.connect(nobody, timeout_in_millis=2000) in (hixl.FAILED, hixl.TIMEOUT)
    assert hixl.last_error() != ""
    assert a.connect_async(nobody, timeout_in_millis=2000) == S
    ret, st = poll(lambda: a.get_async_connect_status(nobody),
                   lambda r: r[1] not in (hixl.CONNECT_PENDING, hixl.CONNECTING))
    assert (ret, st) == (S, hixl.CONNECT_FAILED)
    assert a.get_all_async_connect_status() == (S, {nobody: hixl.CONNECT_FAILED})
    assert a.disconnect(nobody) == hixl.NOT_CONNECTED		# clears CONNECT_FAILED
    assert a.get_async_connect_status(nobody) == (S, hixl.NOT_CONNECT)
    assert a.disconnect_async(nobody) == hixl.NOT_CONNECTED


def test_connect_async(engines):
    a, b = engines(2)
    assert a.connect_async(b.name, timeout_in_millis=T) == S
    assert a.connect_async(b.name) == hixl.ALREADY_CONNECTED	# pending or done
    ret, st = poll(lambda: a.get_async_connect_status(b.name), lambda r: r[1] == hixl.CONNECTED)
    assert (ret, st) == (S, hixl.CONNECTED)
    assert a.disconnect_async(b.name, timeout_in_millis=T) == S
    seen = poll(lambda: a.get_async_connect_status(b.name)[1], lambda s: s == hixl.NOT_CONNECT)
    assert seen == hixl.NOT_CONNECT
    assert a.connect_async(b.name, 0) == hixl.PARAM_INVALID


# ---- transfers -------------------------------------------------------------------

def test_kv_write_read(pair):
    a, b = pair
    src, dst = kv(7), np.zeros((2, 16, 16384), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    descs = block_descs(src, dst.ctypes.data, range(0, 16, 2))	# even blocks
    assert a.transfer_sync(b.name, hixl.WRITE, descs, T) == S, hixl.last_error()
    assert np.array_equal(dst[:, 0::2], src[:, 0::2])
    assert not dst[:, 1::2].any()				# odd blocks untouched
    back = np.zeros_like(src)
    assert a.register_mem(back, hixl.MEM_HOST)[0] == S
    descs = block_descs(back, dst.ctypes.data, range(16))
    assert a.transfer_sync(b.name, hixl.TransferOp.READ, descs) == S	# default 1000 ms
    assert np.array_equal(back, dst)


def test_ipv6(engines):
    a, b = engines(2, ip=IP6)
    assert b.name.startswith("[fd77::1]:")
    src, dst = kv(3, 1, 4, 4096), np.zeros((1, 4, 4096), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    assert a.connect(b.name, T) == S, hixl.last_error()
    op = [hixl.TransferOpDesc(src, dst.ctypes.data)]
    assert a.transfer_sync(b.name, hixl.WRITE, op, T) == S
    assert np.array_equal(src, dst)


def test_transfer_sync_errors(pair, engines):
    a, b = pair
    src, dst = kv(5, 1, 2, 4096), np.zeros((1, 2, 4096), dtype=np.uint8)
    ro = np.zeros_like(dst)
    ro.flags.writeable = False
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    assert b.register_mem(ro, hixl.MEM_HOST)[0] == S		# read-only region
    ok = hixl.TransferOpDesc(src, dst.ctypes.data)
    (c,) = engines(1)
    assert a.transfer_sync(c.name, hixl.WRITE, [ok], T) == hixl.NOT_CONNECTED
    assert a.transfer_sync(b.name, hixl.WRITE, [], T) == hixl.PARAM_INVALID
    assert a.transfer_sync(b.name, 5, [ok], T) == hixl.PARAM_INVALID
    assert a.transfer_sync(b.name, hixl.WRITE, [ok], 0) == hixl.PARAM_INVALID
    zero = hixl.TransferOpDesc(src.ctypes.data, dst.ctypes.data, 0)
    assert a.transfer_sync(b.name, hixl.WRITE, [zero], T) == hixl.PARAM_INVALID
    unreg = hixl.TransferOpDesc(src, 0x1000)			# remote not registered
    assert a.transfer_sync(b.name, hixl.WRITE, [ok, unreg], T) == hixl.PARAM_INVALID
    assert "ERANGE" in hixl.last_error()
    into_ro = hixl.TransferOpDesc(src, ro.ctypes.data)
    assert a.transfer_sync(b.name, hixl.WRITE, [into_ro], T) == hixl.PARAM_INVALID
    assert "EACCES" in hixl.last_error()
    with pytest.raises(TypeError):
        a.transfer_sync(b.name, hixl.WRITE, [object()], T)
    with pytest.raises(TypeError):
        a.transfer_sync(b.name, hixl.WRITE, ok, T)		# not a sequence
    assert not dst.any()					# nothing was written


def test_unregistered_local(engines):
    """Local memory that is not registered goes through the staging pool
    (BufferPool, HIXL's relay); without a pool it is PARAM_INVALID."""
    a, b = engines(2)
    c, d = engines(2, options={hixl.OPTION_BUFFER_POOL: "0:0"})
    for x, y in ((a, b), (c, d)):
        remote = kv(6, 1, 2, 4096)
        assert y.register_mem(remote, hixl.MEM_HOST)[0] == S
        assert x.connect(y.name, T) == S
        local = np.zeros_like(remote)			# not registered
        op = [hixl.TransferOpDesc(local, remote.ctypes.data)]
        if x is a:
            assert x.transfer_sync(y.name, hixl.READ, op, T) == S, hixl.last_error()
            assert np.array_equal(local, remote)
        else:
            assert x.transfer_sync(y.name, hixl.READ, op, T) == hixl.PARAM_INVALID
            assert "ENOENT" in hixl.last_error()
            assert not local.any()


def test_auto_connect(engines):
    a, b = engines(2, options={hixl.OPTION_AUTO_CONNECT: "1"})
    src, dst = kv(9, 1, 2, 4096), np.zeros((1, 2, 4096), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    op = [hixl.TransferOpDesc(src, dst.ctypes.data)]
    assert a.transfer_sync(b.name, hixl.WRITE, op, T) == S, hixl.last_error()
    assert np.array_equal(src, dst)
    assert a.get_async_connect_status(b.name) == (S, hixl.CONNECTED)


def test_transfer_async(pair):
    a, b = pair
    src, dst = kv(11), np.zeros((2, 16, 16384), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    reqs = []
    for layer in range(2):
        args = hixl.TransferArgs()
        args.user_data = ("layer", layer)	# any object; HIXL: an int
        ret, req = a.transfer_async(b.name, hixl.WRITE,
                                    block_descs(src[layer:layer + 1],
                                                dst[layer].ctypes.data, range(16)), args)
        assert ret == S and isinstance(req, hixl.Request)
        reqs.append(req)
    for req in reqs:
        ret, st = poll(lambda: a.get_transfer_status(req), lambda r: r[1] != hixl.TransferStatus.WAITING)
        assert (ret, st) == (S, hixl.TransferStatus.COMPLETED)
        assert isinstance(st, hixl.TransferStatus)
        assert a.get_transfer_status(int(req)) == (S, hixl.TransferStatus.COMPLETED)
    assert np.array_equal(src, dst)
    ret, results = a.get_all_transfer_status()
    assert ret == S
    assert [(r.req, r.user_data, r.status, r.error) for r in results] == [
        (reqs[0], ("layer", 0), hixl.TransferStatus.COMPLETED, S),
        (reqs[1], ("layer", 1), hixl.TransferStatus.COMPLETED, S)]
    assert a.get_all_transfer_status() == (S, [])		# ended ones are listed once
    assert a.get_transfer_status(0) == (hixl.PARAM_INVALID, hixl.TransferStatus.FAILED)
    assert b.get_transfer_status(reqs[0]) == (hixl.PARAM_INVALID, hixl.TransferStatus.FAILED)


def test_transfer_async_query_args(pair):
    a, b = pair
    src, dst = kv(12, 1, 4, 4096), np.zeros((1, 4, 4096), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    reqs = [a.transfer_async(b.name, hixl.WRITE, block_descs(src, dst.ctypes.data, [i]),
                             hixl.TransferArgs(user_data=i))[1] for i in range(4)]
    assert all(isinstance(r, hixl.Request) for r in reqs)
    for r in reqs:
        assert r.wait(T)[1] == hixl.TransferStatus.COMPLETED
    seen = []
    q = hixl.GetTransferStatusArgs(max_query_count=3, skip_waiting=True)
    ret, first = a.get_all_transfer_status(q)
    assert ret == S and len(first) == 3
    seen += [r.user_data for r in first]
    ret, rest = a.get_all_transfer_status(hixl.GetTransferStatusArgs(0))
    assert (ret, rest) == (S, [])				# max 0: nothing listed
    ret, rest = a.get_all_transfer_status(q)
    seen += [r.user_data for r in rest]
    assert sorted(seen) == [0, 1, 2, 3]


def test_transfer_async_errors(pair, engines):
    a, b = pair
    src = kv(13, 1, 1, 4096)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    ok = hixl.TransferOpDesc(src, 0x1000)		# b has no such region
    assert a.transfer_async(b.name, hixl.WRITE, []) == (hixl.PARAM_INVALID, 0)
    assert a.transfer_async(b.name, 9, [ok]) == (hixl.PARAM_INVALID, 0)
    bad_timeout = hixl.TransferArgs(timeout_in_millis=0)
    assert a.transfer_async(b.name, hixl.WRITE, [ok], bad_timeout) == (hixl.PARAM_INVALID, 0)
    ret, req = a.transfer_async(b.name, hixl.WRITE, [ok], hixl.TransferArgs(user_data=77))
    assert ret == S
    assert req.wait(T)[1] == hixl.TransferStatus.FAILED
    assert a.get_transfer_status(req) == (S, hixl.TransferStatus.FAILED)
    err, failed_index = req.result()
    assert hixl._hixl.status_code(err) == hixl.PARAM_INVALID and failed_index == 0
    ret, results = a.get_all_transfer_status()
    assert [(r.user_data, r.status, r.error) for r in results] == [
        (77, hixl.TransferStatus.FAILED, hixl.PARAM_INVALID)]
    (c,) = engines(1)					# no link: the request fails
    ret, req = a.transfer_async(c.name, hixl.WRITE, [ok])
    if ret == S:
        assert req.wait(T)[1] == hixl.TransferStatus.FAILED
        assert hixl._hixl.status_code(req.result()[0]) == hixl.NOT_CONNECTED
    else:
        assert ret == hixl.NOT_CONNECTED


def test_timeouts(engines):
    """A batch that cannot end in its time: the request ends TIMEOUT
    (async), the call returns TIMEOUT (sync).  Each on a link of its own:
    a batch timed out on the wire breaks its link.  Over rxe (32 MiB take
    it 80 ms or more), not the same-host copy: that one can move 32 MiB
    within a 4 ms tick, the deadline's resolution (test_local_par.c times
    that one out, on 64 MiB)."""
    a, b, c, d = engines(4, options={hixl.OPTION_TRANSPORT: hixl.TRANSPORT_RDMA})
    big = 32 << 20
    src, dst = np.ones(big, dtype=np.uint8), np.zeros(big, dtype=np.uint8)
    for e, buf in ((a, src), (b, dst), (c, src), (d, dst)):
        assert e.register_mem(buf, hixl.MEM_HOST)[0] == S
    assert a.connect(b.name, timeout_in_millis=5000) == S
    assert c.connect(d.name, timeout_in_millis=5000) == S
    one = [hixl.TransferOpDesc(src.ctypes.data, dst.ctypes.data, big)]
    ret, req = a.transfer_async(b.name, hixl.WRITE, one, hixl.TransferArgs(timeout_in_millis=1))
    assert ret == S, hixl.last_error()
    assert req.wait(T)[1] == hixl.TransferStatus.TIMEOUT
    assert hixl._hixl.status_code(req.result()[0]) == hixl.TIMEOUT
    assert c.transfer_sync(d.name, hixl.WRITE, one, timeout_in_millis=1) == hixl.TIMEOUT
    assert "ETIMEDOUT" in hixl.last_error()


def test_request_lifetime(pair):
    a, b = pair
    src, dst = kv(14, 1, 8, 16384), np.zeros((1, 8, 16384), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    ret, req = a.transfer_async(b.name, hixl.WRITE, block_descs(src, dst.ctypes.data, range(8)))
    assert ret == S
    handle, ref = int(req), weakref.ref(req)
    del req					# freed, or detached while WAITING
    gc.collect()
    assert ref() is None
    assert a.get_transfer_status(handle) == (hixl.PARAM_INVALID, hixl.TransferStatus.FAILED)
    # it still runs to its end: a request after it completes, in order
    ret, req = a.transfer_async(b.name, hixl.READ, block_descs(src, dst.ctypes.data, [0]))
    assert ret == S and req.wait(T)[1] == hixl.TransferStatus.COMPLETED
    assert np.array_equal(src, dst)
    ret, results = a.get_all_transfer_status()
    assert [r.req for r in results] == [req]		# the dropped one is not listed
    ud = object()				# user_data references go with their requests
    base = sys.getrefcount(ud)
    reqs = [a.transfer_async(b.name, hixl.WRITE, block_descs(src, dst.ctypes.data, [1]),
                             hixl.TransferArgs(user_data=ud))[1] for _ in range(16)]
    assert sys.getrefcount(ud) == base + 16
    for r in reqs:
        assert r.wait(T)[1] == hixl.TransferStatus.COMPLETED
    assert len(a.get_all_transfer_status()[1]) == 16	# results hold the requests too
    del reqs, r
    gc.collect()
    assert sys.getrefcount(ud) == base


def test_finalize_with_requests(engines):
    a, b = engines(2)
    assert a.connect(b.name, T) == S
    src, dst = kv(15, 1, 16, 16384), np.zeros((1, 16, 16384), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    reqs = [a.transfer_async(b.name, hixl.WRITE, block_descs(src, dst.ctypes.data, range(16)))[1]
            for _ in range(8)]
    a.finalize()
    for r in reqs:
        assert r.status()[0] == -hixl._hixl.ESHUTDOWN	# freed by finalize
        assert a.get_transfer_status(r) == (hixl.FAILED, hixl.TransferStatus.FAILED)
    del reqs
    gc.collect()				# no double free


def test_finalize_races_calls(engines):
    """finalize() waits for a transfer_sync running in another thread; that
    thread's next call returns FAILED."""
    a, b = engines(2)
    src, dst = kv(16, 1, 64, 16384), np.zeros((1, 64, 16384), dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    assert a.connect(b.name, T) == S
    op = block_descs(src, dst.ctypes.data, range(64))
    results = []

    def worker():
        while True:
            results.append(a.transfer_sync(b.name, hixl.WRITE, op, T))
            if results[-1] != S or len(results) > 10000:
                return
    t = threading.Thread(target=worker)
    t.start()
    poll(lambda: len(results), lambda n: n >= 3)
    a.finalize()
    t.join(60)
    assert not t.is_alive()
    assert len(results) >= 4 and set(results[:-1]) == {S} and results[-1] == hixl.FAILED
    assert np.array_equal(src, dst)


def test_gil_released(pair):
    """Another thread counts while transfer_sync runs: with a switch interval
    of 100 s the counter can only move when the caller gives the GIL up; the
    same measure around a call that keeps the GIL (a big sum) stays at 0."""
    a, b = pair
    src, dst = np.ones(16 << 20, dtype=np.uint8), np.zeros(16 << 20, dtype=np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    op = [hixl.TransferOpDesc(src, dst.ctypes.data)]

    def progress(fn):
        count, stop = [0], [False]

        def counter():
            while not stop[0]:
                count[0] += 1
                if count[0] % 256 == 0:
                    time.sleep(0)	# let the caller have the GIL back
        old = sys.getswitchinterval()
        sys.setswitchinterval(100)
        try:
            t = threading.Thread(target=counter)
            t.start()
            time.sleep(0.05)
            c0 = count[0]
            results = fn()
            c1 = count[0]
            stop[0] = True
            t.join()
        finally:
            sys.setswitchinterval(old)
        return c1 - c0, results

    moved, _ = progress(lambda: sum(range(3_000_000)))
    assert moved == 0					# the control: the GIL held
    moved, rets = progress(lambda: [a.transfer_sync(b.name, hixl.WRITE, op, 30000)
                                    for _ in range(4)])
    assert rets == [S] * 4
    assert moved > 0
    assert np.array_equal(src, dst)


# ---- notifications -----------------------------------------------------------------

def test_notify(pair, engines):
    a, b = pair
    assert b.get_notifies() == (S, [])
    assert a.send_notify(b.name, hixl.NotifyDesc("cache_ready", "block_0")) == S
    raw = hixl.NotifyDesc(b"bin", b"\xff\x00\xfe")		# not UTF-8, a NUL inside
    assert a.send_notify(b.name, raw, timeout_in_millis=T) == S
    got = []
    poll(lambda: got.extend(b.get_notifies()[1]) or got, lambda g: len(g) >= 2)
    assert got == [hixl.NotifyDesc("cache_ready", "block_0"),
                   hixl.NotifyDesc("bin", b"\xff\x00\xfe".decode("utf-8", "surrogateescape"))]
    assert got[1].notify_msg.encode("utf-8", "surrogateescape") == b"\xff\x00\xfe"
    assert got[0].remote_engine.startswith(IP + ":")
    assert b.get_notifies() == (S, [])
    # the accepting engine notifies too (CLIENT_SERVER_COMM)
    assert accepted(lambda: b.send_notify(got[0].remote_engine, hixl.NotifyDesc("back", ""))) == S
    back = poll(lambda: a.get_notifies()[1], lambda g: g)
    assert [(n.name, n.notify_msg) for n in back] == [("back", "")]
    assert a.send_notify(b.name, hixl.NotifyDesc("", "m")) == hixl.PARAM_INVALID
    assert a.send_notify(b.name, hixl.NotifyDesc("n" * 1025, "m")) == hixl.PARAM_INVALID
    assert a.send_notify(b.name, hixl.NotifyDesc("n", "m" * 1025)) == hixl.PARAM_INVALID
    assert a.send_notify(b.name, hixl.NotifyDesc("a\0b", "m")) == hixl.PARAM_INVALID
    assert a.send_notify(b.name, hixl.NotifyDesc("n", "m"), 0) == hixl.PARAM_INVALID
    (c,) = engines(1)
    assert a.send_notify(c.name, hixl.NotifyDesc("n", "m")) == hixl.NOT_CONNECTED
    assert a.notifies_dropped == 0 and b.notifies_dropped == 0


# ---- the Pythonic layer ----------------------------------------------------------

def test_raise_on_error(engines):
    (a,) = engines(1, raise_on_error=True)
    nobody = name(next_port())
    with pytest.raises(hixl.HixlError) as ei:
        a.disconnect(nobody)
    assert ei.value.status == hixl.NOT_CONNECTED
    assert "ENOTCONN" in ei.value.message or "not connected" in ei.value.message.lower()
    assert a.get_async_connect_status(nobody) == (S, hixl.NOT_CONNECT)	# success: no raise
    with pytest.raises(hixl.HixlError):
        hixl.check(a.register_mem(hixl.MemDesc(0x10, 16), hixl.MEM_HOST))
    handle = hixl.check(a.register_mem(bytearray(4096), hixl.MEM_HOST))
    assert handle != 0 and hixl.check(a.deregister_mem(handle)) is None


def test_context_manager(dev):
    port = next_port()
    with hixl.Hixl() as h:
        assert h.initialize(name(port)) == S
        assert h.register_mem(bytearray(64), hixl.MEM_HOST)[0] == S
    assert h.connect(name(1)) == hixl.FAILED		# finalized on exit
    e = Engine(port=port)				# its port is free again
    e.finalize()
