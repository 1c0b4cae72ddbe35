# SPDX-License-Identifier: MIT
"""hixl.mooncake's device_name: RDMA device names choose the engine's
device and rails (hixl._devices).  The name parsing and the sysfs walk
run anywhere (a sysfs tree of the test's own, interfaces that exist:
lo); the engines need the test VM's rxe0 (10.77.0.1 on veth0) and rxe1
(10.78.0.1 on veth2), and what they became is read back from the kernel
through `hixlctl stats --json` (the engine's address, device, rails and
per-rail byte counters).  Ports 28300..28399."""

import errno
import json
import os
import subprocess
import time
import warnings

import numpy as np
import pytest

import hixl
from hixl import _devices
from hixl.mooncake import P2PHANDSHAKE, TransferEngine
from conftest import REPO

HIXLCTL = os.path.join(REPO, "tools", "hixlctl")
IP0, IP1 = "10.77.0.1", "10.78.0.1"


# ---- anywhere: parsing and the sysfs walk ------------------------------------

def test_parse():
    assert _devices.parse(None) == []
    assert _devices.parse("") == []
    assert _devices.parse("  ") == []
    assert _devices.parse("mlx5_0") == [("mlx5_0", None)]
    assert _devices.parse(" mlx5_0 , mlx5_1,mlx5_0") == [("mlx5_0", None), ("mlx5_1", None)]
    assert _devices.parse("mlx5_0:1,mlx5_1:2") == [("mlx5_0", 1), ("mlx5_1", 2)]
    for bad in ("mlx5_0,,mlx5_1", "mlx5_0,", "../x", "mlx5_0:", "mlx5_0:0", "mlx5_0:a"):
        with pytest.raises(_devices.DeviceError) as e:
            _devices.parse(bad)
        assert e.value.errno_name == "EINVAL", bad


def _fake_dev(root, dev, ndevs, port=1):
    """root/dev/ports/port/gid_attrs/ndevs/i holding ndevs[i] (None: an
    entry that is not in use, which sysfs cannot read)"""
    d = os.path.join(root, dev, "ports", str(port), "gid_attrs", "ndevs")
    os.makedirs(d, exist_ok=True)
    for i, nd in enumerate(ndevs):
        p = os.path.join(d, str(i))
        if nd is None:
            os.mkdir(p)			# reading a directory fails, as EAGAIN does
        else:
            with open(p, "w") as f:
                f.write(nd + "\n")


def test_sysfs_walk(tmp_path):
    """A device's address through its GID table's interfaces (lo stands in
    for a NIC: it is the interface every host has), the errors by name."""
    root, net = str(tmp_path / "ib"), str(tmp_path / "net")
    os.makedirs(net)
    _fake_dev(root, "fake0", [None, "lo", "lo"])
    _fake_dev(root, "fake1", ["hixl-no-such-if0"])
    _fake_dev(root, "fake1", ["lo"], port=2)
    assert _devices.devices(root) == ["fake0", "fake1"]
    assert _devices.netdevs("fake0", root=root, net_root=net) == ["lo"]
    assert _devices.address("fake0", root=root, net_root=net) == "127.0.0.1"
    assert _devices.address("fake1", root=root, net_root=net) == "127.0.0.1"	# port 2's
    assert _devices.device_of("127.0.0.1", root=root, net_root=net) == "fake0"
    assert _devices.device_of("192.0.2.1", root=root, net_root=net) is None
    cases = [(("nope0", None), "ENODEV", "nope0"),
             (("fake0", 3), "EINVAL", "no port 3"),
             (("fake1", 1), "EADDRNOTAVAIL", "hixl-no-such-if0")]
    for (dev, port), name, text in cases:
        with pytest.raises(_devices.DeviceError) as e:
            _devices.address(dev, port, root=root, net_root=net)
        assert e.value.errno_name == name and text in str(e.value)
        assert name != "ENODEV" or "fake0, fake1" in str(e.value)	# the ones it has
    # the rule: an address an RDMA device owns pins the engine there
    assert _devices.choose("127.0.0.1", "fake1", root, net) == ("127.0.0.1", [])
    assert _devices.choose("192.0.2.1", "fake0", root, net) == ("127.0.0.1", [])
    assert _devices.choose("192.0.2.1", "", root, net) == ("192.0.2.1", [])
    with pytest.raises(_devices.DeviceError) as e:
        _devices.choose("fd77::1", "fake0", root, net)
    assert e.value.errno_name == "EOPNOTSUPP"


def test_unknown_device_refused():
    """An unknown name: -ENODEV, a HixlWarning and last_error() naming it,
    before any engine is made (so no /dev/hixl is needed)."""
    te = TransferEngine()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ret = te.initialize(IP0 + ":28399", P2PHANDSHAKE, "rdma", "hixl_nosuchdev0")
    assert ret == -errno.ENODEV
    msgs = [str(x.message) for x in w if issubclass(x.category, hixl.HixlWarning)]
    assert len(msgs) == 1 and "hixl_nosuchdev0" in msgs[0], msgs
    assert "hixl_nosuchdev0" in hixl.last_error()
    assert te.get_rpc_port() == -1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert te.initialize(IP0, P2PHANDSHAKE, "rdma", "rxe0,,rxe1") == -errno.EINVAL
    assert any("rxe0,,rxe1" in str(x.message) for x in w)


