// SPDX-License-Identifier: GPL-2.0
/*
 * auth_kunit.c - KUnit suite hixl_auth: the allowed-peers entries SETUP
 * takes (hixl_auth_prefix_valid()) and the prefix matcher the listener
 * checks every connection request with (hixl_auth_prefix_match()), at the
 * edges: /0, /32, /128, a prefix that ends inside a byte, IPv4-mapped IPv6
 * sources, families that do not mix.
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>

#include "auth.h"

static struct hixl_peer_prefix hixl_pfx(const char *addr, u8 len)
{
	struct hixl_peer_prefix p = { .prefix_len = len };

	if (strchr(addr, ':')) {
		p.family = AF_INET6;
		in6_pton(addr, -1, p.addr, -1, NULL);
	} else {
		p.family = AF_INET;
		in4_pton(addr, -1, p.addr, -1, NULL);
	}
	return p;
}

static struct sockaddr_storage hixl_sa(const char *addr)
{
	struct sockaddr_storage ss = {};

	if (strchr(addr, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		in6_pton(addr, -1, s6->sin6_addr.s6_addr, -1, NULL);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		in4_pton(addr, -1, (u8 *)&s4->sin_addr, -1, NULL);
	}
	return ss;
}

struct hixl_match_case {
	const char *prefix;
	u8 len;
	const char *peer;
	bool match;
};

static const struct hixl_match_case hixl_match_cases[] = {
	{ "10.77.0.1", 32, "10.77.0.1", true },
	{ "10.77.0.1", 32, "10.77.0.2", false },
	{ "10.77.0.0", 24, "10.77.0.255", true },
	{ "10.77.0.0", 24, "10.77.1.0", false },
	{ "10.77.0.0", 23, "10.77.1.7", true },		/* ends inside the third byte */
	{ "10.77.0.0", 23, "10.77.2.7", false },
	{ "10.64.0.0", 10, "10.127.255.255", true },
	{ "10.64.0.0", 10, "10.128.0.0", false },
	{ "0.0.0.0", 0, "192.0.2.1", true },		/* /0: every IPv4 peer */
	{ "0.0.0.0", 0, "fd77::1", false },		/* ... but no IPv6 one */
	{ "128.0.0.0", 1, "127.255.255.255", false },
	{ "128.0.0.0", 1, "128.0.0.0", true },
	{ "10.77.0.1", 32, "::ffff:10.77.0.1", true },	/* IPv4-mapped source */
	{ "10.77.0.0", 16, "::ffff:10.78.0.1", false },
	{ "10.77.0.1", 32, "::10.77.0.1", false },	/* IPv4-compatible: not mapped */
	{ "fd77::1", 128, "fd77::1", true },
	{ "fd77::1", 128, "fd77::2", false },
	{ "fd77::", 64, "fd77::ffff:ffff:ffff:ffff", true },
	{ "fd77::", 64, "fd77:0:0:1::", false },
	{ "fd77::", 61, "fd77:0:0:7::1", true },	/* ends inside the eighth byte */
	{ "fd77::", 61, "fd77:0:0:8::1", false },
	{ "::", 0, "fe80::1", true },			/* /0: every IPv6 peer */
	{ "::", 0, "10.77.0.1", false },		/* ... but no IPv4 one */
	{ "::ffff:10.77.0.0", 112, "10.77.0.9", false },	/* v6 entry, v4 source */
	{ "::ffff:10.77.0.0", 120, "::ffff:10.77.0.9", true },
};

static void hixl_match_desc(const struct hixl_match_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s/%u %s %s", c->prefix, c->len,
		 c->match ? "has" : "lacks", c->peer);
}

KUNIT_ARRAY_PARAM(hixl_match, hixl_match_cases, hixl_match_desc);

static void hixl_auth_match(struct kunit *test)
{
	const struct hixl_match_case *c = test->param_value;
	struct hixl_peer_prefix p = hixl_pfx(c->prefix, c->len);
	struct sockaddr_storage ss = hixl_sa(c->peer);

	KUNIT_ASSERT_TRUE(test, hixl_auth_prefix_valid(&p));
	KUNIT_EXPECT_EQ(test, hixl_auth_prefix_match(&p, (struct sockaddr *)&ss), c->match);
}

static void hixl_auth_valid(struct kunit *test)
{
	struct hixl_peer_prefix p;

	p = hixl_pfx("10.0.0.0", 8);
	KUNIT_EXPECT_TRUE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("10.1.2.3", 8);			/* host bits set */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("10.77.0.1", 32);
	KUNIT_EXPECT_TRUE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("10.77.0.1", 33);			/* longer than IPv4 */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("10.77.0.1", 31);			/* the last bit is a host bit */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("0.0.0.0", 0);
	KUNIT_EXPECT_TRUE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("0.0.0.1", 0);
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("10.77.0.1", 32);
	p.addr[4] = 1;					/* IPv4 with bytes past the fourth */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::1", 128);
	KUNIT_EXPECT_TRUE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::1", 129);
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::1", 64);
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77:0:0:4::", 61);		/* bit 61 set, past /61 */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::", 64);
	p.reserved0 = 1;
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::", 64);
	p.reserved1 = 1;
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
	p = hixl_pfx("fd77::", 64);
	p.family = 1;					/* AF_UNIX */
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_valid(&p));
}

/* A source of another family never matches, whatever the entry. */
static void hixl_auth_other_family(struct kunit *test)
{
	struct hixl_peer_prefix p4 = hixl_pfx("0.0.0.0", 0), p6 = hixl_pfx("::", 0);
	struct sockaddr_storage ss = { .ss_family = AF_UNIX };

	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_match(&p4, (struct sockaddr *)&ss));
	KUNIT_EXPECT_FALSE(test, hixl_auth_prefix_match(&p6, (struct sockaddr *)&ss));
}

static struct kunit_case hixl_auth_cases[] = {
	KUNIT_CASE_PARAM(hixl_auth_match, hixl_match_gen_params),
	KUNIT_CASE(hixl_auth_valid),
	KUNIT_CASE(hixl_auth_other_family),
	{}
};

static struct kunit_suite hixl_auth_suite = {
	.name = "hixl_auth",
	.test_cases = hixl_auth_cases,
};

kunit_test_suite(hixl_auth_suite);
