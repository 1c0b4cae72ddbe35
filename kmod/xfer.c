// SPDX-License-Identifier: GPL-2.0
/*
 * xfer.c - HIXL_IOC_TRANSFER, and io_uring's TRANSFER: a batch of READ or
 * WRITE descriptors to one peer (HIXL TransferSync and TransferAsync).
 *
 * The ioctl and io_uring's URING_CMD (uring.c) submit alike
 * (hixl_transfer_submit()): the TRANSFER is checked and its descriptors
 * copied here, then each transport of hixl_xports[] in turn is asked to
 * plan it (struct hixl_xport, xprep.h): the same-host copy (local_xfer.c)
 * when the link is paired with an engine of this kernel, else RDMA
 * (xrdma.c: direct, staged or striped).  The one that planned it submits
 * it as a request (req.c) whose end is said once, by whatever carried it;
 * the ioctl then waits for it, io_uring does not.  What needs process
 * context (staging, the kernel copy) runs in the ioctl's task, or for
 * io_uring in a work item (xwork.c): hixl_xprep_process().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "link.h"
#include "plan.h"
#include "xq.h"
#include "xfer.h"
#include "xrail.h"
#include "xprep.h"
#include "req.h"
#include "trace.h"

static int hixl_transfer_validate(struct hixl_engine *eng, const struct hixl_transfer *a)
{
	struct sockaddr_storage ss;
	int ret;

	if (a->flags)
		return hixl_einval("TRANSFER: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved)
		return hixl_einval("TRANSFER: reserved is not zero");
	if (a->op != HIXL_OP_READ && a->op != HIXL_OP_WRITE)
		return hixl_einval("TRANSFER: op %u (READ %u, WRITE %u)", a->op, HIXL_OP_READ,
				   HIXL_OP_WRITE);
	if (!a->count || a->count > HIXL_MAX_DESCS)
		return hixl_einval("TRANSFER: count %u (1..%u)", a->count, HIXL_MAX_DESCS);
	if (!a->timeout_ms || a->timeout_ms > HIXL_MAX_TIMEOUT_MS)
		return hixl_einval("TRANSFER: timeout_ms %u (1..%u)", a->timeout_ms,
				   HIXL_MAX_TIMEOUT_MS);
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	return hixl_engine_usable(eng);
}

/*
 * Release what planning held; @p is zeroed.  Direct pieces queued for a
 * work item that did not run them (io_uring cancelled it) are cancelled
 * and waited for first.
 */
void hixl_xprep_free(struct hixl_xprep *p)
{
	if (p->xb) {		/* queued direct pieces of a batch that never ran */
		u32 failed;

		hixl_xbatch_cancel(p->xb);
		hixl_xbatch_wait(p->xb, &failed);
		hixl_xbatch_put(p->xb);
	}
	hixl_plan_release(p->eng, &p->pl);
	if (p->planning)
		hixl_xq_plan_end(p->l);
	bitmap_free(p->smap);
	kvfree(p->sidx);
	kvfree(p->d);
	if (p->l)
		hixl_link_put(p->l);
	memset(p, 0, sizeof(*p));
}

/* the transports, in the order they are asked to plan a TRANSFER */
static const struct hixl_xport *const hixl_xports[] = {
	&hixl_xport_local,
	&hixl_xport_rdma,
};

/**
 * hixl_xport_plan() - the transport that carries a TRANSFER
 * @p:      the TRANSFER, checked, its descriptors copied
 * @xports: the transports, in the order they are asked
 * @n:      entries of @xports
 *
 * Each transport in turn plans @p or says it is not its (1); the first
 * that planned it, or refused it, is @p->xport.
 *
 * Return: 0 planned, or the planning transport's error (-EAGAIN with
 * @p->nonblock); -EPROTONOSUPPORT when no transport took it (none is
 * listed that takes every TRANSFER: never with hixl_xports[]).
 */
int hixl_xport_plan(struct hixl_xprep *p, const struct hixl_xport *const *xports, u32 n)
{
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = xports[i]->plan(p);
		if (ret != 1) {
			p->xport = xports[i];
			return ret;
		}
	}
	return -EPROTONOSUPPORT;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xport_plan);

