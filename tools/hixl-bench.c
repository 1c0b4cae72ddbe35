// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-bench - move a real KV-cache layout between two engines with the
 * library's engine API, verify it, and report throughput and latency.
 *
 * The model: L layers, each with a K and a V cache of T tokens x H KV heads x
 * D head dim x B bytes per element, cut into blocks of N tokens (paged
 * attention).  Each side keeps a block pool per layer and per K/V and a block
 * table mapping the sequence's logical blocks to physical ones: shuffled
 * (deterministic seed), differently on each side, so every block is one
 * transfer descriptor with scattered addresses on both ends.  One transfer
 * (one batch) per layer: K and V blocks of that layer, 2 * T / N descriptors.
 *
 * Modes: write (the prefill engine pushes into the decode engine) and read
 * (the decode engine pulls from the prefill engine).  Before each mode the
 * decode side is zeroed; after it, every block is checked against the
 * prefill side's per-block checksums.
 *
 * The two engines live in two processes (--procs 2, the default): for each
 * mode a child process holds the passive side (decode for write, prefill for
 * read) and the parent the initiating one; they agree on addresses because
 * both buffers are mapped before the fork and the block tables come from the
 * seed.  --procs 1 keeps both engines in one process.  Either way they talk
 * over one RDMA device's loopback path in the test VM (or over a real fabric
 * with --local/--remote on two hosts' addresses... of one host here).
 *
 * Exit status: 0 success; 1 a failure or a verification mismatch; 2 usage;
 * 77 no /dev/hixl or no RDMA device on the address.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

struct cfg {
	unsigned long layers, kv_heads, head_dim, dtype_bytes, block_tokens, tokens, iters;
	unsigned long inflight, timeout_ms, seed, procs;
	const char *local, *remote, *mode;
	const char *pool;	/* BufferPool option, "N:SIZE_MB"; NULL: the library's default */
	bool json, progress;
};

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
	int err;
	size_t bad_blocks;
	double seconds;
	size_t bytes, descs, transfers;
	double *lat_ms;		/* one per transfer */
};

static struct cfg C = {
	.layers = 32, .kv_heads = 8, .head_dim = 128, .dtype_bytes = 2,
	.block_tokens = 16, .tokens = 2048, .iters = 3, .inflight = 1,
	.timeout_ms = 30000, .seed = 42, .procs = 2,
	.local = "10.77.0.1:18100", .remote = "10.77.0.1:18101", .mode = "both",
};

static size_t block_bytes, nblocks;	/* per block; blocks per layer per K/V */
static char device[64];			/* the RDMA device, for the report */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* address of (layer, kv 0/1, physical block) in a side's pool */
static unsigned char *block_addr(const struct side *s, size_t layer, size_t kv, size_t phys)
{
	return s->base + ((layer * 2 + kv) * nblocks + phys) * block_bytes;
}

