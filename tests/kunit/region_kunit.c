// SPDX-License-Identifier: GPL-2.0
/*
 * region_kunit.c - KUnit suites for memory registration:
 *   hixl_pgsz    page-size choice for 4 KiB, 2 MiB, 1 GiB and mixed layouts
 *   hixl_runs    pages as physically contiguous runs: coalescing, growth,
 *                lookup by page index, page size, scatterlists of a range
 *   hixl_limits  limit arithmetic at the boundaries, range overflow
 *   hixl_region  REG_MEM/DEREG_MEM on real user memory (kunit_vm_mmap()):
 *                lookup, overlap rule, limits, bad input
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/sizes.h>

#include "engine.h"
#include "region.h"
#include "main.h"

/* ---- hixl_pgsz ---------------------------------------------------------------- */

struct hixl_pgsz_case {
	const char *name;
	u64 va;
	unsigned int max_shift;
	unsigned int expect_shift;
	u64 expect_pages;		/* pages of the chosen size spanned */
	unsigned int n;
	struct { u64 pa, len; } seg[6];
};

static const struct hixl_pgsz_case hixl_pgsz_cases[] = {
	{ "4K pages, scattered", 0x7f0000010000ULL, 30, 12, 4, 4,
	  { { 0x1000000, SZ_4K }, { 0x3000000, SZ_4K }, { 0x2000000, SZ_4K }, { 0x5000, SZ_4K } } },
	{ "4K pages, contiguous but not congruent", 0x7f0000201000ULL, 30, 12, 1024, 1,
	  { { 0x40000000, SZ_4M } } },
	{ "2M pages, contiguous", 0x7f0000200000ULL, 30, 21, 2, 1,
	  { { 0x40000000, SZ_4M } } },
	{ "2M pages, scattered", 0x7f0000000000ULL, 30, 21, 3, 3,
	  { { 0x10000000, SZ_2M }, { 0x30000000, SZ_2M }, { 0x20000000, SZ_2M } } },
	{ "1G page", 0x40000000ULL, 30, 30, 1, 1,
	  { { 0x80000000ULL, SZ_1G } } },
	{ "1G pages capped at 2M", 0x40000000ULL, 21, 21, 1024, 2,
	  { { 0x80000000ULL, SZ_1G }, { 0x180000000ULL, SZ_1G } } },
	{ "2M pages then 4K pages (mixed)", 0x7f0000000000ULL, 30, 12, 514, 3,
	  { { 0x10000000, SZ_2M }, { 0x20000000, SZ_4K }, { 0x30000000, SZ_4K } } },
	{ "4K page then 2M pages (mixed)", 0x7f00001ff000ULL, 30, 12, 1025, 2,
	  { { 0x10000000, SZ_4K }, { 0x20000000, SZ_4M } } },
	{ "partial first and last 2M page, congruent", 0x7f00001ff000ULL, 30, 21, 3, 1,
	  { { 0x3ff000, SZ_2M + SZ_8K } } },
	{ "sub-page piece", 0x1000, 30, 11, 2, 2,
	  { { 0x8000, SZ_2K }, { 0x10000, SZ_2K } } },
};

static void hixl_pgsz_desc(const struct hixl_pgsz_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_pgsz, hixl_pgsz_cases, hixl_pgsz_desc);

static void hixl_pgsz_layouts(struct kunit *test)
{
	const struct hixl_pgsz_case *c = test->param_value;
	struct hixl_pgsz s;
	unsigned int i, shift;
	u64 len = 0;

	hixl_pgsz_init(&s, c->va);
	for (i = 0; i < c->n; i++) {
		hixl_pgsz_add(&s, c->seg[i].pa, c->seg[i].len);
		len += c->seg[i].len;
	}
	shift = hixl_pgsz_shift(&s, c->max_shift);
	KUNIT_EXPECT_EQ(test, shift, c->expect_shift);
	KUNIT_EXPECT_EQ(test, hixl_pages_spanned(c->va, len, shift), c->expect_pages);
}

