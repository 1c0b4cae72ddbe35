# SPDX-License-Identifier: MIT
"""examples/kv_transfer.py and examples/python/kv_connector.py run and
report intact KV blocks; the README's Python example runs."""

import os
import subprocess
import sys

from conftest import IP, REPO, next_port


def test_kv_transfer_example(dev):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    port = next_port()
    next_port()				# the decode engine's
    p = subprocess.run([sys.executable, os.path.join(REPO, "examples", "kv_transfer.py"),
                        IP, str(port)], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "data intact" in p.stdout and "notify kv_ready/layers=4" in p.stdout
    print(p.stdout)


def test_kv_connector_example(dev):
    """examples/python/kv_connector.py: two processes, blocks by id, asyncio,
    a notification; torch tensors with HIXL_TEST_TORCH=1 (each of its two
    processes imports torch: about a minute each under TCG), numpy arrays
    otherwise"""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    flags = [] if os.environ.get("HIXL_TEST_TORCH") == "1" else ["--numpy"]
    port = next_port()
    next_port()				# the decode engine's
    p = subprocess.run([sys.executable, os.path.join(REPO, "examples", "python",
                                                     "kv_connector.py")] + flags +
                       [IP, str(port)], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "prefill: wrote 40 descriptors" in p.stdout, p.stdout
    assert "decode: request req-42: 5 blocks x 4 layers intact" in p.stdout, p.stdout


def test_readme_snippet(dev):
    """README.md's Python example runs (in a child: its engine goes with it)."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    start = text.index("```python\n", text.index("## From HIXL")) + len("```python\n")
    code = text[start:text.index("```", start)]
    code += "assert ret == hixl.SUCCESS and handle != 0, hixl.last_error()\n"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, code + p.stdout + p.stderr
