// SPDX-License-Identifier: GPL-2.0
/*
 * test_cancel_matrix.c - every kind of cancel on every path of a TRANSFER,
 * for both submitters: one table of cells, each its own test (and TAP
 * line), named cancel_<kind>_<path>_<submitter>.
 *
 * Kinds: tag (HIXL_IOC_CANCEL by tag, draining), revoke (HIXL_CANCEL_REVOKE),
 * ring (io_uring's own cancelation: IORING_OP_ASYNC_CANCEL, then the ring's
 * exit), kill (SIGKILL to a process blocked in the TRANSFER ioctl).
 * Paths: direct (the link's queue, no staging pool), staged (the direct
 * pieces of a TRANSFER that also has a staged descriptor: what a cancel
 * reaches there), striped (two rails, rxe0 and rxe1), local (the same-host
 * copy).  Submitters: ioctl (TRANSFER from another thread, or the killed
 * child) and uring (URING_CMD on an SQE128/CQE32 ring); ring is io_uring's
 * only, kill the ioctl's only: 24 cells.
 *
 * In flight, certainly: a batch is held by the debug kernel's test delays
 * (kmod/testhook.c), so no cell races the batch's end.  RDMA paths: the
 * handler of the batch's first chain completion sleeps in xwr_done_ms
 * (once: the delay is taken by the first completion, xq.c) before it reads
 * the completion, whether the send CQ's worker or the spinning ioctl
 * caller runs it (scq.c); the batch's requests have executed (their bytes
 * landed, checked) but the batch has not ended, so it is on the wire when
 * it is cancelled.  Striped: each rail's link has its own send CQ, so one
 * rail's share is held and the other's completes (waited for: the engine's
 * direct bytes move).  Local: the copy waits in local_run_ms, listed for
 * CANCEL, before its first chunk.  The hold's start is seen in the kernel
 * log.  Without the test delays (stock
 * kernels) every cell SKIPs; ring also SKIPs before Linux 6.7 (io_uring
 * cancels a URING_CMD at ring exit from then on).
 *
 * Each cell asserts: the cancel's own result (CANCEL: 0, count 1, links
 * broken 1 for a revoke with requests on the wire, 0 otherwise; ASYNC_CANCEL:
 * -ENOENT, io_uring does not reach a queued URING_CMD, or the batch's end);
 * the TRANSFER's -ECANCELED with failed 0 (nothing was known complete;
 * striped: below the count), or for kill that the process stays in the
 * ioctl while its requests are on the wire and is gone after; what must
 * not have moved (a staged descriptor, a local copy's destination); the
 * engine's cancels counter + 1 (the ring's lost CQE); then the link: a
 * draining cancel leaves it up (a verified transfer on it), a revoking one
 * broke it (-ECONNABORTED until CONNECT replaces it, then verified); a kill
 * leaves the peer engine working for a new engine; nothing stays pinned.
 *
 * Also covered elsewhere, with other batches and timing: test_revoke.c
 * (revoke x direct x both, 32 MiB READ/WRITE byte checks), test_rail_xfer.c
 * rail_xfer_cancel (tag and revoke x striped x uring), test_uring_async.c
 * (tag, revoke x local x uring; a killed io_uring process), test_local.c
 * local_cancel (tag x local x ioctl), test_uring.c uring_cancel, uring_killed.
 *
 * Engines on 10.77.0.1 (and 10.78.0.1), ports 25400-25471.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"
#include "tests.h"
#include "util.h"
#include "local_util.h"
#include "rail_util.h"

#define CM_PIECE	(256 * 1024)	/* a direct descriptor: not staged by size */
#define CM_N		8		/* direct descriptors */
#define CM_LEN		(CM_N * CM_PIECE)
#define CM_SLEN		(64 * 1024)	/* the staged descriptor (unregistered source) */
#define CM_HOLD_MS	4000		/* the test delay; below HIXL_REVOKE_FLUSH_MS */
#define CM_TAG		0xca9cULL
#define CM_TMO_MS	60000
#define CM_PORT0	25400		/* three ports a cell */

