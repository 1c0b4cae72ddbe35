#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# third-party.sh - scripts/third-party.sh, TAP: snapshots found beside the
# checkout, fetched from a mirror (file://, HIXL_FETCH_BASE) when absent and
# checked (a commit's archive by its commit id, a release by its sha256),
# wrong downloads refused and not kept, no network or HIXL_FETCH=0 exit 77.
# The mirror serves the snapshots themselves: the commit archives are git
# archives of the pinned commits and Abseil's and toml++'s are the pinned
# release tarballs, so the real checks pass on them; Taskflow's release
# tarball (55 MB) is not here, so only its refusal is tested.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tp=$(cd "$top/.." && pwd)/shared/third_party
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $* # SKIP no snapshots in $tp"; }
echo "1..10"

if ! [ -r "$tp/nixl-8770b655a.tar.gz" ] || ! [ -r "$tp/mooncake-6041a609a.tar.gz" ]; then
	for i in 1 2 3 4 5 6 7 8 9 10; do skip "third-party case $i"; done
	exit 0
fi
command -v curl >/dev/null || { for i in 1 2 3 4 5 6 7 8 9 10; do n=$((n + 1)); echo "ok $n - case $i # SKIP no curl"; done; exit 0; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a copy of the script where ../shared/third_party does not exist
mkdir -p "$tmp/co/scripts"
cp "$top/scripts/third-party.sh" "$top/scripts/build-nixl.sh" "$top/scripts/build-nixl-ucx.sh" \
	"$top/scripts/build-mooncake.sh" "$tmp/co/scripts/"
tps=$tmp/co/scripts/third-party.sh
m=$tmp/mirror
mk() { mkdir -p "$m/$(dirname "$1")" && cp "$2" "$m/$1"; }
mk kvcache-ai/Mooncake/archive/6041a609a8c3af35e778f70db344f145c2914980.tar.gz "$tp/mooncake-6041a609a.tar.gz"
mk alibaba/yalantinglibs/archive/6a0e067d9a43492cf8e4e280b531924fbd724dbd.tar.gz "$tp/yalantinglibs-6a0e067d9.tar.gz"
mk pybind/pybind11/archive/58c382a8e3d7081364d2f5c62e7f429f0412743b.tar.gz "$tp/pybind11-58c382a8e.tar.gz"
mk abseil/abseil-cpp/releases/download/20250814.1/abseil-cpp-20250814.1.tar.gz "$tp/abseil-cpp-20250814.1.tar.gz"
mk marzer/tomlplusplus/archive/v3.4.0.tar.gz "$tp/tomlplusplus-3.4.0.tar.gz"
# NIXL's path serves pybind11's archive: another commit
mk ai-dynamo/nixl/archive/8770b655a6b17b5cdf7d2b56b6e0be5392496df5.tar.gz "$tp/pybind11-58c382a8e.tar.gz"
# Taskflow's release path serves a tarball of the wrong hash
mk taskflow/taskflow/archive/refs/tags/v3.10.0.tar.gz "$tp/taskflow-3.10.0-headers.tar.gz"
run() { env -u HIXL_THIRD_PARTY HIXL_CACHE_DIR="$tmp/cache" HIXL_FETCH_BASE="file://$m" "$@"; }

# 1: the snapshots beside the checkout
d=$(env -u HIXL_THIRD_PARTY "$top/scripts/third-party.sh" nixl 2>/dev/null)
[ "$d" = "$tp" ] && ok "the snapshots beside the checkout are used" || nok "beside the checkout: got '$d', want $tp"

# 2: absent beside the checkout: fetched, commit ids checked, same bytes
d=$(run "$tps" mooncake 2> "$tmp/err2") rc=$?
same=1
for f in mooncake-6041a609a yalantinglibs-6a0e067d9 pybind11-58c382a8e; do
	cmp -s "$tp/$f.tar.gz" "$tmp/cache/third_party/$f.tar.gz" || same=0
done
[ "$rc" = 0 ] && [ "$d" = "$tmp/cache/third_party" ] && [ "$same" = 1 ] &&
	ok "mooncake's three commit archives fetched and checked" ||
	nok "mooncake fetch: rc $rc, '$d', same $same: $(tail -2 "$tmp/err2")"

# 3: fetched once, found after without the mirror
d=$(env -u HIXL_THIRD_PARTY HIXL_CACHE_DIR="$tmp/cache" HIXL_FETCH_BASE="file:///nonexistent" "$tps" mooncake 2>/dev/null) rc=$?
[ "$rc" = 0 ] && [ "$d" = "$tmp/cache/third_party" ] && ok "a fetched set is found again without fetching" ||
	nok "refound: rc $rc, '$d'"

# 4: an archive of another commit is refused and not kept
run "$tps" nixl > /dev/null 2> "$tmp/err4"; rc=$?
[ "$rc" = 1 ] && grep -q "not the pinned 8770b655a6b17b5cdf7d2b56b6e0be5392496df5" "$tmp/err4" &&
	! [ -e "$tmp/cache/third_party/nixl-8770b655a.tar.gz" ] &&
	[ -z "$(find "$tmp/cache/third_party" -name '.fetch.*')" ] &&
	ok "an archive of another commit is refused, nothing kept" || nok "wrong commit: rc $rc: $(tail -1 "$tmp/err4")"

# 5: with NIXL's archive right, Abseil and toml++ pass their sha256 and
# Taskflow's wrong release tarball is refused
cp "$tp/nixl-8770b655a.tar.gz" "$m/ai-dynamo/nixl/archive/8770b655a6b17b5cdf7d2b56b6e0be5392496df5.tar.gz"
run "$tps" nixl > /dev/null 2> "$tmp/err5"; rc=$?
[ "$rc" = 1 ] && grep -q "not the pinned fe86765d" "$tmp/err5" &&
	cmp -s "$tp/abseil-cpp-20250814.1.tar.gz" "$tmp/cache/third_party/abseil-cpp-20250814.1.tar.gz" &&
	cmp -s "$tp/tomlplusplus-3.4.0.tar.gz" "$tmp/cache/third_party/tomlplusplus-3.4.0.tar.gz" &&
	! [ -e "$tmp/cache/third_party/taskflow-3.10.0-headers.tar.gz" ] &&
	ok "releases checked by sha256: the pinned ones kept, a wrong one refused" ||
	nok "sha256 checks: rc $rc: $(tail -1 "$tmp/err5")"

# 6: the set complete (Taskflow's headers put there by hand): found
cp "$tp/taskflow-3.10.0-headers.tar.gz" "$tmp/cache/third_party/"
d=$(run "$tps" nixl 2>/dev/null) rc=$?
[ "$rc" = 0 ] && [ "$d" = "$tmp/cache/third_party" ] && ok "nixl's set complete in the cache is used" ||
	nok "nixl set: rc $rc, '$d'"

# 7: nothing reachable: 77 with the reason
env -u HIXL_THIRD_PARTY HIXL_CACHE_DIR="$tmp/cache2" HIXL_FETCH_BASE="file:///nonexistent" "$tps" nixl \
	> /dev/null 2> "$tmp/err7"; rc=$?
[ "$rc" = 77 ] && grep -q "could not be fetched" "$tmp/err7" && ok "no network: exit 77 with the reason" ||
	nok "unreachable: rc $rc: $(tail -1 "$tmp/err7")"

# 8: HIXL_FETCH=0 never fetches
HIXL_FETCH=0 run "$tps" mooncake > /dev/null 2> "$tmp/err8"; rc=$?
rc8=$rc
env -u HIXL_THIRD_PARTY HIXL_FETCH=0 HIXL_CACHE_DIR="$tmp/cache3" HIXL_FETCH_BASE="file://$m" "$tps" mooncake \
	> /dev/null 2> "$tmp/err8"; rc=$?
[ "$rc8" = 0 ] && [ "$rc" = 77 ] && grep -q "HIXL_FETCH=0" "$tmp/err8" && ! [ -e "$tmp/cache3/third_party" ] &&
	ok "HIXL_FETCH=0: a fetched set still found, nothing fetched" || nok "HIXL_FETCH=0: rc $rc8/$rc"

# 9: an unknown set
run "$tps" ucx > /dev/null 2>&1; rc=$?
[ "$rc" = 1 ] && ok "an unknown set: exit 1" || nok "unknown set: rc $rc"

# 10: the build scripts ask third-party.sh for their sources: without
# snapshots beside them and with HIXL_FETCH=0, each exits 77 with its reason
rc10=''
for b in build-nixl.sh build-mooncake.sh "build-nixl-ucx.sh $tmp"; do
	env -u HIXL_THIRD_PARTY HIXL_FETCH=0 HIXL_CACHE_DIR="$tmp/cache5" \
		$tmp/co/scripts/$b > /dev/null 2> "$tmp/err10"; rc=$?
	grep -q "HIXL_FETCH=0" "$tmp/err10" || rc="$rc (no reason)"
	rc10="$rc10 $rc"
done
[ "$rc10" = " 77 77 77" ] && ! [ -e "$tmp/cache5/third_party" ] &&
	ok "build-nixl.sh, build-mooncake.sh, build-nixl-ucx.sh: sources from third-party.sh" ||
	nok "build scripts without sources: exits$rc10: $(tail -1 "$tmp/err10")"
