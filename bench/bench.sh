#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-*: run a benchmark in one VM on Debian's stock 6.12 kernel (no
# debug options: KASAN would dominate every number) and copy its results
# file into bench/.
#
# Usage: bench/bench.sh reg|xfer|submit|default|crossover|lat|local|rails|table|gpu|scale|py|nixl|mooncake|all
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
what=${1:?usage: bench/bench.sh reg|xfer|submit|lat|local|rails|py|all}
kver=$(ls /boot | sed -n 's/^vmlinuz-\(6\.12\.[0-9][0-9.+a-z-]*-amd64\)$/\1/p' | sort -V | tail -1)
[ -n "$kver" ] || { echo "bench: no Debian 6.12 kernel: make deps" >&2; exit 1; }
scripts/build-module.sh "/lib/modules/$kver/build" build/compat-6.12
# the kernel verbs latency floor (bench/kverbs), beside hixl in bench-lat-guest.sh
kv=build/kverbs-$kver
rm -rf "$kv" && mkdir -p "$kv" && cp bench/kverbs/Kbuild bench/kverbs/kverbs_lat.c "$kv/"
make -C "/lib/modules/$kver/build" M="$repo/$kv" W=1 modules > "$kv/build.log" 2>&1 ||
	{ cat "$kv/build.log" >&2; exit 1; }
mkdir -p bench
# One VM run of a guest script (CMD...) that writes RAW into its work
# folder (VM NAME, or BENCH_VM_NAME): the raw lines kept as
# bench/RESULT-raw.txt, bench/REPORT (localreport.py, railsreport.py)
# writing bench/RESULT.md from them with the run's seconds and host load.
guest_report() {	# NAME RAW REPORT RESULT CMD...
	local vm=${BENCH_VM_NAME:-$1} raw=$2 report=$3 result=$4 t0 load0
	shift 4
	t0=$(date +%s)
	load0=$(cut -d' ' -f1 /proc/loadavg)
	HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-3600} tests/vm/run.sh --kernel 6.12 \
		--module build/compat-6.12/kmod/hixl.ko --name "$vm" -- "$@"
	cp "build/vm/$vm/$raw" "bench/$result-raw.txt"
	python3 "bench/$report" --raw "bench/$result-raw.txt" --kernel "$kver" \
		--vm-seconds $(( $(date +%s) - t0 )) \
		--host-load "$load0 / $(cut -d' ' -f1 /proc/loadavg)" --out "bench/$result.md"
	cat "bench/$result.md"
}

# The NIXL table's parts, built on the host before the VM (bench/bench-nixl-guest.sh):
# NIXL (scripts/build-nixl.sh, cached), the plugin and build/nixl/bench-nixl
# (make nixl), NIXL's UCX plugin (scripts/build-nixl-ucx.sh, cached); sets
# NIXL_UCX_DIR, or NIXL_UCX_NA to why not.  Without NIXL the guest's table
# says the plugin is not built.
nixl_prep() {
	local prefix rc=0
	NIXL_UCX_DIR='' NIXL_UCX_NA=''
	# the snapshots beside the checkout, or fetched (scripts/third-party.sh)
	HIXL_THIRD_PARTY=$(scripts/third-party.sh nixl) || { echo "bench: no NIXL sources, its table will say so" >&2; rm -rf build/nixl; return 0; }
	export HIXL_THIRD_PARTY
	prefix=$(scripts/build-nixl.sh) || { echo "bench: no NIXL, its table will say so" >&2; rm -rf build/nixl; return 0; }
	nice -n 10 make -s nixl NIXL_PREFIX="$prefix" >&2 || { rm -rf build/nixl; return 0; }
	NIXL_UCX_DIR=$(scripts/build-nixl-ucx.sh "$prefix" 2> build/nixl/ucx.err) || rc=$?
	[ "$rc" = 0 ] || NIXL_UCX_NA="NIXL's UCX plugin not built: $(grep -v '^ ' build/nixl/ucx.err | tail -1)"
}

# Mooncake's Transfer Engine for `mooncake`, built (or found in the cache)
# on the host before the VM by scripts/build-mooncake.sh: sets
# MOONCAKE_PREFIX, or MOONCAKE_NA to why not (its report then says so).
mooncake_prep() {
	local rc=0
	MOONCAKE_NA=''
	MOONCAKE_PREFIX=$(tp=$(scripts/third-party.sh mooncake 2> build/mooncake-build.err) &&
		HIXL_THIRD_PARTY=$tp scripts/build-mooncake.sh 2>> build/mooncake-build.err) || rc=$?
	if [ "$rc" != 0 ]; then
		MOONCAKE_PREFIX=''
		MOONCAKE_NA="scripts/third-party.sh or scripts/build-mooncake.sh exited $rc: $(grep -v '^ ' build/mooncake-build.err | tail -1)"
		echo "bench: no Mooncake ($MOONCAKE_NA), its report will say so" >&2
	fi
}