enum cm_kind { CK_TAG, CK_REVOKE, CK_RING, CK_KILL };
enum cm_path { CP_DIRECT, CP_STAGED, CP_STRIPED, CP_LOCAL };
enum cm_sub { CS_IOCTL, CS_URING };

static const char *const cm_kinds[] = { "tag", "revoke", "ring", "kill" };
static const char *const cm_paths[] = { "direct", "staged", "striped", "local" };

/* one side's memory: A's source and staged source, B's destination */
struct cm_mem {
	uint8_t *la, *ua, *rb;
	struct hixl_op_desc d[CM_N + 1];
	uint32_t n;
};

struct cm {
	enum cm_kind k;
	enum cm_path p;
	enum cm_sub s;
	uint16_t pa, pb;
	int a, b, kmsg;
	struct cm_mem m;
	struct timespec hold;	/* when the test delay began */
};

static int cm_map(struct cm_mem *m, enum cm_path p)
{
	m->la = hx_map(CM_LEN);
	m->ua = hx_map(CM_SLEN);
	m->rb = hx_map(CM_LEN + CM_SLEN);
	if (!m->la || !m->ua || !m->rb)
		return -1;
	for (uint32_t i = 0; i < CM_N; i++)
		m->d[i] = (struct hixl_op_desc){ (uintptr_t)(m->la + i * CM_PIECE),
						 (uintptr_t)(m->rb + i * CM_PIECE), CM_PIECE };
	m->n = CM_N;
	if (p == CP_STAGED)	/* unregistered: always staged, after the direct pieces */
		m->d[m->n++] = (struct hixl_op_desc){ (uintptr_t)m->ua, (uintptr_t)(m->rb + CM_LEN),
						      CM_SLEN };
	return 0;
}

static void cm_unmap(struct cm_mem *m)
{
	if (m->la)
		munmap(m->la, CM_LEN);
	if (m->ua)
		munmap(m->ua, CM_SLEN);
	if (m->rb)
		munmap(m->rb, CM_LEN + CM_SLEN);
}

/* the sources from @seed (the same bytes in any process), the destination zero */
static void cm_prime(struct cm_mem *m, unsigned int seed)
{
	hx_fill(m->la, CM_LEN, seed);
	hx_fill(m->ua, CM_SLEN, seed + 1);
	memset(m->rb, 0, CM_LEN + CM_SLEN);
}

/* every descriptor's bytes are at B */
static int cm_arrived(const struct cm_mem *m)
{
	return hx_first_diff(m->la, m->rb, CM_LEN) == -1 &&
	       (m->n == CM_N || hx_first_diff(m->ua, m->rb + CM_LEN, CM_SLEN) == -1);
}

static int cm_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/* an engine for @p on HX_IP:@port; @a: the submitting side: fd or < 0 */
static int cm_engine(enum cm_path p, uint16_t port, int a)
{
	switch (p) {
	case CP_DIRECT:
		return hx_engine(port, 0, 0);
	case CP_STAGED:
		return hx_engine(port, 4, 1);
	case CP_STRIPED:
		return ru_engine(port, 1, hixl_raw_transport());
	case CP_LOCAL:
		return lu_eng(port, a ? HIXL_TRANSPORT_LOCAL : HIXL_TRANSPORT_AUTO);
	}
	return -1;
}

/*
 * A (@a, its memory @m) connected to B on @pb, and a first WRITE of the
 * batch (both rails moving bytes, striped): 0 or -1.  @verify: B's memory
 * is this process's, the bytes are checked (a forked child's copy of it is
 * not what B registered).
 */
