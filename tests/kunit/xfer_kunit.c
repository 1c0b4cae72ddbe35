// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_kunit.c - KUnit suites for the transfer path:
 *   hixl_split   cutting descriptors at local and remote MR borders
 *   hixl_rtable  the peer's region table: REGION / REGION_DEL messages
 *   hixl_xfer    TRANSFER argument validation
 *   hixl_xbatch  a batch of the transfer queue ends exactly once, however it
 *                is cancelled
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>

#include "engine.h"
#include "link.h"
#include "rtable.h"
#include "plan.h"
#include "xq.h"
#include "cancel.h"
#include "xfer.h"
#include "proto.h"
#include "main.h"

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
	KUNIT_EXPECT_EQ(test, pl.bytes, 0x100ULL);	/* the counters' direct bytes */
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

/* a plan with a room keeps its first pieces there, grows out of it, and moves by copy */
static void hixl_plan_room_and_move(struct kunit *test)
{
	const struct hixl_rmr l[] = { { 0, 0x100000, 0xa00000, 11 } };
	struct hixl_plan_room *ra = kunit_kzalloc(test, sizeof(*ra), GFP_KERNEL);
	struct hixl_plan_room *rb = kunit_kzalloc(test, sizeof(*rb), GFP_KERNEL);
	struct hixl_region *fake = (struct hixl_region *)ra;	/* never dereferenced */
	struct hixl_plan a, b;
	struct hixl_rmr r[8];
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, ra);
	KUNIT_ASSERT_NOT_NULL(test, rb);
	for (i = 0; i < ARRAY_SIZE(r); i++)	/* one piece per remote 4 KiB */
		r[i] = (struct hixl_rmr){ 0x80000 + i * 0x1000, 0x1000, 0x700000 + i * 0x1000, 22 + i };
	hixl_plan_init(&a, ra);
	KUNIT_ASSERT_EQ(test, hixl_split(l, 1, r, 8, 0x1000, 0x80000, 0x3000, 0, &a), 0);
	KUNIT_EXPECT_EQ(test, a.n, 3U);
	KUNIT_EXPECT_PTR_EQ(test, a.p, &ra->p[0]);
	a.held = ra->held;
	a.held[a.nheld++] = fake;

	hixl_plan_init(&b, rb);
	hixl_plan_move(&b, &a);
	KUNIT_EXPECT_PTR_EQ(test, b.p, &rb->p[0]);
	KUNIT_EXPECT_PTR_EQ(test, b.held, &rb->held[0]);
	KUNIT_EXPECT_EQ(test, b.n, 3U);
	KUNIT_EXPECT_EQ(test, b.nheld, 1U);
	KUNIT_EXPECT_PTR_EQ(test, b.held[0], fake);
	KUNIT_EXPECT_EQ(test, b.p[2].raddr, 0x702000ULL);
	KUNIT_EXPECT_EQ(test, b.bytes, 0x3000ULL);
	KUNIT_EXPECT_EQ(test, a.n, 0U);
	KUNIT_EXPECT_PTR_EQ(test, a.p, &ra->p[0]);

	/* six pieces: out of the room, the first ones kept */
	KUNIT_ASSERT_EQ(test, hixl_split(l, 1, r, 8, 0x1000, 0x80000, 0x6000, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a.n, 6U);
	KUNIT_EXPECT_PTR_NE(test, a.p, &ra->p[0]);
	for (i = 0; i < a.n; i++)
		KUNIT_EXPECT_EQ(test, a.p[i].rkey, 22 + i);
	hixl_plan_free(&b);		/* the room is not freed: KASAN would say */
	hixl_plan_init(&b, rb);
	hixl_plan_move(&b, &a);		/* an allocated array moves as is */
	KUNIT_EXPECT_PTR_NE(test, b.p, &rb->p[0]);
	KUNIT_EXPECT_EQ(test, b.p[5].rkey, 27U);
	hixl_plan_free(&b);
	hixl_plan_free(&a);
}

