/* SPDX-License-Identifier: GPL-2.0 */
/* xrail.h - striped TRANSFERs and their failover (xrail.c, xrail_cancel.c) */
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
 * @ref:      held by the submitter, each sub-batch, the anchor and @work
 * @eng:      the engine
 * @l:        the primary link (a reference)
 * @anchor:   a batch never queued, on @eng->xfers for CANCEL
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @count:    descriptors of the TRANSFER
 * @tag:      its tag
 * @deadline: the TRANSFER's deadline, jiffies
 * @d:        the descriptors (a copy)
 * @pc:       the pieces; @pc[i].rail is where piece i runs now
 * @npc:      pieces in @pc
 * @mask:     rails the local regions allow
 * @rr:       the planner's cursor
 * @lock:     protects the fields below
 * @subs:     sub-batches submitted and not ended
 * @pending:  sub-batches not ended, including those being built
 * @redo:     pieces of broken rails waiting for the failover work
 * @nredo:    entries of @redo
 * @redo_err: the error of the last broken rail
 * @redo_from: bit i: rail i broke under this batch
 * @work_busy: @work is queued or running
 * @cancelled: hixl_xrail_cancel() ran: nothing more is submitted
 * @status:   0 or the error to report
 * @failed:   the descriptor @status blames
 * @work:     the failover work
 * @wbuf:     the work's copy of @redo
 * @req:      the request the rail batch ends
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

void hixl_xrail_cancel(struct hixl_xrail *xr);
void hixl_xrail_wire(struct hixl_xrail *xr, struct list_head *wire);

#endif /* _HIXL_XRAIL_H */
