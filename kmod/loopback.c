// SPDX-License-Identifier: GPL-2.0
/* loopback.c - loopback engines (127.0.0.0/8, ::1): same-host copies only */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "msg.h"
#include "notify.h"
#include "loopback.h"
#include "proto.h"

#define HIXL_LOOP_RETRY_MS	50	/* CONNECT to a name nobody listens on yet: again */
#define HIXL_LOOP_PORT_LO	32768	/* SETUP's port 0 picks one in [LO, HI] */
#define HIXL_LOOP_PORT_HI	60999

/* protects hixl_loop_engines and each entry's loop_* fields */
static DEFINE_MUTEX(hixl_loop_lock);
static LIST_HEAD(hixl_loop_engines);
static u16 hixl_loop_next_port = HIXL_LOOP_PORT_LO;	/* under hixl_loop_lock */

/**
 * hixl_loop_route() - may an engine CONNECT to @dst at all?
 * @loop_engine: the engine is a loopback engine (reaches only loopback names)
 * @dst:         the CONNECT's target name
 * Return: 0, or -ENETUNREACH.
 */
int hixl_loop_route(bool loop_engine, const struct hixl_sockaddr *dst)
{
	return loop_engine == hixl_loop_addr(dst) ? 0 : -ENETUNREACH;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_loop_route);

/**
 * hixl_loop_engine() - was the engine set up on a loopback name?
 * @eng: the engine; its rdma_sem held
 * Return: true for a loopback engine.
 */
bool hixl_loop_engine(const struct hixl_engine *eng)
{
	return eng->rdma && eng->rdma->loopback;
}

/* hixl_loop_lock held */
static struct hixl_rdma *hixl_loop_find(const struct net *net, const struct hixl_sockaddr *name)
{
	struct hixl_rdma *rd;

	lockdep_assert_held(&hixl_loop_lock);
	list_for_each_entry(rd, &hixl_loop_engines, loop_node)
		if (net_eq(rd->loop_net, net) && hixl_sockaddr_equal(&rd->local, name))
			return rd;
	return NULL;
}

/* A free port on @name's address in @net, or 0; hixl_loop_lock held. */
static u16 hixl_loop_pick_port(const struct net *net, const struct hixl_sockaddr *name)
{
	struct hixl_sockaddr try = *name;
	u32 n;

	for (n = 0; n <= HIXL_LOOP_PORT_HI - HIXL_LOOP_PORT_LO; n++) {
		try.port = hixl_loop_next_port;
		hixl_loop_next_port = hixl_loop_next_port == HIXL_LOOP_PORT_HI ?
				      HIXL_LOOP_PORT_LO : hixl_loop_next_port + 1;
		if (!hixl_loop_find(net, &try))
			return try.port;
	}
	return 0;
}

/**
 * hixl_loop_setup() - HIXL_IOC_SETUP on a loopback name
 * @eng: the engine, the caller its owner
 * @a:   the request, validated; out: local.port (picked if 0), no device
 * Context: process context; takes @eng->lock, then hixl_loop_lock.
 * Return: 0, or -errno as docs/abi.md lists for loopback engines.
 */
