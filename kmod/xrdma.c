// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma.c - the RDMA transport: READ or WRITE pieces, direct, striped or staged;
 * nothing moves before every descriptor passed
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "region.h"
#include "link.h"
#include "table.h"
#include "stage_cost.h"
#include "stage.h"
#include "plan.h"
#include "xq.h"
#include "poll.h"
#include "xrail.h"
#include "xprep.h"
#include "req.h"

/*
 * Stage descriptor @d if its local range is unregistered (@r NULL) or the
 * batch picked it (@small), but only host memory on both sides: dma-buf
 * memory is neither a user address nor pages the peer can scatter into.
 * Return: 1 stage, 0 direct, -EAGAIN with @nonblock.
 */
static int hixl_stage_wanted(struct hixl_link *l, const struct hixl_region *r,
			     const struct hixl_op_desc *d, bool small, bool nonblock)
{
	struct hixl_rregion *rr;
	bool device;

	if (!d->len)
		return 0;
	if (r && (r->type != HIXL_MEM_HOST || !small))
		return 0;
	if (!hixl_mutex_lock_nb(&l->rt.lock, nonblock))
		return -EAGAIN;
	rr = mtree_load(&l->rt.tree, d->remote_addr);
	device = rr && rr->device;
	mutex_unlock(&l->rt.lock);
	return !device;
}

/*
 * The staging decision for a batch's registered host descriptors, by
 * stage_policy; sets @cost.  Return: whether any is staged.  eng->lock held.
 */
static bool hixl_stage_batch(struct hixl_engine *eng, const struct hixl_op_desc *d, u32 count,
			     size_t cap, u32 *policy, struct hixl_stage_cost *cost)
{
	u64 n = 0, bytes = 0;
	u32 i;

	lockdep_assert_held(&eng->lock);
	*policy = READ_ONCE(hixl_stage_policy);
	hixl_stage_cost_get(cost);
	if (*policy != HIXL_STAGE_BY_COST)
		return *policy == HIXL_STAGE_BY_SIZE;
	for (i = 0; i < count; i++) {
		const struct hixl_region *r;

		if (!hixl_stage_small(cost, d[i].len))
			continue;
		r = hixl_region_lookup(eng, d[i].local_addr, d[i].len);
		if (r && r->type == HIXL_MEM_HOST) {
			n++;
			if (check_add_overflow(bytes, d[i].len, &bytes))
				bytes = U64_MAX;	/* too much to stage */
		}
	}
	return hixl_stage_pays(cost, n, bytes, cap);
}

static bool hixl_stage_is_small(bool batch, u32 policy, const struct hixl_stage_cost *cost,
				u64 len)
{
	if (!batch)
		return false;
	if (policy == HIXL_STAGE_BY_SIZE)
		return len < HIXL_STAGE_THRESHOLD;
	return hixl_stage_small(cost, len);
}

/*
 * hixl_xport.plan: split descriptors into staged and direct and plan the
 * direct pieces (xrail.c's with @p->rails_only).  Takes the engine lock,
 * post_mutex, rt.lock.  Return: 0; -EAGAIN; -ENOMEM; per descriptor, with
 * @p->a->failed: -EACCES, REG_MR's, hixl_plan_desc()'s, hixl_stage_check()'s.
 */
