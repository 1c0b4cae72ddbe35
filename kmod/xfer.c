// SPDX-License-Identifier: GPL-2.0
/* xfer.c - TRANSFER: checked, planned by the first transport that takes it, submitted */
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

/* release what planning held; @p is zeroed */
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
	if (p->smap != p->smap_inl)
		bitmap_free(p->smap);
	if (p->sidx != p->sidx_inl)
		kvfree(p->sidx);
	if (p->d != p->d_inl)
		kvfree(p->d);
	if (p->l)
		hixl_link_put(p->l);
	memset(p, 0, sizeof(*p));
}

/**
 * hixl_xprep_move() - move a TRANSFER being submitted to another owner
 * @dst: where it goes
 * @src: the TRANSFER; zeroed
 */
void hixl_xprep_move(struct hixl_xprep *dst, struct hixl_xprep *src)
{
	*dst = *src;
	if (src->d == src->d_inl)
		dst->d = dst->d_inl;
	if (src->sidx == src->sidx_inl)
		dst->sidx = dst->sidx_inl;
	if (src->smap == src->smap_inl)
		dst->smap = dst->smap_inl;
	hixl_plan_init(&dst->pl, &dst->room);
	hixl_plan_move(&dst->pl, &src->pl);
	memset(src, 0, sizeof(*src));
}

static const struct hixl_xport *const hixl_xports[] = {
	&hixl_xport_local,
	&hixl_xport_rdma,
};

/**
 * hixl_xport_plan() - find the transport that carries a TRANSFER
 * @p:      the TRANSFER, checked, its descriptors copied
 * @xports: the transports, in planning order
 * @n:      entries of @xports
 * Return: 0 planned; the transport's error; -EPROTONOSUPPORT none took it.
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

/* nothing moves before every check passed */
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
	hixl_plan_init(&p->pl, &p->room);
	if (a->count <= HIXL_PLAN_INLINE) {
		p->d = p->d_inl;
		p->pl.held = p->room.held;
	} else {
		p->d = kvmalloc_array(a->count, sizeof(*p->d), HIXL_PLAN_GFP);
		p->pl.held = kvmalloc_array(a->count, sizeof(*p->pl.held), HIXL_PLAN_GFP);
		if (!p->d || !p->pl.held)
			return -ENOMEM;
	}
	if (copy_from_user(p->d, u64_to_user_ptr(a->descs), array_size(a->count, sizeof(*p->d))))
		return -EFAULT;
	return hixl_xport_plan(p, hixl_xports, ARRAY_SIZE(hixl_xports));
}

static void hixl_xprep_trace(const struct hixl_xprep *p)
{
	trace_hixl_xfer_submit(p->eng->id, &p->l->raddr, p->a->op, p->a->count, p->ns,
			       p->pl.bytes + p->sbytes, p->a->tag);
}

/**
 * hixl_xprep_process() - carry a TRANSFER out in process context
 * @p: planned by a transport with a run op, its request started
 * Context: the submission's; io_uring's goes to a work item.
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

static void hixl_xprep_failed(const struct hixl_xprep *p, int ret)
{
	if (p->l)
		hixl_link_count_result(p->l, ret);
}

/**
 * hixl_transfer_submit() - check, plan and queue a TRANSFER as a request
 * @eng:      the engine
 * @a:        the TRANSFER; out: failed
 * @req:      from hixl_req_init()
 * @nonblock: io_uring inline issue: -EAGAIN instead of sleeping
 * Context: process context; rdma_sem read-held.
 * Return: -EIOCBQUEUED @req ends through its ops; else @req is unused and
 * the error is as hixl_cmd_transfer()'s.
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
 * @a:   in: remote, op, descs, count, timeout_ms; out: failed
 * Context: process context, sleeps up to @a->timeout_ms; rdma_sem read-held,
 * released while in flight.
 * Return: 0, or -errno as docs/abi.md lists, @a->failed the first failing descriptor.
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
