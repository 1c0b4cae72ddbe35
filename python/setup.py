# SPDX-License-Identifier: MIT
"""setup.py of the hixl package: the C extension hixl._hixl (the metadata is
in pyproject.toml).  It links libhixl-user by its soname
(libhixl-user.so.0) and bakes in no build path:

 - an installed library, found by pkg-config (hixl-user.pc: make install),
   is used first; a RUNPATH to its libdir only when that is outside the
   linker's default directories (e.g. /usr/local/lib);
 - else the tree's lib/ (after `make lib`): headers and libhixl-user.so
   from there, no RUNPATH - install the library (make install) or set
   LD_LIBRARY_PATH before importing.

    pip install --no-build-isolation --no-index ./python     # offline, a venv or the system

The project's own in-tree build is `make python` and `make install`
(docs/python.md).
"""

import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)
DEFAULT_LIBDIRS = {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu",
                   "/usr/lib/x86_64-linux-gnu"}


def pkg_config():
    """(include dirs, library dirs) of hixl-user.pc, or None without one"""
    try:
        out = subprocess.run(["pkg-config", "--cflags", "--libs", "hixl-user"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    flags = shlex.split(out)
    return ([f[2:] for f in flags if f.startswith("-I")],
            [f[2:] for f in flags if f.startswith("-L")])


def lib_flags():
    """(include dirs, library dirs, runtime library dirs)"""
    found = pkg_config()
    if found:
        incs, libs = found
        # at run time the library is where it is installed, not under a
        # staging root (PKG_CONFIG_SYSROOT_DIR, as packaging uses)
        root = os.environ.get("PKG_CONFIG_SYSROOT_DIR", "").rstrip("/")
        run = [d[len(root):] if root and d.startswith(root + "/") else d for d in libs]
        return incs, libs, [d for d in run if os.path.normpath(d) not in DEFAULT_LIBDIRS]
    if os.path.exists(os.path.join(TREE, "lib", "libhixl-user.so")):
        return ([os.path.join(TREE, "lib", "include"), os.path.join(TREE, "uapi")],
                [os.path.join(TREE, "lib")], [])
    raise SystemExit("hixl: no libhixl-user: install it (make install; pkg-config hixl-user) "
                     "or build the tree's (make lib)")


incs, libdirs, rpath = lib_flags()
setup(
    ext_modules=[Extension("hixl._hixl", ["hixl/_hixl.c", "hixl/_engine.c", "hixl/_request.c",
                                          "hixl/_descs.c"],
                           include_dirs=incs, library_dirs=libdirs, libraries=["hixl-user"],
                           runtime_library_dirs=rpath,
                           define_macros=[("_GNU_SOURCE", None)],
                           extra_compile_args=["-std=gnu11", "-fvisibility=hidden"])],
)
