# SPDX-License-Identifier: MIT
"""asyncio for hixl requests: 'await req' and Hixl.transfer().

An engine's event descriptor (hixl_engine_event_fd(): readable while one of
its requests has ended and no status call has reported it yet, or while
notifications wait) goes into the running loop with loop.add_reader(), once
per engine and loop; no thread, no timer while it is quiet.  When it turns
readable, every awaited request of that engine is asked for its status (the
call that reports an end, and so resets the descriptor); the tasks of those
that ended resume.  Cancelling an awaiting task cancels the request
(hixl_request_cancel(): it revokes the link's work when it can, see
hixl_request_cancel(3)) before the CancelledError goes on.

The descriptor is level-triggered and shared: a readable descriptor whose
events no awaiting task consumes (notifications nobody fetched, requests
that ended and are queried by nobody) would wake the loop again and again.
The dispatcher therefore takes itself off the descriptor when a wake-up
ended none of its requests and looks again after 1 ms, doubling up to
50 ms, until one of its requests ends: fetch notifications
(get_notifies()) and query requests to keep it on the descriptor.
"""

import asyncio

_WAITING, _BACKOFF_FIRST, _BACKOFF_MAX = 0, 0.001, 0.05


class _Dispatcher:
    """the awaited requests of one engine in one loop, and its reader"""

    def __init__(self, loop, engine, fd):
        self.loop, self.engine, self.fd = loop, engine, fd
        self.waiters = {}	# Request -> [Future]: a request may be awaited twice
        self.reading = False
        self.backoff = _BACKOFF_FIRST
        self.timer = None

    def add(self, req, fut):
        self.waiters.setdefault(req, []).append(fut)
        self.check()		# it may have ended already
        self._arm()

    def discard(self, req, fut):
        futs = self.waiters.get(req, [])
        if fut in futs:
            futs.remove(fut)
        if not futs:
            self.waiters.pop(req, None)
        if not self.waiters:
            self._disarm()

    def _arm(self):
        if self.waiters and not self.reading and self.timer is None:
            self.loop.add_reader(self.fd, self._readable)
            self.reading = True

    def _disarm(self):
        if self.reading:
            self.loop.remove_reader(self.fd)
            self.reading = False
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def check(self):
        """resume the tasks of the requests that ended; how many did"""
        ended = 0
        for req, futs in list(self.waiters.items()):
            err, st = req.status()
            if err == 0 and st == _WAITING:
                continue
            del self.waiters[req]
            ended += 1
            for fut in futs:
                if fut.done():
                    continue
                if err:
                    fut.set_exception(OSError(-err, "status of %r: %d" % (req, err)))
                else:
                    fut.set_result(st)
        return ended

    def _readable(self):
        if self.check():
            self.backoff = _BACKOFF_FIRST
            if not self.waiters:
                self._disarm()
            return
        # readable for events of nobody here: off the descriptor for a while
        self._disarm()
        if self.waiters:
            self.timer = self.loop.call_later(self.backoff, self._again)
            self.backoff = min(self.backoff * 2, _BACKOFF_MAX)

    def _again(self):
        self.timer = None
        if self.check():
            self.backoff = _BACKOFF_FIRST
        self._arm()


_dispatchers = {}	# (loop, engine) -> _Dispatcher


def _dispatcher(loop, engine):
    key = (loop, id(engine))
    d = _dispatchers.get(key)
    if d is None or d.engine is not engine:
        fd = engine.event_fd()
        if fd < 0:
            raise OSError(-fd, "hixl_engine_event_fd: %d" % fd)
        d = _Dispatcher(loop, engine, fd)
        _dispatchers[key] = d
    return d


async def wait(req):
    """Wait in the running loop until req (a hixl.Request) has ended;
    'await req' calls this.

    Returns its TransferStatus: COMPLETED, TIMEOUT or FAILED (req.result()
    says why).  Raises OSError when the engine was finalized meanwhile
    (ESHUTDOWN) or its event descriptor cannot be made.  Cancelling the
    awaiting task cancels the request (req.cancel()), then raises
    CancelledError as usual.
    """
    from ._types import TransferStatus
    loop = asyncio.get_running_loop()
    engine = req.engine
    d = _dispatcher(loop, engine)
    fut = loop.create_future()
    d.add(req, fut)
    try:
        st = await fut
    except asyncio.CancelledError:
        d.discard(req, fut)
        req.cancel()
        raise
    finally:
        if not d.waiters:
            d._disarm()
            _dispatchers.pop((loop, id(engine)), None)
    return TransferStatus(st)
