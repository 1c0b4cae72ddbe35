// SPDX-License-Identifier: GPL-2.0
/*
 * xrail.c - striping: a direct TRANSFER on two or more rails becomes a batch per rail,
 * a broken rail's pieces re-planned on the others.  It holds no rdma_sem.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/slab.h>

#include "engine.h"
#include "stats.h"
#include "region.h"
#include "link.h"
#include "table.h"
#include "plan.h"
#include "xq.h"
#include "rail_plan.h"
#include "xrail.h"
#include "raillink.h"
#include "req.h"
#include "trace.h"

/* hixl_rail_plan()'s cursor */
static atomic_t hixl_xrail_cursor = ATOMIC_INIT(0);

static void hixl_xrail_free(struct kref *ref)
{
	struct hixl_xrail *xr = container_of(ref, struct hixl_xrail, ref);

	WARN_ON_ONCE(!list_empty(&xr->subs));
	kvfree(xr->d);
	kvfree(xr->pc);
	kvfree(xr->redo);
	kvfree(xr->wbuf);
	hixl_link_put(xr->l);
	kfree(xr);
}

/**
 * hixl_xrail_put() - drop a reference to a rail batch
 * @xr: the rail batch
 * Context: any but NMI.
 */
void hixl_xrail_put(struct hixl_xrail *xr)
{
	kref_put(&xr->ref, hixl_xrail_free);
}

/* Record a failure that is not failed over; xr->lock held. */
static void hixl_xrail_blame(struct hixl_xrail *xr, int err, u32 failed)
{
	if (!xr->status || failed < xr->failed) {
		xr->status = err;
		xr->failed = failed;
	}
}

/* Usable rails of primary @l within @allow, their links referenced in @rl[]. */
static u32 hixl_xrail_links(struct hixl_link *l, u32 allow, struct hixl_link **rl)
{
	u32 nr = min_t(u32, hixl_link_nr_rails(l), HIXL_MAX_RAILS), i, mask = 0;

	for (i = 0; i < HIXL_MAX_RAILS; i++) {
		rl[i] = NULL;
		if (i >= nr || !(allow & BIT(i)))
			continue;
		rl[i] = hixl_link_rail_get(l, i);
		if (rl[i])
			mask |= BIT(i);
	}
	return mask;
}

static void hixl_xrail_links_put(struct hixl_link **rl)
{
	u32 i;

	for (i = 0; i < HIXL_MAX_RAILS; i++)
		if (rl[i])
			hixl_link_put(rl[i]);
}

static void hixl_xrail_sub_end(struct hixl_xbatch *b);

/* Give up sub-batches that were built and never submitted. */
static void hixl_xrail_unbuild(struct hixl_engine *eng, struct hixl_xbatch **sb, u32 nsb)
{
	u32 i;

	for (i = 0; i < nsb; i++) {
		struct hixl_xbatch *b = sb[i];

		hixl_plan_release(eng, &b->pl);
		if (b->planning) {
			b->planning = false;
			hixl_xq_plan_end(b->l);
		}
		hixl_xbatch_put(b);	/* drops its link and rail batch references */
	}
}

/*
 * Activate the rail's MRs of the regions @b's pieces touch, as xfer.c does
 * for rail 0; the engine lock held.  Return: 0; -EAGAIN with @nonblock;
 * REG_MR's error with *@failed set.
 */
static int hixl_xrail_activate(struct hixl_xrail *xr, const u32 *idx, u32 n,
			       struct hixl_xbatch *b, bool nonblock, u32 *failed)
{
	struct hixl_link *rlk = b->l;
	u32 i;
	int ret;

	lockdep_assert_held(&xr->eng->lock);
	for (i = 0; i < n; i++) {
		const struct hixl_rail_piece *p = &xr->pc[idx[i]];
		struct hixl_region *r;

		if (p->rail != b->xr_rail)
			continue;
		r = hixl_region_lookup(xr->eng, xr->d[p->desc].local_addr + p->off, p->len);
		if (!r || hixl_region_mrset(r, b->xr_rail)->mrs_registered)
			continue;	/* planning says what is wrong with no region */
		if (nonblock)
			return -EAGAIN;
		mutex_lock(&rlk->msg.post_mutex);
		ret = hixl_link_reg_mrs(rlk, r);
		mutex_unlock(&rlk->msg.post_mutex);
		if (ret) {
			*failed = p->desc;
			return ret;
		}
	}
	return 0;
}

