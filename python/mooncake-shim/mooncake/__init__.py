# SPDX-License-Identifier: MIT
"""mooncake - not Mooncake: hixl's stand-in for Mooncake's package, so that
`from mooncake.engine import TransferEngine` gives hixl.mooncake's
TransferEngine (python/mooncake-shim in the hixl tree; docs/python.md).
Only `mooncake.engine` is here: no Mooncake Store, no EP, no CLI.

__hixl__ is hixl's version: code that must tell the two apart checks
getattr(mooncake, "__hixl__", None).
"""

from hixl import __version__ as __hixl__

__all__ = ["__hixl__"]
