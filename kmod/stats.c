// SPDX-License-Identifier: GPL-2.0
/* stats.c - data-path counters per link, engine and rail, and latency histograms */
#include <linux/bitops.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "rail.h"
#include "link.h"
#include "trace.h"

static_assert(offsetof(struct hixl_xfer_stats, reserved) == HIXL_CTR_NR * sizeof(__u64));

/**
 * hixl_ctrs_read() - copy counters out
 * @c: the counters
 * @s: out: the ABI struct, reserved fields 0
 */
void hixl_ctrs_read(struct hixl_ctrs *c, struct hixl_xfer_stats *s)
{
	u64 *o = (u64 *)s;

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < HIXL_CTR_NR; i++)
		o[i] = atomic64_read(&c->v[i]);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_ctrs_read);

static bool hixl_ctr_per_rail(const struct hixl_link *l, enum hixl_ctr i)
{
	/* failover counters: hixl_rail_count_failover() */
	return l->rail < HIXL_MAX_RAILS && i != HIXL_CTR_RAIL_FAILOVERS &&
	       i != HIXL_CTR_RAIL_REPOST_BYTES;
}

/**
 * hixl_link_count() - add to a counter of a link, its engine and its rail
 * @l: the link
 * @i: the counter
 * @n: how much
 * Context: any.
 */
void hixl_link_count(struct hixl_link *l, enum hixl_ctr i, u64 n)
{
	atomic64_add(n, &l->ctrs.v[i]);
	atomic64_add(n, &l->eng->ctrs.v[i]);
	if (hixl_ctr_per_rail(l, i))
		atomic64_add(n, &l->eng->rail_ctrs[l->rail].v[i]);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_count);

/**
 * hixl_link_count_xfer() - count descriptors of a completed TRANSFER
 * @l:      the link
 * @op:     HIXL_OP_READ or HIXL_OP_WRITE
 * @staged: they were staged
 * @bytes:  their bytes
 * @ops:    how many descriptors
 * Context: any.
 */
void hixl_link_count_xfer(struct hixl_link *l, u32 op, bool staged, u64 bytes, u64 ops)
{
	enum hixl_ctr i = op == HIXL_OP_WRITE ? HIXL_CTR_WRITE_DIRECT_BYTES :
						HIXL_CTR_READ_DIRECT_BYTES;

	if (staged)
		i += HIXL_CTR_READ_STAGED_BYTES - HIXL_CTR_READ_DIRECT_BYTES;
	hixl_link_count(l, i, bytes);
	hixl_link_count(l, i + 1, ops);	/* the _OPS counter follows its _BYTES */
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_count_xfer);

/**
 * hixl_link_count_result() - count a failed TRANSFER (or half of one)
 * @l:   the link
 * @ret: -ETIMEDOUT counts a timeout, -ECANCELED a cancel, other errors an
 *       error; 0 and -EAGAIN (retried) count nothing
 * Context: any.
 */
void hixl_link_count_result(struct hixl_link *l, int ret)
{
	switch (ret) {
	case 0:
	case -EAGAIN:
		return;
	case -ETIMEDOUT:
		hixl_link_count(l, HIXL_CTR_TIMEOUTS, 1);
		return;
	case -ECANCELED:
		hixl_link_count(l, HIXL_CTR_CANCELS, 1);
		return;
	default:
		hixl_link_count(l, HIXL_CTR_ERRORS, 1);
	}
}

/**
 * hixl_link_count_connect() - count the end of a CONNECT
 * @l:   the link
 * @ret: 0 or the CONNECT's -errno
 * @ns:  how long it took, ns
 * Context: any.
 */
void hixl_link_count_connect(struct hixl_link *l, int ret, u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (ret) {
		hixl_link_count(l, HIXL_CTR_CONNECT_FAILURES, 1);
		return;
	}
	hixl_link_count(l, HIXL_CTR_CONNECTS, 1);
	hixl_link_count(l, HIXL_CTR_CONNECT_US_SUM, us);
	atomic64_set(&l->ctrs.v[HIXL_CTR_CONNECT_US_LAST], us);
	atomic64_set(&l->eng->ctrs.v[HIXL_CTR_CONNECT_US_LAST], us);
	if (hixl_ctr_per_rail(l, HIXL_CTR_CONNECT_US_LAST))
		atomic64_set(&l->eng->rail_ctrs[l->rail].v[HIXL_CTR_CONNECT_US_LAST], us);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_count_connect);

