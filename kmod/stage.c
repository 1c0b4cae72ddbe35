// SPDX-License-Identifier: GPL-2.0
/*
 * stage.c - the staging pool: a staged WRITE copies into our buffer, RDMA WRITEs it
 * to the peer's landing buffer and sends STAGE_REQ; the peer answers STAGE_DONE
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "msg.h"
#include "stage.h"
#include "proto.h"

#define HIXL_STAGE_CHUNK	SZ_2M

/* ib_dma_* has no sg_table sync helpers; software devices need none. */
static void hixl_sync_for_cpu(struct ib_device *dev, struct sg_table *sgt)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_sgtable_for_cpu(dev->dma_device, sgt, DMA_BIDIRECTIONAL);
}

static void hixl_sync_for_device(struct ib_device *dev, struct sg_table *sgt)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_sgtable_for_device(dev->dma_device, sgt, DMA_BIDIRECTIONAL);
}

static void *hixl_stbuf_ptr(struct hixl_stbuf *b, size_t off)
{
	return page_address(b->chunk[off / HIXL_STAGE_CHUNK]) + off % HIXL_STAGE_CHUNK;
}

/**
 * hixl_stbuf_free() - release a staging buffer (any part of it)
 * @ibdev: the device it is mapped for
 * @b:     the buffer
 */
void hixl_stbuf_free(struct ib_device *ibdev, struct hixl_stbuf *b)
{
	u32 i;

	if (b->mr)
		ib_dereg_mr(b->mr);
	if (b->mapped)
		ib_dma_unmap_sgtable_attrs(ibdev, &b->sgt, DMA_BIDIRECTIONAL, 0);
	if (b->sgt.sgl)
		sg_free_table(&b->sgt);
	for (i = 0; i < b->nchunks; i++)
		__free_pages(b->chunk[i], get_order(HIXL_STAGE_CHUNK));
	kfree(b->chunk);
	memset(b, 0, sizeof(*b));
}

/**
 * hixl_stbuf_alloc() - a staging buffer of @size bytes with its MR
 * @l:    the link
 * @b:    zeroed buffer to fill
 * @size: bytes, a multiple of 2 MiB
 * Return: 0, -ENOMEM, or the device's -errno.
 */
int hixl_stbuf_alloc(struct hixl_link *l, struct hixl_stbuf *b, size_t size)
{
	struct hixl_rdma *rd = l->eng->rdma;
	struct scatterlist *sg;
	u32 i, n = size / HIXL_STAGE_CHUNK;
	int ret;

	b->chunk = kcalloc(n, sizeof(*b->chunk), GFP_KERNEL);
	if (!b->chunk)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		b->chunk[i] = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_ZERO,
					  get_order(HIXL_STAGE_CHUNK));
		if (!b->chunk[i]) {
			ret = -ENOMEM;
			goto err;
		}
		b->nchunks++;
	}
	b->size = size;
	ret = sg_alloc_table(&b->sgt, n, GFP_KERNEL);
	if (ret) {
		b->sgt.sgl = NULL;
		goto err;
	}
	for_each_sgtable_sg(&b->sgt, sg, i)
		sg_set_page(sg, b->chunk[i], HIXL_STAGE_CHUNK, 0);
	ret = ib_dma_map_sgtable_attrs(rd->ibdev, &b->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto err;
	b->mapped = true;
	b->mr = ib_alloc_mr(rd->pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(b->mr)) {
		ret = PTR_ERR(b->mr);
		b->mr = NULL;
		goto err;
	}
	ret = ib_map_mr_sg(b->mr, b->sgt.sgl, b->sgt.nents, NULL, HIXL_STAGE_CHUNK);
	if (ret != b->sgt.nents) {
		ret = ret < 0 ? ret : -EINVAL;
		goto err;
	}
	hixl_mr_zero_base(b->mr, HIXL_STAGE_CHUNK);	/* HELLO announces it */
	return 0;
err:
	hixl_stbuf_free(rd->ibdev, b);
	return ret;
}

/*
 * Copy between user memory and a staging buffer without faulting (post_mutex
 * is held); a missing page is returned in *@miss_addr and *@miss_len.
 */
