// SPDX-License-Identifier: GPL-2.0
/* table.c - our region table on the links, and waiting for their TABLE_ACKs */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "msg.h"
#include "table.h"
#include "table_pub.h"
#include "stage.h"
#include "raillink.h"
#include "local.h"
#include "proto.h"

unsigned int hixl_table_ack_ms = 10000;
module_param_named(table_ack_ms, hixl_table_ack_ms, uint, 0644);
MODULE_PARM_DESC(table_ack_ms, "ms the peers get, all together, to acknowledge a table update; a late peer's link is closed (default 10000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_table_ack_ms);

/*
 * The next link a table update goes to, referenced, or NULL: one not broken
 * whose table went out, skipping those whose tbl_gen >= @hidden (if set).
 * Engine lock held; takes links_lock; allocates nothing.
 */
static struct hixl_link *hixl_next_table_link(struct hixl_engine *eng, u64 walk, u64 hidden)
{
	struct hixl_link *l, *found = NULL;
	int err;

	lockdep_assert_held(&eng->lock);
	mutex_lock(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node) {
		if (l->walk == walk)
			continue;
		l->walk = walk;
		if (!l->tbl_gen || (hidden && l->tbl_gen >= hidden))
			continue;
		if (hixl_link_state(l, &err) < HIXL_LINK_ERROR) {
			kref_get(&l->ref);
			found = l;
			break;
		}
	}
	mutex_unlock(&eng->links_lock);
	return found;
}

/* An upper bound of the links an update goes to. */
static u32 hixl_table_links(struct hixl_engine *eng)
{
	struct hixl_link *l;
	u32 n = 0;

	lockdep_assert_held(&eng->lock);
	mutex_lock(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node)
		n += !!l->tbl_gen;
	mutex_unlock(&eng->links_lock);
	return n;
}

/*
 * Start an update's wait: the deadline runs from now.  Without memory for
 * every link, each is waited for as it is sent to, against the same
 * deadline.
 */
static void hixl_tbl_wait_init(struct hixl_engine *eng, struct hixl_tbl_wait *w)
{
	u32 n = hixl_table_links(eng);

	memset(w, 0, sizeof(*w));
	w->eng = eng;
	w->deadline = hixl_deadline(READ_ONCE(hixl_table_ack_ms));
	if (n) {
		w->ents = kmalloc_array(n, sizeof(*w->ents), GFP_KERNEL | __GFP_NOWARN);
		w->cap = w->ents ? n : 0;
	}
}

/* Wait for @l's peer to apply @want messages, else close the link. */
static void hixl_tbl_wait_one(struct hixl_engine *eng, struct hixl_link *l, u64 want,
			      unsigned long deadline)
{
	long left = hixl_jiffies_left(deadline);
	int err;

	wait_event_timeout(l->wq, READ_ONCE(l->tbl_acked) >= want ||
			   READ_ONCE(l->state) >= HIXL_LINK_ERROR, left);
	if (hixl_link_state(l, &err) >= HIXL_LINK_ERROR || READ_ONCE(l->tbl_acked) >= want)
		return;
	hixl_link_warn(l, "closing the link: a table update not acknowledged within %u ms\n",
		       READ_ONCE(hixl_table_ack_ms));
	hixl_link_abort(l, -ETIMEDOUT);
}

/* Keep @l (its reference) for hixl_tbl_wait_finish(), or wait now. */
static void hixl_tbl_wait_add(struct hixl_tbl_wait *w, struct hixl_link *l, u64 want)
{
	/* sent after the deadline: a short grace */
	unsigned long dl = hixl_deadline(HIXL_TX_MIN_MS);

	if (time_after(w->deadline, dl))
		dl = w->deadline;
	if (w->n < w->cap) {
		w->ents[w->n].link = l;
		w->ents[w->n].want = want;
		w->ents[w->n].deadline = dl;
		w->n++;
		return;
	}
	hixl_tbl_wait_one(w->eng, l, want, dl);
	hixl_link_put(l);
}

/* Wait until every link of @w has ACKed, broke or closed; release @w. */
static void hixl_tbl_wait_finish(struct hixl_tbl_wait *w)
{
	u32 i;

	for (i = 0; i < w->n; i++) {
		hixl_tbl_wait_one(w->eng, w->ents[i].link, w->ents[i].want, w->ents[i].deadline);
		hixl_link_put(w->ents[i].link);
	}
	kfree(w->ents);
	memset(w, 0, sizeof(*w));
}

/*
 * Announce a new region to every link whose table went out; a link that
 * cannot take it is broken, the registration stands.  Engine lock held.
 */
static void hixl_links_region_added(struct hixl_engine *eng, struct hixl_region *r,
				    struct hixl_tbl_wait *w)
{
	struct hixl_link *l;
	u64 walk, want;
	int ret;

	lockdep_assert_held(&eng->lock);
	hixl_tbl_wait_init(eng, w);
	if (!r->live || !r->mrset[0].nr_mrs)
		return;
	if (READ_ONCE(r->invalid)) {
		r->tbl_hidden = 1;	/* unmapped already: in no table, ever */
		return;
	}
	walk = ++eng->link_walk;
	while ((l = hixl_next_table_link(eng, walk, 0))) {
		mutex_lock(&l->msg.post_mutex);
		if (!hixl_link_usable(l)) {	/* torn down since we looked */
			mutex_unlock(&l->msg.post_mutex);
			hixl_link_put(l);
			continue;
		}
		l->msg.tx_deadline = w->deadline;	/* the sends are in the bound too */
		ret = hixl_link_reg_mrs(l, r);
		if (!ret && !hixl_region_local_only(r))
			ret = hixl_send_region(l, r);
		l->msg.tx_deadline = 0;
		want = l->tbl_sent;
		mutex_unlock(&l->msg.post_mutex);
		if (ret) {
			hixl_link_fail(l, ret);
			hixl_link_put(l);
			continue;
		}
		if (hixl_region_local_only(r)) {
			hixl_link_put(l);
			break;		/* its MRs are registered: one link is enough */
		}
		hixl_tbl_wait_add(w, l, want);
	}
}

/*
 * Send REGION_DEL to each link whose table has @r and hide @r from later
 * tables; @r's keys may go once @w is finished.  Engine lock held.
 */
static void hixl_links_region_withdraw(struct hixl_engine *eng, struct hixl_region *r,
				       struct hixl_tbl_wait *w)
{
	struct hixl_wire_region_del *m;
	struct hixl_link *l;
	u64 walk, want;
	int ret;

	lockdep_assert_held(&eng->lock);
	if (!r->mrset[0].nr_mrs || r->tbl_hidden == 1) {
		memset(w, 0, sizeof(*w));
		return;
	}
	hixl_tbl_wait_init(eng, w);
	walk = ++eng->link_walk;
	while ((l = hixl_next_table_link(eng, walk, r->tbl_hidden))) {
		mutex_lock(&l->msg.post_mutex);
		if (!hixl_link_usable(l)) {	/* torn down since we looked */
			mutex_unlock(&l->msg.post_mutex);
			hixl_link_put(l);
			continue;
		}
		m = l->msg.tx.buf;
		m->addr = cpu_to_le64(r->addr);
		m->len = cpu_to_le64(r->len);
		l->msg.tx_deadline = w->deadline;
		ret = hixl_send_msg(l, HIXL_MSG_REGION_DEL, sizeof(*m));
		l->msg.tx_deadline = 0;
		if (!ret)
			l->tbl_sent++;
		want = l->tbl_sent;
		mutex_unlock(&l->msg.post_mutex);
		if (ret) {
			hixl_link_put(l);	/* the failed send broke it */
			continue;
		}
		hixl_tbl_wait_add(w, l, want);
	}
	r->tbl_hidden = 1;	/* in no later table */
}

/* Withdraw @r and wait with the engine lock held (close, invalidation). */
static void hixl_links_region_removed(struct hixl_engine *eng, struct hixl_region *r)
{
	struct hixl_tbl_wait w;

	hixl_links_region_withdraw(eng, r, &w);
	hixl_tbl_wait_finish(&w);
}

/**
 * hixl_link_reg_mrs() - activate a region's MRs with IB_WR_REG_MR
 * @l: a connected link of the region's engine; post_mutex held
 * @r: the region; the engine lock held
 *
 * Once per rail: the keys are then valid on every QP of that rail's PD.
 * Return: 0, or the error of a post (hixl_post_wait()).
 */
int hixl_link_reg_mrs(struct hixl_link *l, struct hixl_region *r)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, l->rail);	/* the link's rail's */
	int access = IB_ACCESS_REMOTE_READ;
	u32 i;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	lockdep_assert_held(&l->msg.post_mutex);
	if (ms->mrs_registered || !ms->nr_mrs)	/* none: the rail's device is gone */
		return 0;
	if (!(r->flags & HIXL_REG_READ_ONLY))
		access |= IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	if (hixl_region_local_only(r))	/* no peer may use its keys */
		access &= ~(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	for (i = 0; i < ms->nr_mrs; i++) {
		struct hixl_mr *m = &ms->mrs[i];
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
	ms->mrs_registered = true;
	return 0;
}

/**
 * hixl_send_region() - announce one region to a link's peer
 * @l: the link; post_mutex held
 * @r: the region, with its MRs; the engine lock held
 * Return: 0; -ECONNRESET if the link is torn down or broken; the error of
 * a send (hixl_post_wait()).
 */
int hixl_send_region(struct hixl_link *l, struct hixl_region *r)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, l->rail);	/* this rail's keys */
	struct hixl_wire_region *m = l->msg.tx.buf;
	u32 first = 0, n;
	int ret;

	if (!hixl_link_usable(l))
		return -ECONNRESET;
	if (!ms->nr_mrs)
		return 0;	/* no MRs on this rail (its device is gone): not announced */
	do {
		n = hixl_region_msg_fill(ms, r, m, first);
		ret = hixl_send_msg(l, HIXL_MSG_REGION, struct_size(m, mrs, n));
		if (ret)
			return ret;
		l->tbl_sent++;
		first += n;
	} while (first < ms->nr_mrs);
	return 0;
}

