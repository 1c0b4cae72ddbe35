#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh crossover): where staging beats
# direct work requests.  bench-matrix's hixl tools with the staging pool off
# (hixl-sync, hixl-async) beside the same batches on engines with HIXL's
# default pool 4:8 (hixl-sync-pool, hixl-async-pool), interleaved point by
# point, over descriptor sizes 64 B..256 KiB and batches of 1..256.  With
# the module parameter stage_policy=1 (the fixed rule: every host descriptor
# below 256 KiB staged) the -pool tools measure staging itself; with the
# default (0, by cost) they measure what the defaults do.
# Writes bench-matrix's raw lines to $HIXL_WORK/raw.txt.
set -u
# hixl's side of every comparison here is RDMA over rxe0: two engines of
# one host would otherwise pair and copy in the kernel (Transport "auto",
# docs/protocol.md "Same-host links"; that path is bench-local-guest.sh's)
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
out=$HIXL_WORK/raw.txt
pol=/sys/module/hixl/parameters/stage_policy
if [ -n "${STAGE_POLICY:-}" ] && [ -w "$pol" ]; then
	echo "$STAGE_POLICY" > "$pol"
fi
[ -r "$pol" ] && echo "info stage_policy $(cat "$pol")" > "$out" || : > "$out"
bench/bench-matrix run --tools "${TOOLS:-hixl-sync,hixl-sync-pool,hixl-async,hixl-async-pool}" \
	--blocks "${BLOCKS:-64B,512B,2,4,8,16,32,64,256}" --batches "${BATCHES:-1,8,32,256}" \
	--reps "${REPS:-3}" --min-mib "${MIN_MIB:-8}" --max-msgs "${MAX_MSGS:-4096}" \
	--pool 4:8 >> "$out"
rc=$?
cat "$out"
exit $rc
