// SPDX-License-Identifier: GPL-2.0
/*
 * keepalive_kunit.c - KUnit suite hixl_keepalive: the keep-alive tick's
 * decision (hixl_ka_decide()) at its edges - off, an outstanding
 * keep-alive, activity just inside and just past the interval, jiffies
 * wrapping - and the link error of each failed completion
 * (hixl_wc_errno()).
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include "link.h"
#include "keepalive.h"

static void hixl_ka_off_looks_again_in_a_second(struct kunit *test)
{
	unsigned long next = 0;

	KUNIT_EXPECT_EQ(test, hixl_ka_decide(1000, 0, 0, false, &next), HIXL_KA_OFF);
	KUNIT_EXPECT_EQ(test, next, (unsigned long)HZ);
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(1000, 0, 0, true, &next), HIXL_KA_OFF);
}

static void hixl_ka_outstanding_waits(struct kunit *test)
{
	unsigned long next = 0;

	/* idle for ages, but one is on the wire: the QP's retries decide */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(100000, 0, 250, true, &next), HIXL_KA_WAIT);
	KUNIT_EXPECT_EQ(test, next, 250UL);
}

static void hixl_ka_idle_edges(struct kunit *test)
{
	unsigned long next = 0;

	/* active 249 jiffies ago: wait the 1 left */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(1249, 1000, 250, false, &next), HIXL_KA_WAIT);
	KUNIT_EXPECT_EQ(test, next, 1UL);
	/* active just now: wait a whole interval */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(1000, 1000, 250, false, &next), HIXL_KA_WAIT);
	KUNIT_EXPECT_EQ(test, next, 250UL);
	/* exactly one interval idle: post, tick again an interval later */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(1250, 1000, 250, false, &next), HIXL_KA_POST);
	KUNIT_EXPECT_EQ(test, next, 250UL);
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(5000, 1000, 250, false, &next), HIXL_KA_POST);
}

static void hixl_ka_jiffies_wrap(struct kunit *test)
{
	unsigned long last = ULONG_MAX - 100, next = 0;

	/* 150 jiffies after last, across the wrap: 100 left */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(last + 150, last, 250, false, &next), HIXL_KA_WAIT);
	KUNIT_EXPECT_EQ(test, next, 100UL);
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(last + 250, last, 250, false, &next), HIXL_KA_POST);
	/* a sign of life stamped after the tick read jiffies: no post */
	KUNIT_EXPECT_EQ(test, hixl_ka_decide(last - 1, last, 250, false, &next), HIXL_KA_WAIT);
	KUNIT_EXPECT_GE(test, next, 1UL);
}

static void hixl_ka_wc_errors(struct kunit *test)
{
	struct ib_wc wc = {};

	wc.status = IB_WC_RETRY_EXC_ERR;
	KUNIT_EXPECT_EQ(test, hixl_wc_errno(&wc), -EHOSTDOWN);
	wc.status = IB_WC_WR_FLUSH_ERR;
	KUNIT_EXPECT_EQ(test, hixl_wc_errno(&wc), -ECONNRESET);
	wc.status = IB_WC_REM_ACCESS_ERR;
	KUNIT_EXPECT_EQ(test, hixl_wc_errno(&wc), -EIO);
	wc.status = IB_WC_RNR_RETRY_EXC_ERR;	/* the peer answers, without buffers */
	KUNIT_EXPECT_EQ(test, hixl_wc_errno(&wc), -EIO);
}

static struct kunit_case hixl_keepalive_cases[] = {
	KUNIT_CASE(hixl_ka_off_looks_again_in_a_second),
	KUNIT_CASE(hixl_ka_outstanding_waits),
	KUNIT_CASE(hixl_ka_idle_edges),
	KUNIT_CASE(hixl_ka_jiffies_wrap),
	KUNIT_CASE(hixl_ka_wc_errors),
	{}
};

static struct kunit_suite hixl_keepalive_suite = {
	.name = "hixl_keepalive",
	.test_cases = hixl_keepalive_cases,
};

kunit_test_suite(hixl_keepalive_suite);
