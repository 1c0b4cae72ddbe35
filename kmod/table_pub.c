// SPDX-License-Identifier: GPL-2.0
/*
 * table_pub.c - a new link's region table sent in waves: a wave's REG_MRs
 * posted as one chain, only its last signaled, and waited for once, then
 * its regions packed into a few REGIONS messages, and one wait for them.
 * The messages the peer has not applied (TABLE_ACK) stay within
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

#define HIXL_PUB_BUFS	4	/* REGIONS messages a wave */
#define HIXL_PUB_MRS	128	/* REG_MRs a wave: half the send queue */
/* table messages the peer may hold unapplied: its other RECVs stay free */
#define HIXL_PUB_CREDITS	(HIXL_RX_DEPTH - 8)
#define HIXL_PUB_ROOM	(HIXL_MSG_SIZE - sizeof(struct hixl_wire_regions))

/**
 * struct hixl_pub - one link's table on its way out
 * @l:       the link; its post_mutex and the engine lock held throughout
 * @ius:     the wave's REGIONS messages, filled as regions are added
 * @count:   entries of each message
 * @len:     bytes of each message
 * @msgs:    messages in use, the last one open
 * @regs:    the wave's regions that need REG_MRs (@nr_regs)
 * @nr_regs: their number
 * @wrs:     this wave's REG_MR requests
 * @mrs:     their MRs, marked registered once they completed
 * @nr_mrs:  REG_MRs of the wave, at most HIXL_PUB_MRS
 * @sends:   the wave's SENDs
 * @sges:    their buffers
 * @cqe:     the completion of every signaled request
 * @ucqe:    the failed completion of an unsignaled REG_MR
 * @pending: signaled requests posted and not completed, + 1 until hixl_pub_wait()
 * @status:  the first failed completion's status, else IB_WC_SUCCESS
 * @done:    completed when @pending drops to 0
 */
struct hixl_pub {
	struct hixl_link *l;
	struct hixl_iu ius[HIXL_PUB_BUFS];
	u32 count[HIXL_PUB_BUFS];
	u32 len[HIXL_PUB_BUFS];
	u32 msgs;
	struct hixl_region *regs[HIXL_PUB_MRS];
	u32 nr_regs;
	struct ib_reg_wr wrs[HIXL_PUB_MRS];
	struct hixl_mr *mrs[HIXL_PUB_MRS];
	u32 nr_mrs;
	struct ib_send_wr sends[HIXL_PUB_BUFS];
	struct ib_sge sges[HIXL_PUB_BUFS];
	struct ib_cqe cqe;
	struct ib_cqe ucqe;
	atomic_t pending;
	int status;
	struct completion done;
};

static u32 hixl_wire_region_flags(const struct hixl_region *r)
{
	return (r->flags & HIXL_REG_READ_ONLY ? 0 : HIXL_WIRE_REGION_WRITABLE) |
	       (r->type == HIXL_MEM_DEVICE ? HIXL_WIRE_REGION_DEVICE : 0);
}

static void hixl_wire_mr_fill(struct hixl_wire_mr *w, const struct hixl_mr *mr)
{
	w->addr = cpu_to_le64(mr->addr);
	w->len = cpu_to_le64(mr->len);
	w->iova = cpu_to_le64(mr->mr->iova);
	w->rkey = cpu_to_le32(mr->mr->rkey);
	w->reserved = 0;
}

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
	m->flags = cpu_to_le32(hixl_wire_region_flags(r));
	m->nr_mrs = cpu_to_le32(ms->nr_mrs);
	m->first = cpu_to_le32(first);
	m->count = cpu_to_le32(n);
	for (i = 0; i < n; i++)
		hixl_wire_mr_fill(&m->mrs[i], &ms->mrs[first + i]);
	return n;
}

static void hixl_pub_status(struct hixl_pub *p, struct ib_wc *wc)
{
	if (wc->status == IB_WC_SUCCESS) {
		hixl_link_alive(p->l);
		return;
	}
	cmpxchg(&p->status, IB_WC_SUCCESS, wc->status);
	if (wc->status == IB_WC_RETRY_EXC_ERR)
		hixl_link_lost(p->l, "message");
}

