// SPDX-License-Identifier: MIT
/*
 * request.c - libhixl-user: transfer requests: synchronous transfers
 * (the TRANSFER ioctl), asynchronous requests (their descriptor copy,
 * queue, state, end), and cancelling those running at finalize.
 */
#include <stdlib.h>

#include "internal.h"

#define HIXL_CANCEL_EVERY_MS	100	/* finalize repeats its CANCELs this often */

/* A request's descriptor copy, from the engine's allocator of the moment. */
static int req_descs_alloc(struct hixl_engine *eng, struct hixl_request *r, size_t count)
{
	size_t size = count * sizeof(*r->descs);

	pthread_mutex_lock(&eng->lock);
	r->alloc = eng->alloc;
	pthread_mutex_unlock(&eng->lock);
	if (!r->alloc.alloc) {
		r->block = malloc(size);
		r->descs = r->block;
	} else {
		r->block = r->alloc.alloc(r->alloc.obj, size);
		r->descs = r->block ? r->alloc.addr(r->alloc.obj, r->block) : NULL;
		if (r->block && !r->descs) {
			r->alloc.free(r->alloc.obj, r->block);
			r->block = NULL;
		}
	}
	return r->descs ? 0 : -ENOMEM;
}

/* Give a request's descriptor copy back to the allocator it came from. */
static void req_descs_free(struct hixl_request *r)
{
	if (!r->block)
		return;
	if (r->alloc.alloc)
		r->alloc.free(r->alloc.obj, r->block);
	else
		free(r->block);
	r->block = NULL;
	r->descs = NULL;
}

/*
 * The failed index of a request that ends with err in the library: on
 * -ETIMEDOUT and -ECANCELED the first descriptor not known to be complete
 * (what the kernel reports for them), otherwise no single one: count.
 */
size_t hixl_req_not_done(const struct hixl_request *r, int err)
{
	return err == -ETIMEDOUT || err == -ECANCELED ? r->off : r->count;
}

static void req_unlink(struct hixl_engine *eng, struct hixl_request *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		eng->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	hixl_req_seen(eng, r);		/* a freed request no longer holds the event fd */
	req_descs_free(r);
	free(r);
}

/* CANCEL of tag; the links it broke (HIXL_CANCEL_REVOKE), 0 on any error */
static uint32_t cancel_tag(int fd, uint64_t tag, uint32_t flags)
{
	struct hixl_cancel c;

	memset(&c, 0, sizeof(c));
	c.tag = tag;
	c.flags = flags;
	if (hixl_ioctl(fd, HIXL_IOC_CANCEL, &c))	/* -ENOTTY from a module without CANCEL */
		return 0;
	return c.broken;
}

/*
 * Cancel every request running in the kernel (either path) with
 * HIXL_IOC_CANCEL and wait until none is left.  A CANCEL that arrives before
 * its TRANSFER started misses it, so it is repeated every
 * HIXL_CANCEL_EVERY_MS; without CANCEL each ends within its timeout.  Called
 * with eng->lock held and eng->stopping set (nothing new starts); drops it
 * around the ioctls.
 */
void hixl_cancel_running(struct hixl_engine *eng)
{
	while (eng->running) {
		size_t n = 0, max = eng->running;
		uint64_t *tags = malloc(max * sizeof(*tags));
		struct hixl_request *r;
		struct timespec ts;

		for (r = eng->reqs; tags && r && n < max; r = r->next)
			if (r->running)
				tags[n++] = r->tag;
		pthread_mutex_unlock(&eng->lock);
		for (size_t i = 0; i < n; i++)
			cancel_tag(eng->fd, tags[i], 0);
		free(tags);
		pthread_mutex_lock(&eng->lock);
		hixl_ns_to_ts(hixl_deadline(HIXL_CANCEL_EVERY_MS), &ts);
		while (eng->running &&
		       pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) != ETIMEDOUT)
			;
	}
}

/* The TRANSFER argument of descriptors off..off+n of a batch. */
void hixl_transfer_fill(struct hixl_transfer *t, const struct hixl_sockaddr *remote,
			  uint32_t op, const struct hixl_op_desc *descs, size_t n,
			  long long left_ms, uint64_t tag)
{
	memset(t, 0, sizeof(*t));
	t->remote = *remote;
	t->op = op;
	t->descs = (uintptr_t)descs;
	t->count = (uint32_t)n;
	/* the module refuses more than HIXL_MAX_TIMEOUT_MS: a longer wait is cut to it */
	t->timeout_ms = left_ms > HIXL_MAX_TIMEOUT_MS ? HIXL_MAX_TIMEOUT_MS : (uint32_t)left_ms;
	t->tag = tag;
}

