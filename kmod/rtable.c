// SPDX-License-Identifier: GPL-2.0
/* rtable.c - the peer's region table: REGION, REGION_DEL and our TABLE_ACKs */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/maple_tree.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "keepalive.h"
#include "msg.h"
#include "rtable.h"
#include "proto.h"

unsigned int hixl_max_engine_peer_mrs = 1U << 20;
module_param_named(max_engine_peer_mrs, hixl_max_engine_peer_mrs, uint, 0644);
MODULE_PARM_DESC(max_engine_peer_mrs, "MR entries the peer tables of all of an engine's links may hold together (default 1048576: 32 MiB)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_engine_peer_mrs);

/**
 * hixl_peer_mrs_charge() - charge a peer table's MR entries to its engine
 * @eng: the engine of the link whose table grows
 * @nr:  entries
 * Context: any.
 * Return: 0; -ENOSPC (nothing charged) above hixl_max_engine_peer_mrs.
 */
int hixl_peer_mrs_charge(struct hixl_engine *eng, u32 nr)
{
	if (atomic64_add_return(nr, &eng->peer_mrs) > READ_ONCE(hixl_max_engine_peer_mrs)) {
		atomic64_sub(nr, &eng->peer_mrs);
		return -ENOSPC;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_peer_mrs_charge);

/**
 * hixl_peer_mrs_uncharge() - undo hixl_peer_mrs_charge()
 * @eng: the engine
 * @nr:  entries leaving a peer's table
 */
void hixl_peer_mrs_uncharge(struct hixl_engine *eng, u32 nr)
{
	atomic64_sub(nr, &eng->peer_mrs);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_peer_mrs_uncharge);

/**
 * hixl_rtable_clear() - forget the peer's whole table
 * @l: the link
 */
void hixl_rtable_clear(struct hixl_link *l)
{
	struct hixl_rregion *rr;
	unsigned long idx = 0;

	mutex_lock(&l->rt.lock);
	mt_for_each(&l->rt.tree, rr, idx, ULONG_MAX)
		kvfree(rr);
	mtree_destroy(&l->rt.tree);
	hixl_peer_mrs_uncharge(l->eng, l->rt.mrs);
	l->rt.regions = 0;
	l->rt.mrs = 0;
	mutex_unlock(&l->rt.lock);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rtable_clear);

/* Take one region out of the peer's table and free it; rt.lock held. */
static void hixl_rtable_erase(struct hixl_link *l, struct hixl_rregion *rr)
{
	lockdep_assert_held(&l->rt.lock);
	mtree_erase(&l->rt.tree, rr->addr);
	l->rt.regions--;
	l->rt.mrs -= rr->nr_mrs;
	hixl_peer_mrs_uncharge(l->eng, rr->nr_mrs);
	kvfree(rr);
}

/*
 * Enter MR entries [@first, @first + @count) of the peer's region @addr,
 * @rlen of @nr MRs; one of another shape at the same address is replaced.
 * rt.lock held.
 */
static int hixl_rtable_put(struct hixl_link *l, u64 addr, u64 rlen, u32 flags, u32 nr,
			   u32 first, u32 count, const struct hixl_wire_mr *mrs)
{
	struct hixl_rregion *rr;
	u32 i;
	int ret;

	lockdep_assert_held(&l->rt.lock);
	if (!nr || first > nr || count > nr - first || hixl_range_check(addr, rlen) ||
	    nr > hixl_pages_spanned(addr, rlen, 12))
		return -EPROTO;
	rr = mtree_load(&l->rt.tree, addr);
	if (!rr || rr->addr != addr || rr->len != rlen || rr->nr_mrs != nr) {
		if (rr)		/* replaced by a new registration at the same place */
			hixl_rtable_erase(l, rr);
		if (l->rt.regions >= READ_ONCE(hixl_max_regions) ||
		    nr > READ_ONCE(hixl_max_peer_mrs) - min(l->rt.mrs,
							     READ_ONCE(hixl_max_peer_mrs)))
			return -ENOSPC;
		ret = hixl_peer_mrs_charge(l->eng, nr);	/* the engine's links together */
		if (ret)
			return ret;
		rr = kvzalloc(struct_size(rr, mrs, nr), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!rr) {
			hixl_peer_mrs_uncharge(l->eng, nr);
			return -ENOMEM;
		}
		rr->addr = addr;
		rr->len = rlen;
		rr->seq = l->rt.seq++;
		rr->nr_mrs = nr;
		rr->writable = flags & HIXL_WIRE_REGION_WRITABLE;
		rr->device = flags & HIXL_WIRE_REGION_DEVICE;
		ret = mtree_insert_range(&l->rt.tree, addr, addr + rlen - 1, rr,
					 GFP_KERNEL_ACCOUNT);
		if (ret) {
			hixl_peer_mrs_uncharge(l->eng, nr);
			kvfree(rr);
			return ret;
		}
		l->rt.regions++;
		l->rt.mrs += nr;
	}
	for (i = 0; i < count; i++) {
		struct hixl_rmr *d = &rr->mrs[first + i];

		d->addr = le64_to_cpu(mrs[i].addr);
		d->len = le64_to_cpu(mrs[i].len);
		d->iova = le64_to_cpu(mrs[i].iova);
		d->rkey = le32_to_cpu(mrs[i].rkey);
	}
	rr->got = max(rr->got, first + count);
	return 0;
}

/**
 * hixl_rx_region() - apply a REGION message to the peer's table
 * @l:   the link
 * @m:   the message
 * @len: its length as received, bytes
 *
 * A region may span several messages and is usable once all its MRs came;
 * one of another shape at the same address is replaced.
 * Return: 0; -EPROTO malformed; -EEXIST overlap; -ENOSPC over a bound;
 * -ENOMEM.
 */
VISIBLE_IF_KUNIT int hixl_rx_region(struct hixl_link *l, const struct hixl_wire_region *m, u32 len)
{
	u32 count = le32_to_cpu(m->count);
	int ret;

	if (len < sizeof(*m) || count > HIXL_WIRE_MRS_PER_MSG || len < struct_size(m, mrs, count))
		return -EPROTO;
	mutex_lock(&l->rt.lock);
	ret = hixl_rtable_put(l, le64_to_cpu(m->addr), le64_to_cpu(m->len),
			      le32_to_cpu(m->flags), le32_to_cpu(m->nr_mrs),
			      le32_to_cpu(m->first), count, m->mrs);
	mutex_unlock(&l->rt.lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_region);

/**
 * hixl_rx_regions() - apply a REGIONS message: whole regions, packed
 * @l:   the link
 * @m:   the message
 * @len: its length as received, bytes, at most HIXL_MSG_SIZE
 *
 * The entries before a bad one stay applied; the link closes anyway.
 * Return: as hixl_rx_region(); -EPROTO also for unknown flags, reserved
 * fields not zero, or bytes beyond the last entry.
 */
VISIBLE_IF_KUNIT int hixl_rx_regions(struct hixl_link *l, const struct hixl_wire_regions *m,
				     u32 len)
{
	const u32 known = HIXL_WIRE_REGION_WRITABLE | HIXL_WIRE_REGION_DEVICE;
	u32 count = le32_to_cpu(m->count), off = sizeof(*m), i, j, nr, flags;
	const struct hixl_wire_region_ent *e;
	int ret = 0;

	if (len < sizeof(*m) || len > HIXL_MSG_SIZE || !count || m->reserved)
		return -EPROTO;
	mutex_lock(&l->rt.lock);
	for (i = 0; i < count && !ret; i++) {
		e = (const void *)m + off;
		if (len - off < sizeof(*e)) {
			ret = -EPROTO;
			break;
		}
		nr = le32_to_cpu(e->nr_mrs);
		flags = le32_to_cpu(e->flags);
		if (nr > (len - off - sizeof(*e)) / sizeof(e->mrs[0]) || (flags & ~known)) {
			ret = -EPROTO;
			break;
		}
		for (j = 0; j < nr; j++)
			if (e->mrs[j].reserved)
				ret = -EPROTO;
		if (!ret)
			ret = hixl_rtable_put(l, le64_to_cpu(e->addr), le64_to_cpu(e->len), flags,
					      nr, 0, nr, e->mrs);
		off += struct_size(e, mrs, nr);
	}
	if (!ret && off != len)
		ret = -EPROTO;	/* bytes no entry covers */
	mutex_unlock(&l->rt.lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_regions);

/**
 * hixl_rx_region_del() - apply a REGION_DEL message: forget one region
 * @l: the link
 * @m: the message; a range starting no region is ignored
 */
VISIBLE_IF_KUNIT void hixl_rx_region_del(struct hixl_link *l, const struct hixl_wire_region_del *m)
{
	u64 addr = le64_to_cpu(m->addr);
	struct hixl_rregion *rr;

	mutex_lock(&l->rt.lock);
	rr = mtree_load(&l->rt.tree, addr);
	if (rr && rr->addr == addr)
		hixl_rtable_erase(l, rr);
	mutex_unlock(&l->rt.lock);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_region_del);

/* Post one TABLE_ACK; an inline SEND, so a stack buffer is fine. */
static int hixl_ack_post(struct hixl_link *l, u64 applied)
{
	struct hixl_wire_ack a = {};
	struct ib_sge sge = { .addr = (uintptr_t)&a, .length = sizeof(a) };
	/*
	 * Fenced behind our earlier RDMA READs: the peer frees a removed
	 * region's MRs on this ACK, and a retried READ may still hit them.
	 */
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
		.wr_cqe = &l->ack_cqe,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE | IB_SEND_FENCE,
	};

	hixl_wire_hdr_fill(&a.hdr, HIXL_MSG_TABLE_ACK, sizeof(a));
	a.applied = cpu_to_le64(applied);
	return ib_post_send(l->qp, &wr, NULL);
}

/* A TABLE_ACK completed: send the count asked for meanwhile, if any. */
void hixl_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = container_of(wc->wr_cqe, struct hixl_link, ack_cqe);
	u64 next = 0;

	if (wc->status == IB_WC_RETRY_EXC_ERR)
		hixl_link_lost(l, "table acknowledgment");
	if (wc->status != IB_WC_SUCCESS)
		return;		/* flushed: the link is going; nothing more is sent */
	hixl_link_alive(l);
	spin_lock(&l->xq.lock);
	if (l->ack_next > l->ack_sent) {
		next = l->ack_next;
		l->ack_sent = next;
	} else {
		l->ack_busy = false;
	}
	spin_unlock(&l->xq.lock);
	if (next && hixl_ack_post(l, next))
		hixl_link_fail(l, -ECONNRESET);
}

/**
 * hixl_table_ack() - tell the peer how many of its table messages are applied
 * @l:       the link
 * @applied: REGION/REGION_DEL messages applied, cumulative
 *
 * Does not wait; at most one is in flight, hixl_ack_done() sends the next.
 * Context: any; takes @l->xq.lock.
 * Return: 0 if sent or queued, or ib_post_send()'s -errno.
 */
int hixl_table_ack(struct hixl_link *l, u64 applied)
{
	int ret;

	spin_lock(&l->xq.lock);
	if (l->ack_busy) {
		l->ack_next = max(l->ack_next, applied);
		spin_unlock(&l->xq.lock);
		return 0;
	}
	l->ack_busy = true;
	l->ack_sent = max(l->ack_sent, applied);
	spin_unlock(&l->xq.lock);
	ret = hixl_ack_post(l, applied);
	if (ret) {
		spin_lock(&l->xq.lock);
		l->ack_busy = false;
		spin_unlock(&l->xq.lock);
	}
	return ret;
}

/* REGION: apply it, then acknowledge (or let the transfer queue, xq.c). */
int hixl_rx_region_msg(struct hixl_link *l, const void *buf, u32 len)
{
	u64 applied;
	int ret;

	ret = hixl_rx_region(l, buf, len);
	if (!ret && !hixl_xq_ops->hold_ack(l, false, &applied))
		ret = hixl_table_ack(l, applied);
	return ret;
}

/* REGIONS: apply them, then acknowledge the message as one. */
int hixl_rx_regions_msg(struct hixl_link *l, const void *buf, u32 len)
{
	u64 applied;
	int ret;

	ret = hixl_rx_regions(l, buf, len);
	if (!ret && !hixl_xq_ops->hold_ack(l, false, &applied))
		ret = hixl_table_ack(l, applied);
	return ret;
}

/* REGION_DEL: forget the region, then acknowledge. */
int hixl_rx_region_del_msg(struct hixl_link *l, const void *buf, u32 len)
{
	u64 applied;
	int ret = 0;

	hixl_rx_region_del(l, buf);
	/* not before the pieces planned against it are posted */
	if (!hixl_xq_ops->hold_ack(l, true, &applied))
		ret = hixl_table_ack(l, applied);
	return ret;
}

/* TABLE_ACK: the peer applied this many of our table messages. */
int hixl_rx_table_ack(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_ack *m = buf;

	spin_lock(&l->lock);
	l->tbl_acked = max(l->tbl_acked, le64_to_cpu(m->applied));
	spin_unlock(&l->lock);
	wake_up_all(&l->wq);
	return 0;
}
