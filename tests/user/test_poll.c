// SPDX-License-Identifier: GPL-2.0
/*
 * test_poll.c - event-loop completions: the engine's event fd
 * (hixl_engine_event_fd()) readable after a request ends on either
 * asynchronous path and while notifications wait, and not when idle;
 * hixl_request_wait_any(); hixl_request_cancel() of one in-flight WRITE or
 * READ with the others and the link unaffected, and of one longer than
 * HIXL_MAX_DESCS (stopped between chunks); hixl_get_notifies_timeout();
 * examples/poll_transfer.  Each test runs in its own child process, so
 * HIXL_NO_URING set here stays here.  Engines on 10.77.0.1 (rxe0 in the
 * test VM), ports 22400-22499.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define IP "10.77.0.1"

enum path { URING, THREADS };
static const char *const path_name[] = { "io_uring", "threads" };

/* without a staging pool, every descriptor goes straight to RDMA */
static const struct hixl_option no_pool[] = { { "BufferPool", "0:0" } };

/* An engine on IP:port whose asynchronous path is path (SKIPs as test_liburing.c). */
static struct hixl_engine *eng_on(int port, enum path path)
{
	char name[HIXL_ENGINE_NAME_MAX];
	struct hixl_engine *e = NULL;
	struct hixl_info info;
	int ret;

	snprintf(name, sizeof(name), IP ":%d", port);
	if (path == THREADS)
		setenv("HIXL_NO_URING", "1", 1);
	else
		unsetenv("HIXL_NO_URING");
	ret = hixl_engine_init(&e, name, no_pool, 1);
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
	if (path == URING && hixl_engine_async_path(e) != HIXL_ASYNC_URING) {
		ret = hixl_engine_caps(e, &info);
		hixl_engine_finalize(e);
		if (!ret && !(info.features & HIXL_FEAT_URING_CMD))
			SKIP("hixl.ko does not offer HIXL_FEAT_URING_CMD");
		SKIP("io_uring is not usable here (the engine fell back to worker threads)");
	}
	return e;
}

/* a (port) -> b (port + 1) and c (port + 2); buffers of len on each */
struct trio {
	struct hixl_engine *a, *b, *c;
	char bn[HIXL_ENGINE_NAME_MAX], cn[HIXL_ENGINE_NAME_MAX];
	unsigned char *la, *rb, *rc;
	size_t len;
};

static int reg(struct hixl_engine *e, void *p, size_t len)
{
	struct hixl_mem_desc d = { .addr = (uintptr_t)p, .len = len };
	uint64_t h;

	return hixl_register_mem(e, &d, HIXL_MEM_HOST, &h);
}

static int trio_up(struct trio *t, enum path path, int port, size_t len, bool with_c)
{
	memset(t, 0, sizeof(*t));
	t->len = len;
	t->a = eng_on(port, path);
	if (!t->a)
		return -1;
	t->b = eng_on(port + 1, path);
	if (with_c)
		t->c = eng_on(port + 2, path);
	snprintf(t->bn, sizeof(t->bn), IP ":%d", port + 1);
	snprintf(t->cn, sizeof(t->cn), IP ":%d", port + 2);
	t->la = hx_map(len);
	t->rb = hx_map(len);
	t->rc = hx_map(len);
	if (!t->b || (with_c && !t->c) || !t->la || !t->rb || !t->rc)
		return -1;
	if (reg(t->a, t->la, len) || reg(t->b, t->rb, len) ||
	    (with_c && reg(t->c, t->rc, len)))
		return -1;
	if (hixl_connect(t->a, t->bn, 5000))
		return -1;
	return with_c ? hixl_connect(t->a, t->cn, 5000) : 0;
}

static void trio_down(struct trio *t)
{
	hixl_engine_finalize(t->a);
	hixl_engine_finalize(t->b);
	hixl_engine_finalize(t->c);
	if (t->la)
		munmap(t->la, t->len);
	if (t->rb)
		munmap(t->rb, t->len);
	if (t->rc)
		munmap(t->rc, t->len);
}

/* poll(2) on fd for POLLIN: 1 readable, 0 not within ms */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n > 0 && (p.revents & POLLIN) ? 1 : n < 0 ? -errno : 0;
}

