// SPDX-License-Identifier: GPL-2.0
/*
 * test_liburing.c - the library's asynchronous transfers on both of its
 * paths: io_uring URING_CMD (HIXL_ASYNC_URING) and the worker-thread
 * fallback (HIXL_NO_URING=1 before hixl_engine_init(), HIXL_ASYNC_THREADS).
 * 1, 8, 32 and 256 requests in flight verified byte for byte; errors,
 * failed indexes and timeouts the same on both paths and as the
 * synchronous call reports them; finalize with requests pending frees
 * everything.  Each test runs in its own child process (the harness forks),
 * so HIXL_NO_URING set here stays here.  Engines on 10.77.0.1 (rxe0 in the
 * test VM), ports 18200-18299.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define IP "10.77.0.1"

enum path { URING, THREADS, NPATHS };
static const char *const path_name[] = { "io_uring", "threads" };

/* without a staging pool, 4 KiB descriptors go straight to RDMA */
static const struct hixl_option no_pool[] = { { "BufferPool", "0:0" } };

static void *tbuf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /proc/sys/kernel/io_uring_disabled (6.6+), 0 when absent */
static int io_uring_disabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * An engine on name whose asynchronous path is path.  SKIPs without
 * /dev/hixl or rxe0, and (URING) when the module does not offer URING_CMD
 * or io_uring is switched off; a module that offers it and an engine that
 * still fell back is a failure.
 */
static struct hixl_engine *eng_path(const char *name, enum path path, bool pool)
{
	struct hixl_engine *e = NULL;
	struct hixl_info info;
	int ret;

	if (path == THREADS)
		setenv("HIXL_NO_URING", "1", 1);
	else
		unsetenv("HIXL_NO_URING");
	ret = hixl_engine_init(&e, name, pool ? NULL : no_pool, pool ? 0 : 1);
	unsetenv("HIXL_NO_URING");
	if (ret == -ENOPKG)
		SKIP("no /dev/hixl");
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " IP " (rxe0 in the test VM)");
	if (ret) {
		printf("#   init %s: %s\n", name, strerror(-ret));
		ht_failures++;
		return NULL;
	}
	if (path == THREADS) {
		CHECK_EQ(hixl_engine_async_path(e), HIXL_ASYNC_THREADS);
		return e;
	}
	if (hixl_engine_async_path(e) == HIXL_ASYNC_URING)
		return e;
	ret = hixl_engine_caps(e, &info);
	hixl_engine_finalize(e);
	if (!ret && !(info.features & HIXL_FEAT_URING_CMD))
		SKIP("hixl.ko does not offer HIXL_FEAT_URING_CMD");
	if (io_uring_disabled())
		SKIP("io_uring is disabled (kernel.io_uring_disabled)");
	printf("#   %s: the module offers URING_CMD but the engine uses worker threads\n", name);
	ht_failures++;
	return NULL;
}

/* a (port, initiator, no staging pool) -> b (port + 1): buffers of len */
struct pair {
	struct hixl_engine *a, *b;
	char peer[HIXL_ENGINE_NAME_MAX];
	unsigned char *la, *lb, *rb;	/* a's source, a's read-back, b's */
	unsigned char *un;		/* registered nowhere */
	size_t len;
};

static int pair_up(struct pair *p, enum path path, int port, size_t len)
{
	char name[HIXL_ENGINE_NAME_MAX];
	struct hixl_mem_desc d = { .len = len };
	uint64_t h;

	memset(p, 0, sizeof(*p));
	p->len = len;
	snprintf(name, sizeof(name), IP ":%d", port);
	p->a = eng_path(name, path, false);
	if (!p->a)
		return -1;
	snprintf(p->peer, sizeof(p->peer), IP ":%d", port + 1);
	p->b = eng_path(p->peer, path, true);
	p->la = tbuf(len);
	p->lb = tbuf(len);
	p->rb = tbuf(len);
	p->un = tbuf(65536);
	if (!p->b || !p->la || !p->lb || !p->rb || !p->un)
		return -1;
	d.addr = (uintptr_t)p->la;
	if (hixl_register_mem(p->a, &d, HIXL_MEM_HOST, &h))
		return -1;
	d.addr = (uintptr_t)p->lb;
	if (hixl_register_mem(p->a, &d, HIXL_MEM_HOST, &h))
		return -1;
	d.addr = (uintptr_t)p->rb;
	if (hixl_register_mem(p->b, &d, HIXL_MEM_HOST, &h))
		return -1;
	return hixl_connect(p->a, p->peer, 5000);
}

