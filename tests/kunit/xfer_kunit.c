// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_kunit.c - KUnit suites for the transfer path:
 *   hixl_split   cutting descriptors at local and remote MR borders
 *   hixl_rtable  the peer's region table: REGION / REGION_DEL messages
 *   hixl_xfer    TRANSFER argument validation
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/sizes.h>

#include "hixl_priv.h"
#include "proto.h"

/* ---- hixl_split --------------------------------------------------------------------- */

static void hixl_split_inside_one_mr(struct kunit *test)
{
	const struct hixl_rmr l[] = { { 0x1000, 0x4000, 0xa0000, 11 } };
	const struct hixl_rmr r[] = { { 0x80000, 0x10000, 0x700000, 22 } };
	struct hixl_plan pl = {};

	KUNIT_ASSERT_EQ(test, hixl_split(l, 1, r, 1, 0x1100, 0x80200, 0x100, 5, &pl), 0);
	KUNIT_ASSERT_EQ(test, pl.n, 1U);
	KUNIT_EXPECT_EQ(test, pl.p[0].laddr, 0xa0100ULL);
	KUNIT_EXPECT_EQ(test, pl.p[0].raddr, 0x700200ULL);
	KUNIT_EXPECT_EQ(test, pl.p[0].len, 0x100U);
	KUNIT_EXPECT_EQ(test, pl.p[0].lkey, 11U);
	KUNIT_EXPECT_EQ(test, pl.p[0].rkey, 22U);
	KUNIT_EXPECT_EQ(test, pl.p[0].desc, 5U);
	hixl_plan_free(&pl);
}

/* local borders at 0x2000, remote border at 0x80c00: three pieces */
static void hixl_split_at_both_borders(struct kunit *test)
{
	const struct hixl_rmr l[] = {
		{ 0x1000, 0x1000, 0x10000, 1 },
		{ 0x2000, 0x1000, 0x90000, 2 },
	};
	const struct hixl_rmr r[] = {
		{ 0x80000, 0xc00, 0x500000, 7 },
		{ 0x80c00, 0x10000, 0x600000, 8 },
	};
	struct hixl_plan pl = {};

	KUNIT_ASSERT_EQ(test, hixl_split(l, 2, r, 2, 0x1800, 0x80000, 0x1000, 0, &pl), 0);
	KUNIT_ASSERT_EQ(test, pl.n, 3U);
	/* [0x1800, 0x2000) -> [0x80000, 0x80800) */
	KUNIT_EXPECT_EQ(test, pl.p[0].laddr, 0x10800ULL);
	KUNIT_EXPECT_EQ(test, pl.p[0].raddr, 0x500000ULL);
	KUNIT_EXPECT_EQ(test, pl.p[0].len, 0x800U);
	KUNIT_EXPECT_EQ(test, pl.p[0].lkey, 1U);
	/* [0x2000, 0x2400) -> [0x80800, 0x80c00) */
	KUNIT_EXPECT_EQ(test, pl.p[1].laddr, 0x90000ULL);
	KUNIT_EXPECT_EQ(test, pl.p[1].raddr, 0x500800ULL);
	KUNIT_EXPECT_EQ(test, pl.p[1].len, 0x400U);
	KUNIT_EXPECT_EQ(test, pl.p[1].rkey, 7U);
	/* [0x2400, 0x2800) -> [0x80c00, 0x81000) */
	KUNIT_EXPECT_EQ(test, pl.p[2].laddr, 0x90400ULL);
	KUNIT_EXPECT_EQ(test, pl.p[2].raddr, 0x600000ULL);
	KUNIT_EXPECT_EQ(test, pl.p[2].len, 0x400U);
	KUNIT_EXPECT_EQ(test, pl.p[2].lkey, 2U);
	KUNIT_EXPECT_EQ(test, pl.p[2].rkey, 8U);
	hixl_plan_free(&pl);
}

/* 3 GiB inside one MR each: pieces of at most 1 GiB */
static void hixl_split_caps_piece_length(struct kunit *test)
{
	const struct hixl_rmr l[] = { { 0, 4ULL << 30, 0x100000000ULL, 1 } };
	const struct hixl_rmr r[] = { { 0, 4ULL << 30, 0x200000000ULL, 2 } };
	struct hixl_plan pl = {};

	KUNIT_ASSERT_EQ(test, hixl_split(l, 1, r, 1, 0x1000, 0x1000, 3ULL << 30, 0, &pl), 0);
	KUNIT_ASSERT_EQ(test, pl.n, 3U);
	KUNIT_EXPECT_EQ(test, pl.p[0].len, (u32)SZ_1G);
	KUNIT_EXPECT_EQ(test, pl.p[2].raddr, 0x200000000ULL + 0x1000 + (2ULL << 30));
	hixl_plan_free(&pl);
}

