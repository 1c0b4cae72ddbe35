// SPDX-License-Identifier: GPL-2.0
/*
 * link.c - connections between engines (HIXL Connect/Disconnect,
 * seeds/003_HIXL-api.md): RDMA CM, one RC QP per link, and the exchange of
 * region tables over SEND/RECV (proto.h).
 *
 * Model: drivers/nvme/host/rdma.c and drivers/nvme/target/rdma.c (the
 * active side drives address/route resolution and connect from the calling
 * thread and waits for each CM event; the passive side creates the QP and
 * accepts inside the CONNECT_REQUEST handler), drivers/infiniband/ulp/rtrs
 * (one handler for listener and connection ids).
 *
 * A CONNECT to a port nobody listens on is refused at once by the peer's CM;
 * like a server that is still starting, it is retried every 50 ms until the
 * timeout, which then returns -ETIMEDOUT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/memcontrol.h>
#include <linux/nsproxy.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "hixl_priv.h"
#include "proto.h"

#define HIXL_MSG_TIMEOUT_MS	10000	/* one SEND or REG_MR must complete within this */
#define HIXL_RETRY_MS		50

/**
 * hixl_sockaddr_equal() - do two engine names name the same engine?
 * @a: a name
 * @b: another
 */
bool hixl_sockaddr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b)
{
	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* ---- state ----------------------------------------------------------------------- */

/**
 * hixl_link_state() - a link's state and, when broken, why
 * @l:   the link
 * @err: out: the link's error (-errno) when the state is ERROR or CLOSED
 */
int hixl_link_state(struct hixl_link *l, int *err)
{
	int st;

	spin_lock(&l->lock);
	st = l->state;
	*err = l->err;
	spin_unlock(&l->lock);
	return st;
}

/**
 * hixl_link_fail() - mark a link broken; the first error sticks
 * @l:   the link
 * @err: -errno the next caller gets
 *
 * Context: any.
 */
void hixl_link_fail(struct hixl_link *l, int err)
{
	spin_lock(&l->lock);
	if (l->state < HIXL_LINK_ERROR) {
		l->state = HIXL_LINK_ERROR;
		l->err = err;
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
}

static void hixl_link_schedule_release(struct hixl_link *l);

/**
 * hixl_link_abort() - break a link and free it without waiting for the peer
 * @l:   the link
 * @err: -errno the next caller gets (hixl_link_fail())
 *
 * For a peer that broke the protocol: the link is marked broken, parses
 * nothing more (hixl_rx_done() drops what still arrives), and is taken off
 * the engine's list and torn down from hixl_wq, which disconnects the peer
 * and gives its link slot back at once.  A link whose hixl_accept() is
 * still running (its QP can fail under rdma_accept()) is only marked
 * broken: hixl_accept() frees it, or releases it once it has returned.
 *
 * Context: any that may queue work (the CQ handler).
 */
void hixl_link_abort(struct hixl_link *l, int err)
{
	bool accepting;

	hixl_link_fail(l, err);
	spin_lock(&l->lock);
	accepting = l->accepting;	/* hixl_accept() releases it when it is done */
	spin_unlock(&l->lock);
	if (!accepting)
		hixl_link_schedule_release(l);
}

static void hixl_link_check_ready(struct hixl_link *l)
{
	spin_lock(&l->lock);
	if (l->state == HIXL_LINK_CONNECTING && l->table_sent && l->peer_done)
		l->state = HIXL_LINK_READY;
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
}

/**
 * hixl_link_usable() - may work be posted on this link now?
 * @l: the link; post_mutex held
 *
 * A reference keeps the struct, not its QP: hixl_link_destroy() marks the
 * link CLOSED and then frees the QP and the message buffers under
 * post_mutex.  Everyone who takes post_mutex to post checks this first.
 */
bool hixl_link_usable(struct hixl_link *l)
{
	int err;

	lockdep_assert_held(&l->post_mutex);
	return l->qp && l->tx_buf && hixl_link_state(l, &err) < HIXL_LINK_ERROR;
}

/* ---- messages ---------------------------------------------------------------------- */

static void hixl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	l->tx_status = wc->status;
	complete(&l->tx_done);
}

/**
 * hixl_post_wait() - post one signaled work request and wait for it
 * @l:  the link; post_mutex held
 * @wr: the request (its wr_cqe and send_flags are set here)
 *
 * The wait is HIXL_MSG_TIMEOUT_MS, or up to @l->tx_deadline when one is set
 * (a table update's, table.c), but at least HIXL_TX_MIN_MS: a peer that
 * stops posting receives holds our SEND (RNR retries never end) only that
 * long.
 *
 * Return: 0; -ETIMEDOUT after that or -ECONNRESET on an error completion,
 * both breaking the link.
 */
int hixl_post_wait(struct hixl_link *l, struct ib_send_wr *wr)
{
	unsigned long tmo = msecs_to_jiffies(HIXL_MSG_TIMEOUT_MS);
	int ret;

	lockdep_assert_held(&l->post_mutex);
	if (l->tx_deadline)
		tmo = clamp_t(long, (long)(l->tx_deadline - jiffies),
			      (long)msecs_to_jiffies(HIXL_TX_MIN_MS), (long)tmo);
	if (!hixl_link_usable(l))
		return -ECONNRESET;
	reinit_completion(&l->tx_done);
	l->tx_cqe.done = hixl_tx_done;
	wr->wr_cqe = &l->tx_cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(l->qp, wr, NULL);
	if (ret)
		goto fail;
	if (!wait_for_completion_timeout(&l->tx_done, tmo)) {
		/* the QP is stuck: break it so the completion flushes, then wait */
		ret = -ETIMEDOUT;
		hixl_link_fail(l, ret);
		rdma_disconnect(l->cm_id);
		wait_for_completion(&l->tx_done);
		return ret;
	}
	if (l->tx_status == IB_WC_SUCCESS)
		return 0;
	ret = -ECONNRESET;
fail:
	hixl_link_fail(l, ret);
	return ret;
}

/**
 * hixl_send_msg() - send the first @len bytes of the link's tx_buf
 * @l:    the link; post_mutex held
 * @type: enum hixl_wire_type; the header is filled here
 * @len:  bytes of the whole message
 *
 * Return: as hixl_post_wait().
 */
int hixl_send_msg(struct hixl_link *l, u16 type, u32 len)
{
	struct hixl_wire_hdr *h = l->tx_buf;
	struct ib_sge sge = { .length = len };
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
	};

	if (!hixl_link_usable(l))
		return -ECONNRESET;
	sge.addr = l->tx_dma;
	sge.lkey = l->eng->rdma->pd->local_dma_lkey;
	h->magic = cpu_to_le32(HIXL_WIRE_MAGIC);
	h->type = cpu_to_le16(type);
	h->version = cpu_to_le16(HIXL_WIRE_VERSION);
	h->len = cpu_to_le32(len);
	h->reserved = 0;
	ib_dma_sync_single_for_device(l->eng->rdma->ibdev, l->tx_dma, len, DMA_TO_DEVICE);
	return hixl_post_wait(l, &wr);
}

static void hixl_name_to_wire(const struct hixl_sockaddr *a, struct hixl_wire_name *w)
{
	memset(w, 0, sizeof(*w));
	w->family = cpu_to_le16(a->family);
	w->port = cpu_to_le16(a->port);
	memcpy(w->addr, a->addr, sizeof(w->addr));
}

static void hixl_name_from_wire(const struct hixl_wire_name *w, struct hixl_sockaddr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = le16_to_cpu(w->family);
	a->port = le16_to_cpu(w->port);
	memcpy(a->addr, w->addr, sizeof(a->addr));
}

/**
 * hixl_link_reg_mrs() - activate a region's MRs with IB_WR_REG_MR
 * @l: a connected link of the region's engine; post_mutex held
 * @r: the region; the engine lock held
 *
 * An MR is registered once, on whichever link comes first; its keys are
 * then valid on every QP of the engine's PD.
 */
int hixl_link_reg_mrs(struct hixl_link *l, struct hixl_region *r)
{
	int access = IB_ACCESS_REMOTE_READ;
	u32 i;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	lockdep_assert_held(&l->post_mutex);
	if (r->mrs_registered)
		return 0;
	if (!(r->flags & HIXL_REG_READ_ONLY))
		access |= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	for (i = 0; i < r->nr_mrs; i++) {
		struct hixl_mr *m = &r->mrs[i];
		struct ib_reg_wr wr = {
			.wr.opcode = IB_WR_REG_MR,
			.mr = m->mr,
			.key = m->mr->rkey,
			.access = access,
		};

		if (m->registered)
			continue;
		ret = hixl_post_wait(l, &wr.wr);
		if (ret)
			return ret;
		m->registered = true;
	}
	r->mrs_registered = true;
	return 0;
}

/**
 * hixl_send_region() - announce one region (all its MRs) to a link's peer
 * @l: the link; post_mutex held
 * @r: the region, with its MRs; the engine lock held
 *
 * One REGION message per HIXL_WIRE_MRS_PER_MSG MRs, each counted in
 * @l->tbl_sent (the peer acknowledges each).
 *
 * Return: 0; -ECONNRESET when the link is torn down or broken; the error of
 * a send (hixl_post_wait(): the link is then broken).
 */