static struct kunit_case hixl_split_cases[] = {
	KUNIT_CASE(hixl_split_inside_one_mr),
	KUNIT_CASE(hixl_split_at_both_borders),
	KUNIT_CASE(hixl_split_caps_piece_length),
	KUNIT_CASE(hixl_split_hole),
	KUNIT_CASE(hixl_split_many),
	KUNIT_CASE(hixl_plan_room_and_move),
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
	l->eng = kunit_kzalloc(test, sizeof(*l->eng), GFP_KERNEL);	/* its peer_mrs count */
	KUNIT_ASSERT_NOT_NULL(test, l->eng);
	mutex_init(&l->rt.lock);
	mt_init(&l->rt.tree);
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
	rr = mtree_load(&l->rt.tree, 0x12fff);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->got, 2U);
	KUNIT_EXPECT_LT(test, rr->got, rr->nr_mrs);
	len = hixl_mk_region(m, 0x10000, 0x3000, 3, 2, 1, true);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rt.tree, 0x10000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->got, 3U);
	KUNIT_EXPECT_TRUE(test, rr->writable);
	KUNIT_EXPECT_FALSE(test, rr->device);
	KUNIT_EXPECT_EQ(test, rr->mrs[2].iova, 0x300000ULL);
	KUNIT_EXPECT_EQ(test, rr->mrs[2].rkey, 102U);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rt.tree, 0x13000));

	/* a second, read-only device region next to it: never staged */
	len = hixl_mk_region(m, 0x13000, 0x1000, 1, 0, 1, false);
	m->flags = cpu_to_le32(HIXL_WIRE_REGION_DEVICE);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rt.tree, 0x13000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_FALSE(test, rr->writable);
	KUNIT_EXPECT_TRUE(test, rr->device);
	/* an overlapping one is refused */
	len = hixl_mk_region(m, 0x12000, 0x2000, 2, 0, 2, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), -EEXIST);

	/* re-registered at the same address with another shape: replaced */
	len = hixl_mk_region(m, 0x10000, 0x2000, 2, 0, 2, false);
	KUNIT_ASSERT_EQ(test, hixl_rx_region(l, m, len), 0);
	rr = mtree_load(&l->rt.tree, 0x10000);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->len, 0x2000ULL);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rt.tree, 0x12000));

	/* deleted */
	del.addr = cpu_to_le64(0x10000);
	del.len = cpu_to_le64(0x2000);
	hixl_rx_region_del(l, &del);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rt.tree, 0x10000));
	KUNIT_EXPECT_NOT_NULL(test, mtree_load(&l->rt.tree, 0x13000));
	/* deleting what is not there is harmless */
	hixl_rx_region_del(l, &del);
	hixl_rtable_clear(l);
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rt.tree, 0x13000));
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
	KUNIT_EXPECT_NULL(test, mtree_load(&l->rt.tree, 0x10000));
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
	KUNIT_EXPECT_EQ(test, l->rt.mrs, 4U);
	hixl_rtable_clear(l);
	KUNIT_EXPECT_EQ(test, l->rt.mrs, 0U);

	/* the link's budget of MRs: 8, so two regions of 4 fit and a third not */
	hixl_max_peer_mrs = 8;
	for (i = 0; i < 3; i++) {
		len = hixl_mk_region(m, 0x100000 * (i + 1), 0x4000, 4, 0, 4, true);
		KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), i < 2 ? 0 : -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, l->rt.mrs, 8U);
	/* replacing a region gives its MRs back first */
	len = hixl_mk_region(m, 0x100000, 0x3000, 3, 0, 3, true);
	KUNIT_EXPECT_EQ(test, hixl_rx_region(l, m, len), 0);
	KUNIT_EXPECT_EQ(test, l->rt.mrs, 7U);
	hixl_max_peer_mrs = old_budget;
	hixl_rtable_clear(l);
	KUNIT_EXPECT_EQ(test, l->rt.mrs, 0U);
	KUNIT_EXPECT_EQ(test, l->rt.regions, 0U);
}

