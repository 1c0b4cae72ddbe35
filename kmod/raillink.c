// SPDX-License-Identifier: GPL-2.0
/*
 * raillink.c - rail links (issue 13 item 2): between two engines with
 * several rails, one more RC link per rail pair beside the link CONNECT
 * made (the primary, rail 0), so that every rail carries its own QP, region
 * table (the keys valid on that rail's device) and keep-alive.
 *
 *  - Wire (proto.h, docs/protocol.md "Rails"): a primary link's HELLO
 *    carries our rails (addresses, listener port) and a random token of the
 *    link; a rail link's HELLO carries its rail index and the token the
 *    acceptor sent on the primary.  Every field is checked: a peer is
 *    untrusted.
 *  - Only the connector makes rail links: after CONNECT's primary is READY,
 *    rails 1..nr-1 (nr = min(ours, the peer's)) from our rail i address to
 *    the peer's rail i address and listener port, within CONNECT's deadline;
 *    one that fails does not fail CONNECT.  Then the primary's rail work
 *    checks every HIXL_RAIL_RETRY_MS, while the primary is READY, and
 *    re-makes a rail link that broke (hixl_rail_revive() first: the rail's
 *    device may have come back).
 *  - The acceptor learns the rail of a connection from the device it came
 *    in on (hixl_rail_of_device()): rail 0 connections are primaries as
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
#include <linux/in6.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <crypto/algapi.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>

#include "hixl_priv.h"
#include "proto.h"
#include "trace.h"

#define HIXL_RAIL_CONNECT_MS	3000	/* the rail work's bound on one rail connection */

static void hixl_rail_work(struct work_struct *w);
static void hixl_rail_work_arm(struct hixl_link *p);
static int hixl_rail_listen_one(struct hixl_rdma *rd, u32 i, struct net *net);

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

/* ---- HELLO blocks --------------------------------------------------------------------- */

/**
 * hixl_rails_hello_fill() - append our rails block (primary) or rail block
 * (a rail link we connect) to a HELLO being built
 * @l:    the link; post_mutex held (the HELLO is in its send buffer)
 * @blk:  where the block goes, right after what the HELLO has so far
 * @room: bytes left in the send buffer from @blk
 *
 * A primary link of an engine with extra rails sends struct
 * hixl_wire_hello_rails: rail i's address with the port our listener has
 * on it (the engine's port; 0 when we do not listen) and @l's token.
 * Engines without extra rails, and accepted rail links, add nothing.
 *
 * Return: bytes appended.
 */
u32 hixl_rails_hello_fill(struct hixl_link *l, void *blk, u32 room)
{
	struct hixl_rdma *rd = l->eng->rdma;
	u32 i;

	if (l->rail) {
		struct hixl_wire_hello_rail *x = blk;

		if (!l->active || !l->parent || room < sizeof(*x))
			return 0;
		memset(x, 0, sizeof(*x));
		x->magic = cpu_to_le32(HIXL_WIRE_RAIL_MAGIC);
		x->version = cpu_to_le16(HIXL_WIRE_RAIL_VERSION);
		x->len = cpu_to_le16(sizeof(*x));
		x->rail = cpu_to_le32(l->rail);
		spin_lock(&l->parent->rails.lock);
		memcpy(x->token, l->parent->rails.peer_token, sizeof(x->token));
		spin_unlock(&l->parent->rails.lock);
		return sizeof(*x);
	}
	if (!rd || !rd->nr_rails || room < sizeof(struct hixl_wire_hello_rails))
		return 0;
	{
		struct hixl_wire_hello_rails *x = blk;
		u32 nr = min_t(u32, rd->nr_rails, HIXL_MAX_RAILS - 1);

		memset(x, 0, sizeof(*x));
		x->magic = cpu_to_le32(HIXL_WIRE_RAILS_MAGIC);
		x->version = cpu_to_le16(HIXL_WIRE_RAILS_VERSION);
		x->len = cpu_to_le16(sizeof(*x));
		x->nr_rails = cpu_to_le32(nr + 1);
		memcpy(x->token, l->rails.token, sizeof(x->token));
		for (i = 0; i < nr; i++) {
			struct hixl_sockaddr a = rd->rails[i].addr;

			a.port = rd->local.port;	/* 0 when we do not listen */
			hixl_name_to_wire(&a, &x->rail[i]);
		}
		return sizeof(*x);
	}
}