int hixl_send_region(struct hixl_link *l, struct hixl_region *r)
{
	struct hixl_wire_region *m = l->tx_buf;
	u32 first = 0, i, n;
	int ret;

	if (!hixl_link_usable(l))
		return -ECONNRESET;
	do {
		n = min_t(u32, r->nr_mrs - first, HIXL_WIRE_MRS_PER_MSG);
		memset(m, 0, sizeof(*m));
		m->addr = cpu_to_le64(r->addr);
		m->len = cpu_to_le64(r->len);
		m->flags = cpu_to_le32((r->flags & HIXL_REG_READ_ONLY ? 0 : HIXL_WIRE_REGION_WRITABLE) |
				       (r->type == HIXL_MEM_DEVICE ? HIXL_WIRE_REGION_DEVICE : 0));
		m->nr_mrs = cpu_to_le32(r->nr_mrs);
		m->first = cpu_to_le32(first);
		m->count = cpu_to_le32(n);
		for (i = 0; i < n; i++) {
			struct hixl_mr *mr = &r->mrs[first + i];

			m->mrs[i].addr = cpu_to_le64(mr->addr);
			m->mrs[i].len = cpu_to_le64(mr->len);
			m->mrs[i].iova = cpu_to_le64(mr->mr->iova);
			m->mrs[i].rkey = cpu_to_le32(mr->mr->rkey);
			m->mrs[i].reserved = 0;
		}
		ret = hixl_send_msg(l, HIXL_MSG_REGION, struct_size(m, mrs, n));
		if (ret)
			return ret;
		l->tbl_sent++;
		first += n;
	} while (first < r->nr_mrs);
	return 0;
}

/* Activate the staging MRs; post_mutex held. */
static int hixl_stage_register(struct hixl_link *l)
{
	struct ib_reg_wr tx = {
		.wr.opcode = IB_WR_REG_MR, .access = IB_ACCESS_LOCAL_WRITE,
	};
	struct ib_reg_wr rx = {
		.wr.opcode = IB_WR_REG_MR,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	if (!l->st_tx.mr)
		return 0;
	tx.mr = l->st_tx.mr;
	tx.key = l->st_tx.mr->rkey;
	rx.mr = l->st_rx.mr;
	rx.key = l->st_rx.mr->rkey;
	ret = hixl_post_wait(l, &tx.wr);
	if (!ret)
		ret = hixl_post_wait(l, &rx.wr);
	return ret;
}

/**
 * hixl_link_publish() - send our HELLO, every valid region and TABLE_END
 * @l: a connected link (CONNECT's, or an accepted link's setup work)
 *
 * The engine lock is held from the first region read to the TABLE_END sent,
 * and table updates (hixl_links_region_added()/removed()) hold it too: a
 * registration or removal either comes before the table is read, which
 * then has the region or no longer has it, or after @l->tbl_gen is set,
 * which is before the lock is dropped, and then reaches this link, READY or
 * not.  No update is missed or sent twice.  A region already invalid when
 * the table is read is left out, and its @tbl_hidden records from which
 * generation on links do not have it, so that its REGION_DEL does not go
 * to them.
 *
 * Context: process context, may sleep; takes the engine lock and post_mutex.
 * Return: 0; -ECONNRESET when the link is torn down or broken; the error of
 * a send or REG_MR (hixl_post_wait(): the link is then broken).
 */
static int hixl_link_publish(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_wire_hello *h;
	struct hixl_region *r;
	unsigned long idx;
	u64 gen;
	int ret;

	mutex_lock(&eng->lock);
	mutex_lock(&l->post_mutex);
	if (!hixl_link_usable(l)) {
		mutex_unlock(&l->post_mutex);
		mutex_unlock(&eng->lock);
		return -ECONNRESET;
	}
	ret = hixl_stage_register(l);
	h = l->tx_buf;
	memset(h, 0, sizeof(*h));
	hixl_name_to_wire(&eng->rdma->local, &h->engine);
	if (l->st_rx.mr) {
		h->stage_iova = cpu_to_le64(l->st_rx.mr->iova);
		h->stage_size = cpu_to_le64(l->st_rx.size);
		h->stage_rkey = cpu_to_le32(l->st_rx.mr->rkey);
	}
	if (!ret)
		ret = hixl_send_msg(l, HIXL_MSG_HELLO, sizeof(*h));
	gen = ++eng->tbl_gen;
	xa_for_each(&eng->regions, idx, r) {
		if (ret)
			break;
		if (!r->live || !r->nr_mrs)
			continue;
		if (r->tbl_hidden || READ_ONCE(r->invalid)) {
			if (!r->tbl_hidden)
				r->tbl_hidden = gen;	/* this and later tables lack it */
			continue;
		}
		ret = hixl_link_reg_mrs(l, r);
		if (!ret)
			ret = hixl_send_region(l, r);
	}
	if (!ret)
		ret = hixl_send_msg(l, HIXL_MSG_TABLE_END, sizeof(struct hixl_wire_hdr));
	if (!ret)
		l->tbl_gen = gen;	/* table updates reach it from now on */
	mutex_unlock(&l->post_mutex);
	mutex_unlock(&eng->lock);
	if (ret)
		return ret;
	spin_lock(&l->lock);
	l->table_sent = true;
	spin_unlock(&l->lock);
	hixl_link_check_ready(l);
	return 0;
}

/*
 * Queue one of the link's works (@w on @wq) unless hixl_link_destroy() has
 * begun: it marks the link CLOSED under @l->lock before it cancels them, so
 * nothing is queued after its cancel_work_sync() - a CM event or a receive
 * completion arriving in between used to queue work on a link about to be
 * freed (KASAN use-after-free in hixl_link_publish(), found by the fuzzer).
 * Called from the CM handler and the CQ's workqueue context.
 */
static void hixl_link_queue(struct hixl_link *l, struct workqueue_struct *wq,
			    struct work_struct *w)
{
	spin_lock(&l->lock);
	if (l->state != HIXL_LINK_CLOSED)
		queue_work(wq, w);
	spin_unlock(&l->lock);
}

static void hixl_link_setup_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, setup_work);
	int ret = hixl_auth_accept_step(l);	/* the secret exchange first */

	if (ret > 0)
		return;		/* the peer's next message queues us again */
	if (!ret)
		ret = hixl_link_publish(l);
	if (ret)
		hixl_link_fail(l, ret);
}

/* ---- the peer's table ----------------------------------------------------------------- */

/**
 * hixl_rtable_clear() - forget the peer's whole table
 * @l: the link
 */
VISIBLE_IF_KUNIT void hixl_rtable_clear(struct hixl_link *l)
{
	struct hixl_rregion *rr;
	unsigned long idx = 0;

	mutex_lock(&l->rtable_lock);
	mt_for_each(&l->rtable, rr, idx, ULONG_MAX)
		kvfree(rr);
	mtree_destroy(&l->rtable);
	hixl_peer_mrs_uncharge(l->eng, l->rtable_mrs);
	l->rtable_regions = 0;
	l->rtable_mrs = 0;
	mutex_unlock(&l->rtable_lock);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rtable_clear);

/* Take one region out of the peer's table and free it; rtable_lock held. */
static void hixl_rtable_erase(struct hixl_link *l, struct hixl_rregion *rr)
{
	lockdep_assert_held(&l->rtable_lock);
	mtree_erase(&l->rtable, rr->addr);
	l->rtable_regions--;
	l->rtable_mrs -= rr->nr_mrs;
	hixl_peer_mrs_uncharge(l->eng, rr->nr_mrs);
	kvfree(rr);
}

/**
 * hixl_rx_region() - apply a REGION message to the peer's table
 * @l:   the link
 * @m:   the message
 * @len: its length as received, bytes
 *
 * A region arrives in one or more messages (first/count of nr_mrs); it can
 * be used once every MR arrived.  A region announced at an address where
 * another with a different shape was replaces it.
 *
 * What the message may make us allocate is bounded by what a legitimate
 * peer needs: an MR covers at least one page of at least 4 KiB (the
 * smallest page size of any kernel), so a region has at most as many MRs as
 * 4 KiB pages; the link's table holds at most hixl_max_regions
 * regions and hixl_max_peer_mrs MR entries, and the tables of all the
 * engine's links hixl_max_engine_peer_mrs entries together.  The entry array is allocated
 * with __GFP_NOWARN and charged to the memory cgroup (GFP_KERNEL_ACCOUNT).
 *
 * Return: 0; -EPROTO for a malformed message (counts that do not fit the
 * region or the message); -EEXIST when it overlaps another region of the
 * table; -ENOSPC when the table, or the engine's tables together, would
 * exceed their bounds; -ENOMEM.
 */
