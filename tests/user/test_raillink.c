// SPDX-License-Identifier: GPL-2.0
/*
 * test_raillink.c - rail links (kmod/raillink.c,
 * docs/protocol.md "Rails").
 *
 * The wire, against a wire peer (peer.c) on a two-rail engine:
 *   raillink_hello_rails   the engine's HELLO carries its rails block: two
 *                          rails, rail 1 = 10.78.0.1 with the engine's port,
 *                          a non-zero token
 *   raillink_hello_bad     every malformed rails block (count, length,
 *                          token, family, reserved, duplicates, the engine's
 *                          own address, entries past the count, two blocks,
 *                          a rail block on a primary, a block past the
 *                          message) closes the link; a good block, an
 *                          unknown block and trailing bytes do not
 *   raillink_rail_forged   a connection to the engine's rail address that
 *                          is no rail link of a primary (no rail block, a
 *                          wrong token) is not kept
 * Two two-rail engines (need HIXL_FEAT_RAIL_LINKS, rails with devices):
 *   raillink_up            after CONNECT rail 1 is READY on both sides
 *                          (debugfs hixl/raillinks), LINK_STATS and ENGINES
 *                          show one link, a REG_MEM after CONNECT reaches
 *                          the rail link's table and DEREG_MEM withdraws
 *                          it, a transfer works, DISCONNECT ends the rail
 *                          links and close leaves no QP behind
 *   raillink_port_down     veth2 down: rail 1 breaks within the keep-alive
 *                          bound, rail 0 moves bytes; up: rail 1 re-made
 *   raillink_one_rail_peer a two-rail engine and a one-rail one: no rail
 *                          link, transfers work
 *   raillink_secret        engine secrets on both: rail links come up
 *                          (authenticated as primaries are)
 *   raillink_device_readd  `rdma link delete rxe1`: the rail links go, rail
 *                          0 moves bytes; `rdma link add rxe1`: both
 *                          engines revive rail 1 and it is re-made
 *
 * Engines on 10.77.0.1 (rxe0) with rail 1 on 10.78.0.1 (rxe1 on veth2);
 * ports 24820-24859.  veth2 is always brought back up before a test ends.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "peer.h"
#include "rail_util.h"
#include "tests.h"
#include "util.h"

#define RAILLINKS	"/sys/kernel/debug/hixl/raillinks"
#define KA_BOUND_MS	30000	/* keep-alive interval + the RC retries, with TCG slack */

/* An engine on HX_IP:port (0: client only) with rail 1 (@rails) and maybe a secret. */
static int engine_rails(uint16_t port, bool rails, const char *secret)
{
	int fd = open_dev();
	long ret;

	if (fd < 0)
		return fd;
	if (!(ru_features(fd) & HIXL_FEAT_RAILS)) {
		close(fd);
		SKIP("the module has no HIXL_FEAT_RAILS");
	}
	/* never the same-host copy */
	ret = ru_setup(fd, port, rails, HIXL_TRANSPORT_RDMA, secret);
	if (ret == -ENOPKG) {
		close(fd);
		SKIP("the kernel has no hmac(sha256)");
	}
	if (ret) {
		printf("#   SETUP %s:%u: %s\n", HX_IP, port, strerror((int)-ret));
		close(fd);
		return (int)ret;
	}
	return fd;
}

/* debugfs hixl/raillinks: lines of engine @id (any: ~0) in state @st ("ready"). */
static int raillinks(uint64_t id, const char *st, int *regions)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(RAILLINKS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long eng;
		char peer[128], side[16], state[16];
		unsigned int rail;
		int err, reg;

		if (sscanf(line, "%llu %127s %u %15s %15s %d %d", &eng, peer, &rail, side, state,
			   &err, &reg) != 7)
			continue;
		if ((id != ~0ULL && eng != id) || (st && strcmp(state, st)))
			continue;
		n++;
		if (regions)
			*regions = reg;
	}
	fclose(f);
	return n;
}

/* ---- the wire ---------------------------------------------------------------------- */

void test_raillink_hello_rails(void);
void test_raillink_hello_bad(void);
void test_raillink_rail_forged(void);