/* one async transfer of n pieces of piece bytes at offset off of both sides */
static int xfer_async(struct hixl_engine *e, const char *peer, enum hixl_op op,
		      unsigned char *local, unsigned char *remote, size_t n, size_t piece,
		      struct hixl_request **r)
{
	struct hixl_op_desc *d = calloc(n, sizeof(*d));
	int ret;

	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		d[i].local_addr = (uintptr_t)(local + i * piece);
		d[i].remote_addr = (uintptr_t)(remote + i * piece);
		d[i].len = piece;
	}
	ret = hixl_transfer_async(e, peer, op, d, n, &HX_TARGS(120000, NULL), r);
	free(d);
	return ret;
}

static double ms_since(const struct timespec *t0)
{
	return hx_ms_since(t0);
}

void test_poll_args(void);
void test_poll_completion(void);
void test_poll_completion_threads(void);
void test_poll_notify(void);
void test_poll_wait_any(void);
void test_poll_wait_any_threads(void);
void test_poll_cancel(void);
void test_poll_cancel_threads(void);
void test_poll_cancel_chunked(void);
void test_poll_cancel_chunked_threads(void);
void test_poll_notify_timeout(void);
void test_poll_example(void);

/* bad arguments; the fd is one descriptor, stable, close-on-exec */
void test_poll_args(void)
{
	struct hixl_engine *a = eng_on(22400, THREADS), *b;
	struct hixl_request *r = NULL, *rs[2];
	struct hixl_notify n;
	size_t idx = 77, count = 5;
	int fd;

	REQUIRE(a);
	b = eng_on(22401, THREADS);
	REQUIRE(b);
	CHECK_EQ(hixl_engine_event_fd(NULL), -EINVAL);
	fd = hixl_engine_event_fd(a);
	CHECK(fd >= 0);
	CHECK_EQ(hixl_engine_event_fd(a), fd);
	CHECK(hixl_engine_event_fd(b) != fd);
	CHECK(hixl_engine_event_fd(b) >= 0);
	CHECK_EQ(readable(fd, 0), 0);		/* idle */
	CHECK_EQ(hixl_request_wait_any(NULL, rs, 1, 0, &idx), -EINVAL);
	CHECK_EQ(hixl_request_wait_any(a, NULL, 1, 0, &idx), -EINVAL);
	CHECK_EQ(hixl_request_wait_any(a, rs, 0, 0, &idx), -EINVAL);
	rs[0] = NULL;
	CHECK_EQ(hixl_request_wait_any(a, rs, 1, 0, &idx), -EINVAL);
	CHECK_EQ(idx, 77);
	CHECK_EQ(hixl_request_cancel(NULL, NULL), -EINVAL);
	CHECK_EQ(hixl_request_cancel(a, NULL), -EINVAL);
	CHECK_EQ(hixl_get_notifies_timeout(NULL, &n, 1, &count, NULL, 0), -EINVAL);
	CHECK_EQ(hixl_get_notifies_timeout(a, NULL, 1, &count, NULL, 0), -EINVAL);
	CHECK_EQ(hixl_get_notifies_timeout(a, &n, 0, &count, NULL, 0), -EINVAL);
	CHECK_EQ(hixl_get_notifies_timeout(a, &n, 1, NULL, NULL, 0), -EINVAL);
	/* a request of another engine */
	{
		unsigned char *p = hx_map(4 * KiB);

		REQUIRE(p && !reg(a, p, 4 * KiB) && !reg(b, p, 4 * KiB));
		REQUIRE(hixl_connect(a, IP ":22401", 5000) == 0);
		REQUIRE(xfer_async(a, IP ":22401", HIXL_OP_WRITE, p, p, 1, 4 * KiB, &r) == 0);
		rs[0] = r;
		CHECK_EQ(hixl_request_wait_any(b, rs, 1, 0, &idx), -EINVAL);
		CHECK_EQ(hixl_request_cancel(b, r), -EINVAL);
		CHECK_EQ(hixl_request_wait(a, r, -1, NULL), 0);
		CHECK_EQ(hixl_request_cancel(a, r), -EALREADY);
		rs[1] = r;	/* the same request twice: index 0 */
		CHECK_EQ(hixl_request_wait_any(a, rs, 2, 0, &idx), 0);
		CHECK_EQ(idx, 0);
		hixl_request_free(r);
	}
	CHECK_EQ(readable(fd, 0), 0);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

/*
 * The fd is readable after an async completion and until a status call
 * reported it: two requests, one reported, still readable; both, not;
 * a third one freed unreported, not readable either.
 */
static void completion(enum path path, int port)
{
	struct hixl_request *r[3];
	enum hixl_transfer_status st[3];
	struct trio t;
	int fd, n = 0;

	if (trio_up(&t, path, port, 1 * MiB, false)) {
		ht_failures++;
		trio_down(&t);
		return;
	}
	fd = hixl_engine_event_fd(t.a);
	REQUIRE(fd >= 0);
	CHECK_EQ(readable(fd, 0), 0);
	hx_fill(t.la, t.len, 3);
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la, t.rb, 4, 64 * KiB, &r[0]) == 0);
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la + 256 * KiB, t.rb + 256 * KiB, 4,
			   64 * KiB, &r[1]) == 0);
	/* readable once one has ended; reporting it clears the fd until the
	 * other ends: wake up on the fd alone until both have */
	for (int wakeups = 0; n < 2 && wakeups < 3; wakeups++) {
		CHECK_EQ(readable(fd, 30000), 1);
		n = hixl_get_transfer_statuses(t.a, r, 2, st);
	}
	CHECK_EQ(n, 2);
	CHECK_EQ(st[0], HIXL_TRANSFER_COMPLETED);
	CHECK_EQ(st[1], HIXL_TRANSFER_COMPLETED);
	CHECK(!memcmp(t.la, t.rb, 512 * KiB));
	CHECK_EQ(readable(fd, 0), 0);	/* both reported */

	/* two end; reporting one keeps the fd readable, the other clears it */
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_READ, t.la, t.rb, 1, 4 * KiB, &r[0]) == 0);
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_READ, t.la, t.rb, 1, 4 * KiB, &r[1]) == 0);
	/* hixl_request_result() only reads: it must not clear the fd */
	for (int i = 0; i < 3000 && (hixl_request_result(r[0], NULL) == -EINPROGRESS ||
				     hixl_request_result(r[1], NULL) == -EINPROGRESS); i++)
		usleep(10000);
	CHECK_EQ(readable(fd, 0), 1);
	CHECK_EQ(hixl_get_transfer_status(t.a, r[0], &st[0]), 0);
	CHECK_EQ(st[0], HIXL_TRANSFER_COMPLETED);
	CHECK_EQ(readable(fd, 0), 1);	/* r[1]'s end is still unreported */
	{
		struct hixl_transfer_result res[4];
		int k = hixl_get_all_transfer_status(t.a, HIXL_QUERY_SKIP_WAITING, res, 4);

		CHECK(k >= 1);
	}
	CHECK_EQ(readable(fd, 0), 0);
	/* freeing an ended, unreported request clears it too */
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la, t.rb, 1, 4 * KiB, &r[2]) == 0);
	CHECK_EQ(readable(fd, 30000), 1);
	hixl_request_free(r[2]);
	CHECK_EQ(readable(fd, 0), 0);
	/* a request freed while WAITING never makes it readable */
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la, t.rb, 1, 4 * KiB, &r[2]) == 0);
	hixl_request_free(r[2]);
	CHECK_EQ(readable(fd, 300), 0);
	hixl_request_free(r[0]);
	hixl_request_free(r[1]);
	printf("#   %s: event fd readable after completions, cleared by status calls\n",
	       path_name[path]);
	trio_down(&t);
}

