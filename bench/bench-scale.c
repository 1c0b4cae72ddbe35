// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scale.c - one measurement of `make bench-scale`: how hixl scales
 * with links, with registered memory and with descriptors per request,
 * all over RDMA (Transport "rdma", BufferPool "0:0": every descriptor a
 * work request) on 10.77.0.1 (rxe0 in the test VM).
 *
 *   bench-scale --mode links --links N [--total-mib 64] [--block-kib 32]
 *               [--req-descs 256] [--rep R] [--port P]
 *   bench-scale --mode reg [--reg-mib 512] [--rep R] [--port P]
 *   bench-scale --mode descs [--descs 1,4,...,65536] [--block-kib 4] [--rep R] [--port P]
 *
 * links: a hub engine (--port) and N peer engines (--port + 1 ..
 * --port + N) in this process, each region registered before any link;
 * then the hub's N CONNECTs one after the other, each timed, the VM's
 * kernel memory (/proc/meminfo) and RDMA resources (`rdma resource show`:
 * pd, cq, qp, cm_id, mr over every device) read before the first and after
 * the last.  Then the KV job fanned out and in: TOTAL bytes in BLOCK-byte
 * blocks, TOTAL / N a link, the link's blocks scattered on both sides (k
 * of 2k blocks, picks seeded by REP), in requests of at most REQ_DESCS
 * descriptors; every request of every link issued with
 * hixl_transfer_async() (round-robin over the links) before the first
 * wait.  Fan-out: the hub WRITEs to every peer; fan-in: the hub READs from
 * every peer; the order alternates with REP.  A link's time runs from the
 * first submission to the moment its last request was seen complete.
 * Every moved block is compared with its source afterwards.
 *
 * reg: one engine; MIB MiB of host memory, touched first (its page tables
 * exist before), registered with hixl_register_mem(); /proc/meminfo before,
 * after the registration and after its deregistration.
 *
 * descs: two engines (--port, --port + 1), each with one region of
 * max(D) blocks of BLOCK bytes; per D, one hixl_transfer_async() request
 * of D descriptors (D of the region's blocks on each side, scattered),
 * WRITE and READ (order alternating with REP), after a one-descriptor
 * warm-up; below 16,384 descriptors the request is repeated, one after
 * the other, until 16,384 descriptors or 64 requests.  HIXL_MAX_DESCS
 * (65536) is the kernel's limit per TRANSFER (the library would split).
 *
 * Output (stdout), one line each; sizes in bytes, memory in KiB as
 * /proc/meminfo gives it:
 *   connect REP N MEDIAN_MS MIN_MS MAX_MS          (the N CONNECTs' times)
 *   kmem REP WHAT N STAGE SLAB SUNRECLAIM PAGETABLES VMALLOC KSTACK PERCPU
 *        (WHAT links: N links, STAGE before|after; WHAT reg: N bytes
 *         registered, STAGE before|after|dereg)
 *   rdmares REP N STAGE PD CQ QP CM_ID MR          (-1: no rdma tool)
 *   slabgrow REP WHAT N CACHE KIB    (the 6 slab caches that grew most
 *        from before to after, /proc/slabinfo's slabs x pages; root only)
 *   links REP DIR N BYTES SECONDS CPU_SECONDS      (DIR fanout|fanin)
 *   perlink REP DIR N BPS_1 ... BPS_N              (bytes/s of each link)
 *   submitted REP DIR N REQUESTS SECONDS  (the hixl_transfer_async() calls' time)
 *   descs REP OP D REQUESTS BYTES SECONDS CPU_SECONDS   (OP write|read; all
 *        REQUESTS requests of D descriptors, one after the other)
 *   regtime REP BYTES REG_MS DEREG_MS
 *   verified REP MODE DIR|OP N|D BYTES_EQUAL BYTES
 *   na REP MODE N|D REASON...
 * CPU: the whole VM's busy time (bench_clock.h).  Exit status 0 when
 * every call succeeded and every byte matched, 1 when not, 2 on a usage
 * error, 77 without /dev/hixl or the RDMA device.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "bench_clock.h"
#include "bench_blocks.h"
#include "bench_kmem.h"

#define IP		"10.77.0.1"
#define MAX_LINKS	1024
#define MAX_DLIST	32
#define TIMEOUT_MS	600000
#define DESCS_PER_RUN	16384	/* descs mode: descriptors a measurement, at least, */
#define MAX_ITERS	64	/* in at most this many requests */

/* the repetition, the first field of every output line */
static unsigned long rep;

/* len bytes (a multiple of 8) of a pseudo-random pattern of seed */
static void fill(unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1) + (uintptr_t)p;

	for (size_t i = 0; i + 8 <= len; i += 8) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		memcpy(p + i, &x, 8);
	}
}

/* an engine IP:port over RDMA without a staging pool; NULL and *err on failure */
static struct hixl_engine *engine(unsigned long port, int *err)
{
	struct hixl_option o[2] = {
		{ HIXL_OPTION_TRANSPORT, "rdma" }, { HIXL_OPTION_BUFFER_POOL, "0:0" },
	};
	struct hixl_engine *e = NULL;
	char name[64];

	snprintf(name, sizeof(name), IP ":%lu", port);
	*err = hixl_engine_init(&e, name, o, 2);
	return *err ? NULL : e;
}

/* exit status of an engine that could not be made: 77 when no RDMA device */
static int engine_status(int err)
{
	return err == -ENOPKG || err == -EOPNOTSUPP || err == -EADDRNOTAVAIL ||
	       err == -ENODEV ? 77 : 1;
}

/* qsort() order of doubles, ascending */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the requests reqs[0..n) to their end; done[link[i]] := the latest time
 * (s, now_s()) one of that link's requests was seen ended; 0 or the first
 * request error */
static int collect(struct hixl_engine *e, struct hixl_request **reqs, unsigned int *link,
		   size_t n, double *done)
{
	enum hixl_transfer_status *st = calloc(n ? n : 1, sizeof(*st));
	size_t left = n;
	int err = 0;

	if (!st)
		return -ENOMEM;
	while (left) {
		size_t idx, k = 0;
		double t;
		int e2 = hixl_request_wait_any(e, reqs, left, TIMEOUT_MS, &idx);

		if (e2) {
			err = e2;
			break;
		}
		t = now_s();
		if (hixl_get_transfer_statuses(e, reqs, left, st) < 0) {
			err = -EINVAL;
			break;
		}
		for (size_t i = 0; i < left; i++) {
			if (st[i] == HIXL_TRANSFER_WAITING) {
				reqs[k] = reqs[i];
				link[k++] = link[i];
				continue;
			}
			e2 = hixl_request_result(reqs[i], NULL);
			if (!err)
				err = e2;
			if (t > done[link[i]])
				done[link[i]] = t;
			hixl_request_free(reqs[i]);
		}
		left = k;
	}
	/* on an error the rest are detached: they end within their timeout */
	for (size_t i = 0; i < left; i++)
		hixl_request_free(reqs[i]);
	free(st);
	return err;
}

/* links mode: the hub, its N peers, their memory and descriptors */
struct links {
	unsigned long n, port, per;		/* links, hub port, blocks a link */
	size_t block, req_descs;
	struct hixl_engine *hub, **peer;
	unsigned char *hmem, **pmem;		/* 2 x per blocks a link */
	uint64_t hh, *ph;			/* registration handles */
	bool *up;
	char (*name)[64];
	struct hixl_op_desc *d;			/* per descriptors a link */
};

/* one direction of the KV job over every link, timed and verified; 0 or -errno */
static int fan(struct links *L, bool out)
{
	const char *dir = out ? "fanout" : "fanin";
	size_t per_req = L->req_descs, nreq_link = (L->per + per_req - 1) / per_req;
	size_t nreq = nreq_link * L->n, k = 0, moved = L->n * L->per * L->block, eq = 0;
	struct hixl_request **reqs = calloc(nreq, sizeof(*reqs));
	unsigned int *link = calloc(nreq, sizeof(*link));
	double *done = calloc(L->n, sizeof(*done)), t0, ts, t1, c0, c1;
	int err = 0;

	if (!reqs || !link || !done) {
		err = -ENOMEM;
		goto out;
	}
	/* the source blocks get a fresh pattern, the destination blocks zeroes */
	for (size_t l = 0; l < L->n; l++)
		for (size_t i = 0; i < L->per; i++) {
			struct hixl_op_desc *d = &L->d[l * L->per + i];
			unsigned char *h = (unsigned char *)(uintptr_t)d->local_addr;
			unsigned char *p = (unsigned char *)(uintptr_t)d->remote_addr;

			fill(out ? h : p, L->block, rep * 2 + out);
			memset(out ? p : h, 0, L->block);
		}
	c0 = busy_s();
	t0 = now_s();
	for (size_t r = 0; r < nreq_link && !err; r++)
		for (size_t l = 0; l < L->n && !err; l++) {
			struct hixl_transfer_args args = HIXL_TRANSFER_ARGS_INIT(TIMEOUT_MS);
			size_t first = r * per_req, cnt = L->per - first < per_req ?
							  L->per - first : per_req;

			if (first >= L->per)
				continue;
			err = hixl_transfer_async(L->hub, L->name[l], out ? HIXL_OP_WRITE :
						  HIXL_OP_READ, L->d + l * L->per + first, cnt,
						  &args, &reqs[k]);
			if (!err)
				link[k++] = (unsigned int)l;
		}
	ts = now_s();
	{
		int e2 = collect(L->hub, reqs, link, k, done);

		if (!err)
			err = e2;
	}
	t1 = now_s();
	c1 = busy_s();
	for (size_t i = 0; i < L->n * L->per; i++) {
		struct hixl_op_desc *d = &L->d[i];

		eq += bench_equal_bytes((const void *)(uintptr_t)(out ? d->remote_addr : d->local_addr),
					(const void *)(uintptr_t)(out ? d->local_addr : d->remote_addr),
					L->block);
	}
	printf("verified %lu links %s %lu %zu %zu\n", rep, dir, L->n, eq, moved);
	if (err) {
		printf("na %lu links %lu %s: %s\n", rep, L->n, dir, strerror(-err));
		goto out;
	}
	printf("links %lu %s %lu %zu %.6f %.3f\n", rep, dir, L->n, moved, t1 - t0, c1 - c0);
	printf("submitted %lu %s %lu %zu %.6f\n", rep, dir, L->n, k, ts - t0);
	printf("perlink %lu %s %lu", rep, dir, L->n);
	for (size_t l = 0; l < L->n; l++)
		printf(" %.0f", L->per * L->block / (done[l] > t0 ? done[l] - t0 : 1e-9));
	printf("\n");
	if (eq != moved)
		err = -EIO;
out:
	free(reqs);
	free(link);
	free(done);
	return err;
}

/* /proc/slabinfo before and after (static: 80 KiB each) */
static struct slabs sl[2];

/* links mode: engines, registrations, N CONNECTs (each timed, kernel memory
 * around them), fan-out and fan-in, teardown; the exit status */
static int run_links(struct links *L)
{
	size_t hlen = 2 * L->per * L->block * L->n, plen = 2 * L->per * L->block;
	double *ms = calloc(L->n, sizeof(*ms));
	unsigned int *hid = calloc(L->per, sizeof(*hid)), *pid = calloc(L->per, sizeof(*pid));
	unsigned int seed = (unsigned int)rep * 7919 + 1;
	struct hixl_mem_desc md;
	int err = 0, ret = 1;

	L->peer = calloc(L->n, sizeof(*L->peer));
	L->pmem = calloc(L->n, sizeof(*L->pmem));
	L->ph = calloc(L->n, sizeof(*L->ph));
	L->up = calloc(L->n, sizeof(*L->up));
	L->name = calloc(L->n, sizeof(*L->name));
	L->d = calloc(L->n * L->per, sizeof(*L->d));
	L->hmem = bench_map(hlen);
	if (!ms || !hid || !pid || !L->peer || !L->pmem || !L->ph || !L->up || !L->name ||
	    !L->d || !L->hmem) {
		fprintf(stderr, "bench-scale: out of memory\n");
		goto out;
	}
	L->hub = engine(L->port, &err);
	for (size_t l = 0; l < L->n && !err; l++) {
		L->peer[l] = engine(L->port + 1 + l, &err);
		snprintf(L->name[l], sizeof(L->name[l]), IP ":%lu", L->port + 1 + l);
	}
	if (err) {
		printf("na %lu links %lu engine: %s\n", rep, L->n, strerror(-err));
		ret = engine_status(err);
		goto out;
	}
	/* touched before registration: the page tables exist before "before" */
	memset(L->hmem, 1, hlen);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)L->hmem, .len = hlen };
	err = hixl_register_mem(L->hub, &md, HIXL_MEM_HOST, &L->hh);
	for (size_t l = 0; l < L->n && !err; l++) {
		L->pmem[l] = bench_map(plen);
		if (!L->pmem[l]) {
			err = -ENOMEM;
			break;
		}
		memset(L->pmem[l], 1, plen);
		md = (struct hixl_mem_desc){ .addr = (uintptr_t)L->pmem[l], .len = plen };
		err = hixl_register_mem(L->peer[l], &md, HIXL_MEM_HOST, &L->ph[l]);
	}
	if (err) {
		printf("na %lu links %lu register: %s\n", rep, L->n, strerror(-err));
		goto out;
	}
	kmem_print(rep, "links", L->n, "before");
	slabs_read(&sl[0]);
	rdma_print(rep, L->n, "before");
	for (size_t l = 0; l < L->n && !err; l++) {
		double t0 = now_s();

		err = hixl_connect(L->hub, L->name[l], 30000);
		ms[l] = (now_s() - t0) * 1000.0;
		L->up[l] = !err;
	}
	if (err) {
		printf("na %lu links %lu connect: %s\n", rep, L->n, strerror(-err));
		goto out;
	}
	kmem_print(rep, "links", L->n, "after");
	slabs_read(&sl[1]);
	slabs_print(rep, &sl[0], &sl[1], "links", L->n);
	rdma_print(rep, L->n, "after");
	qsort(ms, L->n, sizeof(*ms), cmp_double);
	printf("connect %lu %lu %.3f %.3f %.3f\n", rep, L->n,
	       L->n % 2 ? ms[L->n / 2] : (ms[L->n / 2 - 1] + ms[L->n / 2]) / 2, ms[0],
	       ms[L->n - 1]);
	/* link l: per of the hub slice's 2 x per blocks, per of the peer's */
	for (size_t l = 0; l < L->n && !err; l++) {
		err = bench_pick(hid, 2 * L->per, L->per, &seed);
		if (!err)
			err = bench_pick(pid, 2 * L->per, L->per, &seed);
		for (size_t i = 0; i < L->per && !err; i++)
			L->d[l * L->per + i] = (struct hixl_op_desc){
				(uintptr_t)L->hmem + l * plen + hid[i] * L->block,
				(uintptr_t)L->pmem[l] + pid[i] * L->block, L->block };
		/* warm-up: one descriptor on the link, untimed */
		if (!err)
			err = hixl_transfer_sync(L->hub, L->name[l], HIXL_OP_WRITE,
						 L->d + l * L->per, 1, 30000, NULL);
	}
	if (err) {
		printf("na %lu links %lu warm-up: %s\n", rep, L->n, strerror(-err));
		goto out;
	}
	err = fan(L, rep % 2);
	if (!err)
		err = fan(L, !(rep % 2));
	ret = err ? 1 : 0;
out:
	for (size_t l = 0; L->up && l < L->n; l++)
		if (L->up[l] && hixl_disconnect(L->hub, L->name[l], 10000))
			ret = 1;
	if (L->hh && hixl_deregister_mem(L->hub, L->hh))
		ret = 1;
	for (size_t l = 0; L->ph && l < L->n; l++)
		if (L->ph[l] && hixl_deregister_mem(L->peer[l], L->ph[l]))
			ret = 1;
	for (size_t l = 0; L->peer && l < L->n; l++) {
		hixl_engine_finalize(L->peer[l]);
		if (L->pmem[l])
			munmap(L->pmem[l], plen);
	}
	hixl_engine_finalize(L->hub);
	if (L->hmem)
		munmap(L->hmem, hlen);
	free(L->peer);
	free(L->pmem);
	free(L->ph);
	free(L->up);
	free(L->name);
	free(L->d);
	free(ms);
	free(hid);
	free(pid);
	return ret;
}