static void hixl_split_hole(struct kunit *test)
{
	const struct hixl_rmr l[] = {
		{ 0x1000, 0x1000, 0x10000, 1 },
		{ 0x3000, 0x1000, 0x30000, 1 },	/* 0x2000..0x3000 missing */
	};
	const struct hixl_rmr r[] = { { 0, 0x10000, 0, 2 } };
	struct hixl_plan pl = {};

	KUNIT_EXPECT_EQ(test, hixl_split(l, 2, r, 1, 0x1800, 0, 0x1000, 0, &pl), -EPROTO);
	KUNIT_EXPECT_EQ(test, hixl_split(l, 2, r, 1, 0x500, 0, 0x100, 0, &pl), -EPROTO);
	hixl_plan_free(&pl);
}

/* many descriptors: the plan grows, pieces stay in order */
static void hixl_split_many(struct kunit *test)
{
	const struct hixl_rmr l[] = { { 0, SZ_64M, 0x1000000000ULL, 1 } };
	const struct hixl_rmr r[] = { { 0, SZ_64M, 0x2000000000ULL, 2 } };
	struct hixl_plan pl = {};
	u32 i;

	for (i = 0; i < 10000; i++)
		KUNIT_ASSERT_EQ(test, hixl_split(l, 1, r, 1, i * 4096ULL, (9999 - i) * 4096ULL,
						 4096, i, &pl), 0);
	KUNIT_ASSERT_EQ(test, pl.n, 10000U);
	KUNIT_EXPECT_EQ(test, pl.p[9999].desc, 9999U);
	KUNIT_EXPECT_EQ(test, pl.p[9999].raddr, 0x2000000000ULL);
	KUNIT_EXPECT_EQ(test, pl.p[1234].laddr, 0x1000000000ULL + 1234 * 4096ULL);
	hixl_plan_free(&pl);
}

static struct kunit_case hixl_split_cases[] = {
	KUNIT_CASE(hixl_split_inside_one_mr),
	KUNIT_CASE(hixl_split_at_both_borders),
	KUNIT_CASE(hixl_split_caps_piece_length),
	KUNIT_CASE(hixl_split_hole),
	KUNIT_CASE(hixl_split_many),
	{}
};

static struct kunit_suite hixl_split_suite = {
	.name = "hixl_split",
	.test_cases = hixl_split_cases,
};

/* ---- hixl_rtable ------------------------------------------------------------------- */

static struct hixl_link *hixl_test_link(struct kunit *test)
{
	struct hixl_link *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	mutex_init(&l->rtable_lock);
	mt_init(&l->rtable);
	return l;
}

/* A REGION message: region [addr, addr + len), MRs first .. first + count
 * of nr, each MR 0x1000 bytes with iova 0x100000 * (i + 1). */
static u32 hixl_mk_region(struct hixl_wire_region *m, u64 addr, u64 len, u32 nr,
			  u32 first, u32 count, bool writable)
{
	u32 i;

	memset(m, 0, HIXL_MSG_SIZE);
	m->addr = cpu_to_le64(addr);
	m->len = cpu_to_le64(len);
	m->flags = cpu_to_le32(writable ? HIXL_WIRE_REGION_WRITABLE : 0);
	m->nr_mrs = cpu_to_le32(nr);
	m->first = cpu_to_le32(first);
	m->count = cpu_to_le32(count);
	for (i = 0; i < count; i++) {
		m->mrs[i].addr = cpu_to_le64(addr + (first + i) * 0x1000ULL);
		m->mrs[i].len = cpu_to_le64(0x1000);
		m->mrs[i].iova = cpu_to_le64(0x100000ULL * (first + i + 1));
		m->mrs[i].rkey = cpu_to_le32(first + i + 100);
	}
	return struct_size(m, mrs, count);
}

