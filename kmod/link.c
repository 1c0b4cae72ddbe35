// SPDX-License-Identifier: GPL-2.0
/*
 * link.c - a connection between two engines as every part of it uses
 * one: its state and failure, references and the queued release, the
 * handshake's deadline, the engine's list of links and the lookup of a
 * peer's.  Its life (allocation, the QP side, teardown, the handshake) is
 * link_life.c's.
 *
 * The layers of a link, one file each: RDMA CM connect, accept and
 * disconnect (cm.c, connect.c); posting messages (msg.c), their buffers and receive
 * dispatch (msg_rx.c);
 * our region table to the peer (table.c) and the peer's to us (rtable.c);
 * notifications (notify.c); staging (stage.c); the transfer queue (xq.c).
 *
 * Model: drivers/nvme/host/rdma.c and drivers/nvme/target/rdma.c (the
 * active side drives address/route resolution and connect from the calling
 * thread and waits for each CM event; the passive side creates the QP and
 * accepts inside the CONNECT_REQUEST handler), drivers/infiniband/ulp/rtrs
 * (one handler for listener and connection ids).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "link.h"
#include "keepalive.h"
#include "local.h"
#include "trace.h"

/**
 * hixl_link_warn() - log what a link's peer did (or may have done)
 * @l:   the link; its engine and the peer's address (@l->raddr) open the line
 * @fmt: printf format of the rest, ending in a newline
 *
 * Every line a remote peer can trigger goes through here, after rtrs's
 * rtrs_err_rl() (drivers/infiniband/ulp/rtrs/rtrs-log.h): rate-limited (one
 * state for all links, the kernel's default 10 lines per 5 s, so a hostile
 * peer cannot flood the log) and prefixed with "engine ID: peer ADDR:".
 * Context: any; does not sleep.
 */
void hixl_link_warn(const struct hixl_link *l, const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&rs))
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_warn("engine %llu: peer %pISpc: %pV", l->eng->id, &l->raddr, &vaf);
	va_end(args);
}

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
	int was;

	spin_lock(&l->lock);
	was = l->state;
	if (l->state < HIXL_LINK_ERROR) {
		l->state = HIXL_LINK_ERROR;
		l->err = err;
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	if (was >= HIXL_LINK_ERROR)
		return;
	if (was == HIXL_LINK_READY)	/* a working link broke */
		hixl_link_count(l, HIXL_CTR_LINK_RESETS, 1);
	trace_hixl_link_error(l->eng->id, &l->raddr, l->active, err, was);
}

/**
 * hixl_link_abort() - break a link and free it without waiting for the peer
 * @l:   the link
 * @err: -errno the next caller gets (hixl_link_fail())
 *
 * For a peer that broke the protocol: the link is marked broken, parses
 * nothing more but a NOTIFY that arrived whole (hixl_rx_done() drops
 * everything after a bad message or a failed receive), and is taken off
 * the engine's list and torn down from the engine's workqueue, which
 * disconnects the peer and gives its link slot back at once.  A link
 * whose hixl_accept() is still running (its QP can fail under
 * rdma_accept()) is only marked broken: hixl_accept() frees it, or
 * releases it once it has returned.
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

void hixl_link_check_ready(struct hixl_link *l)
{
	bool ready = false;

	spin_lock(&l->lock);
	if (l->state == HIXL_LINK_CONNECTING && l->table_sent && l->peer_done) {
		l->state = HIXL_LINK_READY;
		l->ever_ready = true;
		ready = true;
		hixl_link_ka_start(l);
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	if (ready && !l->active)	/* CONNECT counts its own (connect.c) */
		hixl_link_count(l, HIXL_CTR_ACCEPTS, 1);
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

	lockdep_assert_held(&l->msg.post_mutex);
	return l->qp && l->msg.tx.buf && hixl_link_state(l, &err) < HIXL_LINK_ERROR;
}

