// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - the data-path counters: GET_STATS's
 * xfer counters move by exactly the bytes and descriptors moved, READ and
 * WRITE, direct and staged; errors, timeouts, cancels and link resets are
 * counted when provoked; LINK_STATS's entries match; ENGINES lists every
 * engine without SETUP; hixlctl stats --json and --prometheus agree with
 * GET_STATS and parse, also for a member of the node's group who is not
 * root; the tracepoints fire with the right fields; bad
 * arguments are refused.
 *
 * Ports: 23700-23719 (no other test file uses them).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

#define ST_PORT 23700	/* +0 .. +19 */

static unsigned char *map(size_t len)
{
	return hx_map(len);
}

static long xfer_tag(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d,
		     uint32_t n, uint32_t timeout_ms, uint64_t tag)
{
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = hx_name(port);
	t.op = op;
	t.descs = (uintptr_t)d;
	t.count = n;
	t.timeout_ms = timeout_ms;
	t.tag = tag;
	return xioctl(fd, HIXL_IOC_TRANSFER, &t);
}

static struct hixl_xfer_stats xstats(int fd)
{
	return get_stats(fd).xfer;
}

/* The links of @fd's own engine (engine 0) or of engine @id; count or -errno. */
static long links_of(int fd, uint64_t id, struct hixl_link_stat *buf, uint32_t n,
		     uint32_t *total)
{
	struct hixl_link_stats a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.engine = id;
	a.buf = (uintptr_t)buf;
	a.count = n;
	ret = xioctl(fd, HIXL_IOC_LINK_STATS, &a);
	if (total)
		*total = a.total;
	return ret ? ret : (long)(a.total < n ? a.total : n);
}

/* Wait up to 5 s for the accepting engine @fd to count @n accepts (its link turns READY last). */
static uint64_t wait_accepts(int fd, uint64_t n)
{
	uint64_t got = 0;

	for (int i = 0; i < 500; i++) {
		got = xstats(fd).accepts;
		if (got >= n)
			break;
		usleep(10000);
	}
	return got;
}

static void check_xfer_eq(const struct hixl_xfer_stats *a, const struct hixl_xfer_stats *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(__u64); i++)
		if (x[i] != y[i]) {
			printf("#   counter %zu: %llu != %llu\n", i, (unsigned long long)x[i],
			       (unsigned long long)y[i]);
			ht_failures++;
		}
}

/*
 * The counters move by exactly the bytes and descriptors moved: direct
 * WRITE and READ (registered, >= 256 KiB), staged WRITE and READ (small
 * registered descriptors, staged by size with stage_policy=1, and
 * unregistered memory); the passive side counts
 * its accept and nothing else; LINK_STATS of both sides matches.
 */
