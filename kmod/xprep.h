/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xprep.h - a TRANSFER checked and planned (xfer.c), as the files that run
 * one share it: xfer.c itself (the ioctl, and io_uring's direct and
 * striped batches) and xwork.c (io_uring's staged and same-host batches,
 * run from a work item).  Not for other files.
 */
#ifndef _HIXL_XPREP_H
#define _HIXL_XPREP_H

#include <linux/types.h>

#include <rdma/hixl.h>
#include "xfer.h"

struct hixl_engine;
struct hixl_link;
struct hixl_req;

/*
 * A TRANSFER checked and planned: the direct pieces and the staged
 * descriptors.  hixl_xprep_free() releases it, whoever ran it.
 */
struct hixl_xprep {
	struct hixl_link *l;
	struct hixl_op_desc *d;
	struct hixl_plan pl;
	unsigned long *smap;
	u32 *sidx;
	u32 ns;
	u64 sbytes;		/* bytes of the staged descriptors */
	u64 rbytes;		/* with @rails_only: the descriptors' bytes (the
				 * trace's; pl is not planned then) */
	bool planning;		/* hixl_xq_plan_begin() done, not ended */
	bool local;		/* the same-host copy carries it (local.c) */
	bool rails_only;	/* the primary link is broken, a rail link is READY:
				 * xrail.c checks and plans on the rail links */
	int err;		/* with @rails_only: the primary link's error */
};

/**
 * enum hixl_xpath - how a checked and planned TRANSFER runs (hixl_xpath_choose())
 * @HIXL_XPATH_DIRECT:  RDMA pieces only, on the link's queue (xq.c): the
 *                      ioctl waits for their end, io_uring's CQE comes from it
 * @HIXL_XPATH_STAGED:  staged descriptors (stage.c), after the direct pieces
 *                      if there are any: in process context, the ioctl's
 *                      caller or, for io_uring, a work item (xwork.c)
 * @HIXL_XPATH_LOCAL:   the same-host copy (local.c): in process context, as
 *                      staged ones
 * @HIXL_XPATH_STRIPED: RDMA pieces across the link's rails (xrail.c); with
 *                      fewer than two usable rails xrail.c hands the TRANSFER
 *                      back, and it is chosen again without rails
 */
enum hixl_xpath {
	HIXL_XPATH_DIRECT,
	HIXL_XPATH_STAGED,
	HIXL_XPATH_LOCAL,
	HIXL_XPATH_STRIPED,
};

enum hixl_xpath hixl_xpath_choose(bool local, u32 nstaged, bool rails_only, bool rails);
void hixl_xprep_free(struct hixl_engine *eng, struct hixl_xprep *p);
int hixl_xprep_run_sync(struct hixl_engine *eng, struct hixl_transfer *a,
			struct hixl_xprep *p, enum hixl_xpath path, unsigned long deadline,
			struct hixl_req *req);

/* xwork.c: io_uring's staged and same-host TRANSFERs, run from a work item */
int hixl_xwork_queue(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_xprep *p,
		     enum hixl_xpath path, struct hixl_req *req, unsigned long deadline);
int hixl_xwork_init(void);
void hixl_xwork_exit(void);

#endif /* _HIXL_XPREP_H */
