// SPDX-License-Identifier: GPL-2.0
/*
 * wire-raillink.c - the wire fuzzer's raillink cases: rail connections to
 * the victim's rail 1 listener with rail blocks ("XHLR") good, forged,
 * foreign, stale or replayed (what they are and how they are judged:
 * wire-rails.c's header, tests/fuzz/README.md "Rails").
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "harness.h"
#include "util.h"
#include "wire-fuzz.h"

enum lv {	/* a rail connection */
	LV_GOOD, LV_REPLAY,	/* accepted */
	LV_FORGED, LV_OWN_TOKEN, LV_OTHER_LINK, LV_STALE, LV_INDEX, LV_BLK_BAD, LV_NO_BLK,
	LV_RAILS_BLK, LV_NAME_LEGIT, LV_SRC, LV_ON_PRIMARY, NLV
};

static const char *const lv_name[NLV] = {
	"good", "replay", "forged", "own_token", "other_link", "stale", "index", "blk_bad",
	"no_blk", "rails_blk", "name_legit", "src", "on_primary",
};

static unsigned long lv_runs[NLV];
unsigned long rail_conns;
static uint8_t stale_token[HIXL_WIRE_RAIL_TOKEN];	/* the victim's, of a closed primary */
static bool have_stale;

/* ---- rail connections -------------------------------------------------------------- */

/* A rail connection to the victim's rail 1 listener; 0 or -errno. */
static int rail_dial(struct hp *r)
{
	int ret = hp_dial_to(r, RAIL1_IP, VPORT, 0, 0, 0);

	rail_conns++;
	if (!ret)
		ret = hp_wait_established(r, 10000);
	if (ret)
		hp_close(r);
	return ret;
}

/* A rail link HELLO naming HX_IP:@port with a rail block (rail @i, @token); its length. */
static uint32_t rail_hello(uint8_t *b, uint16_t port, uint32_t i, const uint8_t *token)
{
	uint32_t len = hello_head(b, port, NULL);
	struct hixl_wire_hello_rail *y = (void *)(b + len);

	memset(y, 0, sizeof(*y));
	y->magic = htole32(HIXL_WIRE_RAIL_MAGIC);
	y->version = htole16(HIXL_WIRE_RAIL_VERSION);
	y->len = htole16(sizeof(*y));
	y->rail = htole32(i);
	memcpy(y->token, token, sizeof(y->token));
	return len + sizeof(*y);
}

/*
 * A second primary of the hostile peer, named HX_IP:@port, with a good
 * rails block; its victim's token in @vtok.  0 or -errno.
 */
static int primary_open(struct hp *q, uint16_t port, const char *rail1, uint8_t *vtok)
{
	struct hixl_wire_hello_rails *x;
	const struct hixl_wire_hello_rails *vx;
	uint32_t len;
	int ret = hp_connect(q, VPORT, 0, 64 * KiB);

	if (ret) {
		hp_close(q);
		return ret;
	}
	nconn++;
	len = hello_head(hbuf, port, NULL);
	x = (void *)(hbuf + len);
	rails_fill(x, 2, rail1, NULL);
	ret = send_hello(q, len + sizeof(*x));
	if (!ret)
		ret = hp_table_end(q);
	if (!ret)
		ret = wait_table_end(q, 10000);
	if (!ret)	/* accepted: our REGION acknowledged */
		ret = hp_region(q);
	if (!ret && !wait_acked(q, 1, WAIT_MS))
		ret = -ECONNRESET;
	vx = ret ? NULL : rails_blk_of(q);
	if (!vx) {
		hp_close(q);
		return ret ? ret : -EPROTO;
	}
	memcpy(vtok, vx->token, HIXL_WIRE_RAIL_TOKEN);
	return 0;
}

/*
 * A rail connection whose HELLO the rule refuses: the victim must close
 * it; judged by the victim (as expect_primary_closed()): @r disconnected,
 * or debugfs lists no CONNECTING or READY hostile rail link beyond the
 * @keep the case holds.
 */
