// SPDX-License-Identifier: GPL-2.0
/*
 * xq.c - a link's transfer queue: chains within HIXL_CHAIN credits, only the last WR
 * signaled (as rtrs); TABLE_ACKs held by hixl_xq_hold_ack()
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "link.h"
#include "keepalive.h"
#include "rtable.h"
#include "plan.h"
#include "xq.h"
#include "poll.h"
#include "xrail.h"
#include "testhook.h"
#include "trace.h"

/* a chain of more WRs than a batch holds; freed as the chain */
struct hixl_xchain_alloc {
	struct hixl_xchain c;
	struct hixl_xwr w[];
};

/* the pump's scratch work requests (under xq.mutex) */
struct hixl_xwr_scratch {
	struct ib_rdma_wr wr;
	struct ib_sge sge;
};

static void hixl_xq_work(struct work_struct *w);

/**
 * hixl_link_xq_init() - set up a link's transfer queue
 * @l: a new link
 * Return: 0 or -ENOMEM.
 */
int hixl_link_xq_init(struct hixl_link *l)
{
	mutex_init(&l->xq.mutex);
	spin_lock_init(&l->xq.lock);
	INIT_LIST_HEAD(&l->xq.batches);
	l->xq.credits = HIXL_CHAIN;
	INIT_WORK(&l->xq.work, hixl_xq_work);
	l->xq.wr = kvcalloc(HIXL_CHAIN, sizeof(struct hixl_xwr_scratch), GFP_KERNEL);
	return l->xq.wr ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_xq_init);

/**
 * hixl_link_xq_free() - free what hixl_link_xq_init() allocated
 * @l: a link no batch refers to any more
 */
void hixl_link_xq_free(struct hixl_link *l)
{
	WARN_ON_ONCE(!list_empty(&l->xq.batches));
	kfree(l->xq.spare);
	kvfree(l->xq.wr);
	mutex_destroy(&l->xq.mutex);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_xq_free);

static void hixl_xq_kick(struct hixl_link *l);

/* xq.lock held */
static bool hixl_xq_busy(struct hixl_link *l)
{
	return !list_empty(&l->xq.batches) || l->xq.posting || atomic_read(&l->xq.planning);
}

/* May a table message's TABLE_ACK go now?  True: the pump sends it later. */
static bool hixl_xq_hold_ack(struct hixl_link *l, bool fence, u64 *applied)
{
	bool hold;

	spin_lock(&l->xq.lock);
	*applied = ++l->tbl_applied;
	hold = l->ack_held || (fence && hixl_xq_busy(l));
	l->ack_held = hold;
	spin_unlock(&l->xq.lock);
	if (hold)
		hixl_xq_kick(l);	/* the queue may be idle already */
	return hold;
}

/* xq.mutex held */
static void hixl_xq_release_ack(struct hixl_link *l)
{
	bool send = false;
	u64 applied = 0;

	lockdep_assert_held(&l->xq.mutex);
	spin_lock(&l->xq.lock);
	if (l->ack_held && !l->xq.closed && !hixl_xq_busy(l)) {
		l->ack_held = false;
		applied = l->tbl_applied;
		send = true;
	}
	spin_unlock(&l->xq.lock);
	if (send && hixl_table_ack(l, applied))
		hixl_link_fail(l, -ECONNRESET);
}

/**
 * hixl_xq_plan_begin() - hold a removal's ACK: a TRANSFER reads the peer's table
 * @l: the link
 */
void hixl_xq_plan_begin(struct hixl_link *l)
{
	atomic_inc(&l->xq.planning);
}

/**
 * hixl_xq_plan_end() - its pieces are on the queue, or there are none
 * @l: the link
 */
void hixl_xq_plan_end(struct hixl_link *l)
{
	if (atomic_dec_and_test(&l->xq.planning) && READ_ONCE(l->ack_held))
		hixl_xq_kick(l);
}

/* xq.lock held */
static u32 hixl_xbatch_first_open(const struct hixl_xbatch *b)
{
	return b->acked < b->pl.n ? b->pl.p[b->acked].desc : b->count;
}

