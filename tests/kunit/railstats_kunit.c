// SPDX-License-Identifier: GPL-2.0
/*
 * railstats_kunit.c - KUnit suite hixl_railstats: an engine's counters per
 * rail (railstats.c, stats.c): a link's counters land on its rail's
 * (hixl_link_count()), failovers away from the broken rails and re-posted
 * bytes onto the rails the pieces went to (hixl_rail_count_failover()),
 * GET_STATS's HIXL_STATS_RAILS arguments on an engine without SETUP, and
 * the TRANSFER latency histograms (hixl_lat_bucket()'s bounds,
 * hixl_link_count_latency() on the link and the engine, not the rail).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "engine.h"
#include "stats.h"
#include "link.h"
#include "rail_plan.h"
#include "main.h"
#include "report.h"

static u64 rs_ctr(struct hixl_engine *eng, u32 rail, enum hixl_ctr i)
{
	return atomic64_read(&eng->rail_ctrs[rail].v[i]);
}

/* a link of @eng on @rail, counters only (hixl_link_count() needs no more) */
static struct hixl_link *rs_link(struct kunit *test, struct hixl_engine *eng, u32 rail)
{
	struct hixl_link *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->eng = eng;
	l->rail = rail;
	return l;
}

static void hixl_railstats_link_count(struct kunit *test)
{
	struct hixl_engine *eng = hixl_engine_create();
	struct hixl_link *l0, *l1, *lx;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	l0 = rs_link(test, eng, 0);
	l1 = rs_link(test, eng, 1);
	lx = rs_link(test, eng, HIXL_MAX_RAILS);	/* no such rail: the engine's only */
	hixl_link_count_xfer(l1, HIXL_OP_WRITE, false, 4096, 1);
	hixl_link_count_xfer(l0, HIXL_OP_READ, true, 100, 2);
	hixl_link_count(lx, HIXL_CTR_WC_ERRORS, 5);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_WRITE_DIRECT_BYTES), 4096ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_WRITE_DIRECT_OPS), 1ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_WRITE_DIRECT_BYTES), 0ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_READ_STAGED_BYTES), 100ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_READ_STAGED_OPS), 2ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->ctrs.v[HIXL_CTR_WC_ERRORS]), 5LL);
	for (u32 r = 0; r < HIXL_MAX_RAILS; r++)
		KUNIT_EXPECT_EQ(test, rs_ctr(eng, r, HIXL_CTR_WC_ERRORS), 0ULL);
	/* the failover counters: the engine's and the link's, never per rail here */
	hixl_link_count(l0, HIXL_CTR_RAIL_FAILOVERS, 1);
	hixl_link_count(l0, HIXL_CTR_RAIL_REPOST_BYTES, 1000);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->ctrs.v[HIXL_CTR_RAIL_FAILOVERS]), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&l0->ctrs.v[HIXL_CTR_RAIL_REPOST_BYTES]), 1000LL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_RAIL_FAILOVERS), 0ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_RAIL_REPOST_BYTES), 0ULL);
	/* the last connect's duration is set per rail too */
	hixl_link_count_connect(l1, 0, 7000);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_CONNECT_US_LAST), 7ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_CONNECTS), 1ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_CONNECT_US_LAST), 0ULL);
	hixl_engine_destroy(eng);
}

static void hixl_railstats_failover(struct kunit *test)
{
	struct hixl_engine *eng = hixl_engine_create();
	const struct hixl_rail_piece pc[] = {
		{ .desc = 0, .rail = 0, .off = 0, .len = 100 },
		{ .desc = 0, .rail = 2, .off = 100, .len = 50 },
		{ .desc = 1, .rail = 0, .off = 0, .len = 7 },
		{ .desc = 2, .rail = HIXL_MAX_RAILS, .off = 0, .len = 9 },	/* ignored */
	};
	const u32 idx[] = { 0, 1, 3 };

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	hixl_rail_count_failover(eng, BIT(1), pc, idx, ARRAY_SIZE(idx));
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_RAIL_FAILOVERS), 1ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_RAIL_FAILOVERS), 0ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_RAIL_REPOST_BYTES), 100ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 2, HIXL_CTR_RAIL_REPOST_BYTES), 50ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_RAIL_REPOST_BYTES), 0ULL);
	/* two rails broke at once: one failover away from each */
	hixl_rail_count_failover(eng, BIT(1) | BIT(3), pc, idx, 1);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 1, HIXL_CTR_RAIL_FAILOVERS), 2ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 3, HIXL_CTR_RAIL_FAILOVERS), 1ULL);
	KUNIT_EXPECT_EQ(test, rs_ctr(eng, 0, HIXL_CTR_RAIL_REPOST_BYTES), 200ULL);
	/* the engine's own totals are the caller's (xrail.c, on the primary link) */
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->ctrs.v[HIXL_CTR_RAIL_FAILOVERS]), 0LL);
	hixl_engine_destroy(eng);
}

