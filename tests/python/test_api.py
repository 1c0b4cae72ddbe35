# SPDX-License-Identifier: MIT
"""The hixl package without a device: names and values against HIXL's,
descriptor classes, argument checks, the status mapping, and every method
of an engine that is not initialized or finalized."""

import errno
import mmap
import sys

import numpy as np
import pytest

import hixl
from hixl import _hixl

# HIXL's hixl/__init__.py __all__ (hicann/hixl src/python/hixl_py)
UPSTREAM_ALL = [
    "SUCCESS", "PARAM_INVALID", "TIMEOUT", "NOT_CONNECTED", "ALREADY_CONNECTED",
    "NOTIFY_FAILED", "UNSUPPORTED", "FAILED", "RESOURCE_EXHAUSTED",
    "OPTION_ENABLE_USE_FABRIC_MEM", "OPTION_RDMA_TRAFFIC_CLASS", "OPTION_RDMA_SERVICE_LEVEL",
    "OPTION_BUFFER_POOL", "OPTION_GLOBAL_RESOURCE_CONFIG", "OPTION_AUTO_CONNECT",
    "OPTION_LOCAL_COMM_RES", "FEATURE_SUPPORTED", "FEATURE_NOT_SUPPORTED", "MemType",
    "MEM_DEVICE", "MEM_HOST", "TransferOp", "READ", "WRITE", "TransferStatus",
    "AsyncConnectStatus", "NOT_CONNECT", "CONNECT_PENDING", "CONNECTING", "CONNECTED",
    "CONNECT_FAILED", "DISCONNECT_PENDING", "DISCONNECTING", "FeatureType", "AUTO_CONNECT",
    "CLIENT_SERVER_COMM", "MemDesc", "TransferOpDesc", "TransferArgs", "GetTransferStatusArgs",
    "TransferResult", "NotifyDesc", "Hixl", "get_capability",
]


def test_upstream_names_exported():
    missing = [n for n in UPSTREAM_ALL if not hasattr(hixl, n)]
    assert missing == []
    assert set(UPSTREAM_ALL) <= set(hixl.__all__)
    from hixl.hixl import Hixl, get_capability  # HIXL's extension module name
    assert Hixl is hixl.Hixl and get_capability is hixl.get_capability


def test_status_constants():
    assert (hixl.SUCCESS, hixl.PARAM_INVALID, hixl.TIMEOUT, hixl.NOT_CONNECTED,
            hixl.ALREADY_CONNECTED, hixl.NOTIFY_FAILED, hixl.UNSUPPORTED,
            hixl.RESOURCE_EXHAUSTED, hixl.FAILED) == (
        0, 103900, 103901, 103902, 103903, 103904, 103905, 203900, 503900)
    assert hixl.status_name(hixl.NOT_CONNECTED) == "NOT_CONNECTED"
    assert hixl.status_name(12345) == "UNKNOWN"


def test_enum_values():
    assert [int(x) for x in (hixl.MemType.MEM_DEVICE, hixl.MemType.MEM_HOST)] == [0, 1]
    assert (hixl.MEM_DEVICE, hixl.MEM_HOST, hixl.READ, hixl.WRITE) == (0, 1, 0, 1)
    assert [int(x) for x in hixl.TransferStatus] == [0, 1, 2, 3]
    assert [x.name for x in hixl.TransferStatus] == ["WAITING", "COMPLETED", "TIMEOUT", "FAILED"]
    assert [x.name for x in hixl.AsyncConnectStatus] == [
        "NOT_CONNECT", "CONNECT_PENDING", "CONNECTING", "CONNECTED", "CONNECT_FAILED",
        "DISCONNECT_PENDING", "DISCONNECTING"]
    assert [int(x) for x in hixl.AsyncConnectStatus] == list(range(7))
    assert (hixl.NOT_CONNECT, hixl.DISCONNECTING) == (0, 6)
    assert (hixl.AUTO_CONNECT, hixl.CLIENT_SERVER_COMM) == (0, 1)
    assert (hixl.FEATURE_SUPPORTED, hixl.FEATURE_NOT_SUPPORTED) == (1, 0)


