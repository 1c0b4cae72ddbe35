#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# check-install.sh - `make install` into a scratch DESTDIR, then build
# examples/kv_transfer.c against the installed tree with pkg-config, shared
# and static, and the C++ sample examples/cpp/hixl_sample.cpp (<hixl/hixl.hpp>,
# C++11 and C++17), and check the installed library (soname, exported symbols and
# their version), the man pages, the installed tools (tests/tools/hixlctl.sh:
# --version, --help, `hixlctl check` on this host, which has no hixl.ko
# loaded; tests/tools/hixl-bench.sh: hixl-bench's usage errors, exit
# statuses and early-failure JSON, and a garbled --server against its client)
# and their bash completions (tests/tools/completion.sh),
# install-dkms, install-module (when kmod/hixl.ko is built: with depmod's
# modules.devname) and the udev rule, sysusers.d and modules-load.d files
# they install, and dkms.conf.  Exit status 0 and "install check: ok" when
# all is well.  Run from anywhere; needs cc, g++, pkg-config, objdump, nm,
# man (man-db), groff, modinfo, depmod, sha256sum, python3, git (the old udev
# rule) and, when python3-dev is there, readelf; systemd-sysusers when it is
# there.
set -eu

cd "$(dirname "$0")/.."
fail() { echo "install check: FAIL: $*" >&2; exit 1; }

# the version is <hixl/hixl.h>'s HIXL_VERSION_* (the Makefile reads it there)
version=$(for f in MAJOR MINOR PATCH; do
	sed -n "s/^#define HIXL_VERSION_$f[[:space:]]*\([0-9]*\)\$/\1/p" lib/include/hixl/hixl.h
done | paste -sd.)
case $version in [0-9]*.[0-9]*.[0-9]*) ;; *) fail "no HIXL_VERSION_* in <hixl/hixl.h>" ;; esac
soname=libhixl-user.so.$(sed -n 's/^SOVERSION *:= *//p' Makefile)
[ "$soname" != libhixl-user.so. ] || fail "no SOVERSION in the Makefile"

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT INT TERM
prefix=/usr
libdir=$dest$prefix/lib

make -s install DESTDIR="$dest" PREFIX=$prefix >"$dest/install.log" 2>&1 ||
	{ cat "$dest/install.log" >&2; fail "make install"; }

# -- the installed files
for f in lib/libhixl-user.so.$version lib/$soname lib/libhixl-user.so lib/libhixl-user.a \
	 lib/pkgconfig/hixl-user.pc include/hixl/hixl.h include/hixl/hixl.hpp include/hixl/hixl_types.hpp \
	 include/hixl/physmem.h \
	 include/hixl/prof.h include/hixl/uapi.h bin/hixl-bench bin/hixlctl \
	 share/man/man1/hixl-bench.1 share/man/man8/hixlctl.8 \
	 share/bash-completion/completions/hixlctl share/bash-completion/completions/hixl-bench; do
	[ -e "$dest$prefix/$f" ] || fail "$prefix/$f not installed"
done
[ -L "$dest$prefix/include/hixl/uapi.h" ] && fail "hixl/uapi.h is a symlink"
[ "$(readlink "$libdir/$soname")" = "libhixl-user.so.$version" ] || fail "$soname symlink"
[ "$(readlink "$libdir/libhixl-user.so")" = "$soname" ] || fail "libhixl-user.so symlink"
cmp -s uapi/rdma/hixl.h "$dest$prefix/include/hixl/uapi.h" || fail "hixl/uapi.h differs from uapi/rdma/hixl.h"

# -- soname and exported symbols
objdump -p "$libdir/libhixl-user.so.$version" | grep -Eq "SONAME +$soname\$" ||
	fail "SONAME is not $soname"
