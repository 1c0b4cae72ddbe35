// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring.c - the io_uring URING_CMD contract of /dev/hixl
 * (uapi/rdma/hixl.h, "io_uring passthrough"), driven with raw SQEs through
 * liburing: decoding errors, 1/8/32/256 batches in flight verified byte for
 * byte, the ioctl and the uring path agreeing on the same inputs, CANCEL
 * (also racing submission), timeouts, a ring closed and a process killed
 * with work in flight.
 *
 * Debian 12's liburing (2.3) has no io_uring_prep_uring_cmd(): prep_cmd()
 * fills the SQE with hixl_raw_uring_cmd() (tests/include/raw.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

void test_uring_decode(void);
void test_uring_inflight(void);
void test_uring_vs_ioctl(void);
void test_uring_cancel(void);
void test_uring_timeout(void);
void test_uring_ring_close(void);
void test_uring_killed(void);
void test_uring_then_connect(void);
void test_uring_cancel_race(void);
void test_uring_reissue_ptr(void);
void test_uring_reissue_sqe128(void);
void test_uring_reissue_dropped(void);

static void *buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A ring with 128-byte SQEs and 32-byte CQEs (big: 1) or 64/16-byte ones. */
static int ring_init(struct io_uring *r, unsigned int entries, int big)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	if (big)
		p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(entries, r, &p);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP("io_uring is not available (io_uring_disabled?)");
	return ret;
}

/* An SQE of @r's size for IORING_OP_URING_CMD, by raw.h's one filler (liburing 2.3 has none). */
static void prep_cmd(struct io_uring *r, struct io_uring_sqe *sqe, int fd, uint32_t op,
		     const void *arg, size_t len, uint64_t user_data)
{
	hixl_raw_uring_cmd(sqe, (r->flags & IORING_SETUP_SQE128) ? 128 : 64, fd, op, arg, len,
			   user_data);
}

/* Submit one command and wait for its CQE: res, and big_cqe[0] in *res2. */
static int submit_one(struct io_uring *r, int fd, uint32_t op, const void *arg, size_t len,
		      uint64_t *res2)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	prep_cmd(r, sqe, fd, op, arg, len, 42);
	ret = io_uring_submit_and_wait(r, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(r, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	if (res2)
		*res2 = (r->flags & IORING_SETUP_CQE32) ? cqe->big_cqe[0] : 0;
	if (cqe->user_data != 42)
		ret = -EPROTO;
	io_uring_cqe_seen(r, cqe);
	return ret;
}

static struct hixl_transfer xfer_arg(uint16_t port, uint32_t op, struct hixl_op_desc *d,
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
	return t;
}

static long ioctl_xfer(int fd, struct hixl_transfer t, uint32_t *failed)
{
	long ret = xioctl(fd, HIXL_IOC_TRANSFER, &t);

	*failed = t.failed;
	return ret;
}

/* Wait for n CQEs; res[user_data], res2[user_data]; -1 when one is missing. */
static int reap(struct io_uring *r, unsigned int n, int *res, uint64_t *res2, unsigned int max)
{
	for (unsigned int i = 0; i < n; i++) {
		struct __kernel_timespec ts = { .tv_sec = 120 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(r, &cqe, &ts))
			return -1;
		if (cqe->user_data < max) {
			res[cqe->user_data] = cqe->res;
			if (res2)
				res2[cqe->user_data] = cqe->big_cqe[0];
		}
		io_uring_cqe_seen(r, cqe);
	}
	return 0;
}

void test_uring_decode(void)
{
	int fd = open_dev();
	struct io_uring big, small;
	struct hixl_uring_ptr ptr;
	struct hixl_cancel c;
	struct hixl_reg_mem rm;
	uint8_t area[80];
	uint64_t res2;

	REQUIRE(fd >= 0);
	REQUIRE(ring_init(&big, 8, 1) == 0);
	REQUIRE(ring_init(&small, 8, 0) == 0);

	memset(&c, 0, sizeof(c));
	c.tag = 7;
	/* CANCEL of an unknown tag: 0 cancelled */
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), 0);
	/*
	 * not a hixl number; hixl's number before ABI 2; CANCEL's number with a
	 * struct smaller than its first version; a larger one (a newer
	 * caller's) whose extra bytes are zero, then not zero
	 */
	CHECK_EQ(submit_one(&big, fd, 0x1234, &c, sizeof(c), NULL), -ENOTTY);
	CHECK_EQ(submit_one(&big, fd, _IOWR('H', HIXL_IOC_NR_CANCEL, struct hixl_cancel), &c,
			    sizeof(c), NULL), -ENOTTY);
	CHECK_EQ(submit_one(&big, fd, _IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_CANCEL, uint64_t), &c,
			    sizeof(uint64_t), NULL), -EINVAL);
	{
		unsigned char grown[sizeof(c) + 8];

		memset(grown, 0, sizeof(grown));
		memcpy(grown, &c, sizeof(c));
		CHECK_EQ(submit_one(&big, fd, _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
						   HIXL_IOC_NR_CANCEL, sizeof(grown)),
				    grown, sizeof(grown), NULL), 0);
		grown[sizeof(c)] = 1;
		CHECK_EQ(submit_one(&big, fd, _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
						   HIXL_IOC_NR_CANCEL, sizeof(grown)),
				    grown, sizeof(grown), NULL), -E2BIG);
	}
	memset(&rm, 0, sizeof(rm));
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_REG_MEM, &rm, 0, NULL), -EOPNOTSUPP);
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_GET_INFO, &rm, 0, NULL), -EOPNOTSUPP);
	/* the field checks of the command itself */
	c.tag = 0;
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), -EINVAL);
	c.tag = 7;
	c.flags = 2;		/* 1 is HIXL_CANCEL_REVOKE */
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), -EINVAL);
	c.flags = 0;
	c.reserved[0] = 1;
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), -EINVAL);
	c.reserved[0] = 0;
	c.reserved0 = 1;
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), -EINVAL);
	c.reserved0 = 0;
	/* SQE128: the bytes after the struct must be zero */
	memset(area, 0, sizeof(area));
	memcpy(area, &c, sizeof(c));
	area[sizeof(c)] = 1;
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, area, sizeof(area), NULL), -EINVAL);
	area[sizeof(c)] = 0;
	area[79] = 0x80;
	CHECK_EQ(submit_one(&big, fd, HIXL_IOC_CANCEL, area, sizeof(area), NULL), -EINVAL);

	/* 64-byte SQEs: a hixl_uring_ptr */
	memset(&ptr, 0, sizeof(ptr));
	ptr.addr = (uintptr_t)&c;
	ptr.len = sizeof(c);
	CHECK_EQ(submit_one(&small, fd, HIXL_IOC_CANCEL, &ptr, sizeof(ptr), NULL), 0);
	ptr.len = sizeof(c) + 8;
	CHECK_EQ(submit_one(&small, fd, HIXL_IOC_CANCEL, &ptr, sizeof(ptr), NULL), -EINVAL);
	ptr.len = sizeof(c);
	ptr.reserved = 1;
	CHECK_EQ(submit_one(&small, fd, HIXL_IOC_CANCEL, &ptr, sizeof(ptr), NULL), -EINVAL);
	ptr.reserved = 0;
	ptr.addr = 8;		/* unmapped */
	CHECK_EQ(submit_one(&small, fd, HIXL_IOC_CANCEL, &ptr, sizeof(ptr), NULL), -EFAULT);
	ptr.addr = (uintptr_t)&c;
	c.tag = 0;
	CHECK_EQ(submit_one(&small, fd, HIXL_IOC_CANCEL, &ptr, sizeof(ptr), NULL), -EINVAL);

	/* TRANSFER on an engine that was never set up: the ioctl's -EBADFD, failed = count */
	{
		struct hixl_op_desc d = { 0, 0, 1 };
		struct hixl_transfer t = xfer_arg(16201, HIXL_OP_WRITE, &d, 1, 100, 0);

		res2 = 99;
		CHECK_EQ(submit_one(&big, fd, HIXL_IOC_TRANSFER, &t, sizeof(t), &res2), -EBADFD);
		CHECK_EQ(res2, 1);
		ptr.addr = (uintptr_t)&t;
		ptr.len = sizeof(t);
		CHECK_EQ(submit_one(&small, fd, HIXL_IOC_TRANSFER, &ptr, sizeof(ptr), NULL),
			 -EBADFD);
	}
	/* uring_cmd_flags: IORING_URING_CMD_FIXED is refused (by io_uring itself,
	 * -EFAULT, when the ring has no registered buffers; else by us, -EINVAL) */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&big);
		struct io_uring_cqe *cqe;

		c.tag = 7;
		prep_cmd(&big, sqe, fd, HIXL_IOC_CANCEL, &c, sizeof(c), 1);
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		REQUIRE(io_uring_submit_and_wait(&big, 1) == 1);
		REQUIRE(io_uring_wait_cqe(&big, &cqe) == 0);
		CHECK(cqe->res == -EINVAL || cqe->res == -EFAULT);
		io_uring_cqe_seen(&big, cqe);
	}
	io_uring_queue_exit(&big);
	io_uring_queue_exit(&small);
	close(fd);
}