static uint64_t block_hash(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL, w;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (size_t i = len & ~(size_t)7; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static void shuffle(uint32_t *t, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		t[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = splitmix(&seed) % (i + 1);
		uint32_t x = t[i];

		t[i] = t[j];
		t[j] = x;
	}
}

static void progress(const char *mode, size_t done, size_t total)
{
	int width = 40, fill;

	if (!C.progress)
		return;
	fill = (int)(done * width / total);
	fprintf(stderr, "\r%-5s [%.*s%*s] %3zu%%", mode, fill,
		"########################################", width - fill, "",
		done * 100 / total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
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

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: hixl-bench [options]\n"
		"  --layers N        transformer layers (32)\n"
		"  --kv-heads N      KV heads (8)\n"
		"  --head-dim N      head dimension (128)\n"
		"  --dtype-bytes N   bytes per element (2: bf16)\n"
		"  --block-tokens N  tokens per KV block (16)\n"
		"  --tokens N        prefill length in tokens (2048)\n"
		"  --mode M          write | read | both (both)\n"
		"  --iters N         transfers of the whole cache per mode (3)\n"
		"  --inflight N      layer transfers in flight (1: synchronous;\n"
		"                    > 1: hixl_transfer_async)\n"
		"  --timeout-ms N    per-transfer timeout, ms (30000)\n"
		"  --seed N          block-table shuffle and data seed (42)\n"
		"  --procs N         2: each engine in its own process (default); 1: one process\n"
		"  --local NAME      prefill engine name (10.77.0.1:18100)\n"
		"  --remote NAME     decode engine name (10.77.0.1:18101)\n"
		"  --pool N:MB       staging pool of both engines (HIXL BufferPool; default\n"
		"                    4:8: blocks < 256 KiB are staged; 0:0 posts every\n"
		"                    block as its own RDMA work request)\n"
		"  --json            one JSON object on stdout, nothing else\n"
		"  --no-progress     no progress bar (it is drawn only on a tty)\n"
		"  -h, --help        this help\n"
		"  -V, --version     the version (the library's, hixl_version())\n"
		"exit status: 0 success; 1 a failure or a verification mismatch; 2 usage;\n"
		"77 no /dev/hixl or no RDMA device on the address.  See hixl-bench(1).\n");
	return rc;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "layers", 1, NULL, 'L' }, { "kv-heads", 1, NULL, 'H' },
		{ "head-dim", 1, NULL, 'D' }, { "dtype-bytes", 1, NULL, 'B' },
		{ "block-tokens", 1, NULL, 'N' }, { "tokens", 1, NULL, 'T' },
		{ "mode", 1, NULL, 'm' }, { "iters", 1, NULL, 'i' },
		{ "inflight", 1, NULL, 'f' }, { "timeout-ms", 1, NULL, 't' },
		{ "seed", 1, NULL, 's' }, { "local", 1, NULL, 'l' },
		{ "remote", 1, NULL, 'r' }, { "json", 0, NULL, 'j' },
		{ "no-progress", 0, NULL, 'P' }, { "help", 0, NULL, 'h' },
		{ "procs", 1, NULL, 'p' }, { "pool", 1, NULL, 'o' },
		{ "version", 0, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	unsigned long *num;
	int c;

	C.progress = isatty(STDERR_FILENO);
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		num = NULL;
		switch (c) {
		case 'L': num = &C.layers; break;
		case 'H': num = &C.kv_heads; break;
		case 'D': num = &C.head_dim; break;
		case 'B': num = &C.dtype_bytes; break;
		case 'N': num = &C.block_tokens; break;
		case 'T': num = &C.tokens; break;
		case 'i': num = &C.iters; break;
		case 'f': num = &C.inflight; break;
		case 't': num = &C.timeout_ms; break;
		case 's': num = &C.seed; break;
		case 'p': num = &C.procs; break;
		case 'm': C.mode = optarg; break;
		case 'l': C.local = optarg; break;
		case 'r': C.remote = optarg; break;
		case 'o': C.pool = optarg; break;
		case 'j': C.json = true; break;
		case 'P': C.progress = false; break;
		case 'h': exit(usage(0));
		case 'V': printf("hixl-bench (hixl) %s\n", hixl_version()); exit(0);
		default: return usage(2);
		}
		if (num) {
			char *end;

			errno = 0;
			*num = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr, "hixl-bench: bad number '%s'\n", optarg);
				return 2;
			}
		}
	}
	if (optind != argc)
		return usage(2);
	if (strcmp(C.mode, "write") && strcmp(C.mode, "read") && strcmp(C.mode, "both")) {
		fprintf(stderr, "hixl-bench: --mode write|read|both\n");
		return 2;
	}
	if (!C.layers || !C.kv_heads || !C.head_dim || !C.dtype_bytes || !C.block_tokens ||
	    !C.tokens || !C.iters || !C.inflight || !C.timeout_ms || C.timeout_ms > INT32_MAX ||
	    C.tokens % C.block_tokens || C.inflight > 1024 || C.procs > 2) {
		fprintf(stderr, "hixl-bench: every number must be > 0, --tokens a multiple of "
			"--block-tokens, --inflight <= 1024, --procs 1 or 2\n");
		return 2;
	}
	if (C.json)
		C.progress = false;
	return 0;
}

/* The side's cache memory and block table (before any fork: same VA in both). */
static int side_map(struct side *s, const char *name, uint64_t seed)
{
	s->name = name;
	s->base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		return -ENOMEM;
	}
	madvise(s->base, s->bytes, MADV_HUGEPAGE);
	s->table = malloc(nblocks * sizeof(*s->table));
	if (!s->table)
		return -ENOMEM;
	shuffle(s->table, nblocks, seed);
	return 0;
}