/*
 * The batch in chunks of HIXL_MAX_DESCS under one deadline, with ioctls;
 * -ECANCELED before the next chunk once *cancel (may be NULL) is set.
 */
int hixl_transfer_chunks(int fd, const struct hixl_sockaddr *remote, uint32_t op,
		    const struct hixl_op_desc *descs, size_t count, long long deadline,
		    uint64_t tag, const bool *cancel, size_t *failed)
{
	size_t off = 0;

	while (off < count) {
		size_t n = hixl_chunk_len(count, off);
		long long left = hixl_ms_left(deadline);
		struct hixl_transfer t;
		int ret;

		if (left <= 0) {
			*failed = off;	/* the first descriptor not known to be done */
			return -ETIMEDOUT;
		}
		if (cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE)) {
			*failed = off;	/* hixl_request_cancel(): no next chunk */
			return -ECANCELED;
		}
		hixl_transfer_fill(&t, remote, op, descs + off, n, left, tag);
		ret = hixl_ioctl(fd, HIXL_IOC_TRANSFER, &t);
		if (ret) {
			*failed = t.failed < n ? off + t.failed : count;
			return ret;
		}
		off += n;
	}
	*failed = count;
	return 0;
}

static int transfer_args(struct hixl_engine *eng, const char *remote, enum hixl_op op,
			 const struct hixl_op_desc *descs, size_t count, int timeout_ms,
			 struct hixl_sockaddr *addr)
{
	if (!eng || !descs || !count || timeout_ms <= 0)
		return -EINVAL;
	if (op != HIXL_OP_READ && op != HIXL_OP_WRITE)
		return -EINVAL;
	return hixl_parse_name(remote, addr);
}

/*
 * Synchronous transfers stay on the ioctl on purpose: it is one syscall
 * that returns when the batch ended, through the same kernel transfer
 * queue (xq.c) as a URING_CMD; a ring would add a submission and a wait.
 */
HIXL_EXPORT int hixl_transfer_sync(struct hixl_engine *eng, const char *remote_engine,
				   enum hixl_op op, const struct hixl_op_desc *descs, size_t count,
				   int timeout_ms, size_t *failed_index)
{
	long long deadline = hixl_deadline(timeout_ms);
	struct hixl_sockaddr addr;
	int saved = errno, ret;
	size_t failed = count;
	char why[160] = "";

	ret = transfer_args(eng, remote_engine, op, descs, count, timeout_ms, &addr);
	if (ret)
		goto out;
	/*
	 * AutoConnect: the link first, in the call's time, as an asynchronous
	 * request does: a first transfer without one would fail, and its
	 * reconnect (stale) take down the link another thread just made
	 */
	if (eng->auto_connect) {
		ret = hixl_auto_connect(eng, &addr, deadline, false);
		if (ret)
			goto out;
	}
	__atomic_add_fetch(&eng->sync_running, 1, __ATOMIC_SEQ_CST);	/* no revoking cancel now */
	ret = hixl_transfer_run(eng, &addr, op, descs, count, deadline, 0, NULL, &failed, why,
				sizeof(why));
	/*
	 * AutoConnect: a broken link (its peer went away or restarted):
	 * connect again and run the batch again, all of it (READ and WRITE of the same
	 * bytes are idempotent), under the same deadline.
	 */
	if (hixl_link_error(ret) && eng->auto_connect) {
		ret = hixl_auto_connect(eng, &addr, deadline, true);
		if (!ret)
			ret = hixl_transfer_run(eng, &addr, op, descs, count, deadline, 0, NULL,
						&failed, why, sizeof(why));
	}
	__atomic_sub_fetch(&eng->sync_running, 1, __ATOMIC_SEQ_CST);
out:
	if (failed_index)
		*failed_index = failed;
	errno = saved;
	if (ret < 0 && why[0])	/* a staged copy's error, named */
		return hixl_failf(ret, "hixl_transfer_sync(%.*s): %s", HIXL_ENGINE_NAME_MAX,
				  remote_engine, why);
	return hixl_fail("hixl_transfer_sync", remote_engine, ret);
}

/*
 * A request has ended: its result, its state, and the library frees it
 * when its owner already let it go.  Called with eng->lock held.
 */
