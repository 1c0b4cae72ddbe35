// SPDX-License-Identifier: GPL-2.0
/*
 * test_local_par.c - the parallel kernel copy of same-host links
 * (kmod/lcopy.c): a large batch is cut into shares copied by
 * several CPUs (local_copy_threads), a small one inline.  The module's
 * debugfs file hixl/lcopy counts what ran (inline and parallel batches,
 * shares copied by workers or taken back by the caller), so each test
 * proves which path it exercised.
 *
 *   local_par_rw        a large batch (64 MiB; 16 MiB on the debug kernel)
 *                       in uneven descriptors at odd offsets, WRITE then READ,
 *                       byte for byte, with local_copy_threads 4: parallel
 *                       batches counted, workers copied shares; with 1 the
 *                       same batch is inline; a batch of 2 MiB - 1 is
 *                       inline whatever the setting
 *   local_par_dereg     the peer deregisters the region of a 128 MiB (32
 *                       on the debug kernel) batch's second half (then, in
 *                       a second run, of its first half) as soon as the
 *                       batch's first byte arrives: ERANGE blames a
 *                       descriptor of that region and every descriptor
 *                       before the blamed one was copied whole (the lowest
 *                       failing index); nothing stays pinned
 *   local_par_cancel    CANCEL of a parallel batch -> ECANCELED (or 0 when
 *                       it had finished), a 1 ms timeout -> ETIMEDOUT; the
 *                       link then copies fine
 *   local_par_async     io_uring (the library's async transfers): a large
 *                       batch takes the parallel path too
 *   local_par_kill_stuck a process copying to a peer engine whose lock is
 *                       stuck (userfaultfd, stall_util.h) dies on SIGKILL
 *                       within 1 s: neither its wait for the copy workers
 *                       nor a worker waits without bound for the peer's lock
 *   local_par_queue_full 24 batches to a peer engine whose lock sticks mid-copy
 *                       (one queued share each, more than an engine's queue
 *                       runs at once) do not stop another
 *                       pair's batch: it completes, byte for byte, while they
 *                       wait; they complete once the peer's pages arrive
 *
 * Engines on 10.77.0.1 (rxe0 in the test VM), ports 24300-24315.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"
#include "tests.h"
#include "util.h"
#include "local_util.h"
#include "stall_util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

#define LCOPY_STATS	"/sys/kernel/debug/hixl/lcopy"

struct lcopy_stats {
	long long inline_batches, parallel_batches, worker_shares, taken_back;
};

/* hixl/lcopy's counters; SKIPs without them (debugfs not mounted). */
static struct lcopy_stats lcopy_read(void)
{
	struct lcopy_stats s = { -1, -1, -1, -1 };
	char name[64];
	long long v;
	FILE *f = fopen(LCOPY_STATS, "r");

	if (!f)
		SKIP("no " LCOPY_STATS " (debugfs not mounted, or an older hixl.ko)");
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "inline_batches"))
			s.inline_batches = v;
		else if (!strcmp(name, "parallel_batches"))
			s.parallel_batches = v;
		else if (!strcmp(name, "worker_shares"))
			s.worker_shares = v;
		else if (!strcmp(name, "taken_back"))
			s.taken_back = v;
	}
	fclose(f);
	if (s.inline_batches < 0 || s.parallel_batches < 0 || s.worker_shares < 0 ||
	    s.taken_back < 0)
		SKIP(LCOPY_STATS " lacks a counter");
	return s;
}


/* A connected, paired pair A -> B; 0 or -errno. */
static int pair_up(uint16_t pa, uint16_t pb, int *a, int *b)
{
	struct hixl_link_stat o;
	int ret = lu_pair(pa, HIXL_TRANSPORT_AUTO, pb, HIXL_TRANSPORT_AUTO, a, b);

	if (ret)
		return ret;
	if (lu_link0(*a, &o))
		return -ENOENT;
	return (o.flags & HIXL_LINK_STAT_LOCAL) ? 0 : -EOPNOTSUPP;
}

static size_t par_len(void)
{
	return hx_debug_kernel() ? 16 * MiB : 64 * MiB;
}

/*
 * Descriptors covering [0, len) of both buffers in uneven pieces: 1 byte,
 * then pieces of len/5 + an odd amount, the last one ending at len.
 */
static uint32_t uneven(uint8_t *a, uint8_t *b, size_t len, struct hixl_op_desc *d)
{
	size_t at = 0;
	uint32_t n = 0;

	d[n++] = (struct hixl_op_desc){ (uintptr_t)a, (uintptr_t)b, 1 };
	at = 1;
	while (at < len) {
		size_t c = len / 5 + 4093;

		if (c > len - at)
			c = len - at;
		d[n++] = (struct hixl_op_desc){ (uintptr_t)a + at, (uintptr_t)b + at, c };
		at += c;
	}
	return n;
}