/* reg mode: kernel memory around one registration of len bytes and its
 * deregistration, both timed (ms); the exit status */
static int run_reg(unsigned long port, size_t len)
{
	struct hixl_engine *e;
	struct hixl_mem_desc md;
	unsigned char *mem = bench_map(len);
	uint64_t h = 0;
	double t0, reg_ms, dereg_ms;
	int err = 0, ret = 1;

	e = engine(port, &err);
	if (!e) {
		printf("na %lu reg %zu engine: %s\n", rep, len, strerror(-err));
		if (mem)
			munmap(mem, len);
		return engine_status(err);
	}
	if (!mem) {
		printf("na %lu reg %zu mmap: out of memory\n", rep, len);
		goto out;
	}
	memset(mem, 1, len);
	kmem_print(rep, "reg", len, "before");
	slabs_read(&sl[0]);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)mem, .len = len };
	t0 = now_s();
	err = hixl_register_mem(e, &md, HIXL_MEM_HOST, &h);
	reg_ms = (now_s() - t0) * 1000.0;
	if (err) {
		printf("na %lu reg %zu register: %s\n", rep, len, strerror(-err));
		h = 0;
		goto out;
	}
	kmem_print(rep, "reg", len, "after");
	slabs_read(&sl[1]);
	slabs_print(rep, &sl[0], &sl[1], "reg", len);
	t0 = now_s();
	err = hixl_deregister_mem(e, h);
	dereg_ms = (now_s() - t0) * 1000.0;
	h = 0;
	if (err) {
		printf("na %lu reg %zu deregister: %s\n", rep, len, strerror(-err));
		goto out;
	}
	kmem_print(rep, "reg", len, "dereg");
	printf("regtime %lu %zu %.1f %.1f\n", rep, len, reg_ms, dereg_ms);
	ret = 0;
