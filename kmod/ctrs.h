/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctrs.h - the data-path counters' types: one atomic64_t per field of
 * struct hixl_xfer_stats, and the latency histogram.  An engine, each of
 * its links and each of its rails has a struct hixl_ctrs; stats.c counts
 * into them, report.c reads them out.
 *
 * Why atomic64_t and not per-CPU counters: they move once per TRANSFER (or
 * once per direct or staged half of one), per failure and per connect -
 * never per work request - so an atomic add is a few nanoseconds against
 * a batch that takes microseconds at least; the completions of one link
 * already serialise on its xq.lock, so there is no wider contention to
 * spread; and a link's counters must be readable as its own (LINK_STATS)
 * while the engine keeps totals that survive closed links, which per-CPU
 * copies would multiply by the CPUs times the links (up to 512 per
 * engine).  Every update goes to the link and to its engine
 * (hixl_link_count()): two atomics, no lock, no walk of the links when the
 * counters are read.
 */
#ifndef _HIXL_CTRS_H
#define _HIXL_CTRS_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <rdma/hixl.h>

/* One per field of struct hixl_xfer_stats, in its order. */
enum hixl_ctr {
	HIXL_CTR_READ_DIRECT_BYTES,
	HIXL_CTR_READ_DIRECT_OPS,
	HIXL_CTR_READ_STAGED_BYTES,
	HIXL_CTR_READ_STAGED_OPS,
	HIXL_CTR_WRITE_DIRECT_BYTES,
	HIXL_CTR_WRITE_DIRECT_OPS,
	HIXL_CTR_WRITE_STAGED_BYTES,
	HIXL_CTR_WRITE_STAGED_OPS,
	HIXL_CTR_ERRORS,
	HIXL_CTR_WC_ERRORS,
	HIXL_CTR_TIMEOUTS,
	HIXL_CTR_CANCELS,
	HIXL_CTR_LINK_RESETS,
	HIXL_CTR_CONNECTS,
	HIXL_CTR_CONNECT_FAILURES,
	HIXL_CTR_ACCEPTS,
	HIXL_CTR_CONNECT_US_LAST,	/* set, not added */
	HIXL_CTR_CONNECT_US_SUM,
	HIXL_CTR_LOCAL_BYTES,
	HIXL_CTR_LOCAL_OPS,
	HIXL_CTR_RAIL_FAILOVERS,
	HIXL_CTR_RAIL_REPOST_BYTES,
	HIXL_CTR_NR
};

/*
 * struct hixl_lat_hist's counters (HIXL_FEAT_LATENCY): one increment of a
 * bucket, one add to the sum and one increment of the count per TRANSFER
 * that succeeded.  The engine's and each link's; a rail's copy
 * (hixl_engine.rail_ctrs) stays zero (a TRANSFER's time is its primary
 * link's).
 */
struct hixl_lat {
	atomic64_t count;
	atomic64_t sum_ns;
	atomic64_t bucket[HIXL_LAT_BUCKETS];
};

/* struct hixl_xfer_stats's counters, atomic: no lock protects them. */
struct hixl_ctrs {
	atomic64_t v[HIXL_CTR_NR];
	struct hixl_lat lat;
};

#endif /* _HIXL_CTRS_H */
