// SPDX-License-Identifier: MIT
/*
 * uring.c - libhixl-user: the io_uring path of asynchronous transfers:
 * the engine's ring, the probe that chooses it at init, issuing requests
 * as URING_CMDs, and the reaper thread that ends them.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define HIXL_RING_SQ		64	/* SQ entries: each submission goes out at once */
#define HIXL_RING_CQ		1024	/* CQ entries: also the URING_CMDs in flight at most */
#define HIXL_WAKE_DATA		0	/* user_data of the NOP that stops the reaper */
#define HIXL_PROBE_DATA		1	/* user_data of the probe at init */
#define HIXL_PROBE_TAG		UINT64_MAX	/* the probe's CANCEL tag: no request has it */

#define HIXL_RING_WAIT_MS	100	/* the reaper looks at the SQ at least this often */

#define HIXL_SQE128_BYTES	128	/* an SQE of an IORING_SETUP_SQE128 ring */
#define HIXL_SQE_CMD_BYTES	(HIXL_SQE128_BYTES - offsetof(struct io_uring_sqe, cmd))

/* Tear the ring down (finalize, once the reaper is gone; or a failed probe). */
void hixl_ring_exit(struct hixl_ring *rg)
{
	if (rg->up)
		io_uring_queue_exit(&rg->r);
	rg->up = false;
}

/* An SQE128/CQE32 ring with HIXL_RING_CQ CQEs. */
static int ring_init(struct hixl_ring *rg)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | IORING_SETUP_CQSIZE;
	p.cq_entries = HIXL_RING_CQ;
	ret = io_uring_queue_init_params(HIXL_RING_SQ, &rg->r, &p);
	rg->up = !ret;
	return ret;
}

/* The next free SQE, or NULL when the SQ is full.  Submitters hold the engine's lock. */
static struct io_uring_sqe *ring_sqe(struct hixl_ring *rg)
{
	return io_uring_get_sqe(&rg->r);
}

/*
 * Submit the SQEs ring_sqe() gave.  Once in the SQ an SQE goes to the
 * kernel whatever happens: when io_uring_enter() fails (no memory, a
 * signal) it stays in the SQ and leaves with the next submission, which
 * the reaper makes at least every HIXL_RING_WAIT_MS (ring_flush()).  So a
 * request whose SQE was taken always gets its CQE.  Engine lock held.
 */
static void ring_submit(struct hixl_ring *rg)
{
	int ret;

	do {
		ret = io_uring_submit(&rg->r);
	} while (ret == -EINTR);
}

/* Push SQEs a failed io_uring_enter() left in the SQ.  Engine lock held. */
static void ring_flush(struct hixl_ring *rg)
{
	if (io_uring_sq_ready(&rg->r))
		ring_submit(rg);
}

/* Take one CQE: false when the CQ is empty.  Only one thread reaps. */
static bool ring_cqe(struct hixl_ring *rg, uint64_t *user_data, int *res, uint64_t *extra)
{
	struct io_uring_cqe *cqe;

	if (io_uring_peek_cqe(&rg->r, &cqe))
		return false;
	*user_data = cqe->user_data;
	*res = cqe->res;
	*extra = cqe->big_cqe[0];
	io_uring_cqe_seen(&rg->r, cqe);
	return true;
}

/*
 * Sleep until a CQE is there (0) or HIXL_RING_WAIT_MS passed (-ETIME);
 * another -errno on failure.
 */
static int ring_wait(struct hixl_ring *rg)
{
	struct __kernel_timespec ts = { .tv_nsec = HIXL_RING_WAIT_MS * NSEC_PER_MSEC };
	struct io_uring_cqe *cqe;
	int ret;

	do {
		ret = io_uring_wait_cqe_timeout(&rg->r, &cqe, &ts);
	} while (ret == -EINTR);
	return ret;
}

/*
 * Put one hixl URING_CMD (uapi/rdma/hixl.h, "io_uring passthrough") in the SQ
 * and submit it: the library's one place that builds such an SQE (liburing
 * 2.3, Debian 12, has no io_uring_prep_uring_cmd()).  All HIXL_SQE128_BYTES
 * of the SQE are written; @arg (@len bytes, at most HIXL_SQE_CMD_BYTES) is
 * copied into sqe->cmd, the rest of it zero: the kernel reads it at
 * submission, so it may go right after.  @user_data comes back in the CQE.
 * Return: 0, or -EBUSY when the SQ is full.  Engine lock held.
 */