case "$what" in
mooncake)
	# `make bench-mooncake`: Mooncake's TransferEngine vs hixl.mooncake's,
	# the same Python code (bench/bench-mooncake-guest.sh, bench/mcbench.py):
	# MC_REPS (3), MC_LAYERS (8), MC_REG_MIB (1024).  A failed VM run (a
	# kernel WARNING in the guest counts) still gets its report written from
	# what was measured, then fails.
	mkdir -p build
	mooncake_prep
	vm=${BENCH_VM_NAME:-bench-mooncake} t0=$(date +%s) load0=$(cut -d' ' -f1 /proc/loadavg) rc=0
	HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-3600} tests/vm/run.sh --kernel 6.12 \
		--module build/compat-6.12/kmod/hixl.ko --name "$vm" -- \
		env MC_REPS="${MC_REPS:-3}" MC_LAYERS="${MC_LAYERS:-8}" MC_REG_MIB="${MC_REG_MIB:-1024}" \
		MOONCAKE_PREFIX="$MOONCAKE_PREFIX" MOONCAKE_NA="$MOONCAKE_NA" \
		bench/bench-mooncake-guest.sh || rc=$?
	cp "build/vm/$vm/raw-mooncake.txt" bench/results-mooncake-raw.txt
	python3 bench/mooncakereport.py --raw bench/results-mooncake-raw.txt --kernel "$kver" \
		--vm-seconds $(( $(date +%s) - t0 )) \
		--host-load "$load0 / $(cut -d' ' -f1 /proc/loadavg)" --out bench/results-mooncake.md
	cat bench/results-mooncake.md
	exit $rc
	;;
nixl)
	# `make bench-nixl`: NIXL+HIXL vs hixl's own API vs NIXL+UCX
	# (bench/bench-nixl-guest.sh): NIXL_REPS (5), NIXL_LAYERS (16)
	nixl_prep
	guest_report bench-nixl raw-nixl.txt nixlreport.py results-nixl \
		env NIXL_REPS="${NIXL_REPS:-5}" NIXL_LAYERS="${NIXL_LAYERS:-16}" \
		NIXL_UCX_DIR="$NIXL_UCX_DIR" NIXL_UCX_NA="$NIXL_UCX_NA" bench/bench-nixl-guest.sh
	;;
reg)
	# 600 x 2 MiB huge pages: room for the 1 GiB hugetlb buffer
	HIXL_VM_HUGEPAGES_2M=600 tests/vm/run.sh --kernel 6.12 \
		--module build/compat-6.12/kmod/hixl.ko --name bench-reg -- \
		sh -c 'bench/bench-reg --size 1024 --reps 5 --out "$HIXL_WORK/results-reg.md"'
	cp build/vm/bench-reg/results-reg.md bench/results-reg.md
	cat bench/results-reg.md
	;;
xfer)
	REPS=${REPS:-3} tests/vm/run.sh --kernel 6.12 --module build/compat-6.12/kmod/hixl.ko \
		--name bench-xfer -- bench/bench-xfer-guest.sh
	python3 bench/bench-report.py xfer build/vm/bench-xfer/raw.txt "$(uname -m)" "$kver" \
		> bench/results-xfer.md
	cat bench/results-xfer.md
	;;
submit)
	# REPS repetitions (5) of SECONDS (1) per measurement
	tests/vm/run.sh --kernel 6.12 --module build/compat-6.12/kmod/hixl.ko \
		--name bench-submit -- \
		env HIXL_TRANSPORT=rdma sh -c "bench/bench-submit --reps ${REPS:-5} --seconds ${SECONDS_PER_RUN:-1} --out \"\$HIXL_WORK/results-submit.md\""
	cp build/vm/bench-submit/results-submit.md bench/results-submit.md
	cat bench/results-submit.md
	;;
default)
	# `make bench-default`: REPS (7) repetitions, LAYERS (8) per pass
	HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-3600} tests/vm/run.sh --kernel 6.12 \
		--module build/compat-6.12/kmod/hixl.ko --name bench-default -- \
		env REPS="${REPS:-7}" LAYERS="${LAYERS:-8}" bench/bench-default-guest.sh
	cp build/vm/bench-default/raw.txt bench/results-default.txt
	python3 bench/bench-default.py default bench/results-default.txt "$kver" \
		--json bench/results-default.json \
		> bench/results-default.md
	cat bench/results-default.md
	;;
