// SPDX-License-Identifier: GPL-2.0
/*
 * rail_kunit.c - KUnit suite hixl_rail: the striping planner
 * (rail_plan.c's hixl_rail_plan(): which rail carries which bytes of which
 * descriptor), SETUP's rail fields (rail.c's hixl_rails_validate()), the
 * NUMA choice of a region's rails (hixl_rail_numa_mask()), and, on the
 * test VM's rxe0 and rxe1 (skipped elsewhere), a rail's detach and revival
 * with real regions (rail_dev.c's hixl_engine_rail_detach(),
 * hixl_rail_revive()).
 */
#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/mman.h>
#include <linux/numa.h>
#include <linux/sizes.h>

#include "engine.h"
#include "region.h"
#include "rail.h"
#include "rail_plan.h"
#include "main.h"
#include "setup.h"
#include "raillink.h"

#define RAIL_MAX_PIECES 512

/*
 * Every descriptor covered exactly once, in order, by pieces of at most
 * @chunk bytes when striped; each piece on a rail below @nr.
 */
static void rail_check_cover(struct kunit *test, const u64 *lens, u32 n, u32 nr,
			     u64 stripe_min, u64 chunk, const struct hixl_rail_piece *p,
			     long k)
{
	u32 d = 0;
	u64 off = 0;
	long i;

	for (i = 0; i < k; i++) {
		KUNIT_ASSERT_LT(test, p[i].rail, nr);
		KUNIT_ASSERT_GT(test, p[i].len, 0ULL);
		if (off == lens[d]) {
			d++;
			off = 0;
		}
		KUNIT_ASSERT_EQ(test, p[i].desc, d);
		KUNIT_ASSERT_EQ(test, p[i].off, off);
		if (nr > 1 && lens[d] >= stripe_min) {
			KUNIT_EXPECT_LE(test, p[i].len, chunk);
			/* chunk borders at multiples of the chunk */
			KUNIT_EXPECT_EQ(test, p[i].off % chunk, 0ULL);
		} else {
			KUNIT_EXPECT_EQ(test, p[i].len, lens[d]);
		}
		off += p[i].len;
	}
	KUNIT_EXPECT_EQ(test, d, n - 1);
	KUNIT_EXPECT_EQ(test, off, lens[n - 1]);
}

static void hixl_rail_one_rail_is_identity(struct kunit *test)
{
	static const u64 lens[] = { 1, SZ_4K, SZ_64M, SZ_1M + 1 };
	struct hixl_rail_piece *p;
	u32 rr = 0;
	long k;
	int i;

	p = kunit_kcalloc(test, RAIL_MAX_PIECES, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	k = hixl_rail_plan(lens, ARRAY_SIZE(lens), 1, SZ_1M, SZ_512K, &rr, p, RAIL_MAX_PIECES);
	KUNIT_ASSERT_EQ(test, k, (long)ARRAY_SIZE(lens));
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		KUNIT_EXPECT_EQ(test, p[i].desc, (u32)i);
		KUNIT_EXPECT_EQ(test, p[i].rail, 0U);
		KUNIT_EXPECT_EQ(test, p[i].off, 0ULL);
		KUNIT_EXPECT_EQ(test, p[i].len, lens[i]);
	}
	KUNIT_EXPECT_EQ(test, rr, 0U);
}

static void hixl_rail_small_least_loaded(struct kunit *test)
{
	static const u64 lens[] = { 8, 4096, 100, SZ_1M - 1, 1 };
	/* 1, 2, 0 from the cursor; then rail 1 (8 B) is the lightest, then 0 */
	static const u32 rails[] = { 1, 2, 0, 1, 0 };
	struct hixl_rail_piece p[8];
	u32 rr = 1;
	long k;
	int i;

	k = hixl_rail_plan(lens, ARRAY_SIZE(lens), 3, SZ_1M, SZ_512K, &rr, p, ARRAY_SIZE(p));
	KUNIT_ASSERT_EQ(test, k, 5L);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, p[i].rail, rails[i]);
		KUNIT_EXPECT_EQ(test, p[i].len, lens[i]);
	}
	KUNIT_EXPECT_EQ(test, rr, 1U);		/* after rail 0 */
}