/* The side's engine, with its cache registered; in the process that owns it. */
static int side_engine(struct side *s)
{
	struct hixl_mem_desc d = { 0 };
	int ret;

	memset(s->base, 0, s->bytes);	/* fault in before pinning */
	{
		const struct hixl_option pool = { HIXL_OPTION_BUFFER_POOL, C.pool };

		ret = hixl_engine_init(&s->eng, s->name, &pool, C.pool ? 1 : 0);
	}
	if (ret) {
		fprintf(stderr, "hixl-bench: engine %s: %s\n", s->name, strerror(-ret));
		return ret;
	}
	if (!device[0])
		snprintf(device, sizeof(device), "%s", hixl_engine_device(s->eng));
	memset(&d, 0, sizeof(d));
	d.addr = (uintptr_t)s->base;
	d.len = s->bytes;
	ret = hixl_register_mem(s->eng, &d, HIXL_MEM_HOST, &s->handle);
	if (ret)
		fprintf(stderr, "hixl-bench: register %zu bytes on %s: %s\n", s->bytes, s->name,
			strerror(-ret));
	return ret;
}

/* The prefill cache: each logical block's own pseudo-random bytes, and sums. */
static void prefill_fill(struct side *p, uint64_t *sums)
{
	uint64_t seed = C.seed;

	for (size_t l = 0; l < C.layers; l++)
		for (size_t kv = 0; kv < 2; kv++)
			for (size_t b = 0; b < nblocks; b++) {
				uint64_t *w = (uint64_t *)block_addr(p, l, kv, p->table[b]);
				unsigned char *bp = (unsigned char *)w;

				for (size_t i = 0; i < block_bytes / 8; i++)
					w[i] = splitmix(&seed);
				for (size_t i = block_bytes & ~(size_t)7; i < block_bytes; i++)
					bp[i] = (unsigned char)splitmix(&seed);
				sums[(l * 2 + kv) * nblocks + b] = block_hash(bp, block_bytes);
			}
}

/* The prefill sums alone (the data lives in another process). */
static void prefill_fill_sums(uint64_t *sums)
{
	unsigned char *tmp = malloc(block_bytes);
	uint64_t seed = C.seed;

	if (!tmp)
		abort();
	for (size_t l = 0; l < C.layers; l++)
		for (size_t kv = 0; kv < 2; kv++)
			for (size_t b = 0; b < nblocks; b++) {
				uint64_t w;

				for (size_t i = 0; i < block_bytes / 8; i++) {
					w = splitmix(&seed);
					memcpy(tmp + i * 8, &w, 8);
				}
				for (size_t i = block_bytes & ~(size_t)7; i < block_bytes; i++)
					tmp[i] = (unsigned char)splitmix(&seed);
				sums[(l * 2 + kv) * nblocks + b] = block_hash(tmp, block_bytes);
			}
	free(tmp);
}

static void side_engine_end(struct side *s)
{
	hixl_engine_finalize(s->eng);
	s->eng = NULL;
}

/* Blocks of the decode cache that differ from the prefill sums. */
static size_t decode_verify(const struct side *d, const uint64_t *sums)
{
	size_t bad = 0;

	for (size_t l = 0; l < C.layers; l++)
		for (size_t kv = 0; kv < 2; kv++)
			for (size_t b = 0; b < nblocks; b++)
				if (block_hash(block_addr(d, l, kv, d->table[b]), block_bytes) !=
				    sums[(l * 2 + kv) * nblocks + b])
					bad++;
	return bad;
}

/* descriptors of one layer: K then V, in logical block order */
static void layer_descs(struct hixl_op_desc *d, const struct side *local,
			const struct side *remote, size_t layer)
{
	for (size_t kv = 0; kv < 2; kv++)
		for (size_t b = 0; b < nblocks; b++, d++) {
			d->local_addr = (uintptr_t)block_addr(local, layer, kv, local->table[b]);
			d->remote_addr = (uintptr_t)block_addr(remote, layer, kv, remote->table[b]);
			d->len = block_bytes;
		}
}

/*
 * One mode: initiator (local engine) issues C.iters x C.layers transfers of
 * op against peer, then decode's blocks are checked against sums[].
 */
static void run_mode(struct result *res, struct side *init, struct side *peer, enum hixl_op op,
		     struct side *decode, const uint64_t *sums, const int *verify_fd)
{
	size_t per = 2 * nblocks, total = C.iters * C.layers, done = 0, next = 0;
	struct hixl_op_desc *descs = malloc(C.layers * per * sizeof(*descs));
	struct hixl_request **reqs = calloc(C.inflight, sizeof(*reqs));
	double *t0 = calloc(C.inflight, sizeof(*t0));
	double start;
	int ret = 0;