void test_poll_completion(void)
{
	completion(URING, 22410);
}

void test_poll_completion_threads(void)
{
	completion(THREADS, 22415);
}

/* readable while a notification waits, on the receiver's fd only */
void test_poll_notify(void)
{
	struct hixl_engine *a = eng_on(22420, URING), *b;
	struct hixl_notify *n = calloc(2, sizeof(*n));
	struct hixl_info info;
	size_t count = 0;
	int fa, fb;

	REQUIRE(a && n);
	b = eng_on(22421, THREADS);
	REQUIRE(b);
	REQUIRE(hixl_engine_caps(b, &info) == 0);
	CHECK(info.features & HIXL_FEAT_POLL);
	REQUIRE(hixl_connect(a, IP ":22421", 5000) == 0);
	fa = hixl_engine_event_fd(a);
	fb = hixl_engine_event_fd(b);
	REQUIRE(fa >= 0 && fb >= 0);
	CHECK_EQ(readable(fb, 0), 0);
	/* the raw /dev/hixl is pollable too */
	CHECK_EQ(readable(hixl_engine_fd(b), 0), 0);
	CHECK_EQ(hixl_send_notify(a, IP ":22421", "kv-ready", "7", 1, 1000), 0);
	CHECK_EQ(readable(fb, 10000), 1);
	CHECK_EQ(readable(hixl_engine_fd(b), 0), 1);
	CHECK_EQ(readable(fa, 0), 0);	/* the sender's stays quiet */
	CHECK_EQ(hixl_send_notify(a, IP ":22421", "kv-ready", "8", 1, 1000), 0);
	/* level-triggered: taking one of two keeps it readable */
	for (int i = 0; i < 1000; i++) {	/* the second may still be on its way */
		CHECK_EQ(hixl_get_notifies(b, n, 1, &count, NULL), 0);
		if (count)
			break;
		usleep(10000);
	}
	CHECK_EQ(count, 1);
	CHECK_EQ(n[0].msg[0], '7');
	CHECK_EQ(readable(fb, 10000), 1);
	CHECK_EQ(hixl_get_notifies(b, n, 2, &count, NULL), 0);
	CHECK_EQ(count, 1);
	CHECK_EQ(n[0].msg[0], '8');
	CHECK_EQ(readable(fb, 0), 0);
	CHECK_EQ(readable(hixl_engine_fd(b), 0), 0);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	free(n);
}

