# SPDX-License-Identifier: MIT
"""Hixl's transfers (transfer_sync, transfer_async and their statuses,
asyncio's awaitable form) and notifications; a base class of hixl.Hixl."""

from . import _hixl
from ._common import ASYNC_TIMEOUT_MS, _EINPROGRESS, _bytes, _fail, _int, _ms, _status, _str, \
    _text
from ._types import (
    SUCCESS, PARAM_INVALID, FAILED, TransferStatus, TransferArgs, GetTransferStatusArgs,
    TransferResult, NotifyDesc,
)


class _Transfers:
    """hixl.Hixl's methods for transfers and notifications (see hixl.Hixl)."""


    def transfer_sync(self, remote_engine, op, op_descs, timeout_in_millis=1000):
        """One READ or WRITE batch to a connected peer (HIXL TransferSync);
        blocks without the GIL.

        remote_engine      str, the peer's name
        op                 TransferOp.READ (remote -> local) or WRITE
        op_descs           list of TransferOpDesc (any sequence of objects
                           with local_addr, remote_addr, len), >= 1; each
                           range inside one registration (local: of this
                           engine; remote: of the peer).  hixl's, without
                           per-descriptor Python work: an OpDescs
                           (OpDescs.from_arrays(), OpDescs.from_blocks()),
                           an (n, 3) integer array (numpy, array.array,
                           memoryview) of rows (local_addr, remote_addr,
                           len), or a tuple of three integer arrays
        timeout_in_millis  ms, > 0 (default 1000), for the whole batch
        Local memory that is not registered goes through the engine's
        staging pool (OPTION_BUFFER_POOL, HIXL's relay).
        Returns SUCCESS when every descriptor completed; PARAM_INVALID an
        empty list, len 0, a bad op, a remote range the peer did not
        register, unregistered local memory without a staging pool, a
        read-only region written; NOT_CONNECTED no link (and
        OPTION_AUTO_CONNECT off); TIMEOUT (the link is then broken);
        RESOURCE_EXHAUSTED; FAILED a broken link, still connecting, not
        initialized.  Raises TypeError for a descriptor field that is not an
        int in 0..2**64-1 or a buffer object, or a non-integer array;
        ValueError for an array of another shape, arrays of different
        lengths or a negative value.
        """
        remote = _str(remote_engine, "remote_engine")
        opv = _int(op, "op")
        timeout = _ms(timeout_in_millis)
        eng = self._engine("transfer_sync")
        if eng is None:
            return self._ret(FAILED)
        err, _failed = eng.transfer_sync(remote, opv, op_descs, timeout)
        return self._ret(_status(err, "transfer_sync(%s)" % remote, "hixl_transfer_sync"))

    def transfer_async(self, remote_engine, op, op_descs, args=None):
        """Queue a READ or WRITE batch and return at once (HIXL
        TransferAsync).

        remote_engine, op, op_descs  as transfer_sync() (op_descs is copied)
        args  TransferArgs: user_data, any object (default 0), given back by
              get_all_transfer_status(); hixl's timeout_in_millis, ms > 0
              (default ASYNC_TIMEOUT_MS, 60000), counted from this call
        Returns (SUCCESS, Request): query it with get_transfer_status();
        int(req) is an int handle get_transfer_status() also takes.  Keep
        the Request while you care about the transfer: dropping it frees the
        request (a WAITING one runs on, detached).  On failure (status, 0):
        PARAM_INVALID an empty list, a bad op or timeout, a malformed name;
        RESOURCE_EXHAUSTED; FAILED no thread or ring slot, finalizing, not
        initialized.  Descriptor errors and a missing link (NOT_CONNECTED)
        end the request FAILED instead.
        """
        remote = _str(remote_engine, "remote_engine")
        opv = _int(op, "op")
        if args is None:
            args = TransferArgs()
        timeout = _ms(getattr(args, "timeout_in_millis", ASYNC_TIMEOUT_MS))
        eng = self._engine("transfer_async")
        if eng is None:
            return self._ret(FAILED), 0
        err, req = eng.transfer_async(remote, opv, op_descs, timeout, args.user_data)
        if err:
            return self._ret(_status(err, "transfer_async(%s)" % remote,
                                         "hixl_transfer_async")), 0
        self._reqs[int(req)] = req
        return SUCCESS, req

    async def transfer(self, remote_engine, op, op_descs, timeout_in_millis=ASYNC_TIMEOUT_MS):
        """hixl's: one READ or WRITE batch awaited in the running asyncio
        loop: transfer_async(), then 'await req' (the engine's event
        descriptor in the loop: no thread, no polling; see hixl._aio).

        Arguments as transfer_async(); timeout_in_millis ms > 0 (default
        ASYNC_TIMEOUT_MS).  Returns SUCCESS when every descriptor completed,
        else the status transfer_sync() would give (TIMEOUT, PARAM_INVALID,
        NOT_CONNECTED, FAILED, ...; last_error() says why).  Cancelling the
        awaiting task cancels the transfer (Request.cancel(): the request
        ends, its buffers are free to reuse) and raises CancelledError.
        Raises TypeError, ValueError as transfer_async().
        """
        ret, req = self.transfer_async(remote_engine, op, op_descs,
                                       TransferArgs(timeout_in_millis=timeout_in_millis))
        if ret != SUCCESS:
            return ret
        st = await req
        if st == TransferStatus.COMPLETED:
            return SUCCESS
        err, _failed = req.result()
        return self._ret(_status(err, "transfer(%s)" % remote_engine))

    def _request(self, req):
        if isinstance(req, _hixl.Request):
            return req if self._reqs.get(int(req)) is req else None
        return self._reqs.get(_int(req, "req"))

    def get_transfer_status(self, req):
        """The state of an asynchronous transfer (HIXL GetTransferStatus).

        req  the Request transfer_async() returned, or its int handle
        Returns (SUCCESS, TransferStatus); the request stays queryable until
        dropped.  (PARAM_INVALID, FAILED) for a request of no live transfer
        of this engine (0 included); (FAILED, FAILED) when not initialized.
        """
        eng = self._engine("get_transfer_status")
        if eng is None:
            return self._ret(FAILED), TransferStatus.FAILED
        request = self._request(req)
        if request is None:
            return self._ret(_fail(PARAM_INVALID, "get_transfer_status: unknown request %r"
                                   % (req,))), TransferStatus.FAILED
        err, st = request.status()
        return self._ret(_status(err, "get_transfer_status")), TransferStatus(st)

    def get_all_transfer_status(self, args=None):
        """The engine's asynchronous requests and their states, oldest first
        (HIXL's GetTransferStatus(args, results)).

        args  GetTransferStatusArgs: max_query_count, requests to return at
              most (default 2**32-1); skip_waiting, True to leave WAITING
              requests out
        A request that ended is returned once: later calls leave it out.
        Requests dropped by the caller are not listed.  Returns (SUCCESS,
        [TransferResult]), each with the Request as req, its user_data, its
        status and (hixl's) error, the status it ended with; (FAILED, []) when
        not initialized.
        """
        if args is None:
            args = GetTransferStatusArgs()
        flags = _hixl.QUERY_SKIP_WAITING if args.skip_waiting else 0
        limit = _int(args.max_query_count, "max_query_count")
        eng = self._engine("get_all_transfer_status")
        if eng is None:
            return self._ret(FAILED), []
        err, items = eng.get_all_transfer_status(flags, max(0, limit))
        results = []
        for req, st, rerr in items:
            code = SUCCESS if rerr in (0, -_EINPROGRESS) else _hixl.status_code(rerr)
            results.append(TransferResult(req, req.user_data, st, code))
        return self._ret(_status(err, "get_all_transfer_status")), results

    # ---- notifications -------------------------------------------------------

    def send_notify(self, remote_engine, notify, timeout_in_millis=1000):
        """Send a small message to a connected peer (HIXL SendNotify);
        blocks without the GIL until the peer's adapter holds it.

        remote_engine      str, the peer's name
        notify             NotifyDesc: name 1..1024 bytes (UTF-8), no NUL;
                           notify_msg 0..1024 bytes
        timeout_in_millis  ms, > 0 (default 1000); checked, the module
                           bounds the send itself (10 s)
        Returns SUCCESS; PARAM_INVALID empty or long name, long message,
        timeout <= 0; NOT_CONNECTED no link; NOTIFY_FAILED the link broke;
        FAILED still connecting, not initialized.  Raises TypeError when
        notify is no NotifyDesc or its fields are neither str nor bytes.
        """
        remote = _str(remote_engine, "remote_engine")
        if not isinstance(notify, NotifyDesc):
            raise TypeError("notify must be a NotifyDesc, got %s" % type(notify).__name__)
        name = _bytes(notify.name, "name")
        msg = _bytes(notify.notify_msg, "notify_msg")
        timeout = _ms(timeout_in_millis)
        eng = self._engine("send_notify")
        if eng is None:
            return self._ret(FAILED)
        return self._ret(_status(eng.send_notify(remote, name, msg, timeout),
                                 "send_notify(%s)" % remote, "hixl_send_notify"))

    def get_notifies(self):
        """Fetch every notification received so far, oldest first, without
        waiting (HIXL GetNotifies).

        Returns (SUCCESS, [NotifyDesc]) with name, notify_msg (str) and
        (hixl's) remote_engine, the sender; (FAILED, []) when not
        initialized.  Notifications dropped because a queue was full (4096
        per link) are counted in the notifies_dropped attribute.
        """
        eng = self._engine("get_notifies")
        if eng is None:
            return self._ret(FAILED), []
        err, items, dropped = eng.get_notifies()
        self.notifies_dropped += dropped
        notifies = [NotifyDesc(_text(name), _text(msg), sender) for sender, name, msg in items]
        return self._ret(_status(err, "get_notifies")), notifies
