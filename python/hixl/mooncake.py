# SPDX-License-Identifier: MIT
"""hixl.mooncake - Mooncake Transfer Engine's Python API over hixl.

    from hixl.mooncake import TransferEngine     # for: from mooncake.engine import ...
                                                 # (or install python/mooncake-shim)
    te = TransferEngine()
    te.initialize("10.77.0.1", "P2PHANDSHAKE", "rdma", "")
    session_id = "10.77.0.1:%d" % te.get_rpc_port()
    te.batch_register_memory([kv.ctypes.data], [kv.nbytes])
    te.batch_transfer_sync_write(peer_session_id, src_ptrs, dst_ptrs, lengths)

The members that vLLM's MooncakeConnector, SGLang's mooncake backend and
LMCache's MooncakeChannel call, with the names, argument order, defaults
and return conventions of Mooncake's TransferEngine
(kvcache-ai/Mooncake mooncake-integration/transfer_engine/
transfer_engine_py.cpp): 0 on success and a negative number on failure
(here the library's -errno: hixl.last_error() says what failed; Mooncake
returns -1), batch ids as ints.  The model is the same as hixl's: a peer is
its "host:rpc_port" session name, remote memory is named by the peer's
virtual addresses, registered on its side.  Transfers connect on first use
(hixl's AutoConnect, as Mooncake opens a segment on first use).  Host
names in sessions ("localhost:port", DNS names) are resolved by
libhixl-user, cached, and resolved again after a failed connect.  With an
etcd metadata server (initialize(host, "etcd://host:port", ...)) a peer is
its segment name instead, looked up in Mooncake's mooncake/rpc_meta/ key
(hixl/_etcd.py is the client).

An initialized engine runs one thread of its own: it takes the kernel's
notifications every 50 ms and keeps them for get_notifies().  Code that cannot be
edited to import this module imports `mooncake.engine` from
python/mooncake-shim, a separate install.  docs/python.md compares the two
member by member.
"""

import ctypes
import enum
import json
import mmap
import os
import random
import socket
import threading
import time
import warnings
import weakref

from . import _hixl
from . import _devices
from . import _diagnose
from . import _etcd
from ._types import HixlWarning

P2PHANDSHAKE = "P2PHANDSHAKE"
#: where Mooncake's handshake publishes a segment's RPC endpoint in its
#: metadata server: this, then MC_METADATA_CLUSTER_ID + "/" when set, then
#: "rpc_meta/" + the segment name (transfer_metadata.cpp rpc_meta_prefix_)
RPC_META_PREFIX = "mooncake/"
#: protocols taken: hixl moves bytes over RDMA, or by the kernel's copy
#: between engines of one host, whichever protocol is named
PROTOCOLS = ("rdma", "tcp")
_C_READ, _C_WRITE = 0, 1	# enum hixl_op: HIXL_OP_READ, HIXL_OP_WRITE
#: notifications kept for get_notifies() (the kernel's own queue holds
#: max_notify_pending, 4096); later ones are dropped and counted until it
#: is called
INBOX_MAX = 4096
#: how long get_first_buffer_address() and send_probe() wait for a connect, ms
CONNECT_TIMEOUT_MS = 5000
#: how often an engine's notification thread takes the kernel's queue, s
_PUMP_INTERVAL = 0.05


class TransferOpcode(enum.IntEnum):
    """Mooncake's TransferEngine.TransferOpcode: Read, Write."""
    Read = 0
    Write = 1


class TransferNotify:
    """Mooncake's TransferNotify(name, msg): a notification sent with a
    transfer (transfer_sync(notify=...)) or received (get_notifies())."""

    def __init__(self, name="", msg=""):
        self.name = name
        self.msg = msg

    def __repr__(self):
        return "TransferNotify(%r, %r)" % (self.name, self.msg)


def _set_error(message):
    """what hixl.last_error() says next in this thread"""
    from ._common import _tls
    _tls.msg = message


def _lib_error():
    from ._common import _tls
    _tls.msg = None