/* How many MRs a region needs at rxe's 512 pages per MR. */
static void hixl_pgsz_mr_counts(struct kunit *test)
{
	/* 1 GiB of 4 KiB pages: 262144 pages = 512 MRs */
	KUNIT_EXPECT_EQ(test, DIV_ROUND_UP(hixl_pages_spanned(0x40000000, SZ_1G, 12), 512), 512ULL);
	/* 1 GiB of 2 MiB pages, 2 MiB aligned: 512 pages = 1 MR; unaligned start: 2 */
	KUNIT_EXPECT_EQ(test, DIV_ROUND_UP(hixl_pages_spanned(0x40000000, SZ_1G, 21), 512), 1ULL);
	KUNIT_EXPECT_EQ(test, DIV_ROUND_UP(hixl_pages_spanned(0x40001000, SZ_1G, 21), 512), 2ULL);
	/* the last byte of the address space */
	KUNIT_EXPECT_EQ(test, hixl_pages_spanned(U64_MAX - SZ_4K + 1, SZ_4K, 12), 1ULL);
	KUNIT_EXPECT_EQ(test, hixl_pages_spanned(0xfff, 2, 12), 2ULL);
}

static struct kunit_case hixl_pgsz_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_pgsz_layouts, hixl_pgsz_gen_params),
	KUNIT_CASE(hixl_pgsz_mr_counts),
	{}
};

static struct kunit_suite hixl_pgsz_suite = {
	.name = "hixl_pgsz",
	.test_cases = hixl_pgsz_test_cases,
};

/* ---- hixl_runs ------------------------------------------------------------------ */

static void hixl_runs_free_action(void *rs)
{
	hixl_runs_free(rs);
}

static struct hixl_runs *hixl_runs_new(struct kunit *test)
{
	struct hixl_runs *rs = kunit_kzalloc(test, sizeof(*rs), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rs);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hixl_runs_free_action, rs), 0);
	return rs;
}

/* contiguous additions extend the last run; anything else starts one */
static void hixl_runs_coalesce(struct kunit *test)
{
	struct hixl_runs *rs = hixl_runs_new(test);

	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 100, 1), 0);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 101, 1), 0);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 102, 510), 0);	/* 100..611 */
	KUNIT_EXPECT_EQ(test, rs->nr, 1UL);
	KUNIT_EXPECT_EQ(test, rs->npages, 512UL);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 2000, 3), 0);	/* a gap */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 50, 2), 0);	/* backwards */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 51, 1), 0);	/* overlaps: not a continuation */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 52, 1), 0);	/* continues 51 */
	KUNIT_EXPECT_EQ(test, rs->nr, 4UL);
	KUNIT_EXPECT_EQ(test, rs->npages, 519UL);
	KUNIT_EXPECT_EQ(test, rs->run[0].end, 512UL);
	KUNIT_EXPECT_EQ(test, rs->run[1].pfn, 2000UL);
	KUNIT_EXPECT_EQ(test, rs->run[1].end, 515UL);
	KUNIT_EXPECT_EQ(test, rs->run[2].pfn, 50UL);
	KUNIT_EXPECT_EQ(test, rs->run[2].end, 517UL);
	KUNIT_EXPECT_EQ(test, rs->run[3].pfn, 51UL);
	KUNIT_EXPECT_EQ(test, rs->run[3].end, 519UL);
	KUNIT_EXPECT_EQ(test, hixl_runs_bytes(rs), 64 * sizeof(struct hixl_run));
	hixl_runs_reset(rs);
	KUNIT_EXPECT_EQ(test, rs->nr, 0UL);
	KUNIT_EXPECT_EQ(test, rs->npages, 0UL);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 7, 1), 0);
	KUNIT_EXPECT_EQ(test, rs->run[0].end, 1UL);
}

