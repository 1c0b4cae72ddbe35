// SPDX-License-Identifier: GPL-2.0
/*
 * xpath_kunit.c - KUnit suite hixl_xpath: the one choice of how a planned
 * TRANSFER runs (hixl_xpath_choose(), xfer.c), which the ioctl and
 * io_uring both follow: every combination of what planning found.
 */
#include <kunit/test.h>

#include "xprep.h"

struct hixl_xpath_case {
	const char *name;
	bool local;
	u32 nstaged;
	bool rails_only;
	bool rails;
	enum hixl_xpath want;
};

static const struct hixl_xpath_case hixl_xpath_cases[] = {
	{ "direct pieces, one rail", false, 0, false, false, HIXL_XPATH_DIRECT },
	{ "direct pieces, rails", false, 0, false, true, HIXL_XPATH_STRIPED },
	{ "staged, one rail", false, 3, false, false, HIXL_XPATH_STAGED },
	/* hixl_xprep_path() never asks for rails with staged descriptors;
	 * were it to, staging still keeps the one-link path */
	{ "staged, rails", false, 3, false, true, HIXL_XPATH_STAGED },
	{ "same-host copy", true, 0, false, false, HIXL_XPATH_LOCAL },
	{ "same-host copy, rails", true, 0, false, true, HIXL_XPATH_LOCAL },
	{ "broken primary, READY rail", false, 0, true, false, HIXL_XPATH_STRIPED },
	{ "broken primary, rails", false, 0, true, true, HIXL_XPATH_STRIPED },
};

static void hixl_xpath_case_desc(const struct hixl_xpath_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_xpath, hixl_xpath_cases, hixl_xpath_case_desc);

static void hixl_xpath_choice(struct kunit *test)
{
	const struct hixl_xpath_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_xpath_choose(c->local, c->nstaged, c->rails_only, c->rails),
			c->want);
}

static struct kunit_case hixl_xpath_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_xpath_choice, hixl_xpath_gen_params),
	{}
};

static struct kunit_suite hixl_xpath_suite = {
	.name = "hixl_xpath",
	.test_cases = hixl_xpath_test_cases,
};

kunit_test_suites(&hixl_xpath_suite);
