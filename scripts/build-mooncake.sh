#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find in the cache) Mooncake's Transfer Engine (kvcache-ai/Mooncake
# v0.3.12.post1), the measured peer of `make bench-mooncake`.
#
# Usage: scripts/build-mooncake.sh      prints the Mooncake install prefix on stdout
#
# Follows ../shared/third_party/README-mooncake.md: the sources are the snapshots
# in $HIXL_THIRD_PARTY (default: what scripts/third-party.sh finds beside the
# checkout, ../shared/third_party, or fetches from upstream at the pinned commits):
# Mooncake, yalantinglibs (header-only, installed into the prefix) and pybind11
# (unpacked as Mooncake's extern/pybind11).  None of them is copied into the
# repository: they are extracted and built in $HIXL_CACHE_DIR (default
# /var/cache/hixl), in mooncake-<key>, where key hashes the tarballs, this
# script's build steps (from the key's line on) and the compilers, so an unchanged input is reused and a changed one builds anew.
# Only the targets `engine` (the Python module) and `transfer_engine_bench` are
# built: RDMA and TCP transports, P2PHANDSHAKE metadata, no Store, CUDA or TENT.
# Debian's part (cmake, ninja, libnuma, gflags, glog, jsoncpp, yaml-cpp) comes from
# `make deps`.  About 3.5 minutes at -j2 under nice 19 on a busy 2-core machine;
# HIXL_MOONCAKE_JOBS (default 2) sets -j.
#
# Output: <prefix>/python/mooncake/{__init__.py (empty), engine*.so, libasio.so},
# <prefix>/lib/libasio.so, <prefix>/bin/transfer_engine_bench, <prefix>/include (ylt).
# Exit status: 0 with the prefix printed; 77 when a third-party snapshot is
# missing (callers skip Mooncake, with the reason printed on stderr); 1 when a
# tool or package is missing or the build failed (the log's last lines on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# the snapshots: $HIXL_THIRD_PARTY, else the folder scripts/third-party.sh
# finds beside the checkout or in the cache, or fetches (exit 77: neither)
tp=${HIXL_THIRD_PARTY:-}
[ -n "$tp" ] || tp=$("$here/third-party.sh" mooncake) || exit $?
cache=${HIXL_CACHE_DIR:-/var/cache/hixl}
jobs=${HIXL_MOONCAKE_JOBS:-2}
mc_tar=$tp/mooncake-6041a609a.tar.gz
ylt_tar=$tp/yalantinglibs-6a0e067d9.tar.gz
pyb_tar=$tp/pybind11-58c382a8e.tar.gz

for f in "$mc_tar" "$ylt_tar" "$pyb_tar"; do
	[ -r "$f" ] || { echo "build-mooncake: $f missing (third-party snapshot, see $tp/README-mooncake.md)" >&2; exit 77; }
done
for t in ninja cmake g++ /usr/bin/python3; do
	command -v "$t" >/dev/null || { echo "build-mooncake: $t missing: run 'make deps' first" >&2; exit 1; }
done
for h in numa.h gflags/gflags.h glog/logging.h jsoncpp/json/json.h yaml-cpp/yaml.h infiniband/verbs.h; do
	[ -r "/usr/include/$h" ] || { echo "build-mooncake: /usr/include/$h missing: run 'make deps' first" >&2; exit 1; }
done

# the cache key: the sources, the build steps below (from this line on) and the tools
key=$( { sha256sum "$mc_tar" "$ylt_tar" "$pyb_tar" | cut -d' ' -f1
	sed -n '/^# the cache key:/,$p' "$0"; g++ --version | head -1; cmake --version | head -1
	/usr/bin/python3 --version; } | sha256sum | cut -c1-16)
out=$cache/mooncake-$key
prefix=$out/prefix
mkdir -p "$cache"

exec 9>"$cache/.lock-mooncake-$key"
flock 9
if [ -e "$out/.done" ]; then
	echo "$prefix"
	exit 0
fi

log=$cache/mooncake-$key.log
echo "build-mooncake: building Mooncake in $out (log: $log)" >&2
rm -rf "$out"
mkdir -p "$out"
# no CUDA: this machine image may have a toolkit (nvcc); USE_CUDA=OFF anyway
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v cuda | paste -sd:)
export PATH
# a subshell, its set -x and cd stay in it; not in an `||` list, which would
# switch its set -e off
set +e
(
	set -ex
	t0=$(date +%s)
	# 1. yalantinglibs: header-only, nothing is compiled
	mkdir -p "$out/ylt"
	tar -C "$out/ylt" --strip-components=1 -xzf "$ylt_tar"
	cmake -S "$out/ylt" -B "$out/ylt/build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_EXAMPLES=OFF \
		-DBUILD_BENCHMARK=OFF -DBUILD_UNIT_TESTS=OFF
	cmake --install "$out/ylt/build"
	rm -rf "$out/ylt"
	# 2. Mooncake, with pybind11 as its extern/pybind11
	mkdir -p "$out/src"
	tar -C "$out/src" --strip-components=1 -xzf "$mc_tar"
	rm -rf "$out/src/extern/pybind11"
	mkdir -p "$out/src/extern/pybind11"
	tar -C "$out/src/extern/pybind11" --strip-components=1 -xzf "$pyb_tar"
	# 3. configure (the sources are not patched)
	cmake -S "$out/src" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
		-DENABLE_DEBUG_SYMBOLS=OFF -DCMAKE_PREFIX_PATH="$prefix" \
		-DCMAKE_CXX_FLAGS="-isystem $prefix/include" -DASIO_INCLUDE_DIR="$prefix/include" \
		-DCMAKE_BUILD_RPATH="$prefix/lib" \
		-DPython3_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3 \
		-DWITH_TE=ON -DWITH_STORE=OFF -DWITH_STORE_RUST=OFF -DWITH_P2P_STORE=OFF -DWITH_EP=OFF \
		-DUSE_ETCD=OFF -DUSE_REDIS=OFF -DUSE_HTTP=OFF -DUSE_CUDA=OFF -DUSE_TCP=ON -DUSE_TENT=OFF \
		-DBUILD_UNIT_TESTS=OFF -DBUILD_EXAMPLES=ON -DBUILD_BENCHMARK=OFF
	# 4. only the Python module and the C++ bench
	nice -n 19 ninja -C "$out/build" -j"$jobs" engine transfer_engine_bench
	# 5. install by hand (Mooncake's install() writes into dist-packages)
	mkdir -p "$prefix/python/mooncake" "$prefix/lib" "$prefix/bin"
	cp "$out"/build/mooncake-integration/engine.cpython-*.so "$prefix/python/mooncake/"
	cp "$out/build/mooncake-common/libasio.so" "$prefix/python/mooncake/"
	cp "$out/build/mooncake-common/libasio.so" "$prefix/lib/"
	: > "$prefix/python/mooncake/__init__.py"
	bench=$(find "$out/build" -name transfer_engine_bench -type f -perm -u+x | head -1)
	[ -n "$bench" ] && cp "$bench" "$prefix/bin/"
	PYTHONPATH="$prefix/python" /usr/bin/python3 -c 'from mooncake.engine import TransferEngine'
	rm -rf "$out/src" "$out/build"
	echo "build-mooncake: took $(( $(date +%s) - t0 )) s"
) > "$log" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { echo "build-mooncake: FAILED, last lines of $log:" >&2; tail -40 "$log" >&2; exit 1; }
touch "$out/.done"
echo "$prefix"
