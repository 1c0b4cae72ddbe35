/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_clock.h - the clocks of the benchmarks (bench/bench-lat.c,
 * bench/bench-rails.c): wall time, and the whole VM's busy CPU time from
 * /proc/stat (rxe does its work in softirq and kernel threads, not in the
 * caller, so the caller's own CPU time would miss most of it).
 */
#ifndef HIXL_BENCH_CLOCK_H
#define HIXL_BENCH_CLOCK_H

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC, seconds */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* whole-machine busy seconds so far; 0 when /proc/stat cannot be read */
static inline double busy_s(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	long hz = sysconf(_SC_CLK_TCK);
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 8)
		return 0;
	/* user nice system idle iowait irq softirq steal: all but idle, iowait */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
}

#endif