/* Append to a REGIONS message a region at @addr of @nr pages, one MR each; its new length. */
static u32 hixl_mk_ent(struct hixl_wire_regions *m, u32 len, u64 addr, u32 nr)
{
	struct hixl_wire_region_ent *e = (void *)m + len;
	u32 i;

	e->addr = cpu_to_le64(addr);
	e->len = cpu_to_le64(nr * 0x1000ULL);
	e->flags = cpu_to_le32(HIXL_WIRE_REGION_WRITABLE);
	e->nr_mrs = cpu_to_le32(nr);
	for (i = 0; i < nr; i++) {
		e->mrs[i].addr = cpu_to_le64(addr + i * 0x1000ULL);
		e->mrs[i].len = cpu_to_le64(0x1000);
		e->mrs[i].iova = cpu_to_le64(i * 0x1000ULL);
		e->mrs[i].rkey = cpu_to_le32(i + 7);
	}
	m->count = cpu_to_le32(le32_to_cpu(m->count) + 1);
	return len + struct_size(e, mrs, nr);
}

/* REGIONS: 40 whole regions in one message; every field checked. */
static void hixl_rtable_packed(struct kunit *test)
{
	struct hixl_link *l = hixl_test_link(test);
	struct hixl_wire_regions *m = kunit_kzalloc(test, HIXL_MSG_SIZE, GFP_KERNEL);
	struct hixl_wire_region_ent *e;
	struct hixl_rregion *rr;
	u32 len = sizeof(*m), i, full;

	KUNIT_ASSERT_NOT_NULL(test, m);
	for (i = 0; i < 40; i++)
		len = hixl_mk_ent(m, len, 0x100000 * (i + 1), 1 + i % 3);
	full = len;
	KUNIT_ASSERT_EQ(test, hixl_rx_regions(l, m, len), 0);
	KUNIT_EXPECT_EQ(test, l->rt.regions, 40U);
	rr = mtree_load(&l->rt.tree, 0x100000 * 39 + 0x2fff);	/* entry 38: 3 pages */
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_EXPECT_EQ(test, rr->got, 3U);
	KUNIT_EXPECT_EQ(test, rr->mrs[2].rkey, 9U);
	KUNIT_EXPECT_TRUE(test, rr->writable);
	hixl_rtable_clear(l);

	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, full - 1), -EPROTO);	/* cut */
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, full + 8), -EPROTO);	/* trailing */
	m->count = cpu_to_le32(41);
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, full), -EPROTO);
	m->count = 0;
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, full), -EPROTO);
	m->count = cpu_to_le32(40);
	m->reserved = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, full), -EPROTO);
	m->reserved = 0;
	hixl_rtable_clear(l);

	memset(m, 0, HIXL_MSG_SIZE);
	len = hixl_mk_ent(m, sizeof(*m), 0x10000, 2);
	e = (void *)(m + 1);
	e->flags = cpu_to_le32(8);				/* unknown flag */
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, len), -EPROTO);
	e->flags = 0;
	e->mrs[1].reserved = cpu_to_le32(1);
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, len), -EPROTO);
	e->mrs[1].reserved = 0;
	e->nr_mrs = cpu_to_le32(3);				/* past the message */
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, len), -EPROTO);
	e->nr_mrs = 0;
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, sizeof(*m) + sizeof(*e)), -EPROTO);
	e->nr_mrs = cpu_to_le32(2);
	e->len = cpu_to_le64(0x1000);				/* 2 MRs, 1 page */
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, len), -EPROTO);
	KUNIT_EXPECT_EQ(test, l->rt.regions, 0U);
	/* the second entry runs into the first from below: EEXIST, the first stays */
	e->len = cpu_to_le64(0x2000);
	len = hixl_mk_ent(m, len, 0xf000, 2);
	KUNIT_EXPECT_EQ(test, hixl_rx_regions(l, m, len), -EEXIST);
	KUNIT_EXPECT_EQ(test, l->rt.regions, 1U);
	hixl_rtable_clear(l);
}