static void test_stats_bytes(void)
{
	const uint16_t pa = ST_PORT, pb = ST_PORT + 1;
	size_t len = 4 * MiB;
	unsigned char *la = map(len), *rb = map(len), *unreg = map(64 * KiB);
	struct hixl_xfer_stats s, sb;
	struct hixl_link_stat ls[4];
	struct hixl_op_desc d[3];
	uint32_t total = 0;
	int a, b;

	a = hx_engine(pa, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(a >= 0);
	b = hx_engine(pb, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(b >= 0 && la && rb && unreg);
	REQUIRE(hx_stage_by_size() == 0);
	hx_fill(la, len, 1);
	hx_fill(unreg, 64 * KiB, 2);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);

	s = xstats(a);
	CHECK_EQ(s.connects, 0);
	CHECK_EQ(s.write_direct_bytes, 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	s = xstats(a);
	CHECK_EQ(s.connects, 1);
	CHECK_EQ(s.accepts, 0);
	CHECK(s.connect_us_sum > 0);
	CHECK_EQ(s.connect_us_last, s.connect_us_sum);
	printf("#   CONNECT took %llu us\n", (unsigned long long)s.connect_us_last);

	/* direct WRITE: 256 KiB + 512 KiB */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 256 * KiB };
	d[1] = (struct hixl_op_desc){ (uintptr_t)la + MiB, (uintptr_t)rb + MiB, 512 * KiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, 2, 10000, 0), 0);
	CHECK(!memcmp(la + MiB, rb + MiB, 512 * KiB));
	s = xstats(a);
	CHECK_EQ(s.write_direct_bytes, 768 * KiB);
	CHECK_EQ(s.write_direct_ops, 2);
	CHECK_EQ(s.read_direct_bytes, 0);
	CHECK_EQ(s.write_staged_bytes, 0);

	/* direct READ: 1 MiB */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la + 2 * MiB, (uintptr_t)rb, MiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_READ, d, 1, 10000, 0), 0);
	s = xstats(a);
	CHECK_EQ(s.read_direct_bytes, MiB);
	CHECK_EQ(s.read_direct_ops, 1);

	/* staged WRITE: a small registered descriptor and an unregistered one, plus a direct one */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la + 4096, (uintptr_t)rb + 3 * MiB, 4096 };
	d[1] = (struct hixl_op_desc){ (uintptr_t)unreg, (uintptr_t)rb + 3 * MiB + 8192, 1000 };
	d[2] = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb + 2 * MiB, 256 * KiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, 3, 10000, 0), 0);
	CHECK(!memcmp(unreg, rb + 3 * MiB + 8192, 1000));
	s = xstats(a);
	CHECK_EQ(s.write_staged_bytes, 5096);
	CHECK_EQ(s.write_staged_ops, 2);
	CHECK_EQ(s.write_direct_bytes, 768 * KiB + 256 * KiB);
	CHECK_EQ(s.write_direct_ops, 3);

	/* staged READ: 100 bytes into unregistered memory */
	d[0] = (struct hixl_op_desc){ (uintptr_t)unreg + 8192, (uintptr_t)rb + 100, 100 };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_READ, d, 1, 10000, 0), 0);
	CHECK(!memcmp(unreg + 8192, rb + 100, 100));
	s = xstats(a);
	CHECK_EQ(s.read_staged_bytes, 100);
	CHECK_EQ(s.read_staged_ops, 1);
	CHECK_EQ(s.read_direct_bytes, MiB);
	CHECK_EQ(s.errors + s.wc_errors + s.timeouts + s.cancels + s.link_resets, 0);

	/* the passive side: one accept, no transfer of its own */
	CHECK_EQ(wait_accepts(b, 1), 1);
	sb = xstats(b);
	CHECK_EQ(sb.accepts, 1);
	CHECK_EQ(sb.connects, 0);
	CHECK_EQ(sb.write_direct_bytes + sb.read_direct_bytes + sb.write_staged_bytes +
		 sb.read_staged_bytes, 0);

	/* LINK_STATS: A's one link is the engine's totals; B's is passive */
	CHECK_EQ(links_of(a, 0, ls, 4, &total), 1);
	CHECK_EQ(total, 1);
	CHECK_EQ(ls[0].state, HIXL_LINK_STATE_READY);
	CHECK_EQ(ls[0].flags, HIXL_LINK_STAT_ACTIVE | HIXL_LINK_STAT_NAMED);
	CHECK_EQ(ls[0].peer.port, pb);
	CHECK(!memcmp(ls[0].peer.addr, hx_name(pb).addr, 16));
	check_xfer_eq(&ls[0].xfer, &s);
	CHECK_EQ(links_of(b, 0, ls, 4, &total), 1);
	CHECK_EQ(ls[0].flags & HIXL_LINK_STAT_ACTIVE, 0);
	CHECK_EQ(ls[0].xfer.accepts, 1);
	/* count 0 only asks for the total */
	CHECK_EQ(links_of(a, 0, NULL, 0, &total), 0);
	CHECK_EQ(total, 1);
	/* the library's wrappers say the same */
	{
		struct hixl_stats st;

		CHECK_EQ(hixl_dev_get_stats(a, &st), 0);
		check_xfer_eq(&st.xfer, &s);
		CHECK_EQ(hixl_dev_link_stats(a, 0, ls, 4, &total), 1);
		check_xfer_eq(&ls[0].xfer, &s);
	}

	/* the engine keeps its totals when the link goes */
	CHECK_EQ(hx_disconnect(a, pb), 0);
	CHECK_EQ(links_of(a, 0, ls, 4, &total), 0);
	CHECK_EQ(total, 0);
	sb = xstats(a);
	check_xfer_eq(&sb, &s);
	close(a);
	close(b);
}

struct canceller {
	int fd;
	uint16_t port;
	const struct hixl_op_desc *d;
	uint32_t n;
	long ret;
};

static void *cancel_victim(void *p)
{
	struct canceller *c = p;

	c->ret = xfer_tag(c->fd, c->port, HIXL_OP_WRITE, c->d, c->n, 60000, 4242);
	return NULL;
}

/*
 * Failures are counted, each once: a descriptor the peer never registered
 * (an error), cancelled TRANSFERs (as many as returned -ECANCELED), one
 * that times out with requests on the wire (a timeout, and the link it
 * breaks is a reset).
 */
