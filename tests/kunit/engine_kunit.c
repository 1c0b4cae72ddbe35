// SPDX-License-Identifier: GPL-2.0
/*
 * engine_kunit.c - KUnit suite hixl_setup: SETUP option validation, address
 * conversion, and MR page-size and count arithmetic.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

#include "engine.h"
#include "region.h"
#include "proto.h"
#include "setup.h"

static struct hixl_setup hixl_good_setup(void)
{
	struct hixl_setup a = {
		.local = { .family = AF_INET, .addr = { 10, 77, 0, 1 } },
		.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS,
		.service_level = HIXL_DEFAULT_SERVICE_LEVEL,
		.pool_buffers = HIXL_DEFAULT_POOL_BUFFERS,
		.pool_buffer_mb = HIXL_DEFAULT_POOL_BUFFER_MB,
	};
	return a;
}

struct hixl_setup_case {
	const char *name;
	void (*edit)(struct hixl_setup *a);
	int expect;
};

static void e_none(struct hixl_setup *a) { }
static void e_tc0(struct hixl_setup *a) { a->traffic_class = 0; }
static void e_tc252(struct hixl_setup *a) { a->traffic_class = 252; }
static void e_tc255(struct hixl_setup *a) { a->traffic_class = 255; }
static void e_tc256(struct hixl_setup *a) { a->traffic_class = 256; }
static void e_tc133(struct hixl_setup *a) { a->traffic_class = 133; }
static void e_sl0(struct hixl_setup *a) { a->service_level = 0; }
static void e_sl7(struct hixl_setup *a) { a->service_level = 7; }
static void e_sl8(struct hixl_setup *a) { a->service_level = 8; }
static void e_pool_off(struct hixl_setup *a) { a->pool_buffers = 0; a->pool_buffer_mb = 0; }
static void e_pool_n0(struct hixl_setup *a) { a->pool_buffers = 0; }
static void e_pool_mb0(struct hixl_setup *a) { a->pool_buffer_mb = 0; }
static void e_pool_max(struct hixl_setup *a) { a->pool_buffers = 256; a->pool_buffer_mb = 1024; }
static void e_pool_n257(struct hixl_setup *a) { a->pool_buffers = 257; }
static void e_pool_mb1025(struct hixl_setup *a) { a->pool_buffer_mb = 1025; }
static void e_flags(struct hixl_setup *a) { a->flags = 1; }
static void e_res0(struct hixl_setup *a) { a->transport = HIXL_TRANSPORT_LOCAL + 1; }
static void e_res1(struct hixl_setup *a) { a->reserved1 = 1; }
static void e_res3(struct hixl_setup *a) { a->reserved[0] = 1; }
/* the first bit past the known ones (HIXL_SETUP_FLAGS_ALL is contiguous) */
static void e_flag_unknown(struct hixl_setup *a) { a->flags = HIXL_SETUP_FLAGS_ALL + 1; }
static void e_any_port(struct hixl_setup *a) { a->flags = HIXL_SETUP_LISTEN_ANY; }
static void e_any_port_given(struct hixl_setup *a)
{
	a->flags = HIXL_SETUP_LISTEN_ANY;
	a->local.port = 16000;
}
static void e_allow_1(struct hixl_setup *a)
{
	a->flags = HIXL_SETUP_ALLOWED_PEERS;
	a->allowed = 0x1000;
	a->nr_allowed = 1;
}
static void e_allow_max(struct hixl_setup *a) { e_allow_1(a); a->nr_allowed = HIXL_MAX_ALLOWED_PEERS; }
static void e_allow_over(struct hixl_setup *a) { e_allow_1(a); a->nr_allowed = HIXL_MAX_ALLOWED_PEERS + 1; }
static void e_allow_0(struct hixl_setup *a) { e_allow_1(a); a->nr_allowed = 0; }
static void e_allow_null(struct hixl_setup *a) { e_allow_1(a); a->allowed = 0; }
static void e_allow_noflag(struct hixl_setup *a) { a->allowed = 0x1000; }
static void e_allow_nr_noflag(struct hixl_setup *a) { a->nr_allowed = 1; }
static void e_secret_16(struct hixl_setup *a)
{
	a->flags = HIXL_SETUP_SECRET;
	a->secret = 0x2000;
	a->secret_len = HIXL_SECRET_MIN;
}
static void e_secret_128(struct hixl_setup *a) { e_secret_16(a); a->secret_len = HIXL_SECRET_MAX; }
static void e_secret_15(struct hixl_setup *a) { e_secret_16(a); a->secret_len = HIXL_SECRET_MIN - 1; }
static void e_secret_129(struct hixl_setup *a) { e_secret_16(a); a->secret_len = HIXL_SECRET_MAX + 1; }
static void e_secret_null(struct hixl_setup *a) { e_secret_16(a); a->secret = 0; }
static void e_secret_noflag(struct hixl_setup *a) { a->secret = 0x2000; }
static void e_secret_len_noflag(struct hixl_setup *a) { a->secret_len = 32; }
static void e_both(struct hixl_setup *a)
{
	e_secret_16(a);
	a->flags |= HIXL_SETUP_ALLOWED_PEERS;
	a->allowed = 0x1000;
	a->nr_allowed = 2;
}

