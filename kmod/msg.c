// SPDX-License-Identifier: GPL-2.0
/* msg.c - a link's message buffers and posting its messages (proto.h); receive side: msg_rx.c */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/memcontrol.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "link.h"
#include "keepalive.h"
#include "msg.h"
#include "proto.h"

/**
 * hixl_iu_alloc() - a zeroed message buffer, DMA-mapped
 * @l:    the link whose device maps it
 * @iu:   out; @iu->buf stays NULL on error
 * @size: bytes
 * @dir:  DMA_TO_DEVICE or DMA_FROM_DEVICE
 * @done: completion handler of the work requests that use it
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int hixl_iu_alloc(struct hixl_link *l, struct hixl_iu *iu, u32 size,
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

/**
 * hixl_iu_free() - undo hixl_iu_alloc(); no-op when it failed
 * @ibdev: the device that mapped it
 * @iu:    the buffer, no work request using it
 */
void hixl_iu_free(struct ib_device *ibdev, struct hixl_iu *iu)
{
	if (!iu->buf)
		return;
	ib_dma_unmap_single(ibdev, iu->dma, iu->size, iu->dir);
	kfree(iu->buf);
	iu->buf = NULL;
}

void hixl_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	l->msg.tx_status = wc->status;
	if (wc->status == IB_WC_SUCCESS)
		hixl_link_alive(l);
	else if (wc->status == IB_WC_RETRY_EXC_ERR)
		hixl_link_lost(l, "message");
	complete(&l->msg.tx_done);
}

/**
 * hixl_post_wait() - post one signaled work request and wait for it
 * @l:  the link; post_mutex held
 * @wr: the request (its wr_cqe and send_flags are set here)
 *
 * Waits HIXL_MSG_TIMEOUT_MS or until @l->msg.tx_deadline, at least
 * HIXL_TX_MIN_MS.
 * Return: 0; -ETIMEDOUT; -EHOSTDOWN retries ran out; -ECONNRESET another
 * error completion.  Errors break the link.
 */
int hixl_post_wait(struct hixl_link *l, struct ib_send_wr *wr)
{
	unsigned long tmo = msecs_to_jiffies(HIXL_MSG_TIMEOUT_MS);
	int ret;

	lockdep_assert_held(&l->msg.post_mutex);
	if (l->msg.tx_deadline)
		tmo = clamp_t(long, hixl_jiffies_left(l->msg.tx_deadline),
			      (long)msecs_to_jiffies(HIXL_TX_MIN_MS), (long)tmo);
	if (!hixl_link_usable(l))
		return -ECONNRESET;
	reinit_completion(&l->msg.tx_done);
	l->msg.tx.cqe.done = hixl_tx_done;
	wr->wr_cqe = &l->msg.tx.cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(l->qp, wr, NULL);
	if (ret)
		goto fail;
	if (!wait_for_completion_timeout(&l->msg.tx_done, tmo)) {
		/* break the QP so the completion flushes, then wait */
		ret = -ETIMEDOUT;
		hixl_link_fail(l, ret);
		rdma_disconnect(l->cm_id);
		wait_for_completion(&l->msg.tx_done);
		return ret;
	}
	if (l->msg.tx_status == IB_WC_SUCCESS) {
		hixl_link_hs_progress(l);
		return 0;
	}
	ret = l->msg.tx_status == IB_WC_RETRY_EXC_ERR ? -EHOSTDOWN : -ECONNRESET;
fail:
	hixl_link_fail(l, ret);
	return ret;
}

/**
 * hixl_wire_hdr_fill() - fill the header of a message about to be sent
 * @h:    the header
 * @type: enum hixl_wire_type
 * @len:  bytes of the whole message
 */
void hixl_wire_hdr_fill(struct hixl_wire_hdr *h, u16 type, u32 len)
{
	h->magic = cpu_to_le32(HIXL_WIRE_MAGIC);
	h->type = cpu_to_le16(type);
	h->version = cpu_to_le16(HIXL_WIRE_VERSION);
	h->len = cpu_to_le32(len);
	h->reserved = 0;
}

/**
 * hixl_send_msg() - send the first @len bytes of the link's send buffer
 * @l:    the link; post_mutex held
 * @type: enum hixl_wire_type; the header is filled here
 * @len:  bytes of the whole message
 * Return: as hixl_post_wait().
 */
int hixl_send_msg(struct hixl_link *l, u16 type, u32 len)
{
	struct hixl_wire_hdr *h = l->msg.tx.buf;
	struct ib_sge sge = { .length = len };
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
	};

	if (!hixl_link_usable(l))
		return -ECONNRESET;
	sge.addr = l->msg.tx.dma;
	sge.lkey = l->pd->local_dma_lkey;
	hixl_wire_hdr_fill(h, type, len);
	ib_dma_sync_single_for_device(l->ibdev, l->msg.tx.dma, len, DMA_TO_DEVICE);
	return hixl_post_wait(l, &wr);
}

void hixl_name_to_wire(const struct hixl_sockaddr *a, struct hixl_wire_name *w)
{
	memset(w, 0, sizeof(*w));
	w->family = cpu_to_le16(a->family);
	w->port = cpu_to_le16(a->port);
	memcpy(w->addr, a->addr, sizeof(w->addr));
}

void hixl_name_from_wire(const struct hixl_wire_name *w, struct hixl_sockaddr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = le16_to_cpu(w->family);
	a->port = le16_to_cpu(w->port);
	memcpy(a->addr, w->addr, sizeof(a->addr));
}
