# SPDX-License-Identifier: MIT
"""A failed initialize() explains itself: one hixl.HixlWarning naming the
cause and the fix (hixl.ko missing, /dev/hixl not accessible, a bad option
or environment variable), HIXL's status kept."""

import errno
import os
import subprocess
import sys
import warnings

import pytest

import hixl
from hixl import _diagnose
from conftest import DEV, IP, REPO, next_port, name


def init_warnings(options=None, env=None, engine=None):
    """(status, [warning texts]) of one initialize() in this process"""
    saved = {}
    for k, v in (env or {}).items():
        saved[k] = os.environ.get(k)
        os.environ[k] = v
    try:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            h = hixl.Hixl()
            ret = h.initialize(engine or name(next_port()), options or {})
            h.finalize()
    finally:
        for k, v in saved.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
    return ret, [str(w.message) for w in got if issubclass(w.category, hixl.HixlWarning)]


@pytest.mark.parametrize("options,needle", [
    ({"BufferPool": "abc"}, 'option BufferPool "abc": accepted: '),
    ({"RdmaTrafficClass": "130"}, "multiple of 4"),
    ({"Transport": "fast"}, 'option Transport "fast": accepted: auto, rdma or local'),
    ({"LocalCommRes": "{}"}, "LocalCommRes: Ascend-only"),
    ({"Nope": "1"}, 'unknown option "Nope" (known: BufferPool'),
    ({"Rails": "10.0.0.1:5"}, 'option Rails "10.0.0.1:5"'),
])
def test_bad_option_warns(options, needle):
    """libhixl-user checks options before opening /dev/hixl: host and VM
    alike; the warning is its message (hixl.last_error())"""
    ret, texts = init_warnings(options)
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and needle in texts[0], texts


def test_bad_env_warns():
    ret, texts = init_warnings(env={"HCCL_RDMA_SL": "9"})
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and "environment HCCL_RDMA_SL=9: accepted: 0..7" in texts[0], texts


def test_option_beats_env():
    """an option given wins over its variable: the variable is not blamed
    (on a host without hixl.ko the warning is the missing module's)"""
    ret, texts = init_warnings({"RdmaTrafficClass": "128"}, env={"HIXL_RDMA_TC": "999"})
    assert not any("HIXL_RDMA_TC" in t for t in texts), texts
    ret, texts = init_warnings(env={"HIXL_RDMA_TC": "999"})
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and "environment HIXL_RDMA_TC=999" in texts[0], texts


def test_no_module_warns():
    if os.path.exists(DEV):
        pytest.skip("%s exists: the no-module case runs on a host without hixl.ko" % DEV)
    ret, texts = init_warnings()
    assert ret == hixl.FAILED
    assert len(texts) == 1 and "hixl.ko is not loaded" in texts[0] and "modprobe hixl" in texts[0]
    assert "hixl.ko is not loaded" in hixl.last_error()


def test_no_access_warns(dev):
    """a user outside /dev/hixl's group (mode 0660) gets the usermod fix"""
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to another user")
    code = ("import os, warnings, sys; sys.path.insert(0, %r); os.setgid(65534); "
            "os.setuid(65534)\nimport hixl\nwarnings.simplefilter('always')\n"
            "print(hixl.Hixl().initialize(%r))" % (os.path.join(REPO, "python"), IP + ":0"))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=60, cwd="/")
    assert p.stdout.strip() == str(hixl.FAILED), p.stdout + p.stderr
    assert p.stderr.count("HixlWarning") == 1 and "usermod -aG hixl" in p.stderr, p.stderr


def test_warning_texts():
    """the pure text for each cause; nothing for failures of another kind"""
    t = _diagnose.init_warning(-errno.EPERM, "x:1", [], "hixl_engine_init(x:1): /dev/hixl: "
                               "not in its group hixl (sudo usermod -aG hixl $USER)", "")
    assert t == "hixl: initialize(x:1) failed: /dev/hixl: not in its group hixl " \
        "(sudo usermod -aG hixl $USER)", t
    t = _diagnose.init_warning(-errno.ENODEV, "x:1", [], "hixl_engine_init(x:1): no RDMA "
                               "device has this address", hixl.error_hint(-errno.ENODEV))
    assert t.endswith(". Fix: " + hixl.error_hint(-errno.ENODEV)), t
    assert _diagnose.init_warning(-errno.EADDRINUSE, "x:1", [], "hixl_engine_init(x:1): in use",
                                  "") is None
    assert _diagnose.init_warning(-errno.EINVAL, "x:1", [], "", "") is None


def test_success_is_silent(dev):
    ret, texts = init_warnings()
    assert ret == hixl.SUCCESS and texts == []


def test_bad_name_warns():
    ret, texts = init_warnings(engine="10.77.0.1:99999")
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1, texts
    assert "not an engine name (IPV4:PORT, [IPV6]:PORT or HOST:PORT" in texts[0], texts