static const struct hixl_setup_case hixl_setup_cases[] = {
	{ "defaults", e_none, 0 },
	{ "tc 0", e_tc0, 0 }, { "tc 252", e_tc252, 0 },
	{ "tc 255 not a multiple of 4", e_tc255, -EINVAL },
	{ "tc 256", e_tc256, -EINVAL }, { "tc 133", e_tc133, -EINVAL },
	{ "sl 0", e_sl0, 0 }, { "sl 7", e_sl7, 0 }, { "sl 8", e_sl8, -EINVAL },
	{ "pool 0:0 off", e_pool_off, 0 }, { "pool 0:8", e_pool_n0, -EINVAL },
	{ "pool 4:0", e_pool_mb0, -EINVAL }, { "pool 256:1024", e_pool_max, 0 },
	{ "pool 257:8", e_pool_n257, -EINVAL }, { "pool 4:1025", e_pool_mb1025, -EINVAL },
	{ "allowed-peers flag without a list", e_flags, -EINVAL }, { "transport unknown", e_res0, -EINVAL },
	{ "reserved1", e_res1, -EINVAL }, { "reserved[0]", e_res3, -EINVAL },
	{ "unknown flag", e_flag_unknown, -EINVAL },
	{ "any port, port 0", e_any_port, 0 }, { "any port with a port", e_any_port_given, -EINVAL },
	{ "allowed peers 1", e_allow_1, 0 }, { "allowed peers 256", e_allow_max, 0 },
	{ "allowed peers 257", e_allow_over, -EINVAL }, { "allowed peers 0", e_allow_0, -EINVAL },
	{ "allowed peers NULL", e_allow_null, -EINVAL },
	{ "allowed without flag", e_allow_noflag, -EINVAL },
	{ "nr_allowed without flag", e_allow_nr_noflag, -EINVAL },
	{ "secret 16 bytes", e_secret_16, 0 }, { "secret 128 bytes", e_secret_128, 0 },
	{ "secret 15 bytes", e_secret_15, -EINVAL }, { "secret 129 bytes", e_secret_129, -EINVAL },
	{ "secret NULL", e_secret_null, -EINVAL },
	{ "secret without flag", e_secret_noflag, -EINVAL },
	{ "secret_len without flag", e_secret_len_noflag, -EINVAL },
	{ "allowed peers and secret", e_both, 0 },
};

static void hixl_setup_case_desc(const struct hixl_setup_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_setup_opt, hixl_setup_cases, hixl_setup_case_desc);

