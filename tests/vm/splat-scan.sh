#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fail (exit 1) when a kernel log holds a report that must never pass a test
# run: BUG, WARNING, KASAN, UBSAN, lockdep, kmemleak, oops, panic, hung task.
# Usage: tests/vm/splat-scan.sh CONSOLE_LOG
set -u
pattern='BUG:|WARNING:|KASAN|UBSAN|general protection fault|Oops|Kernel panic|kernel BUG|'\
'possible circular locking|possible recursive locking|inconsistent lock state|'\
'suspicious RCU usage|DEBUG_LOCKS_WARN_ON|unreferenced object|kmemleak: [0-9]+ new suspected|'\
'INFO: task .* blocked|Call Trace:|list_(add|del) corruption|refcount_t:|stack-protector'
if grep -E -n "$pattern" "$1" > "$1.splats"; then
	echo "splat-scan: kernel reports in $1:" >&2
	head -40 "$1.splats" >&2
	exit 1
fi
exit 0
