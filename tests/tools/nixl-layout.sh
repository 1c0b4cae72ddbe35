#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make nixl` against NIXL installed in the layouts users have, as TAP:
# meson's default on Debian and Ubuntu (libraries in lib/<multiarch>, e.g.
# lib/x86_64-linux-gnu), lib/ (scripts/build-nixl.sh's, NIXL's containers)
# and lib64/ (Fedora).  Each layout is a prefix of symbolic links to one
# real NIXL install (PREFIX, e.g. what scripts/build-nixl.sh prints) in a
# scratch folder: the Makefile must pick the folder that holds
# libnixl_common.so.  In the Debian layout the plugin is built and linked
# for real, and must find NIXL's library there at run time (its RUNPATH, as
# ldd resolves it); the test programs link with the same -L and -rpath.
#
# Usage: tests/tools/nixl-layout.sh PREFIX
# Exit status: 0 when every case passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
prefix=${1:?usage: tests/tools/nixl-layout.sh PREFIX}
ma=$(${CC:-cc} -print-multiarch 2>/dev/null)
ma=${ma:-x86_64-linux-gnu}
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }

if [ ! -r "$prefix/lib/libnixl_common.so" ] || [ ! -d "$prefix/include" ]; then
	echo "1..0 # SKIP no NIXL install with lib/libnixl_common.so at $prefix"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# a prefix whose libraries (and plugins/) are in $2, relative to it
layout() {	# NAME LIBDIR
	local p=$tmp/$1 f
	mkdir -p "$p/$2"
	ln -s "$prefix/include" "$p/include"
	for f in "$prefix"/lib/*.so* "$prefix"/lib/plugins; do
		[ -e "$f" ] && ln -s "$f" "$p/$2/${f##*/}"
	done
	echo "$p"
}

for l in "debian lib/$ma" "lib lib" "fedora lib64"; do
	name=${l%% *} dir=${l#* }
	p=$(layout "$name" "$dir")
	got=$(make -s --no-print-directory nixl-libdir NIXL_PREFIX="$p")
	if [ "$got" = "$p/$dir" ]; then
		ok "$name layout: NIXL_LIBDIR is $dir"
	else
		echo "#   expected $p/$dir, got '$got'"
		notok "$name layout: NIXL_LIBDIR is $dir"
	fi
done

# the Debian layout, built and linked for real
p=$tmp/debian out=$tmp/out
if make -s --no-print-directory NIXL_PREFIX="$p" NIXL_BUILD="$out" \
	"$out/libplugin_HIXL.so" > "$tmp/make.log" 2>&1; then
	ok "debian layout: make nixl links the plugin"
else
	sed 's/^/#   /' "$tmp/make.log" | tail -20
	notok "debian layout: make nixl links the plugin"
fi
lib=$(ldd "$out/libplugin_HIXL.so" 2>/dev/null | awk '$1 == "libnixl_common.so" { print $3 }')
if [ "$lib" = "$p/lib/$ma/libnixl_common.so" ]; then
	ok "debian layout: the plugin finds libnixl_common.so in lib/$ma"
else
	echo "#   ldd: '${lib:-not found}'"
	notok "debian layout: the plugin finds libnixl_common.so in lib/$ma"
fi
echo "1..$n"
[ "$bad" = 0 ]
