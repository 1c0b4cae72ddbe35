// SPDX-License-Identifier: GPL-2.0
/* link_life.c - a link's allocation, QP, teardown and handshake; as nvme-rdma, rtrs */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "rail.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "scq.h"
#include "keepalive.h"
#include "msg.h"
#include "msg_rx.h"
#include "table.h"
#include "rtable.h"
#include "stage.h"
#include "raillink.h"
#include "local.h"
#include "loopback.h"
#include "proto.h"

static void hixl_link_release_work(struct work_struct *w);

static void hixl_link_setup_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, setup_work);
	int ret = hixl_auth_accept_step(l);	/* the secret exchange first */

	if (ret > 0)
		return;		/* the peer's next message queues us again */
	if (!ret)
		ret = hixl_link_publish(l);
	if (ret)
		hixl_link_fail(l, ret);
}

/*
 * The peer's HELLO: its name (accepted links) and landing buffer, once.
 * An accepted peer's name must be the address it connected from, else
 * -EPROTO: a peer must not receive WRITEs meant for another engine.
 */
int hixl_rx_hello(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_hello *hm = buf;
	struct hixl_sockaddr name;
	u64 size;

	int ret;

	hixl_name_from_wire(&hm->engine, &name);
	/* a rail link's source address: raillink_accept.c */
	if (!l->active && !l->rail && !hixl_name_is_source(l, &name))
		return -EPROTO;
	size = le64_to_cpu(hm->stage_size);
	if (size <= HIXL_STAGE_LIST)
		size = 0;		/* no room for data: the peer does not stage */
	spin_lock(&l->lock);
	if (l->hello_seen) {
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	l->hello_seen = true;
	if (!l->active) {
		l->peer = name;
		l->named = true;
	}
	if (!l->rail) {		/* rail links do not stage */
		l->stage.peer_iova = le64_to_cpu(hm->stage_iova);
		l->stage.peer_size = size;
		l->stage.peer_rkey = le32_to_cpu(hm->stage_rkey);
	}
	spin_unlock(&l->lock);
	ret = hixl_rails_hello_rx(l, hm, len, &name);	/* raillink_hello.c */
	if (ret)
		return ret;
	if (!l->active && !l->rail && len >= sizeof(*hm) + sizeof(struct hixl_wire_hello_local))
		hixl_local_accept(l, (const struct hixl_wire_hello_local *)(hm + 1), &name);
	return 0;
}

/* The peer's TABLE_END: its whole table is here. */
int hixl_rx_table_end(struct hixl_link *l, const void *buf, u32 len)
{
	spin_lock(&l->lock);
	l->peer_done = true;
	spin_unlock(&l->lock);
	hixl_link_check_ready(l);
	return 0;
}

/* Handshake deadline: release a link still connecting or broken before READY. */
static void hixl_link_hs_expire(struct work_struct *w)
{
	struct hixl_link *l = container_of(to_delayed_work(w), struct hixl_link, hs_work);
	int st, err;

	st = hixl_link_state(l, &err);
	if (st == HIXL_LINK_ERROR && !READ_ONCE(l->ever_ready)) {
		hixl_link_warn(l, "closing the link: it broke in its handshake (%d)\n", err);
		hixl_link_abort(l, err ? err : -ECONNRESET);
		return;
	}
	if (st != HIXL_LINK_CONNECTING)
		return;
	hixl_link_warn(l, "closing the link: its handshake made no progress for %u ms\n",
		       READ_ONCE(hixl_handshake_ms));
	hixl_auth_expired(l);
	hixl_link_abort(l, -ETIMEDOUT);
}

/**
 * hixl_link_alloc() - a new CONNECTING link of @eng, with one reference
 * @eng:    the engine
 * @active: we connect; else the peer connected to our listener
 * Context: process context.
 * Return: the link, or NULL if out of memory.
 */
struct hixl_link *hixl_link_alloc(struct hixl_engine *eng, bool active)
{
	struct hixl_link *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return NULL;
	if (hixl_xq_ops->init(l)) {
		kfree(l);
		return NULL;
	}
	l->cm_kind = HIXL_CM_LINK;
	l->eng = eng;
	l->active = active;
	INIT_LIST_HEAD(&l->node);
	kref_init(&l->ref);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	INIT_WORK(&l->setup_work, hixl_link_setup_work);
	INIT_WORK(&l->release_work, hixl_link_release_work);
	INIT_DELAYED_WORK(&l->hs_work, hixl_link_hs_expire);
	hixl_link_ka_init(l);
	mutex_init(&l->cm_mutex);
	mutex_init(&l->qp_mutex);
	hixl_scq_init(l);
	mutex_init(&l->msg.post_mutex);
	mutex_init(&l->rt.lock);
	mutex_init(&l->stage.reply_lock);
	init_completion(&l->stage.reply_done);
	INIT_WORK(&l->stage.work, hixl_stage_work);
	mt_init(&l->rt.tree);
	init_completion(&l->msg.tx_done);
	l->state = HIXL_LINK_CONNECTING;
	hixl_auth_link_init(l);
	hixl_link_rails_init(l);	/* raillink.c */
	return l;
}

static void hixl_qp_event(struct ib_event *ev, void *ctx)
{
	struct hixl_link *l = ctx;

	hixl_link_warn(l, "QP event %s: closing the link\n", ib_event_msg(ev->event));
	hixl_link_fail(l, -ECONNRESET);
}

/**
 * hixl_link_create_qp() - make a link's CQs, QP and receive buffers
 * @l: the link; on rail @l->rail's device and PD
 * Return: 0; -EXDEV connection not on the rail's device; -ENODEV device
 * gone; another -errno from the verbs.
 */
int hixl_link_create_qp(struct hixl_link *l)
{
	struct hixl_rdma *rd = l->eng->rdma;
	struct hixl_rail_dev dev;
	struct ib_qp_init_attr attr = {
		.event_handler = hixl_qp_event,
		.qp_context = l,
		.cap = {
			.max_send_wr = HIXL_SQ_DEPTH,
			.max_recv_wr = HIXL_RX_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = sizeof(struct hixl_wire_ack),
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	if (!l->rail) {
		dev.ibdev = rd->ibdev;
		dev.pd = rd->pd;
	} else if (!hixl_rail_dev(rd, l->rail, &dev) || !dev.ibdev || !dev.pd) {
		return -ENODEV;
	}
	if (l->cm_id->device != dev.ibdev)
		return -EXDEV;	/* the route left the rail's device */
	l->ibdev = dev.ibdev;
	l->pd = dev.pd;
	/* each CQ takes a full flush plus the drain markers (ib_drain_qp()) */
	l->rcq = ib_alloc_cq(l->ibdev, l, HIXL_RX_DEPTH + 1, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(l->rcq)) {
		ret = PTR_ERR(l->rcq);
		l->rcq = NULL;
		return ret;
	}
	ret = hixl_scq_create(l, l->ibdev, HIXL_SQ_DEPTH + 2);
	if (ret)
		return ret;
	attr.send_cq = l->scq.cq;
	attr.recv_cq = l->rcq;
	ret = rdma_create_qp(l->cm_id, l->pd, &attr);
	if (ret)
		return ret;
	l->qp = l->cm_id->qp;

	ret = hixl_link_msg_alloc(l);
	if (ret)
		return ret;
	if (!l->rail)			/* rail links need no staging: direct only */
		hixl_link_stage_alloc(l);
	return 0;
}

/**
 * hixl_link_destroy_qp() - free what hixl_link_create_qp() made
 * @l: the link
 */
void hixl_link_destroy_qp(struct hixl_link *l)
{
	struct ib_device *ibdev = l->eng->rdma->ibdev;

	mutex_lock(&l->qp_mutex);	/* no rdma_disconnect() of the CM handler beside us */
	if (l->qp) {
		struct ib_qp_attr reset = { .qp_state = IB_QPS_RESET };
		int err;

		ib_drain_qp(l->qp);
		/* RESET drops arriving packets (IBTA 10.3.1); a second drain frees a late one */
		for (int i = 0; i < 2; i++) {
			err = ib_modify_qp(l->qp, &reset, IB_QP_STATE);
			if (err)
				pr_debug("hixl: QP %u to RESET: %d\n", l->qp->qp_num, err);
		}
		rdma_destroy_qp(l->cm_id);
		l->qp = NULL;
	}
	mutex_unlock(&l->qp_mutex);
	hixl_scq_destroy(l);
	if (l->rcq) {
		ib_free_cq(l->rcq);
		l->rcq = NULL;
	}
	hixl_link_msg_free(l);
	if (l->stage.tx.mr) {
		hixl_stbuf_free(ibdev, &l->stage.tx);
		hixl_stbuf_free(ibdev, &l->stage.rx);
		atomic_add(2, &l->eng->pool_free);
	}
	l->stage.peer_size = 0;
}

/**
 * hixl_link_destroy() - tear a link down and drop the list's reference
 * @l: a link its caller took off the engine's list
 *
 * Marks it CLOSED, then under cm_mutex frees the QP and the cm_id; other
 * reference holders keep the struct only.
 * Context: process context; not under the engine lock or links_lock.
 */
void hixl_link_destroy(struct hixl_link *l)
{
	spin_lock(&l->lock);
	if (l->state < HIXL_LINK_ERROR)
		l->err = -ECONNRESET;
	l->state = HIXL_LINK_CLOSED;
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	if (l->rail)
		hixl_raillink_unhook(l);	/* off its primary's rails */
	else
		hixl_raillinks_destroy(l);	/* a primary's rail links go with it */
	hixl_loop_link_gone(l);			/* a loopback partner breaks */
	hixl_local_link_gone(l);		/* the partner copies no more */

	mutex_lock(&l->cm_mutex);		/* a CONNECT attempt ends first */
	if (l->cm_id && l->qp)
		rdma_disconnect(l->cm_id);	/* QP to error: posted work flushes */
	cancel_work_sync(&l->setup_work);
	cancel_work_sync(&l->stage.work);
	cancel_delayed_work_sync(&l->hs_work);
	hixl_link_ka_stop(l);
	hixl_xq_ops->close(l);		/* waiting batches end; posted ones flush */
	mutex_lock(&l->msg.post_mutex);		/* a staged transfer finishes */
	hixl_link_destroy_qp(l);
	mutex_unlock(&l->msg.post_mutex);
	if (l->cm_id) {
		rdma_destroy_id(l->cm_id);	/* waits for a running handler */
		l->cm_id = NULL;
	}
	mutex_unlock(&l->cm_mutex);
	hixl_rtable_clear(l);
	hixl_link_put(l);
}

static void hixl_link_release_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, release_work);
	struct hixl_engine *eng = l->eng;

	if (hixl_link_unlist(l))
		hixl_link_destroy(l);
	hixl_link_put(l);	/* the reference queue_work() was given */
	hixl_release_done(eng);
}

/**
 * hixl_engine_links_destroy() - tear down every link of an engine
 * @eng: the engine; its listening id is gone
 * Context: process context, may sleep; @eng->rdma_sem held.
 */
void hixl_engine_links_destroy(struct hixl_engine *eng)
{
	struct hixl_link *l;

	for (;;) {
		mutex_lock(&eng->links_lock);
		l = list_first_entry_or_null(&eng->links, struct hixl_link, node);
		if (l) {
			list_del_init(&l->node);
			if (!l->rail)
				eng->nr_links--;
		}
		mutex_unlock(&eng->links_lock);
		if (!l)
			break;
		hixl_link_cancel_release(l);
		hixl_link_destroy(l);
	}
	wait_event(eng->release_wq, !atomic_read(&eng->releases));
}

/**
 * hixl_engine_links_destroy_rail() - tear down an engine's links on one rail
 * @eng:  the engine; rail @rail is marked removing
 * @rail: the rail, >= 1
 * Context: process context, may sleep; @eng->rdma_sem held for reading.
 */
void hixl_engine_links_destroy_rail(struct hixl_engine *eng, u32 rail)
{
	struct hixl_link *l, *found, *p;

	if (WARN_ON_ONCE(!rail))
		return;
	for (;;) {
		found = NULL;
		mutex_lock(&eng->links_lock);
		list_for_each_entry(l, &eng->links, node) {
			if (l->rail == rail) {
				found = l;
				list_del_init(&l->node);	/* rail links: not in nr_links */
				break;
			}
		}
		mutex_unlock(&eng->links_lock);
		if (!found)
			break;
		spin_lock(&found->lock);
		p = found->parent;	/* held by @found until it is freed */
		spin_unlock(&found->lock);
		if (p)
			hixl_raillink_trace_down(found, p, -ENODEV);
		hixl_link_cancel_release(found);
		hixl_link_destroy(found);
	}
	wait_event(eng->release_wq, !atomic_read(&eng->releases));
}
