# SPDX-License-Identifier: MIT
"""Constants, enums and descriptor classes of the hixl package (HIXL's names
and values; see hixl/__init__.py for the engine)."""

import enum

from . import _hixl
from . import _torch

# ---- status codes (HIXL's Status; hixl_status_from_errno() picks one) -------
SUCCESS = 0
PARAM_INVALID = 103900
TIMEOUT = 103901
NOT_CONNECTED = 103902
ALREADY_CONNECTED = 103903
NOTIFY_FAILED = 103904
UNSUPPORTED = 103905
RESOURCE_EXHAUSTED = 203900
FAILED = 503900

#: {code: name} of the status codes above
STATUS_NAMES = {
    SUCCESS: "SUCCESS", PARAM_INVALID: "PARAM_INVALID", TIMEOUT: "TIMEOUT",
    NOT_CONNECTED: "NOT_CONNECTED", ALREADY_CONNECTED: "ALREADY_CONNECTED",
    NOTIFY_FAILED: "NOTIFY_FAILED", UNSUPPORTED: "UNSUPPORTED",
    RESOURCE_EXHAUSTED: "RESOURCE_EXHAUSTED", FAILED: "FAILED",
}

# ---- initialize() option keys -----------------------------------------------
#: HIXL's keys.  This engine takes OPTION_BUFFER_POOL, OPTION_RDMA_TRAFFIC_CLASS,
#: OPTION_RDMA_SERVICE_LEVEL and OPTION_AUTO_CONNECT; the Ascend-only ones
#: (fabric memory, global resource config, local comm resources) make
#: initialize() return PARAM_INVALID.
OPTION_ENABLE_USE_FABRIC_MEM = "EnableUseFabricMem"
OPTION_RDMA_TRAFFIC_CLASS = "RdmaTrafficClass"
OPTION_RDMA_SERVICE_LEVEL = "RdmaServiceLevel"
OPTION_BUFFER_POOL = "BufferPool"
OPTION_GLOBAL_RESOURCE_CONFIG = "GlobalResourceConfig"
OPTION_AUTO_CONNECT = "AutoConnect"
OPTION_LOCAL_COMM_RES = "LocalCommRes"
#: hixl's own keys (see hixl_engine_init(3)): who may connect
OPTION_ALLOWED_PEERS = "AllowedPeers"
OPTION_AUTH_SECRET = "AuthSecret"
OPTION_AUTH_SECRET_FILE = "AuthSecretFile"
#: hixl's own key: how links to engines of this same host move bytes
#: (hixl_engine_init(3) "Transport"; HIXL has no such option).  Values
#: TRANSPORT_AUTO (the default: the kernel's CPU copy when the peer is an
#: engine of this kernel, else RDMA), TRANSPORT_RDMA (always RDMA),
#: TRANSPORT_LOCAL (a transfer that cannot take the CPU copy fails,
#: UNSUPPORTED).  Environment variable: HIXL_TRANSPORT.
OPTION_TRANSPORT = "Transport"
TRANSPORT_AUTO = "auto"
TRANSPORT_RDMA = "rdma"
TRANSPORT_LOCAL = "local"
#: hixl's own key: how CUDA memory registered by address (MEM_DEVICE) is
#: reached (hixl_engine_init(3) "DeviceMemPath").  Values DEVICE_MEM_AUTO
#: (the default: peer-to-peer through its dma-buf, staged through pinned
#: host buffers and the GPU's copy engine where the NIC cannot reach it),
#: DEVICE_MEM_P2P (never staged), DEVICE_MEM_STAGED (always).  mem_info()
#: says "staged" for a staged registration.  Environment variable:
#: HIXL_DEVICE_MEM_PATH.
OPTION_DEVICE_MEM_PATH = "DeviceMemPath"
DEVICE_MEM_AUTO = "auto"
DEVICE_MEM_P2P = "p2p"
DEVICE_MEM_STAGED = "staged"

# ---- get_link_stats() ------------------------------------------------------
#: LinkStat.flags bits (<hixl/uapi.h> HIXL_LINK_STAT_*)
LINK_STAT_ACTIVE = _hixl.LINK_STAT_ACTIVE   # made by our connect (else accepted)
LINK_STAT_NAMED = _hixl.LINK_STAT_NAMED     # the peer's name is known
LINK_STAT_LOCAL = _hixl.LINK_STAT_LOCAL     # paired with an engine of this kernel