out:
	if (h && hixl_deregister_mem(e, h))
		ret = 1;
	hixl_engine_finalize(e);
	if (mem)
		munmap(mem, len);
	return ret;
}

/* requests of D descriptors, op, one after the other, timed, the last one
 * verified; 0 or -errno */
static int one_descs(struct hixl_engine *a, const char *peer, struct hixl_op_desc *d,
		     size_t n, size_t block, bool write)
{
	const char *opn = write ? "write" : "read";
	struct hixl_transfer_args args = HIXL_TRANSFER_ARGS_INIT(TIMEOUT_MS);
	struct hixl_request *req = NULL;
	/* small requests repeated, one after the other, up to DESCS_PER_RUN
	 * descriptors or MAX_ITERS requests: a measurement of more than a few ms */
	size_t eq = 0, iters = (DESCS_PER_RUN + n - 1) / n;
	double t0, t1, c0, c1;
	int err;

	if (iters > MAX_ITERS)
		iters = MAX_ITERS;

	for (size_t i = 0; i < n; i++) {
		unsigned char *l = (unsigned char *)(uintptr_t)d[i].local_addr;
		unsigned char *r = (unsigned char *)(uintptr_t)d[i].remote_addr;

		fill(write ? l : r, block, rep * 2 + write);
		memset(write ? r : l, 0, block);
	}
	/* warm-up: one descriptor, asynchronous (the library's completion
	 * thread starts on an engine's first asynchronous request) */
	err = hixl_transfer_async(a, peer, write ? HIXL_OP_WRITE : HIXL_OP_READ, d, 1, &args,
				  &req);
	if (!err)
		err = hixl_request_wait(a, req, TIMEOUT_MS, NULL);
	if (!err)
		err = hixl_request_result(req, NULL);
	hixl_request_free(req);
	if (err) {
		printf("na %lu descs %zu %s warm-up: %s\n", rep, n, opn, strerror(-err));
		return err;
	}
	c0 = busy_s();
	t0 = now_s();
	for (size_t it = 0; it < iters && !err; it++) {
		req = NULL;
		err = hixl_transfer_async(a, peer, write ? HIXL_OP_WRITE : HIXL_OP_READ, d, n,
					  &args, &req);
		if (!err)
			err = hixl_request_wait(a, req, TIMEOUT_MS, NULL);
		if (!err)
			err = hixl_request_result(req, NULL);
		hixl_request_free(req);
	}
	t1 = now_s();
	c1 = busy_s();
	for (size_t i = 0; i < n; i++)
		eq += bench_equal_bytes((const void *)(uintptr_t)(write ? d[i].remote_addr :
								   d[i].local_addr),
					(const void *)(uintptr_t)(write ? d[i].local_addr :
								   d[i].remote_addr), block);
	printf("verified %lu descs %s %zu %zu %zu\n", rep, opn, n, eq, n * block);
	if (err) {
		printf("na %lu descs %zu %s: %s\n", rep, n, opn, strerror(-err));
		return err;
	}
	printf("descs %lu %s %zu %zu %zu %.6f %.3f\n", rep, opn, n, iters, iters * n * block,
	       t1 - t0, c1 - c0);
	return eq == n * block ? 0 : -EIO;
}

