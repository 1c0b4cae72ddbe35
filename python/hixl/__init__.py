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

from . import _hixl
from ._types import (  # noqa: F401 (re-exported)
    SUCCESS, PARAM_INVALID, TIMEOUT, NOT_CONNECTED, ALREADY_CONNECTED, NOTIFY_FAILED,
    UNSUPPORTED, RESOURCE_EXHAUSTED, FAILED, STATUS_NAMES,
    OPTION_ENABLE_USE_FABRIC_MEM, OPTION_RDMA_TRAFFIC_CLASS, OPTION_RDMA_SERVICE_LEVEL,
    OPTION_BUFFER_POOL, OPTION_GLOBAL_RESOURCE_CONFIG, OPTION_AUTO_CONNECT,
    OPTION_LOCAL_COMM_RES, OPTION_ALLOWED_PEERS, OPTION_AUTH_SECRET, OPTION_AUTH_SECRET_FILE,
    OPTION_TRANSPORT, TRANSPORT_AUTO, TRANSPORT_RDMA, TRANSPORT_LOCAL,
    LINK_STAT_ACTIVE, LINK_STAT_NAMED, LINK_STAT_LOCAL, LinkState, LinkStat,
    OPTION_RAILS, FEATURE_SUPPORTED, FEATURE_NOT_SUPPORTED,
    MemType, TransferOp, TransferStatus, AsyncConnectStatus, FeatureType,
    MemDesc, TransferOpDesc, TransferArgs, GetTransferStatusArgs, TransferResult,
    NotifyDesc, HixlError,
)

#: the C request type: transfer_async() returns one (HIXL: an int handle)
Request = _hixl.Request

# HIXL exports the values of these enums at module level too
MEM_DEVICE, MEM_HOST = MemType.MEM_DEVICE, MemType.MEM_HOST
READ, WRITE = TransferOp.READ, TransferOp.WRITE
(NOT_CONNECT, CONNECT_PENDING, CONNECTING, CONNECTED, CONNECT_FAILED, DISCONNECT_PENDING,
 DISCONNECTING) = tuple(AsyncConnectStatus)
AUTO_CONNECT, CLIENT_SERVER_COMM = FeatureType.AUTO_CONNECT, FeatureType.CLIENT_SERVER_COMM

#: default timeout of transfer_async(), ms (TransferArgs.timeout_in_millis)
ASYNC_TIMEOUT_MS = 60000

_INT_MAX = (1 << 31) - 1
_EINPROGRESS = _hixl.EINPROGRESS
_ESHUTDOWN = _hixl.ESHUTDOWN
_tls = threading.local()


def version():
    """The libhixl-user version, a str such as "0.3.0"."""
    return _hixl.version()


def status_name(status):
    """The name of a HIXL status code ("NOT_CONNECTED"), "UNKNOWN" otherwise."""
    return STATUS_NAMES.get(status, "UNKNOWN")


def last_error():
    """What the last failing call of this thread said, a str ("" if none):
    libhixl-user's hixl_last_error() for failures of the library, e.g.
    "hixl_connect(10.77.0.2:16000): Connection refused (-ECONNREFUSED)", or
    this package's own line for failures it found first (not initialized,
    finalized, a bad argument value)."""
    msg = getattr(_tls, "msg", None)
    return msg if msg is not None else _hixl.last_error()


def strerror(err):
    """What an errno value (negative, as the C library returns it, or
    positive) means in hixl, one line: libhixl-user's hixl_strerror(), e.g.
    strerror(-errno.ERANGE) "the remote range is not inside a region the peer
    registered"."""
    return _hixl.strerror(_int(err, "err"))


def error_hint(err):
    """What to do about an errno value when the fix lies outside the program
    (hixl_error_hint()): e.g. error_hint(-errno.ENOPKG) says how to load
    hixl.ko; "" when there is none."""
    return _hixl.error_hint(_int(err, "err"))


def check(result):
    """Raise HixlError unless a call succeeded; else return its value.

    result  a status (int), or a (status, value) tuple as the Hixl methods
            return, e.g. hixl.check(engine.register_mem(desc, MEM_HOST))
    Returns None for a bare status, value for a pair (the rest of a longer
    tuple as a tuple).  Raises HixlError(status, last_error()).
    """
    if isinstance(result, tuple):
        status, rest = result[0], result[1:]
        value = rest[0] if len(rest) == 1 else rest
    else:
        status, value = result, None
    if status != SUCCESS:
        raise HixlError(status, last_error())
    return value


