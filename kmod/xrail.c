// SPDX-License-Identifier: GPL-2.0
/*
 * xrail.c - the striped data path: one TRANSFER
 * spread over the rail links of its primary link, and failover.  The pure
 * planning (hixl_rail_plan(), hixl_xrail_replan(),
 * hixl_xrail_failover_ok()) is rail_plan.c's, cancelling a rail batch
 * xrail_cancel.c's.
 *
 * When: a TRANSFER on a primary link (rail 0) whose batch goes direct (no
 * staged descriptor, not a same-host link; xfer.c decides) and which has
 * two usable rails or more: rail i usable when its link is READY
 * (hixl_link_rail_get()) and every local region of the batch has MRs on
 * rail i (hixl_region_rails(), ANDed over the descriptors).  Anything else
 * takes today's one-link path untouched: the test is hixl_link_nr_rails()
 * first, so a one-rail link allocates nothing more than before.
 *
 * How: hixl_rail_plan() cuts the descriptors into pieces (a descriptor of
 * HIXL_RAIL_STRIPE_MIN bytes or more in HIXL_RAIL_CHUNK chunks, smaller
 * ones whole) and gives each to the least-loaded usable rail.  The pieces
 * of one rail become one ordinary batch (struct hixl_xbatch) on that
 * rail's link, planned there as xfer.c plans any descriptor on any link
 * (hixl_plan_desc(): that rail's local MRs, that link's peer table), so
 * the transfer queue (xq.c) does credits, chains, completions and
 * timeouts as for a one-rail batch.  Every sub-batch is planned before
 * the first is submitted: a descriptor error is found before anything is
 * posted.  The parent (struct hixl_xrail) ends when every sub-batch ended
 * and no failover is pending: 0, or the lowest failing descriptor index
 * with its error; it ends the TRANSFER's request then (hixl_req_end()).
 *
 * Failover: a sub-batch that ended with an error while its link is no
 * longer READY (QP error, keep-alive, DREQ, device removal: the rail
 * broke; hixl_xrail_failover_ok()), and not because it was cancelled or
 * timed out, hands its unfinished pieces (those past the last completed
 * chain: xbatch.acked) to the failover work, which moves them onto the
 * rails usable now (hixl_xrail_replan(), least-loaded) and submits them
 * as new sub-batches with the TRANSFER's deadline.  RDMA READ and WRITE
 * of the same bytes are idempotent, so a piece that did land on the broken
 * rail may be written again.  This repeats until the batch succeeds, the
 * deadline passes (-ETIMEDOUT) or no rail is left: then the error of the
 * last rail that broke, as a one-rail link reports its own.
 *
 * Cancel: the parent has an anchor batch on the engine's xfers list (and
 * bound to the request, req.c) that is never queued; cancelling it
 * cancels the rail batch (xrail_cancel.c).
 *
 * Counters: each sub-batch counts its bytes on its own link (and the
 * engine; one failed over, the bytes of the pieces it completed, so every
 * byte counts once, on the rail that moved it); the parent counts the
 * descriptors (ops), the failovers and re-posted bytes on the primary link
 * (and the engine), and its error is counted there once, at the
 * request's end (req.c);
 * per rail (GET_STATS's HIXL_STATS_RAILS) the failover away from each
 * broken rail and the bytes re-posted onto each rail
 * (hixl_rail_count_failover(), railstats.c).
 *
 * Locks: xrail.lock is innermost: nothing else is taken under it.  A
 * striped batch in flight holds no rdma_sem: not through io_uring, and not
 * while the ioctl waits for it (hixl_req_wait() releases the command's
 * for the wait).  So a rail's device removal, which destroys the
 * rail's links (failing the sub-batch over) and then takes rdma_sem for
 * writing to free the rail's MRs, never waits for a batch that goes on on
 * the other rails.  The failover work takes no rdma_sem either, and needs
 * none: it plans under the engine lock, which a rail's removal also holds
 * to free that rail's MRs, on rail links it holds references to (a
 * destroyed link's queue ends new batches at submission).  Then each rail
 * link's post_mutex and rt.lock, as xfer.c.
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

/* where the next striped batch starts (hixl_rail_plan()'s cursor) */
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
 *
 * Context: any that may kvfree() (not NMI).
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

