/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels hixl.ko builds against
 * (Debian bookworm's 6.1 and bookworm-backports' 6.12) lives here, so the
 * rest of the module is written against the newest API only.
 */
#ifndef _HIXL_COMPAT_H
#define _HIXL_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>

/*
 * Module namespaces: the namespace argument became a string literal in 6.13
 * (commit cdd30ebb1b9f, "module: Convert symbol namespace to string literal").
 * HIXL_IMPORT_KUNIT_NS() imports the namespace that EXPORT_SYMBOL_IF_KUNIT()
 * exports into.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#endif

/*
 * get_user_pages_remote() lost its vmas argument in 6.5 (commit
 * ca5e863233e8, "mm/gup: remove vmas parameter from get_user_pages_remote()").
 * Caller holds mmap_read_lock(@mm).
 */
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

/*
 * dma_buf_vmap() takes the reservation lock itself before 6.2; from 6.2 the
 * caller does, or calls dma_buf_vmap_unlocked() (commit 56e5abba8c3e,
 * "dma-buf: Add unlocked variant of vmapping functions").
 */
#include <linux/dma-buf.h>
#include <linux/iosys-map.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define hixl_dma_buf_vmap(buf, map)	dma_buf_vmap_unlocked(buf, map)
#define hixl_dma_buf_vunmap(buf, map)	dma_buf_vunmap_unlocked(buf, map)
#else
#define hixl_dma_buf_vmap(buf, map)	dma_buf_vmap(buf, map)
#define hixl_dma_buf_vunmap(buf, map)	dma_buf_vunmap(buf, map)
#endif

/*
 * io_uring URING_CMD.  From 6.7 struct io_uring_cmd and its helpers live in
 * <linux/io_uring/cmd.h>, the command holds the whole SQE (->sqe, read with
 * io_uring_sqe_cmd()) instead of a pointer to its cmd area (->cmd), and
 * io_uring can cancel a command at ring exit (io_uring_cmd_mark_cancelable(),
 * IO_URING_F_CANCEL) - as Debian's 6.12 headers show.  Debian's 6.1.192
 * already passes issue_flags to io_uring_cmd_done() and to the task-work
 * callback (6.1.0 did not: the stable series took the change), so that is
 * the oldest 6.1 we build against.
 */
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

/*
 * A URING_CMD whose issue returned -EAGAIN is issued again, from io_uring's
 * worker threads.  io_uring leaves the command's pdu as the previous request
 * in that slot left it, so only a flag tells a reissue from a first issue:
 * upstream io_uring sets IORING_URING_CMD_REISSUE in cmd->flags when
 * ->uring_cmd() returns -EAGAIN (commit 733c43f1df34, "io_uring/cmd:
 * introduce IORING_URING_CMD_REISSUE flag"); 6.1 and 6.12 have no such flag,
 * so hixl_uring_cmd() sets that same bit itself before it returns -EAGAIN.
 * cmd->flags is set from sqe->uring_cmd_flags at prep, which refuses any bit
 * outside IORING_URING_CMD_MASK (bit 0), so a new command starts with the bit
 * clear; its top 8 bits are io_uring's own, and neither 6.1 (none) nor 6.12
 * (IORING_URING_CMD_CANCELABLE, bit 30) uses bit 31.
 */
#ifdef IORING_URING_CMD_REISSUE
#define HIXL_URING_CMD_REISSUE	IORING_URING_CMD_REISSUE
#else
#define HIXL_URING_CMD_REISSUE	(1U << 31)
#endif

/*
 * memfd_pin_folios() (6.11, "mm/gup: introduce memfd_pin_folios() for
 * pinning memfd folios") pins a shmem or hugetlbfs
 * file's folios, one pin per folio, without walking page tables; they are
 * dropped with unpin_folio().  Before 6.11 registrations of such mappings
 * take the page path (pin_user_pages_fast()).
 * hixl_unpin_folio_range() drops the folio pins behind @n pages from @pfn,
 * each folio once, marking them dirty first when @dirty (as
 * unpin_user_page_range_dirty_lock() does for page pins).
 */
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