static int hixl_stbuf_user(struct hixl_stbuf *b, size_t off, u64 uaddr, u64 len, bool in,
			   u64 *miss_addr, size_t *miss_len)
{
	while (len) {
		size_t n = min_t(u64, len, HIXL_STAGE_CHUNK - off % HIXL_STAGE_CHUNK);
		void *k = hixl_stbuf_ptr(b, off);
		void __user *u = u64_to_user_ptr(uaddr);

		if (in ? copy_from_user_nofault(k, u, n) : copy_to_user_nofault(u, k, n)) {
			*miss_addr = uaddr;
			*miss_len = n;
			return -EFAULT;
		}
		off += n;
		uaddr += n;
		len -= n;
	}
	return 0;
}

/* No lock held.  Return: 0, or -EFAULT if unmapped or not writable. */
static int hixl_stage_fault_in(u64 uaddr, size_t len, bool in)
{
	char __user *u = u64_to_user_ptr(uaddr);

	return (in ? fault_in_readable(u, len) : fault_in_safe_writeable(u, len)) ? -EFAULT : 0;
}

static void hixl_stbuf_region(struct hixl_stbuf *b, size_t off, struct hixl_region *r,
			      u64 addr, u64 len, bool to_region)
{
	const struct hixl_runs *rs = &r->runs;
	u64 rel = addr - ALIGN_DOWN(r->addr, PAGE_SIZE);
	unsigned long ri = hixl_runs_find(rs, rel >> PAGE_SHIFT);

	while (len) {
		unsigned long idx = rel >> PAGE_SHIFT;
		size_t in_page = offset_in_page(rel);
		size_t n = min3((u64)PAGE_SIZE - in_page, len,
				(u64)(HIXL_STAGE_CHUNK - off % HIXL_STAGE_CHUNK));
		void *k = hixl_stbuf_ptr(b, off);
		void *p;

		while (rs->run[ri].end <= idx)
			ri++;
		p = kmap_local_page(pfn_to_page(rs->run[ri].pfn + (idx - hixl_run_first(rs, ri))));

		if (to_region)
			memcpy(p + in_page, k, n);
		else
			memcpy(k, p + in_page, n);
		kunmap_local(p);
		off += n;
		rel += n;
		len -= n;
	}
}

static int hixl_stage_reply(struct hixl_link *l, u64 seq, int status, u32 failed)
{
	struct hixl_wire_stage_done *m = l->stage.reply.buf;
	unsigned long tmo = msecs_to_jiffies(HIXL_MSG_TIMEOUT_MS);
	struct ib_sge sge = {
		.addr = l->stage.reply.dma, .length = sizeof(*m),
		.lkey = l->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.wr_cqe = &l->stage.reply.cqe, .send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	mutex_lock(&l->stage.reply_lock);
	hixl_wire_hdr_fill(&m->hdr, HIXL_MSG_STAGE_DONE, sizeof(*m));
	m->seq = cpu_to_le64(seq);
	m->status = cpu_to_le32(-status);
	m->failed = cpu_to_le32(failed);
	ib_dma_sync_single_for_device(l->ibdev, l->stage.reply.dma, sizeof(*m),
				      DMA_TO_DEVICE);
	reinit_completion(&l->stage.reply_done);
	ret = ib_post_send(l->qp, &wr, NULL);
	if (!ret && !wait_for_completion_timeout(&l->stage.reply_done, tmo))
		ret = -ETIMEDOUT;
	mutex_unlock(&l->stage.reply_lock);
	return ret;
}

/**
 * hixl_stage_work() - carry out the peer's STAGE_REQ on our landing buffer
 * @w: the link's stage.work
 */
void hixl_stage_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(w, struct hixl_link, stage.work);
	struct hixl_engine *eng = l->eng;
	struct hixl_stbuf *b = &l->stage.rx;
	const struct hixl_wire_stage_ent *e;
	size_t doff = HIXL_STAGE_LIST;
	bool scatter;
	int status = 0;
	u32 i, count, failed = 0;
	u64 seq;

	spin_lock(&l->lock);		/* the request, read once */
	scatter = l->stage.req_op == HIXL_STAGE_SCATTER;
	count = l->stage.req_count;
	seq = l->stage.req_seq;
	spin_unlock(&l->lock);
	hixl_sync_for_cpu(eng->rdma->ibdev, &b->sgt);
	e = hixl_stbuf_ptr(b, 0);
	hixl_engine_lock(eng);
	for (i = 0; i < count; i++) {
		u64 addr = le64_to_cpu(e[i].addr), len = le64_to_cpu(e[i].len);
		struct hixl_region *r;

		if (!len || len > b->size - doff) {
			status = -EPROTO;
			break;
		}
		r = hixl_region_lookup(eng, addr, len);
		if (!r || r->type != HIXL_MEM_HOST || !hixl_region_has_pages(r)) {
			status = -ERANGE;
			break;
		}
		if (scatter && (r->flags & HIXL_REG_READ_ONLY)) {
			status = -EACCES;
			break;
		}
		hixl_stbuf_region(b, doff, r, addr, len, scatter);
		doff += len;
	}
	mutex_unlock(&eng->lock);
	failed = i;
	if (!scatter)
		hixl_sync_for_device(eng->rdma->ibdev, &b->sgt);
	/* the peer may send its next request once it has our answer */
	spin_lock(&l->lock);
	l->stage.busy = false;
	spin_unlock(&l->lock);
	if (hixl_stage_reply(l, seq, status, failed))
		hixl_link_fail(l, -ECONNRESET);
}

