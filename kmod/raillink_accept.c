// SPDX-License-Identifier: GPL-2.0
/* raillink_accept.c - the acceptor's side of rail links and the rail listeners */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/nsproxy.h>
#include <crypto/algapi.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "rail.h"
#include "link.h"
#include "cm.h"
#include "raillink.h"
#include "trace.h"

/**
 * hixl_raillink_attach() - pair an accepted rail link with its primary
 * @l:     the accepted rail link
 * @i:     the rail its HELLO names
 * @token: the token its HELLO names, HIXL_RAIL_TOKEN bytes
 * @name:  the engine name in its HELLO
 *
 * The connection must come from the peer's rail @i address; tokens are
 * compared in constant time; a rail link it replaces is aborted.
 * Context: the receive work; may sleep.
 * Return: 0; -EPROTO no such primary, wrong rail or source; -ECONNABORTED
 * the primary or @l is going.
 */
int hixl_raillink_attach(struct hixl_link *l, u32 i, const u8 *token,
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
		hixl_link_warn(l, "rail %u: no link of ours to that engine has its token: closing\n",
			       i);
		return -EPROTO;
	}
	spin_lock(&found->rails.lock);
	if (found->rails.dying) {
		ret = -ECONNABORTED;
	} else if (i >= found->rails.nr || !hixl_name_is_source(l, &found->rails.peer_rail[i])) {
		ret = -EPROTO;
	} else {
		/* hixl_link_destroy() marks CLOSED under this lock before unhooking */
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
	if (old)	/* a rail link it replaces: its peer has given it up */
		hixl_raillink_trace_down(old, found, -ECONNRESET);
	if (!ret)
		hixl_raillink_trace_up(l, found);
	if (old) {
		if (hixl_link_state(old, &err) < HIXL_LINK_CLOSED)
			hixl_link_abort(old, -ECONNRESET);
		hixl_link_put(old);
	}
	return ret;
}

/**
 * hixl_rail_of_device() - which of an engine's rails a device is
 * @eng: the engine, set up
 * @dev: the device a connection came in on
 * Context: RDMA CM's handler, rdma_sem held for reading.
 * Return: i for rail i's device; 0 for rail 0's or a foreign device.
 */
u32 hixl_rail_of_device(struct hixl_engine *eng, struct ib_device *dev)
{
	struct hixl_rdma *rd = eng->rdma;
	struct hixl_rail_dev d;
	u32 i, found = 0;

	lockdep_assert_held(&eng->rdma_sem);
	if (!rd || dev == rd->ibdev || !rd->nr_rails)
		return 0;
	for (i = 1; i <= rd->nr_rails && !found; i++)
		if (hixl_rail_dev(rd, i, &d) && d.ibdev == dev)
			found = i;
	return found;
}

/* Serialises a rail listener's removal by its device with the engine's close. */
static DEFINE_SPINLOCK(hixl_rail_listen_lock);

/**
 * hixl_rail_listen_one() - listen on one rail's address, unless already
 * @rd:  the engine's RDMA side, with a port
 * @i:   the rail
 * @net: SETUP's caller's network namespace
 * Context: process context, may sleep; takes hixl_rail_listen_lock.
 * Return: 0, or RDMA CM's -errno (-EADDRINUSE: the port is taken).
 */
int hixl_rail_listen_one(struct hixl_rdma *rd, u32 i, struct net *net)
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
		pr_warn_ratelimited("engine %llu: rail %u (%pISc): cannot listen on port %u: %d\n",
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
 * @rd:         the engine's RDMA side in SETUP, listening on its port
 * @listen_any: the engine's wildcard listener hears every rail already
 * Context: SETUP, the engine lock held.
 * Return: 0, or RDMA CM's -errno (all listeners destroyed).
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
 * Context: process context, may sleep.
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
 * hixl_rail_listener_event() - a non-connect event on an engine's listener
 * @rd: the engine's RDMA side
 * @id: the listener
 * @ev: the event; on DEVICE_REMOVAL a rail listener is forgotten
 * Return: 1 to have RDMA CM destroy @id, else 0.
 */
int hixl_rail_listener_event(struct hixl_rdma *rd, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	u64 eng_id = 0;
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
	/* once forgotten, the engine's close may free @rd */
	if (ret)
		eng_id = rd->eng->id;
	spin_unlock(&hixl_rail_listen_lock);
	if (ret)
		pr_warn("engine %llu: a rail's device was removed: its listener goes (back with the device, raillink.c's rail work)\n",
			eng_id);
	return ret;
}
