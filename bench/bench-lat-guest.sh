#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh lat, `make bench-lat`, and
# bench/bench-all-guest.sh for `make bench`): the latency of one synchronous
# 1-descriptor transfer, 64 B and 4 KiB, WRITE and READ - hixl
# (bench/bench-lat) with hybrid polling on (the module's poll_us as loaded)
# and off (poll_us=0, through /sys/module/hixl/parameters) beside perftest's
# ib_write_lat / ib_read_lat and the kernel verbs floor (bench/kverbs:
# kverbs_lat.ko from build/kverbs-KERNEL, bench/bench.sh builds it) with
# 0, 20 and 50 us between a completion and the next post - interleaved,
# their order rotating with the repetition; then the sync 4 KiB batch-1
# throughput and CPU per GiB with polling on and off beside ib_write_bw /
# ib_read_bw (bench/bench-matrix run, one point); then where one TRANSFER's
# time goes: the same runs of hixl (polling on) and of the floor (no gap and
# 20 us) once more under tracefs (the ioctl's entry and exit, hixl's
# submit and complete tracepoints, kprobes on rxe's post and CQE, rxe's
# work items), each stage's p50 by bench/latstages.py.
#
# Output: $1 (default $HIXL_WORK/raw-lat.txt), lines
#   lat REP TOOL OP SIZE N P50_US P99_US MEAN_US MIN_US MAX_US CPU_SECONDS SECONDS
#       (perftest: CPU_SECONDS and SECONDS are "-"; its P50 is t_typical,
#        its P99 the "99% percentile", MIN/MAX t_min/t_max, as it prints them)
#   res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS   (bench-matrix's)
#   stage TOOL OP SIZE STAGE N P50_US        (bench/latstages.py's)
#   info KEY VALUE...
# TOOL: hixl-poll, hixl-nopoll, perftest, kverbs, kverbs-gap20,
# kverbs-gap50 (kverbs: CPU_SECONDS and SECONDS "-"); in res lines
# hixl-sync-poll, hixl-sync-nopoll, perftest.
# Settings (environment): LAT_REPS (3), LAT_ITERS (2000 ops per run),
# LAT_SIZES ("64 4096"), LAT_MIN_MIB (16: bytes per throughput point),
# LAT_STAGES (1; 0: no traced runs).
set -u
# hixl's side of every comparison here is RDMA over rxe0: two engines of
# one host would otherwise pair and copy in the kernel (Transport "auto",
# docs/protocol.md "Same-host links"; that path is bench-local-guest.sh's)
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
out=${1:-$HIXL_WORK/raw-lat.txt}
reps=${LAT_REPS:-3} iters=${LAT_ITERS:-2000} sizes=${LAT_SIZES:-64 4096}
param=/sys/module/hixl/parameters/poll_us
: > "$out"
[ -w "$param" ] || { echo "bench-lat: no $param (module without hybrid polling?)" >&2; exit 1; }
on=$(cat "$param")
[ "$on" != 0 ] || on=200
info() { echo "info $*" >> "$out"; }
info kernel "$(uname -r)"
info ncpu "$(nproc)"
info perftest "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
info poll_us "$on"
info lat_iters "$iters"
start=$(date +%s)

run_hixl() {	# REP TOOL POLL OP SIZE
	echo "$3" > "$param"
	bench/bench-lat --rep "$1" --tool "$2" --op "$4" --size "$5" --iters "$iters" >> "$out" ||
		{ echo "bench-lat: hixl $4 $5 failed" >&2; return 1; }
}

run_perftest() {	# REP OP SIZE
	local log=$HIXL_WORK/lat-client.log try
	timeout 180 ib_"$2"_lat -d rxe0 -R -F -s "$3" -n "$iters" > "$HIXL_WORK/lat-server.log" 2>&1 &
	local srv=$!
	# a client that finds no listener yet (the CM rejects it) starts again
	for try in 1 2 3 4 5; do
		sleep 1
		timeout 60 ib_"$2"_lat -d rxe0 -R -F -s "$3" -n "$iters" 10.77.0.1 > "$log" 2>&1 && break
	done
	sleep 1
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	# bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	awk -v rep="$1" -v op="$2" -v sz="$3" \
		'$1 == sz && NF >= 9 { printf "lat %s perftest %s %s %s %s %s %s %s %s - -\n", rep, op, sz, $2, $5, $8, $6, $3, $4 }' \
		"$log" >> "$out"
	grep -q "^lat $1 perftest $2 $3 " "$out" ||
		{ echo "bench-lat: ib_$2_lat $3 failed:"; cat "$log" "$HIXL_WORK/lat-server.log"; } >&2
	return 0
}