static void hixl_pub_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_pub *p = container_of(wc->wr_cqe, struct hixl_pub, cqe);

	hixl_pub_status(p, wc);
	if (atomic_dec_and_test(&p->pending))
		complete(&p->done);
}

/* An unsignaled REG_MR completes only when it fails; the chain's last one follows. */
static void hixl_pub_udone(struct ib_cq *cq, struct ib_wc *wc)
{
	hixl_pub_status(container_of(wc->wr_cqe, struct hixl_pub, ucqe), wc);
}

/* Before posting a batch: one count held until hixl_pub_wait(). */
static void hixl_pub_arm(struct hixl_pub *p)
{
	p->status = IB_WC_SUCCESS;
	reinit_completion(&p->done);
	atomic_set(&p->pending, 1);
}

/*
 * Post a chain of requests, @total of them signaled with @p->cqe.
 * Return: 0 or ib_post_send()'s error (the link then fails; what was
 * posted still completes).
 */
static int hixl_pub_post(struct hixl_pub *p, struct ib_send_wr *first, u32 total)
{
	const struct ib_send_wr *bad = NULL;
	int ret;

	if (!hixl_link_usable(p->l))
		return -ECONNRESET;
	atomic_add(total, &p->pending);
	ret = ib_post_send(p->l->qp, first, &bad);
	if (ret) {
		for (; bad; bad = bad->next)
			if (bad->send_flags & IB_SEND_SIGNALED)
				atomic_dec(&p->pending);
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
 * Wait until @n more table messages keep the peer's unapplied ones within
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

/* Post @total requests from @first and wait for them (hixl_pub_wait()). */
static int hixl_pub_run(struct hixl_pub *p, struct ib_send_wr *first, u32 total)
{
	int ret;

	hixl_pub_arm(p);
	ret = hixl_pub_post(p, first, total);
	if (!ret)
		return hixl_pub_wait(p);
	hixl_pub_wait(p);
	return ret;
}

/*
 * Send the wave: its REG_MRs, wait, then its REGIONS messages, wait.
 * Return: as hixl_pub_wait(), or hixl_pub_post()'s error.
 */
static int hixl_pub_flush(struct hixl_pub *p)
{
	struct hixl_link *l = p->l;
	u32 i, n = p->msgs;
	int ret = 0;

	if (!n)
		return 0;
	if (p->nr_mrs) {
		for (i = 0; i + 1 < p->nr_mrs; i++)
			p->wrs[i].wr.next = &p->wrs[i + 1].wr;
		p->wrs[i].wr.next = NULL;
		p->wrs[i].wr.send_flags = IB_SEND_SIGNALED;
		p->wrs[i].wr.wr_cqe = &p->cqe;
		ret = hixl_pub_run(p, &p->wrs[0].wr, 1);
		if (ret)
			goto out;
		for (i = 0; i < p->nr_mrs; i++)
			p->mrs[i]->registered = true;
		for (i = 0; i < p->nr_regs; i++)
			hixl_region_mrset(p->regs[i], l->rail)->mrs_registered = true;
	}
	ret = hixl_pub_credits(p, n);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		struct hixl_iu *iu = &p->ius[i];
		struct hixl_wire_regions *m = iu->buf;
		u32 len = p->len[i];

		m->count = cpu_to_le32(p->count[i]);
		m->reserved = 0;
		hixl_wire_hdr_fill(&m->hdr, HIXL_MSG_REGIONS, len);
		p->sges[i] = (struct ib_sge) {
			.addr = iu->dma, .length = len, .lkey = l->pd->local_dma_lkey,
		};
		ib_dma_sync_single_for_device(l->ibdev, iu->dma, len, DMA_TO_DEVICE);
		p->sends[i] = (struct ib_send_wr) {
			.opcode = IB_WR_SEND, .sg_list = &p->sges[i], .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED, .wr_cqe = &p->cqe,
			.next = i + 1 < n ? &p->sends[i + 1] : NULL,
		};
	}
	ret = hixl_pub_run(p, &p->sends[0], n);
	if (!ret)
		l->tbl_sent += n;
out:
	p->msgs = 0;
	p->nr_regs = 0;
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
	struct hixl_pub *p = kvzalloc(sizeof(*p), GFP_KERNEL);
	u32 i;

	if (!p)
		return NULL;
	p->l = l;
	p->cqe.done = hixl_pub_done;
	p->ucqe.done = hixl_pub_udone;
	init_completion(&p->done);
	for (i = 0; i < HIXL_PUB_BUFS; i++) {
		if (hixl_iu_alloc(l, &p->ius[i], HIXL_MSG_SIZE, DMA_TO_DEVICE, hixl_pub_done)) {
			while (i--)
				hixl_iu_free(l->ibdev, &p->ius[i]);
			kvfree(p);
			return NULL;
		}
	}
	return p;
}

/* Queue REG_MRs of @r's MRs on the link's rail not registered yet. */
static void hixl_pub_reg_mrs(struct hixl_pub *p, struct hixl_region *r, struct hixl_mrset *ms)
{
	int access = IB_ACCESS_REMOTE_READ;
	u32 i;

	if (!(r->flags & HIXL_REG_READ_ONLY))
		access |= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	for (i = 0; i < ms->nr_mrs; i++) {
		struct hixl_mr *mr = &ms->mrs[i];

		if (mr->registered)
			continue;
		p->wrs[p->nr_mrs] = (struct ib_reg_wr) {
			.wr.opcode = IB_WR_REG_MR,
			.wr.wr_cqe = &p->ucqe,
			.mr = mr->mr,
			.key = mr->mr->rkey,
			.access = access,
		};
		p->mrs[p->nr_mrs++] = mr;
	}
	p->regs[p->nr_regs++] = r;
}

/**
 * hixl_pub_region() - add one region to the wave; send the wave when full
 * @p: from hixl_pub_start()
 * @r: the region, with MRs on the link's rail; the engine lock held
 * Context: process context, may sleep.
 * Return: 0 added (or nothing to announce: no MRs on this rail); 1 not
 * added, the region needs more REG_MRs or bytes than a wave takes
 * (hixl_link_reg_mrs() and hixl_send_region() then send it, after
 * hixl_pub_flush() of what is queued); as hixl_pub_flush().
 */
int hixl_pub_region(struct hixl_pub *p, struct hixl_region *r)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, p->l->rail);
	struct hixl_wire_region_ent *e;
	u32 todo = 0, size, i, *len;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	lockdep_assert_held(&p->l->msg.post_mutex);
	if (!ms->nr_mrs)
		return 0;	/* the rail's device is gone: not announced */
	if (!ms->mrs_registered)
		for (i = 0; i < ms->nr_mrs; i++)
			todo += !ms->mrs[i].registered;
	size = struct_size(e, mrs, ms->nr_mrs);
	if (size > HIXL_PUB_ROOM || todo > HIXL_PUB_MRS) {
		ret = hixl_pub_flush(p);	/* keeps the table's order */
		return ret ?: 1;
	}
	if (p->nr_mrs + todo > HIXL_PUB_MRS ||
	    (p->msgs == HIXL_PUB_BUFS && p->len[p->msgs - 1] + size > HIXL_MSG_SIZE)) {
		ret = hixl_pub_flush(p);
		if (ret)
			return ret;
	}
	if (!p->msgs || p->len[p->msgs - 1] + size > HIXL_MSG_SIZE) {
		p->count[p->msgs] = 0;
		p->len[p->msgs++] = sizeof(struct hixl_wire_regions);
	}
	len = &p->len[p->msgs - 1];
	e = p->ius[p->msgs - 1].buf + *len;
	e->addr = cpu_to_le64(r->addr);
	e->len = cpu_to_le64(r->len);
	e->flags = cpu_to_le32(hixl_wire_region_flags(r));
	e->nr_mrs = cpu_to_le32(ms->nr_mrs);
	for (i = 0; i < ms->nr_mrs; i++)
		hixl_wire_mr_fill(&e->mrs[i], &ms->mrs[i]);
	*len += size;
	p->count[p->msgs - 1]++;
	if (todo)
		hixl_pub_reg_mrs(p, r, ms);
	else
		ms->mrs_registered = true;
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
	kvfree(p);
	return ret;
}
