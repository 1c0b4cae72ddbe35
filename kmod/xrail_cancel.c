// SPDX-License-Identifier: GPL-2.0
/* xrail_cancel.c - cancelling a striped TRANSFER's anchor cancels every sub-batch */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/spinlock.h>

#include "xq.h"
#include "xrail.h"

enum hixl_xrail_pick {
	HIXL_XRAIL_PICK_CANCEL,	/* not yet cancelled (xr_cancel_seen) */
	HIXL_XRAIL_PICK_WIRE,	/* not yet looked at (xr_wire_seen), not on a cancel list */
};

/* PICK_CANCEL sets @xr->cancelled under the same lock: later submissions end at once */
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
 * hixl_xrail_cancel() - cancel every sub-batch of a rail batch, and failover
 * @xr: the rail batch, held through its anchor
 * Context: process context; takes xr->lock and each xq.lock, one at a time.
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
 * hixl_xrail_wire() - list a cancelled rail batch's sub-batches on the wire
 * @xr:   the rail batch, cancelled
 * @wire: the revoking CANCEL's list; sub-batches are added held
 * Context: process context; cancel_mutex held.
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
