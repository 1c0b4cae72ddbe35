// SPDX-License-Identifier: GPL-2.0
/*
 * xfer.c - HIXL_IOC_TRANSFER: a batch of descriptors becomes chains of
 * RDMA READ or WRITE work requests on the link's RC QP (HIXL TransferSync,
 * seeds/003_HIXL-api.md).
 *
 * Every descriptor is checked against the local registrations and the
 * peer's announced table before anything is posted.  Each is split at the
 * borders of the local and the remote MRs into one WR with one SGE per
 * piece.  WRs go out in chains of up to HIXL_SQ_DEPTH - 1 with only the
 * last one signaled (selective signaling); a failed WR still completes, so
 * the first error and its descriptor are known.  A batch that times out
 * breaks the link (its QP goes to the error state and everything posted
 * flushes) rather than leaving it in an unknown state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/rdma_cm.h>

#include "hixl_priv.h"

/* leave room on the send queue for the STAGE_DONE replies (stage.c) */
#define HIXL_CHAIN	(HIXL_SQ_DEPTH - 8)

struct hixl_xfer;

struct hixl_xwr {
	struct ib_rdma_wr wr;
	struct ib_sge sge;
	struct ib_cqe cqe;
	u32 desc;
	bool last;
	struct hixl_xfer *x;
};

struct hixl_xfer {
	struct completion done;
	spinlock_t lock;
	int status;		/* first error, -EIO */
	u32 failed;		/* its descriptor */
};

static void hixl_xwr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_xwr *w = container_of(wc->wr_cqe, struct hixl_xwr, cqe);
	struct hixl_xfer *x = w->x;

	if (wc->status != IB_WC_SUCCESS) {
		spin_lock(&x->lock);
		if (!x->status || (x->status == -ECONNRESET && wc->status != IB_WC_WR_FLUSH_ERR)) {
			x->status = wc->status == IB_WC_WR_FLUSH_ERR ? -ECONNRESET : -EIO;
			x->failed = w->desc;
			if (wc->status != IB_WC_WR_FLUSH_ERR)
				pr_warn("transfer: descriptor %u: %s\n", w->desc,
					ib_wc_status_msg(wc->status));
		}
		spin_unlock(&x->lock);
	}
	if (w->last)
		complete(&x->done);
}