# ---- the test VM: engines on rxe0 and rxe1 -----------------------------------

@pytest.fixture
def vm(dev):
    for d in ("rxe0", "rxe1"):
        if not os.path.isdir("/sys/class/infiniband/" + d):
            pytest.skip("no %s: the test VM's two rails (rxe0 10.77.0.1, rxe1 10.78.0.1)" % d)
    if not os.access(HIXLCTL, os.X_OK):
        pytest.skip("no %s (make userspace builds it): the engines are read back with it"
                    % HIXLCTL)


def _stats(port):
    """hixlctl's JSON entry of this process's engine on port"""
    out = subprocess.run([HIXLCTL, "stats", "--json"], check=True, capture_output=True,
                         text=True).stdout
    for e in json.loads(out)["engines"]:
        if e["pid"] == os.getpid() and e["name"].endswith(":%d" % port):
            return e
    raise AssertionError("no engine on port %d in hixlctl stats: %s" % (port, out))


def _engine(host, port, device_name):
    te = TransferEngine()
    ret = te.initialize("%s:%d" % (host, port), P2PHANDSHAKE, "rdma", device_name)
    assert ret == 0, "initialize(%s:%d, %r): %d %s" % (host, port, device_name, ret,
                                                       hixl.last_error())
    assert te.get_rpc_port() == port
    return te


def test_one_name_chooses_the_device(vm):
    """local_hostname on no RDMA device ("localhost"): the named device's
    address is the engine's, rxe1's or rxe0's; local_hostname on rxe1's
    own address with rxe1 named: that engine, no further rail."""
    for dev, ip, port in (("rxe1", IP1, 28300), ("rxe0", IP0, 28301)):
        te = _engine("localhost", port, dev)
        try:
            e = _stats(port)
            assert (e["name"], e["device"], e["nr_rails"]) == ("%s:%d" % (ip, port), dev, 1)
        finally:
            te.finalize()
    te = _engine(IP1, 28302, "rxe1")		# pinned and named alike: no rail
    try:
        e = _stats(28302)
        assert (e["name"], e["device"], e["nr_rails"]) == ("%s:28302" % IP1, "rxe1", 1)
    finally:
        te.finalize()


def test_address_pins_the_first_rail(vm):
    """local_hostname on rxe0, device_name rxe1: the engine stays on rxe0
    (the host peers reach) and rxe1 becomes its second rail."""
    te = _engine(IP0, 28303, "rxe1")
    try:
        e = _stats(28303)
        assert (e["name"], e["device"], e["nr_rails"]) == ("%s:28303" % IP0, "rxe0", 2)
        assert [(r["address"].rsplit(":", 1)[0], r["device"]) for r in e["rails"]] == \
            [(IP0, "rxe0"), (IP1, "rxe1")], e["rails"]
    finally:
        te.finalize()


def test_list_makes_rails_and_moves_bytes(vm, monkeypatch):
    """"rxe0,rxe1" on both sides: two rails each, rail links between them,
    and an 8 MiB WRITE striped over both (each rail's write_direct_bytes
    grows), the bytes checked where they landed.  Transport rdma: between
    engines of one host hixl's default is the kernel copy, which has no
    rails."""
    monkeypatch.setenv("HIXL_TRANSPORT", "rdma")
    n = 8 << 20
    a = _engine("localhost", 28310, "rxe0,rxe1")
    b = _engine("localhost", 28311, "rxe0,rxe1")
    try:
        for port in (28310, 28311):
            e = _stats(port)
            assert e["name"] == "%s:%d" % (IP0, port) and e["nr_rails"] == 2, e
            assert [r["device"] for r in e["rails"]] == ["rxe0", "rxe1"], e["rails"]
        src = np.random.default_rng(5).integers(0, 256, n, dtype=np.uint8)
        dst = np.zeros(n, np.uint8)
        assert a.register_memory(src.ctypes.data, n) == 0
        assert b.register_memory(dst.ctypes.data, n) == 0
        peer = "%s:28311" % IP0
        assert a.send_probe(peer) == 0
        # rail links come up beside the link, retried every second
        deadline = time.monotonic() + 30
        while True:
            rails = _stats(28310)["rails"]
            if all(r["links_up"] >= 1 for r in rails):
                break
            assert time.monotonic() < deadline, "rail links not up in 30 s: %s" % rails
            time.sleep(0.5)
        before = [r["write_direct_bytes"] for r in rails]
        assert a.transfer_sync_write(peer, src.ctypes.data, dst.ctypes.data, n) == 0, \
            hixl.last_error()
        assert np.array_equal(src, dst)
        after = [r["write_direct_bytes"] for r in _stats(28310)["rails"]]
        moved = [x - y for x, y in zip(after, before)]
        assert sum(moved) == n and all(m > 0 for m in moved), moved
    finally:
        a.finalize()
        b.finalize()
