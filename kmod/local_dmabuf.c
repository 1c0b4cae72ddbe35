// SPDX-License-Identifier: GPL-2.0
/*
 * local_dmabuf.c - same-host copies of dma-buf registrations through
 * dma_buf_vmap(), mapped until the registration goes (static attachment)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/highmem.h>

#include "engine.h"
#include "region.h"
#include "local_xfer.h"

/**
 * hixl_local_region_ok() - can the CPU copy reach a region?
 * @r: a live registration; its engine's lock held; a dma-buf is vmapped here
 * Context: process context, may sleep.
 * Return: true if it is a pinned host region or a memory-mapped dma-buf.
 */
bool hixl_local_region_ok(struct hixl_region *r)
{
	lockdep_assert_held(&r->eng->lock);
	if (r->type == HIXL_MEM_HOST)
		return hixl_region_has_pages(r);
	if (r->type != HIXL_MEM_DEVICE || !r->dmabuf)
		return false;
	if (iosys_map_is_null(&r->vmap) && hixl_dmabuf_pages(r))
		return false;	/* no vmap, or I/O memory: refused there */
	return !iosys_map_is_null(&r->vmap) && !r->vmap.is_iomem;
}

/*
 * A kernel pointer to @addr of @r; *@c (in: at most) becomes the bytes it
 * covers.  A host page is kmap'ed into *@page, which the caller unmaps.
 */
static u8 *hixl_ldb_map(const struct hixl_region *r, u64 addr, u64 *c, struct page **page)
{
	u64 off = addr - r->addr;
	unsigned long idx, i;

	if (r->type == HIXL_MEM_DEVICE) {
		*page = NULL;
		*c = min(*c, r->len - off);
		return (u8 *)r->vmap.vaddr + r->dmabuf_offset + off;
	}
	idx = (addr >> PAGE_SHIFT) - (r->addr >> PAGE_SHIFT);
	i = hixl_runs_find(&r->runs, idx);
	*page = pfn_to_page(r->runs.run[i].pfn + (idx - hixl_run_first(&r->runs, i)));
	*c = min_t(u64, *c, PAGE_SIZE - offset_in_page(addr));
	return (u8 *)kmap_local_page(*page) + offset_in_page(addr);
}

static void hixl_ldb_copy(const struct hixl_region *dst, u64 da, const struct hixl_region *src,
			  u64 sa, u64 n)
{
	while (n) {
		struct page *dp, *sp;
		u64 c = n;
		u8 *d = hixl_ldb_map(dst, da, &c, &dp);
		u8 *s = hixl_ldb_map(src, sa, &c, &sp);

		memcpy(d, s, c);
		if (dp)
			flush_dcache_page(dp);
		if (sp)				/* kunmap_local(): reverse order */
			kunmap_local(s);
		if (dp)
			kunmap_local(d);
		da += c;
		sa += c;
		n -= c;
	}
}

/**
 * hixl_local_dmabuf_chunk() - copy one same-host chunk with a dma-buf side
 * @peer: the peer engine; its lock held, dropped before return
 * @op:   HIXL_OP_READ (theirs to ours) or HIXL_OP_WRITE (ours to theirs)
 * @lr:   our region, held
 * @la:   its first byte to copy
 * @rr:   the peer's region, checked with hixl_local_region_ok()
 * @ra:   its first byte to copy
 * @n:    bytes, at most HIXL_LOCAL_CHUNK, inside both regions
 *
 * CPU access is always DMA_BIDIRECTIONAL: an exporter may map once with
 * the first call's direction (udmabuf).
 * Context: process context, may sleep.
 * Return: 0, or dma_buf_begin_cpu_access()'s -errno (nothing copied).
 */
int hixl_local_dmabuf_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
			    u64 la, const struct hixl_region *rr, u64 ra, u64 n)
{
	bool write = op == HIXL_OP_WRITE;
	const struct hixl_region *dst = write ? rr : lr, *src = write ? lr : rr;
	const enum dma_data_direction ddir = DMA_BIDIRECTIONAL, sdir = DMA_BIDIRECTIONAL;
	int ret = 0;

	lockdep_assert_held(&peer->lock);
	if (dst->type == HIXL_MEM_DEVICE)
		ret = dma_buf_begin_cpu_access(dst->dmabuf, ddir);
	if (!ret && src->type == HIXL_MEM_DEVICE) {
		ret = dma_buf_begin_cpu_access(src->dmabuf, sdir);
		if (ret && dst->type == HIXL_MEM_DEVICE)
			dma_buf_end_cpu_access(dst->dmabuf, ddir);
	}
	if (!ret) {
		hixl_ldb_copy(dst, write ? ra : la, src, write ? la : ra, n);
		if (src->type == HIXL_MEM_DEVICE)
			dma_buf_end_cpu_access(src->dmabuf, sdir);
		if (dst->type == HIXL_MEM_DEVICE)
			dma_buf_end_cpu_access(dst->dmabuf, ddir);
	}
	mutex_unlock(&peer->lock);
	return ret;
}

/* the DMA_BUF namespace is imported in dmabuf.c */
