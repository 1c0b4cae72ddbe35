# SPDX-License-Identifier: MIT
"""hixl.mooncake.TransferEngine against a second process (a peer engine on
the VM's rxe0, imported as those callers do, `from mooncake.engine import
TransferEngine`, through python/mooncake-shim): every member, the bytes
checked on the side that received them, and the call sequences of vLLM's
MooncakeConnector, SGLang's mooncake backend and LMCache's MooncakeChannel
as those files make them."""

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pytest

import hixl
from hixl.mooncake import P2PHANDSHAKE, TransferEngine, TransferNotify, TransferOpcode
from conftest import IP, REPO

N = 1 << 20		# bytes of the peer's inbox and outbox
SHIM = os.path.join(REPO, "python", "mooncake-shim")

# the peer: registers inbox (zeros) and outbox (pattern 99), prints its
# session and addresses, then answers one command a line on stdin
PEER = r"""
import sys
import numpy as np
import mooncake.engine
from mooncake.engine import TransferEngine
assert mooncake.engine.__hixl__
N = 1 << 20
def pattern(seed, n):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
te = TransferEngine()
ret = te.initialize(sys.argv[1], "P2PHANDSHAKE", "rdma", "")
inbox, outbox = np.zeros(N, np.uint8), pattern(99, N)
reg = te.batch_register_memory([inbox.ctypes.data, outbox.ctypes.data], [N, N])
print(ret, reg, "%s:%d" % (sys.argv[1], te.get_rpc_port()), inbox.ctypes.data,
      outbox.ctypes.data, flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "check":		# check OFF LEN SEED: inbox bytes == pattern(SEED)
        off, n, seed = map(int, cmd[1:])
        print("ok" if np.array_equal(inbox[off:off + n], pattern(seed, n)) else "bad",
              flush=True)
    elif cmd[0] == "clear":
        inbox[:] = 0
        print("ok", flush=True)
    elif cmd[0] == "notifies":
        print(" ".join("%s=%s" % (n.name, n.msg) for n in te.get_notifies()) or "-", flush=True)
    else:
        break
te.finalize()
"""


def pattern(seed, n):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


class Peer:
    def __init__(self):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env["PYTHONPATH"] = SHIM
        if os.environ.get("HIXL_PY_INSTALLED") != "1":
            env["PYTHONPATH"] += os.pathsep + os.path.join(REPO, "python")
        self.p = subprocess.Popen([sys.executable, "-c", PEER, IP], env=env, text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        first = self.p.stdout.readline().split()
        assert first[:2] == ["0", "0"], first
        self.session, self.inbox, self.outbox = first[2], int(first[3]), int(first[4])

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def check(self, off, n, seed):
        return self.ask("check %d %d %d" % (off, n, seed)) == "ok"

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=60)


@pytest.fixture(scope="module")
def peer():
    if not os.path.exists("/dev/hixl"):
        pytest.skip("no /dev/hixl (hixl.ko not loaded): runs in the test VM")
    p = Peer()
    yield p
    p.close()


@pytest.fixture
def te(peer):
    peer.ask("clear")
    e = TransferEngine()
    assert e.initialize(IP, P2PHANDSHAKE, "rdma", "") == 0, hixl.last_error()
    yield e
    e.finalize()


# ---- the callers' sequences --------------------------------------------------

def test_vllm_sequence(peer):
    """vLLM MooncakeConnectorWorker: initialize(hostname, "P2PHANDSHAKE",
    protocol, ""), get_rpc_port(), batch_register_memory(kv_data_ptrs,
    kv_data_lens) of every layer, batch_transfer_sync_write(remote_session,
    src_ptrs, dst_ptrs, lengths) of the blocks (contiguous ones merged)"""
    peer.ask("clear")
    engine = TransferEngine()
    assert engine.initialize(IP, "P2PHANDSHAKE", "rdma", "") == 0, hixl.last_error()
    rpc_port = engine.get_rpc_port()
    assert rpc_port > 0
    layers = [pattern(10 + i, 16 * 4096).reshape(16, 4096) for i in range(2)]
    assert engine.batch_register_memory([t.ctypes.data for t in layers],
                                        [t.nbytes for t in layers]) == 0, hixl.last_error()
    src_ptrs, dst_ptrs, lengths = [], [], []
    for i, t in enumerate(layers):		# blocks 2..4 (merged) and 9, per layer
        for first, count in ((2, 3), (9, 1)):
            src_ptrs.append(t[first].ctypes.data)
            dst_ptrs.append(peer.inbox + i * 65536 + first * 4096)
            lengths.append(count * 4096)
    ret = engine.batch_transfer_sync_write(peer.session, src_ptrs, dst_ptrs, lengths)
    assert ret == 0, hixl.last_error()
    for i, t in enumerate(layers):
        seed_bytes = t.ravel()
        want = np.zeros(65536, np.uint8)
        want[2 * 4096:5 * 4096] = seed_bytes[2 * 4096:5 * 4096]
        want[9 * 4096:10 * 4096] = seed_bytes[9 * 4096:10 * 4096]
        got = engine_read_back(engine, peer, i * 65536, 65536)
        assert np.array_equal(got, want)
    assert engine.batch_unregister_memory([t.ctypes.data for t in layers]) == 0
    engine.finalize()


