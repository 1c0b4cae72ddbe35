#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-scale`): the scale curves of
# bench/bench-scale (its header says what each mode times and checks).
# Per repetition, in this order: links mode for each count of SCALE_LINKS
# (a hub and N peer engines; CONNECT time, kernel memory and RDMA
# resources before and after the N links; the KV job fanned out and in,
# the order alternating with the repetition), reg mode (SCALE_REG_MIB MiB
# registered on one engine, kernel memory before and after), and descs
# mode (one request of D descriptors for each D of SCALE_DESCS, WRITE and
# READ).  Raw lines to $1 (default $HIXL_WORK/raw-scale.txt);
# bench/scalereport.py makes the tables and the plot.  Settings: SCALE_REPS
# (3), SCALE_LINKS ("1 8 32 128"), SCALE_DESCS ("1 4 16 64 256 1024 4096
# 16384 65536"), SCALE_TOTAL_MIB (64: bytes of one fan-out or fan-in, all
# links together), SCALE_REG_MIB (1024).  Ports 29500-29710.
#
# The module's limits this needs are its defaults: max_links (512) is per
# engine and the hub has at most 128; max_regions (4096) and
# max_host_bytes (20 GiB) are per process, 129 registrations of 128 MiB in
# all at most; max_setup_links (64) counts accepted links still in their
# handshake per engine, and every peer accepts one.  They are written to
# the raw file as info lines, and the run stops if one is below that.
set -u
out=${1:-$HIXL_WORK/raw-scale.txt}
: > "$out"
reps=${SCALE_REPS:-3}
links=${SCALE_LINKS:-1 8 32 128}
descs=${SCALE_DESCS:-1 4 16 64 256 1024 4096 16384 65536}
total=${SCALE_TOTAL_MIB:-64}
reg=${SCALE_REG_MIB:-1024}
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
echo "info memtotal_kib $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" >> "$out"
echo "info config reps $reps links ${links// /,} total_mib $total block_kib 32 req_descs 256 reg_mib $reg descs ${descs// /,} desc_block_kib 4" >> "$out"
maxn=0
for n in $links; do [ "$n" -gt "$maxn" ] && maxn=$n; done
for p in max_links max_regions max_host_bytes max_setup_links; do
	v=$(cat "/sys/module/hixl/parameters/$p" 2>/dev/null || echo 0)
	echo "info param $p $v" >> "$out"
done
if [ "$(cat /sys/module/hixl/parameters/max_links)" -lt "$maxn" ] ||
	[ "$(cat /sys/module/hixl/parameters/max_regions)" -le "$maxn" ]; then
	echo "bench-scale: max_links or max_regions below $maxn links" >&2
	exit 1
fi
fails=0
run() {	# the bench-scale arguments; its lines to $out
	echo "bench-scale: $*"
	bench/bench-scale "$@" >> "$out"
	case $? in
	0) ;;
	77) echo "bench-scale: SKIP: $(tail -1 "$out")"; echo "info skipped $(tail -1 "$out")" >> "$out"; exit 0 ;;
	*) fails=$((fails + 1)); echo "bench-scale: FAILED: $*" ;;
	esac
}
for r in $(seq "$reps"); do
	for n in $links; do
		run --mode links --links "$n" --total-mib "$total" --rep "$r" --port 29500
	done
	run --mode reg --reg-mib "$reg" --rep "$r" --port 29710
	run --mode descs --descs "${descs// /,}" --rep "$r" --port 29700
done
echo "info failed_measurements $fails" >> "$out"
exit 0
