// SPDX-License-Identifier: GPL-2.0
/* region.c - REG_MEM, DEREG_MEM, lookup; an engine's valid regions never overlap */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pfn.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "trace.h"

/**
 * hixl_pgsz_init() - start a page-size computation
 * @s:  accumulator
 * @va: VA of the first byte
 */
void hixl_pgsz_init(struct hixl_pgsz *s, u64 va)
{
	memset(s, 0, sizeof(*s));
	s->va = va;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_pgsz_init);

/**
 * hixl_pgsz_add() - append the next physically contiguous piece
 * @s:   accumulator
 * @pa:  physical or DMA address
 * @len: bytes
 *
 * P fits when VA == PA mod P and every discontinuity is at a P-aligned VA.
 */
void hixl_pgsz_add(struct hixl_pgsz *s, u64 pa, u64 len)
{
	if (!s->started)
		s->mask |= pa ^ s->va;
	else if (pa != s->next_pa)
		s->mask |= (pa ^ s->va) | s->va;
	s->started = true;
	s->next_pa = pa + len;
	s->va += len;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_pgsz_add);

/**
 * hixl_pgsz_shift() - log2 of the largest page size that fits
 * @s:         accumulator
 * @max_shift: largest allowed
 * Return: a shift <= @max_shift; below PAGE_SHIFT only for unaligned pieces.
 */
unsigned int hixl_pgsz_shift(const struct hixl_pgsz *s, unsigned int max_shift)
{
	if (!s->mask)
		return max_shift;
	return min_t(unsigned int, max_shift, __ffs64(s->mask));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_pgsz_shift);

/**
 * hixl_pages_spanned() - pages of size 1 << @shift that cover a range
 * @addr:  first byte
 * @len:   bytes, > 0, not wrapping
 * @shift: log2 of the page size
 * Return: the page count.
 */
u64 hixl_pages_spanned(u64 addr, u64 len, unsigned int shift)
{
	return ((addr + len - 1) >> shift) - (addr >> shift) + 1;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_pages_spanned);

/**
 * hixl_range_check() - is [@addr, @addr + @len) a well-formed range?
 * @addr: first byte
 * @len:  bytes
 * Return: 0; -EINVAL @len 0; -EOVERFLOW wraps.
 */
int hixl_range_check(u64 addr, u64 len)
{
	u64 end;

	if (!len)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end))
		return -EOVERFLOW;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_range_check);

const struct hixl_region_events *hixl_region_events __read_mostly;

/* an unused registration out of @regions: withdrawn (acked) before its MRs go */
static void hixl_region_free(struct hixl_region *r)
{
	struct hixl_engine *eng = r->eng;

	lockdep_assert_held(&eng->lock);
	hixl_region_events->removed(eng, r);
	if (r->type == HIXL_MEM_HOST)
		mmu_interval_notifier_remove(&r->notifier);	/* waits for callbacks */
	hixl_region_release_pins(r);
	if (r->type == HIXL_MEM_DEVICE)
		hixl_dmabuf_unmap(r);
	hixl_proc_uncharge(eng->proc, r->type, r->len);
	atomic64_dec(&eng->st_regions);
	atomic64_sub(r->len, r->type == HIXL_MEM_HOST ? &eng->st_host_bytes :
							&eng->st_device_bytes);
	if (r->invalid)
		atomic64_dec(&eng->st_invalid);
	trace_hixl_dereg_mem(eng->id, r->handle, r->type, r->addr, r->len, r->invalid);
	kfree(r);
}