static struct kunit_case hixl_rtable_cases[] = {
	KUNIT_CASE(hixl_rtable_updates),
	KUNIT_CASE(hixl_rtable_malformed),
	KUNIT_CASE(hixl_rtable_bounds),
	KUNIT_CASE(hixl_rtable_packed),
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

/* ---- hixl_xbatch: one end per batch --------------------------------------------------- */

/* end_fn calls, over all batches of a case (cases run one at a time) */
static atomic_t hixl_test_ends;

static void hixl_test_end(struct hixl_xbatch *b)
{
	atomic_inc(&hixl_test_ends);
	complete(&b->done);
}

/*
 * An engine that belongs to the test's mm (CANCEL checks it) and a broken
 * link of it: the transfer queue ends every batch queued on it with the
 * link's error (hixl_xq_pump_locked()), no QP needed.  The link is not on
 * the engine's list; the test holds its first reference and never drops
 * it, so the batches' references never free it.
 */
struct hixl_xq_fix {
	struct hixl_engine *eng;
	struct hixl_link *l;
};

static void hixl_xq_fix_init(struct kunit *test, struct hixl_xq_fix *f)
{
	unsigned long addr;
	struct hixl_link *l;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "kunit_vm_mmap failed");
	f->eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f->eng);
	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	l->cm_kind = HIXL_CM_LINK;
	l->eng = f->eng;
	INIT_LIST_HEAD(&l->node);
	kref_init(&l->ref);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wq);
	mutex_init(&l->msg.post_mutex);
	l->state = HIXL_LINK_ERROR;
	l->err = -ENETDOWN;
	KUNIT_ASSERT_EQ(test, hixl_link_xq_init(l), 0);
	f->l = l;
	atomic_set(&hixl_test_ends, 0);
}

static void hixl_xq_fix_exit(struct hixl_xq_fix *f)
{
	hixl_link_xq_free(f->l);
	hixl_engine_destroy(f->eng);	/* warns if a batch is left on eng->xfers */
}

/* A batch of one 4 KiB piece with @tag, as xfer.c makes it; NULL without memory. */
static struct hixl_xbatch *hixl_test_batch(struct hixl_xq_fix *f, u64 tag)
{
	struct hixl_xbatch *b = hixl_xbatch_new(f->eng, f->l, HIXL_OP_WRITE, 1, tag);

	if (!b)
		return NULL;
	b->pl.p = kvcalloc(1, sizeof(*b->pl.p), GFP_KERNEL);
	if (!b->pl.p) {
		hixl_xbatch_put(b);
		return NULL;
	}
	b->pl.n = 1;
	b->pl.cap = 1;
	b->pl.p[0].len = SZ_4K;
	b->end_fn = hixl_test_end;
	return b;
}

/*
 * A cancel that reaches a batch before it is queued - io_uring's cancel
 *  of a request hixl_req_bind() tied it to, or a CANCEL that found it on
 * eng->xfers - must not end it there: the submitter would end it a second
 * time (double completion, its plan released twice).  It ends once, in
 * hixl_xbatch_submit(), with -ECANCELED, and is never queued.
 */
