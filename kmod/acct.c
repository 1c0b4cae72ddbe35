// SPDX-License-Identifier: GPL-2.0
/* acct.c - per-process registration limits, shared by the engines of one mm */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "trace.h"

/* every struct hixl_proc; hixl_procs_lock protects the list and ->ref */
static LIST_HEAD(hixl_procs);
static DEFINE_MUTEX(hixl_procs_lock);

/**
 * hixl_proc_get() - the accounting entry of a process, made on first use
 * @mm: the process's mm
 * Context: process context, may sleep.
 * Return: a referenced entry, or NULL out of memory.
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
 * @proc: the entry, or NULL
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
 * @regions:     registrations the process has
 * @bytes:       bytes of this type registered
 * @add:         bytes of the new registration
 * @max_regions: limit on @regions
 * @max_bytes:   limit on @bytes
 * Return: 0 if allowed; -ENOSPC over @max_regions; -E2BIG over @max_bytes.
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
 * hixl_proc_charge() - charge one registration, all or nothing
 * @proc:  the process
 * @type:  HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @bytes: the registration's length
 * Context: any; takes a spinlock.
 * Return: as hixl_limit_check().
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
 * hixl_proc_uncharge() - undo one hixl_proc_charge()
 * @proc:  the process
 * @type:  as charged
 * @bytes: as charged
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
