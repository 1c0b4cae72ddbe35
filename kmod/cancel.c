// SPDX-License-Identifier: GPL-2.0
/*
 * cancel.c - HIXL_IOC_CANCEL (ioctl and URING_CMD): end an engine's running
 * batches of one tag with -ECANCELED, and, with HIXL_CANCEL_REVOKE, take
 * back the caller's memory before returning.
 *
 * A plain CANCEL (xq.c, hixl_xbatch_cancel()) posts nothing more of a batch
 * and ends it when what is on the wire has completed; it returns at once,
 * while those work requests may still read (WRITE) or write (READ) the
 * caller's buffers for as long as the device takes to finish them: with
 * rxe on the debug kernel, seconds for a 32 MiB batch.
 *
 * A revoking CANCEL makes that window end before it returns.  On an RC QP
 * nothing can stop one posted work request short of moving the QP to the
 * error state: then the device stops processing the send queue and
 * completes every request on it with IB_WC_WR_FLUSH_ERR; once a request's
 * completion (or that of a later request on the same send queue, the
 * queue completes in order) has been seen, the device no longer touches
 * its buffers - the guarantee ib_drain_sq() and every ULP's teardown rely
 * on.  So for every link that has requests of a cancelled batch on the
 * wire, hixl_revoke_wait():
 *
 *   1. breaks the link with -ECONNABORTED (hixl_xq_break(): the QP to the
 *      error state through rdma_disconnect(), which also sends the peer a
 *      DREQ; the first error of a link sticks, so a link that broke
 *      already keeps its own error);
 *   2. waits until each cancelled batch has ended (@gone: its last chain's
 *      completion, success or flush, came back and its regions were
 *      released), at most HIXL_REVOKE_FLUSH_MS (5 s) for all of them.
 *
 * A device that has not flushed by then is broken beyond what a CANCEL can
 * fix: CANCEL returns -ETIMEDOUT, and the batches end (and give the memory
 * back) only when their flushes do come, or when the link is torn down
 * (DISCONNECT, engine close, device removal destroy the QP, which flushes
 * or frees everything).  A fatal signal stops the wait (-EINTR): the
 * process is going away.
 *
 * What the peer may have seen (docs/abi.md, "Revoking cancel"): for a
 * WRITE, any subset of the cancelled bytes, each with the value it had when
 * the device read it, may have landed in the peer's region, some of them
 * even after CANCEL returned (packets already on the network); no byte
 * written to our buffer after CANCEL returned ever reaches the peer.  For a
 * READ, the peer's memory is not changed; our buffer may hold any subset of
 * the data when CANCEL returns, and nothing of the READ changes it after.
 *
 * The cost: the link is broken for its other users too.  Their batches
 * with requests on the wire flush and end with -ECONNABORTED, those still
 * queued end with it at once, and later calls on the link get it until the
 * link is replaced by the next CONNECT to the peer (the library's
 * AutoConnect does that by itself).  -ECONNABORTED is only ever a
 * consequence of a revoking CANCEL: retry the batch, the bytes are the
 * same (READ and WRITE are idempotent).  Re-establishing the link inside
 * the kernel and re-posting those batches is not done yet.
 *
 * A striped TRANSFER (xrail.c) is one batch per rail link it uses and an
 * anchor: CANCEL cancels all of them, counts the TRANSFER once, and a
 * revoking CANCEL breaks every rail link with a sub-batch on the wire and
 * waits for each of them (hixl_xrail_wire()).
 *
 * Batches on a same-host link (local_xfer.c, a kernel copy in the TRANSFER
 * caller's own thread) and staged descriptors (stage.c) are not on a send
 * queue: a revoking CANCEL cancels them like a plain one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/signal.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "link.h"
#include "xq.h"
#include "cancel.h"
#include "xrail.h"

/**
 * hixl_revoke_wait() - flush the work requests of cancelled batches
 * @wire:     batches (linked by their cancel_node, the caller holds a
 *            reference to each and @eng->cancel_mutex) that were cancelled
 *            with hixl_xbatch_cancel() and were still on the wire
 * @flush_ms: how long the flushes may take, all together, in ms
 * @broken:   out: the links of @wire (each counted once)
 *
 * Breaks every link of @wire with -ECONNABORTED (its QP to the error
 * state) and waits until every batch of @wire has ended; empties @wire and
 * drops its references.  Follows what drivers/infiniband/core/cq.c's
 * ib_drain_sq() relies on: after the QP went to the error state, the
 * completion of a request says the device is done with its buffers.
 *
 * Context: process context, sleeps (rdma_disconnect(), the wait).
 * Return: 0 when every batch ended (none of their work requests can touch
 * memory any more); -ETIMEDOUT when one had not ended after @flush_ms (it
 * ends when its flush comes or its link is torn down); -EINTR on a fatal
 * signal.
 */
