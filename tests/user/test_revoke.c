// SPDX-License-Identifier: GPL-2.0
/*
 * test_revoke.c - the revoking CANCEL (HIXL_CANCEL_REVOKE, kmod/cancel.c):
 * when CANCEL returns, no RDMA READ or WRITE of the cancelled batch touches
 * the caller's buffer any more.
 *
 * A 32 MiB WRITE or READ (128 descriptors of 256 KiB: more than one chain
 * of the link's 248-request window) is cancelled once bytes are seen
 * moving, through the ioctl and through io_uring.  Right after CANCEL
 * returns the test overwrites the local buffer; a WRITE's peer region must
 * then only ever hold its old bytes or the batch's (never the overwrite),
 * a READ's local buffer must keep the overwrite, checked at once, after
 * 1 s and after a later transfer.  The link is broken by the revoke (later
 * calls -ECONNABORTED), a batch of another tag queued behind ends with 0
 * or -ECONNABORTED, a new CONNECT replaces the link and carries a verified
 * transfer.  Also: the buffer unmapped right after CANCEL (KASAN in the
 * debug VM), the peer killed while the CANCEL runs, the library's
 * hixl_request_cancel() revoking and AutoConnect renewing the link, and
 * nothing left pinned at the end.  The times CANCEL took are printed (not asserted).
 *
 * Engines live on 10.77.0.1 (rxe0 in the test VM), ports 24600-24649.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hixl/hixl.h"
#include "raw.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

#define RV_LEN		(32 * MiB)	/* the batch that is cancelled */
#define RV_PIECE	(256 * KiB)	/* its descriptors */
#define RV_SMALL	(1 * MiB)	/* the transfers around it */
#define RV_TAG		0x5e70ULL
#define RV_OTHER_TAG	0x5e71ULL

void test_revoke_write_ioctl(void);
void test_revoke_read_ioctl(void);
void test_revoke_write_uring(void);
void test_revoke_read_uring(void);
void test_revoke_munmap(void);
void test_revoke_peer_gone(void);
void test_revoke_flags(void);
void test_revoke_lib(void);

struct rv {
	int a, b;
	uint16_t pb;
	unsigned char *la, *rb, *src;	/* RV_LEN each */
	unsigned char *la2, *rb2;	/* RV_SMALL each */
	struct hixl_op_desc d[RV_LEN / RV_PIECE];
	uint64_t la_handle;
};

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* RV_LEN / RV_PIECE descriptors: la + i * RV_PIECE -> rb + i * RV_PIECE. */
static void rv_descs(struct hixl_op_desc *d, const unsigned char *la, const unsigned char *rb)
{
	for (uint32_t i = 0; i < RV_LEN / RV_PIECE; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)(la + i * RV_PIECE),
					      (uintptr_t)(rb + i * RV_PIECE), RV_PIECE };
}

/*
 * The buffers of *v mapped (a and b left as they are): src filled from
 * seed, the batch's source (la for a WRITE, rb for a READ) a copy of it,
 * its destination zero, v->d the batch; 0, or -1 when a mapping failed.
 */
static int rv_buffers(struct rv *v, uint32_t op, unsigned int seed)
{
	v->la = map(RV_LEN);
	v->rb = map(RV_LEN);
	v->src = map(RV_LEN);
	v->la2 = map(RV_SMALL);
	v->rb2 = map(RV_SMALL);
	if (!v->la || !v->rb || !v->src || !v->la2 || !v->rb2)
		return -1;
	hx_fill(v->src, RV_LEN, seed);
	memcpy(op == HIXL_OP_WRITE ? v->la : v->rb, v->src, RV_LEN);
	memset(op == HIXL_OP_WRITE ? v->rb : v->la, 0, RV_LEN);
	rv_descs(v->d, v->la, v->rb);
	return 0;
}