static void pair_down(struct pair *p)
{
	hixl_engine_finalize(p->a);
	hixl_engine_finalize(p->b);
	if (p->la) {
		munmap(p->la, p->len);
		munmap(p->lb, p->len);
		munmap(p->rb, p->len);
		munmap(p->un, 65536);
	}
}

#define PIECE	(4 * KiB)
#define PER_REQ	4		/* descriptors per request */
#define MAX_INFLIGHT 256

/*
 * n requests of PER_REQ scattered 4 KiB descriptors in flight at once:
 * WRITE la -> rb (piece i to piece N - 1 - i), then READ rb -> lb the same
 * way; every request COMPLETED with its failed index = PER_REQ, and the
 * bytes verified on both sides.  Each descriptor array is freed (and
 * scribbled over) as soon as its request is submitted.
 */
static void inflight_round(struct pair *p, int n, unsigned int seed)
{
	struct hixl_request *reqs[MAX_INFLIGHT];
	size_t total = (size_t)n * PER_REQ, bytes = total * PIECE, failed;
	enum hixl_transfer_status st;

	hx_fill(p->la, bytes, seed);
	memset(p->rb, 0, bytes);
	memset(p->lb, 0, bytes);
	for (int op = 0; op < 2; op++) {
		enum hixl_op o = op ? HIXL_OP_READ : HIXL_OP_WRITE;
		unsigned char *local = op ? p->lb : p->la;
		int done = 0;

		for (int i = 0; i < n; i++) {
			struct hixl_op_desc *d = malloc(PER_REQ * sizeof(*d));

			REQUIRE(d);
			for (int k = 0; k < PER_REQ; k++) {
				size_t idx = (size_t)i * PER_REQ + k;

				d[k].local_addr = (uintptr_t)(local + idx * PIECE);
				d[k].remote_addr = (uintptr_t)(p->rb + (total - 1 - idx) * PIECE);
				d[k].len = PIECE;
			}
			CHECK_EQ(hixl_transfer_async(p->a, p->peer, o, d, PER_REQ, &HX_TARGS(60000, &reqs[i]), &reqs[i]), 0);
			memset(d, 0xff, PER_REQ * sizeof(*d));
			free(d);
		}
		for (int i = 0; i < n; i++) {
			CHECK_EQ(hixl_request_wait(p->a, reqs[i], -1, &st), 0);
			CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
			CHECK_EQ(hixl_request_result(reqs[i], &failed), 0);
			CHECK_EQ(failed, PER_REQ);
			CHECK(hixl_request_user_data(reqs[i]) == &reqs[i]);
		}
		CHECK_EQ(hixl_get_transfer_statuses(p->a, reqs, n, (enum hixl_transfer_status[MAX_INFLIGHT]){ 0 }), n);
		for (int i = 0; i < n; i++)
			hixl_request_free(reqs[i]);
		for (size_t idx = 0; idx < total; idx++)
			done += !memcmp(local + idx * PIECE, p->rb + (total - 1 - idx) * PIECE, PIECE);
		if ((size_t)done != total) {
			printf("#   %d in flight, %s: %zu of %zu pieces differ\n", n,
			       op ? "READ" : "WRITE", total - done, total);
			ht_failures++;
		}
	}
	CHECK(!memcmp(p->la, p->lb, bytes));
}

/* hixl_transfer_async() from a thread that ends at once */
struct submitter {
	struct pair *p;
	struct hixl_op_desc d;
	struct hixl_request *r;
	int ret;
};

static void *submit_and_exit(void *arg)
{
	struct submitter *s = arg;

	s->ret = hixl_transfer_async(s->p->a, s->p->peer, HIXL_OP_WRITE, &s->d, 1, &HX_TARGS(60000, NULL),
				     &s->r);
	return NULL;
}