syms=$(nm -D --defined-only "$libdir/libhixl-user.so.$version")
# every export is a hixl_ function in the version node the map gives it
# (HIXL_0.1, HIXL_0.2, ...), or the node itself
nodes=$(sed -n 's/^\(HIXL_[0-9.]*\) {.*/\1/p' lib/libhixl-user.map)
bad=$(printf '%s\n' "$syms" | awk -v nodes="$nodes" '
	BEGIN { n = split(nodes, a, "\n"); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
	!(($3 in ok) || ($3 ~ /^hixl_[a-z0-9_]+@@HIXL_[0-9.]+$/ && (substr($3, index($3, "@@") + 2) in ok)))')
[ -z "$bad" ] || fail "unexpected exports: $bad"
exported=$(printf '%s\n' "$syms" | awk '$3 ~ /^hixl_/ { sub(/@@/, " ", $3); print $3 }' | sort)
mapped=$(awk '/^HIXL_[0-9.]* {/ { node = $1 }
	      /^[[:space:]]*hixl_[a-z0-9_]*;/ { sub(/;.*/, ""); print $1, node }' \
	 lib/libhixl-user.map | sort)
[ "$exported" = "$mapped" ] || fail "exports (name and node) differ from lib/libhixl-user.map"

# -- pkg-config, both through the sysroot and through --define-prefix
export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_LIBDIR="$libdir/pkgconfig"
[ "$(pkg-config --modversion hixl-user)" = "$version" ] || fail "pkg-config --modversion"
cflags=$(PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags hixl-user)
libs=$(PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --libs hixl-user)
slibs=$(PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --static --libs hixl-user)
[ "$(pkg-config --define-prefix --cflags hixl-user)" = "$cflags" ] ||
	fail "pkg-config --define-prefix gives other flags than the sysroot"
case "$slibs" in *-pthread*) ;; *) fail "no -pthread in pkg-config --static --libs" ;; esac

src=examples/kv_transfer.c
cc -Wall -Werror -o "$dest/kv_shared" "$src" $cflags $libs ||
	fail "shared build against the installed tree"
# the static library: name the archive instead of -lhixl-user
cc -Wall -Werror -o "$dest/kv_static" "$src" $cflags \
	$(printf '%s\n' "$slibs" | sed 's/-lhixl-user/-l:libhixl-user.a/') ||
	fail "static build against the installed tree"

# the C++ API: header-only, the same pkg-config flags
cxx=${CXX:-g++}
for std in c++11 c++17; do
	$cxx -std=$std -Wall -Wextra -pedantic -Werror -o "$dest/cpp_$std" examples/cpp/hixl_sample.cpp \
		$cflags $libs || fail "C++ ($std) build against the installed tree"
done
$cxx -std=c++17 -Wall -Werror -o "$dest/cpp_static" examples/cpp/hixl_sample.cpp $cflags \
	$(printf '%s\n' "$slibs" | sed 's/-lhixl-user/-l:libhixl-user.a/') ||
	fail "C++ static build against the installed tree"
for h in hixl.hpp hixl_types.hpp; do
	cmp -s lib/include/hixl/$h "$dest$prefix/include/hixl/$h" || fail "hixl/$h differs"
done

resolved=$(LD_LIBRARY_PATH=$libdir ldd "$dest/kv_shared" | awk '$1 == "'$soname'" { print $3 }')
[ "$resolved" = "$libdir/$soname" ] || fail "kv_shared resolves $soname to '$resolved'"
LD_LIBRARY_PATH=$libdir ldd "$dest/kv_static" | grep -q libhixl-user &&
	fail "kv_static depends on the shared library"
nm "$dest/kv_static" | grep -q ' T hixl_engine_init$' || fail "kv_static lacks hixl_engine_init"

# -- man pages: every exported function has one, and they render cleanly
for f in $(printf '%s\n' "$mapped" | cut -d' ' -f1); do
	[ -e "$dest$prefix/share/man/man3/$f.3" ] || fail "no man page for $f"
done
for f in man/*.3 man/*.1 man/*.8; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l -Tutf8 "$f" 2>&1 >/dev/null) ||
		fail "man $f"
	[ -z "$w" ] || fail "man $f: $w"
done
for p in hixl_connect hixl_dev_uring_probe hixlctl hixl-bench; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPATH=$dest$prefix/share/man man -Tutf8 $p 2>&1 >/dev/null) ||
		fail "man $p: $w"
done

# -- the installed tools and their bash completions
tests/tools/hixlctl.sh "$dest$prefix/bin/hixlctl" "$dest$prefix/bin/hixl-bench" ||
	fail "the installed hixlctl and hixl-bench (tests/tools/hixlctl.sh)"
tests/tools/hixl-bench.sh "$dest$prefix/bin/hixl-bench" ||
	fail "the installed hixl-bench's command line (tests/tools/hixl-bench.sh)"
sed -n '/<!-- readme-example:begin -->/,/<!-- readme-example:end -->/p' README.md |
	sed '1,/^```c$/d; /^```$/,$d' >"$dest/readme_example.c"
cc -Wall -Werror -o "$dest/readme_static" "$dest/readme_example.c" $cflags \
	$(printf '%s\n' "$slibs" | sed 's/-lhixl-user/-l:libhixl-user.a/') ||
	fail "the README's example against the installed tree"
tests/tools/no-module.sh "$dest$prefix/bin/hixlctl" "$dest$prefix/bin/hixl-bench" \
	"$dest/kv_static" "$dest/readme_static" ||
	fail "a host without hixl.ko: the README's example and the tools name it (tests/tools/no-module.sh)"
tests/tools/completion.sh "$dest$prefix/share/bash-completion/completions" ||
	fail "the installed bash completions (tests/tools/completion.sh)"

# -- the Python package: installed when Python's headers are (make install),
# importable from the installed tree, its extension finding the library in LIBDIR
pyinc=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null || true)
pydir=$dest/usr/lib/python3/dist-packages
if [ -n "$pyinc" ] && [ -f "$pyinc/Python.h" ]; then
	[ -f "$pydir/hixl/__init__.py" ] || fail "no /usr/lib/python3/dist-packages/hixl"
	PYTHONPATH=$pydir LD_LIBRARY_PATH=$libdir PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c '
import sys, hixl
assert hixl._hixl.__file__.startswith(sys.argv[1]), hixl._hixl.__file__
assert hixl.get_capability(hixl.AUTO_CONNECT) == (hixl.SUCCESS, hixl.FEATURE_SUPPORTED)' "$pydir" ||
		fail "import hixl from the installed tree"
	readelf -d "$pydir"/hixl/_hixl*.so | grep -q "RUNPATH.*\[$prefix/lib\]" ||
		fail "hixl/_hixl*.so: RUNPATH is not $prefix/lib"
	[ -z "$(find "$pydir" -name __pycache__)" ] || fail "byte code installed"
	# pip install into a venv, offline: Debian's pip, setuptools and wheel
	# (/usr/share/python-wheels), the extension built against the installed
	# library (pkg-config through the sysroot), linked by its soname, no
	# RUNPATH (LIBDIR is the linker's own); python -m hixl runs
	venv=$dest/venv
	cp -r python "$dest/pysrc"
	rm -rf "$dest"/pysrc/hixl/_hixl*.so "$dest"/pysrc/hixl/__pycache__ "$dest"/pysrc/build \
		"$dest"/pysrc/*.egg-info
	/usr/bin/python3 -m venv "$venv" >"$dest/venv.log" 2>&1 &&
	"$venv/bin/pip" install -q --no-index --find-links /usr/share/python-wheels wheel \
		>>"$dest/venv.log" 2>&1 &&
	PKG_CONFIG_SYSROOT_DIR=$dest "$venv/bin/pip" install -q --no-index --no-build-isolation \
		"$dest/pysrc" >>"$dest/venv.log" 2>&1 ||
		{ cat "$dest/venv.log" >&2; fail "pip install ./python into a venv"; }
	vext=$(echo "$venv"/lib/python3*/site-packages/hixl/_hixl*.so)
	readelf -d "$vext" | grep -q 'NEEDED.*\[libhixl-user\.so\.[0-9]*\]' ||
		fail "venv: $vext does not link libhixl-user by its soname"
	! readelf -d "$vext" | grep -qE 'RUNPATH|RPATH' || fail "venv: $vext has a RUNPATH"
	(cd / && LD_LIBRARY_PATH=$libdir PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -c '
import sys, hixl, hixl.mooncake
assert hixl.__file__.startswith(sys.argv[1]), hixl.__file__
assert hixl.get_capability(hixl.AUTO_CONNECT) == (hixl.SUCCESS, hixl.FEATURE_SUPPORTED)' "$venv") ||
		fail "import hixl from the venv"
	# the mooncake shim: not installed with hixl, installed on its own
	# (docs/python.md, "Code that imports mooncake.engine")
	[ ! -e "$(echo "$venv"/lib/python3*/site-packages)/mooncake" ] ||
		fail "venv: pip install ./python installed a mooncake package"
	"$venv/bin/pip" install -q --no-index --no-build-isolation "$dest/pysrc/mooncake-shim" \
		>>"$dest/venv.log" 2>&1 ||
		{ cat "$dest/venv.log" >&2; fail "pip install ./python/mooncake-shim into a venv"; }
	(cd / && LD_LIBRARY_PATH=$libdir PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -c '
import sys, hixl, mooncake.engine
from mooncake.engine import TransferEngine, TransferOpcode, TransferNotify, Read, Write
assert mooncake.engine.__file__.startswith(sys.argv[1]), mooncake.engine.__file__
assert mooncake.engine.__hixl__ == hixl.__version__
assert TransferEngine.__module__ == "hixl.mooncake"' "$venv") ||
		fail "from mooncake.engine import TransferEngine in the venv"
	out=$(cd / && LD_LIBRARY_PATH=$libdir "$venv/bin/python" -m hixl 2>&1) || true
	case "$out" in *"libhixl-user $version"*"hixl.ko: "*) ;;
	*) fail "venv: python -m hixl said: $out" ;; esac