/* xq.lock held */
static void hixl_xbatch_set_status(struct hixl_xbatch *b, int err, u32 failed)
{
	if (!b->status) {
		b->status = err;
		b->failed = failed;
	}
}

/* Take a failed batch off the queue; true if it has ended.  xq.lock held. */
static bool hixl_xbatch_settle(struct hixl_xbatch *b)
{
	if (b->status && b->queued) {
		list_del_init(&b->q_node);
		b->queued = false;
	}
	if (b->ended || b->queued || b->chains)
		return false;
	b->ended = true;
	return true;
}

static void hixl_xbatch_free(struct kref *ref)
{
	struct hixl_xbatch *b = container_of(ref, struct hixl_xbatch, ref);
	struct hixl_link *l;

	hixl_plan_free(&b->pl);		/* normally empty: released at the end */
	kvfree(b->xr_pieces);
	kvfree(b->xr_plend);
	if (b->xr)
		hixl_xrail_put(b->xr);
	l = b->l;
	if (cmpxchg(&l->xq.spare, NULL, b))	/* kept: the next batch allocates nothing */
		kfree(b);
	hixl_link_put(l);
}

/**
 * hixl_xbatch_put() - drop a reference to a batch
 * @b: the batch
 */
void hixl_xbatch_put(struct hixl_xbatch *b)
{
	kref_put(&b->ref, hixl_xbatch_free);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_put);

/* End a settled batch: stop its timeout, release regions, tell the submitter. */
static void hixl_xbatch_end(struct hixl_xbatch *b)
{
	struct hixl_engine *eng = b->eng;

	if (!b->sync_tmo && cancel_delayed_work(&b->tmo))
		hixl_xbatch_put(b);		/* the timeout's reference */
	if (!b->status) {	/* an error counts once, at the request's end (req.c) */
		b->failed = b->count;
		hixl_link_count_xfer(b->l, b->op, false, b->pl.bytes, b->ndesc);
	}
	hixl_plan_release(eng, &b->pl);
	spin_lock(&eng->xfer_lock);
	list_del_init(&b->eng_node);
	spin_unlock(&eng->xfer_lock);
	complete_all(&b->gone);		/* a revoking CANCEL may return now */
	b->end_fn(b);			/* may drop the submitter's reference */
}

/**
 * hixl_xbatch_new() - a batch for the pieces of one TRANSFER
 * @eng:   the engine
 * @l:     the link; the batch takes its own reference
 * @op:    HIXL_OP_READ or HIXL_OP_WRITE
 * @count: the TRANSFER's descriptor count
 * @tag:   its tag (0: not cancelable by tag)
 *
 * The caller fills @b->pl, @b->end_fn and @b->req, then submits.
 * Return: the batch with the submitter's reference, or NULL.
 */
struct hixl_xbatch *hixl_xbatch_new(struct hixl_engine *eng, struct hixl_link *l, u32 op,
				    u32 count, u64 tag)
{
	struct hixl_xbatch *b = xchg(&l->xq.spare, NULL);

	if (b)
		memset(b, 0, sizeof(*b));
	else
		b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	kref_init(&b->ref);
	kref_get(&l->ref);
	b->eng = eng;
	b->l = l;
	b->op = op;
	b->count = count;
	b->tag = tag;
	INIT_LIST_HEAD(&b->eng_node);
	INIT_LIST_HEAD(&b->q_node);
	INIT_LIST_HEAD(&b->cancel_node);
	INIT_LIST_HEAD(&b->xr_node);
	init_completion(&b->done);
	init_completion(&b->gone);
	hixl_plan_init(&b->pl, &b->room);
	b->c_inl.w = b->w_inl;
	return b;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_new);

/* Run the pump in a worker, which holds a link reference. */
static void hixl_xq_kick(struct hixl_link *l)
{
	kref_get(&l->ref);
	if (!queue_work(hixl_wq, &l->xq.work))
		hixl_link_put(l);
}

