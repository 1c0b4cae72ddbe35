# SPDX-License-Identifier: GPL-2.0
"""NIXL's Python nixl_agent with the HIXL backend in vLLM's NixlConnector
call sequence: the checks of tests/nixl/test_nixl_vllm.py (CHECKS), run in
this pytest process (the decode side) and a fork of it (the prefill side),
so the torch this process imported serves both: a test VM boot imports torch
once.  test_nixl_vllm_cuda runs the same checks with the KV cache in device
memory on both sides (kv_buffer_device "cuda"; the stand-in CUDA driver),
in processes of their own: hixl looks for a GPU runtime once a process.  conftest.py writes these results to $HIXL_WORK/nixl-python.tap ("1..0
# SKIP why" when all skip for one reason, e.g. no NIXL build)."""

import importlib.util
import os
import subprocess
import sys
import traceback

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location(
    "nixl_vllm", os.path.join(REPO, "tests", "nixl", "test_nixl_vllm.py"))
nixl_vllm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nixl_vllm)


@pytest.fixture(scope="module")
def results():
    """Run the two sides once: {index into CHECKS: (passed, why)}, and the
    error that stopped the decode side (None when it ran to the end)."""
    if os.environ.get("HIXL_TEST_TORCH") == "0":
        pytest.skip("HIXL_TEST_TORCH=0: the prefill side holds torch tensors, and importing "
                    "torch takes about a minute under TCG (make check: only in the stock 6.12 VM)")
    try:
        nixl_vllm.requirements()
        nixl_vllm.nixl_api()
    except nixl_vllm.Skip as e:
        pytest.skip(str(e))
    import torch  # noqa: F401  (imported before the fork: the prefill side has it)

    to_prefill = os.pipe()
    to_decode = os.pipe()
    pid = os.fork()
    if pid == 0:  # the prefill side: never returns into pytest
        code = 1
        try:
            os.close(to_prefill[1])
            os.close(to_decode[0])
            with os.fdopen(to_prefill[0], "rb") as inp, os.fdopen(to_decode[1], "wb") as out:
                nixl_vllm.prefill(inp, out)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(to_prefill[0])
    os.close(to_decode[1])
    got = {}
    error = None
    with os.fdopen(to_decode[0], "rb") as inp, os.fdopen(to_prefill[1], "wb") as out:
        try:
            nixl_vllm.decode(inp, out, lambda i, cond, why="": got.__setitem__(i, (bool(cond), why)))
        except Exception as e:
            error = "%s: %s" % (type(e).__name__, e)
    _, status = os.waitpid(pid, 0)
    if error is None and status != 0:
        error = "the prefill side exited with status %#x" % status
    return got, error


@pytest.mark.parametrize("i", range(len(nixl_vllm.CHECKS)), ids=[c[0] for c in nixl_vllm.CHECKS])
def test_nixl_vllm(results, i):
    got, error = results
    assert i in got, "%s: not reached (%s)" % (nixl_vllm.CHECKS[i][1], error)
    passed, why = got[i]
    assert passed, "%s: %s" % (nixl_vllm.CHECKS[i][1], why)


def test_nixl_vllm_cuda():
    """tests/nixl/test_nixl_vllm.py --cuda: every check passed."""
    try:
        nixl_vllm.requirements("cuda")
        nixl_vllm.nixl_api()
    except nixl_vllm.Skip as e:
        pytest.skip(str(e))
    r = subprocess.run([sys.executable, nixl_vllm.__file__, "--cuda"], capture_output=True,
                       text=True, timeout=300)
    out = r.stdout + r.stderr[-4000:]
    assert r.returncode == 0, out
    assert "1..%d" % len(nixl_vllm.CHECKS) in r.stdout and "not ok" not in r.stdout, out
