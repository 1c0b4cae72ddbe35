// SPDX-License-Identifier: GPL-2.0
/* local_xfer.c - same-host TRANSFERs: copies checked chunk by chunk under the peer's lock */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "region.h"
#include "link.h"
#include "auth.h"
#include "rtable.h"
#include "local.h"
#include "plan.h"
#include "xq.h"
#include "xprep.h"
#include "req.h"
#include "local_xfer.h"
#include "testhook.h"

/* Release a local plan's held regions, keeping the arrays (RDMA fallback). */
static void hixl_local_unhold(struct hixl_engine *eng, struct hixl_plan *pl)
{
	bool kick = false;

	while (pl->nheld) {
		struct hixl_region *r = pl->held[--pl->nheld];

		if (atomic_dec_and_test(&r->users) && READ_ONCE(r->invalid))
			kick = true;
	}
	pl->bytes = 0;
	if (kick)
		queue_work(eng->wq, &eng->inval_work);
}

/*
 * The peer's live host region for [@ra, @ra + @len), writable for a WRITE;
 * the peer's lock held.  Return: the region, NULL for a device region, or
 * ERR_PTR(-ERANGE or -EACCES).
 */
static struct hixl_region *hixl_local_peer_region(struct hixl_engine *peer, u32 op, u64 ra,
						  u64 len)
{
	struct hixl_region *rr;

	lockdep_assert_held(&peer->lock);
	rr = hixl_region_lookup(peer, ra, len);
	if (!rr || hixl_region_local_only(rr))
		return ERR_PTR(-ERANGE);
	if (!hixl_local_region_ok(rr))	/* dma-buf without a CPU mapping: RDMA's */
		return rr->type == HIXL_MEM_HOST ? ERR_PTR(-ERANGE) : NULL;
	if (op == HIXL_OP_WRITE && (rr->flags & HIXL_REG_READ_ONLY))
		return ERR_PTR(-EACCES);
	return rr;
}

/**
 * hixl_local_prep() - plan a TRANSFER on the same-host path, if it takes it
 * @eng:      the engine
 * @l:        the link, READY, referenced
 * @a:        the TRANSFER; out: failed
 * @d:        its descriptors
 * @nonblock: the caller must not sleep
 * @pl:       out: our regions held and the bytes to copy
 * Context: process context; takes our engine's lock, then the peer's.
 * Return: 0 planned; 1 not local (nothing held); -EAGAIN; -EOPNOTSUPP
 * LOCAL impossible; with @a->failed: -EINVAL, -EOVERFLOW, -ENOENT, -EACCES,
 * -ERANGE; -ECONNRESET peer closing; -EINTR.
 */