static int cm_link(int a, uint16_t pb, enum cm_path p, struct cm_mem *m, int verify)
{
	uint64_t e0 = get_stats(a).xfer.write_direct_bytes;
	uint32_t failed = 0;
	long ret;

	if (reg_mem(a, m->la, CM_LEN, 0, NULL) || hx_connect(a, pb, 10000))
		return -1;
	cm_prime(m, 7);
	ret = hx_xfer(a, pb, HIXL_OP_WRITE, m->d, m->n, CM_TMO_MS, &failed);
	if (ret || (verify && !cm_arrived(m))) {
		printf("#   the first WRITE: %ld, failed %u%s\n", ret, failed,
		       ret ? "" : ", its bytes did not arrive");
		return -1;
	}
	if (p == CP_STRIPED) {	/* both rails moved bytes: rail 0's are the primary link's */
		uint64_t rail0 = 0, all = get_stats(a).xfer.write_direct_bytes - e0;
		struct hixl_link_stat o;

		if (!lu_link0(a, &o))
			rail0 = o.xfer.write_direct_bytes;
		if (all <= rail0 || !rail0) {
			printf("#   the first WRITE was not striped (rail 0 %llu of %llu bytes)\n",
			       (unsigned long long)rail0, (unsigned long long)all);
			return -1;
		}
	}
	return 0;
}

static const char *cm_hook(enum cm_path p)
{
	return p == CP_LOCAL ? "local_run_ms" : "xwr_done_ms";
}

/*
 * After the batch's submission: 0 once it waits in its path's test delay
 * (RDMA: the handler of a chain's completion, its requests executed, the
 * batch not ended; local: the copy, before its first chunk), -1.
 */
static int cm_hold_wait(struct cm *c)
{
	char line[64];
	int in;

	snprintf(line, sizeof(line), "test delay %s", cm_hook(c->p));
	in = hx_kmsg_wait(c->kmsg, line, 10000);
	hx_test_delay(cm_hook(c->p), 0);	/* nothing else is held */
	clock_gettime(CLOCK_MONOTONIC, &c->hold);
	if (!in)
		printf("#   the batch did not reach the test delay %s\n", cm_hook(c->p));
	return in ? 0 : -1;
}

/* ms left of the hold */
static double cm_left(const struct cm *c)
{
	return CM_HOLD_MS - hx_ms_since(&c->hold);
}

/*
 * RDMA: the batch is on the wire: every direct byte landed at B (striped:
 * and the other rail's share ended, the engine's direct bytes moved past @e0),
 * within the hold.  0 or -1.
 */
static int cm_on_wire(struct cm *c, uint64_t e0)
{
	while (cm_left(c) > 500) {
		int landed = hx_first_diff(c->m.la, c->m.rb, CM_LEN) == -1;

		if (landed && (c->p != CP_STRIPED || get_stats(c->a).xfer.write_direct_bytes > e0))
			return 0;
		usleep(2000);
	}
	printf("#   the batch's bytes did not land within the hold\n");
	return -1;
}

static void cm_skip_unless(int fd, uint64_t feat, const char *what)
{
	static char why[160];

	if ((ru_features(fd) & feat) != feat) {
		snprintf(why, sizeof(why), "the module has no %s", what);
		SKIP(why);
	}
}

/* SKIP a cell this module, kernel or VM cannot run: 0, or -1 (printed) */
static int cm_need(enum cm_kind k, enum cm_path p)
{
	static char why[256];
	struct utsname u;
	int fd = open_dev(), maj = 0, min = 0;

	if (fd < 0)
		return -1;
	cm_skip_unless(fd, HIXL_FEAT_CANCEL | HIXL_FEAT_TRANSFER, "CANCEL");
	if (k == CK_REVOKE)
		cm_skip_unless(fd, HIXL_FEAT_CANCEL_REVOKE, "HIXL_FEAT_CANCEL_REVOKE");
	if (p == CP_LOCAL)
		cm_skip_unless(fd, HIXL_FEAT_LOCAL, "HIXL_FEAT_LOCAL (same-host links)");
	if (p == CP_STRIPED && ru_need(fd, HIXL_FEAT_RAIL_STRIPE | HIXL_FEAT_RAIL_LINKS,
				       "HIXL_FEAT_RAIL_STRIPE/RAIL_LINKS"))
		return -1;
	close(fd);
	if (hx_test_delay(cm_hook(p), 0)) {
		snprintf(why, sizeof(why),
			 "no debugfs hixl/test/%s (the module's test delays exist only against a kernel with KUnit): nothing holds a batch in flight",
			 cm_hook(p));
		SKIP(why);
	}
	if (k == CK_RING && (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2 ||
			     maj < 6 || (maj == 6 && min < 7)))
		SKIP("io_uring cancels a URING_CMD at ring exit from Linux 6.7 on (io_uring_cmd_mark_cancelable())");
	return 0;
}