def engine_read_back(engine, peer, off, n):
    """the peer's inbox bytes, READ back with batch_transfer_sync_read()"""
    back = np.zeros(n, np.uint8)
    assert engine.register_memory(back.ctypes.data, n) == 0, hixl.last_error()
    assert engine.batch_transfer_sync_read(peer.session, [back.ctypes.data],
                                           [peer.inbox + off], [n]) == 0, hixl.last_error()
    assert engine.unregister_memory(back.ctypes.data) == 0
    return back


def test_sglang_sequence(peer):
    """SGLang MooncakeTransferEngine: initialize(hostname, "P2PHANDSHAKE",
    "rdma", ib_device or ""), session_id f"{hostname}:{get_rpc_port()}",
    register_memory(ptr, length), transfer_sync_write(session_id, buffer,
    peer_buffer_address, length), batch_transfer_sync_write(...),
    unregister_memory(ptr)"""
    peer.ask("clear")
    engine = TransferEngine()
    assert engine.initialize(IP, "P2PHANDSHAKE", "rdma", "") == 0
    session_id = "%s:%d" % (IP, engine.get_rpc_port())
    assert session_id != peer.session
    src = pattern(21, 3 * 8192)
    assert engine.register_memory(src.ctypes.data, src.nbytes) == 0
    assert engine.transfer_sync_write(peer.session, src.ctypes.data, peer.inbox, 8192) == 0
    assert engine.batch_transfer_sync_write(
        peer.session, [src.ctypes.data + 8192, src.ctypes.data + 16384],
        [peer.inbox + 8192, peer.inbox + 16384], [8192, 8192]) == 0, hixl.last_error()
    assert peer.check(0, src.nbytes, 21)
    assert engine.unregister_memory(src.ctypes.data) == 0
    engine.finalize()


def test_lmcache_sequence(peer):
    """LMCache MooncakeEngineWrapper + MooncakeChannel.batched_write:
    initialize(hostname, metadata_server, protocol "tcp" by default,
    device_name), session_id f"{hostname}:{rpc_port}",
    register_memory(buffer_ptr, buffer_size), one transfer_sync_write()
    per page (buffer_ptr + local_index * align_bytes -> remote_base +
    remote_index * align_bytes), unregister_memory(buffer_ptr)"""
    peer.ask("clear")
    engine = TransferEngine()
    assert engine.initialize(IP, "P2PHANDSHAKE", "tcp", "") == 0
    align, pages = 4096, pattern(31, 8 * 4096)
    assert engine.register_memory(pages.ctypes.data, pages.nbytes) == 0
    for local_index, remote_index in zip([5, 1, 7], [0, 1, 2]):
        ret = engine.transfer_sync_write(peer.session, pages.ctypes.data + local_index * align,
                                         peer.inbox + remote_index * align, align)
        assert ret == 0, hixl.last_error()
    got = engine_read_back(engine, peer, 0, 3 * align)
    want = np.concatenate([pages[i * align:(i + 1) * align] for i in (5, 1, 7)])
    assert np.array_equal(got, want)
    assert engine.unregister_memory(pages.ctypes.data) == 0
    engine.finalize()


# ---- every other member --------------------------------------------------------

def test_read_members(te, peer):
    """transfer_sync_read, transfer_sync(Read), batch_transfer_sync(Read)"""
    want = pattern(99, N)
    back = np.zeros(N, np.uint8)
    assert te.register_memory(back.ctypes.data, N) == 0
    assert te.transfer_sync_read(peer.session, back.ctypes.data, peer.outbox, 4096) == 0
    assert te.transfer_sync(peer.session, back.ctypes.data + 4096, peer.outbox + 4096, 4096,
                            TransferOpcode.Read) == 0
    assert te.batch_transfer_sync(peer.session, np.array([back.ctypes.data + 8192]),
                                  np.array([peer.outbox + 8192]), np.array([N - 8192]),
                                  te.TransferOpcode.Read) == 0, hixl.last_error()
    assert np.array_equal(back, want)