/* Engines on pa and pb, all buffers registered, a connected; -1 on error. */
static int rv_setup(struct rv *v, uint16_t pa, uint16_t pb, uint32_t op)
{
	struct hixl_reg_mem rm;

	memset(v, 0, sizeof(*v));
	v->pb = pb;
	v->a = hx_engine(pa, 0, 0);	/* no staging pool: every descriptor on the wire */
	v->b = v->a >= 0 ? hx_engine(pb, 0, 0) : -1;
	if (v->a < 0 || v->b < 0 || rv_buffers(v, op, 0x5e7))
		return -1;
	if (reg_mem(v->a, v->la, RV_LEN, 0, &rm))
		return -1;
	v->la_handle = rm.handle;
	if (reg_mem(v->b, v->rb, RV_LEN, 0, NULL) || reg_mem(v->a, v->la2, RV_SMALL, 0, NULL) ||
	    reg_mem(v->b, v->rb2, RV_SMALL, 0, NULL))
		return -1;
	return hx_connect(v->a, pb, 5000) ? -1 : 0;
}

static void rv_down(struct rv *v)
{
	if (v->a >= 0)
		close(v->a);
	if (v->b >= 0)
		close(v->b);
	if (v->la)
		munmap(v->la, RV_LEN);
	if (v->rb)
		munmap(v->rb, RV_LEN);
	if (v->src)
		munmap(v->src, RV_LEN);
	if (v->la2)
		munmap(v->la2, RV_SMALL);
	if (v->rb2)
		munmap(v->rb2, RV_SMALL);
}

/* Where the batch's bytes land: the peer's region (WRITE) or ours (READ). */
static unsigned char *rv_dst(struct rv *v, uint32_t op)
{
	return op == HIXL_OP_WRITE ? v->rb : v->la;
}

