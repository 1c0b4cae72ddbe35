// SPDX-License-Identifier: GPL-2.0
/*
 * pin.c - host memory of a registration: pinned, charged and tracked.
 *
 * Host memory is pinned like ib_umem_get() (drivers/infiniband/core/umem.c):
 * charged to RLIMIT_MEMLOCK through mm->pinned_vm before pinning (as RDMA
 * does since commit 70f8a3ca68d3 "mm: make mm->pinned_vm an atomic64
 * counter": pins are not mlock, and a per-mm count keeps a forked child's
 * budget its own), pinned with FOLL_LONGTERM in chunks with cond_resched(),
 * uncharged exactly once when the pins are dropped.
 *
 * Every host registration carries an MMU interval notifier.  When the
 * process unmaps or remaps any part of the range (munmap, mremap, exit) the
 * registration is marked invalid at once.  Events after which the same
 * pages may still be mapped (MMU_NOTIFY_CLEAR: a THP split caused by a
 * neighbouring munmap, MADV_DONTNEED, hole punch, reclaim) make it
 * suspect: a work item walks the range again (get_user_pages_remote()) and
 * marks it invalid only if a page changed.  An invalid registration's pins
 * are released by that work item; transfers on it fail and only DEREG_MEM
 * remains.  Protection changes (mprotect, fork's write-protect, NUMA
 * hinting) and soft-dirty tracking keep the same pages and are ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pfn.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hixl_priv.h"
#include "trace.h"

/* ---- host memory: pin, charge, notifier ------------------------------------ */

static bool hixl_region_writable(const struct hixl_region *r)
{
	return !(r->flags & HIXL_REG_READ_ONLY);
}

/*
 * The VMAs must cover the range without holes, be ordinary memory, and be
 * writable unless the registration is read-only.  Checked before pinning so
 * that a read-only mapping gets -EACCES, not the -EFAULT of a failed pin.
 */
static int hixl_check_vmas(struct mm_struct *mm, unsigned long start,
			   unsigned long end, bool write)
{
	struct vm_area_struct *vma;
	unsigned long addr = start;
	VMA_ITERATOR(vmi, mm, start);
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

/* Pin @r->npages pages from @start into @r->pages, 512 at a time. */
static int hixl_pin_pages(struct hixl_region *r, unsigned long start, unsigned int gup)
{
	unsigned long done = 0;
	long ret;

	while (done < r->npages) {
		ret = pin_user_pages_fast(start + (done << PAGE_SHIFT),
					  min_t(unsigned long, r->npages - done,
						PAGE_SIZE / sizeof(struct page *)),
					  gup, r->pages + done);
		if (ret <= 0)
			goto undo;
		done += ret;
		cond_resched();
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto undo;
		}
	}
	return 0;
undo:
	unpin_user_pages(r->pages, done);
	return ret ? ret : -EFAULT;
}

/*
 * Unpin in physically contiguous runs: unpin_user_page_range_dirty_lock()
 * walks each run folio by folio, so a huge page costs one step rather than
 * one per 4 KiB page (as ib_umem_release() does through its scatterlist).
 */
static void hixl_unpin_runs(struct page **pages, unsigned long npages, bool dirty)
{
	unsigned long i = 0, j;

	while (i < npages) {
		for (j = i + 1; j < npages &&
		     page_to_pfn(pages[j]) == page_to_pfn(pages[j - 1]) + 1; j++)
			;
		unpin_user_page_range_dirty_lock(pages[i], j - i, dirty);
		i = j;
	}
}

/* Drop the pins (if still held) and the range; engine lock held. */
void hixl_region_release_pins(struct hixl_region *r)
{
	struct hixl_engine *eng = r->eng;

	lockdep_assert_held(&eng->lock);
	if (r->in_tree) {
		mtree_erase(&eng->ranges, r->addr);
		r->in_tree = false;
	}
	hixl_region_free_mrs(r);	/* the MRs point at the pages */
	if (!r->pages || r->type != HIXL_MEM_HOST)
		return;		/* device pages belong to the exporter */
	hixl_unpin_runs(r->pages, r->npages, hixl_region_writable(r));
	atomic64_sub(r->npages, &eng->mm->pinned_vm);
	atomic64_sub(r->npages, &eng->st_pinned_pages);
	kvfree(r->pages);
	r->pages = NULL;
}