def get_capability(feature_type):
    """Whether the library has a feature (HIXL get_capability), before or
    without initialize().

    feature_type  a FeatureType (or int)
    Returns (SUCCESS, FEATURE_SUPPORTED or FEATURE_NOT_SUPPORTED): an unknown
    feature is FEATURE_NOT_SUPPORTED; (PARAM_INVALID, FEATURE_NOT_SUPPORTED)
    for a negative one.  Raises TypeError for a non-int.
    """
    feature = _int(feature_type, "feature_type")
    if feature < 0 or feature > _INT_MAX:
        return _fail(PARAM_INVALID, "get_capability: feature_type %d out of range" % feature), \
            FEATURE_NOT_SUPPORTED
    err, value = _hixl.get_capability(feature)
    return _status(err, "get_capability"), value


# ---- helpers ------------------------------------------------------------------

def _fail(status, message):
    """a failure this package found: record its message, return status"""
    _tls.msg = message
    return status


def _status(err, what, cfn=None):
    """HIXL's status for a C return value (0 or -errno) of a call described
    by what; the library's own message is kept when it names cfn, the C
    function that records failures (not every one does)"""
    if err == 0:
        return SUCCESS
    if err == -_ESHUTDOWN:
        return _fail(FAILED, "%s: the engine was finalized" % what)
    if cfn and _hixl.last_error().startswith(cfn + "("):
        _tls.msg = None
    else:
        _tls.msg = "%s: %s (-%s)" % (what, _hixl.strerror(err), _hixl.errno_name(err))
    return _hixl.status_code(err)


def _int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    return int(value)


def _str(value, name):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    return value


def _ms(value, name="timeout_in_millis"):
    """a timeout in ms for C: clamped to -1..INT_MAX (<= 0 is PARAM_INVALID)"""
    return max(-1, min(_int(value, name), _INT_MAX))


def _bytes(value, name):
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError("%s must be str or bytes, got %s" % (name, type(value).__name__))


def _text(raw):
    return raw.decode("utf-8", "surrogateescape")