static int ring_cmd(struct hixl_ring *rg, int fd, __u32 cmd_op, const void *arg, size_t len,
		    __u64 user_data)
{
	struct io_uring_sqe *sqe = ring_sqe(rg);

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, HIXL_SQE128_BYTES);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, arg, len <= HIXL_SQE_CMD_BYTES ? len : HIXL_SQE_CMD_BYTES);
	ring_submit(rg);
	return 0;
}

/* Once per process: why asynchronous transfers take the worker threads. */
static void say_fallback(const char *why, int err)
{
	static int said;

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "libhixl-user: %s%s%s: asynchronous transfers use worker threads "
		"and the TRANSFER ioctl\n", why, err ? ": " : "", err ? strerror(-err) : "");
}

/* HIXL_NO_URING set to anything but "" or "0" */
static bool uring_disabled(void)
{
	const char *v = getenv("HIXL_NO_URING");

	return v && *v && strcmp(v, "0");
}

/*
 * The first URING_CMD of a ring on @fd: a CANCEL of a tag no request has.
 * It completes at once with the number cancelled (0) where the module takes
 * URING_CMDs; -EOPNOTSUPP (no uring_cmd in the kernel or the module),
 * -EINVAL (an io_uring without URING_CMD) or -ENOTTY otherwise.  The caller
 * owns @rg alone (the engine's reaper is not running yet).
 */
static int ring_probe(struct hixl_ring *rg, int fd)
{
	struct hixl_cancel c;
	uint64_t data, extra;
	int ret, res;

	memset(&c, 0, sizeof(c));
	c.tag = HIXL_PROBE_TAG;
	ret = ring_cmd(rg, fd, HIXL_IOC_CANCEL, &c, sizeof(c), HIXL_PROBE_DATA);
	if (ret)
		return ret;
	for (int waits = 0; !ring_cqe(rg, &data, &res, &extra); waits++) {
		ret = ring_wait(rg);
		if (ret == -ETIME && waits < 50) {
			ring_flush(rg);
			continue;
		}
		if (ret)
			return ret;	/* the ring goes: io_uring reaps the probe itself */
	}
	return data != HIXL_PROBE_DATA ? -EPROTO : res < 0 ? res : 0;
}

/*
 * What hixl_uring_setup() does to choose io_uring, on a ring of its own that
 * it tears down again: GET_INFO's HIXL_FEAT_URING_CMD, an SQE128/CQE32 ring,
 * the CANCEL probe (<hixl/hixl.h> documents the results).
 */
HIXL_EXPORT int hixl_dev_uring_probe(int fd)
{
	struct hixl_ring rg = { .up = false };
	struct hixl_info info;
	int ret;

	ret = hixl_dev_get_info(fd, &info);
	if (ret)
		return ret;
	if (!(info.features & HIXL_FEAT_URING_CMD))
		return -EOPNOTSUPP;
	ret = ring_init(&rg);
	if (ret)
		return ret;
	ret = ring_probe(&rg, fd);
	hixl_ring_exit(&rg);
	return ret;
}

/* Choose the engine's asynchronous path (both are described in internal.h). */
void hixl_uring_setup(struct hixl_engine *eng)
{
	struct hixl_info info;
	int ret;

	eng->ring.up = false;
	if (uring_disabled())
		return;		/* asked for: nothing to say */
	ret = hixl_dev_get_info(eng->fd, &info);
	if (ret) {
		say_fallback("GET_INFO failed", ret);
		return;
	}
	if (!(info.features & HIXL_FEAT_URING_CMD)) {
		say_fallback("hixl.ko does not offer io_uring URING_CMD", 0);
		return;
	}
	ret = ring_init(&eng->ring);
	if (ret) {
		say_fallback("io_uring_setup(SQE128 | CQE32) failed", ret);
		return;
	}
	ret = ring_probe(&eng->ring, eng->fd);
	if (ret) {
		hixl_ring_exit(&eng->ring);
		say_fallback("the first URING_CMD failed", ret);
		return;
	}
	eng->uring = true;
}

/*
 * Issue the request's chunk at r->off as a URING_CMD TRANSFER with the time
 * left.  Return: 0 (its CQE will come); -ETIMEDOUT when the deadline
 * passed; -EBUSY when the SQ is full (it is not: one SQE at a time).
 * Called with eng->lock held.
 */
