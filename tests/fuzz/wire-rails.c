// SPDX-License-Identifier: GPL-2.0
/*
 * wire-rails.c - the wire fuzzer's rail cases (kmod/raillink.c,
 * docs/protocol.md "Rails", tests/fuzz/README.md).
 *
 * The victim and the legitimate engine have two rails: rail 0 on 10.77.0.1
 * (rxe0), rail 1 on 10.78.0.1 (rxe1 on veth2, tests/vm/run.sh), transport
 * rdma, so that a well-formed transfer between them of 1 MiB or more is
 * striped over both.  Two case kinds:
 *
 *   rails      the hostile peer's primary HELLO carries a rails block
 *              ("XHLS"), well-formed (1..8 rails, listener port 0 or not,
 *              an unknown block before it, trailing bytes, another version:
 *              ignored) -> accepted, the victim pairs min(its 2, ours)
 *              rails and shows each further one as a rail entry with no
 *              connection; or broken in one field (nr_rails 0 or > 8, len,
 *              the block past the message, the message cut inside it, a
 *              zero token, a rail of another family, reserved set in the
 *              block or a rail, the engine's own address, two rails of one
 *              address, an entry past nr_rails set, two blocks, a rail block
 *              "XHLR" on a primary) -> closed; or 1-4 random bytes of it
 *              changed (no oracle but the invariants)
 *   raillink   (wire-raillink.c) a primary with a good rails block (rail 1 = 10.78.0.1), then
 *              a connection to the victim's rail 1 listener (10.78.0.1:
 *              21000) whose HELLO carries a rail block: the victim's token
 *              and rail 1 -> accepted (the victim's rail 1 entry of our
 *              link gets a READY connection); the same again (a replay:
 *              the second replaces the first, one connection is left);
 *              a forged token, the token we sent, the token of another
 *              live primary of ours, a token of a closed one, another rail
 *              index, a bad version, length or reserved field, no rail
 *              block or a rails block, a HELLO naming the legitimate
 *              engine, a primary whose rails block gave another rail 1
 *              address than the one we connect from -> closed; and the
 *              good rail block on the primary listener -> closed
 *
 * After each: the victim's LINK_STATS with HIXL_LINK_STATS_RAILS shows no
 * rail connection under any primary of the hostile peer but the ones the
 * case made and kept (accepted raillink cases); once the case closed its
 * connections, debugfs hixl/raillinks lists no rail link but the
 * legitimate engine's within 10 s (a rail link lives no longer than its
 * primary); and the legitimate engine, its rail 1 READY, WRITEs 1 MiB
 * (striped: rail 1 must carry bytes) into A and READs it back, byte for
 * byte.  The driver's invariants (canaries, R, A's mirror, the end state)
 * run as after every case.
 *
 * Ports: the hostile peer's second primaries claim 24960-24979 (RPORT).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "harness.h"
#include "util.h"
#include "wire-fuzz.h"

#define RAILLINKS	"/sys/kernel/debug/hixl/raillinks"
#define RAIL_READY_MS	15000	/* the legitimate link's rail 1 re-made (rail work: 1 s) */

bool rails_on;

/* ---- the variants ------------------------------------------------------------------ */

enum rv {	/* rails block on a primary HELLO */
	RV_GOOD, RV_NR1, RV_NR8, RV_PORT0, RV_VERSION, RV_UNKNOWN_BEFORE, RV_TRAILING,
	RV_SHORT_HDR,		/* accepted above, closed below */
	RV_NR0, RV_NR_BIG, RV_LEN, RV_PAST_MSG, RV_CUT, RV_TOKEN0, RV_FAMILY, RV_RESERVED,
	RV_NAME_RESERVED, RV_SELF, RV_DUP, RV_PAST_NR, RV_TWICE, RV_RAIL_BLK,
	RV_RANDOM, NRV
};

static const char *const rv_name[NRV] = {
	"good", "nr1", "nr8", "port0", "version", "unknown_before", "trailing", "short_hdr",
	"nr0", "nr_big", "len", "past_msg", "cut", "token0", "family", "reserved",
	"name_reserved", "self", "dup", "past_nr", "twice", "rail_blk", "random",
};