static void hixl_rtable_updates(struct kunit *test)
{
	struct hixl_link *l = hixl_test_link(test);
	struct hixl_wire_region *m = kunit_kzalloc(test, HIXL_MSG_SIZE, GFP_KERNEL);
	struct hixl_wire_region_del del = {};
	struct hixl_rregion *rr;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, m);
	/* three MRs in two messages: usable only after the second */
	len = hixl_mk_region(m, 0x10000, 0x3000, 3, 0, 2, true);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rtable, 0x12fff);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->got, 2U);
	KUNIT_EXPECT_LT(test, rr->got, rr->nr_mrs);
	len = hixl_mk_region(m, 0x10000, 0x3000, 3, 2, 1, true);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rtable, 0x10000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->got, 3U);
	KUNIT_EXPECT_TRUE(test, rr->writable);
	KUNIT_EXPECT_FALSE(test, rr->device);
	KUNIT_EXPECT_EQ(test, rr->mrs[2].iova, 0x300000ULL);
	KUNIT_EXPECT_EQ(test, rr->mrs[2].rkey, 102U);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rtable, 0x13000));

	/* a second, read-only device region next to it: never staged */
	len = hixl_mk_region(m, 0x13000, 0x1000, 1, 0, 1, false);
	m->flags = cpu_to_le32(HIXL_WIRE_REGION_DEVICE);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rtable, 0x13000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_FALSE(test, rr->writable);
	KUNIT_EXPECT_TRUE(test, rr->device);
	/* an overlapping one is refused */
	len = hixl_mk_region(m, 0x12000, 0x2000, 2, 0, 2, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EEXIST);

	/* re-registered at the same address with another shape: replaced */
	len = hixl_mk_region(m, 0x10000, 0x2000, 2, 0, 2, false);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rtable, 0x10000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->len, 0x2000ULL);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rtable, 0x12000));

	/* deleted */
	del.addr = cpu_to_le64(0x10000);
	del.len = cpu_to_le64(0x2000);
	hixl_rx_region_del(l, &del);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rtable, 0x10000));
	KUNIT_EXPECT_NOT_NULL(test, mtree_load(&l->rtable, 0x13000));
	/* deleting what is not there is harmless */
	hixl_rx_region_del(l, &del);
	hixl_rtable_clear(l);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rtable, 0x13000));
}

static void hixl_rtable_malformed(struct kunit *test)
{
	struct hixl_link *l = hixl_test_link(test);
	struct hixl_wire_region *m = kunit_kzalloc(test, HIXL_MSG_SIZE, GFP_KERNEL);
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, m);
	len = hixl_mk_region(m, 0x10000, 0x3000, 3, 0, 3, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len - 1), -EPROTO);	/* truncated */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, 8), -EPROTO);
	m->count = cpu_to_le32(4);					/* count > nr */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, HIXL_MSG_SIZE), -EPROTO);
	m->count = cpu_to_le32(HIXL_WIRE_MRS_PER_MSG + 1);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, HIXL_MSG_SIZE), -EPROTO);
	len = hixl_mk_region(m, 0x10000, 0x3000, 3, 2, 2, true);	/* first + count > nr */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	len = hixl_mk_region(m, U64_MAX - 0xfff, 0x2000, 1, 0, 1, true);	/* wraps */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	len = hixl_mk_region(m, 0x10000, 0, 1, 0, 1, true);		/* empty */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	len = hixl_mk_region(m, 0x10000, 0x1000, 0, 0, 0, true);	/* no MRs */
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rtable, 0x10000));
	hixl_rtable_clear(l);
}

/*
 * What a peer's REGION may make the kernel allocate follows from the
 * region's length and the link's budget, never from nr_mrs alone: one
 * 80-byte message with nr_mrs = 2^24 used to kzalloc 512 MiB in the CQ
 * work item (a WARNING in __alloc_pages on the debug kernel).
 */
static void hixl_rtable_bounds(struct kunit *test)
{
	struct hixl_link *l = hixl_test_link(test);
	struct hixl_wire_region *m = kunit_kzalloc(test, HIXL_MSG_SIZE, GFP_KERNEL);
	unsigned int old_budget = hixl_max_peer_mrs;
	u32 len, i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	/* 2^24 MRs announced for three pages */
	len = hixl_mk_region(m, 0x10000, 0x3000, 1U << 24, 0, 1, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	/* one MR more than the region has pages */
	len = hixl_mk_region(m, 0x10000, 0x3000, 4, 0, 1, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EPROTO);
	/* as many as it has pages, unaligned: fine */
	len = hixl_mk_region(m, 0x10800, 0x3000, 4, 0, 4, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), 0);
	KUNIT_EXPECT_EQ(test, l->rtable_mrs, 4U);
	hixl_rtable_clear(l);
	KUNIT_EXPECT_EQ(test, l->rtable_mrs, 0U);

	/* the link's budget of MRs: 8, so two regions of 4 fit and a third not */
	hixl_max_peer_mrs = 8;
	for (i = 0; i < 3; i++) {
		len = hixl_mk_region(m, 0x100000 * (i + 1), 0x4000, 4, 0, 4, true);
		KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), i < 2 ? 0 : -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, l->rtable_mrs, 8U);
	/* replacing a region gives its MRs back first */
	len = hixl_mk_region(m, 0x100000, 0x3000, 3, 0, 3, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), 0);
	KUNIT_EXPECT_EQ(test, l->rtable_mrs, 7U);
	hixl_max_peer_mrs = old_budget;
	hixl_rtable_clear(l);
	KUNIT_EXPECT_EQ(test, l->rtable_mrs, 0U);
	KUNIT_EXPECT_EQ(test, l->rtable_regions, 0U);
}

