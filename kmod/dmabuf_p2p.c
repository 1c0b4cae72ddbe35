// SPDX-License-Identifier: GPL-2.0
/*
 * dmabuf_p2p.c - a device region on an RDMA device that DMAs: one pinned,
 * peer-to-peer dma-buf attachment per rail device, its MRs built over the
 * importer's scatterlist, as ib_umem_dmabuf_get_pinned() does
 * (drivers/infiniband/core/umem_dmabuf.c)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/scatterlist.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "engine.h"
#include "region.h"

/*
 * The exporter moves or revokes the buffer.  The attachment is pinned, so
 * only a revocation comes here: the region is invalid at once (no new
 * transfer is planned on it) and the engine's inval_work drops its MRs and
 * this attachment: the dma_resv lock is held here, and the engine lock is
 * never taken under it.
 */
static void hixl_p2p_move_notify(struct dma_buf_attachment *attach)
{
	struct hixl_region *r = attach->importer_priv;
	bool newly_invalid = false;

	spin_lock(&r->lock);
	if (r->live && !r->invalid) {
		r->event = MMU_NOTIFY_UNMAP;
		WRITE_ONCE(r->invalid, true);
		WRITE_ONCE(r->suspect, false);
		newly_invalid = true;
	}
	spin_unlock(&r->lock);
	if (newly_invalid) {
		hixl_region_invalidated(r);
		queue_work(r->eng->wq, &r->eng->inval_work);
	}
}

static const struct dma_buf_attach_ops hixl_p2p_ops = {
	.allow_peer2peer = true,
	.move_notify = hixl_p2p_move_notify,
};

static int hixl_p2p_err(struct device *dev, const char *step, int err)
{
	pr_debug_ratelimited("REG_MEM: the exporter cannot %s the dma-buf peer-to-peer for %s: %d%s\n",
			     step, dev_name(dev), err,
			     err == -EOPNOTSUPP ? " (no P2P path between them)" : "");
	return err;
}

/*
 * Call @fn (may be NULL) on each DMA piece of bytes [@off, @off + @len) of
 * a mapping, in order; return the bytes of the range past its end (0: all
 * of it is mapped).
 */
static u64 hixl_p2p_walk(const struct sg_table *sgt, u64 off, u64 len,
			 void (*fn)(void *arg, dma_addr_t dma, u64 n), void *arg)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		u64 l = sg_dma_len(sg), c;

		if (!len)
			break;
		if (off >= l) {
			off -= l;
			continue;
		}
		c = min(l - off, len);
		if (fn)
			fn(arg, sg_dma_address(sg) + off, c);
		off = 0;
		len -= c;
	}
	return len;
}

/**
 * hixl_p2p_map() - attach a device region's dma-buf to an RDMA device
 * @r:       a device region after hixl_dmabuf_map(); engine lock held
 * @ms:      the rail's MR set; out: @ms->p2p and @ms->p2p_sgt
 * @dma_dev: the RDMA device's DMA device (struct ib_device.dma_device)
 *
 * Attaches with peer-to-peer allowed, pins and maps the whole buffer for
 * @dma_dev under its dma_resv lock, and waits for its kernel fences.
 * Context: process context, may sleep.
 * Return: 0; -EINVAL the mapping is shorter than the region; the
 * exporter's attach, pin or map error (-EOPNOTSUPP: no peer-to-peer path
 * between it and @dma_dev), logged with its step.
 */