static int cm_ring(struct io_uring *r)
{
	struct io_uring_params pr;
	int ret;

	memset(&pr, 0, sizeof(pr));
	pr.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(8, r, &pr);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP("io_uring is not available (io_uring_disabled?)");
	return ret;
}

#define CM_UD_XFER	1
#define CM_UD_CANCEL	2

/* the CQE of @ud within @ms: its res and big_cqe[0]; -1 when none came */
static int cm_cqe(struct io_uring *r, uint64_t ud, int ms, int *res, uint32_t *failed)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < ms) {
		struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000000L };
		struct io_uring_cqe *cqe;
		int found;

		if (io_uring_wait_cqe_timeout(r, &cqe, &ts))
			continue;
		found = cqe->user_data == ud;
		if (found) {
			*res = cqe->res;
			*failed = (uint32_t)cqe->big_cqe[0];
		}
		io_uring_cqe_seen(r, cqe);
		if (found)
			return 0;
	}
	return -1;
}

/*
 * The link after the cancel: a draining one (or a revoke with nothing on
 * the wire) left it up; a revoking one broke it: -ECONNABORTED until a
 * CONNECT replaces it.  Then a verified WRITE of every descriptor.
 */
static void cm_after(struct cm *c, int broken)
{
	uint32_t failed = 0;
	long ret;

	cm_prime(&c->m, 23);
	if (broken) {
		ret = hx_xfer(c->a, c->pb, HIXL_OP_WRITE, c->m.d, c->m.n, CM_TMO_MS, &failed);
		printf("#   the next WRITE on the revoked link: %ld\n", ret);
		/*
		 * striped: the other rail's link was not on the wire and
		 * carries it alone; the revoked one was the primary (CONNECT
		 * replaces it) or rail 1's (the primary is up: -EISCONN)
		 */
		if (c->p == CP_STRIPED && ret == 0) {
			CHECK(cm_arrived(&c->m));
			ret = hx_connect(c->a, c->pb, 10000);
			CHECK(ret == 0 || ret == -EISCONN);
		} else {
			CHECK_EQ(ret, -ECONNABORTED);
			CHECK_EQ(hx_connect(c->a, c->pb, 10000), 0);
		}
		cm_prime(&c->m, 29);
	}
	CHECK_EQ(hx_xfer(c->a, c->pb, HIXL_OP_WRITE, c->m.d, c->m.n, CM_TMO_MS, &failed), 0);
	CHECK(cm_arrived(&c->m));
}