static bool hixl_rail_addr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/*
 * Check a peer's rails block.  Return: 0 with the rails in @out (@out[0]
 * unused) and their count (rail 0 included) in *@nr, or -EPROTO.
 */
static int hixl_rails_blk_check(struct hixl_link *l, const struct hixl_wire_hello_rails *x,
				const struct hixl_sockaddr *name, struct hixl_sockaddr *out, u32 *nr)
{
	static const u8 zero[sizeof(struct hixl_wire_name)];
	u32 n = le32_to_cpu(x->nr_rails), i, j;
	bool any = false;

	if (le16_to_cpu(x->len) != sizeof(*x) || x->reserved) {
		hixl_link_warn(l, "HELLO rails block: len %u (want %zu) or reserved set\n",
			       le16_to_cpu(x->len), sizeof(*x));
		return -EPROTO;
	}
	if (n < 1 || n > HIXL_MAX_RAILS) {
		hixl_link_warn(l, "HELLO rails block: nr_rails %u (1..%u)\n", n, HIXL_MAX_RAILS);
		return -EPROTO;
	}
	for (i = 0; i < sizeof(x->token); i++)
		any |= x->token[i];
	if (!any) {
		hixl_link_warn(l, "HELLO rails block: a zero token\n");
		return -EPROTO;
	}
	for (i = 0; i < HIXL_MAX_RAILS - 1; i++) {
		const struct hixl_wire_name *w = &x->rail[i];

		if (i >= n - 1) {
			if (memcmp(w, zero, sizeof(zero))) {
				hixl_link_warn(l, "HELLO rails block: rail %u beyond nr_rails %u is set\n",
					       i + 1, n);
				return -EPROTO;
			}
			continue;
		}
		hixl_name_from_wire(w, &out[i + 1]);
		if (w->reserved || out[i + 1].family != name->family ||
		    hixl_rail_addr_equal(&out[i + 1], name)) {
			hixl_link_warn(l, "HELLO rails block: rail %u: family %u (want %u), reserved %u, or the engine's own address\n",
				       i + 1, out[i + 1].family, name->family,
				       le32_to_cpu(w->reserved));
			return -EPROTO;
		}
		for (j = 1; j < i + 1; j++) {
			if (hixl_rail_addr_equal(&out[j], &out[i + 1])) {
				hixl_link_warn(l, "HELLO rails block: rails %u and %u have one address\n",
					       j, i + 1);
				return -EPROTO;
			}
		}
	}
	*nr = n;
	return 0;
}

/*
 * An accepted rail link's HELLO said rail @i and token @token: hang it off
 * our primary link to @name with that token.  Return: 0, or -EPROTO (no
 * such primary, wrong rail, or the connection is not from the peer's rail
 * @i address), -ECONNABORTED (the primary is going).
 */
static int hixl_raillink_attach(struct hixl_link *l, u32 i, const u8 *token,
				const struct hixl_sockaddr *name)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_link *p, *found = NULL, *old = NULL;
	int ret = -EPROTO, err;

	mutex_lock(&eng->links_lock);
	list_for_each_entry(p, &eng->links, node) {
		bool match;

		if (p->rail || p->active || p == l)
			continue;
		spin_lock(&p->lock);
		match = p->named && hixl_sockaddr_equal(&p->peer, name) &&
			p->state < HIXL_LINK_ERROR;
		spin_unlock(&p->lock);
		if (match && !crypto_memneq(p->rails.token, token, HIXL_RAIL_TOKEN)) {
			found = p;
			break;
		}
	}
	if (!found) {
		mutex_unlock(&eng->links_lock);
		hixl_link_warn(l, "rail %u: no link of ours to that engine has its token: closing\n", i);
		return -EPROTO;
	}
	spin_lock(&found->rails.lock);
	if (found->rails.dying) {
		ret = -ECONNABORTED;
	} else if (i >= found->rails.nr || !hixl_name_is_source(l, &found->rails.peer_rail[i])) {
		ret = -EPROTO;
	} else {
		/*
		 * @l's state and @parent under its lock: hixl_link_destroy()
		 * marks it CLOSED under that lock before it unhooks it, so
		 * either it sees @parent and unhooks, or we see CLOSED.
		 */
		spin_lock(&l->lock);
		if (l->state >= HIXL_LINK_ERROR) {
			ret = -ECONNABORTED;
		} else {
			kref_get(&found->ref);
			l->parent = found;
			ret = 0;
		}
		spin_unlock(&l->lock);
		if (!ret) {
			old = found->rails.link[i];
			found->rails.link[i] = l;
			if (old)
				kref_get(&old->ref);
		}
	}
	spin_unlock(&found->rails.lock);
	mutex_unlock(&eng->links_lock);
	if (ret == -EPROTO)
		hixl_link_warn(l, "rail %u: not paired, or not from the peer's rail %u address: closing\n",
			       i, i);
	if (!ret)
		trace_hixl_rail_state(eng->id, &l->raddr, i, true, 0);
	if (old) {	/* a rail link it replaces: its peer has given it up */
		if (hixl_link_state(old, &err) < HIXL_LINK_CLOSED)
			hixl_link_abort(old, -ECONNRESET);
		hixl_link_put(old);
	}
	return ret;
}

