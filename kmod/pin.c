// SPDX-License-Identifier: GPL-2.0
/*
 * pin.c - host pages, pinned and charged as ib_umem_get() and watched by an MMU interval
 * notifier: unmaps invalidate, other events make the range suspect until re-walked
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pfn.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "engine.h"
#include "region.h"
#include "trace.h"

static bool hixl_region_writable(const struct hixl_region *r)
{
	return !(r->flags & HIXL_REG_READ_ONLY);
}

/* -EACCES here rather than a failed pin's -EFAULT */
static int hixl_check_vmas(struct mm_struct *mm, unsigned long start,
			   unsigned long end, bool write)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;
	unsigned long addr = start;
	int ret = 0;

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_start > addr) {
			ret = -EFAULT;		/* a hole */
			break;
		}
		if (vma->vm_flags & (VM_IO | VM_PFNMAP)) {
			ret = -EFAULT;		/* no struct pages to pin */
			break;
		}
		if (!(vma->vm_flags & VM_READ) ||
		    (write && !(vma->vm_flags & VM_WRITE))) {
			ret = -EACCES;
			break;
		}
		addr = vma->vm_end;
	}
	mmap_read_unlock(mm);
	if (!ret && addr < end)
		ret = -EFAULT;
	return ret;
}

static int hixl_charge_pinned(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

#define HIXL_PIN_BATCH	(PAGE_SIZE / sizeof(void *))

/*
 * Follows ib_umem_release().  Folios of one page hold one pin a page
 * however they were pinned, so only runs of larger folios pinned by
 * memfd_pin_folios() (one pin a folio) are put folio by folio; a range
 * put is the same work without a call per folio.
 */
static void hixl_unpin_runs(struct hixl_region *r, bool dirty)
{
	const struct hixl_runs *rs = &r->runs;
	unsigned long i;

	for (i = 0; i < rs->nr; i++) {
		unsigned long n = rs->run[i].end - hixl_run_first(rs, i);

		if (!r->folio_pins || !r->large_folio_pins) {
			unpin_user_page_range_dirty_lock(pfn_to_page(rs->run[i].pfn), n, dirty);
			continue;
		}
		hixl_unpin_folio_range(rs->run[i].pfn, n, dirty);
	}
}

static int hixl_pin_pages(struct hixl_region *r, unsigned long start, unsigned int gup,
			  struct page **tmp)
{
	unsigned long done = 0, added;
	long ret;

	while (done < r->npages) {
		ret = pin_user_pages_fast(start + (done << PAGE_SHIFT),
					  min_t(unsigned long, r->npages - done, HIXL_PIN_BATCH),
					  gup, tmp);
		if (ret <= 0)
			goto undo;
		if (hixl_runs_add_pages(&r->runs, tmp, ret)) {
			added = r->runs.npages - done;
			unpin_user_pages(tmp + added, ret - added);
			ret = -ENOMEM;
			goto undo;
		}
		done += ret;
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto undo;
		}
	}
	return 0;
undo:
	hixl_unpin_runs(r, false);
	hixl_runs_reset(&r->runs);
	return ret ? ret : -EFAULT;
}

/* the file if one shared mapping covers the range within i_size, else NULL */
static struct file *hixl_shared_file(struct mm_struct *mm, unsigned long start,
				     unsigned long end, loff_t *pos)
{
	struct vm_area_struct *vma;
	struct file *file = NULL;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, start);
	if (vma && end <= vma->vm_end && vma->vm_file && (vma->vm_flags & VM_SHARED)) {
		*pos = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (start - vma->vm_start);
		/* memfd_pin_folios() would fill the page cache past i_size */
		if (*pos + (loff_t)(end - start) <= i_size_read(file_inode(vma->vm_file)))
			file = get_file(vma->vm_file);
	}
	mmap_read_unlock(mm);
	return file;
}

/* -EINVAL: not shmem or hugetlbfs, nothing pinned */
static int hixl_pin_folios(struct hixl_region *r, struct file *file, loff_t pos,
			   struct folio **tmp)
{
	unsigned long done = 0;
	long got, i, ret;

	while (done < r->npages) {
		loff_t last = pos + ((loff_t)(r->npages - done) << PAGE_SHIFT) - 1;
		pgoff_t off = 0;

		got = hixl_memfd_pin_folios(file, pos, last, tmp, HIXL_PIN_BATCH, &off);
		if (got <= 0) {
			ret = got ? got : -EFAULT;
			goto undo;
		}
		for (i = 0; i < got; i++) {
			unsigned long first = i ? 0 : off >> PAGE_SHIFT;
			unsigned long n = min(folio_nr_pages(tmp[i]) - first, r->npages - done);

			/* before the add: a failed add unpins the runs so far */
			if (folio_test_large(tmp[i]))
				r->large_folio_pins = true;
			if (hixl_runs_add(&r->runs, folio_pfn(tmp[i]) + first, n)) {
				hixl_unpin_folios(tmp + i, got - i);
				ret = -ENOMEM;
				goto undo;
			}
			done += n;
			pos += (loff_t)n << PAGE_SHIFT;
		}
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto undo;
		}
	}
	return 0;