fi

# -- uninstall leaves nothing behind (but directories)
make -s uninstall DESTDIR="$dest" PREFIX=$prefix >"$dest/install.log" 2>&1 ||
	{ cat "$dest/install.log" >&2; fail "make uninstall"; }
left=$(find "$dest$prefix" ! -type d)
[ -z "$left" ] || fail "left after uninstall: $left"

# -- the files beside the module (install-module and install-dkms install
# them): the udev rule, the group it names (sysusers.d), loading at boot
# (modules-load.d); an older install's unchanged /etc/udev/rules.d rule,
# which would shadow the new one, goes; the module's own ones are checked
# by check_module_files WHAT
module_files="usr/lib/udev/rules.d/60-hixl.rules usr/lib/sysusers.d/hixl.conf usr/lib/modules-load.d/hixl.conf"
check_module_files() {
	for f in $module_files; do
		[ -f "$dest/$f" ] || fail "$1: no /$f"
	done
	[ -e "$dest/etc/udev/rules.d/60-hixl.rules" ] && fail "$1: the old /etc/udev/rules.d/60-hixl.rules stays"
	rule=$(grep '^KERNEL=="hixl"' "$dest/usr/lib/udev/rules.d/60-hixl.rules")
	group=$(sed -n 's/^g \([^ ]*\) .*/\1/p' "$dest/usr/lib/sysusers.d/hixl.conf")
	[ -n "$group" ] || fail "$1: sysusers.d/hixl.conf creates no group"
	case "$rule" in *"GROUP=\"$group\""*'MODE="0660"'*'OPTIONS+="static_node=hixl"'*) ;;
	*) fail "$1: the udev rule '$rule' does not give /dev/hixl (and its static node) to group $group, 0660" ;;
	esac
	[ "$(grep -Ev '^[#;]|^$' "$dest/usr/lib/modules-load.d/hixl.conf")" = hixl ] ||
		fail "$1: modules-load.d/hixl.conf does not load hixl alone"
	if command -v systemd-sysusers >/dev/null; then
		systemd-sysusers --root="$dest" --dry-run 2>&1 | grep -q "Creating group '$group'" ||
			fail "$1: systemd-sysusers does not create group $group from it"
	fi
}
# files left in the scratch root's /usr, /etc and /lib
leftovers() {
	for d in usr etc lib; do
		[ ! -d "$dest/$d" ] || find "$dest/$d" ! -type d
	done
}
# the unchanged rule install-module put in /etc before 0.1.0 (Makefile OLD_UDEV_SUM)
old_rule() {
	mkdir -p "$dest/etc/udev/rules.d"
	if git show 06ffe48:udev/60-hixl.rules > "$dest/etc/udev/rules.d/60-hixl.rules" 2>/dev/null; then
		sum=$(sed -n 's/^OLD_UDEV_SUM *= *//p' Makefile)
		[ "$(sha256sum < "$dest/etc/udev/rules.d/60-hixl.rules")" = "$sum  -" ] ||
			fail "OLD_UDEV_SUM in the Makefile is not the old rule's sha256"
	else
		rm -rf "$dest/etc"	# not a git checkout with history: not checked
	fi
}