/**
 * hixl_xprep_init() - check a TRANSFER and plan it
 * @p: in: eng, a, nonblock set, the rest zero; out: the link, the
 *     descriptors, the transport and its plan
 *
 * Checks the argument, finds the link, copies the descriptors and lets
 * the transports plan them (hixl_xport_plan()).  Nothing moves before all
 * descriptors passed.
 *
 * Context: process context; what the transports take (not with
 * @p->nonblock where it is busy).
 * Return: 0; the errors of hixl_transfer_validate(); -ENOTCONN (no link),
 * -EAGAIN (link connecting, or @p->nonblock), the link's error when
 * broken; -ENOMEM; -EFAULT (descriptor array unreadable); the planning
 * transport's, with @p->a->failed set.
 */
static int hixl_xprep_init(struct hixl_xprep *p)
{
	struct hixl_transfer *a = p->a;
	struct hixl_engine *eng = p->eng;
	struct hixl_link *l;
	int ret, st, err;

	a->failed = a->count;
	ret = hixl_transfer_validate(eng, a);
	if (ret)
		return ret;
	l = p->nonblock ? hixl_link_tryget(eng, &a->remote) : hixl_link_get(eng, &a->remote);
	if (IS_ERR(l))
		return PTR_ERR(l);	/* -EAGAIN: links_lock busy */
	if (!l)
		return -ENOTCONN;
	p->l = l;
	st = hixl_link_state(l, &err);
	if (st == HIXL_LINK_CONNECTING)
		return -EAGAIN;
	if (st != HIXL_LINK_READY) {
		if (!hixl_xrail_rails_only(l))
			return err;
		p->rails_only = true;	/* a broken primary with a READY rail link */
		p->err = err;
	}
	p->d = kvmalloc_array(a->count, sizeof(*p->d), HIXL_PLAN_GFP);
	p->pl.held = kvmalloc_array(a->count, sizeof(*p->pl.held), HIXL_PLAN_GFP);
	if (!p->d || !p->pl.held)
		return -ENOMEM;
	if (copy_from_user(p->d, u64_to_user_ptr(a->descs), array_size(a->count, sizeof(*p->d))))
		return -EFAULT;
	return hixl_xport_plan(p, hixl_xports, ARRAY_SIZE(hixl_xports));
}

/* The TRANSFER was checked and planned: say what will move. */
static void hixl_xprep_trace(const struct hixl_xprep *p)
{
	trace_hixl_xfer_submit(p->eng->id, &p->l->raddr, p->a->op, p->a->count, p->ns,
			       p->pl.bytes + p->sbytes, p->a->tag);
}

/**
 * hixl_xprep_process() - carry a TRANSFER out in process context
 * @p: planned by a transport with a run op, its request started
 *
 * A transport's submit for what needs process context (staging, the
 * kernel copy): a submitter that waits (the ioctl) runs it here, to its
 * end, and ends the request; io_uring's goes to a work item (xwork.c),
 * which does the same, so that no io_uring thread is held for it.
 *
 * Context: the submission's.
 * Return: -EIOCBQUEUED, or xwork.c's error before anything was queued.
 */
int hixl_xprep_process(struct hixl_xprep *p)
{
	int ret;

	if (p->req->ops->async)
		return hixl_xwork_queue(p);
	ret = p->xport->run(p);
	hixl_req_end(p->req, ret, p->a->failed);
	return -EIOCBQUEUED;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xprep_process);

/* A TRANSFER planning refused: count it on its link, when it has one. */
static void hixl_xprep_failed(const struct hixl_xprep *p, int ret)
{
	if (p->l)
		hixl_link_count_result(p->l, ret);
}

/**
 * hixl_transfer_submit() - check, plan and queue a TRANSFER as a request
 * @eng:      the engine
 * @a:        the TRANSFER (the ioctl's argument, or read from the SQE);
 *            out: failed, when an error is returned
 * @req:      a request from hixl_req_init(), with its submitter's ops
 * @nonblock: io_uring's inline issue (IO_URING_F_NONBLOCK): return
 *            -EAGAIN instead of sleeping on the device, a busy lock or
 *            staging, and io_uring retries from its worker threads
 *
 * The one submission of both submitters, the ioctl (hixl_cmd_transfer(),
 * which then waits) and io_uring (uring.c): the transport that planned the
 * TRANSFER submits it, and the request ends through hixl_req_end() once,
 * from whatever carries it.  No batch runs to its end here unless the
 * submitter waits for it anyway.
 *
 * Context: process context; rdma_sem held for reading.
 * Return: -EIOCBQUEUED: @req was started and ends (or has ended) through
 * its ops; otherwise nothing was started and @req is unused: -EAGAIN (see
 * @nonblock), or an error found before anything was planned, as
 * hixl_cmd_transfer() documents, with @a->failed set.
 */