static void hixl_xbatch_cancel_before_queued(struct kunit *test)
{
	struct hixl_xq_fix f;
	struct hixl_xbatch *b;

	hixl_xq_fix_init(test, &f);
	b = hixl_test_batch(&f, 7);
	KUNIT_ASSERT_NOT_NULL(test, b);
	hixl_xbatch_cancel(b);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&hixl_test_ends), 0,
			    "a batch not yet submitted ended at its cancel");
	hixl_xbatch_submit(b, jiffies + 10 * HZ, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 1);
	KUNIT_EXPECT_TRUE(test, completion_done(&b->done));
	KUNIT_EXPECT_EQ(test, b->status, -ECANCELED);
	KUNIT_EXPECT_EQ(test, b->failed, 0U);	/* its first descriptor: nothing done */
	KUNIT_EXPECT_TRUE(test, list_empty(&b->q_node));
	KUNIT_EXPECT_TRUE(test, list_empty(&b->eng_node));
	/* a later cancel of the ended batch changes nothing */
	hixl_xbatch_cancel(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 1);
	KUNIT_EXPECT_EQ(test, b->status, -ECANCELED);
	hixl_xbatch_put(b);

	/* without a cancel the same batch ends with the link's error, once */
	b = hixl_test_batch(&f, 7);
	KUNIT_ASSERT_NOT_NULL(test, b);
	hixl_xbatch_submit(b, jiffies + 10 * HZ, false);
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 2);
	KUNIT_EXPECT_EQ(test, b->status, -ENETDOWN);
	hixl_xbatch_put(b);
	hixl_xq_fix_exit(&f);
}

struct hixl_test_canceller {
	struct hixl_engine *eng;
	struct mm_struct *mm;
	u64 tag;
	unsigned long calls;
	unsigned long cancelled;
	int err;
};

/* HIXL_IOC_CANCEL of one tag as fast as it goes, in the engine's mm. */
static int hixl_test_canceller_fn(void *arg)
{
	struct hixl_test_canceller *c = arg;

	kthread_use_mm(c->mm);
	while (!kthread_should_stop()) {
		struct hixl_cancel a = { .tag = c->tag };
		int ret = hixl_cmd_cancel(c->eng, &a, false);

		if (ret && !c->err)
			c->err = ret;
		c->cancelled += a.count;
		c->calls++;
		cond_resched();
	}
	kthread_unuse_mm(c->mm);
	return 0;
}

#define HIXL_RACE_BATCHES	20000
#define HIXL_RACE_SECONDS	20

/*
 * Submission against a CANCEL of the same tag in a loop on another CPU
 * (both pinned): batches are on eng->xfers from the start of
 * hixl_xbatch_submit(), so the cancel may come at any point of it.  Every batch ends exactly once (the
 * end_fn calls add up to the batches), with -ECANCELED or the link's
 * error, and nothing is left on eng->xfers.
 */
static void hixl_xbatch_cancel_race(struct kunit *test)
{
	struct hixl_test_canceller c = { .tag = 11 };
	unsigned long deadline = jiffies + HIXL_RACE_SECONDS * HZ;
	unsigned int n = 0, cancelled = 0, other = 0, stuck = 0, cpu, other_cpu;
	struct task_struct *t;
	struct hixl_xq_fix f;

	/* submitter and canceller on two CPUs, or they only ever take turns */
	cpu = get_cpu();
	other_cpu = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	if (other_cpu >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	hixl_xq_fix_init(test, &f);
	c.eng = f.eng;
	c.mm = current->mm;
	t = kthread_create(hixl_test_canceller_fn, &c, "hixl-kunit-cancel");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	kthread_bind(t, other_cpu);
	get_task_struct(t);
	wake_up_process(t);
	while (n < HIXL_RACE_BATCHES && time_before(jiffies, deadline)) {
		struct hixl_xbatch *b = hixl_test_batch(&f, c.tag);

		if (!b)
			break;
		n++;
		hixl_xbatch_submit(b, jiffies + 10 * HZ, false);
		if (!wait_for_completion_timeout(&b->done, 10 * HZ)) {
			stuck++;	/* never ended: leave it (and its references) be */
			break;
		}
		if (b->status == -ECANCELED)
			cancelled++;
		else if (b->status != -ENETDOWN)
			other++;
		hixl_xbatch_put(b);
		cond_resched();
	}
	kthread_stop(t);	/* its last CANCEL has returned */
	put_task_struct(t);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kunit_info(test, "%u batches, %u cancelled (CANCEL counted %lu in %lu calls)\n", n,
		   cancelled, c.cancelled, c.calls);
	KUNIT_EXPECT_EQ(test, c.err, 0);
	KUNIT_EXPECT_EQ(test, stuck, 0U);
	KUNIT_EXPECT_EQ(test, other, 0U);
	KUNIT_EXPECT_GE(test, n, 1000U);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&hixl_test_ends), n, "end_fn calls for %u batches", n);
	/* CANCEL counts a batch it found running: every -ECANCELED was counted */
	KUNIT_EXPECT_GE(test, c.cancelled, (unsigned long)cancelled);
	spin_lock(&f.eng->xfer_lock);
	KUNIT_EXPECT_TRUE(test, list_empty(&f.eng->xfers));
	spin_unlock(&f.eng->xfer_lock);
	if (!stuck)
		hixl_xq_fix_exit(&f);
}