undo:
	hixl_unpin_runs(r, false);
	hixl_runs_reset(&r->runs);
	return ret;
}

static int hixl_pin(struct hixl_region *r, unsigned long start, unsigned int gup, void **tmp)
{
	unsigned long end = start + (r->npages << PAGE_SHIFT);
	struct file *file = NULL;
	loff_t pos;
	int ret;

	if (hixl_have_memfd_pin_folios())
		file = hixl_shared_file(r->eng->mm, start, end, &pos);
	r->large_folio_pins = false;
	if (file) {
		r->folio_pins = true;
		ret = hixl_pin_folios(r, file, pos, (struct folio **)tmp);
		fput(file);
		if (ret != -EINVAL)
			return ret;
	}
	r->folio_pins = false;
	return hixl_pin_pages(r, start, gup, (struct page **)tmp);
}

/* drop the pins (if still held) and the range; engine lock held */
void hixl_region_release_pins(struct hixl_region *r)
{
	struct hixl_engine *eng = r->eng;

	lockdep_assert_held(&eng->lock);
	if (r->in_tree) {
		mtree_erase(&eng->ranges, r->addr);
		r->in_tree = false;
	}
	hixl_region_free_mrs(r);	/* the MRs point at the pages */
	if (!hixl_region_has_pages(r) || r->type != HIXL_MEM_HOST)
		return;		/* device pages belong to the exporter */
	hixl_unpin_runs(r, hixl_region_writable(r));
	atomic64_sub(r->npages, &eng->mm->pinned_vm);
	atomic64_sub(r->npages, &eng->st_pinned_pages);
	hixl_runs_free(&r->runs);
}

/**
 * hixl_region_invalidated() - count and trace a region that became invalid
 * @r: the region, @r->invalid just set by its MMU notifier or its exporter
 * Context: any; no lock needed.
 */
void hixl_region_invalidated(struct hixl_region *r)
{
	struct hixl_engine *eng = r->eng;

	atomic64_inc(&eng->st_invalid);
	atomic64_inc(&eng->st_invalidations);
	trace_hixl_invalidate(eng->id, r->handle, r->addr, r->len, r->event);
}

static bool hixl_mn_invalidate(struct mmu_interval_notifier *mni,
			       const struct mmu_notifier_range *range,
			       unsigned long cur_seq)
{
	struct hixl_region *r = container_of(mni, struct hixl_region, notifier);
	bool queue = false, newly_invalid = false;

	switch (range->event) {
	case MMU_NOTIFY_PROTECTION_VMA:
	case MMU_NOTIFY_PROTECTION_PAGE:
	case MMU_NOTIFY_SOFT_DIRTY:
		return true;	/* same pages stay mapped: nothing to do */
	default:
		break;
	}

	spin_lock(&r->lock);
	mmu_interval_set_seq(mni, cur_seq);
	if (r->live && !r->invalid) {
		r->event = range->event;
		if (range->event == MMU_NOTIFY_UNMAP || range->event == MMU_NOTIFY_RELEASE) {
			WRITE_ONCE(r->invalid, true);
			WRITE_ONCE(r->suspect, false);
			newly_invalid = true;
		} else {
			/* maybe the same pages: check in the work item */
			WRITE_ONCE(r->suspect, true);
		}
		queue = true;
	}
	spin_unlock(&r->lock);

	if (newly_invalid)
		hixl_region_invalidated(r);
	/* walking page tables and unpinning sleep; this callback may not */
	if (queue)
		queue_work(r->eng->wq, &r->eng->inval_work);
	return true;
}

static const struct mmu_interval_notifier_ops hixl_mn_ops = {
	.invalidate = hixl_mn_invalidate,
};

/* engine lock held */
static bool hixl_region_still_mapped(struct hixl_region *r)
{
	struct mm_struct *mm = r->eng->mm;
	unsigned long start = ALIGN_DOWN(r->addr, PAGE_SIZE), done = 0, i, ri = 0;
	const struct hixl_runs *rs = &r->runs;
	struct page **tmp;
	bool same = true;
	long got;

	if (!mmget_not_zero(mm))
		return false;		/* the process is exiting */
	tmp = kmalloc_array(512, sizeof(*tmp), GFP_KERNEL);
	if (!tmp) {
		mmput(mm);
		return false;		/* cannot tell: fail safe */
	}
	while (same && done < r->npages) {
		mmap_read_lock(mm);
		got = hixl_gup_remote(mm, start + (done << PAGE_SHIFT),
				      min_t(unsigned long, r->npages - done, 512), 0, tmp);
		mmap_read_unlock(mm);
		if (got <= 0) {
			same = false;
			break;
		}
		for (i = 0; i < got; i++) {
			unsigned long idx = done + i;

			while (rs->run[ri].end <= idx)
				ri++;
			if (page_to_pfn(tmp[i]) != rs->run[ri].pfn + (idx - hixl_run_first(rs, ri)))
				same = false;
			put_page(tmp[i]);
		}
		done += got;
		cond_resched();
	}
	kfree(tmp);
	mmput(mm);
	return same;
}