void hixl_req_end(struct hixl_engine *eng, struct hixl_request *r, int err, size_t failed)
{
	r->err = err;
	r->failed = failed;
	r->st = !err ? HIXL_TRANSFER_COMPLETED :
		err == -ETIMEDOUT ? HIXL_TRANSFER_TIMEOUT : HIXL_TRANSFER_FAILED;
	if (hixl_link_error(err) && eng->auto_connect)
		hixl_link_forget(eng, &r->remote);	/* the next call connects again */
	if (r->detached)
		req_unlink(eng, r);
	else
		hixl_req_unseen(eng, r);	/* the event fd becomes readable */
}

/* Append a request to the queue of those not issued yet.  eng->lock held. */
void hixl_req_enqueue(struct hixl_engine *eng, struct hixl_request *r)
{
	if (eng->qtail)
		eng->qtail->qnext = r;
	else
		eng->qhead = r;
	eng->qtail = r;
}

/* Take the first request of the queue, or NULL.  eng->lock held. */
struct hixl_request *hixl_req_dequeue(struct hixl_engine *eng)
{
	struct hixl_request *r = eng->qhead;

	if (r) {
		eng->qhead = r->qnext;
		if (!eng->qhead)
			eng->qtail = NULL;
		r->qnext = NULL;
	}
	return r;
}

/* Queue (workers) or issue (io_uring) a new request.  eng->lock held. */
static int req_start(struct hixl_engine *eng, struct hixl_request *r)
{
	if (eng->stopping)
		return -ESHUTDOWN;
	if (hixl_staged_any(eng, r->descs, r->count))
		return hixl_staged_start(eng, r);	/* a thread copies and transfers */
	return eng->uring ? hixl_uring_start(eng, r) : hixl_workers_queue(eng, r);
}

/* the library's own tags have bit 63 set: they never meet a caller's */
#define HIXL_TAG_LIBRARY	HIXL_TAG_CALLER_MAX

static bool zero_u64s(const uint64_t *v, size_t n)
{
	while (n--)
		if (*v++)
			return false;
	return true;
}

static int do_transfer_async(struct hixl_engine *eng, const char *remote, enum hixl_op op,
			     const struct hixl_op_desc *descs, size_t count,
			     const struct hixl_transfer_args *args, struct hixl_request **reqp)
{
	struct hixl_request *r;
	int timeout_ms;
	int ret;

	if (!reqp || !args || args->flags || args->tag >= HIXL_TAG_CALLER_MAX ||
	    !zero_u64s(args->reserved, sizeof(args->reserved) / sizeof(args->reserved[0])))
		return -EINVAL;
	timeout_ms = args->timeout_ms;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->deadline = hixl_deadline(timeout_ms);	/* counted from this call */
	ret = transfer_args(eng, remote, op, descs, count, timeout_ms, &r->remote);
	if (!ret && eng->auto_connect)	/* the link first, in the request's time */
		ret = hixl_auto_connect(eng, &r->remote, r->deadline, false);
	if (ret) {
		free(r);
		return ret;
	}
	if (count > SIZE_MAX / sizeof(*descs) || req_descs_alloc(eng, r, count)) {
		free(r);
		return -ENOMEM;
	}
	memcpy(r->descs, descs, count * sizeof(*descs));
	r->eng = eng;
	r->op = op;
	r->count = count;
	r->failed = count;
	r->user_data = args->user_data;
	r->st = HIXL_TRANSFER_WAITING;
	r->err = -EINPROGRESS;
	pthread_mutex_lock(&eng->lock);
	r->tag = args->tag ? args->tag : HIXL_TAG_LIBRARY | ++eng->last_tag;
	ret = req_start(eng, r);
	if (ret) {
		pthread_mutex_unlock(&eng->lock);
		req_descs_free(r);
		free(r);
		return ret;
	}
	r->next = eng->reqs;
	if (eng->reqs)
		eng->reqs->prev = r;
	eng->reqs = r;
	pthread_mutex_unlock(&eng->lock);
	*reqp = r;
	return 0;
}

HIXL_EXPORT int hixl_transfer_async(struct hixl_engine *eng, const char *remote_engine,
				    enum hixl_op op, const struct hixl_op_desc *descs, size_t count,
				    const struct hixl_transfer_args *args, struct hixl_request **req)
{
	return hixl_fail("hixl_transfer_async", remote_engine,
			 HIXL_KEEP_ERRNO(do_transfer_async(eng, remote_engine, op, descs, count,
							   args, req)));
}

HIXL_EXPORT int hixl_get_all_transfer_status(struct hixl_engine *eng, uint32_t flags,
					     struct hixl_transfer_result *out, size_t max)
{
	struct hixl_request *r, *last = NULL;
	size_t n = 0;