static void test_stats_errors(void)
{
	const uint16_t pa = ST_PORT + 2, pb = ST_PORT + 3;
	size_t len = 32 * MiB;
	unsigned char *la = map(len), *rb = map(len), *other = map(MiB);
	struct hixl_op_desc d[32];
	struct hixl_xfer_stats s;
	struct hixl_link_stat ls;
	int a, b, cancelled = 0, tries;

	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0 && la && rb && other);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);

	/* an error: the peer has nothing at that address */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)other, 4096 };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, 1, 5000, 0), -ERANGE);
	s = xstats(a);
	CHECK_EQ(s.errors, 1);
	CHECK_EQ(s.write_direct_bytes, 0);

	/* cancels: a 32 MiB WRITE in a thread, CANCEL of its tag until one lands */
	for (int i = 0; i < 32; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)la + i * MiB, (uintptr_t)rb + i * MiB, MiB };
	for (tries = 0; tries < 20 && !cancelled; tries++) {
		struct canceller c = { a, pb, d, 32, 0 };
		struct hixl_cancel cc;
		bool joined = false;
		pthread_t t;

		REQUIRE(pthread_create(&t, NULL, cancel_victim, &c) == 0);
		for (;;) {
			memset(&cc, 0, sizeof(cc));
			cc.tag = 4242;
			CHECK_EQ(xioctl(a, HIXL_IOC_CANCEL, &cc), 0);
			if (cc.count)
				break;
			if (!pthread_tryjoin_np(t, NULL)) {
				joined = true;
				break;
			}
		}
		if (!joined)
			pthread_join(t, NULL);
		CHECK(c.ret == 0 || c.ret == -ECANCELED);
		cancelled += c.ret == -ECANCELED;
	}
	printf("#   %d cancelled in %d tries\n", cancelled, tries);
	REQUIRE(cancelled > 0);
	s = xstats(a);
	CHECK_EQ(s.cancels, cancelled);
	CHECK_EQ(s.errors, 1);
	CHECK_EQ(s.write_direct_ops, (uint64_t)(tries - cancelled) * 32);

	/*
	 * a timeout with 32 MiB on the wire after 50 ms: the link breaks too
	 * (the timeout's worker breaks it, perhaps just after the ioctl saw
	 * the batch end: wait for that).  Not 1 ms: a deadline that passes
	 * before the submitter posted the chain (one tick under KASAN, two
	 * CPUs) ends the batch unposted, with the link up.  rxe takes 80 ms
	 * and more for 32 MiB.
	 */
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, 32, 50, 0), -ETIMEDOUT);
	for (int i = 0; i < 500; i++) {
		if (links_of(a, 0, &ls, 1, NULL) == 1 && ls.state == HIXL_LINK_STATE_ERROR)
			break;
		usleep(10000);
	}
	s = xstats(a);
	CHECK_EQ(s.timeouts, 1);
	CHECK_EQ(s.link_resets, 1);
	CHECK_EQ(s.errors, 1);
	CHECK_EQ(links_of(a, 0, &ls, 1, NULL), 1);
	CHECK_EQ(ls.state, HIXL_LINK_STATE_ERROR);
	CHECK_EQ(ls.err, -ETIMEDOUT);
	CHECK_EQ(ls.xfer.timeouts, 1);
	CHECK_EQ(ls.xfer.link_resets, 1);
	/*
	 * a TRANSFER on the broken link fails with the link's error, and is
	 * counted by what it returned: the link's -ETIMEDOUT is a timeout
	 */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 4096 };
	{
		long ret = xfer_tag(a, pb, HIXL_OP_WRITE, d, 1, 1000, 0);

		CHECK(ret < 0);
		s = xstats(a);
		CHECK_EQ(s.timeouts, ret == -ETIMEDOUT ? 2 : 1);
		CHECK_EQ(s.errors, ret == -ETIMEDOUT ? 1 : 2);
	}
	close(a);
	close(b);
}

/* A READY link whose peer closes counts one reset, on its side only. */
static void test_stats_link_reset(void)
{
	const uint16_t pa = ST_PORT + 4, pb = ST_PORT + 5;
	struct hixl_link_stat ls;
	struct hixl_xfer_stats s;
	int a, b, i;

	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	CHECK_EQ(xstats(a).link_resets, 0);
	close(b);
	for (i = 0; i < 500; i++) {
		if (links_of(a, 0, &ls, 1, NULL) == 1 && ls.state == HIXL_LINK_STATE_ERROR)
			break;
		usleep(10000);
	}
	REQUIRE(i < 500);
	s = xstats(a);
	CHECK_EQ(s.link_resets, 1);
	CHECK_EQ(ls.xfer.link_resets, 1);
	printf("#   the link broke with %d\n", ls.err);
	/* a local DISCONNECT of a ready link is no reset */
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0);
	CHECK_EQ(hx_disconnect(a, pb), 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	CHECK_EQ(hx_disconnect(a, pb), 0);
	s = xstats(a);
	CHECK_EQ(s.link_resets, 1);
	CHECK_EQ(s.connects, 2);
	close(a);
	close(b);
}

/*
 * ENGINES lists every engine, to any open file (set up or not): pid, name,
 * device, SELF for the asker's own; LINK_STATS of another engine by id.
 */
