// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy-blocks - single-thread memcpy bandwidth of one block-sized buffer
 * into another, again and again, as bench-matrix's hixl points move one
 * block-sized buffer per side (bench/results-local.md).  Usage:
 *   memcpy-blocks KIB MIB_TOTAL REPS
 * Prints "memcpyblk BLOCK BYTES SECONDS CPU_SECONDS" per repetition (CPU:
 * this process's user + system time over the loop, getrusage()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t blk, total;
	unsigned char *src, *dst;
	int reps;

	if (argc != 4)
		return 2;
	blk = strtoul(argv[1], NULL, 10) * 1024;
	total = strtoul(argv[2], NULL, 10) << 20;
	reps = atoi(argv[3]);
	src = mmap(NULL, blk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, blk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED)
		return 1;
	memset(src, 7, blk);
	memset(dst, 0, blk);
	for (int r = 0; r < reps; r++) {
		size_t n = total / blk ? total / blk : 1;
		double t0 = now_s(), c0 = cpu_s();

		for (size_t i = 0; i < n; i++) {
			memcpy(dst, src, blk);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		double t1 = now_s(), c1 = cpu_s();

		printf("memcpyblk %zu %zu %.6f %.6f\n", blk, n * blk, t1 - t0, c1 - c0);
	}
	return 0;
}
