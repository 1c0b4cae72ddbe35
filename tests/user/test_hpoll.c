// SPDX-License-Identifier: GPL-2.0
/*
 * test_hpoll.c - hybrid polling of small synchronous transfers (the
 * module's poll_us, kmod/poll.c): the data is right with the spin long,
 * off and at its default, for batches just inside and past the 64 KiB the
 * spin is for; a process SIGKILLed while it spins on its transfers dies at
 * once and leaves the module healthy; CANCELs racing with spinning
 * transfers end each of them once, 0 or -ECANCELED, and the link stays up;
 * one descriptor, the path without allocation or timer, held past its
 * deadline (asleep and spinning), cancelled while held, and on an
 * invalidated registration.
 * No speeds are asserted (bench/results-lat.md has them).
 *
 * On one online CPU the module never spins (the debug VM): there these
 * tests check the sleeping path with the parameter set.
 * Ports 24000-24015.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define LEN (256 * KiB)
#define SPIN_LONG 100000	/* poll_us: spin up to 100 ms, longer than any op here */

/* two engines on 24000+base and 24001+base, pool off, a connected link, LEN each */
struct pair {
	int a, b;
	uint16_t port;		/* b's */
	unsigned char *la, *rb;
};

static int pair_up(struct pair *p, uint16_t base)
{
	memset(p, 0, sizeof(*p));
	p->a = hx_engine(24000 + base, 0, 0);
	p->b = hx_engine(24001 + base, 0, 0);
	p->port = 24001 + base;
	p->la = hx_map(LEN);
	p->rb = hx_map(LEN);
	if (p->a < 0 || p->b < 0 || !p->la || !p->rb)
		return -1;
	if (reg_mem(p->a, p->la, LEN, 0, NULL) || reg_mem(p->b, p->rb, LEN, 0, NULL))
		return -1;
	return hx_connect(p->a, p->port, 10000) ? -1 : 0;
}

static void pair_down(struct pair *p)
{
	if (p->a >= 0)
		close(p->a);
	if (p->b >= 0)
		close(p->b);
	if (p->la)
		munmap(p->la, LEN);
	if (p->rb)
		munmap(p->rb, LEN);
}

/* n descriptors of len bytes each, WRITE then READ back, verified */
static int round_trip(struct pair *p, uint32_t n, uint64_t len, unsigned int seed)
{
	struct hixl_op_desc d[16];
	uint32_t failed;
	long ret;

	if (n > 16 || n * len > LEN / 2)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		d[i].local_addr = (uintptr_t)p->la + i * len;
		d[i].remote_addr = (uintptr_t)p->rb + i * len;
		d[i].len = len;
	}
	hx_fill(p->la, n * len, seed);
	memset(p->rb, 0, n * len);
	ret = hx_xfer(p->a, p->port, HIXL_OP_WRITE, d, n, 10000, &failed);
	if (ret || hx_first_diff(p->la, p->rb, n * len) >= 0) {
		printf("#   WRITE %u x %llu: %ld, first difference %ld\n", n,
		       (unsigned long long)len, ret, hx_first_diff(p->la, p->rb, n * len));
		return -1;
	}
	/* READ it back into the second half of la */
	for (uint32_t i = 0; i < n; i++)
		d[i].local_addr = (uintptr_t)p->la + LEN / 2 + i * len;
	memset(p->la + LEN / 2, 0, n * len);
	ret = hx_xfer(p->a, p->port, HIXL_OP_READ, d, n, 10000, &failed);
	if (ret || hx_first_diff(p->la + LEN / 2, p->rb, n * len) >= 0) {
		printf("#   READ %u x %llu: %ld\n", n, (unsigned long long)len, ret);
		return -1;
	}
	return 0;
}

static void test_hpoll_data(void)
{
	unsigned long long saved = read_param("poll_us");
	const unsigned long long settings[] = { SPIN_LONG, 0, 1, 200 };
	/* inside the spin's 64 KiB, at it, past it; batches of 1 and 16 */
	const struct { uint32_t n; uint64_t len; } shapes[] = {
		{ 1, 1 }, { 1, 64 }, { 1, 4 * KiB }, { 1, 64 * KiB }, { 1, 64 * KiB + 1 },
		{ 16, 4 * KiB }, { 16, 4 * KiB + 1 }, { 2, 64 * KiB },
	};
	struct pair p;

	REQUIRE(saved != ~0ULL);	/* the module has the parameter */
	CHECK_EQ(saved, 200);		/* its documented default */
	REQUIRE(pair_up(&p, 0) == 0);
	for (size_t s = 0; s < sizeof(settings) / sizeof(settings[0]); s++) {
		REQUIRE(write_param("poll_us", settings[s]) == 0);
		for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
			for (unsigned int r = 0; r < 10; r++)
				if (round_trip(&p, shapes[i].n, shapes[i].len, s * 1000 + i * 10 + r)) {
					printf("#   poll_us=%llu\n", settings[s]);
					ht_failures++;
					goto out;
				}
	}
out:
	CHECK_EQ(write_param("poll_us", saved), 0);
	pair_down(&p);
}