/* a batch of one small descriptor each still spreads over the rails */
static void hixl_rail_cursor_spreads_batches(struct kunit *test)
{
	static const u64 len = 4096;
	struct hixl_rail_piece p;
	u32 rr = 0, i;

	for (i = 0; i < 6; i++) {
		KUNIT_ASSERT_EQ(test, hixl_rail_plan(&len, 1, 3, SZ_1M, SZ_512K, &rr, &p, 1), 1L);
		KUNIT_EXPECT_EQ(test, p.rail, i % 3);
	}
}

static void hixl_rail_striped_straddles_chunks(struct kunit *test)
{
	/* 1 MiB exactly, chunk-border straddlers, 64 MiB, small ones between */
	static const u64 lens[] = { SZ_1M, 7, SZ_1M + SZ_512K + 1, 3 * SZ_512K - 1,
				    SZ_64M, 1, 2 * SZ_1M - 1 };
	u64 bytes[2] = { 0, 0 };
	struct hixl_rail_piece *p;
	u32 rr = 0;
	long k, i;

	p = kunit_kcalloc(test, RAIL_MAX_PIECES, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	k = hixl_rail_plan(lens, ARRAY_SIZE(lens), 2, SZ_1M, SZ_512K, &rr, p, RAIL_MAX_PIECES);
	/* 2 + 1 + 4 + 3 + 128 + 1 + 4 */
	KUNIT_ASSERT_EQ(test, k, 143L);
	rail_check_cover(test, lens, ARRAY_SIZE(lens), 2, SZ_1M, SZ_512K, p, k);
	for (i = 0; i < k; i++)
		bytes[p[i].rail] += p[i].len;
	/* at most the largest piece apart (here: 5 B) */
	KUNIT_EXPECT_LE(test, abs_diff(bytes[0], bytes[1]), (u64)SZ_512K);
	KUNIT_EXPECT_EQ(test, abs_diff(bytes[0], bytes[1]), 5ULL);
	/* the straddler's last piece is its one byte past 1.5 MiB */
	KUNIT_EXPECT_EQ(test, p[6].desc, 2U);
	KUNIT_EXPECT_EQ(test, p[6].off, (u64)SZ_1M + SZ_512K);
	KUNIT_EXPECT_EQ(test, p[6].len, 1ULL);
	KUNIT_EXPECT_EQ(test, rr, 1U);
}

static void hixl_rail_eight_rails_cover(struct kunit *test)
{
	static const u64 lens[] = { SZ_4M + 3, 5, SZ_1M, SZ_16M - 1 };
	u64 bytes[HIXL_MAX_RAILS] = { 0 };
	struct hixl_rail_piece *p;
	u32 rr = 7;
	long k, i;

	p = kunit_kcalloc(test, RAIL_MAX_PIECES, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	k = hixl_rail_plan(lens, ARRAY_SIZE(lens), HIXL_MAX_RAILS, SZ_1M, SZ_512K, &rr, p,
			   RAIL_MAX_PIECES);
	KUNIT_ASSERT_EQ(test, k, 9L + 1 + 2 + 32);
	rail_check_cover(test, lens, ARRAY_SIZE(lens), HIXL_MAX_RAILS, SZ_1M, SZ_512K, p, k);
	KUNIT_EXPECT_EQ(test, p[0].rail, 7U);
	for (i = 0; i < k; i++)
		bytes[p[i].rail] += p[i].len;
	for (i = 0; i < HIXL_MAX_RAILS; i++) {
		KUNIT_EXPECT_GE(test, bytes[i], (u64)SZ_2M + SZ_512K);
		KUNIT_EXPECT_LE(test, bytes[i], (u64)SZ_2M + SZ_1M);
	}
	KUNIT_EXPECT_EQ(test, rr, 3U);
}

static void hixl_rail_bad_args(struct kunit *test)
{
	static const u64 lens[] = { SZ_4M, 0 };
	struct hixl_rail_piece p[16];
	u32 rr = 0;

	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, 0, SZ_1M, SZ_512K, &rr, p, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, HIXL_MAX_RAILS + 1, SZ_1M, SZ_512K, &rr,
					     p, 16), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, 2, SZ_1M, 0, &rr, p, 16), -EINVAL);
	rr = 2;
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, 2, SZ_1M, SZ_512K, &rr, p, 16), -EINVAL);
	rr = 0;
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 2, 2, SZ_1M, SZ_512K, &rr, p, 16), -EINVAL);
	/* 4 MiB in 512 KiB chunks is 8 pieces: 7 entries are too few */
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, 2, SZ_1M, SZ_512K, &rr, p, 7), -ENOSPC);
	KUNIT_EXPECT_EQ(test, rr, 0U);
	KUNIT_EXPECT_EQ(test, hixl_rail_plan(lens, 1, 2, SZ_1M, SZ_512K, &rr, p, 8), 8L);
	KUNIT_EXPECT_EQ(test, rr, 0U);
}