/*
 * Plan pieces @idx[0..@n) into one unsubmitted sub-batch per rail.  Takes
 * the engine lock, then each rail link's rt.lock.  Return: 0; -EAGAIN
 * with @nonblock; -ENOMEM; hixl_plan_desc()'s error with *@failed set.
 * Nothing stays built on error.
 */
static int hixl_xrail_build(struct hixl_xrail *xr, const u32 *idx, u32 n, struct hixl_link **rl,
			    bool nonblock, struct hixl_xbatch **sb, u32 *nsb, u32 *failed)
{
	struct hixl_engine *eng = xr->eng;
	u32 cnt[HIXL_MAX_RAILS] = { 0 };
	u32 i, r, k;
	int ret = 0, err;

	*nsb = 0;
	*failed = xr->count;
	for (i = 0; i < n; i++)
		cnt[xr->pc[idx[i]].rail]++;
	for (r = 0; r < HIXL_MAX_RAILS; r++) {
		struct hixl_xbatch *b;

		if (!cnt[r])
			continue;
		if (WARN_ON_ONCE(!rl[r])) {
			ret = -ENOLINK;
			goto fail;
		}
		b = hixl_xbatch_new(eng, rl[r], xr->op, xr->count, xr->tag);
		if (!b) {
			ret = -ENOMEM;
			goto fail;
		}
		sb[(*nsb)++] = b;
		kref_get(&xr->ref);
		b->xr = xr;
		b->xr_rail = r;
		b->end_fn = hixl_xrail_sub_end;
		b->xr_pieces = kvmalloc_array(cnt[r], sizeof(*b->xr_pieces), HIXL_PLAN_GFP);
		b->xr_plend = kvmalloc_array(cnt[r], sizeof(*b->xr_plend), HIXL_PLAN_GFP);
		b->pl.held = kvmalloc_array(cnt[r], sizeof(*b->pl.held), HIXL_PLAN_GFP);
		if (!b->xr_pieces || !b->xr_plend || !b->pl.held) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	if (!hixl_engine_lock_nb(eng, nonblock)) {
		ret = -EAGAIN;
		goto fail;
	}
	for (k = 0; k < *nsb && ret != -EAGAIN; k++) {
		struct hixl_xbatch *b = sb[k];
		struct hixl_link *rlk = b->l;

		if (b->xr_rail) {	/* rail 0's were activated by xfer.c */
			err = hixl_xrail_activate(xr, idx, n, b, nonblock, failed);
			if (err) {
				ret = err;
				break;
			}
		}
		hixl_xq_plan_begin(rlk);	/* a REGION_DEL's ACK waits for our pieces */
		b->planning = true;		/* hixl_xbatch_submit() ends it */
		if (!hixl_mutex_lock_nb(&rlk->rt.lock, nonblock)) {
			ret = -EAGAIN;
			break;
		}
		for (i = 0; i < n; i++) {
			const struct hixl_rail_piece *p = &xr->pc[idx[i]];
			struct hixl_op_desc sd = {};

			if (p->rail != b->xr_rail)
				continue;
			sd.local_addr = xr->d[p->desc].local_addr + p->off;
			sd.remote_addr = xr->d[p->desc].remote_addr + p->off;
			sd.len = p->len;
			err = hixl_plan_desc(rlk, xr->op, &sd, p->desc, &b->pl);
			if (err) {	/* go on: the lowest failing descriptor is blamed */
				if (!ret || p->desc < *failed) {
					ret = err;
					*failed = p->desc;
				}
				continue;
			}
			if (ret)
				continue;
			b->xr_pieces[b->xr_n] = idx[i];
			b->xr_plend[b->xr_n++] = b->pl.n;
		}
		mutex_unlock(&rlk->rt.lock);
	}
	mutex_unlock(&eng->lock);
	if (!ret)
		return 0;
fail:
	hixl_xrail_unbuild(eng, sb, *nsb);
	*nsb = 0;
	return ret;
}

/* A cancel that came first ends them at once. */
static void hixl_xrail_submit(struct hixl_xrail *xr, struct hixl_xbatch **sb, u32 nsb,
			      bool nonblock)
{
	bool cancelled;
	u32 i;

	spin_lock(&xr->lock);
	cancelled = xr->cancelled;
	xr->pending += nsb;	/* before the first can end */
	for (i = 0; i < nsb; i++)
		list_add_tail(&sb[i]->xr_node, &xr->subs);
	spin_unlock(&xr->lock);
	for (i = 0; i < nsb; i++) {
		if (cancelled)
			hixl_xbatch_cancel(sb[i]);	/* not submitted: the status only */
		/* @xr->subs' reference: hixl_xrail_sub_end() drops it */
		hixl_xbatch_submit(sb[i], xr->deadline, nonblock);
	}
}

/* End the rail batch through its anchor; the caller holds a reference. */
static void hixl_xrail_finish(struct hixl_xrail *xr)
{
	struct hixl_engine *eng = xr->eng;
	struct hixl_xbatch *a = xr->anchor;
	struct hixl_req *req = xr->req;
	int status = xr->status;
	u32 failed = status ? xr->failed : xr->count;

	spin_lock(&xr->l->xq.lock);
	a->status = status;
	a->failed = failed;
	a->ended = true;
	spin_unlock(&xr->l->xq.lock);
	spin_lock(&eng->xfer_lock);
	list_del_init(&a->eng_node);
	spin_unlock(&eng->xfer_lock);
	complete_all(&a->gone);
	if (!status)	/* an error counts once, at the request's end (req.c) */
		hixl_link_count(xr->l, xr->op == HIXL_OP_WRITE ? HIXL_CTR_WRITE_DIRECT_OPS :
				HIXL_CTR_READ_DIRECT_OPS, xr->count);
	hixl_req_bind(req, NULL);	/* before the anchor may be freed */
	xr->anchor = NULL;
	xr->req = NULL;
	hixl_xbatch_put(a);		/* the anchor's submitter reference */
	hixl_xrail_put(xr);		/* the submitter's (the caller holds another) */
	hixl_req_end(req, status, failed);
}

/* xr->lock held, xr->work_busy just set */
static void hixl_xrail_queue(struct hixl_xrail *xr, unsigned long delay)
{
	kref_get(&xr->ref);
	queue_delayed_work(xr->eng->wq, &xr->work, delay);
}

/* A sub-batch's end_fn; no lock held. */
static void hixl_xrail_sub_end(struct hixl_xbatch *b)
{
	struct hixl_xrail *xr = b->xr;
	int lerr = 0, st = b->status ? hixl_link_state(b->l, &lerr) : HIXL_LINK_READY;
	bool end, fail = false;
	u64 done = 0;
	u32 i;

	spin_lock(&xr->lock);
	list_del_init(&b->xr_node);
	xr->pending--;
	if (b->status && hixl_xrail_failover_ok(b->status, st, xr->cancelled,
						time_after_eq(jiffies, xr->deadline))) {
		for (i = 0; i < b->xr_n; i++) {
			if (b->xr_plend[i] > b->acked)
				xr->redo[xr->nredo++] = b->xr_pieces[i];
			else
				done += xr->pc[b->xr_pieces[i]].len;
		}
		xr->redo_err = lerr ? lerr : b->status;
		xr->redo_from |= BIT(b->xr_rail);
		fail = st < HIXL_LINK_ERROR;
		if (!xr->work_busy && xr->nredo) {
			xr->work_busy = true;
			hixl_xrail_queue(xr, 0);
		}
	} else if (b->status) {
		hixl_xrail_blame(xr, b->status, b->failed);
	}
	end = !xr->pending && !xr->work_busy;
	spin_unlock(&xr->lock);
	/* bytes the broken rail moved count there; descriptors on the primary */
	if (done)
		hixl_link_count_xfer(b->l, b->op, false, done, 0);
	if (fail)	/* flushed before its CM event: no new batch goes there */
		hixl_link_fail(b->l, b->status);
	if (end)
		hixl_xrail_finish(xr);
	hixl_xbatch_put(b);		/* @xr->subs' (the submitter's) */
}

/* The failover work: re-plan and re-submit the pieces of broken rails. */
static void hixl_xrail_work(struct work_struct *w)
{
	struct hixl_xrail *xr = container_of(to_delayed_work(w), struct hixl_xrail, work);
	struct hixl_engine *eng = xr->eng;
	struct hixl_link *rl[HIXL_MAX_RAILS];
	struct hixl_xbatch *sb[HIXL_MAX_RAILS];
	u32 n, i, mask, from, failed, failed0, nsb, tries = 0;
	bool cancelled, expired, end;
	u64 bytes = 0;
	int err, ret;

	expired = time_after_eq(jiffies, xr->deadline);
	spin_lock(&xr->lock);
	n = xr->nredo;
	memcpy(xr->wbuf, xr->redo, n * sizeof(*xr->wbuf));
	xr->nredo = 0;
	err = xr->redo_err;
	from = xr->redo_from;
	xr->redo_from = 0;
	cancelled = xr->cancelled;
	spin_unlock(&xr->lock);

	failed0 = xr->count;
	for (i = 0; i < n; i++) {
		failed0 = min(failed0, xr->pc[xr->wbuf[i]].desc);
		bytes += xr->pc[xr->wbuf[i]].len;
	}
	failed = failed0;
	ret = cancelled ? -ECANCELED : expired ? -ETIMEDOUT : 0;
	while (!ret && n) {
		mask = hixl_xrail_links(xr->l, xr->mask, rl);
		if (!mask) {
			ret = err;	/* no rail left: the link's error, as on one rail */
		} else {
			hixl_xrail_replan(xr->pc, xr->npc, xr->wbuf, n, mask, &xr->rr);
			if (!tries) {
				hixl_link_count(xr->l, HIXL_CTR_RAIL_FAILOVERS, 1);
				hixl_link_count(xr->l, HIXL_CTR_RAIL_REPOST_BYTES, bytes);
				hixl_rail_count_failover(eng, from, xr->pc, xr->wbuf, n);
				trace_hixl_rail_failover(eng->id, from ? __ffs(from) : 0, n, bytes,
							 mask);
			}
			ret = hixl_xrail_build(xr, xr->wbuf, n, rl, false, sb, &nsb, &failed);
			if (!ret)
				hixl_xrail_submit(xr, sb, nsb, false);
		}
		hixl_xrail_links_put(rl);
		/*
		 * -ENOENT: a rail's MRs went since hixl_xrail_links(); its
		 * link is no longer READY, so plan again without it.
		 */
		if (ret != -ENOENT || ++tries >= HIXL_MAX_RAILS)
			break;
		ret = 0;
		failed = failed0;
	}

	spin_lock(&xr->lock);
	if (ret)
		hixl_xrail_blame(xr, ret, failed);
	if (xr->nredo)
		hixl_xrail_queue(xr, 0);	/* more broke meanwhile: work_busy stays */
	else
		xr->work_busy = false;
	end = !xr->pending && !xr->work_busy;
	spin_unlock(&xr->lock);
	if (end)
		hixl_xrail_finish(xr);
	hixl_xrail_put(xr);		/* the queued work's */
}

/**
 * hixl_xrail_rails_only() - may a broken primary link still transfer?
 * @l: a primary link that is not READY
 * Return: true if a rail link of @l is READY.
 */
bool hixl_xrail_rails_only(struct hixl_link *l)
{
	u32 nr = min_t(u32, hixl_link_nr_rails(l), HIXL_MAX_RAILS), i;

	for (i = 1; i < nr; i++) {
		struct hixl_link *r = hixl_link_rail_get(l, i);

		if (r) {
			hixl_link_put(r);
			return true;
		}
	}
	return false;
}

/**
 * hixl_xrail_wanted() - may a direct batch on @l be striped at all?
 * @l: a primary link
 * Return: true if two or more rails are paired with the peer.
 */
bool hixl_xrail_wanted(struct hixl_link *l)
{
	return hixl_link_nr_rails(l) >= 2;
}

/* NULL if out of memory. */
static struct hixl_xrail *hixl_xrail_new(struct hixl_engine *eng, struct hixl_transfer *a,
					 struct hixl_link *l, const struct hixl_op_desc *d,
					 u32 npc, unsigned long deadline, struct hixl_req *req)
{
	struct hixl_xrail *xr = kzalloc(sizeof(*xr), GFP_KERNEL);

	if (!xr)
		return NULL;
	kref_init(&xr->ref);
	kref_get(&l->ref);
	xr->eng = eng;
	xr->l = l;
	xr->op = a->op;
	xr->count = a->count;
	xr->tag = a->tag;
	xr->deadline = deadline;
	xr->req = req;
	xr->failed = a->count;
	spin_lock_init(&xr->lock);
	INIT_LIST_HEAD(&xr->subs);
	INIT_DELAYED_WORK(&xr->work, hixl_xrail_work);
	xr->d = kvmalloc_array(a->count, sizeof(*xr->d), HIXL_PLAN_GFP);
	xr->pc = kvmalloc_array(npc, sizeof(*xr->pc), HIXL_PLAN_GFP);
	xr->redo = kvmalloc_array(npc, sizeof(*xr->redo), HIXL_PLAN_GFP);
	xr->wbuf = kvmalloc_array(npc, sizeof(*xr->wbuf), HIXL_PLAN_GFP);
	xr->anchor = hixl_xbatch_new(eng, l, a->op, a->count, a->tag);
	if (!xr->d || !xr->pc || !xr->redo || !xr->wbuf || !xr->anchor) {
		if (xr->anchor)
			hixl_xbatch_put(xr->anchor);
		hixl_xrail_put(xr);
		return NULL;
	}
	memcpy(xr->d, d, array_size(a->count, sizeof(*d)));
	kref_get(&xr->ref);		/* the anchor's */
	xr->anchor->xr = xr;
	xr->anchor->xr_anchor = true;
	return xr;
}

/* Drop a rail batch that was never submitted, and its anchor. */
static void hixl_xrail_drop(struct hixl_xrail *xr)
{
	hixl_xbatch_put(xr->anchor);	/* drops the anchor's reference to @xr */
	hixl_xrail_put(xr);
}

/* The usable rails every local region of @d allows, @rl referenced; or -EAGAIN. */
static long hixl_xrail_allowed(struct hixl_engine *eng, struct hixl_link *l,
			       const struct hixl_op_desc *d, u32 count, bool nonblock,
			       struct hixl_link **rl, u32 *regions)
{
	u32 allow = GENMASK(HIXL_MAX_RAILS - 1, 0), i;

	if (!hixl_engine_lock_nb(eng, nonblock))
		return -EAGAIN;
	for (i = 0; i < count && allow; i++) {
		struct hixl_region *r = hixl_region_lookup(eng, d[i].local_addr, d[i].len);

		allow &= r ? hixl_region_rails(r) : BIT(0);
	}
	mutex_unlock(&eng->lock);
	*regions = allow;
	return hixl_xrail_links(l, allow, rl);
}

/**
 * hixl_xrail_transfer() - queue a direct TRANSFER striped over @l's rails
 * @eng:       the engine
 * @a:         the TRANSFER, planned on @l without staging; out: failed
 * @l:         the primary link, referenced
 * @d:         the descriptors
 * @deadline:  the TRANSFER's, jiffies
 * @req:       its request, started; the rail batch ends it
 * @nonblock:  return -EAGAIN rather than sleep on a lock
 * @planning:  in/out: the caller's hixl_xq_plan_begin() is open; ended here
 * @min_rails: usable rails needed: 2, or 1 for a broken primary
 * Context: process context, rdma_sem held for reading.
 * Return: -EIOCBQUEUED queued; 1 fewer than @min_rails usable (nothing
 * done); -EAGAIN; else hixl_cmd_transfer()'s errors, nothing queued.
 */
int hixl_xrail_transfer(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_link *l,
			const struct hixl_op_desc *d, unsigned long deadline, struct hixl_req *req,
			bool nonblock, bool *planning, u32 min_rails)
{
	struct hixl_link *rl[HIXL_MAX_RAILS];
	struct hixl_xbatch *sb[HIXL_MAX_RAILS], *anchor;
	u32 map[HIXL_MAX_RAILS], regions, nr = 0, npc = 0, nsb, i, rr;
	struct hixl_xrail *xr;
	long mask, k;
	u64 *lens = NULL, npc64 = 0;
	int ret;

	for (i = 0; i < a->count; i++) {	/* checked by xfer.c unless @l is broken */
		if (!d[i].len || hixl_range_check(d[i].local_addr, d[i].len) ||
		    hixl_range_check(d[i].remote_addr, d[i].len)) {
			a->failed = i;
			return d[i].len ? -EOVERFLOW :
			       hixl_einval("TRANSFER: descriptor %u: len 0", i);
		}
	}
	mask = hixl_xrail_allowed(eng, l, d, a->count, nonblock, rl, &regions);
	if (mask < 0)
		return mask;
	if (hweight32(mask) < min_rails) {
		hixl_xrail_links_put(rl);
		return 1;
	}
	for (i = 0; i < HIXL_MAX_RAILS; i++)
		if (mask & BIT(i))
			map[nr++] = i;
	/* bounded: each descriptor is inside a registration */
	for (i = 0; i < a->count; i++)
		npc64 += d[i].len >= HIXL_RAIL_STRIPE_MIN ?
			 DIV_ROUND_UP_ULL(d[i].len, HIXL_RAIL_CHUNK) : 1;
	ret = -E2BIG;
	if (npc64 > HIXL_MAX_PIECES) {
		pr_debug_ratelimited("TRANSFER: %llu stripe chunks, more than %u\n", npc64,
				     HIXL_MAX_PIECES);
		goto out_links;
	}
	ret = -ENOMEM;
	npc = npc64;
	lens = kvmalloc_array(a->count, sizeof(*lens), HIXL_PLAN_GFP);
	xr = lens ? hixl_xrail_new(eng, a, l, d, npc, deadline, req) : NULL;
	if (!xr)
		goto out_links;
	xr->mask = regions;
	for (i = 0; i < a->count; i++)
		lens[i] = d[i].len;
	rr = (u32)atomic_inc_return(&hixl_xrail_cursor) % nr;
	k = hixl_rail_plan(lens, a->count, nr, HIXL_RAIL_STRIPE_MIN, HIXL_RAIL_CHUNK, &rr,
			   xr->pc, npc);
	if (WARN_ON_ONCE(k != npc)) {
		ret = k < 0 ? k : -EINVAL;
		goto out_drop;
	}
	xr->npc = npc;
	xr->rr = map[rr];
	for (i = 0; i < npc; i++) {
		xr->pc[i].rail = map[xr->pc[i].rail];
		xr->wbuf[i] = i;
	}
	ret = hixl_xrail_build(xr, xr->wbuf, npc, rl, nonblock, sb, &nsb, &a->failed);
	if (ret)
		goto out_drop;
	kvfree(lens);
	lens = NULL;
	if (*planning) {
		hixl_xq_plan_end(l);
		*planning = false;
	}
	anchor = xr->anchor;
	spin_lock(&eng->xfer_lock);	/* a CANCEL by tag finds it from now on */
	list_add_tail(&anchor->eng_node, &eng->xfers);
	spin_unlock(&eng->xfer_lock);
	if (hixl_req_bind(req, anchor))
		hixl_xbatch_cancel(anchor);	/* cancelled already: so is every sub-batch */
	hixl_req_cancelable(req);
	hixl_xrail_submit(xr, sb, nsb, nonblock);
	hixl_xrail_links_put(rl);
	return -EIOCBQUEUED;		/* @xr may be gone already */

out_drop:
	hixl_xrail_drop(xr);
out_links:
	kvfree(lens);
	hixl_xrail_links_put(rl);
	return ret;
}
