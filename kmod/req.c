// SPDX-License-Identifier: GPL-2.0
/* req.c - a TRANSFER as one request, ended once in hixl_req_end() */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/kref.h>
#include <linux/rwsem.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "link.h"
#include "stats.h"
#include "xq.h"
#include "poll.h"
#include "req.h"

/**
 * hixl_req_init() - prepare a request for a submission
 * @req:         the request
 * @ops:         the submitter's
 * @priv:        io_uring's command, or NULL
 * @issue_flags: io_uring's; 0 for the ioctl
 */
void hixl_req_init(struct hixl_req *req, const struct hixl_req_ops *ops, void *priv,
		   unsigned int issue_flags)
{
	memset(req, 0, sizeof(*req));
	req->ops = ops;
	req->priv = priv;
	req->issue_flags = issue_flags;
	init_completion(&req->done);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_req_init);

/**
 * hixl_req_start() - the TRANSFER is checked and planned: a request now
 * @req:      from hixl_req_init()
 * @eng:      the engine
 * @l:        the primary link; referenced
 * @a:        the TRANSFER
 * @bytes:    bytes moved on success
 * @start_ns: ktime_get_ns() at submission
 */
void hixl_req_start(struct hixl_req *req, struct hixl_engine *eng, struct hixl_link *l,
		    const struct hixl_transfer *a, u64 bytes, u64 start_ns)
{
	kref_get(&l->ref);
	req->eng = eng;
	req->l = l;
	req->op = a->op;
	req->count = a->count;
	req->tag = a->tag;
	req->bytes = bytes;
	req->start_ns = start_ns;
	req->failed = a->count;
}

/**
 * hixl_req_release() - drop the request's link reference
 * @req: a started request
 */
void hixl_req_release(struct hixl_req *req)
{
	if (req->l) {
		hixl_link_put(req->l);
		req->l = NULL;
	}
}

/**
 * hixl_req_end() - a TRANSFER has ended
 * @req:    the request; no batch bound; ops->end is its last use here
 * @status: 0 or -errno
 * @failed: with @status, the descriptor to blame
 * Context: any but hard IRQ; no lock held.
 */
void hixl_req_end(struct hixl_req *req, int status, u32 failed)
{
	WARN_ON_ONCE(READ_ONCE(req->b));
	req->status = status;
	req->failed = status ? failed : req->count;
	if (status)
		hixl_link_count_result(req->l, status);
	hixl_xfer_done(req->eng, req->l, req->op, status, status ? 0 : req->bytes, req->tag,
		       ktime_get_ns() - req->start_ns);
	req->ops->end(req);
}

/**
 * hixl_req_bind() - bind the batch that carries a request now, for cancel
 * @req: the request
 * @b:   the batch, referenced until unbound; NULL unbinds
 * Context: any; takes the engine's xfer_lock.
 * Return: true when already cancelled: the caller cancels @b itself.
 */
bool hixl_req_bind(struct hixl_req *req, struct hixl_xbatch *b)
{
	struct hixl_engine *eng = req->eng;
	bool cancelled;

	spin_lock(&eng->xfer_lock);
	req->b = b;
	cancelled = req->cancelled;
	spin_unlock(&eng->xfer_lock);
	return cancelled;
}

/**
 * hixl_req_cancelable() - io_uring may cancel the request from now on
 * @req: the request, about to be queued
 */
void hixl_req_cancelable(struct hixl_req *req)
{
	if (req->ops->cancelable)
		req->ops->cancelable(req);
}

/**
 * hixl_req_cancel_locked() - mark a request cancelled
 * @req: the request
 * Context: the engine's xfer_lock held.
 * Return: the bound batch, referenced, for hixl_req_cancel_batch(); or NULL.
 */
struct hixl_xbatch *hixl_req_cancel_locked(struct hixl_req *req)
{
	struct hixl_xbatch *b = req->b;

	lockdep_assert_held(&req->eng->xfer_lock);
	req->cancelled = true;
	if (b)
		kref_get(&b->ref);
	return b;
}

/**
 * hixl_req_cancel_batch() - cancel the batch hixl_req_cancel_locked() gave
 * @b: the batch; its reference is dropped
 * Context: process context, no lock held.
 */
void hixl_req_cancel_batch(struct hixl_xbatch *b)
{
	hixl_xbatch_cancel(b);
	hixl_xbatch_put(b);
}

/**
 * hixl_req_cancel() - cancel a request its caller keeps alive
 * @req: the ioctl's request
 * Context: process context, no lock held.
 */
void hixl_req_cancel(struct hixl_req *req)
{
	struct hixl_xbatch *b;

	spin_lock(&req->eng->xfer_lock);
	b = hixl_req_cancel_locked(req);
	spin_unlock(&req->eng->xfer_lock);
	if (b)
		hixl_req_cancel_batch(b);
}

/* the deadline of a batch without a timer (@req->expire) passed */
static void hixl_req_expire(struct hixl_req *req)
{
	struct hixl_xbatch *b;

	spin_lock(&req->eng->xfer_lock);
	b = req->b;
	if (b)
		kref_get(&b->ref);
	spin_unlock(&req->eng->xfer_lock);
	if (b) {
		hixl_xbatch_expire(b);
		hixl_xbatch_put(b);
	}
}

static void hixl_req_sleep(struct hixl_req *req)
{
	long left;

	if (req->expire) {
		left = wait_for_completion_killable_timeout(&req->done,
							    hixl_jiffies_left(req->deadline));
		if (left > 0)
			return;
		if (!left) {
			hixl_req_expire(req);
			if (!wait_for_completion_killable(&req->done))
				return;
		}
	} else if (!wait_for_completion_killable(&req->done)) {
		return;
	}
	hixl_req_cancel(req);		/* a fatal signal */
	wait_for_completion(&req->done);
}

/**
 * hixl_req_wait() - the ioctl waits for its request's end
 * @req: a queued request with the ioctl's ops
 *
 * Spins first for a small batch, then sleeps without rdma_sem so a device
 * removal is not held up; a fatal signal cancels the request.
 * Context: process context; rdma_sem read-held, dropped while sleeping.
 * Return: the request's status; the link is released.
 */
int hixl_req_wait(struct hixl_req *req)
{
	struct hixl_engine *eng = req->eng;
	bool spun = req->poll && hixl_poll_spin(req->l, &req->done, req->post_ns,
						req->expire ? req->spin_end : U64_MAX);

	if (!completion_done(&req->done)) {
		up_read(&eng->rdma_sem);
		hixl_req_sleep(req);
		down_read(&eng->rdma_sem);
	}
	if (req->poll && !req->status)
		hixl_poll_record(req->l, spun, req->post_ns);
	hixl_req_release(req);
	return req->status;
}