VISIBLE_IF_KUNIT int hixl_rx_region(struct hixl_link *l, const struct hixl_wire_region *m, u32 len)
{
	u64 addr = le64_to_cpu(m->addr), rlen = le64_to_cpu(m->len);
	u32 nr = le32_to_cpu(m->nr_mrs), first = le32_to_cpu(m->first);
	u32 count = le32_to_cpu(m->count), i;
	struct hixl_rregion *rr;
	int ret = 0;

	if (len < sizeof(*m) || count > HIXL_WIRE_MRS_PER_MSG ||
	    len < struct_size(m, mrs, count) || !nr || first > nr || count > nr - first ||
	    hixl_range_check(addr, rlen) || nr > hixl_pages_spanned(addr, rlen, 12))
		return -EPROTO;
	mutex_lock(&l->rtable_lock);
	rr = mtree_load(&l->rtable, addr);
	if (!rr || rr->addr != addr || rr->len != rlen || rr->nr_mrs != nr) {
		if (rr)		/* replaced by a new registration at the same place */
			hixl_rtable_erase(l, rr);
		if (l->rtable_regions >= READ_ONCE(hixl_max_regions) ||
		    nr > READ_ONCE(hixl_max_peer_mrs) - min(l->rtable_mrs,
							     READ_ONCE(hixl_max_peer_mrs))) {
			ret = -ENOSPC;
			goto out;
		}
		ret = hixl_peer_mrs_charge(l->eng, nr);	/* the engine's links together */
		if (ret)
			goto out;
		rr = kvzalloc(struct_size(rr, mrs, nr), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!rr) {
			hixl_peer_mrs_uncharge(l->eng, nr);
			ret = -ENOMEM;
			goto out;
		}
		rr->addr = addr;
		rr->len = rlen;
		rr->nr_mrs = nr;
		rr->writable = le32_to_cpu(m->flags) & HIXL_WIRE_REGION_WRITABLE;
		rr->device = le32_to_cpu(m->flags) & HIXL_WIRE_REGION_DEVICE;
		ret = mtree_insert_range(&l->rtable, addr, addr + rlen - 1, rr,
					 GFP_KERNEL_ACCOUNT);
		if (ret) {
			hixl_peer_mrs_uncharge(l->eng, nr);
			kvfree(rr);
			goto out;
		}
		l->rtable_regions++;
		l->rtable_mrs += nr;
	}
	for (i = 0; i < count; i++) {
		struct hixl_rmr *d = &rr->mrs[first + i];

		d->addr = le64_to_cpu(m->mrs[i].addr);
		d->len = le64_to_cpu(m->mrs[i].len);
		d->iova = le64_to_cpu(m->mrs[i].iova);
		d->rkey = le32_to_cpu(m->mrs[i].rkey);
	}
	rr->got = max(rr->got, first + count);
out:
	mutex_unlock(&l->rtable_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_region);

/**
 * hixl_rx_region_del() - apply a REGION_DEL message: forget one region
 * @l: the link
 * @m: the message
 *
 * A range that starts no region of the table is ignored.
 */
VISIBLE_IF_KUNIT void hixl_rx_region_del(struct hixl_link *l, const struct hixl_wire_region_del *m)
{
	u64 addr = le64_to_cpu(m->addr);
	struct hixl_rregion *rr;

	mutex_lock(&l->rtable_lock);
	rr = mtree_load(&l->rtable, addr);
	if (rr && rr->addr == addr)
		hixl_rtable_erase(l, rr);
	mutex_unlock(&l->rtable_lock);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_region_del);

/*
 * Queue a NOTIFY message on the engine, or count it dropped: beyond
 * HIXL_NOTIFY_MAX_PENDING of the link's, or hixl_max_engine_notifies of
 * all the engine's links, queued.
 */
static int hixl_rx_notify(struct hixl_link *l, const struct hixl_wire_notify *m, u32 len)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_notify_ent *e;
	u32 nl, ml;

	if (len < sizeof(*m))
		return -EPROTO;
	nl = le32_to_cpu(m->name_len);
	ml = le32_to_cpu(m->msg_len);
	if (!nl || nl > HIXL_NOTIFY_MAX_NAME || ml > HIXL_NOTIFY_MAX_MSG ||
	    len < sizeof(*m) + nl + ml)
		return -EPROTO;
	e = kmalloc(struct_size(e, data, nl + ml), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	spin_lock(&l->lock);
	e->from = l->peer;
	spin_unlock(&l->lock);
	e->name_len = nl;
	e->msg_len = ml;
	memcpy(e->data, m->data, nl + ml);
	e->link = l;

	spin_lock(&eng->notify_lock);
	if (l->notify_pending >= HIXL_NOTIFY_MAX_PENDING ||
	    eng->notify_total >= READ_ONCE(hixl_max_engine_notifies)) {
		eng->notify_dropped++;
		atomic64_inc(&eng->st_notify_dropped);
		spin_unlock(&eng->notify_lock);
		kfree(e);
		return 0;
	}
	l->notify_pending++;
	eng->notify_total++;
	kref_get(&l->ref);
	list_add_tail(&e->node, &eng->notifies);
	spin_unlock(&eng->notify_lock);
	return 0;
}

static void hixl_notify_ent_free(struct hixl_engine *eng, struct hixl_notify_ent *e)
{
	spin_lock(&eng->notify_lock);
	e->link->notify_pending--;
	eng->notify_total--;
	spin_unlock(&eng->notify_lock);
	hixl_link_put(e->link);
	kfree(e);
}

/**
 * hixl_engine_notifies_destroy() - free the notifications nobody fetched
 * @eng: the engine, being destroyed
 */
void hixl_engine_notifies_destroy(struct hixl_engine *eng)
{
	struct hixl_notify_ent *e, *tmp;
	LIST_HEAD(all);

	spin_lock(&eng->notify_lock);
	list_splice_init(&eng->notifies, &all);
	spin_unlock(&eng->notify_lock);
	list_for_each_entry_safe(e, tmp, &all, node)
		hixl_notify_ent_free(eng, e);
}

/**
 * hixl_cmd_send_notify() - HIXL_IOC_SEND_NOTIFY: a small two-sided message
 * @eng: the engine
 * @a:   in: remote, name and msg pointers and lengths
 *
 * Context: process context; waits for the SEND to complete (up to 10 s).
 * Return: 0; -EINVAL (flags, reserved, a length out of range, a malformed
 * peer name); -EAFNOSUPPORT (not AF_INET/AF_INET6); -EFAULT
 * (name or message unreadable); -EPERM; -EBADFD (not set up); -ENODEV (its
 * RDMA device was removed: SETUP again); -ENOTCONN (no
 * link, HIXL NOT_CONNECTED); -EAGAIN (still connecting); -ECONNRESET,
 * -ENETDOWN, -ETIMEDOUT (the link broke: HIXL NOTIFY_FAILED); -ENOMEM.
 */
int hixl_cmd_send_notify(struct hixl_engine *eng, struct hixl_send_notify *a)
{
	struct sockaddr_storage ss;
	struct hixl_wire_notify *m;
	struct hixl_link *l;
	int ret, st, err;
	u8 *data;

	if (a->flags || a->reserved0 || a->reserved[0] || a->reserved[1])
		return -EINVAL;
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	if (!a->name_len || a->name_len > HIXL_NOTIFY_MAX_NAME ||
	    a->msg_len > HIXL_NOTIFY_MAX_MSG)
		return -EINVAL;
	if (!eng->mm || current->mm != eng->mm)
		return -EPERM;
	if (!eng->rdma)
		return hixl_engine_no_rdma(eng);
	/*
	 * Read the user's bytes before taking post_mutex: a page that never
	 * arrives must not hold the link (its teardown takes post_mutex).
	 */
	data = kmalloc(a->name_len + a->msg_len, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (copy_from_user(data, u64_to_user_ptr(a->name), a->name_len) ||
	    copy_from_user(data + a->name_len, u64_to_user_ptr(a->msg), a->msg_len)) {
		ret = -EFAULT;
		goto out_free;
	}
	l = hixl_link_get(eng, &a->remote);
	if (!l) {
		ret = -ENOTCONN;
		goto out_free;
	}
	mutex_lock(&l->post_mutex);
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY) {
		ret = st == HIXL_LINK_CONNECTING ? -EAGAIN : err;
		goto out;
	}
	m = l->tx_buf;
	m->name_len = cpu_to_le32(a->name_len);
	m->msg_len = cpu_to_le32(a->msg_len);
	memcpy(m->data, data, a->name_len + a->msg_len);
	ret = hixl_send_msg(l, HIXL_MSG_NOTIFY, sizeof(*m) + a->name_len + a->msg_len);
out:
	mutex_unlock(&l->post_mutex);
	hixl_link_put(l);
out_free:
	kfree(data);
	return ret;
}

/**
 * hixl_cmd_get_notifies() - HIXL_IOC_GET_NOTIFIES: fetch received notifications
 * @eng: the engine
 * @a:   in: buf, max; out: count, dropped
 *
 * Oldest first; what does not fit stays queued; a notification that cannot
 * be written to @a->buf stays queued too.
 *
 * Context: process context.
 * Return: 0; -EINVAL (flags, reserved, max 0); -EPERM; -EFAULT (@a->buf not
 * writable: nothing was lost).
 */
int hixl_cmd_get_notifies(struct hixl_engine *eng, struct hixl_get_notifies *a)
{
	struct hixl_notify __user *out = u64_to_user_ptr(a->buf);
	struct hixl_notify_ent *e;
	int ret = 0;

	if (a->flags || a->reserved0 || a->reserved[0] || a->reserved[1] || !a->max)
		return -EINVAL;
	if (!eng->mm || current->mm != eng->mm)
		return -EPERM;
	a->count = 0;
	while (a->count < a->max) {
		spin_lock(&eng->notify_lock);
		e = list_first_entry_or_null(&eng->notifies, struct hixl_notify_ent, node);
		if (e)
			list_del(&e->node);
		spin_unlock(&eng->notify_lock);
		if (!e)
			break;
		if (copy_to_user(&out[a->count].from, &e->from, sizeof(e->from)) ||
		    put_user(e->name_len, &out[a->count].name_len) ||
		    put_user(e->msg_len, &out[a->count].msg_len) ||
		    copy_to_user(out[a->count].name, e->data, e->name_len) ||
		    copy_to_user(out[a->count].msg, e->data + e->name_len, e->msg_len)) {
			spin_lock(&eng->notify_lock);
			list_add(&e->node, &eng->notifies);	/* back at the head */
			spin_unlock(&eng->notify_lock);
			ret = -EFAULT;
			break;
		}
		hixl_notify_ent_free(eng, e);
		a->count++;
	}
	spin_lock(&eng->notify_lock);
	a->dropped = eng->notify_dropped;
	if (!ret)
		eng->notify_dropped = 0;
	spin_unlock(&eng->notify_lock);
	return ret;
}

/* Post one TABLE_ACK saying @applied; an inline SEND, so the stack buffer is fine. */
static int hixl_ack_post(struct hixl_link *l, u64 applied)
{
	struct hixl_wire_ack a = {
		.hdr.magic = cpu_to_le32(HIXL_WIRE_MAGIC),
		.hdr.type = cpu_to_le16(HIXL_MSG_TABLE_ACK),
		.hdr.version = cpu_to_le16(HIXL_WIRE_VERSION),
		.hdr.len = cpu_to_le32(sizeof(a)),
	};
	struct ib_sge sge = { .addr = (uintptr_t)&a, .length = sizeof(a) };
	/*
	 * Fenced: it starts only once our earlier RDMA READs completed.  The
	 * peer frees a removed region's MRs on this ACK, and a READ of that
	 * region still in flight may be re-executed by the peer's responder
	 * (a lost response is retried), after the SEND behind it was taken.
	 */
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.wr_cqe = &l->ack_cqe,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE | IB_SEND_FENCE,
	};

	a.applied = cpu_to_le64(applied);
	return ib_post_send(l->qp, &wr, NULL);
}

