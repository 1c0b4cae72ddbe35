// SPDX-License-Identifier: GPL-2.0
/*
 * acct.c - per-process registration limits.
 *
 * HIXL limits a process, not an engine (HIXL RegisterMem's limits: 256
 * registrations, 20 GiB host and 50 GiB device memory per process), so all
 * engines opened by one process share one struct hixl_proc, keyed by the
 * process's mm.  These limits count registrations; the pins themselves are
 * also charged to RLIMIT_MEMLOCK through mm->pinned_vm (region.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "trace.h"

/* Every live struct hixl_proc; hixl_procs_lock protects the list and ->ref. */
static LIST_HEAD(hixl_procs);
static DEFINE_MUTEX(hixl_procs_lock);

/**
 * hixl_proc_get() - the accounting entry of a process, created on first use
 * @mm: the process's mm; the entry takes an mmgrab() reference
 *
 * Context: process context, may sleep.
 * Return: the entry with a reference the caller drops with hixl_proc_put(),
 * or NULL when out of memory.
 */
struct hixl_proc *hixl_proc_get(struct mm_struct *mm)
{
	struct hixl_proc *p;

	mutex_lock(&hixl_procs_lock);
	list_for_each_entry(p, &hixl_procs, node) {
		if (p->mm == mm) {
			refcount_inc(&p->ref);
			goto out;
		}
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (p) {
		p->mm = mm;
		mmgrab(mm);
		refcount_set(&p->ref, 1);
		spin_lock_init(&p->lock);
		list_add(&p->node, &hixl_procs);
	}
out:
	mutex_unlock(&hixl_procs_lock);
	return p;
}

/**
 * hixl_proc_put() - drop a reference from hixl_proc_get()
 * @proc: the entry; NULL is ignored
 *
 * The last reference frees the entry; by then every registration of the
 * process has been uncharged (a non-zero counter is a bug and warns).
 * Context: process context, may sleep.
 */
void hixl_proc_put(struct hixl_proc *proc)
{
	if (!proc)
		return;
	mutex_lock(&hixl_procs_lock);
	if (!refcount_dec_and_test(&proc->ref)) {
		mutex_unlock(&hixl_procs_lock);
		return;
	}
	list_del(&proc->node);
	mutex_unlock(&hixl_procs_lock);
	WARN_ON(proc->regions || proc->host_bytes || proc->device_bytes);
	mmdrop(proc->mm);
	kfree(proc);
}

/**
 * hixl_limit_check() - may one more registration of @add bytes be made?
 * @regions:     registrations the process has now
 * @bytes:       bytes of this memory type the process has registered now
 * @add:         bytes of the new registration
 * @max_regions: limit on @regions (hixl_max_regions)
 * @max_bytes:   limit on @bytes for this type (hixl_max_*_bytes)
 *
 * A process may hold exactly @max_regions registrations and exactly
 * @max_bytes bytes; the arithmetic cannot overflow.
 *
 * Return: 0 if allowed; -ENOSPC if it would exceed the registration count;
 * -E2BIG if it would exceed the byte limit.
 */
int hixl_limit_check(u32 regions, u64 bytes, u64 add, u32 max_regions, u64 max_bytes)
{
	if (regions >= max_regions)
		return -ENOSPC;
	if (add > max_bytes || bytes > max_bytes - add)
		return -E2BIG;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_limit_check);

/**
 * hixl_proc_charge() - count one registration against the process's limits
 * @proc:  the process
 * @type:  HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @bytes: the registration's length
 *
 * Either everything is charged or nothing is.
 * Context: any; takes a spinlock.
 * Return: 0, or -ENOSPC / -E2BIG from hixl_limit_check().
 */
int hixl_proc_charge(struct hixl_proc *proc, u32 type, u64 bytes)
{
	u64 *counter = type == HIXL_MEM_HOST ? &proc->host_bytes : &proc->device_bytes;
	u64 max = type == HIXL_MEM_HOST ? READ_ONCE(hixl_max_host_bytes) :
					  READ_ONCE(hixl_max_device_bytes);
	int ret;

	spin_lock(&proc->lock);
	ret = hixl_limit_check(proc->regions, *counter, bytes,
			       READ_ONCE(hixl_max_regions), max);
	if (!ret) {
		proc->regions++;
		*counter += bytes;
	}
	spin_unlock(&proc->lock);
	return ret;
}

/**
 * hixl_proc_uncharge() - undo exactly one hixl_proc_charge()
 * @proc:  the process
 * @type:  as charged
 * @bytes: as charged
 *
 * Context: any; takes a spinlock.
 */
void hixl_proc_uncharge(struct hixl_proc *proc, u32 type, u64 bytes)
{
	u64 *counter = type == HIXL_MEM_HOST ? &proc->host_bytes : &proc->device_bytes;

	spin_lock(&proc->lock);
	if (!WARN_ON(!proc->regions || *counter < bytes)) {
		proc->regions--;
		*counter -= bytes;
	}
	spin_unlock(&proc->lock);
}
