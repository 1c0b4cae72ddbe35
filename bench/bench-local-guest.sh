#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-local`, and `make
# bench` unless BENCH_LOCAL=0): the same-host path against its peers, WRITE
# and READ, blocks of 64 KiB..4 MiB, batches of 1 and 8, interleaved per
# repetition, the order rotating:
#   hixl-local-1    HIXL_TRANSPORT=auto (the two engines of bench-matrix
#                   pair) with local_copy_threads=1: the copy inline, one CPU
#   hixl-local-par  the same with local_copy_threads=-1 (the default:
#                   min(online CPUs, 16)): batches of 2 MiB and more split
#   hixl-rdma       HIXL_TRANSPORT=rdma: rxe0 moves the bytes
#   ucx-intra       ucx_perftest ucp_put_bw/ucp_get with UCX_TLS=cma,posix
#                   (cma alone: UCP finds no active-message transport for
#                   its wire-up and ucp_ep_create fails), UCX_MODULES=cma
#   memcpy          bench/memcpy-blocks.c: single-thread memcpy() of one
#                   block-sized buffer into another, the same bytes a point
# hixl's tool is bench-matrix's hixl-sync (one TRANSFER ioctl of B
# descriptors after the other, staging off), ucx-intra its ucx tool; their
# "res" lines are renamed.  CPU: bench-matrix's whole-VM busy time from
# /proc/stat (the caller's system time and the copy kworkers alike);
# memcpy-blocks' own getrusage().  Raw lines to $1 (default
# $HIXL_WORK/raw-local.txt); bench/localreport.py makes the tables.
# Settings: LOCAL_REPS (3), LOCAL_BLOCKS (KiB list, 64,256,1024,4096),
# LOCAL_BATCHES (1,8), LOCAL_MIN_MIB (64).
set -u
out=${1:-$HIXL_WORK/raw-local.txt}
: > "$out"
param=/sys/module/hixl/parameters/local_copy_threads
reps=${LOCAL_REPS:-3}
blocks=${LOCAL_BLOCKS:-64,256,1024,4096}
batches=${LOCAL_BATCHES:-1,8}
mib=${LOCAL_MIN_MIB:-64}
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
echo "info cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" >> "$out"
echo "info ucx $(dpkg-query -W -f='${Version}' ucx-utils 2>/dev/null)" >> "$out"
echo "info ucx_tls cma,posix" >> "$out"
echo "info local_copy_threads_default $(cat $param 2>/dev/null)" >> "$out"
echo "info config reps $reps min_bytes $((mib << 20))" >> "$out"
[ -w "$param" ] || { echo "bench-local: no $param (hixl.ko without the parallel copy?)" >&2; exit 1; }
bench/bench-matrix memcpy --mib 256 --reps 5 >> "$out" || exit 1
# UCX's posix transport maps its segments through /dev/shm (shm_open): the
# test VM's devtmpfs has none
if [ ! -d /dev/shm ] || ! mountpoint -q /dev/shm; then
	mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm
fi

matrix() {	# TOOL-NAME ENV... : one pass of bench-matrix over the grid
	local name=$1 tool=hixl-sync
	shift
	[ "$name" = ucx-intra ] && tool=ucx
	env "$@" bench/bench-matrix run --ops write,read --blocks "$blocks" --batches "$batches" \
		--tools "$tool" --reps 1 --min-mib "$mib" |
		sed -n "s/^\(res\|na\) [0-9]* $tool /\1 $r $name /p"
}
run_one() {
	case "$1" in
	hixl-local-1) echo 1 > "$param"; matrix "$1" HIXL_TRANSPORT=auto ;;
	hixl-local-par) echo -1 > "$param"; matrix "$1" HIXL_TRANSPORT=auto ;;
	hixl-rdma) matrix "$1" HIXL_TRANSPORT=rdma ;;
	ucx-intra) matrix "$1" UCX_TLS=cma,posix UCX_MODULES=cma UCX_NET_DEVICES=all ;;
	memcpy) for b in ${blocks//,/ }; do bench/memcpy-blocks "$b" "$mib" 1; done ;;
	esac
}
tools=(hixl-local-1 hixl-local-par hixl-rdma ucx-intra memcpy)
for r in $(seq "$reps"); do
	for k in "${!tools[@]}"; do	# rotate the order with the repetition
		t=${tools[$(( (k + r - 1) % ${#tools[@]} ))]}
		echo "bench-local: rep $r $t" >&2
		run_one "$t" >> "$out"
	done
done
echo -1 > "$param"
echo "bench-local: done" >&2