static void inflight(enum path path, int port)
{
	static const int depths[] = { 1, 8, 32, 256 };
	struct pair p;

	if (pair_up(&p, path, port, MAX_INFLIGHT * PER_REQ * PIECE)) {
		ht_failures++;
		pair_down(&p);
		return;
	}
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		double t0 = now_s();

		inflight_round(&p, depths[i], 100 + i);
		printf("#   %s: %3d requests in flight: %.3f s\n", path_name[path], depths[i],
		       now_s() - t0);
	}
	/* the request belongs to the engine, not to the thread that made it:
	 * it completes after that thread is gone (io_uring ties a URING_CMD's
	 * completion to its submitter's task work) */
	{
		struct submitter sub = { &p, { (uintptr_t)p.la, (uintptr_t)p.rb, p.len }, NULL, -1 };
		enum hixl_transfer_status st;
		pthread_t t;

		hx_fill(p.la, p.len, 77);
		memset(p.rb, 0, p.len);
		REQUIRE(pthread_create(&t, NULL, submit_and_exit, &sub) == 0);
		pthread_join(t, NULL);
		CHECK_EQ(sub.ret, 0);
		if (!sub.ret) {
			CHECK_EQ(hixl_request_wait(p.a, sub.r, -1, &st), 0);
			CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
			CHECK(!memcmp(p.la, p.rb, p.len));
			hixl_request_free(sub.r);
		}
	}
	pair_down(&p);
}

void test_liburing_path(void);
void test_liburing_inflight(void);
void test_liburing_inflight_threads(void);
void test_liburing_errors(void);
void test_liburing_timeout(void);
void test_liburing_finalize(void);

/* the path query, HIXL_NO_URING and what the module offers */
void test_liburing_path(void)
{
	static const struct { const char *v; int threads; } env[] = {
		{ NULL, 0 }, { "", 0 }, { "0", 0 }, { "1", 1 }, { "yes", 1 },
	};
	struct hixl_info info;
	bool offered;

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		struct hixl_engine *e = NULL;
		int ret, path;

		if (env[i].v)
			setenv("HIXL_NO_URING", env[i].v, 1);
		else
			unsetenv("HIXL_NO_URING");
		ret = hixl_engine_init(&e, IP, NULL, 0);
		if (ret == -ENOPKG)
			SKIP("no /dev/hixl");
		if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
			SKIP("no RDMA device on " IP " (rxe0 in the test VM)");
		REQUIRE(ret == 0);
		REQUIRE(hixl_engine_caps(e, &info) == 0);
		offered = (info.features & HIXL_FEAT_URING_CMD) && !io_uring_disabled();
		errno = 4321;
		path = hixl_engine_async_path(e);
		CHECK_EQ(errno, 4321);
		printf("#   HIXL_NO_URING=%s: %s\n", env[i].v ? env[i].v : "(unset)",
		       path == HIXL_ASYNC_URING ? "io_uring" : "threads");
		if (env[i].threads || !offered)
			CHECK_EQ(path, HIXL_ASYNC_THREADS);
		else
			CHECK_EQ(path, HIXL_ASYNC_URING);
		hixl_engine_finalize(e);
	}
	unsetenv("HIXL_NO_URING");
	CHECK_EQ(hixl_engine_async_path(NULL), -EINVAL);
}

void test_liburing_inflight(void)
{
	inflight(URING, 18202);
}

void test_liburing_inflight_threads(void)
{
	inflight(THREADS, 18204);
}

/* one asynchronous request, waited for: its state, error and failed index */
struct outcome {
	enum hixl_transfer_status st;
	int err;
	size_t failed;
	bool sync_ran;		/* the synchronous call on the same batch, when made: */
	int sync_err;
	size_t sync_failed;
};

static struct outcome run_case(struct pair *p, const char *peer, enum hixl_op op,
			       const struct hixl_op_desc *d, size_t n, bool sync)
{
	struct outcome o = { HIXL_TRANSFER_WAITING, -EINPROGRESS, 0, sync, 0, 0 };
	struct hixl_request *r = NULL;
	struct timespec t0, t1;

	/*
	 * The two-chunk cases move 65,636 descriptors through the staging
	 * pool: 40-60 s under KASAN on QEMU/TCG, more on a loaded host.  The
	 * test is about what the batch ends with, not how fast: 5 minutes.
	 */
	const int timeout_ms = n > HIXL_MAX_DESCS ? 300000 : 60000;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sync)
		o.sync_err = hixl_transfer_sync(p->a, peer, op, d, n, timeout_ms, &o.sync_failed);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (hixl_transfer_async(p->a, peer, op, d, n, &HX_TARGS(timeout_ms, NULL), &r)) {
		ht_failures++;
		return o;
	}
	CHECK_EQ(hixl_request_wait(p->a, r, -1, &o.st), 0);
	o.err = hixl_request_result(r, &o.failed);
	hixl_request_free(r);
	/* the times tell a slow machine (a 60 s timeout) from a wrong result */
	printf("#   %zu descriptors: sync %.0f ms, async %.0f ms\n", n, hx_ms_since(&t0) -
	       hx_ms_since(&t1), hx_ms_since(&t1));
	return o;
}