def test_async_members(te, peer):
    """batch_transfer_async_write/_read + get_batch_transfer_status,
    batch_transfer_async, transfer_submit_write + transfer_check_status"""
    src, back = pattern(41, 3 * 65536), np.zeros(65536, np.uint8)
    assert te.batch_register_memory([src.ctypes.data, back.ctypes.data],
                                    [src.nbytes, back.nbytes]) == 0
    b1 = te.batch_transfer_async_write(peer.session, [src.ctypes.data], [peer.inbox], [65536])
    b2 = te.batch_transfer_async(peer.session, [src.ctypes.data + 65536],
                                 [peer.inbox + 65536], [65536], TransferOpcode.Write)
    assert b1 and b2 and b1 != b2, hixl.last_error()
    assert isinstance(te.batch_request(b1), hixl.Request)
    assert te.get_batch_transfer_status([b1, b2]) == 0, hixl.last_error()
    b3 = te.batch_transfer_async_read(peer.session, [back.ctypes.data], [peer.outbox], [65536])
    assert te.get_batch_transfer_status([b3]) == 0
    assert np.array_equal(back, pattern(99, N)[:65536])
    bid = te.transfer_submit_write(peer.session, src.ctypes.data + 131072, peer.inbox + 131072,
                                   65536)
    assert bid > 0
    for _ in range(20000):
        st = te.transfer_check_status(bid)
        if st != 0:
            break
    assert st == 1
    assert te.transfer_check_status(bid) == -1		# spent
    assert peer.check(0, src.nbytes, 41)
    assert te.get_batch_transfer_status([b1]) == -1	# spent too
    # a failing batch: a remote range the peer did not register
    bad = te.batch_transfer_async_write(peer.session, [src.ctypes.data], [0x1000], [4096])
    assert bad and te.get_batch_transfer_status([bad]) == -1
    assert "batch" in hixl.last_error()


def test_submit_failure_returns_zero(te, peer):
    """transfer_submit_write: 0 on failure, as Mooncake (its
    test_async_submit_to_unknown_peer_returns_zero): no peer on that port,
    a malformed name, a host name that does not resolve.  (A range the
    kernel refuses fails the batch later: transfer_check_status() -1.)"""
    src = np.zeros(4096, np.uint8)
    assert te.register_memory(src.ctypes.data, 4096) == 0
    assert te.transfer_submit_write("%s:1" % IP, src.ctypes.data, peer.inbox, 4096) == 0
    assert hixl.last_error()
    assert te.transfer_submit_write("no:such:name", src.ctypes.data, peer.inbox, 4096) == 0
    assert te.transfer_submit_write("nosuchhost.invalid:1", src.ctypes.data, peer.inbox,
                                    4096) == 0
    bid = te.transfer_submit_write(peer.session, src.ctypes.data, 0x1000, 4096)
    assert bid != 0
    for _ in range(20000):
        st = te.transfer_check_status(bid)
        if st != 0:
            break
    assert st == -1


def test_batch_status_returns_at_first_failure(te, peer):
    """get_batch_transfer_status returns -1 once one batch failed, as
    Mooncake, and every id given is spent; 0 when all completed"""
    src = pattern(42, 4 * 65536)
    assert te.register_memory(src.ctypes.data, src.nbytes) == 0
    good = [te.batch_transfer_async_write(peer.session, [src.ctypes.data + i * 65536],
                                          [peer.inbox + i * 65536], [65536]) for i in range(3)]
    bad = te.batch_transfer_async_write(peer.session, [src.ctypes.data], [0x1000], [4096])
    assert all(good) and bad, hixl.last_error()
    assert te.get_batch_transfer_status([good[0], bad, good[1]]) == -1
    assert "batch %#x" % bad in hixl.last_error()
    for bid in (good[0], bad, good[1]):
        assert te.batch_request(bid) is None		# spent
    assert te.get_batch_transfer_status([good[2]]) == 0
    assert te.get_batch_transfer_status([12345]) == -1
    assert "unknown batch id" in hixl.last_error()