/* page index -> run and page frame, at every run's edges, after growth */
static void hixl_runs_lookup(struct kunit *test)
{
	struct hixl_runs *rs = hixl_runs_new(test);
	unsigned long i, idx = 0;

	/* 1000 runs of i % 7 + 1 pages, never adjacent: the array grows to 1024 */
	for (i = 0; i < 1000; i++)
		KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 1000000 - i * 16, i % 7 + 1), 0);
	KUNIT_ASSERT_EQ(test, rs->nr, 1000UL);
	KUNIT_EXPECT_EQ(test, hixl_runs_bytes(rs), 1024 * sizeof(struct hixl_run));
	for (i = 0; i < 1000; i++) {
		unsigned long n = i % 7 + 1;

		KUNIT_EXPECT_EQ(test, hixl_runs_find(rs, idx), i);
		KUNIT_EXPECT_EQ(test, hixl_runs_find(rs, idx + n - 1), i);
		KUNIT_EXPECT_EQ(test, hixl_runs_pfn(rs, idx), 1000000 - i * 16);
		KUNIT_EXPECT_EQ(test, hixl_runs_pfn(rs, idx + n - 1), 1000000 - i * 16 + n - 1);
		idx += n;
	}
	KUNIT_EXPECT_EQ(test, idx, rs->npages);
}

/* the page size of runs equals that of the same pages added one by one */
static void hixl_runs_page_size(struct kunit *test)
{
	struct hixl_runs *rs = hixl_runs_new(test);
	struct hixl_pgsz s;

	/* two 2 MiB pages, not adjacent, at a 2 MiB aligned address */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 0x40000, 512), 0);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 0x80000, 512), 0);
	hixl_pgsz_init(&s, 0x7f0000200000ULL);
	hixl_runs_pgsz(rs, &s);
	KUNIT_EXPECT_EQ(test, hixl_pgsz_shift(&s, 30), 21U);
	/* then a 4 KiB page that does not continue: 4 KiB */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, 0x1235, 1), 0);
	hixl_pgsz_init(&s, 0x7f0000200000ULL);
	hixl_runs_pgsz(rs, &s);
	KUNIT_EXPECT_EQ(test, hixl_pgsz_shift(&s, 30), 12U);
}

static void hixl_runs_free_pages_action(void *page)
{
	__free_pages(page, 2);
}

/* a byte range of the runs as a scatterlist: one entry per run touched */
static void hixl_runs_sg(struct kunit *test)
{
	struct hixl_runs *rs = hixl_runs_new(test);
	struct page *a = alloc_pages(GFP_KERNEL, 2), *b = alloc_pages(GFP_KERNEL, 2);
	struct scatterlist *sg;
	struct sg_table sgt;
	u64 total = 0;
	int i;

	KUNIT_ASSERT_TRUE(test, a && b);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hixl_runs_free_pages_action, a), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, hixl_runs_free_pages_action, b), 0);
	/* 4 pages of a, then 4 of b: two runs unless the buddy put b right after a */
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, page_to_pfn(a), 4), 0);
	KUNIT_ASSERT_EQ(test, hixl_runs_add(rs, page_to_pfn(b), 4), 0);

	/* from byte 100 of page 1 to byte 99 of page 6 */
	KUNIT_ASSERT_EQ(test, hixl_runs_sg_table(rs, &sgt, SZ_4K + 100, 5 * SZ_4K, SZ_1G), 0);
	KUNIT_EXPECT_EQ(test, sgt.orig_nents, rs->nr);
	for_each_sgtable_sg(&sgt, sg, i) {
		if (i == 0) {
			KUNIT_EXPECT_PTR_EQ(test, sg_page(sg), a + 1);
			KUNIT_EXPECT_EQ(test, sg->offset, 100U);
		}
		total += sg->length;
	}
	KUNIT_EXPECT_EQ(test, total, 5ULL * SZ_4K);
	if (rs->nr == 2) {
		sg = sg_next(sgt.sgl);
		KUNIT_EXPECT_EQ(test, sgt.sgl->length, 3U * SZ_4K - 100);
		KUNIT_EXPECT_PTR_EQ(test, sg_page(sg), b);
		KUNIT_EXPECT_EQ(test, sg->offset, 0U);
		KUNIT_EXPECT_EQ(test, sg->length, 2U * SZ_4K + 100);
	}
	sg_free_table(&sgt);

	/* a segment limit splits a run */
	KUNIT_ASSERT_EQ(test, hixl_runs_sg_table(rs, &sgt, 0, 4 * SZ_4K, SZ_4K), 0);
	KUNIT_EXPECT_EQ(test, sgt.orig_nents, 4U);
	for_each_sgtable_sg(&sgt, sg, i)
		KUNIT_EXPECT_PTR_EQ(test, sg_page(sg), a + i);
	sg_free_table(&sgt);

	/* outside the runs */
	KUNIT_EXPECT_EQ(test, hixl_runs_sg_table(rs, &sgt, 0, 8 * SZ_4K + 1, SZ_1G), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_runs_sg_table(rs, &sgt, 8 * SZ_4K, 1, SZ_1G), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_runs_sg_table(rs, &sgt, 0, 0, SZ_1G), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_runs_sg_table(rs, &sgt, U64_MAX, 2, SZ_1G), -EINVAL);
	KUNIT_EXPECT_NULL(test, sgt.sgl);
}