static int hixl_rdma_plan(struct hixl_xprep *p)
{
	struct hixl_engine *eng = p->eng;
	struct hixl_transfer *a = p->a;
	struct hixl_link *l = p->l;
	bool nonblock = p->nonblock;
	struct hixl_stage_cost cost = {};
	bool small = false;
	size_t cap;
	u32 i, policy = 0;
	int ret = 0;

	if (p->rails_only) {	/* nothing staged: staging needs the primary's QP */
		for (i = 0; i < a->count; i++)
			p->rbytes += p->d[i].len;
		return 0;
	}

	cap = hixl_stage_cap(l);
	if (cap && a->count <= HIXL_PLAN_INLINE) {
		p->sidx = p->sidx_inl;
		p->smap = p->smap_inl;
		bitmap_zero(p->smap, HIXL_PLAN_INLINE);
	} else if (cap) {
		p->sidx = kvmalloc_array(a->count, sizeof(*p->sidx), HIXL_PLAN_GFP);
		p->smap = bitmap_zalloc(a->count, GFP_KERNEL);
		if (!p->sidx || !p->smap)
			return -ENOMEM;
	}

	if (!hixl_engine_lock_nb(eng, nonblock))
		return -EAGAIN;
	if (cap)
		small = hixl_stage_batch(eng, p->d, a->count, cap, &policy, &cost);
	/* activate local MRs first: no rt.lock while waiting on the CQ */
	for (i = 0; i < a->count && !ret; i++) {
		const struct hixl_op_desc *d = &p->d[i];
		struct hixl_region *r = hixl_region_lookup(eng, d->local_addr, d->len ? d->len : 1);
		int want = cap ? hixl_stage_wanted(l, r, d,
						   hixl_stage_is_small(small, policy,
								       &cost, d->len),
						   nonblock) : 0;

		if (want < 0) {
			ret = want;
			break;
		}
		if (want) {
			/* registered read-only, wholly or partly: never written */
			if (a->op == HIXL_OP_READ &&
			    hixl_range_read_only(eng, d->local_addr, d->len)) {
				ret = -EACCES;
				a->failed = i;
				break;
			}
			if (nonblock) {
				ret = -EAGAIN;	/* staging copies and waits */
				break;
			}
			__set_bit(i, p->smap);
			p->sidx[p->ns++] = i;
			p->sbytes += d->len;
			continue;
		}
		if (r && !r->mrset[0].mrs_registered) {
			if (nonblock) {
				ret = -EAGAIN;	/* REG_MR waits for the device */
				break;
			}
			mutex_lock(&l->msg.post_mutex);
			ret = hixl_link_reg_mrs(l, r);
			mutex_unlock(&l->msg.post_mutex);
			if (ret)
				a->failed = i;
		}
	}
	if (ret) {
		mutex_unlock(&eng->lock);
		return ret;
	}
	hixl_xq_plan_begin(l);		/* a REGION_DEL's ACK waits for our pieces */
	p->planning = true;
	if (!hixl_mutex_lock_nb(&l->rt.lock, nonblock)) {
		mutex_unlock(&eng->lock);
		return -EAGAIN;
	}
	for (i = 0; i < a->count && !ret; i++) {
		if (p->smap && test_bit(i, p->smap))
			ret = hixl_stage_check(l, a->op, &p->d[i]);
		else
			ret = hixl_plan_desc(l, a->op, &p->d[i], i, &p->pl);
		if (ret)
			a->failed = i;
	}
	mutex_unlock(&l->rt.lock);
	mutex_unlock(&eng->lock);
	return ret;
}

/**
 * hixl_xpath_choose() - choose how RDMA runs a TRANSFER
 * @nstaged:    descriptors chosen to stage (a batch with any is not striped)
 * @rails_only: the primary link is broken and a rail link is READY
 * @rails:      striping is wanted and xrail.c did not hand it back
 * Return: the path (enum hixl_xpath).
 */
enum hixl_xpath hixl_xpath_choose(u32 nstaged, bool rails_only, bool rails)
{
	if (rails_only)
		return HIXL_XPATH_STRIPED;
	if (nstaged)
		return HIXL_XPATH_STAGED;
	return rails ? HIXL_XPATH_STRIPED : HIXL_XPATH_DIRECT;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xpath_choose);

static enum hixl_xpath hixl_rdma_path(const struct hixl_xprep *p, bool rails)
{
	return hixl_xpath_choose(p->ns, p->rails_only,
				 rails && !p->ns && hixl_xrail_wanted(p->l));
}

/* Takes over @p's direct pieces and planning hold; NULL if out of memory. */
static struct hixl_xbatch *hixl_rdma_batch(struct hixl_xprep *p)
{
	const struct hixl_transfer *a = p->a;
	struct hixl_xbatch *b = hixl_xbatch_new(p->eng, p->l, a->op, a->count, a->tag);

	if (!b)
		return NULL;
	b->ndesc = a->count - p->ns;	/* the direct descriptors, for the counters */
	hixl_plan_move(&b->pl, &p->pl);
	b->planning = p->planning;
	p->planning = false;
	return b;
}

static void hixl_xbatch_end_sync(struct hixl_xbatch *b)
{
	complete(&b->done);
}

/* Queue the direct pieces of a mixed TRANSFER.  Return: 0 or -ENOMEM. */
static int hixl_rdma_queue_direct(struct hixl_xprep *p)
{
	struct hixl_xbatch *b = hixl_rdma_batch(p);

	if (!b)
		return -ENOMEM;
	b->end_fn = hixl_xbatch_end_sync;
	b->poll = hixl_poll_small(b->pl.bytes, b->pl.n);
	if (b->poll)
		b->post_ns = hixl_poll_clock();
	if (hixl_req_bind(p->req, b))
		hixl_xbatch_cancel(b);		/* cancelled already: ends at submission */
	hixl_xbatch_submit(b, p->deadline, false);
	p->xb = b;
	return 0;
}

static int hixl_rdma_wait_direct(struct hixl_xprep *p)
{
	struct hixl_xbatch *b = p->xb;
	u32 failed;
	int ret;

	if (hixl_req_bind(p->req, b))
		hixl_xbatch_cancel(b);
	ret = hixl_xbatch_wait(b, &failed);
	hixl_req_bind(p->req, NULL);
	if (ret)
		p->a->failed = failed;
	hixl_xbatch_put(b);
	p->xb = NULL;
	return ret;
}

