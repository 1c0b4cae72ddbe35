// SPDX-License-Identifier: GPL-2.0
/* raillink.c - rail links, one RC link per extra rail: connecting and teardown, as rtrs */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/random.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "rail.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "cm.h"
#include "table.h"
#include "raillink.h"
#include "local.h"
#include "proto.h"
#include "trace.h"

#define HIXL_RAIL_CONNECT_MS	3000	/* the rail work's bound on one rail connection */

static void hixl_rail_work(struct work_struct *w);

/* QP to error, as ib_drain_qp(), so batches fail over now; no DREQ: port may be down */
static void hixl_raillink_flush(struct hixl_link *l)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&l->msg.post_mutex);
	if (l->qp)
		ret = ib_modify_qp(l->qp, &attr, IB_QP_STATE);
	mutex_unlock(&l->msg.post_mutex);
	if (ret)
		hixl_link_warn(l, "moving the QP to the error state failed: %d\n", ret);
}

/**
 * hixl_link_rails_init() - a new link's rail fields: one rail, a fresh token
 * @l: the link
 */
void hixl_link_rails_init(struct hixl_link *l)
{
	spin_lock_init(&l->rails.lock);
	l->rails.nr = 1;
	get_random_bytes(l->rails.token, sizeof(l->rails.token));
	INIT_DELAYED_WORK(&l->rails.work, hixl_rail_work);
}

/**
 * hixl_link_nr_rails() - rails paired with the peer on a primary link
 * @l: a primary link
 * Context: may take a spinlock.
 * Return: 1 (no rail links) to HIXL_MAX_RAILS.
 */
u32 hixl_link_nr_rails(struct hixl_link *l)
{
	u32 nr;

	spin_lock(&l->rails.lock);
	nr = l->rails.nr;
	spin_unlock(&l->rails.lock);
	return nr;
}

/**
 * hixl_link_rail_get() - rail @i's link of a primary, if READY
 * @l: a primary link
 * @i: the rail
 * Context: takes rails.lock, then the rail link's lock.
 * Return: the link referenced (@l for 0) when READY; else NULL.
 */
struct hixl_link *hixl_link_rail_get(struct hixl_link *l, u32 i)
{
	struct hixl_link *rl = NULL;
	int err;

	if (!i) {
		if (hixl_link_state(l, &err) != HIXL_LINK_READY)
			return NULL;
		kref_get(&l->ref);
		return l;
	}
	spin_lock(&l->rails.lock);
	if (i < l->rails.nr && i < HIXL_MAX_RAILS)
		rl = l->rails.link[i];
	if (rl && hixl_link_state(rl, &err) == HIXL_LINK_READY)
		kref_get(&rl->ref);
	else
		rl = NULL;
	spin_unlock(&l->rails.lock);
	return rl;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_rail_get);

/* hooked on @p before connecting, so @p's teardown ends it; rdma_sem held */
static int hixl_raillink_make(struct hixl_link *p, u32 i, unsigned long deadline)
{
	struct hixl_engine *eng = p->eng;
	struct hixl_rdma *rd = eng->rdma;
	struct sockaddr_storage src, dst;
	struct hixl_sockaddr peer_rail;
	struct hixl_rail_dev dev;
	struct hixl_link *rl;
	int ret;

	if (!rd || i > rd->nr_rails || !hixl_rail_dev(rd, i, &dev) || !dev.ibdev || !dev.pd)
		return -ENODEV;
	spin_lock(&p->rails.lock);
	peer_rail = p->rails.peer_rail[i];
	spin_unlock(&p->rails.lock);
	if (!peer_rail.port)
		return -ECONNREFUSED;	/* the peer does not listen on its rails */
	ret = hixl_sockaddr_to_kernel(&rd->rails[i - 1].addr, &src);
	if (!ret)
		ret = hixl_sockaddr_to_kernel(&peer_rail, &dst);
	if (ret)
		return ret;
	((struct sockaddr_in *)&src)->sin_port = 0;	/* same offset in sin6 */

	rl = hixl_link_alloc(eng, true);
	if (!rl)
		return -ENOMEM;
	rl->rail = i;
	rl->connect_ns = ktime_get_ns();
	rl->peer = p->peer;
	rl->named = true;
	rl->raddr = dst;
	kref_get(&p->ref);
	rl->parent = p;

	mutex_lock(&eng->links_lock);
	spin_lock(&p->rails.lock);
	if (p->rails.dying || eng->rdma_gone)
		ret = -ECONNABORTED;
	else if (p->rails.link[i])
		ret = -EBUSY;
	else
		p->rails.link[i] = rl;
	spin_unlock(&p->rails.lock);
	if (!ret) {
		list_add_tail(&rl->node, &eng->links);	/* not counted in nr_links */
		kref_get(&rl->ref);	/* ours, until we return */
	}
	mutex_unlock(&eng->links_lock);
	if (ret) {
		hixl_link_put(rl);	/* never listed: frees it and its parent reference */
		return ret;
	}

	ret = hixl_connect_once(rl, (struct sockaddr *)&src, (struct sockaddr *)&dst, deadline);
	if (!ret)
		ret = hixl_auth_connect(rl, deadline);
	if (!ret)
		ret = hixl_link_publish(rl);
	if (!ret)
		ret = hixl_connect_wait_ready(rl, deadline);
	if (!ret)
		hixl_raillink_trace_up(rl, p);
	else		/* an attempt that failed: down, never up */
		trace_hixl_rail_state(eng->id, &p->raddr, i, false, ret);
	if (ret && hixl_link_unlist(rl))
		hixl_link_destroy(rl);
	hixl_link_put(rl);
	return ret;
}

