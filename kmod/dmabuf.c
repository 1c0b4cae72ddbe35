// SPDX-License-Identifier: GPL-2.0
/* dmabuf.c - dma-buf registrations, pinned as ib_umem_dmabuf_get_pinned() */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/scatterlist.h>

#include "compat.h"
#include "engine.h"
#include "region.h"

/**
 * hixl_dmabuf_map() - take the dma-buf behind a device registration
 * @r:      the region
 * @fd:     dma-buf file descriptor
 * @offset: byte offset in the buffer, page aligned
 * @pgsz:   out: the mapped layout
 *
 * Attaches and maps it for the misc device (its layout, and the kernel
 * mapping software RDMA and the same-host copy use); an exporter that
 * refuses that (peer-to-peer only) leaves @r->attach NULL and the layout
 * at 4 KiB pages, and only devices that DMA attach it (hixl_p2p_map()).
 * Context: process context, may sleep.
 * Return: 0; -EBADF not a dma-buf; -EACCES read-only buffer; -EINVAL range
 * outside it or mapped short of its size.
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
	/* a writable registration needs FMODE_WRITE, as a writable mmap() */
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
		goto p2p_only;
	}
	r->sgt = dma_buf_map_attachment_unlocked(r->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(r->sgt)) {
		ret = PTR_ERR(r->sgt);
		dma_buf_detach(r->dmabuf, r->attach);
		goto p2p_only;
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

p2p_only:
	/*
	 * A GPU's exporter maps its memory only for a device it can reach
	 * peer-to-peer, which the misc device is not: the rails' devices
	 * attach it themselves (dmabuf_p2p.c); its layout is unknown here.
	 */
	pr_debug_ratelimited("REG_MEM: the dma-buf's exporter refuses a plain attachment (%d): peer-to-peer only\n",
			     ret);
	r->attach = NULL;
	r->sgt = NULL;
	hixl_pgsz_init(pgsz, r->addr);
	hixl_pgsz_add(pgsz, r->addr, r->len);
	pgsz->mask |= PAGE_SIZE;	/* reported as 4 KiB pages */
	r->live = true;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(r->attach, r->sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(r->dmabuf, r->attach);
err_put:
	dma_buf_put(r->dmabuf);
	r->dmabuf = NULL;
	r->attach = NULL;
	r->sgt = NULL;
	return ret;
}

/**
 * hixl_dmabuf_pages() - a device region's CPU pages, for software RDMA MRs
 * @r: mapped by hixl_dmabuf_map(); the engine's lock held
 * Context: process context, may sleep.
 * Return: 0; -EOPNOTSUPP no kernel mapping (or an exporter that maps only
 * peer-to-peer); -ENOMEM; the exporter's vmap error.
 */
int hixl_dmabuf_pages(struct hixl_region *r)
{
	unsigned long i, npages = DIV_ROUND_UP(r->len, PAGE_SIZE);
	void *base;
	int ret;

	lockdep_assert_held(&r->eng->lock);
	if (hixl_region_has_pages(r))
		return 0;
	if (!r->attach)		/* a peer-to-peer-only exporter */
		return -EOPNOTSUPP;
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
 * hixl_dmabuf_unmap() - undo hixl_dmabuf_map() and hixl_dmabuf_pages()
 * @r: the region, its MRs gone
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
	if (r->attach) {
		dma_buf_unmap_attachment_unlocked(r->attach, r->sgt, DMA_BIDIRECTIONAL);
		dma_buf_detach(r->dmabuf, r->attach);
	}
	dma_buf_put(r->dmabuf);
	r->dmabuf = NULL;
	r->attach = NULL;
	r->sgt = NULL;
}

HIXL_IMPORT_NS_DMA_BUF();
