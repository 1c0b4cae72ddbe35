// SPDX-License-Identifier: GPL-2.0
/*
 * xrail_cancel.c - cancelling a striped TRANSFER (a rail batch, xrail.c).
 *
 * The parent has an anchor batch on the engine's xfers list (and in the
 * io_uring command) that is never queued; CANCEL by tag finds it and the
 * sub-batches (which carry the tag), hixl_xbatch_cancel() of the anchor
 * cancels every sub-batch and stops failover (hixl_xrail_cancel()), and a
 * revoking CANCEL also waits for every sub-batch on the wire
 * (hixl_xrail_wire(): each rail link it used is broken).  CANCEL counts
 * the TRANSFER once (cancel.c).
 *
 * Locks: xrail.lock only while a sub-batch is picked
 * (hixl_xrail_next_sub()); the sub-batch is cancelled or listed with no
 * lock of the rail batch held (engine.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/spinlock.h>

#include "xq.h"
#include "xrail.h"

/* what hixl_xrail_next_sub() looks for */
enum hixl_xrail_pick {
	HIXL_XRAIL_PICK_CANCEL,	/* not yet cancelled (xr_cancel_seen) */
	HIXL_XRAIL_PICK_WIRE,	/* not yet looked at (xr_wire_seen), not on a cancel list */
};

/*
 * The next sub-batch of @xr on @xr->subs that @pick has not taken yet,
 * marked taken, with a reference (hixl_xbatch_put()); NULL when none is
 * left.  HIXL_XRAIL_PICK_CANCEL also sets @xr->cancelled, under the same
 * lock, so that sub-batches submitted later end at submission.  A
 * sub-batch may end and leave @xr->subs meanwhile; one taken once is never
 * taken again, so the caller's loop ends.  Takes xr->lock.
 */
static struct hixl_xbatch *hixl_xrail_next_sub(struct hixl_xrail *xr, enum hixl_xrail_pick pick)
{
	struct hixl_xbatch *b, *found = NULL;

	spin_lock(&xr->lock);
	if (pick == HIXL_XRAIL_PICK_CANCEL)
		xr->cancelled = true;
	list_for_each_entry(b, &xr->subs, xr_node) {
		bool *seen = pick == HIXL_XRAIL_PICK_CANCEL ? &b->xr_cancel_seen :
							      &b->xr_wire_seen;

		if (*seen || (pick == HIXL_XRAIL_PICK_WIRE && !list_empty(&b->cancel_node)))
			continue;
		*seen = true;
		kref_get(&b->ref);
		found = b;
		break;
	}
	spin_unlock(&xr->lock);
	return found;
}

/**
 * hixl_xrail_cancel() - cancel a rail batch: every sub-batch, and failover
 * @xr: the rail batch (the caller holds a reference, through its anchor)
 *
 * Called by hixl_xbatch_cancel() of the anchor (HIXL_IOC_CANCEL, io_uring's
 * cancelation, a fatal signal to the ioctl caller).  Sub-batches submitted
 * later end at submission with -ECANCELED.
 *
 * Context: process context; takes xr->lock and each sub-batch's link's
 * xq.lock, one at a time.
 */
void hixl_xrail_cancel(struct hixl_xrail *xr)
{
	struct hixl_xbatch *b;

	while ((b = hixl_xrail_next_sub(xr, HIXL_XRAIL_PICK_CANCEL))) {
		hixl_xbatch_cancel(b);
		hixl_xbatch_put(b);
	}
}

/**
 * hixl_xrail_wire() - a revoking CANCEL: the rail batch's sub-batches on the wire
 * @xr:   the rail batch, cancelled (hixl_xrail_cancel())
 * @wire: the CANCEL's list of batches to flush (cancel_node); sub-batches
 *        on the wire that are not on it yet are added, with a reference
 *
 * Context: process context; the caller holds the engine's cancel_mutex
 * (which owns every cancel_node).
 */
void hixl_xrail_wire(struct hixl_xrail *xr, struct list_head *wire)
{
	struct hixl_xbatch *b;

	while ((b = hixl_xrail_next_sub(xr, HIXL_XRAIL_PICK_WIRE))) {
		if (hixl_xbatch_on_wire(b))
			list_add_tail(&b->cancel_node, wire);	/* keeps the reference */
		else
			hixl_xbatch_put(b);
	}
}