/**
 * hixl_rails_hello_rx() - the rail blocks of a peer's HELLO
 * @l:    the link
 * @hm:   the HELLO, @len bytes (at least struct hixl_wire_hello)
 * @len:  bytes
 * @name: the engine name in the HELLO
 *
 * Walks the blocks after struct hixl_wire_hello ({magic, version, len}
 * each; a header that does not fit ends the walk, an unknown magic is
 * skipped).  On a primary link a rails block sets the peer's rails and
 * token (nr = min(ours, the peer's)); a rails block of another version is
 * ignored (one rail).  On an accepted rail link the rail block is required
 * and the link is attached (hixl_raillink_attach()).
 *
 * Context: the CQ's receive work (may sleep: takes the engine's links_lock).
 * Return: 0; -EPROTO for a malformed rails or rail block, a second one, a
 * rails block on a rail link, a rail block on a primary or from an
 * acceptor, a rail link without its block or with another rail index than
 * the device it came in on, or one that does not pair; -ECONNABORTED when
 * its primary is being torn down.  The caller closes the link on an error.
 */
int hixl_rails_hello_rx(struct hixl_link *l, const struct hixl_wire_hello *hm, u32 len,
			const struct hixl_sockaddr *name)
{
	struct hixl_sockaddr peer_rail[HIXL_MAX_RAILS] = {};
	const struct hixl_wire_hello_rails *rails = NULL;
	const struct hixl_wire_hello_rail *rail = NULL;
	const u8 *base = (const u8 *)hm;
	u32 off = sizeof(*hm), nr = 1, ours;
	int ret;

	while (len - off >= sizeof(struct hixl_wire_hello_blk)) {
		const struct hixl_wire_hello_blk *b = (const void *)(base + off);
		u32 magic = le32_to_cpu(b->magic), blen = le16_to_cpu(b->len);
		bool mine = magic == HIXL_WIRE_RAILS_MAGIC || magic == HIXL_WIRE_RAIL_MAGIC;

		if (blen < sizeof(*b) || blen > len - off) {
			if (mine) {
				hixl_link_warn(l, "HELLO: rail block of %u bytes at %u of %u\n",
					       blen, off, len);
				return -EPROTO;
			}
			break;		/* not a block: the rest is ignored, as ever */
		}
		if (mine && (rails || rail)) {
			hixl_link_warn(l, "HELLO: a second rails or rail block\n");
			return -EPROTO;
		}
		if (magic == HIXL_WIRE_RAILS_MAGIC &&
		    le16_to_cpu(b->version) == HIXL_WIRE_RAILS_VERSION) {
			if (blen < sizeof(*rails)) {
				hixl_link_warn(l, "HELLO rails block: %u bytes\n", blen);
				return -EPROTO;
			}
			rails = (const void *)b;
		} else if (magic == HIXL_WIRE_RAIL_MAGIC) {
			if (le16_to_cpu(b->version) != HIXL_WIRE_RAIL_VERSION ||
			    blen != sizeof(*rail)) {
				hixl_link_warn(l, "HELLO rail block: version %u, %u bytes\n",
					       le16_to_cpu(b->version), blen);
				return -EPROTO;
			}
			rail = (const void *)b;
		}
		off += blen;
	}

	if (l->rail) {			/* a rail link */
		u32 i;

		if (rails || (l->active && rail)) {
			hixl_link_warn(l, "HELLO: a rails block on rail link %u\n", l->rail);
			return -EPROTO;
		}
		if (l->active) {	/* the acceptor's plain HELLO, in its engine's name */
			if (!hixl_sockaddr_equal(name, &l->peer)) {
				hixl_link_warn(l, "HELLO on rail %u names another engine\n", l->rail);
				return -EPROTO;
			}
			return 0;
		}
		if (!rail) {
			hixl_link_warn(l, "HELLO: a connection on rail %u without a rail block: closing\n",
				       l->rail);
			return -EPROTO;
		}
		i = le32_to_cpu(rail->rail);
		if (i != l->rail || rail->reserved) {
			hixl_link_warn(l, "HELLO rail block: rail %u on rail %u's device, reserved %u\n",
				       i, l->rail, le32_to_cpu(rail->reserved));
			return -EPROTO;
		}
		return hixl_raillink_attach(l, i, rail->token, name);
	}

	if (rail) {
		hixl_link_warn(l, "HELLO: a rail block on a primary link\n");
		return -EPROTO;
	}
	if (!rails)
		return 0;		/* an old or one-rail peer */
	ret = hixl_rails_blk_check(l, rails, name, peer_rail, &nr);
	if (ret)
		return ret;
	ours = l->eng->rdma ? max(1U, hixl_rails_count(l->eng->rdma)) : 1;
	spin_lock(&l->rails.lock);
	memcpy(l->rails.peer_token, rails->token, sizeof(l->rails.peer_token));
	memcpy(l->rails.peer_rail, peer_rail, sizeof(peer_rail));
	l->rails.nr = min3(nr, ours, (u32)HIXL_MAX_RAILS);
	nr = l->rails.nr;
	spin_unlock(&l->rails.lock);
	if (!l->active && nr > 1) {	/* revives our rails while the link lives */
		spin_lock(&l->lock);
		l->rails.work_on = true;
		spin_unlock(&l->lock);
		hixl_rail_work_arm(l);
	}
	return 0;
}

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
	trace_hixl_rail_state(eng->id, &p->raddr, i, !ret, ret);
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
 * Is rail link @rl's port up?  (Unknown - no cm_id - counts as up.)  A
 * port that is down (`ip link set ... down`, a cable) gives no CM event,
 * and keepalive.c posts nothing on a port that is down, so a rail link
 * would stay READY on a dead rail: the rail work marks it broken instead.
 */