static struct kunit_case hixl_runs_test_cases[] = {
	KUNIT_CASE(hixl_runs_coalesce),
	KUNIT_CASE(hixl_runs_lookup),
	KUNIT_CASE(hixl_runs_page_size),
	KUNIT_CASE(hixl_runs_sg),
	{}
};

static struct kunit_suite hixl_runs_suite = {
	.name = "hixl_runs",
	.test_cases = hixl_runs_test_cases,
};

/* ---- hixl_limits ---------------------------------------------------------------- */

static void hixl_limits_region_count(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, hixl_limit_check(254, 0, SZ_4K, 256, 20ULL << 30), 0);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(255, 0, SZ_4K, 256, 20ULL << 30), 0);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(256, 0, SZ_4K, 256, 20ULL << 30), -ENOSPC);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(257, 0, SZ_4K, 256, 20ULL << 30), -ENOSPC);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(0, 0, SZ_4K, 0, 20ULL << 30), -ENOSPC);
}

static void hixl_limits_bytes(struct kunit *test)
{
	const u64 g20 = 20ULL << 30;

	KUNIT_EXPECT_EQ(test, hixl_limit_check(0, 0, g20, 256, g20), 0);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(0, 0, g20 + 1, 256, g20), -E2BIG);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, g20 - SZ_4K, SZ_4K, 256, g20), 0);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, g20 - SZ_4K, SZ_4K + 1, 256, g20), -E2BIG);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, g20, 1, 256, g20), -E2BIG);
	/* no wrap-around: a huge add against a huge total */
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, g20, U64_MAX, 256, g20), -E2BIG);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, U64_MAX - 1, 2, 256, U64_MAX), -E2BIG);
	KUNIT_EXPECT_EQ(test, hixl_limit_check(1, U64_MAX - 2, 2, 256, U64_MAX), 0);
	/* the count is checked first */
	KUNIT_EXPECT_EQ(test, hixl_limit_check(256, g20, SZ_4K, 256, g20), -ENOSPC);
}