/*
 * hixl_xport.queue: a queued batch must not hold back a REGION_DEL's ACK
 * (xq.c), so end the planning hold now, or queue the direct pieces,
 * which ends it.  Return: 0, or -ENOMEM with nothing queued.
 */
static int hixl_rdma_queue(struct hixl_xprep *p)
{
	if (p->pl.n)
		return hixl_rdma_queue_direct(p);
	if (p->planning) {
		hixl_xq_plan_end(p->l);
		p->planning = false;
	}
	return 0;
}

static int hixl_rdma_run_direct(struct hixl_xprep *p)
{
	int ret = hixl_rdma_queue_direct(p);

	return ret ? ret : hixl_rdma_wait_direct(p);
}

/* Asked between staging rounds. */
static bool hixl_rdma_cancelled(void *req)
{
	return hixl_req_bind(req, NULL);
}

/*
 * hixl_xport.run: the direct pieces through the link's queue, then the
 * staged ones; process context, rdma_sem held for reading.
 */
static int hixl_rdma_run(struct hixl_xprep *p)
{
	struct hixl_transfer *a = p->a;
	struct hixl_link *l = p->l;
	int ret = 0;

	if (p->xb)			/* queued at io_uring's issue */
		ret = hixl_rdma_wait_direct(p);
	else if (p->pl.n)
		ret = hixl_rdma_run_direct(p);
	if (p->planning) {		/* staged pieces carry no rkey of the peer */
		hixl_xq_plan_end(l);
		p->planning = false;
	}
	if (ret || !p->ns)
		return ret;
	ret = hixl_stage_run(l, a->op, p->d, p->sidx, p->ns, p->deadline, hixl_rdma_cancelled,
			     p->req, &a->failed);
	if (!ret)
		hixl_link_count_xfer(l, a->op, true, p->sbytes, p->ns);
	return ret;
}

static void hixl_xbatch_end_req(struct hixl_xbatch *b)
{
	struct hixl_req *req = b->req;
	int status = b->status;
	u32 failed = b->failed;

	hixl_req_bind(req, NULL);	/* before the batch may be freed */
	hixl_xbatch_put(b);		/* the submitter's */
	hixl_req_end(req, status, failed);
}

static int hixl_rdma_submit_direct(struct hixl_xprep *p)
{
	struct hixl_req *req = p->req;
	struct hixl_xbatch *b = hixl_rdma_batch(p);

	if (!b)
		return -ENOMEM;
	b->req = req;
	b->end_fn = hixl_xbatch_end_req;	/* takes over our reference */
	if (!req->ops->async) {		/* the ioctl waits: it times the batch out */
		b->sync_tmo = true;
		req->expire = true;
		req->deadline = p->deadline;
		req->post_ns = hixl_poll_clock();
		req->spin_end = req->post_ns + (u64)p->a->timeout_ms * NSEC_PER_MSEC;
		req->poll = hixl_poll_small(b->pl.bytes, b->pl.n);	/* it may spin */
	}
	if (hixl_req_bind(req, b))
		hixl_xbatch_cancel(b);		/* cancelled already: ends at submission */
	hixl_req_cancelable(req);
	hixl_xbatch_submit(b, p->deadline, p->nonblock);
	return -EIOCBQUEUED;
}

/* Return: -EIOCBQUEUED, 1 for the one-link path, or a broken primary's error. */
static int hixl_rdma_striped(struct hixl_xprep *p)
{
	int ret = hixl_xrail_transfer(p->eng, p->a, p->l, p->d, p->deadline, p->req,
				      p->nonblock, &p->planning, p->rails_only ? 1 : 2);

	if (ret == 1 && p->rails_only)
		return p->err;
	return ret;
}

/* hixl_xport.submit.  Return: -EIOCBQUEUED, -EAGAIN, or an error. */
static int hixl_rdma_submit(struct hixl_xprep *p)
{
	enum hixl_xpath path = hixl_rdma_path(p, true);
	int ret;

	if (path == HIXL_XPATH_STRIPED) {
		ret = hixl_rdma_striped(p);
		if (ret != 1)
			return ret;
		path = hixl_rdma_path(p, false);	/* one usable rail */
	}
	if (path == HIXL_XPATH_DIRECT)
		return hixl_rdma_submit_direct(p);
	return hixl_xprep_process(p);		/* staged: in process context */
}

const struct hixl_xport hixl_xport_rdma = {
	.name = "RDMA",
	.plan = hixl_rdma_plan,
	.submit = hixl_rdma_submit,
	.queue = hixl_rdma_queue,
	.run = hixl_rdma_run,
};
EXPORT_SYMBOL_IF_KUNIT(hixl_xport_rdma);
