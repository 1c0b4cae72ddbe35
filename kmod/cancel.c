// SPDX-License-Identifier: GPL-2.0
/*
 * cancel.c - HIXL_IOC_CANCEL: end an engine's running batches of one tag
 * with -ECANCELED; with HIXL_CANCEL_REVOKE, also take back the caller's
 * memory before returning.
 *
 * A plain CANCEL posts nothing more and returns at once; requests already
 * posted may still touch the caller's buffers until they complete.  Only
 * moving the QP to error stops them: the device then flushes the send
 * queue in order, and a request's completion means its buffers are no
 * longer used (what ib_drain_sq() relies on).  So a revoking CANCEL breaks
 * each link with cancelled requests on the wire (-ECONNABORTED, for the
 * link's other users too) and waits up to HIXL_REVOKE_FLUSH_MS for the
 * flushes.  What the peer may have seen: docs/abi.md, "Revoking cancel".
 *
 * Same-host copies and staged descriptors are not on a send queue: a
 * revoking CANCEL cancels them as a plain one.
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
 * @wire:     cancelled batches still on the wire, by cancel_node, each
 *            referenced; the caller holds @eng->cancel_mutex
 * @flush_ms: time for all the flushes, in ms
 * @broken:   out: the links broken, each counted once
 *
 * Breaks each link of @wire with -ECONNABORTED and waits for every batch
 * to end; empties @wire and drops its references.
 *
 * Context: process context, sleeps.
 * Return: 0 when every batch ended; -ETIMEDOUT one had not after
 * @flush_ms; -EINTR on a fatal signal.
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
 * @a:        in: tag (non-zero), flags (0 or HIXL_CANCEL_REVOKE); out:
 *            count, broken
 * @nonblock: io_uring inline issue: -EAGAIN rather than sleep
 *
 * With HIXL_CANCEL_REVOKE, on return 0 no RDMA request of those batches
 * can touch the caller's memory.
 *
 * Context: process context; sleeps on cancel_mutex unless @nonblock, and
 * for the flush.
 * Return: 0 (count may be 0), or
 *  -EINVAL tag 0, unknown flags or reserved fields;
 *  -EPERM not the engine's process;
 *  -EAGAIN @nonblock and cancel_mutex busy or REVOKE asked;
 *  -ETIMEDOUT REVOKE: not flushed within HIXL_REVOKE_FLUSH_MS;
 *  -EINTR REVOKE: a fatal signal during the wait.
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
	/* sub-batches failover submitted after the walk above */
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