/* The rails block of the engine's HELLO that @p received, or NULL. */
static const struct hixl_wire_hello_rails *engine_rails_blk(const struct hp *p)
{
	uint32_t off = sizeof(struct hixl_wire_hello);

	while (p->hello_len - off >= sizeof(struct hixl_wire_hello_blk)) {
		const struct hixl_wire_hello_blk *b = (const void *)(p->hello_raw + off);
		uint32_t len = le16toh(b->len);

		if (len < sizeof(*b) || len > p->hello_len - off)
			return NULL;
		if (le32toh(b->magic) == HIXL_WIRE_RAILS_MAGIC)
			return (const void *)b;
		off += len;
	}
	return NULL;
}

void test_raillink_hello_rails(void)
{
	const struct hixl_wire_hello_rails *x;
	struct hixl_sockaddr want = ru_addr(RAIL1_IP, 24820);
	struct hp p;
	uint8_t zero[HIXL_WIRE_RAIL_TOKEN] = { 0 };
	int v;

	ru_need_rxe();
	v = engine_rails(24820, true, NULL);
	REQUIRE(v >= 0);
	REQUIRE(hp_connect(&p, 24820, 0, 0) == 0);
	REQUIRE(hp_handshake(&p, 24850, 0) == 0);
	CHECK(p.hello_seen);
	x = engine_rails_blk(&p);
	CHECK(x != NULL);
	if (x) {
		CHECK_EQ(le16toh(x->version), HIXL_WIRE_RAILS_VERSION);
		CHECK_EQ(le16toh(x->len), sizeof(*x));
		CHECK_EQ(le32toh(x->nr_rails), 2);
		CHECK(memcmp(x->token, zero, sizeof(zero)) != 0);
		CHECK_EQ(le16toh(x->rail[0].family), AF_INET);
		CHECK_EQ(le16toh(x->rail[0].port), 24820);	/* rail 0's port */
		CHECK_EQ(memcmp(x->rail[0].addr, want.addr, 4), 0);
		CHECK_EQ(le16toh(x->rail[1].family), 0);	/* nothing past nr_rails */
	}
	CHECK(!hp_wait_disconnect(&p, 500));	/* a peer without rails is fine */
	hp_close(&p);
	close(v);
}

enum bad_kind {
	BAD_NONE, BAD_NR0, BAD_NR9, BAD_LEN, BAD_TOKEN0, BAD_FAMILY, BAD_RESERVED, BAD_SELF,
	BAD_DUP, BAD_PAST_NR, BAD_TWICE, BAD_RAIL_ON_PRIMARY, BAD_BLK_PAST_MSG,
	OK_UNKNOWN_BLK, OK_TRAILING, BAD_MAX
};

static const char *const bad_names[BAD_MAX] = {
	"a good block", "nr_rails 0", "nr_rails 9", "len short by 8", "a zero token",
	"rail 1 of AF_INET6", "reserved set", "rail 1 = the engine's own address",
	"rails 1 and 2 one address", "rail 3 set past nr_rails 3", "two rails blocks",
	"a rail block on a primary", "a block longer than the message",
	"an unknown block", "trailing bytes",
};