/* descs mode: one request of each of the nd counts dl[] of block-byte
 * descriptors, WRITE and READ; the exit status */
static int run_descs(unsigned long port, const unsigned long *dl, int nd, size_t block)
{
	unsigned long max = 0;
	struct hixl_engine *a = NULL, *b = NULL;
	unsigned char *ma = NULL, *mb = NULL;
	struct hixl_op_desc *d = NULL;
	unsigned int *lid = NULL, *rid = NULL, seed = (unsigned int)rep * 7919 + 3;
	uint64_t ha = 0, hb = 0;
	struct hixl_mem_desc md;
	bool up = false;
	char peer[64];
	size_t len;
	int err = 0, ret = 1;

	for (int i = 0; i < nd; i++)
		max = dl[i] > max ? dl[i] : max;
	len = max * block;
	b = engine(port + 1, &err);
	if (b)
		a = engine(port, &err);
	if (!a || !b) {
		printf("na %lu descs 0 engine: %s\n", rep, strerror(-err));
		ret = engine_status(err);
		goto out;
	}
	ma = bench_map(len);
	mb = bench_map(len);
	d = calloc(max, sizeof(*d));
	lid = calloc(max, sizeof(*lid));
	rid = calloc(max, sizeof(*rid));
	if (!ma || !mb || !d || !lid || !rid) {
		fprintf(stderr, "bench-scale: out of memory\n");
		goto out;
	}
	memset(ma, 1, len);
	memset(mb, 1, len);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)ma, .len = len };
	err = hixl_register_mem(a, &md, HIXL_MEM_HOST, &ha);
	if (err)
		ha = 0;
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)mb, .len = len };
	if (!err) {
		err = hixl_register_mem(b, &md, HIXL_MEM_HOST, &hb);
		if (err)
			hb = 0;
	}
	snprintf(peer, sizeof(peer), IP ":%lu", port + 1);
	if (!err)
		err = hixl_connect(a, peer, 30000);
	if (err) {
		printf("na %lu descs 0 setup: %s\n", rep, strerror(-err));
		goto out;
	}
	up = true;
	for (int i = 0; i < nd && !err; i++) {
		size_t n = dl[i];

		err = bench_pick(lid, max, n, &seed);
		if (!err)
			err = bench_pick(rid, max, n, &seed);
		for (size_t k = 0; k < n && !err; k++)
			d[k] = (struct hixl_op_desc){ (uintptr_t)ma + lid[k] * block,
						      (uintptr_t)mb + rid[k] * block, block };
		if (!err)
			err = one_descs(a, peer, d, n, block, rep % 2);
		if (!err)
			err = one_descs(a, peer, d, n, block, !(rep % 2));
	}
	ret = err ? 1 : 0;