static void test_stats_engines(void)
{
	const uint16_t pa = ST_PORT + 6, pb = ST_PORT + 7;
	struct hixl_engine_stat e[64];
	struct hixl_link_stat ls[2];
	uint64_t ida, idb;
	uint32_t total = 0;
	int a, b, n, cnt, seen = 0;

	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0);
	n = open_dev();
	REQUIRE(n >= 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	ida = hx_self_id(a);
	idb = hx_self_id(b);
	CHECK(ida && idb && ida != idb);
	CHECK_EQ(wait_accepts(b, 1), 1);
	CHECK(hx_self_id(n) != 0);
	/* count 0: the total only */
	CHECK_EQ(hixl_dev_engines(n, NULL, 0, &total), 0);
	CHECK(total >= 3);
	CHECK_EQ(hixl_dev_engines(n, e, 1, &total), 1);
	cnt = hixl_dev_engines(n, e, 64, &total);
	CHECK(cnt >= 3);
	close(n);
	for (int i = 0; i < cnt; i++) {
		if (e[i].id != ida && e[i].id != idb)
			continue;
		seen++;
		CHECK_EQ(e[i].pid, getpid());
		CHECK_EQ(e[i].flags, HIXL_ENGINE_STAT_SETUP);
		CHECK_EQ(e[i].local.port, e[i].id == ida ? pa : pb);
		CHECK(e[i].device[0] != '\0');
		CHECK_EQ(e[i].nr_links, 1);
		CHECK_EQ(e[i].xfer.connects, e[i].id == ida);
		CHECK_EQ(e[i].xfer.accepts, e[i].id == idb);
	}
	CHECK_EQ(seen, 2);
	/* another engine's links, from the unconfigured file */
	n = open_dev();
	REQUIRE(n >= 0);
	CHECK_EQ(links_of(n, ida, ls, 2, &total), 1);
	CHECK_EQ(total, 1);
	CHECK_EQ(ls[0].peer.port, pb);
	CHECK_EQ(links_of(n, 0, ls, 2, &total), 0);	/* its own: none */
	CHECK_EQ(links_of(n, ~0ULL, ls, 2, NULL), -ENOENT);
	/* and from another process */
	{
		pid_t pid = fork();

		if (!pid) {
			int f = open_dev(), ok;

			ok = f >= 0 && links_of(f, ida, ls, 2, NULL) == 1 && ls[0].peer.port == pb;
			_exit(ok ? 0 : 1);
		}
		REQUIRE(pid > 0);
		{
			int st;

			CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
		}
	}
	close(n);
	close(a);
	close(b);
}

/* GET_STATS, LINK_STATS and ENGINES refuse bad flags, reserved fields, counts, pointers. */
static void test_stats_bad_args(void)
{
	int fd = open_dev();
	struct hixl_stats st;
	struct hixl_link_stats ls;
	struct hixl_engines en;
	struct hixl_info info;
	void *ro;

	REQUIRE(fd >= 0);
	REQUIRE(hixl_dev_get_info(fd, &info) == 0);
	CHECK(info.features & HIXL_FEAT_XFER_STATS);

	memset(&st, 0, sizeof(st));
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_STATS, &st), 0);
	st.flags = 1U << 1;	/* bit 0 is HIXL_STATS_RAILS (test_rail_gstats.c) */
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_STATS, &st), -EINVAL);
	memset(&st, 0, sizeof(st));
	st.nr_rails = 1;	/* without HIXL_STATS_RAILS */
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_STATS, &st), -EINVAL);
	memset(&st, 0, sizeof(st));
	st.xfer.reserved[1] = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_STATS, &st), -EINVAL);
	memset(&st, 0xff, sizeof(st));		/* out fields on input are ignored ... */
	st.flags = 0;
	st.nr_rails = 0;
	st.rails = 0;
	memset(st.xfer.reserved, 0, sizeof(st.xfer.reserved));
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_STATS, &st), 0);
	CHECK_EQ(st.xfer.read_direct_bytes, 0);	/* ... and overwritten */

	memset(&ls, 0, sizeof(ls));
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), 0);
	ls.flags = 1U << 2;	/* bits 0, 1: HIXL_LINK_STATS_RAILS (test_rail_stats.c), _LATENCY */
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);
	memset(&ls, 0, sizeof(ls));
	ls.reserved0 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);
	memset(&ls, 0, sizeof(ls));
	ls.reserved[0] = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);
	memset(&ls, 0, sizeof(ls));
	ls.count = 1;				/* a count without a buffer */
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);
	ls.count = 0;
	ls.buf = 4096;				/* a buffer without a count */
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);
	ls.count = HIXL_MAX_STAT_ENTRIES + 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_LINK_STATS, &ls), -EINVAL);

	memset(&en, 0, sizeof(en));
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), 0);
	CHECK(en.total >= 1);
	en.flags = 4;	/* bits 0, 1: HIXL_ENGINES_RAILS, HIXL_ENGINES_LATENCY */
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), -EINVAL);
	memset(&en, 0, sizeof(en));
	en.reserved0 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), -EINVAL);
	memset(&en, 0, sizeof(en));
	en.count = HIXL_MAX_STAT_ENTRIES + 1;
	en.buf = 4096;
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), -EINVAL);
	/* a buffer that cannot be written */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED);
	en.count = 1;
	en.buf = (uintptr_t)ro;
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), -EFAULT);
	en.buf = 8;				/* nor a bad pointer */
	CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en), -EFAULT);
	/* a caller of the first version (128 bytes) gets those as before */
	{
		unsigned char old[HIXL_STATS_SIZE_VER0];

		memset(old, 0, sizeof(old));
		CHECK_EQ(xioctl(fd, _IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_STATS,
					  unsigned char[HIXL_STATS_SIZE_VER0]), old), 0);
		old[0] = 2;		/* flags: bit 1 (bit 0 is HIXL_STATS_RAILS) */
		CHECK_EQ(xioctl(fd, _IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_STATS,
					  unsigned char[HIXL_STATS_SIZE_VER0]), old), -EINVAL);
	}
	munmap(ro, 4096);
	close(fd);
}