static struct kunit_case hixl_rtable_cases[] = {
	KUNIT_CASE(hixl_rtable_updates),
	KUNIT_CASE(hixl_rtable_malformed),
	KUNIT_CASE(hixl_rtable_bounds),
	{}
};

static struct kunit_suite hixl_rtable_suite = {
	.name = "hixl_rtable",
	.test_cases = hixl_rtable_cases,
};

/* ---- hixl_xfer: argument validation ---------------------------------------------- */

struct hixl_xfer_case {
	const char *name;
	void (*edit)(struct hixl_transfer *t);
	int expect;
};

static void x_none(struct hixl_transfer *t) { }
static void x_count0(struct hixl_transfer *t) { t->count = 0; }
static void x_count_max(struct hixl_transfer *t) { t->count = HIXL_MAX_DESCS + 1; }
static void x_op(struct hixl_transfer *t) { t->op = 2; }
static void x_flags(struct hixl_transfer *t) { t->flags = 1; }
static void x_res0(struct hixl_transfer *t) { t->reserved0 = 1; }
static void x_res1(struct hixl_transfer *t) { t->reserved = 1; }
static void x_timeout0(struct hixl_transfer *t) { t->timeout_ms = 0; }
static void x_family(struct hixl_transfer *t) { t->remote.family = 1; }
static void x_name_res(struct hixl_transfer *t) { t->remote.reserved = 1; }
static void x_scope(struct hixl_transfer *t) { t->remote.scope_id = 1; }

static const struct hixl_xfer_case hixl_xfer_cases[] = {
	{ "valid but engine not set up", x_none, -EBADFD },
	{ "count 0", x_count0, -EINVAL },
	{ "count above max", x_count_max, -EINVAL },
	{ "unknown op", x_op, -EINVAL },
	{ "flags", x_flags, -EINVAL },
	{ "reserved0", x_res0, -EINVAL },
	{ "reserved", x_res1, -EINVAL },
	{ "timeout 0", x_timeout0, -EINVAL },
	{ "address family", x_family, -EAFNOSUPPORT },
	{ "name reserved", x_name_res, -EINVAL },
	{ "IPv4 name with a scope", x_scope, -EINVAL },
};

static void hixl_xfer_case_desc(const struct hixl_xfer_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_xfer_arg, hixl_xfer_cases, hixl_xfer_case_desc);

static void hixl_xfer_validation(struct kunit *test)
{
	const struct hixl_xfer_case *c = test->param_value;
	struct hixl_transfer t = {
		.remote = { .family = AF_INET, .port = 1, .addr = { 10, 77, 0, 1 } },
		.op = HIXL_OP_WRITE, .count = 1, .timeout_ms = 100,
	};
	struct hixl_engine *eng;
	unsigned long addr;

	/* an mm for the engine to belong to */
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	t.descs = addr;
	eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	c->edit(&t);
	KUNIT_EXPECT_EQ(test, hixl_cmd_transfer(eng, &t), c->expect);
	KUNIT_EXPECT_EQ(test, t.failed, t.count);	/* no descriptor to blame */
	hixl_engine_destroy(eng);
}

static struct kunit_case hixl_xfer_cases_list[] = {
	KUNIT_CASE_PARAM(hixl_xfer_validation, hixl_xfer_arg_gen_params),
	{}
};

static struct kunit_suite hixl_xfer_suite = {
	.name = "hixl_xfer",
	.test_cases = hixl_xfer_cases_list,
};

kunit_test_suites(&hixl_split_suite, &hixl_rtable_suite, &hixl_xfer_suite);