/**
 * hixl_xq_break() - break a link with requests of ours on the wire
 * @l:   the link, referenced
 * @err: the link's error
 * Context: process context; takes @l->msg.post_mutex.
 */
void hixl_xq_break(struct hixl_link *l, int err)
{
	hixl_link_fail(l, err);
	mutex_lock(&l->msg.post_mutex);
	if (l->qp && l->cm_id)
		rdma_disconnect(l->cm_id);	/* QP to error: posted work flushes */
	mutex_unlock(&l->msg.post_mutex);
}

static void hixl_xchain_free(struct hixl_xchain *c)
{
	if (c != &c->b->c_inl)
		kfree(c);
}

static void hixl_xwr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_xwr *w = container_of(wc->wr_cqe, struct hixl_xwr, cqe);
	struct hixl_xchain *c = w->c;
	struct hixl_xbatch *b = c->b;
	struct hixl_link *l = b->l;	/* alive: its CQ is running us */
	bool last = w->i == c->n - 1, end = false, kick = false;
	int err = 0, lerr = 0;

	hixl_test_delay_once(HIXL_TEST_XWR_DONE);	/* the chain on the wire, held */
	if (wc->status != IB_WC_SUCCESS) {
		err = hixl_wc_errno(wc);
		/* the peer went silent, or a revoking CANCEL: say that */
		if (err == -ECONNRESET && hixl_link_state(l, &lerr) >= HIXL_LINK_ERROR &&
		    (lerr == -EHOSTDOWN || lerr == -ECONNABORTED))
			err = lerr;
		if (err != -ECONNRESET && err != lerr) {
			hixl_link_warn(l, "transfer descriptor %u: %s\n",
				       b->pl.p[c->first + w->i].desc, ib_wc_status_msg(wc->status));
			hixl_link_count(l, HIXL_CTR_WC_ERRORS, 1);
		}
	} else {
		hixl_link_alive(l);
	}
	spin_lock(&l->xq.lock);
	if (err) {
		/* a device error says more than the flushes it causes */
		if (b->status == -ECONNRESET && err != -ECONNRESET)
			b->status = 0;
		hixl_xbatch_set_status(b, err, b->pl.p[c->first + w->i].desc);
	}
	if (last) {
		/* a waiter that ran this handler could not time the batch out */
		if (b->sync_tmo && time_after_eq(jiffies, b->deadline))
			hixl_xbatch_set_status(b, -ETIMEDOUT, b->pl.p[c->first].desc);
		l->xq.credits += c->n;
		b->chains--;
		if (!err)
			b->acked = c->first + c->n;
		end = hixl_xbatch_settle(b);
		kick = !list_empty(&l->xq.batches) || l->ack_held;
	}
	spin_unlock(&l->xq.lock);
	if (err == -EIO)
		hixl_link_fail(l, err);	/* the RC QP is in the error state now */
	else if (err == -EHOSTDOWN)
		hixl_link_lost(l, "transfer");	/* the same, the peer silent */
	if (last)
		hixl_xchain_free(c);
	if (end)
		hixl_xbatch_end(b);
	if (kick)
		hixl_xq_kick(l);
}

static void hixl_xchain_build(struct hixl_xwr_scratch *s, struct hixl_xchain *c)
{
	const struct hixl_xbatch *b = c->b;
	u32 i, n = c->n;

	for (i = 0; i < n; i++) {
		const struct hixl_piece *pc = &b->pl.p[c->first + i];
		struct hixl_xwr_scratch *x = &s[i];
		bool lastwr = i == n - 1;

		c->w[i].c = c;
		c->w[i].i = i;
		c->w[i].cqe.done = hixl_xwr_done;
		memset(x, 0, sizeof(*x));
		x->sge.addr = pc->laddr;
		x->sge.length = pc->len;
		x->sge.lkey = pc->lkey;
		x->wr.wr.wr_cqe = &c->w[i].cqe;
		x->wr.wr.opcode = b->op == HIXL_OP_READ ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		x->wr.wr.sg_list = &x->sge;
		x->wr.wr.num_sge = 1;
		x->wr.wr.send_flags = lastwr ? IB_SEND_SIGNALED : 0;
		x->wr.wr.next = lastwr ? NULL : &s[i + 1].wr.wr;
		x->wr.remote_addr = pc->raddr;
		x->wr.rkey = pc->rkey;
	}
}

