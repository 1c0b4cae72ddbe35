# SPDX-License-Identifier: MIT
"""asyncio: 'await req' and Hixl.transfer() through the engine's event
descriptor (no thread), cancelling an awaiting task cancels the request,
Request.cancel() for synchronous code."""

import asyncio
import errno
import threading

import numpy as np

import hixl
from hixl import _aio

S = hixl.SUCCESS
T = 10000
BIG = 32 << 20		# a WRITE over rxe that takes a second or more under TCG


def rdma_pair(engines, nbytes):
    """two engines moving bytes over rxe (not the kernel's copy), a -> b
    connected, src on a and dst on b registered"""
    a, b = engines(2, options={hixl.OPTION_TRANSPORT: hixl.TRANSPORT_RDMA,
                               hixl.OPTION_AUTO_CONNECT: "1"})
    assert a.connect(b.name, timeout_in_millis=T) == S, hixl.last_error()
    src = np.random.default_rng(7).integers(0, 256, nbytes, dtype=np.uint8)
    dst = np.zeros(nbytes, np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    return a, b, src, dst


def test_await_requests(pair):
    a, b = pair
    src = np.random.default_rng(3).integers(0, 256, (8, 65536), dtype=np.uint8)
    dst, want = np.zeros_like(src), src.copy()
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    threads = threading.active_count()

    async def main():
        reqs = []
        for i in range(8):
            ret, req = a.transfer_async(b.name, hixl.WRITE,
                                        np.array([[src[i].ctypes.data, dst[i].ctypes.data,
                                                   65536]], dtype=np.uint64))
            assert ret == S, hixl.last_error()
            reqs.append(req)
        async def again(req):
            return await req
        sts = await asyncio.gather(*reqs, again(reqs[0]))	# reqs[0] awaited twice
        assert threading.active_count() == threads		# no helper thread
        return sts, await a.transfer(b.name, hixl.READ,
                                     np.array([[src[0].ctypes.data, dst[7].ctypes.data, 65536]],
                                              dtype=np.uint64))

    sts, ret = asyncio.run(main())
    assert sts == [hixl.TransferStatus.COMPLETED] * 9
    assert np.array_equal(dst, want)
    assert ret == S and np.array_equal(src[0], want[7])	# READ dst[7] back into src[0]
    assert not _aio._dispatchers				# nothing left in a loop


def test_transfer_failure_status(pair):
    a, b = pair
    src = np.ones(4096, np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S

    async def main():
        return await a.transfer(b.name, hixl.WRITE,
                                np.array([[src.ctypes.data, 0x1000, 4096]], np.uint64))
    assert asyncio.run(main()) == hixl.PARAM_INVALID
    assert "ERANGE" in hixl.last_error()


def test_cancel_awaiting_task(engines):
    a, b, src, dst = rdma_pair(engines, BIG)

    async def main():
        ret, req = a.transfer_async(b.name, hixl.WRITE, [hixl.TransferOpDesc(src, dst.ctypes.data)],
                                    hixl.TransferArgs(timeout_in_millis=120000))
        assert ret == S
        task = asyncio.ensure_future(_await(req))
        await asyncio.sleep(0.02)
        assert not task.done()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return req, True
        return req, False

    async def _await(req):
        return await req

    req, cancelled = asyncio.run(main())
    assert cancelled
    assert req.status() == (0, hixl.TransferStatus.FAILED)
    assert req.result()[0] == -errno.ECANCELED
    assert req.cancel() == -errno.EALREADY		# it had ended


def test_request_cancel_sync(engines):
    a, b, src, dst = rdma_pair(engines, BIG)
    ret, req = a.transfer_async(b.name, hixl.WRITE, [hixl.TransferOpDesc(src, dst.ctypes.data)],
                                hixl.TransferArgs(timeout_in_millis=120000))
    assert ret == S
    assert req.cancel() == 0
    assert req.status() == (0, hixl.TransferStatus.FAILED)
    assert req.result()[0] == -errno.ECANCELED
    # the link still works: a small transfer completes
    small = [hixl.TransferOpDesc(src.ctypes.data, dst.ctypes.data, 4096)]
    assert a.transfer_sync(b.name, hixl.WRITE, small, T) == S, hixl.last_error()
    assert np.array_equal(dst[:4096], src[:4096])


def test_foreign_events_do_not_spin(pair, monkeypatch):
    """a notification nobody fetches keeps a's descriptor readable: the
    dispatcher backs off instead of waking the loop without end"""
    a, b = pair
    assert b.connect(a.name, timeout_in_millis=T) in (S, hixl.ALREADY_CONNECTED)
    assert b.send_notify(a.name, hixl.NotifyDesc("n", "pending")) == S, hixl.last_error()
    src, dst = np.ones(4 << 20, np.uint8), np.zeros(4 << 20, np.uint8)
    assert a.register_mem(src, hixl.MEM_HOST)[0] == S
    assert b.register_mem(dst, hixl.MEM_HOST)[0] == S
    calls = []
    real = _aio._Dispatcher.check
    monkeypatch.setattr(_aio._Dispatcher, "check", lambda self: calls.append(1) or real(self))

    async def main():
        ret, req = a.transfer_async(b.name, hixl.WRITE, [hixl.TransferOpDesc(src, dst.ctypes.data)])
        assert ret == S
        return await req
    assert asyncio.run(main()) == hixl.TransferStatus.COMPLETED
    assert np.array_equal(dst, src)
    assert len(calls) < 50, len(calls)
    assert [n.notify_msg for n in a.get_notifies()[1]] == ["pending"]
