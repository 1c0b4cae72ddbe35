# SPDX-License-Identifier: MIT
"""The hixl package's module-level functions (version, status_name,
last_error, strerror, error_hint, check, get_capability) and the helpers
the Hixl methods share: statuses from the C library's -errno, this
package's own failure messages (per thread, last_error()), argument checks.
"""

import threading

from . import _hixl
from ._types import (
    SUCCESS, PARAM_INVALID, FAILED, STATUS_NAMES, FEATURE_NOT_SUPPORTED, HixlError,
)

_INT_MAX = (1 << 31) - 1
_EINPROGRESS = _hixl.EINPROGRESS
_ESHUTDOWN = _hixl.ESHUTDOWN
_tls = threading.local()

#: default timeout of transfer_async(), ms (TransferArgs.timeout_in_millis)
ASYNC_TIMEOUT_MS = 60000


def version():
    """The libhixl-user version, a str such as "0.3.0"."""
    return _hixl.version()


def status_name(status):
    """The name of a HIXL status code ("NOT_CONNECTED"), "UNKNOWN" otherwise."""
    return STATUS_NAMES.get(status, "UNKNOWN")


def last_error():
    """What the last failing call of this thread said, a str ("" if none):
    libhixl-user's hixl_last_error() for failures of the library, e.g.
    "hixl_connect(10.77.0.2:16000): Connection refused (-ECONNREFUSED)", or
    this package's own line for failures it found first (not initialized,
    finalized, a bad argument value)."""
    msg = getattr(_tls, "msg", None)
    return msg if msg is not None else _hixl.last_error()


def strerror(err):
    """What an errno value (negative, as the C library returns it, or
    positive) means in hixl, one line: libhixl-user's hixl_strerror(), e.g.
    strerror(-errno.ERANGE) "the remote range is not inside a region the peer
    registered"."""
    return _hixl.strerror(_int(err, "err"))


def error_hint(err):
    """What to do about an errno value when the fix lies outside the program
    (hixl_error_hint()): e.g. error_hint(-errno.ENOPKG) says how to load
    hixl.ko; "" when there is none."""
    return _hixl.error_hint(_int(err, "err"))


def check(result):
    """Raise HixlError unless a call succeeded; else return its value.

    result  a status (int), or a (status, value) tuple as the Hixl methods
            return, e.g. hixl.check(engine.register_mem(desc, MEM_HOST))
    Returns None for a bare status, value for a pair (the rest of a longer
    tuple as a tuple).  Raises HixlError(status, last_error()).
    """
    if isinstance(result, tuple):
        status, rest = result[0], result[1:]
        value = rest[0] if len(rest) == 1 else rest
    else:
        status, value = result, None
    if status != SUCCESS:
        raise HixlError(status, last_error())
    return value


def get_capability(feature_type):
    """Whether the library has a feature (HIXL get_capability), before or
    without initialize().

    feature_type  a FeatureType (or int)
    Returns (SUCCESS, FEATURE_SUPPORTED or FEATURE_NOT_SUPPORTED): an unknown
    feature is FEATURE_NOT_SUPPORTED; (PARAM_INVALID, FEATURE_NOT_SUPPORTED)
    for a negative one.  Raises TypeError for a non-int.
    """
    feature = _int(feature_type, "feature_type")
    if feature < 0 or feature > _INT_MAX:
        return _fail(PARAM_INVALID, "get_capability: feature_type %d out of range" % feature), \
            FEATURE_NOT_SUPPORTED
    err, value = _hixl.get_capability(feature)
    return _status(err, "get_capability"), value


# ---- helpers ------------------------------------------------------------------

def _fail(status, message):
    """a failure this package found: record its message, return status"""
    _tls.msg = message
    return status


def _status(err, what, cfn=None):
    """HIXL's status for a C return value (0 or -errno) of a call described
    by what; the library's own message is kept when it names cfn, the C
    function that records failures (not every one does)"""
    if err == 0:
        return SUCCESS
    if err == -_ESHUTDOWN:
        return _fail(FAILED, "%s: the engine was finalized" % what)
    if cfn and _hixl.last_error().startswith(cfn + "("):
        _tls.msg = None
    else:
        _tls.msg = "%s: %s (-%s)" % (what, _hixl.strerror(err), _hixl.errno_name(err))
    return _hixl.status_code(err)


def _int(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    return int(value)


def _str(value, name):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    return value


def _ms(value, name="timeout_in_millis"):
    """a timeout in ms for C: clamped to -1..INT_MAX (<= 0 is PARAM_INVALID)"""
    return max(-1, min(_int(value, name), _INT_MAX))


def _bytes(value, name):
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError("%s must be str or bytes, got %s" % (name, type(value).__name__))


def _text(raw):
    return raw.decode("utf-8", "surrogateescape")