/* a process spinning on its small transfers is killed: it dies at once */
static void test_hpoll_killed(void)
{
	unsigned long long saved = read_param("poll_us");
	struct timespec t0;
	int st = 0, pipefd[2];
	struct pair p;
	pid_t pid, w;
	char c;

	REQUIRE(saved != ~0ULL);
	REQUIRE(write_param("poll_us", SPIN_LONG) == 0);
	REQUIRE(pipe(pipefd) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		if (pair_up(&p, 2))
			_exit(1);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		for (unsigned int i = 0;; i++)
			if (round_trip(&p, 1, 64, i))
				_exit(2);
	}
	close(pipefd[1]);
	CHECK_EQ(read(pipefd[0], &c, 1), 1);	/* linked, transferring */
	close(pipefd[0]);
	usleep(300 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGKILL);
	do {
		w = waitpid(pid, &st, WNOHANG);
		if (!w)
			usleep(10 * 1000);
	} while (!w && hx_ms_since(&t0) < 10000);
	printf("#   the transferring child died %.0f ms after SIGKILL\n", hx_ms_since(&t0));
	CHECK_EQ(w, pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	if (w != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	/* the module is fine: a new pair transfers */
	REQUIRE(pair_up(&p, 4) == 0);
	CHECK_EQ(round_trip(&p, 1, 4 * KiB, 7), 0);
	pair_down(&p);
	CHECK_EQ(write_param("poll_us", saved), 0);
}

struct canceller {
	int fd;
	uint64_t tag;
	volatile int stop;
	unsigned long calls;
};

static void *cancel_loop(void *arg)
{
	struct canceller *c = arg;

	while (!c->stop) {
		struct hixl_cancel x;

		memset(&x, 0, sizeof(x));
		x.tag = c->tag;
		if (xioctl(c->fd, HIXL_IOC_CANCEL, &x) == 0)
			c->calls++;
	}
	return NULL;
}

/* CANCELs by tag race with spinning small transfers: each ends once */
static void test_hpoll_cancel(void)
{
	unsigned long long saved = read_param("poll_us");
	struct canceller c = { .tag = 0x5eed };
	unsigned int ok = 0, cancelled = 0, other = 0;
	struct hixl_op_desc d;
	pthread_t th;
	struct pair p;

	REQUIRE(saved != ~0ULL);
	REQUIRE(write_param("poll_us", SPIN_LONG) == 0);
	REQUIRE(pair_up(&p, 6) == 0);
	c.fd = p.a;
	REQUIRE(pthread_create(&th, NULL, cancel_loop, &c) == 0);
	d.local_addr = (uintptr_t)p.la;
	d.remote_addr = (uintptr_t)p.rb;
	d.len = 4 * KiB;
	for (unsigned int i = 0; i < 300; i++) {
		struct hixl_transfer t;
		long ret;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(p.port);
		t.op = i & 1 ? HIXL_OP_READ : HIXL_OP_WRITE;
		t.descs = (uintptr_t)&d;
		t.count = 1;
		t.timeout_ms = 10000;
		t.tag = c.tag;
		ret = xioctl(p.a, HIXL_IOC_TRANSFER, &t);
		if (ret == 0)
			ok++;
		else if (ret == -ECANCELED)
			cancelled++;
		else if (other++ < 3)
			printf("#   TRANSFER %u: %ld\n", i, ret);
	}
	c.stop = 1;
	pthread_join(th, NULL);
	printf("#   300 transfers: %u completed, %u cancelled; %lu CANCEL calls\n", ok, cancelled,
	       c.calls);
	CHECK_EQ(other, 0);
	CHECK_EQ(ok + cancelled, 300);
	/* the link stayed up: a transfer without a tag completes, verified */
	CHECK_EQ(round_trip(&p, 1, 4 * KiB, 11), 0);
	pair_down(&p);
	CHECK_EQ(write_param("poll_us", saved), 0);
}

/* SKIP without the debug kernel's test delay that holds a chain's completion */
static void one_need_hold(void)
{
	if (hx_test_delay("xwr_done_ms", 0))
		SKIP("no debugfs hixl/test/xwr_done_ms (the debug kernel's test delays): nothing holds a transfer in flight");
}

/*
 * One small descriptor, its completion held past its deadline: the
 * synchronous caller, asleep or spinning (it may run the held handler
 * itself), times it out; no timer does.
 */
static void test_hpoll_one_timeout(void)
{
	static const unsigned long long settings[] = { 0, SPIN_LONG };
	unsigned long long saved = read_param("poll_us");

	REQUIRE(saved != ~0ULL);
	one_need_hold();
	for (unsigned int s = 0; s < 2; s++) {
		struct hixl_op_desc d;
		struct timespec t0;
		uint32_t failed = ~0U;
		struct pair p;
		long ret;

		REQUIRE(write_param("poll_us", settings[s]) == 0);
		REQUIRE(pair_up(&p, 8 + 2 * s) == 0);
		d.local_addr = (uintptr_t)p.la;
		d.remote_addr = (uintptr_t)p.rb;
		d.len = 4 * KiB;
		REQUIRE(hx_test_delay("xwr_done_ms", 1500) == 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = hx_xfer(p.a, p.port, HIXL_OP_WRITE, &d, 1, 300, &failed);
		hx_test_delay("xwr_done_ms", 0);
		printf("#   poll_us=%llu: %ld after %.0f ms (timeout 300 ms, hold 1500 ms)\n",
		       settings[s], ret, hx_ms_since(&t0));
		CHECK_EQ(ret, -ETIMEDOUT);
		CHECK_EQ(failed, 0);
		CHECK(hx_ms_since(&t0) >= 290);
		pair_down(&p);
	}
	CHECK_EQ(write_param("poll_us", saved), 0);
}

struct one_xfer {
	struct pair *p;
	struct hixl_op_desc d;
	long ret;
};

static void *one_xfer_fn(void *arg)
{
	struct one_xfer *x = arg;
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = hx_name(x->p->port);
	t.op = HIXL_OP_WRITE;
	t.descs = (uintptr_t)&x->d;
	t.count = 1;
	t.timeout_ms = 10000;
	t.tag = 0x0fe1;
	x->ret = xioctl(x->p->a, HIXL_IOC_TRANSFER, &t);
	return NULL;
}

/* one small descriptor held in flight, spinning: CANCEL by tag ends it, the link stays */
static void test_hpoll_one_cancel(void)
{
	unsigned long long saved = read_param("poll_us");
	struct one_xfer x = { .ret = 1 };
	struct hixl_cancel cn;
	struct pair p;
	pthread_t th;
	int kmsg;

	REQUIRE(saved != ~0ULL);
	one_need_hold();
	kmsg = hx_kmsg_open();
	if (kmsg < 0)
		SKIP("no /dev/kmsg: the hold's start cannot be seen");
	REQUIRE(write_param("poll_us", SPIN_LONG) == 0);
	REQUIRE(pair_up(&p, 12) == 0);
	x.p = &p;
	x.d.local_addr = (uintptr_t)p.la;
	x.d.remote_addr = (uintptr_t)p.rb;
	x.d.len = 4 * KiB;
	REQUIRE(hx_test_delay("xwr_done_ms", 1500) == 0);
	REQUIRE(pthread_create(&th, NULL, one_xfer_fn, &x) == 0);
	CHECK_EQ(hx_kmsg_wait(kmsg, "test delay xwr_done_ms", 10000), 1);
	hx_test_delay("xwr_done_ms", 0);
	memset(&cn, 0, sizeof(cn));
	cn.tag = 0x0fe1;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_CANCEL, &cn), 0);
	CHECK_EQ(cn.count, 1);
	pthread_join(th, NULL);
	CHECK_EQ(x.ret, -ECANCELED);
	CHECK_EQ(round_trip(&p, 1, 4 * KiB, 13), 0);
	pair_down(&p);
	close(kmsg);
	CHECK_EQ(write_param("poll_us", saved), 0);
}

/* one small descriptor on a registration invalidated (munmap): refused, named */
static void test_hpoll_one_invalid(void)
{
	unsigned char *old;
	struct hixl_op_desc d;
	uint32_t failed = ~0U;
	struct pair p;

	REQUIRE(pair_up(&p, 14) == 0);
	CHECK_EQ(round_trip(&p, 1, 64, 5), 0);
	d.local_addr = (uintptr_t)p.la;
	d.remote_addr = (uintptr_t)p.rb;
	d.len = 64;
	REQUIRE(munmap(p.la + LEN - 4096, 4096) == 0);
	CHECK_EQ(wait_invalid(p.a, 1, 2000), 0);
	CHECK_EQ(hx_xfer(p.a, p.port, HIXL_OP_WRITE, &d, 1, 1000, &failed), -ENOENT);
	CHECK_EQ(failed, 0);
	failed = ~0U;
	CHECK_EQ(hx_xfer(p.a, p.port, HIXL_OP_READ, &d, 1, 1000, &failed), -ENOENT);
	CHECK_EQ(failed, 0);
	/* the link is fine: a registration made now transfers */
	old = p.la;
	p.la = hx_map(LEN);
	REQUIRE(p.la && reg_mem(p.a, p.la, LEN, 0, NULL) == 0);
	CHECK_EQ(round_trip(&p, 1, 64, 6), 0);
	pair_down(&p);
	munmap(old, LEN);
}

const struct ht_test hpoll_tests[] = {
	{ "hpoll_data", test_hpoll_data },
	{ "hpoll_killed", test_hpoll_killed },
	{ "hpoll_cancel", test_hpoll_cancel },
	{ "hpoll_one_timeout", test_hpoll_one_timeout },
	{ "hpoll_one_cancel", test_hpoll_one_cancel },
	{ "hpoll_one_invalid", test_hpoll_one_invalid },
	{ NULL, NULL },
};
