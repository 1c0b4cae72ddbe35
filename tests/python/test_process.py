# SPDX-License-Identifier: MIT
"""Two processes: a child engine registers two numpy buffers and waits for a
notification; this process WRITEs one, READs the other, notifies, and both
sides check every byte."""

import os
import subprocess
import sys

import numpy as np

import hixl
from conftest import REPO, Engine, name, next_port

N = 1 << 20
CHILD = r"""
import sys, time
import numpy as np
import hixl
N = 1 << 20
h = hixl.Hixl()
ret = h.initialize(sys.argv[1])
inbox = np.zeros(N, dtype=np.uint8)
outbox = (np.arange(N) * 13 % 241).astype(np.uint8)
r1, _ = h.register_mem(inbox, hixl.MEM_HOST)
r2, _ = h.register_mem(outbox, hixl.MEM_HOST)
print(ret, r1, r2, inbox.ctypes.data, outbox.ctypes.data, flush=True)
notes, deadline = [], time.monotonic() + 120
while not notes and time.monotonic() < deadline:
    notes = h.get_notifies()[1]
    time.sleep(0.005)
want = (np.arange(N) * 7 % 251).astype(np.uint8)
ok = [(n.name, n.notify_msg) for n in notes] == [("written", str(N))] and np.array_equal(inbox, want)
print("child:", "ok" if ok else "BAD %r" % notes, flush=True)
h.finalize()
sys.exit(0 if ok else 1)
"""


def test_two_processes(dev):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("HIXL_PY_INSTALLED") != "1":
        env["PYTHONPATH"] = os.path.join(REPO, "python")
    child_name = name(next_port())
    child = subprocess.Popen([sys.executable, "-c", CHILD, child_name], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        first = child.stdout.readline().split()
        assert first[:3] == ["0", "0", "0"], first + [child.stdout.read()]
        inbox, outbox = int(first[3]), int(first[4])
        me = Engine()
        src = (np.arange(N) * 7 % 251).astype(np.uint8)
        back = np.zeros(N, dtype=np.uint8)
        assert me.register_mem(src, hixl.MEM_HOST)[0] == hixl.SUCCESS
        assert me.register_mem(back, hixl.MEM_HOST)[0] == hixl.SUCCESS
        assert me.connect(child_name, 10000) == hixl.SUCCESS, hixl.last_error()
        assert me.transfer_sync(child_name, hixl.WRITE, [hixl.TransferOpDesc(src, inbox)],
                                10000) == hixl.SUCCESS, hixl.last_error()
        assert me.transfer_sync(child_name, hixl.READ, [hixl.TransferOpDesc(back, outbox)],
                                10000) == hixl.SUCCESS, hixl.last_error()
        assert np.array_equal(back, (np.arange(N) * 13 % 241).astype(np.uint8))
        assert me.send_notify(child_name, hixl.NotifyDesc("written", str(N))) == hixl.SUCCESS
        out, _ = child.communicate(timeout=180)
        assert child.returncode == 0 and "child: ok" in out, out
        me.finalize()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