# -- install-dkms: the sources dkms.conf builds, and the files beside the module
old_rule
make -s install-dkms DESTDIR="$dest" >"$dest/install.log" 2>&1 ||
	{ cat "$dest/install.log" >&2; fail "make install-dkms"; }
for f in dkms.conf Kbuild kmod/Kbuild kmod/main.c tests/kunit/Kbuild tests/kunit/xfer_kunit.c uapi/rdma/hixl.h; do
	[ -f "$dest/usr/src/hixl-$version/$f" ] || fail "install-dkms: no /usr/src/hixl-$version/$f"
done
check_module_files install-dkms
make -s uninstall-dkms DESTDIR="$dest" >"$dest/install.log" 2>&1 ||
	{ cat "$dest/install.log" >&2; fail "make uninstall-dkms"; }
left=$(leftovers)
[ -z "$left" ] || fail "left after uninstall-dkms: $left"

# -- install-module: hixl.ko under the release it was built for (its vermagic),
# extra/, with its devname: and char-major- aliases in modules.devname (depmod)
if [ -f kmod/hixl.ko ]; then
	old_rule
	# the kernel it was built for, said (make alone means the running one)
	kver=$(modinfo -F vermagic kmod/hixl.ko | cut -d' ' -f1)
	make -s install-module KVER="$kver" DESTDIR="$dest" >"$dest/install.log" 2>&1 ||
		{ cat "$dest/install.log" >&2; fail "make install-module"; }
	[ -f "$dest/lib/modules/$kver/extra/hixl.ko" ] ||
		fail "install-module: no /lib/modules/$kver/extra/hixl.ko"
	check_module_files install-module
	minor=$(modinfo -F alias kmod/hixl.ko | sed -n 's/^char-major-10-\([0-9]*\)$/\1/p')
	[ -n "$minor" ] && [ "$minor" -lt 255 ] ||
		fail "install-module: hixl.ko has no fixed misc minor alias (char-major-10-N)"
	# depmod in a root of its own: what it writes is not install-module's
	droot=$(mktemp -d "$dest/depmod.XXXXXX")
	install -D -m 0644 "$dest/lib/modules/$kver/extra/hixl.ko" "$droot/lib/modules/$kver/extra/hixl.ko"
	PATH=$PATH:/sbin:/usr/sbin depmod -b "$droot" "$kver" 2>/dev/null ||
		fail "depmod of the installed hixl.ko"
	grep -qx "hixl hixl c10:$minor" "$droot/lib/modules/$kver/modules.devname" ||
		fail "modules.devname lacks 'hixl hixl c10:$minor': $(cat "$droot/lib/modules/$kver/modules.devname")"
	rm -rf "$droot"
	make -s uninstall-module KVER="$kver" DESTDIR="$dest" >"$dest/install.log" 2>&1 ||
		{ cat "$dest/install.log" >&2; fail "make uninstall-module"; }
	left=$(leftovers)
	[ -z "$left" ] || fail "left after uninstall-module: $left"
fi

# -- dkms.conf
bash -n dkms.conf || fail "dkms.conf does not parse"
dv=$(bash -c '. ./dkms.conf && echo "$PACKAGE_NAME $PACKAGE_VERSION ${BUILT_MODULE_NAME[0]}"')
[ "$dv" = "hixl $version hixl" ] || fail "dkms.conf: '$dv', want 'hixl $version hixl'"

echo "install check: ok"
