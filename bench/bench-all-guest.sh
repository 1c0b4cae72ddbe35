#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh all, `make bench`): the memcpy
# ceiling, the transfer matrix (bench/bench-matrix run: hixl ioctl and
# io_uring vs perftest and UCX, WRITE and READ, 4 KiB..4 MiB blocks, batches
# of 1..256, interleaved) and registration time vs ibv_reg_mr
# (bench/bench-reg).  Raw lines go to $HIXL_WORK/raw.txt, the registration
# table to $HIXL_WORK/results-reg.md; bench/bench-results.py reads both.
#
# Settings (environment): BENCH_REPS (3), BENCH_MIN_MIB (32: bytes per
# point at least), BENCH_MAX_BATCH_MIB (256: a point whose one batch is
# larger is left out, as n/a; 0 runs all), BENCH_BLOCKS (KiB list),
# BENCH_BATCHES, BENCH_TOOLS,
# BENCH_REG (1: run bench/bench-reg), BENCH_LAT (1: run
# bench/bench-lat-guest.sh, latency and hybrid polling on/off, into
# $HIXL_WORK/raw-lat.txt; LAT_REPS, LAT_ITERS), BENCH_LOCAL (1: run
# bench/bench-local-guest.sh, the same-host path vs rxe, UCX intra-host and
# memcpy, into $HIXL_WORK/raw-local.txt; LOCAL_REPS, LOCAL_BLOCKS,
# LOCAL_BATCHES, LOCAL_MIN_MIB), BENCH_RAILS (1: run
# bench/bench-rails-guest.sh, one rail vs two vs two with rail 1 taken
# away, into $HIXL_WORK/raw-rails.txt; RAILS_REPS, RAILS_MIB,
# RAILS_BLOCK_KIB), BENCH_PY (1: run bench/pysubmit.py, the Python
# package's descriptor forms, into $HIXL_WORK/raw-py.txt; PY_REPS),
# BENCH_NIXL (1: run bench/bench-nixl-guest.sh, NIXL+HIXL vs hixl's own API
# vs NIXL+UCX, into $HIXL_WORK/raw-nixl.txt; NIXL_REPS, NIXL_LAYERS,
# NIXL_UCX_DIR, NIXL_UCX_NA), BENCH_TABLE (1: run bench/bench-table-guest.sh,
# CONNECT time against registrations per side, into
# $HIXL_WORK/raw-table.txt; TABLE_REPS, TABLE_REGIONS), BENCH_GPU (1: run
# bench/bench-gpu-guest.sh, device memory peer-to-peer and staged beside
# host memory, into $HIXL_WORK/raw-gpu.txt; GPU_REPS, GPU_LAYERS, GPU_DESCS,
# GPU_BLOCK_KIB), BENCH_MOONCAKE (1: run bench/bench-mooncake-guest.sh,
# Mooncake's TransferEngine beside hixl's, into $HIXL_WORK/raw-mooncake.txt;
# MC_REPS, MC_LAYERS, MC_REG_MIB, MOONCAKE_PREFIX, MOONCAKE_NA), BENCH_SCALE
# (1: run bench/bench-scale-guest.sh, fan-in/fan-out, kernel memory and
# descriptors per request, into $HIXL_WORK/raw-scale.txt; SCALE_*).
# Each section's wall seconds: "info section_seconds NAME S" in raw.txt.
set -u
# hixl's side of every comparison here is RDMA over rxe0: two engines of
# one host would otherwise pair and copy in the kernel (Transport "auto",
# docs/protocol.md "Same-host links"; that path is bench-local-guest.sh's)
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
out=$HIXL_WORK/raw.txt
: > "$out"
info() { echo "info $*" >> "$out"; }

info kernel "$(uname -r)"
info cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
info ncpu "$(nproc)"
info memory "$(sed -n 's/^MemTotal: *//p' /proc/meminfo)"
info perftest "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
info ucx "$(dpkg-query -W -f='${Version}' ucx-utils 2>/dev/null)"
# the UCX transports on the RDMA device, for the record
ucx_info -d > "$HIXL_WORK/ucx_info.txt" 2>&1
info ucx_transports "$(awk '/Transport:/ { t = $3 } /Device:/ && $3 ~ /^rxe0/ { printf "%s/%s ", t, $3 }' \
	"$HIXL_WORK/ucx_info.txt")"
start=$(date +%s)

echo "bench: memcpy"
bench/bench-matrix memcpy --mib 256 --reps 7 >> "$out" || exit 1

echo "bench: transfer matrix"
args=(--reps "${BENCH_REPS:-3}" --min-mib "${BENCH_MIN_MIB:-32}" --max-batch-mib "${BENCH_MAX_BATCH_MIB:-256}")
[ -n "${BENCH_BLOCKS:-}" ] && args+=(--blocks "$BENCH_BLOCKS")
[ -n "${BENCH_BATCHES:-}" ] && args+=(--batches "$BENCH_BATCHES")
[ -n "${BENCH_TOOLS:-}" ] && args+=(--tools "$BENCH_TOOLS")
bench/bench-matrix run "${args[@]}" >> "$out" || exit 1
info matrix_seconds "$(( $(date +%s) - start ))"

# section NAME ENVVAR CMD...: CMD when ENVVAR is not 0, its seconds recorded;
# a failing section ends the run
section() {
	local name=$1 on=$2 t0 rc=0
	shift 2
	[ "$on" = 0 ] && return 0
	echo "bench: $name"
	t0=$(date +%s)
	"$@" || rc=$?
	info section_seconds "$name" "$(( $(date +%s) - t0 ))"
	[ "$rc" = 0 ] || { echo "bench: $name exited $rc"; exit 1; }
}
section registration "${BENCH_REG:-1}" \
	bench/bench-reg --size 1024 --reps 5 --out "$HIXL_WORK/results-reg.md"
section latency "${BENCH_LAT:-1}" sh -c 'bench/bench-lat-guest.sh "$1" > /dev/null' \
	- "$HIXL_WORK/raw-lat.txt"
# its own HIXL_TRANSPORT per tool (the rest of this run is RDMA's)
section same-host "${BENCH_LOCAL:-1}" \
	env -u HIXL_TRANSPORT bench/bench-local-guest.sh "$HIXL_WORK/raw-local.txt"
section rails "${BENCH_RAILS:-1}" bench/bench-rails-guest.sh "$HIXL_WORK/raw-rails.txt"
section python "${BENCH_PY:-1}" /usr/bin/python3 bench/pysubmit.py --run \
	--reps "${PY_REPS:-15}" --raw "$HIXL_WORK/raw-py.txt"
section NIXL "${BENCH_NIXL:-1}" bench/bench-nixl-guest.sh "$HIXL_WORK/raw-nixl.txt"
section region-tables "${BENCH_TABLE:-1}" \
	sh -c 'bench/bench-table-guest.sh "$1" > /dev/null' - "$HIXL_WORK/raw-table.txt"
section device-memory "${BENCH_GPU:-1}" bench/bench-gpu-guest.sh "$HIXL_WORK/raw-gpu.txt"
section mooncake "${BENCH_MOONCAKE:-1}" \
	bench/bench-mooncake-guest.sh "$HIXL_WORK/raw-mooncake.txt"
section scale "${BENCH_SCALE:-1}" bench/bench-scale-guest.sh "$HIXL_WORK/raw-scale.txt"
info guest_seconds "$(( $(date +%s) - start ))"
exit 0
