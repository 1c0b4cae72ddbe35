// SPDX-License-Identifier: GPL-2.0
/*
 * bench-lat - the latency of one synchronous hixl transfer: N TRANSFER
 * ioctls of one descriptor, one after the other, between two engines of
 * this process over rxe's loopback path (staging pool off: every
 * descriptor a direct RDMA READ or WRITE), each timed on its own.  For
 * `make bench-lat` (bench/bench-lat-guest.sh), beside perftest's
 * ib_write_lat / ib_read_lat in the same boot.
 *
 * Usage: bench-lat [--op write|read] [--size BYTES] [--iters N] [--warmup N]
 *                  [--rep N] [--tool NAME] [--ip ADDR] [--port PORT]
 *
 * Prints one line:
 *   lat REP TOOL OP SIZE N P50_US P99_US MEAN_US MIN_US MAX_US CPU_SECONDS SECONDS
 * TOOL is --tool (default "hixl"; the guest script names the module's
 * poll_us setting in it).  The latency of one op is from just before the
 * ioctl to just after it returned (what a caller of hixl_transfer_sync()
 * waits).  CPU_SECONDS: whole-machine busy time (user + nice + system +
 * irq + softirq + steal of /proc/stat's "cpu" line: rxe works in softirq
 * and kernel threads) over the N timed ops; SECONDS: their wall time.
 * The first --warmup ops (100) are not timed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hixl/uapi.h>

#include "bench_clock.h"
#include "raw.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the nearest-rank percentile of sorted @v */
static double pct(const double *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * n + 0.999999);

	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return v[i - 1];
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-lat [--op write|read] [--size BYTES] [--iters N] [--warmup N]\n"
		"                 [--rep N] [--tool NAME] [--ip ADDR] [--port PORT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *ip = "10.77.0.1", *opname = "write", *tool = "hixl";
	size_t size = 4096, iters = 2000, warmup = 100;
	unsigned int port = 17201;
	int rep = 1, op;
	double *lat, sum = 0, t0, c0, wall, cpu;
	struct hixl_raw_pair p;
	struct hixl_op_desc d;
	struct hixl_transfer t;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(argv[i], "--op"))
			opname = argv[++i];
		else if (!strcmp(argv[i], "--size"))
			size = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--iters"))
			iters = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--warmup"))
			warmup = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--rep"))
			rep = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tool"))
			tool = argv[++i];
		else if (!strcmp(argv[i], "--ip"))
			ip = argv[++i];
		else if (!strcmp(argv[i], "--port"))
			port = strtoul(argv[++i], NULL, 0);
		else
			return usage();
	}
	if (strcmp(opname, "write") && strcmp(opname, "read"))
		return usage();
	if (!size || !iters || port < 1 || port > 65534)
		return usage();
	op = strcmp(opname, "read") ? HIXL_OP_WRITE : HIXL_OP_READ;
	lat = calloc(iters, sizeof(*lat));
	if (!lat || hixl_raw_pair_open(&p, ip, port, port + 1, size, op, "bench-lat"))
		return 1;
	hixl_raw_pair_desc(&p, op, &d, 0, size);
	memset(&t, 0, sizeof(t));
	t.remote = p.remote;
	t.op = op;
	t.descs = (uintptr_t)&d;
	t.count = 1;
	t.timeout_ms = 10000;
	for (size_t i = 0; i < warmup; i++) {
		if (ioctl(p.a, HIXL_IOC_TRANSFER, &t)) {
			perror("bench-lat: TRANSFER");
			return 1;
		}
	}
	c0 = busy_s();
	t0 = now_s();
	for (size_t i = 0; i < iters; i++) {
		double s = now_s();

		if (ioctl(p.a, HIXL_IOC_TRANSFER, &t)) {
			perror("bench-lat: TRANSFER");
			return 1;
		}
		lat[i] = (now_s() - s) * 1e6;
		sum += lat[i];
	}
	wall = now_s() - t0;
	cpu = busy_s() - c0;
	if (memcmp(p.src, p.dst, size)) {
		fprintf(stderr, "bench-lat: data differs after the transfers\n");
		return 1;
	}
	qsort(lat, iters, sizeof(*lat), cmp_double);
	printf("lat %d %s %s %zu %zu %.2f %.2f %.2f %.2f %.2f %.4f %.4f\n", rep, tool, opname, size,
	       iters, pct(lat, iters, 50), pct(lat, iters, 99), sum / iters, lat[0],
	       lat[iters - 1], cpu, wall);
	close(p.a);
	close(p.b);
	return 0;
}
