# SPDX-License-Identifier: MIT
"""Hixl's links: connect, disconnect (and their asynchronous forms), the
connection states and link statistics; a base class of hixl.Hixl."""

import os

from . import _hixl
from ._common import _fail, _ms, _status, _str
from ._types import SUCCESS, FAILED, AsyncConnectStatus, LinkStat


class _Links:
    """hixl.Hixl's methods for links (see hixl.Hixl)."""


    def _name_timeout(self, fn, what, remote_engine, timeout_in_millis):
        remote = _str(remote_engine, "remote_engine")
        timeout = _ms(timeout_in_millis)
        eng = self._engine(what)
        if eng is None:
            return self._ret(FAILED)
        return self._ret(_status(getattr(eng, fn)(remote, timeout), "%s(%s)" % (what, remote),
                                 "hixl_" + fn))

    def connect(self, remote_engine, timeout_in_millis=1000):
        """Connect to a peer and exchange region tables (HIXL Connect); blocks
        without the GIL.

        remote_engine      str, the peer's initialize() name, with a port
        timeout_in_millis  ms, > 0 (default 1000)
        Returns SUCCESS; PARAM_INVALID a malformed name, port 0, timeout <= 0,
        a peer refusing this engine (AllowedPeers, AuthSecret);
        ALREADY_CONNECTED (also while a connect or disconnect to it runs);
        TIMEOUT; RESOURCE_EXHAUSTED 512 links; FAILED unreachable, refused,
        not initialized.
        """
        return self._name_timeout("connect", "connect", remote_engine, timeout_in_millis)

    def disconnect(self, remote_engine, timeout_in_millis=1000):
        """Tear down the link to a peer (HIXL Disconnect); blocks without the
        GIL.

        remote_engine      str, the peer's name
        timeout_in_millis  ms, > 0 (default 1000): the wait for a pending
                           asynchronous connect to it
        Returns SUCCESS; NOT_CONNECTED no link (also clearing a
        CONNECT_FAILED state); ALREADY_CONNECTED another disconnect runs;
        TIMEOUT; PARAM_INVALID; FAILED not initialized.
        """
        return self._name_timeout("disconnect", "disconnect", remote_engine, timeout_in_millis)

    def connect_async(self, remote_engine, timeout_in_millis=1000):
        """Start a connect and return at once (HIXL ConnectAsync); follow it
        with get_async_connect_status().

        Arguments as connect().  Returns SUCCESS when started;
        PARAM_INVALID; ALREADY_CONNECTED connected, or a connect or
        disconnect in progress; RESOURCE_EXHAUSTED no thread; FAILED not
        initialized.
        """
        return self._name_timeout("connect_async", "connect_async", remote_engine,
                                  timeout_in_millis)

    def disconnect_async(self, remote_engine, timeout_in_millis=1000):
        """Start a disconnect and return at once (HIXL DisconnectAsync): the
        peer shows DISCONNECT_PENDING or DISCONNECTING, then NOT_CONNECT.

        Arguments as disconnect().  Returns SUCCESS when started;
        NOT_CONNECTED no link and no connect pending; ALREADY_CONNECTED a
        disconnect already runs; PARAM_INVALID; FAILED not initialized.
        """
        return self._name_timeout("disconnect_async", "disconnect_async", remote_engine,
                                  timeout_in_millis)

    def get_async_connect_status(self, remote_engine):
        """The state of the link to a peer (HIXL GetAsyncConnectStatus).

        remote_engine  str, the peer's name
        Returns (SUCCESS, AsyncConnectStatus): NOT_CONNECT for a peer never
        connected; CONNECT_FAILED after a failed connect_async() (the status
        says the query worked; last_error() says why the connect failed).
        (PARAM_INVALID, NOT_CONNECT) for a malformed name, (FAILED,
        NOT_CONNECT) when not initialized.
        """
        remote = _str(remote_engine, "remote_engine")
        eng = self._engine("get_async_connect_status")
        if eng is None:
            return self._ret(FAILED), AsyncConnectStatus.NOT_CONNECT
        err, st = eng.get_connect_status(remote)
        st = AsyncConnectStatus(st)
        if err and st == AsyncConnectStatus.CONNECT_FAILED:
            _fail(SUCCESS, "connect_async(%s) failed: %s (-%s)"
                  % (remote, os.strerror(-err), _hixl.errno_name(err)))
            err = 0
        return self._ret(_status(err, "get_async_connect_status(%s)" % remote)), st

    def get_all_async_connect_status(self):
        """The state of every peer with a link, a connect or disconnect in
        progress or a failed asynchronous connect (HIXL's
        GetAsyncConnectStatus(map)).

        Returns (SUCCESS, {name: AsyncConnectStatus}), names as
        "ip:port"/"[ipv6]:port"; (FAILED, {}) when not initialized.
        """
        eng = self._engine("get_all_async_connect_status")
        if eng is None:
            return self._ret(FAILED), {}
        err, entries = eng.get_all_connect_status()
        statuses = {name: AsyncConnectStatus(st) for name, st, _ in entries}
        return self._ret(_status(err, "get_all_async_connect_status")), statuses

    def get_link_stats(self):
        """Every link of the engine with its counters (hixl extension; C:
        hixl_engine_link_stats()).

        Returns (SUCCESS, [LinkStat]), oldest link first: LinkStat.local
        says the link is paired with an engine of this kernel (transfers
        of registered memory are the kernel's CPU copy, see
        OPTION_TRANSPORT), LinkStat.local_bytes / local_ops how much it
        copied so.  (FAILED, []) when not initialized.
        """
        eng = self._engine("get_link_stats")
        if eng is None:
            return self._ret(FAILED), []
        err, entries = eng.link_stats()
        links = [LinkStat(*e) for e in entries]
        return self._ret(_status(err, "get_link_stats", "hixl_engine_link_stats")), links
