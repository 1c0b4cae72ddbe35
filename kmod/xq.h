/* SPDX-License-Identifier: GPL-2.0 */
/* xq.h - a link's transfer queue (xq.c). */
#ifndef _HIXL_XQ_H
#define _HIXL_XQ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/hixl.h>
#include <rdma/ib_verbs.h>

#include "link.h"
#include "plan.h"

struct hixl_req;
struct hixl_xrail;

/* Transfer WRs in flight per link; 8 left for the other senders' one each. */
#define HIXL_CHAIN	(HIXL_SQ_DEPTH - 8)

struct hixl_xchain;

/* one WR of a chain */
struct hixl_xwr {
	struct ib_cqe cqe;
	struct hixl_xchain *c;
	u32 i;
};

/* a chain on the send queue; freed by its last WR's completion */
struct hixl_xchain {
	struct hixl_xbatch *b;
	u32 first;		/* index of its first piece in b->pl */
	u32 n;
	struct hixl_xwr *w;
};

/**
 * struct hixl_xbatch - the RDMA part of one TRANSFER, queued on a link
 * @ref:      held by the submitter and an armed timeout
 * @eng:      the engine
 * @l:        the link (a reference)
 * @eng_node: in @eng->xfers while running, under @eng->xfer_lock
 * @q_node:   in @l->xq.batches while pieces wait, under @l->xq.lock
 * @cancel_node: on a CANCEL's list, under @eng->cancel_mutex
 * @pl:       the pieces; held regions are released when the batch ends
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @count:    descriptors of the TRANSFER
 * @tag:      the TRANSFER's tag, for HIXL_IOC_CANCEL
 * @planning: hixl_xq_plan_begin() not yet ended; submission ends it
 * @next:     pieces posted (under @l->xq.lock, as the next five)
 * @acked:    pieces known complete, in posting order
 * @chains:   chains of WRs on the send queue
 * @queued:   on @l->xq.batches
 * @submitted: hixl_xbatch_submit() ran; before, a cancel only sets @status
 * @ended:    @end_fn was or is about to be called
 * @status:   0 or the first error; nothing more is posted once set
 * @failed:   with @status, the descriptor to blame
 * @tmo:      the timeout
 * @end_fn:   called once when the batch ended, without locks
 * @done:     completed by @end_fn of a batch its submitter waits for
 * @gone:     completed when no WR of the batch is on the send queue
 * @req:      the request a direct batch ends, or NULL
 * @ndesc:    direct descriptors in @pl, for the counters
 * @poll:     its submitter waits with hixl_xbatch_wait() and may spin
 * @post_ns:  with @poll, hixl_poll_clock() before submission
 * @xr:       the striped TRANSFER this is a sub-batch or anchor of (a
 *            reference), or NULL
 * @xr_anchor: the anchor: never queued; cancelling it cancels @xr
 * @xr_node:  a sub-batch: on @xr->subs until it ended, under @xr->lock
 * @xr_pieces: indices into @xr->pc of its rail pieces
 * @xr_plend: for each of @xr_pieces, @pl.n after it was planned
 * @xr_n:     entries of @xr_pieces and @xr_plend
 * @xr_rail:  a sub-batch's rail
 * @xr_cancel_seen: hixl_xrail_cancel() took it (under @xr->lock)
 * @xr_wire_seen: hixl_xrail_wire() looked at it (under @xr->lock)
 * @sync_tmo: no timer: its waiter ends it at @deadline (hixl_xbatch_expire())
 * @deadline: jiffies, from hixl_xbatch_submit()
 * @room:     @pl's arrays for a small batch
 * @c_inl:    the one chain of a small batch
 * @w_inl:    @c_inl's WRs
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
	bool sync_tmo;
	unsigned long deadline;
	struct hixl_plan_room room;
	struct hixl_xchain c_inl;
	struct hixl_xwr w_inl[HIXL_PLAN_INLINE];
};

int hixl_link_xq_init(struct hixl_link *l);
void hixl_link_xq_free(struct hixl_link *l);
struct hixl_xbatch *hixl_xbatch_new(struct hixl_engine *eng, struct hixl_link *l, u32 op,
				    u32 count, u64 tag);
void hixl_xbatch_put(struct hixl_xbatch *b);
void hixl_xbatch_submit(struct hixl_xbatch *b, unsigned long deadline, bool nonblock);
void hixl_xbatch_cancel(struct hixl_xbatch *b);
void hixl_xbatch_expire(struct hixl_xbatch *b);
int hixl_xbatch_wait(struct hixl_xbatch *b, u32 *failed);
bool hixl_xbatch_on_wire(struct hixl_xbatch *b);
void hixl_xq_break(struct hixl_link *l, int err);
extern const struct hixl_link_queue_ops hixl_xq_link_ops;
void hixl_xq_plan_begin(struct hixl_link *l);
void hixl_xq_plan_end(struct hixl_link *l);

#endif /* _HIXL_XQ_H */
