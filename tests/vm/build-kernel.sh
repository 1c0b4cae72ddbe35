#!/bin/bash
# Build (or find in the cache) the hixl debug test kernel.
#
# Usage: tools/vm/build-kernel.sh        prints the kernel build directory on stdout
#
# The kernel is Debian's linux-source-6.12 (installed by `make deps`) configured as
# `make tinyconfig` + tools/vm/debug.config.  The build lives outside the repo, in
# $HIXL_CACHE_DIR (default /var/cache/hixl), in a folder named by a hash of the
# fragment, the source package version and the compiler, so a changed fragment
# builds a new kernel and an unchanged one is reused.  About 9 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug.config
tarball=${HIXL_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
cache=${HIXL_CACHE_DIR:-/var/cache/hixl}

[ -r "$tarball" ] || { echo "build-kernel: $tarball missing: run 'make deps' first" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || stat -c %s "$tarball")
key=$( { cat "$frag" "$0"; echo "$srcver"; gcc --version | head -1; } | sha256sum | cut -c1-16)
out=$cache/kernel-$key
mkdir -p "$cache"

exec 9>"$cache/.lock-$key"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out/linux"
	exit 0
fi

log=$cache/kernel-$key.log
echo "build-kernel: building debug kernel in $out (log: $log)" >&2
rm -rf "$out"
mkdir -p "$out"
{
	tar -C "$out" -xf "$tarball"
	mv "$out"/linux-source-6.12 "$out/linux"
	cd "$out/linux"
	make ARCH=x86_64 tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$frag"
	make ARCH=x86_64 olddefconfig
	# every =y and "is not set" line of the fragment must have survived olddefconfig
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" .config || { echo "build-kernel: fragment line lost: $line"; missing=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			grep -q "^$opt=" .config && { echo "build-kernel: $opt should be off"; missing=1; } ;;
		esac
	done < "$frag"
	[ "$missing" = 0 ] || exit 1
	make ARCH=x86_64 -j"$(nproc)" bzImage modules
	make ARCH=x86_64 -j"$(nproc)" modules_prepare
} > "$log" 2>&1 || { echo "build-kernel: FAILED, last lines of $log:" >&2; tail -40 "$log" >&2; exit 1; }
touch "$out/.done"
echo "$out/linux"