/*
 * Posting chain @c failed at @bad: WRs before it have no signaled WR to
 * end them, so break the link, drain, and end the chain by hand.
 */
static void hixl_xchain_post_failed(struct hixl_link *l, struct hixl_xchain *c,
				    struct hixl_xwr_scratch *s, const struct ib_send_wr *bad)
{
	struct hixl_xbatch *b = c->b, *ended = NULL;
	u32 i;

	hixl_link_fail(l, -ECONNRESET);
	if (bad != &s[0].wr.wr)
		ib_drain_sq(l->qp);
	i = bad ? container_of(bad, struct hixl_xwr_scratch, wr.wr) - s : 0;
	spin_lock(&l->xq.lock);
	hixl_xbatch_set_status(b, -ECONNRESET, b->pl.p[c->first + i].desc);
	l->xq.credits += c->n;
	b->chains--;
	if (hixl_xbatch_settle(b))
		ended = b;
	spin_unlock(&l->xq.lock);
	hixl_xchain_free(c);
	if (ended)
		hixl_xbatch_end(ended);
}

/* Post what the window allows; xq.mutex held. */
static void hixl_xq_pump_locked(struct hixl_link *l)
{
	struct hixl_xwr_scratch *s = l->xq.wr;

	lockdep_assert_held(&l->xq.mutex);
	for (;;) {
		const struct ib_send_wr *bad = NULL;
		struct hixl_xbatch *b, *ended = NULL;
		struct hixl_xchain *c = NULL;
		bool inl;
		u32 want, n;
		int ret, lerr, st;

		st = hixl_link_state(l, &lerr);
		spin_lock(&l->xq.lock);
		b = list_first_entry_or_null(&l->xq.batches, struct hixl_xbatch, q_node);
		want = b ? min(l->xq.credits, b->pl.n - b->next) : 0;
		/* a small batch in one chain: its own; only we advance b->next */
		inl = b && !b->next && want == b->pl.n && want <= HIXL_PLAN_INLINE;
		spin_unlock(&l->xq.lock);
		if (!want) {
			hixl_xq_release_ack(l);
			return;
		}
		if (!inl) {
			struct hixl_xchain_alloc *ca;

			ca = kmalloc(struct_size(ca, w, want), GFP_KERNEL);
			if (ca) {
				ca->c.w = ca->w;
				c = &ca->c;
			}
		}

		spin_lock(&l->xq.lock);
		if (b != list_first_entry_or_null(&l->xq.batches, struct hixl_xbatch, q_node)) {
			spin_unlock(&l->xq.lock);	/* cancelled or timed out meanwhile */
			kfree(c);
			continue;
		}
		if (inl)
			c = &b->c_inl;
		if (!c || l->xq.closed || st >= HIXL_LINK_ERROR) {
			hixl_xbatch_set_status(b, !c ? -ENOMEM : lerr ? lerr : -ECONNRESET,
					       b->pl.p[b->next].desc);
			if (hixl_xbatch_settle(b))
				ended = b;
			spin_unlock(&l->xq.lock);
			if (!inl)
				kfree(c);
			if (ended)
				hixl_xbatch_end(ended);
			continue;
		}
		n = min3(want, l->xq.credits, b->pl.n - b->next);
		c->b = b;
		c->first = b->next;
		c->n = n;
		l->xq.credits -= n;
		b->next += n;
		b->chains++;
		if (b->next == b->pl.n) {
			list_del_init(&b->q_node);
			b->queued = false;
		}
		l->xq.posting = true;	/* taken off the queue, not posted yet */
		spin_unlock(&l->xq.lock);

		hixl_xchain_build(s, c);
		/* BH off, as netif_rx(): a software device's softirq runs on re-enable */
		local_bh_disable();
		ret = ib_post_send(l->qp, &s[0].wr.wr, &bad);
		local_bh_enable();
		spin_lock(&l->xq.lock);
		l->xq.posting = false;
		spin_unlock(&l->xq.lock);
		if (ret)
			hixl_xchain_post_failed(l, c, s, bad);
	}
}

