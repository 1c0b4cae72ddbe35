# SPDX-License-Identifier: MIT
"""Why initialize() failed, in words a user can act on: the one
hixl.HixlWarning that Hixl.initialize() and hixl.mooncake's initialize()
emit when the engine cannot be set up because hixl.ko is missing, /dev/hixl
is not accessible, an option or environment variable is bad, or the address
has no RDMA device.  The checks of options and variables follow
libhixl-user's (lib/engine.c setup_options(): parse_pool, parse_tc,
parse_sl, parse_transport, parse_bool, parse_rails), which says only
"Invalid argument".
"""

import errno
import ipaddress
import os
import warnings

from ._types import HixlWarning

_POOL_MAX_BUFFERS = 256		# HIXL_MAX_POOL_BUFFERS (uapi/rdma/hixl.h)
_POOL_MAX_MB = 1024		# HIXL_MAX_POOL_BUFFER_MB
_MAX_RAILS = 8			# HIXL_MAX_RAILS: rail 0 plus 7 listed

_ASCEND_ONLY = ("EnableUseFabricMem", "GlobalResourceConfig", "LocalCommRes")
_AUTH_KEYS = ("AllowedPeers", "AuthSecret", "AuthSecretFile")


def _uint(s, top):
    return s.isdigit() and s.isascii() and int(s) <= top


def _tc(v):
    return None if _uint(v, 255) and int(v) % 4 == 0 else \
        "a traffic class 0..255, a multiple of 4 (default 132)"


def _sl(v):
    return None if _uint(v, 7) else "a service level 0..7 (default 4)"


def _pool(v):
    n, sep, mb = v.partition(":")
    if sep and _uint(n, _POOL_MAX_BUFFERS) and _uint(mb, _POOL_MAX_MB) and \
            (int(n) == 0) == (int(mb) == 0):
        return None
    return '"N:SIZE_MB", N 0..%d buffers of 0..%d MiB, both 0 or neither (default "4:8")' \
        % (_POOL_MAX_BUFFERS, _POOL_MAX_MB)


def _transport(v):
    return None if v in ("auto", "rdma", "local") else '"auto", "rdma" or "local"'


def _bool(v):
    return None if v in ("1", "true", "0", "false") else '"1"/"true" or "0"/"false"'


def _rails(v):
    if v in ("auto", ""):
        return None
    want = '"auto" or a comma-separated list of up to %d local IP addresses, no port' \
        % (_MAX_RAILS - 1)
    parts = v.split(",")
    if len(parts) > _MAX_RAILS - 1:
        return want
    for p in parts:
        try:
            ipaddress.ip_address(p)
        except ValueError:
            return want
    return None


_OPTIONS = {"BufferPool": _pool, "RdmaTrafficClass": _tc, "RdmaServiceLevel": _sl,
            "Transport": _transport, "Rails": _rails, "AutoConnect": _bool}
# (variable, the option that overrides it, check), in lib/engine.c's order
_ENV = (("HIXL_RDMA_TC", "RdmaTrafficClass", _tc), ("HCCL_RDMA_TC", "RdmaTrafficClass", _tc),
        ("HIXL_RDMA_SL", "RdmaServiceLevel", _sl), ("HCCL_RDMA_SL", "RdmaServiceLevel", _sl),
        ("HIXL_AUTO_CONNECT", "AutoConnect", _bool), ("HIXL_TRANSPORT", "Transport", _transport),
        ("HIXL_RAILS", "Rails", _rails))


def bad_option(options, environ=None):
    """The first option or environment variable libhixl-user refuses, as
    one line naming it, its value and what is allowed; None when every one
    looks valid (the name itself, an auth option or the kernel refused).

    options  list of (key, value) str pairs, as given to initialize()
    environ  mapping of the environment (default os.environ)
    """
    env = os.environ if environ is None else environ
    keys = set()
    for key, value in options:
        keys.add(key)
        if key in _ASCEND_ONLY:
            return "option %r is Ascend-only (HCCS/HCCL): hixl has no such resource; " \
                   "leave it out" % key
        check = _OPTIONS.get(key)
        if check is None:
            if key in _AUTH_KEYS:
                continue
            return "option %r is not an option of hixl; the keys are %s" \
                % (key, ", ".join(sorted(list(_OPTIONS) + list(_AUTH_KEYS))))
        want = check(value)
        if want:
            return "option %s=%r: expected %s" % (key, value, want)
    seen = set()
    for var, key, check in _ENV:
        if key in keys or key in seen or var not in env:
            continue
        seen.add(key)		# HIXL_x wins over HCCL_x: only the first set counts
        want = check(env[var])
        if want:
            return "environment variable %s=%r: expected %s (unset it, or give option " \
                   "%s, which wins)" % (var, env[var], want, key)
    return None


def bad_name(name):
    """What is wrong with an engine name ("ip", "ip:port", "[ipv6]",
    "[ipv6]:port", port 0..65535; lib/name.c), one line; None if nothing."""
    host, port = name, None
    if name.startswith("["):
        host, sep, rest = name[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            host = None
        elif rest:
            port = rest[1:]
    elif name.count(":") == 1:
        host, port = name.split(":")
    try:
        ok = host is not None and ipaddress.ip_address(host) is not None
    except ValueError:
        ok = False
    if ok and (port is None or _uint(port, 65535)):
        return None
    return "the engine name %r is not \"ip\", \"ip:port\", \"[ipv6]\" or " \
           "\"[ipv6]:port\" (port 0..65535; 0: one the kernel picks)" % name


def init_warning(err, name, options, library_message, hint):
    """The text of the HixlWarning for an initialize() that failed with err
    (a negative errno), or None when the failure is not one the user fixes
    outside the program (a taken port, a timeout, ...).

    name             the local engine name given
    options          list of (key, value) pairs given
    library_message  hixl.last_error() of the failure
    hint             hixl.error_hint(err)
    """
    if err == -errno.ENOPKG:
        cause = "the kernel module hixl.ko is not loaded (no /dev/hixl)"
    elif err == -errno.EPERM:
        cause = "/dev/hixl is not accessible to this user (it belongs to the group hixl)"
    elif err == -errno.EINVAL:
        what = bad_name(name) or bad_option(options)
        return "hixl: initialize(%s) failed: %s" % (name, what) if what else None
    elif err in (-errno.ENODEV, -errno.EADDRNOTAVAIL):
        cause = "no RDMA device has the address %s" % name
    else:
        return None
    text = "hixl: initialize(%s) failed: %s" % (name, cause)
    return text + ". Fix: " + hint if hint else text


def warn_init(err, name, options, library_message, hint, stacklevel=3):
    """Emit the one HixlWarning of a failed initialize() (init_warning()),
    if any; returns whether one was emitted."""
    text = init_warning(err, name, options, library_message, hint)
    if text:
        warnings.warn(text, HixlWarning, stacklevel=stacklevel)
    return bool(text)