static int hixl_reg_mem_validate(const struct hixl_reg_mem *a)
{
	if (a->flags & ~HIXL_REG_FLAGS_ALL)
		return hixl_einval("REG_MEM: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved1)
		return hixl_einval("REG_MEM: reserved is not zero");
	switch (a->type) {
	case HIXL_MEM_HOST:
		if (a->dmabuf_fd != -1 || a->dmabuf_offset)
			return hixl_einval("REG_MEM: HOST with dmabuf_fd %d (not -1) or dmabuf_offset 0x%llx",
					   a->dmabuf_fd, a->dmabuf_offset);
		break;
	case HIXL_MEM_DEVICE:
		if (a->dmabuf_fd < 0)
			return -EBADF;
		if (!PAGE_ALIGNED(a->dmabuf_offset) || !PAGE_ALIGNED(a->addr))
			return hixl_einval("REG_MEM: DEVICE addr 0x%llx or dmabuf_offset 0x%llx not page-aligned",
					   a->addr, a->dmabuf_offset);
		break;
	default:
		return hixl_einval("REG_MEM: type %u unknown", a->type);
	}
	if (!a->len)
		return hixl_einval("REG_MEM: len 0");
	return hixl_range_check(a->addr, a->len);
}

/**
 * hixl_cmd_reg_mem() - HIXL_IOC_REG_MEM: register a region
 * @eng: the engine
 * @a:   in: addr, len, type, flags, dmabuf_fd/offset; out: handle, page_size, nr_pages
 *
 * On success the region is in every connected peer's table.
 * Context: process context, may sleep; takes @eng->lock.
 * Return: 0, or -errno as docs/abi.md lists.
 */
int hixl_cmd_reg_mem(struct hixl_engine *eng, struct hixl_reg_mem *a)
{
	struct hixl_tbl_wait w;
	struct hixl_pgsz pgsz;
	struct hixl_region *r;
	unsigned int shift;
	int ret;

	ret = hixl_reg_mem_validate(a);
	if (ret)
		return ret;
	if (!hixl_is_owner(eng))
		return -EPERM;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->eng = eng;
	r->addr = a->addr;
	r->len = a->len;
	r->type = a->type;
	r->flags = a->flags;
	r->tbl_hidden = hixl_region_local_only(r);	/* 1: in no peer's table */
	spin_lock_init(&r->lock);
	atomic_set(&r->users, 0);
	r->numa_node = NUMA_NO_NODE;
	r->rails = 1;

	ret = hixl_proc_charge(eng->proc, r->type, r->len);
	if (ret) {
		atomic64_inc(&eng->st_limit_hits);
		trace_hixl_limit_hit(eng->id, r->type, r->len, ret);
		goto err_free;
	}

	hixl_engine_lock(eng);
	ret = mtree_insert_range(&eng->ranges, r->addr, r->addr + r->len - 1, r, GFP_KERNEL);
	if (ret == -EEXIST && work_pending(&eng->inval_work)) {
		/* an invalidated region may still hold the range */
		mutex_unlock(&eng->lock);
		flush_work(&eng->inval_work);
		hixl_engine_lock(eng);
		ret = mtree_insert_range(&eng->ranges, r->addr, r->addr + r->len - 1, r,
					 GFP_KERNEL);
	}
	if (ret)
		goto err_unlock;
	r->in_tree = true;

	if (r->type == HIXL_MEM_HOST)
		ret = hixl_reg_host(r, &pgsz);
	else
		ret = hixl_dmabuf_map(r, a->dmabuf_fd, a->dmabuf_offset, &pgsz);
	if (ret)
		goto err_tree;

	shift = hixl_pgsz_shift(&pgsz, HIXL_MAX_PAGE_SHIFT);
	if (WARN_ON_ONCE(shift < PAGE_SHIFT)) {
		ret = -EINVAL;
		goto err_unmap;
	}
	r->page_shift = shift;
	r->numa_node = r->type == HIXL_MEM_HOST && hixl_region_has_pages(r) ?
		       page_to_nid(pfn_to_page(r->runs.run[0].pfn)) : NUMA_NO_NODE;
	ret = hixl_region_make_mrs(r);
	if (ret)
		goto err_unmap;

	ret = xa_alloc_cyclic(&eng->regions, &r->handle, r, xa_limit_32b,
			      &eng->next_handle, GFP_KERNEL);
	if (ret < 0)
		goto err_unmap;

	atomic64_inc(&eng->st_regions);
	atomic64_add(r->len, r->type == HIXL_MEM_HOST ? &eng->st_host_bytes :
							&eng->st_device_bytes);
	hixl_region_events->added(eng, r, &w);
	a->handle = r->handle;
	a->page_size = 1ULL << shift;
	a->nr_pages = hixl_pages_spanned(r->addr, r->len, shift);
	a->nr_mrs = hixl_region_mrset(r, 0)->nr_mrs;	/* rail 0's (abi.md) */
	a->mr_page_size = a->nr_mrs ? 1ULL << hixl_region_mrset(r, 0)->mr_shift : 0;
	trace_hixl_reg_mem(eng->id, r->handle, r->type, r->addr, r->len, shift,
			   r->npages);
	mutex_unlock(&eng->lock);
	/* acks outside the lock: a silent peer delays only this caller */
	hixl_region_events->wait(&w);
	return 0;

err_unmap:
	if (r->type == HIXL_MEM_HOST) {
		mmu_interval_notifier_remove(&r->notifier);
		hixl_region_release_pins(r);
	} else {
		hixl_region_free_mrs(r);
		hixl_dmabuf_unmap(r);
	}
err_tree:
	if (r->in_tree)
		mtree_erase(&eng->ranges, r->addr);
err_unlock:
	mutex_unlock(&eng->lock);
	hixl_proc_uncharge(eng->proc, r->type, r->len);
err_free:
	kfree(r);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_reg_mem);

/**
 * hixl_cmd_dereg_mem() - HIXL_IOC_DEREG_MEM: drop a registration
 * @eng: the engine
 * @a:   in: handle
 *
 * Peer acks are awaited without @eng->lock; a link that does not ack is closed.
 * Context: process context, may sleep; takes @eng->lock.
 * Return: 0; -EINVAL bad flags; -EPERM not the owner; -ENOENT no such
 * handle; -EBUSY a transfer uses it.
 */
int hixl_cmd_dereg_mem(struct hixl_engine *eng, struct hixl_dereg_mem *a)
{
	struct hixl_tbl_wait w;
	struct hixl_region *r;
	int ret = 0;

	if (a->flags)
		return hixl_einval("DEREG_MEM: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved[0] || a->reserved[1])
		return hixl_einval("DEREG_MEM: reserved is not zero");
	if (!hixl_is_owner(eng))
		return -EPERM;
	if (!a->handle || a->handle > U32_MAX)
		return -ENOENT;

	hixl_engine_lock(eng);
	r = xa_load(&eng->regions, a->handle);
	if (!r || r->withdrawing)
		ret = -ENOENT;
	else if (atomic_read(&r->users))
		ret = -EBUSY;
	if (ret) {
		mutex_unlock(&eng->lock);
		return ret;
	}
	/* a same-host copy's chunk under way ends first; none starts (lock) */
	wait_var_event(&r->local_chunks, !atomic_read(&r->local_chunks));
	r->withdrawing = true;
	hixl_region_events->withdraw(eng, r, &w);
	mutex_unlock(&eng->lock);
	hixl_region_events->wait(&w);

	hixl_engine_lock(eng);
	xa_erase(&eng->regions, a->handle);
	hixl_region_free(r);	/* no REGION_DEL left to send */
	mutex_unlock(&eng->lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_dereg_mem);

/**
 * hixl_region_lookup() - the valid registration that holds a whole range
 * @eng:  the engine; @eng->lock held
 * @addr: first byte
 * @len:  bytes
 * Return: the region, or NULL.
 */
struct hixl_region *hixl_region_lookup(struct hixl_engine *eng, u64 addr, u64 len)
{
	struct hixl_region *r;

	lockdep_assert_held(&eng->lock);
	if (hixl_range_check(addr, len))
		return NULL;
	r = mtree_load(&eng->ranges, addr);
	if (!r || !r->live || r->withdrawing || READ_ONCE(r->invalid) ||
	    READ_ONCE(r->suspect) || addr + len > r->addr + r->len)
		return NULL;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_region_lookup);

/**
 * hixl_range_read_only() - does a range touch a read-only host registration?
 * @eng:  the engine; @eng->lock held
 * @addr: first byte (user address)
 * @len:  bytes
 *
 * For staged READs; valid and suspect host registrations count.
 * Return: true if any byte is in one.
 */
bool hixl_range_read_only(struct hixl_engine *eng, u64 addr, u64 len)
{
	struct hixl_region *r;
	unsigned long idx = addr;

	lockdep_assert_held(&eng->lock);
	if (hixl_range_check(addr, len))
		return false;
	mt_for_each(&eng->ranges, r, idx, addr + len - 1) {
		if (r->type == HIXL_MEM_HOST && (r->flags & HIXL_REG_READ_ONLY) &&
		    !READ_ONCE(r->invalid))
			return true;
	}
	return false;
}

/**
 * hixl_engine_regions_init() - set up an engine's registration state
 * @eng: a new engine
 */
void hixl_engine_regions_init(struct hixl_engine *eng)
{
	xa_init_flags(&eng->regions, XA_FLAGS_ALLOC1);
	mt_init(&eng->ranges);
	INIT_WORK(&eng->inval_work, hixl_inval_work);
}

/**
 * hixl_engine_regions_destroy() - drop every registration of an engine
 * @eng: the engine, no command running on it
 * Context: process context, may sleep.
 */
void hixl_engine_regions_destroy(struct hixl_engine *eng)
{
	struct hixl_region *r;
	unsigned long idx;

	hixl_engine_lock(eng);
	xa_for_each(&eng->regions, idx, r) {
		xa_erase(&eng->regions, idx);
		hixl_region_free(r);
	}
	mutex_unlock(&eng->lock);
	cancel_work_sync(&eng->inval_work);
	mtree_destroy(&eng->ranges);
	xa_destroy(&eng->regions);
}
