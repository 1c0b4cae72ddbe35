/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - hixl-bench's shared declarations: the options, a side (one
 * engine with its KV cache and block table), a mode's result, and the
 * functions each file of tools/bench/ gives the others.
 *
 *   main.c    main(): the one-host modes (one process or two)
 *   opts.c    the command line: parsing, validation, --help
 *   kv.c      the KV-cache model: layout, data, block tables, verification,
 *             the engines, one mode's transfers (run_mode())
 *   report.c  the text and JSON reports, the early-failure JSON
 *   net.c     --server / --client: the side TCP socket and its messages
 */
#ifndef HIXL_BENCH_H
#define HIXL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hixl/hixl.h>

/* Exit statuses (documented in --help and hixl-bench(1)) */
#define EXIT_USAGE	2
#define EXIT_SKIP	77	/* no /dev/hixl, no module, no RDMA device on the address */

struct cfg {
	unsigned long layers, kv_heads, head_dim, dtype_bytes, block_tokens, tokens, iters;
	unsigned long inflight, timeout_ms, seed, procs;
	const char *local, *remote, *mode;
	const char *pool;	/* BufferPool option, "N:SIZE_MB"; NULL: the library's default */
	const char *transport;	/* Transport option: auto, rdma, local; NULL: the library's */
	bool json, progress;
	/* two hosts (net.c): --server, or --client HOST[:PORT] */
	bool server;
	const char *client;		/* the server's host as given */
	char host[256];			/* --client's host, without the port */
	unsigned long port;		/* the side TCP port */
	unsigned long connect_wait;	/* --client: seconds to retry the TCP connect */
};

/* the side socket's TCP port when --port and --client HOST:PORT give none */
#define BENCH_PORT	18515	/* perftest's (ib_write_bw) default, so firewalls know it */

struct side {
	struct hixl_engine *eng;
	const char *name;
	unsigned char *base;
	size_t bytes;
	uint32_t *table;	/* logical block -> physical block */
	uint64_t handle;
};

struct result {
	const char *mode;
	int err;		/* -errno of the first failure, 0 */
	char why[256];		/* what failed, when strerror(-err) does not say it all */
	size_t bad_blocks;
	double seconds;
	size_t bytes, descs, transfers;
	double *lat_ms;		/* one per transfer */
	/* what moved the bytes: the initiating engine's counters over the mode
	 * (hixl_xfer_stats): direct bytes copied by the kernel on a same-host
	 * link, direct bytes that went over RDMA, bytes through the staging pool;
	 * stats_ok false when the counters could not be read */
	bool stats_ok;
	uint64_t copy_bytes, rdma_bytes, staged_bytes;
};

/*
 * The decode side's check when it lives elsewhere (another process, another
 * host): verify() asks it and sets *bad to the number of blocks that differ;
 * returns 0, or -errno with @why (of @len bytes) saying what failed.
 */
struct verifier {
	int (*verify)(void *ctx, size_t *bad, char *why, size_t len);
	void *ctx;
};

extern struct cfg C;
extern size_t block_bytes, nblocks;	/* per block; blocks per layer per K/V */
extern char device[64];			/* the RDMA device, for the report */

/* opts.c */
int parse_args(int argc, char **argv);
int layout_check(char *why, size_t len);	/* 0; EXIT_USAGE; -1: --help/--version done */

/* kv.c */
double now_s(void);
void progress(const char *mode, size_t done, size_t total);
int side_map(struct side *s, const char *name, uint64_t seed);
void side_unmap(struct side *s);
int side_engine_init(struct side *s);
int side_register(struct side *s);
int side_engine(struct side *s);
void side_engine_end(struct side *s);
void prefill_fill(struct side *p, uint64_t *sums);
void prefill_fill_sums(uint64_t *sums);
size_t decode_verify(const struct side *d, const uint64_t *sums);
bool err_is_skip(int err);
void run_mode(struct result *res, struct side *init, struct side *peer, enum hixl_op op,
	      struct side *decode, const uint64_t *sums, const struct verifier *v);

extern char last_err[512];		/* what the last failing side_*() call said */

/* net.c */
int net_server(void);
int net_client(void);

/* report.c */
int fail_early(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool result_ok(const struct result *r);
const char *result_error(const struct result *r);
void report(const struct result *r, size_t nres, const struct side *s);

#endif
