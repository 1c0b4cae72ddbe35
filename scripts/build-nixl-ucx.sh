#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find in the cache) NIXL's own UCX backend plugin, libplugin_UCX.so,
# against Debian's UCX (libucx-dev 1.13.1), for the NIXL table of `make bench`
# (NIXL+UCX beside NIXL+HIXL, bench/bench-nixl-guest.sh).  Not needed by the
# tests.
#
# Usage: scripts/build-nixl-ucx.sh NIXL_PREFIX   prints the plugin's folder
#
# NIXL_PREFIX is what scripts/build-nixl.sh printed (NIXL 1.4 and its Abseil);
# the plugin is built from the same NIXL snapshot (meson, only the target
# src/plugins/ucx/libplugin_UCX.so) into NIXL_PREFIX/../ucx-<key>/, keyed by
# a hash of this script's build steps (from the key's line on), the compat
# header and libucx-dev's version; the snapshot is found as build-nixl.sh
# finds it.  NIXL
# 1.4's meson asks for UCX without a version, but one file of the plugin
# (ucx_utils.cpp, its hardware check) uses two names UCX 1.13 lacks:
# scripts/nixl-ucx113-compat.h defines them (its header says why that is
# sound) and is included first in that file; nothing else of NIXL changes.
# The plugin's run path points into its build tree: run it with
# LD_LIBRARY_PATH=NIXL_PREFIX/lib (NIXL's libnixl_common.so, the one the
# agent uses) and NIXL_PLUGIN_DIR=the folder printed.  About 75 s at -j1.
#
# Exit status: 0 with the folder printed; 77 when libucx-dev or the NIXL
# snapshot is missing (the reason on stderr); 1 when the build failed (the
# log's last lines on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:?usage: build-nixl-ucx.sh NIXL_PREFIX}
# the snapshots: $HIXL_THIRD_PARTY, else the folder scripts/third-party.sh
# finds beside the checkout or in the cache, or fetches (exit 77: neither)
tp=${HIXL_THIRD_PARTY:-}
[ -n "$tp" ] || tp=$("$here/third-party.sh" nixl) || exit $?
nixl_tar=$tp/nixl-8770b655a.tar.gz
[ -r "$nixl_tar" ] || { echo "build-nixl-ucx: $nixl_tar missing" >&2; exit 77; }
[ -r "$prefix/include/nixl.h" ] || { echo "build-nixl-ucx: $prefix is no NIXL prefix (scripts/build-nixl.sh)" >&2; exit 77; }
ucxv=$(dpkg-query -W -f='${Version}' libucx-dev 2>/dev/null || true)
[ -n "$ucxv" ] && [ -r /usr/include/ucp/api/ucp.h ] ||
	{ echo "build-nixl-ucx: libucx-dev is not installed (make deps)" >&2; exit 77; }
# the cache key: the build steps below (from this line on), the compat header, UCX
key=$( { sed -n '/^# the cache key:/,$p' "$0"; cat "$here/nixl-ucx113-compat.h"; echo "$ucxv"; sha256sum "$nixl_tar"; } | sha256sum | cut -c1-16)
out=$(dirname "$prefix")/ucx-$key
exec 9>"$out.lock"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out/plugins"
	exit 0
fi
log=$out.log
echo "build-nixl-ucx: building NIXL's UCX plugin in $out (log: $log)" >&2
set +e
(
	set -ex
	t0=$(date +%s)
	export CUDA_PATH=/nonexistent CUDA_HOME=/nonexistent CUDA_ROOT=/nonexistent
	PATH=$(echo "$PATH" | tr ':' '\n' | grep -v cuda | paste -sd:)
	rm -rf "$out"
	mkdir -p "$out/src" "$out/plugins"
	tar -C "$out/src" --strip-components=1 -xzf "$nixl_tar"
	# the same subprojects as scripts/build-nixl.sh's build, from its tree
	cp -a "$(dirname "$prefix")/nixl/subprojects/." "$out/src/subprojects/"
	sed -i "0,/^#include/s|^#include|#include \"$here/nixl-ucx113-compat.h\"\n#include|" \
		"$out/src/src/plugins/ucx/ucx_utils.cpp"
	cd "$out/src"
	PKG_CONFIG_PATH=$prefix/lib/pkgconfig meson setup build --prefix="$out/unused" \
		--libdir=lib --wrap-mode=nodownload --force-fallback-for=tomlplusplus \
		-Dbuildtype=release -Dwerror=false -Dbuild_examples=false -Dbuild_tests=false \
		-Dwith_trace=false \
		-Ddisable_plugins=LIBFABRIC,GDS,GDS_MT,MOONCAKE,HF3FS,GUSLI,GPUNETIO,UCCL,AZURE_BLOB,INFINIA,TELEMETRY_DOCA,OBJ,POSIX
	ninja -C build -j"${HIXL_NIXL_JOBS:-1}" src/plugins/ucx/libplugin_UCX.so
	ln -sf "$out/src/build/src/plugins/ucx/libplugin_UCX.so" "$out/plugins/libplugin_UCX.so"
	echo "build-nixl-ucx: took $(( $(date +%s) - t0 )) s"
) > "$log" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { echo "build-nixl-ucx: FAILED, last lines of $log:" >&2; tail -30 "$log" >&2; exit 1; }
touch "$out/.done"
echo "$out/plugins"