def test_first_buffer_address(te, peer, engines):
    """get_first_buffer_address(session): the oldest registration the peer
    still has, in registration order, not address order (the kernel's copy
    of its region table, hixl_peer_regions()); 0 for a peer with none, or
    none there; any hixl engine answers, not only a hixl.mooncake one"""
    assert te.get_first_buffer_address(peer.session) == peer.inbox
    other = TransferEngine()
    assert other.initialize(IP, P2PHANDSHAKE, "rdma", "") == 0
    try:
        session = "%s:%d" % (IP, other.get_rpc_port())
        assert te.get_first_buffer_address(session) == 0		# none registered
        a, b = np.zeros(4096, np.uint8), np.zeros(8192, np.uint8)
        lo, hi = sorted((a, b), key=lambda x: x.ctypes.data)
        assert other.register_memory(hi.ctypes.data, hi.nbytes) == 0	# higher first
        assert other.register_memory(lo.ctypes.data, lo.nbytes) == 0
        assert te.get_first_buffer_address(session) == hi.ctypes.data, hixl.last_error()
        assert other.unregister_memory(hi.ctypes.data) == 0
        assert te.get_first_buffer_address(session) == lo.ctypes.data
        assert other.get_notifies() == [] and te.get_notifies() == []
    finally:
        other.finalize()
    # a plain hixl engine (no hixl.mooncake, no notification thread)
    plain, = engines(1)
    buf = np.zeros(4096, np.uint8)
    assert plain.register_mem(buf, hixl.MEM_HOST)[0] == hixl.SUCCESS
    assert te.get_first_buffer_address(plain.name) == buf.ctypes.data, hixl.last_error()
    assert te.get_first_buffer_address("%s:1" % IP) == 0		# no one there
    assert hixl.last_error()


# a child in a mount namespace of its own, /etc/hosts bind-mounted from
# argv[1]: "hixl-peer.test" names a wrong address first (rxe1's, where no
# engine listens), then the peer's; the write fails, the name is resolved
# again after the failed connect, the next write lands
NAMED = r"""
import sys
import numpy as np
from hixl.mooncake import TransferEngine
hosts, ip, port, inbox = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
src = np.random.default_rng(71).integers(0, 256, 8192, dtype=np.uint8)
te = TransferEngine()
assert te.initialize(ip, "P2PHANDSHAKE", "rdma", "") == 0
assert te.register_memory(src.ctypes.data, src.nbytes) == 0
first = te.transfer_sync_write("hixl-peer.test:%d" % port, src.ctypes.data, inbox, 8192)
with open(hosts, "w") as f:		# the same inode: the bind mount sees it
    f.write("127.0.0.1 localhost\n%s hixl-peer.test\n" % ip)
second = te.transfer_sync_write("hixl-peer.test:%d" % port, src.ctypes.data, inbox, 8192)
print(first, second, flush=True)
te.finalize()
"""


