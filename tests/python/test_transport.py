# SPDX-License-Identifier: MIT
"""The same-host path from Python (hixl extensions): OPTION_TRANSPORT and
Hixl.get_link_stats()'s local flag and counters.  Two engines of this
process on the test VM's rxe0 pair in the handshake unless one says
"rdma"; the link's counters prove which path moved the bytes.  Ports
24520..24529 (skipped without /dev/hixl)."""

import numpy as np
import pytest

import hixl
from conftest import Engine

S = hixl.SUCCESS
T = 20000	# ms: generous, the VM runs under TCG
N = 1 << 20	# bytes per buffer


def test_constants():
    """The option and its values, the flag bits, the link states: no device."""
    assert hixl.OPTION_TRANSPORT == "Transport"
    assert (hixl.TRANSPORT_AUTO, hixl.TRANSPORT_RDMA, hixl.TRANSPORT_LOCAL) == \
        ("auto", "rdma", "local")
    assert (hixl.LINK_STAT_ACTIVE, hixl.LINK_STAT_NAMED, hixl.LINK_STAT_LOCAL) == (1, 2, 4)
    assert [s.name for s in hixl.LinkState] == ["CONNECTING", "READY", "ERROR", "CLOSED"]
    assert hixl.Hixl().get_link_stats() == (hixl.FAILED, [])	# not initialized


def _pair(port, transport_a, transport_b):
    """a on port, b on port + 1, each with the given transport, no staging
    pool, a buffer of N bytes registered each, a connected to b"""
    opts = lambda t: {hixl.OPTION_BUFFER_POOL: "0:0", hixl.OPTION_TRANSPORT: t}
    a = Engine(opts(transport_a), port=port)
    b = Engine(opts(transport_b), port=port + 1)
    la, lb = np.zeros(N, dtype=np.uint8), np.zeros(N, dtype=np.uint8)
    assert a.register_mem(la, hixl.MEM_HOST)[0] == S
    assert b.register_mem(lb, hixl.MEM_HOST)[0] == S
    assert a.connect(b.name, 5000) == S, hixl.last_error()
    return a, b, la, lb


def _move(a, b, la, lb, seed):
    """WRITE all of la into lb, READ lb back into la (one byte less); the
    bytes moved"""
    rng = np.random.default_rng(seed)
    la[:] = rng.integers(0, 256, N, dtype=np.uint8)
    assert a.transfer_sync(b.name, hixl.WRITE, [hixl.TransferOpDesc(la, lb.ctypes.data)], T) == S
    assert np.array_equal(la, lb)
    lb[:] = rng.integers(0, 256, N, dtype=np.uint8)
    d = hixl.TransferOpDesc(la.ctypes.data + 1, lb.ctypes.data + 1, N - 1)
    assert a.transfer_sync(b.name, hixl.READ, [d], T) == S
    assert np.array_equal(la[1:], lb[1:])
    return 2 * N - 1


def _one_link(e):
    st, links = e.get_link_stats()
    assert st == S, hixl.last_error()
    assert len(links) == 1
    return links[0]


@pytest.mark.parametrize("transport,port", [(hixl.TRANSPORT_AUTO, 24520),
                                            (hixl.TRANSPORT_LOCAL, 24522),
                                            (hixl.TRANSPORT_RDMA, 24524)])
def test_transport_counters(dev, transport, port):
    """auto and local pair and copy with the CPU (local_bytes are all the
    bytes), rdma does not (local_bytes 0); the bytes arrive either way"""
    a, b, la, lb = _pair(port, transport, transport)
    try:
        moved = _move(a, b, la, lb, port)
        ls = _one_link(a)
        print("#  ", transport, ls)
        local = transport != hixl.TRANSPORT_RDMA
        assert ls.peer == b.name
        assert ls.state == hixl.LinkState.READY
        assert ls.active and ls.flags & hixl.LINK_STAT_ACTIVE
        assert ls.local == local
        assert bool(ls.flags & hixl.LINK_STAT_LOCAL) == local
        assert ls.local_bytes == (moved if local else 0)
        assert ls.local_ops == (2 if local else 0)
        assert ls.counters["write_direct_bytes"] + ls.read_direct_bytes == moved
        # the accepting side's link says local too, and moved nothing itself
        lb_stat = _one_link(b)
        assert lb_stat.local == local and not lb_stat.active
        assert lb_stat.local_bytes == 0
        with pytest.raises(AttributeError):
            ls.no_such_counter
    finally:
        a.finalize()
        b.finalize()


def test_transport_local_refused(dev):
    """local on one side, rdma on the other: no pairing, and a transfer
    that must be local is UNSUPPORTED; a bad value is PARAM_INVALID"""
    a, b, la, lb = _pair(24526, hixl.TRANSPORT_LOCAL, hixl.TRANSPORT_RDMA)
    try:
        d = hixl.TransferOpDesc(la.ctypes.data, lb.ctypes.data, 4096)
        assert a.transfer_sync(b.name, hixl.WRITE, [d], T) == hixl.UNSUPPORTED
        assert "EOPNOTSUPP" in hixl.last_error()
        assert not _one_link(a).local
    finally:
        a.finalize()
        b.finalize()
    h = hixl.Hixl()
    assert h.initialize("10.77.0.1:24528", {hixl.OPTION_TRANSPORT: "tcp"}) == hixl.PARAM_INVALID
