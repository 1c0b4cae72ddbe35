// SPDX-License-Identifier: GPL-2.0
/*
 * bench-xfer - WRITE/READ throughput of hixl between two engines of this
 * process over rxe's loopback path, one TRANSFER per repetition.
 *
 * Usage: bench-xfer [--total MiB] [--block KiB] [--reps N] [--op write|read]
 *
 * Prints one line per repetition: "hixl OP BLOCK_BYTES TOTAL_BYTES SECONDS",
 * for bench/bench.sh to put beside perftest's numbers.  Data is verified
 * after the last repetition (byte for byte).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "raw.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *ip = "10.77.0.1", *opname = "write";
	size_t total_mb = 256, block_kb = 1024, total, block, n;
	int reps = 3, op;
	struct hixl_raw_pair p;
	struct hixl_op_desc *d;
	struct hixl_transfer t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--total") && i + 1 < argc)
			total_mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--block") && i + 1 < argc)
			block_kb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--op") && i + 1 < argc)
			opname = argv[++i];
		else {
			fprintf(stderr, "usage: bench-xfer [--total MiB] [--block KiB] [--reps N] [--op write|read]\n");
			return 2;
		}
	}
	op = strcmp(opname, "read") ? HIXL_OP_WRITE : HIXL_OP_READ;
	total = total_mb << 20;
	block = block_kb << 10;
	if (!block || total % block || total / block > HIXL_MAX_DESCS) {
		fprintf(stderr, "bench-xfer: --total must be a multiple of --block, at most %d blocks\n",
			HIXL_MAX_DESCS);
		return 2;
	}
	n = total / block;
	d = calloc(n, sizeof(*d));
	if (!d || hixl_raw_pair_open(&p, ip, 17001, 17002, total, op, "bench-xfer"))
		return 1;
	for (size_t i = 0; i < n; i++)
		hixl_raw_pair_desc(&p, op, &d[i], i * block, block);
	for (int r = 0; r < reps; r++) {
		double t0;

		memset(&t, 0, sizeof(t));
		t.remote = p.remote;
		t.op = op;
		t.descs = (uintptr_t)d;
		t.count = n;
		t.timeout_ms = 600000;
		t0 = now_s();
		if (ioctl(p.a, HIXL_IOC_TRANSFER, &t)) {
			perror("bench-xfer: TRANSFER");
			return 1;
		}
		printf("hixl %s %zu %zu %.6f\n", opname, block, total, now_s() - t0);
		fflush(stdout);
	}
	if (memcmp(p.src, p.dst, total)) {
		fprintf(stderr, "bench-xfer: data differs after the transfer\n");
		return 1;
	}
	close(p.a);
	close(p.b);
	return 0;
}