/* Index of the span that holds @addr (spans are in address order, n > 0). */
static u32 hixl_find_span(const struct hixl_rmr *s, u32 n, u64 addr)
{
	u32 lo = 0, hi = n;

	while (hi - lo > 1) {
		u32 mid = (lo + hi) / 2;

		if (s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/**
 * hixl_plan_free() - free a plan's arrays (not the regions it holds)
 * @pl: the plan
 */
void hixl_plan_free(struct hixl_plan *pl)
{
	kvfree(pl->p);
	kvfree(pl->held);
	memset(pl, 0, sizeof(*pl));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_plan_free);

static int hixl_plan_add(struct hixl_plan *pl, const struct hixl_piece *pc)
{
	if (pl->n == pl->cap) {
		u32 cap = pl->cap ? pl->cap * 2 : 256;
		struct hixl_piece *np = kvmalloc_array(cap, sizeof(*np), GFP_KERNEL);

		if (!np)
			return -ENOMEM;
		if (pl->p)
			memcpy(np, pl->p, pl->n * sizeof(*np));
		kvfree(pl->p);
		pl->p = np;
		pl->cap = cap;
	}
	pl->p[pl->n++] = *pc;
	return 0;
}

/**
 * hixl_split() - cut one descriptor into work requests at MR borders
 * @lm:   local spans in address order (key = lkey)
 * @nl:   number of local spans, > 0
 * @rm:   remote spans in address order (key = rkey)
 * @nr:   number of remote spans, > 0
 * @la:   local address; [@la, @la + @len) lies inside the spans' range
 * @ra:   remote address; likewise
 * @len:  bytes, > 0
 * @desc: descriptor index, copied into every piece
 * @pl:   the plan the pieces are appended to
 *
 * Each piece stays inside one local and one remote span and moves at most
 * HIXL_MAX_SGE_LEN bytes.
 *
 * Return: 0; -EPROTO when the spans leave a hole under the range; -ENOMEM.
 */
int hixl_split(const struct hixl_rmr *lm, u32 nl, const struct hixl_rmr *rm, u32 nr,
	       u64 la, u64 ra, u64 len, u32 desc, struct hixl_plan *pl)
{
	int ret;

	while (len) {
		const struct hixl_rmr *l = &lm[hixl_find_span(lm, nl, la)];
		const struct hixl_rmr *r = &rm[hixl_find_span(rm, nr, ra)];
		struct hixl_piece pc;
		u64 n;

		if (la < l->addr || la >= l->addr + l->len ||
		    ra < r->addr || ra >= r->addr + r->len)
			return -EPROTO;
		n = min3(len, l->addr + l->len - la, r->addr + r->len - ra);
		n = min_t(u64, n, HIXL_MAX_SGE_LEN);
		pc.laddr = l->iova + (la - l->addr);
		pc.lkey = l->rkey;
		pc.raddr = r->iova + (ra - r->addr);
		pc.rkey = r->rkey;
		pc.len = n;
		pc.desc = desc;
		ret = hixl_plan_add(pl, &pc);
		if (ret)
			return ret;
		la += n;
		ra += n;
		len -= n;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_split);

/*
 * Check one descriptor and cut it into pieces; engine lock and the link's
 * rtable_lock held.  The local MRs were activated by hixl_activate_mrs().
 */
static int hixl_plan_desc(struct hixl_link *l, u32 op, const struct hixl_op_desc *d,
			  u32 idx, struct hixl_plan *pl)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_rregion *rr;
	struct hixl_region *r;
	u64 la = d->local_addr, ra = d->remote_addr, left = d->len;
	int ret;

	if (!d->len)
		return -EINVAL;
	if (hixl_range_check(la, d->len) || hixl_range_check(ra, d->len))
		return -EOVERFLOW;
	r = hixl_region_lookup(eng, la, d->len);
	if (!r || !r->nr_mrs)
		return -ENOENT;
	if (op == HIXL_OP_READ && (r->flags & HIXL_REG_READ_ONLY))
		return -EACCES;
	rr = mtree_load(&l->rtable, ra);
	if (!rr || rr->got < rr->nr_mrs || ra + d->len > rr->addr + rr->len)
		return -ERANGE;
	if (op == HIXL_OP_WRITE && !rr->writable)
		return -EACCES;

	ret = hixl_split(r->spans, r->nr_mrs, rr->mrs, rr->nr_mrs, la, ra, left, idx, pl);
	if (ret)
		return ret;
	atomic_inc(&r->users);
	pl->held[pl->nheld++] = r;
	return 0;
}

/*
 * Check a staged descriptor: the remote side as for a direct one, the local
 * side only for being user memory (it is copied, not registered).
 */
static int hixl_stage_check(struct hixl_link *l, u32 op, const struct hixl_op_desc *d)
{
	struct hixl_rregion *rr;

	if (hixl_range_check(d->local_addr, d->len) || hixl_range_check(d->remote_addr, d->len))
		return -EOVERFLOW;
	rr = mtree_load(&l->rtable, d->remote_addr);
	if (!rr || rr->got < rr->nr_mrs || d->remote_addr + d->len > rr->addr + rr->len)
		return -ERANGE;
	if (op == HIXL_OP_WRITE && !rr->writable)
		return -EACCES;
	if (!access_ok(u64_to_user_ptr(d->local_addr), d->len))
		return -EFAULT;
	return 0;
}

static void hixl_plan_release(struct hixl_engine *eng, struct hixl_plan *pl)
{
	bool kick = false;
	u32 i;

	for (i = 0; i < pl->nheld; i++) {
		struct hixl_region *r = pl->held[i];

		if (atomic_dec_and_test(&r->users) && READ_ONCE(r->invalid))
			kick = true;
	}
	if (kick)	/* an invalidated region waited for us to release its pins */
		queue_work(system_wq, &eng->inval_work);
	hixl_plan_free(pl);
}

/* Post the plan in chains and wait; post_mutex held. */
static int hixl_run(struct hixl_link *l, u32 op, struct hixl_plan *pl,
		    unsigned long deadline, u32 *failed)
{
	struct hixl_xwr *w;
	struct hixl_xfer x;
	u32 base, i, n;
	int ret = 0;

	w = kvcalloc(min_t(u32, pl->n, HIXL_CHAIN), sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	for (base = 0; base < pl->n && !ret; base += n) {
		const struct ib_send_wr *bad;
		long left;

		n = min_t(u32, pl->n - base, HIXL_CHAIN);
		init_completion(&x.done);
		spin_lock_init(&x.lock);
		x.status = 0;
		x.failed = 0;
		for (i = 0; i < n; i++) {
			const struct hixl_piece *pc = &pl->p[base + i];
			struct hixl_xwr *xw = &w[i];

			memset(xw, 0, sizeof(*xw));
			xw->x = &x;
			xw->desc = pc->desc;
			xw->last = i == n - 1;
			xw->cqe.done = hixl_xwr_done;
			xw->sge.addr = pc->laddr;
			xw->sge.length = pc->len;
			xw->sge.lkey = pc->lkey;
			xw->wr.wr.wr_cqe = &xw->cqe;
			xw->wr.wr.opcode = op == HIXL_OP_READ ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
			xw->wr.wr.sg_list = &xw->sge;
			xw->wr.wr.num_sge = 1;
			xw->wr.wr.send_flags = xw->last ? IB_SEND_SIGNALED : 0;
			xw->wr.wr.next = xw->last ? NULL : &w[i + 1].wr.wr;
			xw->wr.remote_addr = pc->raddr;
			xw->wr.rkey = pc->rkey;
		}
		ret = ib_post_send(l->qp, &w[0].wr.wr, &bad);
		if (ret) {
			/*
			 * Nothing from @bad on went out.  Break the link and
			 * drain: after ib_drain_sq() every posted WR has
			 * completed or flushed and @w can go.
			 */
			*failed = container_of(bad, struct hixl_xwr, wr.wr)->desc;
			hixl_link_fail(l, -ECONNRESET);
			ib_drain_sq(l->qp);
			ret = -ECONNRESET;
			break;
		}
		left = wait_for_completion_timeout(&x.done, time_before(jiffies, deadline) ?
						   deadline - jiffies : 0);
		if (!left) {
			hixl_link_fail(l, -ETIMEDOUT);
			ib_drain_sq(l->qp);	/* QP to error, flush, then reclaim */
			*failed = pl->p[base].desc;
			ret = -ETIMEDOUT;
			break;
		}
		if (x.status) {
			hixl_link_fail(l, x.status);
			*failed = x.failed;
			ret = x.status;
		}
	}
	kvfree(w);
	return ret;
}

static int hixl_transfer_validate(struct hixl_engine *eng, const struct hixl_transfer *a)
{
	struct sockaddr_storage ss;
	int ret;

	if (a->flags || a->reserved0 || a->reserved)
		return -EINVAL;
	if (a->op != HIXL_OP_READ && a->op != HIXL_OP_WRITE)
		return -EINVAL;
	if (!a->count || a->count > HIXL_MAX_DESCS || !a->timeout_ms)
		return -EINVAL;
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	if (!eng->mm || current->mm != eng->mm)
		return -EPERM;
	if (!eng->rdma)
		return -EBADFD;
	return 0;
}

/**
 * hixl_cmd_transfer() - HIXL_IOC_TRANSFER: one synchronous READ or WRITE batch
 * @eng: the engine
 * @a:   in: remote, op, descs (user pointer), count, timeout_ms; out: failed
 *
 * Context: process context, sleeps up to @a->timeout_ms.
 * Return: 0 when every descriptor completed; otherwise -errno, with
 * @a->failed the index of the first failing descriptor (or @a->count when
 * no single descriptor is to blame):
 *  -EINVAL     flags, reserved fields, op, count 0 or above HIXL_MAX_DESCS,
 *              timeout 0, a malformed peer name; a descriptor with len 0;
 *  -EAFNOSUPPORT the peer name is not AF_INET or AF_INET6;
 *  -EPERM      the caller is not the engine's process;
 *  -EBADFD     the engine was not set up;
 *  -EFAULT     the descriptor array cannot be read;
 *  -ENOTCONN   no link to @a->remote (HIXL NOT_CONNECTED);
 *  -EAGAIN     the link is still connecting;
 *  -ECONNRESET, -ENETDOWN, -ETIMEDOUT, -EIO: the link is broken (now or
 *              earlier); nothing more is posted on it;
 *  -EOVERFLOW  a descriptor's address + len wraps;
 *  -ENOENT     a local range is not inside one valid registration with MRs;
 *  -ERANGE     a remote range is not inside one registration the peer
 *              announced;
 *  -EACCES     READ into a read-only local region, or WRITE into a region
 *              the peer registered read-only;
 *  -ETIMEDOUT  the batch did not complete in time (the link is broken);
 *  -EIO        the device reported an error on a work request;
 *  -ENOMEM.
 * Descriptor errors are found before anything is posted: nothing is written.
 */
int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(a->timeout_ms);
	unsigned long *smap = NULL;
	u32 *sidx = NULL, ns = 0;
	struct hixl_plan pl = {};
	bool stage;
	struct hixl_op_desc *d;
	struct hixl_link *l;
	int ret, st, err;
	u32 i;

	a->failed = a->count;
	ret = hixl_transfer_validate(eng, a);
	if (ret)
		return ret;
	l = hixl_link_get(eng, &a->remote);
	if (!l)
		return -ENOTCONN;
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY) {
		hixl_link_put(l);
		return st == HIXL_LINK_CONNECTING ? -EAGAIN : err;
	}
	d = kvmalloc_array(a->count, sizeof(*d), GFP_KERNEL);
	pl.held = kvmalloc_array(a->count, sizeof(*pl.held), GFP_KERNEL);
	if (!d || !pl.held) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(d, u64_to_user_ptr(a->descs), array_size(a->count, sizeof(*d)))) {
		ret = -EFAULT;
		goto out;
	}

	stage = hixl_stage_usable(l);
	if (stage) {
		sidx = kvmalloc_array(a->count, sizeof(*sidx), GFP_KERNEL);
		smap = bitmap_zalloc(a->count, GFP_KERNEL);
		if (!sidx || !smap) {
			ret = -ENOMEM;
			goto out;
		}
	}

	mutex_lock(&eng->lock);
	/* activate local MRs first: no rtable_lock while waiting on the CQ */
	for (i = 0; i < a->count && !ret; i++) {
		struct hixl_region *r = hixl_region_lookup(eng, d[i].local_addr,
							   d[i].len ? d[i].len : 1);

		/* small descriptors and unregistered local memory are staged */
		if (stage && d[i].len && (d[i].len < HIXL_STAGE_THRESHOLD || !r)) {
			if (r && a->op == HIXL_OP_READ && (r->flags & HIXL_REG_READ_ONLY)) {
				ret = -EACCES;	/* registered read-only: never written */
				a->failed = i;
				break;
			}
			__set_bit(i, smap);
			sidx[ns++] = i;
			continue;
		}
		if (r && !r->mrs_registered) {
			mutex_lock(&l->post_mutex);
			ret = hixl_link_reg_mrs(l, r);
			mutex_unlock(&l->post_mutex);
			if (ret)
				a->failed = i;
		}
	}
	if (ret) {
		mutex_unlock(&eng->lock);
		goto out;
	}
	mutex_lock(&l->rtable_lock);
	for (i = 0; i < a->count && !ret; i++) {
		if (smap && test_bit(i, smap))
			ret = hixl_stage_check(l, a->op, &d[i]);
		else
			ret = hixl_plan_desc(l, a->op, &d[i], i, &pl);
		if (ret)
			a->failed = i;
	}
	mutex_unlock(&l->rtable_lock);
	mutex_unlock(&eng->lock);
	if (ret)
		goto out;

	mutex_lock(&l->post_mutex);
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY)
		ret = err ? err : -ECONNRESET;
	else if (pl.n)
		ret = hixl_run(l, a->op, &pl, deadline, &a->failed);
	if (!ret && ns)
		ret = hixl_stage_run(l, a->op, d, sidx, ns, deadline, &a->failed);
	mutex_unlock(&l->post_mutex);
out:
	hixl_plan_release(eng, &pl);
	bitmap_free(smap);
	kvfree(sidx);
	kvfree(d);
	hixl_link_put(l);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_transfer);