crossover)
	# `make bench-crossover`: staging (stage_policy=1) vs direct; REPS (3)
	HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-3600} tests/vm/run.sh --kernel 6.12 \
		--module build/compat-6.12/kmod/hixl.ko --name bench-crossover -- \
		env REPS="${REPS:-3}" STAGE_POLICY=1 bench/bench-crossover-guest.sh
	cp build/vm/bench-crossover/raw.txt bench/results-crossover.txt
	python3 bench/bench-default.py crossover bench/results-crossover.txt "$kver" \
		> bench/results-crossover.md
	cat bench/results-crossover.md
	;;
lat)
	# latency and the sync 4 KiB batch-1 point, hybrid polling on and off
	# (bench/bench-lat-guest.sh); LAT_REPS (3), LAT_ITERS (2000),
	# LAT_SIZES ("64 4096"), LAT_MIN_MIB (16) reach the guest
	# a failed VM run (a perftest crash counts: splat-scan.sh) still gets
	# its report written from what was measured, then fails
	t0=$(date +%s) rc=0
	tests/vm/run.sh --kernel 6.12 --module build/compat-6.12/kmod/hixl.ko \
		--name bench-lat -- env LAT_REPS="${LAT_REPS:-3}" LAT_ITERS="${LAT_ITERS:-2000}" \
		LAT_SIZES="${LAT_SIZES:-64 4096}" LAT_MIN_MIB="${LAT_MIN_MIB:-16}" \
		bench/bench-lat-guest.sh || rc=$?
	python3 bench/latreport.py --raw build/vm/bench-lat/raw-lat.txt --machine "$(uname -m)" \
		--kernel "$kver" --vm-seconds $(( $(date +%s) - t0 )) --out bench/results-lat.md
	cat bench/results-lat.md
	exit $rc
	;;
local)
	# `make bench-local`: same-host links (bench/bench-local-guest.sh):
	# LOCAL_REPS (3), LOCAL_BLOCKS, LOCAL_BATCHES, LOCAL_MIN_MIB (64)
	guest_report bench-local raw-local.txt localreport.py results-local \
		env LOCAL_REPS="${LOCAL_REPS:-3}" LOCAL_BLOCKS="${LOCAL_BLOCKS:-64,256,1024,4096}" \
		LOCAL_BATCHES="${LOCAL_BATCHES:-1,8}" LOCAL_MIN_MIB="${LOCAL_MIN_MIB:-64}" \
		bench/bench-local-guest.sh
	;;
gpu)
	# `make bench-gpu`: the KV job's shape with the initiator's KV cache in
	# host memory, the stand-in GPU's memory peer-to-peer and staged
	# (bench/bench-gpu-guest.sh): GPU_REPS (5), GPU_LAYERS (4), GPU_DESCS
	# (256), GPU_BLOCK_KIB (32)
	guest_report bench-gpu raw-gpu.txt gpureport.py results-gpu \
		env GPU_REPS="${GPU_REPS:-5}" GPU_LAYERS="${GPU_LAYERS:-4}" \
		GPU_DESCS="${GPU_DESCS:-256}" GPU_BLOCK_KIB="${GPU_BLOCK_KIB:-32}" \
		bench/bench-gpu-guest.sh
	;;
scale)
	# `make bench-scale`: links, registered memory and descriptors per
	# request (bench/bench-scale-guest.sh): SCALE_REPS (3), SCALE_LINKS
	# ("1 8 32 128"), SCALE_DESCS ("1 4 ... 65536"), SCALE_TOTAL_MIB (64),
	# SCALE_REG_MIB (1024); bench/results-scale.png beside the report
	guest_report bench-scale raw-scale.txt scalereport.py results-scale \
		env SCALE_REPS="${SCALE_REPS:-3}" SCALE_LINKS="${SCALE_LINKS:-1 8 32 128}" \
		SCALE_DESCS="${SCALE_DESCS:-1 4 16 64 256 1024 4096 16384 65536}" \
		SCALE_TOTAL_MIB="${SCALE_TOTAL_MIB:-64}" SCALE_REG_MIB="${SCALE_REG_MIB:-1024}" \
		bench/bench-scale-guest.sh
	py=/usr/bin/python3; [ -x "$py" ] || py=python3
	"$py" bench/scalereport.py --raw bench/results-scale-raw.txt --kernel "$kver" \
		--plot-only --png bench/results-scale.png
	;;
