/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xprep.h - a TRANSFER checked and planned, and the transports that carry
 * one, behind one seam (struct hixl_xport): the same-host copy
 * (local_xfer.c) and RDMA (xrdma.c: direct, staged and striped).  xfer.c
 * checks a TRANSFER, lets each transport in turn plan it, and hands it to
 * the one that did; xwork.c runs a transport's process-context part for
 * io_uring.  Not for other files.
 */
#ifndef _HIXL_XPREP_H
#define _HIXL_XPREP_H

#include <linux/types.h>

#include <rdma/hixl.h>
#include "plan.h"
#include "xq.h"

struct hixl_engine;
struct hixl_link;
struct hixl_req;
struct hixl_xport;

/**
 * enum hixl_xpath - how the RDMA transport runs a planned TRANSFER
 *                   (hixl_xpath_choose(), xrdma.c)
 * @HIXL_XPATH_DIRECT:  RDMA pieces only, on the link's queue (xq.c), which
 *                      ends the request
 * @HIXL_XPATH_STAGED:  staged descriptors (stage.c), after the direct pieces
 *                      if there are any: in process context, the ioctl's
 *                      caller or, for io_uring, a work item (xwork.c)
 * @HIXL_XPATH_STRIPED: RDMA pieces across the link's rails (xrail.c); with
 *                      fewer than two usable rails xrail.c hands the TRANSFER
 *                      back, and it is chosen again without rails
 */
enum hixl_xpath {
	HIXL_XPATH_DIRECT,
	HIXL_XPATH_STAGED,
	HIXL_XPATH_STRIPED,
};

/**
 * struct hixl_xprep - a TRANSFER being checked, planned and submitted
 * @eng:        the engine
 * @a:          the TRANSFER (the caller's, or xwork.c's copy); out: failed
 * @req:        its request (req.c), started once it is planned
 * @deadline:   jiffies: its timeout, counted from the submission
 * @nonblock:   io_uring's inline issue: -EAGAIN rather than sleep
 * @xport:      the transport that planned it (hixl_xport_plan())
 * @l:          the link (a reference)
 * @d:          the descriptors, copied from the caller
 * @pl:         the planned pieces and the regions they hold (both
 *              transports: the same-host copy holds regions only)
 * @smap:       RDMA: bit i, descriptor i is staged
 * @sidx:       RDMA: the staged descriptors' indices
 * @ns:         RDMA: entries of @sidx
 * @sbytes:     RDMA: bytes of the staged descriptors
 * @rbytes:     with @rails_only: the descriptors' bytes (the trace's; @pl
 *              is not planned then)
 * @planning:   RDMA: hixl_xq_plan_begin() done, not ended
 * @rails_only: the primary link is broken, a rail link is READY: only the
 *              RDMA transport plans it, on the rail links (xrail.c)
 * @err:        with @rails_only: the primary link's error
 * @xb:         RDMA, io_uring: the direct pieces of a staged TRANSFER,
 *              queued on the link at the issue (hixl_rdma_queue()), a
 *              reference; the work item waits for them
 *
 * hixl_xprep_free() releases it, whoever ran it.
 */
struct hixl_xprep {
	struct hixl_engine *eng;
	struct hixl_transfer *a;
	struct hixl_req *req;
	unsigned long deadline;
	bool nonblock;
	const struct hixl_xport *xport;
	struct hixl_link *l;
	struct hixl_op_desc *d;
	struct hixl_plan pl;
	unsigned long *smap;
	u32 *sidx;
	u32 ns;
	u64 sbytes;
	u64 rbytes;
	bool planning;
	bool rails_only;
	int err;
	struct hixl_xbatch *xb;
};

/**
 * struct hixl_xport - a transport: how a TRANSFER moves once it is checked
 * @name:   for messages
 * @plan:   check and plan @p's descriptors (@p->d, @p->a) for this
 *          transport.  Return: 0 planned (what @p holds is released by
 *          hixl_xprep_free()); 1 not this transport's (nothing held: the
 *          next one plans); -EAGAIN (@p->nonblock); or the TRANSFER's
 *          error, @p->a->failed set
 * @submit: queue the planned TRANSFER; what carries it ends @p->req
 *          (hixl_req_end()).  A transport whose work needs process
 *          context submits with hixl_xprep_process().  Return:
 *          -EIOCBQUEUED; -EAGAIN (@p->nonblock, nothing queued); or an
 *          error found before anything was queued, for the caller to end
 *          the request with (@p->a->failed set)
 * @queue:  optional, called by xwork.c right before it queues the work
 *          item that runs the TRANSFER: let go of what must not wait for
 *          a worker (RDMA: the hold on the peer's table).  Return: 0, or
 *          an error with nothing queued (@p still holds what it held)
 * @run:    hixl_xprep_process()'s: carry the TRANSFER out to its end in
 *          process context (the waiting submitter's, or a work item's with
 *          the submitter's mm), rdma_sem held for reading.  Return: its
 *          result, @p->a->failed set; NULL for a transport that never
 *          needs process context
 *
 * A transport's files define one of these and need nothing of another
 * transport's; xfer.c lists them (hixl_xports[]) in the order they are
 * asked to plan.
 */
struct hixl_xport {
	const char *name;
	int (*plan)(struct hixl_xprep *p);
	int (*submit)(struct hixl_xprep *p);
	int (*queue)(struct hixl_xprep *p);
	int (*run)(struct hixl_xprep *p);
};

extern const struct hixl_xport hixl_xport_local;	/* local_xfer.c */
extern const struct hixl_xport hixl_xport_rdma;		/* xrdma.c */

/* xfer.c */
int hixl_xport_plan(struct hixl_xprep *p, const struct hixl_xport *const *xports, u32 n);
int hixl_xprep_process(struct hixl_xprep *p);
void hixl_xprep_free(struct hixl_xprep *p);

/* xrdma.c */
enum hixl_xpath hixl_xpath_choose(u32 nstaged, bool rails_only, bool rails);

/* xwork.c: io_uring's process-context TRANSFERs, run from a work item */
int hixl_xwork_queue(struct hixl_xprep *p);

#endif /* _HIXL_XPREP_H */