static void hixl_raillink_drop(struct hixl_link *p, u32 i, struct hixl_link *rl)
{
	bool mine;

	spin_lock(&p->rails.lock);
	mine = p->rails.link[i] == rl;
	if (mine)
		p->rails.link[i] = NULL;
	spin_unlock(&p->rails.lock);
	if (mine && hixl_link_unlist(rl)) {
		hixl_link_cancel_release(rl);
		hixl_link_destroy(rl);
	}
}

/* a port going down raises no CM event: the rail work checks it here */
static bool hixl_raillink_port_up(struct hixl_link *rl)
{
	bool up;

	mutex_lock(&rl->cm_mutex);
	up = hixl_link_port_up(rl);
	mutex_unlock(&rl->cm_mutex);
	return up;
}

/**
 * hixl_rail_work_arm() - queue a primary's rail work again
 * @p: the primary link, rails.work_on set
 * Context: takes @p->lock.
 */
void hixl_rail_work_arm(struct hixl_link *p)
{
	spin_lock(&p->lock);
	if (p->state < HIXL_LINK_ERROR && p->rails.work_on)
		queue_delayed_work(p->eng->wq, &p->rails.work,
				   msecs_to_jiffies(HIXL_RAIL_RETRY_MS));
	spin_unlock(&p->lock);
}

/* rdma_sem by trylock: a writer cancels this work */
static void hixl_rail_work(struct work_struct *w)
{
	struct hixl_link *p = container_of(to_delayed_work(w), struct hixl_link, rails.work);
	struct hixl_engine *eng = p->eng;
	u32 i, nr;
	int err;

	if (!down_read_trylock(&eng->rdma_sem))
		goto again;
	nr = hixl_link_nr_rails(p);
	if (!p->active) {	/* the acceptor: bring back a rail whose device returned */
		for (i = 1; i < nr && eng->rdma; i++)
			if (!hixl_rail_revive(eng, i) && eng->rdma->rails[i - 1].listen)
				hixl_rail_listen_one(eng->rdma, i, eng->rdma->rails_net);
		nr = 0;
	}
	for (i = 1; i < nr; i++) {
		struct hixl_link *rl;
		int st = HIXL_LINK_READY;

		spin_lock(&p->rails.lock);
		rl = p->rails.link[i];
		if (rl)
			kref_get(&rl->ref);
		spin_unlock(&p->rails.lock);
		if (rl) {
			bool up = hixl_raillink_port_up(rl);

			st = hixl_link_state(rl, &err);
			if (st == HIXL_LINK_READY && !up) {
				hixl_link_warn(rl, "rail %u: our port is down: rail link broken\n",
					       i);
				hixl_link_fail(rl, -ENETDOWN);
				/* flush: a striped batch fails over now, not at its deadline */
				hixl_raillink_flush(rl);
				hixl_raillink_trace_down(rl, p, -ENETDOWN);
			} else if (st >= HIXL_LINK_ERROR && up) {
				/* DREQ only with the port up: a send on a down port breaks QP1 */
				hixl_raillink_trace_down(rl, p, err);
				hixl_raillink_drop(p, i, rl);
			}
			hixl_link_put(rl);
			if (st < HIXL_LINK_ERROR || !up)
				continue;
		}
		if (hixl_link_state(p, &err) != HIXL_LINK_READY || !eng->rdma)
			break;
		if (hixl_rail_revive(eng, i))
			continue;	/* the rail's device is still gone */
		hixl_raillink_make(p, i, hixl_deadline(HIXL_RAIL_CONNECT_MS));
	}
	up_read(&eng->rdma_sem);
again:
	hixl_rail_work_arm(p);
}