def test_option_strings():
    assert hixl.OPTION_BUFFER_POOL == "BufferPool"
    assert hixl.OPTION_RDMA_TRAFFIC_CLASS == "RdmaTrafficClass"
    assert hixl.OPTION_RDMA_SERVICE_LEVEL == "RdmaServiceLevel"
    assert hixl.OPTION_AUTO_CONNECT == "AutoConnect"
    assert hixl.OPTION_ENABLE_USE_FABRIC_MEM == "EnableUseFabricMem"
    assert hixl.OPTION_GLOBAL_RESOURCE_CONFIG == "GlobalResourceConfig"
    assert hixl.OPTION_LOCAL_COMM_RES == "LocalCommRes"
    assert hixl.OPTION_RAILS == "Rails"
    assert hixl.OPTION_DEVICE_MEM_PATH == "DeviceMemPath"
    assert (hixl.DEVICE_MEM_AUTO, hixl.DEVICE_MEM_P2P, hixl.DEVICE_MEM_STAGED) == \
        ("auto", "p2p", "staged")


@pytest.mark.parametrize("err,status", [
    (0, hixl.SUCCESS), (-errno.EINVAL, hixl.PARAM_INVALID), (-errno.EEXIST, hixl.PARAM_INVALID),
    (-errno.ENOENT, hixl.PARAM_INVALID), (-errno.EACCES, hixl.PARAM_INVALID),
    (-errno.ETIMEDOUT, hixl.TIMEOUT), (-errno.ENOTCONN, hixl.NOT_CONNECTED),
    (-errno.EISCONN, hixl.ALREADY_CONNECTED), (-errno.EALREADY, hixl.ALREADY_CONNECTED),
    (-errno.ECOMM, hixl.NOTIFY_FAILED), (-errno.EOPNOTSUPP, hixl.UNSUPPORTED),
    (-errno.ENOTTY, hixl.UNSUPPORTED), (-errno.ENOSPC, hixl.RESOURCE_EXHAUSTED),
    (-errno.ENOMEM, hixl.RESOURCE_EXHAUSTED), (-errno.E2BIG, hixl.RESOURCE_EXHAUSTED),
    (-errno.EIO, hixl.FAILED), (-errno.ECONNREFUSED, hixl.FAILED), (-errno.ESHUTDOWN, hixl.FAILED),
    (-errno.ENOPKG, hixl.FAILED), (-errno.EPERM, hixl.FAILED),
])
def test_status_from_errno(err, status):
    assert _hixl.status_code(err) == status
    assert _hixl.status_code(-err) == status


def test_get_capability():
    assert hixl.get_capability(hixl.FeatureType.AUTO_CONNECT) == (hixl.SUCCESS,
                                                                   hixl.FEATURE_SUPPORTED)
    assert hixl.get_capability(hixl.CLIENT_SERVER_COMM) == (hixl.SUCCESS, hixl.FEATURE_SUPPORTED)
    assert hixl.get_capability(99) == (hixl.SUCCESS, hixl.FEATURE_NOT_SUPPORTED)
    assert hixl.get_capability(-1) == (hixl.PARAM_INVALID, hixl.FEATURE_NOT_SUPPORTED)
    assert "feature_type" in hixl.last_error()
    with pytest.raises(TypeError):
        hixl.get_capability("AUTO_CONNECT")


def test_mem_desc():
    d = hixl.MemDesc(addr=0x1000, len=8192)
    assert (d.addr, d.len, d.local_only, d.obj) == (0x1000, 8192, False, None)
    d.addr, d.len = 0x2000, 4096
    assert (d.addr, d.len) == (0x2000, 4096)
    assert hixl.MemDesc(0x1000, 1, local_only=True).local_only is True
    with pytest.raises(TypeError):
        hixl.MemDesc(-1, 10)
    with pytest.raises(TypeError):
        hixl.MemDesc(1 << 64, 10)
    with pytest.raises(TypeError):
        hixl.MemDesc(0x1000)		# no len for an int address
    with pytest.raises(TypeError):
        hixl.MemDesc("0x1000", 10)