static int uring_issue(struct hixl_engine *eng, struct hixl_request *r)
{
	size_t n = hixl_chunk_len(r->count, r->off);
	long long left = hixl_ms_left(r->deadline);
	struct hixl_transfer t;
	int ret;

	if (left <= 0)
		return -ETIMEDOUT;
	hixl_transfer_fill(&t, &r->remote, r->op, r->descs + r->off, n, left, r->tag);
	ret = ring_cmd(&eng->ring, eng->fd, HIXL_IOC_TRANSFER, &t, sizeof(t), (uintptr_t)r);
	if (ret)
		return ret;
	r->chunk = (uint32_t)n;
	r->running = true;
	eng->running++;
	return 0;
}

/* Issue queued requests while the CQ has room.  eng->lock held. */
static void uring_pump(struct hixl_engine *eng)
{
	while (eng->qhead && eng->running < HIXL_RING_CQ - 1 && !eng->stopping) {
		struct hixl_request *r = hixl_req_dequeue(eng);
		int ret = uring_issue(eng, r);

		if (ret)
			hixl_req_end(eng, r, ret, hixl_req_not_done(r, ret));
	}
}

/*
 * The CQE of a request's chunk: res is 0 or -errno, extra the kernel's
 * hixl_transfer.failed.  The next chunk goes out, or the request ends as
 * the ioctl path would have ended it.  eng->lock held.
 */
static void uring_done(struct hixl_engine *eng, struct hixl_request *r, int res, uint64_t extra)
{
	size_t n = r->chunk;

	r->running = false;
	eng->running--;
	if (res) {
		hixl_req_end(eng, r, res, extra < n ? r->off + extra : r->count);
		return;
	}
	r->off += n;
	if (r->off == r->count) {
		hixl_req_end(eng, r, 0, r->count);
		return;
	}
	res = eng->stopping || r->cancel ? -ECANCELED : uring_issue(eng, r);
	if (res)
		hixl_req_end(eng, r, res, hixl_req_not_done(r, res));
}

/* The reaper: waits for CQEs and ends requests, until the NOP of finalize. */
static void *reaper(void *arg)
{
	struct hixl_engine *eng = arg;
	bool stop = false;

	while (!stop) {
		uint64_t data, extra;
		int res;

		if (!ring_cqe(&eng->ring, &data, &res, &extra)) {
			int ret = ring_wait(&eng->ring);

			if (ret == -ETIME) {	/* quiet: push what a failed submit left */
				pthread_mutex_lock(&eng->lock);
				ring_flush(&eng->ring);
				pthread_mutex_unlock(&eng->lock);
			} else if (ret) {
				usleep(1000);	/* out of memory: never spin */
			}
			continue;
		}
		pthread_mutex_lock(&eng->lock);
		do {
			if (data == HIXL_WAKE_DATA)
				stop = true;
			else
				uring_done(eng, (struct hixl_request *)(uintptr_t)data, res, extra);
		} while (ring_cqe(&eng->ring, &data, &res, &extra));
		uring_pump(eng);
		pthread_cond_broadcast(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
	}
	return NULL;
}

/* Called with eng->lock held.  The reaper takes no signal of the caller's. */
static int reaper_start(struct hixl_engine *eng)
{
	sigset_t all, old;
	int ret;

	if (eng->reaper_on)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&eng->reaper, NULL, reaper, eng);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -EAGAIN;
	eng->reaper_on = true;
	return 0;
}

/* Issue a new request, or queue it while the CQ is full.  eng->lock held. */
int hixl_uring_start(struct hixl_engine *eng, struct hixl_request *r)
{
	int ret;

	ret = reaper_start(eng);
	if (ret)
		return ret;
	if (eng->qhead || eng->running >= HIXL_RING_CQ - 1) {
		hixl_req_enqueue(eng, r);	/* the CQ is full: issued as room comes */
		return 0;
	}
	ret = uring_issue(eng, r);
	if (ret == -ETIMEDOUT) {	/* expired before it was issued: it ends TIMEOUT */
		hixl_req_end(eng, r, ret, hixl_req_not_done(r, ret));
		return 0;
	}
	return ret;
}

/* Stop the reaper: a NOP whose CQE it reads as "exit".  eng->lock held. */
void hixl_reaper_stop(struct hixl_engine *eng)
{
	for (;;) {
		struct io_uring_sqe *sqe = ring_sqe(&eng->ring);

		if (sqe) {
			memset(sqe, 0, HIXL_SQE128_BYTES);
			sqe->opcode = IORING_OP_NOP;
			sqe->user_data = HIXL_WAKE_DATA;
			ring_submit(&eng->ring);
			return;
		}
		pthread_mutex_unlock(&eng->lock);	/* the SQ is full: try again */
		usleep(1000);
		pthread_mutex_lock(&eng->lock);
	}
}