/**
 * hixl_lat_bucket() - the histogram bucket of a TRANSFER's duration
 * @ns: the duration, ns
 * Return: the smallest i with @ns <= HIXL_LAT_BOUND_NS(i), or
 * HIXL_LAT_BUCKETS - 1 (+Inf).
 */
u32 hixl_lat_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC) + !!(ns % NSEC_PER_USEC);	/* rounded up */
	u32 i = us <= 1 ? 0 : fls64(us - 1);	/* smallest i with us <= 2^i */

	return min_t(u32, i, HIXL_LAT_BUCKETS - 1);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_lat_bucket);

static void hixl_lat_add(struct hixl_lat *h, u32 b, u64 ns)
{
	atomic64_inc(&h->bucket[b]);
	atomic64_add(ns, &h->sum_ns);
	atomic64_inc(&h->count);
}

/**
 * hixl_link_count_latency() - count a TRANSFER's duration in the histograms
 * @l:   the link it named (the primary for a striped one)
 * @ret: its result; only 0 is counted
 * @ns:  its duration, ns
 * Context: any.
 */
void hixl_link_count_latency(struct hixl_link *l, int ret, u64 ns)
{
	u32 b = hixl_lat_bucket(ns);

	if (ret)
		return;
	hixl_lat_add(&l->ctrs.lat, b, ns);
	hixl_lat_add(&l->eng->ctrs.lat, b, ns);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_link_count_latency);

/**
 * hixl_xfer_done() - account the end of a TRANSFER, once; fires its tracepoint
 * @eng:   its engine
 * @l:     the link it named (the primary for a striped one)
 * @op:    HIXL_OP_READ or HIXL_OP_WRITE
 * @ret:   its result, 0 or -errno
 * @bytes: bytes moved (0 on failure)
 * @tag:   its tag
 * @ns:    ns since its start
 * Context: any.
 */
void hixl_xfer_done(struct hixl_engine *eng, struct hixl_link *l, u32 op, int ret,
		    u64 bytes, u64 tag, u64 ns)
{
	trace_hixl_xfer_complete(eng->id, &l->raddr, op, ret, bytes, tag, ns);
	hixl_link_count_latency(l, ret, ns);
}

/**
 * hixl_lat_read() - copy a histogram out
 * @h: the counters
 * @o: out: the ABI struct, reserved fields 0
 */
void hixl_lat_read(struct hixl_lat *h, struct hixl_lat_hist *o)
{
	memset(o, 0, sizeof(*o));
	o->count = atomic64_read(&h->count);
	o->sum_ns = atomic64_read(&h->sum_ns);
	for (int i = 0; i < HIXL_LAT_BUCKETS; i++)
		o->bucket[i] = atomic64_read(&h->bucket[i]);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_lat_read);

/**
 * hixl_rail_count_failover() - count one failover round on the rails
 * @eng:  the engine
 * @from: bit i: rail i's link broke under the batch
 * @pc:   the batch's pieces, @pc[k].rail the rail each moved to
 * @idx:  indices into @pc of the re-posted pieces
 * @n:    entries of @idx
 * Context: any; the caller counts the engine totals.
 */
void hixl_rail_count_failover(struct hixl_engine *eng, u32 from,
			      const struct hixl_rail_piece *pc, const u32 *idx, u32 n)
{
	unsigned long f = from;
	unsigned int r;
	u32 k;

	for_each_set_bit(r, &f, HIXL_MAX_RAILS)
		atomic64_inc(&eng->rail_ctrs[r].v[HIXL_CTR_RAIL_FAILOVERS]);
	for (k = 0; k < n; k++) {
		r = pc[idx[k]].rail;
		if (r < HIXL_MAX_RAILS)
			atomic64_add(pc[idx[k]].len,
				     &eng->rail_ctrs[r].v[HIXL_CTR_RAIL_REPOST_BYTES]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_count_failover);
