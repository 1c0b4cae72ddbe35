# SPDX-License-Identifier: MIT
"""hixl.mooncake.TransferEngine with an etcd metadata server: a real etcd
(Debian's /usr/bin/etcd, started here on 127.0.0.1 with its own data
folder), two engines that initialize with "etcd://127.0.0.1:PORT" and the
bare "127.0.0.1:PORT", one reaching the other by segment name through
Mooncake's "mooncake/rpc_meta/<segment>" key (read here with raw HTTP
requests, not hixl's client), the key gone after finalize(); an etcd that
refuses or never answers, and redis:// / http:// servers, refused by name.
Ports 28200..28299."""

import base64
import errno
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
import warnings

import numpy as np
import pytest

import hixl
from hixl import _etcd
from hixl.mooncake import TransferEngine
from conftest import IP

ETCD = "/usr/bin/etcd"
PORTS = range(28200, 28300)
_taken = set()


def free_port():
    """A port of 28200..28299 that no socket of 127.0.0.1 or IP has and
    this file did not hand out yet."""
    for port in PORTS:
        if port in _taken:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port))
        except OSError:
            continue
        _taken.add(port)
        return port
    raise AssertionError("no free port in 28200..28299")


def kv(endpoint, op, key, value=None):
    """One raw etcd v3 JSON gateway request: the reply as a dict."""
    body = {"key": base64.b64encode(key).decode()}
    if value is not None:
        body["value"] = base64.b64encode(value).decode()
    req = urllib.request.Request("http://%s/v3/kv/%s" % (endpoint, op),
                                 json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def etcd_value(endpoint, key):
    """key's value in etcd (bytes), None when absent."""
    kvs = kv(endpoint, "range", key).get("kvs") or []
    return base64.b64decode(kvs[0]["value"]) if kvs else None


@pytest.fixture(scope="module")
def etcd(tmp_path_factory):
    """A running etcd: its client endpoint "127.0.0.1:PORT"."""
    if not os.access(ETCD, os.X_OK):
        pytest.skip("no %s (Debian's etcd-server: make deps)" % ETCD)
    d = tmp_path_factory.mktemp("etcd")
    client, peer = free_port(), free_port()
    endpoint = "127.0.0.1:%d" % client
    log = open(d / "etcd.log", "w")
    p = subprocess.Popen([ETCD, "--name", "hixl", "--data-dir", str(d / "data"),
                          "--listen-client-urls", "http://" + endpoint,
                          "--advertise-client-urls", "http://" + endpoint,
                          "--listen-peer-urls", "http://127.0.0.1:%d" % peer,
                          "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % peer,
                          "--initial-cluster", "hixl=http://127.0.0.1:%d" % peer],
                         stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180	# slow under TCG
        while True:
            assert p.poll() is None, "etcd exited %s: %s" % (
                p.returncode, (d / "etcd.log").read_text()[-2000:])
            try:
                kv(endpoint, "range", b"hixl-test")
                break
            except OSError:
                assert time.monotonic() < deadline, "etcd did not answer within 180 s: %s" % (
                    (d / "etcd.log").read_text()[-2000:])
                time.sleep(0.5)
        yield endpoint
    finally:
        p.terminate()
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()
        shutil.rmtree(d, ignore_errors=True)


def key(segment):
    return b"mooncake/rpc_meta/" + segment.encode()


def pattern(seed, n):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def test_segments_through_etcd(dev, etcd):
    """Engine a (segment "10.77.0.1", a port the kernel picks: reachable
    only through etcd) and b (bare endpoint form, segment "10.77.0.1:PORT");
    b moves bytes to and from a by segment name, and to a segment name that
    a Mooncake node would have published (a key written by hand here)."""
    a, b = TransferEngine(), TransferEngine()
    b_segment = "%s:%d" % (IP, free_port())
    assert a.initialize(IP, "etcd://" + etcd, "rdma", "") == 0, hixl.last_error()
    try:
        assert b.initialize(b_segment, etcd, "rdma", "") == 0, hixl.last_error()
        # Mooncake's key and JSON, as its handshake reads them
        got = json.loads(etcd_value(etcd, key(IP)))
        assert got == {"ip_or_host_name": IP, "rpc_port": a.get_rpc_port()}
        got = json.loads(etcd_value(etcd, key(b_segment)))
        assert got == {"ip_or_host_name": IP, "rpc_port": int(b_segment.rsplit(":", 1)[1])}

        n = 64 << 10
        dst, src = np.zeros(n, np.uint8), pattern(7, n)
        back = np.zeros(n, np.uint8)
        assert a.register_memory(dst.ctypes.data, n) == 0, hixl.last_error()
        assert b.batch_register_memory([src.ctypes.data, back.ctypes.data], [n, n]) == 0
        # "10.77.0.1" has no port: only etcd tells where a listens
        assert b.get_first_buffer_address(IP) == dst.ctypes.data, hixl.last_error()
        assert b.transfer_sync_write(IP, src.ctypes.data, dst.ctypes.data, n) == 0, \
            hixl.last_error()
        assert np.array_equal(dst, src)
        assert b.transfer_sync_read(IP, back.ctypes.data, dst.ctypes.data, n) == 0, \
            hixl.last_error()
        assert np.array_equal(back, src)
        # a's reverse direction, by b's segment name
        dst[:] = 0
        assert a.transfer_sync_read(b_segment, dst.ctypes.data, src.ctypes.data, n) == 0, \
            hixl.last_error()
        assert np.array_equal(dst, src)

        # a segment another Mooncake engine published: its key, by hand
        kv(etcd, "put", key("prefill-0"),
           b'{"ip_or_host_name":"%s","rpc_port":%d}\n' % (IP.encode(), a.get_rpc_port()))
        src2 = pattern(8, n)
        src[:] = src2
        assert b.transfer_sync_write("prefill-0", src.ctypes.data, dst.ctypes.data, n) == 0, \
            hixl.last_error()
        assert np.array_equal(dst, src2)
        kv(etcd, "deleterange", key("prefill-0"))

        # no such segment in etcd: -ENXIO, the key named
        assert b.transfer_sync_write("nobody", src.ctypes.data, dst.ctypes.data, n) == \
            -errno.ENXIO
        assert "mooncake/rpc_meta/nobody" in hixl.last_error()
        assert b.send_probe("nobody") == -errno.ENXIO
        assert b.transfer_submit_write("nobody", src.ctypes.data, dst.ctypes.data, n) == 0
        # a value that is not Mooncake's JSON: -EPROTO
        kv(etcd, "put", key("garbled"), b"not json")
        assert b.send_probe("garbled") == -errno.EPROTO
        kv(etcd, "deleterange", key("garbled"))
        assert b.send_probe(IP) == 0, hixl.last_error()
    finally:
        a.finalize()
        assert etcd_value(etcd, key(IP)) is None	# gone with a
        assert etcd_value(etcd, key(b_segment)) is not None
        b.finalize()
        assert etcd_value(etcd, key(b_segment)) is None


def test_endpoint_list(dev, etcd, monkeypatch):
    """Mooncake's lists of endpoints (";" and ","): the first refuses, the
    second serves; MC_METADATA_CLUSTER_ID puts the key under mooncake/<id>/"""
    closed = free_port()
    monkeypatch.setenv("MC_METADATA_CLUSTER_ID", "hixl-test")
    for sep in ";,":
        te = TransferEngine()
        segment = "%s:%d" % (IP, free_port())
        try:
            assert te.initialize(segment, "etcd://127.0.0.1:%d%s%s" % (closed, sep, etcd),
                                 "rdma", "") == 0, hixl.last_error()
            k = b"mooncake/hixl-test/rpc_meta/" + segment.encode()
            assert json.loads(etcd_value(etcd, k))["rpc_port"] == te.get_rpc_port()
            assert etcd_value(etcd, key(segment)) is None
        finally:
            te.finalize()
        assert etcd_value(etcd, k) is None


def refused(te, args, err, needle, within):
    """initialize(*args) fails with -err within `within` s, one
    HixlWarning containing needle, and leaves the engine uninitialized."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        t0 = time.monotonic()
        assert te.initialize(*args) == -err, hixl.last_error()
        took = time.monotonic() - t0
    assert took < within, "initialize took %.1f s" % took
    assert [w.category for w in got] == [hixl.HixlWarning], [str(w.message) for w in got]
    assert needle in str(got[0].message), str(got[0].message)
    assert te.get_rpc_port() == -1


def test_etcd_unreachable(dev, monkeypatch):
    """An etcd that refuses: -ECONNREFUSED at once; one that takes the
    connection and never answers: -ETIMEDOUT after hixl._etcd.TIMEOUT"""
    te = TransferEngine()
    closed = free_port()
    refused(te, (IP, "etcd://127.0.0.1:%d" % closed, "rdma", ""), errno.ECONNREFUSED,
            "etcd 127.0.0.1:%d unreachable" % closed, _etcd.TIMEOUT)
    monkeypatch.setattr(_etcd, "TIMEOUT", 1.0)
    with socket.socket() as mute:		# listens, never accepts nor answers
        mute.bind(("127.0.0.1", free_port()))
        mute.listen(8)
        port = mute.getsockname()[1]
        refused(te, (IP, "127.0.0.1:%d" % port, "rdma", ""), errno.ETIMEDOUT,
                "no answer within 1 s", 5.0)
    # the engine is usable afterwards: P2PHANDSHAKE still initializes it
    assert te.initialize(IP, "P2PHANDSHAKE", "rdma", "") == 0, hixl.last_error()
    te.finalize()


def test_other_metadata_servers_refused():
    """redis://, http://, an empty etcd:// list, an endpoint without a
    port: -EINVAL and a HixlWarning naming it, before any engine is made
    (runs without /dev/hixl too)"""
    te = TransferEngine()
    for server, needle in (("redis://127.0.0.1:6379", "redis:// metadata servers are not "
                                                      "supported"),
                           ("http://127.0.0.1:8080/metadata", "http:// metadata servers"),
                           ("etcd://", "no etcd endpoint"),
                           ("etcd://127.0.0.1", "is not host:port")):
        refused(te, ("127.0.0.1", server, "rdma", ""), errno.EINVAL, needle, 1.0)
