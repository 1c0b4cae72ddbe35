// SPDX-License-Identifier: GPL-2.0
/*
 * lcopy_kunit.c - KUnit suite hixl_lcopy: how the parallel same-host copy
 * (lcopy.c) cuts a batch.  hixl_lcopy_workers(): inline below
 * HIXL_LCOPY_MIN, at least HIXL_LCOPY_SHARE_MIN bytes a share, the thread
 * cap.  hixl_lcopy_plan() on a table of batches (one huge descriptor, many
 * small ones, descriptors ending exactly on a share boundary, fewer bytes
 * than shares wanted, uneven sizes): the expected shares, and for every
 * case the invariants (in order, no gap, no overlap, the whole batch,
 * boundaries on HIXL_LCOPY_ALIGN, each share's start descriptor and offset
 * agreeing with its position).
 */
#include <kunit/test.h>

#include "local.h"
#include "local_xfer.h"

#define KiB	1024ULL
#define MiB	(1024 * KiB)

struct lcopy_workers_case {
	const char *desc;
	u64 total;
	u32 threads;
	u32 want;
};

static const struct lcopy_workers_case lcopy_workers_cases[] = {
	{ "empty", 0, 8, 1 },
	{ "below the inline threshold", HIXL_LCOPY_MIN - 1, 8, 1 },
	{ "at the threshold: 2 shares of 1 MiB", HIXL_LCOPY_MIN, 8, 2 },
	{ "threads 1: inline", 64 * MiB, 1, 1 },
	{ "threads 0: inline", 64 * MiB, 0, 1 },
	{ "capped by threads", 64 * MiB, 2, 2 },
	{ "capped by share size", 5 * MiB + 256 * KiB, 16, 5 },
	{ "huge batch, cap 16", 1ULL << 40, HIXL_LCOPY_MAX, HIXL_LCOPY_MAX },
};