/* engine lock held */
static void hixl_region_revalidate(struct hixl_region *r)
{
	unsigned long seq = mmu_interval_read_begin(&r->notifier);
	bool same = hixl_region_has_pages(r) && hixl_region_still_mapped(r);
	bool newly_invalid = false;

	spin_lock(&r->lock);
	if (!r->invalid && mmu_interval_read_retry(&r->notifier, seq)) {
		spin_unlock(&r->lock);
		queue_work(r->eng->wq, &r->eng->inval_work);
		return;
	}
	if (!r->invalid && !same) {
		WRITE_ONCE(r->invalid, true);
		newly_invalid = true;
	}
	WRITE_ONCE(r->suspect, false);
	spin_unlock(&r->lock);
	if (newly_invalid)
		hixl_region_invalidated(r);
}

void hixl_inval_work(struct work_struct *work)
{
	struct hixl_engine *eng = container_of(work, struct hixl_engine, inval_work);
	struct hixl_region *r;
	unsigned long idx;

	hixl_engine_lock(eng);
	xa_for_each(&eng->regions, idx, r) {
		if (r->withdrawing)
			continue;	/* DEREG_MEM frees it */
		if (READ_ONCE(r->suspect))
			hixl_region_revalidate(r);
		/* a transfer in flight still uses the pins: it requeues us */
		if (READ_ONCE(r->invalid) && (hixl_region_has_pages(r) || hixl_region_p2p(r)) &&
		    !atomic_read(&r->users)) {
			hixl_region_events->removed(eng, r);
			hixl_region_release_pins(r);
		}
	}
	mutex_unlock(&eng->lock);
}

/**
 * hixl_reg_host() - pin a host registration's pages and watch its range
 * @r:     the region, in the range tree; engine lock held
 * @pgsz:  out: page-size accumulator of the pinned layout
 * Context: process context, may sleep.
 * Return: 0; -EFAULT not pinnable user memory; -EACCES not writable;
 * -ENOMEM RLIMIT_MEMLOCK or memory; -EAGAIN kept changing; -EINTR.
 */
int hixl_reg_host(struct hixl_region *r, struct hixl_pgsz *pgsz)
{
	struct hixl_engine *eng = r->eng;
	unsigned long start = ALIGN_DOWN(r->addr, PAGE_SIZE);
	unsigned long end = ALIGN(r->addr + r->len, PAGE_SIZE);
	unsigned int gup = FOLL_LONGTERM;
	unsigned long seq;
	void **tmp;
	int tries, ret;

	if (!access_ok(u64_to_user_ptr(r->addr), r->len))
		return -EFAULT;
	if (hixl_region_writable(r))
		gup |= FOLL_WRITE;
	ret = hixl_check_vmas(eng->mm, start, end, hixl_region_writable(r));
	if (ret)
		return ret;

	r->npages = (end - start) >> PAGE_SHIFT;
	ret = hixl_charge_pinned(eng->mm, r->npages);
	if (ret)
		return ret;
	tmp = kmalloc_array(HIXL_PIN_BATCH, sizeof(*tmp), GFP_KERNEL);
	if (!tmp) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = mmu_interval_notifier_insert(&r->notifier, eng->mm, start,
					   end - start, &hixl_mn_ops);
	if (ret)
		goto err_free;

	/* pinning may fire the notifier (COW break): retry until a clean pass */
	for (tries = 0;; tries++) {
		seq = mmu_interval_read_begin(&r->notifier);
		ret = hixl_pin(r, start, gup, tmp);
		if (ret)
			goto err_notifier;
		spin_lock(&r->lock);
		if (!mmu_interval_read_retry(&r->notifier, seq)) {
			r->live = true;
			spin_unlock(&r->lock);
			break;
		}
		spin_unlock(&r->lock);
		hixl_unpin_runs(r, false);
		hixl_runs_reset(&r->runs);
		if (tries == 3) {
			ret = -EAGAIN;
			goto err_notifier;
		}
	}
	kfree(tmp);
	atomic64_add(r->npages, &eng->st_pinned_pages);

	hixl_pgsz_init(pgsz, start);
	hixl_runs_pgsz(&r->runs, pgsz);
	return 0;

err_notifier:
	mmu_interval_notifier_remove(&r->notifier);
err_free:
	kfree(tmp);
	hixl_runs_free(&r->runs);
err_uncharge:
	atomic64_sub(r->npages, &eng->mm->pinned_vm);
	r->npages = 0;
	return ret;
}