rails)
	# `make bench-rails`: one rail vs two vs two with rail 1 taken away
	# mid-batch (bench/bench-rails-guest.sh): RAILS_REPS (5), RAILS_MIB (64),
	# RAILS_BLOCK_KIB (1024)
	guest_report bench-rails raw-rails.txt railsreport.py results-rails \
		env RAILS_REPS="${RAILS_REPS:-5}" RAILS_MIB="${RAILS_MIB:-64}" \
		RAILS_BLOCK_KIB="${RAILS_BLOCK_KIB:-1024}" bench/bench-rails-guest.sh
	;;
table)
	# `make bench-table`: CONNECT time against registrations per side
	# (bench/bench-table-guest.sh): TABLE_REPS (3), TABLE_REGIONS
	guest_report bench-table raw-table.txt tablereport.py results-table \
		env HIXL_TRANSPORT=rdma TABLE_REPS="${TABLE_REPS:-3}" \
		TABLE_REGIONS="${TABLE_REGIONS:-1 10 100 1000 3000 10000}" bench/bench-table-guest.sh
	;;
py)
	# `make bench-py`: the Python package's descriptor forms (bench/pysubmit.py);
	# PY_REPS (15)
	# (the guest command on one line: the guest's sh takes no $'...' quoting of newlines)
	guest_report bench-py raw-py.txt pysubmit.py results-py \
		env HIXL_TRANSPORT=rdma PY_REPS="${PY_REPS:-15}" sh -c \
		'/usr/bin/python3 bench/pysubmit.py --run --reps "$PY_REPS" --raw "$HIXL_WORK/raw-py.txt"'
	;;
