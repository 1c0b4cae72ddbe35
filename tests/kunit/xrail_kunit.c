// SPDX-License-Identifier: GPL-2.0
/*
 * xrail_kunit.c - KUnit suite hixl_xrail: the pure parts of the striped
 * data path's failover (rail_plan.c, used by xrail.c): where the unfinished pieces of a broken
 * rail go (hixl_xrail_replan()) and which failed sub-batches fail over at
 * all (hixl_xrail_failover_ok()).
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "link.h"
#include "rail_plan.h"

#define XR_MAX 256

/* a batch planned on @nr rails: a long descriptor and some small ones */
static long xr_plan(struct kunit *test, struct hixl_rail_piece *p, u32 nr)
{
	static const u64 lens[] = { SZ_4M + 123, SZ_4K, 7, SZ_1M - 1, SZ_2M, 1 };
	u32 rr = 0;
	long k;

	k = hixl_rail_plan(lens, ARRAY_SIZE(lens), nr, HIXL_RAIL_STRIPE_MIN, HIXL_RAIL_CHUNK,
			   &rr, p, XR_MAX);
	KUNIT_ASSERT_GT(test, k, 0L);
	return k;
}

/* the pieces of rail @rail, their indices in @idx */
static u32 xr_on_rail(const struct hixl_rail_piece *p, long k, u32 rail, u32 *idx)
{
	u32 n = 0;
	long i;

	for (i = 0; i < k; i++)
		if (p[i].rail == rail)
			idx[n++] = i;
	return n;
}

