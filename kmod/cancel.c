// SPDX-License-Identifier: GPL-2.0
/*
 * cancel.c - HIXL_IOC_CANCEL: end an engine's batches of one tag; REVOKE also breaks links
 * with requests on the wire and waits for the flush, so the caller's memory is then untouched
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
 * @wire:     cancelled batches on the wire, by cancel_node, held; emptied
 * @flush_ms: time for all the flushes, ms
 * @broken:   out: links broken
 * Context: process context, sleeps; cancel_mutex held.
 * Return: 0 every batch ended; -ETIMEDOUT; -EINTR fatal signal.
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
 * @a:        in: tag, flags; out: count, broken
 * @nonblock: io_uring inline issue: -EAGAIN rather than sleep
 * Context: process context; sleeps on cancel_mutex unless @nonblock.
 * Return: 0; -EINVAL bad argument; -EPERM not the owner; -EAGAIN would
 * block; -ETIMEDOUT not flushed in time; -EINTR fatal signal.
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
