# SPDX-License-Identifier: MIT
"""MemType.MEM_DEVICE by address (lib/gpu.c) from Python: host memory named
MEM_DEVICE registers as host memory (upstream HIXL's own tests do this on
hosts without an NPU); a device pointer of the fake CUDA driver
(tests/gpu/fake_cuda.c, build/fake-cuda/libcuda.so.1) registers and moves
bytes both ways, also as a CUDA torch tensor (a stand-in: Debian's torch has
no CUDA) and through hixl.mooncake's register_memory(); with no
GPU runtime a device address fails naming why.
The last two run in a child interpreter each: the library looks for the
runtime once per process.  Ports 28150..28159."""

import os
import subprocess
import sys

import numpy as np
import pytest

import hixl
from conftest import IP, REPO, name

S = hixl.SUCCESS
T = 10000
FAKE = os.environ.get("HIXL_TEST_FAKE_CUDA",
                      os.path.join(REPO, "build", "fake-cuda", "libcuda.so.1"))


def test_host_as_device(engines):
    a, b = engines(2)
    src = np.arange(1 << 16, dtype=np.uint8)
    dst = np.zeros(1 << 16, dtype=np.uint8)
    ret, h = a.register_mem(src, hixl.MEM_DEVICE)
    assert ret == S, hixl.last_error()
    assert b.register_mem(dst, hixl.MEM_DEVICE)[0] == S, hixl.last_error()
    ret, info = a.mem_info(h)
    assert ret == S
    assert (info["type"], info["requested"], info["source"]) == \
        (hixl.MEM_HOST, hixl.MEM_DEVICE, "host")
    assert (info["addr"], info["len"]) == (src.ctypes.data, src.nbytes)
    assert a.mem_info(h + 12345) == (hixl.PARAM_INVALID, None)
    assert a.connect(b.name, T) == S, hixl.last_error()
    op = [hixl.TransferOpDesc(src.ctypes.data, dst.ctypes.data, src.nbytes)]
    assert a.transfer_sync(b.name, hixl.WRITE, op, T) == S, hixl.last_error()
    assert (src == dst).all()