#define NCASES 7
static const char *const case_name[NCASES] = {
	"ok", "remote range not registered (ERANGE)", "local range not registered (ENOENT)",
	"len 0 (EINVAL)", "no link (ENOTCONN)", "two chunks, ok",
	"two chunks, second one fails (ENOENT)",
};

/*
 * The cases of test_liburing_errors on one path; the two-chunk ones
 * (NCASES_SMALL and up: 65,636 descriptors each) only with @big_cases,
 * their synchronous calls only with @big_sync.
 */
#define NCASES_SMALL 5
static void error_cases(enum path path, int port, struct outcome *out, bool big_cases,
			bool big_sync)
{
	size_t big = HIXL_MAX_DESCS + 100;
	struct hixl_op_desc d[4], *m;
	char nolink[HIXL_ENGINE_NAME_MAX];
	struct pair p;

	memset(&p, 0, sizeof(p));
	snprintf(nolink, sizeof(nolink), IP ":%d", port + 9);	/* nobody there */
	m = calloc(big, sizeof(*m));
	if (!m || pair_up(&p, path, port, 4 * MiB)) {
		ht_failures++;
		pair_down(&p);
		free(m);
		return;
	}
	hx_fill(p.la, p.len, 3);
	for (int k = 0; k < 4; k++) {
		d[k].local_addr = (uintptr_t)(p.la + k * 65536);
		d[k].remote_addr = (uintptr_t)(p.rb + (3 - k) * 65536);
		d[k].len = 65536;
	}
	out[0] = run_case(&p, p.peer, HIXL_OP_WRITE, d, 4, true);
	CHECK(!memcmp(p.la, p.rb + 3 * 65536, 65536));
	d[1].remote_addr = (uintptr_t)p.un;
	out[1] = run_case(&p, p.peer, HIXL_OP_WRITE, d, 4, true);
	d[1].remote_addr = (uintptr_t)p.rb;
	d[2].local_addr = (uintptr_t)p.un;
	out[2] = run_case(&p, p.peer, HIXL_OP_READ, d, 4, true);
	d[2].local_addr = (uintptr_t)p.la;
	d[3].len = 0;
	out[3] = run_case(&p, p.peer, HIXL_OP_WRITE, d, 4, true);
	d[3].len = 65536;
	out[4] = run_case(&p, nolink, HIXL_OP_WRITE, d, 4, true);
	if (!big_cases)
		goto done;
	/* more than HIXL_MAX_DESCS: two TRANSFERs in order (two URING_CMDs) */
	memset(p.rb, 0, p.len);
	for (size_t i = 0; i < big; i++) {
		m[i].local_addr = (uintptr_t)(p.la + (i * 64) % p.len);
		m[i].remote_addr = (uintptr_t)(p.rb + (i * 64) % p.len);
		m[i].len = 64;
	}
	out[5] = run_case(&p, p.peer, HIXL_OP_WRITE, m, big, big_sync);
	CHECK(!memcmp(p.la, p.rb, p.len));
	m[HIXL_MAX_DESCS + 7].local_addr = (uintptr_t)p.un;
	out[6] = run_case(&p, p.peer, HIXL_OP_WRITE, m, big, big_sync);
done:
	free(m);
	pair_down(&p);
}

/*
 * Errors end the same on both paths: state, error, failed index, equal to
 * what hixl_transfer_sync() says for the same batch.  The two-chunk cases
 * cost about 38 s a batch on the debug kernel (KASAN under TCG; 1.5 s on a
 * stock one), and eight of them (sync and async, both paths) all but two
 * repeat one library function over one ioctl: hixl_transfer_sync() and the
 * worker threads both run hixl_transfer_chunks(), TRANSFER ioctls, which
 * lib_xfer_sync already takes through both cases (no staging pool, 64 B
 * descriptors, the same two outcomes; on the debug kernel the first only:
 * the library's split is the same code on every kernel).  So the debug
 * kernel runs none of them (lib_xfer_sync gives KASAN a 65,536-descriptor
 * TRANSFER) unless make check-long asks (hx_long()); the stock kernels run
 * all eight.
 */