/* ---- hixlctl stats ---- */

#define HIXLCTL "tools/hixlctl"

/* Run "PREFIX tools/hixlctl ARGS"; its stdout in @out; the exit status, or -1. */
static int hixlctl_as(const char *prefix, const char *args, char *out, size_t len)
{
	char cmd[256];
	size_t n = 0, got;
	FILE *p;
	int st;

	if (access(HIXLCTL, X_OK))
		SKIP(HIXLCTL " not built (run from the repo after make tools)");
	snprintf(cmd, sizeof(cmd), "%s" HIXLCTL " %s 2>/dev/null", prefix, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int hixlctl(const char *args, char *out, size_t len)
{
	return hixlctl_as("", args, out, len);
}

/* The number after "@key": in the JSON object of engine @id, or -1. */
static long long json_engine_field(const char *json, uint64_t id, const char *key)
{
	char pat[64], k[64];
	const char *s, *end;

	snprintf(pat, sizeof(pat), "{\"engine\": %llu, ", (unsigned long long)id);
	s = strstr(json, pat);
	if (!s)
		return -1;
	end = strstr(s, "\"links\": [");	/* the engine's own fields come first */
	snprintf(k, sizeof(k), "\"%s\": ", key);
	s = strstr(s, k);
	if (!s || (end && s > end))
		return -1;
	return strtoll(s + strlen(k), NULL, 10);
}

/* python3's json.load() of @json: 1 parses, 0 not, -1 no python3 */
static int python_parses(const char *json)
{
	FILE *p;
	int st;

	if (access("/usr/bin/python3", X_OK))
		return -1;
	p = popen("/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); "
		  "assert isinstance(d[\"engines\"], list)'", "w");
	if (!p)
		return -1;
	fputs(json, p);
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int metric_name_ok(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
			return 0;
	return 1;
}

/*
 * A strict check of the Prometheus text exposition format (0.0.4) as
 * hixlctl writes it: # HELP and # TYPE once per family, before its samples;
 * families not interleaved; samples "name{label="value",...} number"; a
 * counter's samples end in _total, a summary's in _sum or _count, a
 * histogram's in _bucket, _sum or _count (tests/tools/prom_check.py checks
 * the histogram rules); label
 * names valid and values quoted with only \\, \" and \n escapes.
 * Return: the samples, or -1 (and the offending line printed).
 */
static int prom_parse(char *text)
{
	char family[128] = "", type[16] = "", done[256][128];
	int ndone = 0, samples = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128];
		size_t n;
		char *p, *end;

		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			p = line + 7;
			n = strcspn(p, " ");
			if (!metric_name_ok(p, n) || n >= sizeof(name) || !p[n])
				goto bad;
			memcpy(name, p, n);
			name[n] = '\0';
			if (line[2] == 'T') {
				if (strcmp(name, family))
					goto bad;	/* HELP first, then TYPE */
				snprintf(type, sizeof(type), "%s", p + n + 1);
				if (strcmp(type, "counter") && strcmp(type, "gauge") &&
				    strcmp(type, "summary") && strcmp(type, "histogram"))
					goto bad;
			} else {
				for (int i = 0; i < ndone; i++)
					if (!strcmp(done[i], name))
						goto bad;	/* a family twice */
				if (ndone < 256)
					snprintf(done[ndone++], sizeof(done[0]), "%s", name);
				snprintf(family, sizeof(family), "%s", name);
				type[0] = '\0';
			}
			continue;
		}
		if (line[0] == '#' || !type[0])
			goto bad;
		n = strcspn(line, "{ ");
		if (!metric_name_ok(line, n) || n >= sizeof(name))
			goto bad;
		memcpy(name, line, n);
		name[n] = '\0';
		if (!strcmp(type, "summary") || !strcmp(type, "histogram")) {
			size_t f = strlen(family);

			if (strncmp(name, family, f) ||
			    (strcmp(name + f, "_sum") && strcmp(name + f, "_count") &&
			     (type[0] != 'h' || strcmp(name + f, "_bucket"))))
				goto bad;
		} else if (strcmp(name, family)) {
			goto bad;
		}
		if (!strcmp(type, "counter") &&
		    (n < 6 || strcmp(name + n - 6, "_total")))
			goto bad;
		p = line + n;
		if (*p == '{') {
			p++;
			while (*p != '}') {
				size_t ln = strcspn(p, "=");

				if (!metric_name_ok(p, ln) || p[ln] != '=' || p[ln + 1] != '"')
					goto bad;
				p += ln + 2;
				while (*p && *p != '"') {
					if (*p == '\\') {
						if (p[1] != '\\' && p[1] != '"' && p[1] != 'n')
							goto bad;
						p++;
					}
					p++;
				}
				if (*p != '"')
					goto bad;
				p++;
				if (*p == ',')
					p++;
				else if (*p != '}')
					goto bad;
			}
			p++;
		}
		if (*p != ' ')
			goto bad;
		strtod(p + 1, &end);
		if (end == p + 1 || *end)
			goto bad;
		samples++;
	}
	return samples;
bad:
	printf("#   not exposition format: %s\n", text);
	return -1;
}

