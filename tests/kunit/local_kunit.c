// SPDX-License-Identifier: GPL-2.0
/*
 * local_kunit.c - KUnit suite hixl_local: the same-host pairing decision
 * (hixl_local_match()), one case per rule of docs/protocol.md's "Same-host
 * links": the right offer pairs; another kernel's boot id, a forged or
 * replayed token, an offer that paired already, an offer whose CONNECT
 * went to another engine (a token stolen by a remote peer it connected
 * to, replayed at an engine of ours), a claimed name that is not the
 * offering engine's, and a closing engine do not.
 */
#include <kunit/test.h>
#include <linux/socket.h>

#include "local.h"

static const u8 boot[HIXL_LOCAL_ID_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 other_boot[HIXL_LOCAL_ID_LEN] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17 };
static const u8 tok[HIXL_LOCAL_ID_LEN] = { 0xaa, 0xbb, [15] = 0x01 };
static const u8 tok2[HIXL_LOCAL_ID_LEN] = { 0xaa, 0xbb, [15] = 0x02 };

/* 10.77.0.LAST:PORT */
#define NAME(last, p)	{ .family = AF_INET, .port = (p), .addr = { 10, 77, 0, (last) } }

struct hixl_local_case {
	const char *desc;
	const u8 *claim_boot;
	const u8 *claim_token;
	struct hixl_sockaddr target;	/* the offer's CONNECT target */
	struct hixl_sockaddr self;	/* the offering engine */
	struct hixl_sockaddr claimed;	/* the name in the acceptor's received HELLO */
	struct hixl_sockaddr acceptor;
	bool paired;
	bool alive;
	int want;
};

#define A_ENG	NAME(1, 24200)
#define B_ENG	NAME(1, 24201)
#define R_ENG	NAME(9, 30000)		/* a remote peer */

static const struct hixl_local_case hixl_local_cases[] = {
	{ "the offer's own acceptor pairs", boot, tok, B_ENG, A_ENG, A_ENG, B_ENG, false, true, 0 },
	{ "another kernel's boot id", other_boot, tok, B_ENG, A_ENG, A_ENG, B_ENG, false, true,
	  -ENODEV },
	{ "a forged token", boot, tok2, B_ENG, A_ENG, A_ENG, B_ENG, false, true, -ENOKEY },
	{ "a replayed token (paired already)", boot, tok, B_ENG, A_ENG, A_ENG, B_ENG, true, true,
	  -EALREADY },
	{ "stolen: the offer went to a remote peer, replayed here", boot, tok, R_ENG, A_ENG, R_ENG,
	  B_ENG, false, true, -EXDEV },
	{ "stolen, the thief claiming the offering engine's name", boot, tok, R_ENG, A_ENG, A_ENG,
	  B_ENG, false, true, -EXDEV },
	{ "the right acceptor, another engine's claimed name", boot, tok, B_ENG, A_ENG, R_ENG,
	  B_ENG, false, true, -EXDEV },
	{ "the target's port differs", boot, tok, NAME(1, 24202), A_ENG, A_ENG, B_ENG, false,
	  true, -EXDEV },
	{ "the offering engine closes", boot, tok, B_ENG, A_ENG, A_ENG, B_ENG, false, false,
	  -ESHUTDOWN },
};

static void hixl_local_case_desc(const struct hixl_local_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_local, hixl_local_cases, hixl_local_case_desc);

static void hixl_local_match_case(struct kunit *test)
{
	const struct hixl_local_case *c = test->param_value;
	struct hixl_local_offer o = {
		.token = tok, .target = &c->target, .self = &c->self,
		.paired = c->paired, .alive = c->alive,
	};
	struct hixl_local_claim cl = {
		.boot_id = c->claim_boot, .token = c->claim_token, .claimed = &c->claimed,
		.acceptor = &c->acceptor,
	};

	KUNIT_EXPECT_EQ(test, hixl_local_match(&o, &cl, boot), c->want);
}

static struct kunit_case hixl_local_test_cases[] = {
	KUNIT_CASE_PARAM(hixl_local_match_case, hixl_local_gen_params),
	{}
};

static struct kunit_suite hixl_local_suite = {
	.name = "hixl_local",
	.test_cases = hixl_local_test_cases,
};

kunit_test_suite(hixl_local_suite);