/*
 * The rails of primary link @l that are usable now and allowed by @allow:
 * their links referenced in @rl[] (NULL elsewhere).  Return: their mask.
 */
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
 * Activate (IB_WR_REG_MR on @b's rail link) the rail's MRs of the regions
 * @b's pieces among @idx[0..@n) touch, as xfer.c does for rail 0; the
 * engine lock held.  Usually done already: table.c registers a region's
 * MRs on a rail when it announces them on that rail's link.  Return: 0,
 * -EAGAIN (@nonblock: it would wait for the device), or REG_MR's error
 * with *@failed the descriptor.
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
 * Plan pieces @idx[0..@n) of @xr, each on the rail its .rail names (whose
 * link is @rl[rail]), into one new sub-batch per rail: @sb[0..*@nsb), not
 * submitted.  Takes the engine lock, then each rail link's rt.lock (only
 * tried with @nonblock).  Return: 0; -EAGAIN (@nonblock: a lock busy);
 * -ENOMEM; the error of the lowest failing descriptor from
 * hixl_plan_desc(), with *@failed its index.  On error nothing is left
 * built.
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

/* Submit built sub-batches; a cancel that came first ends them at once. */
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
		/* our reference is @xr->subs': hixl_xrail_sub_end() drops it */
		hixl_xbatch_submit(sb[i], xr->deadline, nonblock);
	}
}

/*
 * The rail batch has ended (no sub-batch pending, no failover work): say
 * so through the anchor.  The caller holds a reference to @xr.
 */
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

/* Queue the failover work; xr->lock held, xr->work_busy just set. */
static void hixl_xrail_queue(struct hixl_xrail *xr, unsigned long delay)
{
	kref_get(&xr->ref);
	queue_delayed_work(xr->eng->wq, &xr->work, delay);
}

/* A sub-batch's end_fn: no lock held (CQ handler, timeout, cancel, submit). */
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
		/* what completed is done: the pieces of chains that came back */
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
	/*
	 * The pieces the broken rail did move count there (bytes only: the
	 * descriptors count on the primary), as those re-posted count where
	 * they land: the engine's bytes are every byte once.
	 */
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
				/* per rail: away from @from, onto where each piece went */
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
		 * -ENOENT: a rail's MRs went between hixl_xrail_links() and the
		 * build.  Its device's removal destroys the rail's links before
		 * it frees the rail's MRs, so that link is no longer READY: plan
		 * again without it (a rail goes once; a local region that went
		 * fails the same way every round, and the last round says so).
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
 *
 * The rails live as long as the primary link struct, not its state: a
 * primary in ERROR with a READY rail link carries transfers on its rails.
 *
 * Return: true when @l has a rail link (rail 1 and up) that is READY.
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
 *
 * The one-rail fast path's only cost: no allocation, no lock but the
 * rails' spinlock.
 *
 * Return: true when @l has two rails or more paired with its peer.
 */
bool hixl_xrail_wanted(struct hixl_link *l)
{
	return hixl_link_nr_rails(l) >= 2;
}

/* A new rail batch for @a's descriptors @d, with its anchor; NULL: no memory. */
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

/*
 * The rails @l's batch may go on: the usable ones (@rl referenced) that
 * every local region of @d allows.  Return: the mask, or -EAGAIN
 * (@nonblock, the engine lock busy).  @regions: out, the regions' mask.
 */
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
 * @eng:         the engine
 * @a:           the TRANSFER (checked and planned on @l by xfer.c, with no
 *               staged descriptor); out: failed
 * @l:           the primary link (the caller's reference)
 * @d:           the descriptors, @a->count of them
 * @deadline:    jiffies: the TRANSFER's
 * @req:         its request, started: the rail batch ends it
 *               (hixl_req_end()) when its last sub-batch and failover are
 *               over; a cancel of it cancels the rail batch (its anchor)
 * @nonblock:    io_uring's inline issue: -EAGAIN rather than sleep on a
 *               lock (nothing was submitted then)
 * @planning:    in/out: the caller's hixl_xq_plan_begin() on @l is still
 *               open; ended here once the sub-batches are planned (their
 *               own plan_begin holds a REGION_DEL's ACK from then on)
 * @min_rails:   usable rails needed: 2 (one rail is the one-link path),
 *               1 for a broken primary link (xfer.c, hixl_xrail_rails_only())
 *
 * Context: process context, the engine's rdma_sem held for reading (the
 * command's); takes the engine lock, each rail link's rt.lock (tried with
 * @nonblock).
 * Return: -EIOCBQUEUED: queued, @req ends through the rail batch (it may
 * have ended already); 1 when fewer than @min_rails rails are usable for
 * this batch (nothing done: the caller takes the one-link path); -EAGAIN
 * (@nonblock); otherwise an error found before anything was queued, as
 * hixl_cmd_transfer() documents it (with @a->failed), for the caller to
 * end @req with.  After a failover with no rail left the request ends
 * with the error of the last rail link that broke (-ECONNRESET,
 * -EHOSTDOWN, -ECONNABORTED, -EIO, ...).
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
	/* each descriptor is inside a registration (hixl_xrail_allowed()): bounded */
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
