// SPDX-License-Identifier: GPL-2.0
/*
 * xwork.c - io_uring's TRANSFERs that run in process context: a batch with
 * staged descriptors (stage.c copies them between the process's memory and
 * the staging pool, and waits for the peer) and a same-host batch (local_xfer.c,
 * a kernel copy).  io_uring's issue plans them (xfer.c) and queues them
 * here; the CQE comes from the work item when the batch has ended, so no
 * io_uring thread - neither the submitter nor one of io-wq's bounded
 * workers - is held for a batch, as none is for a direct one (xq.c).
 *
 * Model: the USB gadget's f_fs and aio (ffs_user_copy_worker()): a work
 * item that copies to and from a process's memory runs with that
 * process's mm (kthread_use_mm()), held by mmget() from the issue to the
 * end, so the copies fault pages in as the process would.  The work runs
 * under the engine's rdma_sem for reading, as every command does: a
 * device removal waits for it like for an ioctl's batch.  The engine
 * outlives it: io_uring holds the engine's file until the CQE, which is
 * posted last.
 *
 * Each batch is one work item on its engine's hixl_engine.xwork_wq, an
 * unbound workqueue of the engine's own with at most xwork_max_active
 * items running: batches on one link wait for each other on the link's
 * post_mutex as ioctls do, batches on different links run side by side up
 * to that cap, and an engine whose batches wait for a peer (a stuck peer
 * lock, a staging round, a page of a userfaultfd range) fills only its own
 * queue.  Nothing that flushes hixl_wq or hixl_engine.wq (link teardown,
 * rails) waits for a batch; the engine's close destroys the queue after the
 * last CQE (io_uring holds the file until then).
 *
 * A queued batch holds nothing of the peer's region table: the transport's
 * queue op (xrdma.c) ends its planning hold, or hands its direct pieces to
 * the link's transfer queue, before the item is queued, so that a REGION_DEL
 * acknowledgment (xq.c) never waits for a batch that waits for a worker.
 */
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

/**
 * struct hixl_xwork - one io_uring TRANSFER waiting for or running in its work item
 * @work: on the engine's xwork_wq
 * @mm:   the submitter's mm (mmget()), with staged descriptors; else NULL
 * @a:    the TRANSFER as read at submission (the descriptors are in @p)
 * @p:    its plan, taken over from the issue (@p.a points to @a); its
 *        request is ended by the work item (the CQE, uring.c); its engine
 *        is alive until then: io_uring holds the engine's file
 */
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

/*
 * The engine's queue for its io_uring batches, made at its first one:
 * unbound, at most xwork_max_active (clamped to 1..WQ_MAX_ACTIVE) work
 * items running, each one batch.  Two issues racing both make one; the
 * loser destroys its own.  NULL when memory is short.
 */
static struct workqueue_struct *hixl_xwork_wq_get(struct hixl_engine *eng)
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
 * @p: the TRANSFER, checked and planned by a transport with a run op, its
 *     request started (hixl_xprep_process()): taken over and zeroed on
 *     success, left to the caller on error
 *
 * io_uring may cancel the request (hixl_req_cancelable()): one that has
 * not started ends with -ECANCELED; a same-host copy stops at its next
 * chunk; staged descriptors being copied are not stopped (as CANCEL does
 * not stop them), the batch's timeout bounds them.
 *
 * Before the item is queued the transport's queue op (struct hixl_xport)
 * lets go of what must not wait for a worker.
 *
 * Context: io_uring's issue (inline or from a worker), process context,
 * rdma_sem held for reading; sleeps only on memory, on the workqueue
 * core's locks while the engine's first batch makes its queue, and, in
 * the queue op, on the link's queue (xrdma.c, from io_uring's worker).
 * Return: -EIOCBQUEUED (the work item ends the request); -ENOMEM; -EFAULT
 * when the plan has staged descriptors and the submitting context has no
 * mm (the process is exiting).
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
	x->p = *p;
	memset(p, 0, sizeof(*p));
	x->p.a = &x->a;
	x->p.nonblock = false;
	queue_work(wq, &x->work);
	return -EIOCBQUEUED;
}