class LinkState(enum.IntEnum):
    """LinkStat.state (<hixl/uapi.h> HIXL_LINK_STATE_*)."""
    CONNECTING = _hixl.LINK_STATE_CONNECTING
    READY = _hixl.LINK_STATE_READY
    ERROR = _hixl.LINK_STATE_ERROR
    CLOSED = _hixl.LINK_STATE_CLOSED


class LinkStat:
    """One link of an engine and its counters (hixl extension; C:
    hixl_engine_link_stats(), struct hixl_link_stat).

    peer      the peer engine's name, "" until known
    state     LinkState
    flags     LINK_STAT_* bits; active and local say the same as bools
    err       why the link broke (-errno), or 0
    counters  {name: int}, every field of struct hixl_xfer_stats, each also
              an attribute: read_direct_bytes, write_direct_ops, ...,
              local_bytes and local_ops (the bytes and descriptors of the
              direct ones the same-host path copied with the CPU)
    """

    def __init__(self, peer, state, flags, err, counters):
        self.peer = peer
        self.state = LinkState(state)
        self.flags = flags
        self.err = err
        self.counters = dict(counters)
        self.active = bool(flags & LINK_STAT_ACTIVE)
        self.local = bool(flags & LINK_STAT_LOCAL)

    def __getattr__(self, attr):
        counters = self.__dict__.get("counters", {})
        if attr in counters:
            return counters[attr]
        raise AttributeError(attr)

    def __repr__(self):
        return ("LinkStat(peer=%r, state=%s, local=%s, local_bytes=%d, local_ops=%d)"
                % (self.peer, self.state.name, self.local, self.counters["local_bytes"],
                   self.counters["local_ops"]))

#: hixl's own key: the engine's extra rails ("auto" or a list of addresses)
OPTION_RAILS = "Rails"

# ---- get_capability() values ------------------------------------------------
FEATURE_SUPPORTED = 1
FEATURE_NOT_SUPPORTED = 0


class MemType(enum.IntEnum):
    """Memory type of register_mem(): MEM_DEVICE 0 (device memory: a
    dma-buf in MemDesc.dmabuf_fd, or without one a device address such as
    a CUDA pointer, which the GPU runtime exports; host memory given as
    MEM_DEVICE registers as host memory), MEM_HOST 1 (memory of this
    process)."""
    MEM_DEVICE = 0
    MEM_HOST = 1


class TransferOp(enum.IntEnum):
    """READ 0 (remote -> local), WRITE 1 (local -> remote)."""
    READ = 0
    WRITE = 1


class TransferStatus(enum.IntEnum):
    """State of an asynchronous transfer: WAITING 0 (queued or running),
    COMPLETED 1, TIMEOUT 2 (not complete within its timeout), FAILED 3."""
    WAITING = 0
    COMPLETED = 1
    TIMEOUT = 2
    FAILED = 3


class AsyncConnectStatus(enum.IntEnum):
    """State of the link to a peer, 0..6 (see hixl_get_connect_status(3))."""
    NOT_CONNECT = 0
    CONNECT_PENDING = 1
    CONNECTING = 2
    CONNECTED = 3
    CONNECT_FAILED = 4
    DISCONNECT_PENDING = 5
    DISCONNECTING = 6


class FeatureType(enum.IntEnum):
    """get_capability() features: AUTO_CONNECT 0, CLIENT_SERVER_COMM 1."""
    AUTO_CONNECT = 0
    CLIENT_SERVER_COMM = 1


_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


