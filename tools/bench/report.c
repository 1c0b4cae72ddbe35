// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - hixl-bench's report: a table on stdout, or with --json one JSON
 * object and nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* @s as the body of a JSON string: quotes, backslashes, control characters escaped */
static void json_str(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
}

bool result_ok(const struct result *r)
{
	return !r->err && !r->why[0] && !r->bad_blocks;
}

const char *result_error(const struct result *r)
{
	return r->why[0] ? r->why : r->err ? strerror(-r->err) : "";
}

/*
 * A failure before any transfer: "hixl-bench: MESSAGE" on stderr and, with
 * --json, {"ok":false,"error":"MESSAGE","errno":N} on stdout (N: -@err, the
 * errno of the cause, 0 when there is none).  Returns the exit status it
 * stands for: EXIT_SKIP when @err means no device (err_is_skip()), else 1
 * (a usage error's caller returns EXIT_USAGE instead).
 */
int fail_early(int err, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hixl-bench: %s\n", msg);
	if (C.json) {
		printf("{\"ok\":false,\"error\":\"");
		json_str(msg);
		printf("\",\"errno\":%d}\n", -err);
		fflush(stdout);
	}
	return err_is_skip(err) ? EXIT_SKIP : 1;
}

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

/*
 * What moved a mode's bytes, from the initiating engine's counters: "kernel
 * copy" (a same-host link), "rdma" (work requests straight from the
 * registrations), "staged" (through the staging pool, also RDMA), or their
 * shares when several did; "?" when the counters could not be read.
 */
static void path_str(const struct result *r, char *buf, size_t len)
{
	const struct { const char *name; uint64_t bytes; } part[] = {
		{ "kernel copy", r->copy_bytes }, { "rdma", r->rdma_bytes },
		{ "staged", r->staged_bytes },
	};
	uint64_t sum = r->copy_bytes + r->rdma_bytes + r->staged_bytes;
	size_t off = 0, nz = 0;

	buf[0] = '\0';
	if (!r->stats_ok || !sum) {
		snprintf(buf, len, r->stats_ok ? "-" : "?");
		return;
	}
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		nz += part[i].bytes != 0;
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]) && off < len; i++) {
		if (!part[i].bytes)
			continue;
		if (nz == 1)
			off += snprintf(buf + off, len - off, "%s", part[i].name);
		else
			off += snprintf(buf + off, len - off, "%s%s %.0f%%", off ? ", " : "",
					part[i].name, 100.0 * part[i].bytes / sum);
	}
}

void report(const struct result *r, size_t nres, const struct side *s)
{
	double gb = 1e9;
	bool ok = true;

	for (size_t i = 0; i < nres; i++)
		ok &= result_ok(&r[i]);
	if (C.json) {
		printf("{\"tool\":\"hixl-bench\",\"ok\":%s,\"version\":\"%s\",\"device\":\"%s\","
		       "\"model\":{\"layers\":%lu,\"kv_heads\":%lu,\"head_dim\":%lu,"
		       "\"dtype_bytes\":%lu,\"block_tokens\":%lu,\"tokens\":%lu},"
		       "\"block_bytes\":%zu,\"descs_per_transfer\":%zu,\"bytes_per_iter\":%zu,"
		       "\"iters\":%lu,\"inflight\":%lu,\"procs\":%lu,\"pool\":\"%s\",",
		       ok ? "true" : "false", hixl_version(), device, C.layers, C.kv_heads,
		       C.head_dim, C.dtype_bytes, C.block_tokens, C.tokens, block_bytes,
		       2 * nblocks, s->bytes, C.iters, C.inflight, C.procs,
		       C.pool ? C.pool : "default");
		if (C.client) {		/* two hosts: the server we ran against */
			printf("\"server\":\"");
			json_str(C.client);
			printf("\",\"server_port\":%lu,", C.port);
		}
		printf("\"results\":[");
	} else {
		printf("hixl-bench %s on %s: %lu layers x K,V x %lu tokens x %lu heads x %lu dim x "
		       "%lu B = %.1f MiB per pass\n", hixl_version(), device,
		       C.layers, C.tokens, C.kv_heads, C.head_dim, C.dtype_bytes,
		       s->bytes / 1048576.0);
		printf("  %zu-byte blocks (%lu tokens), %zu scattered descriptors per layer "
		       "transfer, %lu iterations, %lu in flight, engines %s, staging pool %s\n",
		       block_bytes, C.block_tokens, 2 * nblocks, C.iters, C.inflight,
		       C.client ? "on two hosts" : C.procs == 2 ? "in two processes" :
		       "in one process",
		       C.pool ? C.pool : "default (4:8)");
		if (C.client)
			printf("  this host %s, the server %s (side socket port %lu)\n", C.local,
			       C.client, C.port);
		printf("  %-5s %10s %9s %10s %12s %9s %9s %9s  %-8s %s\n", "mode", "MiB", "s",
		       "GB/s", "descs/s", "p50 ms", "p90 ms", "p99 ms", "verify", "moved by");
	}
	for (size_t i = 0; i < nres; i++) {
		double *lat = r[i].lat_ms, secs = r[i].seconds > 0 ? r[i].seconds : 1e-9;
		size_t n = r[i].transfers;
		const char *verdict = r[i].err || r[i].why[0] ? "error" :
				      r[i].bad_blocks ? "MISMATCH" : "ok";

		if (lat && n)
			qsort(lat, n, sizeof(*lat), cmp_double);
		if (C.json) {
			printf("%s{\"mode\":\"%s\",\"ok\":%s,\"error\":\"", i ? "," : "", r[i].mode,
			       result_ok(&r[i]) ? "true" : "false");
			json_str(result_error(&r[i]));
			printf("\",\"errno\":%d,\"bad_blocks\":%zu,"
			       "\"transfers\":%zu,\"bytes\":%zu,\"descs\":%zu,\"seconds\":%.6f,"
			       "\"gb_per_s\":%.6f,\"mib_per_s\":%.3f,\"descs_per_s\":%.1f,"
			       "\"latency_ms\":{\"min\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,"
			       "\"max\":%.3f}", -r[i].err, r[i].bad_blocks, n, r[i].bytes,
			       r[i].descs, r[i].seconds, r[i].bytes / secs / gb,
			       r[i].bytes / secs / 1048576.0, r[i].descs / secs,
			       n ? lat[0] : 0, pct(lat, n, 50), pct(lat, n, 90), pct(lat, n, 99),
			       n ? lat[n - 1] : 0);
			if (r[i].stats_ok)
				printf(",\"moved_by\":{\"kernel_copy_bytes\":%llu,"
				       "\"rdma_bytes\":%llu,\"staged_bytes\":%llu}",
				       (unsigned long long)r[i].copy_bytes,
				       (unsigned long long)r[i].rdma_bytes,
				       (unsigned long long)r[i].staged_bytes);
			printf("}");
		} else {
			char path[96];

			path_str(&r[i], path, sizeof(path));
			printf("  %-5s %10.1f %9.3f %10.4f %12.0f %9.2f %9.2f %9.2f  %-8s %s\n",
			       r[i].mode, r[i].bytes / 1048576.0, r[i].seconds,
			       r[i].bytes / secs / gb, r[i].descs / secs, pct(lat, n, 50),
			       pct(lat, n, 90), pct(lat, n, 99), verdict, path);
			if (!result_ok(&r[i]))
				printf("        %s: %s\n", r[i].mode,
				       r[i].bad_blocks && !r[i].err && !r[i].why[0] ?
				       "blocks differ after the transfer" : result_error(&r[i]));
		}
	}
	if (C.json)
		printf("]}\n");
}