/* A TABLE_ACK completed: send the count asked for meanwhile, if any. */
static void hixl_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = container_of(wc->wr_cqe, struct hixl_link, ack_cqe);
	u64 next = 0;

	if (wc->status != IB_WC_SUCCESS)
		return;		/* flushed: the link is going; nothing more is sent */
	spin_lock(&l->xq_lock);
	if (l->ack_next > l->ack_sent) {
		next = l->ack_next;
		l->ack_sent = next;
	} else {
		l->ack_busy = false;
	}
	spin_unlock(&l->xq_lock);
	if (next && hixl_ack_post(l, next))
		hixl_link_fail(l, -ECONNRESET);
}

/**
 * hixl_table_ack() - tell the peer how many of its table messages are applied
 * @l:       the link
 * @applied: the count of REGION/REGION_DEL messages applied (cumulative)
 *
 * Called from the receive completion handler, which may not wait for
 * completions on its own CQ, and from the transfer queue's pump (a held
 * ACK, xq.c).  At most one TABLE_ACK is on the send queue at a time (the
 * send queue's budget, HIXL_SQ_DEPTH, counts one): an ACK asked for while
 * one is in flight is sent by hixl_ack_done() when that one completes,
 * with the highest count asked for meanwhile (ACKs are cumulative).
 *
 * Context: any; takes @l->xq_lock.
 * Return: 0 (sent or queued behind the one in flight), or ib_post_send()'s
 * -errno.
 */
int hixl_table_ack(struct hixl_link *l, u64 applied)
{
	int ret;

	spin_lock(&l->xq_lock);
	if (l->ack_busy) {
		l->ack_next = max(l->ack_next, applied);
		spin_unlock(&l->xq_lock);
		return 0;
	}
	l->ack_busy = true;
	l->ack_sent = max(l->ack_sent, applied);
	spin_unlock(&l->xq_lock);
	ret = hixl_ack_post(l, applied);
	if (ret) {
		spin_lock(&l->xq_lock);
		l->ack_busy = false;
		spin_unlock(&l->xq_lock);
	}
	return ret;
}

static int hixl_post_recv(struct hixl_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma, .length = HIXL_MSG_SIZE,
		.lkey = rx->link->eng->rdma->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &rx->cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(rx->link->qp, &wr, NULL);
}

/*
 * Is @name's address the one the connection came from?  hixl binds a
 * CONNECT to its engine's own address (hixl_link_try_connect()), so a
 * legitimate peer's claimed name and source address agree; ports differ
 * (RDMA CM's source port is not the listener's).
 */
static bool hixl_name_is_source(struct hixl_link *l, const struct hixl_sockaddr *name)
{
	const struct sockaddr *src = (const struct sockaddr *)&l->cm_id->route.addr.dst_addr;
	struct sockaddr_storage ss;

	if (hixl_sockaddr_to_kernel(name, &ss) || src->sa_family != name->family)
		return false;
	if (src->sa_family == AF_INET)
		return ((const struct sockaddr_in *)src)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)&ss)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)src)->sin6_addr,
			       &((struct sockaddr_in6 *)&ss)->sin6_addr);
}

/*
 * The peer's HELLO: its name (accepted links) and landing buffer, once.
 * The name an accepting side learns must be the address the peer connected
 * from, else -EPROTO: a peer could otherwise claim another engine's name
 * and receive the WRITEs meant for it.
 */
