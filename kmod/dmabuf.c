// SPDX-License-Identifier: GPL-2.0
/*
 * dmabuf.c - device memory registrations: a dma-buf attached and mapped
 * for the lifetime of the registration.
 *
 * The importer side follows Documentation/driver-api/dma-buf.rst and the
 * static-attachment path of ib_umem_dmabuf_get_pinned()
 * (drivers/infiniband/core/umem_dmabuf.c): dma_buf_get(), dma_buf_attach(),
 * dma_buf_map_attachment_unlocked().  The attachment is made to hixl's own
 * device (a 64-bit DMA mask, no IOMMU translation); the software RDMA
 * devices hixl runs on in tests (rxe, siw) address memory by CPU address.
 * Device memory is charged to the per-process device limit, not to
 * RLIMIT_MEMLOCK: the exporter owns and pins those pages.
 *
 * MRs on a software RDMA device (rxe, siw: ib_uses_virt_dma()) need the
 * buffer's CPU pages; they are found through the exporter's kernel mapping
 * (dma_buf_vmap(), then vmalloc_to_page()), never through sg_page() of the
 * importer's scatterlist, which the dma-buf rules forbid.  MRs of device
 * memory on hardware RDMA devices need a peer-to-peer attachment to the
 * device and are not implemented yet (-EOPNOTSUPP).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/scatterlist.h>

#include "compat.h"
#include "engine.h"
#include "region.h"

/**
 * hixl_dmabuf_map() - attach and map the dma-buf behind a device registration
 * @r:      the region: @r->len bytes from @offset of the buffer
 * @fd:     dma-buf file descriptor of the calling process
 * @offset: byte offset in the buffer, page aligned
 * @pgsz:   out: the mapped layout, for the page-size choice
 *
 * Context: process context, may sleep.
 * Return: 0; -EBADF when @fd is not an open dma-buf; -EACCES when the
 * dma-buf is read-only (its file lacks FMODE_WRITE) and the registration is
 * not HIXL_REG_READ_ONLY; -EINVAL when the range lies outside the buffer;
 * the exporter's -errno when attach or map fails.
 */
int hixl_dmabuf_map(struct hixl_region *r, int fd, u64 offset, struct hixl_pgsz *pgsz)
{
	struct scatterlist *sg;
	u64 skip = offset, left = r->len;
	unsigned int i;
	int ret;

	r->dmabuf_offset = offset;
	r->dmabuf = dma_buf_get(fd);
	if (IS_ERR(r->dmabuf)) {
		ret = PTR_ERR(r->dmabuf) == -EINVAL ? -EBADF : PTR_ERR(r->dmabuf);
		r->dmabuf = NULL;
		return ret;
	}
	/*
	 * The buffer's file says whether its exporter allowed writing (a DRM
	 * PRIME export without DRM_RDWR is read-only): a writable
	 * registration (RDMA and the same-host copy write it) needs
	 * FMODE_WRITE, as a writable mmap() of the fd would.
	 */
	if (!(r->flags & HIXL_REG_READ_ONLY) && !(r->dmabuf->file->f_mode & FMODE_WRITE)) {
		pr_debug_ratelimited("REG_MEM: the dma-buf is read-only: register it HIXL_REG_READ_ONLY\n");
		ret = -EACCES;
		goto err_put;
	}
	if (offset >= r->dmabuf->size || r->len > r->dmabuf->size - offset) {
		ret = hixl_einval("REG_MEM: dmabuf_offset 0x%llx + len 0x%llx is beyond the dma-buf's %zu bytes",
				  offset, r->len, r->dmabuf->size);
		goto err_put;
	}
	r->attach = dma_buf_attach(r->dmabuf, hixl_dev);
	if (IS_ERR(r->attach)) {
		ret = PTR_ERR(r->attach);
		goto err_put;
	}
	r->sgt = dma_buf_map_attachment_unlocked(r->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(r->sgt)) {
		ret = PTR_ERR(r->sgt);
		goto err_detach;
	}

	hixl_pgsz_init(pgsz, r->addr);
	for_each_sgtable_dma_sg(r->sgt, sg, i) {
		u64 dma = sg_dma_address(sg), len = sg_dma_len(sg);

		if (skip >= len) {
			skip -= len;
			continue;
		}
		dma += skip;
		len -= skip;
		skip = 0;
		len = min(len, left);
		hixl_pgsz_add(pgsz, dma, len);
		left -= len;
		if (!left)
			break;
	}
	if (left) {		/* the exporter mapped less than its size */
		ret = hixl_einval("REG_MEM: the dma-buf's exporter mapped 0x%llx bytes less than its size",
				  left);
		goto err_unmap;
	}
	r->live = true;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(r->attach, r->sgt, DMA_BIDIRECTIONAL);
err_detach:
	dma_buf_detach(r->dmabuf, r->attach);
err_put:
	dma_buf_put(r->dmabuf);
	r->dmabuf = NULL;
	r->attach = NULL;
	r->sgt = NULL;
	return ret;
}