class Hixl:
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
                      TRANSPORT_RDMA / TRANSPORT_LOCAL
        Returns SUCCESS (also when already initialized: nothing happens);
        PARAM_INVALID a malformed name, an unknown key (HIXL's Ascend-only
        ones included) or value, /dev/hixl missing (hixl.ko not loaded) or
        not accessible; UNSUPPORTED a feature the module lacks; FAILED the
        address is not local or has no RDMA device, the port is taken;
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
        return self._ret(_status(err, "initialize(%s)" % local_engine, "hixl_engine_init"))

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
        if eng is not None:
            eng.finalize()

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

    # ---- memory --------------------------------------------------------------

    def register_mem(self, mem_desc, mem_type):
        """Register memory for transfers (HIXL RegisterMem).

        mem_desc  a MemDesc, or (hixl's) any contiguous buffer object (numpy
                  array, bytearray, memoryview, mmap), registered whole.  A
                  buffer's export is held until deregister_mem() or
                  finalize(): the memory stays valid even when the caller
                  drops the object; read-only buffers register read-only
        mem_type  MemType.MEM_HOST, or MEM_DEVICE with MemDesc.dmabuf_fd
        Returns (SUCCESS, handle), handle an int != 0; registering the same
        addr and len again returns the first handle.  On failure (status, 0):
        PARAM_INVALID len 0, an unknown mem_type, a range outside the buffer
        or not mapped, an overlap with another registration, a read-only
        mapping given as an int address; RESOURCE_EXHAUSTED the 256
        registrations or the byte limit per process, RLIMIT_MEMLOCK;
        UNSUPPORTED; FAILED not initialized.  Raises TypeError for objects
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
        if mem_desc.obj is not None:
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
        if err:
            if buf is not None:
                buf.release()
            return self._ret(_status(err, "register_mem", "hixl_register_mem")), 0
        return SUCCESS, handle

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
        return self._ret(_status(err, "deregister_mem(%#x)" % handle, "hixl_deregister_mem"))

    # ---- links ---------------------------------------------------------------

    def _name_timeout(self, fn, what, remote_engine, timeout_in_millis):
        remote = _str(remote_engine, "remote_engine")
        timeout = _ms(timeout_in_millis)
        eng = self._engine(what)
        if eng is None:
            return self._ret(FAILED)
        return self._ret(_status(getattr(eng, fn)(remote, timeout), "%s(%s)" % (what, remote),
                                 "hixl_" + fn))

    def connect(self, remote_engine, timeout_in_millis=1000):
        """Connect to a peer and exchange region tables (HIXL Connect); blocks
        without the GIL.

        remote_engine      str, the peer's initialize() name, with a port
        timeout_in_millis  ms, > 0 (default 1000)
        Returns SUCCESS; PARAM_INVALID a malformed name, port 0, timeout <= 0,
        a peer refusing this engine (AllowedPeers, AuthSecret);
        ALREADY_CONNECTED (also while a connect or disconnect to it runs);
        TIMEOUT; RESOURCE_EXHAUSTED 512 links; FAILED unreachable, refused,
        not initialized.
        """
        return self._name_timeout("connect", "connect", remote_engine, timeout_in_millis)

    def disconnect(self, remote_engine, timeout_in_millis=1000):
        """Tear down the link to a peer (HIXL Disconnect); blocks without the
        GIL.

        remote_engine      str, the peer's name
        timeout_in_millis  ms, > 0 (default 1000): the wait for a pending
                           asynchronous connect to it
        Returns SUCCESS; NOT_CONNECTED no link (also clearing a
        CONNECT_FAILED state); ALREADY_CONNECTED another disconnect runs;
        TIMEOUT; PARAM_INVALID; FAILED not initialized.
        """
        return self._name_timeout("disconnect", "disconnect", remote_engine, timeout_in_millis)

    def connect_async(self, remote_engine, timeout_in_millis=1000):
        """Start a connect and return at once (HIXL ConnectAsync); follow it
        with get_async_connect_status().

        Arguments as connect().  Returns SUCCESS when started;
        PARAM_INVALID; ALREADY_CONNECTED connected, or a connect or
        disconnect in progress; RESOURCE_EXHAUSTED no thread; FAILED not
        initialized.
        """
        return self._name_timeout("connect_async", "connect_async", remote_engine,
                                  timeout_in_millis)

    def disconnect_async(self, remote_engine, timeout_in_millis=1000):
        """Start a disconnect and return at once (HIXL DisconnectAsync): the
        peer shows DISCONNECT_PENDING or DISCONNECTING, then NOT_CONNECT.

        Arguments as disconnect().  Returns SUCCESS when started;
        NOT_CONNECTED no link and no connect pending; ALREADY_CONNECTED a
        disconnect already runs; PARAM_INVALID; FAILED not initialized.
        """
        return self._name_timeout("disconnect_async", "disconnect_async", remote_engine,
                                  timeout_in_millis)

    def get_async_connect_status(self, remote_engine):
        """The state of the link to a peer (HIXL GetAsyncConnectStatus).

        remote_engine  str, the peer's name
        Returns (SUCCESS, AsyncConnectStatus): NOT_CONNECT for a peer never
        connected; CONNECT_FAILED after a failed connect_async() (the status
        says the query worked; last_error() says why the connect failed).
        (PARAM_INVALID, NOT_CONNECT) for a malformed name, (FAILED,
        NOT_CONNECT) when not initialized.
        """
        remote = _str(remote_engine, "remote_engine")
        eng = self._engine("get_async_connect_status")
        if eng is None:
            return self._ret(FAILED), AsyncConnectStatus.NOT_CONNECT
        err, st = eng.get_connect_status(remote)
        st = AsyncConnectStatus(st)
        if err and st == AsyncConnectStatus.CONNECT_FAILED:
            _fail(SUCCESS, "connect_async(%s) failed: %s (-%s)"
                  % (remote, os.strerror(-err), _hixl.errno_name(err)))
            err = 0
        return self._ret(_status(err, "get_async_connect_status(%s)" % remote)), st

    def get_all_async_connect_status(self):
        """The state of every peer with a link, a connect or disconnect in
        progress or a failed asynchronous connect (HIXL's
        GetAsyncConnectStatus(map)).

        Returns (SUCCESS, {name: AsyncConnectStatus}), names as
        "ip:port"/"[ipv6]:port"; (FAILED, {}) when not initialized.
        """
        eng = self._engine("get_all_async_connect_status")
        if eng is None:
            return self._ret(FAILED), {}
        err, entries = eng.get_all_connect_status()
        statuses = {name: AsyncConnectStatus(st) for name, st, _ in entries}
        return self._ret(_status(err, "get_all_async_connect_status")), statuses

    def get_link_stats(self):
        """Every link of the engine with its counters (hixl extension; C:
        hixl_engine_link_stats()).

        Returns (SUCCESS, [LinkStat]), oldest link first: LinkStat.local
        says the link is paired with an engine of this kernel (transfers
        of registered memory are the kernel's CPU copy, see
        OPTION_TRANSPORT), LinkStat.local_bytes / local_ops how much it
        copied so.  (FAILED, []) when not initialized.
        """
        eng = self._engine("get_link_stats")
        if eng is None:
            return self._ret(FAILED), []
        err, entries = eng.link_stats()
        links = [LinkStat(*e) for e in entries]
        return self._ret(_status(err, "get_link_stats", "hixl_engine_link_stats")), links

    # ---- transfers -----------------------------------------------------------

    def transfer_sync(self, remote_engine, op, op_descs, timeout_in_millis=1000):
        """One READ or WRITE batch to a connected peer (HIXL TransferSync);
        blocks without the GIL.

        remote_engine      str, the peer's name
        op                 TransferOp.READ (remote -> local) or WRITE
        op_descs           list of TransferOpDesc (any sequence of objects
                           with local_addr, remote_addr, len), >= 1; each
                           range inside one registration (local: of this
                           engine; remote: of the peer)
        timeout_in_millis  ms, > 0 (default 1000), for the whole batch
        Local memory that is not registered goes through the engine's
        staging pool (OPTION_BUFFER_POOL, HIXL's relay).
        Returns SUCCESS when every descriptor completed; PARAM_INVALID an
        empty list, len 0, a bad op, a remote range the peer did not
        register, unregistered local memory without a staging pool, a
        read-only region written; NOT_CONNECTED no link (and
        OPTION_AUTO_CONNECT off); TIMEOUT (the link is then broken);
        RESOURCE_EXHAUSTED; FAILED a broken link, still connecting, not
        initialized.  Raises TypeError for a descriptor field that is not an
        int in 0..2**64-1 or a buffer object.
        """
        remote = _str(remote_engine, "remote_engine")
        opv = _int(op, "op")
        timeout = _ms(timeout_in_millis)
        eng = self._engine("transfer_sync")
        if eng is None:
            return self._ret(FAILED)
        err, _failed = eng.transfer_sync(remote, opv, op_descs, timeout)
        return self._ret(_status(err, "transfer_sync(%s)" % remote, "hixl_transfer_sync"))

    def transfer_async(self, remote_engine, op, op_descs, args=None):
        """Queue a READ or WRITE batch and return at once (HIXL
        TransferAsync).

        remote_engine, op, op_descs  as transfer_sync() (op_descs is copied)
        args  TransferArgs: user_data, any object (default 0), given back by
              get_all_transfer_status(); hixl's timeout_in_millis, ms > 0
              (default ASYNC_TIMEOUT_MS, 60000), counted from this call
        Returns (SUCCESS, Request): query it with get_transfer_status();
        int(req) is an int handle get_transfer_status() also takes.  Keep
        the Request while you care about the transfer: dropping it frees the
        request (a WAITING one runs on, detached).  On failure (status, 0):
        PARAM_INVALID an empty list, a bad op or timeout, a malformed name;
        RESOURCE_EXHAUSTED; FAILED no thread or ring slot, finalizing, not
        initialized.  Descriptor errors and a missing link (NOT_CONNECTED)
        end the request FAILED instead.
        """
        remote = _str(remote_engine, "remote_engine")
        opv = _int(op, "op")
        if args is None:
            args = TransferArgs()
        timeout = _ms(getattr(args, "timeout_in_millis", ASYNC_TIMEOUT_MS))
        eng = self._engine("transfer_async")
        if eng is None:
            return self._ret(FAILED), 0
        err, req = eng.transfer_async(remote, opv, op_descs, timeout, args.user_data)
        if err:
            return self._ret(_status(err, "transfer_async(%s)" % remote,
                                         "hixl_transfer_async")), 0
        self._reqs[int(req)] = req
        return SUCCESS, req

    def _request(self, req):
        if isinstance(req, Request):
            return req if self._reqs.get(int(req)) is req else None
        return self._reqs.get(_int(req, "req"))

    def get_transfer_status(self, req):
        """The state of an asynchronous transfer (HIXL GetTransferStatus).

        req  the Request transfer_async() returned, or its int handle
        Returns (SUCCESS, TransferStatus); the request stays queryable until
        dropped.  (PARAM_INVALID, FAILED) for a request of no live transfer
        of this engine (0 included); (FAILED, FAILED) when not initialized.
        """
        eng = self._engine("get_transfer_status")
        if eng is None:
            return self._ret(FAILED), TransferStatus.FAILED
        request = self._request(req)
        if request is None:
            return self._ret(_fail(PARAM_INVALID, "get_transfer_status: unknown request %r"
                                   % (req,))), TransferStatus.FAILED
        err, st = request.status()
        return self._ret(_status(err, "get_transfer_status")), TransferStatus(st)

    def get_all_transfer_status(self, args=None):
        """The engine's asynchronous requests and their states, oldest first
        (HIXL's GetTransferStatus(args, results)).

        args  GetTransferStatusArgs: max_query_count, requests to return at
              most (default 2**32-1); skip_waiting, True to leave WAITING
              requests out
        A request that ended is returned once: later calls leave it out.
        Requests dropped by the caller are not listed.  Returns (SUCCESS,
        [TransferResult]), each with the Request as req, its user_data, its
        status and (hixl's) error, the status it ended with; (FAILED, []) when
        not initialized.
        """
        if args is None:
            args = GetTransferStatusArgs()
        flags = _hixl.QUERY_SKIP_WAITING if args.skip_waiting else 0
        limit = _int(args.max_query_count, "max_query_count")
        eng = self._engine("get_all_transfer_status")
        if eng is None:
            return self._ret(FAILED), []
        err, items = eng.get_all_transfer_status(flags, max(0, limit))
        results = []
        for req, st, rerr in items:
            code = SUCCESS if rerr in (0, -_EINPROGRESS) else _hixl.status_code(rerr)
            results.append(TransferResult(req, req.user_data, st, code))
        return self._ret(_status(err, "get_all_transfer_status")), results

    # ---- notifications -------------------------------------------------------

    def send_notify(self, remote_engine, notify, timeout_in_millis=1000):
        """Send a small message to a connected peer (HIXL SendNotify);
        blocks without the GIL until the peer's adapter holds it.

        remote_engine      str, the peer's name
        notify             NotifyDesc: name 1..1024 bytes (UTF-8), no NUL;
                           notify_msg 0..1024 bytes
        timeout_in_millis  ms, > 0 (default 1000); checked, the module
                           bounds the send itself (10 s)
        Returns SUCCESS; PARAM_INVALID empty or long name, long message,
        timeout <= 0; NOT_CONNECTED no link; NOTIFY_FAILED the link broke;
        FAILED still connecting, not initialized.  Raises TypeError when
        notify is no NotifyDesc or its fields are neither str nor bytes.
        """
        remote = _str(remote_engine, "remote_engine")
        if not isinstance(notify, NotifyDesc):
            raise TypeError("notify must be a NotifyDesc, got %s" % type(notify).__name__)
        name = _bytes(notify.name, "name")
        msg = _bytes(notify.notify_msg, "notify_msg")
        timeout = _ms(timeout_in_millis)
        eng = self._engine("send_notify")
        if eng is None:
            return self._ret(FAILED)
        return self._ret(_status(eng.send_notify(remote, name, msg, timeout),
                                 "send_notify(%s)" % remote, "hixl_send_notify"))

    def get_notifies(self):
        """Fetch every notification received so far, oldest first, without
        waiting (HIXL GetNotifies).

        Returns (SUCCESS, [NotifyDesc]) with name, notify_msg (str) and
        (hixl's) remote_engine, the sender; (FAILED, []) when not
        initialized.  Notifications dropped because a queue was full (4096
        per link) are counted in the notifies_dropped attribute.
        """
        eng = self._engine("get_notifies")
        if eng is None:
            return self._ret(FAILED), []
        err, items, dropped = eng.get_notifies()
        self.notifies_dropped += dropped
        notifies = [NotifyDesc(_text(name), _text(msg), sender) for sender, name, msg in items]
        return self._ret(_status(err, "get_notifies")), notifies


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
    "ASYNC_TIMEOUT_MS", "Request", "HixlError", "check", "last_error", "status_name", "version",
    "strerror", "error_hint", "OPTION_TRANSPORT", "TRANSPORT_AUTO", "TRANSPORT_RDMA",
    "TRANSPORT_LOCAL", "LINK_STAT_ACTIVE", "LINK_STAT_NAMED", "LINK_STAT_LOCAL", "LinkState",
    "LinkStat",
]