CHILD = r"""
import ctypes, errno, sys
import numpy as np
sys.path.insert(0, %(py)r)
import hixl
from hixl.mooncake import TransferEngine
S, T = hixl.SUCCESS, 10000
mode = sys.argv[1]
a, b = hixl.Hixl(), hixl.Hixl()
assert a.initialize(%(ea)r, {}) == S, hixl.last_error()
assert b.initialize(%(eb)r, {}) == S, hixl.last_error()
if mode == "none":
    ret, h = a.register_mem(hixl.MemDesc(0x7e0000000000, 65536), hixl.MEM_DEVICE)
    assert (ret, h) == (hixl.FAILED, 0), (ret, h)
    assert "no GPU runtime" in hixl.last_error(), hixl.last_error()
    print(hixl.last_error())
    te = TransferEngine()
    assert te.initialize(%(ip)r, "P2PHANDSHAKE", "rdma", "") == 0, hixl.last_error()
    assert te.register_memory(0x7e0000000000, 65536) == -errno.ENODEV, hixl.last_error()
    te.finalize()
else:
    cu = ctypes.CDLL(%(fake)r, mode=ctypes.RTLD_GLOBAL)
    assert cu.cuInit(0) == 0
    n = 1 << 20
    dptr = ctypes.c_ulonglong()
    assert cu.cuMemAlloc_v2(ctypes.byref(dptr), ctypes.c_size_t(n)) == 0
    d = dptr.value
    src = np.random.default_rng(5).integers(0, 256, n, dtype=np.uint8)
    assert cu.cuMemcpyHtoD_v2(ctypes.c_ulonglong(d), src.ctypes.data_as(ctypes.c_void_p),
                              ctypes.c_size_t(n)) == 0
    ret, h = a.register_mem(hixl.MemDesc(d, n), hixl.MEM_DEVICE)
    assert ret == S, hixl.last_error()
    ret, info = a.mem_info(h)
    assert ret == S and info["type"] == hixl.MEM_DEVICE and info["source"] == "cuda", info
    host = np.zeros(n, dtype=np.uint8)
    assert b.register_mem(host, hixl.MEM_HOST)[0] == S, hixl.last_error()
    peer = b.local_engine
    assert a.connect(peer, T) == S, hixl.last_error()
    op = [hixl.TransferOpDesc(d, host.ctypes.data, n)]
    assert a.transfer_sync(peer, hixl.WRITE, op, T) == S, hixl.last_error()
    assert (host == src).all()
    host[:] = 0xab
    op = [hixl.TransferOpDesc(d + 4096, host.ctypes.data, 8192)]
    assert a.transfer_sync(peer, hixl.READ, op, T) == S, hixl.last_error()
    back = np.zeros(n, dtype=np.uint8)
    assert cu.cuMemcpyDtoH_v2(back.ctypes.data_as(ctypes.c_void_p), ctypes.c_ulonglong(d),
                              ctypes.c_size_t(n)) == 0
    want = src.copy()
    want[4096:4096 + 8192] = 0xab
    assert (back == want).all()
    # past the allocation's end: PARAM_INVALID (ERANGE), named
    assert a.register_mem(hixl.MemDesc(d + 4096, n), hixl.MEM_DEVICE) == (hixl.PARAM_INVALID, 0)
    assert "past its GPU allocation" in hixl.last_error(), hixl.last_error()
    assert a.deregister_mem(h) == S
    # a CUDA torch tensor (a stand-in with what hixl reads of one: torch
    # itself has no CUDA here) registers by its data_ptr(), held while
    # registered; with MEM_HOST it is refused
    import weakref

    class _Dev:
        type = "cuda"

    class _Layout:
        def __repr__(self):
            return "torch.strided"

    class Tensor:
        device, layout = _Dev(), _Layout()

        def __init__(self, ptr, n):
            self.ptr, self.n = ptr, n

        def data_ptr(self):
            return self.ptr

        def numel(self):
            return self.n // 2

        def element_size(self):
            return 2

        def is_contiguous(self):
            return True

    Tensor.__module__ = "torch"
    t = Tensor(d + 65536, 65536)
    tref = weakref.ref(t)
    assert a.register_mem(t, hixl.MEM_HOST) == (hixl.PARAM_INVALID, 0)
    assert "a cuda tensor is device memory" in hixl.last_error(), hixl.last_error()
    ret, ht = a.register_mem(t, hixl.MEM_DEVICE)
    assert ret == S, hixl.last_error()
    ret, info = a.mem_info(ht)
    assert ret == S and info["type"] == hixl.MEM_DEVICE and info["source"] == "cuda", info
    assert (info["addr"], info["len"]) == (d + 65536, 65536), info
    host[:] = 0x5a
    op = [hixl.TransferOpDesc(t, host.ctypes.data, 65536)]
    del t
    assert tref() is not None, "the registered tensor was dropped"
    assert a.transfer_sync(peer, hixl.READ, op, T) == S, hixl.last_error()
    del op
    back = np.zeros(65536, dtype=np.uint8)
    assert cu.cuMemcpyDtoH_v2(back.ctypes.data_as(ctypes.c_void_p), ctypes.c_ulonglong(d + 65536),
                              ctypes.c_size_t(65536)) == 0
    assert (back == 0x5a).all()
    assert a.deregister_mem(ht) == S
    assert tref() is None, "the tensor outlived its deregistration"
    # hixl.mooncake: register_memory() of a device pointer
    te = TransferEngine()
    assert te.initialize(%(ip)r, "P2PHANDSHAKE", "rdma", "") == 0, hixl.last_error()
    assert te.register_memory(d + 8192, 65536) == 0, hixl.last_error()
    assert te.unregister_memory(d + 8192) == 0
    te.finalize()
print("child ok")
"""


def child(dev, mode, ea, eb):
    code = CHILD % {"py": os.path.join(REPO, "python"), "fake": FAKE, "ip": IP,
                    "ea": name(ea), "eb": name(eb)}
    r = subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True,
                       timeout=120)
    print(r.stdout, r.stderr)
    assert r.returncode == 0 and "child ok" in r.stdout


def test_device_by_address(dev):
    if not os.path.exists("/dev/udmabuf"):
        pytest.skip("/dev/udmabuf missing (CONFIG_UDMABUF): the fake GPU exports udmabufs")
    if not os.path.exists(FAKE):
        pytest.skip("the fake CUDA driver is not built (make tests): %s" % FAKE)
    child(dev, "fake", 28150, 28151)


def test_device_no_runtime(dev):
    r = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True)
    if "libcuda.so.1 " in r.stdout:
        pytest.skip("a libcuda.so.1 is installed: not testing its absence")
    child(dev, "none", 28152, 28153)