int hixl_transfer_submit(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_req *req,
			 bool nonblock)
{
	struct hixl_xprep p = {
		.eng = eng, .a = a, .req = req, .nonblock = nonblock,
		.deadline = hixl_deadline(a->timeout_ms),
	};
	u64 start = ktime_get_ns();
	int ret;

	ret = hixl_xprep_init(&p);
	if (ret) {
		hixl_xprep_failed(&p, ret);
		goto out;
	}
	hixl_xprep_trace(&p);
	hixl_req_start(req, eng, p.l, a, p.pl.bytes + p.sbytes + p.rbytes, start);
	ret = p.xport->submit(&p);
	if (ret == -EAGAIN) {		/* nothing queued: io_uring issues it again */
		hixl_req_release(req);
	} else if (ret != -EIOCBQUEUED) {	/* refused before it was queued */
		hixl_req_end(req, ret, a->failed);
		ret = -EIOCBQUEUED;
	}
out:
	hixl_xprep_free(&p);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_transfer_submit);

static void hixl_ioctl_req_end(struct hixl_req *req)
{
	complete(&req->done);		/* hixl_req_wait() releases the link */
}

static const struct hixl_req_ops hixl_ioctl_req_ops = {
	.end = hixl_ioctl_req_end,
};

/**
 * hixl_cmd_transfer() - HIXL_IOC_TRANSFER: one synchronous READ or WRITE batch
 * @eng: the engine
 * @a:   in: remote, op, descs (user pointer), count, timeout_ms; out: failed
 *
 * Submits the TRANSFER as a request (hixl_transfer_submit()) and waits for
 * its end (hixl_req_wait()).
 *
 * Context: process context, sleeps up to @a->timeout_ms; rdma_sem held for
 * reading, released while the request is in flight.
 * Return: 0 when every descriptor completed; otherwise -errno, with
 * @a->failed the index of the first failing descriptor (or @a->count when
 * no single descriptor is to blame):
 *  -EINVAL     flags, reserved fields, op, count 0 or above HIXL_MAX_DESCS,
 *              timeout_ms 0 or above HIXL_MAX_TIMEOUT_MS, a malformed
 *              peer name; a descriptor with len 0;
 *  -EAFNOSUPPORT the peer name is not AF_INET or AF_INET6;
 *  -EPERM      the caller is not the engine's process;
 *  -EBADFD     the engine was not set up;
 *  -ENODEV     the engine's RDMA device was removed (SETUP again);
 *  -EFAULT     the descriptor array cannot be read;
 *  -ENOTCONN   no link to @a->remote (HIXL NOT_CONNECTED);
 *  -EAGAIN     the link is still connecting;
 *  -ECONNRESET, -ENETDOWN, -ETIMEDOUT, -EIO: the link is broken (now or
 *              earlier); nothing more is posted on it;
 *  -EOVERFLOW  a descriptor's address + len wraps;
 *  -ENOENT     a local range is not inside one valid registration with MRs;
 *  -ERANGE     a remote range is not inside one registration the peer
 *              announced;
 *  -EACCES     READ into a read-only local region (a staged one: whose
 *              local range touches one at all), or WRITE into a region the
 *              peer registered read-only;
 *  -ETIMEDOUT  the batch did not complete in time (the link is broken
 *              when work requests were on the wire);
 *  -ECANCELED  HIXL_IOC_CANCEL named @a->tag, or a fatal signal arrived
 *              (the call still returns only once nothing is on the wire);
 *  -EIO        the device reported an error on a work request;
 *  -E2BIG      the batch would need more than HIXL_MAX_PIECES work
 *              requests (or stripe chunks): split it;
 *  -ENOMEM.
 * Descriptor errors are found before anything is posted: nothing is written.
 */
int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a)
{
	struct hixl_req req;
	int ret;

	hixl_req_init(&req, &hixl_ioctl_req_ops, NULL, 0);
	ret = hixl_transfer_submit(eng, a, &req, false);
	if (ret != -EIOCBQUEUED)
		return ret;
	ret = hixl_req_wait(&req);
	a->failed = req.failed;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_transfer);
