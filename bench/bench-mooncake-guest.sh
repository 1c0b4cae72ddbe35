#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside one stock-6.12 VM (`make bench-mooncake`): Mooncake's
# TransferEngine beside hixl's Mooncake-compatible one (hixl.mooncake), the
# same Python code (bench/mcbench.py, its header says what it times and
# checks) against each, two engines (initiator and target, two processes)
# on 10.77.0.1 over rxe0:
#   mooncake  `from mooncake.engine import TransferEngine`, protocol "rdma",
#             MC_TE_FILTERS=rxe0, metadata "P2PHANDSHAKE"; the build of
#             scripts/build-mooncake.sh, whose prefix is MOONCAKE_PREFIX
#             (empty: MOONCAKE_NA says why, and every point is "na")
#   hixl      `from hixl.mooncake import TransferEngine`, same calls,
#             HIXL_TRANSPORT=rdma (rxe0, not the kernel's same-host copy)
#   hixl-c    hixl's own C API on the KV job only: bench/bench-gpu --mem
#             host --sync (one hixl_transfer_sync() of 256 scattered 32 KiB
#             blocks a layer, the layers one after another; two engines of
#             one process), its lines written as "kv"/"verified" lines
# Per repetition (MC_REPS, 3), the order of the two rotating: the KV job
# (MC_LAYERS (8) layers of 256 scattered 32 KiB blocks, WRITE then READ,
# bytes verified, then the 8,192-descriptor submit cost), then the
# registration of the largest buffer that registers (MC_REG_MIB, 1024,
# halving), MC_REG_TIMES (5) times over in one process.  Each
# measurement is a fresh mcbench.py process (timeout MC_TIMEOUT s, 600;
# its target child ends when its stdin closes).  Raw lines to $1 (default $HIXL_WORK/raw-mooncake.txt),
# the engines' logs to $HIXL_WORK/mcbench-*.err; bench/mooncakereport.py
# makes the report.
set -u
out=${1:-$HIXL_WORK/raw-mooncake.txt}
: > "$out"
reps=${MC_REPS:-3}
layers=${MC_LAYERS:-8}
regmib=${MC_REG_MIB:-1024}
tmo=${MC_TIMEOUT:-600}
info() { echo "info $*" >> "$out"; }
info kernel "$(uname -r)"
info ncpu "$(nproc)"
info cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
info mem_mib "$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"
info config reps "$reps" layers "$layers" descs 256 block_kib 32 reg_times "${MC_REG_TIMES:-5}" reg_mib "$regmib"
info python "$(/usr/bin/python3 --version 2>&1 | cut -d' ' -f2)"
info mooncake "${MOONCAKE_PREFIX:+v0.3.12.post1 (6041a609a) $MOONCAKE_PREFIX}"
[ -n "${MOONCAKE_PREFIX:-}" ] || info mooncake_na "${MOONCAKE_NA:-Mooncake was not built}"
tools=(mooncake hixl)
one() {	# REP TOOL WHAT
	local err=$HIXL_WORK/mcbench-$2.err rc=0
	if [ "$2" = mooncake ] && [ -z "${MOONCAKE_PREFIX:-}" ]; then
		echo "na $1 mooncake $3 ${MOONCAKE_NA:-Mooncake was not built}" >> "$out"
		return 0
	fi
	echo "=== rep $1 $3" >> "$err"
	MCB_ERRLOG=$err MC_TE_FILTERS=rxe0 HIXL_TRANSPORT=rdma MOONCAKE_PREFIX=${MOONCAKE_PREFIX:-} \
		timeout -k 10 "$tmo" /usr/bin/python3 bench/mcbench.py --impl "$2" --rep "$1" --raw "$out" \
		--layers "$layers" --reg-mib "$regmib" --reg-min-mib "${MC_REG_MIN_MIB:-256}" --reg-times "${MC_REG_TIMES:-5}" "$3" 2>> "$err" || rc=$?
	if [ "$rc" != 0 ]; then
		fails=$((fails + 1))
		echo "bench-mooncake: $2 $3 exited $rc: $(grep -v '^===' "$err" | tail -1)"
		echo "na $1 $2 $3 exited $rc$([ "$rc" = 124 ] && echo " (timeout ${tmo} s)"): $(grep -v '^===' "$err" | tail -1 | cut -c1-200)" >> "$out"
	fi
	return 0
}
# REP OP: the KV job through hixl's C API (bench/bench-gpu), as kv lines
native() {
	local line rc=0
	line=$(bench/bench-gpu --mem host --op "$2" --sync --layers "$layers" --descs 256 \
		--block-kib 32 --rep "$1" --port 29406) || rc=$?
	echo "$line" | awk -v r="$1" -v op="$2" -v L="$layers" '
		$1 == "res" { printf "kv %s hixl-c %s %s 256 %s %s %s %s\n", r, op, L, $5, $7, $8, $9 }
		$1 == "verified" { printf "verified %s hixl-c %s %d\n", r, op, $5 == $6 }
		$1 == "na" { s = ""; for (i = 7; i <= NF; i++) s = s " " $i
			     printf "na %s hixl-c %s bench-gpu:%s\n", r, op, s }' >> "$out"
	[ "$rc" = 0 ] || { fails=$((fails + 1)); echo "bench-mooncake: hixl-c $2 exited $rc"; }
	return 0
}
fails=0
for r in $(seq "$reps"); do
	for op in write read; do
		echo "bench-mooncake: rep $r kv hixl-c $op"
		native "$r" "$op"
	done
	for what in kv reg; do
		for i in 0 1; do
			t=${tools[$(( (i + r) % 2 ))]}
			echo "bench-mooncake: rep $r $what $t"
			one "$r" "$t" "$what"
		done
	done
done
info failed_measurements "$fails"
exit 0