out:
	if (up && hixl_disconnect(a, peer, 10000))
		ret = 1;
	if (ha && hixl_deregister_mem(a, ha))
		ret = 1;
	if (hb && hixl_deregister_mem(b, hb))
		ret = 1;
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	if (ma)
		munmap(ma, len);
	if (mb)
		munmap(mb, len);
	free(d);
	free(lid);
	free(rid);
	return ret;
}

/* the usage on stderr, exit status 2 */
static void usage(void)
{
	fprintf(stderr, "usage: bench-scale --mode links --links N [--total-mib M] "
		"[--block-kib K] [--req-descs R] [--rep R] [--port P]\n"
		"       bench-scale --mode reg [--reg-mib M] [--rep R] [--port P]\n"
		"       bench-scale --mode descs [--descs D,D,...] [--block-kib K] [--rep R] "
		"[--port P]\n");
	exit(2);
}

/* list := the comma-separated counts of s (1..HIXL_MAX_DESCS); their number */
static int parse_list(const char *s, unsigned long *list)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 0);

		if (end == s || !v || v > 65536 || n == MAX_DLIST || (*end && *end != ','))
			usage();
		list[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mode", 1, NULL, 'm' }, { "links", 1, NULL, 'n' }, { "total-mib", 1, NULL, 't' },
		{ "block-kib", 1, NULL, 'b' }, { "req-descs", 1, NULL, 'q' },
		{ "reg-mib", 1, NULL, 'g' }, { "descs", 1, NULL, 'd' }, { "rep", 1, NULL, 'r' },
		{ "port", 1, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	unsigned long links = 0, total_mib = 64, block_kib = 0, req_descs = 256, reg_mib = 512;
	unsigned long port = 29500, dl[MAX_DLIST];
	const char *mode = NULL, *dstr = "1,4,16,64,256,1024,4096,16384,65536";
	struct links L = { 0 };
	int c, nd = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'n': links = strtoul(optarg, NULL, 0); break;
		case 't': total_mib = strtoul(optarg, NULL, 0); break;
		case 'b': block_kib = strtoul(optarg, NULL, 0); break;
		case 'q': req_descs = strtoul(optarg, NULL, 0); break;
		case 'g': reg_mib = strtoul(optarg, NULL, 0); break;
		case 'd': dstr = optarg; break;
		case 'r': rep = strtoul(optarg, NULL, 0); break;
		case 'p': port = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!mode || optind != argc || !port || block_kib > 4096)
		usage();
	L.block = (block_kib ? block_kib : 32) * 1024;
	if (!strcmp(mode, "links")) {
		if (!links || links > MAX_LINKS || port + links > 65535 || !total_mib ||
		    total_mib > 4096 || !req_descs || req_descs > 65536 ||
		    (total_mib << 20) % (L.block * links))
			usage();
		L.per = (total_mib << 20) / L.block / links;
		L.n = links;
		L.port = port;
		L.req_descs = req_descs;
	} else if (!strcmp(mode, "reg")) {
		if (!reg_mib || reg_mib > (1UL << 20) || port > 65535)
			usage();
	} else if (!strcmp(mode, "descs")) {
		nd = parse_list(dstr, dl);
		if (!nd || port > 65534)
			usage();
	} else {
		usage();
	}
	if (access("/dev/hixl", R_OK | W_OK)) {
		printf("na %lu %s 0 no /dev/hixl\n", rep, mode);
		return 77;
	}
	if (!strcmp(mode, "links"))
		return run_links(&L);
	if (!strcmp(mode, "reg"))
		return run_reg(port, reg_mib << 20);
	return run_descs(port, dl, nd, (block_kib ? block_kib : 4) * 1024);
}
