#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/nixl/run-gtest.sh - NIXL's own generic backend test for HIXL
# (build/nixl/nixl-gtest-hixl, tests/nixl/gtest/hixl_transfer.cpp) as TAP on
# stdout, one result per GoogleTest test ("[ OK ]" ok, "[ FAILED ]" not ok,
# "[ SKIPPED ]" a skip), its whole output in $1 (default
# $HIXL_WORK/nixl-gtest.log).  Only the HIXL instantiations run
# (--gtest_filter='hixl*'; NIXL's own are for UCX), but RandomSizes with the
# progress thread (the same
# data path as without it, 27 s on the debug kernel); NIXL's 2000
# registrations in one process are within hixl.ko's max_regions.  "1..0 # SKIP why" and exit
# 77 when the binary is not built (no NIXL source tree or no GoogleTest at
# `make nixl`); exit 1 when a test failed or the run did not finish.
log=${1:-$HIXL_WORK/nixl-gtest.log}
bin=build/nixl/nixl-gtest-hixl
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP NIXL's gtest for HIXL is not built (make nixl needs NIXL's source tree, NIXL_SRC, and libgtest-dev)"
	exit 77
fi
NIXL_PLUGIN_DIR=$PWD/build/nixl timeout 600 "$bin" --tests_plugin_dirs="$PWD/build/nixl" \
	--gtest_filter='hixl*:-hixl_pt/*RandomSizes*' > "$log" 2>&1
rc=$?
awk -v rc="$rc" '
	# a test'"'"'s result line ends "(N ms)"; the summary lists the failed again without
	/^\[ RUN      \] /   { nd = 0; next }
	/^\[       OK \] .* ms\)$/ { n++; print "ok " n " - NIXL gtest " $4; next }
	/^\[  FAILED  \] .* ms\)$/ {
		# what it printed: GoogleTest'"'"'s failures and NIXL'"'"'s errors
		for (i = (nd > 40 ? nd - 40 : 0); i < nd; i++) print "# " d[i]
		t = $4; sub(/,$/, "", t)
		n++; bad++; print "not ok " n " - NIXL gtest " t; next }
	/^\[  SKIPPED \] .* ms\)$/ { n++; print "ok " n " - NIXL gtest " $4 " # SKIP"; next }
	/^\[/ { next }
	/telemetry is not enabled/ { next }
	/^[EW][0-9]|Failure|Expected|Which is|Value of|Actual|^  / { d[nd++] = $0 }
	END {
		if (n == 1) { n++; bad++; print "not ok " n " - NIXL gtest ran no test (exit status " rc ")" }
		else if (rc != 0 && !bad) { n++; bad++; print "not ok " n " - NIXL gtest exit status " rc }
		print "1.." n
		exit bad ? 1 : 0
	}' "$log"
