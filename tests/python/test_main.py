# SPDX-License-Identifier: MIT
"""python -m hixl: versions, the module's state and the preflight."""

import os
import subprocess
import sys

import hixl
from conftest import DEV, REPO


def test_python_m_hixl():
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    p = subprocess.run([sys.executable, "-m", "hixl"], env=env, capture_output=True, text=True,
                       timeout=120)
    out = p.stdout
    assert "hixl (Python package) %s" % hixl.__version__ in out, out + p.stderr
    assert "libhixl-user %s" % hixl.version() in out
    if os.path.exists(DEV):
        assert "hixl.ko: loaded" in out and "usable" in out, out
    else:
        assert "hixl.ko: not loaded" in out and "modprobe hixl" in out and p.returncode == 1, out
    assert "preflight: " in out
    assert hixl.__version__ == hixl.version()	# pyproject.toml and __init__.py follow the library
