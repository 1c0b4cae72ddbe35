// SPDX-License-Identifier: GPL-2.0
/* mr.c - regions' fast-registration MRs, one set per rail, as nvme-rdma; no global rkey */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "rail.h"

/*
 * The most bytes one MR spans, and so its largest page: a driver may keep
 * an array of one entry per PAGE_SIZE of an MR whatever its page size
 * (rxe's page_info, 16 bytes a 4 KiB page, one kmalloc: past 4 MiB, an
 * MR of 2 MiB pages past 1 GiB, it fails with the page allocator's
 * WARNING).  256 MiB keeps that at 1 MiB, and costs a NIC 4 MRs a GiB of
 * huge pages instead of one.
 */
#define HIXL_MR_MAX_SHIFT	28

/**
 * hixl_mr_shift() - the MR page size for a region on a device
 * @region_shift:  log2 of the region's largest page size
 * @page_size_cap: device page sizes (bit n: 2^n bytes)
 * Return: log2 of the largest supported size <= 2^@region_shift and <=
 * 2^HIXL_MR_MAX_SHIFT (256 MiB), or 0.
 */
unsigned int hixl_mr_shift(unsigned int region_shift, u64 page_size_cap)
{
	u64 allowed = page_size_cap & GENMASK_ULL(min(region_shift, HIXL_MR_MAX_SHIFT), 0);

	return allowed ? fls64(allowed) - 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_mr_shift);

/**
 * hixl_mr_count() - MRs needed for a range
 * @addr:      first byte
 * @len:       bytes, > 0
 * @shift:     log2 of the MR page size
 * @max_pages: pages per MR, > 0
 * Return: the MR count.
 */
u32 hixl_mr_count(u64 addr, u64 len, unsigned int shift, u32 max_pages)
{
	return DIV_ROUND_UP_ULL(hixl_pages_spanned(addr, len, shift), max_pages);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_mr_count);

/**
 * hixl_mr_max_pages() - pages one MR of a device spans
 * @dev_max: the device's max_fast_reg_page_list_len, > 0
 * @shift:   log2 of the MR page size, <= HIXL_MR_MAX_SHIFT
 * Return: @dev_max, cut so that an MR spans at most 2^HIXL_MR_MAX_SHIFT
 * bytes (256 MiB); at least 1.
 */
u32 hixl_mr_max_pages(u32 dev_max, unsigned int shift)
{
	u64 cap = shift <= HIXL_MR_MAX_SHIFT ? 1ULL << (HIXL_MR_MAX_SHIFT - shift) : 1;

	return max_t(u64, 1, min_t(u64, dev_max, cap));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_mr_max_pages);

