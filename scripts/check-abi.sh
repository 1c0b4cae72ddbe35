#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-abi.sh - the library's ABI against its committed baseline.
#
#   scripts/check-abi.sh           compare lib/libhixl-user.so.* (built) with
#                                  lib/libhixl-user.abi; exit 1 on any change
#   scripts/check-abi.sh --update  write the baseline from the built library
#                                  (make abi-update; commit it with the change)
#
# libabigail (Debian: abigail-tools, installed by make deps): abidw writes
# the exported functions and variables with their types, as the public
# headers declare them (--headers-dir with --drop-private-types: a type
# defined only inside the library, such as struct hixl_engine behind its
# opaque pointer, is left out, so its fields may change), abidiff compares
# two of them.  Any difference fails: an
# addition too, so that the baseline always describes the library and every
# ABI change shows up in review as a diff of lib/libhixl-user.abi.  An
# incompatible change also needs the soname bumped (Makefile SOVERSION,
# docs/abi.md "Library ABI").
set -u
cd "$(dirname "$0")/.." || exit 1
base=lib/libhixl-user.abi
so=$(readlink -f lib/libhixl-user.so 2>/dev/null)
if ! command -v abidw >/dev/null 2>&1 || ! command -v abidiff >/dev/null 2>&1; then
	echo "check-abi: SKIP: no abidw/abidiff (apt-get install abigail-tools, or make deps)"
	exit 77
fi
[ -n "$so" ] && [ -f "$so" ] || { echo "check-abi: no lib/libhixl-user.so: make lib first" >&2; exit 1; }
abi() {
	abidw --no-corpus-path --no-comp-dir-path --drop-private-types --headers-dir lib/include/hixl \
		--headers-dir uapi/rdma "$so"
}
if [ "${1:-}" = --update ]; then
	abi > "$base" || exit 1
	echo "check-abi: wrote $base from $so"
	exit 0
fi
[ -f "$base" ] || { echo "check-abi: no baseline $base (make abi-update)" >&2; exit 1; }
cur=$(mktemp) || exit 1
trap 'rm -f "$cur"' EXIT INT TERM
abi > "$cur" || exit 1
if abidiff "$base" "$cur" > "$cur.diff" 2>&1; then
	echo "check-abi: $(basename "$so") matches $base"
	rm -f "$cur.diff"
	exit 0
fi
rc=$?
cat "$cur.diff"
rm -f "$cur.diff"
echo "check-abi: FAILED: the library's ABI differs from $base (abidiff status $rc:" \
     "bit 2 a change, bit 3 an incompatible one).  If intended: make abi-update," \
     "commit lib/libhixl-user.abi, and for an incompatible change bump SOVERSION."
exit 1