int hixl_revoke_wait(struct list_head *wire, unsigned int flush_ms, u32 *broken)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(flush_ms);
	struct hixl_xbatch *b, *c, *tmp;
	int ret = 0;

	*broken = 0;
	list_for_each_entry(b, wire, cancel_node) {
		bool seen = false;

		list_for_each_entry(c, wire, cancel_node) {	/* a few batches: no set */
			if (c == b)
				break;
			seen |= c->l == b->l;
		}
		if (seen)
			continue;
		hixl_xq_break(b->l, -ECONNABORTED);
		(*broken)++;
	}
	list_for_each_entry_safe(b, tmp, wire, cancel_node) {
		long left;

		if (!ret) {
			left = wait_for_completion_killable_timeout(&b->gone,
								    hixl_jiffies_left(deadline));
			if (left < 0)
				ret = -EINTR;
			else if (!left)
				ret = -ETIMEDOUT;
			if (ret)
				hixl_link_warn(b->l, "revoking CANCEL: %s before the flush\n",
					       ret == -EINTR ? "killed" : "device did not flush");
		}
		list_del_init(&b->cancel_node);
		hixl_xbatch_put(b);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_revoke_wait);

/**
 * hixl_cmd_cancel() - HIXL_IOC_CANCEL: cancel the engine's batches with a tag
 * @eng:      the engine
 * @a:        in: tag (non-zero), flags (0 or HIXL_CANCEL_REVOKE), reserved
 *            0; out: count, broken
 * @nonblock: the caller must not sleep (io_uring's inline issue): return
 *            -EAGAIN rather than wait for another CANCEL's cancel_mutex, or
 *            for a revoking CANCEL's flush
 *
 * Every batch of @eng with @a->tag that is still running ends with
 * -ECANCELED (hixl_xbatch_cancel()).  With HIXL_CANCEL_REVOKE, the links
 * of those with work requests on the wire are broken and their flushes
 * waited for (hixl_revoke_wait(); the head of this file says why and what
 * the peer may have seen): on return 0 no RDMA request of those batches
 * can read or write the caller's memory any more.
 *
 * Context: process context; sleeps on the engine's cancel_mutex unless
 * @nonblock, and for the flush with HIXL_CANCEL_REVOKE.
 * Return: 0 (count may be 0: nothing with that tag is running);
 *  -EINVAL for tag 0, unknown flags or reserved fields;
 *  -EPERM when the caller is not the engine's process (a forked child);
 *  -EAGAIN with @nonblock, when another CANCEL holds cancel_mutex or
 *          HIXL_CANCEL_REVOKE is asked (nothing was cancelled);
 *  -ETIMEDOUT (HIXL_CANCEL_REVOKE) the device did not flush the batches'
 *          requests within HIXL_REVOKE_FLUSH_MS: they are cancelled, but
 *          their memory is not revoked yet;
 *  -EINTR (HIXL_CANCEL_REVOKE) a fatal signal arrived during that wait.
 */
int hixl_cmd_cancel(struct hixl_engine *eng, struct hixl_cancel *a, bool nonblock)
{
	bool revoke = a->flags & HIXL_CANCEL_REVOKE;
	struct hixl_xbatch *b, *tmp;
	LIST_HEAD(anchors);
	LIST_HEAD(found);
	LIST_HEAD(wire);
	u32 n = 0;
	int ret = 0;

	a->count = 0;
	a->broken = 0;
	if (!a->tag)
		return hixl_einval("CANCEL: tag 0");
	if (a->flags & ~HIXL_CANCEL_FLAGS)
		return hixl_einval("CANCEL: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved[0])
		return hixl_einval("CANCEL: reserved is not zero");
	if (!hixl_is_owner(eng))
		return -EPERM;
	if (nonblock && revoke)
		return -EAGAIN;		/* waits for the flush: from a worker */
	if (nonblock) {
		if (!mutex_trylock(&eng->cancel_mutex))
			return -EAGAIN;
	} else {
		mutex_lock(&eng->cancel_mutex);	/* owns every cancel_node */
	}
	spin_lock(&eng->xfer_lock);
	list_for_each_entry(b, &eng->xfers, eng_node) {
		if (b->tag != a->tag)
			continue;
		kref_get(&b->ref);
		list_add_tail(&b->cancel_node, &found);
	}
	spin_unlock(&eng->xfer_lock);
	list_for_each_entry_safe(b, tmp, &found, cancel_node) {
		list_del_init(&b->cancel_node);
		spin_lock(&b->l->xq.lock);
		if (!b->ended && !b->status && (!b->xr || b->xr_anchor))
			n++;	/* a striped TRANSFER counts once: its anchor */
		spin_unlock(&b->l->xq.lock);
		hixl_xbatch_cancel(b);
		if (revoke && hixl_xbatch_on_wire(b))
			list_add_tail(&b->cancel_node, &wire);	/* keeps our reference */
		else if (revoke && b->xr_anchor)
			list_add_tail(&b->cancel_node, &anchors);	/* keeps our reference */
		else
			hixl_xbatch_put(b);
	}
	/*
	 * a striped TRANSFER's sub-batches on the wire that the walk above did
	 * not meet (submitted by its failover after it): flushed too
	 */
	list_for_each_entry_safe(b, tmp, &anchors, cancel_node) {
		list_del_init(&b->cancel_node);
		hixl_xrail_wire(b->xr, &wire);
		hixl_xbatch_put(b);
	}
	if (!list_empty(&wire))
		ret = hixl_revoke_wait(&wire, HIXL_REVOKE_FLUSH_MS, &a->broken);
	mutex_unlock(&eng->cancel_mutex);
	a->count = n;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_cancel);