/* the cancels of kinds tag, revoke and ring, on engines of this process */
static void cm_run(struct cm *c)
{
	struct lu_bg x = { 0 };
	struct hixl_transfer t;
	struct hixl_cancel cn;
	struct io_uring r;
	int ring = 0, res = 1, broken = 0;
	uint32_t failed = ~0U;
	uint64_t e0, c0;
	pthread_t th;

	if (c->p == CP_STAGED)
		REQUIRE(hx_stage_by_size() == 0);
	c->a = cm_engine(c->p, c->pa, 1);
	c->b = cm_engine(c->p, c->pb, 0);
	REQUIRE(c->a >= 0 && c->b >= 0);
	REQUIRE(reg_mem(c->b, c->m.rb, CM_LEN + CM_SLEN, 0, NULL) == 0);
	REQUIRE(cm_link(c->a, c->pb, c->p, &c->m, 1) == 0);
	if (c->s == CS_URING) {
		REQUIRE(cm_ring(&r) == 0);
		ring = 1;
	}
	cm_prime(&c->m, 11);
	e0 = get_stats(c->a).xfer.write_direct_bytes;
	c0 = get_stats(c->a).xfer.cancels;
	REQUIRE(hx_test_delay(cm_hook(c->p), CM_HOLD_MS) == 0);

	/* the batch */
	memset(&t, 0, sizeof(t));
	t.remote = hx_name(c->pb);
	t.op = HIXL_OP_WRITE;
	t.descs = (uintptr_t)c->m.d;
	t.count = c->m.n;
	t.timeout_ms = CM_TMO_MS;
	t.tag = CM_TAG;
	if (c->s == CS_IOCTL) {
		x = (struct lu_bg){ .fd = c->a, .remote = t.remote, .op = t.op, .d = c->m.d,
				    .n = c->m.n, .timeout_ms = CM_TMO_MS, .tag = CM_TAG, .ret = 1 };
		REQUIRE(pthread_create(&th, NULL, lu_bg_run, &x) == 0);
	} else {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r);

		REQUIRE(sqe);
		hixl_raw_uring_cmd(sqe, 128, c->a, HIXL_IOC_TRANSFER, &t, sizeof(t), CM_UD_XFER);
		REQUIRE(io_uring_submit(&r) == 1);
	}
	CHECK_EQ(cm_hold_wait(c), 0);
	if (c->p != CP_LOCAL)
		CHECK_EQ(cm_on_wire(c, e0), 0);
	/* in flight: not ended */
	if (c->s == CS_IOCTL) {
		CHECK_EQ(x.ret, 1);
	} else {
		struct io_uring_cqe *cqe;

		CHECK(io_uring_peek_cqe(&r, &cqe) == -EAGAIN);
	}

	/* the cancel */
	if (c->k == CK_TAG || c->k == CK_REVOKE) {
		struct timespec t0;

		memset(&cn, 0, sizeof(cn));
		cn.tag = CM_TAG;
		cn.flags = c->k == CK_REVOKE ? HIXL_CANCEL_REVOKE : 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK_EQ(xioctl(c->a, HIXL_IOC_CANCEL, &cn), 0);
		printf("#   CANCEL: count %u, links broken %u, %.0f ms (%.0f ms of the hold left)\n",
		       cn.count, cn.broken, hx_ms_since(&t0), cm_left(c));
		CHECK_EQ(cn.count, 1);
		/* a copy has nothing on the wire; the other rail's share had ended */
		CHECK_EQ(cn.broken, c->k == CK_REVOKE && c->p != CP_LOCAL);
		broken = cn.broken;
	} else {		/* CK_RING */
		struct io_uring_sqe *sqe = io_uring_get_sqe(&r);
		int cres = 1, xres = 1;
		uint32_t dummy;

		REQUIRE(sqe);
		io_uring_prep_cancel64(sqe, CM_UD_XFER, 0);
		sqe->user_data = CM_UD_CANCEL;
		REQUIRE(io_uring_submit(&r) == 1);
		CHECK_EQ(cm_cqe(&r, CM_UD_CANCEL, 5000, &cres, &dummy), 0);
		printf("#   IORING_OP_ASYNC_CANCEL: %d\n", cres);
		/* io_uring finds no URING_CMD that was queued (-ENOENT); if it did, it ended it */
		CHECK(cres == -ENOENT || cres == 0);
		if (cres == 0) {
			CHECK_EQ(cm_cqe(&r, CM_UD_XFER, CM_HOLD_MS + 30000, &xres, &failed), 0);
			CHECK_EQ(xres, -ECANCELED);
		}
		io_uring_queue_exit(&r);	/* the ring's exit cancels the URING_CMD */
		ring = 0;
	}

	/* the batch's end */
	if (c->s == CS_IOCTL) {
		pthread_join(th, NULL);
		res = (int)x.ret;
		failed = x.failed;
	} else if (ring) {
		CHECK_EQ(cm_cqe(&r, CM_UD_XFER, CM_HOLD_MS + 30000, &res, &failed), 0);
	} else {		/* its CQE went with the ring: the counters say how it ended */
		for (int i = 0; i < 300 && get_stats(c->a).xfer.cancels == c0; i++)
			usleep(100000);
		res = get_stats(c->a).xfer.cancels == c0 + 1 ? -ECANCELED : 1;
	}
	if (failed == ~0U)
		printf("#   the batch ended with %d (the engine's cancels), %.0f ms after the hold began\n",
		       res, hx_ms_since(&c->hold));
	else
		printf("#   the batch ended with %d, failed %u, %.0f ms after the hold began\n", res,
		       failed, hx_ms_since(&c->hold));
	CHECK_EQ(res, -ECANCELED);
	if (c->k == CK_RING && failed == ~0U)
		;			/* no CQE: the ring is gone */
	else if (c->p == CP_STRIPED)
		CHECK(failed < c->m.n);
	else
		CHECK_EQ(failed, 0);	/* none was known complete */
	CHECK_EQ(get_stats(c->a).xfer.cancels, c0 + 1);
	if (c->p == CP_STAGED)	/* the staged descriptor never ran */
		CHECK(cm_zero(c->m.rb + CM_LEN, CM_SLEN));
	if (c->p == CP_LOCAL)	/* cancelled before its first chunk */
		CHECK(cm_zero(c->m.rb, CM_LEN));

	cm_after(c, broken);
	if (ring)
		io_uring_queue_exit(&r);
}