/**
 * hixl_mr_zero_base() - make a mapped MR's RDMA addresses start near zero
 * @mr:        after ib_map_mr_sg(), before IB_WR_REG_MR
 * @page_size: mapped page size, bytes
 *
 * A software device's iova is a kernel VA, which must not reach a peer (KASLR).
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

/* @p2p: the rail's peer-to-peer mapping of a device region, or NULL: @r's pages */
static int hixl_mr_make(const struct hixl_rail_dev *dev, struct hixl_region *r,
			const struct sg_table *p2p, struct hixl_mr *m, u64 start, u64 end,
			unsigned int shift)
{
	u64 first4k = ALIGN_DOWN(r->addr, PAGE_SIZE);
	int ret, mapped;

	m->addr = start;
	m->len = end - start;
	if (p2p) {	/* DMA addresses already, for this device */
		ret = hixl_p2p_slice(p2p, r->dmabuf_offset + (start - r->addr), end - start,
				     &m->sgt);
		if (ret)
			return ret;
	} else {
		ret = hixl_runs_sg_table(&r->runs, &m->sgt, start - first4k, end - start, SZ_1G);
		if (ret)
			return ret;
		ret = ib_dma_map_sgtable_attrs(dev->ibdev, &m->sgt, DMA_BIDIRECTIONAL, 0);
		if (ret)
			return ret;
		m->dma_mapped = true;
	}
	m->mr = ib_alloc_mr(dev->pd, IB_MR_TYPE_MEM_REG,
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

static int hixl_make_mrs_shift(const struct hixl_rail_dev *dev, struct hixl_region *r,
			       struct hixl_mrset *ms, unsigned int shift)
{
	u32 max_pages = hixl_mr_max_pages(dev->max_mr_pages, shift);
	u64 psz = 1ULL << shift, span = psz * max_pages;
	u64 base = ALIGN_DOWN(r->addr, psz);
	/* borders as offsets from @base: base + (i + 1) * span may wrap */
	u64 first = r->addr - base, last = first + r->len;
	u32 i, n = hixl_mr_count(r->addr, r->len, shift, max_pages);
	struct hixl_mr *mrs;
	int ret = 0;

	mrs = kvcalloc(n, sizeof(*mrs), GFP_KERNEL_ACCOUNT);
	if (!mrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = hixl_mr_make(dev, r, ms->p2p_sgt, &mrs[i], base + max(first, i * span),
				   base + min(last, (i + 1) * span), shift);
		if (ret) {
			i++;	/* release the partly made one too */
			break;
		}
		cond_resched();
	}
	if (ret) {
		while (i--)
			hixl_mr_release(dev->ibdev, &mrs[i]);
		kvfree(mrs);
		return ret;
	}
	ms->spans = kvcalloc(n, sizeof(*ms->spans), GFP_KERNEL_ACCOUNT);
	if (!ms->spans) {
		for (i = 0; i < n; i++)
			hixl_mr_release(dev->ibdev, &mrs[i]);
		kvfree(mrs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ms->spans[i].addr = mrs[i].addr;
		ms->spans[i].len = mrs[i].len;
		ms->spans[i].iova = mrs[i].mr->iova;
		ms->spans[i].rkey = mrs[i].mr->lkey;
	}
	ms->mrs = mrs;
	ms->nr_mrs = n;
	ms->mr_shift = shift;
	ms->mrs_registered = false;
	atomic64_add(n, &r->eng->st_mrs);
	return 0;
}

/*
 * A device region on a device that DMAs: its dma-buf attached to the device
 * peer-to-peer (dmabuf_p2p.c), MRs over that mapping at the page size its
 * layout allows.
 */
static int hixl_region_make_mrs_p2p(struct hixl_region *r, u32 rail,
				    const struct hixl_rail_dev *dev)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, rail);
	unsigned int shift;
	int ret;

	if (READ_ONCE(r->invalid))
		return 0;	/* revoked by its exporter: no MRs */
	ret = hixl_p2p_map(r, ms, dev->ibdev->dma_device);
	if (ret)
		return ret;
	shift = hixl_mr_shift(hixl_p2p_shift(ms->p2p_sgt, r->dmabuf_offset, r->len, r->addr),
			      dev->page_size_cap);
	ret = shift < PAGE_SHIFT ? -EOPNOTSUPP : hixl_make_mrs_shift(dev, r, ms, shift);
	if (ret == -EINVAL && shift > PAGE_SHIFT)
		ret = hixl_make_mrs_shift(dev, r, ms, PAGE_SHIFT);
	if (ret) {
		hixl_p2p_unmap(ms);
		return ret;
	}
	atomic64_add(ms->nr_mrs, &r->eng->st_rail_mrs[rail]);
	return 0;
}

/**
 * hixl_region_make_mrs_dev() - make a region's MRs for one rail on a device
 * @r:    a region with its pages; engine lock held
 * @rail: the rail whose MR set they go in
 * @dev:  device, PD and limits
 *
 * No-op when the rail has MRs or the region is invalidated.  Device
 * memory: on a software device (rxe, siw) over the exporter's kernel
 * mapping, on one that DMAs over a peer-to-peer attachment.
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP no usable page size, no kernel mapping (software
 * device) or no peer-to-peer path (hixl_p2p_map()); -ENOMEM;
 * ib_alloc_mr()'s or ib_map_mr_sg()'s error.
 */
int hixl_region_make_mrs_dev(struct hixl_region *r, u32 rail, const struct hixl_rail_dev *dev)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, rail);
	unsigned int shift;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (ms->nr_mrs)
		return 0;
	if (r->type == HIXL_MEM_DEVICE && !ib_uses_virt_dma(dev->ibdev))
		return hixl_region_make_mrs_p2p(r, rail, dev);
	if (r->type == HIXL_MEM_DEVICE) {	/* software RDMA: the kernel mapping's pages */
		ret = hixl_dmabuf_pages(r);
		if (ret)
			return ret;
	}
	if (!hixl_region_has_pages(r))
		return 0;	/* invalidated: no pages, no MRs */
	shift = hixl_mr_shift(r->page_shift, dev->page_size_cap);
	if (shift < PAGE_SHIFT)
		return -EOPNOTSUPP;
	ret = hixl_make_mrs_shift(dev, r, ms, shift);
	if (ret == -EINVAL && shift > PAGE_SHIFT)
		ret = hixl_make_mrs_shift(dev, r, ms, PAGE_SHIFT);
	if (!ret)
		atomic64_add(ms->nr_mrs, &r->eng->st_rail_mrs[rail]);
	return ret;
}

