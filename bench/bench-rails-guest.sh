#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-rails`, and
# `make bench` unless BENCH_RAILS=0): one rail vs two rails, and two rails
# with the second one taken away mid-batch, WRITE and READ of one large
# batch (RAILS_MIB of RAILS_BLOCK_KIB descriptors), interleaved per
# repetition, the order rotating:
#   rails-1       two engines on 10.77.0.1 (rxe0), no extra rail
#   rails-2       the same with the extra rail 10.78.0.1 (rxe1 on veth2)
#                 on both (the library's option "Rails": SETUP's
#                 HIXL_SETUP_RAILS)
#   rails-2-down  rails-2, and `rdma link delete rxe1` once a quarter of
#                 the batch has landed; re-added after the batch
# Each measurement is one bench/bench-rails run (a fresh pair of engines;
# its header says what it times and checks).  Raw lines to $1 (default
# $HIXL_WORK/raw-rails.txt), plus "rxe DEV sent_pkts" deltas per
# measurement (which rail carried the packets); bench/railsreport.py makes
# the table.  Settings: RAILS_REPS (5), RAILS_MIB (64), RAILS_BLOCK_KIB
# (1024).  Ports 24900-24905.
set -u
out=${1:-$HIXL_WORK/raw-rails.txt}
: > "$out"
reps=${RAILS_REPS:-5}
mib=${RAILS_MIB:-64}
blk=${RAILS_BLOCK_KIB:-1024}
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
echo "info cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" >> "$out"
echo "info config reps $reps mib $mib block_kib $blk" >> "$out"
echo "info rails $(rdma link show | awk '{ printf "%s(%s,%s) ", $2, $4, $NF }')" >> "$out"

# rxe's packet counters (hw_counters/sent_pkts) of a device, 0 without them
pkts() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts" 2>/dev/null || echo 0
}
one() {	# REP CONFIG OP PORT TOOL
	local tool=$5 s0 s1 rc
	s0="$(pkts rxe0) $(pkts rxe1)"
	bench/bench-rails --rep "$1" --config "$2" --op "$3" --port "$4" --mib "$mib" \
		--block-kib "$blk" >> "$out"
	rc=$?
	s1="$(pkts rxe0) $(pkts rxe1)"
	set -- "$1" "$tool" "$3" $s0 $s1
	echo "pkts $1 $2 $3 rxe0 $(( $6 - $4 )) rxe1 $(( $7 - $5 ))" >> "$out"
	return $rc
}
configs=(one two two-down)
tools=(rails-1 rails-2 rails-2-down)
ports=(24900 24902 24904)
fails=0
for r in $(seq "$reps"); do
	for op in write read; do
		for i in 0 1 2; do
			k=$(( (i + r) % 3 ))
			echo "bench-rails: rep $r $op ${configs[$k]}"
			one "$r" "${configs[$k]}" "$op" "${ports[$k]}" "${tools[$k]}"
			case $? in
			0) ;;
			77) echo "bench-rails: SKIP: $(tail -1 "$out")"; exit 77 ;;
			*) fails=$((fails + 1)) ;;
			esac
		done
	done
done
echo "info failed_measurements $fails" >> "$out"
exit 0
