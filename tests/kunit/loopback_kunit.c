// SPDX-License-Identifier: GPL-2.0
/*
 * loopback_kunit.c - KUnit suite hixl_loopback: which names are loopback
 * names (hixl_loop_addr()) and which CONNECTs may happen at all
 * (hixl_loop_route()): a loopback engine reaches only loopback names, an
 * engine with a device none.
 */
#include <kunit/test.h>
#include <linux/socket.h>

#include "loopback.h"
#include "engine.h"

struct hixl_loop_case {
	const char *desc;
	struct hixl_sockaddr name;
	bool loop;
};

#define V4(a, b, c, d)	{ .family = AF_INET, .port = 24400, .addr = { a, b, c, d } }
#define V6(last)	{ .family = AF_INET6, .port = 24400, .addr = { [15] = (last) } }
#define V6_MAPPED_LO	{ .family = AF_INET6, .port = 24400, \
			  .addr = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 } }

static const struct hixl_loop_case hixl_loop_cases[] = {
	{ "127.0.0.1", V4(127, 0, 0, 1), true },
	{ "127.1.2.3 (all of 127/8)", V4(127, 1, 2, 3), true },
	{ "::1", V6(1), true },
	{ "10.77.0.1", V4(10, 77, 0, 1), false },
	{ "126.255.255.255", V4(126, 255, 255, 255), false },
	{ "128.0.0.1", V4(128, 0, 0, 1), false },
	{ "0.0.0.0", V4(0, 0, 0, 0), false },
	{ ":: (any)", V6(0), false },
	{ "::2", V6(2), false },
	{ "::ffff:127.0.0.1 (mapped: not a loopback name)", V6_MAPPED_LO, false },
	{ "family 0 with 127 first", { .family = 0, .addr = { 127 } }, false },
};

static void hixl_loop_case_desc(const struct hixl_loop_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_loop, hixl_loop_cases, hixl_loop_case_desc);

static void hixl_loop_addr_case(struct kunit *test)
{
	const struct hixl_loop_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, hixl_loop_addr(&c->name), c->loop);
	/* a loopback engine reaches exactly the loopback names ... */
	KUNIT_EXPECT_EQ(test, hixl_loop_route(true, &c->name), c->loop ? 0 : -ENETUNREACH);
	/* ... and a device-bound engine exactly the others */
	KUNIT_EXPECT_EQ(test, hixl_loop_route(false, &c->name), c->loop ? -ENETUNREACH : 0);
}

static struct kunit_case hixl_loop_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_loop_addr_case, hixl_loop_gen_params),
	{}
};

static struct kunit_suite hixl_loop_suite = {
	.name = "hixl_loopback",
	.test_cases = hixl_loop_test_cases,
};

kunit_test_suite(hixl_loop_suite);