static void hixl_limits_range(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, hixl_range_check(0x1000, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_range_check(U64_MAX, 1), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, hixl_range_check(U64_MAX - 0xfff, 0x1001), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, hixl_range_check(1, U64_MAX), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, hixl_range_check(U64_MAX - 1, 1), 0);
	KUNIT_EXPECT_EQ(test, hixl_range_check(0, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, hixl_range_check(0x1000, 1), 0);
}

static struct kunit_case hixl_limits_test_cases[] = {
	KUNIT_CASE(hixl_limits_region_count),
	KUNIT_CASE(hixl_limits_bytes),
	KUNIT_CASE(hixl_limits_range),
	{}
};

static struct kunit_suite hixl_limits_suite = {
	.name = "hixl_limits",
	.test_cases = hixl_limits_test_cases,
};

/* ---- hixl_region: against real user memory ------------------------------------ */

#define HIXL_TEST_PAGES 16

struct hixl_region_ctx {
	struct hixl_engine *eng;
	unsigned long base;	/* HIXL_TEST_PAGES pages of anonymous memory */
};

static int hixl_region_init(struct kunit *test)
{
	struct hixl_region_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	/* maps memory and attaches an mm to the test thread */
	ctx->base = kunit_vm_mmap(test, NULL, 0, HIXL_TEST_PAGES * PAGE_SIZE,
				  PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, ctx->base, 0UL, "kunit_vm_mmap failed");
	ctx->eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->eng);
	KUNIT_ASSERT_PTR_EQ(test, ctx->eng->mm, current->mm);
	test->priv = ctx;
	return 0;
}

static void hixl_region_exit(struct kunit *test)
{
	struct hixl_region_ctx *ctx = test->priv;

	hixl_engine_destroy(ctx->eng);
}

static int reg(struct hixl_engine *eng, u64 addr, u64 len, u64 *handle)
{
	struct hixl_reg_mem a = {
		.addr = addr, .len = len, .type = HIXL_MEM_HOST, .dmabuf_fd = -1,
	};
	int ret = hixl_cmd_reg_mem(eng, &a);

	if (!ret && handle)
		*handle = a.handle;
	return ret;
}

static int dereg(struct hixl_engine *eng, u64 handle)
{
	struct hixl_dereg_mem a = { .handle = handle };

	return hixl_cmd_dereg_mem(eng, &a);
}

static void hixl_region_register_and_lookup(struct kunit *test)
{
	struct hixl_region_ctx *ctx = test->priv;
	struct hixl_engine *eng = ctx->eng;
	u64 b = ctx->base, h1, h2;
	struct hixl_region *r;

	KUNIT_ASSERT_EQ(test, reg(eng, b, 4 * PAGE_SIZE, &h1), 0);
	KUNIT_ASSERT_EQ(test, reg(eng, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE, &h2), 0);
	KUNIT_EXPECT_NE(test, h1, 0ULL);
	KUNIT_EXPECT_NE(test, h1, h2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_pinned_pages), 8LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_host_bytes), (s64)(8 * PAGE_SIZE));

	mutex_lock(&eng->lock);
	r = hixl_region_lookup(eng, b + 100, 200);
	KUNIT_EXPECT_TRUE(test, r && r->handle == h1);
	r = hixl_region_lookup(eng, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, r && r->handle == h2);
	/* straddling two registrations, or running past the end: no region */
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, b + 4 * PAGE_SIZE - 1, 2));
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE + 1));
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, b + 8 * PAGE_SIZE, 1));
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, b, 0));
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, U64_MAX, 2));
	mutex_unlock(&eng->lock);

	KUNIT_EXPECT_EQ(test, dereg(eng, h1), 0);
	KUNIT_EXPECT_EQ(test, dereg(eng, h1), -ENOENT);
	mutex_lock(&eng->lock);
	KUNIT_EXPECT_NULL(test, hixl_region_lookup(eng, b, 1));
	mutex_unlock(&eng->lock);
	KUNIT_EXPECT_EQ(test, dereg(eng, h2), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_regions), 0LL);
}

