// SPDX-License-Identifier: GPL-2.0
/* xwork.c - io_uring TRANSFERs run on a work item with the submitter's mm, as f_fs */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "engine.h"
#include "link.h"
#include "testhook.h"
#include "xprep.h"
#include "req.h"

/* one io_uring TRANSFER run by a work item; @mm is mmget() if staged */
struct hixl_xwork {
	struct work_struct work;
	struct mm_struct *mm;
	struct hixl_transfer a;
	struct hixl_xprep p;
};

static void hixl_xwork_fn(struct work_struct *work)
{
	struct hixl_xwork *x = container_of(work, struct hixl_xwork, work);
	struct hixl_engine *eng = x->p.eng;
	struct hixl_req *req = x->p.req;
	u32 failed;
	int ret;

	hixl_test_delay(HIXL_TEST_XWORK_START);
	down_read(&eng->rdma_sem);
	if (hixl_req_bind(req, NULL)) {	/* io_uring cancelled it */
		ret = -ECANCELED;
		x->a.failed = x->a.count;
	} else {
		if (x->mm)
			kthread_use_mm(x->mm);
		ret = x->p.xport->run(&x->p);
		if (x->mm)
			kthread_unuse_mm(x->mm);
	}
	hixl_xprep_free(&x->p);
	up_read(&eng->rdma_sem);
	if (x->mm)
		mmput(x->mm);
	failed = x->a.failed;
	kfree(x);
	hixl_req_end(req, ret, failed);	/* last: the engine may go after its CQE */
}

/**
 * hixl_xwork_wq_get() - the engine's queue for its io_uring batches and copy shares
 * @eng: the engine; the queue is made at first use
 * Context: process context, may sleep.
 * Return: the workqueue, or NULL when out of memory.
 */
struct workqueue_struct *hixl_xwork_wq_get(struct hixl_engine *eng)
{
	struct workqueue_struct *wq = READ_ONCE(eng->xwork_wq), *old;
	int max;

	if (wq)
		return wq;
	max = clamp(READ_ONCE(hixl_xwork_max_active), 1, WQ_MAX_ACTIVE);
	wq = alloc_workqueue(HIXL_XWORK_WQ_NAME, WQ_UNBOUND, max);
	if (!wq)
		return NULL;
	old = cmpxchg(&eng->xwork_wq, NULL, wq);
	if (old) {
		destroy_workqueue(wq);
		return old;
	}
	return wq;
}

/**
 * hixl_xwork_queue() - queue an io_uring TRANSFER that runs in process context
 * @p: the planned TRANSFER, its request started; taken over and zeroed on
 *     success
 * Context: io_uring issue, rdma_sem held for reading; may sleep.
 * Return: -EIOCBQUEUED; -ENOMEM; -EFAULT staged and no mm (process exiting).
 */
int hixl_xwork_queue(struct hixl_xprep *p)
{
	struct workqueue_struct *wq = hixl_xwork_wq_get(p->eng);
	struct hixl_xwork *x;
	int ret;

	if (!wq)
		return -ENOMEM;
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	if (p->ns) {
		if (!current->mm || !mmget_not_zero(current->mm)) {
			kfree(x);
			return -EFAULT;
		}
		x->mm = current->mm;
	}
	if (p->xport->queue) {
		ret = p->xport->queue(p);
		if (ret) {
			if (x->mm)
				mmput(x->mm);
			kfree(x);
			return ret;
		}
	}
	hixl_req_cancelable(p->req);
	INIT_WORK(&x->work, hixl_xwork_fn);
	x->a = *p->a;
	hixl_xprep_move(&x->p, p);
	x->p.a = &x->a;
	x->p.nonblock = false;
	queue_work(wq, &x->work);
	return -EIOCBQUEUED;
}