static void expect_rail_closed(struct hp *r, int send_ret, int keep, const char *what)
{
	struct timespec t0;
	bool gone = false;
	int live, n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!gone && hx_ms_since(&t0) < WAIT_MS) {
		gone = r->disconnected || hp_pump(r, 20) < 0;
		n = raillinks_hostile(&live);
		if (!gone && n >= 0)
			gone = live <= keep;
		if (!gone)
			usleep(50 * 1000);
	}
	if (!gone)
		violation("%s: the victim kept the rail connection (our send: %s)", what,
			  send_ret ? strerror(-send_ret) : "completed");
	else
		n_closed_ok++;
	hp_close(r);
}

/* The rail connection @r (HELLO sent) finishes its exchange and is READY on the victim. */
static bool expect_rail_ready(struct hp *r, const char *what)
{
	struct timespec t0;
	int e = 0, c = 0, rd = 0, f = 0, ret = hp_table_end(r);

	if (!ret)
		ret = wait_table_end(r, 10000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ret && hx_ms_since(&t0) < WAIT_MS) {
		if (victim_rails(p_port, &e, &c, &rd, &f) || rd == 1)
			break;
		hp_pump(r, 50);
	}
	if (ret || rd != 1 || e != 1 || c != 1) {
		violation("%s: %s; the victim's rail entries of our link: %d, %d connected, "
			  "%d READY (want 1 each)", what, ret ? strerror(-ret) : "exchange done",
			  e, c, rd);
		return false;
	}
	n_alive_ok++;
	return true;
}