static unsigned long rv_runs[NRV];
static unsigned long rail_checks, rail_legit_ok;

/* ---- set-up ------------------------------------------------------------------------ */

static void wname(struct hixl_wire_name *w, const char *ip, uint16_t port)
{
	memset(w, 0, sizeof(*w));
	w->family = htole16(AF_INET);
	w->port = htole16(port);
	inet_pton(AF_INET, ip, w->addr);
}

static const char *rails_missing(int fd)
{
	struct hixl_info info;
	uint64_t need = HIXL_FEAT_RAILS | HIXL_FEAT_RAIL_LINKS | HIXL_FEAT_RAIL_STRIPE |
			HIXL_FEAT_LINK_STATS_RAILS;

	memset(&info, 0, sizeof(info));
	if (xioctl(fd, HIXL_IOC_GET_INFO, &info) || (info.features & need) != need)
		return "the module lacks HIXL_FEAT_RAILS/RAIL_LINKS/RAIL_STRIPE/LINK_STATS_RAILS";
	if (access("/sys/class/infiniband/rxe1", F_OK))
		return "no rxe1 (the test VM's rail 1 on " RAIL1_IP ")";
	return NULL;
}

/*
 * An engine on HX_IP:port with a staging pool: with rail 1 on RAIL1_IP and
 * transport rdma when the module and the machine have rails (the first
 * call decides rails_on), else as hx_engine().  The fd or -errno.
 */
int rails_engine(uint16_t port, uint32_t pool_n, uint32_t pool_mb)
{
	static int decided;
	struct hixl_sockaddr r1;
	struct hixl_setup a;
	const char *why;
	int fd;
	long ret;

	if (!decided) {
		decided = 1;
		fd = open_dev();
		why = fd >= 0 ? rails_missing(fd) : "no /dev/hixl";
		if (fd >= 0)
			close(fd);
		rails_on = !why;
		if (why)
			printf("hixl-wire-fuzz: rail cases SKIP: %s\n", why);
	}
	if (!rails_on)
		return hx_engine(port, pool_n, pool_mb);
	fd = open_dev();
	if (fd < 0)
		return fd;
	memset(&r1, 0, sizeof(r1));
	r1.family = AF_INET;
	inet_pton(AF_INET, RAIL1_IP, r1.addr);
	memset(&a, 0, sizeof(a));
	a.local = hx_name(port);
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a.pool_buffers = pool_n;
	a.pool_buffer_mb = pool_mb;
	a.transport = HIXL_TRANSPORT_RDMA;	/* striped over rxe, never the CPU copy */
	a.flags = HIXL_SETUP_RAILS;
	a.rails = (uintptr_t)&r1;
	a.nr_rails = 1;
	ret = xioctl(fd, HIXL_IOC_SETUP, &a);
	if (ret) {
		printf("hixl-wire-fuzz: SETUP %s:%u with rail 1 %s: %s\n", HX_IP, port, RAIL1_IP,
		       strerror((int)-ret));
		close(fd);
		return (int)ret;
	}
	return fd;
}

/* ---- what the victim shows --------------------------------------------------------- */

/* The rails block of the HELLO @p received, or NULL. */
const struct hixl_wire_hello_rails *rails_blk_of(const struct hp *p)
{
	uint32_t off = sizeof(struct hixl_wire_hello);

	while (p->hello_seen && p->hello_len >= off &&
	       p->hello_len - off >= sizeof(struct hixl_wire_hello_blk)) {
		const struct hixl_wire_hello_blk *b = (const void *)(p->hello_raw + off);
		uint32_t len = le16toh(b->len);

		if (len < sizeof(*b) || len > p->hello_len - off)
			return NULL;
		if (le32toh(b->magic) == HIXL_WIRE_RAILS_MAGIC && len == sizeof(struct hixl_wire_hello_rails))
			return (const void *)b;
		off += len;
	}
	return NULL;
}