/* @nonblock: never sleep on xq.mutex; leave it to a worker. */
static void hixl_xq_pump(struct hixl_link *l, bool nonblock)
{
	if (nonblock) {
		if (!mutex_trylock(&l->xq.mutex)) {
			hixl_xq_kick(l);
			return;
		}
	} else {
		mutex_lock(&l->xq.mutex);
	}
	hixl_xq_pump_locked(l);
	mutex_unlock(&l->xq.mutex);
}

static void hixl_xq_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, xq.work);

	hixl_xq_pump(l, false);
	hixl_link_put(l);		/* hixl_xq_kick()'s */
}

/**
 * hixl_xbatch_expire() - end a batch whose deadline passed with -ETIMEDOUT
 * @b: the batch, referenced
 *
 * Breaks the link when WRs of it are on the wire.
 * Context: process context.
 */
void hixl_xbatch_expire(struct hixl_xbatch *b)
{
	struct hixl_link *l = b->l;
	bool end, wire = false;

	spin_lock(&l->xq.lock);
	if (!b->ended && !b->status) {
		hixl_xbatch_set_status(b, -ETIMEDOUT, hixl_xbatch_first_open(b));
		wire = b->chains > 0;
	}
	end = hixl_xbatch_settle(b);
	spin_unlock(&l->xq.lock);
	if (end)
		hixl_xbatch_end(b);
	else if (wire)
		hixl_xq_break(l, -ETIMEDOUT);
	if (READ_ONCE(l->ack_held))
		hixl_xq_kick(l);	/* the queue may have emptied */
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_expire);

static void hixl_xbatch_timeout(struct work_struct *w)
{
	struct hixl_xbatch *b = container_of(to_delayed_work(w), struct hixl_xbatch, tmo);

	hixl_xbatch_expire(b);
	hixl_xbatch_put(b);		/* the timeout's reference */
}

/**
 * hixl_xbatch_submit() - queue a batch on its link and start posting
 * @b:        a batch from hixl_xbatch_new(), its plan and @end_fn set
 * @deadline: jiffies; the batch ends with -ETIMEDOUT after it, by its
 *            timer or, with @b->sync_tmo, its waiter
 * @nonblock: the caller must not sleep
 *
 * From here the batch ends exactly once, through @b->end_fn.
 * Context: process context.
 */
void hixl_xbatch_submit(struct hixl_xbatch *b, unsigned long deadline, bool nonblock)
{
	struct hixl_engine *eng = b->eng;
	struct hixl_link *l = b->l;
	bool end = false;

	spin_lock(&eng->xfer_lock);
	list_add_tail(&b->eng_node, &eng->xfers);
	spin_unlock(&eng->xfer_lock);

	b->deadline = deadline;
	if (!b->sync_tmo) {
		INIT_DELAYED_WORK(&b->tmo, hixl_xbatch_timeout);
		kref_get(&b->ref);	/* the timeout's */
	}
	spin_lock(&l->xq.lock);
	b->submitted = true;	/* a cancel from now on ends the batch itself */
	if (b->planning) {	/* on the queue now: a held ACK waits for it there */
		b->planning = false;
		atomic_dec(&l->xq.planning);
	}
	if (l->xq.closed || !b->pl.n || b->status) {	/* status: cancelled already */
		if (l->xq.closed)
			hixl_xbatch_set_status(b, -ECONNRESET,
					       b->pl.n ? b->pl.p[0].desc : b->count);
		b->ended = true;
		end = true;
	} else {
		list_add_tail(&b->q_node, &l->xq.batches);
		b->queued = true;
		if (!b->sync_tmo)
			queue_delayed_work(hixl_wq, &b->tmo, hixl_jiffies_left(deadline));
	}
	spin_unlock(&l->xq.lock);
	if (end) {
		if (!b->sync_tmo)
			hixl_xbatch_put(b);	/* no timeout armed */
		hixl_xbatch_end(b);
		if (READ_ONCE(l->ack_held))
			hixl_xq_kick(l);
		return;
	}
	hixl_xq_pump(l, nonblock);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_submit);