/* hixlctl stats: text, --json and --prometheus agree with GET_STATS and parse */
static void test_stats_hixlctl(void)
{
	const uint16_t pa = ST_PORT + 8, pb = ST_PORT + 9;
	static char out[1 << 20];
	unsigned char *la = map(MiB), *rb = map(MiB);
	struct hixl_op_desc d = { 0 };
	struct hixl_xfer_stats s;
	char want[256], id[32];
	uint64_t ida;
	int a, b, n;

	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0 && la && rb);
	REQUIRE(reg_mem(a, la, MiB, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, MiB, 0, NULL) == 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 768 * KiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, &d, 1, 10000, 0), 0);
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_READ, &d, 1, 10000, 0), 0);
	s = xstats(a);
	ida = hx_self_id(a);
	REQUIRE(ida);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)ida);

	CHECK_EQ(hixlctl("stats --json", out, sizeof(out)), 0);
	CHECK(python_parses(out) != 0);
	CHECK_EQ(json_engine_field(out, ida, "pid"), getpid());
	CHECK_EQ(json_engine_field(out, ida, "write_direct_bytes"), s.write_direct_bytes);
	CHECK_EQ(json_engine_field(out, ida, "read_direct_bytes"), s.read_direct_bytes);
	CHECK_EQ(json_engine_field(out, ida, "write_direct_ops"), 1);
	CHECK_EQ(json_engine_field(out, ida, "connects"), 1);
	CHECK_EQ(json_engine_field(out, ida, "nr_links"), 1);
	snprintf(want, sizeof(want), "{\"peer\": \"%s:%u\", \"side\": \"active\", \"state\": \"ready\"",
		 HX_IP, pb);
	CHECK(strstr(out, want) != NULL);

	CHECK_EQ(hixlctl("stats", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "engine=%s pid=%d name=%s:%u ", id, getpid(), HX_IP, pa);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "  link engine=%s peer=%s:%u side=active state=ready", id,
		 HX_IP, pb);
	CHECK(strstr(out, want) != NULL);

	/* labels a restart keeps: the engine's name and peer, no pid or number */
	CHECK_EQ(hixlctl("stats --prometheus", out, sizeof(out)), 0);
	snprintf(want, sizeof(want),
		 "hixl_engine_transfer_bytes_total{name=\"%s:%u\","
		 "op=\"write\",path=\"direct\"} %llu\n", HX_IP, pa,
		 (unsigned long long)s.write_direct_bytes);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want),
		 "hixl_link_transfer_bytes_total{name=\"%s:%u\","
		 "peer=\"%s:%u\",op=\"read\",path=\"direct\"} %llu\n", HX_IP, pa,
		 HX_IP, pb, (unsigned long long)s.read_direct_bytes);
	CHECK(strstr(out, want) != NULL);
	n = prom_parse(out);
	printf("#   %d samples\n", n);
	CHECK(n > 0);
	/* --ids: pid and engine too */
	CHECK_EQ(hixlctl("stats --prometheus --ids", out, sizeof(out)), 0);
	snprintf(want, sizeof(want),
		 "hixl_link_transfer_bytes_total{pid=\"%d\",engine=\"%s\",name=\"%s:%u\","
		 "peer=\"%s:%u\",op=\"read\",path=\"direct\"} %llu\n", getpid(), id, HX_IP, pa,
		 HX_IP, pb, (unsigned long long)s.read_direct_bytes);
	CHECK(strstr(out, want) != NULL);
	CHECK(prom_parse(out) > 0);

	CHECK_EQ(hixlctl("stats --json --prometheus", out, sizeof(out)), 2);
	CHECK_EQ(hixlctl("stats --yaml", out, sizeof(out)), 2);
	close(a);
	close(b);
}

