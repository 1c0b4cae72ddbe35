# SPDX-License-Identifier: MIT
"""Why initialize() failed, in words a user can act on: the one
hixl.HixlWarning that Hixl.initialize() and hixl.mooncake's initialize()
emit when the engine cannot be set up because hixl.ko is missing, /dev/hixl
is not accessible, an option, environment variable or the engine name is
bad, or the address has no RDMA device.  The cause is libhixl-user's own
message (hixl_last_error() of hixl_engine_init(), lib/engine.c: it names the
option or variable, its value and what it accepts); this module only picks
the failures worth a warning and adds the fix where the message has none.
"""

import errno
import re
import warnings

from ._types import HixlWarning

# HIXL's options for Ascend resources (HCCS/HCCL): the library calls them
# unknown; the warning says why they have no meaning here
_ASCEND_ONLY = ("EnableUseFabricMem", "GlobalResourceConfig", "LocalCommRes")
_PREFIX = "hixl_engine_init("
# the errno the library appends ("...: Invalid argument (-EINVAL)"): the
# cause before it says more
_ERRNO_TAIL = re.compile(r": [^:]+ \(-E[A-Z0-9]+\)$")


def _library_cause(name, message):
    """The library's message without its "hixl_engine_init(NAME): " prefix;
    None when it is not hixl_engine_init()'s."""
    if message.startswith(_PREFIX + name + "): "):
        return message[len(_PREFIX + name + "): "):]
    if message.startswith(_PREFIX):
        _, sep, rest = message.partition("): ")
        if sep:
            return rest
    return None


def init_warning(err, name, options, library_message, hint):
    """The text of the HixlWarning for an initialize() that failed with err
    (a negative errno), or None when the failure is not one the user fixes
    outside the program (a taken port, a timeout, ...) or the library gave
    no cause.

    name             the local engine name given
    options          list of (key, value) pairs given
    library_message  hixl.last_error() of the failure (hixl_engine_init()'s)
    hint             hixl.error_hint(err): added for a missing RDMA device,
                     whose library message gives no fix
    """
    if err not in (-errno.ENOPKG, -errno.EPERM, -errno.EINVAL, -errno.ENODEV,
                   -errno.EADDRNOTAVAIL):
        return None
    cause = _library_cause(name, library_message or "")
    if cause:
        cause = _ERRNO_TAIL.sub("", cause) or cause
    if not cause:
        return None
    text = "hixl: initialize(%s) failed: %s" % (name, cause)
    if err == -errno.EINVAL:
        ascend = [k for k, _ in options if k in _ASCEND_ONLY]
        if ascend:
            text += "; %s: Ascend-only (HCCS/HCCL), hixl has no such resource: leave it out" \
                % ", ".join(ascend)
        return text
    if err in (-errno.ENODEV, -errno.EADDRNOTAVAIL) and hint:
        text += ". Fix: " + hint
    return text


def warn_init(err, name, options, library_message, hint, stacklevel=3):
    """Emit the one HixlWarning of a failed initialize() (init_warning()),
    if any; returns whether one was emitted."""
    text = init_warning(err, name, options, library_message, hint)
    if text:
        warnings.warn(text, HixlWarning, stacklevel=stacklevel)
    return bool(text)
