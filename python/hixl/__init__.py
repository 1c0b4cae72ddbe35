# SPDX-License-Identifier: MIT
"""hixl - Python API of the hixl RDMA transfer engine (libhixl-user), the
same as HIXL's Python module (hicann/hixl, "import hixl").

    import hixl, numpy as np
    a, b = hixl.Hixl(), hixl.Hixl()
    a.initialize("10.77.0.1:16000"); b.initialize("10.77.0.1:16001")
    src = np.arange(1 << 20, dtype=np.uint8); dst = np.zeros_like(src)
    ret, ha = a.register_mem(src, hixl.MemType.MEM_HOST)   # any buffer object
    ret, hb = b.register_mem(dst, hixl.MemType.MEM_HOST)
    a.connect("10.77.0.1:16001", timeout_in_millis=5000)
    a.transfer_sync("10.77.0.1:16001", hixl.WRITE,
                    [hixl.TransferOpDesc(src, dst.ctypes.data)], 5000)

Every Hixl method returns HIXL's status codes (SUCCESS 0, PARAM_INVALID
103900, TIMEOUT 103901, NOT_CONNECTED 103902, ALREADY_CONNECTED 103903,
NOTIFY_FAILED 103904, UNSUPPORTED 103905, RESOURCE_EXHAUSTED 203900, FAILED
503900), alone or first in a tuple, in HIXL's shapes; a method called before
initialize() or after finalize() returns FAILED.  Arguments of the wrong
Python type raise TypeError (as HIXL's pybind11 module does).  last_error()
says what the last failing call of the thread was; check() and
Hixl(raise_on_error=True) turn statuses into HixlError exceptions.
Timeouts are in milliseconds, lengths in bytes.  docs/python.md compares the
module with HIXL's member by member.
"""

import os
import threading
import weakref

from . import _hixl, _torch
from ._types import (  # noqa: F401 (re-exported)
    SUCCESS, PARAM_INVALID, TIMEOUT, NOT_CONNECTED, ALREADY_CONNECTED, NOTIFY_FAILED,
    UNSUPPORTED, RESOURCE_EXHAUSTED, FAILED, STATUS_NAMES,
    OPTION_ENABLE_USE_FABRIC_MEM, OPTION_RDMA_TRAFFIC_CLASS, OPTION_RDMA_SERVICE_LEVEL,
    OPTION_BUFFER_POOL, OPTION_GLOBAL_RESOURCE_CONFIG, OPTION_AUTO_CONNECT,
    OPTION_LOCAL_COMM_RES, OPTION_ALLOWED_PEERS, OPTION_AUTH_SECRET, OPTION_AUTH_SECRET_FILE,
    OPTION_TRANSPORT, TRANSPORT_AUTO, TRANSPORT_RDMA, TRANSPORT_LOCAL,
    OPTION_DEVICE_MEM_PATH, DEVICE_MEM_AUTO, DEVICE_MEM_P2P, DEVICE_MEM_STAGED,
    LINK_STAT_ACTIVE, LINK_STAT_NAMED, LINK_STAT_LOCAL, LinkState, LinkStat,
    OPTION_RAILS, FEATURE_SUPPORTED, FEATURE_NOT_SUPPORTED,
    MemType, TransferOp, TransferStatus, AsyncConnectStatus, FeatureType,
    MemDesc, TransferOpDesc, TransferArgs, GetTransferStatusArgs, TransferResult,
    NotifyDesc, HixlError, HixlWarning,
)
from ._common import (  # noqa: F401 (re-exported)
    version, status_name, last_error, strerror, error_hint, check, get_capability,
    ASYNC_TIMEOUT_MS, _ESHUTDOWN, _fail, _status, _int, _str,
)
from ._diagnose import warn_init as _warn_init
from ._links import _Links
from ._transfers import _Transfers

#: the C request type: transfer_async() returns one (HIXL: an int handle)
Request = _hixl.Request
#: hixl's: a batch of descriptors as one C array (arrays, block ids); see its doc
OpDescs = _hixl.OpDescs

# HIXL exports the values of these enums at module level too
MEM_DEVICE, MEM_HOST = MemType.MEM_DEVICE, MemType.MEM_HOST
READ, WRITE = TransferOp.READ, TransferOp.WRITE
(NOT_CONNECT, CONNECT_PENDING, CONNECTING, CONNECTED, CONNECT_FAILED, DISCONNECT_PENDING,
 DISCONNECTING) = tuple(AsyncConnectStatus)
AUTO_CONNECT, CLIENT_SERVER_COMM = FeatureType.AUTO_CONNECT, FeatureType.CLIENT_SERVER_COMM

#: the package's version (the library's: version())
__version__ = "0.3.0"



