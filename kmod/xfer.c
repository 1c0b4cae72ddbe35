// SPDX-License-Identifier: GPL-2.0
/*
 * xfer.c - HIXL_IOC_TRANSFER: a batch of descriptors becomes chains of
 * RDMA READ or WRITE work requests on the link's RC QP (HIXL TransferSync).
 *
 * Every descriptor is checked against the local registrations and the
 * peer's announced table before anything is posted, and split at the
 * borders of the local and the remote MRs into one WR with one SGE per
 * piece (plan.c).  The pieces go to the link's transfer queue (xq.c), which
 * posts them in chains with selective signaling and ends the batch, or
 * across the link's rails (xrail.c).  Descriptors whose local range is not
 * registered, and small ones when the batch's cost model says staging is
 * faster (hixl_stage_batch()), are staged (stage.c), synchronously: in the
 * ioctl's task, or for io_uring in a work item of xwork.c.
 *
 * The ioctl and io_uring's URING_CMD (uring.c) submit alike
 * (hixl_transfer_submit()): a checked and planned TRANSFER is a request
 * (req.c) whose end is said once, by whatever carried it; the ioctl then
 * waits for it, io_uring does not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "region.h"
#include "link.h"
#include "local.h"
#include "xfer.h"
#include "xrail.h"
#include "xprep.h"
#include "req.h"
#include "trace.h"

static int hixl_transfer_validate(struct hixl_engine *eng, const struct hixl_transfer *a)
{
	struct sockaddr_storage ss;
	int ret;

	if (a->flags)
		return hixl_einval("TRANSFER: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved)
		return hixl_einval("TRANSFER: reserved is not zero");
	if (a->op != HIXL_OP_READ && a->op != HIXL_OP_WRITE)
		return hixl_einval("TRANSFER: op %u (READ %u, WRITE %u)", a->op, HIXL_OP_READ,
				   HIXL_OP_WRITE);
	if (!a->count || a->count > HIXL_MAX_DESCS)
		return hixl_einval("TRANSFER: count %u (1..%u)", a->count, HIXL_MAX_DESCS);
	if (!a->timeout_ms)
		return hixl_einval("TRANSFER: timeout_ms 0");
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	return hixl_engine_usable(eng);
}

/* Release what hixl_xprep_init() planned and held; @p is zeroed. */
void hixl_xprep_free(struct hixl_engine *eng, struct hixl_xprep *p)
{
	hixl_plan_release(eng, &p->pl);
	if (p->planning)
		hixl_xq_plan_end(p->l);
	bitmap_free(p->smap);
	kvfree(p->sidx);
	kvfree(p->d);
	if (p->l)
		hixl_link_put(p->l);
	memset(p, 0, sizeof(*p));
}

static bool hixl_lock(struct mutex *m, bool nonblock)
{
	if (nonblock)
		return mutex_trylock(m);
	mutex_lock(m);
	return true;
}

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
	if (!hixl_lock(&l->rt.lock, nonblock))
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

/**
 * hixl_xprep_init() - check a TRANSFER and plan it
 * @eng:      the engine
 * @a:        the TRANSFER; out: failed, the descriptor to blame on error
 *            (@a->count when none is)
 * @nonblock: return -EAGAIN rather than wait for a busy links_lock, engine
 *            lock or rt.lock, for the device (MR activation) or for
 *            staging
 * @p:        out: the descriptors, the direct pieces and the staged ones
 *
 * Copies the descriptors, decides which registered ones staging pays for
 * (hixl_stage_batch()), sorts them into staged and direct, activates the
 * local MRs of direct ones and plans their pieces; the staged ones are
 * checked (hixl_stage_check()).  A staged READ whose local range touches a
 * read-only registration, wholly or partly, is refused here: the staging
 * copy would write every byte of the range.  Nothing moves before all
 * descriptors passed.
 *
 * Context: process context; takes the engine lock, post_mutex and the
 * link's rt.lock (not with @nonblock where they are busy).
 * Return: 0; the errors of hixl_transfer_validate(); -ENOTCONN (no link),
 * -EAGAIN (link connecting, or @nonblock), the link's error when broken;
 * -ENOMEM; -EFAULT (descriptor array unreadable); per descriptor, with
 * @a->failed its index: -EACCES (a READ into a read-only registration, a
 * WRITE into a region the peer registered read-only), a REG_MR error, and
 * those of hixl_plan_desc() and hixl_stage_check().
 */
