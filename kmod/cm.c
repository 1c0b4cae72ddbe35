// SPDX-License-Identifier: GPL-2.0
/*
 * cm.c - RDMA CM for links: the CM event handler of engine and link ids,
 * accepting a connection on an engine's listener, one connection attempt
 * of an active link and the wait for it to be READY (the CONNECT and
 * DISCONNECT commands around them are connect.c's).
 *
 * Model: drivers/nvme/host/rdma.c and drivers/nvme/target/rdma.c (the
 * active side drives address/route resolution and connect from the calling
 * thread and waits for each CM event; the passive side creates the QP and
 * accepts inside the CONNECT_REQUEST handler), drivers/infiniband/ulp/rtrs
 * (one handler for listener and connection ids).

 */
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

/*
 * The RC transport's limits, the same on both sides of a link, which bound
 * how long a silent peer goes unnoticed (keepalive.c, docs/protocol.md
 * "Keep-alive"): a request unanswered for HIXL_ACK_TIMEOUT (4.096 us *
 * 2^17 = 537 ms, what RDMA CM gives RoCE by default, set explicitly so
 * that an InfiniBand path record's packet lifetime does not change it) is
 * resent HIXL_RETRY_COUNT times, then the QP fails (IB_WC_RETRY_EXC_ERR):
 * 7 * 537 ms = 3.8 s.  Not 7: rxe takes a retry count of 7 as "retry
 * forever" (rxe_comp.c, as IBTA does only for the RNR retry count), which
 * left a link to a silent peer hanging.
 */
#define HIXL_ACK_TIMEOUT	17
#define HIXL_RETRY_COUNT	6

/* ---- RDMA CM events -------------------------------------------------------------------- */

/* @dev: the device of the connection (rail 0's or a rail's) */
static void hixl_conn_param(struct ib_device *dev, struct rdma_conn_param *p)
{
	struct ib_device_attr *attrs = &dev->attrs;

	memset(p, 0, sizeof(*p));
	p->responder_resources = min_t(u32, attrs->max_qp_rd_atom, 16);
	p->initiator_depth = min_t(u32, attrs->max_qp_init_rd_atom, 16);
	p->retry_count = HIXL_RETRY_COUNT;
	p->rnr_retry_count = 7;		/* a full receive queue waits, never fails */
}

/* Accepted links of @eng still in their handshake; links_lock held. */
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

/*
 * List an accepted link whose QP exists, unless the engine is full (-ENOSPC
 * at max_links, -EBUSY with max_setup_links links in their handshake) or
 * its device, or the link's rail's, is going (-ENODEV: set under
 * links_lock by the removal, which then destroys the links listed).
 */
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

