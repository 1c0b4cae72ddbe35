// SPDX-License-Identifier: GPL-2.0
/* cm.c - RDMA CM for links: event handler, accepting, connecting; as nvme-rdma, rtrs */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "rail.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "cm.h"
#include "rtable.h"
#include "raillink.h"
#include "testhook.h"
#include "proto.h"

/* RC timeouts: 4.096 us * 2^17 (537 ms), 6 retries: a silent peer fails in ~3.8 s */
#define HIXL_ACK_TIMEOUT	17
#define HIXL_RETRY_COUNT	6

static void hixl_conn_param(struct ib_device *dev, struct rdma_conn_param *p)
{
	struct ib_device_attr *attrs = &dev->attrs;

	memset(p, 0, sizeof(*p));
	p->responder_resources = min_t(u32, attrs->max_qp_rd_atom, 16);
	p->initiator_depth = min_t(u32, attrs->max_qp_init_rd_atom, 16);
	p->retry_count = HIXL_RETRY_COUNT;
	p->rnr_retry_count = 7;		/* a full receive queue waits, never fails */
}

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

static int hixl_accept_list(struct hixl_engine *eng, struct hixl_link *l)
{
	const struct hixl_rdma *rd = eng->rdma;
	int ret = 0;

	mutex_lock(&eng->links_lock);
	if (!l->rail && eng->nr_links >= READ_ONCE(hixl_max_links)) {
		ret = -ENOSPC;
	} else if (hixl_links_in_setup(eng) >= READ_ONCE(hixl_max_setup_links)) {
		ret = -EBUSY;
	} else if (eng->rdma_gone ||
		   (l->rail && READ_ONCE(rd->rails[l->rail - 1].removing))) {
		ret = -ENODEV;
	} else {
		list_add_tail(&l->node, &eng->links);
		if (!l->rail)	/* rail links are not counted in max_links */
			eng->nr_links++;
	}
	mutex_unlock(&eng->links_lock);
	return ret;
}