/* The peer's landing buffer, as its HELLO announced it. */
struct hixl_stage_peer {
	u64 iova;
	u32 rkey;
	size_t cap;		/* bytes of data per round */
};

/* One RDMA WRITE or READ between our send buffer and the peer's landing one. */
static int hixl_stage_rdma(struct hixl_link *l, const struct hixl_stage_peer *pr, bool write,
			   size_t off, size_t len)
{
	struct ib_sge sge = {
		.addr = l->stage.tx.mr->iova + off, .length = len, .lkey = l->stage.tx.mr->lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
		.wr.sg_list = &sge, .wr.num_sge = 1,
		.remote_addr = pr->iova + off, .rkey = pr->rkey,
	};

	return hixl_post_wait(l, &wr.wr);
}

/* Read the peer's landing buffer and the room per round once; false if there is none. */
static bool hixl_stage_peer_get(struct hixl_link *l, struct hixl_stage_peer *pr)
{
	size_t room;

	spin_lock(&l->lock);
	pr->iova = l->stage.peer_iova;
	pr->rkey = l->stage.peer_rkey;
	room = min_t(u64, l->stage.tx.size, l->stage.peer_size);
	spin_unlock(&l->lock);
	if (!l->stage.tx.mr || room <= HIXL_STAGE_LIST)
		return false;
	pr->cap = room - HIXL_STAGE_LIST;
	return true;
}

static int hixl_stage_request(struct hixl_link *l, u32 op, u32 count, unsigned long deadline,
			      u32 *failed)
{
	struct hixl_wire_stage_req *m = l->msg.tx.buf;
	long left;
	int ret;

	m->op = cpu_to_le32(op);
	m->count = cpu_to_le32(count);
	m->seq = cpu_to_le64(++l->stage.seq);
	spin_lock(&l->lock);
	l->stage.answered = false;
	spin_unlock(&l->lock);
	ret = hixl_send_msg(l, HIXL_MSG_STAGE_REQ, sizeof(*m));
	if (ret)
		return ret;
	left = wait_event_killable_timeout(l->wq, READ_ONCE(l->stage.answered) ||
					   READ_ONCE(l->state) >= HIXL_LINK_ERROR,
					   hixl_jiffies_left(deadline));
	if (left < 0) {
		/* the peer still holds the round */
		hixl_link_fail(l, -ECONNABORTED);
		return -EINTR;
	}
	if (!left) {
		hixl_link_fail(l, -ETIMEDOUT);
		return -ETIMEDOUT;
	}
	if (!READ_ONCE(l->stage.answered))
		return l->err ? l->err : -ECONNRESET;
	*failed = l->stage.failed;
	return l->stage.status;
}

/**
 * hixl_stage_cap() - can this link stage, and how much per round?
 * @l: the link
 * Return: data bytes one staging round carries; 0: the link cannot stage.
 */
size_t hixl_stage_cap(struct hixl_link *l)
{
	struct hixl_stage_peer pr;

	return hixl_stage_peer_get(l, &pr) ? pr.cap : 0;
}

/**
 * hixl_stage_status() - a peer's STAGE_DONE status as our -errno
 * @wire: the status field as received; only hixl_stage_work()'s codes pass
 * Return: 0, -ERANGE, -EACCES, -EPROTO or -EREMOTEIO.
 */
