// SPDX-License-Identifier: GPL-2.0
/* msg_rx.c - a link's receives; each message checked, then handed on */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "keepalive.h"
#include "msg.h"
#include "msg_rx.h"
#include "rtable.h"
#include "notify.h"
#include "stage.h"
#include "proto.h"
#include "testhook.h"

static void hixl_reply_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	complete(&l->stage.reply_done);
}

static int hixl_post_recv(struct hixl_iu *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma, .length = rx->size,
		.lkey = rx->link->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &rx->cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(rx->link->qp, &wr, NULL);
}

/* @handshake: advances an accepted link (hixl_link_hs_progress()) */
struct hixl_rx_handler {
	u32 min_len;
	int (*fn)(struct hixl_link *l, const void *buf, u32 len);
	bool handshake;
};

static const struct hixl_rx_handler hixl_rx_handlers[] = {
	[HIXL_MSG_HELLO]	= { sizeof(struct hixl_wire_hello), hixl_rx_hello, true },
	[HIXL_MSG_REGION]	= { sizeof(struct hixl_wire_region), hixl_rx_region_msg, true },
	[HIXL_MSG_REGION_DEL]	= { sizeof(struct hixl_wire_region_del), hixl_rx_region_del_msg,
				    true },
	[HIXL_MSG_TABLE_END]	= { sizeof(struct hixl_wire_hdr), hixl_rx_table_end, true },
	[HIXL_MSG_NOTIFY]	= { sizeof(struct hixl_wire_notify), hixl_rx_notify },
	[HIXL_MSG_STAGE_REQ]	= { sizeof(struct hixl_wire_stage_req), hixl_rx_stage_req },
	[HIXL_MSG_STAGE_DONE]	= { sizeof(struct hixl_wire_stage_done), hixl_rx_stage_done },
	[HIXL_MSG_TABLE_ACK]	= { sizeof(struct hixl_wire_ack), hixl_rx_table_ack },
	[HIXL_MSG_REGIONS]	= { sizeof(struct hixl_wire_regions), hixl_rx_regions_msg, true },
};

static bool hixl_wire_hdr_ok(const void *buf, u32 len)
{
	const struct hixl_wire_hdr *h = buf;

	return len >= sizeof(*h) && le32_to_cpu(h->magic) == HIXL_WIRE_MAGIC &&
	       le16_to_cpu(h->version) == HIXL_WIRE_VERSION && le32_to_cpu(h->len) == len;
}

/* -errno closes the link; before the peer's HELLO only TABLE_ACK may come */
static int hixl_rx_msg(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_rx_handler *hd;
	const struct hixl_wire_hdr *h = buf;
	u16 type;
	int ret;

	if (!hixl_wire_hdr_ok(buf, len))
		return -EPROTO;
	type = le16_to_cpu(h->type);
	ret = hixl_auth_rx(l, type, buf, len);	/* nothing but AUTH_* before the proof */
	if (ret == HIXL_AUTH_RX_STEP)
		hixl_link_queue(l, &l->setup_work);
	if (ret)
		return ret < 0 ? ret : 0;
	if (type != HIXL_MSG_HELLO && type != HIXL_MSG_TABLE_ACK && !READ_ONCE(l->hello_seen))
		return -EPROTO;
	if (type >= ARRAY_SIZE(hixl_rx_handlers))
		return -EPROTO;
	hd = &hixl_rx_handlers[array_index_nospec(type, ARRAY_SIZE(hixl_rx_handlers))];
	if (!hd->fn || len < hd->min_len)
		return -EPROTO;
	ret = hd->fn(l, buf, len);
	if (!ret && hd->handshake)
		hixl_link_hs_progress(l);
	return ret;
}

/* on a broken link a NOTIFY is still queued: its SEND completed; the rest is dropped */
static void hixl_rx_late(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_hdr *h = buf;
	u16 type;

	if (len < sizeof(struct hixl_wire_notify) || !hixl_wire_hdr_ok(buf, len))
		return;
	type = le16_to_cpu(h->type);
	if (type != HIXL_MSG_NOTIFY || !READ_ONCE(l->hello_seen) ||
	    hixl_auth_rx(l, type, buf, len))
		return;
	hixl_rx_notify(l, buf, len);
}