/*
 * The big request must still be running ~300 ms after it was queued (the
 * wait_any timeout and the cancel come then).  32 MiB takes ~10 s on the
 * debug kernel's rxe; on a stock kernel it took under 300 ms in CI, so
 * there it is 512 MiB (~2-5 s under QEMU/TCG: a 7x margin at least).
 */
static unsigned long long big_bytes(void)
{
	return hx_debug_kernel() ? 32 * MiB : 512 * MiB;
}
#define BIG	big_bytes()

/*
 * wait_any among requests of different sizes: a 32 MiB WRITE to b and a
 * 4 KiB one to c (another link, another queue): the small one, index 1,
 * ends first.  Then the timeout path, then the big one is cancelled.
 */
static void wait_any(enum path path, int port)
{
	struct hixl_request *r[3];
	enum hixl_transfer_status st;
	struct timespec t0;
	struct trio t;
	size_t idx = 99;
	double ms;

	if (trio_up(&t, path, port, BIG, true)) {
		ht_failures++;
		trio_down(&t);
		return;
	}
	hx_fill(t.la, 64 * KiB, 9);
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la, t.rb, BIG / MiB, MiB, &r[0]) == 0);
	REQUIRE(xfer_async(t.a, t.cn, HIXL_OP_WRITE, t.la, t.rc, 1, 4 * KiB, &r[1]) == 0);
	CHECK_EQ(hixl_request_wait_any(t.a, r, 2, 60000, &idx), 0);
	CHECK_EQ(idx, 1);
	CHECK_EQ(hixl_get_transfer_status(t.a, r[0], &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_WAITING);
	CHECK(!memcmp(t.la, t.rc, 4 * KiB));
	/* the ended one at index 1 answers at once, even with timeout 0 */
	CHECK_EQ(hixl_request_wait_any(t.a, r, 2, 0, &idx), 0);
	CHECK_EQ(idx, 1);
	/* timeout: only the big one */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_request_wait_any(t.a, r, 1, 200, &idx), -ETIMEDOUT);
	ms = ms_since(&t0);
	printf("#   %s: wait_any timeout 200 ms took %.0f ms\n", path_name[path], ms);
	CHECK(ms >= 190 && ms < 5000);
	CHECK_EQ(hixl_request_wait_any(t.a, r, 1, 0, &idx), -ETIMEDOUT);
	/* a third, small, to b: queued behind the big one on the link */
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_READ, t.la + BIG / 2, t.rb, 1, 4 * KiB, &r[2]) == 0);
	CHECK_EQ(hixl_request_cancel(t.a, r[0]), 0);
	CHECK_EQ(hixl_request_wait_any(t.a, r, 1, 0, &idx), 0);
	CHECK_EQ(idx, 0);
	CHECK_EQ(hixl_request_wait(t.a, r[2], 60000, &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
	for (int i = 0; i < 3; i++)
		hixl_request_free(r[i]);
	trio_down(&t);
}

void test_poll_wait_any(void)
{
	wait_any(URING, 22430);
}

void test_poll_wait_any_threads(void)
{
	wait_any(THREADS, 22435);
}

/*
 * Cancel a big in-flight WRITE, then a big READ, between a small request
 * before it and one after it on the same link: it ends FAILED with
 * -ECANCELED and a failed index below its count, the descriptors before
 * that index arrived whole, the small ones complete with their bytes, and
 * a synchronous transfer on the link still works.
 */
static void cancel(enum path path, int port)
{
	struct trio t;
	int fd;

	if (trio_up(&t, path, port, BIG + 2 * MiB, false)) {
		ht_failures++;
		trio_down(&t);
		return;
	}
	fd = hixl_engine_event_fd(t.a);
	REQUIRE(fd >= 0);
	for (int op = 0; op < 2; op++) {
		enum hixl_op o = op ? HIXL_OP_READ : HIXL_OP_WRITE;
		unsigned char *src = op ? t.rb : t.la, *dst = op ? t.la : t.rb;
		struct hixl_request *small1, *big, *small2;
		enum hixl_transfer_status st;
		size_t failed = 0;
		struct timespec t0;
		struct hixl_op_desc d;
		double ms;

		hx_fill(src, t.len, 40 + op);
		memset(dst, 0, t.len);
		REQUIRE(xfer_async(t.a, t.bn, o, t.la + BIG, t.rb + BIG, 1, 4 * KiB, &small1) == 0);
		REQUIRE(xfer_async(t.a, t.bn, o, t.la, t.rb, BIG / MiB, MiB, &big) == 0);
		REQUIRE(xfer_async(t.a, t.bn, o, t.la + BIG + MiB, t.rb + BIG + MiB, 1, 4 * KiB,
				   &small2) == 0);
		usleep(50000);		/* let it get onto the wire */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK_EQ(hixl_request_cancel(t.a, big), 0);
		ms = ms_since(&t0);
		CHECK_EQ(hixl_get_transfer_status(t.a, big, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_FAILED);
		CHECK_EQ(hixl_request_result(big, &failed), -ECANCELED);
		printf("#   %s %s: cancel took %.0f ms, failed index %zu of %llu\n",
		       path_name[path], op ? "READ" : "WRITE", ms, failed, BIG / MiB);
		CHECK(failed < BIG / MiB);
		CHECK(!memcmp(src, dst, failed * MiB));	/* done before the index: whole */
		CHECK_EQ(hixl_request_cancel(t.a, big), -EALREADY);
		CHECK_EQ(hixl_request_wait(t.a, small1, 60000, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		CHECK_EQ(hixl_request_wait(t.a, small2, 60000, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		CHECK(!memcmp(src + BIG, dst + BIG, 4 * KiB));
		CHECK(!memcmp(src + BIG + MiB, dst + BIG + MiB, 4 * KiB));
		/* the link still works */
		d.local_addr = (uintptr_t)(t.la + BIG + 2 * 4 * KiB);
		d.remote_addr = (uintptr_t)(t.rb + BIG + 2 * 4 * KiB);
		d.len = 64 * KiB;
		CHECK_EQ(hixl_transfer_sync(t.a, t.bn, o, &d, 1, 30000, NULL), 0);
		CHECK(!memcmp(src + BIG + 8 * KiB, dst + BIG + 8 * KiB, 64 * KiB));
		hixl_request_free(small1);
		hixl_request_free(big);
		hixl_request_free(small2);
		CHECK_EQ(readable(fd, 0), 0);
	}
	trio_down(&t);
}

void test_poll_cancel(void)
{
	cancel(URING, 22440);
}

void test_poll_cancel_threads(void)
{
	cancel(THREADS, 22445);
}

/*
 * Cancel of a request longer than HIXL_MAX_DESCS: the library issues it
 * as one TRANSFER per chunk of HIXL_MAX_DESCS descriptors, one after the
 * other, on both paths, and a cancel stops it between chunks (or inside
 * the running one, through the kernel's CANCEL).  CHUNKS chunks of 64-byte
 * WRITEs, cancelled as soon as submitted: the request ends FAILED with
 * -ECANCELED; the descriptors before the failed index arrived whole; no
 * descriptor of a chunk after the failed index's chunk moved a byte (they
 * were never issued); the link still works.  A request that ended before
 * the cancel reached it (a machine too fast for 524,288 descriptors to
 * outlast one call) leaves no later chunk to check: SKIP then.
 */
#define CHUNKS	8
static void cancel_chunked(enum path path, int port)
{
	const size_t piece = 64, n = (size_t)CHUNKS * HIXL_MAX_DESCS;
	enum hixl_transfer_status st;
	struct hixl_request *r;
	struct hixl_op_desc d;
	size_t failed = n, first_unrun, i;
	struct trio t;
	bool late;

	if (trio_up(&t, path, port, n * piece + 64 * KiB, false)) {
		ht_failures++;
		trio_down(&t);
		return;
	}
	hx_fill(t.la, t.len, 77);
	memset(t.rb, 0, t.len);
	REQUIRE(xfer_async(t.a, t.bn, HIXL_OP_WRITE, t.la, t.rb, n, piece, &r) == 0);
	CHECK_EQ(hixl_request_cancel(t.a, r), 0);
	CHECK_EQ(hixl_get_transfer_status(t.a, r, &st), 0);
	late = st == HIXL_TRANSFER_COMPLETED;
	if (!late) {
		CHECK_EQ(st, HIXL_TRANSFER_FAILED);
		CHECK_EQ(hixl_request_result(r, &failed), -ECANCELED);
	}
	first_unrun = (failed / HIXL_MAX_DESCS + 1) * HIXL_MAX_DESCS;
	printf("#   %s: %zu descriptors in %d chunks, failed index %zu (chunk %zu)\n",
	       path_name[path], n, CHUNKS, failed, failed / HIXL_MAX_DESCS);
	CHECK(failed <= n);
	CHECK(!memcmp(t.la, t.rb, failed * piece));	/* done before the index: whole */
	for (i = first_unrun * piece; i < n * piece; i++)
		if (t.rb[i])
			break;
	CHECK_EQ(i >= n * piece, 1);		/* later chunks never ran */
	if (i < n * piece)
		printf("#   byte %zu (descriptor %zu) of a chunk after the failed one moved\n",
		       i, i / piece);
	/* the link still works */
	d.local_addr = (uintptr_t)(t.la + n * piece);
	d.remote_addr = (uintptr_t)(t.rb + n * piece);
	d.len = 64 * KiB;
	CHECK_EQ(hixl_transfer_sync(t.a, t.bn, HIXL_OP_WRITE, &d, 1, 30000, NULL), 0);
	CHECK(!memcmp(t.la + n * piece, t.rb + n * piece, 64 * KiB));
	hixl_request_free(r);
	trio_down(&t);
	if (late || first_unrun >= n)
		SKIP("the request ended before the cancel reached it: no later chunk to check");
}

void test_poll_cancel_chunked(void)
{
	cancel_chunked(URING, 22470);
}

void test_poll_cancel_chunked_threads(void)
{
	cancel_chunked(THREADS, 22475);
}

struct late_notify {
	struct hixl_engine *a;
	int ms, ret;
};

static void *send_late(void *arg)
{
	struct late_notify *l = arg;

	usleep(l->ms * 1000);
	l->ret = hixl_send_notify(l->a, IP ":22451", "late", "z", 1, 1000);
	return NULL;
}

/* none: -ETIMEDOUT after the timeout; one queued: at once; one coming: when it comes */
void test_poll_notify_timeout(void)
{
	struct hixl_engine *a = eng_on(22450, URING), *b;
	struct hixl_notify *n = calloc(4, sizeof(*n));
	struct late_notify l = { 0 };
	struct timespec t0;
	size_t count = 9;
	uint64_t dropped = 9;
	pthread_t th;
	double ms;

	REQUIRE(a && n);
	b = eng_on(22451, URING);
	REQUIRE(b);
	REQUIRE(hixl_connect(a, IP ":22451", 5000) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, &dropped, 0), -ETIMEDOUT);
	CHECK_EQ(count, 0);
	CHECK_EQ(dropped, 0);
	CHECK(ms_since(&t0) < 100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, NULL, 300), -ETIMEDOUT);
	ms = ms_since(&t0);
	printf("#   none, timeout 300 ms: %.0f ms\n", ms);
	CHECK(ms >= 290 && ms < 5000);
	CHECK_EQ(count, 0);

	CHECK_EQ(hixl_send_notify(a, IP ":22451", "now", "y", 1, 1000), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, NULL, 10000), 0);
	ms = ms_since(&t0);
	printf("#   one on its way or queued, timeout 10 s: %.0f ms\n", ms);
	CHECK_EQ(count, 1);
	CHECK(!memcmp(n[0].name, "now", 3));
	CHECK(ms < 5000);
	/* queued before the call: no wait at all */
	CHECK_EQ(hixl_send_notify(a, IP ":22451", "queued", "q", 1, 1000), 0);
	CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, NULL, 10000), 0);
	CHECK_EQ(count, 1);
	CHECK_EQ(hixl_send_notify(a, IP ":22451", "queued", "q", 1, 1000), 0);
	usleep(200000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, NULL, 10000), 0);
	CHECK(ms_since(&t0) < 100);
	CHECK_EQ(count, 1);

	/* one sent 400 ms into a 20 s wait (forever: -1 the second time) */
	for (int forever = 0; forever < 2; forever++) {
		l.a = a;
		l.ms = 400;
		l.ret = 1;
		REQUIRE(pthread_create(&th, NULL, send_late, &l) == 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK_EQ(hixl_get_notifies_timeout(b, n, 4, &count, NULL, forever ? -1 : 20000), 0);
		ms = ms_since(&t0);
		pthread_join(th, NULL);
		CHECK_EQ(l.ret, 0);
		printf("#   one sent after 400 ms, timeout %s: %.0f ms\n",
		       forever ? "none" : "20 s", ms);
		CHECK_EQ(count, 1);
		CHECK(!memcmp(n[0].name, "late", 4));
		CHECK(ms >= 350 && ms < 15000);
	}
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	free(n);
}

/* examples/poll_transfer: its own verification, exit 0 */
void test_poll_example(void)
{
	int st;

	if (access("examples/poll_transfer", X_OK))
		SKIP("examples/poll_transfer not built (run from the repo after make tests)");
	if (access("/dev/hixl", F_OK))
		SKIP("no /dev/hixl");
	st = system("examples/poll_transfer " IP " 22460 | sed 's/^/#   /'");
	REQUIRE(st != -1 && WIFEXITED(st));
	/* the pipe's status is sed's: run it again for the real one, then
	 * on the worker-thread path */
	st = system("examples/poll_transfer " IP " 22462 >/dev/null");
	REQUIRE(st != -1 && WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		SKIP("no RDMA device on " IP);
	CHECK_EQ(WEXITSTATUS(st), 0);
	st = system("HIXL_NO_URING=1 examples/poll_transfer " IP " 22464 >/dev/null");
	REQUIRE(st != -1 && WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

const struct ht_test poll_tests[] = {
	{ "poll_args", test_poll_args },
	{ "poll_completion", test_poll_completion },
	{ "poll_completion_threads", test_poll_completion_threads },
	{ "poll_notify", test_poll_notify },
	{ "poll_wait_any", test_poll_wait_any },
	{ "poll_wait_any_threads", test_poll_wait_any_threads },
	{ "poll_cancel", test_poll_cancel },
	{ "poll_cancel_threads", test_poll_cancel_threads },
	{ "poll_cancel_chunked", test_poll_cancel_chunked },
	{ "poll_cancel_chunked_threads", test_poll_cancel_chunked_threads },
	{ "poll_notify_timeout", test_poll_notify_timeout },
	{ "poll_example", test_poll_example },
	{ NULL, NULL },
};