/*
 * hixlctl stats as a member of the node's group, not root, without
 * debugfs: it sees root's engines and their counters; a user outside the
 * group cannot open the node (exit status 1).
 */
static void test_stats_group(void)
{
	const uint16_t pa = ST_PORT + 12, pb = ST_PORT + 13;
	static char out[1 << 20];
	unsigned char *la = map(MiB), *rb = map(MiB);
	struct hixl_op_desc d;
	struct stat st;
	uint64_t ida;
	int a, b;

	if (stat(HIXL_DEVICE_PATH, &st))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	if (access("/usr/bin/setpriv", X_OK))
		SKIP("no setpriv (util-linux)");
	if (geteuid() != 0)
		SKIP("not root");
	if (access(HIXLCTL, X_OK))	/* before the chown below: a SKIP would leave it */
		SKIP(HIXLCTL " not built (run from the repo after make tools)");
	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0 && la && rb);
	REQUIRE(reg_mem(a, la, MiB, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, MiB, 0, NULL) == 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 512 * KiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, &d, 1, 10000, 0), 0);
	ida = hx_self_id(a);
	REQUIRE(ida);

	REQUIRE(chown(HIXL_DEVICE_PATH, 0, 65534) == 0);
	{
		/* nobody, in the node's group */
		int rc = hixlctl_as("setpriv --reuid=65534 --regid=65534 --clear-groups ",
				    "stats --json", out, sizeof(out));

		CHECK_EQ(rc, 0);
		CHECK_EQ(json_engine_field(out, ida, "pid"), getpid());
		CHECK_EQ(json_engine_field(out, ida, "write_direct_bytes"), 512 * KiB);
		CHECK_EQ(json_engine_field(out, ida, "connects"), 1);
		rc = hixlctl_as("setpriv --reuid=65534 --regid=100 --clear-groups ", "stats",
				out, sizeof(out));
		CHECK_EQ(rc, 1);	/* not in the group: /dev/hixl is 0660 */
	}
	CHECK(chown(HIXL_DEVICE_PATH, st.st_uid, st.st_gid) == 0);
	close(a);
	close(b);
}

/* ---- tracepoints ---- */

static const char *const events[] = { "hixl_xfer_submit", "hixl_xfer_complete", "hixl_connect",
				      "hixl_link_error" };

static void trace_enable(const char *dir, const char *v)
{
	char e[128];

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(e, sizeof(e), "events/hixl/%s/enable", events[i]);
		CHECK_EQ(hx_tracefs_write(dir, e, v), 0);
	}
}

/* The data-path tracepoints fire with the right fields (tracefs). */
static void test_stats_trace(void)
{
	const uint16_t pa = ST_PORT + 10, pb = ST_PORT + 11;
	static char buf[1 << 20];
	unsigned char *la = map(MiB), *rb = map(MiB);
	struct hixl_op_desc d;
	const char *dir;
	char want[256];
	uint64_t ida;
	int a, b, i;

	if (access(HIXL_DEVICE_PATH, F_OK))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	dir = hx_tracefs("");
	if (!dir)
		SKIP("no tracefs with events/hixl (not mounted, or a kernel without tracing)");
	a = hx_engine(pa, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(pb, 0, 0);
	REQUIRE(b >= 0 && la && rb);
	REQUIRE(reg_mem(a, la, MiB, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, MiB, 0, NULL) == 0);
	ida = hx_self_id(a);
	REQUIRE(ida);
	REQUIRE(hx_tracefs_write(dir, "trace", "") == 0);	/* clear */
	trace_enable(dir, "1");

	REQUIRE(hx_connect(a, pb, 5000) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 512 * KiB };
	CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, &d, 1, 10000, 77), 0);
	close(b);
	for (i = 0; i < 500; i++) {
		struct hixl_link_stat ls;

		if (links_of(a, 0, &ls, 1, NULL) == 1 && ls.state == HIXL_LINK_STATE_ERROR)
			break;
		usleep(10000);
	}
	CHECK(i < 500);
	trace_enable(dir, "0");

	REQUIRE(hx_tracefs_read(dir, buf, sizeof(buf)) >= 0);

	snprintf(want, sizeof(want), "hixl_connect: engine=%llu peer=%s:%u result=0 latency_ns=",
		 (unsigned long long)ida, HX_IP, pb);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want),
		 "hixl_xfer_submit: engine=%llu peer=%s:%u op=write descs=1 staged=0 bytes=%llu tag=77",
		 (unsigned long long)ida, HX_IP, pb, 512 * KiB);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want),
		 "hixl_xfer_complete: engine=%llu peer=%s:%u op=write status=0 bytes=%llu tag=77 latency_ns=",
		 (unsigned long long)ida, HX_IP, pb, 512 * KiB);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "hixl_link_error: engine=%llu peer=%s:%u side=active err=",
		 (unsigned long long)ida, HX_IP, pb);
	{
		const char *l = strstr(buf, want), *eol = l ? strchr(l, '\n') : NULL;
		const char *was = l ? strstr(l, " was=ready") : NULL;

		CHECK(l && was && (!eol || was < eol));
	}
	if (ht_failures)
		printf("#   trace:\n%s", buf);
	close(a);
}