/* ---- the revoking CANCEL (cancel.c) ------------------------------------------- */

static void hixl_test_tmo(struct work_struct *w)
{
}

/*
 * A batch of @tag as if its one chain were on the wire: submitted, on
 * eng->xfers, one chain out, not queued.  hixl_test_flush() is its
 * completion.
 */
static struct hixl_xbatch *hixl_test_wire_batch(struct hixl_xq_fix *f, u64 tag)
{
	struct hixl_xbatch *b = hixl_test_batch(f, tag);

	if (!b)
		return NULL;
	INIT_DELAYED_WORK(&b->tmo, hixl_test_tmo);
	spin_lock(&f->eng->xfer_lock);
	list_add_tail(&b->eng_node, &f->eng->xfers);
	spin_unlock(&f->eng->xfer_lock);
	spin_lock(&f->l->xq.lock);
	b->submitted = true;
	b->next = 1;
	b->chains = 1;
	spin_unlock(&f->l->xq.lock);
	return b;
}

/* The chain's (flushed) completion: what hixl_xwr_done() does for its last request. */
static void hixl_test_flush(struct hixl_xbatch *b)
{
	spin_lock(&b->l->xq.lock);
	b->chains = 0;
	spin_unlock(&b->l->xq.lock);
	hixl_xbatch_cancel(b);	/* has its status: only settles and ends it */
}

struct hixl_test_flusher {
	struct delayed_work work;
	struct hixl_xbatch *b;
	bool ran;
};

static void hixl_test_flusher_fn(struct work_struct *w)
{
	struct hixl_test_flusher *fl = container_of(to_delayed_work(w),
						    struct hixl_test_flusher, work);

	WRITE_ONCE(fl->ran, true);
	hixl_test_flush(fl->b);
}

/*
 * HIXL_CANCEL_REVOKE does not return before the batch on the wire has
 * ended (its flush, 100 ms later from a worker, came back): the caller's
 * memory is free of it when CANCEL returns.  It counts the link it broke.
 */
static void hixl_revoke_waits_for_flush(struct kunit *test)
{
	struct hixl_cancel c = { .tag = 21, .flags = HIXL_CANCEL_REVOKE };
	struct hixl_test_flusher fl = {};
	struct hixl_xq_fix f;
	struct hixl_xbatch *b;

	hixl_xq_fix_init(test, &f);
	b = hixl_test_wire_batch(&f, 21);
	KUNIT_ASSERT_NOT_NULL(test, b);
	fl.b = b;
	INIT_DELAYED_WORK(&fl.work, hixl_test_flusher_fn);
	schedule_delayed_work(&fl.work, msecs_to_jiffies(100));
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(f.eng, &c, false), 0);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(fl.ran), "CANCEL returned before the flush");
	KUNIT_EXPECT_TRUE(test, completion_done(&b->gone));
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 1);
	KUNIT_EXPECT_EQ(test, b->status, -ECANCELED);
	KUNIT_EXPECT_EQ(test, c.count, 1U);
	KUNIT_EXPECT_EQ(test, c.broken, 1U);
	flush_delayed_work(&fl.work);
	hixl_xbatch_put(b);
	hixl_xq_fix_exit(&f);
}

