// SPDX-License-Identifier: GPL-2.0
/*
 * mr.c - fast-registration MRs for registered regions.
 *
 * Each region becomes as few MRs as the device allows: the MR page size is
 * the largest the region's physical layout allows (region.c) that the
 * device supports (attrs.page_size_cap), and one MR holds at most
 * attrs.max_fast_reg_page_list_len pages of it (rxe: 512), so 1 GiB of
 * 2 MiB pages is one or two MRs rather than the 512 that 4 KiB pages need.
 * MRs are allocated with ib_alloc_mr(IB_MR_TYPE_MEM_REG) and mapped with
 * ib_map_mr_sg(), as nvme-rdma does (drivers/nvme/host/rdma.c); the
 * IB_WR_REG_MR work request that activates one is posted on a link's QP
 * before the link first uses it.  Never a global rkey.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "hixl_priv.h"

/**
 * hixl_mr_shift() - the MR page size for a region on a device
 * @region_shift:  log2 of the largest page size the region's layout allows
 * @page_size_cap: page sizes the device supports (bit n: 2^n bytes)
 *
 * Return: log2 of the largest supported size <= 2^@region_shift, or 0 when
 * the device supports none.
 */
unsigned int hixl_mr_shift(unsigned int region_shift, u64 page_size_cap)
{
	u64 allowed = page_size_cap & GENMASK_ULL(region_shift, 0);

	return allowed ? fls64(allowed) - 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_mr_shift);

/**
 * hixl_mr_count() - MRs needed for a range
 * @addr:      first byte
 * @len:       bytes, > 0
 * @shift:     log2 of the MR page size
 * @max_pages: pages per MR, > 0
 *
 * MR boundaries fall every @max_pages pages, counted from @addr rounded
 * down to the page size.
 */
u32 hixl_mr_count(u64 addr, u64 len, unsigned int shift, u32 max_pages)
{
	return DIV_ROUND_UP_ULL(hixl_pages_spanned(addr, len, shift), max_pages);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_mr_count);

/**
 * hixl_mr_zero_base() - make a mapped MR's RDMA addresses start near zero
 * @mr:        a fast-registration MR after ib_map_mr_sg(), before the
 *             IB_WR_REG_MR that activates it is posted
 * @page_size: the page size it was mapped with (a power of two, bytes)
 *
 * ib_map_mr_sg() sets @mr->iova to the DMA address of the first byte,
 * which on software devices (rxe, siw) is a kernel virtual address: sent
 * to a peer in REGION or HELLO, it would tell the peer where the kernel's
 * memory lies (KASLR).  Only the offset of the first byte in its MR page
 * is kept, so the MR's addresses run from that offset (< @page_size).
 * A consumer may choose the iova between mapping and registering, as
 * xprtrdma does (frwr_map()); drivers register @mr->iova as the WR's MR
 * carries it (rxe_reg_fast_mr()) and translate addresses relative to it
 * plus the first page's offset, which is unchanged.  Local SGEs use the
 * same zero-based addresses with the MR's lkey.
 */
void hixl_mr_zero_base(struct ib_mr *mr, u64 page_size)
{
	mr->iova &= page_size - 1;
}

static void hixl_mr_release(struct ib_device *ibdev, struct hixl_mr *m)
{
	if (m->mr)
		ib_dereg_mr(m->mr);
	if (m->dma_mapped)
		ib_dma_unmap_sgtable_attrs(ibdev, &m->sgt, DMA_BIDIRECTIONAL, 0);
	if (m->sgt.sgl)
		sg_free_table(&m->sgt);
	memset(m, 0, sizeof(*m));
}