static void local_par_rw(void)
{
	size_t len = par_len();
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_op_desc d[16];
	struct hixl_reg_mem r;
	struct lcopy_stats s0, s1, s2, s3;
	uint32_t n, failed = 0;
	int a, b;

	REQUIRE(abuf && bbuf);
	REQUIRE(pair_up(24300, 24301, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	n = uneven(abuf, bbuf, len, d);

	hx_local_threads("4");
	s0 = lcopy_read();
	hx_fill(abuf, len, 21);
	memset(bbuf, 0xee, len);
	CHECK_EQ(hx_xfer(a, 24301, HIXL_OP_WRITE, d, n, 60000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	hx_fill(bbuf, len, 22);
	memset(abuf, 0, len);
	CHECK_EQ(hx_xfer(a, 24301, HIXL_OP_READ, d, n, 60000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	s1 = lcopy_read();
	printf("#   threads 4, %u descriptors, %zu MiB: parallel +%lld, worker shares +%lld, taken back +%lld\n",
	       n, (size_t)(len / MiB), s1.parallel_batches - s0.parallel_batches,
	       s1.worker_shares - s0.worker_shares, s1.taken_back - s0.taken_back);
	CHECK(s1.parallel_batches - s0.parallel_batches >= 2);
	/* 3 shares queued per batch: each copied by a worker or taken back */
	CHECK(s1.worker_shares - s0.worker_shares + s1.taken_back - s0.taken_back >= 6);
	CHECK(s1.worker_shares - s0.worker_shares >= 1);

	/* threads 1: the same batch inline */
	hx_local_threads("1");
	hx_fill(abuf, len, 23);
	CHECK_EQ(hx_xfer(a, 24301, HIXL_OP_WRITE, d, n, 60000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	s2 = lcopy_read();
	CHECK_EQ(s2.parallel_batches, s1.parallel_batches);
	CHECK(s2.inline_batches > s1.inline_batches);

	/* below HIXL_LCOPY_MIN (2 MiB): inline whatever the setting */
	hx_local_threads("4");
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf + 3, (uintptr_t)bbuf + 5, 2 * MiB - 1 };
	hx_fill(abuf, len, 24);
	CHECK_EQ(hx_xfer(a, 24301, HIXL_OP_WRITE, d, 1, 60000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf + 3, bbuf + 5, 2 * MiB - 1), -1);
	s3 = lcopy_read();
	CHECK_EQ(s3.parallel_batches, s2.parallel_batches);
	CHECK(s3.inline_batches > s2.inline_batches);
	hx_local_threads("-1");
	close(a);
	close(b);
}

/*
 * b has two regions, lo and hi, halves of one buffer; a WRITE of n 1 MiB
 * descriptors over both; hi (or lo) deregistered mid-batch.
 */
static void dereg_case(int a, int b, uint8_t *abuf, uint8_t *bbuf, size_t len, bool hi)
{
	uint32_t n = len / MiB;
	struct hixl_op_desc *d = lu_descs((uintptr_t)abuf, (uintptr_t)bbuf, MiB, n);
	struct hixl_reg_mem rlo, rhi;
	struct lu_bg x;
	pthread_t th;
	long ret = 0;

	REQUIRE(d);
	REQUIRE(reg_mem(b, bbuf, len / 2, 0, &rlo) == 0);
	REQUIRE(reg_mem(b, bbuf + len / 2, len / 2, 0, &rhi) == 0);
	hx_fill(abuf, len, hi ? 31 : 32);
	abuf[0] = 0x5a;		/* the byte whose arrival says the copy began */
	memset(bbuf, 0, len);
	x = (struct lu_bg){ .fd = a, .remote = hx_name(24303), .op = HIXL_OP_WRITE, .d = d,
			    .n = n, .timeout_ms = 60000 };
	pthread_create(&th, NULL, lu_bg_run, &x);
	/* the copy has begun when b's first byte arrives: deregister at once */
	for (int i = 0; i < 20000000 && !*(volatile uint8_t *)bbuf; i++)
		;
	for (int i = 0; i < 100000; i++) {
		ret = dereg_mem(b, hi ? rhi.handle : rlo.handle);
		if (ret != -EBUSY)
			break;
	}
	CHECK_EQ(ret, 0);
	pthread_join(th, NULL);
	printf("#   %s half deregistered: %ld (failed %u of %u)\n", hi ? "second" : "first",
	       x.ret, x.failed, n);
	CHECK(x.ret == 0 || x.ret == -ERANGE);
	if (x.ret == -ERANGE) {
		/* blamed: a descriptor of the deregistered half */
		if (hi)
			CHECK(x.failed >= n / 2 && x.failed < n);
		else
			CHECK(x.failed < n / 2);
		/* every descriptor before it copied whole */
		CHECK_EQ(hx_first_diff(abuf, bbuf, (size_t)x.failed * MiB), -1);
	} else {
		CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	}
	dereg_mem(b, hi ? rlo.handle : rhi.handle);
	CHECK_EQ(wait_pinned(b, 0, 5000), 0);
	free(d);
}

static void local_par_dereg(void)
{
	size_t len = 2 * par_len();
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct lcopy_stats s0, s1;
	struct hixl_reg_mem r;
	int a, b;

	REQUIRE(abuf && bbuf);
	REQUIRE(pair_up(24302, 24303, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	hx_local_threads("4");
	s0 = lcopy_read();
	dereg_case(a, b, abuf, bbuf, len, true);
	dereg_case(a, b, abuf, bbuf, len, false);
	s1 = lcopy_read();
	CHECK(s1.parallel_batches - s0.parallel_batches >= 2);
	hx_local_threads("-1");
	close(a);
	close(b);
}

static void local_par_cancel(void)
{
	size_t len = par_len();
	uint32_t n = len / MiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_op_desc *d = lu_descs((uintptr_t)abuf, (uintptr_t)bbuf, MiB, n);
	struct lcopy_stats s0, s1;
	struct hixl_reg_mem r;
	struct hixl_cancel c;
	struct lu_bg x;
	uint32_t failed = 0;
	pthread_t th;
	int a, b;

	REQUIRE(abuf && bbuf && d);
	REQUIRE(pair_up(24304, 24305, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	hx_local_threads("4");
	s0 = lcopy_read();
	x = (struct lu_bg){ .fd = a, .remote = hx_name(24305), .op = HIXL_OP_READ, .d = d,
			    .n = n, .timeout_ms = 60000, .tag = 4242 };
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(1000);
	memset(&c, 0, sizeof(c));
	c.tag = 4242;
	CHECK_EQ(xioctl(a, HIXL_IOC_CANCEL, &c), 0);
	pthread_join(th, NULL);
	printf("#   cancelled parallel READ: %ld (count %u, failed %u of %u)\n", x.ret, c.count,
	       x.failed, n);
	CHECK(x.ret == -ECANCELED || (x.ret == 0 && c.count == 0));
	if (x.ret == -ECANCELED)
		CHECK(x.failed < n);
	/* the whole batch in 1 ms (a jiffy or so): it cannot copy that fast */
	x.timeout_ms = 1;
	x.tag = 0;
	lu_bg_run(&x);
	printf("#   1 ms parallel READ: %ld (failed %u)\n", x.ret, x.failed);
	CHECK_EQ(x.ret, -ETIMEDOUT);
	CHECK(x.failed < n);
	s1 = lcopy_read();
	CHECK(s1.parallel_batches - s0.parallel_batches >= 2);
	/* the link still copies */
	hx_fill(bbuf, len, 41);
	CHECK_EQ(hx_xfer(a, 24305, HIXL_OP_READ, d, n, 60000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	hx_local_threads("-1");
	free(d);
	close(a);
	close(b);
}

/* io_uring (the library's async path) runs the parallel copy too. */
static void local_par_async(void)
{
	static const struct hixl_option o[] = { { HIXL_OPTION_TRANSPORT, "auto" },
						{ HIXL_OPTION_BUFFER_POOL, "0:0" } };
	size_t len = par_len();
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_mem_desc md = { 0 };
	struct hixl_op_desc d[16];
	struct hixl_request *req;
	enum hixl_transfer_status st;
	struct lcopy_stats s0, s1;
	struct hixl_engine *a, *b;
	size_t failed;
	uint64_t h;
	uint32_t n;

	REQUIRE(abuf && bbuf);
	b = hx_lib_engine(HX_IP ":24307", o, 2);
	a = hx_lib_engine(HX_IP ":24306", o, 2);
	REQUIRE(a && b);
	md.addr = (uintptr_t)abuf;
	md.len = len;
	REQUIRE(hixl_register_mem(a, &md, HIXL_MEM_HOST, &h) == 0);
	md.addr = (uintptr_t)bbuf;
	REQUIRE(hixl_register_mem(b, &md, HIXL_MEM_HOST, &h) == 0);
	REQUIRE(hixl_connect(a, HX_IP ":24307", 5000) == 0);
	printf("#   async path: %s\n", hixl_engine_async_path(a) == HIXL_ASYNC_URING ? "io_uring" :
	       "threads");
	n = uneven(abuf, bbuf, len, d);
	hx_local_threads("4");
	s0 = lcopy_read();
	hx_fill(abuf, len, 51);
	memset(bbuf, 0, len);
	CHECK_EQ(hixl_transfer_async(a, HX_IP ":24307", HIXL_OP_WRITE, d, n,
				     &HX_TARGS(60000, NULL), &req), 0);
	CHECK_EQ(hixl_request_wait(a, req, -1, &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
	CHECK_EQ(hixl_request_result(req, &failed), 0);
	hixl_request_free(req);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	s1 = lcopy_read();
	CHECK(s1.parallel_batches - s0.parallel_batches >= 1);
	hx_local_threads("-1");
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

/* Wait up to @ms for child @pid to end: ms it took, or -1 */
static double reap_within(pid_t pid, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) <= ms) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return hx_ms_since(&t0);
		usleep(5000);
	}
	return -1;
}

/*
 * The child of local_par_kill_stuck: its own engine (24311) and memory,
 * connected to the parent's engine on 24310 once the parent says so
 * (@go), then, at the parent's next word, large WRITEs to it, one after
 * the other until it is killed.  Nothing is registered before fork(): the
 * parent's pinned pages stay its own.
 */
static void kill_stuck_child(int go, int told, size_t len, uint64_t dst, pid_t parent)
{
	uint8_t *buf = hx_map(len);
	struct hixl_op_desc d;
	struct hixl_link_stat o;
	uint32_t failed;
	char c = 0;
	int e0;

	/* the test process may end without killing us (a SKIP): go with it */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(5);
	if (read(go, &c, 1) != 1 || !buf)
		_exit(2);
	e0 = lu_eng(24311, HIXL_TRANSPORT_AUTO);
	if (e0 < 0 || reg_mem(e0, buf, len, 0, NULL) || hx_connect(e0, 24310, 5000) ||
	    lu_link0(e0, &o) || !(o.flags & HIXL_LINK_STAT_LOCAL))
		c = 'F';
	else
		c = 'C';
	if (write(told, &c, 1) != 1 || c != 'C')
		_exit(3);
	if (read(go, &c, 1) != 1)
		_exit(4);
	hx_fill(buf, len, 31);
	memset(buf, 0x5a, 4096);	/* what the parent looks for */
	d = (struct hixl_op_desc){ (uintptr_t)buf, dst, len };
	for (;;)
		hx_xfer(e0, 24310, HIXL_OP_WRITE, &d, 1, 60000, &failed);
}

/* Wait up to 10 s for the first byte of a WRITE to land at @p (0x5a): 0, or -1 */
static int first_bytes(const volatile uint8_t *p)
{
	for (int i = 0; i < 2000; i++) {
		if (p[0] == 0x5a)
			return 0;
		usleep(5000);
	}
	printf("#   no byte of the WRITE arrived within 10 s\n");
	return -1;
}

static void local_par_kill_stuck(void)
{
	size_t len = par_len();
	struct lcopy_stats s0, s1;
	struct hx_stall st;
	int p2c[2], c2p[2], e1;
	uint8_t *dst;
	double ms;
	pid_t pid, me;
	char c = 'x';

	hx_local_threads("2");
	s0 = lcopy_read();
	REQUIRE(pipe(p2c) == 0 && pipe(c2p) == 0);
	dst = hx_map(len);
	REQUIRE(dst);
	me = getpid();
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0)
		kill_stuck_child(p2c[0], c2p[1], len, (uintptr_t)dst, me);
	e1 = lu_eng(24310, HIXL_TRANSPORT_AUTO);
	REQUIRE(e1 >= 0);
	REQUIRE(reg_mem(e1, dst, len, 0, NULL) == 0);
	REQUIRE(write(p2c[1], &c, 1) == 1);
	REQUIRE(read(c2p[0], &c, 1) == 1);
	if (c != 'C') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP("the child's engine did not get a same-host link to ours");
	}
	REQUIRE(write(p2c[1], &c, 1) == 1);		/* the child's WRITEs start */
	REQUIRE(first_bytes(dst) == 0);
	/* mid-copy: our engine's lock sticks, the child's next chunks wait for it */
	REQUIRE(hx_stall_begin(&st, e1, 60) == 0);
	usleep(500000);
	CHECK_EQ(waitpid(pid, NULL, WNOHANG), 0);	/* still copying: it waits for our lock */
	kill(pid, SIGKILL);
	ms = reap_within(pid, 1000);
	printf("#   the copying process ended %.0f ms after SIGKILL (-1: not within 1 s)\n", ms);
	CHECK(ms >= 0);
	CHECK_EQ(hx_stall_end(&st), 0);
	if (ms < 0)
		waitpid(pid, NULL, 0);
	s1 = lcopy_read();
	printf("#   parallel batches +%lld, worker shares +%lld, taken back +%lld\n",
	       s1.parallel_batches - s0.parallel_batches, s1.worker_shares - s0.worker_shares,
	       s1.taken_back - s0.taken_back);
	hx_local_threads("-1");
	close(e1);
	munmap(dst, len);
	munmap(st.addr, HX_STALL_LEN);
}

/* batches stuck: more than an engine's queue runs at once (xwork_max_active, 16) */
#define QF_STUCK	24

static void local_par_queue_full(void)
{
	size_t len = par_len();
	uint8_t *a0 = hx_map(len), *a1 = hx_map(len), *v0 = hx_map(len), *v1 = hx_map(len);
	struct lu_bg stuck[QF_STUCK], v;
	pthread_t th[QF_STUCK], vt;
	struct hixl_op_desc da, dv;
	struct timespec ts;
	struct hx_stall st;
	int a, b, va, vb, vlate;

	REQUIRE(a0 && a1 && v0 && v1);
	hx_local_threads("2");		/* one queued share per batch */
	REQUIRE(pair_up(24312, 24313, &a, &b) == 0);
	REQUIRE(pair_up(24314, 24315, &va, &vb) == 0);
	REQUIRE(reg_mem(a, a0, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, a1, len, 0, NULL) == 0);
	REQUIRE(reg_mem(va, v0, len, 0, NULL) == 0);
	REQUIRE(reg_mem(vb, v1, len, 0, NULL) == 0);
	hx_fill(a0, len, 41);
	memset(a0, 0x5a, 4096);
	hx_fill(v0, len, 42);
	da = (struct hixl_op_desc){ (uintptr_t)a0, (uintptr_t)a1, len };
	dv = (struct hixl_op_desc){ (uintptr_t)v0, (uintptr_t)v1, len };

	for (int i = 0; i < QF_STUCK; i++) {
		stuck[i] = (struct lu_bg){ .fd = a, .remote = hx_name(24313), .op = HIXL_OP_WRITE,
					   .d = &da, .n = 1, .timeout_ms = 120000 };
		REQUIRE(pthread_create(&th[i], NULL, lu_bg_run, &stuck[i]) == 0);
	}
	REQUIRE(first_bytes(a1) == 0);
	/* mid-copy: b's lock sticks; the batches' callers and workers wait for it */
	REQUIRE(hx_stall_begin(&st, b, 120) == 0);
	usleep(500000);
	v = (struct lu_bg){ .fd = va, .remote = hx_name(24315), .op = HIXL_OP_WRITE,
			    .d = &dv, .n = 1, .timeout_ms = 60000 };
	REQUIRE(pthread_create(&vt, NULL, lu_bg_run, &v) == 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 30;
	vlate = pthread_timedjoin_np(vt, NULL, &ts);
	printf("#   the other pair's %zu MiB batch with %d batches stuck: %s (%ld)\n",
	       (size_t)(len / MiB), QF_STUCK, vlate ? "still waiting after 30 s" : "ended", v.ret);
	CHECK_EQ(vlate, 0);
	CHECK_EQ(hx_stall_end(&st), 0);	/* b's pages arrive */
	if (vlate)
		pthread_join(vt, NULL);
	CHECK_EQ(v.ret, 0);
	CHECK_EQ(hx_first_diff(v0, v1, len), -1);
	for (int i = 0; i < QF_STUCK; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ(stuck[i].ret, 0);
	}
	CHECK_EQ(hx_first_diff(a0, a1, len), -1);
	hx_local_threads("-1");
	close(a);
	close(b);
	close(va);
	close(vb);
	munmap(st.addr, HX_STALL_LEN);
}

const struct ht_test local_par_tests[] = {
	{ "local_par_rw", local_par_rw },
	{ "local_par_dereg", local_par_dereg },
	{ "local_par_cancel", local_par_cancel },
	{ "local_par_async", local_par_async },
	{ "local_par_kill_stuck", local_par_kill_stuck },
	{ "local_par_queue_full", local_par_queue_full },
	{ NULL, NULL },
};