static void hixl_setup_options(struct kunit *test)
{
	const struct hixl_setup_case *c = test->param_value;
	struct hixl_setup a = hixl_good_setup();

	c->edit(&a);
	KUNIT_EXPECT_EQ(test, hixl_setup_validate(&a), c->expect);
}

static void hixl_setup_sockaddr(struct kunit *test)
{
	struct hixl_sockaddr a = { .family = AF_INET, .port = 16000, .addr = { 10, 77, 0, 1 } };
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	KUNIT_ASSERT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), 0);
	KUNIT_EXPECT_EQ(test, sin->sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohs(sin->sin_port), 16000);
	KUNIT_EXPECT_EQ(test, ntohl(sin->sin_addr.s_addr), 0x0a4d0001U);

	a.scope_id = 2;
	KUNIT_EXPECT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), -EINVAL);
	a.scope_id = 0;
	a.addr[4] = 1;
	KUNIT_EXPECT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), -EINVAL);
	a.addr[4] = 0;
	a.reserved = 1;
	KUNIT_EXPECT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), -EINVAL);
	a.reserved = 0;
	a.family = AF_UNIX;
	KUNIT_EXPECT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), -EAFNOSUPPORT);

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	a.port = 1;
	a.scope_id = 3;
	a.addr[0] = 0xfe;
	a.addr[1] = 0x80;
	a.addr[15] = 1;
	KUNIT_ASSERT_EQ(test, hixl_sockaddr_to_kernel(&a, &ss), 0);
	KUNIT_EXPECT_EQ(test, sin6->sin6_family, (sa_family_t)AF_INET6);
	KUNIT_EXPECT_EQ(test, sin6->sin6_scope_id, 3U);
	KUNIT_EXPECT_EQ(test, sin6->sin6_addr.s6_addr[15], 1);
	KUNIT_EXPECT_EQ(test, sin6->sin6_addr.s6_addr[0], 0xfe);
}

/* rxe: every size from 4 KiB to 2 GiB (0xfffff000), 512 pages per MR */
static void hixl_setup_mr_arithmetic(struct kunit *test)
{
	const u64 rxe_cap = 0xfffff000ULL, cap_4k_2m = SZ_4K | SZ_2M;

	KUNIT_EXPECT_EQ(test, hixl_mr_shift(12, rxe_cap), 12U);
	KUNIT_EXPECT_EQ(test, hixl_mr_shift(21, rxe_cap), 21U);
	/* never past 256 MiB: rxe keeps an MR's pages per 4 KiB in one kmalloc */
	KUNIT_EXPECT_EQ(test, hixl_mr_shift(30, rxe_cap), 28U);
	KUNIT_EXPECT_EQ(test, hixl_mr_shift(30, cap_4k_2m), 21U);
	KUNIT_EXPECT_EQ(test, hixl_mr_shift(20, cap_4k_2m), 12U);
	KUNIT_EXPECT_EQ(test, hixl_mr_shift(12, SZ_64K), 0U);	/* nothing fits */

	/* 1 GiB: 4 KiB pages 512 MRs; 2 MiB pages 1 (aligned) or 2; 1 GiB page 1 */
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40000000, SZ_1G, 12, 512), 512U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40000000, SZ_1G, 21, 512), 1U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40001000, SZ_1G, 21, 512), 2U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40200000, SZ_1G, 21, 512), 1U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40000000, SZ_1G, 30, 512), 1U);
	/* 20 GiB of 4 KiB pages on a device with 256 pages per MR */
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0, 20ULL << 30, 12, 256), 20480U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0xfff, 2, 12, 512), 1U);
	/* boundaries count from the region's first page, not from address 0 */
	KUNIT_EXPECT_EQ(test, hixl_mr_count(512 * 4096 - 1, 2, 12, 512), 1U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(512 * 4096 - 1, 2, 12, 1), 2U);
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x1000, 513 * 4096, 12, 512), 2U);

	/* an MR spans at most 256 MiB: 4 KiB pages as the device says, 2 MiB
	 * pages 128 of rxe's 512, a 256 MiB page one */
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(512, 12), 512U);
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(1U << 20, 12), 65536U);
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(512, 21), 128U);
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(64, 21), 64U);
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(512, 28), 1U);
	KUNIT_EXPECT_EQ(test, hixl_mr_max_pages(512, 30), 1U);
	/* 1 GiB of 2 MiB pages: 4 MRs on rxe, not one of 1 GiB */
	KUNIT_EXPECT_EQ(test, hixl_mr_count(0x40000000, SZ_1G, 21, hixl_mr_max_pages(512, 21)), 4U);
}