static int hixl_xprep_init(struct hixl_engine *eng, struct hixl_transfer *a, bool nonblock,
			   struct hixl_xprep *p)
{
	struct hixl_stage_cost cost = {};
	struct hixl_link *l;
	bool small = false;
	size_t cap;
	u32 i, policy = 0;
	int ret, st, err;

	memset(p, 0, sizeof(*p));
	a->failed = a->count;
	ret = hixl_transfer_validate(eng, a);
	if (ret)
		return ret;
	l = nonblock ? hixl_link_tryget(eng, &a->remote) : hixl_link_get(eng, &a->remote);
	if (IS_ERR(l))
		return PTR_ERR(l);	/* -EAGAIN: links_lock busy */
	if (!l)
		return -ENOTCONN;
	p->l = l;
	st = hixl_link_state(l, &err);
	if (st == HIXL_LINK_CONNECTING)
		return -EAGAIN;
	if (st != HIXL_LINK_READY) {
		if (!hixl_xrail_rails_only(l))
			return err;
		p->rails_only = true;	/* a broken primary with a READY rail link */
		p->err = err;
	}
	p->d = kvmalloc_array(a->count, sizeof(*p->d), HIXL_PLAN_GFP);
	p->pl.held = kvmalloc_array(a->count, sizeof(*p->pl.held), HIXL_PLAN_GFP);
	if (!p->d || !p->pl.held)
		return -ENOMEM;
	if (copy_from_user(p->d, u64_to_user_ptr(a->descs), array_size(a->count, sizeof(*p->d))))
		return -EFAULT;
	if (p->rails_only) {	/* nothing staged: staging needs the primary's QP */
		for (i = 0; i < a->count; i++)
			p->rbytes += p->d[i].len;
		return 0;
	}
	ret = hixl_local_prep(eng, l, a, p->d, nonblock, &p->pl);
	if (ret <= 0) {			/* planned for the same-host copy, or refused */
		p->local = !ret;
		return ret;
	}
	ret = 0;

	cap = hixl_stage_cap(l);
	if (cap) {
		p->sidx = kvmalloc_array(a->count, sizeof(*p->sidx), HIXL_PLAN_GFP);
		p->smap = bitmap_zalloc(a->count, GFP_KERNEL);
		if (!p->sidx || !p->smap)
			return -ENOMEM;
	}

