# SPDX-License-Identifier: MIT
"""python/mooncake-shim: `from mooncake.engine import TransferEngine` gives
hixl.mooncake's, with the module-level names of Mooncake's pybind11 module
that hixl has, and says it is hixl's (__hixl__); `pip install ./python`
does not install it.  Needs no /dev/hixl."""

import os
import subprocess
import sys

from conftest import REPO

SHIM = os.path.join(REPO, "python", "mooncake-shim")

CHILD = r"""
import mooncake, mooncake.engine
from mooncake.engine import (TransferEngine, TransferOpcode, TransferNotify, Read, Write,
                             SUPPORT_CUDA, SUPPORT_HIP, SUPPORT_EFA, SUPPORT_MNNVL,
                             SUPPORT_INTRA_NVLINK)
import hixl, hixl.mooncake
assert mooncake.engine.__hixl__ == mooncake.__hixl__ == hixl.__version__
assert TransferEngine is hixl.mooncake.TransferEngine
assert TransferOpcode is hixl.mooncake.TransferOpcode is TransferEngine.TransferOpcode
assert TransferNotify is hixl.mooncake.TransferNotify
assert (Read, Write) == (TransferOpcode.Read, TransferOpcode.Write) == (0, 1)
assert not (SUPPORT_CUDA or SUPPORT_HIP or SUPPORT_EFA or SUPPORT_MNNVL or SUPPORT_INTRA_NVLINK)
n = TransferNotify("kv", "req-1")
assert (n.name, n.msg) == ("kv", "req-1")
for member in ("initialize", "get_rpc_port", "register_memory", "batch_register_memory",
               "transfer_sync_write", "batch_transfer_sync_write", "batch_transfer_async",
               "get_batch_transfer_status", "transfer_submit_write", "transfer_check_status",
               "get_first_buffer_address", "get_notifies", "send_probe", "get_engine"):
    assert callable(getattr(TransferEngine, member)), member
print("ok")
"""


def _env(*paths):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        paths += (os.path.join(REPO, "python"),)
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def test_shim_imports_as_mooncake():
    out = subprocess.run([sys.executable, "-c", CHILD], env=_env(SHIM), text=True,
                         capture_output=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_hixl_package_has_no_mooncake():
    """the hixl distribution (python/pyproject.toml) ships package hixl
    only: `mooncake` comes from the shim, a separate install"""
    with open(os.path.join(REPO, "python", "pyproject.toml")) as f:
        assert 'packages = ["hixl"]' in f.read()
    assert not os.path.exists(os.path.join(REPO, "python", "mooncake"))
    with open(os.path.join(SHIM, "pyproject.toml")) as f:
        text = f.read()
    assert 'name = "hixl-mooncake-shim"' in text and 'packages = ["mooncake"]' in text