static struct kunit_case hixl_setup_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_setup_options, hixl_setup_opt_gen_params),
	KUNIT_CASE(hixl_setup_sockaddr),
	KUNIT_CASE(hixl_setup_mr_arithmetic),
	{}
};

static struct kunit_suite hixl_setup_suite = {
	.name = "hixl_setup",
	.test_cases = hixl_setup_test_cases,
};

/* ---- the engine lock rule's check (engine.c) ---------------------------- */

struct hixl_rule_probe {
	struct work_struct work;
	const char *seen;	/* hixl_work_queue_shared() in the work item */
};

static void hixl_rule_probe_fn(struct work_struct *w)
{
	struct hixl_rule_probe *p = container_of(w, struct hixl_rule_probe, work);

	p->seen = hixl_work_queue_shared();
}

/* What the check says in a work item of @wq. */
static const char *hixl_rule_on(struct workqueue_struct *wq)
{
	struct hixl_rule_probe p = { .seen = "(not run)" };

	INIT_WORK_ONSTACK(&p.work, hixl_rule_probe_fn);
	queue_work(wq, &p.work);
	flush_work(&p.work);
	destroy_work_on_stack(&p.work);
	return p.seen ? p.seen : "(none)";
}

/* Outside a work item (a command's task) nothing is reported. */
static void hixl_rule_task(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, hixl_work_queue_shared());
}

/* A work item of system_wq, or of a queue of hixl's that engines share, is reported. */
static void hixl_rule_shared_fires(struct kunit *test)
{
	struct workqueue_struct *wq;

	if (!IS_ENABLED(CONFIG_LOCKDEP) || !debug_locks)
		kunit_skip(test, "the check reads the running work's queue from lockdep");
	KUNIT_EXPECT_STREQ(test, hixl_rule_on(system_wq), "events");
	wq = alloc_workqueue("hixl_shared_test", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, wq);
	KUNIT_EXPECT_STREQ(test, hixl_rule_on(wq), "hixl_shared_test");
	destroy_workqueue(wq);
}

/* An engine's own queues are not reported. */
static void hixl_rule_own_queue(struct kunit *test)
{
	struct workqueue_struct *wq = alloc_workqueue(HIXL_ENG_WQ_NAME, WQ_UNBOUND, 0);
	struct workqueue_struct *xw = alloc_workqueue(HIXL_XWORK_WQ_NAME, WQ_UNBOUND, 1);

	KUNIT_ASSERT_NOT_NULL(test, wq);
	KUNIT_ASSERT_NOT_NULL(test, xw);
	KUNIT_EXPECT_STREQ(test, hixl_rule_on(wq), "(none)");
	KUNIT_EXPECT_STREQ(test, hixl_rule_on(xw), "(none)");
	destroy_workqueue(xw);
	destroy_workqueue(wq);
}

static struct kunit_case hixl_engine_rule_cases[] = {
	KUNIT_CASE(hixl_rule_task),
	KUNIT_CASE(hixl_rule_shared_fires),
	KUNIT_CASE(hixl_rule_own_queue),
	{}
};

static struct kunit_suite hixl_engine_rule_suite = {
	.name = "hixl_engine_rule",
	.test_cases = hixl_engine_rule_cases,
};

kunit_test_suites(&hixl_setup_suite, &hixl_engine_rule_suite);
