#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build kmod/hixl.ko (and, against a kernel with CONFIG_KUNIT,
# tests/kunit/hixl_kunit.ko) in a private copy of the module sources, so
# builds against several kernels do not overwrite each other's objects.
#
# Usage: scripts/build-module.sh KDIR OUTDIR [W=1]
# With W=1 any compiler warning fails the build.  Runs HIXL_JOBS (default:
# every CPU) compiler jobs at once.
set -euo pipefail
kdir=$1 w=${3:-}
mkdir -p "$2"
out=$(cd "$2" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$kdir" ] || { echo "build-module: no kernel tree at $kdir (make deps?)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp -r "$repo/Kbuild" "$repo/kmod" "$repo/uapi" "$out/"
mkdir -p "$out/tests"
cp -r "$repo/tests/kunit" "$out/tests/"
find "$out" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
log=$out/build.log
# kmod/Kbuild is in-tree style: say what its Kconfig symbol would (the
# KUnit one follows CONFIG_KUNIT, ../Kbuild)
if ! make -C "$kdir" M="$out" -j"${HIXL_JOBS:-$(nproc)}" CONFIG_INFINIBAND_HIXL=m $w modules > "$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
if [ -n "$w" ] && grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: warnings with $w against $kdir" >&2
	exit 1
fi
echo "build-module: $(cd "$out" && find . -name '*.ko' | sort | tr '\n' ' ')against $kdir"
