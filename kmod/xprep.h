/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xprep.h - a TRANSFER checked and planned, and the transports behind
 * struct hixl_xport: same-host copy (local_xfer.c) and RDMA (xrdma.c).
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
 * @HIXL_XPATH_DIRECT:  RDMA pieces on the link's queue only
 * @HIXL_XPATH_STAGED:  staged descriptors too, in process context
 * @HIXL_XPATH_STRIPED: across the link's rails (xrail.c); with fewer than
 *                      two usable rails it is chosen again without rails
 */
enum hixl_xpath {
	HIXL_XPATH_DIRECT,
	HIXL_XPATH_STAGED,
	HIXL_XPATH_STRIPED,
};

/**
 * struct hixl_xprep - a TRANSFER being checked, planned and submitted
 * @eng:        the engine
 * @a:          the TRANSFER; out: failed
 * @req:        its request, started once planned
 * @deadline:   jiffies: its timeout
 * @nonblock:   io_uring inline issue: -EAGAIN rather than sleep
 * @xport:      the transport that planned it
 * @l:          the link (a reference)
 * @d:          the descriptors, copied from the caller
 * @pl:         the planned pieces and the regions they hold
 * @smap:       RDMA: bit i, descriptor i is staged
 * @sidx:       RDMA: the staged descriptors' indices
 * @ns:         RDMA: entries of @sidx
 * @sbytes:     RDMA: bytes of the staged descriptors
 * @rbytes:     with @rails_only: the descriptors' bytes
 * @planning:   RDMA: hixl_xq_plan_begin() done, not ended
 * @rails_only: primary link broken, a rail link READY: stripe only
 * @err:        with @rails_only: the primary link's error
 * @xb:         RDMA, io_uring: a staged TRANSFER's direct pieces, queued
 *              at issue, a reference
 *
 * Released by hixl_xprep_free().
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
 * struct hixl_xport - a transport: how a checked TRANSFER moves
 * @name:   for messages
 * @plan:   plan @p for this transport.  Return: 0 planned; 1 not this
 *          transport's (nothing held); -EAGAIN; or the TRANSFER's error
 * @submit: queue the planned TRANSFER; its carrier ends @p->req.  Return:
 *          -EIOCBQUEUED; -EAGAIN (nothing queued); or an error before
 *          anything was queued
 * @queue:  optional: before xwork.c queues the work item, release what
 *          must not wait for a worker.  Return: 0 or an error
 * @run:    carry the TRANSFER out in process context, rdma_sem held for
 *          reading; NULL if never needed.  Return: its result
 *
 * xfer.c lists the transports (hixl_xports[]) in planning order.
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

/* xwork.c */
int hixl_xwork_queue(struct hixl_xprep *p);
struct workqueue_struct *hixl_xwork_wq_get(struct hixl_engine *eng);

#endif /* _HIXL_XPREP_H */