int hixl_local_prep(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		    const struct hixl_op_desc *d, bool nonblock, struct hixl_plan *pl)
{
	bool must = eng->rdma->transport == HIXL_TRANSPORT_LOCAL;
	struct hixl_engine *peer;
	int lerr = 0, rerr = 0;
	u32 i, lidx = a->count;

	if (eng->rdma->transport == HIXL_TRANSPORT_RDMA)
		return 1;
	peer = hixl_local_peer_get(l);
	if (!peer)	/* a loopback link has no other path: its partner went */
		return must ? (l->loc.loop ? -ECONNRESET : -EOPNOTSUPP) : 1;
	if (nonblock) {
		rerr = -EAGAIN;
		goto out;
	}
	/* checked in the RDMA path's order, for the same error and index */
	hixl_engine_lock(eng);
	for (i = 0; i < a->count && !lerr; i++) {
		struct hixl_region *r;

		if (!d[i].len) {
			lerr = hixl_einval("TRANSFER: descriptor %u: len 0", i);
		} else if (hixl_range_check(d[i].local_addr, d[i].len) ||
			   hixl_range_check(d[i].remote_addr, d[i].len)) {
			lerr = -EOVERFLOW;
		} else {
			r = hixl_region_lookup(eng, d[i].local_addr, d[i].len);
			if (!r || !hixl_local_region_ok(r)) {
				lerr = !must ? 1 : r ? -EOPNOTSUPP : -ENOENT;
			} else if (a->op == HIXL_OP_READ && (r->flags & HIXL_REG_READ_ONLY)) {
				lerr = -EACCES;
			} else {
				atomic_inc(&r->users);
				pl->held[pl->nheld++] = r;
				pl->bytes += d[i].len;
			}
		}
		if (lerr)
			lidx = i;
	}
	mutex_unlock(&eng->lock);
	if (lerr == 1)
		goto out;	/* RDMA (or staging) plans the batch */

	/* the peer's side, up to the first local error */
	if (hixl_engine_lock_killable(peer)) {
		rerr = -EINTR;
		goto out;
	}
	if (READ_ONCE(peer->local_dead))
		rerr = -ECONNRESET;
	for (i = 0; i < lidx && !rerr; i++) {
		struct hixl_region *rr = hixl_local_peer_region(peer, a->op, d[i].remote_addr,
							       d[i].len);

		if (IS_ERR(rr))
			rerr = PTR_ERR(rr);
		else if (!rr)
			rerr = must ? -EOPNOTSUPP : 1;	/* device memory: RDMA's */
		if (rerr < 0)
			a->failed = i;
	}
	mutex_unlock(&peer->lock);
	if (!rerr && lerr)
		a->failed = lidx;
out:
	if (rerr || lerr)
		hixl_local_unhold(eng, pl);
	hixl_engine_put(peer);
	return rerr ? rerr : lerr;
}

/* Bytes from @addr to the end of its physically contiguous run, and its page. */
static u64 hixl_local_span(const struct hixl_region *r, u64 addr, struct page **page)
{
	unsigned long idx = (addr >> PAGE_SHIFT) - (r->addr >> PAGE_SHIFT);
	unsigned long i = hixl_runs_find(&r->runs, idx);
	const struct hixl_run *run = &r->runs.run[i];

	*page = pfn_to_page(run->pfn + (idx - hixl_run_first(&r->runs, i)));
	return ((u64)(run->end - idx) << PAGE_SHIFT) - offset_in_page(addr);
}

static void hixl_local_flush(struct page *page, u32 off, u64 len)
{
	unsigned long i, n = DIV_ROUND_UP(off + len, PAGE_SIZE);

	for (i = 0; i < n; i++)
		flush_dcache_page(nth_page(page, i));
}

static unsigned long hixl_local_npages(u32 off, u64 len)
{
	return DIV_ROUND_UP(off + len, PAGE_SIZE);
}

/* Copy @n bytes between our region @lr at @la and the peer's @seg; @write: ours to theirs. */
static void hixl_local_copy(const struct hixl_region *lr, u64 la,
			    const struct hixl_local_seg *seg, u64 n, bool write)
{
	u32 done = 0;		/* bytes of *seg copied */

	while (n) {
		u32 lo = offset_in_page(la), ro = (seg->off + done) % PAGE_SIZE;
		struct page *lp, *rp = nth_page(seg->page, (seg->off + done) / PAGE_SIZE);
		u64 c = min3(n, hixl_local_span(lr, la, &lp), (u64)(seg->len - done));
		u8 *lv, *rv;

		if (IS_ENABLED(CONFIG_HIGHMEM)) {
			c = min_t(u64, c, PAGE_SIZE - max(lo, ro));
			lv = kmap_local_page(lp);
			rv = kmap_local_page(rp);
		} else {
			lv = page_address(lp);
			rv = page_address(rp);
		}
		if (write) {
			memcpy(rv + ro, lv + lo, c);
			hixl_local_flush(rp, ro, c);
		} else {
			memcpy(lv + lo, rv + ro, c);
			hixl_local_flush(lp, lo, c);
		}
		if (IS_ENABLED(CONFIG_HIGHMEM)) {
			kunmap_local(rv);
			kunmap_local(lv);
		}
		la += c;
		n -= c;
		done += c;
		if (done == seg->len) {
			seg++;
			done = 0;
		}
	}
}

