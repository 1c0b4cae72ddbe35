/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_blocks.h - the KV job's blocks as the benchmarks lay them out
 * (bench/bench-gpu.c, bench/bench-scale.c): anonymous buffers, scattered
 * block picks, and the bytes of a moved block that match its source.
 */
#ifndef HIXL_BENCH_BLOCKS_H
#define HIXL_BENCH_BLOCKS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* len bytes of private anonymous memory, NULL when mmap fails */
static inline void *bench_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * ids[0..k) := k distinct picks of 0..n-1 (a shuffled prefix), from *seed
 * (rand_r()); 0, or -ENOMEM.
 */
static inline int bench_pick(unsigned int *ids, unsigned int n, unsigned int k,
			     unsigned int *seed)
{
	unsigned int *all = malloc(n * sizeof(*all));

	if (!all)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		all[i] = i;
	for (unsigned int i = 0; i < k; i++) {
		unsigned int j = i + rand_r(seed) % (n - i), t = all[i];

		all[i] = all[j];
		all[j] = t;
		ids[i] = all[i];
	}
	free(all);
	return 0;
}

/* bytes of got equal to want, len bytes compared */
static inline size_t bench_equal_bytes(const unsigned char *got, const unsigned char *want,
				       size_t len)
{
	size_t eq = 0;

	if (!memcmp(got, want, len))
		return len;
	for (size_t i = 0; i < len; i++)
		eq += got[i] == want[i];
	return eq;
}

#endif