static bool hixl_raillink_port_up(struct hixl_link *rl)
{
	enum ib_port_state st = IB_PORT_ACTIVE;

	mutex_lock(&rl->cm_mutex);
	if (rl->cm_id && rl->cm_id->device &&
	    ib_get_cached_port_state(rl->cm_id->device, rl->cm_id->port_num, &st))
		st = IB_PORT_ACTIVE;
	mutex_unlock(&rl->cm_mutex);
	return st == IB_PORT_ACTIVE;
}

/* Queue the rail work again unless @p is torn down or no longer READY. */
static void hixl_rail_work_arm(struct hixl_link *p)
{
	spin_lock(&p->lock);
	if (p->state < HIXL_LINK_ERROR && p->rails.work_on)
		queue_delayed_work(system_long_wq, &p->rails.work,
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
				hixl_link_warn(rl, "rail %u: our port is down: rail link broken\n", i);
				hixl_link_fail(rl, -ENETDOWN);
				trace_hixl_rail_state(eng->id, &p->raddr, i, false, -ENETDOWN);
			} else if (st >= HIXL_LINK_ERROR && up) {
				/*
				 * Destroyed (DREQ) only with the port up: on rxe a send
				 * on a port that is down moves the QP to error, the CM's
				 * too (keepalive.c, hixl_ka_port_up()).
				 */
				if (err != -ENETDOWN)
					trace_hixl_rail_state(eng->id, &p->raddr, i, false, err);
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
		trace_hixl_rail_state(l->eng->id, &l->raddr, i, false, -ECONNRESET);
		if (hixl_link_unlist(rl[i])) {
			hixl_link_cancel_release(rl[i]);
			hixl_link_destroy(rl[i]);
		}
		hixl_link_put(rl[i]);
	}
	cancel_delayed_work_sync(&l->rails.work);
}