def _timeout_ms(nbytes):
    """Mooncake's transfer deadline: MC_TRANSFER_TIMEOUT s (at least 5,
    default 30) plus 1 ns per byte"""
    env = os.environ.get("MC_TRANSFER_TIMEOUT")
    try:
        secs = max(5, int(env)) if env else 30
    except ValueError:
        secs = 30
    return min(secs * 1000 + nbytes // 1000000, (1 << 31) - 1)


def _resolve(host):
    """an IP address for a host name ("localhost" -> "127.0.0.1")"""
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
        return host
    except OSError:
        return socket.getaddrinfo(host, None, socket.AF_INET)[0][4][0]


class TransferEngine:
    """Mooncake's TransferEngine over one hixl engine.

    TransferEngine() makes nothing yet; initialize() sets the engine up.
    Methods return 0 or a negative -errno (hixl.last_error() says why),
    except where Mooncake returns something else (noted on each).  Safe to
    call from several threads, as Mooncake's.
    """

    TransferOpcode = TransferOpcode

    def __init__(self):
        self._eng = None
        self._lock = threading.Lock()
        self._regs = {}		# addr -> (handle, length)
        self._managed = {}	# addr -> (mmap, length)
        self._batches = {}	# batch id -> Request
        self._hostname = ""
        self._meta = None	# _etcd.Etcd: metadata_server etcd; None: P2PHANDSHAKE
        self._segments = {}	# segment name -> engine name, looked up in etcd
        self._unpublish = None	# weakref.finalize: deletes our rpc_meta key
        # notifications: a thread takes them from the kernel (_pump())
        # and keeps them for get_notifies(); _nlock guards the two below
        self._nlock = threading.Lock()
        self._inbox = []	# TransferNotify received, for get_notifies(), <= INBOX_MAX
        self._dropped = 0	# notifications not kept: the inbox was full
        self._stop = threading.Event()
        self._pumper = None

    # ---- setup ---------------------------------------------------------------

    def initialize(self, local_hostname, metadata_server, protocol, device_name):
        """Set the engine up (Mooncake initialize()).

        local_hostname   "ip", "host" or "ip:port" ("[ipv6]:port"): the
                         engine listens there; without a port on one the
                         kernel picks (get_rpc_port() says which), as
                         Mooncake's P2P handshake picks its RPC port
        metadata_server  "P2PHANDSHAKE": peers are named "host:port" and
                         find each other directly; or an etcd server,
                         "etcd://host:port" or "host:port" (several:
                         separated by ";" or ","), where the engine
                         publishes Mooncake's key "mooncake/rpc_meta/" +
                         local_hostname (_rpc_meta_key()) = {"ip_or_host_name":
                         ip, "rpc_port": port}, deleted by finalize() or at
                         exit, and a peer is named by its segment name (its
                         local_hostname), looked up there on first use.
                         Either way the kernel exchanges the region tables
                         when a link is made: etcd holds only endpoints;
                         and local_hostname must be an address or resolve
                         to one (Mooncake with etcd takes any name and
                         listens on its first LAN address)
        protocol         "rdma" or "tcp": either way hixl moves the bytes
                         over RDMA, or by the kernel's copy between engines
                         of one host
        device_name      RDMA device names, "mlx5_0" or "mlx5_0,mlx5_1"
                         (a port as "mlx5_0:1"): the engine's NICs, its
                         rails (hixl._devices.choose(): local_hostname's
                         address pins its own RDMA device first; otherwise
                         the first name's IPv4 address is the engine's);
                         "" or None: the address alone chooses the device
        Returns 0; -EINVAL for another metadata server (redis://,
        http://, ...; a malformed etcd endpoint) or protocol or a malformed
        name, -ENODEV for a device_name this host has no RDMA device of,
        -EADDRNOTAVAIL for a named device without an IPv4 address,
        -EOPNOTSUPP for device_name with an IPv6 local_hostname, -EALREADY
        when already initialized, the library's -errno (hixl.ko not loaded:
        -ENOPKG), or, with etcd, -ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH,
        ... when no endpoint answered within hixl._etcd.TIMEOUT (5 s) each,
        -EPROTO when it answered with an error; every failure with one
        HixlWarning naming the cause and the fix.
        """
        if self._eng is not None:
            _set_error("initialize: already initialized")
            return -_hixl_errno("EALREADY")
        meta = None
        if metadata_server != P2PHANDSHAKE:
            try:
                meta = _etcd.Etcd(_etcd.parse_endpoints(metadata_server))
            except ValueError as e:
                return self._init_refused("metadata server %s; or %r (peers named host:port)"
                                          % (e, P2PHANDSHAKE))
        if protocol not in PROTOCOLS:
            return self._init_refused("protocol %r: hixl.mooncake moves bytes over RDMA "
                                      "(\"rdma\", \"tcp\" taken alike)" % (protocol,))
        host, port = local_hostname, "0"
        if local_hostname.startswith("["):
            host, _, rest = local_hostname[1:].partition("]")
            port = rest[1:] or "0"
        elif local_hostname.count(":") == 1:
            host, port = local_hostname.split(":")
        try:
            ip = _resolve(host)
        except OSError as e:
            return self._init_refused("local_hostname %r does not resolve: %s"
                                      % (local_hostname, e))
        try:
            ip, rails = _devices.choose(ip, device_name)
        except _devices.DeviceError as e:
            return self._init_refused("device_name: %s" % e, e.errno_name)
        name = "[%s]:%s" % (ip, port) if ":" in ip else "%s:%s" % (ip, port)
        opts = [("AutoConnect", "1")]
        if rails:
            opts.append(("Rails", ",".join(rails)))
        err, eng = _hixl.engine_init(name, opts)
        if err:
            _lib_error()
            _diagnose.warn_init(err, name, opts, _hixl.last_error(), _hixl.error_hint(err))
            return err
        if meta is not None:
            key = _rpc_meta_key(local_hostname)
            try:
                meta.put(key, _rpc_meta_value(ip, eng.name()))
            except _etcd.EtcdError as e:
                eng.finalize()
                return self._init_refused("metadata server %r: %s" % (metadata_server, e),
                                          -e.errno)
            self._unpublish = weakref.finalize(self, _delete_key, meta, key)
        self._meta, self._segments = meta, {}
        self._eng = eng
        self._hostname = host
        self._stop.clear()
        self._pumper = threading.Thread(target=_pump_loop, args=(weakref.ref(self),),
                                        daemon=True, name="hixl.mooncake notifications")
        self._pumper.start()
        return 0

    def _init_refused(self, what, err="EINVAL"):
        """-errno of a failed initialize(), what set as the last error and
        warned: err an errno name ("ENODEV") or a negative errno."""
        _set_error("initialize: " + what)
        warnings.warn("hixl.mooncake: initialize failed: " + what, HixlWarning, stacklevel=3)
        return err if isinstance(err, int) else -_hixl_errno(err)

    def _peer(self, what, target):
        """(the hixl engine name of target, 0) or (None, -errno): target
        itself with P2PHANDSHAKE; with etcd, target is a segment name
        looked up in etcd (its rpc_meta key), the answer kept until a
        transfer to it fails.  -ENXIO: etcd has no such segment; -EPROTO:
        its value is not Mooncake's JSON; or _etcd.EtcdError's -errno."""
        target = str(target)
        meta = self._meta
        if meta is None:
            return target, 0
        name = self._segments.get(target)
        if name is not None:
            return name, 0
        key = _rpc_meta_key(target)
        try:
            value = meta.get(key)
        except _etcd.EtcdError as e:
            _set_error("%s: segment %r: %s" % (what, target, e))
            return None, -e.errno
        if value is None:
            _set_error("%s: segment %r: no %s in etcd (is the peer initialized with the "
                       "same metadata server?)" % (what, target, key.decode()))
            return None, -_hixl_errno("ENXIO")
        try:
            got = json.loads(value)
            host, port = str(got["ip_or_host_name"]), int(got["rpc_port"])
        except (ValueError, TypeError, KeyError) as e:
            _set_error("%s: segment %r: %s in etcd is not Mooncake's rpc_meta JSON (%r: %s)"
                       % (what, target, key.decode(), value[:200], e))
            return None, -_hixl_errno("EPROTO")
        name = "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)
        self._segments[target] = name
        return name, 0

    def _forget(self, target):
        """A transfer to target failed: look it up in etcd again next time
        (the peer may have restarted elsewhere)."""
        self._segments.pop(str(target), None)

    def get_rpc_port(self):
        """The port peers reach this engine on (Mooncake get_rpc_port()):
        session names are "host:port"; -1 when not initialized."""
        eng = self._eng
        if eng is None:
            return -1
        name = eng.name()
        return int(name.rsplit(":", 1)[1]) if name else -1

    def _engine(self, what):
        eng = self._eng
        if eng is None:
            _set_error("%s: the engine is not initialized" % what)
        return eng

    # ---- memory --------------------------------------------------------------

    def register_memory(self, buffer_addr, capacity, location="*"):
        """Register [buffer_addr, buffer_addr + capacity) for transfers
        (Mooncake register_memory()); location (Mooncake's NUMA/device
        hint, "*" any) is ignored.  buffer_addr may be host memory or a
        GPU device pointer (a CUDA tensor's data_ptr()): it is registered
        as MEM_DEVICE by address, which takes host memory as host memory
        and has the GPU runtime export device memory as a dma-buf.
        Returns 0; -EEXIST for an
        address already registered here or an overlap, -EINVAL length 0,
        the library's -errno (-ENODEV neither host memory nor, without a
        GPU runtime, device memory; -EFAULT unmapped while a GPU runtime
        runs; -ERANGE a device range past its allocation's end; -ENOMEM
        memlock limit, ...); -ESHUTDOWN when not initialized."""
        return self._register(int(buffer_addr), int(capacity), None, "register_memory")

    def _register(self, addr, length, buf, what):
        eng = self._engine(what)
        if eng is None:
            return -_hixl.ESHUTDOWN
        with self._lock:
            if addr in self._regs:
                _set_error("%s: 0x%x is already registered" % (what, addr))
                return -_hixl_errno("EEXIST")
            # an address alone: MEM_DEVICE by address, which registers host
            # memory as host memory and device memory as the GPU's dma-buf
            ctype = _hixl.C_MEM_HOST if buf is not None else _hixl.C_MEM_DEVICE
            err, handle = eng.register_mem(addr, length, 0, ctype, -1, 0, buf)
            if err:
                _lib_error()
                return err
            self._regs[addr] = (handle, length)
        return 0

    def unregister_memory(self, buffer_addr):
        """Drop the registration that starts at buffer_addr (Mooncake
        unregister_memory()).  Returns 0; -ENOENT for an address not
        registered here; -ESHUTDOWN when not initialized."""
        eng = self._engine("unregister_memory")
        if eng is None:
            return -_hixl.ESHUTDOWN
        with self._lock:
            reg = self._regs.pop(int(buffer_addr), None)
            if reg is None:
                _set_error("unregister_memory: 0x%x is not registered" % int(buffer_addr))
                return -_hixl_errno("ENOENT")
            err = eng.deregister_mem(reg[0])
        if err:
            _lib_error()
        return err

    def batch_register_memory(self, buffer_addresses, capacities, location="*"):
        """register_memory() of each (address, capacity) pair (Mooncake
        batch_register_memory()): all or none - a failure drops the ones
        this call made.  Returns 0, -EINVAL for lists of different
        lengths, or the first failure's -errno."""
        addrs, caps = list(buffer_addresses), list(capacities)
        if len(addrs) != len(caps):
            _set_error("batch_register_memory: %d addresses, %d capacities"
                       % (len(addrs), len(caps)))
            return -_hixl_errno("EINVAL")
        done = []
        for addr, cap in zip(addrs, caps):
            err = self.register_memory(addr, cap, location)
            if err:
                for a in done:
                    self.unregister_memory(a)
                return err
            done.append(addr)
        return 0

    def batch_unregister_memory(self, buffer_addresses):
        """unregister_memory() of each address (Mooncake
        batch_unregister_memory()); goes on past failures.  Returns 0 or
        the first failure's -errno."""
        first = 0
        for addr in list(buffer_addresses):
            err = self.unregister_memory(addr)
            first = first or err
        return first

    def allocate_managed_buffer(self, length):
        """A registered buffer of length bytes made by the engine (Mooncake
        allocate_managed_buffer(); anonymous memory here, no slab
        allocator).  Returns its address, 0 on failure."""
        try:
            m = mmap.mmap(-1, int(length))
        except (OSError, ValueError) as e:
            _set_error("allocate_managed_buffer(%d): %s" % (int(length), e))
            return 0
        buf = _hixl.Buffer(m)
        addr = buf.addr
        if self._register(addr, int(length), buf, "allocate_managed_buffer"):
            buf.release()
            m.close()
            return 0
        self._managed[addr] = (m, int(length))
        return addr

    def free_managed_buffer(self, buffer_addr, length):
        """Give back an allocate_managed_buffer() buffer (Mooncake
        free_managed_buffer()).  Returns 0; -ENOENT for another address."""
        m = self._managed.pop(int(buffer_addr), None)
        if m is None:
            _set_error("free_managed_buffer: 0x%x is no managed buffer" % int(buffer_addr))
            return -_hixl_errno("ENOENT")
        err = self.unregister_memory(buffer_addr)
        m[0].close()
        return err

    def write_bytes_to_buffer(self, dest_address, src_ptr, length):
        """Copy length bytes of src_ptr (bytes) to local memory at
        dest_address (Mooncake write_bytes_to_buffer()).  Returns 0;
        -EINVAL when src_ptr is shorter than length."""
        data = bytes(src_ptr)
        if len(data) < int(length):
            _set_error("write_bytes_to_buffer: %d bytes given, %d asked" % (len(data), length))
            return -_hixl_errno("EINVAL")
        ctypes.memmove(int(dest_address), data, int(length))
        return 0

    def read_bytes_from_buffer(self, source_address, length):
        """length bytes of local memory at source_address, as bytes
        (Mooncake read_bytes_from_buffer())."""
        return ctypes.string_at(int(source_address), int(length))

    # ---- transfers -----------------------------------------------------------

    def _sync(self, what, target, op, descs, nbytes, notify=None):
        eng = self._engine(what)
        if eng is None:
            return -_hixl.ESHUTDOWN
        peer, err = self._peer(what, target)
        if err:
            return err
        err, _failed = eng.transfer_sync(peer, op, descs, _timeout_ms(nbytes))
        if not err and notify is not None:
            err = eng.send_notify(peer, _b(notify.name), _b(notify.msg), 10000)
        if err:
            _lib_error()
            self._forget(target)
        return err

    def transfer_sync_write(self, target_hostname, buffer, peer_buffer_address, length,
                            transport_hint=""):
        """WRITE length bytes at local buffer to peer_buffer_address of the
        peer session target_hostname ("host:port"), waiting for the end
        (Mooncake transfer_sync_write()).  transport_hint is ignored.
        Returns 0 or the library's -errno: -ERANGE a remote range the peer
        did not register, -ENOENT a local one not registered, -ETIMEDOUT
        past MC_TRANSFER_TIMEOUT (30 s) plus 1 ns a byte, -ECONNREFUSED no
        such peer, ...; with an etcd metadata server target_hostname is a
        segment name: -ENXIO when etcd has none of that name, -EPROTO when
        its value is not Mooncake's JSON, -ECONNREFUSED, -ETIMEDOUT, ...
        when etcd cannot be reached (the other transfer members alike)."""
        return self._sync("transfer_sync_write", target_hostname, _C_WRITE,
                          _one(buffer, peer_buffer_address, length), int(length))

    def transfer_sync_read(self, target_hostname, buffer, peer_buffer_address, length,
                           transport_hint=""):
        """READ length bytes at the peer's peer_buffer_address into local
        buffer (Mooncake transfer_sync_read()); as transfer_sync_write()."""
        return self._sync("transfer_sync_read", target_hostname, _C_READ,
                          _one(buffer, peer_buffer_address, length), int(length))

    def transfer_sync(self, target_hostname, buffer, peer_buffer_address, length, opcode,
                      notify=None, transport_hint=""):
        """One READ or WRITE (opcode TransferOpcode.Read/Write), then, when
        it succeeded, notify (a TransferNotify) sent to the peer (Mooncake
        transfer_sync()).  Returns 0 or -errno."""
        return self._sync("transfer_sync", target_hostname, _op(opcode),
                          _one(buffer, peer_buffer_address, length), int(length), notify)

    def _batch_descs(self, what, buffers, peer_buffer_addresses, lengths):
        """(OpDescs, bytes) of three lists, or (None, -errno)"""
        try:
            descs = _hixl.OpDescs.from_arrays(buffers, peer_buffer_addresses, lengths)
        except (TypeError, ValueError) as e:
            _set_error("%s: %s" % (what, e))
            return None, -_hixl_errno("EINVAL")
        return descs, descs.nbytes

    def batch_transfer_sync(self, target_hostname, buffers, peer_buffer_addresses, lengths,
                            opcode, notify=None, transport_hint=""):
        """One batch: buffers[i] <-> peer_buffer_addresses[i], lengths[i]
        bytes each, READ or WRITE, one library call, waited for; then notify
        when it succeeded (Mooncake batch_transfer_sync()).  The three are
        equal-length sequences of ints or integer arrays (numpy too).
        Returns 0; -EINVAL for lists of different lengths or none; or
        -errno as transfer_sync_write()."""
        descs, n = self._batch_descs("batch_transfer_sync", buffers, peer_buffer_addresses,
                                     lengths)
        if descs is None:
            return n
        return self._sync("batch_transfer_sync", target_hostname, _op(opcode), descs, n, notify)

    def batch_transfer_sync_write(self, target_hostname, buffers, peer_buffer_addresses,
                                  lengths, transport_hint=""):
        """batch_transfer_sync(..., TransferOpcode.Write) (Mooncake
        batch_transfer_sync_write())."""
        return self.batch_transfer_sync(target_hostname, buffers, peer_buffer_addresses,
                                        lengths, TransferOpcode.Write)

    def batch_transfer_sync_read(self, target_hostname, buffers, peer_buffer_addresses,
                                 lengths, transport_hint=""):
        """batch_transfer_sync(..., TransferOpcode.Read) (Mooncake
        batch_transfer_sync_read())."""
        return self.batch_transfer_sync(target_hostname, buffers, peer_buffer_addresses,
                                        lengths, TransferOpcode.Read)

    def batch_transfer_async(self, target_hostname, buffers, peer_buffer_addresses, lengths,
                             opcode, transport_hint=""):
        """Start one batch and return at once (Mooncake
        batch_transfer_async()).  Returns its batch id, an int != 0, for
        get_batch_transfer_status() (and hixl's batch_request()); 0 on
        failure (as Mooncake; hixl.last_error() says why)."""
        descs, n = self._batch_descs("batch_transfer_async", buffers, peer_buffer_addresses,
                                     lengths)
        eng = self._engine("batch_transfer_async")
        if descs is None or eng is None:
            return 0
        peer, err = self._peer("batch_transfer_async", target_hostname)
        if err:
            return 0
        err, req = eng.transfer_async(peer, _op(opcode), descs, _timeout_ms(n), None)
        if err:
            _lib_error()
            self._forget(target_hostname)
            return 0
        with self._lock:
            self._batches[int(req)] = req
        return int(req)

    def batch_transfer_async_write(self, target_hostname, buffers, peer_buffer_addresses,
                                   lengths, transport_hint=""):
        """batch_transfer_async(..., TransferOpcode.Write)."""
        return self.batch_transfer_async(target_hostname, buffers, peer_buffer_addresses,
                                         lengths, TransferOpcode.Write)

    def batch_transfer_async_read(self, target_hostname, buffers, peer_buffer_addresses,
                                  lengths, transport_hint=""):
        """batch_transfer_async(..., TransferOpcode.Read)."""
        return self.batch_transfer_async(target_hostname, buffers, peer_buffer_addresses,
                                         lengths, TransferOpcode.Read)

    def batch_request(self, batch_id):
        """hixl's: the hixl.Request behind a batch id (await it, cancel()
        it); None for an unknown id."""
        return self._batches.get(int(batch_id))

    def get_batch_transfer_status(self, batch_ids):
        """Wait until every batch of batch_ids (a list of ids) has ended or
        one failed (Mooncake get_batch_transfer_status(): it blocks too).
        Returns 0 when all COMPLETED; -1 as soon as one FAILED or TIMED OUT,
        without waiting for the others (hixl.last_error() says which), or
        when an id is unknown.  Every id given is spent either way, as
        Mooncake frees them (batches still running go on; their results
        are not reported)."""
        ids = [int(b) for b in batch_ids]
        with self._lock:
            reqs = [(bid, self._batches.pop(bid, None)) for bid in ids]
        for bid, req in reqs:
            if req is None:
                _set_error("get_batch_transfer_status: unknown batch id %r" % (bid,))
                return -1
        pending = list(reqs)
        while pending:
            for bid, req in list(pending):
                err, st = req.status()
                if not err and st == 0:		# WAITING
                    continue
                if err or st != 1:		# FAILED, TIMEOUT
                    rerr, _ = req.result()
                    _set_error("batch %#x: %s" % (bid, _hixl.strerror(rerr or err)))
                    return -1
                pending.remove((bid, req))
            if len(pending) == 1:
                pending[0][1].wait(-1)		# the last one: until it ends
            elif pending:
                pending[0][1].wait(5)		# ms: until it ends, at most 5 ms
        return 0

    def transfer_submit_write(self, target_hostname, buffer, peer_buffer_address, length,
                              transport_hint=""):
        """Start one WRITE of length bytes at local buffer to the peer's
        peer_buffer_address (Mooncake transfer_submit_write()).  Returns its
        batch id (an int != 0) for transfer_check_status(), 0 on failure
        (as Mooncake: an unknown or unreachable peer, an unregistered
        range, a bad argument; hixl.last_error() says why)."""
        return self.batch_transfer_async(target_hostname, [int(buffer)],
                                         [int(peer_buffer_address)], [int(length)],
                                         TransferOpcode.Write)

    def transfer_check_status(self, batch_id):
        """How a transfer_submit_write() batch is doing, without waiting
        (Mooncake transfer_check_status()): 1 COMPLETED, 0 still running,
        -1 FAILED (or an unknown id), -2 TIMED OUT.  An id that ended is
        spent (Mooncake frees it, a timed-out one excepted)."""
        req = self._batches.get(int(batch_id))
        if req is None:
            _set_error("transfer_check_status: unknown batch id %r" % (batch_id,))
            return -1
        err, st = req.status()
        if err:
            return -1
        if st == 0:		# WAITING
            return 0
        if st == 2:		# TIMEOUT: Mooncake keeps the id
            return -2
        with self._lock:
            self._batches.pop(int(batch_id), None)
        return 1 if st == 1 else -1

    # ---- notifications, probes -------------------------------------------------

    def get_notifies(self):
        """The notifications received so far (Mooncake get_notifies()): a
        list of TransferNotify(name, msg), oldest first, each returned
        once; [] when none or not initialized."""
        self._pump()
        with self._nlock:
            got, self._inbox = self._inbox, []
        return got

    def _pump(self):
        """Take the kernel's queued notifications and keep them for
        get_notifies()."""
        eng = self._eng
        if eng is None:
            return
        err, items, _dropped = eng.get_notifies()
        if err or not items:
            return
        with self._nlock:
            for _frm, n, m in items:
                if len(self._inbox) < INBOX_MAX:
                    self._inbox.append(TransferNotify(n.decode("utf-8", "surrogateescape"),
                                                      m.decode("utf-8", "surrogateescape")))
                else:
                    self._dropped += 1

    def get_first_buffer_address(self, segment_name):
        """The address of the first buffer the peer session segment_name
        ("host:port") registered and still has (Mooncake
        get_first_buffer_address(): the first of its segment's buffers, in
        registration order; managed buffers count).  An int; 0 when the
        peer has none registered, or on failure: not initialized, the peer
        unreachable within CONNECT_TIMEOUT_MS, or a segment name etcd does
        not resolve (etcd metadata server).  hixl.last_error() says why.

        The answer is the oldest entry of the peer's region table as this
        engine's kernel link holds it (hixl_peer_regions()): any hixl peer,
        no message to it; a connect first if no link is up.  A buffer the
        peer registered a moment ago may not show yet.
        """
        eng = self._engine("get_first_buffer_address")
        if eng is None:
            return 0
        peer, err = self._peer("get_first_buffer_address", segment_name)
        if err:
            return 0
        err, regions = eng.peer_regions(peer)
        if err == -_hixl_errno("ENOTCONN") or err == -_hixl_errno("EAGAIN"):
            err = eng.connect(peer, CONNECT_TIMEOUT_MS)
            if err and err != -_hixl_errno("EISCONN"):
                _lib_error()
                self._forget(segment_name)
                return 0
            err, regions = eng.peer_regions(peer)
        if err:
            _lib_error()
            return 0
        return regions[0][0] if regions else 0

    def get_engine(self):
        """Mooncake's get_engine(): the C++ TransferEngine behind this
        object, for Mooncake Store (MooncakeDistributedStore.setup(...,
        engine)) to share.  hixl has none: raises NotImplementedError.
        Let Mooncake Store make its own engine (pass none), or use this
        object's own members; hixl.Hixl is hixl's engine object."""
        raise NotImplementedError(
            "hixl.mooncake.TransferEngine.get_engine(): there is no Mooncake C++ "
            "TransferEngine behind hixl's, so none can be shared; let Mooncake Store "
            "make its own engine (pass none), or use this TransferEngine's members")

    def get_engine_ptr(self):
        """Mooncake's get_engine_ptr(): the address of the C++
        TransferEngine.  hixl has none: raises NotImplementedError, as
        get_engine()."""
        raise NotImplementedError(
            "hixl.mooncake.TransferEngine.get_engine_ptr(): there is no Mooncake C++ "
            "TransferEngine behind hixl's; use this TransferEngine's members "
            "(or hixl.Hixl, hixl's own engine)")

    def send_probe(self, peer_server_name):
        """Is the peer session reachable (Mooncake send_probe())?  Connects
        when no link is up, waiting 5 s at most.  Returns 0 when it is, else
        -errno (the library's; with etcd, a segment name's as
        transfer_sync_write())."""
        eng = self._engine("send_probe")
        if eng is None:
            return -_hixl.ESHUTDOWN
        peer, err = self._peer("send_probe", peer_server_name)
        if err:
            return err
        err = eng.connect(peer, CONNECT_TIMEOUT_MS)
        if err == -_hixl_errno("EISCONN"):
            return 0
        if err:
            _lib_error()
            self._forget(peer_server_name)
        return err

    def finalize(self):
        """hixl's: tear the engine down now (Mooncake's at the object's end):
        links, registrations, managed buffers, batches; with etcd, this
        engine's rpc_meta key too (a failed delete: one HixlWarning)."""
        self._stop.set()
        unpublish, self._unpublish = self._unpublish, None
        if unpublish is not None:
            unpublish()
        if self._pumper is not None and self._pumper is not threading.current_thread():
            self._pumper.join()
        self._pumper = None
        eng, self._eng = self._eng, None
        self._regs.clear()
        self._batches.clear()
        if eng is not None:
            eng.finalize()
        for m, _ in self._managed.values():
            m.close()
        self._managed.clear()


def _pump_loop(ref):
    """An engine's notification thread: _pump() every _PUMP_INTERVAL s
    until finalize() or the engine object is gone (a weak reference: the
    thread does not keep it alive)."""
    while True:
        te = ref()
        if te is None or te._stop.wait(_PUMP_INTERVAL):
            return
        try:
            te._pump()
        except Exception:		# the engine went away under us: finalize()
            if te._eng is None:
                return
        del te


def _rpc_meta_key(segment_name):
    """Mooncake's etcd key of a segment's RPC endpoint (bytes):
    RPC_META_PREFIX, MC_METADATA_CLUSTER_ID + "/" when set, "rpc_meta/",
    the segment name (Mooncake's local_server_name: the local_hostname its
    engine was initialized with)."""
    cluster = os.environ.get("MC_METADATA_CLUSTER_ID", "")
    if cluster and not cluster.endswith("/"):
        cluster += "/"
    return (RPC_META_PREFIX + cluster + "rpc_meta/" + segment_name).encode("utf-8")


def _rpc_meta_value(ip, engine_name):
    """The key's value, as Mooncake writes it (jsoncpp's FastWriter:
    compact, one line): {"ip_or_host_name": ip, "rpc_port": the port of
    engine_name "ip:port"}."""
    port = int(engine_name.rsplit(":", 1)[1])
    return (json.dumps({"ip_or_host_name": ip, "rpc_port": port},
                       separators=(",", ":")) + "\n").encode()


def _delete_key(meta, key):
    """finalize()'s, or at exit: delete our rpc_meta key; a HixlWarning
    when etcd cannot be reached."""
    try:
        meta.delete(key)
    except _etcd.EtcdError as e:
        warnings.warn("hixl.mooncake: finalize: %s left in etcd: %s" % (key.decode(), e),
                      HixlWarning, stacklevel=2)


def _op(opcode):
    op = int(opcode)
    if op not in (TransferOpcode.Read, TransferOpcode.Write):
        raise ValueError("opcode must be TransferOpcode.Read or Write, got %r" % (opcode,))
    return _C_READ if op == TransferOpcode.Read else _C_WRITE


def _one(buffer, peer, length):
    return _hixl.OpDescs.from_arrays([int(buffer)], [int(peer)], [int(length)])


def _b(v):
    return v.encode("utf-8", "surrogateescape") if isinstance(v, str) else bytes(v)


def _hixl_errno(name):
    import errno
    return getattr(errno, name)


__all__ = ["TransferEngine", "TransferOpcode", "TransferNotify", "P2PHANDSHAKE"]