/**
 * hixl_link_port_up() - is the port under a link's connection up?
 * @l: the link; its @cm_id stays while we read it (READY, or cm_mutex held)
 *
 * A RoCE port follows its netdev, and the core's cached port state
 * (ib_get_cached_port_state()) follows the port late: a work item updates
 * it after the port event, and rxe1's was still ACTIVE 225 ms after its
 * netdev went down (Linux 6.1 under QEMU/TCG).  A keep-alive posted then
 * failed locally, and no connection on the device came up afterwards
 * until it was made again; a CM MAD sent on a port that is down (the DREQ
 * of a link torn down, the REQ of a rail link made again) moves rxe's GSI
 * QP to the error state, with the same end (docs/developing.md).  So the
 * netdev the connection is bound to is read first (netif_running() and
 * netif_carrier_ok(), what rxe_set_port_state() in
 * drivers/infiniband/sw/rxe sets its port from), then the cached state.
 *
 * Context: any (RCU inside).
 * Return: false when the bound netdev (not of an InfiniBand port) is not
 * running or has no carrier, or the cached port state is known and not
 * ACTIVE; true otherwise (no cm_id, no bound netdev: unknown counts as up).
 */
bool hixl_link_port_up(struct hixl_link *l)
{
	struct rdma_cm_id *id = l->cm_id;
	struct rdma_dev_addr *da;
	struct net_device *ndev;
	enum ib_port_state st;
	bool up = true;

	if (!id)
		return true;
	da = &id->route.addr.dev_addr;
	rcu_read_lock();
	/* an InfiniBand port does not follow its IPoIB netdev: only RoCE's */
	ndev = da->bound_dev_if && da->net &&
	       !(id->device && rdma_protocol_ib(id->device, id->port_num)) ?
	       dev_get_by_index_rcu(da->net, da->bound_dev_if) : NULL;
	if (ndev)
		up = netif_running(ndev) && netif_carrier_ok(ndev);
	rcu_read_unlock();
	if (up && id->device && !ib_get_cached_port_state(id->device, id->port_num, &st))
		up = st == IB_PORT_ACTIVE;
	return up;
}

/*
 * Queue one of the link's works that may wait for the engine's lock (the
 * setup work, the peer's STAGE_REQ, its release) on the engine's own
 * workqueue, unless hixl_link_destroy() has begun: it marks the link
 * CLOSED under @l->lock before it cancels them, so nothing is queued after
 * its cancel_work_sync().  Called from the CM handler and the CQ's
 * workqueue.  Return: true when @w was queued now.
 */
bool hixl_link_queue(struct hixl_link *l, struct work_struct *w)
{
	bool queued = false;

	spin_lock(&l->lock);
	if (l->state != HIXL_LINK_CLOSED)
		queued = queue_work(l->eng->wq, w);
	spin_unlock(&l->lock);
	return queued;
}

/**
 * hixl_name_is_source() - is @name's address the one @l's connection came from?
 * @l:    an accepted link (its cm_id's destination is the peer's source)
 * @name: a peer's claimed name (its HELLO), or its rail address from the
 *        primary's rails block (raillink_hello.c)
 *
 * hixl binds a CONNECT to its engine's own address (or rail address,
 * hixl_link_try_connect()), so a legitimate peer's claim and the source
 * address agree; ports differ (RDMA CM's source port is not the
 * listener's), so only the address is compared: on a shared host a local
 * user can claim another local engine's name (same address, other port)
 * to an engine without a secret; docs/protocol.md ("The claimed name")
 * says so, and that the engine secret is the answer.
 *
 * Return: true when the addresses are equal; false otherwise, and for a
 * name hixl_sockaddr_to_kernel() refuses.
 */
bool hixl_name_is_source(struct hixl_link *l, const struct hixl_sockaddr *name)
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

/* ---- references and release ---------------------------------------------------------- */

/**
 * hixl_link_hs_progress() - an accepted link's handshake moved on
 * @l: the link
 *
 * A HELLO or table message of the peer (REGION, REGION_DEL, TABLE_END), or
 * a SEND or REG_MR of ours, while the link is CONNECTING: its handshake
 * deadline (@l->hs_work) is hixl_handshake_ms from now.  A table of
 * thousands of regions takes longer than handshake_ms to cross (one
 * message per region, each waited for) and its link used to be closed
 * midway; a peer that stops is still closed handshake_ms after its last
 * message.  Nothing for a link we connected (no deadline) or one past its
 * handshake.  hixl_link_destroy() marks the link CLOSED under @l->lock
 * before it cancels @l->hs_work, so nothing re-arms it afterwards.
 *
 * Context: any (the CQ's completion handler, a process sending).
 */
void hixl_link_hs_progress(struct hixl_link *l)
{
	if (l->active)
		return;
	spin_lock(&l->lock);
	if (l->state == HIXL_LINK_CONNECTING && !l->accepting)
		mod_delayed_work(hixl_wq, &l->hs_work,
				 msecs_to_jiffies(READ_ONCE(hixl_handshake_ms)));
	spin_unlock(&l->lock);
}