/**
 * hixl_raillink_unhook() - a rail link is torn down: off its primary's rails
 * @l: the rail link, marked CLOSED by hixl_link_destroy()
 *
 * Its reference on the primary goes with the link's struct (hixl_link_free()).
 */
void hixl_raillink_unhook(struct hixl_link *l)
{
	struct hixl_link *p;

	spin_lock(&l->lock);		/* pairs with hixl_raillink_attach() */
	p = l->parent;
	spin_unlock(&l->lock);
	if (!p)
		return;
	spin_lock(&p->rails.lock);
	if (l->rail < HIXL_MAX_RAILS && p->rails.link[l->rail] == l)
		p->rails.link[l->rail] = NULL;
	spin_unlock(&p->rails.lock);
}

/* ---- the acceptor: rails of a connection, listeners ---------------------------------- */

/**
 * hixl_rail_of_device() - which of an engine's rails a device is
 * @eng: the engine (its rdma published)
 * @dev: the device a connection came in on
 *
 * Context: RDMA CM's handler; takes the engine's rdma_sem for reading with
 * a trylock (a removal holding it for writing: the connection is refused).
 * Return: 0 for rail 0's device (and for a device that is none of ours:
 * hixl_link_create_qp() then refuses it, -EXDEV); i for rail i's.
 */
u32 hixl_rail_of_device(struct hixl_engine *eng, struct ib_device *dev)
{
	struct hixl_rdma *rd = eng->rdma;
	struct hixl_rail_dev d;
	u32 i, found = 0;

	if (!rd || dev == rd->ibdev || !rd->nr_rails)
		return 0;
	if (!down_read_trylock(&eng->rdma_sem))
		return 0;
	for (i = 1; i <= rd->nr_rails && !found; i++)
		if (hixl_rail_dev(rd, i, &d) && d.ibdev == dev)
			found = i;
	up_read(&eng->rdma_sem);
	return found;
}

/* Serialises a rail listener's removal by its device with its engine's close. */
static DEFINE_SPINLOCK(hixl_rail_listen_lock);

/*
 * Listen on rail @i's address (i >= 1) with the engine's port, in @net,
 * unless a listener is there.  Return: 0, or -errno.
 */
static int hixl_rail_listen_one(struct hixl_rdma *rd, u32 i, struct net *net)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int ret;

	spin_lock(&hixl_rail_listen_lock);
	id = rd->rails[i - 1].listen_id;
	spin_unlock(&hixl_rail_listen_lock);
	if (id)
		return 0;
	ret = hixl_sockaddr_to_kernel(&rd->rails[i - 1].addr, &ss);
	if (ret)
		return ret;
	((struct sockaddr_in *)&ss)->sin_port = htons(rd->local.port);	/* sin6 too */
	id = rdma_create_id(net, hixl_cm_handler, rd, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&ss);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		pr_warn("engine %llu: rail %u (%pISc): cannot listen on port %u: %d\n",
			rd->eng->id, i, &ss, rd->local.port, ret);
		return ret;
	}
	spin_lock(&hixl_rail_listen_lock);
	if (!rd->rails[i - 1].listen_id) {
		rd->rails[i - 1].listen_id = id;
		id = NULL;
	}
	spin_unlock(&hixl_rail_listen_lock);
	if (id)
		rdma_destroy_id(id);	/* another one was quicker */
	return 0;
}

/**
 * hixl_rail_listen() - listen on every rail address with the engine's port
 * @rd:         the engine's RDMA side in SETUP (not yet published),
 *              listening on @rd->local with a port
 * @listen_any: a LISTEN_ANY engine: its one wildcard listener hears the
 *              rails' addresses already, nothing to do
 *
 * Context: SETUP, the engine lock held.
 * Return: 0, or rdma_bind_addr()'s/rdma_listen()'s error for a rail
 * (-EADDRINUSE: the port is taken on that rail's address); the listeners
 * made so far are destroyed then.
 */