def test_host_names_resolve_again(peer):
    """A session "host:port" with a host name resolves (getaddrinfo, in the
    library), is cached, and is resolved again after a failed connect"""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) for a private /etc/hosts (the test VM)")
    peer.ask("clear")
    with tempfile.TemporaryDirectory() as d:
        hosts = os.path.join(d, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 localhost\n10.78.0.1 hixl-peer.test\n")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        if os.environ.get("HIXL_PY_INSTALLED") != "1":
            env["PYTHONPATH"] = os.path.join(REPO, "python")
        port = peer.session.rsplit(":", 1)[1]
        cmd = 'mount --bind "$1" /etc/hosts && shift && exec "$@"'
        out = subprocess.run(["unshare", "-m", "sh", "-c", cmd, "sh", hosts, sys.executable,
                              "-c", NAMED, hosts, IP, port, str(peer.inbox)],
                             env=env, text=True, capture_output=True, timeout=300)
        assert out.returncode == 0, out.stderr
        first, second = map(int, out.stdout.split())
        assert first < 0 and second == 0, out.stdout
    assert peer.check(0, 8192, 71)


def test_notify_probe_bytes(te, peer):
    """transfer_sync with notify, get_notifies, send_probe,
    write_bytes_to_buffer, read_bytes_from_buffer"""
    buf = np.zeros(4096, np.uint8)
    assert te.register_memory(buf.ctypes.data, 4096) == 0
    data = bytes(pattern(51, 4096))
    assert te.write_bytes_to_buffer(buf.ctypes.data, data, 4096) == 0
    assert te.read_bytes_from_buffer(buf.ctypes.data, 4096) == data
    assert te.write_bytes_to_buffer(buf.ctypes.data, b"ab", 3) == -errno.EINVAL
    assert te.transfer_sync(peer.session, buf.ctypes.data, peer.inbox, 4096,
                            TransferOpcode.Write, TransferNotify("kv", "req-1")) == 0
    assert peer.check(0, 4096, 51)
    assert peer.ask("notifies") == "kv=req-1"
    assert te.send_probe(peer.session) == 0
    assert te.send_probe("%s:1" % IP) < 0
    assert te.get_notifies() == []


def test_managed_buffers(te, peer):
    addr = te.allocate_managed_buffer(65536)
    assert addr != 0, hixl.last_error()
    data = bytes(pattern(61, 65536))
    assert te.write_bytes_to_buffer(addr, data, 65536) == 0
    assert te.transfer_sync_write(peer.session, addr, peer.inbox, 65536) == 0
    assert peer.check(0, 65536, 61)
    assert te.free_managed_buffer(addr, 65536) == 0
    assert te.free_managed_buffer(addr, 65536) == -errno.ENOENT


def test_errors(te, peer):
    buf = np.zeros(8192, np.uint8)
    assert te.register_memory(buf.ctypes.data, 8192) == 0
    assert te.register_memory(buf.ctypes.data, 8192) == -errno.EEXIST
    assert te.unregister_memory(buf.ctypes.data + 1) == -errno.ENOENT
    # unwinds: the second range overlaps buf, so the first is dropped again
    other = np.zeros(4096, np.uint8)
    assert te.batch_register_memory([other.ctypes.data, buf.ctypes.data + 4096],
                                    [4096, 4096]) < 0
    assert te.register_memory(other.ctypes.data, 4096) == 0
    assert te.batch_register_memory([1], [1, 2]) == -errno.EINVAL
    assert te.transfer_sync_write(peer.session, buf.ctypes.data, 0x1000, 4096) < 0
    assert te.batch_transfer_sync_write(peer.session, [buf.ctypes.data], [], [1]) == \
        -errno.EINVAL
    assert "different lengths" in hixl.last_error()
    assert te.batch_transfer_async_write(peer.session, [1, 2], [3], [4]) == 0
    with pytest.raises(ValueError):
        te.transfer_sync(peer.session, buf.ctypes.data, peer.inbox, 1, 7)
    assert te.initialize(IP, P2PHANDSHAKE, "rdma", "") == -errno.EALREADY


def test_localhost_sessions(dev):
    """LMCache's default: engines on "localhost" (loopback engines, no RDMA
    device) and sessions "localhost:port", resolved by the library"""
    a, b = TransferEngine(), TransferEngine()
    assert a.initialize("localhost", P2PHANDSHAKE, "tcp", "") == 0, hixl.last_error()
    assert b.initialize("localhost", P2PHANDSHAKE, "tcp", "") == 0, hixl.last_error()
    try:
        src, dst = pattern(81, 8192), np.zeros(8192, np.uint8)
        assert a.register_memory(src.ctypes.data, src.nbytes) == 0
        assert b.register_memory(dst.ctypes.data, dst.nbytes) == 0
        session = "localhost:%d" % b.get_rpc_port()
        assert a.get_first_buffer_address(session) == dst.ctypes.data, hixl.last_error()
        assert a.transfer_sync_write(session, src.ctypes.data, dst.ctypes.data, 8192) == 0, \
            hixl.last_error()
        assert np.array_equal(dst, src)
    finally:
        a.finalize()
        b.finalize()


def test_get_engine_not_implemented():
    """get_engine()/get_engine_ptr(): a clear NotImplementedError naming
    what to do instead (no C++ engine to share)"""
    e = TransferEngine()
    for member in (e.get_engine, e.get_engine_ptr):
        with pytest.raises(NotImplementedError, match="TransferEngine"):
            member()


def test_initialize_refusals():
    e = TransferEngine()
    assert e.get_rpc_port() == -1
    assert e.register_memory(0x1000, 4096) < 0
    for args, needle in ((("10.0.0.1", "redis://10.0.0.2:6379", "rdma", ""), "redis://"),
                         (("10.0.0.1", P2PHANDSHAKE, "nvlink", ""), "protocol")):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            assert e.initialize(*args) == -errno.EINVAL
        assert len(got) == 1 and got[0].category is hixl.HixlWarning
        assert needle in str(got[0].message)