static void hixl_rail_validate_fields(struct kunit *test)
{
	struct hixl_setup a = { };

	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), 0);
	a.flags = HIXL_SETUP_RAILS;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), -EINVAL);	/* no list */
	a.rails = 0x1000;
	a.nr_rails = 1;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), 0);
	a.nr_rails = HIXL_MAX_RAILS - 1;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), 0);
	a.nr_rails = HIXL_MAX_RAILS;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), -EINVAL);
	a.nr_rails = 1;
	a.flags |= HIXL_SETUP_RAILS_AUTO;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), -EINVAL);
	a.flags = HIXL_SETUP_RAILS_AUTO;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), -EINVAL);	/* list too */
	a.rails = 0;
	a.nr_rails = 0;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), 0);
	a.reserved2 = 1;
	KUNIT_EXPECT_EQ(test, hixl_rails_validate(&a), -EINVAL);
}

/* ---- hixl_rail_numa_mask() ---------------------------------------------- */

#define NN	NUMA_NO_NODE
#define GONE	HIXL_RAIL_NODE_GONE

struct rail_numa_case {
	const char *name;
	int node[HIXL_MAX_RAILS];
	u32 nr;
	int mem;
	bool enabled;
	u32 want;
};

static const struct rail_numa_case rail_numa_cases[] = {
	{ "one rail, its node", { 0 }, 1, 0, true, 0x1 },
	{ "one rail, another node: still it", { 1 }, 1, 0, true, 0x1 },
	{ "two rails, memory on rail 1's node", { 0, 1 }, 2, 1, true, 0x2 },
	{ "two rails, memory on rail 0's node", { 0, 1 }, 2, 0, true, 0x1 },
	{ "two rails on one node", { 1, 1 }, 2, 1, true, 0x3 },
	{ "memory's node has no rail: all", { 0, 1 }, 2, 2, true, 0x3 },
	{ "memory's node not known: all", { 0, 1 }, 2, NN, true, 0x3 },
	{ "off: all", { 0, 1, 1 }, 3, 1, false, 0x7 },
	{ "unknown device nodes stay with the local ones", { 0, NN, 1, 0 }, 4, 0, true, 0xb },
	{ "every device node unknown: all", { NN, NN }, 2, 0, true, 0x3 },
	{ "a gone rail is never chosen", { 0, GONE, 1 }, 3, NN, true, 0x5 },
	{ "a gone rail does not count as local", { 0, GONE, 0 }, 3, 1, true, 0x5 },
	{ "the only local rail gone: all that remain", { 0, 1, GONE }, 3, 2, true, 0x3 },
	{ "off: gone rails still left out", { GONE, 1 }, 2, 1, false, 0x2 },
	{ "every rail gone", { GONE, GONE }, 2, 0, true, 0x0 },
	{ "eight rails, two on the node", { 0, 1, 2, 3, 0, 1, 2, 3 }, 8, 2, true, 0x44 },
	{ "no rails", { 0 }, 0, 0, true, 0x0 },
	{ "more than HIXL_MAX_RAILS ignored", { 1, 1, 1, 1, 1, 1, 1, 1 }, 9, 1, true, 0xff },
};