/* Count and trace a region that became invalid; called once per region. */
static void hixl_region_invalidated(struct hixl_region *r)
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
			/* the range is gone: munmap, mremap, exit */
			WRITE_ONCE(r->invalid, true);
			WRITE_ONCE(r->suspect, false);
			newly_invalid = true;
		} else {
			/* maybe the same pages again: look after the event */
			WRITE_ONCE(r->suspect, true);
		}
		queue = true;
	}
	spin_unlock(&r->lock);

	if (newly_invalid)
		hixl_region_invalidated(r);
	/* looking at page tables and unpinning sleep; this callback may not */
	if (queue)
		queue_work(system_wq, &r->eng->inval_work);
	return true;
}

static const struct mmu_interval_notifier_ops hixl_mn_ops = {
	.invalidate = hixl_mn_invalidate,
};

/* Does the range still map exactly the pinned pages?  Engine lock held. */
static bool hixl_region_still_mapped(struct hixl_region *r)
{
	struct mm_struct *mm = r->eng->mm;
	unsigned long start = ALIGN_DOWN(r->addr, PAGE_SIZE), done = 0, i;
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
			if (tmp[i] != r->pages[done + i])
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

/* Settle a suspect region: valid again, or invalid.  Engine lock held. */
static void hixl_region_revalidate(struct hixl_region *r)
{
	unsigned long seq = mmu_interval_read_begin(&r->notifier);
	bool same = r->pages && hixl_region_still_mapped(r);
	bool newly_invalid = false;

	spin_lock(&r->lock);
	if (!r->invalid && mmu_interval_read_retry(&r->notifier, seq)) {
		/* changed again while we looked: look again */
		spin_unlock(&r->lock);
		queue_work(system_wq, &r->eng->inval_work);
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

	mutex_lock(&eng->lock);
	xa_for_each(&eng->regions, idx, r) {
		if (READ_ONCE(r->suspect))
			hixl_region_revalidate(r);
		/* a transfer in flight still uses the pins: it requeues us */
		if (READ_ONCE(r->invalid) && r->pages && !atomic_read(&r->users)) {
			hixl_links_region_removed(eng, r);
			hixl_region_release_pins(r);
		}
	}
	mutex_unlock(&eng->lock);
}

int hixl_reg_host(struct hixl_region *r, struct hixl_pgsz *pgsz)
{
	struct hixl_engine *eng = r->eng;
	unsigned long start = ALIGN_DOWN(r->addr, PAGE_SIZE);
	unsigned long end = ALIGN(r->addr + r->len, PAGE_SIZE);
	unsigned int gup = FOLL_LONGTERM;
	unsigned long seq, i;
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
	r->pages = kvmalloc_array(r->npages, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = mmu_interval_notifier_insert(&r->notifier, eng->mm, start,
					   end - start, &hixl_mn_ops);
	if (ret)
		goto err_free;

	/*
	 * Pinning can itself fire the notifier (a write fault breaking COW);
	 * retry until a pass sees no invalidation, so the pins are exactly the
	 * pages the range maps once the region goes live.
	 */
	for (tries = 0;; tries++) {
		seq = mmu_interval_read_begin(&r->notifier);
		ret = hixl_pin_pages(r, start, gup);
		if (ret)
			goto err_notifier;
		spin_lock(&r->lock);
		if (!mmu_interval_read_retry(&r->notifier, seq)) {
			r->live = true;
			spin_unlock(&r->lock);
			break;
		}
		spin_unlock(&r->lock);
		unpin_user_pages(r->pages, r->npages);
		if (tries == 3) {
			ret = -EAGAIN;
			goto err_notifier;
		}
	}
	atomic64_add(r->npages, &eng->st_pinned_pages);

	hixl_pgsz_init(pgsz, start);
	for (i = 0; i < r->npages; i++)
		hixl_pgsz_add(pgsz, PFN_PHYS(page_to_pfn(r->pages[i])), PAGE_SIZE);
	return 0;

err_notifier:
	mmu_interval_notifier_remove(&r->notifier);
err_free:
	kvfree(r->pages);
	r->pages = NULL;
err_uncharge:
	atomic64_sub(r->npages, &eng->mm->pinned_vm);
	r->npages = 0;
	return ret;
}
