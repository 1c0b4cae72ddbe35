/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrail.h - the striped data path (xrail.c, xrail_cancel.c): one TRANSFER
 * on a primary link with two usable rails or more, split into one ordinary
 * batch (struct hixl_xbatch, xq.c) per rail link, and re-posted on the
 * other rails when a rail link breaks under it (failover).  Its pure parts
 * are rail_plan.h's.  Locks: in the order of engine.h.
 */
#ifndef _HIXL_XRAIL_H
#define _HIXL_XRAIL_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <rdma/hixl.h>
#include "rail_plan.h"

struct hixl_engine;
struct hixl_link;
struct hixl_req;
struct hixl_xbatch;

/**
 * struct hixl_xrail - the parent of a striped TRANSFER ("rail batch")
 * @ref:      the submitter holds one, every sub-batch and the anchor one
 *            each (dropped when they are freed), a queued @work one
 * @eng:      the engine
 * @l:        the primary link (a reference)
 * @anchor:   a batch that is never queued: on @eng->xfers (so a CANCEL by
 *            tag finds the TRANSFER even between two sub-batches) and
 *            bound to the request (hixl_req_bind()); cancelling it cancels
 *            the rail batch (hixl_xrail_cancel()).  The rail batch holds
 *            its submitter reference until it ends
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @count:    descriptors of the TRANSFER
 * @tag:      its tag
 * @deadline: jiffies: the TRANSFER's, for every sub-batch, re-posted or not
 * @d:        the descriptors (a copy)
 * @pc:       the pieces (hixl_rail_plan()); @pc[i].rail is where piece i
 *            runs now (the failover work moves them)
 * @npc:      pieces in @pc
 * @mask:     rails the local regions allow (hixl_region_rails(), ANDed)
 * @rr:       the planner's cursor (hixl_rail_plan(), hixl_xrail_replan())
 * @lock:     protects the fields below
 * @subs:     sub-batches submitted and not ended (their xr_node)
 * @pending:  sub-batches not ended (those on @subs and those being built)
 * @redo:     pieces of broken rails waiting for the failover work
 * @nredo:    entries of @redo
 * @redo_err: the error of the last broken rail (the result when no rail
 *            is left)
 * @redo_from: bit i: rail i broke under this batch
 * @work_busy: @work is queued or running
 * @cancelled: hixl_xrail_cancel() ran: nothing more is submitted
 * @status:   0 or the error to report; @failed its descriptor (the lowest
 *            of the failures that are not failed over)
 * @failed:   see @status
 * @work:     the failover work (process context: plans, submits)
 * @wbuf:     the work's copy of @redo (only the work touches it)
 * @req:      the request the rail batch ends (hixl_xrail_finish())
 */
struct hixl_xrail {
	struct kref ref;
	struct hixl_engine *eng;
	struct hixl_link *l;
	struct hixl_xbatch *anchor;
	u32 op;
	u32 count;
	u64 tag;
	unsigned long deadline;
	struct hixl_op_desc *d;
	struct hixl_rail_piece *pc;
	u32 npc;
	u32 mask;
	u32 rr;
	spinlock_t lock;
	struct list_head subs;
	u32 pending;
	u32 *redo;
	u32 nredo;
	int redo_err;
	u32 redo_from;
	bool work_busy;
	bool cancelled;
	int status;
	u32 failed;
	struct delayed_work work;
	u32 *wbuf;
	struct hixl_req *req;
};

bool hixl_xrail_wanted(struct hixl_link *l);
int hixl_xrail_transfer(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_link *l,
			const struct hixl_op_desc *d, unsigned long deadline, struct hixl_req *req,
			bool nonblock, bool *planning, u32 min_rails);
bool hixl_xrail_rails_only(struct hixl_link *l);
void hixl_xrail_put(struct hixl_xrail *xr);

/* xrail_cancel.c */
void hixl_xrail_cancel(struct hixl_xrail *xr);
void hixl_xrail_wire(struct hixl_xrail *xr, struct list_head *wire);

#endif /* _HIXL_XRAIL_H */