class Hixl(_Links, _Transfers):
    """One transfer engine (HIXL's Hixl class).

    Hixl(raise_on_error=False)

    raise_on_error  hixl's: True makes every method raise HixlError instead
                    of returning a status other than SUCCESS (the returned
                    shapes stay the same)

    Not usable until initialize().  finalize() (or the object's end, and
    that of every Request it made) tears the engine down.  Methods may be
    called from several threads at once, except finalize().  Usable as a
    context manager: "with hixl.Hixl() as e:" finalizes on exit.
    """

    def __init__(self, raise_on_error=False):
        self._eng = None
        self._raise = bool(raise_on_error)
        self._lock = threading.Lock()
        self._regs = {}		# handle -> key
        self._ranges = {}	# (addr, len, type, flags) -> handle
        self._held = {}		# handle -> device tensor registered by data_ptr()
        self._reqs = weakref.WeakValueDictionary()	# int(req) -> Request
        #: hixl's: notifications dropped on full queues, as get_notifies() learnt
        self.notifies_dropped = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.finalize()
        return False

    def _ret(self, status):
        if self._raise and status != SUCCESS:
            raise HixlError(status, last_error())
        return status

    def _engine(self, what):
        """the C engine, or None after recording why not"""
        eng = self._eng
        if eng is None:
            _fail(FAILED, "%s: the engine is not initialized" % what)
        return eng

    # ---- lifetime ----------------------------------------------------------

    def initialize(self, local_engine, options=None):
        """Set the engine up (HIXL Initialize).

        local_engine  str, its name: "ip", "ip:port", "[ipv6]" or
                      "[ipv6]:port"; with a port > 0 it listens there,
                      with port 0 on a free port (see local_engine),
                      without a port it is a client only
        options       dict str -> str of OPTION_* keys (default none):
                      OPTION_BUFFER_POOL "N:SIZE_MB" (default "4:8"),
                      OPTION_RDMA_TRAFFIC_CLASS, OPTION_RDMA_SERVICE_LEVEL,
                      OPTION_AUTO_CONNECT "1"/"0", hixl's
                      OPTION_ALLOWED_PEERS, OPTION_AUTH_SECRET(_FILE),
                      OPTION_TRANSPORT TRANSPORT_AUTO (default) /
                      TRANSPORT_RDMA / TRANSPORT_LOCAL,
                      OPTION_DEVICE_MEM_PATH DEVICE_MEM_AUTO (default) /
                      DEVICE_MEM_P2P / DEVICE_MEM_STAGED
        A failure whose cause lies outside the program (hixl.ko not
        loaded, /dev/hixl not accessible, a bad option or environment
        variable, no RDMA device at the address) also emits one
        HixlWarning naming the cause and the fix.
        Returns SUCCESS (also when already initialized: nothing happens);
        PARAM_INVALID a malformed name, an unknown key (HIXL's Ascend-only
        ones included) or value, or environment variable; UNSUPPORTED a
        feature the module lacks; FAILED /dev/hixl missing (hixl.ko not
        loaded) or not accessible, the address is not local or has no RDMA
        device, the port is taken;
        RESOURCE_EXHAUSTED.  Raises TypeError for non-str names, keys,
        values.
        """
        local_engine = _str(local_engine, "local_engine")
        opts = []
        for key, value in (options or {}).items():
            opts.append((_str(key, "option key"), _str(value, "option value")))
        with self._lock:
            if self._eng is not None:
                return SUCCESS
            err, eng = _hixl.engine_init(local_engine, opts)
            if err == 0:
                self._eng = eng
        status = _status(err, "initialize(%s)" % local_engine, "hixl_engine_init")
        if err:
            _warn_init(err, local_engine, opts, last_error(), _hixl.error_hint(err))
        return self._ret(status)

    def finalize(self):
        """Tear the engine down (HIXL Finalize): waits for pending connects,
        cancels queued and running asynchronous transfers, drops every link
        and registration (and the buffers held for them).  Returns None;
        nothing happens when not initialized.  Must not run concurrently with
        another call on this engine; initialize() may follow."""
        with self._lock:
            eng, self._eng = self._eng, None
            self._regs.clear()
            self._ranges.clear()
            held, self._held = self._held, {}
        if eng is not None:
            eng.finalize()
        held.clear()	# the device tensors outlive their registrations

    @property
    def local_engine(self):
        """hixl's: the engine's name as peers connect to it, a str: the
        initialize() name, with the port the kernel picked when it was 0
        ("10.77.0.1:0" -> "10.77.0.1:40123"); "" when not initialized."""
        eng = self._eng
        return eng.name() if eng is not None else ""

    @property
    def device(self):
        """hixl's: the name of the engine's RDMA device ("rxe0"); "" when not
        initialized."""
        eng = self._eng
        return eng.device() if eng is not None else ""

    def fileno(self):
        """hixl's: the engine's event descriptor (hixl_engine_event_fd()), for
        loop.add_reader(), select() or epoll: readable while a request ended
        that no status call reported yet, or notifications wait
        (get_notifies() takes them; a module without HIXL_FEAT_POLL
        signals request ends only).  Level-triggered; owned by the engine
        (never close it), valid until finalize().  Raises OSError when not
        initialized or when it cannot be made."""
        eng = self._eng
        fd = eng.event_fd() if eng is not None else -_ESHUTDOWN
        if fd < 0:
            raise OSError(-fd, "event descriptor: %s" % os.strerror(-fd))
        return fd

    # ---- memory --------------------------------------------------------------

    def register_mem(self, mem_desc, mem_type):
        """Register memory for transfers (HIXL RegisterMem).

        mem_desc  a MemDesc, or (hixl's) any contiguous buffer object (numpy
                  array, bytearray, memoryview, mmap), registered whole.  A
                  buffer's export is held until deregister_mem() or
                  finalize(): the memory stays valid even when the caller
                  drops the object; read-only buffers register read-only
        mem_type  MemType.MEM_HOST, or MEM_DEVICE: with MemDesc.dmabuf_fd a
                  dma-buf; without (-1) device memory by address, e.g. a
                  CUDA tensor (or MemDesc(t.data_ptr(), nbytes)): the GPU
                  runtime (libcuda.so.1, loaded at run time) exports it as
                  a dma-buf; host memory given as MEM_DEVICE registers as
                  host memory
        Returns (SUCCESS, handle), handle an int != 0; registering the same
        addr and len again returns the first handle.  On failure (status, 0):
        PARAM_INVALID len 0, an unknown mem_type, a range outside the buffer
        or not mapped, an overlap with another registration, a read-only
        mapping given as an int address, a CUDA tensor with MEM_HOST;
        RESOURCE_EXHAUSTED the 256
        registrations or the byte limit per process, RLIMIT_MEMLOCK;
        PARAM_INVALID also a MEM_DEVICE range past the end of its GPU
        allocation; UNSUPPORTED, also MEM_DEVICE memory the driver cannot
        export; FAILED not initialized, MEM_DEVICE neither host memory nor
        device memory of a GPU runtime (none: no libcuda.so.1, or its
        cuInit() failed); last_error() names the cause.  Raises TypeError for objects
        that are neither MemDesc nor buffers, BufferError for
        non-contiguous buffers.
        """
        if not isinstance(mem_desc, MemDesc):
            mem_desc = MemDesc(mem_desc)
        mtype = _int(mem_type, "mem_type")
        eng = self._engine("register_mem")
        if eng is None:
            return self._ret(FAILED), 0
        if mtype not in (MEM_HOST, MEM_DEVICE):
            return self._ret(_fail(PARAM_INVALID, "register_mem: mem_type %d" % mtype)), 0
        flags = _hixl.REG_LOCAL_ONLY if mem_desc.local_only else 0
        buf = None
        dev = mem_desc.obj if isinstance(mem_desc.obj, _torch.DeviceTensor) else None
        if dev is not None:
            if mtype != MEM_DEVICE:
                return self._ret(_fail(PARAM_INVALID, "register_mem: a %s tensor is device "
                                       "memory: MEM_DEVICE" % dev.tensor.device.type)), 0
            if not (dev.addr <= mem_desc.addr and
                    mem_desc.addr + mem_desc.len <= dev.addr + dev.nbytes):
                return self._ret(_fail(PARAM_INVALID,
                                       "register_mem: range outside the tensor")), 0
        elif mem_desc.obj is not None:
            buf = _hixl.Buffer(mem_desc.obj)
            if not (buf.addr <= mem_desc.addr and
                    mem_desc.addr + mem_desc.len <= buf.addr + buf.nbytes):
                buf.release()
                return self._ret(_fail(PARAM_INVALID,
                                       "register_mem: range outside the buffer")), 0
            if buf.readonly:
                flags |= _hixl.REG_READ_ONLY
        key = (mem_desc.addr, mem_desc.len, mtype, flags)
        ctype = _hixl.C_MEM_HOST if mtype == MEM_HOST else _hixl.C_MEM_DEVICE
        with self._lock:
            handle = self._ranges.get(key)
            if handle is not None:
                if buf is not None:
                    buf.release()
                return SUCCESS, handle
            err, handle = eng.register_mem(mem_desc.addr, mem_desc.len, flags, ctype,
                                           mem_desc.dmabuf_fd, mem_desc.dmabuf_offset, buf)
            if err == 0:
                self._ranges[key] = handle
                self._regs[handle] = key
                if dev is not None:
                    self._held[handle] = dev.tensor
        if err:
            if buf is not None:
                buf.release()
            return self._ret(_status(err, "register_mem", "hixl_register_mem")), 0
        return SUCCESS, handle

    def mem_info(self, mem_handle):
        """What a registration became (hixl_mem_get_info(); hixl extension).

        mem_handle  int, from register_mem()
        Returns (SUCCESS, dict) with "addr", "len" (bytes, as registered:
        device memory by address starts at its page), "type" (the
        MemType it became: host memory given as MEM_DEVICE is MEM_HOST),
        "requested" (the MemType given), "source" ("host", "dmabuf": the
        caller's fd, "cuda" / "rocm": exported by that runtime, "staged":
        CUDA memory the library moves through bounce buffers), "flags"; or
        (PARAM_INVALID, None) for a handle that is not a live registration
        of this engine, (FAILED, None) when not initialized.  Raises
        TypeError for a non-int.
        """
        handle = _int(mem_handle, "mem_handle")
        eng = self._engine("mem_info")
        if eng is None:
            return self._ret(FAILED), None
        err, t = eng.mem_info(handle)
        if err:
            return self._ret(_fail(PARAM_INVALID, "mem_info: 0x%x is not a registration of "
                                   "this engine" % handle)), None
        to_type = {_hixl.C_MEM_HOST: MEM_HOST, _hixl.C_MEM_DEVICE: MEM_DEVICE}
        return SUCCESS, {"addr": t[0], "len": t[1], "type": to_type[t[2]],
                         "requested": to_type[t[3]],
                         "source": {0: "host", 1: "dmabuf", 2: "cuda", 3: "rocm",
                                    4: "staged"}.get(t[4], str(t[4])),
                         "flags": t[5]}

    def deregister_mem(self, mem_handle):
        """Drop a registration (HIXL DeregisterMem) and release the buffer
        held for it.

        mem_handle  int, from register_mem()
        Returns SUCCESS, also for a handle this engine does not have (never
        registered, or already deregistered: HIXL's behaviour);
        PARAM_INVALID for 0; FAILED not initialized.  Raises TypeError for a
        non-int.  Links stay up: peers are told the region is gone.
        """
        handle = _int(mem_handle, "mem_handle")
        eng = self._engine("deregister_mem")
        if eng is None:
            return self._ret(FAILED)
        if handle == 0:
            return self._ret(_fail(PARAM_INVALID, "deregister_mem: handle 0"))
        with self._lock:
            key = self._regs.get(handle)
            if key is None:
                return SUCCESS
            err = eng.deregister_mem(handle)
            if err == 0:
                del self._regs[handle]
                self._ranges.pop(key, None)
                self._held.pop(handle, None)
        return self._ret(_status(err, "deregister_mem(%#x)" % handle, "hixl_deregister_mem"))