/*
 * The victim's rail entries (LINK_STATS, HIXL_LINK_STATS_RAILS) under the
 * primary named HX_IP:@port: *@entries of them, *@conns with a connection
 * (not HIXL_LINK_STAT_NO_LINK), *@ready READY; and, under every other
 * primary but the legitimate engine's, *@foreign with a connection that is
 * CONNECTING or READY.  -errno when LINK_STATS fails.
 */
int victim_rails(uint16_t port, int *entries, int *conns, int *ready, int *foreign)
{
	static struct hixl_link_stat ls[128];
	uint16_t prim = 0;
	uint32_t total = 0;
	int n = hixl_dev_link_stats_rails(vfd, 0, ls, 128, &total), i;

	*entries = *conns = *ready = *foreign = 0;
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		const struct hixl_link_stat *s = &ls[i];
		bool conn = !(s->flags & HIXL_LINK_STAT_NO_LINK);

		if (!s->rail) {
			prim = s->peer.port;
			continue;
		}
		if (prim == port) {
			(*entries)++;
			*conns += conn;
			*ready += conn && s->state == HIXL_LINK_STATE_READY;
		} else if (prim != LPORT && conn && s->state <= HIXL_LINK_STATE_READY) {
			(*foreign)++;
		}
	}
	return 0;
}

/*
 * debugfs hixl/raillinks: rail links that are not the legitimate engine's
 * (active with peer VPORT: its own; one passive with peer LPORT: the
 * victim's of it - more are ours, naming it), in total and in *@live
 * CONNECTING or READY; -1 without debugfs.
 */
int raillinks_hostile(int *live)
{
	char line[512];
	int n = 0;
	int legit = 0, legit_live = 0;
	FILE *f = fopen(RAILLINKS, "r");

	*live = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long eng;
		char peer[128], side[16], state[16], *colon;
		unsigned int rail, port;

		if (sscanf(line, "%llu %127s %u %15s %15s", &eng, peer, &rail, side, state) != 5)
			continue;
		colon = strrchr(peer, ':');
		port = colon ? (unsigned int)strtoul(colon + 1, NULL, 10) : 0;
		if (port == VPORT && !strcmp(side, "active"))
			continue;	/* the legitimate engine's own */
		if (port == LPORT && !strcmp(side, "passive")) {
			legit++;	/* the victim's of it: one, or one named so by us */
			legit_live += !strcmp(state, "connecting") || !strcmp(state, "ready");
			continue;
		}
		n++;
		*live += !strcmp(state, "connecting") || !strcmp(state, "ready");
	}
	fclose(f);
	*live += legit_live > 1 ? legit_live - 1 : 0;
	return n + (legit > 1 ? legit - 1 : 0);
}

/*
 * The victim's rail connections under the hostile peer's primaries: at most
 * @owned under the one named HX_IP:@owner (the case's good rail links),
 * none under any other.
 */
void check_rails(uint16_t owner, int owned, const char *what)
{
	int e, c, r, foreign;

	if (victim_rails(owner, &e, &c, &r, &foreign))
		violation("%s: LINK_STATS with rails failed", what);
	else if (foreign || c > owned)
		violation("%s: the victim has %d rail connections under our primary (at most %d "
			  "are ours) and %d under other primaries of the hostile peer", what, c,
			  owned, foreign);
}

/* ---- HELLO with a rails block ------------------------------------------------------ */

uint8_t hbuf[HP_TX_SIZE];

/* HELLO naming HX_IP:@port with P's landing buffer; its length so far. */
uint32_t hello_head(uint8_t *b, uint16_t port, const struct hp *p)
{
	struct hixl_wire_hello *h = (void *)b;

	memset(b, 0, HIXL_MSG_SIZE);
	wname(&h->engine, HX_IP, port);
	if (p && p->land_mr) {
		h->stage_iova = htole64((uintptr_t)p->land);
		h->stage_size = htole64(p->land_len);
		h->stage_rkey = htole32(p->land_mr->rkey);
	}
	return sizeof(*h);
}

/* Send the HELLO in hbuf, @len bytes, header and all. */
int send_hello(struct hp *p, uint32_t len)
{
	hdr(hbuf, HIXL_MSG_HELLO, len);
	return hp_send_raw(p, hbuf, len);
}

