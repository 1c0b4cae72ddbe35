/* SPDX-License-Identifier: GPL-2.0 */
/*
 * req.h - one TRANSFER from its submission to its end (req.c), whatever
 * carries it: the link's queue (xq.c), the rails (xrail.c), or process
 * context (staged descriptors, the same-host copy: xfer.c, xwork.c).  Its
 * submitter - the ioctl, which waits, or io_uring (uring.c), which does
 * not - hears of its end through its ops, once.  Locks: in the order of
 * engine.h.
 */
#ifndef _HIXL_REQ_H
#define _HIXL_REQ_H

#include <linux/completion.h>
#include <linux/types.h>

#include <rdma/hixl.h>

struct hixl_engine;
struct hixl_link;
struct hixl_req;
struct hixl_xbatch;

/**
 * struct hixl_req_ops - how a request's submitter hears of it
 * @end:        the request has ended (@req->status and @req->failed are
 *              set): the last use of @req by the data path.  Called once,
 *              without locks, from the CQ handler, a timeout, a cancel, a
 *              work item or the submitter's own context.  It calls
 *              hixl_req_release() before it lets the submitter go on (the
 *              link must not outlive io_uring's CQE, which may let the
 *              engine go); after it the submitter may free @req
 * @cancelable: the request is about to be queued: io_uring may cancel it
 *              from now on (called in the submission, never after @end);
 *              NULL when nothing is to be done
 * @async:      the submitter does not wait: a TRANSFER that runs in process
 *              context goes to a work item (xwork.c) instead of running
 *              in the submitter's context
 */
struct hixl_req_ops {
	void (*end)(struct hixl_req *req);
	void (*cancelable)(struct hixl_req *req);
	bool async;
};

/**
 * struct hixl_req - one TRANSFER
 * @ops:       its submitter's (hixl_req_init())
 * @priv:      the submitter's: io_uring's command
 * @issue_flags: io_uring's, valid during the submission only
 * @eng:       the engine (hixl_req_start())
 * @l:         the primary link, referenced from hixl_req_start() to
 *             hixl_req_release()
 * @op:        HIXL_OP_READ or HIXL_OP_WRITE
 * @count:     descriptors of the TRANSFER (@failed on success)
 * @tag:       hixl_transfer.tag
 * @bytes:     what it moves when it succeeds
 * @start_ns:  ktime_get_ns() at the submission
 * @b:         the batch that carries it now, for a cancel (the direct one,
 *             a striped TRANSFER's anchor, a same-host copy's), or NULL;
 *             under @eng->xfer_lock
 * @cancelled: hixl_req_cancel() ran; under @eng->xfer_lock
 * @poll:      its submitter may spin on @done first (poll.c): a small
 *             direct batch the ioctl waits for
 * @post_ns:   with @poll, hixl_poll_clock() just before the batch was queued
 * @status:    0 or -errno, set at the end
 * @failed:    set at the end: the descriptor to blame, @count on success
 * @done:      completed by the ioctl's @ops->end
 */
struct hixl_req {
	const struct hixl_req_ops *ops;
	void *priv;
	unsigned int issue_flags;
	struct hixl_engine *eng;
	struct hixl_link *l;
	u32 op;
	u32 count;
	u64 tag;
	u64 bytes;
	u64 start_ns;
	struct hixl_xbatch *b;
	bool cancelled;
	bool poll;
	u64 post_ns;
	int status;
	u32 failed;
	struct completion done;
};

void hixl_req_init(struct hixl_req *req, const struct hixl_req_ops *ops, void *priv,
		   unsigned int issue_flags);
void hixl_req_start(struct hixl_req *req, struct hixl_engine *eng, struct hixl_link *l,
		    const struct hixl_transfer *a, u64 bytes, u64 start_ns);
void hixl_req_release(struct hixl_req *req);
void hixl_req_end(struct hixl_req *req, int status, u32 failed);
bool hixl_req_bind(struct hixl_req *req, struct hixl_xbatch *b);
void hixl_req_cancelable(struct hixl_req *req);
struct hixl_xbatch *hixl_req_cancel_locked(struct hixl_req *req);
void hixl_req_cancel_batch(struct hixl_xbatch *b);
void hixl_req_cancel(struct hixl_req *req);
int hixl_req_wait(struct hixl_req *req);

#endif /* _HIXL_REQ_H */