/* Wait until bytes of the batch have landed (it is mid-flight): 0, or -1 after 60 s. */
static int rv_wait_moving(struct rv *v, uint32_t op)
{
	const unsigned char *dst = rv_dst(v, op);

	for (int i = 0; i < 60000; i++) {
		for (size_t off = 0; off < 4 * RV_PIECE; off += 4 * KiB)
			if (dst[off] || dst[off + 1] || dst[off + 2] || dst[off + 3])
				return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * After the revoke: a WRITE's peer region holds, per byte, its old value
 * (0) or the batch's (src), never the overwrite; a READ's buffer holds the
 * overwrite, whole.  Returns the bytes that had landed (WRITE) or -1.
 */
static long rv_check(struct rv *v, uint32_t op, unsigned char overwrite, const char *when)
{
	long landed = 0;

	for (size_t i = 0; i < RV_LEN; i++) {
		unsigned char c = op == HIXL_OP_WRITE ? v->rb[i] : v->la[i];

		if (op == HIXL_OP_READ) {
			if (c == overwrite)
				continue;
		} else if (c == v->src[i]) {
			landed += c != 0;
			continue;
		} else if (!c) {
			continue;
		}
		printf("#   %s: byte %zu is 0x%02x (source 0x%02x, overwrite 0x%02x)\n", when, i, c,
		       v->src[i], overwrite);
		return -1;
	}
	return landed;
}

/* The link after a revoke: broken (-ECONNABORTED), replaced by CONNECT, verified. */
static void rv_link_after(struct rv *v)
{
	struct hixl_op_desc d = { (uintptr_t)v->la2, (uintptr_t)v->rb2, RV_SMALL };
	uint32_t failed;

	CHECK_EQ(hx_xfer(v->a, v->pb, HIXL_OP_WRITE, &d, 1, 10000, &failed), -ECONNABORTED);
	CHECK_EQ(hx_connect(v->a, v->pb, 5000), 0);
	hx_fill(v->la2, RV_SMALL, 0x11);
	CHECK_EQ(hx_xfer(v->a, v->pb, HIXL_OP_WRITE, &d, 1, 30000, &failed), 0);
	CHECK_EQ(hx_first_diff(v->la2, v->rb2, RV_SMALL), -1);
	hx_fill(v->rb2, RV_SMALL, 0x22);
	CHECK_EQ(hx_xfer(v->a, v->pb, HIXL_OP_READ, &d, 1, 30000, &failed), 0);
	CHECK_EQ(hx_first_diff(v->la2, v->rb2, RV_SMALL), -1);
}

/*
 * What every revoke leaves, checked 1 s later and after the link's next
 * transfers (rv_link_after()): the buffers as rv_check() wants them.
 */
static void rv_after(struct rv *v, uint32_t op, unsigned char overwrite)
{
	usleep(1000 * 1000);
	CHECK(rv_check(v, op, overwrite, "1 s later") >= 0);
	rv_link_after(v);
	CHECK(rv_check(v, op, overwrite, "after the next transfers") >= 0);
}

struct rv_xfer {
	int fd;
	uint16_t port;
	uint32_t op, n;
	const struct hixl_op_desc *d;
	uint64_t tag;
	long ret;
	uint32_t failed;
};

static void *rv_xfer_thread(void *arg)
{
	struct rv_xfer *x = arg;
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = hx_name(x->port);
	t.op = x->op;
	t.descs = (uintptr_t)x->d;
	t.count = x->n;
	t.timeout_ms = 120000;
	t.tag = x->tag;
	x->ret = xioctl(x->fd, HIXL_IOC_TRANSFER, &t);
	x->failed = t.failed;
	return NULL;
}

static long rv_cancel_ioctl(int fd, uint64_t tag, struct hixl_cancel *c, double *ms)
{
	struct timespec t0;
	long ret;

	memset(c, 0, sizeof(*c));
	c->tag = tag;
	c->flags = HIXL_CANCEL_REVOKE;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = xioctl(fd, HIXL_IOC_CANCEL, c);
	*ms = hx_ms_since(&t0);
	return ret;
}

static int rv_have_revoke(void)
{
	struct hixl_info info;
	int fd = open_dev();

	memset(&info, 0, sizeof(info));
	if (fd < 0 || xioctl(fd, HIXL_IOC_GET_INFO, &info))
		return 0;
	close(fd);
	return !!(info.features & HIXL_FEAT_CANCEL_REVOKE);
}

/* A TRANSFER ioctl in a thread, revoked mid-flight by the CANCEL ioctl. */
static void revoke_ioctl(uint32_t op, uint16_t pa, uint16_t pb)
{
	unsigned char overwrite = op == HIXL_OP_WRITE ? 0xee : 0x5a;
	long pin0 = vm_pin_kb(), landed;
	struct hixl_cancel c;
	struct rv_xfer x;
	pthread_t th;
	struct rv v;
	double ms;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	REQUIRE(rv_setup(&v, pa, pb, op) == 0);
	x = (struct rv_xfer){ v.a, pb, op, RV_LEN / RV_PIECE, v.d, RV_TAG, 1, 0 };
	REQUIRE(pthread_create(&th, NULL, rv_xfer_thread, &x) == 0);
	REQUIRE(rv_wait_moving(&v, op) == 0);
	CHECK_EQ(rv_cancel_ioctl(v.a, RV_TAG, &c, &ms), 0);
	memset(v.la, overwrite, RV_LEN);	/* the buffer is ours again */
	printf("#   %s %llu MiB: revoking CANCEL took %.1f ms (count %u, links broken %u)\n",
	       op == HIXL_OP_WRITE ? "WRITE" : "READ", RV_LEN / MiB, ms, c.count, c.broken);
	pthread_join(th, NULL);
	if (x.ret == 0 && c.count == 0) {
		rv_down(&v);
		SKIP("the batch completed before the CANCEL reached it");
	}
	CHECK_EQ(c.count, 1);
	CHECK_EQ(c.broken, 1);
	CHECK_EQ(x.ret, -ECANCELED);
	CHECK(x.failed < RV_LEN / RV_PIECE);
	landed = rv_check(&v, op, overwrite, "at CANCEL's return");
	CHECK(landed >= 0);
	if (op == HIXL_OP_WRITE)
		printf("#   %ld non-zero source bytes had landed at the peer\n", landed);
	rv_after(&v, op, overwrite);
	rv_down(&v);
	CHECK_EQ(vm_pin_kb(), pin0);
}

void test_revoke_write_ioctl(void)
{
	revoke_ioctl(HIXL_OP_WRITE, 24600, 24601);
}

void test_revoke_read_ioctl(void)
{
	revoke_ioctl(HIXL_OP_READ, 24602, 24603);
}

static int rv_ring(struct io_uring *r)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(8, r, &p);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP("io_uring is not available (io_uring_disabled?)");
	return ret;
}

static struct hixl_transfer rv_transfer(uint16_t port, uint32_t op, const struct hixl_op_desc *d,
					uint32_t n, uint64_t tag)
{
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = hx_name(port);
	t.op = op;
	t.descs = (uintptr_t)d;
	t.count = n;
	t.timeout_ms = 120000;
	t.tag = tag;
	return t;
}

/* One SQE128 URING_CMD on @r; -1 when the ring is full. */
static int rv_cmd(struct io_uring *r, int fd, uint32_t op, const void *arg, size_t len,
		  uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (!sqe)
		return -1;
	hixl_raw_uring_cmd(sqe, 128, fd, op, arg, len, user_data);
	return 0;
}

/* Wait for the CQE of user_data want, recording the others in res[]; -1 after 120 s. */
static int rv_reap_until(struct io_uring *r, uint64_t want, int *res, bool *seen)
{
	for (;;) {
		struct __kernel_timespec ts = { .tv_sec = 120 };
		struct io_uring_cqe *cqe;
		uint64_t ud;

		if (io_uring_wait_cqe_timeout(r, &cqe, &ts))
			return -1;
		ud = cqe->user_data;
		if (ud < 3) {
			res[ud] = cqe->res;
			seen[ud] = true;
		}
		io_uring_cqe_seen(r, cqe);
		if (ud == want)
			return 0;
	}
}

/*
 * Through io_uring: the big batch (0) and a small one of another tag (1)
 * queued behind it on the same link; the revoking CANCEL (2) as a URING_CMD
 * (io_uring hands it to a worker: it waits for the flush).
 */
static void revoke_uring(uint32_t op, uint16_t pa, uint16_t pb)
{
	unsigned char overwrite = op == HIXL_OP_WRITE ? 0xee : 0x5a;
	struct hixl_op_desc d2 = { 0 };
	struct hixl_transfer t0, t1;
	long pin0 = vm_pin_kb();
	bool seen[3] = { false };
	int res[3] = { 1, 1, 1 };
	struct hixl_cancel c;
	struct timespec ts;
	struct io_uring r;
	struct rv v;
	double ms;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	REQUIRE(rv_setup(&v, pa, pb, op) == 0);
	REQUIRE(rv_ring(&r) == 0);
	d2 = (struct hixl_op_desc){ (uintptr_t)v.la2, (uintptr_t)v.rb2, RV_SMALL };
	t0 = rv_transfer(pb, op, v.d, RV_LEN / RV_PIECE, RV_TAG);
	t1 = rv_transfer(pb, HIXL_OP_WRITE, &d2, 1, RV_OTHER_TAG);
	REQUIRE(rv_cmd(&r, v.a, HIXL_IOC_TRANSFER, &t0, sizeof(t0), 0) == 0);
	REQUIRE(rv_cmd(&r, v.a, HIXL_IOC_TRANSFER, &t1, sizeof(t1), 1) == 0);
	REQUIRE(io_uring_submit(&r) == 2);
	REQUIRE(rv_wait_moving(&v, op) == 0);
	memset(&c, 0, sizeof(c));
	c.tag = RV_TAG;
	c.flags = HIXL_CANCEL_REVOKE;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	REQUIRE(rv_cmd(&r, v.a, HIXL_IOC_CANCEL, &c, sizeof(c), 2) == 0);
	REQUIRE(io_uring_submit(&r) == 1);
	REQUIRE(rv_reap_until(&r, 2, res, seen) == 0);
	ms = hx_ms_since(&ts);
	memset(v.la, overwrite, RV_LEN);	/* the buffer is ours again */
	printf("#   io_uring %s %llu MiB: revoking CANCEL took %.1f ms (count %d)\n",
	       op == HIXL_OP_WRITE ? "WRITE" : "READ", RV_LEN / MiB, ms, res[2]);
	if (!seen[0] || !seen[1])
		REQUIRE(rv_reap_until(&r, !seen[0] ? 0 : 1, res, seen) == 0);
	if (!seen[0] || !seen[1])
		REQUIRE(rv_reap_until(&r, !seen[0] ? 0 : 1, res, seen) == 0);
	if (res[0] == 0 && res[2] == 0) {
		io_uring_queue_exit(&r);
		rv_down(&v);
		SKIP("the batch completed before the CANCEL reached it");
	}
	CHECK_EQ(res[2], 1);
	CHECK_EQ(res[0], -ECANCELED);
	printf("#   the batch of another tag queued behind it: %d\n", res[1]);
	CHECK(res[1] == 0 || res[1] == -ECONNABORTED);
	CHECK(rv_check(&v, op, overwrite, "at CANCEL's CQE") >= 0);
	rv_after(&v, op, overwrite);
	io_uring_queue_exit(&r);
	rv_down(&v);
	CHECK_EQ(vm_pin_kb(), pin0);
}

void test_revoke_write_uring(void)
{
	revoke_uring(HIXL_OP_WRITE, 24604, 24605);
}

void test_revoke_read_uring(void)
{
	revoke_uring(HIXL_OP_READ, 24606, 24607);
}

/*
 * The READ's buffer unmapped the moment CANCEL returns, then deregistered:
 * no request of the batch writes into it after (the debug VM's KASAN and
 * the guest log check say so), and nothing stays pinned.
 */
void test_revoke_munmap(void)
{
	long pin0 = vm_pin_kb();
	struct hixl_cancel c;
	struct rv_xfer x;
	pthread_t th;
	struct rv v;
	double ms;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	REQUIRE(rv_setup(&v, 24608, 24609, HIXL_OP_READ) == 0);
	x = (struct rv_xfer){ v.a, 24609, HIXL_OP_READ, RV_LEN / RV_PIECE, v.d, RV_TAG, 1, 0 };
	REQUIRE(pthread_create(&th, NULL, rv_xfer_thread, &x) == 0);
	REQUIRE(rv_wait_moving(&v, HIXL_OP_READ) == 0);
	CHECK_EQ(rv_cancel_ioctl(v.a, RV_TAG, &c, &ms), 0);
	CHECK_EQ(munmap(v.la, RV_LEN), 0);
	v.la = NULL;
	pthread_join(th, NULL);
	CHECK(x.ret == -ECANCELED || (x.ret == 0 && c.count == 0));
	CHECK_EQ(dereg_mem(v.a, v.la_handle), 0);
	usleep(500 * 1000);
	rv_link_after(&v);
	rv_down(&v);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/*
 * The peer engine's process killed while the revoking CANCEL runs: CANCEL
 * still returns within its bound, the batch ends (cancelled, or with the
 * link's error when the peer's going came first), nothing stays pinned.
 */
void test_revoke_peer_gone(void)
{
	long pin0 = vm_pin_kb();
	unsigned char *la, *rb;
	struct hixl_op_desc d[RV_LEN / RV_PIECE];
	int pfd[2], status, a;
	struct hixl_cancel c;
	struct rv_xfer x;
	pthread_t th;
	pid_t pid;
	double ms;
	char ok;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	la = map(RV_LEN);
	rb = map(RV_LEN);
	REQUIRE(la && rb && pipe(pfd) == 0);
	hx_fill(la, RV_LEN, 3);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		int b = hx_engine(24611, 0, 0);

		ok = b >= 0 && !reg_mem(b, rb, RV_LEN, 0, NULL);
		if (write(pfd[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	REQUIRE(read(pfd[0], &ok, 1) == 1 && ok);
	a = hx_engine(24610, 0, 0);
	REQUIRE(a >= 0);
	REQUIRE(reg_mem(a, la, RV_LEN, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 24611, 5000) == 0);
	rv_descs(d, la, rb);
	x = (struct rv_xfer){ a, 24611, HIXL_OP_WRITE, RV_LEN / RV_PIECE, d, RV_TAG, 1, 0 };
	REQUIRE(pthread_create(&th, NULL, rv_xfer_thread, &x) == 0);
	usleep(200 * 1000);
	kill(pid, SIGKILL);
	CHECK_EQ(rv_cancel_ioctl(a, RV_TAG, &c, &ms), 0);
	printf("#   CANCEL with the peer killed: %.1f ms (count %u, links broken %u)\n", ms,
	       c.count, c.broken);
	CHECK(ms < HIXL_REVOKE_FLUSH_MS + 1000);
	pthread_join(th, NULL);
	printf("#   the batch ended with %ld\n", x.ret);
	CHECK(x.ret == -ECANCELED || x.ret == -ECONNRESET || x.ret == -ECONNABORTED ||
	      x.ret == -EHOSTDOWN || x.ret == 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	close(a);
	close(pfd[0]);
	close(pfd[1]);
	munmap(la, RV_LEN);
	munmap(rb, RV_LEN);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/* The flag's checks, and a revoking CANCEL with nothing on the wire breaks nothing. */
void test_revoke_flags(void)
{
	struct hixl_op_desc d;
	struct hixl_cancel c;
	uint32_t failed;
	struct rv v;
	double ms;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	REQUIRE(rv_setup(&v, 24612, 24613, HIXL_OP_WRITE) == 0);
	memset(&c, 0, sizeof(c));
	c.tag = RV_TAG;
	c.flags = HIXL_CANCEL_REVOKE << 1;
	CHECK_EQ(xioctl(v.a, HIXL_IOC_CANCEL, &c), -EINVAL);
	c.flags = HIXL_CANCEL_REVOKE;
	c.reserved0 = 1;
	CHECK_EQ(xioctl(v.a, HIXL_IOC_CANCEL, &c), -EINVAL);
	c.reserved0 = 0;
	c.broken = 7;		/* out only */
	CHECK_EQ(xioctl(v.a, HIXL_IOC_CANCEL, &c), 0);
	CHECK_EQ(c.count, 0);
	CHECK_EQ(c.broken, 0);
	CHECK_EQ(rv_cancel_ioctl(v.a, RV_TAG, &c, &ms), 0);
	CHECK_EQ(c.broken, 0);
	/* the link was not touched */
	d = (struct hixl_op_desc){ (uintptr_t)v.la2, (uintptr_t)v.rb2, RV_SMALL };
	hx_fill(v.la2, RV_SMALL, 9);
	CHECK_EQ(hx_xfer(v.a, v.pb, HIXL_OP_WRITE, &d, 1, 30000, &failed), 0);
	CHECK_EQ(hx_first_diff(v.la2, v.rb2, RV_SMALL), -1);
	rv_down(&v);
}

/* the engine's counters through the library: link_resets, connects */
static struct hixl_xfer_stats rv_lib_stats(struct hixl_engine *e)
{
	struct hixl_stats st;

	memset(&st, 0, sizeof(st));
	if (hixl_engine_stats(e, &st))
		memset(&st, 0xff, sizeof(st));
	return st.xfer;
}

/*
 * hixl_request_cancel() on an AutoConnect engine with one request running
 * to the peer: it revokes (the link breaks: link_resets + 1), the buffer is
 * the caller's when it returns, and the next request renews the link by
 * itself (connects + 1) and completes.
 */
void test_revoke_lib(void)
{
	static const struct hixl_option opts[] = {
		{ HIXL_OPTION_BUFFER_POOL, "0:0" }, { HIXL_OPTION_AUTO_CONNECT, "1" },
	};
	struct hixl_mem_desc md;
	struct hixl_xfer_stats s0, s1;
	struct hixl_engine *a, *b;
	enum hixl_transfer_status st;
	struct hixl_request *r;
	struct hixl_op_desc d2;
	long pin0 = vm_pin_kb();
	struct timespec t0;
	size_t failed = 0;
	uint64_t h;
	struct rv v;
	double ms;

	if (!rv_have_revoke())
		SKIP("the module has no HIXL_FEAT_CANCEL_REVOKE");
	memset(&v, 0, sizeof(v));
	v.a = v.b = -1;
	a = hx_lib_engine(HX_IP ":24614", opts, 2);
	b = hx_lib_engine(HX_IP ":24615", opts, 2);
	REQUIRE(a && b);
	REQUIRE(rv_buffers(&v, HIXL_OP_WRITE, 0x11b) == 0);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)v.la, .len = RV_LEN };
	REQUIRE(hixl_register_mem(a, &md, HIXL_MEM_HOST, &h) == 0);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)v.la2, .len = RV_SMALL };
	REQUIRE(hixl_register_mem(a, &md, HIXL_MEM_HOST, &h) == 0);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)v.rb, .len = RV_LEN };
	REQUIRE(hixl_register_mem(b, &md, HIXL_MEM_HOST, &h) == 0);
	md = (struct hixl_mem_desc){ .addr = (uintptr_t)v.rb2, .len = RV_SMALL };
	REQUIRE(hixl_register_mem(b, &md, HIXL_MEM_HOST, &h) == 0);

	REQUIRE(hixl_transfer_async(a, HX_IP ":24615", HIXL_OP_WRITE, v.d, RV_LEN / RV_PIECE,
				    &HX_TARGS(120000, NULL), &r) == 0);
	REQUIRE(rv_wait_moving(&v, HIXL_OP_WRITE) == 0);
	s0 = rv_lib_stats(a);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_request_cancel(a, r), 0);
	ms = hx_ms_since(&t0);
	memset(v.la, 0xee, RV_LEN);
	s1 = rv_lib_stats(a);
	printf("#   hixl_request_cancel() of a 32 MiB WRITE: %.1f ms\n", ms);
	CHECK_EQ(hixl_get_transfer_status(a, r, &st), 0);
	if (st == HIXL_TRANSFER_COMPLETED) {
		hixl_request_free(r);
		hixl_engine_finalize(a);
		hixl_engine_finalize(b);
		rv_down(&v);
		SKIP("the request completed before the cancel reached it");
	}
	CHECK_EQ(st, HIXL_TRANSFER_FAILED);
	CHECK_EQ(hixl_request_result(r, &failed), -ECANCELED);
	CHECK(failed < RV_LEN / RV_PIECE);
	CHECK_EQ(s1.link_resets, s0.link_resets + 1);	/* it revoked */
	CHECK(rv_check(&v, HIXL_OP_WRITE, 0xee, "at hixl_request_cancel()'s return") >= 0);
	usleep(1000 * 1000);
	CHECK(rv_check(&v, HIXL_OP_WRITE, 0xee, "1 s later") >= 0);
	hixl_request_free(r);

	/* the next request renews the link (AutoConnect) and completes */
	hx_fill(v.la2, RV_SMALL, 0x2b);
	d2 = (struct hixl_op_desc){ (uintptr_t)v.la2, (uintptr_t)v.rb2, RV_SMALL };
	REQUIRE(hixl_transfer_async(a, HX_IP ":24615", HIXL_OP_WRITE, &d2, 1,
				    &HX_TARGS(30000, NULL), &r) == 0);
	CHECK_EQ(hixl_request_wait(a, r, 60000, &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
	CHECK_EQ(hx_first_diff(v.la2, v.rb2, RV_SMALL), -1);
	CHECK_EQ(rv_lib_stats(a).connects, s0.connects + 1);
	CHECK(rv_check(&v, HIXL_OP_WRITE, 0xee, "after the next request") >= 0);
	hixl_request_free(r);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	rv_down(&v);
	CHECK_EQ(vm_pin_kb(), pin0);
}

const struct ht_test revoke_tests[] = {
	{ "revoke_flags", test_revoke_flags },
	{ "revoke_write_ioctl", test_revoke_write_ioctl },
	{ "revoke_read_ioctl", test_revoke_read_ioctl },
	{ "revoke_write_uring", test_revoke_write_uring },
	{ "revoke_read_uring", test_revoke_read_uring },
	{ "revoke_munmap", test_revoke_munmap },
	{ "revoke_peer_gone", test_revoke_peer_gone },
	{ "revoke_lib", test_revoke_lib },
	{ NULL, NULL },
};