int hixl_p2p_map(struct hixl_region *r, struct hixl_mrset *ms, struct device *dma_dev)
{
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	long wait;
	u64 short_by;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	attach = dma_buf_dynamic_attach(r->dmabuf, dma_dev, &hixl_p2p_ops, r);
	if (IS_ERR(attach))
		return hixl_p2p_err(dma_dev, "attach", PTR_ERR(attach));
	dma_resv_lock(r->dmabuf->resv, NULL);
	ret = dma_buf_pin(attach);
	if (ret) {
		dma_resv_unlock(r->dmabuf->resv);
		dma_buf_detach(r->dmabuf, attach);
		return hixl_p2p_err(dma_dev, "pin", ret);
	}
	sgt = dma_buf_map_attachment(attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		dma_buf_unpin(attach);
		dma_resv_unlock(r->dmabuf->resv);
		dma_buf_detach(r->dmabuf, attach);
		return hixl_p2p_err(dma_dev, "map", PTR_ERR(sgt));
	}
	/* the exporter's moves into place, as ib_umem_dmabuf_map_pages() */
	wait = dma_resv_wait_timeout(r->dmabuf->resv, DMA_RESV_USAGE_KERNEL, false,
				     MAX_SCHEDULE_TIMEOUT);
	dma_resv_unlock(r->dmabuf->resv);
	ms->p2p = attach;
	ms->p2p_sgt = sgt;
	if (wait < 0) {
		hixl_p2p_unmap(ms);
		return wait;
	}
	short_by = hixl_p2p_walk(sgt, r->dmabuf_offset, r->len, NULL, NULL);
	if (short_by) {
		hixl_p2p_unmap(ms);
		return hixl_einval("REG_MEM: the dma-buf's exporter mapped %llu bytes too few for %s, the region needs %llu",
				   short_by, dev_name(dma_dev), r->dmabuf_offset + r->len);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_p2p_map);

/**
 * hixl_p2p_unmap() - undo hixl_p2p_map(); no-op when nothing is mapped
 * @ms: the MR set, its MRs released
 * Context: process context, may sleep; not under the buffer's dma_resv lock.
 */
void hixl_p2p_unmap(struct hixl_mrset *ms)
{
	struct dma_buf_attachment *attach = ms->p2p;
	struct dma_buf *dmabuf;

	if (!attach)
		return;
	dmabuf = attach->dmabuf;
	dma_resv_lock(dmabuf->resv, NULL);
	dma_buf_unmap_attachment(attach, ms->p2p_sgt, DMA_BIDIRECTIONAL);
	dma_buf_unpin(attach);
	dma_resv_unlock(dmabuf->resv);
	dma_buf_detach(dmabuf, attach);
	ms->p2p = NULL;
	ms->p2p_sgt = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_p2p_unmap);

static void hixl_p2p_count(void *arg, dma_addr_t dma, u64 n)
{
	(*(unsigned int *)arg)++;
}

static void hixl_p2p_fill(void *arg, dma_addr_t dma, u64 n)
{
	struct scatterlist **d = arg;

	sg_dma_address(*d) = dma;
	sg_dma_len(*d) = n;
	*d = sg_next(*d);
}

/**
 * hixl_p2p_slice() - the DMA segments of one byte range of a mapping
 * @src: a DMA-mapped table (dma_buf_map_attachment()'s)
 * @off: bytes from the start of the mapping
 * @len: bytes, > 0
 * @dst: out: a new table of DMA addresses and lengths only (no pages),
 *       for ib_map_mr_sg(); sg_free_table() it
 * Context: may sleep (GFP_KERNEL).
 * Return: 0; -EINVAL the range runs past the mapping; -ENOMEM.
 */
int hixl_p2p_slice(const struct sg_table *src, u64 off, u64 len, struct sg_table *dst)
{
	struct scatterlist *d;
	unsigned int n = 0;
	int ret;

	if (hixl_p2p_walk(src, off, len, hixl_p2p_count, &n) || !n)
		return -EINVAL;
	ret = sg_alloc_table(dst, n, GFP_KERNEL);
	if (ret)
		return ret;
	d = dst->sgl;
	hixl_p2p_walk(src, off, len, hixl_p2p_fill, &d);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_p2p_slice);

static void hixl_p2p_pgsz(void *arg, dma_addr_t dma, u64 n)
{
	hixl_pgsz_add(arg, dma, n);
}

/**
 * hixl_p2p_shift() - the largest MR page size of a mapped range
 * @sgt: a DMA-mapped table
 * @off: bytes from its start where the range begins
 * @len: bytes, > 0, within the mapping
 * @va:  the range's first address (the region's)
 * Return: log2 of the largest page size at most 1 GiB that fits the
 * range's DMA layout (hixl_pgsz_add()); PAGE_SHIFT at least for a layout
 * of whole pages.
 */
unsigned int hixl_p2p_shift(const struct sg_table *sgt, u64 off, u64 len, u64 va)
{
	struct hixl_pgsz pgsz;

	hixl_pgsz_init(&pgsz, va);
	hixl_p2p_walk(sgt, off, len, hixl_p2p_pgsz, &pgsz);
	return hixl_pgsz_shift(&pgsz, HIXL_MAX_PAGE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_p2p_shift);

/**
 * hixl_region_p2p() - has a region a peer-to-peer attachment on some rail?
 * @r: the region; engine lock held
 * Return: true when one of its MR sets holds one.
 */
bool hixl_region_p2p(struct hixl_region *r)
{
	u32 i;

	for (i = 0; i < HIXL_MAX_RAILS; i++)
		if (hixl_region_mrset(r, i)->p2p)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_region_p2p);