/**
 * hixl_region_make_mrs_rail() - make a region's MRs on one rail's device
 * @r:    a region with its pages; engine lock held
 * @rd:   the device side, possibly unpublished
 * @rail: 0..@rd->nr_rails; no-op when its device is gone
 * Context: process context, may sleep.
 * Return: as hixl_region_make_mrs_dev().
 */
int hixl_region_make_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail)
{
	struct hixl_rail_dev dev;

	lockdep_assert_held(&r->eng->lock);
	if (rd->loopback)	/* no device: host pages only, dma-buf refused */
		return r->type == HIXL_MEM_DEVICE ? -EOPNOTSUPP : 0;
	if (!hixl_rail_dev(rd, rail, &dev))
		return 0;
	return hixl_region_make_mrs_dev(r, rail, &dev);
}

/**
 * hixl_region_make_mrs_on() - make a region's MRs on every rail of @rd
 * @r:  a region with its pages; engine lock held
 * @rd: the device side, or NULL (no-op)
 *
 * All or nothing, but a rail >= 1 returning -EOPNOTSUPP is left out.
 * Context: process context, may sleep.
 * Return: as hixl_region_make_mrs_rail().
 */
int hixl_region_make_mrs_on(struct hixl_region *r, struct hixl_rdma *rd)
{
	u32 i;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (!rd)
		return 0;
	for (i = 0; i <= (rd->loopback ? 0 : rd->nr_rails); i++) {
		ret = hixl_region_make_mrs_rail(r, rd, i);
		if (ret == -EOPNOTSUPP && i)
			ret = 0;
		if (ret) {
			hixl_region_free_mrs_on(r, rd);
			return ret;
		}
	}
	hixl_region_rails_update(r, rd);
	return 0;
}

/**
 * hixl_region_make_mrs() - make a region's MRs on the engine's devices
 * @r: a region with its pages; engine lock held
 * Context: process context, may sleep.
 * Return: as hixl_region_make_mrs_on().
 */
int hixl_region_make_mrs(struct hixl_region *r)
{
	lockdep_assert_held(&r->eng->lock);
	return hixl_region_make_mrs_on(r, r->eng->rdma);
}

/**
 * hixl_region_free_mrs_rail() - release a region's MRs on one rail
 * @r:    the region; engine lock held
 * @rd:   the device side they were made on
 * @rail: 0..@rd->nr_rails; its device still set
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, rail);
	struct ib_device *ibdev;
	u32 i;

	lockdep_assert_held(&r->eng->lock);
	if (!ms->nr_mrs)
		return;		/* and no p2p mapping: it comes with the MRs */
	ibdev = rail ? rd->rails[rail - 1].ibdev : rd->ibdev;
	for (i = 0; i < ms->nr_mrs; i++)
		hixl_mr_release(ibdev, &ms->mrs[i]);
	atomic64_sub(ms->nr_mrs, &r->eng->st_mrs);
	atomic64_sub(ms->nr_mrs, &r->eng->st_rail_mrs[rail]);
	kvfree(ms->mrs);
	kvfree(ms->spans);
	hixl_p2p_unmap(ms);	/* after the MRs over it */
	memset(ms, 0, sizeof(*ms));
	WRITE_ONCE(r->rails, r->rails & ~BIT(rail));
}

