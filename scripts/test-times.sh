#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user tests' wall times from hixl-test's TAP ("# took NAME SECONDS s",
# tests/user/main.c), slowest first, and their sum: where a VM stage of
# `make check` spends its time.
#
# Usage: scripts/test-times.sh [-n N] USER.TAP...
#   e.g. scripts/test-times.sh -n 10 build/vm/debug/user.tap
# Several files: one column per file (a test missing from one shows "-"),
# sorted by the first.
set -euo pipefail
n=0
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: scripts/test-times.sh [-n N] USER.TAP..." >&2; exit 2; }
awk -v n="$n" '
FNR == 1 { f++; name[f] = FILENAME }
/^# took / { t[$3, f] = $4; if (!($3 in seen)) { seen[$3] = 1; order[++k] = $3 } sum[f] += $4 }
END {
	for (i = 1; i <= k; i++) v[i] = (order[i], 1) in t ? t[order[i], 1] : -1
	# slowest first by the first file (insertion sort: a few hundred tests)
	for (i = 2; i <= k; i++) {
		x = order[i]; y = v[i]
		for (j = i - 1; j >= 1 && v[j] < y; j--) { order[j + 1] = order[j]; v[j + 1] = v[j] }
		order[j + 1] = x; v[j + 1] = y
	}
	for (i = 1; i <= k && (n == 0 || i <= n); i++) {
		line = sprintf("%-40s", order[i])
		for (g = 1; g <= f; g++)
			line = line sprintf(" %8s", (order[i], g) in t ? t[order[i], g] : "-")
		print line
	}
	line = sprintf("%-40s", "sum (" k " tests)")
	for (g = 1; g <= f; g++) line = line sprintf(" %8.1f", sum[g])
	print line
}' "$@"