void test_liburing_errors(void)
{
	static const struct { int err; size_t failed; } want[NCASES] = {
		{ 0, 4 }, { -ERANGE, 1 }, { -ENOENT, 2 }, { -EINVAL, 3 }, { -ENOTCONN, 4 },
		{ 0, HIXL_MAX_DESCS + 100 }, { -ENOENT, HIXL_MAX_DESCS + 7 },
	};
	struct outcome out[NPATHS][NCASES];

	bool all_big = !hx_debug_kernel() || hx_long();

	memset(out, 0, sizeof(out));
	error_cases(URING, 18210, out[URING], all_big, all_big);
	error_cases(THREADS, 18220, out[THREADS], all_big, all_big);
	if (!all_big)
		printf("#   debug kernel: no two-chunk case (the stock kernels and make "
		       "check-long run them; lib_xfer_sync takes one through the ioctl)\n");
	for (int c = 0; c < (all_big ? NCASES : NCASES_SMALL); c++) {
		enum hixl_transfer_status wst = want[c].err ? HIXL_TRANSFER_FAILED :
					       HIXL_TRANSFER_COMPLETED;
		int npaths = NPATHS;

		for (int pa = 0; pa < npaths; pa++) {
			const struct outcome *o = &out[pa][c];

			printf("#   %-8s %-40s %s %d failed %zu (sync %d failed %zu%s)\n", path_name[pa],
			       case_name[c], hixl_status_str(hixl_status_from_errno(o->err)),
			       o->err, o->failed, o->sync_err, o->sync_failed,
			       o->sync_ran ? "" : ": not run");
			CHECK_EQ(o->st, wst);
			CHECK_EQ(o->err, want[c].err);
			CHECK_EQ(o->failed, want[c].failed);
			if (o->sync_ran) {
				CHECK_EQ(o->sync_err, o->err);
				CHECK_EQ(o->sync_failed, o->failed);
			}
		}
		if (npaths == NPATHS) {	/* field by field: padding is not compared */
			const struct outcome *u = &out[URING][c], *t = &out[THREADS][c];

			CHECK(u->st == t->st && u->err == t->err && u->failed == t->failed &&
			      u->sync_err == t->sync_err && u->sync_failed == t->sync_failed);
		}
	}
	CHECK_EQ(hixl_status_from_errno(out[URING][1].err), HIXL_PARAM_INVALID);
}

/*
 * The big transfers of the timeout and finalize cases: 16 MiB, 4 MiB on
 * the debug kernel, whose rxe moves about 3 MB/s (KASAN under TCG; 30 on a
 * stock kernel): there 4 MiB still takes over a second, a thousand times
 * the 1 ms timeout and long enough that finalize finds them pending.
 */
static size_t big_len(void)
{
	return hx_debug_kernel() ? 4 * MiB : 16 * MiB;
}

/* The state of @eng's link to IP:@port (hixl_engine_link_stats()), or -1. */
static int link_state_to(struct hixl_engine *eng, uint16_t port, int *err)
{
	struct hixl_sockaddr want = hx_name(port);
	struct hixl_link_stat st[8];
	int n = hixl_engine_link_stats(eng, st, 8, NULL);

	for (int i = 0; i < n; i++)
		if (!memcmp(&st[i].peer, &want, sizeof(want))) {
			*err = st[i].err;
			return (int)st[i].state;
		}
	return -1;
}

/*
 * An asynchronous request that times out, on both paths: a big_len() WRITE
 * with 1 ms to a link of its own ends TIMEOUT (-ETIMEDOUT, failed index 0)
 * while four big_len() writes on another link complete.  Worker threads: the
 * four hold the workers, it expires in the library's queue, never issued,
 * and its link works on.  io_uring: the kernel times it out, and its link
 * breaks when the WRITE was on the wire by then (later transfers on it
 * fail) and stays up when the timeout came first (a CI run saw that: the
 * link's pump was a work item away).  Which one happened is the link's
 * state (LINK_STATS), and a later transfer must agree with it;
 * uring_timeout makes each case happen on purpose.  The other link is
 * untouched either way.
 */