static void lcopy_workers_desc(const struct lcopy_workers_case *c, char *d)
{
	strscpy(d, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(lcopy_workers, lcopy_workers_cases, lcopy_workers_desc);

static void hixl_lcopy_workers_case(struct kunit *test)
{
	const struct lcopy_workers_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_lcopy_workers(c->total, c->threads), c->want);
}

#define MAXD	8
#define MAXS	4

struct lcopy_plan_case {
	const char *desc;
	u32 count;
	u64 len[MAXD];
	u32 nw;
	u32 want_n;
	struct hixl_lcopy_share want[MAXS];
};

static const struct lcopy_plan_case lcopy_plan_cases[] = {
	{ "one huge descriptor in 2", 1, { 64 * MiB }, 2, 2,
	  { { 0, 0, 0, 32 * MiB }, { 0, 32 * MiB, 32 * MiB, 32 * MiB } } },
	{ "one descriptor, uneven, in 3", 1, { 10 * MiB + 1 }, 3, 3,
	  { { 0, 0, 0, 3 * MiB + 384 * KiB },
	    { 0, 3 * MiB + 384 * KiB, 3 * MiB + 384 * KiB, 3 * MiB + 384 * KiB },
	    { 0, 6 * MiB + 768 * KiB, 6 * MiB + 768 * KiB, 3 * MiB + 256 * KiB + 1 } } },
	{ "eight 1 MiB descriptors in 4: boundaries on descriptor starts", 8,
	  { MiB, MiB, MiB, MiB, MiB, MiB, MiB, MiB }, 4, 4,
	  { { 0, 0, 0, 2 * MiB }, { 2, 0, 2 * MiB, 2 * MiB }, { 4, 0, 4 * MiB, 2 * MiB },
	    { 6, 0, 6 * MiB, 2 * MiB } } },
	{ "many small descriptors: a boundary inside one", 5,
	  { 300 * KiB, 300 * KiB, 300 * KiB, 300 * KiB, 300 * KiB }, 2, 2,
	  { { 0, 0, 0, 768 * KiB }, { 2, 168 * KiB, 768 * KiB, 732 * KiB } } },
	{ "fewer bytes than shares: one share", 1, { 100 }, 4, 1, { { 0, 0, 0, 100 } } },
	{ "rounding leaves the last share empty: dropped", 1, { 100 * KiB }, 3, 2,
	  { { 0, 0, 0, 64 * KiB }, { 0, 64 * KiB, 64 * KiB, 36 * KiB } } },
	{ "small then huge", 3, { 1, 4095, 8 * MiB }, 2, 2,
	  { { 0, 0, 0, 4 * MiB + 64 * KiB }, { 2, 4 * MiB + 60 * KiB, 4 * MiB + 64 * KiB,
					      4 * MiB - 60 * KiB } } },
	{ "one share wanted", 3, { MiB, 2 * MiB, 3 }, 1, 1, { { 0, 0, 0, 3 * MiB + 3 } } },
};

static void lcopy_plan_desc(const struct lcopy_plan_case *c, char *d)
{
	strscpy(d, c->desc, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(lcopy_plan, lcopy_plan_cases, lcopy_plan_desc);

static void hixl_lcopy_plan_case(struct kunit *test)
{
	const struct lcopy_plan_case *c = test->param_value;
	struct hixl_op_desc d[MAXD];
	struct hixl_lcopy_share s[MAXS + 1];
	u64 total = 0, pos = 0;
	u32 i, n;

	for (i = 0; i < c->count; i++) {
		d[i] = (struct hixl_op_desc){ .local_addr = 0x100000 * (i + 1),
					      .remote_addr = 0x900000 * (i + 1), .len = c->len[i] };
		total += c->len[i];
	}
	memset(s, 0xa5, sizeof(s));
	n = hixl_lcopy_plan(d, c->count, c->nw, s);
	KUNIT_ASSERT_EQ(test, n, c->want_n);
	KUNIT_EXPECT_LE(test, n, c->nw);
	for (i = 0; i < n; i++) {
		u64 start = 0;
		u32 k;

		KUNIT_EXPECT_EQ_MSG(test, s[i].first, c->want[i].first, "share %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s[i].off, c->want[i].off, "share %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s[i].pos, c->want[i].pos, "share %u", i);
		KUNIT_EXPECT_EQ_MSG(test, s[i].bytes, c->want[i].bytes, "share %u", i);
		/* invariants: contiguous, non-empty, aligned starts, first/off agree */
		KUNIT_EXPECT_EQ(test, s[i].pos, pos);
		KUNIT_EXPECT_GT(test, s[i].bytes, 0ULL);
		KUNIT_EXPECT_EQ(test, s[i].pos % HIXL_LCOPY_ALIGN, 0ULL);
		KUNIT_ASSERT_LT(test, s[i].first, c->count);
		for (k = 0; k < s[i].first; k++)
			start += c->len[k];
		KUNIT_EXPECT_EQ(test, start + s[i].off, s[i].pos);
		KUNIT_EXPECT_LT(test, s[i].off, c->len[s[i].first]);
		pos += s[i].bytes;
	}
	KUNIT_EXPECT_EQ(test, pos, total);
	/* nothing written past the shares it returned */
	KUNIT_EXPECT_EQ(test, s[n].first, 0xa5a5a5a5U);
}

/* Every batch of 1..6 descriptors of mixed sizes, 1..16 shares: the invariants. */
static void hixl_lcopy_plan_sweep(struct kunit *test)
{
	static const u64 sizes[] = { 1, 4095, 64 * KiB, 300 * KiB + 7, 1 * MiB, 5 * MiB + 3 };
	struct hixl_lcopy_share s[HIXL_LCOPY_MAX];
	struct hixl_op_desc d[6];
	u32 count, nw, i, n;

	for (count = 1; count <= 6; count++) {
		u64 total = 0;

		for (i = 0; i < count; i++) {
			d[i] = (struct hixl_op_desc){ .len = sizes[(i * 7 + count) % 6] };
			total += d[i].len;
		}
		for (nw = 1; nw <= HIXL_LCOPY_MAX; nw++) {
			u64 pos = 0;

			n = hixl_lcopy_plan(d, count, nw, s);
			KUNIT_ASSERT_GE(test, n, 1U);
			KUNIT_ASSERT_LE(test, n, nw);
			for (i = 0; i < n; i++) {
				KUNIT_EXPECT_EQ(test, s[i].pos, pos);
				KUNIT_EXPECT_GT(test, s[i].bytes, 0ULL);
				KUNIT_EXPECT_LT(test, s[i].off, d[s[i].first].len);
				pos += s[i].bytes;
			}
			KUNIT_EXPECT_EQ_MSG(test, pos, total, "count %u nw %u", count, nw);
		}
	}
}

static struct kunit_case hixl_lcopy_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_lcopy_workers_case, lcopy_workers_gen_params),
	KUNIT_CASE_PARAM(hixl_lcopy_plan_case, lcopy_plan_gen_params),
	KUNIT_CASE(hixl_lcopy_plan_sweep),
	{}
};

static struct kunit_suite hixl_lcopy_suite = {
	.name = "hixl_lcopy",
	.test_cases = hixl_lcopy_test_cases,
};

kunit_test_suite(hixl_lcopy_suite);
