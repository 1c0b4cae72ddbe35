#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh xfer): hixl and perftest, WRITE and
# READ, 1 MiB blocks, 256 MiB per run, interleaved, REPS times each.
# Writes "TOOL OP BLOCK TOTAL SECONDS" lines to $HIXL_WORK/raw.txt.
set -u
# hixl's side of every comparison here is RDMA over rxe0: two engines of
# one host would otherwise pair and copy in the kernel (Transport "auto",
# docs/protocol.md "Same-host links"; that path is bench-local-guest.sh's)
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
reps=${REPS:-3}
out=$HIXL_WORK/raw.txt
: > "$out"
block=1048576 iters=256
for rep in $(seq "$reps"); do
	for op in write read; do
		bench/bench-xfer --total 256 --block 1024 --reps 1 --op "$op" >> "$out" || exit 1
		ib_${op}_bw -d rxe0 -R -F -s $block -n $iters > "$HIXL_WORK/server.log" 2>&1 &
		srv=$!
		sleep 1
		ib_${op}_bw -d rxe0 -R -F -s $block -n $iters 10.77.0.1 > "$HIXL_WORK/client.log" 2>&1
		wait $srv
		# the result row: bytes iterations peak avg msgrate; avg is MiB/s
		awk -v op="$op" -v total=$((block * iters)) -v blk=$block \
			'$1 == blk && NF >= 5 { printf "perftest %s %d %d %.6f\n", op, blk, total, total / ($4 * 1048576) }' \
			"$HIXL_WORK/client.log" >> "$out"
		grep -q "^perftest $op" "$out" || { echo "perftest $op failed:"; cat "$HIXL_WORK/client.log" "$HIXL_WORK/server.log"; exit 1; }
	done
done
cat "$out"
