# SPDX-License-Identifier: MIT
"""examples/kv_transfer.py and examples/python/kv_connector.py run and
report intact KV blocks; the README's Python example runs."""

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import traceback

import pytest

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
    """examples/python/kv_connector.py as a user runs it: two processes,
    blocks by id, asyncio, a notification; with --numpy (each process would
    import torch anew, about a minute each under TCG: the torch variant is
    test_kv_connector_torch)"""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    flags = ["--numpy"]
    port = next_port()
    next_port()				# the decode engine's
    p = subprocess.run([sys.executable, os.path.join(REPO, "examples", "python",
                                                     "kv_connector.py")] + flags +
                       [IP, str(port)], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "prefill: wrote 40 descriptors" in p.stdout, p.stdout
    assert "decode: request req-42: 5 blocks x 4 layers intact" in p.stdout, p.stdout


def test_kv_connector_torch(dev, capsys):
    """examples/python/kv_connector.py's decode and prefill with torch
    tensors: decode in a fork of this process, prefill in it, so the torch
    this process imported serves both (a test VM boot imports torch once)"""
    if os.environ.get("HIXL_TEST_TORCH") == "0":
        pytest.skip("HIXL_TEST_TORCH=0: importing torch takes about a minute under TCG "
                    "(make check: only in the stock 6.12 VM)")
    pytest.importorskip("torch", reason="no torch (Debian python3-torch, scripts/deps.sh)")
    spec = importlib.util.spec_from_file_location(
        "kv_connector", os.path.join(REPO, "examples", "python", "kv_connector.py"))
    kv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kv)
    port = next_port()
    next_port()				# the decode engine's
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:			# decode: never returns into pytest
        code = 1
        try:
            os.close(r)
            sys.stdout = os.fdopen(w, "w", buffering=1)
            code = asyncio.run(kv.decode(IP, port, False))
            sys.stdout.flush()
        except BaseException:
            traceback.print_exc(file=sys.__stderr__)
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as child:
        first = child.readline()
        assert first, "the decode side exited: %#x" % os.waitpid(pid, 0)[1]
        rc = asyncio.run(kv.prefill(IP, port, False, json.loads(first)))
        rest = child.read()
    _, status = os.waitpid(pid, 0)
    out = capsys.readouterr().out + rest
    assert rc == 0 and status == 0, "prefill %d, decode %#x: %s" % (rc, status, out)
    assert "prefill: wrote 40 descriptors" in out, out
    assert "decode: request req-42: 5 blocks x 4 layers intact" in out, out


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
