#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-nixl`, and `make bench` unless
# BENCH_NIXL=0): the NIXL table, the main job's shape (NIXL_BLOCK_KIB (32)
# KiB blocks, layers of NIXL_DESCS (256) scattered descriptors, NIXL_LAYERS
# (16) layers a pass, 4 in flight), WRITE and READ, through
#   native     hixl's own API (hixl_transfer_async per layer)
#   nixl-hixl  NIXL's nixlAgent with the backend HIXL (build/nixl/libplugin_HIXL.so)
#   nixl-ucx   NIXL's nixlAgent with NIXL's own backend UCX, built against
#              Debian's UCX by scripts/build-nixl-ucx.sh (NIXL_UCX_DIR, its
#              folder; without it, NIXL_UCX_NA says why and the table says so)
# interleaved per repetition (NIXL_REPS, 5), the order rotating; each
# measurement is one bench/bench-nixl run (build/nixl/bench-nixl, its header
# says what it times and checks).  hixl's side and UCX's both over rxe0 (UCX:
# RC for the data, UD for the wire-up, as bench/bench-matrix.c sets it).
# Raw lines to $1 (default $HIXL_WORK/raw-nixl.txt); bench/nixlreport.py makes
# the table.
set -u
out=${1:-$HIXL_WORK/raw-nixl.txt}
: > "$out"
reps=${NIXL_REPS:-5}
layers=${NIXL_LAYERS:-16}
descs=${NIXL_DESCS:-256}
blk=${NIXL_BLOCK_KIB:-32}
info() { echo "info $*" >> "$out"; }
info kernel "$(uname -r)"
info ncpu "$(nproc)"
info cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
info config reps "$reps" layers "$layers" descs "$descs" block_kib "$blk" inflight 4
info ucx "$(dpkg-query -W -f='${Version}' libucx0 2>/dev/null)"
bin=build/nixl/bench-nixl
if [ ! -x "$bin" ] || [ ! -r build/nixl/libplugin_HIXL.so ]; then
	for op in write read; do
		echo "na 1 nixl-hixl $op $blk $descs the NIXL backend plugin is not built (make nixl NIXL_PREFIX=...)" >> "$out"
	done
	exit 0
fi
prefix=$(cat build/nixl/prefix 2>/dev/null)
# NIXL's version, from the source tree scripts/build-nixl.sh keeps beside its prefix
info nixl "$(grep -o "project('nixl', 'CPP', version: '[0-9.]*'" "$prefix/../nixl/meson.build" 2>/dev/null | grep -o "[0-9][0-9.]*")"
tools=(native nixl-hixl nixl-ucx)
one() {	# REP TOOL OP
	local args=(--rep "$1" --tool "$2" --op "$3" --layers "$layers" --descs "$descs" --block-kib "$blk")
	case $2 in
	native) HIXL_TRANSPORT=rdma "$bin" "${args[@]}" ;;
	nixl-hixl) HIXL_TRANSPORT=rdma NIXL_PLUGIN_DIR=$PWD/build/nixl "$bin" "${args[@]}" ;;
	nixl-ucx)
		if [ -z "${NIXL_UCX_DIR:-}" ]; then
			why=${NIXL_UCX_NA:-"NIXL's UCX plugin was not built"}
			echo "na $1 nixl-ucx $3 $blk $descs $why"
			return 0
		fi
		UCX_TLS=rc_verbs,ud_verbs UCX_NET_DEVICES=rxe0:1 UCX_IB_GID_INDEX=2 UCX_MODULES=ib \
			LD_LIBRARY_PATH=$prefix/lib NIXL_PLUGIN_DIR=$NIXL_UCX_DIR "$bin" "${args[@]}" ;;
	esac
}
fails=0
for r in $(seq "$reps"); do
	for op in write read; do
		for i in 0 1 2; do
			t=${tools[$(( (i + r) % 3 ))]}
			echo "bench-nixl: rep $r $op $t"
			one "$r" "$t" "$op" >> "$out" 2> "$HIXL_WORK/bench-nixl-$t.err"
			case $? in
			0|77) ;;
			*) fails=$((fails + 1)); echo "bench-nixl: $t $op failed: $(tail -1 "$HIXL_WORK/bench-nixl-$t.err")"
			   echo "na $r $t $op $blk $descs failed: $(tail -1 "$HIXL_WORK/bench-nixl-$t.err")" >> "$out" ;;
			esac
		done
	done
done
info failed_measurements "$fails"
exit 0
