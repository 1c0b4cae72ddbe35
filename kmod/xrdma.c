// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma.c - the RDMA transport: a TRANSFER planned into RDMA READ or WRITE
 * pieces on the link's RC QP, and staged descriptors.
 *
 * Planning: descriptors whose local range is not registered, and small
 * ones when the batch's cost model says staging is faster
 * (hixl_stage_batch()), are staged (stage.c); the rest are checked against
 * the local registrations and the peer's announced table and cut at the
 * borders of the local and the remote MRs into one work request with one
 * SGE per piece (plan.c).  Nothing moves before every descriptor passed.
 *
 * Paths (hixl_xpath_choose()): direct pieces go to the link's transfer
 * queue (xq.c), which posts them in chains with selective signaling and
 * ends the batch, and with it the request; on a link with two usable
 * rails or more they are striped (xrail.c), which is this transport's own:
 * its sub-batches are ordinary batches on the rail links' queues, and its
 * failover re-plans pieces on other RDMA links, nothing another transport
 * could carry.  Staged descriptors are copied synchronously, after the
 * direct pieces of the same TRANSFER, in process context
 * (hixl_xprep_process(): the ioctl's task, or a work item of xwork.c for
 * io_uring).
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
 * Whether descriptor @d goes through the staging buffers (stage.c): when its
 * local range is unregistered (@r NULL), or when it is registered and
 * @small (the batch's staging decision, hixl_stage_batch(), picked it), but
 * only between host memory on both sides.  Device (dma-buf) memory is not
 * CPU memory of this process (a local device address is no user address to
 * copy from) nor pages the peer can scatter into or gather from, so a
 * descriptor touching it is posted directly; one from unregistered local
 * memory then fails planning with -ENOENT, as it does without staging.
 *
 * Return: 1 stage, 0 post directly, -EAGAIN (@nonblock, rt.lock busy).
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
 * The staging decision for a batch's registered host descriptors
 * (stage_policy, stage.c): by cost, the candidates hixl_stage_small()
 * picks are staged together when hixl_stage_pays() says so; by size, those
 * below HIXL_STAGE_THRESHOLD.  Sets @cost and returns whether a candidate
 * is staged at all (hixl_stage_is_small() says which).  eng->lock held.
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

/* Is registered descriptor @len one the batch decided to stage? */
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
 * The RDMA transport's planning (hixl_xport.plan): decides which
 * registered descriptors staging pays for (hixl_stage_batch()), sorts them
 * into staged and direct, activates the local MRs of direct ones and plans
 * their pieces; the staged ones are checked (hixl_stage_check()).  A staged
 * READ whose local range touches a read-only registration, wholly or
 * partly, is refused here: the staging copy would write every byte of the
 * range.  With a broken primary (@p->rails_only) nothing is planned here:
 * xrail.c checks and plans on the rail links.
 *
 * Context: process context; takes the engine lock, post_mutex and the
 * link's rt.lock (not with @p->nonblock where they are busy).
 * Return: 0; -EAGAIN (@p->nonblock: a busy lock, REG_MR or staging);
 * -ENOMEM; per descriptor, with @p->a->failed its index: -EACCES (a READ
 * into a read-only registration, a WRITE into a region the peer
 * registered read-only), a REG_MR error, and those of hixl_plan_desc() and
 * hixl_stage_check().
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
	if (cap) {
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
		/* unregistered local memory, and small host descriptors when it pays */
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
 * hixl_xpath_choose() - the one place that chooses how RDMA runs a TRANSFER
 * @nstaged:    descriptors hixl_rdma_plan() chose to stage
 * @rails_only: the primary link is broken and a rail link is READY
 * @rails:      striping is wanted: the link has two rails or more paired
 *              with its peer (hixl_xrail_wanted()), and xrail.c has not
 *              handed the TRANSFER back for want of usable rails
 *
 * Only a batch of direct pieces is striped; a staged batch keeps the
 * one-link path, and a broken primary has no other path than its rails.
 * Both submitters, the ioctl and io_uring, come here alike
 * (hixl_transfer_submit(), xfer.c).
 *
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

/* The path of a planned TRANSFER; @rails: xrail.c has not handed it back. */
static enum hixl_xpath hixl_rdma_path(const struct hixl_xprep *p, bool rails)
{
	return hixl_xpath_choose(p->ns, p->rails_only,
				 rails && !p->ns && hixl_xrail_wanted(p->l));
}

/*
 * A batch for @p's direct pieces, which it takes over with the open
 * hixl_xq_plan_begin() (hixl_xbatch_submit() ends it); NULL: no memory.
 */
static struct hixl_xbatch *hixl_rdma_batch(struct hixl_xprep *p)
{
	const struct hixl_transfer *a = p->a;
	struct hixl_xbatch *b = hixl_xbatch_new(p->eng, p->l, a->op, a->count, a->tag);

	if (!b)
		return NULL;
	b->ndesc = a->count - p->ns;	/* the direct descriptors, for the counters */
	b->pl = p->pl;
	memset(&p->pl, 0, sizeof(p->pl));
	b->planning = p->planning;
	p->planning = false;
	return b;
}

static void hixl_xbatch_end_sync(struct hixl_xbatch *b)
{
	complete(&b->done);
}

/*
 * Queue the direct pieces of a TRANSFER with staged descriptors on the
 * link (@p->xb, which takes over the planning hold); a cancel of the
 * request reaches the batch.  Return: 0 or -ENOMEM.
 */
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

/*
 * Wait for the direct pieces hixl_rdma_queue_direct() queued; a cancel of
 * the request (bound again: xwork.c unbinds it) reaches the batch.
 */
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

/**
 * hixl_rdma_queue() - a staged TRANSFER is about to wait for its work item
 * @p: planned on the staged path, its request started, for xwork.c
 *
 * A waiting batch must not hold a REGION_DEL's TABLE_ACK back (xq.c): a
 * batch of staged descriptors only (they carry no rkey of the peer) ends
 * its planning hold now; the direct pieces of a mixed one go on the link's
 * queue now, as the ioctl's do, which ends the hold once they are queued
 * (hixl_xbatch_submit()), and the work item waits for them
 * (hixl_rdma_run()) before it copies the staged ones.
 *
 * Context: io_uring's issue from a worker (a staged plan never comes from
 * the nonblocking one), process context.
 * Return: 0, or -ENOMEM with nothing queued.
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

/*
 * The direct pieces of a TRANSFER with staged descriptors, through the
 * link's queue; the caller waits, and a cancel of the request reaches the
 * batch.
 */
static int hixl_rdma_run_direct(struct hixl_xprep *p)
{
	int ret = hixl_rdma_queue_direct(p);

	return ret ? ret : hixl_rdma_wait_direct(p);
}

/* Was the request @req cancelled?  Asked between staging rounds (stage.c). */
static bool hixl_rdma_cancelled(void *req)
{
	return hixl_req_bind(req, NULL);
}

/*
 * The staged path (hixl_xport.run): the direct pieces through the link's
 * queue (for io_uring queued at the issue already, hixl_rdma_queue()),
 * then the staged descriptors (stage.c); waits for both.  Staged
 * descriptors are copied from and to the current mm: the TRANSFER's
 * process, or the work item of xwork.c that uses its mm.  A cancel of the
 * request (io_uring's, a fatal signal to the ioctl's caller) reaches the
 * direct batch.
 *
 * Context: process context, sleeps; rdma_sem held for reading.
 * Return: 0 or the errors hixl_cmd_transfer() documents, @p->a->failed set.
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

/* A direct batch's end is its request's. */
static void hixl_xbatch_end_req(struct hixl_xbatch *b)
{
	struct hixl_req *req = b->req;
	int status = b->status;
	u32 failed = b->failed;

	hixl_req_bind(req, NULL);	/* before the batch may be freed */
	hixl_xbatch_put(b);		/* the submitter's */
	hixl_req_end(req, status, failed);
}

/* Queue the direct pieces on the link; the batch ends the request (-EIOCBQUEUED). */
static int hixl_rdma_submit_direct(struct hixl_xprep *p)
{
	struct hixl_req *req = p->req;
	struct hixl_xbatch *b = hixl_rdma_batch(p);

	if (!b)
		return -ENOMEM;
	b->req = req;
	b->end_fn = hixl_xbatch_end_req;	/* takes over our reference */
	if (!req->ops->async && hixl_poll_small(b->pl.bytes, b->pl.n)) {
		req->poll = true;	/* the ioctl may spin on it */
		req->post_ns = hixl_poll_clock();
	}
	if (hixl_req_bind(req, b))
		hixl_xbatch_cancel(b);		/* cancelled already: ends at submission */
	hixl_req_cancelable(req);
	hixl_xbatch_submit(b, p->deadline, p->nonblock);
	return -EIOCBQUEUED;
}

/*
 * Striped (-EIOCBQUEUED), or the one-link path when xrail.c found fewer
 * than two usable rails (1); a broken primary has no one-link path: its
 * error then.
 */
static int hixl_rdma_striped(struct hixl_xprep *p)
{
	int ret = hixl_xrail_transfer(p->eng, p->a, p->l, p->d, p->deadline, p->req,
				      p->nonblock, &p->planning, p->rails_only ? 1 : 2);

	if (ret == 1 && p->rails_only)
		return p->err;
	return ret;
}

/*
 * The RDMA transport's submission (hixl_xport.submit): the path
 * hixl_xpath_choose() says.  Return: -EIOCBQUEUED, -EAGAIN, or an error
 * found before anything was queued.
 */
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
