/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xq.h - a link's transfer queue (xq.c): a TRANSFER's RDMA part is one
 * batch of work requests on it.  Locks: in the order of engine.h.
 */
#ifndef _HIXL_XQ_H
#define _HIXL_XQ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/hixl.h>

#include "link.h"
#include "plan.h"

struct hixl_req;
struct hixl_xrail;

/* xq.c: a link's transfer queue */
/*
 * Transfer WRs in flight per link.  The send queue's other users each keep
 * at most one request on it: the msg.post_mutex holder (a message, REG_MR
 * or staging RDMA, hixl_post_wait()), the STAGE_DONE reply
 * (stage.reply_lock), one TABLE_ACK (hixl_table_ack()) and one keep-alive
 * (keepalive.c): 248 + 4 <= HIXL_SQ_DEPTH.
 */
#define HIXL_CHAIN	(HIXL_SQ_DEPTH - 8)

/**
 * struct hixl_xbatch - the RDMA part of one TRANSFER, queued on a link
 * @ref:      the submitter holds one, an armed timeout one
 * @eng:      the engine
 * @l:        the link (a reference, dropped when the batch is freed)
 * @eng_node: in @eng->xfers while the batch runs, under @eng->xfer_lock
 * @q_node:   in @l->xq.batches while pieces wait to be posted, under
 *            @l->xq.lock
 * @cancel_node: on a CANCEL's list of batches to cancel, under
 *            @eng->cancel_mutex
 * @pl:       the pieces; its held regions are released when the batch ends
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @count:    descriptors of the TRANSFER (what @failed says on success)
 * @tag:      hixl_transfer.tag, for HIXL_IOC_CANCEL
 * @planning: the TRANSFER's hixl_xq_plan_begin() is still to be ended;
 *            hixl_xbatch_submit() ends it once the batch is queued
 * @next:     pieces posted so far                        (under @l->xq.lock)
 * @acked:    pieces known complete, in posting order     (under @l->xq.lock)
 * @chains:   chains of work requests on the send queue   (under @l->xq.lock)
 * @queued:   on @l->xq.batches                           (under @l->xq.lock)
 * @submitted: hixl_xbatch_submit() queued or ended it; until then a
 *            cancel only sets @status, which submission honours
 *                                                        (under @l->xq.lock)
 * @ended:    @end_fn was called or is about to be        (under @l->xq.lock)
 * @status:   0 or the first error; once set nothing more is posted
 * @failed:   with @status, the descriptor to blame
 * @tmo:      the timeout
 * @end_fn:   called once when the batch has ended, without locks, from the
 *            CQ handler, the timeout, a cancel or the submitter
 * @done:     completed by the @end_fn of a batch its submitter waits for
 *            (the direct pieces of a TRANSFER with staged descriptors)
 * @gone:     completed (all) when the batch ended, after its regions were
 *            released and before @end_fn: none of its work requests is on
 *            the send queue any more (a revoking CANCEL waits for it)
 * @req:      the request a direct batch carries whole (its @end_fn ends
 *            it, req.c), or NULL
 * @ndesc:    descriptors of the TRANSFER in @pl (its direct ones), for the
 *            counters (stats.c)
 * @poll:     a small batch its submitter waits for with
 *            hixl_xbatch_wait(): it may spin (poll.c), and its wait feeds
 *            the link's EWMAs
 * @post_ns:  with @poll, hixl_poll_clock() just before hixl_xbatch_submit()
 * @xr:       the striped TRANSFER (xrail.c) this batch is a sub-batch or
 *            the anchor of (a reference, dropped when the batch is
 *            freed), or NULL
 * @xr_anchor: the anchor: never queued, cancelling it cancels @xr
 * @xr_node:  a sub-batch: on @xr->subs until it ended, under @xr->lock
 * @xr_pieces: a sub-batch: the indices into @xr->pc of its rail pieces
 * @xr_plend: for each of @xr_pieces, @pl.n after it was planned (the
 *            piece is complete when @acked reached it)
 * @xr_n:     entries of @xr_pieces and @xr_plend
 * @xr_rail:  a sub-batch: its rail
 * @xr_cancel_seen: hixl_xrail_cancel() took it         (under @xr->lock)
 * @xr_wire_seen: hixl_xrail_wire() looked at it        (under @xr->lock)
 */
struct hixl_xbatch {
	struct kref ref;
	struct hixl_engine *eng;
	struct hixl_link *l;
	struct list_head eng_node;
	struct list_head q_node;
	struct list_head cancel_node;
	struct hixl_plan pl;
	u32 op;
	u32 count;
	u64 tag;
	bool planning;
	u32 next;
	u32 acked;
	u32 chains;
	bool queued;
	bool submitted;
	bool ended;
	int status;
	u32 failed;
	struct delayed_work tmo;
	void (*end_fn)(struct hixl_xbatch *b);
	struct completion done;
	struct completion gone;
	struct hixl_req *req;
	u32 ndesc;
	bool poll;
	u64 post_ns;
	struct hixl_xrail *xr;
	bool xr_anchor;
	struct list_head xr_node;
	u32 *xr_pieces;
	u32 *xr_plend;
	u32 xr_n;
	u32 xr_rail;
	bool xr_cancel_seen;
	bool xr_wire_seen;
};

int hixl_link_xq_init(struct hixl_link *l);
void hixl_link_xq_free(struct hixl_link *l);
struct hixl_xbatch *hixl_xbatch_new(struct hixl_engine *eng, struct hixl_link *l, u32 op,
				    u32 count, u64 tag);
void hixl_xbatch_put(struct hixl_xbatch *b);
void hixl_xbatch_submit(struct hixl_xbatch *b, unsigned long deadline, bool nonblock);
void hixl_xbatch_cancel(struct hixl_xbatch *b);
int hixl_xbatch_wait(struct hixl_xbatch *b, u32 *failed);
bool hixl_xbatch_on_wire(struct hixl_xbatch *b);
void hixl_xq_break(struct hixl_link *l, int err);
extern const struct hixl_link_queue_ops hixl_xq_link_ops;
void hixl_xq_plan_begin(struct hixl_link *l);
void hixl_xq_plan_end(struct hixl_link *l);

#endif /* _HIXL_XQ_H */