/**
 * hixl_local_stop() - must the copy stop before its next chunk?
 * @b:         the batch
 * @l:         the link
 * @deadline:  jiffies
 * @submitter: the task that runs the TRANSFER and waits for every share:
 *             its fatal signal stops the copiers on other CPUs too
 * Context: process context, the caller or a copy worker; takes @l's xq.lock.
 * Return: 0 go on; -ECANCELED; -ETIMEDOUT; the link's error.
 */
int hixl_local_stop(struct hixl_xbatch *b, struct hixl_link *l, unsigned long deadline,
		    struct task_struct *submitter)
{
	int st, err, ret;

	spin_lock(&l->xq.lock);
	ret = b->status;		/* -ECANCELED: HIXL_IOC_CANCEL */
	spin_unlock(&l->xq.lock);
	if (ret)
		return ret;
	if (fatal_signal_pending(submitter))
		return -ECANCELED;
	if (time_after_eq(jiffies, deadline))
		return -ETIMEDOUT;
	st = hixl_link_state(l, &err);
	if (st >= HIXL_LINK_ERROR)
		return err ? err : -ECONNRESET;
	return 0;
}

/**
 * hixl_local_chunk() - copy one chunk of one descriptor with the peer engine
 * @peer: the peer engine, referenced
 * @op:   HIXL_OP_READ or HIXL_OP_WRITE
 * @lr:   our region, held
 * @la:   our address of the chunk
 * @ra:   the peer's address of the chunk
 * @n:    bytes, at most HIXL_LOCAL_CHUNK
 * @seg:  room for HIXL_LOCAL_SEGS segments
 *
 * Waits at most HIXL_LCOPY_LOCK_US for the peer's lock, which a peer
 * command may hold while it faults; the caller retries.
 * Context: process context, sleeps; no lock held.
 * Return: 0; -EBUSY peer lock busy; -ECONNRESET peer closing; -ERANGE or
 * -EACCES peer region gone or changed; -EIO too many segments.
 */
int hixl_local_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
		     u64 la, u64 ra, u64 n, struct hixl_local_seg *seg)
{
	struct hixl_region *rr;
	u32 nseg = 0, k;
	ktime_t end;
	u64 a, left;

	end = ktime_add_us(ktime_get(), HIXL_LCOPY_LOCK_US);
	while (!mutex_trylock(&peer->lock)) {
		if (ktime_after(ktime_get(), end))
			return -EBUSY;
		usleep_range(20, 100);
	}
	if (READ_ONCE(peer->local_dead)) {
		mutex_unlock(&peer->lock);
		return -ECONNRESET;
	}
	rr = hixl_local_peer_region(peer, op, ra, n);
	if (IS_ERR_OR_NULL(rr)) {
		mutex_unlock(&peer->lock);
		return rr ? PTR_ERR(rr) : -ERANGE;
	}
	if (rr->type != HIXL_MEM_HOST || lr->type != HIXL_MEM_HOST)	/* drops the lock */
		return hixl_local_dmabuf_chunk(peer, op, lr, la, rr, ra, n);
	for (a = ra, left = n; left && nseg < HIXL_LOCAL_SEGS; nseg++) {
		struct hixl_local_seg *sg = &seg[nseg];
		unsigned long i;
		u64 c = min(left, hixl_local_span(rr, a, &sg->page));

		sg->off = offset_in_page(a);
		sg->len = c;
		for (i = 0; i < hixl_local_npages(sg->off, c); i++)
			get_page(nth_page(sg->page, i));
		a += c;
		left -= c;
	}
	atomic_inc(&rr->local_chunks);	/* its DEREG_MEM waits for us */
	atomic_inc(&peer->local_users);	/* its close too */
	mutex_unlock(&peer->lock);

	if (!WARN_ON_ONCE(left))
		hixl_local_copy(lr, la, seg, n, op == HIXL_OP_WRITE);

	for (k = 0; k < nseg; k++) {
		unsigned long i;

		for (i = 0; i < hixl_local_npages(seg[k].off, seg[k].len); i++)
			put_page(nth_page(seg[k].page, i));
	}
	if (atomic_dec_and_test(&rr->local_chunks))
		wake_up_var(&rr->local_chunks);
	if (atomic_dec_and_test(&peer->local_users))	/* rr may go after this */
		wake_up_all(&peer->local_wq);
	return left ? -EIO : 0;
}