static void hixl_railstats_get_stats_args(struct kunit *test)
{
	struct hixl_engine *eng = hixl_engine_create();
	struct hixl_stats a;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	memset(&a, 0, sizeof(a));
	a.flags = HIXL_STATS_RAILS;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_rails, 0U);		/* no SETUP: no rail */
	KUNIT_EXPECT_EQ(test, a.flags, HIXL_STATS_RAILS);
	memset(&a, 0, sizeof(a));
	a.flags = HIXL_STATS_RAILS;
	a.nr_rails = 2;
	a.rails = 0x1000;	/* no SETUP: nothing to write, the pointer unused */
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), 0);
	KUNIT_EXPECT_EQ(test, a.nr_rails, 0U);
	KUNIT_EXPECT_EQ(test, a.rails, 0x1000ULL);
	memset(&a, 0, sizeof(a));
	a.flags = 1U << 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.nr_rails = 1;		/* without the flag */
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.rails = 0x1000;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.flags = HIXL_STATS_RAILS;
	a.nr_rails = HIXL_MAX_RAILS + 1;
	a.rails = 0x1000;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	a.nr_rails = 1;
	a.rails = 0;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	a.nr_rails = 0;
	a.rails = 0x1000;
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_stats(eng, &a), -EINVAL);
	hixl_engine_destroy(eng);
}

static void hixl_railstats_lat_bucket(struct kunit *test)
{
	static const struct { u64 ns; u32 b; } c[] = {
		{ 0, 0 }, { 1, 0 }, { 1000, 0 }, { 1001, 1 }, { 2000, 1 }, { 2001, 2 },
		{ 4000, 2 }, { 1000ULL << 10, 10 }, { (1000ULL << 10) + 1, 11 },
		{ 1000ULL << 26, 26 }, { (1000ULL << 26) + 1, HIXL_LAT_BUCKETS - 1 },
		{ U64_MAX, HIXL_LAT_BUCKETS - 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, hixl_lat_bucket(c[i].ns), c[i].b, "ns %llu", c[i].ns);
	/* each bound is the top of its bucket, as the ABI says */
	for (u32 i = 0; i < HIXL_LAT_BUCKETS - 1; i++) {
		KUNIT_EXPECT_EQ(test, hixl_lat_bucket(HIXL_LAT_BOUND_NS(i)), i);
		KUNIT_EXPECT_EQ(test, hixl_lat_bucket(HIXL_LAT_BOUND_NS(i) + 1), i + 1);
	}
}

static void hixl_railstats_latency(struct kunit *test)
{
	struct hixl_engine *eng = hixl_engine_create();
	struct hixl_lat_hist h;
	struct hixl_link *l;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	l = rs_link(test, eng, 1);
	hixl_link_count_latency(l, 0, 1500);		/* bucket 1: (1 us, 2 us] */
	hixl_link_count_latency(l, -EIO, 1500);		/* failed: not counted */
	hixl_link_count_latency(l, 0, 5000000);		/* 5 ms: bucket 13 (<= 8.192 ms) */
	hixl_lat_read(&l->ctrs.lat, &h);
	KUNIT_EXPECT_EQ(test, h.count, 2ULL);
	KUNIT_EXPECT_EQ(test, h.sum_ns, 5001500ULL);
	for (u32 i = 0; i < HIXL_LAT_BUCKETS; i++)
		KUNIT_EXPECT_EQ(test, h.bucket[i], (u64)(i == 1 || i == 13));
	KUNIT_EXPECT_EQ(test, h.reserved[0] | h.reserved[1], 0ULL);
	hixl_lat_read(&eng->ctrs.lat, &h);
	KUNIT_EXPECT_EQ(test, h.count, 2ULL);
	KUNIT_EXPECT_EQ(test, h.bucket[13], 1ULL);
	/* the rail's copy of the counters has no histogram of its own */
	hixl_lat_read(&eng->rail_ctrs[1].lat, &h);
	KUNIT_EXPECT_EQ(test, h.count, 0ULL);
	hixl_engine_destroy(eng);
}

static struct kunit_case hixl_railstats_cases[] = {
	KUNIT_CASE(hixl_railstats_lat_bucket),
	KUNIT_CASE(hixl_railstats_latency),
	KUNIT_CASE(hixl_railstats_link_count),
	KUNIT_CASE(hixl_railstats_failover),
	KUNIT_CASE(hixl_railstats_get_stats_args),
	{}
};

static struct kunit_suite hixl_railstats_suite = {
	.name = "hixl_railstats",
	.test_cases = hixl_railstats_cases,
};

kunit_test_suite(hixl_railstats_suite);