/* Build the peer's HELLO with a rails block broken as @k says; its length. */
static uint32_t bad_hello(struct hp *p, enum bad_kind k, uint16_t my_port)
{
	struct hixl_wire_hello *h = (void *)p->tx;
	struct hixl_wire_hello_rails *x = (void *)(h + 1);
	uint32_t len = sizeof(*h) + sizeof(*x);
	struct hixl_sockaddr r;

	memset(p->tx, 0, HIXL_MSG_SIZE);
	h->engine.family = htole16(AF_INET);
	h->engine.port = htole16(my_port);
	inet_pton(AF_INET, HX_IP, h->engine.addr);
	x->magic = htole32(HIXL_WIRE_RAILS_MAGIC);
	x->version = htole16(HIXL_WIRE_RAILS_VERSION);
	x->len = htole16(sizeof(*x));
	x->nr_rails = htole32(3);
	memset(x->token, 0x5a, sizeof(x->token));
	r = ru_addr("10.78.0.9", 0);
	x->rail[0].family = htole16(AF_INET);
	memcpy(x->rail[0].addr, r.addr, 16);
	r = ru_addr("10.79.0.9", 0);
	x->rail[1].family = htole16(AF_INET);
	memcpy(x->rail[1].addr, r.addr, 16);
	switch (k) {
	case BAD_NR0: x->nr_rails = 0; break;
	case BAD_NR9: x->nr_rails = htole32(9); break;
	case BAD_LEN: x->len = htole16(sizeof(*x) - 8); break;
	case BAD_TOKEN0: memset(x->token, 0, sizeof(x->token)); break;
	case BAD_FAMILY: x->rail[0].family = htole16(AF_INET6); break;
	case BAD_RESERVED: x->reserved = htole32(1); break;
	case BAD_SELF: inet_pton(AF_INET, HX_IP, x->rail[0].addr); break;
	case BAD_DUP: memcpy(x->rail[1].addr, x->rail[0].addr, 16); break;
	case BAD_PAST_NR: x->rail[2] = x->rail[1]; x->rail[2].addr[3] = 7; break;
	case BAD_TWICE:
		memcpy((uint8_t *)x + sizeof(*x), x, sizeof(*x));
		len += sizeof(*x);
		break;
	case BAD_RAIL_ON_PRIMARY: {
		struct hixl_wire_hello_rail *y = (void *)x;

		memset(y, 0, sizeof(*x));
		y->magic = htole32(HIXL_WIRE_RAIL_MAGIC);
		y->version = htole16(HIXL_WIRE_RAIL_VERSION);
		y->len = htole16(sizeof(*y));
		y->rail = htole32(1);
		memset(y->token, 0x5a, sizeof(y->token));
		len = sizeof(*h) + sizeof(*y);
		break;
	}
	case BAD_BLK_PAST_MSG: len -= 8; break;	/* the block says more than was sent */
	case OK_UNKNOWN_BLK: {
		struct hixl_wire_hello_blk *b = (void *)x;

		memmove((uint8_t *)x + 24, x, sizeof(*x));
		memset(b, 0, 24);
		b->magic = htole32(0x12345678);
		b->version = htole16(1);
		b->len = htole16(24);
		len += 24;
		break;
	}
	case OK_TRAILING: len += 4; break;	/* 4 zero bytes: not a block */
	default: break;
	}
	return len;
}

/* The victim's links (LINK_STATS), waiting up to @ms for the count to be @want. */
static uint32_t victim_links(int v, uint32_t want, int ms)
{
	uint32_t total = ~0U;

	for (int t = 0; t <= ms; t += 100) {
		if (hixl_dev_link_stats(v, 0, NULL, 0, &total) < 0)
			return ~0U;
		if (total == want)
			break;
		usleep(100000);
	}
	return total;
}

/*
 * Judged by the engine (its LINK_STATS), not by the peer seeing the
 * disconnect: RDMA CM's DREQ of a link the engine closed and destroyed at
 * once is not always seen by the peer within seconds under TCG.
 */
void test_raillink_hello_bad(void)
{
	int v;

	ru_need_rxe();
	v = engine_rails(24821, true, NULL);
	REQUIRE(v >= 0);
	for (int k = 0; k < BAD_MAX; k++) {
		bool ok = k == BAD_NONE || k == OK_UNKNOWN_BLK || k == OK_TRAILING;
		struct hp p;
		uint32_t len, n;

		REQUIRE(victim_links(v, 0, 10000) == 0);	/* the last peer's link is gone */
		REQUIRE(hp_connect(&p, 24821, 0, 0) == 0);
		len = bad_hello(&p, (enum bad_kind)k, 24851);
		CHECK_EQ(hp_send(&p, HIXL_MSG_HELLO, len), 0);
		if (ok) {
			CHECK_EQ(hp_table_end(&p), 0);
			CHECK(!hp_wait_disconnect(&p, 1500));
			n = victim_links(v, 1, 0);
		} else {
			n = victim_links(v, 0, 5000);
		}
		if (n != (ok ? 1U : 0U))
			printf("#   %s: the engine has %u links\n", bad_names[k], n);
		CHECK_EQ(n, ok ? 1U : 0U);
		hp_close(&p);
	}
	close(v);
}

/*
 * A connection to the engine's rail 1 address: refused outright while the
 * rail has no device side, else accepted and closed at its HELLO - without
 * a rail block, and with a rail block whose token is no link's.
 */