static void timeout_case(enum path path, int port)
{
	size_t len = big_len(), failed = 99;
	struct hixl_engine *c;
	struct hixl_request *bigs[4], *r;
	enum hixl_transfer_status st;
	char cname[HIXL_ENGINE_NAME_MAX];
	unsigned char *rc = tbuf(len);
	struct hixl_mem_desc md = { .addr = (uintptr_t)rc, .len = len };
	struct hixl_op_desc big, tobig;
	int ret, lst, lerr = 0;
	uint64_t h;
	struct pair p;

	snprintf(cname, sizeof(cname), IP ":%d", port + 2);
	c = eng_path(cname, path, true);
	if (!c || !rc || pair_up(&p, path, port, len) ||
	    hixl_register_mem(c, &md, HIXL_MEM_HOST, &h) || hixl_connect(p.a, cname, 5000)) {
		ht_failures++;
		return;
	}
	hx_fill(p.la, len, 9);
	big = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)p.rb, len };
	tobig = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)rc, len };
	for (int i = 0; i < 4; i++)
		CHECK_EQ(hixl_transfer_async(p.a, p.peer, HIXL_OP_WRITE, &big, 1, &HX_TARGS(60000, NULL),
					     &bigs[i]), 0);
	CHECK_EQ(hixl_transfer_async(p.a, cname, HIXL_OP_WRITE, &tobig, 1, &HX_TARGS(1, NULL), &r), 0);
	CHECK_EQ(hixl_request_wait(p.a, r, 60000, &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_TIMEOUT);
	CHECK_EQ(hixl_request_result(r, &failed), -ETIMEDOUT);
	CHECK_EQ(failed, 0);
	CHECK_EQ(hixl_status_from_errno(hixl_request_result(r, NULL)), HIXL_TIMEOUT);
	hixl_request_free(r);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(hixl_request_wait(p.a, bigs[i], -1, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		hixl_request_free(bigs[i]);
	}
	CHECK(!memcmp(p.la, p.rb, len));
	/* b's link works; c's is broken where the kernel timed it out on the wire */
	CHECK_EQ(hixl_transfer_sync(p.a, p.peer, HIXL_OP_READ,
				    &(struct hixl_op_desc){ (uintptr_t)p.lb, (uintptr_t)p.rb, len }, 1,
				    60000, NULL), 0);
	CHECK(!memcmp(p.la, p.lb, len));
	lst = link_state_to(p.a, port + 2, &lerr);
	ret = hixl_transfer_sync(p.a, cname, HIXL_OP_WRITE,
				 &(struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)rc, 4096 }, 1,
				 60000, NULL);
	printf("#   %s: its link then: state %d err %d (%s); a transfer on it afterwards: %d\n",
	       path_name[path], lst, lerr,
	       lst == HIXL_LINK_STATE_READY ? "up: nothing of it was on the wire" :
	       "broken: timed out on the wire", ret);
	if (path == URING && lst != HIXL_LINK_STATE_READY) {
		CHECK_EQ(lst, HIXL_LINK_STATE_ERROR);
		CHECK_EQ(lerr, -ETIMEDOUT);
		CHECK(ret < 0);
	} else {
		CHECK_EQ(lst, HIXL_LINK_STATE_READY);
		CHECK_EQ(ret, 0);	/* nothing was on the wire: the link is fine */
	}
	pair_down(&p);
	hixl_engine_finalize(c);
	munmap(rc, len);
}

void test_liburing_timeout(void)
{
	timeout_case(URING, 18230);
	timeout_case(THREADS, 18240);
}

/*
 * The process's threads but io_uring's own: io-wq workers ("iou-wrk-PID",
 * made by the kernel when a URING_CMD is punted from the non-blocking
 * issue) belong to the task, not to a ring, and leave after seconds of
 * idling, whenever the kernel likes.  The library's threads (reaper,
 * workers, connect threads) are what finalize must end.
 */
static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* the thread has just gone */
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, "iou-", 4))
			n++;
	}
	closedir(d);
	return n;
}

/* a counting allocator for the requests' descriptor copies */
struct count_alloc {
	pthread_mutex_t lock;
	int allocs, frees;
};

