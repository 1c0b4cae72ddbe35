# SPDX-License-Identifier: MIT
"""Loopback engines from Python (docs/protocol.md, "Loopback engines"):
engines named 127.0.0.1:0 and [::1]:port, as HIXL's own tests name theirs,
need no RDMA device and copy in the kernel.  Ports 24443..24449."""

import numpy as np
import pytest

import hixl


@pytest.fixture
def no_transport_env(monkeypatch):
    """HIXL's tests set no Transport; a HIXL_TRANSPORT=rdma of the run must not apply."""
    monkeypatch.delenv("HIXL_TRANSPORT", raising=False)


def test_loopback_engines(dev, no_transport_env):
    a, b = hixl.Hixl(), hixl.Hixl()
    try:
        assert a.initialize("127.0.0.1:0", {}) == hixl.SUCCESS, hixl.last_error()
        assert b.initialize("[::1]:24443", {}) == hixl.SUCCESS, hixl.last_error()
        assert a.local_engine.startswith("127.0.0.1:") and a.local_engine != "127.0.0.1:0"
        assert b.local_engine == "[::1]:24443"
        assert a.device == ""
        ka = np.arange(65536, dtype=np.uint8) ^ 0x5A
        kb = np.zeros(65536, dtype=np.uint8)
        assert a.register_mem(ka, hixl.MemType.MEM_HOST)[0] == hixl.SUCCESS
        assert b.register_mem(kb, hixl.MemType.MEM_HOST)[0] == hixl.SUCCESS
        assert b.connect(a.local_engine, 2000) == hixl.SUCCESS, hixl.last_error()
        desc = [hixl.TransferOpDesc(kb.ctypes.data, ka.ctypes.data, 65536)]
        assert b.transfer_sync(a.local_engine, hixl.TransferOp.READ, desc, 5000) == hixl.SUCCESS
        assert (ka == kb).all()
        kb[:] = 7
        assert b.transfer_sync(a.local_engine, hixl.TransferOp.WRITE, desc, 5000) == hixl.SUCCESS
        assert (ka == 7).all()
        assert b.disconnect(a.local_engine) == hixl.SUCCESS
        assert b.transfer_sync(a.local_engine, hixl.TransferOp.READ, desc, 1000) != hixl.SUCCESS
    finally:
        a.finalize()
        b.finalize()


def test_loopback_rdma_refused(dev, no_transport_env):
    e = hixl.Hixl()
    ret = e.initialize("127.0.0.1:24444", {"Transport": "rdma"})
    assert ret != hixl.SUCCESS
    assert "loopback" in hixl.last_error()
