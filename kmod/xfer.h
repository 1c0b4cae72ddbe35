/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xfer.h - transfers: a TRANSFER planned into pieces (xfer.c, plan.c) and queued
 * as a batch on its link's transfer queue (xq.c).  Locks: in the order of
 * engine.h.
 */
#ifndef _HIXL_XFER_H
#define _HIXL_XFER_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <rdma/hixl.h>
#include "link.h"

struct hixl_req;
struct hixl_xrail;

/* One work request's worth of a descriptor (plan.c). */
struct hixl_piece {
	u64 laddr;		/* local RDMA address */
	u64 raddr;		/* remote RDMA address */
	u32 len;
	u32 lkey;
	u32 rkey;
	u32 desc;
};

/* The pieces of a TRANSFER (@bytes: their sum), and the regions it holds (users raised). */
struct hixl_plan {
	struct hixl_piece *p;
	u32 n, cap;
	u64 bytes;
	struct hixl_region **held;
	u32 nheld;
};

#define HIXL_MAX_SGE_LEN	SZ_1G	/* bytes one work request moves at most */
/*
 * Pieces one TRANSFER's plan may have (work requests of the direct path,
 * stripe chunks of a striped one): its planning arrays stay below 200 MiB,
 * far from kvmalloc()'s INT_MAX, and are charged to the caller's memory
 * cgroup (GFP_KERNEL_ACCOUNT); more is -E2BIG.
 */
#define HIXL_MAX_PIECES		(1U << 22)
/* what the planning arrays of a TRANSFER are allocated with */
#define HIXL_PLAN_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

/* plan.c */
int hixl_plan_desc(struct hixl_link *l, u32 op, const struct hixl_op_desc *d, u32 idx,
		   struct hixl_plan *pl);
int hixl_stage_check(struct hixl_link *l, u32 op, const struct hixl_op_desc *d);
int hixl_split(const struct hixl_rmr *lm, u32 nl, const struct hixl_rmr *rm, u32 nr,
	       u64 la, u64 ra, u64 len, u32 desc, struct hixl_plan *pl);
void hixl_plan_free(struct hixl_plan *pl);
void hixl_plan_release(struct hixl_engine *eng, struct hixl_plan *pl);

/* xfer.c */
int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a);
int hixl_transfer_submit(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_req *req,
			 bool nonblock);

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
 * @post_ns:  with @poll, ktime_get_ns() just before hixl_xbatch_submit()
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
void hixl_link_xq_close(struct hixl_link *l);
void hixl_link_xq_free(struct hixl_link *l);
struct hixl_xbatch *hixl_xbatch_new(struct hixl_engine *eng, struct hixl_link *l, u32 op,
				    u32 count, u64 tag);
void hixl_xbatch_put(struct hixl_xbatch *b);
void hixl_xbatch_submit(struct hixl_xbatch *b, unsigned long deadline, bool nonblock);
void hixl_xbatch_cancel(struct hixl_xbatch *b);
int hixl_xbatch_wait(struct hixl_xbatch *b, u32 *failed);
bool hixl_xbatch_on_wire(struct hixl_xbatch *b);
void hixl_xq_break(struct hixl_link *l, int err);
void hixl_xq_flush(struct hixl_link *l);

/* cancel.c: HIXL_IOC_CANCEL, plain and revoking */
int hixl_cmd_cancel(struct hixl_engine *eng, struct hixl_cancel *a, bool nonblock);
int hixl_revoke_wait(struct list_head *wire, unsigned int flush_ms, u32 *broken);
void hixl_xq_plan_begin(struct hixl_link *l);
void hixl_xq_plan_end(struct hixl_link *l);
bool hixl_xq_hold_ack(struct hixl_link *l, bool fence, u64 *applied);

/* poll.c: hybrid polling of small synchronous batches */
#define HIXL_POLL_MAX_BYTES	SZ_64K		/* larger batches never spin */
#define HIXL_POLL_EWMA_MAX_NS	(10ULL * NSEC_PER_SEC)	/* a sample counts at most this */
#define HIXL_POLL_EXPLORE	16	/* one batch in this many tries the other way */

extern unsigned int hixl_poll_us;
u64 hixl_poll_budget_ns(u64 spin_ns, u64 sleep_ns, u64 cap_ns, u32 seq);
u64 hixl_poll_ewma(u64 ewma_ns, u64 sample_ns);
bool hixl_poll_small(u64 bytes, u32 pieces);
void hixl_poll_record(struct hixl_link *l, bool spun, u64 post_ns);
bool hixl_poll_spin_until(struct completion *done, u64 end_ns);
bool hixl_poll_spin(struct hixl_link *l, struct completion *done, u64 post_ns);

#endif /* _HIXL_XFER_H */