def test_mem_desc_from_buffers():
    arr = np.zeros((4, 256), dtype=np.float32)
    d = hixl.MemDesc(arr)
    assert (d.addr, d.len, d.obj) == (arr.ctypes.data, arr.nbytes, arr)
    ba = bytearray(100)
    assert hixl.MemDesc(ba).len == 100
    assert hixl.MemDesc(memoryview(ba)[10:], 5).len == 5
    with mmap.mmap(-1, 8192) as m:
        assert hixl.MemDesc(m).len == 8192
    with pytest.raises(BufferError):
        hixl.MemDesc(arr[:, ::2])	# not contiguous


def test_transfer_op_desc():
    op = hixl.TransferOpDesc(local_addr=0x1000, remote_addr=0x2000, len=4096)
    assert (op.local_addr, op.remote_addr, op.len) == (0x1000, 0x2000, 4096)
    op.local_addr = 0x3000
    assert op.local_addr == 0x3000
    arr = np.arange(64, dtype=np.uint8)
    op = hixl.TransferOpDesc(arr, 0x2000)
    assert (op.local_addr, op.len) == (arr.ctypes.data, 64)
    op = hixl.TransferOpDesc(arr[8:], arr, 16)
    assert (op.local_addr, op.remote_addr, op.len) == (arr.ctypes.data + 8, arr.ctypes.data, 16)
    with pytest.raises(TypeError):
        hixl.TransferOpDesc(0x1000, 0x2000)
    with pytest.raises(TypeError):
        hixl.TransferOpDesc(0x1000, -5, 10)
    with pytest.raises(TypeError):
        hixl.TransferOpDesc(0x1000, 0x2000, 1.5)


def test_small_classes():
    args = hixl.TransferArgs()
    assert args.user_data == 0 and args.timeout_in_millis == 60000
    args.user_data = 123
    assert args.user_data == 123
    q = hixl.GetTransferStatusArgs()
    assert (q.max_query_count, q.skip_waiting) == (4294967295, False)
    q = hixl.GetTransferStatusArgs(max_query_count=100, skip_waiting=True)
    assert (q.max_query_count, q.skip_waiting) == (100, True)
    with pytest.raises(TypeError):
        hixl.GetTransferStatusArgs(max_query_count=1 << 32)
    r = hixl.TransferResult()
    assert (r.req, r.user_data, r.status) == (0, 0, hixl.TransferStatus.WAITING)
    n = hixl.NotifyDesc(name="signal", notify_msg="hello")
    assert (n.name, n.notify_msg, n.remote_engine) == ("signal", "hello", "")
    n.name, n.notify_msg = "updated", "world"
    assert n == hixl.NotifyDesc("updated", "world")


def test_buffer_export():
    ba = bytearray(b"abc")
    b = _hixl.Buffer(ba)
    assert (b.nbytes, b.readonly, b.obj is ba, b.held) == (3, False, True, True)
    with pytest.raises(BufferError):
        ba.extend(b"d")		# exported: cannot be resized
    b.release()
    b.release()
    assert b.held is False
    ba.extend(b"d")
    assert _hixl.Buffer(b"xyz").readonly is True
    ro = np.zeros(4)
    ro.flags.writeable = False
    assert _hixl.Buffer(ro).readonly is True
    with pytest.raises(TypeError):
        _hixl.Buffer(42)