/* A well-formed rails block of @nr rails, rail 1 at @rail1, random other rails and token. */
void rails_fill(struct hixl_wire_hello_rails *x, uint32_t nr, const char *rail1,
		       uint8_t *token)
{
	uint32_t i;

	memset(x, 0, sizeof(*x));
	x->magic = htole32(HIXL_WIRE_RAILS_MAGIC);
	x->version = htole16(HIXL_WIRE_RAILS_VERSION);
	x->len = htole16(sizeof(*x));
	x->nr_rails = htole32(nr);
	do
		rnd_fill(x->token, sizeof(x->token));
	while (!memcmp(x->token, (uint8_t[HIXL_WIRE_RAIL_TOKEN]){ 0 }, sizeof(x->token)));
	if (token)
		memcpy(token, x->token, sizeof(x->token));
	for (i = 0; i + 1 < nr; i++) {
		char ip[32];

		if (i)
			snprintf(ip, sizeof(ip), "10.79.%u.%u", i, 1 + (unsigned int)rnd(250));
		wname(&x->rail[i], i ? ip : rail1, chance(70) ? VPORT + 1000 + rnd(1000) : 0);
	}
}

/*
 * The rails block of the HELLO in hbuf (@len so far) broken as @v says.
 * Returns the HELLO's length; *@ok: the rule accepts it; *@paired: rails
 * the victim must pair (1: none).
 */
