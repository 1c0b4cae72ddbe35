#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Find, or fetch, the third-party source snapshots a build script needs.
#
# Usage: scripts/third-party.sh SET      prints the folder holding SET's tarballs
#
# SET is nixl (NIXL, Abseil, toml++, Taskflow: scripts/build-nixl.sh and
# scripts/build-nixl-ucx.sh) or mooncake (Mooncake, yalantinglibs, pybind11:
# scripts/build-mooncake.sh).  Pass the folder on as HIXL_THIRD_PARTY:
#
#   HIXL_THIRD_PARTY=$(scripts/third-party.sh nixl) scripts/build-nixl.sh
#
# The folder is the first of: $HIXL_THIRD_PARTY, ../shared/third_party beside
# the checkout, $HIXL_CACHE_DIR/third_party (default /var/cache/hixl), that
# holds every tarball of SET.  When none does, the missing tarballs are
# fetched into the last one from their upstream projects, at the pinned
# commits and releases the snapshots were made from, and checked before use:
# a release tarball against the sha256 NIXL's meson wraps pin, a commit's
# archive by the commit id git archive writes into it (git get-tar-commit-id).
# Taskflow's release tarball is cut to its headers, LICENSE and README, as
# the snapshot is.  Nothing is written into the checkout.
#
# Environment: HIXL_FETCH=0 never fetches; HIXL_FETCH_BASE replaces
# https://github.com in every address (a mirror, or file:// for the tests).
#
# Exit status: 0 with the folder printed; 77 when the tarballs are neither
# present nor fetchable (no network, HIXL_FETCH=0: callers skip what needs
# them, with the reason on stderr); 1 on a bad SET, a missing tool, or a
# download that fails its check (nothing of it is kept).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
set_name=${1:-}
cache=${HIXL_CACHE_DIR:-/var/cache/hixl}
base=${HIXL_FETCH_BASE:-https://github.com}

# name  upstream path  check (sha256:HEX or commit:SHA)  [headers: cut to headers]
nixl_set='
nixl-8770b655a.tar.gz ai-dynamo/nixl/archive/8770b655a6b17b5cdf7d2b56b6e0be5392496df5.tar.gz commit:8770b655a6b17b5cdf7d2b56b6e0be5392496df5
abseil-cpp-20250814.1.tar.gz abseil/abseil-cpp/releases/download/20250814.1/abseil-cpp-20250814.1.tar.gz sha256:1692f77d1739bacf3f94337188b78583cf09bab7e420d2dc6c5605a4f86785a1
tomlplusplus-3.4.0.tar.gz marzer/tomlplusplus/archive/v3.4.0.tar.gz sha256:8517f65938a4faae9ccf8ebb36631a38c1cadfb5efa85d9a72e15b9e97d25155
taskflow-3.10.0-headers.tar.gz taskflow/taskflow/archive/refs/tags/v3.10.0.tar.gz sha256:fe86765da417f6ceaa2d232ffac70c9afaeb3dc0816337d39a7c93e39c2dee0b headers
'
mooncake_set='
mooncake-6041a609a.tar.gz kvcache-ai/Mooncake/archive/6041a609a8c3af35e778f70db344f145c2914980.tar.gz commit:6041a609a8c3af35e778f70db344f145c2914980
yalantinglibs-6a0e067d9.tar.gz alibaba/yalantinglibs/archive/6a0e067d9a43492cf8e4e280b531924fbd724dbd.tar.gz commit:6a0e067d9a43492cf8e4e280b531924fbd724dbd
pybind11-58c382a8e.tar.gz pybind/pybind11/archive/58c382a8e3d7081364d2f5c62e7f429f0412743b.tar.gz commit:58c382a8e3d7081364d2f5c62e7f429f0412743b
'
case "$set_name" in
nixl) list=$nixl_set ;;
mooncake) list=$mooncake_set ;;
*) echo "third-party: usage: $0 nixl|mooncake" >&2; exit 1 ;;
esac
names=$(awk 'NF { print $1 }' <<<"$list")

# has DIR: every tarball of the set is readable in DIR
has() {
	local n
	[ -n "$1" ] || return 1
	for n in $names; do [ -r "$1/$n" ] || return 1; done
}

for d in "${HIXL_THIRD_PARTY:-}" "$(cd "$here/../.." && pwd)/shared/third_party" "$cache/third_party"; do
	if has "$d"; then echo "$d"; exit 0; fi
done

dest=$cache/third_party
if [ "${HIXL_FETCH:-1}" = 0 ]; then
	echo "third-party: $set_name's snapshots are not in ../shared/third_party, HIXL_THIRD_PARTY or $dest, and HIXL_FETCH=0" >&2
	exit 77
fi
for t in curl git sha256sum tar; do
	command -v "$t" >/dev/null || { echo "third-party: $t missing: run 'make deps' first" >&2; exit 1; }
done
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
tmp=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

while read -r name path check cut; do
	[ -n "$name" ] && [ ! -r "$dest/$name" ] || continue
	url=$base/$path
	echo "third-party: fetching $url" >&2
	if ! err=$(curl -fsSL --connect-timeout 15 --retry 2 -o "$tmp/dl" "$url" 2>&1); then
		echo "third-party: $set_name's snapshots are not beside the checkout and $url could not be fetched: ${err:-curl failed}" >&2
		exit 77
	fi
	case "$check" in
	sha256:*)
		got=$(sha256sum "$tmp/dl" | cut -d' ' -f1)
		[ "$got" = "${check#sha256:}" ] || {
			echo "third-party: $url has sha256 $got, not the pinned ${check#sha256:}: not used" >&2; exit 1; }
		;;
	commit:*)
		got=$(gzip -dc "$tmp/dl" 2>/dev/null | git get-tar-commit-id 2>/dev/null || true)
		[ "$got" = "${check#commit:}" ] || {
			echo "third-party: $url is of commit '${got:-none}', not the pinned ${check#commit:}: not used" >&2; exit 1; }
		;;
	esac
	if [ "${cut:-}" = headers ]; then
		# the release's top folder, cut to its headers, LICENSE and README
		top=${name%-headers.tar.gz}
		mkdir -p "$tmp/x"
		tar -C "$tmp/x" --strip-components=1 -xzf "$tmp/dl" \
			--wildcards --no-wildcards-match-slash '*/taskflow' '*/LICENSE' '*/README.md'
		mv "$tmp/x" "$tmp/$top"
		tar -C "$tmp" -czf "$tmp/dl" "$top"
		rm -rf "${tmp:?}/$top"
	fi
	mv "$tmp/dl" "$dest/$name"
done <<<"$list"
echo "$dest"