/*
 * Two engines with the staging pool off (every descriptor direct, so every
 * batch goes through the asynchronous queue), depth batches of 4
 * descriptors in flight at once, WRITE then READ back, byte for byte.
 */
static void inflight(int a, uint16_t bport, struct io_uring *r, unsigned int depth,
		     unsigned char *src, unsigned char *dst, unsigned char *rb, size_t blk)
{
	const unsigned int per = 4;
	struct hixl_op_desc *d = calloc((size_t)depth * per, sizeof(*d));
	struct hixl_transfer *t = calloc(depth, sizeof(*t));
	int *res = calloc(depth, sizeof(int));
	uint64_t *res2 = calloc(depth, sizeof(uint64_t));
	size_t len = (size_t)depth * per * blk;

	REQUIRE(d && t && res && res2);
	hx_fill(src, len, depth);
	memset(rb, 0, len);
	memset(dst, 0, len);
	for (int op = 0; op < 2; op++) {
		uint32_t o = op ? HIXL_OP_READ : HIXL_OP_WRITE;

		for (unsigned int i = 0; i < depth * per; i++) {
			/* descriptor k of batch i: a scattered block on the remote side */
			unsigned int j = (i * 7 + 3) % (depth * per);

			d[i].local_addr = (uintptr_t)((op ? dst : src) + (size_t)i * blk);
			d[i].remote_addr = (uintptr_t)(rb + (size_t)j * blk);
			d[i].len = blk;
		}
		for (unsigned int i = 0; i < depth; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(r);

			REQUIRE(sqe);
			t[i] = xfer_arg(bport, o, d + (size_t)i * per, per, 60000, 0);
			prep_cmd(r, sqe, a, HIXL_IOC_TRANSFER, &t[i], sizeof(t[i]), i);
			res[i] = 1;
		}
		REQUIRE(io_uring_submit(r) == (int)depth);
		REQUIRE(reap(r, depth, res, res2, depth) == 0);
		for (unsigned int i = 0; i < depth; i++) {
			if (res[i] || res2[i] != per)
				printf("#   depth %u op %u batch %u: res %d res2 %llu\n", depth, o, i,
				       res[i], (unsigned long long)res2[i]);
			CHECK_EQ(res[i], 0);
			CHECK_EQ(res2[i], per);
		}
	}
	CHECK(memcmp(src, dst, len) == 0);
	for (unsigned int i = 0; i < depth * per; i++) {
		unsigned int j = (i * 7 + 3) % (depth * per);

		if (memcmp(rb + (size_t)j * blk, src + (size_t)i * blk, blk)) {
			printf("#   depth %u: block %u differs at the peer\n", depth, i);
			ht_failures++;
			break;
		}
	}
	free(d);
	free(t);
	free(res);
	free(res2);
}