	if (!eng || (max && !out) || (flags & ~HIXL_QUERY_SKIP_WAITING))
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	/* eng->reqs is newest first: walk from the oldest */
	for (r = eng->reqs; r; r = r->next)
		last = r;
	for (r = last; r && (!max || n < max); r = r->prev) {
		bool waiting = r->st == HIXL_TRANSFER_WAITING;

		if (r->detached || r->listed || (waiting && (flags & HIXL_QUERY_SKIP_WAITING)))
			continue;
		if (max) {
			out[n].req = r;
			out[n].user_data = r->user_data;
			out[n].status = r->st;
			out[n].err = r->err;
			r->listed = !waiting;
			if (!waiting)
				hixl_req_seen(eng, r);
		}
		n++;
	}
	pthread_mutex_unlock(&eng->lock);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

HIXL_EXPORT int hixl_get_transfer_status(struct hixl_engine *eng, struct hixl_request *req,
					 enum hixl_transfer_status *st)
{
	if (!eng || !req || !st || req->eng != eng)
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	*st = req->st;
	if (req->st != HIXL_TRANSFER_WAITING)
		hixl_req_seen(eng, req);
	pthread_mutex_unlock(&eng->lock);
	return 0;
}

HIXL_EXPORT int hixl_get_transfer_statuses(struct hixl_engine *eng,
					   struct hixl_request *const *reqs, size_t count,
					   enum hixl_transfer_status *st)
{
	size_t done = 0;

	if (!eng || (count && (!reqs || !st)))
		return -EINVAL;
	for (size_t i = 0; i < count; i++)
		if (!reqs[i] || reqs[i]->eng != eng)
			return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < count; i++) {
		st[i] = reqs[i]->st;
		if (st[i] != HIXL_TRANSFER_WAITING) {
			hixl_req_seen(eng, reqs[i]);
			done++;
		}
	}
	pthread_mutex_unlock(&eng->lock);
	return done > INT32_MAX ? INT32_MAX : (int)done;
}

HIXL_EXPORT int hixl_request_wait(struct hixl_engine *eng, struct hixl_request *req,
				  int timeout_ms, enum hixl_transfer_status *st)
{
	struct timespec ts;
	int ret = 0;

	if (!eng || !req || req->eng != eng)
		return -EINVAL;
	hixl_ns_to_ts(hixl_deadline(timeout_ms > 0 ? timeout_ms : 0), &ts);
	pthread_mutex_lock(&eng->lock);
	while (req->st == HIXL_TRANSFER_WAITING) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&eng->cond, &eng->lock);
		} else if (!timeout_ms ||
			   pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT) {
			if (req->st == HIXL_TRANSFER_WAITING)
				ret = -ETIMEDOUT;
			break;
		}
	}
	if (!ret)
		hixl_req_seen(eng, req);
	if (st)
		*st = req->st;
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

/*
 * hixl_request_wait() for several: the lowest index among reqs that is no
 * longer WAITING, sleeping on eng->cond (both paths broadcast it when they
 * end requests).
 */
static int wait_any(struct hixl_engine *eng, struct hixl_request *const *reqs, size_t n,
		    int timeout_ms, size_t *index)
{
	struct timespec ts;
	bool timed_out = false;

	if (!eng || !reqs || !n || !index)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!reqs[i] || reqs[i]->eng != eng)
			return -EINVAL;
	hixl_ns_to_ts(hixl_deadline(timeout_ms > 0 ? timeout_ms : 0), &ts);
	pthread_mutex_lock(&eng->lock);
	for (;;) {
		for (size_t i = 0; i < n; i++) {
			if (reqs[i]->st != HIXL_TRANSFER_WAITING) {
				hixl_req_seen(eng, reqs[i]);
				pthread_mutex_unlock(&eng->lock);
				*index = i;
				return 0;
			}
		}
		if (timed_out || !timeout_ms)
			break;
		if (timeout_ms < 0)
			pthread_cond_wait(&eng->cond, &eng->lock);
		else if (pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT)
			timed_out = true;	/* one more look, then -ETIMEDOUT */
	}
	pthread_mutex_unlock(&eng->lock);
	return -ETIMEDOUT;
}

HIXL_EXPORT int hixl_request_wait_any(struct hixl_engine *eng, struct hixl_request *const *reqs,
				      size_t n, int timeout_ms, size_t *index)
{
	return HIXL_KEEP_ERRNO(wait_any(eng, reqs, n, timeout_ms, index));
}