/**
 * hixl_region_free_mrs_on() - release a region's MRs on every rail of @rd
 * @r:  the region; engine lock held
 * @rd: the device side they were made on
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs_on(struct hixl_region *r, struct hixl_rdma *rd)
{
	u32 i;

	lockdep_assert_held(&r->eng->lock);
	for (i = 0; i < HIXL_MAX_RAILS; i++)
		if (hixl_region_mrset(r, i)->nr_mrs)
			hixl_region_free_mrs_rail(r, rd, i);
}

/**
 * hixl_region_free_mrs() - release a region's MRs on every rail
 * @r: the region; engine lock held
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs(struct hixl_region *r)
{
	lockdep_assert_held(&r->eng->lock);
	if (r->eng->rdma)
		hixl_region_free_mrs_on(r, r->eng->rdma);
}

int hixl_rail_numa = 1;
module_param_named(rail_numa, hixl_rail_numa, int, 0644);
MODULE_PARM_DESC(rail_numa,
		 "1 (default): a host region's descriptors go on the rails whose device is on the region's NUMA node (when there is one); 0: on every rail");

/**
 * hixl_rail_numa_mask() - the rails a region on a NUMA node should use
 * @dev_node: each rail's node, NUMA_NO_NODE, or HIXL_RAIL_NODE_GONE
 * @nr_rails: entries of @dev_node
 * @mem_node: the region's node, or NUMA_NO_NODE
 * @enabled:  rail_numa
 *
 * The rails on @mem_node and of unknown node if any; else all with a device.
 * Return: bit i for rail i.
 */
u32 hixl_rail_numa_mask(const int *dev_node, u32 nr_rails, int mem_node, bool enabled)
{
	u32 all = 0, local = 0, unknown = 0, i;

	for (i = 0; i < min_t(u32, nr_rails, HIXL_MAX_RAILS); i++) {
		if (dev_node[i] == HIXL_RAIL_NODE_GONE)
			continue;
		all |= BIT(i);
		if (dev_node[i] == NUMA_NO_NODE)
			unknown |= BIT(i);
		else if (mem_node != NUMA_NO_NODE && dev_node[i] == mem_node)
			local |= BIT(i);
	}
	if (!enabled || mem_node == NUMA_NO_NODE || !local)
		return all;
	return local | unknown;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_numa_mask);

/**
 * hixl_region_rails_update() - recompute a region's rails
 * @r:  the region; engine lock held
 * @rd: the device side its MRs were made on
 * Context: any; engine lock held.
 */
void hixl_region_rails_update(struct hixl_region *r, const struct hixl_rdma *rd)
{
	int node[HIXL_MAX_RAILS];
	struct hixl_rail_dev dev;
	u32 i, n, have = 0;

	lockdep_assert_held(&r->eng->lock);
	n = rd && !rd->loopback ? 1 + rd->nr_rails : 1;
	for (i = 0; i < n; i++) {
		node[i] = HIXL_RAIL_NODE_GONE;
		if (!hixl_region_mrset(r, i)->nr_mrs || !hixl_rail_dev(rd, i, &dev))
			continue;
		have |= BIT(i);
		node[i] = i ? rd->rails[i - 1].numa_node : dev_to_node(&rd->ibdev->dev);
	}
	WRITE_ONCE(r->rails, (hixl_rail_numa_mask(node, n, r->numa_node,
						  READ_ONCE(hixl_rail_numa)) & have) | 1);
}

/**
 * hixl_engine_rails_update() - recompute every region's rails
 * @eng: the engine
 * Context: any; the engine's lock held.
 */
void hixl_engine_rails_update(struct hixl_engine *eng)
{
	struct hixl_region *r;
	unsigned long idx;

	lockdep_assert_held(&eng->lock);
	xa_for_each(&eng->regions, idx, r)
		hixl_region_rails_update(r, eng->rdma);
}
