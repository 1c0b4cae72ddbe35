# SPDX-License-Identifier: MIT
"""python -m hixl: the package's and the library's version, whether hixl.ko
is loaded and /dev/hixl usable by this user, and the preflight of
`hixlctl check` (RDMA devices, huge pages, limits) when hixlctl is
installed.  Exit status 0 when /dev/hixl is usable and the preflight (if
run) passed, 1 otherwise.

    python -m hixl [--size SIZE]      # SIZE: as hixlctl check --size (e.g. 16G)
"""

import argparse
import os
import shutil
import subprocess
import sys

DEV = "/dev/hixl"


def module_status():
    """(ok, one line): is hixl.ko loaded, /dev/hixl there and openable"""
    version = ""
    try:
        with open("/sys/module/hixl/version") as f:
            version = f.read().strip()
    except OSError:
        pass
    if not os.path.exists(DEV):
        return False, ("hixl.ko: not loaded (no %s): sudo modprobe hixl (install it first with "
                       "sudo make install-module)" % DEV)
    try:
        os.close(os.open(DEV, os.O_RDWR | os.O_CLOEXEC))
    except PermissionError:
        return False, ("hixl.ko: loaded%s, but %s is not accessible to this user: sudo usermod "
                       "-aG hixl $USER, then log in again" % (" " + version if version else "",
                                                               DEV))
    except OSError as e:
        return False, "hixl.ko: %s: %s" % (DEV, e.strerror)
    return True, "hixl.ko: loaded%s, %s usable" % (" " + version if version else "", DEV)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hixl", description=__doc__.split("\n")[0])
    ap.add_argument("--size", help="memory you mean to register, for the limit checks (16G)")
    a = ap.parse_args(argv)
    import hixl
    where = os.path.dirname(os.path.abspath(hixl.__file__))
    print("hixl (Python package) %s at %s" % (hixl.__version__, where))
    print("libhixl-user %s" % hixl.version())
    ok, line = module_status()
    print(line)
    tool = shutil.which("hixlctl")
    tree = os.path.join(where, "..", "..", "tools", "hixlctl")	# the package in the tree
    if tool is None and os.access(tree, os.X_OK):
        tool = os.path.normpath(tree)
    if tool is None:
        print("preflight: hixlctl not found (installed by make install): not run")
        return 0 if ok else 1
    cmd = [tool, "check"] + (["--size", a.size] if a.size else [])
    print("preflight: %s" % " ".join(cmd), flush=True)
    rc = subprocess.run(cmd).returncode
    return 0 if ok and rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
