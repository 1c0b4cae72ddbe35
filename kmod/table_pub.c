// SPDX-License-Identifier: GPL-2.0
/*
 * table_pub.c - a new link's region table sent in waves of up to
 * HIXL_PUB_BUFS regions: the wave's REG_MRs posted together and waited for
 * once, then its REGION messages, and one wait for them, instead of a wait
 * for each.  The messages the peer has not applied (TABLE_ACK) stay within
 * HIXL_PUB_CREDITS, so a slow peer's receive queue does not run dry.  No
 * REG_MR is posted behind a SEND still in flight: rxe executes a fast
 * registration again when it retries after an RNR NAK, and the second one
 * fails (the MR is no longer free), breaking the QP.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "keepalive.h"
#include "msg.h"
#include "table_pub.h"
#include "proto.h"

#define HIXL_PUB_BUFS	16	/* REGION messages a wave: half the peer's RECVs */
#define HIXL_PUB_MRS	32	/* REG_MRs a wave */
/* REGION messages the peer may hold unapplied: its other RECVs stay free */
#define HIXL_PUB_CREDITS	(HIXL_RX_DEPTH - 8)

/**
 * struct hixl_pub - one link's table on its way out
 * @l:       the link; its post_mutex and the engine lock held throughout
 * @ius:     message buffers, one for each region of the wave
 * @regs:    the wave's regions (@used)
 * @used:    regions in this wave
 * @wrs:     this wave's REG_MR requests
 * @mrs:     their MRs, marked registered once they completed
 * @nr_mrs:  REG_MRs the wave's regions need, at most HIXL_PUB_MRS
 * @sends:   the wave's REGION sends
 * @sges:    their buffers
 * @cqe:     the completion of every request posted
 * @pending: requests posted and not completed, + 1 until hixl_pub_wait()
 * @status:  the first failed completion's status, else IB_WC_SUCCESS
 * @done:    completed when @pending drops to 0
 */
struct hixl_pub {
	struct hixl_link *l;
	struct hixl_iu ius[HIXL_PUB_BUFS];
	struct hixl_region *regs[HIXL_PUB_BUFS];
	u32 used;
	struct ib_reg_wr wrs[HIXL_PUB_MRS];
	struct hixl_mr *mrs[HIXL_PUB_MRS];
	u32 nr_mrs;
	struct ib_send_wr sends[HIXL_PUB_BUFS];
	struct ib_sge sges[HIXL_PUB_BUFS];
	struct ib_cqe cqe;
	atomic_t pending;
	int status;
	struct completion done;
};

/**
 * hixl_region_msg_fill() - a REGION message of one region's MR entries
 * @ms:    the region's MR set on the link's rail, with MRs
 * @r:     the region
 * @m:     the message buffer, HIXL_MSG_SIZE bytes; its header is not filled
 * @first: the first MR entry it carries
 * Return: the entries it carries, 1..HIXL_WIRE_MRS_PER_MSG.
 */
u32 hixl_region_msg_fill(const struct hixl_mrset *ms, const struct hixl_region *r,
			 struct hixl_wire_region *m, u32 first)
{
	u32 i, n = min_t(u32, ms->nr_mrs - first, HIXL_WIRE_MRS_PER_MSG);

	memset(m, 0, sizeof(*m));
	m->addr = cpu_to_le64(r->addr);
	m->len = cpu_to_le64(r->len);
	m->flags = cpu_to_le32((r->flags & HIXL_REG_READ_ONLY ? 0 : HIXL_WIRE_REGION_WRITABLE) |
			       (r->type == HIXL_MEM_DEVICE ? HIXL_WIRE_REGION_DEVICE : 0));
	m->nr_mrs = cpu_to_le32(ms->nr_mrs);
	m->first = cpu_to_le32(first);
	m->count = cpu_to_le32(n);
	for (i = 0; i < n; i++) {
		const struct hixl_mr *mr = &ms->mrs[first + i];

		m->mrs[i].addr = cpu_to_le64(mr->addr);
		m->mrs[i].len = cpu_to_le64(mr->len);
		m->mrs[i].iova = cpu_to_le64(mr->mr->iova);
		m->mrs[i].rkey = cpu_to_le32(mr->mr->rkey);
		m->mrs[i].reserved = 0;
	}
	return n;
}

static void hixl_pub_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_pub *p = container_of(wc->wr_cqe, struct hixl_pub, cqe);

	if (wc->status == IB_WC_SUCCESS) {
		hixl_link_alive(p->l);
	} else {
		cmpxchg(&p->status, IB_WC_SUCCESS, wc->status);
		if (wc->status == IB_WC_RETRY_EXC_ERR)
			hixl_link_lost(p->l, "message");
	}
	if (atomic_dec_and_test(&p->pending))
		complete(&p->done);
}

