#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh default): the main job
# (tools/hixl-bench, WRITE and READ of the KV cache, 32 KiB blocks, 256 per
# layer transfer) with its defaults beside its best known configuration
# (--pool 0:0 --inflight 8), 0.2's defaults (--inflight 1, the staging pool
# by size: stage_policy=1) and perftest's ib_write_bw/ib_read_bw at the same
# 32 KiB, interleaved, the order rotating with the repetition, REPS times.
# Writes "mainjob REP CONFIG OP MIB_PER_S" lines (and "info" lines) to
# $HIXL_WORK/raw.txt; bench/bench-default.py makes the table.
set -u
# hixl's side of every comparison here is RDMA over rxe0: two engines of
# one host would otherwise pair and copy in the kernel (Transport "auto",
# docs/protocol.md "Same-host links"; that path is bench-local-guest.sh's)
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
reps=${REPS:-7}
layers=${LAYERS:-8}
out=$HIXL_WORK/raw.txt
pol=/sys/module/hixl/parameters/stage_policy
block=32768 msgs=$(( layers * 256 ))	# the bytes of one hixl-bench pass
: > "$out"
echo "info kernel $(uname -r)" >> "$out"
echo "info config reps $reps layers $layers block $block" >> "$out"
echo "info stage_policy $(cat $pol) stage_wr_ns $(cat ${pol%/*}/stage_wr_ns) stage_round_ns $(cat ${pol%/*}/stage_round_ns) stage_copy_ps $(cat ${pol%/*}/stage_copy_ps)" >> "$out"

bench() {	# CONFIG POLICY ARGS...: one hixl-bench run, both modes
	local cfg=$1 policy=$2 json
	shift 2
	echo "$policy" > "$pol"
	json=$(tools/hixl-bench --layers "$layers" --iters 1 --json --no-progress "$@" 2> "$HIXL_WORK/bench.err")
	echo 0 > "$pol"
	python3 -c '
import json, sys
rep, cfg, j = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
for r in j["results"]:
    mode, mib, err = r["mode"], r["mib_per_s"], r["error"]
    if r["ok"]:
        print(f"mainjob {rep} {cfg} {mode} {mib:.3f}")
    else:
        print(f"na {rep} {cfg} {mode} {err}")
' "$rep" "$cfg" "$json" >> "$out" || { echo "hixl-bench $cfg: $json"; cat "$HIXL_WORK/bench.err"; }
}

perftest() {	# OP: ib_OP_bw at 32 KiB, the bytes of one hixl-bench pass
	local op=$1 srv try
	# a client that came too early (a loaded host) leaves its server waiting:
	# both are bounded, and the pair is tried again
	for try in 1 2 3; do
		timeout 120 ib_${op}_bw -d rxe0 -R -F -s $block -n $msgs \
			> "$HIXL_WORK/server.log" 2>&1 &
		srv=$!
		sleep 2
		timeout 100 ib_${op}_bw -d rxe0 -R -F -s $block -n $msgs 10.77.0.1 \
			> "$HIXL_WORK/client.log" 2>&1
		wait $srv
		if awk -v blk=$block '$1 == blk && NF >= 5 { f = 1 } END { exit !f }' \
			"$HIXL_WORK/client.log"; then
			awk -v rep="$rep" -v op="$op" -v blk=$block \
				'$1 == blk && NF >= 5 { printf "mainjob %s perftest %s %.3f\n", rep, op, $4 }' \
				"$HIXL_WORK/client.log" >> "$out"
			return
		fi
		echo "perftest $op, try $try: no result" >&2
	done
	echo "na $rep perftest $op no result in 3 tries" >> "$out"
}

configs=(defaults best v0.2 perftest-write perftest-read)
for rep in $(seq "$reps"); do
	for k in "${!configs[@]}"; do
		c=${configs[$(( (k + rep - 1) % ${#configs[@]} ))]}
		case $c in
		defaults) bench defaults 0 ;;
		best) bench best 0 --pool 0:0 --inflight 8 ;;
		v0.2) bench v0.2 1 --inflight 1 ;;
		perftest-write) perftest write ;;
		perftest-read) perftest read ;;
		esac
	done
	echo "rep $rep done" >&2
done
cat "$out"