void test_uring_inflight(void)
{
	static const unsigned int depths[] = { 1, 8, 32, 256 };
	const size_t blk = 4 * KiB, len = 256 * 4 * blk;
	int a = hx_engine(16201, 0, 0), b;
	unsigned char *src = buf(len), *dst = buf(len), *rb = buf(len);
	struct io_uring r;

	REQUIRE(a >= 0);
	b = hx_engine(16202, 0, 0);
	REQUIRE(b >= 0);
	REQUIRE(src && dst && rb);
	REQUIRE(reg_mem(a, src, len, 0, NULL) == 0);
	REQUIRE(reg_mem(a, dst, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 16202, 5000) == 0);
	REQUIRE(ring_init(&r, 256, 1) == 0);
	for (unsigned int i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
		inflight(a, 16202, &r, depths[i], src, dst, rb, blk);
	/*
	 * and with staging on and by size (stage_policy=1): small descriptors
	 * take the staged path (io_uring's worker)
	 */
	{
		int c = hx_engine(16203, 4, 8);

		REQUIRE(c >= 0);
		REQUIRE(hx_stage_by_size() == 0);
		REQUIRE(reg_mem(c, src, len, 0, NULL) == 0);
		REQUIRE(reg_mem(c, dst, len, 0, NULL) == 0);
		REQUIRE(hx_connect(c, 16202, 5000) == 0);
		inflight(c, 16202, &r, 8, src, dst, rb, blk);
		close(c);
	}
	io_uring_queue_exit(&r);
	close(a);
	close(b);
}

/* The same inputs through the ioctl and through io_uring give the same result. */
void test_uring_vs_ioctl(void)
{
	const size_t len = 1 * MiB;
	int a = hx_engine(16204, 0, 0), b;
	unsigned char *la = buf(len), *rb = buf(len), *ro = buf(len);
	struct hixl_op_desc d[6];
	struct io_uring r;
	struct {
		const char *what;
		uint32_t op, count, timeout, reserved0, flags;
		uint64_t reserved;
		uint16_t port;
		int bad;	/* descriptor to spoil: 1 past the remote, 2 len 0, 3 local unregistered, 4 read-only remote */
	} cases[] = {
		{ "valid WRITE", HIXL_OP_WRITE, 6, 5000, 0, 0, 0, 16205, 0 },
		{ "valid READ", HIXL_OP_READ, 6, 5000, 0, 0, 0, 16205, 0 },
		{ "op 2", 2, 6, 5000, 0, 0, 0, 16205, 0 },
		{ "count 0", HIXL_OP_WRITE, 0, 5000, 0, 0, 0, 16205, 0 },
		{ "timeout 0", HIXL_OP_WRITE, 6, 0, 0, 0, 0, 16205, 0 },
		{ "flags", HIXL_OP_WRITE, 6, 5000, 0, 1, 0, 16205, 0 },
		{ "reserved0", HIXL_OP_WRITE, 6, 5000, 1, 0, 0, 16205, 0 },
		{ "reserved", HIXL_OP_WRITE, 6, 5000, 0, 0, 1, 16205, 0 },
		{ "not connected", HIXL_OP_WRITE, 6, 5000, 0, 0, 0, 16299, 0 },
		{ "remote range past the region", HIXL_OP_WRITE, 6, 5000, 0, 0, 0, 16205, 1 },
		{ "len 0", HIXL_OP_WRITE, 6, 5000, 0, 0, 0, 16205, 2 },
		{ "local unregistered", HIXL_OP_READ, 6, 5000, 0, 0, 0, 16205, 3 },
		{ "WRITE into read-only", HIXL_OP_WRITE, 6, 5000, 0, 0, 0, 16205, 4 },
	};

	REQUIRE(a >= 0);
	b = hx_engine(16205, 0, 0);
	REQUIRE(b >= 0);
	REQUIRE(la && rb && ro);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, ro, len, HIXL_REG_READ_ONLY, NULL) == 0);
	REQUIRE(hx_connect(a, 16205, 5000) == 0);
	REQUIRE(ring_init(&r, 8, 1) == 0);
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hixl_transfer t;
		uint32_t failed_ioctl;
		uint64_t res2 = ~0ULL;
		long ri;
		int ru;

		for (int i = 0; i < 6; i++) {
			d[i].local_addr = (uintptr_t)(la + i * 64 * KiB);
			d[i].remote_addr = (uintptr_t)(rb + i * 64 * KiB);
			d[i].len = 64 * KiB;
		}
		switch (cases[c].bad) {
		case 1: d[4].remote_addr = (uintptr_t)(rb + len - 32 * KiB); break;
		case 2: d[4].len = 0; break;
		case 3: d[4].local_addr = (uintptr_t)d; break;
		case 4: d[4].remote_addr = (uintptr_t)ro; break;
		}
		t = xfer_arg(cases[c].port, cases[c].op, d, cases[c].count, cases[c].timeout, 0);
		t.flags = cases[c].flags;
		t.reserved0 = cases[c].reserved0;
		t.reserved = cases[c].reserved;
		ri = ioctl_xfer(a, t, &failed_ioctl);
		ru = submit_one(&r, a, HIXL_IOC_TRANSFER, &t, sizeof(t), &res2);
		printf("#   %s: ioctl %ld/%u uring %d/%llu\n", cases[c].what, ri, failed_ioctl, ru,
		       (unsigned long long)res2);
		CHECK_EQ(ru, ri);
		CHECK_EQ(res2, failed_ioctl);
		if (cases[c].bad)
			CHECK_EQ(failed_ioctl, 4);
	}
	io_uring_queue_exit(&r);
	close(a);
	close(b);
}