/* Before posting a batch: one count held until hixl_pub_wait(). */
static void hixl_pub_arm(struct hixl_pub *p)
{
	p->status = IB_WC_SUCCESS;
	reinit_completion(&p->done);
	atomic_set(&p->pending, 1);
}

/*
 * Post a chain of @total signaled requests, each naming @p->cqe.
 * Return: 0 or ib_post_send()'s error (the link then fails; what was
 * posted still completes).
 */
static int hixl_pub_post(struct hixl_pub *p, struct ib_send_wr *first, u32 total)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *w;
	u32 posted = 0;
	int ret;

	if (!hixl_link_usable(p->l))
		return -ECONNRESET;
	atomic_add(total, &p->pending);
	ret = ib_post_send(p->l->qp, first, &bad);
	if (ret) {
		for (w = first; w && w != bad; w = w->next)
			posted++;
		atomic_sub(total - posted, &p->pending);
		hixl_link_fail(p->l, ret);
	}
	return ret;
}

/*
 * Wait for what hixl_pub_post() posted since hixl_pub_arm()
 * (HIXL_MSG_TIMEOUT_MS, clamped as hixl_post_wait() clamps).
 * Return: 0; -ETIMEDOUT; -EHOSTDOWN; -ECONNRESET.  Errors break the link.
 */
static int hixl_pub_wait(struct hixl_pub *p)
{
	struct hixl_link *l = p->l;
	unsigned long tmo = msecs_to_jiffies(HIXL_MSG_TIMEOUT_MS);
	int ret = 0;

	if (l->msg.tx_deadline)
		tmo = clamp_t(long, hixl_jiffies_left(l->msg.tx_deadline),
			      (long)msecs_to_jiffies(HIXL_TX_MIN_MS), (long)tmo);
	if (!atomic_dec_and_test(&p->pending) && !wait_for_completion_timeout(&p->done, tmo)) {
		/* break the QP so the rest flush, then wait for them */
		ret = -ETIMEDOUT;
		hixl_link_fail(l, ret);
		rdma_disconnect(l->cm_id);
		wait_for_completion(&p->done);
	}
	if (!ret && p->status != IB_WC_SUCCESS) {
		ret = p->status == IB_WC_RETRY_EXC_ERR ? -EHOSTDOWN : -ECONNRESET;
		hixl_link_fail(l, ret);
	}
	if (!ret)
		hixl_link_hs_progress(l);
	return ret;
}

/*
 * Wait until @n more REGION messages keep the peer's unapplied ones within
 * HIXL_PUB_CREDITS (its TABLE_ACKs), as long as hixl_pub_wait() would.
 * Return: 0; -ECONNRESET the link broke; -ETIMEDOUT (the link then fails).
 */