__all__ = [
    "SUCCESS", "PARAM_INVALID", "TIMEOUT", "NOT_CONNECTED", "ALREADY_CONNECTED",
    "NOTIFY_FAILED", "UNSUPPORTED", "FAILED", "RESOURCE_EXHAUSTED",
    "OPTION_ENABLE_USE_FABRIC_MEM", "OPTION_RDMA_TRAFFIC_CLASS", "OPTION_RDMA_SERVICE_LEVEL",
    "OPTION_BUFFER_POOL", "OPTION_GLOBAL_RESOURCE_CONFIG", "OPTION_AUTO_CONNECT",
    "OPTION_LOCAL_COMM_RES", "OPTION_RAILS", "FEATURE_SUPPORTED", "FEATURE_NOT_SUPPORTED",
    "MemType", "MEM_DEVICE", "MEM_HOST", "TransferOp", "READ", "WRITE", "TransferStatus",
    "AsyncConnectStatus", "NOT_CONNECT", "CONNECT_PENDING", "CONNECTING", "CONNECTED",
    "CONNECT_FAILED", "DISCONNECT_PENDING", "DISCONNECTING", "FeatureType", "AUTO_CONNECT",
    "CLIENT_SERVER_COMM", "MemDesc", "TransferOpDesc", "TransferArgs", "GetTransferStatusArgs",
    "TransferResult", "NotifyDesc", "Hixl", "get_capability",
    # hixl's own
    "OPTION_ALLOWED_PEERS", "OPTION_AUTH_SECRET", "OPTION_AUTH_SECRET_FILE", "STATUS_NAMES",
    "ASYNC_TIMEOUT_MS", "Request", "OpDescs", "HixlError", "HixlWarning", "check", "last_error", "status_name", "version",
    "strerror", "error_hint", "OPTION_TRANSPORT", "TRANSPORT_AUTO", "TRANSPORT_RDMA",
    "TRANSPORT_LOCAL", "LINK_STAT_ACTIVE", "LINK_STAT_NAMED", "LINK_STAT_LOCAL", "LinkState",
    "LinkStat", "OPTION_DEVICE_MEM_PATH", "DEVICE_MEM_AUTO", "DEVICE_MEM_P2P",
    "DEVICE_MEM_STAGED",
]