	res->lat_ms = calloc(total, sizeof(double));
	if (!descs || !reqs || !t0 || !res->lat_ms) {
		res->err = -ENOMEM;
		goto out;
	}
	for (size_t l = 0; l < C.layers; l++)
		layer_descs(descs + l * per, init, peer, l);
	if (!verify_fd)		/* the decode side is ours: start from zeroes */
		memset(decode->base, 0, decode->bytes);
	ret = hixl_connect(init->eng, peer->name, 5000);
	if (ret) {
		fprintf(stderr, "hixl-bench: connect %s -> %s: %s\n", init->name, peer->name,
			strerror(-ret));
		goto out;
	}
	progress(res->mode, 0, total);
	start = now_s();
	if (C.inflight == 1) {
		for (; done < total; done++) {
			size_t failed;
			double t = now_s();

			ret = hixl_transfer_sync(init->eng, peer->name, op,
						 descs + (done % C.layers) * per, per,
						 (int)C.timeout_ms, &failed);
			res->lat_ms[done] = (now_s() - t) * 1e3;
			if (ret) {
				fprintf(stderr, "hixl-bench: %s layer %zu: %s (descriptor %zu)\n",
					res->mode, done % C.layers, strerror(-ret), failed);
				break;
			}
			progress(res->mode, done + 1, total);
		}
	} else {
		/* a ring of C.inflight requests; the oldest is waited for first */
		while (done < total) {
			while (next < total && next - done < C.inflight) {
				size_t slot = next % C.inflight;

				t0[slot] = now_s();
				struct hixl_transfer_args ta =
					HIXL_TRANSFER_ARGS_INIT((int)C.timeout_ms);

				ret = hixl_transfer_async(init->eng, peer->name, op,
							  descs + (next % C.layers) * per, per,
							  &ta, &reqs[slot]);
				if (ret)
					goto drain;
				next++;
			}
			{
				size_t slot = done % C.inflight;
				enum hixl_transfer_status st;

				hixl_request_wait(init->eng, reqs[slot], -1, &st);
				res->lat_ms[done] = (now_s() - t0[slot]) * 1e3;
				ret = hixl_request_result(reqs[slot], NULL);
				hixl_request_free(reqs[slot]);
				reqs[slot] = NULL;
				if (ret) {
					fprintf(stderr, "hixl-bench: %s layer %zu: %s\n", res->mode,
						done % C.layers, strerror(-ret));
					goto drain;
				}
				done++;
				progress(res->mode, done, total);
			}
		}
drain:
		for (size_t i = 0; i < C.inflight; i++)
			if (reqs[i]) {
				hixl_request_wait(init->eng, reqs[i], -1, NULL);
				hixl_request_free(reqs[i]);
			}
	}
	res->seconds = now_s() - start;
	res->transfers = done;
	res->bytes = done * per * block_bytes;
	res->descs = done * per;
	if (C.progress && done < total)
		fputc('\n', stderr);
	hixl_disconnect(init->eng, peer->name, 1000);
	if (ret)
		goto out;
	/* verify: logical block b of (layer, kv) on decode == prefill's sum,
	 * here or, when decode lives in the peer process, there */
	if (!verify_fd) {
		res->bad_blocks = decode_verify(decode, sums);
	} else if (write(verify_fd[1], "V", 1) != 1 ||
		   read(verify_fd[0], &res->bad_blocks, sizeof(res->bad_blocks)) !=
		   sizeof(res->bad_blocks)) {
		ret = -EPIPE;
		goto out;
	}
	if (res->bad_blocks)
		fprintf(stderr, "hixl-bench: %s: %zu blocks differ after the transfer\n",
			res->mode, res->bad_blocks);
out:
	res->err = ret;
	free(descs);
	free(reqs);
	free(t0);
}

static void report(const struct result *r, size_t nres, const struct side *s)
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

/*
 * One mode with the engines in two processes: a child owns the passive side
 * (decode for write, prefill for read) and the parent initiates.  Returns 77
 * when there is no device, else 0 (errors are in @res).
 */
static int run_two_procs(struct result *res, bool write_mode, struct side *prefill,
			 struct side *decode, uint64_t *sums)
{
	struct side *mine = write_mode ? prefill : decode;
	struct side *peer = write_mode ? decode : prefill;
	int to_child[2], from_child[2], status, ret;
	char c = 0;
	pid_t pid;