/**
 * hixl_local_run() - carry out a TRANSFER hixl_local_prep() planned
 * @eng:      the engine
 * @l:        the link
 * @a:        the TRANSFER; out: failed
 * @d:        its descriptors
 * @pl:       hixl_local_prep()'s plan
 * @deadline: jiffies
 * @req:      the TRANSFER's request; its cancel cancels the copy
 * Context: process context, sleeps; no lock held.
 * Return: 0; -ECANCELED; -ETIMEDOUT; -ECONNRESET or the link's error;
 * -ERANGE or -EACCES peer region gone or changed; -ENOMEM.
 */
int hixl_local_run(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		   const struct hixl_op_desc *d, const struct hixl_plan *pl, unsigned long deadline,
		   struct hixl_req *req)
{
	struct hixl_engine *peer = hixl_local_peer_get(l);
	struct hixl_xbatch *b;
	u64 bytes = 0;
	int ret = 0;

	if (!peer || pl->nheld != a->count) {
		if (peer)
			hixl_engine_put(peer);
		ret = -ECONNRESET;
		a->failed = a->count;
		goto count;
	}
	b = hixl_xbatch_new(eng, l, a->op, a->count, a->tag);
	if (!b) {
		hixl_engine_put(peer);
		ret = -ENOMEM;
		goto count;
	}
	spin_lock(&eng->xfer_lock);		/* CANCEL finds it; it is never submitted */
	list_add_tail(&b->eng_node, &eng->xfers);
	spin_unlock(&eng->xfer_lock);
	if (hixl_req_bind(req, b))
		hixl_xbatch_cancel(b);		/* its request was cancelled already */
	hixl_test_delay(HIXL_TEST_LOCAL_RUN);	/* in flight, nothing copied yet */

	ret = hixl_lcopy_run(peer, l, b, a, d, pl, deadline, &bytes);	/* lcopy.c */
	/*
	 * A CANCEL from now on finds the batch ended; one after the last
	 * chunk's check ends it cancelled, its last descriptor blamed.
	 */
	spin_lock(&l->xq.lock);
	b->ended = true;
	if (!ret && b->status) {
		ret = b->status;
		a->failed = a->count - 1;
	}
	spin_unlock(&l->xq.lock);

	spin_lock(&eng->xfer_lock);
	list_del_init(&b->eng_node);
	spin_unlock(&eng->xfer_lock);
	hixl_req_bind(req, NULL);	/* before the batch may be freed */
	hixl_xbatch_put(b);
	hixl_engine_put(peer);
count:
	if (!ret) {
		hixl_link_count_xfer(l, a->op, false, bytes, a->count);
		hixl_link_count(l, HIXL_CTR_LOCAL_BYTES, bytes);
		hixl_link_count(l, HIXL_CTR_LOCAL_OPS, a->count);
	}
	return ret;
}

/* Only on a paired link, and not over rails. */
static int hixl_local_xplan(struct hixl_xprep *p)
{
	if (p->rails_only)
		return 1;	/* a broken primary: only RDMA's rails are left */
	return hixl_local_prep(p->eng, p->l, p->a, p->d, p->nonblock, &p->pl);
}

static int hixl_local_xrun(struct hixl_xprep *p)
{
	return hixl_local_run(p->eng, p->l, p->a, p->d, &p->pl, p->deadline, p->req);
}

const struct hixl_xport hixl_xport_local = {
	.name = "same-host copy",
	.plan = hixl_local_xplan,
	.submit = hixl_xprep_process,	/* the copy needs process context */
	.run = hixl_local_xrun,
};
EXPORT_SYMBOL_IF_KUNIT(hixl_xport_local);