static void hixl_xrail_replan_moves_only_named(struct kunit *test)
{
	struct hixl_rail_piece *p, *before;
	u64 load[HIXL_MAX_RAILS] = { 0 }, maxlen = 0;
	u32 *idx, n, rr = 0, i;
	long k, ret;

	p = kunit_kcalloc(test, XR_MAX, sizeof(*p), GFP_KERNEL);
	before = kunit_kcalloc(test, XR_MAX, sizeof(*p), GFP_KERNEL);
	idx = kunit_kcalloc(test, XR_MAX, sizeof(*idx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, idx);
	k = xr_plan(test, p, 3);
	memcpy(before, p, k * sizeof(*p));
	n = xr_on_rail(p, k, 1, idx);
	KUNIT_ASSERT_GT(test, n, 1U);		/* rail 1 had work to lose */
	ret = hixl_xrail_replan(p, k, idx, n, BIT(0) | BIT(2), &rr);
	KUNIT_ASSERT_EQ(test, ret, (long)n);
	for (i = 0; i < k; i++) {
		/* the same bytes of the same descriptor: only the rail changes */
		KUNIT_EXPECT_EQ(test, p[i].desc, before[i].desc);
		KUNIT_EXPECT_EQ(test, p[i].off, before[i].off);
		KUNIT_EXPECT_EQ(test, p[i].len, before[i].len);
		if (before[i].rail != 1)
			KUNIT_EXPECT_EQ(test, p[i].rail, before[i].rail);
		else
			KUNIT_EXPECT_TRUE(test, p[i].rail == 0 || p[i].rail == 2);
	}
	for (i = 0; i < n; i++) {
		load[p[idx[i]].rail] += p[idx[i]].len;
		maxlen = max(maxlen, p[idx[i]].len);
	}
	/* spread evenly: the moved bytes differ by at most one piece */
	KUNIT_EXPECT_LE(test, load[0] > load[2] ? load[0] - load[2] : load[2] - load[0], maxlen);
	KUNIT_EXPECT_GT(test, load[0], 0ULL);
	KUNIT_EXPECT_GT(test, load[2], 0ULL);
	KUNIT_EXPECT_LT(test, rr, (u32)HIXL_MAX_RAILS);
}

static void hixl_xrail_replan_until_one_rail(struct kunit *test)
{
	struct hixl_rail_piece *p;
	u32 *idx, n, rr = 5, i;
	long k;

	p = kunit_kcalloc(test, XR_MAX, sizeof(*p), GFP_KERNEL);
	idx = kunit_kcalloc(test, XR_MAX, sizeof(*idx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, idx);
	k = xr_plan(test, p, 3);
	/* rail 0 breaks: its pieces to 1 and 2; then rail 1: everything on 2 */
	n = xr_on_rail(p, k, 0, idx);
	KUNIT_ASSERT_EQ(test, hixl_xrail_replan(p, k, idx, n, BIT(1) | BIT(2), &rr), (long)n);
	KUNIT_EXPECT_EQ(test, xr_on_rail(p, k, 0, idx), 0U);
	n = xr_on_rail(p, k, 1, idx);
	KUNIT_ASSERT_EQ(test, hixl_xrail_replan(p, k, idx, n, BIT(2), &rr), (long)n);
	KUNIT_EXPECT_EQ(test, xr_on_rail(p, k, 2, idx), (u32)k);
	KUNIT_EXPECT_EQ(test, rr, 3U);		/* the rail after the last used */
	for (i = 1; i < k; i++)		/* still in descriptor and offset order */
		KUNIT_EXPECT_TRUE(test, p[i].desc > p[i - 1].desc ||
				  (p[i].desc == p[i - 1].desc && p[i].off > p[i - 1].off));
}

static void hixl_xrail_replan_ties_round_robin(struct kunit *test)
{
	struct hixl_rail_piece p[6] = {};
	u32 idx[6], rr = 3, i;

	for (i = 0; i < 6; i++) {
		p[i] = (struct hixl_rail_piece){ .desc = i, .rail = 0, .len = SZ_4K };
		idx[i] = i;
	}
	/* equal pieces over rails 1, 3, 6 from the cursor 3: 3, 6, 1, 3, 6, 1 */
	KUNIT_ASSERT_EQ(test, hixl_xrail_replan(p, 6, idx, 6, BIT(1) | BIT(3) | BIT(6), &rr), 6L);
	KUNIT_EXPECT_EQ(test, p[0].rail, 3U);
	KUNIT_EXPECT_EQ(test, p[1].rail, 6U);
	KUNIT_EXPECT_EQ(test, p[2].rail, 1U);
	KUNIT_EXPECT_EQ(test, p[3].rail, 3U);
	KUNIT_EXPECT_EQ(test, p[4].rail, 6U);
	KUNIT_EXPECT_EQ(test, p[5].rail, 1U);
	KUNIT_EXPECT_EQ(test, rr, 2U);
}

static void hixl_xrail_replan_bad_args(struct kunit *test)
{
	struct hixl_rail_piece p[2] = { { .rail = 1, .len = 8 }, { .rail = 1, .len = 8 } };
	u32 idx[2] = { 0, 5 }, rr = 0;

	KUNIT_EXPECT_EQ(test, hixl_xrail_replan(p, 2, idx, 1, 0, &rr), -EINVAL);
	/* only rails past HIXL_MAX_RAILS: none */
	KUNIT_EXPECT_EQ(test, hixl_xrail_replan(p, 2, idx, 1, (u32)BIT(HIXL_MAX_RAILS), &rr),
			-EINVAL);
	/* an index past the pieces: nothing moved, not even the good one */
	KUNIT_EXPECT_EQ(test, hixl_xrail_replan(p, 2, idx, 2, BIT(0), &rr), -EINVAL);
	KUNIT_EXPECT_EQ(test, p[0].rail, 1U);
	rr = HIXL_MAX_RAILS;
	KUNIT_EXPECT_EQ(test, hixl_xrail_replan(p, 2, idx, 1, BIT(0), &rr), -EINVAL);
	rr = 0;
	KUNIT_EXPECT_EQ(test, hixl_xrail_replan(p, 2, idx, 0, BIT(0), &rr), 0L);	/* nothing */
	KUNIT_EXPECT_EQ(test, p[0].rail, 1U);
}

struct xr_fo_case {
	const char *name;
	int status;
	int state;
	bool cancelled;
	bool expired;
	bool want;
};

static const struct xr_fo_case xr_fo_cases[] = {
	{ "success", 0, HIXL_LINK_READY, false, false, false },
	{ "flush on a broken rail", -ECONNRESET, HIXL_LINK_ERROR, false, false, true },
	{ "silent peer", -EHOSTDOWN, HIXL_LINK_ERROR, false, false, true },
	{ "device error, link failed", -EIO, HIXL_LINK_ERROR, false, false, true },
	{ "rail link closed (device removal)", -ECONNRESET, HIXL_LINK_CLOSED, false, false, true },
	{ "revoked by another CANCEL", -ECONNABORTED, HIXL_LINK_ERROR, false, false, true },
	{ "flushed before the CM event", -ECONNRESET, HIXL_LINK_READY, false, false, true },
	{ "device error, link still READY", -EIO, HIXL_LINK_READY, false, false, false },
	{ "own timeout broke it", -ETIMEDOUT, HIXL_LINK_ERROR, false, false, false },
	{ "cancelled", -ECANCELED, HIXL_LINK_ERROR, false, false, false },
	{ "no memory", -ENOMEM, HIXL_LINK_ERROR, false, false, false },
	{ "TRANSFER cancelled", -ECONNRESET, HIXL_LINK_ERROR, true, false, false },
	{ "deadline passed", -ECONNRESET, HIXL_LINK_ERROR, false, true, false },
	{ "descriptor error on a READY link", -ERANGE, HIXL_LINK_READY, false, false, false },
};

static void xr_fo_desc(const struct xr_fo_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(xr_fo, xr_fo_cases, xr_fo_desc);

static void hixl_xrail_failover_decision(struct kunit *test)
{
	const struct xr_fo_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_xrail_failover_ok(c->status, c->state, c->cancelled,
						     c->expired), c->want);
}

static struct kunit_case hixl_xrail_cases[] = {
	KUNIT_CASE(hixl_xrail_replan_moves_only_named),
	KUNIT_CASE(hixl_xrail_replan_until_one_rail),
	KUNIT_CASE(hixl_xrail_replan_ties_round_robin),
	KUNIT_CASE(hixl_xrail_replan_bad_args),
	KUNIT_CASE_PARAM(hixl_xrail_failover_decision, xr_fo_gen_params),
	{}
};

static struct kunit_suite hixl_xrail_suite = {
	.name = "hixl_xrail",
	.test_cases = hixl_xrail_cases,
};

kunit_test_suite(hixl_xrail_suite);