int hixl_loop_setup(struct hixl_engine *eng, struct hixl_setup *a)
{
	struct net *net = current->nsproxy->net_ns;
	struct hixl_rdma *rd;
	int ret;

	if (a->transport == HIXL_TRANSPORT_RDMA) {
		pr_info_ratelimited("engine %llu: SETUP on a loopback name with transport RDMA: a loopback engine has no RDMA device\n",
				    eng->id);
		return -ENODEV;
	}
	/* as cma_get_port() */
	if (a->local.port && a->local.port < PROT_SOCK && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->cm_kind = HIXL_CM_ENGINE;
	rd->eng = eng;
	rd->local = a->local;
	rd->transport = HIXL_TRANSPORT_LOCAL;
	rd->loopback = true;
	rd->loop_listen = a->local.port || (a->flags & HIXL_SETUP_LISTEN_ANY);
	ret = hixl_auth_setup(&rd->auth, a);
	if (ret) {
		kfree(rd);
		return ret;
	}

	hixl_engine_lock(eng);
	if (eng->rdma) {
		ret = -EALREADY;
		goto err;
	}
	mutex_lock(&hixl_loop_lock);
	if (!rd->local.port)
		rd->local.port = hixl_loop_pick_port(net, &rd->local);
	if (!rd->local.port || hixl_loop_find(net, &rd->local)) {
		mutex_unlock(&hixl_loop_lock);
		ret = -EADDRINUSE;
		goto err;
	}
	rd->loop_net = get_net(net);
	list_add_tail(&rd->loop_node, &hixl_loop_engines);
	rd->loop_listed = true;
	mutex_unlock(&hixl_loop_lock);

	atomic_set(&eng->pool_free, 0);		/* no staging without a device */
	WRITE_ONCE(eng->rdma_gone, false);
	smp_store_release(&eng->rdma, rd);	/* eng->ibdev stays NULL */
	a->local.port = rd->local.port;
	memset(a->device, 0, sizeof(a->device));
	a->page_size_cap = 0;
	a->max_mr_pages = 0;
	mutex_unlock(&eng->lock);
	return 0;

err:
	mutex_unlock(&eng->lock);
	hixl_auth_free(&rd->auth);
	kfree(rd);
	return ret;
}

/**
 * hixl_loop_stop() - a loopback engine closes: no CONNECT finds it any more
 * @eng: the engine, being destroyed
 * Context: process context; takes hixl_loop_lock.  Idempotent.
 */
void hixl_loop_stop(struct hixl_engine *eng)
{
	struct hixl_rdma *rd = eng->rdma;

	if (!rd || !rd->loopback)
		return;
	mutex_lock(&hixl_loop_lock);
	if (rd->loop_listed) {
		list_del_init(&rd->loop_node);
		rd->loop_listed = false;
		put_net(rd->loop_net);
		rd->loop_net = NULL;
	}
	mutex_unlock(&hixl_loop_lock);
}

/*
 * Same secret, or both none?  Both keys sign one random nonce and the MACs
 * are compared in constant time.  Return: 0 same; -EACCES; crypto -errno.
 */
static int hixl_loop_same_secret(const struct hixl_auth *x, const struct hixl_auth *y)
{
	u8 nonce[HIXL_AUTH_NONCE], mx[32], my[32];
	int ret;

	if (!x->tfm != !y->tfm)
		return -EACCES;
	if (!x->tfm)
		return 0;
	if (WARN_ON_ONCE(crypto_shash_digestsize(x->tfm) != sizeof(mx) ||
			 crypto_shash_digestsize(y->tfm) != sizeof(my)))
		return -EINVAL;
	get_random_bytes(nonce, sizeof(nonce));
	ret = crypto_shash_tfm_digest(x->tfm, nonce, sizeof(nonce), mx);
	if (!ret)
		ret = crypto_shash_tfm_digest(y->tfm, nonce, sizeof(nonce), my);
	if (!ret && crypto_memneq(mx, my, sizeof(mx)))
		ret = -EACCES;
	memzero_explicit(mx, sizeof(mx));
	memzero_explicit(my, sizeof(my));
	return ret;
}

/**
 * hixl_loop_pair() - pair two new links of loopback engines
 * @a: the active link
 * @p: the target engine's new link to @a's engine
 * Context: any; takes hixl_local_lock.
 * Return: 0; -ECONNRESET a link torn down or paired, or an engine closes.
 */
int hixl_loop_pair(struct hixl_link *a, struct hixl_link *p)
{
	unsigned long flags;
	int ret = -ECONNRESET;

	spin_lock_irqsave(&hixl_local_lock, flags);
	if (!a->loc.paired && !a->loc.broken && !p->loc.paired && !p->loc.broken &&
	    !READ_ONCE(a->eng->local_dead) && !READ_ONCE(p->eng->local_dead)) {
		a->loc.partner = p;
		p->loc.partner = a;
		kref_get(&p->eng->ref);
		a->loc.peer_eng = p->eng;
		kref_get(&a->eng->ref);
		p->loc.peer_eng = a->eng;
		a->loc.paired = true;
		p->loc.paired = true;
		a->loc.loop = true;
		p->loc.loop = true;
		ret = 0;
	}
	spin_unlock_irqrestore(&hixl_local_lock, flags);
	return ret;
}

/**
 * hixl_loop_partner_get() - a loopback link's partner, with a reference
 * @l: the link
 * Return: the partner, or NULL.
 */
struct hixl_link *hixl_loop_partner_get(struct hixl_link *l)
{
	struct hixl_link *p = NULL;
	unsigned long flags;

	spin_lock_irqsave(&hixl_local_lock, flags);
	if (l->loc.loop && l->loc.partner && kref_get_unless_zero(&l->loc.partner->ref))
		p = l->loc.partner;
	spin_unlock_irqrestore(&hixl_local_lock, flags);
	return p;
}

/* CONNECTING to READY; false if it broke meanwhile. */
static bool hixl_loop_ready(struct hixl_link *l)
{
	bool ok;

	spin_lock(&l->lock);
	ok = l->state == HIXL_LINK_CONNECTING;
	if (ok) {
		l->state = HIXL_LINK_READY;
		l->ever_ready = true;
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	return ok;
}

/* One attempt of hixl_loop_join(); -ECONNREFUSED: nobody listens yet, retry. */
static int hixl_loop_try(struct hixl_link *l)
{
	struct hixl_engine *eng = l->eng, *t;
	struct hixl_rdma *me = eng->rdma, *rd;
	struct sockaddr_storage src;
	struct hixl_link *p;
	int ret;

	ret = hixl_sockaddr_to_kernel(&me->local, &src);
	if (ret)
		return ret;
	mutex_lock(&hixl_loop_lock);
	rd = hixl_loop_find(me->loop_net, &l->peer);
	if (!rd || !rd->loop_listen || READ_ONCE(rd->eng->local_dead)) {
		ret = -ECONNREFUSED;
		goto unlock;
	}
	t = rd->eng;		/* listed: its rdma and struct stay while we hold the lock */
	if (!hixl_auth_allowed(&rd->auth, (struct sockaddr *)&src)) {
		atomic64_inc(&t->st_refused);
		ret = -EACCES;
		goto unlock;
	}
	ret = hixl_loop_same_secret(&me->auth, &rd->auth);
	if (ret) {
		atomic64_inc(&t->st_auth_failed);
		goto unlock;
	}
	p = hixl_link_alloc(t, false);
	if (!p) {
		ret = -ENOMEM;
		goto unlock;
	}
	p->peer = me->local;
	p->named = true;
	p->raddr = src;
	mutex_lock(&t->links_lock);
	if (t->nr_links >= READ_ONCE(hixl_max_links)) {
		ret = -ECONNREFUSED;
	} else {
		list_add_tail(&p->node, &t->links);	/* the list's reference */
		t->nr_links++;
	}
	mutex_unlock(&t->links_lock);
	if (ret) {
		hixl_link_put(p);
		goto unlock;
	}
	ret = hixl_loop_pair(l, p);	/* fails if either end was torn down meanwhile */
	if (!ret && !hixl_loop_ready(p))
		ret = -ECONNRESET;
	if (!ret && !hixl_loop_ready(l))
		ret = -ECONNRESET;
	if (ret)
		hixl_link_abort(p, -ECONNRESET);	/* released like a peer that left */
	else
		hixl_link_count(p, HIXL_CTR_ACCEPTS, 1);
unlock:
	mutex_unlock(&hixl_loop_lock);
	return ret;
}

/**
 * hixl_loop_join() - CONNECT's handshake between two loopback engines
 * @l:        the active link, listed
 * @deadline: CONNECT's timeout, jiffies; until then nobody listening is retried
 * Context: process context, sleeps; takes hixl_loop_lock.
 * Return: 0; -ETIMEDOUT; -EACCES refused; -ECONNRESET torn down;
 * -ERESTARTSYS; -ENOMEM.
 */
int hixl_loop_join(struct hixl_link *l, unsigned long deadline)
{
	int ret;

	for (;;) {
		ret = hixl_loop_try(l);
		if (ret != -ECONNREFUSED)
			return ret;
		if (hixl_jiffies_left(deadline) <= msecs_to_jiffies(HIXL_LOOP_RETRY_MS))
			return -ETIMEDOUT;
		if (wait_event_interruptible_timeout(l->wq, READ_ONCE(l->state) >= HIXL_LINK_ERROR,
						     msecs_to_jiffies(HIXL_LOOP_RETRY_MS)) < 0)
			return -ERESTARTSYS;
		if (READ_ONCE(l->state) >= HIXL_LINK_ERROR)
			return -ECONNRESET;
	}
}

/**
 * hixl_loop_link_gone() - a loopback link is torn down: break its partner
 * @l: the link, CLOSED
 * Context: process context.
 */
void hixl_loop_link_gone(struct hixl_link *l)
{
	struct hixl_link *p = hixl_loop_partner_get(l);

	if (!p)
		return;
	if (p->active)
		hixl_link_fail(p, -ECONNRESET);
	else
		hixl_link_abort(p, -ECONNRESET);
	hixl_link_put(p);
}

/**
 * hixl_loop_notify() - SEND_NOTIFY on a loopback link
 * @l:        the link, READY; no lock held
 * @data:     the name, then the message
 * @name_len: bytes of the name (checked)
 * @msg_len:  bytes of the message (checked)
 * Context: process context.
 * Return: 0; -ECONNRESET if the peer went; -ENOMEM.
 */
int hixl_loop_notify(struct hixl_link *l, const u8 *data, u32 name_len, u32 msg_len)
{
	struct hixl_link *p = hixl_loop_partner_get(l);
	struct hixl_wire_notify *m;
	struct hixl_engine *peer;
	u32 len = sizeof(*m) + name_len + msg_len;
	int ret = -ECONNRESET;

	if (!p)
		return ret;
	peer = p->eng;		/* held by l->loc.peer_eng */
	m = kmalloc(len, GFP_KERNEL);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	hixl_wire_hdr_fill(&m->hdr, HIXL_MSG_NOTIFY, len);
	m->name_len = cpu_to_le32(name_len);
	m->msg_len = cpu_to_le32(msg_len);
	memcpy(m->data, data, name_len + msg_len);
	hixl_engine_lock(peer);
	if (!READ_ONCE(peer->local_dead)) {
		atomic_inc(&peer->local_users);
		ret = 0;
	}
	mutex_unlock(&peer->lock);
	if (!ret) {
		ret = hixl_rx_notify(p, m, len);
		if (atomic_dec_and_test(&peer->local_users))
			wake_up_all(&peer->local_wq);
	}
	kfree(m);
out:
	hixl_link_put(p);
	return ret;
}
