// SPDX-License-Identifier: GPL-2.0
/*
 * mr.c - fast-registration MRs for registered regions.
 *
 * Each region becomes as few MRs as the device allows: the MR page size is
 * the largest the region's physical layout allows (region.c) that the
 * device supports (attrs.page_size_cap), and one MR holds at most
 * attrs.max_fast_reg_page_list_len pages of it (rxe: 512), so 1 GiB of
 * 2 MiB pages is one or two MRs rather than the 512 that 4 KiB pages need.
 * With several rails (rail.c) a region has one such set of MRs per rail
 * whose device exists (struct hixl_mrset), each in that rail's PD.
 * MRs are allocated with ib_alloc_mr(IB_MR_TYPE_MEM_REG) and mapped with
 * ib_map_mr_sg(), as nvme-rdma does (drivers/nvme/host/rdma.c); the
 * IB_WR_REG_MR work request that activates one is posted on a link's QP
 * before the link first uses it.  Never a global rkey.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "rail.h"

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

static int hixl_mr_make(const struct hixl_rail_dev *dev, struct hixl_region *r,
			struct hixl_mr *m, u64 start, u64 end, unsigned int shift)
{
	u64 first4k = ALIGN_DOWN(r->addr, PAGE_SIZE);
	int ret, mapped;

	m->addr = start;
	m->len = end - start;
	/* one entry per physically contiguous run (at most 1 GiB each) */
	ret = hixl_runs_sg_table(&r->runs, &m->sgt, start - first4k, end - start, SZ_1G);
	if (ret)
		return ret;
	ret = ib_dma_map_sgtable_attrs(dev->ibdev, &m->sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		return ret;
	m->dma_mapped = true;
	/*
	 * Size each MR for the pages it holds, not for the device maximum:
	 * rxe keeps a 4 KiB page map per MR (512 x 1 GiB pages would need a
	 * 2 GiB allocation), and hardware spends translation entries on it.
	 */
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
	u64 psz = 1ULL << shift, span = psz * dev->max_mr_pages;
	u64 base = ALIGN_DOWN(r->addr, psz);
	/*
	 * MR borders as offsets from @base: a device region's address is any
	 * 64-bit device VA, and base + (i + 1) * span may wrap near 2^64
	 * where base + (offset of the region's end) cannot.
	 */
	u64 first = r->addr - base, last = first + r->len;
	u32 i, n = hixl_mr_count(r->addr, r->len, shift, dev->max_mr_pages);
	struct hixl_mr *mrs;
	int ret = 0;

	mrs = kvcalloc(n, sizeof(*mrs), GFP_KERNEL_ACCOUNT);
	if (!mrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = hixl_mr_make(dev, r, &mrs[i], base + max(first, i * span),
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

/**
 * hixl_region_make_mrs_dev() - make a region's MRs for one rail on a given
 * device
 * @r:    a region whose pages are pinned; its engine's lock held
 * @rail: the rail whose MR set (hixl_region_mrset()) they go in
 * @dev:  the device, PD and limits to make them with (hixl_rail_dev(), or
 *        a rail being revived and not yet published, hixl_rail_revive())
 *
 * A no-op when the region has MRs on that rail already, and for an
 * invalidated region (no pages).  Device (dma-buf) regions need a software
 * RDMA device, whose MRs take the buffer's CPU pages (hixl_dmabuf_pages()).
 * When the device's DMA layout does not follow the physical one (an
 * IOMMU), the large page size cannot map and 4 KiB pages are used instead.
 * The MRs are counted in the engine's st_mrs (GET_STATS' @mrs: every
 * rail's) and st_rail_mrs[@rail] (debugfs rails).
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP when the device supports no page size the region
 * can use, or cannot map device memory; -ENOMEM; the device's -errno from
 * ib_alloc_mr()/ib_map_mr_sg().  On failure the rail has no MRs.
 */
int hixl_region_make_mrs_dev(struct hixl_region *r, u32 rail, const struct hixl_rail_dev *dev)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, rail);
	unsigned int shift;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (ms->nr_mrs)
		return 0;
	if (r->type == HIXL_MEM_DEVICE) {
		if (!ib_uses_virt_dma(dev->ibdev))
			return -EOPNOTSUPP;
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
 * @r:    a region whose pages are pinned; its engine's lock held
 * @rd:   the device side: the engine's own, or the one HIXL_IOC_SETUP is
 *        building and has not published yet; a loopback one: no-op for
 *        host memory, -EOPNOTSUPP for device memory
 * @rail: 0 (@rd's own device) .. @rd->nr_rails; a rail whose device is
 *        gone (hixl_rail_dev() false): no-op
 *
 * hixl_region_make_mrs_dev() with the rail's device as hixl_rail_dev()
 * gives it.
 *
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
 * hixl_region_make_mrs_on() - make the MRs of a region on every rail of a
 * device side
 * @r:  a region whose pages are pinned; its engine's lock held
 * @rd: the device side to make them on (hixl_region_make_mrs_rail());
 *      NULL: no-op
 *
 * All or nothing over the rails whose devices exist, with one exception: a
 * rail >= 1 whose device cannot map the region (-EOPNOTSUPP) just has no
 * MRs for it (hixl_region_rails() leaves that rail out); rail 0's
 * -EOPNOTSUPP fails as before.  On success the region's rail mask is
 * recomputed (hixl_region_rails_update()).  On failure no rail keeps MRs
 * made here.
 *
 * Context: process context, may sleep.
 * Return: as hixl_region_make_mrs_rail() for the first rail that failed.
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
 * hixl_region_make_mrs() - make the MRs of a region on the engine's devices
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
 * hixl_region_free_mrs_rail() - release a region's MRs on one rail
 * @r:    the region; its engine's lock held
 * @rd:   the device side they were made on (hixl_region_make_mrs_rail())
 * @rail: the rail, 0..@rd->nr_rails; its device must still be set in @rd
 *        when it has MRs (a removal frees them before it clears the device)
 *
 * A no-op for a rail without MRs.  Clears the rail's bit in the region's
 * mask.
 *
 * Context: process context, may sleep.
 */
void hixl_region_free_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail)
{
	struct hixl_mrset *ms = hixl_region_mrset(r, rail);
	struct ib_device *ibdev;
	u32 i;

	lockdep_assert_held(&r->eng->lock);
	if (!ms->nr_mrs)
		return;
	ibdev = rail ? rd->rails[rail - 1].ibdev : rd->ibdev;
	for (i = 0; i < ms->nr_mrs; i++)
		hixl_mr_release(ibdev, &ms->mrs[i]);
	atomic64_sub(ms->nr_mrs, &r->eng->st_mrs);
	atomic64_sub(ms->nr_mrs, &r->eng->st_rail_mrs[rail]);
	kvfree(ms->mrs);
	kvfree(ms->spans);
	memset(ms, 0, sizeof(*ms));
	WRITE_ONCE(r->rails, r->rails & ~BIT(rail));
}

/**
 * hixl_region_free_mrs_on() - release a region's MRs on every rail of a
 * device side
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
	for (i = 0; i < HIXL_MAX_RAILS; i++)
		if (hixl_region_mrset(r, i)->nr_mrs)
			hixl_region_free_mrs_rail(r, rd, i);
}

/**
 * hixl_region_free_mrs() - release a region's MRs on every rail (before its
 * pages go)
 * @r: the region; its engine's lock held
 *
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
 * @dev_node: each rail's device node: a node id, NUMA_NO_NODE (not known)
 *            or HIXL_RAIL_NODE_GONE (no device: never chosen)
 * @nr_rails: entries of @dev_node, at most HIXL_MAX_RAILS (more are
 *            ignored)
 * @mem_node: the region's node, NUMA_NO_NODE when not known (device memory)
 * @enabled:  the rail_numa module parameter
 *
 * A pure function (KUnit: tests/rail_kunit.c).  With @enabled, a known
 * @mem_node and at least one rail's device on @mem_node: those rails plus
 * the rails whose node is not known (they are not known to be remote).
 * Otherwise every rail that has a device.
 *
 * Return: bit i set for rail i chosen; 0 only when no rail has a device.
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
 * hixl_region_rails_update() - recompute a region's rails (struct
 * hixl_region.rails)
 * @r:  the region; its engine's lock held
 * @rd: the device side its MRs were made on (published or being set up)
 *
 * The rails whose device exists and where @r has MRs, narrowed by
 * hixl_rail_numa_mask() with rail_numa as it is now; rail 0 always.
 *
 * Context: any; the engine's lock held.
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
 * hixl_engine_rails_update() - recompute every region's rails after a rail's
 * device went or came back
 * @eng: the engine; its lock held
 *
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