/**
 * hixl_dmabuf_pages() - the CPU pages of a device region, for MRs on a
 * software RDMA device
 * @r: a device region mapped by hixl_dmabuf_map(); its engine's lock held
 *
 * Maps the buffer into the kernel (dma_buf_vmap()) for the region's
 * lifetime and fills @r->runs from that mapping (vmalloc_to_page() per
 * page, coalesced into physically contiguous runs).
 *
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP when the exporter has no kernel mapping, or maps
 * I/O memory; -ENOMEM; the exporter's -errno from its vmap.
 */
int hixl_dmabuf_pages(struct hixl_region *r)
{
	unsigned long i, npages = DIV_ROUND_UP(r->len, PAGE_SIZE);
	void *base;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (hixl_region_has_pages(r))
		return 0;
	ret = hixl_dma_buf_vmap(r->dmabuf, &r->vmap);
	if (ret)
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	if (r->vmap.is_iomem || !is_vmalloc_addr(r->vmap.vaddr)) {
		ret = -EOPNOTSUPP;
		goto err_vunmap;
	}
	base = r->vmap.vaddr + r->dmabuf_offset;
	for (i = 0; i < npages; i++) {
		struct page *page = vmalloc_to_page(base + i * PAGE_SIZE);

		if (!page) {
			ret = -EOPNOTSUPP;
			goto err_free;
		}
		ret = hixl_runs_add(&r->runs, page_to_pfn(page), 1);
		if (ret)
			goto err_free;
	}
	r->npages = npages;
	return 0;

err_free:
	hixl_runs_free(&r->runs);
err_vunmap:
	hixl_dma_buf_vunmap(r->dmabuf, &r->vmap);
	iosys_map_clear(&r->vmap);
	return ret;
}

/**
 * hixl_dmabuf_unmap() - undo hixl_dmabuf_map() and hixl_dmabuf_pages(); a
 * no-op when not mapped
 * @r: the region, whose MRs are gone already
 *
 * Context: process context, may sleep.
 */
void hixl_dmabuf_unmap(struct hixl_region *r)
{
	if (!r->dmabuf)
		return;
	if (hixl_region_has_pages(r)) {
		hixl_runs_free(&r->runs);
		r->npages = 0;
	}
	if (!iosys_map_is_null(&r->vmap)) {
		hixl_dma_buf_vunmap(r->dmabuf, &r->vmap);
		iosys_map_clear(&r->vmap);
	}
	dma_buf_unmap_attachment_unlocked(r->attach, r->sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(r->dmabuf, r->attach);
	dma_buf_put(r->dmabuf);
	r->dmabuf = NULL;
	r->attach = NULL;
	r->sgt = NULL;
}

HIXL_IMPORT_NS_DMA_BUF();
