#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# hixl-textfile.sh - write `hixlctl stats --prometheus` into node_exporter's
# textfile collector directory, atomically: the output goes to a hidden
# temporary file in the same directory (node_exporter reads only *.prom),
# which is renamed over hixl.prom once complete, so a scrape never sees
# half a file.  Run by hixl-textfile.service every 15 s (hixl-textfile.timer).
#
# Usage: hixl-textfile.sh [DIR]
#   DIR  the collector's directory (node_exporter --collector.textfile.directory;
#        default /var/lib/prometheus/node-exporter, Debian's)
# Environment: HIXLCTL, the hixlctl to run (default: hixlctl on PATH).
#
# When hixlctl fails (no hixl.ko, /dev/hixl not readable by this user) the
# old hixl.prom is removed, so that no stale numbers are served as current,
# and the exit status is hixlctl's; node_exporter's
# node_textfile_mtime_seconds{file="hixl.prom"} tells when it was last written.
set -eu
dir=${1:-/var/lib/prometheus/node-exporter}
hixlctl=${HIXLCTL:-hixlctl}
[ -d "$dir" ] || { echo "hixl-textfile: no directory $dir" >&2; exit 1; }
tmp=$(mktemp "$dir/.hixl.prom.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM
if "$hixlctl" stats --prometheus > "$tmp"; then
	chmod 0644 "$tmp"
	mv -f "$tmp" "$dir/hixl.prom"
else
	rc=$?
	rm -f "$dir/hixl.prom"
	echo "hixl-textfile: $hixlctl stats --prometheus failed (exit $rc): $dir/hixl.prom removed" >&2
	exit "$rc"
fi
