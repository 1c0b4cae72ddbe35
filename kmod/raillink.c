// SPDX-License-Identifier: GPL-2.0
/*
 * raillink.c - rail links: between two engines with
 * several rails, one more RC link per rail pair beside the link CONNECT
 * made (the primary, rail 0), so that every rail carries its own QP, region
 * table (the keys valid on that rail's device) and keep-alive.  Here: a
 * primary's rail fields, the connector's rail links (CONNECT's, the rail
 * work that re-makes broken ones) and their teardown (debugfs
 * hixl/raillinks is debugfs.c's).  The HELLO's rails and rail blocks are
 * raillink_hello.c's; the acceptor's side (the rail of a connection, the
 * pairing by token, the rail listeners) raillink_accept.c's.
 *
 *  - Wire (proto.h, docs/protocol.md "Rails"; raillink_hello.c): a primary
 *    link's HELLO carries our rails (addresses, listener port) and a random
 *    token of the link; a rail link's HELLO carries its rail index and the
 *    token the acceptor sent on the primary.  Every field is checked: a
 *    peer is untrusted.
 *  - Only the connector makes rail links: after CONNECT's primary is READY,
 *    rails 1..nr-1 (nr = min(ours, the peer's)) from our rail i address to
 *    the peer's rail i address and listener port, within CONNECT's deadline;
 *    one that fails does not fail CONNECT.  Then the primary's rail work
 *    checks every HIXL_RAIL_RETRY_MS, while the primary is READY, and
 *    re-makes a rail link that broke (hixl_rail_revive() first: the rail's
 *    device may have come back).
 *  - The acceptor (raillink_accept.c) learns the rail of a connection from
 *    the device it came in on (hixl_rail_of_device()): rail 0 connections are primaries as
 *    always; any other must say, in its HELLO, that rail index and the token
 *    of one of our primary links to the same peer engine, from that peer's
 *    rail i address as the primary's HELLO gave it, or it is closed
 *    (-EPROTO).  Auth (the engine secret, allowed peers) runs on rail links
 *    as on primaries.
 *  - A rail link is an ordinary struct hixl_link with @rail != 0 and
 *    @parent set (a reference): on the engine's list, so that every table
 *    update reaches it (table.c), but not counted in nr_links (max_links),
 *    never found by peer-name lookups (hixl_link_lookup()), not in
 *    LINK_STATS, ENGINES or debugfs hixl/links (it has hixl/raillinks).
 *    It lives at most as long as its primary: hixl_link_destroy() of the
 *    primary destroys its rail links; a rail link's own teardown unhooks it.
 *  - Rail links have no staging buffers (HELLO says stage_size 0): the
 *    striped data path sends only direct descriptors over rails.
 *
 * Model: drivers/infiniband/ulp/rtrs (a session of several connections,
 * each path reconnected by a delayed work), and local.c's pairing token.
 */
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

