#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make-kernel.sh - TAP: which kernel `make` builds hixl.ko for.  The running
# kernel is faked (RUNNING_KVER=, what the Makefile takes from uname -r) as
# one without headers:
#   1. make module stops (exit status not 0) naming the running kernel and
#      the package to install, linux-headers-RELEASE, and builds nothing;
#   2. make install-module stops the same way and installs nothing (DESTDIR);
#   3. KVER=RELEASE of a kernel whose headers are installed is what make
#      module builds against (make -n: the command only), SKIP when no
#      /lib/modules/*/build exists;
#   4. make userspace needs no kernel headers (make -n).
# No build, no root: a few seconds.
set -u
cd "$(dirname "$0")/../.." || exit 1
fake=0.0.0-hixl-no-headers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out"; }
echo "1..4"

if make -s module RUNNING_KVER=$fake >"$tmp/out" 2>&1; then
	nok "make module without the running kernel's headers stops"
elif grep -qF "no headers for the running kernel $fake" "$tmp/out" &&
     grep -qF "apt-get install linux-headers-$fake" "$tmp/out" &&
     ! grep -q '^module: hixl.ko against' "$tmp/out"; then
	ok "make module without the running kernel's headers stops, naming linux-headers-$fake"
else
	nok "make module without the running kernel's headers stops, naming linux-headers-$fake"
fi

if make -s install-module RUNNING_KVER=$fake DESTDIR="$tmp/root" >"$tmp/out" 2>&1; then
	nok "make install-module without the running kernel's headers stops"
elif grep -qF "linux-headers-$fake" "$tmp/out" && [ -z "$(find "$tmp/root" -type f 2>/dev/null)" ]; then
	ok "make install-module without the running kernel's headers stops, installs nothing"
else
	nok "make install-module without the running kernel's headers stops, installs nothing"
fi

other=$(ls -d /lib/modules/*/build 2>/dev/null | head -1 | sed 's|^/lib/modules/\(.*\)/build$|\1|')
if [ -z "$other" ]; then
	echo "ok 3 - KVER= picks another kernel # SKIP no kernel headers installed here"
	n=3
elif make -n module RUNNING_KVER=$fake KVER="$other" >"$tmp/out" 2>&1 &&
     grep -qF "make -C /lib/modules/$other/build M=" "$tmp/out"; then
	ok "KVER=$other builds against /lib/modules/$other/build"
else
	nok "KVER=$other builds against /lib/modules/$other/build"
fi

if make -n userspace RUNNING_KVER=$fake >"$tmp/out" 2>&1 && ! grep -q 'linux-headers\|M=' "$tmp/out"; then
	ok "make userspace needs no kernel headers"
else
	nok "make userspace needs no kernel headers"
fi