static void *ca_alloc(void *obj, size_t size)
{
	struct count_alloc *c = obj;
	void *b = malloc(size);

	pthread_mutex_lock(&c->lock);
	c->allocs += b != NULL;
	pthread_mutex_unlock(&c->lock);
	return b;
}

static void ca_free(void *obj, void *block)
{
	struct count_alloc *c = obj;

	pthread_mutex_lock(&c->lock);
	c->frees++;
	pthread_mutex_unlock(&c->lock);
	free(block);
}

static void *ca_addr(void *obj, void *block)
{
	return block;
}

/*
 * Finalize with requests running, queued, freed while running and never
 * freed: it returns, every descriptor copy goes back to the allocator, the
 * pins (VmPin), descriptors (the ring's) and threads (reaper, workers) are
 * back where they started.
 */
static void finalize_case(enum path path, int port)
{
	static struct count_alloc ca = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
	long pin0 = vm_pin_kb(), pin;
	int fds0 = hx_count_fds(), thr0 = count_threads(), polls = 0;
	size_t len = big_len();
	struct hixl_allocator_desc *ad = NULL;
	struct hixl_request *r;
	struct hixl_op_desc big, small;
	double t0;
	struct pair p;

	ca.allocs = ca.frees = 0;
	REQUIRE(pin0 >= 0 && fds0 > 0 && thr0 > 0);
	REQUIRE(hixl_allocator_desc_create(&ad) == 0);
	REQUIRE(!hixl_allocator_set_obj(ad, &ca) && !hixl_allocator_set_alloc_func(ad, ca_alloc) &&
		!hixl_allocator_set_free_func(ad, ca_free) &&
		!hixl_allocator_set_block_addr_func(ad, ca_addr));
	if (pair_up(&p, path, port, len)) {
		ht_failures++;
		pair_down(&p);
		return;
	}
	REQUIRE(hixl_allocator_register(p.a, ad) == 0);
	hixl_allocator_desc_destroy(ad);
	CHECK(vm_pin_kb() >= pin0 + (long)(3 * len / 1024));
	big = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)p.rb, len };
	small = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)p.rb, 4096 };
	for (int i = 0; i < 8; i++)	/* 8 x len: running, or queued behind */
		CHECK_EQ(hixl_transfer_async(p.a, p.peer, HIXL_OP_WRITE, &big, 1, &HX_TARGS(120000, NULL), &r), 0);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(hixl_transfer_async(p.a, p.peer, HIXL_OP_READ, &small, 1, &HX_TARGS(120000, NULL), &r),
			 0);
		if (i % 2)
			hixl_request_free(r);	/* detached while waiting */
	}
	CHECK_EQ(ca.allocs, 16);
	CHECK(count_threads() > thr0);		/* the reaper or the workers */
	t0 = now_s();
	hixl_engine_finalize(p.a);
	printf("#   %s: finalize with 16 requests pending took %.3f s\n", path_name[path],
	       now_s() - t0);
	p.a = NULL;
	CHECK_EQ(ca.frees, 16);
	/*
	 * pthread_join() returns once the kernel cleared the thread's tid
	 * (exit_mm()), before the thread leaves the thread group
	 * (release_task()), so /proc lags a joined thread by a moment: wait
	 * up to 2 s for the count; a thread left running still fails.
	 */
	for (int i = 0; i < 200 && count_threads() > thr0; i++)
		usleep(10000);
	CHECK_EQ(count_threads(), thr0);
	pair_down(&p);
	do {
		pin = vm_pin_kb();
		if (pin <= pin0)
			break;
		usleep(10000);
	} while (polls++ < 300);
	CHECK_EQ(pin, pin0);
	CHECK_EQ(hx_count_fds(), fds0);
}

void test_liburing_finalize(void)
{
	finalize_case(URING, 18250);
	finalize_case(THREADS, 18260);
}

const struct ht_test liburing_tests[] = {
	{ "liburing_path", test_liburing_path },
	{ "liburing_inflight", test_liburing_inflight },
	{ "liburing_inflight_threads", test_liburing_inflight_threads },
	{ "liburing_errors", test_liburing_errors },
	{ "liburing_timeout", test_liburing_timeout },
	{ "liburing_finalize", test_liburing_finalize },
	{ NULL, NULL },
};