/**
 * hixl_link_publish() - send our HELLO, every valid region and TABLE_END
 * @l: a connected link
 *
 * The engine lock is held until @l->tbl_gen is set, as table updates hold
 * it: an update either is in the table or reaches the link afterwards.
 * Context: process context, may sleep; takes the engine lock and post_mutex.
 * Return: 0; -ECONNRESET link torn down or broken; a send or REG_MR error.
 */
int hixl_link_publish(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_wire_hello *h;
	struct hixl_region *r;
	struct hixl_pub *pub;
	unsigned long idx;
	u32 ext;
	u64 gen;
	int ret;

	hixl_engine_lock(eng);
	mutex_lock(&l->msg.post_mutex);
	if (!hixl_link_usable(l)) {
		mutex_unlock(&l->msg.post_mutex);
		mutex_unlock(&eng->lock);
		return -ECONNRESET;
	}
	ret = hixl_stage_register(l);
	h = l->msg.tx.buf;
	memset(h, 0, sizeof(*h));
	hixl_name_to_wire(&eng->rdma->local, &h->engine);
	if (l->stage.rx.mr) {
		h->stage_iova = cpu_to_le64(l->stage.rx.mr->iova);
		h->stage_size = cpu_to_le64(l->stage.rx.size);
		h->stage_rkey = cpu_to_le32(l->stage.rx.mr->rkey);
	}
	/* blocks: same-host pairing (primaries), then rails */
	ext = l->rail ? 0 : hixl_local_offer(l, (struct hixl_wire_hello_local *)(h + 1));
	ext += hixl_rails_hello_fill(l, (u8 *)(h + 1) + ext, HIXL_MSG_SIZE - sizeof(*h) - ext);
	if (!ret)
		ret = hixl_send_msg(l, HIXL_MSG_HELLO, sizeof(*h) + ext);
	gen = ++eng->tbl_gen;
	pub = ret ? NULL : hixl_pub_start(l);	/* NULL: one wait per message */
	xa_for_each(&eng->regions, idx, r) {
		if (ret)
			break;
		if (!r->live || !r->mrset[0].nr_mrs)
			continue;
		if (hixl_region_local_only(r) && !READ_ONCE(r->invalid)) {
			ret = hixl_link_reg_mrs(l, r);	/* for our own side only */
			continue;
		}
		if (r->tbl_hidden || READ_ONCE(r->invalid)) {
			if (!r->tbl_hidden)
				r->tbl_hidden = gen;	/* this and later tables lack it */
			continue;
		}
		ret = pub ? hixl_pub_region(pub, r) : 1;
		if (ret == 1) {		/* too many MRs for a wave */
			ret = hixl_link_reg_mrs(l, r);
			if (!ret)
				ret = hixl_send_region(l, r);
		}
	}
	if (pub) {
		int err = hixl_pub_finish(pub);	/* waits for what was posted */

		ret = ret ?: err;
	}
	if (!ret)
		ret = hixl_send_msg(l, HIXL_MSG_TABLE_END, sizeof(struct hixl_wire_hdr));
	if (!ret)
		l->tbl_gen = gen;	/* table updates reach it from now on */
	mutex_unlock(&l->msg.post_mutex);
	mutex_unlock(&eng->lock);
	if (ret)
		return ret;
	spin_lock(&l->lock);
	l->table_sent = true;
	spin_unlock(&l->lock);
	hixl_link_check_ready(l);
	return 0;
}

/* A registration as the links see it (region.h). */
const struct hixl_region_events hixl_table_region_events = {
	.added = hixl_links_region_added,
	.wait = hixl_tbl_wait_finish,
	.withdraw = hixl_links_region_withdraw,
	.removed = hixl_links_region_removed,
};