/**
 * hixl_raillink_flush() - flush what a broken link has posted, sending nothing
 * @l: the link, ERROR already (the caller holds a reference)
 *
 * Moves its QP to the error state with ib_modify_qp(), as ib_drain_qp()
 * does, so that every posted work request completes with a flush: its
 * batches end, and striped ones fail over (xrail.c), instead of waiting
 * for their deadline when nothing else would complete them.  Unlike
 * hixl_xq_break() no DREQ is sent: for a rail link whose port is down
 * (the rail work), where a send moves the device's GSI QP to the error state
 * on rxe (keepalive.c).  The link's teardown disconnects as usual.
 *
 * Context: process context; takes @l->msg.post_mutex.
 */
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
 * @l: the link, from hixl_link_alloc()
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
 *
 * Context: any that may take a spinlock.
 * Return: 1 (no rail links: an old peer, a one-rail engine on either side,
 * or the peer's HELLO not seen yet) to HIXL_MAX_RAILS.
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
 * hixl_link_rail_get() - rail @i's link of a primary, if it is READY
 * @l: a primary link
 * @i: the rail, 0..hixl_link_nr_rails() - 1
 *
 * Context: any that may take a spinlock (rails.lock, then the rail link's
 * lock).
 * Return: the link with a reference (hixl_link_put()) - @l itself for
 * @i = 0 - when it is READY; NULL otherwise (@i out of range, no rail link,
 * or one that is connecting or broken).
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

/* ---- the connector ------------------------------------------------------------------ */

/*
 * Make rail @i's link of primary @p: listed and hooked first (so that a
 * teardown of @p finds and ends it), then connected, authenticated and its
 * table exchanged by @deadline.  Caller holds the engine's rdma_sem (read).
 * Return: 0 once READY; -ENODEV when the rail's device is gone; -EBUSY
 * when the rail has a link; -ECONNABORTED when @p is going; else as CONNECT.
 */
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

	/* once: a refused rail is the rail work's, CONNECT does not wait for it */
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

/* Unhook, unlist and destroy @rl, rail @i of @p, if it is still hooked there. */
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

/*
 * Is rail link @rl's port up (hixl_link_port_up(): its netdev, then the
 * cached port state)?  A port that is down (`ip link set ... down`, a
 * cable) gives no CM event, and keepalive.c posts nothing on a port that
 * is down, so a rail link would stay READY on a dead rail: the rail work
 * marks it broken instead.
 */
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
 * @p: the primary link; its rails.work_on set by whoever started the work
 *     (CONNECT, hixl_raillinks_connect(); the acceptor, raillink_hello.c)
 *
 * Queued in HIXL_RAIL_RETRY_MS unless @p is torn down or no longer READY
 * (state ERROR or CLOSED) or rails.work_on is not set.
 *
 * Context: any that may take a spinlock; takes @p->lock.
 */
void hixl_rail_work_arm(struct hixl_link *p)
{
	spin_lock(&p->lock);
	if (p->state < HIXL_LINK_ERROR && p->rails.work_on)
		queue_delayed_work(p->eng->wq, &p->rails.work,
				   msecs_to_jiffies(HIXL_RAIL_RETRY_MS));
	spin_unlock(&p->lock);
}

/*
 * The primary's rail work: a rail link that broke is unhooked and
 * destroyed; a rail without one (broken, never made, its device back) is
 * connected again.  Holds the engine's rdma_sem for reading, taken with a
 * trylock (a close or a device removal holding it for writing waits for
 * nothing of ours, and cancels this work).
 */
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
				/*
				 * what it has on the wire may never complete (rxe
				 * need not retransmit): flush it, so that a striped
				 * batch fails over now, not at its deadline
				 */
				hixl_raillink_flush(rl);
				hixl_raillink_trace_down(rl, p, -ENETDOWN);
			} else if (st >= HIXL_LINK_ERROR && up) {
				/*
				 * Destroyed (DREQ) only with the port up: on rxe a send
				 * on a port that is down moves the QP to error, the CM's
				 * too (keepalive.c, hixl_link_port_up()).
				 */
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
 * @l:        the primary link CONNECT made, READY
 * @deadline: CONNECT's deadline (jiffies)
 *
 * Connects rails 1..nr-1 one after the other while time is left; a rail
 * that fails is left to the rail work, started here, which retries it
 * every HIXL_RAIL_RETRY_MS.  A same-host (kernel copy) primary makes none.
 *
 * Context: CONNECT's, rdma_sem held for reading.
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
 * hixl_raillinks_destroy() - a primary link is torn down: its rail links go
 * @l: the primary, marked CLOSED by hixl_link_destroy()
 *
 * No rail link is hooked from here on; each hooked one is destroyed unless
 * someone else unlisted it first (it is then being destroyed); the rail
 * work is cancelled.
 *
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
 * hixl_raillink_trace_up() - hixl_rail_state up for a rail link now READY
 * @rl: the rail link
 * @p:  its primary (whose peer address the event names)
 *
 * Not for a link broken meanwhile: its down would then never come
 * (hixl_link_destroy() marks it CLOSED under @rl->lock before it unhooks).
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
 * @err: why, -errno: -ENODEV its device is removed, -ENETDOWN its port
 *       went down, -ECONNRESET its primary went or a newer rail link
 *       replaced it, else the link's error
 *
 * Each way a rail link goes says so here: the rail work, the device's
 * removal, its primary's end, a replacement, and its own teardown
 * (hixl_raillink_unhook(), for the ways none of these saw: a link the
 * CM's DISCONNECTED or DEVICE_REMOVAL event released before the device's
 * removal reached it went without a word).  The first says why; the rest
 * say nothing.
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
 * hixl_raillink_unhook() - a rail link is torn down: off its primary's rails
 * @l: the rail link, marked CLOSED by hixl_link_destroy()
 *
 * Its reference on the primary goes with the link's struct
 * (hixl_link_free()).  A link still counted up traces its down here, with
 * its error (-ECONNRESET when it has none).
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