int hixl_stage_status(u32 wire)
{
	switch (wire) {
	case 0:
		return 0;
	case ERANGE:
	case EACCES:
	case EPROTO:
		return -(int)wire;
	default:
		return -EREMOTEIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hixl_stage_status);

/* A round's position: idx[i], @done bytes of it moved. */
struct hixl_stage_pos {
	u32 i;
	u64 done;
};

/*
 * One round under post_mutex.  Return: 0 with *@pos advanced; 1 if a user
 * page was missing (fault it in, rerun); else hixl_stage_run()'s errors.
 */
static int hixl_stage_round(struct hixl_link *l, u32 op, const struct hixl_op_desc *d,
			    const u32 *idx, u32 n, unsigned long deadline, u32 *owner,
			    struct hixl_stage_pos *pos, u32 *failed, u64 *miss_addr,
			    size_t *miss_len)
{
	struct hixl_wire_stage_ent *list = hixl_stbuf_ptr(&l->stage.tx, 0);
	struct hixl_stage_pos at = *pos;
	struct hixl_stage_peer pr;
	size_t used = 0, off;
	u32 k = 0, bad = 0, e;
	u64 jd;
	int ret;

	lockdep_assert_held(&l->msg.post_mutex);
	if (!hixl_stage_peer_get(l, &pr)) {
		*failed = idx[at.i];
		return -EPROTO;
	}
	while (at.i < n && k < HIXL_STAGE_MAX_ENTS && used < pr.cap) {
		const struct hixl_op_desc *x = &d[idx[at.i]];
		u64 len = min_t(u64, x->len - at.done, pr.cap - used);

		list[k].addr = cpu_to_le64(x->remote_addr + at.done);
		list[k].len = cpu_to_le64(len);
		owner[k] = idx[at.i];
		if (op == HIXL_OP_WRITE &&
		    hixl_stbuf_user(&l->stage.tx, HIXL_STAGE_LIST + used, x->local_addr + at.done,
				    len, true, miss_addr, miss_len)) {
			*failed = idx[at.i];
			return 1;
		}
		used += len;
		at.done += len;
		k++;
		if (at.done == x->len) {
			at.i++;
			at.done = 0;
		}
	}
	hixl_sync_for_device(l->eng->rdma->ibdev, &l->stage.tx.sgt);
	ret = hixl_stage_rdma(l, &pr, true, 0, op == HIXL_OP_WRITE ? HIXL_STAGE_LIST + used :
							       HIXL_STAGE_LIST);
	if (!ret)
		ret = hixl_stage_request(l, op == HIXL_OP_WRITE ? HIXL_STAGE_SCATTER :
							     HIXL_STAGE_GATHER, k, deadline, &bad);
	if (ret) {
		*failed = bad < k ? owner[bad] : idx[pos->i];
		return ret;
	}
	if (op == HIXL_OP_READ) {
		ret = hixl_stage_rdma(l, &pr, false, HIXL_STAGE_LIST, used);
		if (ret) {
			*failed = idx[pos->i];
			return ret;
		}
		hixl_sync_for_cpu(l->eng->rdma->ibdev, &l->stage.tx.sgt);
		off = HIXL_STAGE_LIST;
		jd = pos->done;
		for (e = 0; e < k; e++) {
			u64 len = le64_to_cpu(list[e].len);

			if (hixl_stbuf_user(&l->stage.tx, off, d[owner[e]].local_addr + jd, len,
					    false, miss_addr, miss_len)) {
				*failed = owner[e];
				return 1;	/* a READ round is run again whole */
			}
			off += len;
			jd += len;
			if (jd == d[owner[e]].len)
				jd = 0;
		}
	}
	*pos = at;
	return 0;
}

/**
 * hixl_stage_run() - move the staged descriptors of a TRANSFER
 * @l:        a link that can stage; post_mutex not held
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @d:        the descriptors
 * @idx:      indices into @d of the staged ones
 * @n:        count of @idx
 * @deadline: jiffies
 * @cancelled: asked between rounds whether to stop; may be NULL
 * @ctx:      @cancelled's argument
 * @failed:   out: the failing descriptor's index
 *
 * A round runs under post_mutex without faulting; a missing page is faulted
 * in with the mutex dropped and the round rerun, as filemap's writes.
 * Context: process context with the TRANSFER's mm, sleeps.
 * Return: 0; -EFAULT local range unusable; the peer's -ERANGE, -EACCES,
 * -EPROTO or -EREMOTEIO; -EPROTO no room; -ETIMEDOUT; -EINTR; -ECANCELED;
 * -ENOMEM; or a link error.
 */
int hixl_stage_run(struct hixl_link *l, u32 op, const struct hixl_op_desc *d, const u32 *idx,
		   u32 n, unsigned long deadline, bool (*cancelled)(void *ctx), void *ctx,
		   u32 *failed)
{
	struct hixl_stage_pos pos = { 0, 0 };
	size_t miss_len = 0;
	u64 miss_addr = 0;
	u32 *owner;
	int ret = 0, err;

	owner = kvmalloc_array(HIXL_STAGE_MAX_ENTS, sizeof(*owner), GFP_KERNEL);
	if (!owner)
		return -ENOMEM;
	while (pos.i < n) {
		if (fatal_signal_pending(current) || (cancelled && cancelled(ctx))) {
			ret = fatal_signal_pending(current) ? -EINTR : -ECANCELED;
			*failed = idx[pos.i];
			break;
		}
		mutex_lock(&l->msg.post_mutex);
		if (hixl_link_state(l, &err) != HIXL_LINK_READY) {
			ret = err ? err : -ECONNRESET;
			*failed = idx[pos.i];
		} else {
			ret = hixl_stage_round(l, op, d, idx, n, deadline, owner, &pos, failed,
					       &miss_addr, &miss_len);
		}
		mutex_unlock(&l->msg.post_mutex);
		if (ret < 0)
			break;
		if (ret == 1) {
			ret = hixl_stage_fault_in(miss_addr, miss_len, op == HIXL_OP_WRITE);
			if (!ret && !hixl_jiffies_left(deadline))
				ret = -ETIMEDOUT;
			if (ret)
				break;
		}
	}
	kvfree(owner);
	return ret;
}

/* Activate the staging MRs; post_mutex held. */
int hixl_stage_register(struct hixl_link *l)
{
	struct ib_reg_wr tx = {
		.wr.opcode = IB_WR_REG_MR, .access = IB_ACCESS_LOCAL_WRITE,
	};
	struct ib_reg_wr rx = {
		.wr.opcode = IB_WR_REG_MR,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	if (!l->stage.tx.mr)
		return 0;
	tx.mr = l->stage.tx.mr;
	tx.key = l->stage.tx.mr->rkey;
	rx.mr = l->stage.rx.mr;
	rx.key = l->stage.rx.mr->rkey;
	ret = hixl_post_wait(l, &tx.wr);
	if (!ret)
		ret = hixl_post_wait(l, &rx.wr);
	return ret;
}

/* Staging buffers for a link if the pool has two credits; else unstaged. */
void hixl_link_stage_alloc(struct hixl_link *l)
{
	struct hixl_rdma *rd = l->eng->rdma;
	size_t size = ALIGN((size_t)rd->pool_buffer_mb << 20, SZ_2M);

	if (!rd->pool_buffers || !atomic_add_unless(&l->eng->pool_free, -1, 0))
		return;
	if (!atomic_add_unless(&l->eng->pool_free, -1, 0)) {
		atomic_inc(&l->eng->pool_free);
		return;
	}
	if (hixl_stbuf_alloc(l, &l->stage.tx, size) || hixl_stbuf_alloc(l, &l->stage.rx, size)) {
		hixl_link_warn(l, "no memory for the link's staging buffers; staging off on it\n");
		hixl_stbuf_free(rd->ibdev, &l->stage.tx);
		atomic_add(2, &l->eng->pool_free);
	}
}

/* The peer asks us to scatter or gather its staged entries. */
int hixl_rx_stage_req(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_stage_req *q = buf;

	if (!l->stage.rx.mr ||
	    le32_to_cpu(q->count) > HIXL_STAGE_MAX_ENTS ||
	    le32_to_cpu(q->op) > HIXL_STAGE_GATHER)
		return -EPROTO;
	spin_lock(&l->lock);
	if (l->stage.busy) {	/* one at a time: the work reads the fields */
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	l->stage.busy = true;
	l->stage.req_op = le32_to_cpu(q->op);
	l->stage.req_count = le32_to_cpu(q->count);
	l->stage.req_seq = le64_to_cpu(q->seq);
	spin_unlock(&l->lock);
	hixl_link_queue(l, &l->stage.work);
	return 0;
}

/* The peer's answer to our STAGE_REQ; one for another sequence is ignored. */
int hixl_rx_stage_done(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_stage_done *a = buf;

	spin_lock(&l->lock);
	if (le64_to_cpu(a->seq) == l->stage.seq && !l->stage.answered) {
		l->stage.status = hixl_stage_status(le32_to_cpu(a->status));
		l->stage.failed = le32_to_cpu(a->failed);
		l->stage.answered = true;
	}
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	return 0;
}
