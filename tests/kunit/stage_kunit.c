// SPDX-License-Identifier: GPL-2.0
/*
 * stage_kunit.c - KUnit suite hixl_stage: the staging cost model that
 * decides which registered descriptors of a TRANSFER go through the staging
 * pool (hixl_stage_small(): is a descriptor a candidate; hixl_stage_pays():
 * are a batch's candidates faster staged), on fixed constants and on the
 * module's defaults.
 */
#include <kunit/test.h>
#include <linux/sizes.h>

#include "link.h"
#include "stage_cost.h"
#include "proto.h"

/* round numbers: a WR 10 us, a round 100 us, 2 ps a byte (two copies) */
static const struct hixl_stage_cost hixl_stage_fixed = {
	.wr_ns = 10000, .round_ns = 100000, .copy_ps = 2000,
};

struct hixl_stage_small_case {
	const char *name;
	u64 len;
	bool small;
};

/* break-even: len * 2000 ps == 10000 ns, len 5000 */
static const struct hixl_stage_small_case hixl_stage_small_cases[] = {
	{ "zero length is never staged", 0, false },
	{ "64 B", 64, true },
	{ "4 KiB", SZ_4K, true },
	{ "4999 B just below break-even", 4999, true },
	{ "5000 B at break-even is direct", 5000, false },
	{ "32 KiB", SZ_32K, false },
	{ "the multiplication overflowing is direct", U64_MAX / 1000, false },
};

static void hixl_stage_small_case_desc(const struct hixl_stage_small_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_stage_small, hixl_stage_small_cases, hixl_stage_small_case_desc);

static void hixl_stage_small_table(struct kunit *test)
{
	const struct hixl_stage_small_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_stage_small(&hixl_stage_fixed, c->len), c->small);
}

struct hixl_stage_pays_case {
	const char *name;
	u64 n, bytes, cap;
	bool pays;
};

/*
 * direct = n * 10 us; staged = R * 100 us + bytes * 2 ps.  With 8 MiB - 64 KiB
 * a round (HIXL's 4:8 pool), R is 1 below that many bytes and 4096 entries.
 */
#define CAP8	(SZ_8M - SZ_64K)
static const struct hixl_stage_pays_case hixl_stage_pays_cases[] = {
	{ "nothing to stage", 0, 0, CAP8, false },
	{ "the link cannot stage", 256, 256 * 64, 0, false },
	{ "one tiny descriptor: a round costs more than a WR", 1, 64, CAP8, false },
	{ "ten: 100 us direct, 100 us + 1.28 ns staged", 10, 640, CAP8, false },
	{ "eleven: 110 us direct, just over 100 us staged", 11, 704, CAP8, true },
	{ "256 x 64 B", 256, 256 * 64, CAP8, true },
	/* 256 x 4 KiB: 2.56 ms direct, 0.1 ms + 2.1 ms staged */
	{ "256 x 4 KiB", 256, 256 * SZ_4K, CAP8, true },
	/* 32 x 4 KiB: 320 us direct, 100 us + 262 us staged */
	{ "32 x 4 KiB", 32, 32 * SZ_4K, CAP8, false },
	/* 4097 x 64 B need two rounds for the entries: 41 ms vs 0.2 ms + 0.5 ms */
	{ "4097 entries: two rounds", 4097, 4097 * 64, CAP8, true },
	/* a tiny pool: 64 KiB a round, 256 x 4 KiB = 16 rounds = 1.6 ms + 2.1 ms */
	{ "a small pool's many rounds", 256, 256 * SZ_4K, SZ_64K, false },
	{ "overflowing sums are direct", U64_MAX / 2, U64_MAX / 2, CAP8, false },
};

static void hixl_stage_pays_case_desc(const struct hixl_stage_pays_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_stage_pays, hixl_stage_pays_cases, hixl_stage_pays_case_desc);

static void hixl_stage_pays_table(struct kunit *test)
{
	const struct hixl_stage_pays_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_stage_pays(&hixl_stage_fixed, c->n, c->bytes, c->cap), c->pays);
}

/*
 * The module's defaults, on the shapes measured in bench/results-default.md:
 * hixl-bench's 32 KiB KV blocks never stage (they were the slow default of
 * 0.2), big batches of tiny descriptors do, a single descriptor never does.
 */
struct hixl_stage_default_case {
	const char *name;
	u64 len, n;
	bool staged;
};

static const struct hixl_stage_default_case hixl_stage_default_cases[] = {
	{ "hixl-bench: 256 x 32 KiB direct", SZ_32K, 256, false },
	{ "hixl-bench: 512 x 32 KiB direct", SZ_32K, 512, false },
	{ "one 64 B descriptor direct", 64, 1, false },
	{ "one 4 KiB descriptor direct", SZ_4K, 1, false },
	{ "256 KiB direct", SZ_256K, 256, false },
	{ "32 x 64 B direct: a round costs more", 64, 32, false },
	{ "256 x 2 KiB direct: the copies cost more", SZ_2K, 256, false },
	{ "256 x 4 KiB direct: no candidate", SZ_4K, 256, false },
	{ "256 x 64 B staged", 64, 256, true },
	{ "256 x 512 B staged", 512, 256, true },
	{ "4096 x 64 B staged", 64, 4096, true },
};

static void hixl_stage_default_case_desc(const struct hixl_stage_default_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_stage_default, hixl_stage_default_cases, hixl_stage_default_case_desc);

static void hixl_stage_default_table(struct kunit *test)
{
	const struct hixl_stage_default_case *c = test->param_value;
	const struct hixl_stage_cost def = {
		.wr_ns = HIXL_STAGE_WR_NS, .round_ns = HIXL_STAGE_ROUND_NS,
		.copy_ps = HIXL_STAGE_COPY_PS,
	};
	bool staged = hixl_stage_small(&def, c->len) &&
		      hixl_stage_pays(&def, c->n, c->n * c->len, CAP8);

	KUNIT_EXPECT_EQ(test, staged, c->staged);
}

/* the module parameters start at the defaults the table above checks */
static void hixl_stage_params_are_the_defaults(struct kunit *test)
{
	struct hixl_stage_cost c;

	hixl_stage_cost_get(&c);
	KUNIT_EXPECT_EQ(test, c.wr_ns, (u32)HIXL_STAGE_WR_NS);
	KUNIT_EXPECT_EQ(test, c.round_ns, (u32)HIXL_STAGE_ROUND_NS);
	KUNIT_EXPECT_EQ(test, c.copy_ps, (u32)HIXL_STAGE_COPY_PS);
}

static struct kunit_case hixl_stage_cases[] = {
	KUNIT_CASE_PARAM(hixl_stage_small_table, hixl_stage_small_gen_params),
	KUNIT_CASE_PARAM(hixl_stage_pays_table, hixl_stage_pays_gen_params),
	KUNIT_CASE_PARAM(hixl_stage_default_table, hixl_stage_default_gen_params),
	KUNIT_CASE(hixl_stage_params_are_the_defaults),
	{}
};

static struct kunit_suite hixl_stage_suite = {
	.name = "hixl_stage",
	.test_cases = hixl_stage_cases,
};

kunit_test_suite(hixl_stage_suite);
