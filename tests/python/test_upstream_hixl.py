# SPDX-License-Identifier: MIT
"""Upstream HIXL's own Python test (hicann/hixl tests/python/
test_hixl_engine_api.py), unchanged, against this package: run where a
checkout of hicann/hixl is found, $HIXL_UPSTREAM_SRC or
../shared/third_party/hixl beside this checkout; SKIPs with the reason
otherwise (the file is HIXL's, under its licence, and is not copied here).
"""

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

TEST = os.path.join("tests", "python", "test_hixl_engine_api.py")


def _upstream():
    """The upstream checkout holding TEST, or None."""
    for top in (os.environ.get("HIXL_UPSTREAM_SRC"),
                os.path.join(os.path.dirname(REPO), "shared", "third_party", "hixl")):
        if top and os.path.isfile(os.path.join(top, TEST)):
            return top
    return None


def test_upstream_hixl_python_test(dev):
    """Every case of upstream HIXL's test passes (it names 127.0.0.1
    engines, hixl's loopback engines, and registers host memory as
    MEM_DEVICE, which registers as host memory)"""
    top = _upstream()
    if top is None:
        pytest.skip("no hicann/hixl checkout ($HIXL_UPSTREAM_SRC or "
                    "../shared/third_party/hixl) with " + TEST)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    p = subprocess.run([sys.executable, "-m", "unittest", "-v", "test_hixl_engine_api"],
                       cwd=os.path.join(top, "tests", "python"), env=env,
                       capture_output=True, text=True, timeout=900)
    out = p.stdout + p.stderr
    ran = re.search(r"^Ran (\d+) tests?", out, re.M)
    assert p.returncode == 0 and ran and re.search(r"^OK\b", out, re.M), out[-4000:]
    print("upstream HIXL's test: %s cases passed" % ran.group(1))
