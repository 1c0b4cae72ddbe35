// SPDX-License-Identifier: GPL-2.0
/* runs.c - a region's pages as contiguous runs, 16 bytes each (first pfn, end index) */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pfn.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <kunit/visibility.h>

#include "region.h"

/* first allocation, runs */
#define HIXL_RUNS_MIN	64

/**
 * hixl_runs_add() - append pages to a run list, coalescing
 * @rs:  the run list (zeroed, or after hixl_runs_reset())
 * @pfn: first page frame of the pages
 * @n:   physically contiguous pages, > 0
 * Context: process context, may sleep.
 * Return: 0; -ENOMEM if the array cannot grow (@rs unchanged).
 */
int hixl_runs_add(struct hixl_runs *rs, unsigned long pfn, unsigned long n)
{
	struct hixl_run *last = rs->nr ? &rs->run[rs->nr - 1] : NULL;

	if (last && last->pfn + (last->end - hixl_run_first(rs, rs->nr - 1)) == pfn) {
		last->end += n;
		rs->npages += n;
		return 0;
	}
	if (rs->nr == rs->cap) {
		unsigned long cap = max_t(unsigned long, HIXL_RUNS_MIN, rs->cap * 2);
		struct hixl_run *run;

		run = kvmalloc_array(cap, sizeof(*run), GFP_KERNEL_ACCOUNT);
		if (!run)
			return -ENOMEM;
		if (rs->nr)
			memcpy(run, rs->run, rs->nr * sizeof(*run));
		kvfree(rs->run);
		rs->run = run;
		rs->cap = cap;
	}
	rs->npages += n;
	rs->run[rs->nr].pfn = pfn;
	rs->run[rs->nr].end = rs->npages;
	rs->nr++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_add);

/**
 * hixl_runs_add_pages() - append an array of pages, coalescing
 * @rs:    the run list
 * @pages: @n pages in address order
 * @n:     how many
 * Return: 0; -ENOMEM (the pages before the failing one are added).
 */
int hixl_runs_add_pages(struct hixl_runs *rs, struct page **pages, unsigned long n)
{
	unsigned long i = 0, j;
	int ret;

	while (i < n) {
		unsigned long pfn = page_to_pfn(pages[i]);

		for (j = i + 1; j < n && page_to_pfn(pages[j]) == pfn + (j - i); j++)
			;
		ret = hixl_runs_add(rs, pfn, j - i);
		if (ret)
			return ret;
		i = j;
	}
	return 0;
}

/**
 * hixl_runs_reset() - forget the runs, keep the array
 * @rs: the run list
 */
void hixl_runs_reset(struct hixl_runs *rs)
{
	rs->nr = 0;
	rs->npages = 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_reset);

/**
 * hixl_runs_free() - free the array; the list is empty afterwards
 * @rs: the run list
 */
void hixl_runs_free(struct hixl_runs *rs)
{
	kvfree(rs->run);
	memset(rs, 0, sizeof(*rs));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_free);

/**
 * hixl_runs_find() - the run holding a page
 * @rs:  the run list, non-empty
 * @idx: page index from the first page, < @rs->npages
 * Return: the index of the run holding page @idx.
 */
unsigned long hixl_runs_find(const struct hixl_runs *rs, unsigned long idx)
{
	unsigned long lo = 0, hi = rs->nr - 1;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (rs->run[mid].end <= idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_find);

/**
 * hixl_runs_pfn() - the page frame of a page
 * @rs:  the run list, non-empty
 * @idx: page index from the first page, < @rs->npages
 * Return: the pfn.
 */
unsigned long hixl_runs_pfn(const struct hixl_runs *rs, unsigned long idx)
{
	unsigned long i = hixl_runs_find(rs, idx);

	return rs->run[i].pfn + (idx - hixl_run_first(rs, i));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_pfn);

/**
 * hixl_runs_pgsz() - feed every run to a page-size accumulator
 * @rs: the run list
 * @s:  accumulator, hixl_pgsz_init() done with the first page's address
 */
void hixl_runs_pgsz(const struct hixl_runs *rs, struct hixl_pgsz *s)
{
	unsigned long i;

	for (i = 0; i < rs->nr; i++)
		hixl_pgsz_add(s, PFN_PHYS(rs->run[i].pfn),
			      (u64)(rs->run[i].end - hixl_run_first(rs, i)) << PAGE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_pgsz);

/**
 * hixl_runs_sg_table() - a scatterlist for a byte range, as sg_alloc_table_from_pages_segment()
 * @rs:      the run list
 * @sgt:     the table to allocate and fill
 * @off:     first byte, from the start of the first page
 * @len:     bytes, > 0
 * @max_seg: largest entry in bytes, a multiple of PAGE_SIZE
 * Context: process context, may sleep.
 * Return: 0; -EINVAL range outside the runs; -ENOMEM.
 */
int hixl_runs_sg_table(const struct hixl_runs *rs, struct sg_table *sgt, u64 off, u64 len,
		       unsigned int max_seg)
{
	unsigned long first, last, i;
	unsigned int nents = 0;
	struct scatterlist *sg;
	u64 pos, end;
	int ret;

	sgt->sgl = NULL;
	if (!len || check_add_overflow(off, len, &end) ||
	    end > ((u64)rs->npages << PAGE_SHIFT))
		return -EINVAL;
	first = hixl_runs_find(rs, off >> PAGE_SHIFT);
	last = hixl_runs_find(rs, (end - 1) >> PAGE_SHIFT);
	for (i = first, pos = off; i <= last; i++) {
		u64 rend = min_t(u64, end, (u64)rs->run[i].end << PAGE_SHIFT);

		nents += DIV_ROUND_UP_ULL(rend - pos, max_seg);
		pos = rend;
	}
	ret = sg_alloc_table(sgt, nents, GFP_KERNEL);
	if (ret) {
		sgt->sgl = NULL;
		return ret;
	}
	sg = sgt->sgl;
	for (i = first, pos = off; i <= last; i++) {
		u64 rstart = (u64)hixl_run_first(rs, i) << PAGE_SHIFT;
		u64 rend = min_t(u64, end, (u64)rs->run[i].end << PAGE_SHIFT);

		while (pos < rend) {
			u64 in_run = pos - rstart;
			unsigned int n = min_t(u64, rend - pos, max_seg);

			sg_set_page(sg, pfn_to_page(rs->run[i].pfn + (in_run >> PAGE_SHIFT)), n,
				    offset_in_page(in_run));
			pos += n;
			sg = sg_next(sg);
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_sg_table);

/**
 * hixl_runs_bytes() - metadata the runs take
 * @rs: the run list
 * Return: bytes allocated.
 */
size_t hixl_runs_bytes(const struct hixl_runs *rs)
{
	return rs->cap * sizeof(*rs->run);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_runs_bytes);
