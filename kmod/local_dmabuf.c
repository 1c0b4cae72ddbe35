// SPDX-License-Identifier: GPL-2.0
/*
 * local_dmabuf.c - device (dma-buf) registrations on same-host links: the
 * CPU copy of local_xfer.c through the exporter's kernel mapping of the buffer
 * (dma_buf_vmap()), instead of RDMA through the device.
 *
 * When the mapping is made.  Once per registration, kept until the
 * registration goes (hixl_dmabuf_unmap(), before the detach): it is the
 * mapping dmabuf.c already makes at SETUP for MRs on a software RDMA
 * device (hixl_dmabuf_pages()), made here at the first same-host copy when
 * the region has none yet.  Per copy it would cost a vmap (vm_map_ram()
 * of every page, under the buffer's reservation lock) and a vunmap (a TLB
 * flush) per chunk.  A long-lived mapping is safe because hixl's
 * attachment is static (dma_buf_attach(), no importer ops): the exporter
 * keeps the buffer pinned where it is for as long as we are attached and
 * never calls move_notify; it costs vmalloc space only (the buffer's size,
 * against the 32 TiB of x86-64's vmalloc area).
 *
 * What cannot be copied.  An exporter without vmap (dma_buf_vmap() fails),
 * or one that maps I/O memory (iosys_map.is_iomem), is refused here: such
 * a buffer is not copied with memcpy_fromio()/memcpy_toio() (uncached,
 * byte-lane accesses slower than the device's own DMA, and a GPU BAR is
 * what the RDMA path with a peer-to-peer attachment is for).  The whole
 * batch then goes over RDMA, as every batch did before (a batch is one
 * completion: splitting it between the CPU copy and the device would need
 * two completions merged and an order between them); with transport LOCAL
 * it fails with -EOPNOTSUPP.  On the software RDMA devices hixl runs on
 * such a buffer cannot be registered at all (its MRs need the same
 * mapping), so today that fallback matters only once hardware RDMA devices
 * take device memory.
 *
 * Lifetime and locks.  A chunk (at most HIXL_LOCAL_CHUNK bytes) that has a
 * dma-buf registration on either side is copied with the peer engine's
 * lock held: the peer's region, its mapping and (a host region) its pins
 * are released only under that lock (DEREG_MEM, the invalidation work,
 * the engine's close), so none of them goes mid-chunk, and the next chunk
 * finds the region gone (-ERANGE) or the engine closing (-ECONNRESET),
 * as for host memory.  Our own region is held by its users count
 * (DEREG_MEM: -EBUSY).  The exporter cannot go away under the copy: the
 * registration holds a reference on the dma-buf (dma_buf_get()), which
 * holds the exporter's module and its backing memory.  CPU access is
 * bracketed by dma_buf_begin_cpu_access()/dma_buf_end_cpu_access() per
 * chunk, as Documentation/driver-api/dma-buf.rst asks of kernel CPU access.
 * Lock order: hixl_engine.lock > the buffer's dma_resv lock (taken inside
 * dma_buf_vmap_unlocked() and announced by dma_buf_begin_cpu_access());
 * hixl never takes an engine lock under a reservation lock (no importer
 * ops, so no move_notify callback).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/highmem.h>

#include "engine.h"
#include "region.h"
#include "local_xfer.h"

/**
 * hixl_local_region_ok() - can the CPU copy reach a region?
 * @r: a live registration; its engine's lock held
 *
 * A host region with its pins; a device region whose dma-buf the exporter
 * maps into the kernel as memory (the mapping is made on first use, kept
 * for the registration's lifetime: see the head of this file).
 *
 * Context: process context, may sleep (the exporter's vmap).
 * Return: true when local_xfer.c may copy it.
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
 * A kernel pointer to @addr of @r and, in *@c (in: at most), the bytes
 * from it that the pointer covers: the rest of the region for a device
 * region (the vmap is contiguous), the rest of the page for a host one
 * (kmap_local_page(): *@page is set, the caller unmaps).
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

/* Copy @n bytes from @sa of @src to @da of @dst; both mapped as above. */
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
 * hixl_local_dmabuf_chunk() - one chunk of a same-host copy with a dma-buf
 * registration on either side
 * @peer: the peer engine; its lock held, dropped before this returns
 * @op:   HIXL_OP_READ (theirs to ours) or HIXL_OP_WRITE (ours to theirs)
 * @lr:   our region (held: users raised)
 * @la:   the first byte of @lr to copy (a registered address)
 * @rr:   the peer's region, looked up and checked for the chunk under the
 *        peer's lock (hixl_local_region_ok() true)
 * @ra:   the first byte of @rr to copy
 * @n:    bytes, at most HIXL_LOCAL_CHUNK, inside both regions
 *
 * The copy runs under the peer's lock (see the head of this file); each
 * dma-buf side is bracketed by dma_buf_begin_cpu_access() and
 * dma_buf_end_cpu_access(), DMA_BIDIRECTIONAL for both: an exporter may
 * map its own scatterlist once, with the direction of the first call
 * (udmabuf does), and sync it later with every other; one direction for
 * every call keeps those syncs consistent (DMA-API debug checks it).
 *
 * Context: process context, may sleep.
 * Return: 0; the exporter's -errno from dma_buf_begin_cpu_access() (nothing
 * copied).
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

/* the DMA_BUF namespace is imported once for the module, in dmabuf.c */