static uint32_t rails_variant(enum rv v, uint32_t len, bool *ok, uint32_t *paired,
			      uint8_t *token)
{
	struct hixl_wire_hello_rails *x = (void *)(hbuf + len);
	uint32_t nr = chance(70) ? 2 : 2 + rnd(7), k;

	*ok = v <= RV_SHORT_HDR || v == RV_RANDOM;
	if (v == RV_NR1)
		nr = 1;
	else if (v == RV_NR8)
		nr = HIXL_WIRE_MAX_RAILS;
	else if (v == RV_DUP && nr < 3)
		nr = 3;
	else if (v == RV_PAST_NR && nr == HIXL_WIRE_MAX_RAILS)
		nr = 7;
	if (v == RV_UNKNOWN_BEFORE) {	/* an unknown block first: skipped */
		struct hixl_wire_hello_blk *b = (void *)x;
		uint32_t bl = 8 + 8 * rnd(8);

		rnd_fill(b, bl);
		b->magic = htole32(0x12345678 + (uint32_t)rnd(1000));
		b->len = htole16(bl);
		len += bl;
		x = (void *)(hbuf + len);
	}
	rails_fill(x, nr, RAIL1_IP, token);
	*paired = nr < 2 ? nr : 2;
	len += sizeof(*x);
	k = nr > 1 ? rnd(nr - 1) : 0;	/* a rail to break */
	switch (v) {
	case RV_PORT0:
		for (k = 0; k + 1 < nr; k++)
			x->rail[k].port = 0;
		break;
	case RV_VERSION:	/* another version: ignored, one rail */
		x->version = htole16(chance(50) ? 0 : 2 + rnd(0xfffd));
		*paired = 1;
		break;
	case RV_TRAILING:	/* bytes after the block that are no block, or an unknown one */
		if (chance(50)) {
			k = 1 + rnd(7);
		} else {
			struct hixl_wire_hello_blk *b = (void *)(hbuf + len);

			k = 8 + rnd(64);
			rnd_fill(b, k);
			b->magic = htole32(0x6a6a6a6a);
			b->len = htole16(k);
		}
		len += k;
		break;
	case RV_SHORT_HDR:	/* the message ends 1-7 bytes into a block header: the walk stops */
		len -= sizeof(*x);
		len += 1 + rnd(7);
		*paired = 1;
		break;
	case RV_NR0:
		x->nr_rails = 0;
		break;
	case RV_NR_BIG:
		x->nr_rails = htole32(HIXL_WIRE_MAX_RAILS + 1 + rnd(chance(50) ? 8 : UINT32_MAX - 9));
		break;
	case RV_LEN: {		/* not 200, but inside the message */
		static const uint16_t lens[] = { 0, 1, 7, 8, 16, 32, 199, 201, 208, 400 };
		uint16_t l = lens[rnd(10)];

		x->len = htole16(l);
		if (l > sizeof(*x))
			len += l - sizeof(*x);	/* zeros after it: inside the message */
		break;
	}
	case RV_PAST_MSG:	/* a len past the message's end */
		x->len = htole16(sizeof(*x) + 1 + rnd(0xffff - sizeof(*x)));
		break;
	case RV_CUT:		/* the message ends inside the block (8 bytes of it or more) */
		len -= sizeof(*x) - 8 - rnd(sizeof(*x) - 8);
		break;
	case RV_TOKEN0:
		memset(x->token, 0, sizeof(x->token));
		break;
	case RV_FAMILY:
		x->rail[k].family = htole16(chance(50) ? AF_INET6 : (uint16_t)rnd64());
		if (le16toh(x->rail[k].family) == AF_INET)
			x->rail[k].family = htole16(AF_INET6);
		break;
	case RV_RESERVED:
		x->reserved = htole32(1U << rnd(32));
		break;
	case RV_NAME_RESERVED:
		x->rail[k].reserved = htole32(1U << rnd(32));
		break;
	case RV_SELF:		/* a rail at the engine name's address */
		inet_pton(AF_INET, HX_IP, x->rail[k].addr);
		break;
	case RV_DUP:
		memcpy(x->rail[1].addr, x->rail[0].addr, sizeof(x->rail[0].addr));
		if (nr > 3 && chance(50))
			memcpy(x->rail[nr - 2].addr, x->rail[1 + rnd(nr - 3)].addr,
			       sizeof(x->rail[0].addr));
		break;
	case RV_PAST_NR:	/* any byte of an entry past nr_rails - 1 */
		k = nr - 1 + rnd(HIXL_WIRE_MAX_RAILS - nr);
		((uint8_t *)&x->rail[k])[rnd(sizeof(x->rail[k]))] = 1 + rnd(255);
		break;
	case RV_TWICE:		/* a second rails block, or a rail block after it */
		if (chance(50)) {
			memcpy(hbuf + len, x, sizeof(*x));
			len += sizeof(*x);
		} else {
			struct hixl_wire_hello_rail *y = (void *)(hbuf + len);

			memset(y, 0, sizeof(*y));
			y->magic = htole32(HIXL_WIRE_RAIL_MAGIC);
			y->version = htole16(HIXL_WIRE_RAIL_VERSION);
			y->len = htole16(sizeof(*y));
			y->rail = htole32(1);
			rnd_fill(y->token, sizeof(y->token));
			len += sizeof(*y);
		}
		break;
	case RV_RAIL_BLK: {	/* a rail block instead, on a primary */
		struct hixl_wire_hello_rail *y = (void *)x;

		len -= sizeof(*x);
		memset(y, 0, sizeof(*y));
		y->magic = htole32(HIXL_WIRE_RAIL_MAGIC);
		y->version = htole16(HIXL_WIRE_RAIL_VERSION);
		y->len = htole16(sizeof(*y));
		y->rail = htole32(chance(70) ? 1 : (uint32_t)rnd64());
		rnd_fill(y->token, sizeof(y->token));
		len += sizeof(*y);
		break;
	}
	case RV_RANDOM:
		for (k = 1 + rnd(4); k; k--)
			((uint8_t *)x)[rnd(sizeof(*x))] ^= 1 + rnd(255);
		*paired = 0;	/* unknown */
		break;
	default:
		break;
	}
	return len;
}

/* Wait for the victim's TABLE_END on P (its side sent its table); 0 or -errno. */
int wait_table_end(struct hp *p, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!p->table_end && !p->disconnected && hx_ms_since(&t0) < ms)
		if (hp_pump(p, 50) < 0)
			break;
	return p->table_end ? 0 : p->disconnected ? -ECONNRESET : -ETIMEDOUT;
}

