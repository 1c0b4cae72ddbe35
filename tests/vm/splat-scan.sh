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
# A user-space process's fault, as the kernel logs it ("traps: ib_write_bw[819]
# general protection fault ip:... sp:... error:0 in librdmacm.so..."; seen
# from perftest in `make bench`), is that program's crash, not a kernel
# report: the program's own exit status says it.  A kernel GPF reads
# "general protection fault, probably for non-canonical address" or
# "general protection fault: 0000 [#1]" and comes with an Oops.
user_trap='\] traps: [^ ]+\[[0-9]+\] general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+( in .*)?$'
if grep -E -n "$pattern" "$1" | grep -E -v "$user_trap" > "$1.splats"; then
	echo "splat-scan: kernel reports in $1:" >&2
	head -40 "$1.splats" >&2
	exit 1
fi
exit 0