int hixl_rail_listen(struct hixl_rdma *rd, bool listen_any)
{
	u32 i;
	int ret;

	if (!rd->nr_rails || listen_any)
		return 0;
	for (i = 0; i < rd->nr_rails; i++) {
		rd->rails[i].listen = true;
		ret = hixl_rail_listen_one(rd, i + 1, current->nsproxy->net_ns);
		if (ret) {
			hixl_rail_unlisten(rd);
			return ret;
		}
	}
	return 0;
}

/**
 * hixl_rail_unlisten() - destroy an engine's rail listeners
 * @rd: the engine's RDMA side
 *
 * Context: process context, may sleep (waits for a running CM handler).
 */
void hixl_rail_unlisten(struct hixl_rdma *rd)
{
	u32 i;

	for (i = 0; i < rd->nr_rails; i++) {
		struct rdma_cm_id *id;

		spin_lock(&hixl_rail_listen_lock);
		id = rd->rails[i].listen_id;
		rd->rails[i].listen_id = NULL;
		spin_unlock(&hixl_rail_listen_lock);
		if (id)
			rdma_destroy_id(id);
	}
}

/**
 * hixl_rail_listener_event() - an event on one of an engine's listeners
 * other than a connection request
 * @rd: the engine's RDMA side
 * @id: the listener
 * @ev: the event
 *
 * A rail listener whose device goes away (DEVICE_REMOVAL) is forgotten and
 * RDMA CM destroys it (non-zero return), so that the device's removal does
 * not wait for the engine's close.
 *
 * Return: 1 to have RDMA CM destroy @id, else 0.
 */
int hixl_rail_listener_event(struct hixl_rdma *rd, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	int ret = 0;
	u32 i;

	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL || id == rd->cm_id)
		return 0;
	spin_lock(&hixl_rail_listen_lock);
	for (i = 0; i < rd->nr_rails; i++) {
		if (rd->rails[i].listen_id == id) {
			rd->rails[i].listen_id = NULL;
			ret = 1;
		}
	}
	spin_unlock(&hixl_rail_listen_lock);
	if (ret)
		pr_warn("engine %llu: a rail's device was removed: its listener goes (back with the device, raillink.c's rail work)\n",
			rd->eng->id);
	return ret;
}

/* ---- debugfs ------------------------------------------------------------------------ */

/**
 * hixl_raillinks_show() - debugfs hixl/raillinks: one line per rail link
 * @m: the file
 *
 * engine, peer engine, rail, side, state, error, the peer's regions in
 * the link's table, bytes moved and errors (the link's ctrs).
 *
 * Context: process context; takes hixl_engines_lock, each engine's
 * links_lock and each rail link's rt.lock.
 */
int hixl_raillinks_show(struct seq_file *m)
{
	struct hixl_engine *eng;
	struct hixl_link *l;

	static const char *const names[] = { "connecting", "ready", "error", "closed" };

	seq_puts(m, "engine peer rail side state error peer_regions bytes errors\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		mutex_lock(&eng->links_lock);
		list_for_each_entry(l, &eng->links, node) {
			unsigned long idx = 0;
			struct hixl_rregion *rr;
			int st, err, n = 0;
			u64 bytes;

			if (!l->rail)
				continue;
			st = hixl_link_state(l, &err);
			mutex_lock(&l->rt.lock);
			mt_for_each(&l->rt.tree, rr, idx, ULONG_MAX)
				n++;
			mutex_unlock(&l->rt.lock);
			bytes = atomic64_read(&l->ctrs.v[HIXL_CTR_READ_DIRECT_BYTES]) +
				atomic64_read(&l->ctrs.v[HIXL_CTR_WRITE_DIRECT_BYTES]);
			if (l->peer.family == AF_INET)
				seq_printf(m, "%llu %pI4:%u", eng->id, l->peer.addr, l->peer.port);
			else
				seq_printf(m, "%llu [%pI6c]:%u", eng->id, l->peer.addr, l->peer.port);
			seq_printf(m, " %u %s %s %d %d %llu %llu\n", l->rail,
				   l->active ? "active" : "passive", names[st],
				   err, n, bytes,
				   (u64)atomic64_read(&l->ctrs.v[HIXL_CTR_ERRORS]));
		}
		mutex_unlock(&eng->links_lock);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}