/*
 * Which registered descriptors are staged, by the module
 * parameter stage_policy, seen in the counters.  By cost (0, the default):
 * 256 descriptors of 64 B in one TRANSFER are staged (one round instead of
 * 256 work requests), 32 of them and a lone 4 KiB one go directly, and so
 * do 8 blocks of 32 KiB (the main job's size); by size (1, 0.2's rule)
 * every one of them is staged (all are below 256 KiB); with 2 none is, but
 * unregistered memory still is.  A policy above 2 is
 * refused.  The bytes arrive in every case.
 */
static void test_stats_stage_policy(void)
{
	const uint16_t pa = 24102, pb = 24103;
	size_t len = 1 * MiB;
	unsigned char *la = map(len), *rb = map(len), *unreg = map(64 * KiB);
	struct hixl_op_desc *d = calloc(256, sizeof(*d));
	struct hixl_xfer_stats s0, s;
	int a, b;

	a = hx_engine(pa, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(a >= 0);
	b = hx_engine(pb, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(b >= 0 && la && rb && unreg && d);
	REQUIRE(read_param("stage_policy") == 0);	/* the default: by cost */
	hx_fill(la, len, 7);
	hx_fill(unreg, 64 * KiB, 8);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	CHECK_EQ(write_param("stage_policy", 3), -EINVAL);
	CHECK_EQ(read_param("stage_policy"), 0);

	for (int policy = 0; policy <= 2; policy++) {
		static const struct { uint32_t n, len; } shape[] = {
			{ 256, 64 }, { 32, 64 }, { 1, 4096 }, { 8, 32 * KiB },
		};
		/* staged descriptors of each shape under policies 0, 1, 2 */
		static const uint32_t want[3][4] = {
			{ 256, 0, 0, 0 }, { 256, 32, 1, 8 }, { 0, 0, 0, 0 },
		};

		REQUIRE(write_param("stage_policy", policy) == 0);
		for (int k = 0; k < 4; k++) {
			uint32_t n = shape[k].n, l = shape[k].len;

			memset(rb, 0, len);
			for (uint32_t i = 0; i < n; i++)	/* scattered: every other slot */
				d[i] = (struct hixl_op_desc){ (uintptr_t)la + i * l,
							      (uintptr_t)rb + (n - 1 - i) * 2 * l, l };
			s0 = xstats(a);
			CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, n, 20000, 0), 0);
			s = xstats(a);
			for (uint32_t i = 0; i < n; i++)
				if (memcmp(la + i * l, rb + (n - 1 - i) * 2 * l, l)) {
					printf("#   policy %d, %u x %u B: descriptor %u differs\n",
					       policy, n, l, i);
					ht_failures++;
					break;
				}
			if (s.write_staged_ops - s0.write_staged_ops != want[policy][k] ||
			    s.write_direct_ops - s0.write_direct_ops != n - want[policy][k]) {
				printf("#   policy %d, %u x %u B: %llu staged, %llu direct, want %u staged\n",
				       policy, n, l,
				       (unsigned long long)(s.write_staged_ops - s0.write_staged_ops),
				       (unsigned long long)(s.write_direct_ops - s0.write_direct_ops),
				       want[policy][k]);
				ht_failures++;
			}
		}
		/* unregistered local memory is staged under every policy */
		d[0] = (struct hixl_op_desc){ (uintptr_t)unreg, (uintptr_t)rb, 1000 };
		s0 = xstats(a);
		CHECK_EQ(xfer_tag(a, pb, HIXL_OP_WRITE, d, 1, 10000, 0), 0);
		CHECK(!memcmp(unreg, rb, 1000));
		CHECK_EQ(xstats(a).write_staged_ops - s0.write_staged_ops, 1);
	}
	close(a);
	close(b);
	free(d);
}

const struct ht_test stats_tests[] = {
	{ "stats_bytes", test_stats_bytes },
	{ "stats_stage_policy", test_stats_stage_policy },
	{ "stats_errors", test_stats_errors },
	{ "stats_link_reset", test_stats_link_reset },
	{ "stats_engines", test_stats_engines },
	{ "stats_bad_args", test_stats_bad_args },
	{ "stats_hixlctl", test_stats_hixlctl },
	{ "stats_group", test_stats_group },
	{ "stats_trace", test_stats_trace },
	{ NULL, NULL },
};