void case_raillink(void)
{
	enum lv v = (enum lv)rnd(NLV);
	uint8_t mytok[HIXL_WIRE_RAIL_TOKEN], vtok[HIXL_WIRE_RAIL_TOKEN], tok[HIXL_WIRE_RAIL_TOKEN];
	const struct hixl_wire_hello_rails *vx;
	struct hixl_wire_hello_rail *y;
	struct hp r1, r2, q;
	bool q_up = false;
	uint32_t len;
	int ret, live;

	lv_runs[v]++;
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	/* our primary: a good rails block, rail 1 = the address we connect from */
	if (peer_connect())
		return;
	len = hello_head(hbuf, p_port, &P);
	rails_fill((void *)(hbuf + len), 2, v == LV_SRC ? "10.78.0.77" : RAIL1_IP, mytok);
	if (primary_accept(len + sizeof(struct hixl_wire_hello_rails), "primary for a rail link"))
		return;
	vx = rails_blk_of(&P);
	if (!vx) {
		violation("the victim's HELLO has no rails block (it has two rails)");
		peer_down();
		return;
	}
	memcpy(vtok, vx->token, sizeof(vtok));
	if (le32toh(vx->nr_rails) != 2 || le16toh(vx->rail[0].port) != VPORT)
		violation("the victim's rails block: nr_rails %u, rail 1 port %u (want 2, %u)",
			  le32toh(vx->nr_rails), le16toh(vx->rail[0].port), VPORT);

	if (v == LV_ON_PRIMARY) {	/* the good rail block, on the primary listener */
		uint16_t port = chance(50) ? p_port : RPORT + rnd(RPORT_N);

		ret = hp_connect(&r1, VPORT, 0, 0);
		nconn++;
		if (!ret) {
			len = rail_hello(hbuf, port, 1, vtok);
			expect_primary_closed(&r1, port, port == p_port, send_hello(&r1, len),
					      "a rail block on the primary listener");
		}
		hp_close(&r1);
		check_rails(p_port, 0, lv_name[v]);
		goto out;
	}

	ret = rail_dial(&r1);
	if (ret) {
		violation("the victim's rail 1 listener refused us: %s", strerror(-ret));
		goto out;
	}
	memcpy(tok, vtok, sizeof(tok));
	len = 0;
	switch (v) {
	case LV_GOOD:
	case LV_REPLAY:
	case LV_SRC:
		break;
	case LV_FORGED:
		do
			rnd_fill(tok, sizeof(tok));
		while (!memcmp(tok, vtok, sizeof(tok)));
		break;
	case LV_OWN_TOKEN:
		memcpy(tok, mytok, sizeof(tok));
		break;
	case LV_OTHER_LINK:	/* a live second primary's token, in our primary's name */
		if (primary_open(&q, RPORT + rnd(RPORT_N), RAIL1_IP, tok)) {
			violation("a second hostile primary with rails was not accepted");
			hp_close(&r1);
			goto out;
		}
		q_up = true;
		break;
	case LV_STALE:		/* the token of a primary of ours that is gone */
		if (have_stale)
			memcpy(tok, stale_token, sizeof(tok));
		else
			tok[rnd(sizeof(tok))] ^= 1 + rnd(255);
		break;
	case LV_INDEX: {
		static const uint32_t idx[] = { 0, 2, 3, 7, 8, 9, 0x80000001, UINT32_MAX };

		len = rail_hello(hbuf, p_port, idx[rnd(8)], tok);
		break;
	}
	case LV_BLK_BAD:
		len = rail_hello(hbuf, p_port, 1, tok);
		y = (void *)(hbuf + sizeof(struct hixl_wire_hello));
		switch (rnd(3)) {
		case 0:
			y->version = htole16(chance(50) ? 0 : 2 + rnd(0xfffd));
			break;
		case 1: {
			static const uint16_t lens[] = { 8, 16, 31, 33, 40, 64 };

			y->len = htole16(lens[rnd(6)]);
			len += 32;	/* zeros after it: a longer block fits */
			break;
		}
		default:
			y->reserved = htole32(1U << rnd(32));
			break;
		}
		break;
	case LV_NO_BLK:
		len = hello_head(hbuf, p_port, NULL);
		break;
	case LV_RAILS_BLK:
		len = hello_head(hbuf, p_port, NULL);
		rails_fill((void *)(hbuf + len), 2, RAIL1_IP, NULL);
		memcpy(((struct hixl_wire_hello_rails *)(hbuf + len))->token, vtok, sizeof(vtok));
		len += sizeof(struct hixl_wire_hello_rails);
		break;
	case LV_NAME_LEGIT:	/* the legitimate engine's name, with our token */
		len = rail_hello(hbuf, LPORT, 1, tok);
		break;
	default:
		break;
	}
	if (!len)
		len = rail_hello(hbuf, p_port, 1, tok);
	ret = send_hello(&r1, len);

	if (v == LV_GOOD || v == LV_REPLAY) {
		if (ret || !expect_rail_ready(&r1, "a rail link with the victim's token")) {
			hp_close(&r1);
			goto out;
		}
		check_rails(p_port, 1, "a good rail link");
		if (v == LV_REPLAY) {	/* the same again: it replaces the first */
			if (rail_dial(&r2)) {
				violation("the victim's rail 1 listener refused a replay");
				hp_close(&r1);
				goto out;
			}
			ret = send_hello(&r2, len);
			if (ret || !expect_rail_ready(&r2, "a replayed rail link")) {
				hp_close(&r2);
				hp_close(&r1);
				goto out;
			}
			/* the first one is replaced: closed by the victim */
			expect_rail_closed(&r1, 0, 1, "the rail link a replay replaced");
			check_rails(p_port, 1, "a replayed rail link");
			/* and the rail is the second's: closing the first changed nothing */
			usleep(1500 * 1000);
			{
				int e, c, rd, f;

				if (victim_rails(p_port, &e, &c, &rd, &f) || rd != 1)
					violation("replay: with the first rail connection closed "
						  "the victim's rail 1 has %d READY (want 1: the "
						  "second)", rd);
			}
			hp_close(&r2);
		} else {
			hp_close(&r1);
		}
		goto out;
	}
	expect_rail_closed(&r1, ret, 0, lv_name[v]);
	check_rails(p_port, 0, lv_name[v]);
	if (q_up)
		hp_close(&q);
out:
	memcpy(stale_token, vtok, sizeof(vtok));
	have_stale = true;
	peer_down();
	/* a rail link lives no longer than its primary */
	{
		struct timespec t0;
		int n = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (hx_ms_since(&t0) < GONE_MS && (n = raillinks_hostile(&live)) > 0)
			usleep(100 * 1000);
		if (n > 0)
			violation("%d hostile rail links still listed %d ms after their primary "
				  "closed", n, GONE_MS);
	}
}

void raillink_summary(void)
{
	int k;

	printf("raillink variants:");
	for (k = 0; k < NLV; k++)
		printf(" %s=%lu", lv_name[k], lv_runs[k]);
	printf("\n");
}
