// SPDX-License-Identifier: GPL-2.0
/*
 * xpath_kunit.c - KUnit suites for how a TRANSFER is carried, which the
 * ioctl and io_uring both follow (hixl_transfer_submit(), xfer.c):
 *
 *   hixl_xport  the transport (hixl_xport_plan()): each in turn plans or
 *               passes; the first that planned or refused carries it;
 *               the module's own two in their order
 *   hixl_xpath  the RDMA transport's path (hixl_xpath_choose(), xrdma.c):
 *               every combination of what planning found
 */
#include <kunit/test.h>

#include "xprep.h"

struct hixl_xpath_case {
	const char *name;
	u32 nstaged;
	bool rails_only;
	bool rails;
	enum hixl_xpath want;
};

static const struct hixl_xpath_case hixl_xpath_cases[] = {
	{ "direct pieces, one rail", 0, false, false, HIXL_XPATH_DIRECT },
	{ "direct pieces, rails", 0, false, true, HIXL_XPATH_STRIPED },
	{ "staged, one rail", 3, false, false, HIXL_XPATH_STAGED },
	/* hixl_xprep_path() never asks for rails with staged descriptors;
	 * were it to, staging still keeps the one-link path */
	{ "staged, rails", 3, false, true, HIXL_XPATH_STAGED },
	{ "broken primary, READY rail", 0, true, false, HIXL_XPATH_STRIPED },
	{ "broken primary, rails", 0, true, true, HIXL_XPATH_STRIPED },
};

static void hixl_xpath_case_desc(const struct hixl_xpath_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_xpath, hixl_xpath_cases, hixl_xpath_case_desc);

static void hixl_xpath_choice(struct kunit *test)
{
	const struct hixl_xpath_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_xpath_choose(c->nstaged, c->rails_only, c->rails), c->want);
}

/* fake transports: each says what its plan returns and counts its calls */
static int hixl_fake_calls[3];

static int hixl_fake_pass(struct hixl_xprep *p) { hixl_fake_calls[0]++; return 1; }
static int hixl_fake_take(struct hixl_xprep *p) { hixl_fake_calls[1]++; return 0; }
static int hixl_fake_refuse(struct hixl_xprep *p) { hixl_fake_calls[2]++; return -ERANGE; }

static const struct hixl_xport hixl_fake_passes = { .name = "passes", .plan = hixl_fake_pass };
static const struct hixl_xport hixl_fake_takes = { .name = "takes", .plan = hixl_fake_take };
static const struct hixl_xport hixl_fake_refuses = { .name = "refuses", .plan = hixl_fake_refuse };

struct hixl_xport_case {
	const char *name;
	const struct hixl_xport *x[3];
	u32 n;
	int ret;
	const struct hixl_xport *chosen;
	int calls[3];		/* of pass, take, refuse */
};

static const struct hixl_xport_case hixl_xport_cases[] = {
	{ "the first plans it", { &hixl_fake_takes, &hixl_fake_passes }, 2, 0,
	  &hixl_fake_takes, { 0, 1, 0 } },
	{ "the first passes, the second plans it", { &hixl_fake_passes, &hixl_fake_takes }, 2, 0,
	  &hixl_fake_takes, { 1, 1, 0 } },
	{ "the first refuses: its error, no other asked",
	  { &hixl_fake_refuses, &hixl_fake_takes }, 2, -ERANGE, &hixl_fake_refuses, { 0, 0, 1 } },
	{ "passed, then refused", { &hixl_fake_passes, &hixl_fake_refuses, &hixl_fake_takes }, 3,
	  -ERANGE, &hixl_fake_refuses, { 1, 0, 1 } },
	{ "every one passes", { &hixl_fake_passes, &hixl_fake_passes }, 2, -EPROTONOSUPPORT, NULL,
	  { 2, 0, 0 } },
};

static void hixl_xport_case_desc(const struct hixl_xport_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_xport, hixl_xport_cases, hixl_xport_case_desc);

static void hixl_xport_choice(struct kunit *test)
{
	const struct hixl_xport_case *c = test->param_value;
	struct hixl_xprep p = {};
	int i;

	memset(hixl_fake_calls, 0, sizeof(hixl_fake_calls));
	KUNIT_EXPECT_EQ(test, hixl_xport_plan(&p, c->x, c->n), c->ret);
	KUNIT_EXPECT_PTR_EQ(test, p.xport, c->chosen);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ_MSG(test, hixl_fake_calls[i], c->calls[i], "calls of fake %d", i);
}

/* the module's transports: the same-host copy is asked first, RDMA takes the rest */
static void hixl_xport_module(struct kunit *test)
{
	KUNIT_EXPECT_NOT_NULL(test, hixl_xport_local.plan);
	KUNIT_EXPECT_NOT_NULL(test, hixl_xport_local.run);
	KUNIT_EXPECT_TRUE(test, hixl_xport_local.submit == hixl_xprep_process);
	KUNIT_EXPECT_NOT_NULL(test, hixl_xport_rdma.plan);
	KUNIT_EXPECT_NOT_NULL(test, hixl_xport_rdma.submit);
	KUNIT_EXPECT_NOT_NULL(test, hixl_xport_rdma.run);	/* staged descriptors */
}

static struct kunit_case hixl_xport_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_xport_choice, hixl_xport_gen_params),
	KUNIT_CASE(hixl_xport_module),
	{}
};

static struct kunit_case hixl_xpath_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_xpath_choice, hixl_xpath_gen_params),
	{}
};

static struct kunit_suite hixl_xport_suite = {
	.name = "hixl_xport",
	.test_cases = hixl_xport_test_cases,
};

static struct kunit_suite hixl_xpath_suite = {
	.name = "hixl_xpath",
	.test_cases = hixl_xpath_test_cases,
};

kunit_test_suites(&hixl_xport_suite, &hixl_xpath_suite);
