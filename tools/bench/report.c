// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - hixl-bench's report: a table on stdout, or with --json one JSON
 * object and nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *sorted, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	return n ? sorted[i < n ? i : n - 1] : 0;
}

void report(const struct result *r, size_t nres, const struct side *s)
{
	double gb = 1e9;

	if (C.json) {
		printf("{\"tool\":\"hixl-bench\",\"version\":\"%s\",\"device\":\"%s\","
		       "\"model\":{\"layers\":%lu,\"kv_heads\":%lu,\"head_dim\":%lu,"
		       "\"dtype_bytes\":%lu,\"block_tokens\":%lu,\"tokens\":%lu},"
		       "\"block_bytes\":%zu,\"descs_per_transfer\":%zu,\"bytes_per_iter\":%zu,"
		       "\"iters\":%lu,\"inflight\":%lu,\"procs\":%lu,\"pool\":\"%s\","
		       "\"results\":[",
		       hixl_version(), device, C.layers, C.kv_heads,
		       C.head_dim, C.dtype_bytes, C.block_tokens, C.tokens, block_bytes,
		       2 * nblocks, s->bytes, C.iters, C.inflight, C.procs,
		       C.pool ? C.pool : "default");
	} else {
		printf("hixl-bench %s on %s: %lu layers x K,V x %lu tokens x %lu heads x %lu dim x "
		       "%lu B = %.1f MiB per pass\n", hixl_version(), device,
		       C.layers, C.tokens, C.kv_heads, C.head_dim, C.dtype_bytes,
		       s->bytes / 1048576.0);
		printf("  %zu-byte blocks (%lu tokens), %zu scattered descriptors per layer "
		       "transfer, %lu iterations, %lu in flight, engines in %s, staging pool %s\n",
		       block_bytes, C.block_tokens, 2 * nblocks, C.iters, C.inflight,
		       C.procs == 2 ? "two processes" : "one process",
		       C.pool ? C.pool : "default (4:8)");
		printf("  %-5s %10s %9s %10s %12s %9s %9s %9s  %s\n", "mode", "MiB", "s", "GB/s",
		       "descs/s", "p50 ms", "p90 ms", "p99 ms", "verify");
	}
	for (size_t i = 0; i < nres; i++) {
		double *lat = r[i].lat_ms, secs = r[i].seconds > 0 ? r[i].seconds : 1e-9;
		size_t n = r[i].transfers;
		const char *verdict = r[i].err ? "error" : r[i].bad_blocks ? "MISMATCH" : "ok";

		if (lat && n)
			qsort(lat, n, sizeof(*lat), cmp_double);
		if (C.json) {
			printf("%s{\"mode\":\"%s\",\"ok\":%s,\"error\":\"%s\",\"bad_blocks\":%zu,"
			       "\"transfers\":%zu,\"bytes\":%zu,\"descs\":%zu,\"seconds\":%.6f,"
			       "\"gb_per_s\":%.6f,\"mib_per_s\":%.3f,\"descs_per_s\":%.1f,"
			       "\"latency_ms\":{\"min\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
			       "\"max\":%.3f}}", i ? "," : "", r[i].mode,
			       !r[i].err && !r[i].bad_blocks ? "true" : "false",
			       r[i].err ? strerror(-r[i].err) : "", r[i].bad_blocks, n, r[i].bytes,
			       r[i].descs, r[i].seconds, r[i].bytes / secs / gb,
			       r[i].bytes / secs / 1048576.0, r[i].descs / secs,
			       n ? lat[0] : 0, pct(lat, n, 50), pct(lat, n, 90), pct(lat, n, 99),
			       n ? lat[n - 1] : 0);
		} else {
			printf("  %-5s %10.1f %9.3f %10.4f %12.0f %9.2f %9.2f %9.2f  %s\n",
			       r[i].mode, r[i].bytes / 1048576.0, r[i].seconds,
			       r[i].bytes / secs / gb, r[i].descs / secs, pct(lat, n, 50),
			       pct(lat, n, 90), pct(lat, n, 99), verdict);
		}
	}
	if (C.json)
		printf("]}\n");
}

