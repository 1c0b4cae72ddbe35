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
	int reps = 3, a, b, op;
	unsigned char *src, *dst;
	struct hixl_op_desc *d;
	struct hixl_connect c;
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
	a = hixl_raw_engine(ip, 17001, 0, 0);
	b = hixl_raw_engine(ip, 17002, 0, 0);
	if (a < 0 || b < 0) {
		fprintf(stderr, "bench-xfer: engine setup failed: %s\n", strerror(-(a < 0 ? a : b)));
		return 1;
	}
	src = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d = calloc(n, sizeof(*d));
	if (src == MAP_FAILED || dst == MAP_FAILED || !d)
		return 1;
	for (size_t i = 0; i < total; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	memset(dst, 0, total);
	/* WRITE: a's src -> b's dst; READ: a's dst <- b's src */
	if (hixl_raw_reg_host(a, op == HIXL_OP_WRITE ? src : dst, total) ||
	    hixl_raw_reg_host(b, op == HIXL_OP_WRITE ? dst : src, total)) {
		perror("bench-xfer: REG_MEM");
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.remote = hixl_raw_name(ip, 17002);
	c.timeout_ms = 10000;
	if (ioctl(a, HIXL_IOC_CONNECT, &c)) {
		perror("bench-xfer: CONNECT");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		d[i].local_addr = (uintptr_t)(op == HIXL_OP_WRITE ? src : dst) + i * block;
		d[i].remote_addr = (uintptr_t)(op == HIXL_OP_WRITE ? dst : src) + i * block;
		d[i].len = block;
	}
	for (int r = 0; r < reps; r++) {
		double t0;

		memset(&t, 0, sizeof(t));
		t.remote = c.remote;
		t.op = op;
		t.descs = (uintptr_t)d;
		t.count = n;
		t.timeout_ms = 600000;
		t0 = now_s();
		if (ioctl(a, HIXL_IOC_TRANSFER, &t)) {
			perror("bench-xfer: TRANSFER");
			return 1;
		}
		printf("hixl %s %zu %zu %.6f\n", opname, block, total, now_s() - t0);
		fflush(stdout);
	}
	if (memcmp(src, dst, total)) {
		fprintf(stderr, "bench-xfer: data differs after the transfer\n");
		return 1;
	}
	close(a);
	close(b);
	return 0;
}
