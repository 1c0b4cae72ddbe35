# SPDX-License-Identifier: MIT
"""setup.py of the hixl package, for pip/setuptools users: builds
hixl._hixl against libhixl-user, either the tree's (lib/, after `make lib`)
or an installed one found by pkg-config (hixl-user.pc).  The project's own
build is `make python` / `make install` (see docs/python.md).

    cd python && python3 setup.py build_ext --inplace
"""

import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)


def lib_flags():
    """(include dirs, library dirs, rpath) of the tree's library, else pkg-config's"""
    if os.path.exists(os.path.join(TREE, "lib", "libhixl-user.so")):
        return ([os.path.join(TREE, "lib", "include"), os.path.join(TREE, "uapi")],
                [os.path.join(TREE, "lib")], ["$ORIGIN/../../lib", os.path.join(TREE, "lib")])
    out = subprocess.run(["pkg-config", "--cflags", "--libs", "hixl-user"],
                         capture_output=True, text=True, check=True).stdout
    flags = shlex.split(out)
    incs = [f[2:] for f in flags if f.startswith("-I")]
    libs = [f[2:] for f in flags if f.startswith("-L")]
    return incs, libs, libs


incs, libdirs, rpath = lib_flags()
setup(
    name="hixl",
    version="0.3.0",
    description="HIXL's Python API over the hixl RDMA transfer engine (libhixl-user)",
    license="MIT",
    packages=["hixl"],
    ext_modules=[Extension("hixl._hixl", ["hixl/_hixl.c", "hixl/_engine.c", "hixl/_request.c"], include_dirs=incs,
                           library_dirs=libdirs, libraries=["hixl-user"],
                           runtime_library_dirs=rpath,
                           define_macros=[("_GNU_SOURCE", None)],
                           extra_compile_args=["-std=gnu11", "-fvisibility=hidden"])],
)
