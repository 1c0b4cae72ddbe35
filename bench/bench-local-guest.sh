#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (bench/results-local.md, issue 14): the
# same-host path (HIXL_TRANSPORT=auto: the two engines of bench-matrix pair)
# vs RDMA over rxe0 (HIXL_TRANSPORT=rdma) vs single-thread memcpy, WRITE and
# READ, blocks of 64 KiB..4 MiB, batches of 1 and 8, hixl-sync (one
# TRANSFER ioctl at a time), interleaved per repetition.  Raw lines to
# $HIXL_WORK/raw-local.txt; build/memcpy-blocks is bench/memcpy-blocks.c.
set -u
out=$HIXL_WORK/raw-local.txt
: > "$out"
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
reps=${REPS:-3}
blocks=${BLOCKS:-64,256,1024,4096}
bench/bench-matrix memcpy --mib 256 --reps 5 >> "$out"
for r in $(seq "$reps"); do
	for t in auto rdma; do
		echo "bench-local: rep $r transport $t" >&2
		HIXL_TRANSPORT=$t bench/bench-matrix run --ops write,read --blocks "$blocks" \
			--batches 1,8 --tools hixl-sync --reps 1 --min-mib "${MIN_MIB:-64}" |
			sed "s/^res [0-9]* hixl-sync/res $r hixl-$t/" >> "$out"
	done
	for b in ${blocks//,/ }; do
		build/memcpy-blocks "$b" "${MIN_MIB:-64}" 1 >> "$out"
	done
done
echo "bench-local: done" >&2
