/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - the data-path counters of engines and links (stats.c): bytes
 * and descriptors moved by READ and WRITE, direct and staged, failures,
 * link resets, connects and their latency (struct hixl_xfer_stats in the
 * ABI).
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
#ifndef _HIXL_STATS_H
#define _HIXL_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <rdma/hixl.h>

struct hixl_engine;
struct hixl_link;

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

void hixl_ctrs_read(struct hixl_ctrs *c, struct hixl_xfer_stats *s);
void hixl_link_count(struct hixl_link *l, enum hixl_ctr i, u64 n);
void hixl_link_count_xfer(struct hixl_link *l, u32 op, bool staged, u64 bytes, u64 ops);
void hixl_link_count_result(struct hixl_link *l, int ret);
void hixl_link_count_connect(struct hixl_link *l, int ret, u64 ns);
void hixl_xfer_done(struct hixl_engine *eng, struct hixl_link *l, u32 op, int ret,
		    u64 bytes, u64 tag, u64 ns);
u32 hixl_lat_bucket(u64 ns);
void hixl_link_count_latency(struct hixl_link *l, int ret, u64 ns);
void hixl_lat_read(struct hixl_lat *h, struct hixl_lat_hist *o);

int hixl_cmd_link_stats(struct hixl_engine *eng, struct hixl_link_stats *a);

/* railstats.c: the engine's counters per rail (GET_STATS, HIXL_STATS_RAILS) */
struct hixl_rail_piece;
void hixl_rail_count_failover(struct hixl_engine *eng, u32 from,
			      const struct hixl_rail_piece *pc, const u32 *idx, u32 n);
int hixl_stats_rails(struct hixl_engine *eng, u64 ubuf, u32 room, u32 *nr);
struct hixl_rdma;
void hixl_rail_stats_fill(struct hixl_engine *eng, const struct hixl_rdma *rd,
			  struct hixl_rail_stat *out, u32 n);
int hixl_cmd_engines(struct hixl_engine *eng, struct hixl_engines *a);

#endif /* _HIXL_STATS_H */
