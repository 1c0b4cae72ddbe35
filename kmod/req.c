// SPDX-License-Identifier: GPL-2.0
/*
 * req.c - a TRANSFER as one request: its end is said in one place.
 *
 * Every TRANSFER that was checked and planned becomes a request
 * (struct hixl_req): the ioctl's on its stack, io_uring's allocated by
 * uring.c.  xfer.c starts it (hixl_req_start()) and hands it to what
 * carries it: the link's queue (xq.c), the rails (xrail.c), or process
 * context for staged descriptors and the same-host copy (the ioctl's own,
 * or a work item of xwork.c for io_uring).  Whichever of them finishes
 * calls hixl_req_end(), once: the counters and the tracepoint, then the
 * submitter's ops->end, which wakes the ioctl or posts io_uring's CQE.
 *
 * Model: blk-mq, where a request is ended by blk_mq_end_request() whatever
 * driver ran it, and a synchronous caller submits and waits
 * (blk_execute_rq()); io_uring's end is nvme's URING_CMD
 * (io_uring_cmd_complete_in_task(), drivers/nvme/host/ioctl.c).
 *
 * Cancelation: the transport binds the batch that carries the request
 * now (hixl_req_bind()); a cancel of the request - io_uring's at ring or
 * process exit, a fatal signal to the ioctl's caller - cancels that batch
 * (hixl_xbatch_cancel()), or is seen by the next bind.  A CANCEL by tag
 * finds the batches themselves (cancel.c).
 */
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
 * @req:         the request (the ioctl's stack, or uring.c's allocation)
 * @ops:         how the submitter hears of its end
 * @priv:        the submitter's (io_uring's command), or NULL
 * @issue_flags: io_uring's, for @ops->cancelable; 0 for the ioctl
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
 * hixl_req_start() - the TRANSFER was checked and planned: it is a request now
 * @req:      from hixl_req_init()
 * @eng:      the engine
 * @l:        the primary link (the caller's reference; the request takes
 *            its own, dropped by hixl_req_release())
 * @a:        the TRANSFER
 * @bytes:    what it moves when it succeeds
 * @start_ns: ktime_get_ns() at its submission
 *
 * From here on the request ends through hixl_req_end(), or, when its
 * submission gives up before anything was queued for a retry (io_uring's
 * -EAGAIN), is released with hixl_req_release() without an end.
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
 * hixl_req_release() - drop the request's link
 * @req: a started request; called by its ops->end, by hixl_req_wait(), or
 *       for a submission given up
 */
void hixl_req_release(struct hixl_req *req)
{
	if (req->l) {
		hixl_link_put(req->l);
		req->l = NULL;
	}
}

/**
 * hixl_req_end() - a TRANSFER has ended: the one place that says so
 * @req:    the request; nothing carries it any more (no batch bound)
 * @status: 0, or the TRANSFER's error as hixl_cmd_transfer() documents it
 * @failed: with @status, the descriptor to blame (the count when none is)
 *
 * Counts the error on the primary link (a success counts where its bytes
 * moved: the transport's counters), fires the hixl_xfer_complete
 * tracepoint and records the latency, then calls the submitter's
 * ops->end, which is the last use of @req here.
 *
 * Context: any but hard IRQ (the CQ handler's, a work item, the
 * submitter); no lock held.
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
 * hixl_req_bind() - the batch that carries a request now, for its cancel
 * @req: the request
 * @b:   the batch, referenced by the caller until it unbinds it; NULL
 *       unbinds (before the caller drops its reference)
 *
 * Context: any; takes the engine's xfer_lock.
 * Return: true when the request was cancelled already: the caller cancels
 * @b itself (or, with @b NULL, does not start).
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
 * hixl_req_cancelable() - the request is about to be queued
 * @req: the request, in its submission
 *
 * io_uring may cancel it from here on (its ops->cancelable marks the
 * command); called right before the batch or work item is queued, never
 * after the request may have ended.
 */
void hixl_req_cancelable(struct hixl_req *req)
{
	if (req->ops->cancelable)
		req->ops->cancelable(req);
}

/**
 * hixl_req_cancel_locked() - mark a request cancelled
 * @req: the request, alive (the caller's xfer_lock keeps it so)
 *
 * Context: the engine's xfer_lock held.
 * Return: the batch carrying @req now, referenced, for
 * hixl_req_cancel_batch() once the lock is dropped; or NULL.
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
 *
 * Context: process context, no lock held.
 */
void hixl_req_cancel_batch(struct hixl_xbatch *b)
{
	hixl_xbatch_cancel(b);
	hixl_xbatch_put(b);
}

/**
 * hixl_req_cancel() - cancel a request its caller keeps alive
 * @req: the request (the ioctl's, which waits for it)
 *
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

/**
 * hixl_req_wait() - the ioctl waits for its request's end
 * @req: a request hixl_transfer_submit() queued, with the ioctl's ops
 *
 * A small direct batch is spun on first (@req->poll, hybrid polling,
 * poll.c); the rest of the wait is without the engine's rdma_sem, as a
 * batch through io_uring is in flight without it: a device removal breaks
 * the links (the batch flushes and ends) before it frees anything a batch
 * holds, and must not wait for a whole batch holding rdma_sem for writing
 * while every other command of the engine queues behind it.  A fatal
 * signal cancels the request, and the wait goes on until it ended (its
 * posted work requests must not outlive the pages they point into).  The
 * wait's duration feeds the link's choice between spinning and sleeping.
 *
 * Context: process context, the engine's rdma_sem held for reading (the
 * command's), released while sleeping and taken again.
 * Return: the request's status, @req->failed set; the link is released.
 */
int hixl_req_wait(struct hixl_req *req)
{
	struct hixl_engine *eng = req->eng;
	bool spun = req->poll && hixl_poll_spin(req->l, &req->done, req->post_ns);

	if (!completion_done(&req->done)) {
		up_read(&eng->rdma_sem);
		if (wait_for_completion_killable(&req->done)) {
			hixl_req_cancel(req);
			wait_for_completion(&req->done);
		}
		down_read(&eng->rdma_sem);
	}
	if (req->poll && !req->status)
		hixl_poll_record(req->l, spun, req->post_ns);
	hixl_req_release(req);
	return req->status;
}
