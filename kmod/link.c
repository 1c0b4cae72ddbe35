// SPDX-License-Identifier: GPL-2.0
/* link.c - a link's state, failure, references, release and lookup */
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
 * hixl_link_warn() - log what a link's peer did, rate-limited (rtrs_err_rl())
 * @l:   the link; the line starts with its engine and peer address
 * @fmt: printf format of the rest, ending in a newline
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
 * Return: true if family, address and port are equal.
 */
bool hixl_sockaddr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b)
{
	return a->family == b->family && a->port == b->port &&
	       !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/**
 * hixl_link_state() - a link's state and, when broken, why
 * @l:   the link
 * @err: out: the link's -errno when the state is ERROR or CLOSED
 * Return: the enum hixl_link_state.
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
 * @err: -errno the next caller gets
 *
 * For a peer that broke the protocol: unlisted and torn down from the
 * workqueue at once; while hixl_accept() runs, only marked broken.
 * Context: any that may queue work.
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
 * @l: the link; post_mutex held (hixl_link_destroy() frees the QP under it)
 * Return: true if its QP and buffers exist and it is not broken.
 */
bool hixl_link_usable(struct hixl_link *l)
{
	int err;

	lockdep_assert_held(&l->msg.post_mutex);
	return l->qp && l->msg.tx.buf && hixl_link_state(l, &err) < HIXL_LINK_ERROR;
}

/**
 * hixl_link_port_up() - is the port under a link's connection up?
 * @l: the link; its @cm_id stays while we read it
 *
 * The bound netdev is read first: the cached port state lags it.
 * Context: any.
 * Return: false if the netdev is down or the cached state is not ACTIVE.
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
	/* only a RoCE port follows its netdev */
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

/**
 * hixl_link_queue() - queue a link's work on the engine's workqueue
 * @l: the link
 * @w: the setup work, the peer's STAGE_REQ or the release
 * Context: any.
 * Return: true if @w was queued now; never once the link is CLOSED.
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
 * hixl_name_is_source() - is @name's address the one @l came from?
 * @l:    an accepted link
 * @name: a peer's claimed name, or its rail address
 * Return: true if the addresses are equal; ports are not compared
 * (docs/protocol.md, "The claimed name").
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

/**
 * hixl_link_hs_progress() - restart an accepted link's handshake deadline
 * @l: the link
 * Context: any.
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

/* Release @l on the engine's wq, counted in @releases for hixl_engine_links_destroy(). */
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
 * @eng:  the engine; its links_lock held
 * @peer: the peer engine's name
 * Return: the first link to @peer not broken, else the first broken one,
 * or NULL.
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
 * Context: process context, sleeps.
 * Return: the link, or NULL if there is none.
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
 * hixl_link_tryget() - hixl_link_get() without sleeping on links_lock
 * @eng:  the engine
 * @peer: the peer engine's name
 * Context: process context that must not sleep (IO_URING_F_NONBLOCK).
 * Return: the link with a reference; NULL if there is none;
 * ERR_PTR(-EAGAIN) if links_lock is held.
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