	if (pipe(to_child) || pipe(from_child)) {
		res->err = -errno;
		return 0;
	}
	prefill_fill_sums(sums);	/* both processes need them */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		res->err = -errno;
		return 0;
	}
	if (pid == 0) {		/* the passive side */
		size_t bad;

		close(to_child[1]);
		close(from_child[0]);
		ret = side_engine(peer);
		if (!ret && !write_mode)
			prefill_fill(prefill, sums);
		c = ret ? (ret == -ENOENT || ret == -EADDRNOTAVAIL || ret == -ENODEV ? 'S' : 'E')
			: 'R';
		if (write(from_child[1], &c, 1) != 1 || c != 'R')
			_exit(1);
		/* serve until the parent asks to verify (write) or closes (read) */
		while (read(to_child[0], &c, 1) == 1) {
			if (c != 'V')
				continue;
			bad = decode_verify(decode, sums);
			if (write(from_child[1], &bad, sizeof(bad)) != sizeof(bad))
				_exit(1);
		}
		side_engine_end(peer);
		_exit(0);
	}
	close(to_child[0]);
	close(from_child[1]);
	if (read(from_child[0], &c, 1) != 1 || c != 'R') {
		waitpid(pid, &status, 0);
		if (c == 'S')
			return 77;
		res->err = -ECHILD;
		return 0;
	}
	ret = side_engine(mine);
	if (ret) {
		res->err = ret;
	} else {
		if (write_mode)
			prefill_fill(prefill, sums);
		run_mode(res, mine, peer, write_mode ? HIXL_OP_WRITE : HIXL_OP_READ, decode, sums,
			 write_mode ? (int[2]){ from_child[0], to_child[1] } : NULL);
	}
	side_engine_end(mine);
	close(to_child[1]);
	close(from_child[0]);
	waitpid(pid, &status, 0);
	if (!res->err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		res->err = -ECHILD;
	return 0;
}

int main(int argc, char **argv)
{
	struct side prefill = { 0 }, decode = { 0 };
	struct result res[2] = { { 0 } };
	size_t nres = 0;
	uint64_t *sums = NULL;
	int ret, rc = 1;

	ret = parse_args(argc, argv);
	if (ret)
		return ret;
	block_bytes = C.block_tokens * C.kv_heads * C.head_dim * C.dtype_bytes;
	nblocks = C.tokens / C.block_tokens;
	if (block_bytes / C.dtype_bytes / C.head_dim / C.kv_heads != C.block_tokens ||
	    nblocks > UINT32_MAX || 2 * nblocks > HIXL_MAX_DESCS ||
	    C.layers * 2 * nblocks > SIZE_MAX / block_bytes) {
		fprintf(stderr, "hixl-bench: layout too large (at most %d descriptors per layer)\n",
			HIXL_MAX_DESCS);
		return 2;
	}
	prefill.bytes = decode.bytes = C.layers * 2 * nblocks * block_bytes;
	sums = malloc(C.layers * 2 * nblocks * sizeof(*sums));
	if (!sums)
		return 1;

	ret = side_map(&prefill, C.local, C.seed);
	if (!ret)
		ret = side_map(&decode, C.remote, C.seed ^ 0x5eed);
	if (ret)
		goto out;

	if (C.procs == 1) {
		ret = side_engine(&prefill);
		if (!ret)
			ret = side_engine(&decode);
		if (ret) {
			rc = ret == -ENOENT || ret == -EADDRNOTAVAIL || ret == -ENODEV ? 77 : 1;
			goto out;
		}
		prefill_fill(&prefill, sums);
		if (strcmp(C.mode, "read")) {
			res[nres].mode = "write";
			run_mode(&res[nres++], &prefill, &decode, HIXL_OP_WRITE, &decode, sums, NULL);
		}
		if (strcmp(C.mode, "write")) {
			res[nres].mode = "read";
			run_mode(&res[nres++], &decode, &prefill, HIXL_OP_READ, &decode, sums, NULL);
		}
	} else {
		for (int m = 0; m < 2; m++) {
			bool write_mode = m == 0;

			if (!strcmp(C.mode, write_mode ? "read" : "write"))
				continue;
			res[nres].mode = write_mode ? "write" : "read";
			ret = run_two_procs(&res[nres++], write_mode, &prefill, &decode, sums);
			if (ret == 77) {
				rc = 77;
				goto out;
			}
		}
	}
	report(res, nres, &prefill);
	rc = 0;
	for (size_t i = 0; i < nres; i++)
		if (res[i].err || res[i].bad_blocks)
			rc = 1;
out:
	hixl_engine_finalize(prefill.eng);
	hixl_engine_finalize(decode.eng);
	for (size_t i = 0; i < nres; i++)
		free(res[i].lat_ms);
	if (prefill.base)
		munmap(prefill.base, prefill.bytes);
	if (decode.base)
		munmap(decode.base, decode.bytes);
	free(prefill.table);
	free(decode.table);
	free(sums);
	return rc;
}