void test_raillink_rail_forged(void)
{
	int v;

	ru_need_rxe();
	v = engine_rails(24822, true, NULL);
	REQUIRE(v >= 0);
	for (int forged = 0; forged < 2; forged++) {
		struct hixl_wire_hello *h;
		struct hixl_wire_hello_rail *y;
		struct hp p;
		int ret = hp_dial_to(&p, RAIL1_IP, 24822, 0, 0, 0);

		if (!ret)
			ret = hp_wait_established(&p, 10000);
		if (ret) {	/* refused: nothing kept */
			printf("#   rail 1 connection refused: %s\n", strerror(-ret));
			CHECK(ret == -ECONNREFUSED || ret == -ECONNRESET || ret == -EIO ||
			      ret == -EHOSTUNREACH || ret == -ETIMEDOUT || ret == -ENETUNREACH);
			hp_close(&p);
			continue;
		}
		h = (void *)p.tx;
		memset(p.tx, 0, HIXL_MSG_SIZE);
		h->engine.family = htole16(AF_INET);
		h->engine.port = htole16(24852);
		inet_pton(AF_INET, HX_IP, h->engine.addr);
		y = (void *)(h + 1);
		if (forged) {
			y->magic = htole32(HIXL_WIRE_RAIL_MAGIC);
			y->version = htole16(HIXL_WIRE_RAIL_VERSION);
			y->len = htole16(sizeof(*y));
			y->rail = htole32(1);
			memset(y->token, 0xa5, sizeof(y->token));
		}
		CHECK_EQ(hp_send(&p, HIXL_MSG_HELLO, sizeof(*h) + (forged ? sizeof(*y) : 0)), 0);
		CHECK_EQ(victim_links(v, 0, 0), 0);	/* never a link of the engine */
		/* and its rail link (debugfs lists it until its HELLO) is closed */
		for (int t = 0; t < 50 && raillinks(~0ULL, NULL, NULL) > 0; t++)
			usleep(100000);
		CHECK(raillinks(~0ULL, NULL, NULL) <= 0);
		hp_close(&p);
	}
	close(v);
}

/* ---- two engines ------------------------------------------------------------------- */

void test_raillink_up(void);
void test_raillink_port_down(void);
void test_raillink_one_rail_peer(void);
void test_raillink_secret(void);
void test_raillink_device_readd(void);

/* Wait up to @ms for @n ready rail links of engine @id; the count seen. */
static int wait_raillinks(uint64_t id, int n, int ms)
{
	int got = 0;

	for (int t = 0; t <= ms; t += 100) {
		got = raillinks(id, "ready", NULL);
		if (got == n)
			break;
		usleep(100000);
	}
	return got;
}

static void need_rail_links(int fd)
{
	ru_need_rxe();
	if (!(ru_features(fd) & HIXL_FEAT_RAIL_LINKS))
		SKIP("the module has no HIXL_FEAT_RAIL_LINKS (rails without a device side)");
	if (access(RAILLINKS, R_OK))
		SKIP("no debugfs " RAILLINKS);
}

static long qp_count(void)
{
	char buf[64];
	FILE *f = popen("rdma resource show qp 2>/dev/null | wc -l", "r");
	long n = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		n = strtol(buf, NULL, 10);
	pclose(f);
	return n;
}