static int hixl_accept(struct hixl_engine *eng, struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct hixl_rdma *rd = eng->rdma;
	struct rdma_conn_param param;
	struct hixl_link *l;
	bool broken, on_rail;
	int ret;

	ret = hixl_auth_admit(eng, id, ev);	/* a refused peer costs no link, no QP */
	if (ret)
		return ret;
	l = hixl_link_alloc(eng, false);
	if (!l)
		return -ENOMEM;
	l->accepting = true;
	l->raddr = id->route.addr.dst_addr;
	l->cm_id = id;
	id->context = l;
	/*
	 * rdma_sem from the rail's lookup until listed or refused, so a rail
	 * removal sees it listed; trylock: a removal waits for CM handlers.
	 */
	on_rail = id->device != rd->ibdev;
	if (on_rail && !down_read_trylock(&eng->rdma_sem)) {
		ret = -ENODEV;
		goto err;
	}
	if (on_rail)
		l->rail = hixl_rail_of_device(eng, id->device);
	ret = hixl_link_create_qp(l);
	if (!ret) {
		hixl_test_delay(HIXL_TEST_ACCEPT_QP);
		ret = hixl_accept_list(eng, l);
	}
	if (ret) {
		if (on_rail) {		/* the QP goes while the rail cannot */
			hixl_link_destroy_qp(l);
			up_read(&eng->rdma_sem);
		}
		goto err;
	}
	if (on_rail)
		up_read(&eng->rdma_sem);
	hixl_conn_param(id->device, &param);
	ret = rdma_set_ack_timeout(id, HIXL_ACK_TIMEOUT);
	if (!ret)
		ret = rdma_accept(id, &param);	/* on failure RDMA CM moves our QP to error */
	if (ret) {
		/* unlist first: the flushed receives must not abort it too */
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
	/* a non-zero return makes RDMA CM destroy (and reject) the id */
	hixl_link_warn(l, "refusing the connection: %d\n", ret);
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
			hixl_link_queue(l, &l->setup_work);
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
		/* QP to error now; qp_mutex keeps this off hixl_link_destroy_qp()'s drain */
		mutex_lock(&l->qp_mutex);
		rdma_disconnect(l->cm_id);
		mutex_unlock(&l->qp_mutex);
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
 * @id: the id; context a struct hixl_rdma or struct hixl_link
 * @ev: the event
 * Context: RDMA CM handler (may sleep); serialised per id.
 * Return: 0, or non-zero to make RDMA CM destroy the id.
 */
int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (*(int *)id->context == HIXL_CM_LINK)
		return hixl_link_cm_event(id->context, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct hixl_rdma *rd = id->context;

		/* pairs with SETUP's smp_store_release() of eng->rdma */
		if (smp_load_acquire(&rd->eng->rdma) != rd)
			return -EAGAIN;
		return hixl_accept(rd->eng, id, ev);
	}
	if (hixl_rail_listener_event(id->context, id, ev))
		return 1;	/* a rail listener whose device went: RDMA CM destroys it */
	pr_info_ratelimited("engine: RDMA CM %s (status %d)\n", rdma_event_msg(ev->event),
			    ev->status);
	return 0;
}

static int hixl_ms_left(unsigned long deadline)
{
	return max_t(long, jiffies_to_msecs(hixl_jiffies_left(deadline)), 1);
}

static int hixl_link_wait_cm(struct hixl_link *l, int want, unsigned long deadline)
{
	long ret;
	int ev, status, st, err;

	ret = wait_event_interruptible_timeout(l->wq,
					       READ_ONCE(l->cm_pending) ||
					       READ_ONCE(l->state) >= HIXL_LINK_ERROR,
					       hixl_jiffies_left(deadline));
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
 * @l:        the link; cm_mutex held, no cm_id
 * @src:      our address, port 0
 * @dst:      the peer's address
 * @deadline: jiffies
 *
 * What it made stays for hixl_link_reset_attempt() or hixl_link_destroy().
 * Context: process context, sleeps until @deadline at most.
 * Return: 0 ESTABLISHED; -ECONNABORTED CLOSED; -ECONNREFUSED rejected;
 * -ENETDOWN rail port down; the link's, RDMA CM's or QP creation's error.
 */
int hixl_link_try_connect(struct hixl_link *l, struct sockaddr *src,
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
	/* a rail link runs in a kworker: use the rails' namespace */
	l->cm_id = rdma_create_id(l->rail ? eng->rdma->rails_net : current->nsproxy->net_ns,
				  hixl_cm_handler, l, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(l->cm_id)) {
		ret = PTR_ERR(l->cm_id);
		l->cm_id = NULL;
		return ret;
	}
	rdma_set_service_type(l->cm_id, eng->rdma->traffic_class);
	ret = rdma_set_ack_timeout(l->cm_id, HIXL_ACK_TIMEOUT);	/* before the route */
	if (!ret)
		ret = rdma_resolve_addr(l->cm_id, src, dst, hixl_ms_left(deadline));
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
	if (!ret)
		ret = rdma_resolve_route(l->cm_id, hixl_ms_left(deadline));
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
	/* no REQ while the rail's port is down (it would break the GSI QP) */
	if (!ret && l->rail && !hixl_link_port_up(l))
		ret = -ENETDOWN;
	if (!ret)
		ret = hixl_link_create_qp(l);
	if (!ret) {
		hixl_conn_param(l->cm_id->device, &param);
		hixl_auth_conn_param(eng, &param, &req);
		ret = rdma_connect(l->cm_id, &param);
	}
	if (!ret)
		ret = hixl_link_wait_cm(l, RDMA_CM_EVENT_ESTABLISHED, deadline);
	return ret;
}

/**
 * hixl_link_reset_attempt() - undo a refused attempt so the link can retry
 * @l: the link; cm_mutex held
 * Context: process context, may sleep.
 */
void hixl_link_reset_attempt(struct hixl_link *l)
{
	lockdep_assert_held(&l->cm_mutex);
	/* a late REP may be moving the QP: rdma_disconnect() errs it under CM's qp_mutex */
	if (l->cm_id && l->qp)
		rdma_disconnect(l->cm_id);
	cancel_work_sync(&l->stage.work);
	mutex_lock(&l->msg.post_mutex);
	hixl_link_destroy_qp(l);
	mutex_unlock(&l->msg.post_mutex);
	if (l->cm_id) {
		rdma_destroy_id(l->cm_id);
		l->cm_id = NULL;
	}
	spin_lock(&l->lock);
	l->cm_pending = false;
	l->hello_seen = false;		/* the next connection's peer says HELLO anew */
	l->stage.busy = false;
	spin_unlock(&l->lock);
	spin_lock(&l->xq.lock);
	l->ack_busy = false;
	l->ack_next = 0;
	l->ack_sent = 0;
	spin_unlock(&l->xq.lock);
}

/**
 * hixl_connect_once() - one connection attempt, refusals not retried
 * @l:        the link, listed, no cm_id
 * @src:      our address, port 0
 * @dst:      the peer's address
 * @deadline: jiffies
 * Context: process context, sleeps until @deadline at most.
 * Return: as hixl_link_try_connect().
 */
int hixl_connect_once(struct hixl_link *l, struct sockaddr *src, struct sockaddr *dst,
		      unsigned long deadline)
{
	int ret;

	mutex_lock(&l->cm_mutex);
	ret = hixl_link_try_connect(l, src, dst, deadline);
	if (ret == -ECONNREFUSED)
		hixl_link_reset_attempt(l);
	mutex_unlock(&l->cm_mutex);
	return ret;
}

/**
 * hixl_connect_wait_ready() - wait for the peer's table to make a link READY
 * @l:        an active link whose table went out
 * @deadline: jiffies
 * Return: 0 READY; -ETIMEDOUT; -ERESTARTSYS; the link's error.
 */
int hixl_connect_wait_ready(struct hixl_link *l, unsigned long deadline)
{
	long w = wait_event_interruptible_timeout(l->wq,
			READ_ONCE(l->state) != HIXL_LINK_CONNECTING,
			hixl_jiffies_left(deadline));
	int err;

	if (w == 0)
		return -ETIMEDOUT;
	if (w < 0)
		return -ERESTARTSYS;
	if (hixl_link_state(l, &err) != HIXL_LINK_READY)
		return err ? err : -ECONNRESET;
	return 0;
}