def test_not_initialized():
    h = hixl.Hixl()
    assert h.register_mem(hixl.MemDesc(0x1000, 10), hixl.MEM_HOST) == (hixl.FAILED, 0)
    assert "not initialized" in hixl.last_error()
    assert h.deregister_mem(5) == hixl.FAILED
    assert h.connect("10.77.0.1:16001") == hixl.FAILED
    assert h.disconnect("10.77.0.1:16001") == hixl.FAILED
    assert h.connect_async("10.77.0.1:16001") == hixl.FAILED
    assert h.disconnect_async("10.77.0.1:16001") == hixl.FAILED
    assert h.get_async_connect_status("10.77.0.1:16001") == (hixl.FAILED, hixl.NOT_CONNECT)
    assert h.get_all_async_connect_status() == (hixl.FAILED, {})
    op = [hixl.TransferOpDesc(0x1000, 0x2000, 10)]
    assert h.transfer_sync("10.77.0.1:16001", hixl.READ, op) == hixl.FAILED
    assert h.transfer_async("10.77.0.1:16001", hixl.READ, op) == (hixl.FAILED, 0)
    ret, st = h.get_transfer_status(0)
    assert (ret, st) == (hixl.FAILED, hixl.TransferStatus.FAILED)
    assert isinstance(st, hixl.TransferStatus)
    assert h.get_all_transfer_status() == (hixl.FAILED, [])
    assert h.send_notify("10.77.0.1:16001", hixl.NotifyDesc("n", "m")) == hixl.FAILED
    assert h.get_notifies() == (hixl.FAILED, [])
    assert h.device == "" and h.local_engine == ""
    assert h.finalize() is None
    assert h.finalize() is None


def test_type_errors():
    h = hixl.Hixl()
    with pytest.raises(TypeError):
        h.initialize(1234)
    with pytest.raises(TypeError):
        h.initialize("10.77.0.1:1", {"BufferPool": 4})
    with pytest.raises(TypeError):
        h.connect(b"10.77.0.1:1")
    with pytest.raises(TypeError):
        h.connect("10.77.0.1:1", timeout_in_millis="1000")
    with pytest.raises(TypeError):
        h.send_notify("10.77.0.1:1", ("name", "msg"))
    with pytest.raises(TypeError):
        h.deregister_mem("1")
    with pytest.raises(TypeError):
        h.register_mem("not a buffer", hixl.MEM_HOST)


def test_check_and_errors():
    assert hixl.check(hixl.SUCCESS) is None
    assert hixl.check((hixl.SUCCESS, 7)) == 7
    assert hixl.check((hixl.SUCCESS, 1, 2)) == (1, 2)
    with pytest.raises(hixl.HixlError) as ei:
        hixl.check((hixl.NOT_CONNECTED, 0))
    assert (ei.value.status, ei.value.name) == (hixl.NOT_CONNECTED, "NOT_CONNECTED")
    assert "NOT_CONNECTED (103902)" in str(ei.value)
    h = hixl.Hixl(raise_on_error=True)
    with pytest.raises(hixl.HixlError) as ei:
        h.connect("10.77.0.1:1")
    assert ei.value.status == hixl.FAILED and "not initialized" in ei.value.message


def test_initialize_without_device(tmp_path):
    """Outside the VM: initialize says FAILED (the C library's HIXL_NO_MODULE,
    -ENOPKG: no /dev/hixl), and last_error() names the module to load."""
    import os
    if os.path.exists("/dev/hixl"):
        pytest.skip("/dev/hixl exists: the device tests cover initialize")
    h = hixl.Hixl()
    assert h.initialize("10.77.0.1:16000") == hixl.FAILED
    assert "hixl.ko is not loaded" in hixl.last_error(), hixl.last_error()
    assert "modprobe hixl" in hixl.last_error()
    assert h.register_mem(bytearray(10), hixl.MEM_HOST) == (hixl.FAILED, 0)


def test_version():
    assert hixl.version().count(".") == 2
    assert sys.modules["hixl._hixl"].__file__.endswith(".so")


def test_strerror_and_hint():
    """hixl.strerror() and hixl.error_hint(): the C library's hixl_strerror()
    and hixl_error_hint() (tests/user test_errors.c checks their tables)."""
    assert "remote range" in hixl.strerror(-errno.ERANGE)
    assert hixl.strerror(errno.ERANGE) == hixl.strerror(-errno.ERANGE)
    assert "hixl.ko is not loaded" in hixl.strerror(-errno.ENOPKG)
    assert "modprobe hixl" in hixl.error_hint(-errno.ENOPKG)
    assert "usermod -aG hixl" in hixl.error_hint(-errno.EPERM)
    assert hixl.error_hint(-errno.ERANGE) == ""
    with pytest.raises(TypeError):
        hixl.strerror("x")