	if (!hixl_lock(&eng->lock, nonblock))
		return -EAGAIN;
	if (cap)
		small = hixl_stage_batch(eng, p->d, a->count, cap, &policy, &cost);
	/* activate local MRs first: no rt.lock while waiting on the CQ */
	for (i = 0; i < a->count && !ret; i++) {
		const struct hixl_op_desc *d = &p->d[i];
		struct hixl_region *r = hixl_region_lookup(eng, d->local_addr, d->len ? d->len : 1);
		int want = cap ? hixl_stage_wanted(l, r, d, hixl_stage_is_small(small, policy, &cost,
										 d->len),
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
	if (!hixl_lock(&l->rt.lock, nonblock)) {
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
 * hixl_xpath_choose() - the one place that chooses how a TRANSFER runs
 * @local:      hixl_local_prep() planned it for the same-host copy
 * @nstaged:    descriptors hixl_xprep_init() chose to stage
 * @rails_only: the primary link is broken and a rail link is READY
 * @rails:      striping is wanted: the link has two rails or more paired
 *              with its peer (hixl_xrail_wanted()), and xrail.c has not
 *              handed the TRANSFER back for want of usable rails
 *
 * Only a batch of direct pieces is striped; staged and same-host batches
 * keep the one-link path, and a broken primary has no other path than its
 * rails.  Both submitters, the ioctl (hixl_cmd_transfer()) and io_uring
 * (uring.c), submit through hixl_transfer_submit(), which runs what this
 * says.
 *
 * Return: the path (enum hixl_xpath).
 */
enum hixl_xpath hixl_xpath_choose(bool local, u32 nstaged, bool rails_only, bool rails)
{
	if (rails_only)
		return HIXL_XPATH_STRIPED;
	if (local)
		return HIXL_XPATH_LOCAL;
	if (nstaged)
		return HIXL_XPATH_STAGED;
	return rails ? HIXL_XPATH_STRIPED : HIXL_XPATH_DIRECT;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xpath_choose);

/* The path of a planned TRANSFER; @rails: xrail.c has not handed it back. */
static enum hixl_xpath hixl_xprep_path(const struct hixl_xprep *p, bool rails)
{
	return hixl_xpath_choose(p->local, p->ns, p->rails_only,
				 rails && !p->local && !p->ns && hixl_xrail_wanted(p->l));
}

static void hixl_xbatch_end_sync(struct hixl_xbatch *b)
{
	complete(&b->done);
}

/*
 * The direct pieces of a TRANSFER with staged descriptors, through the
 * link's queue; the caller waits, and a cancel of @req reaches the batch.
 */
static int hixl_xprep_run_direct(struct hixl_engine *eng, struct hixl_transfer *a,
				 struct hixl_xprep *p, unsigned long deadline,
				 struct hixl_req *req)
{
	struct hixl_xbatch *b;
	u32 failed;
	int ret;

	b = hixl_xbatch_new(eng, p->l, a->op, a->count, a->tag);
	if (!b)
		return -ENOMEM;
	b->ndesc = a->count - p->ns;
	b->pl = p->pl;
	memset(&p->pl, 0, sizeof(p->pl));
	b->planning = p->planning;	/* hixl_xbatch_submit() ends it */
	p->planning = false;
	b->end_fn = hixl_xbatch_end_sync;
	b->poll = hixl_poll_small(b->pl.bytes, b->pl.n);
	if (b->poll)
		b->post_ns = ktime_get_ns();
	if (hixl_req_bind(req, b))
		hixl_xbatch_cancel(b);		/* cancelled already: ends at submission */
	hixl_xbatch_submit(b, deadline, false);
	ret = hixl_xbatch_wait(b, &failed);
	hixl_req_bind(req, NULL);
	if (ret)
		a->failed = failed;
	hixl_xbatch_put(b);
	return ret;
}

/**
 * hixl_xprep_run_sync() - run a planned staged or same-host TRANSFER to its end
 * @eng:      the engine
 * @a:        the TRANSFER; out: failed
 * @p:        hixl_xprep_init()'s plan
 * @path:     its path, HIXL_XPATH_STAGED or HIXL_XPATH_LOCAL
 * @deadline: jiffies: -ETIMEDOUT after it
 * @req:      its request: a cancel of it (io_uring's, a fatal signal to
 *            the ioctl's caller) reaches the batch that carries it
 *
 * The same-host copy (local.c), or the direct pieces through the link's
 * queue and then the staged descriptors (stage.c); waits for both.  Staged
 * descriptors are copied from and to the current mm: the TRANSFER's
 * process, or the work item of xwork.c that uses its mm.  The caller ends
 * @req with the result.
 *
 * Context: process context, sleeps; rdma_sem held for reading.
 * Return: 0 or the errors hixl_cmd_transfer() documents, @a->failed set.
 */
int hixl_xprep_run_sync(struct hixl_engine *eng, struct hixl_transfer *a,
			struct hixl_xprep *p, enum hixl_xpath path, unsigned long deadline,
			struct hixl_req *req)
{
	struct hixl_link *l = p->l;
	int ret = 0, st, err;

	if (path == HIXL_XPATH_LOCAL)
		return hixl_local_run(eng, l, a, p->d, &p->pl, deadline, req);
	if (p->pl.n)
		ret = hixl_xprep_run_direct(eng, a, p, deadline, req);
	if (p->planning) {		/* staged pieces carry no rkey of the peer */
		hixl_xq_plan_end(l);
		p->planning = false;
	}
	if (ret || !p->ns)
		return ret;
	mutex_lock(&l->msg.post_mutex);
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY)
		ret = err ? err : -ECONNRESET;
	else
		ret = hixl_stage_run(l, a->op, p->d, p->sidx, p->ns, deadline, &a->failed);
	mutex_unlock(&l->msg.post_mutex);
	if (!ret)
		hixl_link_count_xfer(l, a->op, true, p->sbytes, p->ns);
	return ret;
}

/* The TRANSFER was checked and planned: say what will move. */
static void hixl_xprep_trace(struct hixl_engine *eng, const struct hixl_transfer *a,
			     const struct hixl_xprep *p)
{
	trace_hixl_xfer_submit(eng->id, &p->l->raddr, a->op, a->count, p->ns,
			       p->pl.bytes + p->sbytes, a->tag);
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

/* Queue the direct pieces on the link; the batch ends @req (-EIOCBQUEUED). */
static int hixl_xprep_submit_direct(struct hixl_engine *eng, struct hixl_transfer *a,
				    struct hixl_xprep *p, struct hixl_req *req,
				    unsigned long deadline, bool nonblock)
{
	struct hixl_xbatch *b = hixl_xbatch_new(eng, p->l, a->op, a->count, a->tag);

	if (!b)
		return -ENOMEM;
	b->ndesc = a->count;
	b->pl = p->pl;
	memset(&p->pl, 0, sizeof(p->pl));
	b->planning = p->planning;	/* hixl_xbatch_submit() ends it */
	p->planning = false;
	b->req = req;
	b->end_fn = hixl_xbatch_end_req;	/* takes over our reference */
	if (!req->ops->async && hixl_poll_small(b->pl.bytes, b->pl.n)) {
		req->poll = true;	/* the ioctl may spin on it */
		req->post_ns = ktime_get_ns();
	}
	if (hixl_req_bind(req, b))
		hixl_xbatch_cancel(b);		/* cancelled already: ends at submission */
	hixl_req_cancelable(req);
	hixl_xbatch_submit(b, deadline, nonblock);
	return -EIOCBQUEUED;
}

/*
 * Striped (-EIOCBQUEUED), or the one-link path when xrail.c found fewer
 * than two usable rails (1); a broken primary has no one-link path: its
 * error then.
 */
static int hixl_xprep_run_striped(struct hixl_engine *eng, struct hixl_transfer *a,
				  struct hixl_xprep *p, struct hixl_req *req,
				  unsigned long deadline, bool nonblock)
{
	int ret = hixl_xrail_transfer(eng, a, p->l, p->d, deadline, req, nonblock,
				      &p->planning, p->rails_only ? 1 : 2);

	if (ret == 1 && p->rails_only)
		return p->err;
	return ret;
}

/* A TRANSFER planning refused: count it on its link, when it has one. */
static void hixl_xprep_failed(const struct hixl_xprep *p, int ret)
{
	if (p->l)
		hixl_link_count_result(p->l, ret);
}

/**
 * hixl_transfer_submit() - check, plan and queue a TRANSFER as a request
 * @eng:      the engine
 * @a:        the TRANSFER (the ioctl's argument, or read from the SQE);
 *            out: failed, when an error is returned
 * @req:      a request from hixl_req_init(), with its submitter's ops
 * @nonblock: io_uring's inline issue (IO_URING_F_NONBLOCK): return
 *            -EAGAIN instead of sleeping on the device, a busy lock or
 *            staging, and io_uring retries from its worker threads
 *
 * The one submission of both submitters, the ioctl (hixl_cmd_transfer(),
 * which then waits) and io_uring (uring.c): the path hixl_xpath_choose()
 * says is taken, and the request ends through hixl_req_end() once, from
 * whatever carries it.  A direct or striped batch goes to its links'
 * queues; staged descriptors and the same-host copy run in a process's
 * context, the caller's own when it waits, else a work item's (xwork.c).
 * No batch runs to its end here unless the submitter waits for it anyway.
 *
 * Context: process context; rdma_sem held for reading.
 * Return: -EIOCBQUEUED: @req was started and ends (or has ended) through
 * its ops; otherwise nothing was started and @req is unused: -EAGAIN (see
 * @nonblock), or an error found before anything was planned, as
 * hixl_cmd_transfer() documents, with @a->failed set.
 */
int hixl_transfer_submit(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_req *req,
			 bool nonblock)
{
	unsigned long deadline = hixl_deadline(a->timeout_ms);
	u64 start = ktime_get_ns();
	enum hixl_xpath path;
	struct hixl_xprep p;
	int ret;

	ret = hixl_xprep_init(eng, a, nonblock, &p);
	if (ret) {
		hixl_xprep_failed(&p, ret);
		goto out;
	}
	hixl_xprep_trace(eng, a, &p);
	hixl_req_start(req, eng, p.l, a, p.pl.bytes + p.sbytes + p.rbytes, start);
	path = hixl_xprep_path(&p, true);
	if (path == HIXL_XPATH_STRIPED) {
		ret = hixl_xprep_run_striped(eng, a, &p, req, deadline, nonblock);
		if (ret != 1)
			goto started;
		path = hixl_xprep_path(&p, false);	/* one usable rail */
	}
	if (path == HIXL_XPATH_DIRECT) {
		ret = hixl_xprep_submit_direct(eng, a, &p, req, deadline, nonblock);
	} else if (req->ops->async) {	/* staged or same-host: from a work item */
		ret = hixl_xwork_queue(eng, a, &p, path, req, deadline);
	} else {			/* the caller waits: here */
		ret = hixl_xprep_run_sync(eng, a, &p, path, deadline, req);
		hixl_req_end(req, ret, a->failed);
		ret = -EIOCBQUEUED;
	}
started:
	if (ret == -EAGAIN) {		/* nothing queued: io_uring issues it again */
		hixl_req_release(req);
	} else if (ret != -EIOCBQUEUED) {	/* refused before it was queued */
		hixl_req_end(req, ret, a->failed);
		ret = -EIOCBQUEUED;
	}
out:
	hixl_xprep_free(eng, &p);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_transfer_submit);

static void hixl_ioctl_req_end(struct hixl_req *req)
{
	complete(&req->done);		/* hixl_req_wait() releases the link */
}

static const struct hixl_req_ops hixl_ioctl_req_ops = {
	.end = hixl_ioctl_req_end,
};

/**
 * hixl_cmd_transfer() - HIXL_IOC_TRANSFER: one synchronous READ or WRITE batch
 * @eng: the engine
 * @a:   in: remote, op, descs (user pointer), count, timeout_ms; out: failed
 *
 * Submits the TRANSFER as a request (hixl_transfer_submit()) and waits for
 * its end (hixl_req_wait()).
 *
 * Context: process context, sleeps up to @a->timeout_ms; rdma_sem held for
 * reading, released while the request is in flight.
 * Return: 0 when every descriptor completed; otherwise -errno, with
 * @a->failed the index of the first failing descriptor (or @a->count when
 * no single descriptor is to blame):
 *  -EINVAL     flags, reserved fields, op, count 0 or above HIXL_MAX_DESCS,
 *              timeout 0, a malformed peer name; a descriptor with len 0;
 *  -EAFNOSUPPORT the peer name is not AF_INET or AF_INET6;
 *  -EPERM      the caller is not the engine's process;
 *  -EBADFD     the engine was not set up;
 *  -ENODEV     the engine's RDMA device was removed (SETUP again);
 *  -EFAULT     the descriptor array cannot be read;
 *  -ENOTCONN   no link to @a->remote (HIXL NOT_CONNECTED);
 *  -EAGAIN     the link is still connecting;
 *  -ECONNRESET, -ENETDOWN, -ETIMEDOUT, -EIO: the link is broken (now or
 *              earlier); nothing more is posted on it;
 *  -EOVERFLOW  a descriptor's address + len wraps;
 *  -ENOENT     a local range is not inside one valid registration with MRs;
 *  -ERANGE     a remote range is not inside one registration the peer
 *              announced;
 *  -EACCES     READ into a read-only local region (a staged one: whose
 *              local range touches one at all), or WRITE into a region the
 *              peer registered read-only;
 *  -ETIMEDOUT  the batch did not complete in time (the link is broken
 *              when work requests were on the wire);
 *  -ECANCELED  HIXL_IOC_CANCEL named @a->tag, or a fatal signal arrived
 *              (the call still returns only once nothing is on the wire);
 *  -EIO        the device reported an error on a work request;
 *  -E2BIG      the batch would need more than HIXL_MAX_PIECES work
 *              requests (or stripe chunks): split it;
 *  -ENOMEM.
 * Descriptor errors are found before anything is posted: nothing is written.
 */
int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a)
{
	struct hixl_req req;
	int ret;

	hixl_req_init(&req, &hixl_ioctl_req_ops, NULL, 0);
	ret = hixl_transfer_submit(eng, a, &req, false);
	if (ret != -EIOCBQUEUED)
		return ret;
	ret = hixl_req_wait(&req);
	a->failed = req.failed;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_transfer);