static int hixl_rx_hello(struct hixl_link *l, const struct hixl_wire_hello *hm, u32 len)
{
	struct hixl_sockaddr name;
	u64 size;

	if (len < sizeof(*hm))
		return -EPROTO;
	hixl_name_from_wire(&hm->engine, &name);
	if (!l->active && !hixl_name_is_source(l, &name))
		return -EPROTO;
	size = le64_to_cpu(hm->stage_size);
	if (size <= HIXL_STAGE_LIST)
		size = 0;		/* no room for data: the peer does not stage */
	spin_lock(&l->lock);
	if (l->hello_seen) {
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	l->hello_seen = true;
	if (!l->active) {
		l->peer = name;
		l->named = true;
	}
	l->peer_stage_iova = le64_to_cpu(hm->stage_iova);
	l->peer_stage_size = size;
	l->peer_stage_rkey = le32_to_cpu(hm->stage_rkey);
	spin_unlock(&l->lock);
	return 0;
}

/* The peer asks us to scatter or gather its staged entries (stage.c). */
static int hixl_rx_stage_req(struct hixl_link *l, const struct hixl_wire_stage_req *q, u32 len)
{
	if (len < sizeof(*q) || !l->st_rx.mr ||
	    le32_to_cpu(q->count) > HIXL_STAGE_MAX_ENTS ||
	    le32_to_cpu(q->op) > HIXL_STAGE_GATHER)
		return -EPROTO;
	spin_lock(&l->lock);
	if (l->stage_busy) {	/* one at a time: the work reads the fields */
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	l->stage_busy = true;
	l->req_op = le32_to_cpu(q->op);
	l->req_count = le32_to_cpu(q->count);
	l->req_seq = le64_to_cpu(q->seq);
	spin_unlock(&l->lock);
	hixl_link_queue(l, hixl_wq, &l->stage_work);
	return 0;
}

/* The peer's answer to our STAGE_REQ; one for another sequence is ignored. */
static int hixl_rx_stage_done(struct hixl_link *l, const struct hixl_wire_stage_done *a, u32 len)
{
	if (len < sizeof(*a))
		return -EPROTO;
	spin_lock(&l->lock);
	if (le64_to_cpu(a->seq) == l->stage_seq && !l->stage_answered) {
		l->stage_status = hixl_stage_status(le32_to_cpu(a->status));
		l->stage_failed = le32_to_cpu(a->failed);
		l->stage_answered = true;
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	return 0;
}

/*
 * One received message.  Every message type has one answer: carried out,
 * ignored (a STAGE_DONE of another sequence, a REGION_DEL of an unknown
 * range), or -errno, which closes the link (hixl_link_abort()).  Before the
 * peer's HELLO only TABLE_ACK may come (the peer acks our table while its
 * own setup work still runs); after it, no second HELLO.
 */
static int hixl_rx_msg(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_hdr *h = buf;
	u16 type;
	u64 applied;
	int ret = 0;

	if (len < sizeof(*h) || le32_to_cpu(h->magic) != HIXL_WIRE_MAGIC ||
	    le16_to_cpu(h->version) != HIXL_WIRE_VERSION || le32_to_cpu(h->len) != len)
		return -EPROTO;
	type = le16_to_cpu(h->type);
	ret = hixl_auth_rx(l, type, buf, len);	/* nothing but AUTH_* before the proof */
	if (ret == HIXL_AUTH_RX_STEP)
		hixl_link_queue(l, system_wq, &l->setup_work);
	if (ret)
		return ret < 0 ? ret : 0;
	if (type != HIXL_MSG_HELLO && type != HIXL_MSG_TABLE_ACK && !READ_ONCE(l->hello_seen))
		return -EPROTO;
	switch (type) {
	case HIXL_MSG_HELLO:
		return hixl_rx_hello(l, buf, len);
	case HIXL_MSG_STAGE_REQ:
		return hixl_rx_stage_req(l, buf, len);
	case HIXL_MSG_STAGE_DONE:
		return hixl_rx_stage_done(l, buf, len);
	case HIXL_MSG_REGION:
		ret = hixl_rx_region(l, buf, len);
		if (!ret && !hixl_xq_hold_ack(l, false, &applied))
			ret = hixl_table_ack(l, applied);
		return ret;
	case HIXL_MSG_REGION_DEL:
		if (len < sizeof(struct hixl_wire_region_del))
			return -EPROTO;
		hixl_rx_region_del(l, buf);
		/* not before the pieces already planned against it are posted */
		if (!hixl_xq_hold_ack(l, true, &applied))
			ret = hixl_table_ack(l, applied);
		return ret;
	case HIXL_MSG_TABLE_ACK:
		if (len < sizeof(struct hixl_wire_ack))
			return -EPROTO;
		spin_lock(&l->lock);
		l->tbl_acked = max(l->tbl_acked,
				   le64_to_cpu(((const struct hixl_wire_ack *)h)->applied));
		spin_unlock(&l->lock);
		wake_up_all(&l->wq);
		return 0;
	case HIXL_MSG_NOTIFY:
		return hixl_rx_notify(l, buf, len);
	case HIXL_MSG_TABLE_END:
		spin_lock(&l->lock);
		l->peer_done = true;
		spin_unlock(&l->lock);
		hixl_link_check_ready(l);
		return 0;
	default:
		return -EPROTO;
	}
}

static void hixl_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_rx *rx = container_of(wc->wr_cqe, struct hixl_rx, cqe);
	struct hixl_link *l = rx->link;
	struct mem_cgroup *old_memcg;
	int ret, err;

	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		/*
		 * The QP went to error.  Whoever did that on our side said why
		 * first (the link is broken already); on an accepted link not
		 * broken yet, the peer did: its RDMA with a key or range we
		 * never gave it (the responder NAKs it and moves our QP to
		 * error, without an event).  Close the link, as when the peer
		 * leaves, so that each wrong guess of a key costs a connection.
		 */
		if (!l->active && hixl_link_state(l, &err) < HIXL_LINK_ERROR) {
			pr_warn_ratelimited("engine %llu: closing a link whose QP failed (a remote access error?)\n",
					    l->eng->id);
			hixl_link_abort(l, -ECONNRESET);
		}
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		/*
		 * The QP is in the error state: the link is dead.  A peer
		 * causes this with a SEND longer than our receive buffer
		 * (local length error), a malformed message like any other,
		 * so the link is closed the same way - only marking it broken
		 * left it on the list, holding its slot and staging buffers,
		 * with the peer never disconnected.
		 */
		pr_warn_ratelimited("engine %llu: closing a link: receive failed: %s\n",
				    l->eng->id, ib_wc_status_msg(wc->status));
		hixl_link_abort(l, -ECONNRESET);
		return;
	}
	if (hixl_link_state(l, &err) >= HIXL_LINK_ERROR)
		return;		/* broken: nothing more is parsed */
	ib_dma_sync_single_for_cpu(l->eng->rdma->ibdev, rx->dma, HIXL_MSG_SIZE, DMA_FROM_DEVICE);
	old_memcg = set_active_memcg(l->eng->memcg);	/* charge the engine's owner */
	ret = hixl_rx_msg(l, rx->buf, wc->byte_len);
	set_active_memcg(old_memcg);
	if (ret) {
		pr_warn_ratelimited("engine %llu: closing a link: bad message from the peer (%d)\n",
				    l->eng->id, ret);
		hixl_link_abort(l, ret);
		return;
	}
	ret = hixl_post_recv(rx);
	if (ret) {
		pr_warn_ratelimited("engine %llu: receive repost failed: %d\n", l->eng->id, ret);
		hixl_link_fail(l, ret);
	}
}

/* ---- creation and teardown --------------------------------------------------------------- */

static void hixl_link_release_work(struct work_struct *w);

/* The handshake deadline of an accepted link passed. */
static void hixl_link_hs_expire(struct work_struct *w)
{
	struct hixl_link *l = container_of(to_delayed_work(w), struct hixl_link, hs_work);
	int err;

	if (hixl_link_state(l, &err) != HIXL_LINK_CONNECTING)
		return;
	pr_warn_ratelimited("engine %llu: closing a link whose peer did not finish the handshake in %u ms\n",
			    l->eng->id, READ_ONCE(hixl_handshake_ms));
	hixl_auth_expired(l);
	hixl_link_abort(l, -ETIMEDOUT);
}

/**
 * hixl_link_alloc() - a new link of @eng, CONNECTING, with one reference
 * @eng:    the engine
 * @active: we connect (CONNECT); else the peer connected to our listener
 *
 * The reference is the one the engine's list holds once the link is on it.
 *
 * Context: process context (GFP_KERNEL).
 * Return: the link, or NULL when memory is short.
 */
static struct hixl_link *hixl_link_alloc(struct hixl_engine *eng, bool active)
{
	struct hixl_link *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return NULL;
	if (hixl_link_xq_init(l)) {
		kfree(l);
		return NULL;
	}
	l->cm_kind = HIXL_CM_LINK;
	l->eng = eng;
	l->active = active;
	INIT_LIST_HEAD(&l->node);
	kref_init(&l->ref);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	INIT_WORK(&l->setup_work, hixl_link_setup_work);
	INIT_WORK(&l->release_work, hixl_link_release_work);
	INIT_DELAYED_WORK(&l->hs_work, hixl_link_hs_expire);
	mutex_init(&l->cm_mutex);
	mutex_init(&l->post_mutex);
	mutex_init(&l->rtable_lock);
	mutex_init(&l->reply_lock);
	init_completion(&l->reply_done);
	INIT_WORK(&l->stage_work, hixl_stage_work);
	mt_init(&l->rtable);
	init_completion(&l->tx_done);
	l->state = HIXL_LINK_CONNECTING;
	hixl_auth_link_init(l);
	return l;
}

/**
 * hixl_link_free() - kref release of a link: free the struct
 * @ref: the link's @ref, now zero
 *
 * The link was torn down (hixl_link_destroy()) or never connected.
 */
static void hixl_link_free(struct kref *ref)
{
	struct hixl_link *l = container_of(ref, struct hixl_link, ref);

	hixl_link_xq_free(l);
	mutex_destroy(&l->cm_mutex);
	mutex_destroy(&l->post_mutex);
	mutex_destroy(&l->rtable_lock);
	mutex_destroy(&l->reply_lock);
	kfree(l);
}

/**
 * hixl_link_put() - drop a reference from hixl_link_get()
 * @l: the link
 */
void hixl_link_put(struct hixl_link *l)
{
	kref_put(&l->ref, hixl_link_free);
}

static void hixl_qp_event(struct ib_event *ev, void *ctx)
{
	struct hixl_link *l = ctx;

	pr_warn("link QP event: %s\n", ib_event_msg(ev->event));
	hixl_link_fail(l, -ECONNRESET);
}

static void hixl_reply_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	complete(&l->reply_done);
}

/*
 * Staging buffers for a link, if the engine's pool has two credits left
 * and 2 MiB blocks can be had; a link without them works unstaged.
 */
static void hixl_link_stage_alloc(struct hixl_link *l)
{
	struct hixl_rdma *rd = l->eng->rdma;
	size_t size = ALIGN((size_t)rd->pool_buffer_mb << 20, SZ_2M);

	if (!rd->pool_buffers || !atomic_add_unless(&l->eng->pool_free, -1, 0))
		return;
	if (!atomic_add_unless(&l->eng->pool_free, -1, 0)) {
		atomic_inc(&l->eng->pool_free);
		return;
	}
	if (hixl_stbuf_alloc(l, &l->st_tx, size) || hixl_stbuf_alloc(l, &l->st_rx, size)) {
		pr_info("engine %llu: no memory for a link's staging buffers; staging off on it\n",
			l->eng->id);
		hixl_stbuf_free(rd->ibdev, &l->st_tx);
		atomic_add(2, &l->eng->pool_free);
	}
}

/* A zeroed message buffer, DMA-mapped for the device; *@buf stays NULL on error. */
static int hixl_msg_buf_new(struct ib_device *ibdev, size_t size,
			    enum dma_data_direction dir, void **buf, u64 *dma)
{
	void *p = kzalloc(size, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	*dma = ib_dma_map_single(ibdev, p, size, dir);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		kfree(p);
		return -ENOMEM;
	}
	*buf = p;
	return 0;
}

/* Undo hixl_msg_buf_new(); a NULL *@buf is ignored. */
static void hixl_msg_buf_free(struct ib_device *ibdev, size_t size,
			      enum dma_data_direction dir, void **buf, u64 dma)
{
	if (!*buf)
		return;
	ib_dma_unmap_single(ibdev, dma, size, dir);
	kfree(*buf);
	*buf = NULL;
}