/* One WRITE of @len bytes from @la to @rb over a's link to port, and compare. */
static void xfer_ok(int a, uint16_t port, uint8_t *la, uint8_t *rb, size_t len, int seed)
{
	struct hixl_op_desc d = { (uintptr_t)la, (uintptr_t)rb, len };
	uint32_t failed;

	hx_fill(la, len, seed);
	CHECK_EQ(hx_xfer(a, port, HIXL_OP_WRITE, &d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(la, rb, len), -1);
}

void test_raillink_up(void)
{
	const size_t len = 64 * 1024;
	struct hixl_link_stat ls[4];
	struct hixl_reg_mem rm;
	uint64_t ida, idb;
	uint32_t total = 0;
	long qp0 = qp_count();
	uint8_t *la, *rb, *rc;
	int a, b, regions = -1;

	a = engine_rails(24823, true, NULL);
	REQUIRE(a >= 0);
	need_rail_links(a);
	b = engine_rails(24824, true, NULL);
	REQUIRE(b >= 0);
	ida = ru_engine_stat(a, 24823).id;
	idb = ru_engine_stat(b, 24824).id;
	rc = hx_map(len);
	REQUIRE(rc);
	REQUIRE(ru_pair_mem(a, b, 24824, len, 10000, &la, &rb) == 0);
	CHECK_EQ(wait_raillinks(ida, 1, 10000), 1);	/* rail 1, active */
	CHECK_EQ(wait_raillinks(idb, 1, 10000), 1);	/* rail 1, passive */
	raillinks(ida, "ready", &regions);
	CHECK_EQ(regions, 1);				/* b's region on rail 1 too */
	/* one link each in LINK_STATS and ENGINES: rails are not links */
	CHECK_EQ(hixl_dev_link_stats(a, 0, ls, 4, &total), 1);
	CHECK_EQ(total, 1);
	CHECK_EQ(hixl_dev_link_stats(b, 0, ls, 4, &total), 1);
	CHECK_EQ(ru_engine_stat(a, 24823).nr_links, 1);
	CHECK_EQ(ru_engine_stat(b, 24824).nr_links, 1);

	/* a registration after CONNECT reaches the rail link's table, and goes */
	REQUIRE(reg_mem(b, rc, len, 0, &rm) == 0);
	raillinks(ida, "ready", &regions);
	CHECK_EQ(regions, 2);
	CHECK_EQ(dereg_mem(b, rm.handle), 0);
	raillinks(ida, "ready", &regions);
	CHECK_EQ(regions, 1);

	xfer_ok(a, 24824, la, rb, len, 3);		/* rail 0 until striping */

	/* DISCONNECT ends the rail links of both sides */
	CHECK_EQ(hx_disconnect(a, 24824), 0);
	CHECK_EQ(raillinks(ida, NULL, NULL), 0);
	for (int t = 0; t < 100 && raillinks(idb, NULL, NULL) > 0; t++)
		usleep(100000);
	CHECK_EQ(raillinks(idb, NULL, NULL), 0);
	/* again, then close with the rails up: nothing stays */
	REQUIRE(hx_connect(a, 24824, 10000) == 0);
	CHECK_EQ(wait_raillinks(ida, 1, 10000), 1);
	close(a);
	close(b);
	CHECK_EQ(raillinks(~0ULL, NULL, NULL), 0);
	if (qp0 >= 0) {
		long qp1 = qp_count();

		for (int t = 0; t < 50 && qp1 > qp0; t++) {
			usleep(100000);
			qp1 = qp_count();
		}
		CHECK_EQ(qp1, qp0);
	}
	munmap(la, len);
	munmap(rb, len);
	munmap(rc, len);
}

static int link_state_line(uint64_t id, const char *st)
{
	return raillinks(id, st, NULL);
}

void test_raillink_port_down(void)
{
	const size_t len = 64 * 1024;
	uint8_t *la, *rb;
	uint64_t ida;
	int a, b, broke = 0, back = 0;

	a = engine_rails(24825, true, NULL);
	REQUIRE(a >= 0);
	need_rail_links(a);
	ru_need_tool("ip");
	b = engine_rails(24826, true, NULL);
	REQUIRE(b >= 0);
	ida = ru_engine_stat(a, 24825).id;
	REQUIRE(ru_pair_mem(a, b, 24826, len, 10000, &la, &rb) == 0);
	REQUIRE(wait_raillinks(ida, 1, 10000) == 1);

	CHECK_EQ(system("ip link set veth2 down"), 0);
	for (int t = 0; t < KA_BOUND_MS && !broke; t += 200) {
		usleep(200000);
		broke = wait_raillinks(ida, 0, 0) == 0;
	}
	CHECK(broke);					/* rail 1 broke (or is being re-made) */
	xfer_ok(a, 24826, la, rb, len, 5);		/* rail 0 unaffected */
	CHECK_EQ(system("ip link set veth2 up"), 0);
	back = wait_raillinks(ida, 1, 20000) == 1;
	CHECK(back);					/* re-made by the rail work */
	if (!back)
		printf("#   raillinks of engine %llu: %d ready, %d connecting, %d error\n",
		       (unsigned long long)ida, link_state_line(ida, "ready"),
		       link_state_line(ida, "connecting"), link_state_line(ida, "error"));
	xfer_ok(a, 24826, la, rb, len, 6);
	close(a);
	close(b);
	system("ip link set veth2 up");			/* whatever happened above */
	munmap(la, len);
	munmap(rb, len);
}

void test_raillink_one_rail_peer(void)
{
	const size_t len = 64 * 1024;
	uint8_t *la, *rb;
	uint64_t ida;
	int a, b;

	a = engine_rails(24827, true, NULL);
	REQUIRE(a >= 0);
	need_rail_links(a);
	b = engine_rails(24828, false, NULL);
	REQUIRE(b >= 0);
	ida = ru_engine_stat(a, 24827).id;
	REQUIRE(ru_pair_mem(a, b, 24828, len, 10000, &la, &rb) == 0);
	usleep(1500000);				/* a rail work round */
	CHECK_EQ(raillinks(ida, NULL, NULL), 0);	/* one rail paired */
	xfer_ok(a, 24828, la, rb, len, 9);
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

void test_raillink_secret(void)
{
	const char *key = "0123456789abcdef-rail-secret";
	const size_t len = 64 * 1024;
	uint8_t *la, *rb;
	uint64_t ida, idb;
	int a, b;

	a = engine_rails(24829, true, key);
	REQUIRE(a >= 0);
	need_rail_links(a);
	b = engine_rails(24830, true, key);
	REQUIRE(b >= 0);
	ida = ru_engine_stat(a, 24829).id;
	idb = ru_engine_stat(b, 24830).id;
	REQUIRE(ru_pair_mem(a, b, 24830, len, 10000, &la, &rb) == 0);
	CHECK_EQ(wait_raillinks(ida, 1, 10000), 1);
	CHECK_EQ(wait_raillinks(idb, 1, 10000), 1);
	xfer_ok(a, 24830, la, rb, len, 11);
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

void test_raillink_device_readd(void)
{
	const size_t len = 64 * 1024;
	uint8_t *la, *rb;
	uint64_t ida, idb;
	int a, b, rc;

	a = engine_rails(24831, true, NULL);
	REQUIRE(a >= 0);
	need_rail_links(a);
	ru_need_tool("rdma");
	b = engine_rails(24832, true, NULL);
	REQUIRE(b >= 0);
	ida = ru_engine_stat(a, 24831).id;
	idb = ru_engine_stat(b, 24832).id;
	REQUIRE(ru_pair_mem(a, b, 24832, len, 10000, &la, &rb) == 0);
	REQUIRE(wait_raillinks(ida, 1, 10000) == 1);

	rc = system("timeout 60 rdma link delete rxe1");
	CHECK_EQ(rc, 0);
	CHECK_EQ(raillinks(ida, NULL, NULL), 0);	/* destroyed with the device */
	for (int t = 0; t < 50 && raillinks(idb, NULL, NULL) > 0; t++)
		usleep(100000);
	CHECK_EQ(raillinks(idb, NULL, NULL), 0);
	xfer_ok(a, 24832, la, rb, len, 13);		/* rail 0 goes on */
	CHECK_EQ(hx_rxe_restore("rxe1", "veth2"), 0);
	CHECK_EQ(wait_raillinks(ida, 1, 20000), 1);	/* revived on both, re-made */
	CHECK_EQ(wait_raillinks(idb, 1, 10000), 1);
	xfer_ok(a, 24832, la, rb, len, 14);
	close(a);
	close(b);
	CHECK_EQ(raillinks(~0ULL, NULL, NULL), 0);
	munmap(la, len);
	munmap(rb, len);
	hx_rxe_restore("rxe1", "veth2");
}

const struct ht_test raillink_tests[] = {
	{ "raillink_hello_rails", test_raillink_hello_rails },
	{ "raillink_hello_bad", test_raillink_hello_bad },
	{ "raillink_rail_forged", test_raillink_rail_forged },
	{ "raillink_up", test_raillink_up },
	{ "raillink_port_down", test_raillink_port_down },
	{ "raillink_one_rail_peer", test_raillink_one_rail_peer },
	{ "raillink_secret", test_raillink_secret },
	{ "raillink_device_readd", test_raillink_device_readd },
	{ NULL, NULL },
};
