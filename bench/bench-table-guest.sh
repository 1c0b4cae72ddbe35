#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh table, `make bench-table`): the
# CONNECT time of two engines with N registrations each, N from 1 to
# 10,000 (bench/bench-table), TABLE_REPS repetitions (3) interleaved.
# max_regions is raised for the run (two engines of one process hold 2 x N)
# and put back.
#
# Output: $1 (default $HIXL_WORK/raw-table.txt), lines
#   table REP REGIONS CONNECT_MS REG_MS CPU_SECONDS
#   info KEY VALUE...
# Settings (environment): TABLE_REPS (3), TABLE_REGIONS ("1 10 100 1000 3000 10000").
set -u
export HIXL_TRANSPORT=${HIXL_TRANSPORT:-rdma}
out=${1:-$HIXL_WORK/raw-table.txt}
reps=${TABLE_REPS:-3} counts=${TABLE_REGIONS:-1 10 100 1000 3000 10000}
param=/sys/module/hixl/parameters/max_regions
: > "$out"
echo "info kernel $(uname -r)" >> "$out"
echo "info ncpu $(nproc)" >> "$out"
old=$(cat "$param") || exit 1
echo 30000 > "$param" || exit 1
rc=0 port=17301
for rep in $(seq 1 "$reps"); do
	for n in $counts; do
		# a fresh pair of ports per run: the last run's listener is gone
		port=$((port + 2)); [ "$port" -lt 17900 ] || port=17301
		bench/bench-table --rep "$rep" --regions "$n" --port "$port" >> "$out" || rc=1
	done
done
echo "$old" > "$param"
cat "$out"
exit $rc