/* CQ, QP and receive buffers on l->cm_id; undone by hixl_link_destroy(). */
static int hixl_link_create_qp(struct hixl_link *l)
{
	struct hixl_rdma *rd = l->eng->rdma;
	struct ib_qp_init_attr attr = {
		.event_handler = hixl_qp_event,
		.qp_context = l,
		.cap = {
			.max_send_wr = HIXL_SQ_DEPTH,
			.max_recv_wr = HIXL_RX_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = sizeof(struct hixl_wire_ack),
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int i, ret;

	if (l->cm_id->device != rd->ibdev)
		return -EXDEV;	/* the route left the engine's device */
	/*
	 * Every work request can complete on the CQ at once when the QP
	 * flushes (unsignaled ones too), plus three drain markers: the
	 * pump's ib_drain_sq() (xq.c) and ib_drain_qp()'s two.
	 */
	l->cq = ib_alloc_cq(rd->ibdev, l, HIXL_SQ_DEPTH + HIXL_RX_DEPTH + 3, 0,
			    IB_POLL_WORKQUEUE);
	if (IS_ERR(l->cq)) {
		ret = PTR_ERR(l->cq);
		l->cq = NULL;
		return ret;
	}
	attr.send_cq = l->cq;
	attr.recv_cq = l->cq;
	ret = rdma_create_qp(l->cm_id, rd->pd, &attr);
	if (ret)
		return ret;
	l->qp = l->cm_id->qp;

	ret = hixl_msg_buf_new(rd->ibdev, HIXL_MSG_SIZE, DMA_TO_DEVICE, &l->tx_buf, &l->tx_dma);
	if (ret)
		return ret;
	for (i = 0; i < HIXL_RX_DEPTH; i++) {
		struct hixl_rx *rx = &l->rx[i];

		rx->link = l;
		rx->cqe.done = hixl_rx_done;
		ret = hixl_msg_buf_new(rd->ibdev, HIXL_MSG_SIZE, DMA_FROM_DEVICE, &rx->buf,
				       &rx->dma);
		if (!ret)
			ret = hixl_post_recv(rx);
		if (ret)
			return ret;
	}

	ret = hixl_msg_buf_new(rd->ibdev, sizeof(struct hixl_wire_stage_done), DMA_TO_DEVICE,
			       &l->reply_buf, &l->reply_dma);
	if (ret)
		return ret;
	l->reply_cqe.done = hixl_reply_done;
	l->ack_cqe.done = hixl_ack_done;
	hixl_link_stage_alloc(l);
	return 0;
}

/* Free the QP side of a link (everything hixl_link_create_qp() made). */
static void hixl_link_destroy_qp(struct hixl_link *l)
{
	struct ib_device *ibdev = l->eng->rdma->ibdev;
	int i;

	if (l->qp) {
		struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
		int err;

		ib_drain_qp(l->qp);
		/*
		 * RESET before destroy: a QP in RESET drops what arrives
		 * (rxe: check_type_state()), so a peer that is still sending
		 * cannot race the destroy.  Linux 6.12's rxe queues an
		 * arriving packet and then schedules the QP's task without a
		 * reference of its own (rxe_resp_queue_pkt()); against
		 * rxe_destroy_qp() that is a WARNING in rxe_sched_task() and
		 * a use after free.  Harmless on hardware: any state may go
		 * to RESET (IBTA 10.3.1).
		 */
		err = ib_modify_qp(l->qp, &reset, IB_QP_STATE);
		if (err)
			pr_debug("hixl: QP %u to RESET: %d\n", l->qp->qp_num, err);
		rdma_destroy_qp(l->cm_id);
		l->qp = NULL;
	}
	if (l->cq) {
		ib_free_cq(l->cq);
		l->cq = NULL;
	}
	for (i = 0; i < HIXL_RX_DEPTH; i++)
		hixl_msg_buf_free(ibdev, HIXL_MSG_SIZE, DMA_FROM_DEVICE, &l->rx[i].buf,
				  l->rx[i].dma);
	hixl_msg_buf_free(ibdev, HIXL_MSG_SIZE, DMA_TO_DEVICE, &l->tx_buf, l->tx_dma);
	hixl_msg_buf_free(ibdev, sizeof(struct hixl_wire_stage_done), DMA_TO_DEVICE,
			  &l->reply_buf, l->reply_dma);
	if (l->st_tx.mr) {
		hixl_stbuf_free(ibdev, &l->st_tx);
		hixl_stbuf_free(ibdev, &l->st_rx);
		atomic_add(2, &l->eng->pool_free);
	}
	l->peer_stage_size = 0;
}

/**
 * hixl_link_destroy() - tear a link down and drop the list's reference
 * @l: a link its caller took off the engine's list (so called once per link)
 *
 * Marks the link CLOSED and wakes every waiter (a CONNECT waiting for a CM
 * event on it gives up), then, under @l->cm_mutex - which a CONNECT attempt
 * holds, so none is under way and none starts on a CLOSED link - breaks the
 * QP, waits for the one poster, drains and frees the QP, and destroys the
 * cm_id.  Holders of other references (a CONNECT, transfers) keep the
 * struct, not its QP or cm_id.
 *
 * Context: process context, may sleep.  Never called with the engine lock
 * or links_lock held (the CM handler and the setup work take them).
 */
static void hixl_link_destroy(struct hixl_link *l)
{
	spin_lock(&l->lock);
	if (l->state < HIXL_LINK_ERROR)
		l->err = -ECONNRESET;
	l->state = HIXL_LINK_CLOSED;
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);

	mutex_lock(&l->cm_mutex);		/* a CONNECT attempt ends first */
	if (l->cm_id && l->qp)
		rdma_disconnect(l->cm_id);	/* QP to error: posted work flushes */
	cancel_work_sync(&l->setup_work);
	cancel_work_sync(&l->stage_work);
	cancel_delayed_work_sync(&l->hs_work);
	hixl_link_xq_close(l);			/* waiting batches end; posted ones flush */
	mutex_lock(&l->post_mutex);		/* a staged transfer finishes */
	hixl_link_destroy_qp(l);
	mutex_unlock(&l->post_mutex);
	if (l->cm_id) {
		rdma_destroy_id(l->cm_id);	/* waits for a running handler */
		l->cm_id = NULL;
	}
	mutex_unlock(&l->cm_mutex);
	hixl_rtable_clear(l);
	hixl_link_put(l);
}

/* Take a link off the engine's list; false when someone else did. */
static bool hixl_link_unlist(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;
	bool was = false;

	mutex_lock(&eng->links_lock);
	if (!list_empty(&l->node)) {
		list_del_init(&l->node);
		eng->nr_links--;
		was = true;
	}
	mutex_unlock(&eng->links_lock);
	return was;
}

/* A queued release has ended or was cancelled: the engine may stop waiting. */
static void hixl_release_done(struct hixl_engine *eng)
{
	if (atomic_dec_and_test(&eng->releases))
		wake_up_all(&eng->release_wq);
	hixl_engine_put(eng);	/* the struct outlives the wake_up_all() */
}

static void hixl_link_release_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, release_work);
	struct hixl_engine *eng = l->eng;

	if (hixl_link_unlist(l))
		hixl_link_destroy(l);
	hixl_link_put(l);	/* the reference queue_work() was given */
	hixl_release_done(eng);
}

/*
 * Release works run on hixl_wq and are counted in the engine's @releases,
 * so that an engine being destroyed waits for the ones that already took
 * their link off its list, and for no other engine's
 * (hixl_engine_links_destroy()).
 */
static void hixl_link_schedule_release(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;

	kref_get(&eng->ref);
	atomic_inc(&eng->releases);
	kref_get(&l->ref);
	if (!queue_work(hixl_wq, &l->release_work)) {
		hixl_link_put(l);
		hixl_release_done(eng);
	}
}

/* Cancel a queued release; the references it held go with it. */
static void hixl_link_cancel_release(struct hixl_link *l)
{
	if (cancel_work_sync(&l->release_work)) {
		hixl_link_put(l);
		hixl_release_done(l->eng);
	}
}

/* The engine's link to @peer with a reference, or NULL; links_lock held. */
static struct hixl_link *hixl_link_find(struct hixl_engine *eng, const struct hixl_sockaddr *peer)
{
	struct hixl_link *l;

	lockdep_assert_held(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node) {
		bool named;

		spin_lock(&l->lock);
		named = l->named && hixl_sockaddr_equal(&l->peer, peer);
		spin_unlock(&l->lock);
		if (named) {
			kref_get(&l->ref);
			return l;
		}
	}
	return NULL;
}

/**
 * hixl_link_get() - the engine's link to a peer, with a reference
 * @eng:  the engine
 * @peer: the peer engine's name
 *
 * Context: process context; sleeps on the engine's links_lock.
 * Return: the link, or NULL when there is none.
 */
struct hixl_link *hixl_link_get(struct hixl_engine *eng, const struct hixl_sockaddr *peer)
{
	struct hixl_link *l;

	mutex_lock(&eng->links_lock);
	l = hixl_link_find(eng, peer);
	mutex_unlock(&eng->links_lock);
	return l;
}

/**
 * hixl_link_tryget() - hixl_link_get() for a caller that must not sleep
 * @eng:  the engine
 * @peer: the peer engine's name
 *
 * Context: process context that must not sleep on a lock (io_uring's
 * IO_URING_F_NONBLOCK issue); takes links_lock only if it is free.
 * Return: the link, with a reference; NULL when there is none;
 * ERR_PTR(-EAGAIN) when links_lock is held (a CONNECT, an accepted link,
 * a teardown or debugfs is walking or changing the list).
 */
struct hixl_link *hixl_link_tryget(struct hixl_engine *eng, const struct hixl_sockaddr *peer)
{
	struct hixl_link *l;

	if (!mutex_trylock(&eng->links_lock))
		return ERR_PTR(-EAGAIN);
	l = hixl_link_find(eng, peer);
	mutex_unlock(&eng->links_lock);
	return l;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_tryget);

/**
 * hixl_engine_links_destroy() - tear down every link of an engine
 * @eng: the engine, being destroyed or detached from its device; its
 *       listening id is gone already
 *
 * Returns once every link of @eng is freed, including those whose release
 * work (hixl_link_schedule_release()) took them off the list first; it
 * waits for this engine's release works only.
 *
 * Context: process context, may sleep; @eng->rdma_sem held (for writing by
 * a close, for reading by a device removal).
 */
void hixl_engine_links_destroy(struct hixl_engine *eng)
{
	struct hixl_link *l;

	for (;;) {
		mutex_lock(&eng->links_lock);
		l = list_first_entry_or_null(&eng->links, struct hixl_link, node);
		if (l) {
			list_del_init(&l->node);
			eng->nr_links--;
		}
		mutex_unlock(&eng->links_lock);
		if (!l)
			break;
		hixl_link_cancel_release(l);
		hixl_link_destroy(l);
	}
	/* a release work that unlisted its link itself may still be running */
	wait_event(eng->release_wq, !atomic_read(&eng->releases));
}

/* ---- RDMA CM events -------------------------------------------------------------------- */

static void hixl_conn_param(struct hixl_engine *eng, struct rdma_conn_param *p)
{
	struct ib_device_attr *attrs = &eng->rdma->ibdev->attrs;

	memset(p, 0, sizeof(*p));
	p->responder_resources = min_t(u32, attrs->max_qp_rd_atom, 16);
	p->initiator_depth = min_t(u32, attrs->max_qp_init_rd_atom, 16);
	p->retry_count = 7;
	p->rnr_retry_count = 7;		/* a full receive queue waits, never fails */
}

