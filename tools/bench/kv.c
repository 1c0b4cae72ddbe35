// SPDX-License-Identifier: GPL-2.0
/*
 * kv.c - hixl-bench's KV-cache model and its transfers.
 *
 * The model: L layers, each with a K and a V cache of T tokens x H KV heads x
 * D head dim x B bytes per element, cut into blocks of N tokens (paged
 * attention).  Each side keeps a block pool per layer and per K/V and a block
 * table mapping the sequence's logical blocks to physical ones: shuffled
 * (deterministic seed), differently on each side, so every block is one
 * transfer descriptor with scattered addresses on both ends.  One transfer
 * (one batch) per layer: K and V blocks of that layer, 2 * T / N descriptors.
 *
 * The prefill side's data is each logical block's own pseudo-random bytes
 * from the seed, so any process knowing the seed knows every block's sum;
 * after a mode, the decode side's blocks are checked against those sums.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

size_t block_bytes, nblocks;
char device[64];
char last_err[512];

double now_s(void)
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

void progress(const char *mode, size_t done, size_t total)
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

/*
 * Does @err (a -errno of side_engine()) mean there is nothing to run on:
 * no /dev/hixl (-ENOPKG: hixl.ko not loaded; -ENODEV, -ENXIO: a node
 * without its driver) or no RDMA device on the engine's address
 * (-EADDRNOTAVAIL)?  hixl-bench then exits EXIT_SKIP.
 */
bool err_is_skip(int err)
{
	return err == -ENOPKG || err == -ENODEV || err == -ENXIO || err == -EADDRNOTAVAIL;
}

/*
 * Set last_err from the library's own message (or hixl's meaning of @err)
 * and its hint, when the fix lies outside the program.
 */
static void side_err(const struct side *s, const char *what, int err)
{
	const char *lib = hixl_last_error(), *hint = hixl_error_hint(err);

	if (lib && *lib)	/* names the call and its object already */
		snprintf(last_err, sizeof(last_err), "%s%s%s", lib, *hint ? "; hint: " : "",
			 hint);
	else
		snprintf(last_err, sizeof(last_err), "%s %s: %s%s%s", what, s->name,
			 hixl_strerror(err), *hint ? "; hint: " : "", hint);
}