static int hixl_mr_make(struct hixl_rdma *rd, struct hixl_region *r, struct hixl_mr *m,
			u64 start, u64 end, unsigned int shift)
{
	u64 first4k = ALIGN_DOWN(r->addr, PAGE_SIZE);
	int ret, mapped;

	m->addr = start;
	m->len = end - start;
	/* one entry per physically contiguous run (at most 1 GiB each) */
	ret = hixl_runs_sg_table(&r->runs, &m->sgt, start - first4k, end - start, SZ_1G);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(rd->ibdev, &m->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		return ret;
	m->dma_mapped = true;
	/*
	 * Size each MR for the pages it holds, not for the device maximum:
	 * rxe keeps a 4 KiB page map per MR (512 x 1 GiB pages would need a
	 * 2 GiB allocation), and hardware spends translation entries on it.
	 */
	m->mr = ib_alloc_mr(rd->pd, IB_MR_TYPE_MEM_REG,
			    hixl_pages_spanned(start, end - start, shift));
	if (IS_ERR(m->mr)) {
		ret = PTR_ERR(m->mr);
		m->mr = NULL;
		return ret;
	}
	mapped = ib_map_mr_sg(m->mr, m->sgt.sgl, m->sgt.nents, NULL, 1U << shift);
	if (mapped != m->sgt.nents)
		return mapped < 0 ? mapped : -EINVAL;
	hixl_mr_zero_base(m->mr, 1U << shift);
	return 0;
}

static int hixl_make_mrs_shift(struct hixl_rdma *rd, struct hixl_region *r, unsigned int shift)
{
	u64 psz = 1ULL << shift, span = psz * rd->max_mr_pages;
	u64 base = ALIGN_DOWN(r->addr, psz);
	/*
	 * MR borders as offsets from @base: a device region's address is any
	 * 64-bit device VA, and base + (i + 1) * span may wrap near 2^64
	 * where base + (offset of the region's end) cannot.
	 */
	u64 first = r->addr - base, last = first + r->len;
	u32 i, n = hixl_mr_count(r->addr, r->len, shift, rd->max_mr_pages);
	struct hixl_mr *mrs;
	int ret = 0;

	mrs = kvcalloc(n, sizeof(*mrs), GFP_KERNEL_ACCOUNT);
	if (!mrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = hixl_mr_make(rd, r, &mrs[i], base + max(first, i * span),
				   base + min(last, (i + 1) * span), shift);
		if (ret) {
			i++;	/* release the partly made one too */
			break;
		}
		cond_resched();
	}
	if (ret) {
		while (i--)
			hixl_mr_release(rd->ibdev, &mrs[i]);
		kvfree(mrs);
		return ret;
	}
	r->spans = kvcalloc(n, sizeof(*r->spans), GFP_KERNEL_ACCOUNT);
	if (!r->spans) {
		for (i = 0; i < n; i++)
			hixl_mr_release(rd->ibdev, &mrs[i]);
		kvfree(mrs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		r->spans[i].addr = mrs[i].addr;
		r->spans[i].len = mrs[i].len;
		r->spans[i].iova = mrs[i].mr->iova;
		r->spans[i].rkey = mrs[i].mr->lkey;
	}
	r->mrs = mrs;
	r->nr_mrs = n;
	r->mr_shift = shift;
	atomic64_add(n, &r->eng->st_mrs);
	return 0;
}

/**
 * hixl_region_make_mrs_on() - make the MRs of a region on a given device side
 * @r:  a region whose pages are pinned; its engine's lock held
 * @rd: the device side to make them on: the engine's own, or the one
 *      HIXL_IOC_SETUP is building and has not published yet; NULL: no-op;
 *      a loopback engine's (no device): no-op for host memory, and
 *      -EOPNOTSUPP for device memory
 *
 * A no-op without @rd and for regions that already have MRs.  Device (dma-buf) regions need a software RDMA device, whose MRs
 * take the buffer's CPU pages (hixl_dmabuf_pages()).  When the device's DMA
 * layout does not follow the physical one (an IOMMU), the large page size
 * cannot map and 4 KiB pages are used instead.
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP when the device supports no page size the region
 * can use, or cannot map device memory; -ENOMEM; the device's -errno from
 * ib_alloc_mr()/ib_map_mr_sg().
 */
int hixl_region_make_mrs_on(struct hixl_region *r, struct hixl_rdma *rd)
{
	unsigned int shift;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (!rd || r->nr_mrs)
		return 0;
	if (rd->loopback)	/* no device: host pages only, dma-buf refused */
		return r->type == HIXL_MEM_DEVICE ? -EOPNOTSUPP : 0;
	if (r->type == HIXL_MEM_DEVICE) {
		if (!ib_uses_virt_dma(rd->ibdev))
			return -EOPNOTSUPP;
		ret = hixl_dmabuf_pages(r);
		if (ret)
			return ret;
	}
	if (!hixl_region_has_pages(r))
		return 0;	/* invalidated: no pages, no MRs */
	shift = hixl_mr_shift(r->page_shift, rd->page_size_cap);
	if (shift < PAGE_SHIFT)
		return -EOPNOTSUPP;
	ret = hixl_make_mrs_shift(rd, r, shift);
	if (ret == -EINVAL && shift > PAGE_SHIFT)
		ret = hixl_make_mrs_shift(rd, r, PAGE_SHIFT);
	return ret;
}

/**
 * hixl_region_make_mrs() - make the MRs of a region on the engine's device
 * @r: a region whose pages are pinned; its engine's lock held
 *
 * hixl_region_make_mrs_on() with the engine's published device side: a
 * no-op before SETUP (no device yet).
 *
 * Context: process context, may sleep.
 * Return: as hixl_region_make_mrs_on().
 */
int hixl_region_make_mrs(struct hixl_region *r)
{
	lockdep_assert_held(&r->eng->lock);
	return hixl_region_make_mrs_on(r, r->eng->rdma);
}

/**
 * hixl_region_free_mrs_on() - release a region's MRs made on a given device side
 * @r:  the region; its engine's lock held
 * @rd: the device side they were made on (hixl_region_make_mrs_on())
 *
 * A no-op for a region without MRs.
 *
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs_on(struct hixl_region *r, struct hixl_rdma *rd)
{
	u32 i;

	lockdep_assert_held(&r->eng->lock);
	if (!r->nr_mrs)
		return;
	for (i = 0; i < r->nr_mrs; i++)
		hixl_mr_release(rd->ibdev, &r->mrs[i]);
	atomic64_sub(r->nr_mrs, &r->eng->st_mrs);
	kvfree(r->mrs);
	kvfree(r->spans);
	r->mrs = NULL;
	r->spans = NULL;
	r->nr_mrs = 0;
	r->mr_shift = 0;
	r->mrs_registered = false;
}

/**
 * hixl_region_free_mrs() - release a region's MRs (before its pages go)
 * @r: the region; its engine's lock held
 *
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs(struct hixl_region *r)
{
	lockdep_assert_held(&r->eng->lock);
	if (r->nr_mrs)
		hixl_region_free_mrs_on(r, r->eng->rdma);
}