static void hixl_region_overlap_rule(struct kunit *test)
{
	struct hixl_region_ctx *ctx = test->priv;
	struct hixl_engine *eng = ctx->eng, *other;
	u64 b = ctx->base, h, h2;

	KUNIT_ASSERT_EQ(test, reg(eng, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE, &h), 0);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 5 * PAGE_SIZE, 1, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg(eng, b, 5 * PAGE_SIZE, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 8 * PAGE_SIZE - 1, 2, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, reg(eng, b, 12 * PAGE_SIZE, NULL), -EEXIST);
	/* nothing of the refused attempts stayed */
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_regions), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_pinned_pages), 4LL);
	KUNIT_EXPECT_EQ(test, eng->proc->regions, 1U);
	/* adjacent on both sides is fine, also within one page */
	KUNIT_EXPECT_EQ(test, reg(eng, b + 8 * PAGE_SIZE, 1, &h2), 0);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 4 * PAGE_SIZE - 1, 1, NULL), 0);

	/* another engine of the same process registers independently... */
	other = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_EXPECT_EQ(test, reg(other, b + 4 * PAGE_SIZE, 4 * PAGE_SIZE, NULL), 0);
	/* ...but shares the process's limits, and cannot use our handles */
	KUNIT_EXPECT_PTR_EQ(test, other->proc, eng->proc);
	KUNIT_EXPECT_EQ(test, eng->proc->regions, 4U);
	KUNIT_EXPECT_EQ(test, dereg(other, h2), dereg(other, 1000));
	KUNIT_EXPECT_EQ(test, dereg(other, 1000), -ENOENT);
	hixl_engine_destroy(other);
	KUNIT_EXPECT_EQ(test, eng->proc->regions, 3U);
	KUNIT_EXPECT_EQ(test, dereg(eng, h2), 0);
}

static void hixl_region_limits(struct kunit *test)
{
	struct hixl_region_ctx *ctx = test->priv;
	struct hixl_engine *eng = ctx->eng;
	unsigned int saved_regions = hixl_max_regions;
	unsigned long saved_bytes = hixl_max_host_bytes;
	u64 b = ctx->base;
	int i;

	WRITE_ONCE(hixl_max_regions, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, reg(eng, b + i * PAGE_SIZE, PAGE_SIZE, NULL), 0);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 3 * PAGE_SIZE, PAGE_SIZE, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_limit_hits), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_regions), 3LL);
	KUNIT_EXPECT_EQ(test, eng->proc->regions, 3U);
	WRITE_ONCE(hixl_max_regions, saved_regions);

	/* exactly at the byte limit is allowed, one byte over is not */
	WRITE_ONCE(hixl_max_host_bytes, 5 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 3 * PAGE_SIZE, 2 * PAGE_SIZE, NULL), 0);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 5 * PAGE_SIZE, 1, NULL), -E2BIG);
	KUNIT_EXPECT_EQ(test, eng->proc->host_bytes, (u64)(5 * PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, atomic64_read(&eng->st_pinned_pages), 5LL);
	WRITE_ONCE(hixl_max_host_bytes, saved_bytes);
	KUNIT_EXPECT_EQ(test, reg(eng, b + 5 * PAGE_SIZE, 1, NULL), 0);
}

struct hixl_reg_bad_case {
	const char *name;
	struct hixl_reg_mem arg;	/* addr relative to the test mapping */
	bool absolute;			/* addr is absolute */
	int expect;
};

