#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-gpu`): the KV job's shape
# (GPU_LAYERS layers of GPU_DESCS scattered GPU_BLOCK_KIB blocks, one
# asynchronous request a layer, all in flight) WRITE and READ, the
# initiator's KV cache in host memory, in the stand-in GPU's memory
# registered peer-to-peer, and registered staged; interleaved per
# repetition, the order rotating.  Each measurement is one bench/bench-gpu
# run (a fresh pair of engines; its header says what it times and checks).
# Raw lines to $1 (default $HIXL_WORK/raw-gpu.txt); bench/gpureport.py
# makes the table.  Settings: GPU_REPS (5), GPU_LAYERS (4), GPU_DESCS
# (256), GPU_BLOCK_KIB (32).  Ports 29400-29405.
set -u
out=${1:-$HIXL_WORK/raw-gpu.txt}
: > "$out"
reps=${GPU_REPS:-5}
layers=${GPU_LAYERS:-4}
descs=${GPU_DESCS:-256}
blk=${GPU_BLOCK_KIB:-32}
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
echo "info config layers $layers descs $descs block_kib $blk reps $reps" >> "$out"
mems=(host p2p staged)
ports=(29400 29402 29404)
fails=0
for r in $(seq "$reps"); do
	for op in write read; do
		for i in 0 1 2; do
			k=$(( (i + r) % 3 ))
			echo "bench-gpu: rep $r $op ${mems[$k]}"
			bench/bench-gpu --rep "$r" --mem "${mems[$k]}" --op "$op" --port "${ports[$k]}" \
				--layers "$layers" --descs "$descs" --block-kib "$blk" >> "$out"
			case $? in
			0) ;;
			77) echo "bench-gpu: SKIP: $(tail -1 "$out")"; echo "info skipped $(tail -1 "$out")" >> "$out"; exit 0 ;;
			*) fails=$((fails + 1)) ;;
			esac
		done
	done
done
echo "info failed_measurements $fails" >> "$out"
exit 0
