// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - our region table on the links: publishing it on a new link
 * (HELLO, every region, TABLE_END), telling every link's peer about later
 * registrations (REGION, REGION_DEL) and waiting for its TABLE_ACK
 * (docs/protocol.md, "The exchange", step 4).  The peer's table, and our
 * TABLE_ACKs, are rtable.c's.
 *
 * An update goes to every link whose table went out, under the engine
 * lock, so that it is ordered against the tables (hixl_link_publish()).
 * The peers' acknowledgements are then awaited with one deadline for all
 * of them, table_ack_ms from the first send: a silent peer costs one bound
 * however many there are, and a peer that misses the deadline has its link
 * closed (hixl_link_abort()).  A new registration's wait runs after the
 * engine lock is dropped (hixl_cmd_reg_mem()), so another registration,
 * a transfer or a deregistration does not wait behind a silent peer; a
 * removal's wait keeps the lock, since the region's MRs may only go once no
 * peer's table has them.
 */
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
#include "stage.h"
#include "raillink.h"
#include "local.h"
#include "proto.h"

/*
 * How long the peers of an engine may take, all together, to acknowledge a
 * table update; a link whose peer has not by then is closed.
 */
unsigned int hixl_table_ack_ms = 10000;
module_param_named(table_ack_ms, hixl_table_ack_ms, uint, 0644);
MODULE_PARM_DESC(table_ack_ms, "ms the peers get, all together, to acknowledge a table update; a late peer's link is closed (default 10000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_table_ack_ms);

/**
 * hixl_next_table_link() - the next link a table update goes to
 * @eng:    the engine; its lock held (it protects every link's @tbl_gen)
 * @walk:   this walk, from ++@eng->link_walk
 * @hidden: a region's @tbl_hidden: links whose table went out at this
 *          generation or later do not have the region (0: all have it)
 *
 * A link whose table went out (hixl_link_publish()), that has it by
 * @hidden and that is not broken, whether READY or still waiting for the
 * peer's TABLE_END.  No allocation (a table update must reach every link
 * even when memory is short).
 *
 * Context: process context; takes the engine's links_lock.
 * Return: the link with a reference, or NULL when this walk visited all.
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

/* Links whose table went out, an upper bound of the links an update goes to. */
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
 * Start an update's wait: the deadline runs from now, and room for every
 * link that can get the update (a link's table goes out under the engine
 * lock, which the caller holds, so no more can appear).  Without memory for
 * the room, each link is waited for as it is sent to (hixl_tbl_wait_add()),
 * still against the one deadline.
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

/*
 * Wait until @l's peer applied @want table messages, the link broke, or
 * @deadline passed; a peer that did not make it has its link closed.
 */
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

/*
 * @l (a reference the wait takes over) was sent an update; its peer must
 * have applied @want messages.  Kept for hixl_tbl_wait_finish(), or
 * waited for now when there is no room.
 */
static void hixl_tbl_wait_add(struct hixl_tbl_wait *w, struct hixl_link *l, u64 want)
{
	/* sent after the deadline (sends to earlier links took it): a short grace */
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

/**
 * hixl_tbl_wait_finish() - wait for the acknowledgements of one table update
 * @w: the wait hixl_links_region_added() filled
 *
 * Returns once every link the update went to has its peer's TABLE_ACK for
 * it, is broken, or was closed for missing the update's deadline
 * (hixl_table_ack_ms after it began, or HIXL_TX_MIN_MS after the link's
 * send when the sends to earlier links took it all): the whole wait is
 * bounded by that one deadline however many peers are silent, plus
 * HIXL_TX_MIN_MS per peer that also takes no SEND.  Releases what @w holds.
 *
 * Context: process context, may sleep; the engine lock need not be held
 * (hixl_cmd_reg_mem() calls it after dropping it).
 */
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

/**
 * hixl_links_region_added() - announce a new registration to every link
 * @eng: the engine; its lock held
 * @r:   the region, with its MRs
 * @w:   out: what to wait for; the caller passes it to
 *       hixl_tbl_wait_finish(), with or without the engine lock
 *
 * Every link whose table went out gets REGION, READY or still waiting for
 * the peer's TABLE_END (hixl_next_table_link()); links whose table goes out
 * later have the region in it (hixl_link_publish()).  Once @w is finished,
 * the region is in every peer's table, or the peer's link is closed.  A
 * region without MRs (before SETUP) is announced with the tables once it
 * has them; one invalidated already is announced to no link.  A link that
 * cannot take the update (send or REG_MR failed) is marked broken; the
 * registration stands.
 *
 * Context: process context, may sleep: the sends and REG_MRs have the
 * update's deadline too (hixl_post_wait(); a link whose peer takes no SEND
 * by then, or within HIXL_TX_MIN_MS once it passed, is broken).
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

/**
 * hixl_links_region_removed() - withdraw a registration from every link that has it
 * @eng: the engine; its lock held
 * @r:   the region, before its MRs are released
 *
 * Called by every path that releases a region's MRs while it may be in a
 * peer's table: DEREG_MEM and close (hixl_region_free(), valid or
 * invalidated) and the invalidation work (hixl_inval_work()).  Each link
 * whose table has the region - it went out with the region in it, or
 * before the region was announced; READY or still waiting for the peer's
 * TABLE_END (hixl_next_table_link()) - gets REGION_DEL, and then all their
 * TABLE_ACKs are awaited with one deadline (hixl_tbl_wait_finish()), so
 * that the region is out of every peer's table, or the peer's link closed,
 * before its keys go.  Afterwards no link has it (@r->tbl_hidden = 1), so a
 * second call sends nothing; nor does one for a region without MRs (never
 * announced, or withdrawn when the invalidation work released them).  A
 * link that cannot send is marked broken.
 *
 * Context: process context, may sleep, with the engine lock held: up to
 * hixl_table_ack_ms for the acknowledgements of all peers together.
 */
static void hixl_links_region_removed(struct hixl_engine *eng, struct hixl_region *r)
{
	struct hixl_wire_region_del *m;
	struct hixl_tbl_wait w;
	struct hixl_link *l;
	u64 walk, want;
	int ret;

	lockdep_assert_held(&eng->lock);
	if (!r->mrset[0].nr_mrs || r->tbl_hidden == 1)
		return;
	hixl_tbl_wait_init(eng, &w);
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
		/*
		 * Out of the peer's table before the MRs go (a late rkey would
		 * break the link); a link that cannot answer is closed.
		 */
		l->msg.tx_deadline = w.deadline;
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
		hixl_tbl_wait_add(&w, l, want);
	}
	hixl_tbl_wait_finish(&w);
	r->tbl_hidden = 1;	/* out of every table */
}

/* ---- publishing our table on a new link ----------------------------------------- */

/**
 * hixl_link_reg_mrs() - activate a region's MRs with IB_WR_REG_MR
 * @l: a connected link of the region's engine; post_mutex held
 * @r: the region; the engine lock held
 *
 * The MRs of the link's rail (hixl_region_mrset(r, l->rail)): an MR is
 * registered once, on whichever link of its rail comes first; its keys are
 * then valid on every QP of that rail's PD.  A rail without MRs of @r (its
 * device is gone) has nothing to register.
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
	struct hixl_mrset *ms = hixl_region_mrset(r, l->rail);	/* this rail's keys */
	struct hixl_wire_region *m = l->msg.tx.buf;
	u32 first = 0, i, n;
	int ret;

	if (!hixl_link_usable(l))
		return -ECONNRESET;
	if (!ms->nr_mrs)
		return 0;	/* no MRs on this rail (its device is gone): not announced */
	do {
		n = min_t(u32, ms->nr_mrs - first, HIXL_WIRE_MRS_PER_MSG);
		memset(m, 0, sizeof(*m));
		m->addr = cpu_to_le64(r->addr);
		m->len = cpu_to_le64(r->len);
		m->flags = cpu_to_le32((r->flags & HIXL_REG_READ_ONLY ?
					0 : HIXL_WIRE_REGION_WRITABLE) |
				       (r->type == HIXL_MEM_DEVICE ? HIXL_WIRE_REGION_DEVICE : 0));
		m->nr_mrs = cpu_to_le32(ms->nr_mrs);
		m->first = cpu_to_le32(first);
		m->count = cpu_to_le32(n);
		for (i = 0; i < n; i++) {
			struct hixl_mr *mr = &ms->mrs[first + i];

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
	} while (first < ms->nr_mrs);
	return 0;
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
int hixl_link_publish(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_wire_hello *h;
	struct hixl_region *r;
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
	/* blocks: same-host pairing (primaries only), then rails (raillink_hello.c) */
	ext = l->rail ? 0 : hixl_local_offer(l, (struct hixl_wire_hello_local *)(h + 1));
	ext += hixl_rails_hello_fill(l, (u8 *)(h + 1) + ext, HIXL_MSG_SIZE - sizeof(*h) - ext);
	if (!ret)
		ret = hixl_send_msg(l, HIXL_MSG_HELLO, sizeof(*h) + ext);
	gen = ++eng->tbl_gen;
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
		ret = hixl_link_reg_mrs(l, r);
		if (!ret)
			ret = hixl_send_region(l, r);
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

/* A registration as the links see it (struct hixl_region_events, region.h). */
const struct hixl_region_events hixl_table_region_events = {
	.added = hixl_links_region_added,
	.wait = hixl_tbl_wait_finish,
	.removed = hixl_links_region_removed,
};