all)
	# `make bench`: everything side by side in one VM run
	# (bench/bench-all-guest.sh), then bench/results.md and
	# bench/results.png and bench/results.json on the host, and README.md's
	# summary from results.json (bench/readme-table.py).  BENCH_REPS (3), BENCH_MIN_MIB (32),
	# BENCH_MAX_BATCH_MIB (256), BENCH_BLOCKS (KiB list), BENCH_BATCHES, BENCH_TOOLS, BENCH_REG (1),
	# BENCH_LAT (1), BENCH_LOCAL (1: the same-host section,
	# bench/bench-local-guest.sh, with LOCAL_* as for `local`), BENCH_RAILS
	# (1: the rails section, bench/bench-rails-guest.sh, RAILS_* as for
	# `rails` but 3 repetitions), BENCH_PY (1: the Python section, bench/pysubmit.py, PY_REPS),
	# BENCH_NIXL (1: the NIXL section, bench/bench-nixl-guest.sh, NIXL_REPS (3 here),
	# NIXL_LAYERS; NIXL and the plugins built first by nixl_prep),
	# BENCH_TABLE (1: the region-table section, bench/bench-table-guest.sh,
	# TABLE_* as for `table`), BENCH_GPU (1: device memory,
	# bench/bench-gpu-guest.sh, GPU_* as for `gpu`, 3 repetitions here),
	# BENCH_MOONCAKE (1: Mooncake's TransferEngine beside hixl's,
	# bench/bench-mooncake-guest.sh, MC_* as for `mooncake` but only 1 GiB
	# registered unless it fails, MC_REG_MIN_MIB; Mooncake built first by
	# mooncake_prep), BENCH_SCALE (1: the scale curves,
	# bench/bench-scale-guest.sh, SCALE_* as for `scale`) reach the guest on
	# its command line.
	NIXL_UCX_DIR='' NIXL_UCX_NA='' MOONCAKE_PREFIX='' MOONCAKE_NA=''
	[ "${BENCH_NIXL:-1}" = 0 ] || nixl_prep
	[ "${BENCH_MOONCAKE:-1}" = 0 ] || { mkdir -p build && mooncake_prep; }
	t0=$(date +%s)
	load0=$(cut -d' ' -f1 /proc/loadavg)
	HIXL_VM_HUGEPAGES_2M=600 HIXL_VM_TIMEOUT=${HIXL_VM_TIMEOUT:-4800} \
		tests/vm/run.sh --kernel 6.12 --module build/compat-6.12/kmod/hixl.ko \
		--name bench-all -- env BENCH_REPS="${BENCH_REPS:-3}" \
		BENCH_MIN_MIB="${BENCH_MIN_MIB:-32}" BENCH_MAX_BATCH_MIB="${BENCH_MAX_BATCH_MIB:-256}" \
		BENCH_BLOCKS="${BENCH_BLOCKS:-}" \
		BENCH_BATCHES="${BENCH_BATCHES:-}" BENCH_TOOLS="${BENCH_TOOLS:-}" \
		BENCH_REG="${BENCH_REG:-1}" BENCH_LAT="${BENCH_LAT:-1}" LAT_REPS="${LAT_REPS:-3}" \
		LAT_ITERS="${LAT_ITERS:-2000}" BENCH_LOCAL="${BENCH_LOCAL:-1}" \
		LOCAL_REPS="${LOCAL_REPS:-3}" LOCAL_BLOCKS="${LOCAL_BLOCKS:-64,256,1024,4096}" \
		LOCAL_BATCHES="${LOCAL_BATCHES:-1,8}" LOCAL_MIN_MIB="${LOCAL_MIN_MIB:-64}" \
		BENCH_RAILS="${BENCH_RAILS:-1}" RAILS_REPS="${RAILS_REPS:-3}" \
		RAILS_MIB="${RAILS_MIB:-64}" RAILS_BLOCK_KIB="${RAILS_BLOCK_KIB:-1024}" \
		BENCH_PY="${BENCH_PY:-1}" PY_REPS="${PY_REPS:-15}" \
		BENCH_NIXL="${BENCH_NIXL:-1}" NIXL_REPS="${NIXL_REPS:-3}" NIXL_LAYERS="${NIXL_LAYERS:-16}" \
		NIXL_UCX_DIR="$NIXL_UCX_DIR" NIXL_UCX_NA="$NIXL_UCX_NA" \
		BENCH_TABLE="${BENCH_TABLE:-1}" TABLE_REPS="${TABLE_REPS:-3}" \
		TABLE_REGIONS="${TABLE_REGIONS:-1 10 100 1000 3000 10000}" \
		BENCH_GPU="${BENCH_GPU:-1}" GPU_REPS="${GPU_REPS:-3}" GPU_LAYERS="${GPU_LAYERS:-4}" \
		GPU_DESCS="${GPU_DESCS:-256}" GPU_BLOCK_KIB="${GPU_BLOCK_KIB:-32}" \
		BENCH_MOONCAKE="${BENCH_MOONCAKE:-1}" MC_REPS="${MC_REPS:-3}" \
		MC_LAYERS="${MC_LAYERS:-8}" MC_REG_MIB="${MC_REG_MIB:-1024}" \
		MC_REG_MIN_MIB="${MC_REG_MIN_MIB:-1024}" MC_REG_TIMES="${MC_REG_TIMES:-5}" MOONCAKE_PREFIX="$MOONCAKE_PREFIX" MOONCAKE_NA="$MOONCAKE_NA" \
		BENCH_SCALE="${BENCH_SCALE:-1}" ${SCALE_REPS:+SCALE_REPS="$SCALE_REPS"} \
		${SCALE_LINKS:+SCALE_LINKS="$SCALE_LINKS"} ${SCALE_DESCS:+SCALE_DESCS="$SCALE_DESCS"} \
		bench/bench-all-guest.sh
	# Debian's python3 has python3-matplotlib (another python3 may come first in PATH)
	py=/usr/bin/python3; [ -x "$py" ] || py=python3
	"$py" bench/bench-results.py --raw build/vm/bench-all/raw.txt \
		--reg build/vm/bench-all/results-reg.md --submit bench/results-submit.md \
		--lat build/vm/bench-all/raw-lat.txt --local build/vm/bench-all/raw-local.txt \
		--rails build/vm/bench-all/raw-rails.txt --py build/vm/bench-all/raw-py.txt \
		--nixl build/vm/bench-all/raw-nixl.txt --table build/vm/bench-all/raw-table.txt \
		--gpu build/vm/bench-all/raw-gpu.txt --mooncake build/vm/bench-all/raw-mooncake.txt \
		--scale build/vm/bench-all/raw-scale.txt --scale-png bench/results-scale.png \
		--mainjob bench/results-default.txt \
		--machine "$(uname -m)" --kernel "$kver" --vm-seconds $(( $(date +%s) - t0 )) \
		--host-load "$load0 / $(cut -d' ' -f1 /proc/loadavg)" \
		--out bench/results.md --png bench/results.png --json bench/results.json
	# the README's summary comes from results.json, never by hand (make
	# check compares them: tests/tools/readme.sh)
	"$py" bench/readme-table.py --json bench/results.json --update README.md
	cat bench/results.md
	;;
*)
	echo "bench: unknown benchmark $what" >&2
	exit 2
	;;
esac