/*
 * kill: a child's engine A runs the TRANSFER ioctl; SIGKILL while its
 * batch is held.  The child stays in the ioctl until nothing of the batch
 * is on the wire (RDMA: the hold's end) or the copy stopped (local: the
 * delay's end), then is gone with its engine; B works on.
 */
static void cm_child(struct cm *c, int to_parent, int from_parent)
{
	struct hixl_op_desc *d = c->m.d;
	uint32_t failed = 0;
	char go = 0, ok;
	long ret;
	int a = cm_engine(c->p, c->pa, 1);

	ok = a >= 0 && !cm_link(a, c->pb, c->p, &c->m, 0);
	cm_prime(&c->m, 11);
	if (write(to_parent, &ok, 1) != 1 || !ok || read(from_parent, &go, 1) != 1)
		_exit(2);
	ret = hx_xfer(a, c->pb, HIXL_OP_WRITE, d, c->m.n, CM_TMO_MS, &failed);
	printf("#   the child's TRANSFER returned %ld\n", ret);	/* the kill came late */
	_exit(3);
}

static void cm_kill(struct cm *c)
{
	int up[2], down[2], status = 0, gone = 0, n0, a2;
	char ok = 0, go = 'g';
	struct timespec t0;
	pid_t pid;

	if (c->p == CP_STAGED)
		REQUIRE(hx_stage_by_size() == 0);
	c->b = cm_engine(c->p, c->pb, 0);
	REQUIRE(c->b >= 0);
	REQUIRE(reg_mem(c->b, c->m.rb, CM_LEN + CM_SLEN, 0, NULL) == 0);
	n0 = hx_count_engines();
	cm_prime(&c->m, 7);	/* what the child's first WRITE brings */
	REQUIRE(pipe(up) == 0 && pipe(down) == 0);
	fflush(stdout);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid)
		cm_child(c, up[1], down[0]);
	REQUIRE(read(up[0], &ok, 1) == 1 && ok);
	CHECK(cm_arrived(&c->m));
	cm_prime(&c->m, 11);	/* what the child's cancelled WRITE brings */
	REQUIRE(hx_test_delay(cm_hook(c->p), CM_HOLD_MS) == 0);
	REQUIRE(write(down[1], &go, 1) == 1);
	CHECK_EQ(cm_hold_wait(c), 0);
	if (c->p != CP_LOCAL) {
		while (cm_left(c) > 500 && hx_first_diff(c->m.la, c->m.rb, CM_LEN) != -1)
			usleep(2000);
		CHECK_EQ(hx_first_diff(c->m.la, c->m.rb, CM_LEN), -1);
	}
	kill(pid, SIGKILL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* in the ioctl while the batch is held: it must not outlive it */
	if (cm_left(c) > 600) {
		usleep((useconds_t)((cm_left(c) - 300) * 1000));
		CHECK_EQ(waitpid(pid, &status, WNOHANG), 0);
	}
	while (hx_ms_since(&t0) < CM_HOLD_MS + 15000 && !(gone = waitpid(pid, &status, WNOHANG) == pid))
		usleep(20000);
	printf("#   the killed child is %s %.0f ms after SIGKILL (%.0f ms after the hold's end)\n",
	       gone ? "gone" : "still there", hx_ms_since(&t0), -cm_left(c));
	CHECK(gone && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	if (!gone)
		waitpid(pid, &status, 0);
	for (int i = 0; i < 100 && hx_count_engines() > n0; i++)
		usleep(100000);
	CHECK_EQ(hx_count_engines(), n0);	/* its engine went with it */
	if (c->p == CP_LOCAL)		/* killed before its first chunk */
		CHECK(cm_zero(c->m.rb, CM_LEN));
	if (c->p == CP_STAGED)
		CHECK(cm_zero(c->m.rb + CM_LEN, CM_SLEN));
	/* B works on: a new engine A on its own port links to it */
	a2 = cm_engine(c->p, c->pa + 2, 1);
	REQUIRE(a2 >= 0);
	CHECK_EQ(cm_link(a2, c->pb, c->p, &c->m, 1), 0);
	close(a2);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

static void cm_cell(enum cm_kind k, enum cm_path p, enum cm_sub s, int idx)
{
	long pin0 = vm_pin_kb();
	struct cm c;

	REQUIRE(cm_need(k, p) == 0);
	memset(&c, 0, sizeof(c));
	c.k = k;
	c.p = p;
	c.s = s;
	c.pa = CM_PORT0 + 3 * idx;
	c.pb = c.pa + 1;
	c.a = c.b = -1;
	c.kmsg = hx_kmsg_open();
	if (c.kmsg < 0)
		SKIP("no /dev/kmsg: the hold's start cannot be seen");
	REQUIRE(cm_map(&c.m, p) == 0);
	printf("#   %s cancel, %s path, %s\n", cm_kinds[k], cm_paths[p],
	       s == CS_IOCTL ? "TRANSFER ioctl" : "URING_CMD");
	if (k == CK_KILL)
		cm_kill(&c);
	else
		cm_run(&c);
	hx_test_delay(cm_hook(p), 0);
	if (c.a >= 0)
		close(c.a);
	if (c.b >= 0)
		close(c.b);
	close(c.kmsg);
	cm_unmap(&c.m);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/* the cells: kind x path x submitter, each a test of its own */
#define CM_CELL(k, p, s, i)							\
	static void test_cancel_##k##_##p##_##s(void)				\
	{									\
		cm_cell(CK_##k, CP_##p, CS_##s, i);				\
	}
#define CM_PATHS(k, s, i)							\
	CM_CELL(k, DIRECT, s, i) CM_CELL(k, STAGED, s, i + 1)			\
	CM_CELL(k, STRIPED, s, i + 2) CM_CELL(k, LOCAL, s, i + 3)
CM_PATHS(TAG, IOCTL, 0)
CM_PATHS(TAG, URING, 4)
CM_PATHS(REVOKE, IOCTL, 8)
CM_PATHS(REVOKE, URING, 12)
CM_PATHS(RING, URING, 16)
CM_PATHS(KILL, IOCTL, 20)

#define CM_ENTRY(k, p, s, name) { name, test_cancel_##k##_##p##_##s },
#define CM_ROW(k, s, kn, sn)								\
	CM_ENTRY(k, DIRECT, s, "cancel_" kn "_direct_" sn)				\
	CM_ENTRY(k, STAGED, s, "cancel_" kn "_staged_" sn)				\
	CM_ENTRY(k, STRIPED, s, "cancel_" kn "_striped_" sn)				\
	CM_ENTRY(k, LOCAL, s, "cancel_" kn "_local_" sn)

const struct ht_test cancel_matrix_tests[] = {
	CM_ROW(TAG, IOCTL, "tag", "ioctl")
	CM_ROW(TAG, URING, "tag", "uring")
	CM_ROW(REVOKE, IOCTL, "revoke", "ioctl")
	CM_ROW(REVOKE, URING, "revoke", "uring")
	CM_ROW(RING, URING, "ring", "uring")
	CM_ROW(KILL, IOCTL, "kill", "ioctl")
	{ NULL, NULL },
};