static void hixl_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_iu *rx = container_of(wc->wr_cqe, struct hixl_iu, cqe);
	struct hixl_link *l = rx->link;
	struct mem_cgroup *old_memcg;
	int ret, err, st;

	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		/* the peer used a key we never gave it: each guess costs a connection */
		if (!l->active && hixl_link_state(l, &err) < HIXL_LINK_ERROR) {
			hixl_link_warn(l, "closing the link: its QP failed (a remote access error?)\n");
			hixl_link_abort(l, -ECONNRESET);
		}
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		/* e.g. the peer sent more than a receive buffer: close the link */
		hixl_link_warn(l, "closing the link: receive failed: %s\n",
			       ib_wc_status_msg(wc->status));
		l->msg.rx_stopped = true;
		hixl_link_abort(l, -ECONNRESET);
		return;
	}
	if (l->msg.rx_stopped)
		return;		/* the peer broke the protocol: nothing more is parsed */
	hixl_test_delay(HIXL_TEST_RX_MSG);
	st = hixl_link_state(l, &err);
	ib_dma_sync_single_for_cpu(l->ibdev, rx->dma, HIXL_MSG_SIZE, DMA_FROM_DEVICE);
	old_memcg = set_active_memcg(l->eng->memcg);	/* charge the engine's owner */
	if (st >= HIXL_LINK_ERROR) {
		hixl_rx_late(l, rx->buf, wc->byte_len);
		set_active_memcg(old_memcg);
		return;		/* no repost: the QP is failing or gone */
	}
	hixl_link_alive(l);
	ret = hixl_rx_msg(l, rx->buf, wc->byte_len);
	set_active_memcg(old_memcg);
	if (ret) {
		hixl_link_warn(l, "closing the link: bad message (%d)\n", ret);
		l->msg.rx_stopped = true;
		hixl_link_abort(l, ret);
		return;
	}
	ret = hixl_post_recv(rx);
	if (ret) {
		hixl_link_warn(l, "receive repost failed: %d\n", ret);
		hixl_link_fail(l, ret);
	}
}

/**
 * hixl_link_msg_alloc() - a link's message buffers, its receives posted
 * @l: the link, its QP just created; on error hixl_link_msg_free() it
 * Context: process context.
 * Return: 0, -ENOMEM or ib_post_recv()'s error.
 */
int hixl_link_msg_alloc(struct hixl_link *l)
{
	int i, ret;

	l->msg.rx_stopped = false;	/* a new connection of an active link */
	ret = hixl_iu_alloc(l, &l->msg.tx, HIXL_MSG_SIZE, DMA_TO_DEVICE, hixl_tx_done);
	if (ret)
		return ret;
	for (i = 0; i < HIXL_RX_DEPTH; i++) {
		struct hixl_iu *rx = &l->msg.rx[i];

		ret = hixl_iu_alloc(l, rx, HIXL_MSG_SIZE, DMA_FROM_DEVICE, hixl_rx_done);
		if (!ret)
			ret = hixl_post_recv(rx);
		if (ret)
			return ret;
	}

	ret = hixl_iu_alloc(l, &l->stage.reply, sizeof(struct hixl_wire_stage_done), DMA_TO_DEVICE,
			    hixl_reply_done);
	if (ret)
		return ret;
	l->ack_cqe.done = hixl_ack_done;
	return 0;
}

/**
 * hixl_link_msg_free() - free what hixl_link_msg_alloc() made
 * @l: the link, its QP and CQ gone
 */
void hixl_link_msg_free(struct hixl_link *l)
{
	struct ib_device *ibdev = l->ibdev;
	int i;

	for (i = 0; i < HIXL_RX_DEPTH; i++)
		hixl_iu_free(ibdev, &l->msg.rx[i]);
	hixl_iu_free(ibdev, &l->msg.tx);
	hixl_iu_free(ibdev, &l->stage.reply);
}