/**
 * hixl_xbatch_cancel() - end a running batch with -ECANCELED
 * @b: the batch, referenced
 *
 * It ends once its posted WRs complete; an outcome already set stays.
 * Cancelling a striped TRANSFER's anchor cancels all its sub-batches.
 * Context: process context.
 */
void hixl_xbatch_cancel(struct hixl_xbatch *b)
{
	struct hixl_link *l = b->l;
	bool end;

	spin_lock(&l->xq.lock);
	if (!b->ended)
		hixl_xbatch_set_status(b, -ECANCELED, hixl_xbatch_first_open(b));
	end = b->submitted && hixl_xbatch_settle(b);
	spin_unlock(&l->xq.lock);
	if (end)
		hixl_xbatch_end(b);
	if (READ_ONCE(l->ack_held))
		hixl_xq_kick(l);	/* the queue may have emptied */
	if (b->xr_anchor)
		hixl_xrail_cancel(b->xr);	/* a striped TRANSFER: every sub-batch */
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_cancel);

/**
 * hixl_xbatch_on_wire() - may a batch have WRs on the send queue?
 * @b: the batch, referenced
 * Return: true if submitted and not ended.
 */
bool hixl_xbatch_on_wire(struct hixl_xbatch *b)
{
	bool wire;

	spin_lock(&b->l->xq.lock);
	wire = b->submitted && !b->ended;
	spin_unlock(&b->l->xq.lock);
	return wire;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xbatch_on_wire);

/**
 * hixl_xbatch_wait() - wait for a batch the caller submitted
 * @b:      the batch; its @end_fn completes @b->done
 * @failed: out: the descriptor to blame, or @b->count on success
 *
 * A fatal signal cancels the batch; a small batch may spin first (poll.c).
 * Return: 0, -ETIMEDOUT, -ECANCELED, or the link error.
 */
int hixl_xbatch_wait(struct hixl_xbatch *b, u32 *failed)
{
	bool spun = b->poll && hixl_poll_spin(b->l, &b->done, b->post_ns, U64_MAX);

	if (wait_for_completion_killable(&b->done)) {
		hixl_xbatch_cancel(b);
		wait_for_completion(&b->done);
	}
	if (b->poll && !b->status)
		hixl_poll_record(b->l, spun, b->post_ns);
	*failed = b->failed;
	return b->status;
}

/*
 * Fail every batch of a CLOSED link whose QP still exists: waiting ones
 * now, those on the wire when they flush.  Nothing is posted after.
 */
static void hixl_link_xq_close(struct hixl_link *l)
{
	struct hixl_xbatch *b, *tmp;
	LIST_HEAD(ended);

	spin_lock(&l->xq.lock);
	l->xq.closed = true;
	list_for_each_entry_safe(b, tmp, &l->xq.batches, q_node) {
		hixl_xbatch_set_status(b, -ECONNRESET, hixl_xbatch_first_open(b));
		list_del_init(&b->q_node);
		b->queued = false;
		if (hixl_xbatch_settle(b))
			list_add_tail(&b->q_node, &ended);
	}
	spin_unlock(&l->xq.lock);
	list_for_each_entry_safe(b, tmp, &ended, q_node) {
		list_del_init(&b->q_node);
		hixl_xbatch_end(b);
	}
	mutex_lock(&l->xq.mutex);	/* a pump that reserved before the close has posted */
	mutex_unlock(&l->xq.mutex);
}

const struct hixl_link_queue_ops hixl_xq_link_ops = {
	.init = hixl_link_xq_init,
	.close = hixl_link_xq_close,
	.free = hixl_link_xq_free,
	.hold_ack = hixl_xq_hold_ack,
};