# kverbs_lat.ko: one run, the poster busy-waiting GAP microseconds between
# a completion and its next post (as a caller's own work between transfers
# would); its line in the kernel log becomes a lat line
kverbs=build/kverbs-$(uname -r)/kverbs_lat.ko
run_kverbs() {	# REP TOOL GAP OP SIZE
	local line before
	if [ ! -f "$kverbs" ]; then
		echo "na $1 $2 $4 $5 1 $kverbs not built (bench/bench.sh builds it)" >> "$out"
		return 0
	fi
	before=$(dmesg | grep -c 'kverbs_lat op=')
	insmod "$kverbs" op="$4" size="$5" iters="$iters" gap_us="$3" ||
		{ echo "bench-lat: kverbs_lat $4 $5 gap $3 failed:"; dmesg | tail -5; } >&2
	rmmod kverbs_lat 2>/dev/null
	line=$(dmesg | grep -o 'kverbs_lat op=.*' | sed -n "$((before + 1))p")
	[ -n "$line" ] || return 0
	# p50_ns p99_ns mean_ns min_ns max_ns -> microseconds
	echo "$line" | awk -v rep="$1" -v tool="$2" -v op="$4" -v sz="$5" -v n="$iters" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "lat %s %s %s %s %s %.2f %.2f %.2f %.2f %.2f - -\n", rep, tool, op, sz, n,
			v["p50_ns"] / 1000, v["p99_ns"] / 1000, v["mean_ns"] / 1000,
			v["min_ns"] / 1000, v["max_ns"] / 1000 }' >> "$out"
}

tools=(hixl-poll hixl-nopoll perftest kverbs kverbs-gap20 kverbs-gap50)
for rep in $(seq "$reps"); do
	for size in $sizes; do
		for op in write read; do
			for i in 0 1 2 3 4 5; do
				t=${tools[$(( (i + rep) % 6 ))]}
				echo "bench-lat: rep $rep $op $size $t" >&2
				case $t in
				hixl-poll) run_hixl "$rep" "$t" "$on" "$op" "$size" || exit 1 ;;
				hixl-nopoll) run_hixl "$rep" "$t" 0 "$op" "$size" || exit 1 ;;
				perftest) run_perftest "$rep" "$op" "$size" || exit 1 ;;
				kverbs) run_kverbs "$rep" "$t" 0 "$op" "$size" ;;
				kverbs-gap*) run_kverbs "$rep" "$t" "${t#kverbs-gap}" "$op" "$size" ;;
				esac
			done
		done
	done
done

# the sync 4 KiB batch-1 throughput, polling on and off, beside perftest
for rep in $(seq "$reps"); do
	for p in "$on" 0; do
		[ "$p" = 0 ] && name=hixl-sync-nopoll || name=hixl-sync-poll
		echo "$p" > "$param"
		echo "bench-lat: rep $rep throughput poll_us=$p" >&2
		bench/bench-matrix run --blocks 4 --batches 1 --tools hixl-sync,perftest --reps 1 \
			--min-mib "${LAT_MIN_MIB:-16}" |
			sed -n "s/^res 1 hixl-sync /res $rep $name /p; s/^res 1 perftest /res $rep perftest /p; s/^na 1 /na $rep /p" \
			>> "$out"
	done
done
# where the time goes: stage timestamps from tracefs, one traced run a tool
T=/sys/kernel/tracing
stage_probes() {
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
	[ -w $T/kprobe_events ] || { echo "no $T/kprobe_events"; return 1; }
	echo 0 > $T/tracing_on
	{ echo 'p:hixlbench/post rxe_post_send' && echo 'p:hixlbench/cqpost rxe_cq_post'; } \
		> $T/kprobe_events 2>/dev/null || { echo "kprobes on rxe_post_send/rxe_cq_post refused"; return 1; }
	echo 4096 > $T/buffer_size_kb
	echo 'id == 16' > $T/events/raw_syscalls/sys_enter/filter
	echo 'id == 16' > $T/events/raw_syscalls/sys_exit/filter
	for e in hixlbench raw_syscalls/sys_enter raw_syscalls/sys_exit hixl/hixl_xfer_submit \
		 hixl/hixl_xfer_complete workqueue/workqueue_execute_start; do
		echo 1 > $T/events/$e/enable || { echo "no tracepoint $e"; return 1; }
	done
}
stage_off() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	echo > $T/kprobe_events
	echo 0 > $T/events/raw_syscalls/sys_enter/filter
	echo 0 > $T/events/raw_syscalls/sys_exit/filter
}
run_stage() {	# TOOL OP SIZE
	local trace=$HIXL_WORK/stages-$1-$2-$3.txt
	echo > $T/trace
	echo 1 > $T/tracing_on
	case $1 in
	hixl-poll) echo "$on" > "$param"
		bench/bench-lat --rep 1 --tool "$1" --op "$2" --size "$3" --iters "$iters" > /dev/null ;;
	kverbs) insmod "$kverbs" op="$2" size="$3" iters="$iters" gap_us=0 && rmmod kverbs_lat ;;
	kverbs-gap20) insmod "$kverbs" op="$2" size="$3" iters="$iters" gap_us=20 && rmmod kverbs_lat ;;
	esac
	echo 0 > $T/tracing_on
	cat $T/trace > "$trace"
	python3 bench/latstages.py --tool "$1" --op "$2" --size "$3" "$trace" >> "$out"
}
if [ "${LAT_STAGES:-1}" != 0 ]; then
	if why=$(stage_probes); then
		for size in $sizes; do
			for op in write read; do
				for t in hixl-poll kverbs kverbs-gap20; do
					echo "bench-lat: traced $op $size $t" >&2
					[ "$t" = hixl-poll ] || [ -f "$kverbs" ] || continue
					run_stage "$t" "$op" "$size"
				done
			done
		done
	else
		echo "na 1 stages - - 1 not traced: $why" >> "$out"
	fi
	stage_off
fi
echo "$on" > "$param"
info lat_seconds "$(( $(date +%s) - start ))"
cat "$out"
