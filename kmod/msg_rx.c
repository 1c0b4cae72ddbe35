// SPDX-License-Identifier: GPL-2.0
/*
 * msg_rx.c - a link's message buffers and its receive side: each
 * message's header is checked and the message handed to the handler of
 * its type (hixl_rx_handlers[]: link_life.c, rtable.c, notify.c, stage.c,
 * auth.c).  Sending is msg.c's.
 */
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

/**
 * hixl_iu_alloc() - a zeroed message buffer, DMA-mapped for the device
 * @l:    the link
 * @iu:   the buffer's descriptor; @iu->buf stays NULL on error
 * @size: bytes
 * @dir:  DMA_TO_DEVICE (send, reply) or DMA_FROM_DEVICE (receive)
 * @done: completion handler of the work requests that use it
 *
 * Return: 0 or -ENOMEM.
 */
static int hixl_iu_alloc(struct hixl_link *l, struct hixl_iu *iu, u32 size,
			 enum dma_data_direction dir, void (*done)(struct ib_cq *, struct ib_wc *))
{
	struct ib_device *ibdev = l->ibdev;
	void *p = kzalloc(size, GFP_KERNEL);

	iu->link = l;
	iu->cqe.done = done;
	iu->size = size;
	iu->dir = dir;
	if (!p)
		return -ENOMEM;
	iu->dma = ib_dma_map_single(ibdev, p, size, dir);
	if (ib_dma_mapping_error(ibdev, iu->dma)) {
		kfree(p);
		return -ENOMEM;
	}
	iu->buf = p;
	return 0;
}

/* Undo hixl_iu_alloc(); an unallocated buffer (NULL @iu->buf) is ignored. */
static void hixl_iu_free(struct ib_device *ibdev, struct hixl_iu *iu)
{
	if (!iu->buf)
		return;
	ib_dma_unmap_single(ibdev, iu->dma, iu->size, iu->dir);
	kfree(iu->buf);
	iu->buf = NULL;
}

static void hixl_reply_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	complete(&l->stage.reply_done);
}

/* ---- receiving -------------------------------------------------------------------- */

static int hixl_post_recv(struct hixl_iu *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma, .length = rx->size,
		.lkey = rx->link->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &rx->cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(rx->link->qp, &wr, NULL);
}

/**
 * struct hixl_rx_handler - how one message type is received
 * @min_len:   bytes the message has at least (shorter: -EPROTO)
 * @fn:        the handler; gets the whole message, @min_len bytes or more
 * @handshake: the peer's half of the handshake (HELLO, its table): once
 *             applied, progress of an accepted link's handshake
 *             (hixl_link_hs_progress())
 */
struct hixl_rx_handler {
	u32 min_len;
	int (*fn)(struct hixl_link *l, const void *buf, u32 len);
	bool handshake;
};

/*
 * Every message type a link takes once the secret exchange is over (AUTH_*
 * messages are hixl_auth_rx()'s); a type without an entry is -EPROTO.
 */
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
};

/* Is @buf, @len bytes received, a whole message of this wire version? */
static bool hixl_wire_hdr_ok(const void *buf, u32 len)
{
	const struct hixl_wire_hdr *h = buf;

	return len >= sizeof(*h) && le32_to_cpu(h->magic) == HIXL_WIRE_MAGIC &&
	       le16_to_cpu(h->version) == HIXL_WIRE_VERSION && le32_to_cpu(h->len) == len;
}

/*
 * One received message.  Every message type has one answer: carried out,
 * ignored (a STAGE_DONE of another sequence, a REGION_DEL of an unknown
 * range), or -errno, which closes the link (hixl_link_abort()).  Before the
 * peer's HELLO only TABLE_ACK may come (the peer acks our table while its
 * own setup work still runs); after it, no second HELLO.
 */
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

/*
 * A message that arrived whole on a link already broken or being torn
 * down, not by a message of the peer's.  Most often the peer left: RDMA
 * CM's handler and this CQ's work are not ordered, so the DISCONNECTED of
 * a peer that sends a NOTIFY and closes at once can be handled first, and
 * the release it schedules (CLOSED) drains the QP, and this message with
 * it, through here.  The peer's SEND completed, which told it the message
 * arrived, so a NOTIFY is still queued for GET_NOTIFIES (with a reference
 * to the link, like any: hixl_engine_destroy() frees the notifications
 * after every link's drain).  Everything else (table, staging) ended with
 * the link and is dropped.  The NOTIFY passes the same checks as on a
 * working link: the header, the engine secret's proof, the peer's HELLO,
 * its bounds.
 */
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
		/*
		 * The QP went to error.  Whoever did that on our side said why
		 * first (the link is broken already); on an accepted link not
		 * broken yet, the peer did: its RDMA with a key or range we
		 * never gave it (the responder NAKs it and moves our QP to
		 * error, without an event).  Close the link, as when the peer
		 * leaves, so that each wrong guess of a key costs a connection.
		 */
		if (!l->active && hixl_link_state(l, &err) < HIXL_LINK_ERROR) {
			hixl_link_warn(l, "closing the link: its QP failed (a remote access error?)\n");
			hixl_link_abort(l, -ECONNRESET);
		}
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		/*
		 * The QP is in the error state: the link is dead.  A peer
		 * causes this with a SEND longer than our receive buffer
		 * (local length error), a malformed message like any other,
		 * so the link is closed the same way - only marking it broken
		 * left it on the list, holding its slot and staging buffers,
		 * with the peer never disconnected.
		 */
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

/* ---- buffers ---------------------------------------------------------------------- */

/**
 * hixl_link_msg_alloc() - a link's message buffers, its receives posted
 * @l: the link, its QP just created
 *
 * The send buffer, HIXL_RX_DEPTH receive buffers (each posted) and the
 * STAGE_DONE reply buffer.  Whatever was made stays for
 * hixl_link_msg_free() on error too.
 *
 * Context: process context (GFP_KERNEL).
 * Return: 0, -ENOMEM or ib_post_recv()'s -errno.
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