/*
 * Big batches of 4 KiB descriptors: each takes many chains, so those
 * behind the first are still waiting when the next command arrives.
 */
struct big {
	int a, b;
	unsigned char *la, *rb;
	size_t len;
	struct hixl_op_desc *d;
	uint32_t n;
};

static void big_setup(struct big *g, uint16_t port_a, uint16_t port_b, size_t len)
{
	g->len = len;
	g->n = len / (4 * KiB);
	g->a = hx_engine(port_a, 0, 0);
	g->b = g->a >= 0 ? hx_engine(port_b, 0, 0) : -1;
	g->la = buf(len);
	g->rb = buf(len);
	g->d = calloc(g->n, sizeof(*g->d));
	if (g->a < 0 || g->b < 0 || !g->la || !g->rb || !g->d)
		return;
	hx_fill(g->la, len, 5);
	for (uint32_t i = 0; i < g->n; i++) {
		g->d[i].local_addr = (uintptr_t)(g->la + i * 4 * KiB);
		g->d[i].remote_addr = (uintptr_t)(g->rb + i * 4 * KiB);
		g->d[i].len = 4 * KiB;
	}
	if (reg_mem(g->a, g->la, len, 0, NULL) || reg_mem(g->b, g->rb, len, 0, NULL) ||
	    hx_connect(g->a, port_b, 5000))
		g->a = -1;
}

/* A small WRITE that must still work: the link is up. */
static long small_write(struct big *g, uint16_t port_b)
{
	struct hixl_op_desc d = { (uintptr_t)g->la, (uintptr_t)g->rb, 64 * KiB };
	uint32_t failed;

	return ioctl_xfer(g->a, xfer_arg(port_b, HIXL_OP_WRITE, &d, 1, 10000, 0), &failed);
}

