#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# no-module.sh HIXLCTL HIXL_BENCH KV_TRANSFER README_EXAMPLE - a fresh host
# without hixl.ko: what a new user runs first must name the missing module
# and how to load it.  The README's example (cut out of README.md and built
# by the caller), examples/kv_transfer, `hixlctl check` and hixl-bench each
# fail, and their output names hixl.ko and modprobe hixl (the library's
# hixl_last_error() and hixl_error_hint() for -ENOPKG; hixlctl check's fix).
# hixlctl info, stats (text, --json, --prometheus) and the debugfs tables
# say the same, with the hint, and do not name hmac(sha256).
# Run by scripts/check-install.sh on the installed programs.  Where hixl.ko
# is loaded, prints SKIP (the test VM covers that side: tests/user
# test_errors.c).  Exit status 0 and "no-module: ok" when all is well.
set -u

[ $# = 4 ] || { echo "usage: $0 HIXLCTL HIXL_BENCH KV_TRANSFER README_EXAMPLE" >&2; exit 2; }
if [ -e /sys/module/hixl ] || [ -e /dev/hixl ]; then
	echo "no-module: SKIP: hixl.ko is loaded here"
	exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
fail() { echo "no-module: FAIL: $*" >&2; sed 's/^/  | /' "$out" >&2; exit 1; }

# expect NAME WANT_STATUS PATTERN... : the last run's output has every PATTERN
expect() {
	name=$1 want=$2
	shift 2
	[ "$rc" = "$want" ] || fail "$name: exit status $rc, not $want"
	for p; do
		grep -qF -- "$p" "$out" || fail "$name: no '$p' in its output"
	done
}

"$4" >"$out" 2>&1; rc=$?
expect "the README's example" 1 "hixl.ko is not loaded" "modprobe hixl"
"$3" >"$out" 2>&1; rc=$?
expect "examples/kv_transfer" 77 "NO_MODULE" "hixl.ko is not loaded" "hint: " "modprobe hixl" \
	"make install-module"
"$1" check >"$out" 2>&1; rc=$?
expect "hixlctl check" 1 "FAIL  module     hixl.ko is not loaded" "modprobe hixl"
# expect_not NAME PATTERN... : the last run's output has no PATTERN
expect_not() {
	name=$1
	shift
	for p; do
		! grep -qF -- "$p" "$out" || fail "$name: '$p' in its output"
	done
}
# info and stats (all three forms: a textfile collector's cron runs the
# last) say the same; neither names hmac(sha256), which only a secret
# needs and hixlctl never asks for
for cmd in info stats "stats --json" "stats --prometheus"; do
	# shellcheck disable=SC2086
	"$1" $cmd >"$out" 2>&1; rc=$?
	expect "hixlctl $cmd" 1 "hixlctl: /dev/hixl: the kernel module hixl.ko is not loaded" \
		"(ENOPKG)" "hint: " "modprobe hixl"
	expect_not "hixlctl $cmd" "hmac" "Package not installed"
done
# the debugfs tables: the missing module, not a missing file
for cmd in engines regions links; do
	"$1" $cmd >"$out" 2>&1; rc=$?
	expect "hixlctl $cmd" 1 "hixl.ko is not loaded" "hint: " "modprobe hixl"
	expect_not "hixlctl $cmd" "No such file" "hmac"
done
"$2" --tokens 16 --iters 1 --no-progress >"$out" 2>&1; rc=$?
[ "$rc" != 0 ] || fail "hixl-bench: exit status 0 without the module"
expect "hixl-bench" "$rc" "hixl.ko is not loaded" "modprobe hixl"
echo "no-module: ok"