/* The side's cache memory and block table (before any fork: same VA in both). */
int side_map(struct side *s, const char *name, uint64_t seed)
{
	s->name = name;
	s->base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		snprintf(last_err, sizeof(last_err), "mapping %zu bytes for %s: %s", s->bytes,
			 name, strerror(ENOMEM));
		return -ENOMEM;
	}
	madvise(s->base, s->bytes, MADV_HUGEPAGE);
	s->table = malloc(nblocks * sizeof(*s->table));
	if (!s->table) {
		snprintf(last_err, sizeof(last_err), "block table: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	shuffle(s->table, nblocks, seed);
	return 0;
}

/* Undo side_map() (and side_engine(): finalizing deregisters). */
void side_unmap(struct side *s)
{
	side_engine_end(s);
	if (s->base)
		munmap(s->base, s->bytes);
	s->base = NULL;
	free(s->table);
	s->table = NULL;
}

/* The side's engine, named s->name, with --pool and --transport; 0 or -errno (last_err says why). */
int side_engine_init(struct side *s)
{
	struct hixl_option o[2];
	size_t n = 0;
	int ret;

	if (C.pool)
		o[n++] = (struct hixl_option){ HIXL_OPTION_BUFFER_POOL, C.pool };
	if (C.transport)
		o[n++] = (struct hixl_option){ HIXL_OPTION_TRANSPORT, C.transport };
	ret = hixl_engine_init(&s->eng, s->name, o, n);

	if (ret) {
		s->eng = NULL;
		side_err(s, "engine", ret);
		return ret;
	}
	if (!device[0])
		snprintf(device, sizeof(device), "%s", hixl_engine_device(s->eng));
	return 0;
}

/* The side's cache registered with its engine; 0 or -errno (last_err says why). */
int side_register(struct side *s)
{
	struct hixl_mem_desc d = { 0 };	/* reserved fields must be 0 */
	int ret;

	memset(s->base, 0, s->bytes);	/* fault in before pinning */
	d.addr = (uintptr_t)s->base;
	d.len = s->bytes;
	ret = hixl_register_mem(s->eng, &d, HIXL_MEM_HOST, &s->handle);
	if (ret)
		side_err(s, "registering the cache on", ret);
	return ret;
}

/* The side's engine, with its cache registered; in the process that owns it. */
int side_engine(struct side *s)
{
	int ret = side_engine_init(s);

	return ret ? ret : side_register(s);
}

/* The prefill cache: each logical block's own pseudo-random bytes, and sums. */
void prefill_fill(struct side *p, uint64_t *sums)
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
void prefill_fill_sums(uint64_t *sums)
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

void side_engine_end(struct side *s)
{
	hixl_engine_finalize(s->eng);	/* NULL: nothing */
	s->eng = NULL;
	s->handle = 0;
}

/* Blocks of the decode cache that differ from the prefill sums. */
size_t decode_verify(const struct side *d, const uint64_t *sums)
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
/* The initiating engine's direct and staged bytes, READ and WRITE; 0 or -errno. */
static int path_bytes(const struct side *s, uint64_t *copy, uint64_t *direct, uint64_t *staged)
{
	struct hixl_stats st;
	int ret = hixl_engine_stats(s->eng, &st);

	if (ret)
		return ret;
	*copy = st.xfer.local_bytes;
	*direct = st.xfer.read_direct_bytes + st.xfer.write_direct_bytes;
	*staged = st.xfer.read_staged_bytes + st.xfer.write_staged_bytes;
	return 0;
}

void run_mode(struct result *res, struct side *init, struct side *peer, enum hixl_op op,
	      struct side *decode, const uint64_t *sums, const struct verifier *v)
{
	uint64_t copy0 = 0, direct0 = 0, staged0 = 0, copy1, direct1, staged1;
	bool stats0;
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
	if (!v)		/* the decode side is ours: start from zeroes */
		memset(decode->base, 0, decode->bytes);
	ret = hixl_connect(init->eng, peer->name, 5000);
	if (ret) {
		snprintf(res->why, sizeof(res->why), "connect %s -> %s: %s", init->name,
			 peer->name, hixl_last_error()[0] ? hixl_last_error() : strerror(-ret));
		fprintf(stderr, "hixl-bench: %s\n", res->why);
		goto out;
	}
	stats0 = !path_bytes(init, &copy0, &direct0, &staged0);
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
				snprintf(res->why, sizeof(res->why),
					 "%s of layer %zu: %s (descriptor %zu)", res->mode,
					 done % C.layers, strerror(-ret), failed);
				fprintf(stderr, "hixl-bench: %s\n", res->why);
				break;
			}
			progress(res->mode, done + 1, total);
		}
	} else {
		/* a ring of C.inflight requests; the oldest is waited for first */
		while (done < total) {
			while (next < total && next - done < C.inflight) {
				struct hixl_transfer_args ta = HIXL_TRANSFER_ARGS_INIT((int)C.timeout_ms);
				size_t slot = next % C.inflight;

				t0[slot] = now_s();
				ret = hixl_transfer_async(init->eng, peer->name, op,
							  descs + (next % C.layers) * per, per,
							  &ta, &reqs[slot]);
				if (ret) {
					snprintf(res->why, sizeof(res->why),
						 "submitting the %s of layer %zu: %s", res->mode,
						 next % C.layers, strerror(-ret));
					fprintf(stderr, "hixl-bench: %s\n", res->why);
					goto drain;
				}
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
					snprintf(res->why, sizeof(res->why),
						 "%s of layer %zu: %s", res->mode,
						 done % C.layers, strerror(-ret));
					fprintf(stderr, "hixl-bench: %s\n", res->why);
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
	if (stats0 && !path_bytes(init, &copy1, &direct1, &staged1)) {
		res->stats_ok = true;	/* local_bytes is a part of the direct bytes */
		res->copy_bytes = copy1 - copy0;
		res->rdma_bytes = direct1 - direct0 - res->copy_bytes;
		res->staged_bytes = staged1 - staged0;
	}
	if (C.progress && done < total)
		fputc('\n', stderr);
	hixl_disconnect(init->eng, peer->name, 1000);
	if (ret)
		goto out;
	/* verify: logical block b of (layer, kv) on decode == prefill's sum,
	 * here or, when decode lives in the peer process or host, there */
	if (!v) {
		res->bad_blocks = decode_verify(decode, sums);
	} else {
		ret = v->verify(v->ctx, &res->bad_blocks, res->why, sizeof(res->why));
		if (ret) {
			fprintf(stderr, "hixl-bench: %s: verifying on the peer: %s\n", res->mode,
				res->why[0] ? res->why : strerror(-ret));
			goto out;
		}
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