/* The links' transfer queue (struct hixl_link_queue_ops), set at load by main.c. */
const struct hixl_link_queue_ops *hixl_xq_ops __read_mostly;

/**
 * hixl_link_free() - kref release of a link: free the struct
 * @ref: the link's @ref, now zero
 *
 * The link was torn down (hixl_link_destroy()) or never connected.
 */
static void hixl_link_free(struct kref *ref)
{
	struct hixl_link *l = container_of(ref, struct hixl_link, ref);

	hixl_local_link_free(l);
	hixl_xq_ops->free(l);
	if (l->parent)			/* a rail link's reference on its primary */
		hixl_link_put(l->parent);
	mutex_destroy(&l->cm_mutex);
	mutex_destroy(&l->qp_mutex);
	mutex_destroy(&l->msg.post_mutex);
	mutex_destroy(&l->rt.lock);
	mutex_destroy(&l->stage.reply_lock);
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

/* Take a link off the engine's list; false when someone else did. */
bool hixl_link_unlist(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;
	bool was = false;

	mutex_lock(&eng->links_lock);
	if (!list_empty(&l->node)) {
		list_del_init(&l->node);
		if (!l->rail)		/* rail links are not counted */
			eng->nr_links--;
		was = true;
	}
	mutex_unlock(&eng->links_lock);
	return was;
}

/* A queued release has ended or was cancelled: the engine may stop waiting. */
void hixl_release_done(struct hixl_engine *eng)
{
	if (atomic_dec_and_test(&eng->releases))
		wake_up_all(&eng->release_wq);
	hixl_engine_put(eng);	/* the struct outlives the wake_up_all() */
}

/*
 * A release runs on the engine's workqueue (it waits for the link's setup
 * work, which waits for the engine's lock) and is counted in the engine's
 * @releases, so that an engine being destroyed waits for the ones that
 * already took their link off its list, and for no other engine's
 * (hixl_engine_links_destroy()).  A link whose hixl_link_destroy() has
 * begun needs none: that is the release.
 */
void hixl_link_schedule_release(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng;

	kref_get(&eng->ref);
	atomic_inc(&eng->releases);
	kref_get(&l->ref);
	if (!hixl_link_queue(l, &l->release_work)) {
		hixl_link_put(l);
		hixl_release_done(eng);
	}
}

/* Cancel a queued release; the references it held go with it. */
void hixl_link_cancel_release(struct hixl_link *l)
{
	if (cancel_work_sync(&l->release_work)) {
		hixl_link_put(l);
		hixl_release_done(l->eng);
	}
}

/**
 * hixl_link_lookup() - the engine's link to a peer, without a reference
 * @eng:  the engine; its links_lock held (the link stays listed while it is)
 * @peer: the peer engine's name
 *
 * An engine may hold two links named @peer: one it connected and one the
 * peer connected to it, or a broken one beside a new one, after the peer
 * restarted and connected to us before we noticed (a silent peer's link
 * breaks only at its keep-alive).  A link that is not broken wins, so a
 * restarted peer's new link, and its new table, are used at once; the
 * broken one stays until a DISCONNECT or CONNECT replaces it (ours) or
 * its release (accepted).
 *
 * Return: the first link to @peer that is not broken, else the first
 * broken one, or NULL when there is none.
 */
struct hixl_link *hixl_link_lookup(struct hixl_engine *eng, const struct hixl_sockaddr *peer)
{
	struct hixl_link *l, *broken = NULL;

	lockdep_assert_held(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node) {
		bool named, ok;

		if (l->rail)		/* rail links are found through their primary */
			continue;
		spin_lock(&l->lock);
		named = l->named && hixl_sockaddr_equal(&l->peer, peer);
		ok = l->state < HIXL_LINK_ERROR;
		spin_unlock(&l->lock);
		if (named && ok)
			return l;
		if (named && !broken)
			broken = l;
	}
	return broken;
}

/* The engine's link to @peer with a reference, or NULL; links_lock held. */
static struct hixl_link *hixl_link_find(struct hixl_engine *eng, const struct hixl_sockaddr *peer)
{
	struct hixl_link *l = hixl_link_lookup(eng, peer);

	if (l)
		kref_get(&l->ref);
	return l;
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