/* The victim's TABLE_ACK on @p counts @n or more within @ms. */
bool wait_acked(struct hp *p, uint64_t n, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p->acked < n && !p->disconnected && hx_ms_since(&t0) < ms)
		if (hp_pump(p, 20) < 0)
			break;
	return p->acked >= n;
}

/*
 * The victim closes the hostile primary @p, judged by the victim (RDMA CM's
 * DREQ does not always reach the peer within seconds under TCG): @p
 * disconnected, or the victim lists at most @keep links named HX_IP:@port
 * (ours that stay) and no unnamed one (@p before its HELLO is handled)
 * that are CONNECTING or READY.  The caller closes @p.
 */
void expect_primary_closed(struct hp *p, uint16_t port, int keep, int send_ret,
				  const char *what)
{
	static struct hixl_link_stat ls[128];
	struct timespec t0;
	bool gone = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!gone && hx_ms_since(&t0) < 2 * WAIT_MS) {
		uint32_t total = 0;
		int n = hixl_dev_link_stats(vfd, 0, ls, 128, &total), i, live = 0;

		gone = p->disconnected || hp_pump(p, 20) < 0;
		if (n >= 0 && !gone) {
			for (i = 0; i < n; i++)
				if (ls[i].state <= HIXL_LINK_STATE_READY &&
				    (ls[i].peer.port == port || !(ls[i].flags & HIXL_LINK_STAT_NAMED)))
					live++;
			gone = live <= keep;
		}
		if (!gone)
			usleep(50 * 1000);
	}
	if (!gone)
		violation("%s: the victim kept the link (our send: %s)", what,
			  send_ret ? strerror(-send_ret) : "completed");
	else
		n_closed_ok++;
}

/*
 * The hostile primary P (a fresh connection) says HELLO with @hlen bytes of
 * hbuf, its region and TABLE_END; 0 once the victim accepted (its
 * TABLE_END and TABLE_ACK), else -errno (a violation was reported).
 */
int primary_accept(uint32_t hlen, const char *what)
{
	int ret = send_hello(&P, hlen);

	if (!ret)
		ret = hp_table_end(&P);
	if (!ret)
		ret = wait_table_end(&P, 10000);
	if (ret) {
		violation("%s: the victim did not finish the handshake: %s", what, strerror(-ret));
		peer_down();
		return ret;
	}
	p_tbl_sent = 0;
	return expect_alive(0, what) ? 0 : -ECONNRESET;
}

void case_rails_hello(void)
{
	enum rv v = (enum rv)rnd(NRV);
	uint32_t len, paired;
	int e, c, r, f, ret;
	bool ok;

	rv_runs[v]++;
	if (peer_connect())
		return;
	len = hello_head(hbuf, p_port, &P);
	len = rails_variant(v, len, &ok, &paired, NULL);
	if (!ok) {
		expect_primary_closed(&P, p_port, 0, send_hello(&P, len),
				      "malformed HELLO rails block");
		peer_down();
		check_rails(0, 0, "rails block");
		return;
	}
	if (v == RV_RANDOM) {	/* either; nothing to judge but the invariants */
		ret = send_hello(&P, len);
		if (!ret)
			ret = hp_table_end(&P);
		/*
		 * The victim sends its table whatever our HELLO says: only a
		 * TABLE_ACK of our REGION tells the link is up (then it stays).
		 */
		if (!ret)
			ret = hp_region(&P);
		if (!ret && !wait_acked(&P, 1, 3000))
			ret = -ECONNRESET;
		if (ret)
			peer_down();
		else
			p_tbl_sent = 1;
		check_rails(0, 0, "rails block with random bytes");
		return;
	}
	if (primary_accept(len, "well-formed HELLO rails block"))
		return;
	/* the victim paired min(2, ours) rails: a rail entry each, no connection */
	if (victim_rails(p_port, &e, &c, &r, &f))
		violation("rails block %s: LINK_STATS with rails failed", rv_name[v]);
	else if ((uint32_t)e != paired - 1 || c || f)
		violation("rails block %s: the victim shows %d rail entries (want %u), %d with a "
			  "connection (want 0), %d foreign", rv_name[v], e, paired - 1, c, f);
	/* the link stays for the next cases: rails paired, rail 1 never connected */
}