static const struct hixl_reg_bad_case hixl_reg_bad_cases[] = {
	{ "zero length", { .len = 0, .dmabuf_fd = -1 }, false, -EINVAL },
	/* the first bit past the known ones (HIXL_REG_FLAGS_ALL is contiguous) */
	{ "unknown flag", { .len = 4096, .flags = HIXL_REG_FLAGS_ALL + 1, .dmabuf_fd = -1 },
	  false, -EINVAL },
	{ "flag bit 31", { .len = 4096, .flags = 1U << 31, .dmabuf_fd = -1 }, false, -EINVAL },
	{ "unknown type", { .len = 4096, .type = 2, .dmabuf_fd = -1 }, false, -EINVAL },
	{ "type ~0", { .len = 4096, .type = ~0U, .dmabuf_fd = -1 }, false, -EINVAL },
	{ "reserved0", { .len = 4096, .reserved0 = 1, .dmabuf_fd = -1 }, false, -EINVAL },
	{ "reserved1", { .len = 4096, .reserved1 = 1, .dmabuf_fd = -1 }, false, -EINVAL },
	{ "host with dmabuf_fd 0", { .len = 4096, .dmabuf_fd = 0 }, false, -EINVAL },
	{ "host with dmabuf_offset", { .len = 4096, .dmabuf_fd = -1, .dmabuf_offset = 4096 }, false, -EINVAL },
	{ "device with fd -1", { .len = 4096, .type = HIXL_MEM_DEVICE, .dmabuf_fd = -1 }, false, -EBADF },
	{ "device unaligned offset", { .len = 4096, .type = HIXL_MEM_DEVICE, .dmabuf_fd = 0, .dmabuf_offset = 1 }, false, -EINVAL },
	{ "addr + len wraps", { .addr = U64_MAX - 4095, .len = 8192, .dmabuf_fd = -1 }, true, -EOVERFLOW },
	{ "len U64_MAX", { .addr = 4096, .len = U64_MAX, .dmabuf_fd = -1 }, true, -EOVERFLOW },
	{ "kernel address", { .addr = 0xffff888000000000ULL, .len = 4096, .dmabuf_fd = -1 }, true, -EFAULT },
	{ "NULL page", { .addr = 0, .len = 4096, .dmabuf_fd = -1 }, true, -EFAULT },
	{ "past the mapping", { .addr = (HIXL_TEST_PAGES - 1) * 4096, .len = 8192, .dmabuf_fd = -1 }, false, -EFAULT },
};

static void hixl_reg_bad_desc(const struct hixl_reg_bad_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_reg_bad, hixl_reg_bad_cases, hixl_reg_bad_desc);

static void hixl_region_bad_input(struct kunit *test)
{
	const struct hixl_reg_bad_case *c = test->param_value;
	struct hixl_region_ctx *ctx = test->priv;
	struct hixl_reg_mem a = c->arg;

	if (!c->absolute)
		a.addr += ctx->base;
	KUNIT_EXPECT_EQ(test, hixl_cmd_reg_mem(ctx->eng, &a), c->expect);
	KUNIT_EXPECT_EQ(test, a.handle, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ctx->eng->st_regions), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&ctx->eng->st_pinned_pages), 0LL);
	KUNIT_EXPECT_EQ(test, ctx->eng->proc->regions, 0U);
	KUNIT_EXPECT_EQ(test, ctx->eng->proc->host_bytes, 0ULL);
}

static void hixl_region_dereg_bad_input(struct kunit *test)
{
	struct hixl_region_ctx *ctx = test->priv;
	struct hixl_dereg_mem a = {};
	u64 h;

	KUNIT_ASSERT_EQ(test, reg(ctx->eng, ctx->base, PAGE_SIZE, &h), 0);
	KUNIT_EXPECT_EQ(test, dereg(ctx->eng, 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, dereg(ctx->eng, h + 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, dereg(ctx->eng, h | (1ULL << 32)), -ENOENT);
	a.handle = h;
	a.flags = 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_dereg_mem(ctx->eng, &a), -EINVAL);
	a.flags = 0;
	a.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_dereg_mem(ctx->eng, &a), -EINVAL);
	/* all refused: still registered */
	KUNIT_EXPECT_EQ(test, atomic64_read(&ctx->eng->st_regions), 1LL);
	KUNIT_EXPECT_EQ(test, dereg(ctx->eng, h), 0);
}

static struct kunit_case hixl_region_test_cases[] = {
	KUNIT_CASE(hixl_region_register_and_lookup),
	KUNIT_CASE(hixl_region_overlap_rule),
	KUNIT_CASE(hixl_region_limits),
	KUNIT_CASE_PARAM(hixl_region_bad_input, hixl_reg_bad_gen_params),
	KUNIT_CASE(hixl_region_dereg_bad_input),
	{}
};

static struct kunit_suite hixl_region_suite = {
	.name = "hixl_region",
	.init = hixl_region_init,
	.exit = hixl_region_exit,
	.test_cases = hixl_region_test_cases,
};

kunit_test_suites(&hixl_pgsz_suite, &hixl_runs_suite, &hixl_limits_suite, &hixl_region_suite);