/**
 * hixl_raillinks_connect() - CONNECT's rail links, after its primary is READY
 * @l:        the primary link, READY
 * @deadline: jiffies
 *
 * Failed rails are left to the rail work, started here.
 * Context: CONNECT's; rdma_sem read-held.
 * Return: how many rail links came up.
 */
int hixl_raillinks_connect(struct hixl_link *l, unsigned long deadline)
{
	u32 i, nr = hixl_link_nr_rails(l);
	int up = 0;

	if (nr < 2 || hixl_local_paired(l))
		return 0;
	for (i = 1; i < nr; i++) {
		if (!hixl_jiffies_left(deadline))
			break;
		if (!hixl_raillink_make(l, i, deadline))
			up++;
	}
	spin_lock(&l->lock);
	l->rails.work_on = true;
	spin_unlock(&l->lock);
	hixl_rail_work_arm(l);
	return up;
}

/**
 * hixl_raillinks_destroy() - destroy a primary's rail links and rail work
 * @l: the primary, CLOSED
 * Context: process context, may sleep; no engine lock or links_lock held.
 */
void hixl_raillinks_destroy(struct hixl_link *l)
{
	struct hixl_link *rl[HIXL_MAX_RAILS] = {};
	u32 i;

	spin_lock(&l->rails.lock);
	l->rails.dying = true;
	for (i = 1; i < HIXL_MAX_RAILS; i++) {
		rl[i] = l->rails.link[i];
		l->rails.link[i] = NULL;
		if (rl[i])
			kref_get(&rl[i]->ref);
	}
	spin_unlock(&l->rails.lock);
	for (i = 1; i < HIXL_MAX_RAILS; i++) {
		if (!rl[i])
			continue;
		hixl_raillink_trace_down(rl[i], l, -ECONNRESET);
		if (hixl_link_unlist(rl[i])) {
			hixl_link_cancel_release(rl[i]);
			hixl_link_destroy(rl[i]);
		}
		hixl_link_put(rl[i]);
	}
	cancel_delayed_work_sync(&l->rails.work);
}

/**
 * hixl_raillink_trace_up() - hixl_rail_state up for a READY rail link
 * @rl: the rail link
 * @p:  its primary
 */
void hixl_raillink_trace_up(struct hixl_link *rl, struct hixl_link *p)
{
	spin_lock(&rl->lock);
	if (rl->state < HIXL_LINK_ERROR && !rl->rail_up) {
		rl->rail_up = true;
		trace_hixl_rail_state(rl->eng->id, &p->raddr, rl->rail, true, 0);
	}
	spin_unlock(&rl->lock);
}

/**
 * hixl_raillink_trace_down() - hixl_rail_state down, once per up
 * @rl:  the rail link
 * @p:   its primary
 * @err: why: -ENODEV, -ENETDOWN, -ECONNRESET or the link's error
 */
void hixl_raillink_trace_down(struct hixl_link *rl, struct hixl_link *p, int err)
{
	spin_lock(&rl->lock);
	if (rl->rail_up) {
		rl->rail_up = false;
		trace_hixl_rail_state(rl->eng->id, &p->raddr, rl->rail, false, err);
	}
	spin_unlock(&rl->lock);
}

/**
 * hixl_raillink_unhook() - take a torn-down rail link off its primary
 * @l: the rail link, CLOSED
 */
void hixl_raillink_unhook(struct hixl_link *l)
{
	struct hixl_link *p;
	int err;

	spin_lock(&l->lock);		/* pairs with hixl_raillink_attach() */
	p = l->parent;
	err = l->err ?: -ECONNRESET;
	spin_unlock(&l->lock);
	if (!p)
		return;
	hixl_raillink_trace_down(l, p, err);
	spin_lock(&p->rails.lock);
	if (l->rail < HIXL_MAX_RAILS && p->rails.link[l->rail] == l)
		p->rails.link[l->rail] = NULL;
	spin_unlock(&p->rails.lock);
}