void test_uring_cancel(void)
{
	const unsigned int nb = 6;
	struct io_uring r;
	struct hixl_cancel c;
	int res[8];
	uint64_t res2[8];
	unsigned int cancelled = 0, done = 0;
	struct big g;

	big_setup(&g, 16206, 16207, 4 * MiB);
	REQUIRE(g.a >= 0);
	REQUIRE(ring_init(&r, 16, 1) == 0);
	for (unsigned int i = 0; i < nb; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r);
		struct hixl_transfer t = xfer_arg(16207, HIXL_OP_WRITE, g.d, g.n, 60000, 77);

		prep_cmd(&r, sqe, g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
	}
	memset(&c, 0, sizeof(c));
	c.tag = 77;
	prep_cmd(&r, io_uring_get_sqe(&r), g.a, HIXL_IOC_CANCEL, &c, sizeof(c), 7);
	REQUIRE(io_uring_submit(&r) == (int)nb + 1);
	REQUIRE(reap(&r, nb + 1, res, res2, 8) == 0);
	printf("#   CANCEL: %d batches cancelled\n", res[7]);
	CHECK(res[7] >= 1);
	for (unsigned int i = 0; i < nb; i++) {
		if (res[i] == -ECANCELED) {
			cancelled++;
			CHECK(res2[i] < g.n);	/* the first descriptor not known complete */
		} else {
			CHECK_EQ(res[i], 0);
			CHECK_EQ(res2[i], g.n);
			done++;
		}
	}
	printf("#   %u completed, %u cancelled\n", done, cancelled);
	CHECK_EQ(cancelled, (unsigned int)res[7]);
	CHECK(cancelled >= 1);
	/* the link is still up and the data of a complete batch is right */
	CHECK_EQ(small_write(&g, 16207), 0);

	/* the ioctl's CANCEL reaches batches submitted through io_uring too */
	for (unsigned int i = 0; i < 3; i++) {
		struct hixl_transfer t = xfer_arg(16207, HIXL_OP_WRITE, g.d, g.n, 60000, 78);

		prep_cmd(&r, io_uring_get_sqe(&r), g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
	}
	REQUIRE(io_uring_submit(&r) == 3);
	c.tag = 78;
	CHECK_EQ(xioctl(g.a, HIXL_IOC_CANCEL, &c), 0);
	printf("#   ioctl CANCEL: %u batches cancelled\n", c.count);
	CHECK(c.count >= 1);
	REQUIRE(reap(&r, 3, res, res2, 8) == 0);
	cancelled = 0;
	for (unsigned int i = 0; i < 3; i++) {
		CHECK(res[i] == 0 || res[i] == -ECANCELED);
		cancelled += res[i] == -ECANCELED;
	}
	CHECK_EQ(cancelled, c.count);
	CHECK_EQ(small_write(&g, 16207), 0);
	CHECK(memcmp(g.la, g.rb, 64 * KiB) == 0);
	io_uring_queue_exit(&r);
	close(g.a);
	close(g.b);
}

void test_uring_timeout(void)
{
	struct io_uring r;
	int res[8];
	uint64_t res2[8];
	struct big g;

	const uint32_t n4 = 1024;	/* 4 MiB in 4 KiB descriptors */

	big_setup(&g, 16208, 16209, 32 * MiB);
	REQUIRE(g.a >= 0);
	REQUIRE(ring_init(&r, 16, 1) == 0);
	/* a long batch, then four with 1 ms: those time out waiting for the send queue */
	for (unsigned int i = 0; i < 5; i++) {
		struct hixl_transfer t = xfer_arg(16209, HIXL_OP_WRITE, g.d, n4, i ? 1 : 60000, 0);

		prep_cmd(&r, io_uring_get_sqe(&r), g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
	}
	REQUIRE(io_uring_submit(&r) == 5);
	REQUIRE(reap(&r, 5, res, res2, 8) == 0);
	CHECK_EQ(res[0], 0);
	CHECK_EQ(res2[0], n4);
	for (unsigned int i = 1; i < 5; i++) {
		CHECK_EQ(res[i], -ETIMEDOUT);
		CHECK(res2[i] < n4);
	}
	/* nothing of theirs was on the wire: the link is up, the first batch's data arrived */
	CHECK_EQ(small_write(&g, 16209), 0);
	CHECK(memcmp(g.la, g.rb, n4 * 4 * KiB) == 0);

	/*
	 * A batch whose requests are on the wire when it times out breaks the
	 * link: 32 requests of 1 MiB go out as one chain at once and take far
	 * longer than 50 ms on rxe (80 ms and more).  Not 1 ms: a deadline
	 * that passes before the submitter posted the chain ends the batch
	 * unposted, with the link up.
	 */
	{
		struct hixl_op_desc d4[32];
		struct hixl_transfer t = xfer_arg(16209, HIXL_OP_WRITE, d4, 32, 50, 0);
		uint64_t r2 = 0;
		long ret;

		for (int i = 0; i < 32; i++) {
			d4[i].local_addr = (uintptr_t)(g.la + i * MiB);
			d4[i].remote_addr = (uintptr_t)(g.rb + i * MiB);
			d4[i].len = MiB;
		}
		CHECK_EQ(submit_one(&r, g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), &r2), -ETIMEDOUT);
		ret = small_write(&g, 16209);
		printf("#   after a timeout on the wire: %ld\n", ret);
		CHECK(ret == -ETIMEDOUT || ret == -ECONNRESET || ret == -ENETDOWN);
	}
	io_uring_queue_exit(&r);
	close(g.a);
	close(g.b);
}

/* Closing the ring with batches in flight: nothing leaks, the engine works on. */
void test_uring_ring_close(void)
{
	long pin0 = vm_pin_kb();
	struct io_uring r;
	struct big g;

	big_setup(&g, 16210, 16211, 4 * MiB);
	REQUIRE(g.a >= 0);
	REQUIRE(ring_init(&r, 16, 1) == 0);
	for (unsigned int i = 0; i < 8; i++) {
		struct hixl_transfer t = xfer_arg(16211, HIXL_OP_WRITE, g.d, g.n, 60000, 0);

		prep_cmd(&r, io_uring_get_sqe(&r), g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
	}
	REQUIRE(io_uring_submit(&r) == 8);
	io_uring_queue_exit(&r);	/* with all eight in flight */
	CHECK_EQ(small_write(&g, 16211), 0);
	CHECK(memcmp(g.la, g.rb, 64 * KiB) == 0);
	close(g.a);
	close(g.b);
	/* the ring's teardown may finish after close: pins go when the last batch ends */
	for (int i = 0; i < 200 && vm_pin_kb() != pin0; i++)
		usleep(50000);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/* A process killed with batches in flight: its engines, pins and MRs go. */
void test_uring_killed(void)
{
	int n0 = hx_count_engines(), status = 0, go[2];
	pid_t pid;
	char c;

	if (n0 < 0)
		SKIP("no /sys/kernel/debug/hixl/engines (debugfs not mounted)");
	REQUIRE(pipe(go) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct io_uring r;
		struct big g;

		close(go[0]);
		big_setup(&g, 16212, 16213, 4 * MiB);
		if (g.a < 0 || ring_init(&r, 16, 1))
			_exit(1);
		for (unsigned int i = 0; i < 8; i++) {
			struct hixl_transfer t = xfer_arg(16213, HIXL_OP_WRITE, g.d, g.n, 60000, 0);

			prep_cmd(&r, io_uring_get_sqe(&r), g.a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
		}
		if (io_uring_submit(&r) != 8)
			_exit(1);
		if (write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	REQUIRE(read(go[0], &c, 1) == 1);
	CHECK_EQ(hx_count_engines(), n0 + 2);
	kill(pid, SIGKILL);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status));
	for (int i = 0; i < 300 && hx_count_engines() != n0; i++)
		usleep(50000);
	CHECK_EQ(hx_count_engines(), n0);
	close(go[0]);
}

/*
 * A ring used and closed leaves io_uring's task-work notification
 * (TIF_NOTIFY_SIGNAL) pending on the thread: CONNECT's interruptible waits
 * must restart (-ERESTARTSYS) rather than fail with EINTR.
 */
void test_uring_then_connect(void)
{
	int a = hx_engine(16214, 0, 0), b;

	REQUIRE(a >= 0);
	b = hx_engine(0, 0, 0);
	REQUIRE(b >= 0);
	for (int i = 0; i < 5; i++) {
		struct hixl_cancel c = { .tag = 99 };
		struct hixl_connect d;
		struct io_uring r;

		REQUIRE(ring_init(&r, 4, 1) == 0);
		CHECK_EQ(submit_one(&r, b, HIXL_IOC_CANCEL, &c, sizeof(c), NULL), 0);
		io_uring_queue_exit(&r);
		CHECK_EQ(hx_connect(b, 16214, 5000), 0);
		memset(&d, 0, sizeof(d));
		d.remote = hx_name(16214);
		d.timeout_ms = 1000;
		CHECK_EQ(xioctl(b, HIXL_IOC_DISCONNECT, &d), 0);
	}
	close(b);
	close(a);
}

/*
 * CANCEL racing submission.  One thread submits batches tagged T, an ioctl
 * TRANSFER and then RACE_DEPTH URING_CMD TRANSFERs in turn, while another
 * issues HIXL_IOC_CANCEL of T as fast as it can.  A batch is visible to
 * CANCEL from the moment it is submitted, before it is queued; each must
 * still end exactly once: every ioctl returns 0 or -ECANCELED, every SQE
 * gets one CQE (0 or -ECANCELED) and no more, the link stays up, and
 * afterwards no region is in use (DEREG_MEM works), nothing is pinned.
 * A batch ended twice frees what its submitter still uses: the VM runner
 * sees the KASAN or refcount report.
 */
#define RACE_DEPTH	8
#define RACE_TAG	4242

struct race_canceller {
	pthread_t t;
	int fd;
	volatile int stop;
	unsigned long calls, counted;
	long err;
};

static void *race_cancel_run(void *p)
{
	struct race_canceller *c = p;

	while (!c->stop) {
		struct hixl_cancel a;
		long ret;

		memset(&a, 0, sizeof(a));
		a.tag = RACE_TAG;
		ret = xioctl(c->fd, HIXL_IOC_CANCEL, &a);
		if (ret && !c->err)
			c->err = ret;
		c->counted += a.count;
		c->calls++;
	}
	return NULL;
}

void test_uring_cancel_race(void)
{
	/*
	 * make check-long (hx_long()): 60 s under KASAN, 20 s on a stock
	 * kernel; else 5 s (~900 batches under KASAN and TCG, ~60,000 on a
	 * stock kernel, every one raced by CANCELs)
	 */
	const double seconds = !hx_long() ? 5 : hx_debug_kernel() ? 60 : 20;
	const size_t len = 64 * KiB;
	long pin0 = vm_pin_kb(), ret;
	unsigned long ioctls = 0, sqes = 0, cancelled = 0, bad = 0, extra = 0;
	struct race_canceller c;
	struct hixl_reg_mem ra;
	struct hixl_op_desc d;
	struct timespec t0;
	struct io_uring r;
	unsigned char *la = buf(len), *rb = buf(len);
	int a = hx_engine(0, 0, 0), b;	/* no staging pool: every batch is queued */
	struct hixl_stats s;

	REQUIRE(a >= 0);
	b = hx_engine(16215, 0, 0);
	REQUIRE(b >= 0 && la && rb);
	hx_fill(la, len, 9);
	memset(rb, 0, len);
	REQUIRE(reg_mem(a, la, len, 0, &ra) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 16215, 5000) == 0);
	REQUIRE(ring_init(&r, 2 * RACE_DEPTH, 1) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 4 * KiB };

	memset(&c, 0, sizeof(c));
	c.fd = a;
	REQUIRE(pthread_create(&c.t, NULL, race_cancel_run, &c) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < seconds * 1000 && bad < 10) {
		struct hixl_transfer t = xfer_arg(16215, HIXL_OP_WRITE, &d, 1, 10000, RACE_TAG);
		unsigned int got[RACE_DEPTH] = { 0 };
		struct io_uring_cqe *cqe;
		uint32_t failed;

		ret = ioctl_xfer(a, t, &failed);
		ioctls++;
		if (ret == -ECANCELED) {
			cancelled++;
		} else if (ret) {
			if (bad++ < 5)
				printf("#   ioctl TRANSFER: %ld\n", ret);
		}
		for (unsigned int i = 0; i < RACE_DEPTH; i++)
			prep_cmd(&r, io_uring_get_sqe(&r), a, HIXL_IOC_TRANSFER, &t, sizeof(t), i);
		REQUIRE(io_uring_submit(&r) == RACE_DEPTH);
		sqes += RACE_DEPTH;
		for (unsigned int i = 0; i < RACE_DEPTH; i++) {
			struct __kernel_timespec ts = { .tv_sec = 60 };

			if (io_uring_wait_cqe_timeout(&r, &cqe, &ts)) {
				printf("#   a CQE is missing after 60 s\n");
				bad++;
				break;
			}
			if (cqe->user_data < RACE_DEPTH)
				got[cqe->user_data]++;
			if (cqe->res == -ECANCELED) {
				cancelled++;
			} else if (cqe->res) {
				if (bad++ < 5)
					printf("#   URING_CMD TRANSFER: %d\n", cqe->res);
			}
			io_uring_cqe_seen(&r, cqe);
		}
		for (unsigned int i = 0; i < RACE_DEPTH; i++) {
			if (got[i] != 1 && bad++ < 5)
				printf("#   SQE %u: %u CQEs\n", i, got[i]);
		}
		while (io_uring_peek_cqe(&r, &cqe) == 0) {	/* nothing more may come */
			extra++;
			io_uring_cqe_seen(&r, cqe);
		}
	}
	c.stop = 1;
	pthread_join(c.t, NULL);
	printf("#   %.0f s: %lu ioctl and %lu URING_CMD TRANSFERs, %lu cancelled; "
	       "%lu CANCELs counted %lu\n", hx_ms_since(&t0) / 1000, ioctls, sqes, cancelled,
	       c.calls, c.counted);
	CHECK_EQ(bad, 0);
	CHECK_EQ(extra, 0);
	CHECK_EQ(c.err, 0);
	CHECK(ioctls >= 10);
	CHECK(cancelled >= 1);		/* the CANCELs did reach batches */
	CHECK(c.counted >= cancelled);	/* each -ECANCELED batch was counted */
	/* a last CQE the loop did not wait for would show now */
	{
		struct __kernel_timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
		struct io_uring_cqe *cqe;

		CHECK(io_uring_wait_cqe_timeout(&r, &cqe, &ts) != 0);
	}
	io_uring_queue_exit(&r);

	/* the link is up; the region's use count is back to zero */
	ret = hx_xfer(a, 16215, HIXL_OP_WRITE, &d, 1, 10000, NULL);
	CHECK_EQ(ret, 0);
	CHECK(!memcmp(la, rb, 4 * KiB));
	CHECK_EQ(dereg_mem(a, ra.handle), 0);
	s = get_stats(a);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.pinned_pages, 0);
	CHECK_EQ(s.mrs, 0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/*
 * io_uring's worker pool held: at most one bound worker for this thread's
 * rings (IORING_REGISTER_IOWQ_MAX_WORKERS), kept in an openat() of a FIFO
 * (IOSQE_ASYNC issues it from that worker, where opening a FIFO for reading
 * waits for a writer).  A command punted to the workers meanwhile (its
 * inline issue returned -EAGAIN) waits behind it until iowq_release()
 * opens the write end.  The openat's CQE has user_data IOWQ_HOLD_UD.
 */
#define IOWQ_HOLD_UD 1000

static int iowq_hold(struct io_uring *r, char *path, size_t size)
{
	unsigned int max[2] = { 1, 1 };	/* bound, unbound */
	struct io_uring_sqe *sqe;
	int ret;

	snprintf(path, size, "/tmp/hixl-iowq-%d", (int)getpid());
	unlink(path);
	if (mkfifo(path, 0600))
		return -errno;
	ret = io_uring_register_iowq_max_workers(r, max);
	if (ret)
		return ret;
	sqe = io_uring_get_sqe(r);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_openat(sqe, AT_FDCWD, path, O_RDONLY, 0);
	sqe->flags |= IOSQE_ASYNC;
	sqe->user_data = IOWQ_HOLD_UD;
	ret = io_uring_submit(r);
	return ret == 1 ? 0 : ret < 0 ? ret : -EIO;
}

static int iowq_release(const char *path)
{
	int fd = open(path, O_WRONLY);	/* the worker is the reader */

	if (fd < 0)
		return -errno;
	close(fd);
	unlink(path);
	return 0;
}

/* Wait for n CQEs: res[user_data] for user_data < IOWQ_HOLD_UD; the openat's fd is closed. */
static int reap_held(struct io_uring *r, unsigned int n, int *res, uint64_t *res2)
{
	for (unsigned int i = 0; i < n; i++) {
		struct __kernel_timespec ts = { .tv_sec = 60 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(r, &cqe, &ts))
			return -1;
		if (cqe->user_data == IOWQ_HOLD_UD) {
			if (cqe->res >= 0)
				close(cqe->res);
		} else if (cqe->user_data < IOWQ_HOLD_UD) {
			res[cqe->user_data] = cqe->res;
			if (res2)
				res2[cqe->user_data] = (r->flags & IORING_SETUP_CQE32) ?
						       cqe->big_cqe[0] : 0;
		}
		io_uring_cqe_seen(r, cqe);
	}
	return 0;
}

/*
 * Two engines with staging pools (4 x 8 MiB) and a registration at B: a
 * 64 KiB descriptor from A's unregistered memory is staged, so io_uring's
 * inline issue of its TRANSFER returns -EAGAIN and io_uring issues it again
 * from a worker.
 */
struct staged {
	int a, b;
	uint16_t port_b;
	unsigned char *src, *rb;
	size_t len;
};

static int staged_setup(struct staged *g, uint16_t port_a, uint16_t port_b)
{
	g->len = 256 * KiB;
	g->port_b = port_b;
	g->src = buf(g->len);
	g->rb = buf(g->len);
	g->a = hx_engine(port_a, 4, 8);
	g->b = g->a >= 0 ? hx_engine(port_b, 4, 8) : -1;
	if (!g->src || !g->rb || g->a < 0 || g->b < 0)
		return -1;
	hx_fill(g->src, g->len, 31);
	memset(g->rb, 0, g->len);
	if (reg_mem(g->b, g->rb, g->len, 0, NULL) || hx_connect(g->a, port_b, 5000))
		return -1;
	return 0;
}

/* Queue a staged WRITE of 64 KiB at offset off (@t and @ptr stay the caller's). */
static void staged_prep(struct staged *g, struct io_uring *r, struct hixl_op_desc *d,
			struct hixl_transfer *t, struct hixl_uring_ptr *ptr, size_t off,
			uint64_t user_data, struct io_uring_sqe **sqe_out)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	d->local_addr = (uintptr_t)(g->src + off);	/* unregistered and small: staged */
	d->remote_addr = (uintptr_t)(g->rb + off);
	d->len = 64 * KiB;
	*t = xfer_arg(g->port_b, HIXL_OP_WRITE, d, 1, 30000, 0);
	if (r->flags & IORING_SETUP_SQE128) {
		prep_cmd(r, sqe, g->a, HIXL_IOC_TRANSFER, t, sizeof(*t), user_data);
	} else {
		memset(ptr, 0, sizeof(*ptr));
		ptr->addr = (uintptr_t)t;
		ptr->len = sizeof(*t);
		prep_cmd(r, sqe, g->a, HIXL_IOC_TRANSFER, ptr, sizeof(*ptr), user_data);
	}
	if (sqe_out)
		*sqe_out = sqe;
}

/* No CQE yet: the command waits for the one worker, held in the FIFO's open. */
static int still_waiting(struct io_uring *r)
{
	struct io_uring_cqe *cqe;
	int ret;

	usleep(100000);
	ret = io_uring_peek_cqe(r, &cqe);
	if (!ret)
		printf("#   CQE %llu (res %d) while the workers were held\n",
		       (unsigned long long)cqe->user_data, cqe->res);
	return ret == -EAGAIN;
}

/*
 * Between the inline issue's -EAGAIN and the reissue (workers held), the
 * process makes the command it submitted invalid (count 0) where the
 * kernel could read it again: the struct behind the hixl_uring_ptr on a
 * 64-byte-SQE ring, the SQE's slot in the SQ ring on an SQE128 ring (both
 * may be reused once io_uring_submit() returned, uapi/rdma/hixl.h).  The
 * command as submitted must be the one that runs: CQE 0 and the bytes at
 * the peer.
 */
static void reissue(int big, uint16_t port_a, uint16_t port_b)
{
	struct io_uring_sqe *sqe;
	struct hixl_uring_ptr ptr;
	struct hixl_transfer t;
	struct hixl_op_desc d;
	struct io_uring r;
	struct staged g;
	char fifo[64];
	int res[1] = { 1 }, waited;
	uint64_t res2[1] = { 0 };

	REQUIRE(staged_setup(&g, port_a, port_b) == 0);
	REQUIRE(ring_init(&r, 8, big) == 0);
	REQUIRE(iowq_hold(&r, fifo, sizeof(fifo)) == 0);
	staged_prep(&g, &r, &d, &t, &ptr, 0, 0, &sqe);
	REQUIRE(io_uring_submit(&r) == 1);
	/* submitted: what the process does with this memory now is its business */
	if (big)
		((struct hixl_transfer *)sqe->cmd)->count = 0;
	else
		t.count = 0;
	waited = still_waiting(&r);
	REQUIRE(iowq_release(fifo) == 0);
	REQUIRE(reap_held(&r, 2, res, res2) == 0);
	io_uring_queue_exit(&r);
	printf("#   %s ring: TRANSFER res %d (failed %llu)\n", big ? "SQE128" : "64-byte SQE",
	       res[0], (unsigned long long)res2[0]);
	CHECK(waited);			/* it was punted */
	CHECK_EQ(res[0], 0);		/* count 0 would be -EINVAL */
	if (big)
		CHECK_EQ(res2[0], 1);
	CHECK_EQ(hx_first_diff(g.src, g.rb, 64 * KiB), -1);
	close(g.a);
	close(g.b);
}

void test_uring_reissue_ptr(void)
{
	reissue(0, 16215, 16216);
}

void test_uring_reissue_sqe128(void)
{
	reissue(1, 16217, 16218);
}

/*
 * A punted command io_uring drops instead of issuing it again (an
 * IORING_OP_ASYNC_CANCEL while it waits for a worker): the copy its first
 * issue kept is freed with the engine (kmemleak on the debug kernel), and
 * the next command, first issued from a worker (IOSQE_ASYNC) in what is
 * likely the same io_uring request slot, is read afresh, not taken for the
 * dropped one's reissue.
 */
void test_uring_reissue_dropped(void)
{
	struct hixl_uring_ptr ptr[2];
	struct hixl_transfer t[2];
	struct hixl_op_desc d[2];
	struct io_uring_sqe *sqe;
	struct io_uring r;
	struct staged g;
	char fifo[64];
	int res[3] = { 1, 1, 1 }, waited;

	REQUIRE(staged_setup(&g, 16219, 16220) == 0);
	REQUIRE(ring_init(&r, 8, 0) == 0);
	REQUIRE(iowq_hold(&r, fifo, sizeof(fifo)) == 0);
	staged_prep(&g, &r, &d[0], &t[0], &ptr[0], 0, 0, NULL);
	REQUIRE(io_uring_submit(&r) == 1);
	waited = still_waiting(&r);
	sqe = io_uring_get_sqe(&r);
	REQUIRE(sqe);
	io_uring_prep_cancel64(sqe, 0, 0);
	sqe->user_data = 1;
	REQUIRE(io_uring_submit(&r) == 1);
	REQUIRE(iowq_release(fifo) == 0);
	REQUIRE(reap_held(&r, 3, res, NULL) == 0);
	printf("#   punted TRANSFER %d, ASYNC_CANCEL %d\n", res[0], res[1]);
	CHECK(waited);
	CHECK_EQ(res[0], -ECANCELED);
	CHECK_EQ(res[1], 0);

	staged_prep(&g, &r, &d[1], &t[1], &ptr[1], 64 * KiB, 2, &sqe);
	sqe->flags |= IOSQE_ASYNC;
	REQUIRE(io_uring_submit(&r) == 1);
	REQUIRE(reap_held(&r, 1, res, NULL) == 0);
	printf("#   next TRANSFER (IOSQE_ASYNC) %d\n", res[2]);
	CHECK_EQ(res[2], 0);
	CHECK_EQ(hx_first_diff(g.src + 64 * KiB, g.rb + 64 * KiB, 64 * KiB), -1);
	for (size_t i = 0; i < 64 * KiB; i++) {
		if (g.rb[i]) {
			printf("#   the dropped TRANSFER wrote byte %zu\n", i);
			ht_failures++;
			break;
		}
	}
	io_uring_queue_exit(&r);
	close(g.a);
	close(g.b);
}

const struct ht_test uring_tests[] = {
	{ "uring_decode", test_uring_decode },
	{ "uring_inflight", test_uring_inflight },
	{ "uring_vs_ioctl", test_uring_vs_ioctl },
	{ "uring_cancel", test_uring_cancel },
	{ "uring_timeout", test_uring_timeout },
	{ "uring_ring_close", test_uring_ring_close },
	{ "uring_killed", test_uring_killed },
	{ "uring_then_connect", test_uring_then_connect },
	{ "uring_cancel_race", test_uring_cancel_race },
	{ "uring_reissue_ptr", test_uring_reissue_ptr },
	{ "uring_reissue_sqe128", test_uring_reissue_sqe128 },
	{ "uring_reissue_dropped", test_uring_reissue_dropped },
	{ NULL, NULL },
};