static void rail_numa_desc(const struct rail_numa_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rail_numa, rail_numa_cases, rail_numa_desc);

static void hixl_rail_numa_mask_table(struct kunit *test)
{
	const struct rail_numa_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_rail_numa_mask(c->node, c->nr, c->mem, c->enabled), c->want);
}

/* ---- a rail's detach and revival (the test VM: rxe0 10.77.0.1, rxe1 10.78.0.1) */

static u64 rail_reg(struct kunit *test, struct hixl_engine *eng, unsigned long addr, u64 len)
{
	struct hixl_reg_mem a = {
		.addr = addr, .len = len, .type = HIXL_MEM_HOST, .dmabuf_fd = -1,
	};

	KUNIT_ASSERT_EQ(test, hixl_cmd_reg_mem(eng, &a), 0);
	return a.handle;
}

static void hixl_rail_detach_revive(struct kunit *test)
{
	struct hixl_sockaddr r1 = { .family = AF_INET };
	struct hixl_setup a = {
		.local = { .family = AF_INET },
		.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS,
		.service_level = HIXL_DEFAULT_SERVICE_LEVEL,
		.flags = HIXL_SETUP_RAILS,
		.nr_rails = 1,
	};
	struct hixl_region *ra, *rb;
	struct hixl_rail_dev dev;
	struct ib_device *dev1;
	struct hixl_engine *eng;
	unsigned long base;
	u32 n;
	int ret;

	base = kunit_vm_mmap(test, NULL, 0, 16 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, base, 0UL, "kunit_vm_mmap failed");
	eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	/* a region before SETUP: SETUP makes its MRs on both rails */
	ra = xa_load(&eng->regions, rail_reg(test, eng, base, 8 * PAGE_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, ra);
	KUNIT_EXPECT_EQ(test, ra->mrset[0].nr_mrs, 0U);
	KUNIT_ASSERT_EQ(test, in4_pton("10.77.0.1", -1, a.local.addr, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, in4_pton("10.78.0.1", -1, r1.addr, -1, NULL), 1);
	a.rails = (uintptr_t)&r1;	/* a kernel pointer: copy_from_user() fails */
	ret = hixl_cmd_setup(eng, &a);
	KUNIT_EXPECT_EQ(test, ret, -EFAULT);
	/* the list in the test's user memory */
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(base + 12 * PAGE_SIZE), &r1,
					   sizeof(r1)), 0UL);
	a.rails = base + 12 * PAGE_SIZE;
	a.nr_rails = 1;
	ret = hixl_cmd_setup(eng, &a);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV) {
		hixl_engine_destroy(eng);
		kunit_skip(test, "no rxe0 on 10.77.0.1 and rxe1 on 10.78.0.1 (the test VM's)");
	}
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, eng->rdma->nr_rails, 1U);
	dev1 = eng->rdma->rails[0].ibdev;
	KUNIT_ASSERT_NOT_NULL(test, dev1);
	KUNIT_EXPECT_PTR_EQ(test, eng->rail_ibdev[1], dev1);
	KUNIT_EXPECT_TRUE(test, hixl_rail_dev(eng->rdma, 1, &dev));
	KUNIT_EXPECT_PTR_EQ(test, dev.ibdev, dev1);
	KUNIT_EXPECT_FALSE(test, hixl_rail_dev(eng->rdma, 2, &dev));
	KUNIT_EXPECT_NULL(test, dev.pd);
	n = ra->mrset[0].nr_mrs;
	KUNIT_EXPECT_GT(test, n, 0U);
	KUNIT_EXPECT_EQ(test, ra->mrset[1].nr_mrs, n);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_mrs), 2LL * n);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_rail_mrs[1]), (s64)n);
	/* rxe has no NUMA node: both rails (whatever rail_numa says) */
	KUNIT_EXPECT_EQ(test, hixl_region_rails(ra), 0x3U);

	/* the rail's device "removed": its MRs and PD go, rail 0 stays */
	hixl_engine_rail_detach(eng, dev1);
	KUNIT_EXPECT_FALSE(test, hixl_rail_dev(eng->rdma, 1, &dev));
	KUNIT_EXPECT_NULL(test, eng->rdma->rails[0].pd);
	KUNIT_EXPECT_NULL(test, eng->rail_ibdev[1]);
	KUNIT_EXPECT_EQ(test, ra->mrset[1].nr_mrs, 0U);
	KUNIT_EXPECT_EQ(test, ra->mrset[0].nr_mrs, n);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_mrs), (s64)n);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_rail_mrs[1]), 0LL);
	KUNIT_EXPECT_EQ(test, hixl_region_rails(ra), 0x1U);
	KUNIT_EXPECT_TRUE(test, hixl_rail_dev(eng->rdma, 0, &dev));
	hixl_engine_rail_detach(eng, dev1);	/* again: nothing left to do */
	/* REG_MEM while it is gone: MRs on rail 0 only */
	rb = xa_load(&eng->regions, rail_reg(test, eng, base + 8 * PAGE_SIZE, 4 * PAGE_SIZE));
	KUNIT_ASSERT_NOT_NULL(test, rb);
	KUNIT_EXPECT_GT(test, rb->mrset[0].nr_mrs, 0U);
	KUNIT_EXPECT_EQ(test, rb->mrset[1].nr_mrs, 0U);
	KUNIT_EXPECT_EQ(test, hixl_region_rails(rb), 0x1U);

	/* revived: the address resolves again, every region gets its MRs */
	down_read(&eng->rdma_sem);
	KUNIT_EXPECT_EQ(test, hixl_rail_revive(eng, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_rail_revive(eng, 0), 0);
	KUNIT_EXPECT_EQ(test, hixl_rail_revive(eng, 1), 0);
	KUNIT_EXPECT_EQ(test, hixl_rail_revive(eng, 1), 0);	/* usable: nothing to do */
	up_read(&eng->rdma_sem);
	KUNIT_EXPECT_TRUE(test, hixl_rail_dev(eng->rdma, 1, &dev));
	KUNIT_EXPECT_PTR_EQ(test, dev.ibdev, dev1);
	KUNIT_EXPECT_PTR_EQ(test, eng->rail_ibdev[1], dev1);
	KUNIT_EXPECT_EQ(test, ra->mrset[1].nr_mrs, n);
	KUNIT_EXPECT_EQ(test, rb->mrset[1].nr_mrs, rb->mrset[0].nr_mrs);
	KUNIT_EXPECT_FALSE(test, ra->mrset[1].mrs_registered);	/* new MRs: REG_MR again */
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_mrs),
			2LL * (n + rb->mrset[0].nr_mrs));
	KUNIT_EXPECT_EQ(test, hixl_region_rails(ra), 0x3U);
	KUNIT_EXPECT_EQ(test, hixl_region_rails(rb), 0x3U);
	/* the close frees both rails' MRs and PDs (kmemleak, the core's checks) */
	hixl_engine_destroy(eng);
}

static struct kunit_case hixl_rail_cases[] = {
	KUNIT_CASE(hixl_rail_one_rail_is_identity),
	KUNIT_CASE(hixl_rail_small_least_loaded),
	KUNIT_CASE(hixl_rail_cursor_spreads_batches),
	KUNIT_CASE(hixl_rail_striped_straddles_chunks),
	KUNIT_CASE(hixl_rail_eight_rails_cover),
	KUNIT_CASE(hixl_rail_bad_args),
	KUNIT_CASE(hixl_rail_validate_fields),
	KUNIT_CASE_PARAM(hixl_rail_numa_mask_table, rail_numa_gen_params),
	KUNIT_CASE(hixl_rail_detach_revive),
	{}
};

static struct kunit_suite hixl_rail_suite = {
	.name = "hixl_rail",
	.test_cases = hixl_rail_cases,
};

kunit_test_suite(hixl_rail_suite);
