# SPDX-License-Identifier: MIT
"""hixl.hixl: the name HIXL's package gives its extension module ("from
hixl.hixl import Hixl" works there); the same names as the hixl package."""

from hixl import *  # noqa: F401,F403
from hixl import __all__  # noqa: F401