static int hixl_pub_credits(struct hixl_pub *p, u32 n)
{
	struct hixl_link *l = p->l;
	unsigned long tmo = msecs_to_jiffies(HIXL_MSG_TIMEOUT_MS);
	long left;

	if (l->msg.tx_deadline)
		tmo = clamp_t(long, hixl_jiffies_left(l->msg.tx_deadline),
			      (long)msecs_to_jiffies(HIXL_TX_MIN_MS), (long)tmo);
	left = wait_event_timeout(l->wq, (s64)(l->tbl_sent + n - READ_ONCE(l->tbl_acked)) <=
				  HIXL_PUB_CREDITS || !hixl_link_usable(l), tmo);
	if (!hixl_link_usable(l))
		return -ECONNRESET;
	if (!left) {
		hixl_link_fail(l, -ETIMEDOUT);
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * Send the wave: its REG_MRs, wait, then its REGION messages, wait.
 * Return: as hixl_pub_wait(), or hixl_pub_post()'s error.
 */
static int hixl_pub_flush(struct hixl_pub *p)
{
	struct hixl_link *l = p->l;
	struct ib_send_wr *first = NULL, **next = &first;
	u32 i, j, n, total = 0;
	int ret = 0;

	if (!p->used)
		return 0;
	hixl_pub_arm(p);
	for (i = 0; i < p->used; i++) {
		struct hixl_region *r = p->regs[i];
		struct hixl_mrset *ms = hixl_region_mrset(r, l->rail);
		int access = IB_ACCESS_REMOTE_READ;

		if (ms->mrs_registered)
			continue;
		if (!(r->flags & HIXL_REG_READ_ONLY))
			access |= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		for (j = 0; j < ms->nr_mrs; j++) {
			struct hixl_mr *mr = &ms->mrs[j];
			struct ib_reg_wr *rw = &p->wrs[total];

			if (mr->registered)
				continue;
			*rw = (struct ib_reg_wr) {
				.wr.opcode = IB_WR_REG_MR,
				.wr.send_flags = IB_SEND_SIGNALED,
				.wr.wr_cqe = &p->cqe,
				.mr = mr->mr,
				.key = mr->mr->rkey,
				.access = access,
			};
			p->mrs[total++] = mr;
			*next = &rw->wr;
			next = &rw->wr.next;
		}
	}
	if (total)
		ret = hixl_pub_post(p, first, total);
	if (!ret)
		ret = hixl_pub_wait(p);
	else
		hixl_pub_wait(p);
	if (ret)
		goto out;
	for (i = 0; i < total; i++)
		p->mrs[i]->registered = true;
	for (i = 0; i < p->used; i++)
		hixl_region_mrset(p->regs[i], l->rail)->mrs_registered = true;

	ret = hixl_pub_credits(p, p->used);
	if (ret)
		goto out;
	hixl_pub_arm(p);
	first = NULL;
	next = &first;
	for (i = 0; i < p->used; i++) {
		struct hixl_mrset *ms = hixl_region_mrset(p->regs[i], l->rail);
		struct hixl_iu *iu = &p->ius[i];
		struct hixl_wire_region *m = iu->buf;
		struct ib_send_wr *send = &p->sends[i];

		n = hixl_region_msg_fill(ms, p->regs[i], m, 0);
		hixl_wire_hdr_fill(&m->hdr, HIXL_MSG_REGION, struct_size(m, mrs, n));
		p->sges[i] = (struct ib_sge) {
			.addr = iu->dma,
			.length = struct_size(m, mrs, n),
			.lkey = l->pd->local_dma_lkey,
		};
		ib_dma_sync_single_for_device(l->ibdev, iu->dma, p->sges[i].length, DMA_TO_DEVICE);
		*send = (struct ib_send_wr) {
			.opcode = IB_WR_SEND, .sg_list = &p->sges[i], .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED, .wr_cqe = &p->cqe,
		};
		*next = send;
		next = &send->next;
	}
	ret = hixl_pub_post(p, first, p->used);
	if (!ret)
		ret = hixl_pub_wait(p);
	else
		hixl_pub_wait(p);
	if (!ret)
		l->tbl_sent += p->used;
out:
	p->used = 0;
	p->nr_mrs = 0;
	return ret;
}

/**
 * hixl_pub_start() - buffers for sending a link's table in waves
 * @l: a connected link; its post_mutex held
 * Context: process context.
 * Return: the state, or NULL without memory (the caller then sends one
 * message at a time).
 */
struct hixl_pub *hixl_pub_start(struct hixl_link *l)
{
	struct hixl_pub *p = kzalloc(sizeof(*p), GFP_KERNEL);
	u32 i;

	if (!p)
		return NULL;
	p->l = l;
	p->cqe.done = hixl_pub_done;
	init_completion(&p->done);
	for (i = 0; i < HIXL_PUB_BUFS; i++) {
		if (hixl_iu_alloc(l, &p->ius[i], HIXL_MSG_SIZE, DMA_TO_DEVICE, hixl_pub_done)) {
			while (i--)
				hixl_iu_free(l->ibdev, &p->ius[i]);
			kfree(p);
			return NULL;
		}
	}
	return p;
}

/**
 * hixl_pub_region() - add one region to the wave; send the wave when full
 * @p: from hixl_pub_start()
 * @r: the region, with MRs on the link's rail; the engine lock held
 * Context: process context, may sleep.
 * Return: 0 added (or nothing to announce: no MRs on this rail); 1 not
 * added, the region needs more REG_MRs or messages than a wave takes
 * (hixl_link_reg_mrs() and hixl_send_region() then send it, after
 * hixl_pub_flush() of what is queued); as hixl_pub_flush().
 */
int hixl_pub_region(struct hixl_pub *p, struct hixl_region *r)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, p->l->rail);
	u32 todo = 0, i;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	lockdep_assert_held(&p->l->msg.post_mutex);
	if (!ms->nr_mrs)
		return 0;	/* the rail's device is gone: not announced */
	if (!ms->mrs_registered)
		for (i = 0; i < ms->nr_mrs; i++)
			todo += !ms->mrs[i].registered;
	if (ms->nr_mrs > HIXL_WIRE_MRS_PER_MSG || todo > HIXL_PUB_MRS) {
		ret = hixl_pub_flush(p);	/* keeps the table's order */
		return ret ?: 1;
	}
	if (p->used == HIXL_PUB_BUFS || p->nr_mrs + todo > HIXL_PUB_MRS) {
		ret = hixl_pub_flush(p);
		if (ret)
			return ret;
	}
	p->regs[p->used++] = r;
	p->nr_mrs += todo;
	return 0;
}

/**
 * hixl_pub_finish() - send the last wave and free the buffers
 * @p: from hixl_pub_start(); freed here
 * Context: process context, may sleep.
 * Return: as hixl_pub_flush().
 */
int hixl_pub_finish(struct hixl_pub *p)
{
	struct hixl_link *l = p->l;
	int ret = hixl_pub_flush(p);
	u32 i;

	for (i = 0; i < HIXL_PUB_BUFS; i++)
		hixl_iu_free(l->ibdev, &p->ius[i]);
	kfree(p);
	return ret;
}
