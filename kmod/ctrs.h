/* SPDX-License-Identifier: GPL-2.0 */
/* ctrs.h - data-path counters and latencies; atomic, not per-CPU: once per TRANSFER */
#ifndef _HIXL_CTRS_H
#define _HIXL_CTRS_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <rdma/hixl.h>

/* one per field of struct hixl_xfer_stats, in its order */
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

/* struct hixl_lat_hist's counters: per successful TRANSFER; zero on rails */
struct hixl_lat {
	atomic64_t count;
	atomic64_t sum_ns;
	atomic64_t bucket[HIXL_LAT_BUCKETS];
};

/* struct hixl_xfer_stats's counters; atomic, no lock */
struct hixl_ctrs {
	atomic64_t v[HIXL_CTR_NR];
	struct hixl_lat lat;
};

#endif /* _HIXL_CTRS_H */