/* Take a request that was never issued out of the queue.  eng->lock held. */
static bool req_unqueue(struct hixl_engine *eng, struct hixl_request *r)
{
	struct hixl_request **pp, *prev = NULL;

	for (pp = &eng->qhead; *pp; prev = *pp, pp = &(*pp)->qnext) {
		if (*pp != r)
			continue;
		*pp = r->qnext;
		if (eng->qtail == r)
			eng->qtail = prev;
		r->qnext = NULL;
		return true;
	}
	return false;
}

/*
 * May the cancel of r revoke (HIXL_CANCEL_REVOKE: the kernel's requests of
 * it flush at once, and the request ends within milliseconds instead of
 * when its posted work drained)?  Revoking breaks the link to r's peer, so
 * only when that costs nobody anything: the module has it, AutoConnect is
 * on (the library renews the link on its next use), and no other request
 * to that peer and no synchronous transfer of the engine is running (they
 * would end -ECONNABORTED).  eng->lock held.
 */
static bool revoke_ok(struct hixl_engine *eng, const struct hixl_request *r)
{
	const struct hixl_request *q;

	if (!(eng->features & HIXL_FEAT_CANCEL_REVOKE) || !eng->auto_connect ||
	    __atomic_load_n(&eng->sync_running, __ATOMIC_SEQ_CST))
		return false;
	for (q = eng->reqs; q; q = q->next)
		if (q != r && q->st == HIXL_TRANSFER_WAITING &&
		    !memcmp(&q->remote, &r->remote, sizeof(r->remote)))
			return false;
	return true;
}

/*
 * One request's cancel: a queued one ends here; a running one gets
 * HIXL_IOC_CANCEL of its tag (which both paths' batches answer to), again
 * every HIXL_CANCEL_EVERY_MS, since a CANCEL that arrives before its
 * TRANSFER reached the kernel's transfer queue misses it, until it ended.
 * r->cancel stops the next chunk of a request longer than HIXL_MAX_DESCS.
 */
static int request_cancel(struct hixl_engine *eng, struct hixl_request *r)
{
	struct timespec ts;
	uint32_t revoke;

	if (!eng || !r || r->eng != eng)
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	if (r->st != HIXL_TRANSFER_WAITING) {
		pthread_mutex_unlock(&eng->lock);
		return -EALREADY;
	}
	__atomic_store_n(&r->cancel, true, __ATOMIC_RELEASE);
	if ((!r->running && req_unqueue(eng, r)) || hixl_staged_unqueue(eng, r)) {
		hixl_req_end(eng, r, -ECANCELED, hixl_req_not_done(r, -ECANCELED));
		pthread_cond_broadcast(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
		return 0;
	}
	revoke = revoke_ok(eng, r) ? HIXL_CANCEL_REVOKE : 0;
	while (r->st == HIXL_TRANSFER_WAITING) {
		uint64_t tag = r->tag;

		if (r->running) {
			uint32_t broken;

			pthread_mutex_unlock(&eng->lock);
			broken = cancel_tag(eng->fd, tag, revoke);
			pthread_mutex_lock(&eng->lock);
			/* the link to r's peer is broken now: AutoConnect renews it */
			if (broken && eng->auto_connect)
				hixl_link_forget(eng, &r->remote);
		}
		hixl_ns_to_ts(hixl_deadline(HIXL_CANCEL_EVERY_MS), &ts);
		while (r->st == HIXL_TRANSFER_WAITING &&
		       pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&eng->lock);
	return 0;
}

HIXL_EXPORT int hixl_request_cancel(struct hixl_engine *eng, struct hixl_request *req)
{
	return hixl_fail("hixl_request_cancel", NULL,
			 HIXL_KEEP_ERRNO(request_cancel(eng, req)));
}

HIXL_EXPORT int hixl_request_result(const struct hixl_request *req, size_t *failed_index)
{
	struct hixl_engine *eng;
	int ret;

	if (!req)
		return -EINVAL;
	eng = req->eng;
	pthread_mutex_lock(&eng->lock);
	ret = req->err;
	if (failed_index)
		*failed_index = req->failed;
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT void *hixl_request_user_data(const struct hixl_request *req)
{
	return req ? req->user_data : NULL;
}

HIXL_EXPORT void hixl_request_free(struct hixl_request *req)
{
	struct hixl_engine *eng;

	if (!req)
		return;
	eng = req->eng;
	pthread_mutex_lock(&eng->lock);
	if (req->st == HIXL_TRANSFER_WAITING)
		req->detached = true;
	else
		req_unlink(eng, req);
	pthread_mutex_unlock(&eng->lock);
}

/* Finalize: free every request.  No other thread is left. */
void hixl_requests_release(struct hixl_engine *eng)
{
	while (eng->reqs)
		req_unlink(eng, eng->reqs);
}