/* ---- the legitimate engine over two rails ------------------------------------------ */

/* The legitimate engine's rail 1 entry of its link to the victim: READY?  Its direct bytes. */
static bool legit_rail1(uint64_t *bytes, struct hixl_link_stat *out)
{
	static struct hixl_link_stat ls[16];
	uint32_t total = 0;
	int n = hixl_dev_link_stats_rails(lfd, 0, ls, 16, &total), i;

	for (i = 0; i + 1 < n; i++)
		if (!ls[i].rail && ls[i].peer.port == VPORT && ls[i + 1].rail == 1) {
			*out = ls[i + 1];
			*bytes = ls[i + 1].xfer.write_direct_bytes + ls[i + 1].xfer.read_direct_bytes;
			return !(ls[i + 1].flags & HIXL_LINK_STAT_NO_LINK) &&
			       ls[i + 1].state == HIXL_LINK_STATE_READY;
		}
	memset(out, 0, sizeof(*out));
	out->state = ~0U;
	return false;
}

/*
 * After a rail case: the legitimate engine's rail 1 is READY (re-made
 * within RAIL_READY_MS if it broke), a 1 MiB WRITE into all of A and its
 * READ back are byte for byte and rail 1 carried part of them.
 */
void rails_legit_check(void)
{
	struct hixl_op_desc d = { (uintptr_t)lbuf, (uintptr_t)va, A_LEN };
	struct hixl_link_stat st;
	struct timespec t0;
	uint64_t before = 0, after = 0;
	uint32_t failed = 0;
	long ret;

	if (!rails_on)
		return;
	legit_checks++;
	rail_checks++;
	if (!legit_link(false))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!legit_rail1(&before, &st) && hx_ms_since(&t0) < RAIL_READY_MS)
		usleep(100 * 1000);
	if (!legit_rail1(&before, &st)) {
		violation("the legitimate link's rail 1 is not READY after %d ms: state %u err %d "
			  "flags %#x", RAIL_READY_MS, st.state, st.err, st.flags);
		return;
	}
	rnd_fill(lbuf, A_LEN);
	wf_total++;
	ret = xfer_retry(lfd, VPORT, HIXL_OP_WRITE, &d, 1, &failed);
	if (ret || hx_first_diff(va, lbuf, A_LEN) >= 0) {
		violation("two-rail WRITE of 1 MiB: %s", ret ? strerror(-ret) : "A differs");
		memcpy(a_mirror, va, A_MIR);
		if (ret) {
			hx_disconnect(lfd, VPORT);
			l_linked = false;
		}
		return;
	}
	memcpy(a_mirror, va, A_MIR);
	wf_ok++;
	d.local_addr = (uintptr_t)lchk;
	memset(lchk, 0, A_LEN);
	wf_total++;
	ret = xfer_retry(lfd, VPORT, HIXL_OP_READ, &d, 1, &failed);
	if (ret || hx_first_diff(lchk, va, A_LEN) >= 0) {
		violation("two-rail READ of 1 MiB: %s", ret ? strerror(-ret) : "data differs");
		if (ret) {
			hx_disconnect(lfd, VPORT);
			l_linked = false;
		}
		return;
	}
	wf_ok++;
	legit_rail1(&after, &st);
	if (after <= before)
		violation("two-rail WRITE and READ of 1 MiB: rail 1 carried nothing (%" PRIu64
			  " bytes before and after)", before);
	else
		rail_legit_ok++;
}

void rails_summary(void)
{
	int k;

	if (!rails_on) {
		printf("rails: not run (no two-rail engines)\n");
		return;
	}
	printf("rails: %lu rail connections, %lu two-rail legitimate checks (%lu striped, verified)\n",
	       rail_conns, rail_checks, rail_legit_ok);
	printf("rails variants:");
	for (k = 0; k < NRV; k++)
		printf(" %s=%lu", rv_name[k], rv_runs[k]);
	printf("\n");
	raillink_summary();
}
