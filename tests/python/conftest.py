# SPDX-License-Identifier: MIT
"""pytest setup of the hixl Python tests: the package from the tree
(python/, built by `make python`) unless HIXL_PY_INSTALLED=1, fixtures for
engines on the test VM's rxe0, and TAP reports ("1..N", "ok N - name", "not
ok N - name", "ok N - name # SKIP reason"): test_nixl_agent.py's (NIXL's
Python agent) in $HIXL_WORK/nixl-python.tap, "1..0 # SKIP why" when all of
them skip for one reason, the others' in $HIXL_WORK/python.tap."""

import itertools
import os
import sys

import pytest

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.environ.get("HIXL_PY_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(REPO, "python"))

import hixl  # noqa: E402

#: the test VM's rxe0 addresses (tests/vm/run.sh, tests/user/util.h HX_IP)
IP = "10.77.0.1"
IP6 = "fd77::1"
DEV = "/dev/hixl"
# ports of their own, 19200..19499 (the C tests use 16000..18399, 19005..19015
# and 19500..22040, the C++ tests 19100..19199): a new one per engine
_ports = itertools.count(19200)


def next_port():
    """A port no engine of this run used yet."""
    return next(_ports)


def name(port, ip=IP):
    """The engine name of ip:port ("[ipv6]:port" for IPv6)."""
    return "[%s]:%d" % (ip, port) if ":" in ip else "%s:%d" % (ip, port)


@pytest.fixture
def dev():
    """Skip unless the machine has /dev/hixl (hixl.ko loaded): the test VM."""
    if not os.path.exists(DEV):
        pytest.skip("no %s (hixl.ko not loaded): runs in the test VM (tests/vm/run.sh)" % DEV)


class Engine:
    """An initialized hixl.Hixl with its name: on a new port, on port 0 (a
    free port the kernel picks), or a client only (client=True, no port)."""

    def __init__(self, options=None, ip=IP, port=None, client=False, **kw):
        self.port = next_port() if port is None else port
        given = (("[%s]" % ip if ":" in ip else ip) if client else name(self.port, ip))
        self.h = hixl.Hixl(**kw)
        ret = self.h.initialize(given, options or {})
        assert ret == hixl.SUCCESS, "initialize(%s): %d %s" % (given, ret, hixl.last_error())
        self.name = self.h.local_engine

    def __getattr__(self, attr):
        return getattr(self.h, attr)


@pytest.fixture
def engines(dev):
    """engines(n, **kw) makes n engines, finalized at the end of the test."""
    made = []

    def make(n=2, **kw):
        new = [Engine(**kw) for _ in range(n)]
        made.extend(new)
        return new

    yield make
    for e in made:
        e.h.finalize()


@pytest.fixture
def pair(engines):
    """Two engines, the first connected to the second."""
    a, b = engines(2)
    assert a.connect(b.name, timeout_in_millis=5000) == hixl.SUCCESS, hixl.last_error()
    return a, b


# ---- TAP ----------------------------------------------------------------------

_order = []
_results = {}


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if nodeid not in _results:
        _order.append(nodeid)
        _results[nodeid] = ("ok", "")
    if report.failed:
        _results[nodeid] = ("not ok", report.when)
    elif report.skipped and _results[nodeid][0] == "ok":
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if reason.startswith("Skipped: "):
            reason = reason[len("Skipped: "):]
        _results[nodeid] = ("skip", reason)


#: the tests whose TAP goes to nixl-python.tap (scripts/check.sh counts it
#: as the NIXL Python tests)
NIXL_FILE = "test_nixl_agent.py"


def _tap(nodeids, skip_whole):
    """The TAP lines of these tests; with skip_whole, "1..0 # SKIP why"
    when every one skipped for the same reason."""
    reasons = set(_results[n][1] for n in nodeids if _results[n][0] == "skip")
    if skip_whole and nodeids and len(reasons) == 1 and \
            all(_results[n][0] == "skip" for n in nodeids):
        return ["1..0 # SKIP %s" % reasons.pop().replace("\n", " ")]
    lines = ["1..%d" % len(nodeids)]
    for i, nodeid in enumerate(nodeids, 1):
        state, why = _results[nodeid]
        label = nodeid.split("/")[-1].replace("#", "")
        if state == "skip":
            lines.append("ok %d - %s # SKIP %s" % (i, label, why.replace("\n", " ")))
        elif state == "ok":
            lines.append("ok %d - %s" % (i, label))
        else:
            lines.append("not ok %d - %s (%s)" % (i, label, why))
    return lines


def pytest_sessionfinish(session, exitstatus):
    work = os.environ.get("HIXL_WORK")
    if not work:
        return
    nixl = [n for n in _order if n.split("::")[0].endswith("/" + NIXL_FILE)]
    rest = [n for n in _order if n not in nixl]
    with open(os.path.join(work, "python.tap"), "w") as f:
        f.write("\n".join(_tap(rest, False)) + "\n")
    if nixl:
        with open(os.path.join(work, "nixl-python.tap"), "w") as f:
            f.write("\n".join(_tap(nixl, True)) + "\n")