/*
 * CONNECT_REQUEST on our listener: make the link and accept, in the
 * handler.  Refused (the peer sees a reject): -EACCES by the engine's
 * allowed peers or secret policy, before anything is allocated
 * (hixl_auth_admit()); -ENOSPC at max_links,
 * -EBUSY with max_setup_links accepted links still in their handshake,
 * -ENODEV once the device is going.  An accepted link whose handshake
 * makes no progress for hixl_handshake_ms is closed (hs_work,
 * hixl_link_hs_progress()).
 */
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
	 * On a rail's device: a rail link, whose HELLO must pair it
	 * (raillink_accept.c).  The engine's rdma_sem (read) is held from the
	 * rail's lookup until the link is listed or refused: a rail's removal
	 * (hixl_engine_rail_detach()) marks the rail removing under links_lock,
	 * destroys the links listed then, and frees the rail's PD only once it
	 * holds rdma_sem for writing.  So a QP made on the rail is either
	 * listed before that walk or refused below, never left on a freed PD.
	 * A trylock: RDMA CM's handler must not wait for a removal, which
	 * destroys cm_ids and so waits for their handlers; a removal under way
	 * refuses the connection.
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
		/*
		 * Still accepting: the receives that error flushes make
		 * hixl_rx_done() abort the link, which must leave it to us.
		 * (Cleared first, a release work queued by that abort
		 * unlisted and tore the link down while this path did too:
		 * a WARNING in ib_drain_rq() and a NULL cm_id in
		 * rdma_destroy_qp() on 6.1.)
		 */
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
	/* a non-zero return makes RDMA CM destroy (and reject) the id itself */
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
		/*
		 * Our QP to the error state now (rdma_disconnect() takes the
		 * id's qp_mutex, so it is safe against rdma_destroy_qp(), and
		 * we take the link's, so it is not beside the drain and RESET
		 * of hixl_link_destroy_qp()): whatever a transfer has
		 * outstanding flushes at once instead of waiting for the
		 * transport's retries to run out.
		 */
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
 * @id: the id; its context is a struct hixl_rdma (engine) or hixl_link
 * @ev: the event
 *
 * Context: RDMA CM's handler context (may sleep); serialised per id.
 * Return: 0, or -errno to make RDMA CM destroy a refused new connection:
 * -EAGAIN for a request to an engine whose SETUP listens but has not
 * published its device side yet (setup.c; the peer's CONNECT retries),
 * or hixl_accept()'s error.
 */
int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (*(int *)id->context == HIXL_CM_LINK)
		return hixl_link_cm_event(id->context, ev);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		struct hixl_rdma *rd = id->context;

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

/* ---- CONNECT / DISCONNECT ------------------------------------------------------------------- */

/* Milliseconds left until @deadline, at least 1: RDMA CM's timeout argument. */
static int hixl_ms_left(unsigned long deadline)
{
	return max_t(long, jiffies_to_msecs(hixl_jiffies_left(deadline)), 1);
}

/* Wait for the next CM event of an active link and check it is @want. */
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
 * @l:        the link; its cm_mutex held, no cm_id (a new link, or one
 *            undone by hixl_link_reset_attempt())
 * @src:      our address, port 0
 * @dst:      the peer's address
 * @deadline: jiffies by which the attempt must be ESTABLISHED
 *
 * Creates the cm_id, resolves the address and the route, creates the QP and
 * connects, waiting for each CM event.  Whatever it made stays on the link
 * for hixl_link_reset_attempt() or hixl_link_destroy() to free.
 *
 * Context: process context, sleeps until @deadline at most.
 * Return: 0 once ESTABLISHED; -ECONNABORTED when the link was torn down
 * (CLOSED) before the attempt began; the link's error when it broke;
 * -ECONNREFUSED when the peer rejected us (nobody listens); -ENETDOWN
 * for a rail link whose port is down; else as
 * hixl_link_wait_cm(), rdma_create_id(), rdma_resolve_addr(),
 * rdma_resolve_route(), hixl_link_create_qp() or rdma_connect().
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
	/*
	 * A rail link connects in the network namespace the engine's rails
	 * were set up in: its rail work runs in a kworker, whose namespace is
	 * the initial one.  A primary link connects from CONNECT, in its
	 * caller's.
	 */
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
	/*
	 * A rail link is made again by the rail work, unattended: not while
	 * its port is down, where rxe would send the REQ into the void and
	 * move the device's GSI QP to the error state (hixl_link_port_up()).
	 */
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
 * hixl_link_reset_attempt() - undo a refused attempt so the link can try again
 * @l: the link; its cm_mutex held
 *
 * Frees the QP side and the cm_id hixl_link_try_connect() made.
 *
 * Context: process context, may sleep (waits for a running CM handler).
 */
void hixl_link_reset_attempt(struct hixl_link *l)
{
	lockdep_assert_held(&l->cm_mutex);
	/*
	 * The attempt may have ended (deadline, signal) while RDMA CM takes
	 * the peer's REP on its own thread and moves our QP to RTR and RTS.
	 * rdma_disconnect() moves the QP to ERR under the CM's qp_mutex: it
	 * waits out a transition in progress, and the CM's later ones fail
	 * (ERR to RTR is no transition).  Without it, our drain and RESET
	 * in hixl_link_destroy_qp() could run beside the CM's RTR, two
	 * ib_modify_qp() at once on one QP, which rxe does not serialize:
	 * both disable and re-enable the responder task (WARNING in rxe's
	 * do_task(), make fuzz).  Before rdma_connect() it does nothing.
	 */
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
 * hixl_connect_once() - one connection attempt of an active link
 * @l:        the link, listed, no cm_id
 * @src:      our address (a rail's, for a rail link), port 0
 * @dst:      the peer's address
 * @deadline: jiffies
 *
 * As hixl_connect_retry() without the retries: a refusal (nobody listens)
 * is undone and returned (raillink.c: a rail link is tried again by the
 * rail work a second later, and CONNECT does not wait for it).
 *
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
 *
 * Return: 0 READY; -ETIMEDOUT; -ERESTARTSYS (a signal); the link's error
 * when it broke (-ECONNRESET when it has none).
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