def _uint(value, name, limit=_U64):
    """value if it is an int (not a bool) in 0..limit; TypeError otherwise (as
    HIXL's pybind11 module raises for a value that does not convert)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    if not 0 <= value <= limit:
        raise TypeError("%s must be in 0..%d, got %d" % (name, limit, value))
    return value


def _address(value, name):
    """(address, nbytes or None, the buffer object or None) of an int address
    or of a buffer object (numpy array, bytearray, memoryview, mmap...) or a
    CPU torch tensor (a view of its memory that references it: _torch.py),
    or a CUDA tensor (its data_ptr(), the object a _torch.DeviceTensor;
    ValueError for tensors of other devices)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _uint(value, name), None, None
    if _torch.is_tensor(value):
        value = _torch.tensor_buffer(value, name)
        if isinstance(value, _torch.DeviceTensor):
            return value.addr, value.nbytes, value
    try:
        buf = _hixl.Buffer(value)
    except TypeError:
        raise TypeError("%s must be an int or a buffer object, got %s"
                        % (name, type(value).__name__)) from None
    except ValueError as e:	# numpy's word for a non-contiguous array
        raise BufferError("%s: %s" % (name, e)) from None
    try:
        return buf.addr, buf.nbytes, value
    finally:
        buf.release()


class MemDesc:
    """A memory region to register (HIXL MemDesc).

    MemDesc(addr, len=None, local_only=False, dmabuf_fd=-1, dmabuf_offset=0)

    addr        int, the start address; or any contiguous buffer object
                (numpy array, bytearray, memoryview, mmap) or CPU torch
                tensor (ValueError for non-contiguous tensors): its start,
                and register_mem() then holds the buffer (read-only buffers
                are registered read-only) until deregister_mem() or
                finalize(); a CUDA torch tensor: its data_ptr(), device
                memory for MEM_DEVICE, the tensor held alike
    len         bytes, int; default (buffer objects only) the buffer's size
    local_only  True: registered for this engine's own side of transfers and
                never announced to peers (HIXL_REG_LOCAL_ONLY)
    dmabuf_fd   MEM_DEVICE only: the dma-buf file descriptor (hixl's own
                field; HIXL's device memory is NPU memory); -1 (the
                default): device memory by address (addr a device pointer)
    dmabuf_offset  MEM_DEVICE only: offset of the region in the dma-buf, bytes

    Raises TypeError for an addr or len that is not an int in 0..2**64-1 (or
    a buffer object), or a len missing for an int addr.
    """

    __slots__ = ("addr", "len", "local_only", "dmabuf_fd", "dmabuf_offset", "obj")

    def __init__(self, addr, len=None, local_only=False, dmabuf_fd=-1, dmabuf_offset=0):
        self.addr, nbytes, self.obj = _address(addr, "addr")
        if len is None:
            if nbytes is None:
                raise TypeError("MemDesc() needs len for an int address")
            len = nbytes
        self.len = _uint(len, "len")
        self.local_only = bool(local_only)
        if isinstance(dmabuf_fd, bool) or not isinstance(dmabuf_fd, int):
            raise TypeError("dmabuf_fd must be an int")
        self.dmabuf_fd = dmabuf_fd
        self.dmabuf_offset = _uint(dmabuf_offset, "dmabuf_offset")

    def __repr__(self):
        return "MemDesc(addr=%#x, len=%d, local_only=%s)" % (self.addr, self.len, self.local_only)


class TransferOpDesc:
    """One transfer descriptor (HIXL TransferOpDesc).

    TransferOpDesc(local_addr, remote_addr, len=None)

    local_addr   int address inside a registration of this engine, or a
                 buffer object (its start)
    remote_addr  int address inside a registration of the peer (or a buffer
                 object, when the peer is in this process)
    len          bytes, > 0; default (local buffer objects only) the local
                 buffer's size

    The descriptor keeps buffer objects referenced (not exported: register
    them to hold their memory).  Raises TypeError for a field that is not an
    int in 0..2**64-1 or a buffer object, or a len missing for an int
    local_addr.
    """

    __slots__ = ("local_addr", "remote_addr", "len", "_keep")

    def __init__(self, local_addr, remote_addr, len=None):
        self.local_addr, nbytes, local_obj = _address(local_addr, "local_addr")
        self.remote_addr, _, remote_obj = _address(remote_addr, "remote_addr")
        if len is None:
            if nbytes is None:
                raise TypeError("TransferOpDesc() needs len for an int local_addr")
            len = nbytes
        self.len = _uint(len, "len")
        self._keep = (local_obj, remote_obj)

    def __repr__(self):
        return "TransferOpDesc(local_addr=%#x, remote_addr=%#x, len=%d)" % (
            self.local_addr, self.remote_addr, self.len)