/* Accepted links of @eng still in their handshake; links_lock held. */
static u32 hixl_links_in_setup(struct hixl_engine *eng)
{
	struct hixl_link *l;
	u32 n = 0;
	int err;

	lockdep_assert_held(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node)
		if (!l->active && hixl_link_state(l, &err) == HIXL_LINK_CONNECTING)
			n++;
	return n;
}

/*
 * CONNECT_REQUEST on our listener: make the link and accept, in the
 * handler.  Refused (the peer sees a reject): -EACCES by the engine's
 * allowed peers or secret policy, before anything is allocated
 * (hixl_auth_admit()); -ENOSPC at max_links,
 * -EBUSY with max_setup_links accepted links still in their handshake,
 * -ENODEV once the device is going.  An accepted link that has not
 * finished its handshake hixl_handshake_ms later is closed (hs_work).
 */
static int hixl_accept(struct hixl_engine *eng, struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param;
	struct hixl_link *l;
	bool broken;
	int ret;

	ret = hixl_auth_admit(eng, id, ev);	/* a refused peer costs no link, no QP */
	if (ret)
		return ret;
	l = hixl_link_alloc(eng, false);
	if (!l)
		return -ENOMEM;
	l->accepting = true;
	l->cm_id = id;
	id->context = l;
	ret = hixl_link_create_qp(l);
	if (ret)
		goto err;
	mutex_lock(&eng->links_lock);
	if (eng->nr_links >= READ_ONCE(hixl_max_links)) {
		ret = -ENOSPC;
	} else if (hixl_links_in_setup(eng) >= READ_ONCE(hixl_max_setup_links)) {
		ret = -EBUSY;
	} else if (eng->rdma_gone) {
		ret = -ENODEV;
	} else {
		list_add_tail(&l->node, &eng->links);
		eng->nr_links++;
	}
	mutex_unlock(&eng->links_lock);
	if (ret)
		goto err;
	hixl_conn_param(eng, &param);
	ret = rdma_accept(id, &param);	/* on failure RDMA CM moves our QP to error */
	if (ret) {
		/*
		 * Still accepting: the receives that error flushes make
		 * hixl_rx_done() abort the link, which must leave it to us.
		 * (Cleared first, a release work queued by that abort
		 * unlisted and tore the link down while this path did too:
		 * a WARNING in ib_drain_rq() and a NULL cm_id in
		 * rdma_destroy_qp() on 6.1.)
		 */
		hixl_link_unlist(l);
		goto err;
	}
	spin_lock(&l->lock);
	l->accepting = false;
	broken = l->state >= HIXL_LINK_ERROR;	/* hixl_link_abort() meanwhile */
	spin_unlock(&l->lock);
	if (broken) {
		hixl_link_schedule_release(l);	/* runs once this handler returns */
		return 0;
	}
	spin_lock(&l->lock);
	if (l->state != HIXL_LINK_CLOSED)
		queue_delayed_work(hixl_wq, &l->hs_work,
				   msecs_to_jiffies(READ_ONCE(hixl_handshake_ms)));
	spin_unlock(&l->lock);
	return 0;
err:
	/* a non-zero return makes RDMA CM destroy (and reject) the id itself */
	pr_warn_ratelimited("engine %llu: refusing a connection: %d\n", eng->id, ret);
	hixl_link_destroy_qp(l);
	l->cm_id = NULL;
	hixl_rtable_clear(l);
	hixl_link_put(l);
	return ret;
}

static int hixl_link_cm_event(struct hixl_link *l, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!l->active) {
			hixl_link_queue(l, system_wq, &l->setup_work);
			return 0;
		}
		fallthrough;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		spin_lock(&l->lock);
		l->cm_event = ev->event;
		l->cm_status = ev->event == RDMA_CM_EVENT_REJECTED &&
			       hixl_auth_rejected(l->cm_id, ev) ? -EACCES : ev->status;
		l->cm_pending = true;
		spin_unlock(&l->lock);
		wake_up_all(&l->wq);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		hixl_link_fail(l, -ECONNRESET);
		/*
		 * Our QP to the error state now (rdma_disconnect() takes the
		 * id's qp_mutex, so it is safe against rdma_destroy_qp()):
		 * whatever a transfer has outstanding flushes at once instead
		 * of waiting for the transport's retries to run out.
		 */
		rdma_disconnect(l->cm_id);
		if (!l->active)		/* the peer left: nobody else will free it */
			hixl_link_schedule_release(l);
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		hixl_link_fail(l, -ENETDOWN);
		hixl_link_schedule_release(l);
		return 0;
	default:
		return 0;
	}
}

/**
 * hixl_cm_handler() - RDMA CM event handler of engine ids and link ids
 * @id: the id; its context is a struct hixl_rdma (engine) or hixl_link
 * @ev: the event
 *
 * Context: RDMA CM's handler context (may sleep); serialised per id.
 * Return: 0, or -errno to make RDMA CM destroy a refused new connection:
 * -EAGAIN for a request to an engine whose SETUP listens but has not
 * published its device side yet (engine.c; the peer's CONNECT retries),
 * or hixl_accept()'s error.
 */
int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (*(int *)id->context == HIXL_CM_LINK)
		return hixl_link_cm_event(id->context, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct hixl_rdma *rd = id->context;

		if (smp_load_acquire(&rd->eng->rdma) != rd)
			return -EAGAIN;
		return hixl_accept(rd->eng, id, ev);
	}
	pr_info("engine: RDMA CM %s (status %d)\n", rdma_event_msg(ev->event), ev->status);
	return 0;
}

/* ---- CONNECT / DISCONNECT ------------------------------------------------------------------- */

static long hixl_left(unsigned long deadline)
{
	return time_before(jiffies, deadline) ? (long)(deadline - jiffies) : 0;
}

/* Wait for the next CM event of an active link and check it is @want. */
static int hixl_link_wait_cm(struct hixl_link *l, int want, unsigned long deadline)
{
	long ret;
	int ev, status, st, err;

	ret = wait_event_interruptible_timeout(l->wq,
					       READ_ONCE(l->cm_pending) ||
					       READ_ONCE(l->state) >= HIXL_LINK_ERROR,
					       hixl_left(deadline));
	if (ret == 0)
		return -ETIMEDOUT;
	if (ret < 0)
		return -ERESTARTSYS;	/* a signal, or io_uring's task-work notification */
	spin_lock(&l->lock);
	ev = l->cm_event;
	status = l->cm_status;
	l->cm_pending = false;
	st = l->state;
	err = l->err;
	spin_unlock(&l->lock);
	if (st >= HIXL_LINK_ERROR)
		return err;
	if (ev == want)
		return 0;
	if (ev == RDMA_CM_EVENT_REJECTED)	/* by the peer's policy, or nobody listens */
		return status == -EACCES ? -EACCES : -ECONNREFUSED;
	if (status == -ETIMEDOUT)
		return -ETIMEDOUT;
	return status < 0 ? status : -EHOSTUNREACH;
}

/**
 * hixl_link_try_connect() - one connection attempt of an active link
 * @l:        the link; its cm_mutex held, no cm_id (a new link, or one
 *            undone by hixl_link_reset_attempt())
 * @src:      our address, port 0
 * @dst:      the peer's address
 * @deadline: jiffies by which the attempt must be ESTABLISHED
 *
 * Creates the cm_id, resolves the address and the route, creates the QP and
 * connects, waiting for each CM event.  Whatever it made stays on the link
 * for hixl_link_reset_attempt() or hixl_link_destroy() to free.
 *
 * Context: process context, sleeps until @deadline at most.
 * Return: 0 once ESTABLISHED; -ECONNABORTED when the link was torn down
 * (CLOSED) before the attempt began; the link's error when it broke;
 * -ECONNREFUSED when the peer rejected us (nobody listens); else as
 * hixl_link_wait_cm(), rdma_create_id(), rdma_resolve_addr(),
 * rdma_resolve_route(), hixl_link_create_qp() or rdma_connect().
 */
static int hixl_link_try_connect(struct hixl_link *l, struct sockaddr *src,
				 struct sockaddr *dst, unsigned long deadline)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_wire_cm_req req;
	struct rdma_conn_param param;
	int ret, st, err;

	lockdep_assert_held(&l->cm_mutex);
	st = hixl_link_state(l, &err);
	if (st == HIXL_LINK_CLOSED)
		return -ECONNABORTED;	/* hixl_link_destroy() has been and gone */
	if (st == HIXL_LINK_ERROR)
		return err;
	l->cm_id = rdma_create_id(current->nsproxy->net_ns, hixl_cm_handler, l,
				  RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(l->cm_id)) {
		ret = PTR_ERR(l->cm_id);
		l->cm_id = NULL;
		return ret;
	}
	rdma_set_service_type(l->cm_id, eng->rdma->traffic_class);
	ret = rdma_resolve_addr(l->cm_id, src, dst,
				max_t(long, jiffies_to_msecs(hixl_left(deadline)), 1));
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
	if (!ret)
		ret = rdma_resolve_route(l->cm_id,
					 max_t(long, jiffies_to_msecs(hixl_left(deadline)), 1));
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
	if (!ret)
		ret = hixl_link_create_qp(l);
	if (!ret) {
		hixl_conn_param(eng, &param);
		hixl_auth_conn_param(eng, &param, &req);
		ret = rdma_connect(l->cm_id, &param);
	}
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ESTABLISHED, deadline);
	return ret;
}

/**
 * hixl_link_reset_attempt() - undo a refused attempt so the link can try again
 * @l: the link; its cm_mutex held
 *
 * Frees the QP side and the cm_id hixl_link_try_connect() made.
 *
 * Context: process context, may sleep (waits for a running CM handler).
 */
