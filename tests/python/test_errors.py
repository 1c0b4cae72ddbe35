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
    ({"BufferPool": "abc"}, "BufferPool='abc'"),
    ({"RdmaTrafficClass": "130"}, "multiple of 4"),
    ({"Transport": "fast"}, "Transport='fast'"),
    ({"LocalCommRes": "{}"}, "Ascend-only"),
    ({"Nope": "1"}, "'Nope' is not an option"),
])
def test_bad_option_warns(options, needle):
    """libhixl-user checks options before opening /dev/hixl: host and VM alike"""
    ret, texts = init_warnings(options)
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and needle in texts[0], texts


def test_bad_env_warns():
    ret, texts = init_warnings(env={"HCCL_RDMA_SL": "9"})
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and "HCCL_RDMA_SL='9'" in texts[0] and "RdmaServiceLevel" in texts[0]


def test_option_beats_env():
    """an option given wins over its variable: the variable is not blamed"""
    assert _diagnose.bad_option([("RdmaTrafficClass", "128")], {"HIXL_RDMA_TC": "999"}) is None
    assert "HIXL_RDMA_TC" in _diagnose.bad_option([], {"HIXL_RDMA_TC": "999"})
    assert _diagnose.bad_option([("Rails", "10.0.0.1,fd00::2"), ("BufferPool", "0:0")], {}) is None
    assert "Rails" in _diagnose.bad_option([("Rails", "10.0.0.1:5")], {})


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
    t = _diagnose.init_warning(-errno.EPERM, "x:1", [], "", hixl.error_hint(-errno.EPERM))
    assert "not accessible" in t and "usermod" in t
    assert _diagnose.init_warning(-errno.EADDRINUSE, "x:1", [], "", "") is None


def test_success_is_silent(dev):
    ret, texts = init_warnings()
    assert ret == hixl.SUCCESS and texts == []


def test_bad_name_warns():
    ret, texts = init_warnings(engine="10.77.0.1:99999")
    assert ret == hixl.PARAM_INVALID
    assert len(texts) == 1 and "is not \"ip\", \"ip:port\"" in texts[0], texts
    assert _diagnose.bad_name("[fd77::1]:5") is None and _diagnose.bad_name("10.0.0.1") is None