class TransferArgs:
    """Options of transfer_async() (HIXL TransferArgs).

    user_data          any object, default 0 (HIXL: an int);
                       get_all_transfer_status() returns it in
                       TransferResult.user_data
    timeout_in_millis  hixl's: ms, > 0, default 60000: the request ends
                       TIMEOUT when not complete by then (HIXL has no
                       timeout here)
    """

    __slots__ = ("user_data", "timeout_in_millis")

    def __init__(self, user_data=0, timeout_in_millis=60000):
        self.user_data = user_data
        self.timeout_in_millis = timeout_in_millis


class GetTransferStatusArgs:
    """Options of get_all_transfer_status() (HIXL GetTransferStatusArgs).

    max_query_count  requests to return at most, 0..2**32-1 (default 2**32-1)
    skip_waiting     True: list only requests that ended (default False)

    Raises TypeError for a max_query_count that is not an int in range.
    """

    __slots__ = ("max_query_count", "skip_waiting")

    def __init__(self, max_query_count=_U32, skip_waiting=False):
        self.max_query_count = _uint(max_query_count, "max_query_count", _U32)
        self.skip_waiting = bool(skip_waiting)


class TransferResult:
    """One request of get_all_transfer_status() (HIXL TransferResult).

    req        the Request (HIXL: an int; int(req) gives the handle), 0 in a
               default-constructed result
    user_data  its TransferArgs.user_data
    status     its TransferStatus
    error      hixl's: the HIXL status code it ended with (SUCCESS when
               COMPLETED or still WAITING)
    """

    __slots__ = ("req", "user_data", "status", "error")

    def __init__(self, req=0, user_data=0, status=TransferStatus.WAITING, error=SUCCESS):
        self.req = req
        self.user_data = user_data
        self.status = TransferStatus(status)
        self.error = error

    def __repr__(self):
        return "TransferResult(req=%r, user_data=%r, status=%s)" % (
            self.req, self.user_data, self.status.name)


class NotifyDesc:
    """A notification (HIXL NotifyDesc).

    NotifyDesc(name, notify_msg)

    name        str (UTF-8) or bytes, 1..1024 bytes, no NUL
    notify_msg  str (UTF-8) or bytes, 0..1024 bytes
    remote_engine  hixl's: in get_notifies() results, the sender's engine
                   name ("ip:port"); "" otherwise

    Received names and messages are str, decoded as UTF-8 with
    surrogateescape (bytes that are not UTF-8 survive a round trip through
    .encode("utf-8", "surrogateescape")).
    """

    __slots__ = ("name", "notify_msg", "remote_engine")

    def __init__(self, name, notify_msg, remote_engine=""):
        self.name = name
        self.notify_msg = notify_msg
        self.remote_engine = remote_engine

    def __repr__(self):
        return "NotifyDesc(name=%r, notify_msg=%r)" % (self.name, self.notify_msg)

    def __eq__(self, other):
        if not isinstance(other, NotifyDesc):
            return NotImplemented
        return (self.name, self.notify_msg) == (other.name, other.notify_msg)

    __hash__ = None


class HixlError(Exception):
    """A HIXL status other than SUCCESS, raised by check() and by
    Hixl(raise_on_error=True).

    status   the HIXL status code (e.g. NOT_CONNECTED, 103902)
    name     its name ("NOT_CONNECTED")
    message  what failed: hixl.last_error() of the failing call
    """

    def __init__(self, status, message=""):
        self.status = status
        self.name = STATUS_NAMES.get(status, "UNKNOWN")
        self.message = message
        super().__init__(status, message)

    def __str__(self):
        text = "%s (%d)" % (self.name, self.status)
        return "%s: %s" % (text, self.message) if self.message else text


class HixlWarning(UserWarning):
    """hixl's: emitted once by a failed initialize() whose cause lies
    outside the program (hixl.ko not loaded, /dev/hixl not accessible, a bad
    option or environment variable, an address without an RDMA device): the
    message names the cause and the fix.  The call still returns HIXL's
    status; warnings.simplefilter("error", hixl.HixlWarning) makes it an
    exception."""