static void hixl_link_reset_attempt(struct hixl_link *l)
{
	lockdep_assert_held(&l->cm_mutex);
	cancel_work_sync(&l->stage_work);
	mutex_lock(&l->post_mutex);
	hixl_link_destroy_qp(l);
	mutex_unlock(&l->post_mutex);
	if (l->cm_id) {
		rdma_destroy_id(l->cm_id);
		l->cm_id = NULL;
	}
	spin_lock(&l->lock);
	l->cm_pending = false;
	l->hello_seen = false;		/* the next connection's peer says HELLO anew */
	l->stage_busy = false;
	spin_unlock(&l->lock);
	spin_lock(&l->xq_lock);
	l->ack_busy = false;
	l->ack_next = 0;
	l->ack_sent = 0;
	spin_unlock(&l->xq_lock);
}

static int hixl_connect_validate(struct hixl_engine *eng, const struct hixl_connect *a,
				 struct sockaddr_storage *dst)
{
	int ret;

	if (a->flags || a->reserved[0] || a->reserved[1])
		return -EINVAL;
	ret = hixl_sockaddr_to_kernel(&a->remote, dst);
	if (ret)
		return ret;
	if (!a->remote.port)
		return -EINVAL;		/* a peer that does not listen cannot be reached */
	if (!eng->mm || current->mm != eng->mm)
		return -EPERM;
	if (!eng->rdma)
		return hixl_engine_no_rdma(eng);
	return 0;
}

/**
 * hixl_cmd_connect() - HIXL_IOC_CONNECT: connect to a peer engine
 * @eng: the engine, set up
 * @a:   in: the peer's name, timeout_ms (> 0)
 *
 * Resolves the peer over RDMA CM, connects one RC QP, activates the MRs of
 * every registration and exchanges region tables; returns when the link is
 * ready or the timeout has passed.  A refused connection (no listener yet)
 * is retried every 50 ms until then.
 *
 * The link is on the engine's list from the start, so a DISCONNECT of the
 * same peer from another thread, a second CONNECT replacing it once it
 * broke, the device's removal or an address change can tear it down while
 * CONNECT runs: CONNECT holds its own reference on the link until it
 * returns, makes and frees the link's cm_id and QP only under the link's
 * cm_mutex after checking that the link is not CLOSED, and then fails with
 * -ECONNABORTED (-ENODEV for the device's removal).
 *
 * Context: process context, sleeps up to @a->timeout_ms; takes the link's
 * cm_mutex, then the engine lock and its post_mutex (hixl_link_publish()).
 * Return: 0, or
 *  -EINVAL       flags, reserved fields, timeout 0, port 0, a bad address;
 *  -EAFNOSUPPORT the family is not AF_INET or AF_INET6;
 *  -EPERM        the caller is not the engine's process;
 *  -EBADFD       the engine was not set up (HIXL_IOC_SETUP);
 *  -ENODEV       the engine's RDMA device was removed (SETUP again), before
 *                or during the CONNECT;
 *  -EISCONN      already connected to this peer (HIXL ALREADY_CONNECTED);
 *  -EALREADY     a CONNECT to this peer is in progress;
 *  -ENOSPC       the engine has max_links links;
 *  -EACCES       refused by the peer's policy (docs/protocol.md, "Who may
 *                connect"): our address is not among its allowed peers,
 *                one of the two engines has a secret and the other not, or
 *                the peer's proof of our secret was wrong (no region of
 *                ours was announced to it); a CONNECT the peer's policy
 *                refuses is not retried;
 *  -ETIMEDOUT    not connected and exchanged within the timeout (also: a
 *                peer that never answers our secret's challenge);
 *  -EHOSTUNREACH, -ENETUNREACH, -EADDRNOTAVAIL: resolution failed;
 *  -EXDEV        the route to the peer leaves the engine's RDMA device;
 *  -ECONNRESET   the peer went away during the exchange;
 *  -ECONNABORTED the link was torn down here while CONNECT ran: a DISCONNECT
 *                of this peer from another thread, another CONNECT that
 *                replaced it after it broke, or a change of its address;
 *  -ENETDOWN     the link broke on a device or address event (before it
 *                was torn down; then -ECONNABORTED or -ENODEV);
 *  -EINTR        a signal with a handler arrived (the link attempt is undone;
 *                with SA_RESTART, and after io_uring's task-work
 *                notification (TIF_NOTIFY_SIGNAL), the call restarts instead:
 *                -ERESTARTSYS inside the kernel);
 *  -ENOMEM, or the device's -errno.
 */
int hixl_cmd_connect(struct hixl_engine *eng, struct hixl_connect *a)
{
	struct sockaddr_storage dst, src;
	struct hixl_link *l, *old = NULL;
	unsigned long deadline;
	int ret, st, err;

	ret = hixl_connect_validate(eng, a, &dst);
	if (ret)
		return ret;
	if (!a->timeout_ms)
		return -EINVAL;
	ret = hixl_sockaddr_to_kernel(&eng->rdma->local, &src);
	if (ret)
		return ret;
	((struct sockaddr_in *)&src)->sin_port = 0;	/* same offset in sin6 */
	deadline = jiffies + msecs_to_jiffies(a->timeout_ms);

	l = hixl_link_alloc(eng, true);
	if (!l)
		return -ENOMEM;
	l->peer = a->remote;
	l->named = true;

	mutex_lock(&eng->links_lock);
	{
		struct hixl_link *it;

		list_for_each_entry(it, &eng->links, node) {
			bool same;

			spin_lock(&it->lock);
			same = it->named && hixl_sockaddr_equal(&it->peer, &a->remote);
			spin_unlock(&it->lock);
			if (same) {
				old = it;
				break;
			}
		}
	}
	if (old) {
		st = hixl_link_state(old, &err);
		if (st == HIXL_LINK_READY)
			ret = -EISCONN;
		else if (st == HIXL_LINK_CONNECTING)
			ret = -EALREADY;
		else {		/* broken: replace it */
			list_del_init(&old->node);
			eng->nr_links--;
		}
	}
	if (!ret && eng->nr_links >= READ_ONCE(hixl_max_links))
		ret = -ENOSPC;
	if (!ret && eng->rdma_gone)
		ret = -ENODEV;		/* the device is going away (engine.c) */
	if (!ret) {
		list_add_tail(&l->node, &eng->links);
		eng->nr_links++;
		kref_get(&l->ref);	/* ours, until we return: others can unlist it now */
	}
	mutex_unlock(&eng->links_lock);
	if (ret) {
		hixl_link_put(l);	/* never listed: frees it */
		return ret;
	}
	if (old && old->state >= HIXL_LINK_ERROR) {
		hixl_link_cancel_release(old);
		hixl_link_destroy(old);
	}

	for (;;) {
		mutex_lock(&l->cm_mutex);
		ret = hixl_link_try_connect(l, (struct sockaddr *)&src,
					    (struct sockaddr *)&dst, deadline);
		if (ret == -ECONNREFUSED)
			hixl_link_reset_attempt(l);
		mutex_unlock(&l->cm_mutex);
		if (ret != -ECONNREFUSED)
			break;
		if (hixl_left(deadline) <= msecs_to_jiffies(HIXL_RETRY_MS)) {
			ret = -ETIMEDOUT;
			break;
		}
		/* the pause before the next attempt; a teardown cuts it short */
		if (wait_event_interruptible_timeout(l->wq,
						     READ_ONCE(l->state) >= HIXL_LINK_ERROR,
						     msecs_to_jiffies(HIXL_RETRY_MS)) < 0) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	if (!ret)
		ret = hixl_auth_connect(l, deadline);	/* the secret exchange, if any */
	if (!ret)
		ret = hixl_link_publish(l);
	if (!ret) {
		long w = wait_event_interruptible_timeout(l->wq,
				READ_ONCE(l->state) != HIXL_LINK_CONNECTING, hixl_left(deadline));

		if (w == 0)
			ret = -ETIMEDOUT;
		else if (w < 0)
			ret = -ERESTARTSYS;
		else if (hixl_link_state(l, &err) != HIXL_LINK_READY)
			ret = err ? err : -ECONNRESET;
	}
	if (ret) {
		/* torn down under us rather than failed: say so (a refused proof closes it) */
		if (hixl_link_state(l, &err) == HIXL_LINK_CLOSED && ret != -EACCES)
			ret = READ_ONCE(eng->rdma_gone) ? -ENODEV : -ECONNABORTED;
		if (hixl_link_unlist(l))
			hixl_link_destroy(l);
	}
	hixl_link_put(l);
	return ret;
}

/**
 * hixl_cmd_disconnect() - HIXL_IOC_DISCONNECT: tear down the link to a peer
 * @eng: the engine
 * @a:   in: the peer's name; timeout_ms is accepted for HIXL's signature
 *       (the teardown does not wait for the peer)
 *
 * A CONNECT to that peer still running in another thread ends with
 * -ECONNABORTED.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL, -EAFNOSUPPORT, -EPERM, -EBADFD, -ENODEV as for CONNECT;
 * -ENOTCONN when there is no link to that peer (HIXL NOT_CONNECTED).
 */
int hixl_cmd_disconnect(struct hixl_engine *eng, struct hixl_connect *a)
{
	struct sockaddr_storage dst;
	struct hixl_link *l;
	int ret;

	ret = hixl_connect_validate(eng, a, &dst);
	if (ret)
		return ret;
	l = hixl_link_get(eng, &a->remote);
	if (!l)
		return -ENOTCONN;
	if (hixl_link_unlist(l)) {
		hixl_link_cancel_release(l);
		hixl_link_destroy(l);
	}
	hixl_link_put(l);
	return 0;
}