/*
 * A device that never flushes: the wait ends at its bound with -ETIMEDOUT,
 * the batch still running (its memory not revoked), and it ends once,
 * when the flush does come.
 */
static void hixl_revoke_flush_bound(struct kunit *test)
{
	struct hixl_xq_fix f;
	struct hixl_xbatch *b;
	unsigned long t0;
	LIST_HEAD(wire);
	u32 broken = 9;

	hixl_xq_fix_init(test, &f);
	b = hixl_test_wire_batch(&f, 22);
	KUNIT_ASSERT_NOT_NULL(test, b);
	hixl_xbatch_cancel(b);
	KUNIT_EXPECT_TRUE(test, hixl_xbatch_on_wire(b));
	kref_get(&b->ref);		/* hixl_revoke_wait() drops it */
	list_add_tail(&b->cancel_node, &wire);
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, hixl_revoke_wait(&wire, 200, &broken), -ETIMEDOUT);
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - t0), 190U);
	KUNIT_EXPECT_EQ(test, broken, 1U);
	KUNIT_EXPECT_TRUE(test, list_empty(&wire));
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 0);
	hixl_test_flush(b);
	KUNIT_EXPECT_EQ(test, atomic_read(&hixl_test_ends), 1);
	KUNIT_EXPECT_FALSE(test, hixl_xbatch_on_wire(b));
	hixl_xbatch_put(b);
	hixl_xq_fix_exit(&f);
}

/*
 * io_uring's inline issue never waits for a flush: -EAGAIN before anything
 * is cancelled.  A batch with nothing on the wire (never submitted, as a
 * same-host one) is cancelled and no link is broken.
 */
static void hixl_revoke_nonblock_and_idle(struct kunit *test)
{
	struct hixl_cancel c = { .tag = 23, .flags = HIXL_CANCEL_REVOKE };
	struct hixl_xq_fix f;
	struct hixl_xbatch *b;

	hixl_xq_fix_init(test, &f);
	b = hixl_test_wire_batch(&f, 23);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(f.eng, &c, true), -EAGAIN);
	KUNIT_EXPECT_EQ(test, b->status, 0);	/* untouched */
	c.flags = HIXL_CANCEL_REVOKE << 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(f.eng, &c, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, b->status, 0);
	hixl_test_flush(b);		/* ends it */
	hixl_xbatch_put(b);

	b = hixl_test_batch(&f, 23);	/* on eng->xfers, never submitted */
	KUNIT_ASSERT_NOT_NULL(test, b);
	spin_lock(&f.eng->xfer_lock);
	list_add_tail(&b->eng_node, &f.eng->xfers);
	spin_unlock(&f.eng->xfer_lock);
	c.flags = HIXL_CANCEL_REVOKE;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(f.eng, &c, false), 0);
	KUNIT_EXPECT_EQ(test, c.count, 1U);
	KUNIT_EXPECT_EQ(test, c.broken, 0U);
	KUNIT_EXPECT_EQ(test, b->status, -ECANCELED);
	spin_lock(&f.eng->xfer_lock);
	list_del_init(&b->eng_node);
	spin_unlock(&f.eng->xfer_lock);
	hixl_xbatch_put(b);
	hixl_xq_fix_exit(&f);
}

static struct kunit_case hixl_xbatch_cases[] = {
	KUNIT_CASE(hixl_xbatch_cancel_before_queued),
	KUNIT_CASE_SLOW(hixl_xbatch_cancel_race),
	KUNIT_CASE(hixl_revoke_waits_for_flush),
	KUNIT_CASE(hixl_revoke_flush_bound),
	KUNIT_CASE(hixl_revoke_nonblock_and_idle),
	{}
};

static struct kunit_suite hixl_xbatch_suite = {
	.name = "hixl_xbatch",
	.test_cases = hixl_xbatch_cases,
};

kunit_test_suites(&hixl_split_suite, &hixl_rtable_suite, &hixl_xfer_suite, &hixl_xbatch_suite);
