#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find in the cache) NVIDIA NIXL, to build and test hixl's NIXL backend
# plugin (nixl/) against.
#
# Usage: scripts/build-nixl.sh      prints the NIXL install prefix on stdout
#
# The sources are the snapshots in $HIXL_THIRD_PARTY (default: what
# scripts/third-party.sh finds beside the checkout, ../shared/third_party, or
# fetches from upstream at the pinned commits): NIXL, Abseil (Debian 12's libabsl-dev
# lacks absl_log), toml++ 3.4 (Debian's 3.3 lacks toml++/toml.hpp) and Taskflow's
# headers.  None of them is copied
# into the repository: they are extracted and built in $HIXL_CACHE_DIR (default
# /var/cache/hixl), in a folder named by a hash of the tarballs, this script's
# build steps (from the key's line on) and the compilers, so an unchanged input is reused and a changed one builds anew.  Abseil
# and NIXL install into the same prefix (<cache>/nixl-<key>/prefix).  Only what the
# tests need is built: NIXL's core, its C++ API and Python bindings, no CUDA, no other
# transport plugin, no tests or examples.  Debian's part (meson, ninja, cmake,
# libasio-dev, pybind11) comes from `make deps`.  Abseil takes about 17 minutes at -j1
# on a busy 2-core machine, NIXL about 3; HIXL_NIXL_JOBS (default 1) sets -j.
#
# Exit status: 0 with the prefix printed; 77 when a third-party snapshot is
# missing (NIXL cannot be built here: callers skip what needs it, with the
# reason printed on stderr); 1 when a tool is missing or the build failed (the
# last lines of the log are shown on stderr).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# the snapshots: $HIXL_THIRD_PARTY, else the folder scripts/third-party.sh
# finds beside the checkout or in the cache, or fetches (exit 77: neither)
tp=${HIXL_THIRD_PARTY:-}
[ -n "$tp" ] || tp=$("$here/third-party.sh" nixl) || exit $?
cache=${HIXL_CACHE_DIR:-/var/cache/hixl}
jobs=${HIXL_NIXL_JOBS:-1}
nixl_tar=$tp/nixl-8770b655a.tar.gz
absl_tar=$tp/abseil-cpp-20250814.1.tar.gz
toml_tar=$tp/tomlplusplus-3.4.0.tar.gz
tf_tar=$tp/taskflow-3.10.0-headers.tar.gz

for f in "$nixl_tar" "$absl_tar" "$toml_tar" "$tf_tar"; do
	[ -r "$f" ] || { echo "build-nixl: $f missing (third-party snapshot, see $tp/README.md)" >&2; exit 77; }
done
for t in meson ninja cmake g++ pkg-config; do
	command -v "$t" >/dev/null || { echo "build-nixl: $t missing: run 'make deps' first" >&2; exit 1; }
done
[ -r /usr/include/asio.hpp ] || { echo "build-nixl: libasio-dev missing: run 'make deps' first" >&2; exit 1; }

# the cache key: the sources, the build steps below (from this line on) and the tools
key=$( { sha256sum "$nixl_tar" "$absl_tar" "$toml_tar" "$tf_tar" | cut -d' ' -f1
	sed -n '/^# the cache key:/,$p' "$0"; g++ --version | head -1; meson --version; cmake --version | head -1
	python3 --version; } | sha256sum | cut -c1-16)
out=$cache/nixl-$key
prefix=$out/prefix
mkdir -p "$cache"

exec 9>"$cache/.lock-nixl-$key"
flock 9
if [ -e "$out/.done" ]; then
	echo "$prefix"
	exit 0
fi

log=$cache/nixl-$key.log
echo "build-nixl: building NIXL in $out (log: $log)" >&2
mkdir -p "$out"
# no CUDA: this machine image may have a toolkit (nvcc) but the tests use host memory
export CUDA_PATH=/nonexistent CUDA_HOME=/nonexistent CUDA_ROOT=/nonexistent
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v cuda | paste -sd:)
export PATH
# a subshell, its set -x and cd stay in it; not in an `||` list, which would
# switch its set -e off
set +e
(
	set -ex
	# Abseil: its own stage marker, so a failed NIXL step does not rebuild it
	if [ ! -e "$out/.abseil-done" ]; then
		t0=$(date +%s)
		rm -rf "$out/abseil" "$prefix"
		mkdir -p "$out/abseil"
		tar -C "$out/abseil" --strip-components=1 -xzf "$absl_tar"
		cmake -S "$out/abseil" -B "$out/abseil/build" -G Ninja \
			-DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
			-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
			-DABSL_PROPAGATE_CXX_STD=ON -DCMAKE_CXX_STANDARD=20 -DABSL_BUILD_TESTING=OFF
		ninja -C "$out/abseil/build" -j"$jobs" install
		rm -rf "$out/abseil"
		echo "build-nixl: abseil took $(( $(date +%s) - t0 )) s"
		touch "$out/.abseil-done"
	fi
	t0=$(date +%s)
	pc=$prefix/lib/pkgconfig
	mkdir -p "$pc"
	# Debian's libasio-dev has no pkg-config file; NIXL asks for one
	printf 'Name: asio\nDescription: Asio C++ library (Debian libasio-dev)\nVersion: %s\nCflags: -I/usr/include\n' \
		"$(dpkg-query -W -f='${Version}' libasio-dev 2>/dev/null | cut -d- -f1 | cut -d: -f2 || echo 1.22.1)" \
		> "$pc/asio.pc"
	rm -rf "$out/nixl"
	mkdir -p "$out/nixl"
	tar -C "$out/nixl" --strip-components=1 -xzf "$nixl_tar"
	mkdir -p "$out/nixl/subprojects/packagecache" "$out/nixl/subprojects/taskflow-3.10.0"
	cp "$toml_tar" "$out/nixl/subprojects/packagecache/"
	tar -C "$out/nixl/subprojects/taskflow-3.10.0" --strip-components=1 -xzf "$tf_tar"
	cp "$out/nixl/subprojects/packagefiles/taskflow/meson.build" "$out/nixl/subprojects/taskflow-3.10.0/"
	cd "$out/nixl"
	PKG_CONFIG_PATH=$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} meson setup build \
		--prefix="$prefix" --libdir=lib --wrap-mode=nodownload \
		--force-fallback-for=tomlplusplus \
		-Dbuildtype=release -Dwerror=false -Dbuild_examples=false -Dbuild_tests=false \
		-Dwith_trace=false -Dinstall_headers=true \
		-Ddisable_plugins=UCX,LIBFABRIC,GDS,GDS_MT,MOONCAKE,HF3FS,GUSLI,GPUNETIO,UCCL,AZURE_BLOB,INFINIA,TELEMETRY_DOCA,OBJ
	ninja -C build -j"$jobs"
	ninja -C build install
	echo "build-nixl: nixl took $(( $(date +%s) - t0 )) s"
	[ -r "$prefix/include/nixl.h" ] || { echo "build-nixl: no nixl.h installed"; exit 1; }
) > "$log" 2>&1
rc=$?
set -e
[ "$rc" = 0 ] || { echo "build-nixl: FAILED, last lines of $log:" >&2; tail -40 "$log" >&2; exit 1; }
touch "$out/.done"
echo "$prefix"
