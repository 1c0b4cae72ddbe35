/* SPDX-License-Identifier: GPL-2.0 */
/* xprep.h - a TRANSFER checked and planned, and its transports */
#ifndef _HIXL_XPREP_H
#define _HIXL_XPREP_H

#include <linux/bits.h>
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
 * @HIXL_XPATH_STRIPED: across the link's rails
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
 * @deadline:   jiffies
 * @nonblock:   io_uring inline issue: -EAGAIN rather than sleep
 * @xport:      the transport that planned it
 * @l:          the link, held
 * @d:          the descriptors, copied
 * @pl:         planned pieces and the regions they hold
 * @smap:       RDMA: bit i, descriptor i is staged
 * @sidx:       RDMA: staged descriptors' indices
 * @ns:         RDMA: entries of @sidx
 * @sbytes:     RDMA: staged bytes
 * @rbytes:     with @rails_only: the descriptors' bytes
 * @planning:   RDMA: between hixl_xq_plan_begin() and its end
 * @rails_only: primary broken, a rail link READY: stripe only
 * @err:        with @rails_only: the primary's error
 * @xb:         RDMA, io_uring: staged TRANSFER's direct pieces, held
 * @room:       @pl's arrays for a small TRANSFER
 * @d_inl:      @d for a small TRANSFER
 * @sidx_inl:   @sidx for a small TRANSFER
 * @smap_inl:   @smap for a small TRANSFER
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
	struct hixl_plan_room room;
	struct hixl_op_desc d_inl[HIXL_PLAN_INLINE];
	u32 sidx_inl[HIXL_PLAN_INLINE];
	unsigned long smap_inl[BITS_TO_LONGS(HIXL_PLAN_INLINE)];
};

/**
 * struct hixl_xport - a transport: how a checked TRANSFER moves
 * @name:   for messages
 * @plan:   0 planned; 1 not this transport's (nothing held); else -errno
 * @submit: queue; -EIOCBQUEUED, or -errno with nothing queued
 * @queue:  optional: release, before xwork.c queues, what must not wait
 * @run:    carry out in process context, rdma_sem read-held; may be NULL
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

int hixl_xport_plan(struct hixl_xprep *p, const struct hixl_xport *const *xports, u32 n);
int hixl_xprep_process(struct hixl_xprep *p);
void hixl_xprep_free(struct hixl_xprep *p);
void hixl_xprep_move(struct hixl_xprep *dst, struct hixl_xprep *src);

enum hixl_xpath hixl_xpath_choose(u32 nstaged, bool rails_only, bool rails);

int hixl_xwork_queue(struct hixl_xprep *p);
struct workqueue_struct *hixl_xwork_wq_get(struct hixl_engine *eng);

#endif /* _HIXL_XPREP_H */
