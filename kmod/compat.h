/* SPDX-License-Identifier: GPL-2.0 */
/* compat.h - differences between the 6.1 and 6.12 kernels hixl.ko builds on */
#ifndef _HIXL_COMPAT_H
#define _HIXL_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>

/* namespaces are string literals from 6.13 (commit cdd30ebb1b9f) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#endif

/* get_user_pages_remote() lost vmas in 6.5; caller holds mmap_read_lock() */
#include <linux/mm.h>
static inline long hixl_gup_remote(struct mm_struct *mm, unsigned long start,
				   unsigned long nr_pages, unsigned int gup_flags,
				   struct page **pages)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages, NULL);
#else
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages, NULL, NULL);
#endif
}

/* from 6.2 dma_buf_vmap() wants the resv lock held: use _unlocked() */
#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define hixl_dma_buf_vmap(buf, map)	dma_buf_vmap_unlocked(buf, map)
#define hixl_dma_buf_vunmap(buf, map)	dma_buf_vunmap_unlocked(buf, map)
#else
#define hixl_dma_buf_vmap(buf, map)	dma_buf_vmap(buf, map)
#define hixl_dma_buf_vunmap(buf, map)	dma_buf_vunmap(buf, map)
#endif

/* io_uring URING_CMD: cmd.h, ->sqe, cancelable from 6.7; 6.1 needs 6.1.192+ */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring/cmd.h>
#define HIXL_URING_CMD_CANCELABLE	IORING_URING_CMD_CANCELABLE
static inline const void *hixl_uring_sqe_cmd(const struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}

static inline void hixl_uring_cmd_mark_cancelable(struct io_uring_cmd *cmd,
						  unsigned int issue_flags)
{
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
}

static inline bool hixl_uring_cmd_is_cancel(unsigned int issue_flags)
{
	return issue_flags & IO_URING_F_CANCEL;
}
#else
#include <linux/io_uring.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 192) || LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#error "hixl: io_uring_cmd_done() with issue_flags needs 6.1.192+ or 6.7+"
#endif
static inline const void *hixl_uring_sqe_cmd(const struct io_uring_cmd *cmd)
{
	return cmd->cmd;
}

/* io_uring cannot cancel a command at ring exit: it waits for it instead */
#define HIXL_URING_CMD_CANCELABLE	0
static inline void hixl_uring_cmd_mark_cancelable(struct io_uring_cmd *cmd,
						  unsigned int issue_flags)
{
}

static inline bool hixl_uring_cmd_is_cancel(unsigned int issue_flags)
{
	return false;
}
#endif

/* a reissue flag: upstream's IORING_URING_CMD_REISSUE (733c43f1df34), else bit 31 */
#ifdef IORING_URING_CMD_REISSUE
#define HIXL_URING_CMD_REISSUE	IORING_URING_CMD_REISSUE
#else
#define HIXL_URING_CMD_REISSUE	(1U << 31)
#endif

/* memfd_pin_folios() from 6.11; unpin as unpin_user_page_range_dirty_lock() */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#include <linux/memfd.h>
#include <linux/pagemap.h>
static inline bool hixl_have_memfd_pin_folios(void)
{
	return true;
}

static inline long hixl_memfd_pin_folios(struct file *memfd, loff_t start, loff_t end,
					 struct folio **folios, unsigned int max_folios,
					 pgoff_t *offset)
{
	return memfd_pin_folios(memfd, start, end, folios, max_folios, offset);
}

static inline void hixl_unpin_folios(struct folio **folios, unsigned long nr)
{
	unpin_folios(folios, nr);
}

static inline void hixl_unpin_folio_range(unsigned long pfn, unsigned long n, bool dirty)
{
	while (n) {
		struct folio *folio = page_folio(pfn_to_page(pfn));
		unsigned long k = min(n, folio_nr_pages(folio) - (pfn - folio_pfn(folio)));

		if (dirty && !folio_test_dirty(folio)) {
			folio_lock(folio);
			folio_mark_dirty(folio);
			folio_unlock(folio);
		}
		unpin_folio(folio);
		pfn += k;
		n -= k;
	}
}
#else
/* never called: nothing is pinned by folio before 6.11 */
static inline bool hixl_have_memfd_pin_folios(void)
{
	return false;
}

static inline long hixl_memfd_pin_folios(struct file *memfd, loff_t start, loff_t end,
					 struct folio **folios, unsigned int max_folios,
					 pgoff_t *offset)
{
	return -EINVAL;
}

static inline void hixl_unpin_folios(struct folio **folios, unsigned long nr)
{
}

static inline void hixl_unpin_folio_range(unsigned long pfn, unsigned long n, bool dirty)
{
}
#endif

#endif /* _HIXL_COMPAT_H */
