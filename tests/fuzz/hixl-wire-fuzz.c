// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-wire-fuzz.c - a mutating fuzzer of the wire protocol (kmod/proto.h):
 * a hostile peer against a victim engine, in one process of the test VM.
 *
 * Usage: hixl-wire-fuzz [--cases N] [--seed S] [--from I] [--time SECONDS]
 *                       [--legit-every N] [--trace] [--only KIND,...]
 *
 * The victim is a /dev/hixl engine on 10.77.0.1:21000 (rxe0; and rail 1 on
 * 10.78.0.1, rxe1, when the module and the VM have rails) with a staging
 * pool and three registrations in one mapping: A (1 MiB, read-write), R
 * (256 KiB, HIXL_REG_READ_ONLY) and, between and around them, canary pages
 * that are not registered.  A second engine (21001) is the legitimate peer.
 * The hostile peer is tests/user/peer.c: librdmacm + libibverbs, speaking
 * the protocol the way another hixl.ko does, until each case breaks it.
 *
 * Case I of seed S is a function of (S, I) alone (its own PRNG stream), so
 * `--seed S --from I --cases 1` runs that case again.  The cases:
 *
 *   hdr        every message type (and unknown ones) with a wrong magic,
 *              version or header length                    -> link closed
 *   trunc      every message type shorter than its struct  -> closed
 *   oversize   4097..8192 bytes (more than a receive buffer) -> closed;
 *              trailing bytes inside 4 KiB                  -> accepted
 *   region_bad REGION with count > 126, first/count past nr_mrs, nr_mrs 0
 *              or above the region's pages, a wrapping range, overlapping
 *              the peer's own region from below (EEXIST)   -> closed
 *   region_odd REGION with valid counts whose MR entries do not cover the
 *              region (random, zero, 2^64-1 lengths)       -> accepted
 *   region_del REGION_DEL of unknown or inner ranges         -> accepted
 *   regions    REGIONS (a new link's packed table) of 1..72 whole regions
 *              in distinct slots, odd MR entries            -> accepted
 *   regions_bad REGIONS with count 0, past or short of its entries, a
 *              reserved field set, an unknown flag, an entry's nr_mrs 0,
 *              past the message or above its pages, a wrapping or empty
 *              range, an entry running into another or the peer's region,
 *              cut inside an entry                          -> closed
 *   notify     NOTIFY with name/msg lengths 0, huge, overflowing, past the
 *              message (closed) or valid (delivered byte for byte)
 *   seq        TABLE_ACK with any count, unsolicited STAGE_DONE, TABLE_END
 *              again                                        -> accepted
 *   hello2     a second HELLO                               -> closed
 *   prehello   anything but HELLO/TABLE_ACK before HELLO    -> closed
 *   stage      STAGE_REQ whose list (RDMA-written into the victim's landing
 *              buffer with the key its HELLO gave) has entries outside
 *              every region, straddling a region's ends, into R, of length
 *              0 or 2^64-1, wrapping, past the landing buffer, mixed with
 *              good ones: STAGE_DONE must name the first bad entry with the
 *              documented errno, and what was scattered or gathered before
 *              it must be exactly the entries' bytes
 *   stage_bad  STAGE_REQ with op > GATHER, count 4097 or more -> closed;
 *              count 4096 (the maximum)                     -> carried out
 *   stage2     a second STAGE_REQ while the first runs (closed or answered)
 *   toctou     the list rewritten (into R and the canaries) while the
 *              victim works on it
 *   rdma       RDMA WRITE/READ with the victim's own keys: inside its MRs
 *              (must work, data checked), past their ends, outside them,
 *              WRITE into R, past the landing buffer, random keys (must fail)
 *   vxfer      the victim stages a WRITE to the hostile peer, which answers
 *              STAGE_DONE with the wrong sequence first, twice, with any
 *              status (mapped as documented) or never (timeout)
 *   vreg       the victim's REG_MEM/DEREG_MEM, the hostile peer acknowledging
 *              at once, late, or ahead of time              -> both return 0
 *   flood      up to 12 connections that never say HELLO while the
 *              legitimate engine reconnects and moves data
 *   random     a valid message with 1-8 random bytes changed (no oracle)
 *   rails      a primary HELLO with a rails block, well-formed or broken in
 *              one field (wire-rails.c)         -> accepted / closed
 *   raillink   a rail connection to the victim's rail 1 listener with the
 *              victim's token (accepted, also replayed) or a forged, own,
 *              foreign or stale one, another index, a bad block, no block,
 *              the good block on the primary listener (wire-raillink.c) -> closed
 *
 * "Closed" and "accepted" are the receiver rules of docs/protocol.md; a
 * case that breaks its rule is a violation.  After every case: the canary
 * pages and R are byte for byte what they were, and A is byte for byte what
 * the well-formed writes made it (a mirror kept by the fuzzer; the last
 * 256 KiB of A are scratch for the racy cases).  Every --legit-every cases
 * and at the end the legitimate engine WRITEs (one direct descriptor, 16
 * staged ones) into A and READs it back, verified.  At the end, with every
 * descriptor closed, debugfs lists no engine, region or link, GET_STATS of
 * a fresh engine says proc_regions and proc_host_bytes 0, and VmPin is 0.
 * The VM harness fails the run on any kernel report in the guest log.
 *
 * Exit status: 0 pass, 1 fail, 77 skip (no RDMA device or no /dev/hixl).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "harness.h"
#include "peer.h"
#include "util.h"
#include "wire-fuzz.h"


/* ---- the harness symbols peer.c and util.c use -------------------------------------- */

int ht_failures;

void ht_skip(const char *why)
{
	printf("hixl-wire-fuzz: SKIP: %s\nresult SKIP\n", why);
	exit(77);
}

/* ---- PRNG (splitmix64), one stream per case ----------------------------------------- */

static uint64_t rng;

uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t rnd(uint64_t n)	/* 0 .. n-1 */
{
	return n ? rnd64() % n : 0;
}

bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

void rnd_fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n) {
		uint64_t v = rnd64();
		size_t k = n < 8 ? n : 8;

		memcpy(b, &v, k);
		b += k;
		n -= k;
	}
}

/* ---- state -------------------------------------------------------------------------- */

int vfd = -1, lfd = -1;		/* victim and legitimate engines */
static uint8_t *vmap;			/* canary | A | canary | R | canary */
uint8_t *va, *vr, *vb;		/* A, R (in vmap), B (own mapping) */
uint8_t *canary_ref, *r_ref, *a_mirror;
uint8_t *lbuf, *lchk;		/* the legitimate engine's buffers, registered */
static size_t vmap_len;
static bool trace;

struct hp P;			/* the hostile peer */
bool p_up;
uint16_t p_port;
uint64_t p_tbl_sent;		/* REGION/REGION_DEL the victim should have applied */
unsigned long nconn;
bool l_linked;

unsigned long cur_case, violations, wf_ok, wf_total, legit_checks;
unsigned long n_closed_ok, n_alive_ok;

enum kind {
	K_HDR, K_TRUNC, K_OVERSIZE, K_REGION_BAD, K_REGION_ODD, K_REGION_DEL, K_NOTIFY,
	K_SEQ, K_HELLO2, K_PREHELLO, K_STAGE, K_STAGE_BAD, K_STAGE2, K_TOCTOU, K_RDMA,
	K_VXFER, K_VREG, K_FLOOD, K_RANDOM, K_RAILS, K_RAILLINK, K_REGIONS, K_REGIONS_BAD, NKIND
};

static const char *const kind_name[NKIND] = {
	"hdr", "trunc", "oversize", "region_bad", "region_odd", "region_del", "notify",
	"seq", "hello2", "prehello", "stage", "stage_bad", "stage2", "toctou", "rdma",
	"vxfer", "vreg", "flood", "random", "rails", "raillink", "regions", "regions_bad",
};

/* relative frequency; the ones that need a fresh connection are rarer */
/* (rails, raillink: 0 without two-rail engines, wire-rails.c) */
static unsigned int kind_weight[NKIND] = {
	6, 6, 4, 6, 6, 5, 8, 6, 2, 2, 12, 4, 3, 3, 8, 4, 3, 1, 6, 5, 5, 5, 6,
};

static unsigned long kind_runs[NKIND];
static double kind_ms[NKIND];		/* time spent in each kind's cases */
static enum kind cur_kind;

void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void violation(const char *fmt, ...)
{
	va_list ap;

	printf("VIOLATION case %lu (%s): ", cur_case, kind_name[cur_kind]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	violations++;
}

/* ---- the hostile connection --------------------------------------------------------- */

void peer_down(void)
{
	if (p_up || P.id)
		hp_close(&P);
	p_up = false;
}

/* Connect without a handshake; 0 or -errno. */
int peer_connect(void)
{
	int ret;

	peer_down();
	p_port = PPORT + nconn++ % 100;
	ret = hp_connect(&P, VPORT, P_LAND, P_MEM);
	if (ret) {
		hp_close(&P);
		return ret;
	}
	p_up = true;
	p_tbl_sent = 0;
	return 0;
}

/* A hostile peer that exchanged tables with the victim; 0 or -errno. */
static int peer_ready(void)
{
	int ret, tries;

	if (p_up && !P.disconnected)
		return 0;
	for (tries = 0; tries < 5; tries++) {
		ret = peer_connect();
		if (!ret)
			ret = hp_handshake(&P, p_port, P_LAND);
		if (!ret) {
			p_tbl_sent = 1;		/* hp_handshake()'s REGION */
			return 0;
		}
		peer_down();
		usleep(200 * 1000);
	}
	violation("the hostile peer cannot connect: %s", strerror(-ret));
	return ret;
}

/* Connected, but nothing said yet: wait for the victim's table (its side is established). */
static int peer_fresh(void)
{
	struct timespec t0;
	int ret = peer_connect();

	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!P.table_end && !P.disconnected && hx_ms_since(&t0) < 10000)
		hp_pump(&P, 50);
	return P.table_end ? 0 : -ETIMEDOUT;
}

/*
 * The rule says the victim closes the link: it must disconnect us, also when
 * our send itself failed (a link only marked broken stays on the victim's
 * list, holding its slot, and never tells the peer).
 */
void expect_closed(int send_ret, const char *what)
{
	if (!hp_wait_disconnect(&P, WAIT_MS))
		violation("%s: the victim did not disconnect (our send: %s)", what,
			  send_ret ? strerror(-send_ret) : "completed");
	else
		n_closed_ok++;
	peer_down();
}

/*
 * The rule says the victim accepts: a REGION of our own region behind it
 * must be applied and acknowledged (messages are handled in order).
 */
bool expect_alive(int send_ret, const char *what)
{
	struct timespec t0;

	if (send_ret) {
		violation("%s: send failed: %s", what, strerror(-send_ret));
		peer_down();
		return false;
	}
	if (hp_region(&P)) {
		violation("%s: the link broke", what);
		peer_down();
		return false;
	}
	p_tbl_sent++;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (P.acked < p_tbl_sent && !P.disconnected && hx_ms_since(&t0) < WAIT_MS)
		hp_pump(&P, 20);
	if (P.acked < p_tbl_sent) {
		violation("%s: %s (acked %" PRIu64 " of %" PRIu64 ")", what,
			  P.disconnected ? "the victim closed the link" : "no TABLE_ACK",
			  P.acked, p_tbl_sent);
		peer_down();
		return false;
	}
	n_alive_ok++;
	return true;
}

/* ---- messages ----------------------------------------------------------------------- */

static uint8_t msg[HP_TX_SIZE];

void hdr(void *buf, uint16_t type, uint32_t len)
{
	struct hixl_wire_hdr *h = buf;

	h->magic = htole32(HIXL_WIRE_MAGIC);
	h->type = htole16(type);
	h->version = htole16(HIXL_WIRE_VERSION);
	h->len = htole32(len);
	h->reserved = 0;
}

/* An odd but well-formed REGION in slot k: valid counts, random MR entries. */
static uint32_t build_region_odd(void *buf)
{
	struct hixl_wire_region *r = buf;
	uint64_t slot = rnd(64);
	/* one start per slot: a region at the same start replaces, one below would overlap */
	uint64_t addr = SLOT_BASE + slot * SLOT_LEN + (slot * 97) % 4096;
	uint64_t len = 1 + rnd(SLOT_LEN - 4096);
	uint64_t pages = ((addr + len + 4095) >> 12) - (addr >> 12);
	uint32_t nr = 1 + rnd(pages < 512 ? pages : 512), first, count, i;

	first = rnd(nr);
	count = 1 + rnd(nr - first < HIXL_WIRE_MRS_PER_MSG ? nr - first : HIXL_WIRE_MRS_PER_MSG);
	memset(r, 0, sizeof(*r));
	r->addr = htole64(addr);
	r->len = htole64(len);
	r->flags = htole32(rnd(4));
	r->nr_mrs = htole32(nr);
	r->first = htole32(first);
	r->count = htole32(count);
	for (i = 0; i < count; i++) {
		static const uint64_t lens[] = { 0, 1, 4096, UINT64_MAX, 1ULL << 63 };
		struct hixl_wire_mr *m = &r->mrs[i];

		m->addr = htole64(chance(50) ? addr + rnd(len) : rnd64());
		m->len = htole64(chance(50) ? lens[rnd(5)] : rnd64() >> rnd(64));
		m->iova = htole64(rnd64());
		m->rkey = htole32(chance(50) ? P.mem_mr->rkey : (uint32_t)rnd64());
		m->reserved = 0;
	}
	hdr(r, HIXL_MSG_REGION, sizeof(*r) + count * sizeof(r->mrs[0]));
	return sizeof(*r) + count * sizeof(r->mrs[0]);
}

static uint32_t build_hello(void *buf)
{
	struct hixl_wire_hello *h = buf;

	memset(h, 0, sizeof(*h));
	h->engine.family = htole16(AF_INET);
	h->engine.port = htole16(p_port);
	inet_pton(AF_INET, HX_IP, h->engine.addr);
	h->stage_iova = htole64((uintptr_t)P.land);
	h->stage_size = htole64(chance(50) ? P_LAND : rnd64());
	h->stage_rkey = htole32(P.land_mr->rkey);
	hdr(h, HIXL_MSG_HELLO, sizeof(*h));
	return sizeof(*h);
}

static uint32_t build_notify(void *buf, uint32_t nl, uint32_t ml)
{
	struct hixl_wire_notify *n = buf;
	uint32_t len = sizeof(*n) + nl + ml;

	n->name_len = htole32(nl);
	n->msg_len = htole32(ml);
	rnd_fill(n->data, nl + ml);
	hdr(n, HIXL_MSG_NOTIFY, len);
	return len;
}

/* A well-formed message of @type (REGION: an odd one); its length. */
static uint32_t build(uint16_t type, void *buf)
{
	switch (type) {
	case HIXL_MSG_HELLO:
		return build_hello(buf);
	case HIXL_MSG_REGION:
		return build_region_odd(buf);
	case HIXL_MSG_REGION_DEL: {
		struct hixl_wire_region_del *d = buf;

		uint64_t k = rnd(64);

		d->addr = htole64(chance(50) ? SLOT_BASE + k * SLOT_LEN + (k * 97) % 4096 : rnd64());
		d->len = htole64(rnd64() >> rnd(64));
		hdr(d, type, sizeof(*d));
		return sizeof(*d);
	}
	case HIXL_MSG_NOTIFY:
		return build_notify(buf, 1 + rnd(64), rnd(64));
	case HIXL_MSG_STAGE_REQ: {
		struct hixl_wire_stage_req *q = buf;

		q->op = htole32(rnd(2));
		q->count = 0;
		q->seq = htole64(rnd64());
		hdr(q, type, sizeof(*q));
		return sizeof(*q);
	}
	case HIXL_MSG_STAGE_DONE: {
		struct hixl_wire_stage_done *d = buf;

		d->seq = htole64(rnd64());
		d->status = htole32(rnd(2) ? 0 : (uint32_t)rnd64());
		d->failed = htole32((uint32_t)rnd64());
		hdr(d, type, sizeof(*d));
		return sizeof(*d);
	}
	case HIXL_MSG_TABLE_ACK: {
		struct hixl_wire_ack *a = buf;

		a->applied = htole64(chance(50) ? rnd(P.received + 2) : rnd64());
		hdr(a, type, sizeof(*a));
		return sizeof(*a);
	}
	default:		/* TABLE_END, unknown types: the header alone */
		hdr(buf, type, sizeof(struct hixl_wire_hdr));
		return sizeof(struct hixl_wire_hdr);
	}
}

/* The struct size below which a message of @type is truncated (0: none). */
static uint32_t min_len(uint16_t type, const void *buf)
{
	switch (type) {
	case HIXL_MSG_HELLO:
		return sizeof(struct hixl_wire_hello);
	case HIXL_MSG_REGION:
		return sizeof(struct hixl_wire_region) +
		       le32toh(((const struct hixl_wire_region *)buf)->count) *
		       sizeof(struct hixl_wire_mr);
	case HIXL_MSG_REGION_DEL:
		return sizeof(struct hixl_wire_region_del);
	case HIXL_MSG_NOTIFY:
		return sizeof(struct hixl_wire_notify) +
		       le32toh(((const struct hixl_wire_notify *)buf)->name_len) +
		       le32toh(((const struct hixl_wire_notify *)buf)->msg_len);
	case HIXL_MSG_STAGE_REQ:
		return sizeof(struct hixl_wire_stage_req);
	case HIXL_MSG_STAGE_DONE:
		return sizeof(struct hixl_wire_stage_done);
	case HIXL_MSG_TABLE_ACK:
		return sizeof(struct hixl_wire_ack);
	default:
		return sizeof(struct hixl_wire_hdr);
	}
}

/* A message type the victim knows, HELLO and STAGE_REQ only when allowed. */
static uint16_t pick_type(bool hello, bool stage_req)
{
	for (;;) {
		uint16_t t = 1 + rnd(8);

		if ((t == HIXL_MSG_HELLO && !hello) || (t == HIXL_MSG_STAGE_REQ && !stage_req))
			continue;
		return t;
	}
}

/* ---- invariants --------------------------------------------------------------------- */

static uint8_t *canary(int i)
{
	static const size_t off[3] = { 0, CANARY_LEN + A_LEN, 2 * CANARY_LEN + A_LEN + R_LEN };

	return vmap + off[i];
}

static void check_memory(void)
{
	long d;
	int i;

	for (i = 0; i < 3; i++) {
		d = hx_first_diff(canary(i), canary_ref + i * CANARY_LEN, CANARY_LEN);
		if (d >= 0) {
			violation("unregistered canary %d changed at byte %ld", i, d);
			memcpy(canary(i), canary_ref + i * CANARY_LEN, CANARY_LEN);
		}
	}
	d = hx_first_diff(vr, r_ref, R_LEN);
	if (d >= 0) {
		violation("read-only region R changed at byte %ld", d);
		memcpy(vr, r_ref, R_LEN);
	}
	d = hx_first_diff(va, a_mirror, A_MIR);
	if (d >= 0) {
		violation("region A is not what the well-formed writes made it, byte %ld", d);
		memcpy(a_mirror, va, A_MIR);
	}
}

/* One TRANSFER, retried while the link connects. */
long xfer_retry(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d,
		       uint32_t n, uint32_t *failed)
{
	long ret;
	int tries = 0;

	do {
		ret = hx_xfer(fd, port, op, d, n, 10000, failed);
	} while (ret == -EAGAIN && ++tries < 200 && !usleep(50000));
	return ret;
}

/* The legitimate engine linked to the victim, (re)connecting when asked or unlinked. */
bool legit_link(bool reconnect)
{
	struct timespec t0;
	long ret;

	if (reconnect && l_linked) {
		hx_disconnect(lfd, VPORT);
		l_linked = false;
	}
	if (l_linked)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ret = hx_connect(lfd, VPORT, 10000);
	} while (ret && ret != -EISCONN && hx_ms_since(&t0) < 20000 && !usleep(100000));
	if (ret && ret != -EISCONN) {
		violation("the legitimate engine cannot connect: %s", strerror(-ret));
		return false;
	}
	l_linked = true;
	return true;
}

/*
 * The legitimate engine: (re)connect when asked or unlinked, WRITE one direct
 * and 16 staged descriptors into A, READ them back; every byte checked.
 */
static void legit_check(bool reconnect)
{
	struct hixl_op_desc d[17];
	uint32_t failed = 0;
	uint64_t off = rnd(A_MIR - 512 * KiB) & ~7ULL;
	long ret;
	int i;

	legit_checks++;
	if (!legit_link(reconnect))
		return;
	rnd_fill(lbuf, 1 * MiB);
	d[0] = (struct hixl_op_desc){ (uintptr_t)lbuf, (uintptr_t)va + off, 384 * KiB };
	for (i = 1; i < 17; i++)	/* small: staged */
		d[i] = (struct hixl_op_desc){ (uintptr_t)lbuf + 512 * KiB + i * 4 * KiB,
					      (uintptr_t)va + off + 384 * KiB + i * 4 * KiB,
					      1 + rnd(4 * KiB) };
	wf_total++;
	ret = xfer_retry(lfd, VPORT, HIXL_OP_WRITE, d, 17, &failed);
	if (ret) {
		violation("legitimate WRITE: %s (descriptor %u)", strerror(-ret), failed);
		l_linked = false;
		hx_disconnect(lfd, VPORT);
		return;
	}
	for (i = 0; i < 17; i++)
		memcpy(a_mirror + (d[i].remote_addr - (uintptr_t)va),
		       (void *)(uintptr_t)d[i].local_addr, d[i].len);
	if (hx_first_diff(va, a_mirror, A_MIR) >= 0) {
		violation("legitimate WRITE: A differs from what was written");
		memcpy(a_mirror, va, A_MIR);
		return;
	}
	wf_ok++;
	for (i = 0; i < 17; i++)
		d[i].local_addr = d[i].local_addr - (uintptr_t)lbuf + (uintptr_t)lchk;
	memset(lchk, 0, 1 * MiB);
	wf_total++;
	ret = xfer_retry(lfd, VPORT, HIXL_OP_READ, d, 17, &failed);
	if (ret) {
		violation("legitimate READ: %s (descriptor %u)", strerror(-ret), failed);
		l_linked = false;
		hx_disconnect(lfd, VPORT);
		return;
	}
	for (i = 0; i < 17; i++)
		if (hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				  (void *)(uintptr_t)d[i].remote_addr, d[i].len) >= 0) {
			violation("legitimate READ: descriptor %d differs", i);
			return;
		}
	wf_ok++;
}

/* ---- cases: malformed messages ------------------------------------------------------ */

static void case_hdr(void)
{
	struct hixl_wire_hdr *h = (void *)msg;
	uint16_t type = chance(85) ? pick_type(true, P.eng_stage_size > 0) :
		       (chance(50) ? 0 : 9 + rnd(0xfff6));
	uint32_t len = build(type, msg);

	if (type >= 1 && type <= 8) {
		switch (rnd(3)) {
		case 0:
			h->magic = htole32(HIXL_WIRE_MAGIC ^ (1U << rnd(32)));
			break;
		case 1:
			h->version = htole16(chance(50) ? 0 : HIXL_WIRE_VERSION + 1 + rnd(0xfffe));
			break;
		default: {
			uint32_t bad;

			do {
				bad = chance(50) ? len + rnd(9) - 4 : (uint32_t)rnd64();
			} while (bad == len);
			h->len = htole32(bad);
		}
		}
	}
	expect_closed(hp_send_raw(&P, msg, len), "broken header");
}

static void case_trunc(void)
{
	uint16_t type = chance(90) ? pick_type(true, true) : 0;
	uint32_t full, len;

	if (type == HIXL_MSG_TABLE_END)
		type = HIXL_MSG_HELLO;
	full = build(type, msg);
	if (!type || chance(15)) {
		len = rnd(sizeof(struct hixl_wire_hdr));	/* not even a header */
		if (len >= 8)
			((struct hixl_wire_hdr *)msg)->len = htole32(len);
	} else {
		uint32_t min = min_len(type, msg);

		len = sizeof(struct hixl_wire_hdr) + rnd(min - sizeof(struct hixl_wire_hdr));
		((struct hixl_wire_hdr *)msg)->len = htole32(len);
	}
	(void)full;
	expect_closed(hp_send_raw(&P, msg, len), "truncated message");
}

static void case_oversize(void)
{
	static const uint16_t ok_types[] = {
		HIXL_MSG_REGION, HIXL_MSG_REGION_DEL, HIXL_MSG_TABLE_END, HIXL_MSG_NOTIFY,
		HIXL_MSG_STAGE_DONE, HIXL_MSG_TABLE_ACK,
	};
	uint16_t type;
	uint32_t len, big;

	if (chance(40)) {		/* more than the victim's receive buffer */
		type = pick_type(true, true);
		len = build(type, msg);
		big = HIXL_MSG_SIZE + 1 + rnd(HIXL_MSG_SIZE);
		rnd_fill(msg + len, big - len);
		((struct hixl_wire_hdr *)msg)->len = htole32(big);
		expect_closed(hp_send_raw(&P, msg, big), "message larger than a receive buffer");
		return;
	}
	type = ok_types[rnd(6)];
	len = build(type, msg);
	big = len + 1 + rnd(HIXL_MSG_SIZE - len);
	rnd_fill(msg + len, big - len);
	((struct hixl_wire_hdr *)msg)->len = htole32(big);
	if (type == HIXL_MSG_REGION || type == HIXL_MSG_REGION_DEL)
		p_tbl_sent++;
	expect_alive(hp_send_raw(&P, msg, big), "trailing bytes after a valid message");
}

static void case_region_bad(void)
{
	struct hixl_wire_region *r = (void *)msg;
	uint32_t len = build_region_odd(msg), nr = le32toh(r->nr_mrs);
	uint64_t addr = le64toh(r->addr), rlen = le64toh(r->len);
	uint64_t pages = ((addr + rlen + 4095) >> 12) - (addr >> 12);

	switch (rnd(7)) {
	case 0:		/* more entries than a message holds */
		r->count = htole32(HIXL_WIRE_MRS_PER_MSG + 1 + rnd(chance(50) ? 8 : UINT32_MAX - 200));
		break;
	case 1:		/* first past nr_mrs, or first + count past it (also wrapping) */
		if (chance(50)) {
			r->first = htole32(nr + 1 + rnd(UINT32_MAX - nr - 1));
		} else {
			r->first = htole32(chance(50) ? nr : UINT32_MAX - rnd(3));
			r->count = htole32(1 + rnd(3));
			len = sizeof(*r) + le32toh(r->count) * sizeof(r->mrs[0]);
			rnd_fill(r->mrs, len - sizeof(*r));
		}
		break;
	case 2:
		r->nr_mrs = 0;
		break;
	case 3:		/* more MRs than the region's pages */
		r->nr_mrs = htole32(pages + 1 + rnd(chance(50) ? 4 : UINT32_MAX - pages - 1));
		break;
	case 4:		/* a range that wraps, or is empty */
		if (chance(80)) {
			r->addr = htole64(UINT64_MAX - rnd(1 * MiB));
			r->len = htole64(2 * MiB + rnd(UINT64_MAX / 2));
		} else {
			r->len = 0;
		}
		break;
	case 5:		/* covers the peer's own region from below: EEXIST */
		r->addr = htole64((uintptr_t)P.mem - 4096);
		r->len = htole64(P_MEM + 8192);
		r->nr_mrs = htole32(1);
		r->first = 0;
		r->count = htole32(1);
		len = sizeof(*r) + sizeof(r->mrs[0]);
		break;
	default:	/* count entries announced, fewer sent */
		r->count = htole32(le32toh(r->count) + 1);
		if (le32toh(r->first) + le32toh(r->count) > nr)
			r->first = htole32(nr - le32toh(r->count) < nr ? nr - le32toh(r->count) : 0);
		if (le32toh(r->count) > HIXL_WIRE_MRS_PER_MSG)
			r->count = htole32(HIXL_WIRE_MRS_PER_MSG + 1);
		break;
	}
	hdr(r, HIXL_MSG_REGION, len);
	expect_closed(hp_send_raw(&P, msg, len), "malformed REGION");
}

static void case_region_odd(void)
{
	int i, n = 1 + rnd(4), ret = 0;

	for (i = 0; i < n && !ret; i++) {
		uint32_t len = build_region_odd(msg);

		ret = hp_send_raw(&P, msg, len);
		p_tbl_sent++;
	}
	expect_alive(ret, "REGION with MR entries that do not cover it");
}

static void case_region_del(void)
{
	struct hixl_wire_region_del *d = (void *)msg;
	int i, n = 1 + rnd(4), ret = 0;

	for (i = 0; i < n && !ret; i++) {
		build(HIXL_MSG_REGION_DEL, msg);
		if (chance(20))		/* inside our region, not its start */
			d->addr = htole64((uintptr_t)P.mem + 1 + rnd(P_MEM - 1));
		else if (chance(10))	/* ours: the probe announces it again */
			d->addr = htole64((uintptr_t)P.mem);
		ret = hp_send_raw(&P, msg, sizeof(*d));
		p_tbl_sent++;
	}
	expect_alive(ret, "REGION_DEL of an unknown range");
}

/* A well-formed REGIONS of up to @max whole regions in distinct slots; its length. */
static uint32_t build_regions(void *buf, uint32_t max, uint32_t off[], uint32_t *count)
{
	struct hixl_wire_regions *m = buf;
	uint32_t len = sizeof(*m), n = 0, i, nr, slot0 = rnd(64);

	while (n < max && n < 64) {
		struct hixl_wire_region_ent *e = (void *)((uint8_t *)buf + len);
		uint64_t slot = (slot0 + n) % 64;
		uint64_t addr = SLOT_BASE + slot * SLOT_LEN + (slot * 97) % 4096;
		uint64_t rlen = 1 + rnd(SLOT_LEN - 4096);
		uint64_t pages = ((addr + rlen + 4095) >> 12) - (addr >> 12);
		uint32_t room;

		if (len + sizeof(*e) + sizeof(e->mrs[0]) > HIXL_MSG_SIZE)
			break;
		room = (HIXL_MSG_SIZE - len - sizeof(*e)) / sizeof(e->mrs[0]);
		nr = 1 + rnd(chance(70) ? 1 : (pages < room ? pages : room));
		e->addr = htole64(addr);
		e->len = htole64(rlen);
		e->flags = htole32(rnd(4));
		e->nr_mrs = htole32(nr);
		for (i = 0; i < nr; i++)
			e->mrs[i] = (struct hixl_wire_mr){
				.addr = htole64(chance(50) ? addr + rnd(rlen) : rnd64()),
				.len = htole64(rnd64() >> rnd(64)),
				.iova = htole64(rnd64()),
				.rkey = htole32(chance(50) ? P.mem_mr->rkey : (uint32_t)rnd64()),
			};
		off[n++] = len;
		len += sizeof(*e) + nr * sizeof(e->mrs[0]);
	}
	m->count = htole32(n);
	m->reserved = 0;
	*count = n;
	hdr(m, HIXL_MSG_REGIONS, len);
	return len;
}

static void case_regions(void)
{
	uint32_t off[64], n, len;
	int i, k = 1 + rnd(3), ret = 0;

	for (i = 0; i < k && !ret; i++) {
		len = build_regions(msg, 1 + rnd(72), off, &n);
		ret = hp_send_raw(&P, msg, len);
		p_tbl_sent++;
	}
	expect_alive(ret, "REGIONS of whole regions");
}

static void case_regions_bad(void)
{
	struct hixl_wire_regions *m = (void *)msg;
	uint32_t off[64], n, len = build_regions(msg, 1 + rnd(8), off, &n);
	struct hixl_wire_region_ent *e = (void *)(msg + off[rnd(n)]);

	switch (rnd(12)) {
	case 0:
		m->count = 0;
		break;
	case 1:		/* an entry announced, not sent */
		m->count = htole32(n + 1 + rnd(chance(50) ? 4 : UINT32_MAX - n - 1));
		break;
	case 2:		/* bytes no entry covers */
		if (n > 1) {
			m->count = htole32(n - 1);
		} else {
			memset(msg + len, 0, 8);
			len += 8;
		}
		break;
	case 3:
		m->reserved = htole32(1U << rnd(32));
		break;
	case 4:
		e->flags = htole32(le32toh(e->flags) | 4U << rnd(30));
		break;
	case 5:
		e->mrs[rnd(le32toh(e->nr_mrs))].reserved = htole32(1 + rnd(UINT32_MAX - 1));
		break;
	case 6:		/* nr_mrs 0, past the message, or above the region's pages */
		if (chance(30) || le32toh(e->nr_mrs) < 2)
			e->nr_mrs = chance(50) ? 0 : htole32(le32toh(e->nr_mrs) + 126 +
							    rnd(UINT32_MAX / 2));
		else
			e->len = htole64(1);
		break;
	case 7:		/* wraps, or empty */
		if (chance(80)) {
			e->addr = htole64(UINT64_MAX - rnd(1 * MiB));
			e->len = htole64(2 * MiB + rnd(UINT64_MAX / 2));
		} else {
			e->len = 0;
		}
		break;
	case 8:		/* over the peer's own region: EEXIST */
		e->addr = htole64((uintptr_t)P.mem - 4096);
		e->len = htole64(P_MEM + 8192);
		break;
	case 9:		/* the next entry runs into the first from below: EEXIST */
		if (n > 1) {	/* (one starting inside a region would replace it) */
			struct hixl_wire_region_ent *f = (void *)(msg + off[0]);
			struct hixl_wire_region_ent *g = (void *)(msg + off[1]);

			g->addr = htole64(le64toh(f->addr) - 1);
			g->len = htole64(2);
		} else {
			e->addr = htole64((uintptr_t)P.mem - 4096);
			e->len = htole64(8192);
		}
		break;
	case 10:	/* cut inside an entry */
		len = off[n - 1] + rnd(len - off[n - 1]);
		break;
	default: {	/* a piece of an entry past the last one, counted */
		uint32_t extra = 8 + rnd(16);

		m->count = htole32(n + 1);
		rnd_fill(msg + len, extra);
		len += extra;
		break;
	}
	}
	hdr(m, HIXL_MSG_REGIONS, len);
	expect_closed(hp_send_raw(&P, msg, len), "malformed REGIONS");
}

/* ---- cases: NOTIFY, sequence, HELLO ------------------------------------------------- */

static void case_notify(void)
{
	struct hixl_wire_notify *n = (void *)msg;
	static struct hixl_notify got[4];
	struct hixl_get_notifies g;
	uint32_t nl, ml, len;
	int ret;

	do {		/* what earlier cases left queued (trailing bytes, random ones) */
		memset(&g, 0, sizeof(g));
		g.buf = (uintptr_t)got;
		g.max = 4;
	} while (!xioctl(vfd, HIXL_IOC_GET_NOTIFIES, &g) && g.count);
	if (chance(50)) {
		static const uint32_t bad[] = { 0, 1025, 4096, 0x7fffffff, 0x80000000, UINT32_MAX };

		nl = 1 + rnd(HIXL_NOTIFY_MAX_NAME);
		ml = rnd(HIXL_NOTIFY_MAX_MSG + 1);
		len = build_notify(msg, nl, ml);
		switch (rnd(4)) {
		case 0:
			n->name_len = htole32(bad[rnd(6)]);
			if (!n->name_len)
				break;
			__attribute__((fallthrough));	/* and an overflowing message length */
		case 1:
			n->msg_len = htole32(bad[1 + rnd(5)]);
			break;
		case 2:		/* name_len + msg_len wraps to what the message holds */
			n->name_len = htole32(1 + rnd(8));
			n->msg_len = htole32(0U - le32toh(n->name_len) + rnd(le32toh(n->name_len)));
			break;
		default:	/* one byte past the message */
			len = sizeof(*n) + nl + ml - 1;
			hdr(n, HIXL_MSG_NOTIFY, len);
			break;
		}
		expect_closed(hp_send_raw(&P, msg, len), "malformed NOTIFY");
		return;
	}
	nl = 1 + rnd(HIXL_NOTIFY_MAX_NAME);
	ml = rnd(HIXL_NOTIFY_MAX_MSG + 1);
	len = build_notify(msg, nl, ml);
	ret = hp_send_raw(&P, msg, len);
	if (!expect_alive(ret, "valid NOTIFY"))
		return;
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)got;
	g.max = 4;
	ret = xioctl(vfd, HIXL_IOC_GET_NOTIFIES, &g);
	if (ret || g.count != 1 || got[0].name_len != nl || got[0].msg_len != ml ||
	    memcmp(got[0].name, n->data, nl) || memcmp(got[0].msg, n->data + nl, ml) ||
	    got[0].from.port != p_port)
		violation("NOTIFY of %u+%u bytes: GET_NOTIFIES %d, %u queued, %u+%u bytes, %s",
			  nl, ml, ret, g.count, got[0].name_len, got[0].msg_len,
			  g.count ? "content differs" : "none");
}

static void case_seq(void)
{
	int i, n = 1 + rnd(6), ret = 0;

	for (i = 0; i < n && !ret; i++) {
		uint16_t type = (const uint16_t[]){ HIXL_MSG_TABLE_ACK, HIXL_MSG_STAGE_DONE,
						    HIXL_MSG_TABLE_END }[rnd(3)];

		ret = hp_send_raw(&P, msg, build(type, msg));
	}
	expect_alive(ret, "TABLE_ACK/STAGE_DONE/TABLE_END out of sequence");
}

static void case_hello2(void)
{
	expect_closed(hp_send_raw(&P, msg, build(HIXL_MSG_HELLO, msg)), "second HELLO");
}

static void case_prehello(void)
{
	uint16_t type;
	int ret;

	if (peer_fresh()) {
		peer_down();
		return;
	}
	if (chance(25)) {	/* TABLE_ACK may come first; then a normal exchange */
		ret = hp_send_raw(&P, msg, build(HIXL_MSG_TABLE_ACK, msg));
		if (!ret)
			ret = hp_hello(&P, p_port, P_LAND);
		if (!ret)
			ret = hp_region(&P);
		if (!ret)
			ret = hp_table_end(&P);
		p_tbl_sent = 1;
		expect_alive(ret, "TABLE_ACK before HELLO");
		return;
	}
	type = 2 + rnd(6);	/* REGION .. STAGE_DONE, not HELLO, not TABLE_ACK */
	expect_closed(hp_send_raw(&P, msg, build(type, msg)), "message before HELLO");
}

/* ---- cases: staging requests -------------------------------------------------------- */

#define MAX_ENTS	(HIXL_STAGE_MAX_ENTS + 64)
static struct hixl_wire_stage_ent ents[MAX_ENTS];

/* The victim's own model of an entry (hixl_stage_work()): 0 or the errno. */
static int ent_status(uint64_t addr, uint64_t len, uint64_t room, bool scatter)
{
	uint64_t a0 = (uintptr_t)va, r0 = (uintptr_t)vr;

	if (!len || len > room)
		return EPROTO;
	if (addr + len < addr)
		return ERANGE;
	if (addr >= a0 && addr + len <= a0 + A_LEN)
		return 0;
	if (addr >= r0 && addr + len <= r0 + R_LEN)
		return scatter ? EACCES : 0;
	if (addr >= (uintptr_t)vb && addr + len <= (uintptr_t)vb + B_LEN)
		return 0;	/* B: the victim's third registration, not checked */
	return ERANGE;
}

/* A random entry of one of the interesting kinds. */
static void ent_pick(struct hixl_wire_stage_ent *e, bool scatter, uint64_t room, bool good)
{
	uint64_t a0 = (uintptr_t)va, r0 = (uintptr_t)vr, addr, len;
	uint64_t mir = scatter ? A_MIR : A_LEN;	/* scatter: only the mirrored part */
	unsigned int k = good ? 0 : rnd(10);

	len = 1 + rnd(chance(70) ? 512 : 16 * KiB);
	if (len > room)
		len = room ? room : 1;
	switch (k) {
	case 0: case 1:		/* inside A (or R for a gather) */
		if (!scatter && chance(30)) {
			addr = r0 + rnd(R_LEN - len + 1);
		} else {
			if (len > mir)
				len = mir;
			addr = a0 + rnd(mir - len + 1);
		}
		break;
	case 2:			/* into R */
		addr = r0 + rnd(R_LEN - (len < R_LEN ? len : R_LEN) + 1);
		break;
	case 3:			/* a canary: no region */
		addr = (uintptr_t)canary(rnd(3)) + rnd(CANARY_LEN);
		break;
	case 4:			/* straddling A's or R's end or start */
		addr = (chance(50) ? a0 + A_LEN : r0 + R_LEN) - rnd(len);
		if (chance(50))
			addr = (chance(50) ? a0 : r0) - 1 - rnd(len > 1 ? len - 1 : 1);
		len += 1;
		break;
	case 5:
		len = 0;
		addr = a0;
		break;
	case 6:
		len = UINT64_MAX - rnd(2);
		addr = a0 + rnd(A_MIR);
		break;
	case 7:			/* past what the landing buffer holds */
		len = room + 1 + rnd(4096);
		addr = a0;
		break;
	case 8:			/* wrapping */
		addr = UINT64_MAX - rnd(4096);
		len = 1 + rnd(8192);
		break;
	default:
		addr = chance(50) ? rnd64() : a0 + rnd(4 * MiB) - 2 * MiB;
		len = rnd64() >> rnd(64);
		break;
	}
	e->addr = htole64(addr);
	e->len = htole64(len);
}

/* RDMA WRITE of our buffer [0, len) into the victim's landing buffer at off. */
static int land_write(uint64_t off, const void *src, uint32_t len)
{
	if (!len)
		return 0;
	memcpy(P.land, src, len);
	return hp_rdma(&P, true, P.land, len, P.eng_stage_iova + off, P.eng_stage_rkey, WAIT_MS,
		       NULL);
}

static int send_stage_req(uint32_t op, uint32_t count, uint64_t seq)
{
	struct hixl_wire_stage_req *q = (void *)msg;

	q->op = htole32(op);
	q->count = htole32(count);
	q->seq = htole64(seq);
	hdr(q, HIXL_MSG_STAGE_REQ, sizeof(*q));
	return hp_send_raw(&P, msg, sizeof(*q));
}

/* Pump until the STAGE_DONE for seq; 1 got it (in *st, *failed), 0 not, -errno closed. */
static int wait_stage_done(uint64_t seq, uint32_t *st, uint32_t *failed, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < ms) {
		const struct hixl_wire_stage_done *d = (const void *)P.msg;
		int t = hp_pump(&P, 50);

		if (t < 0)
			return t;
		if (t == HIXL_MSG_STAGE_DONE && P.msg_len >= sizeof(*d) && le64toh(d->seq) == seq) {
			*st = le32toh(d->status);
			*failed = le32toh(d->failed);
			return 1;
		}
	}
	return 0;
}

/*
 * One staging request with count entries of ents[]: written, requested,
 * answered as the model says; data checked for what was carried out.
 */
static void stage_run(bool scatter, uint32_t count, const char *what)
{
	uint64_t size = P.eng_stage_size, room = size - HIXL_STAGE_LIST, doff = 0, seq = rnd64();
	uint32_t i, want_failed = count, st = 0, failed = 0;
	int want = 0, ret;
	uint8_t *data = P.mem;	/* our copy of the data part, up to P_MEM bytes */

	for (i = 0; i < count; i++) {
		want = ent_status(le64toh(ents[i].addr), le64toh(ents[i].len), room - doff, scatter);
		if (want) {
			want_failed = i;
			break;
		}
		doff += le64toh(ents[i].len);
	}
	if (!want)
		want_failed = count;
	if (doff > P_MEM) {	/* our staging copy cannot hold more: a bug of the fuzzer */
		printf("hixl-wire-fuzz: internal: %" PRIu64 " bytes staged\n", doff);
		return;
	}
	ret = land_write(0, ents, count * sizeof(ents[0]));
	if (!ret && scatter) {
		rnd_fill(data, doff);
		ret = hp_rdma(&P, true, data, doff, P.eng_stage_iova + HIXL_STAGE_LIST,
			      P.eng_stage_rkey, WAIT_MS, NULL);
	}
	if (!ret)
		ret = send_stage_req(scatter ? HIXL_STAGE_SCATTER : HIXL_STAGE_GATHER, count, seq);
	if (!ret)
		ret = wait_stage_done(seq, &st, &failed, 15000);
	if (ret != 1) {
		violation("%s: no STAGE_DONE (%d)", what, ret);
		peer_down();
		return;
	}
	wf_total += want_failed > 0;
	if ((int)st != want || failed != want_failed) {
		violation("%s: STAGE_DONE status %u entry %u, the rules say %d entry %u", what, st,
			  failed, want, want_failed);
		memcpy(a_mirror, va, A_MIR);
		return;
	}
	/* the entries before the failing one were carried out, in order */
	doff = 0;
	if (scatter) {
		for (i = 0; i < want_failed; i++) {
			uint64_t a = le64toh(ents[i].addr), l = le64toh(ents[i].len);

			/* only A's mirrored part is modelled; A's scratch and B are not */
			if (a >= (uintptr_t)va && a + l <= (uintptr_t)va + A_MIR)
				memcpy(a_mirror + (a - (uintptr_t)va), data + doff, l);
			doff += l;
		}
		if (hx_first_diff(va, a_mirror, A_MIR) < 0)
			wf_ok += want_failed > 0;
		return;		/* check_memory() tells the difference */
	}
	for (i = 0; i < want_failed; i++)
		doff += le64toh(ents[i].len);
	if (!doff)
		return;
	ret = hp_rdma(&P, false, data, doff, P.eng_stage_iova + HIXL_STAGE_LIST, P.eng_stage_rkey,
		      WAIT_MS, NULL);
	if (ret) {
		violation("%s: RDMA READ of the gathered data: %s", what, strerror(-ret));
		peer_down();
		return;
	}
	doff = 0;
	for (i = 0; i < want_failed; i++) {
		uint64_t a = le64toh(ents[i].addr), l = le64toh(ents[i].len);

		if (hx_first_diff(data + doff, (void *)(uintptr_t)a, l) >= 0) {
			violation("%s: gathered entry %u differs from the victim's memory", what, i);
			return;
		}
		doff += l;
	}
	wf_ok++;
}

static bool stage_possible(void)
{
	return P.eng_stage_size > HIXL_STAGE_LIST && P.eng_stage_size - HIXL_STAGE_LIST >= 64 * KiB;
}

static void case_stage(void)
{
	bool scatter = chance(50);
	uint64_t room, doff = 0;
	uint32_t count = 1 + rnd(chance(80) ? 8 : 256), i;

	if (!stage_possible()) {	/* no landing buffer: STAGE_REQ is a protocol error */
		expect_closed(send_stage_req(0, 1, 1), "STAGE_REQ without a landing buffer");
		return;
	}
	room = P.eng_stage_size - HIXL_STAGE_LIST;
	if (room > P_MEM)
		room = P_MEM;	/* what our copy holds */
	for (i = 0; i < count; i++) {
		uint64_t left = room - doff;

		ent_pick(&ents[i], scatter, left, chance(85));
		if (!ent_status(le64toh(ents[i].addr), le64toh(ents[i].len), left, scatter))
			doff += le64toh(ents[i].len);
	}
	/* entries the fuzzer's copy cannot hold are protocol errors by the room it uses */
	if (P.eng_stage_size - HIXL_STAGE_LIST > P_MEM)
		for (i = 0, doff = 0; i < count; i++) {
			uint64_t l = le64toh(ents[i].len);

			if (ent_status(le64toh(ents[i].addr), l, UINT64_MAX, scatter))
				break;
			if (l > P_MEM - doff) {
				count = i;
				break;
			}
			doff += l;
		}
	if (!count)
		return;
	stage_run(scatter, count, scatter ? "STAGE_REQ scatter" : "STAGE_REQ gather");
}

static void case_stage_bad(void)
{
	uint32_t i;

	if (!stage_possible())
		return;
	switch (rnd(3)) {
	case 0:
		expect_closed(send_stage_req(2 + rnd(UINT32_MAX - 2), rnd(8), rnd64()),
			      "STAGE_REQ with an unknown op");
		break;
	case 1:
		expect_closed(send_stage_req(rnd(2), HIXL_STAGE_MAX_ENTS + 1 +
					     (chance(50) ? 0 : rnd(UINT32_MAX - HIXL_STAGE_MAX_ENTS - 1)),
					     rnd64()),
			      "STAGE_REQ with more entries than the list holds");
		break;
	default: {	/* the maximum: 4096 entries of 1..64 bytes */
		bool scatter = chance(50);

		for (i = 0; i < HIXL_STAGE_MAX_ENTS; i++) {
			uint64_t len = 1 + rnd(64);

			ents[i].addr = htole64((uintptr_t)va + rnd((scatter ? A_MIR : A_LEN) - len));
			ents[i].len = htole64(len);
		}
		if (chance(30))		/* the last one bad */
			ent_pick(&ents[HIXL_STAGE_MAX_ENTS - 1], scatter, 1 * KiB, false);
		stage_run(scatter, HIXL_STAGE_MAX_ENTS, "STAGE_REQ with 4096 entries");
	}
	}
}

/* A long gather (A is not changed) and a second request while it runs. */
static void case_stage2(void)
{
	uint64_t seq1 = rnd64(), seq2 = rnd64();
	uint32_t i, st, failed;
	int ret;

	if (!stage_possible())
		return;
	for (i = 0; i < HIXL_STAGE_MAX_ENTS; i++) {
		ents[i].addr = htole64((uintptr_t)va + rnd(A_LEN - 256));
		ents[i].len = htole64(256);
	}
	ret = land_write(0, ents, sizeof(ents[0]) * HIXL_STAGE_MAX_ENTS);
	if (!ret)
		ret = send_stage_req(HIXL_STAGE_GATHER, HIXL_STAGE_MAX_ENTS, seq1);
	if (!ret)
		ret = send_stage_req(HIXL_STAGE_GATHER, HIXL_STAGE_MAX_ENTS, seq2);
	if (ret) {
		peer_down();	/* closed at the second: the rule */
		return;
	}
	/* either the second came while the first ran (closed) or both are answered */
	ret = wait_stage_done(seq1, &st, &failed, 15000);
	if (ret == 1)
		ret = wait_stage_done(seq2, &st, &failed, 15000);
	if (ret != 1)
		peer_down();
}

/* The list is rewritten into R and the canaries while the victim scatters. */
static void case_toctou(void)
{
	static struct hixl_wire_stage_ent bad[HIXL_STAGE_MAX_ENTS];
	uint64_t seq = rnd64(), scr = (uintptr_t)va + A_MIR;
	uint32_t i, st, failed, n = 1024 + rnd(HIXL_STAGE_MAX_ENTS - 1024);
	int ret;

	if (!stage_possible())
		return;
	for (i = 0; i < n; i++) {	/* into A's scratch part: not mirrored */
		ents[i].addr = htole64(scr + rnd(A_LEN - A_MIR - 128));
		ents[i].len = htole64(128);
		bad[i].addr = htole64(chance(50) ? (uintptr_t)vr + rnd(R_LEN - 128) :
				      (uintptr_t)canary(rnd(3)) + rnd(CANARY_LEN - 128));
		bad[i].len = htole64(128);
	}
	ret = land_write(0, ents, n * sizeof(ents[0]));
	if (!ret)
		ret = send_stage_req(HIXL_STAGE_SCATTER, n, seq);
	if (!ret)	/* right behind the request: the victim reads the list meanwhile */
		ret = land_write(0, bad, n * sizeof(bad[0]));
	if (!ret)
		ret = wait_stage_done(seq, &st, &failed, 15000) == 1 ? 0 : -EIO;
	if (ret)
		peer_down();
}

/* ---- cases: RDMA with the victim's keys --------------------------------------------- */

/* The victim's MR over addr in region base (A or R); NULL when its REGION did not come. */
static const struct hp_mr *vmr(uint8_t *base, uint64_t addr)
{
	return hp_mr_find(&P, (uintptr_t)base, addr);
}

static void case_rdma(void)
{
	const struct hp_mr *m;
	uint64_t addr, len, raddr;
	uint8_t *local = P.land;
	int ret, k = rnd(8);
	bool write = chance(50);

	switch (k) {
	case 0: case 1: {	/* inside one MR of A or R: works */
		bool in_r = !write && chance(40);
		uint8_t *base = in_r ? vr : va;
		uint64_t lim = in_r ? R_LEN : A_MIR;

		len = 1 + rnd(chance(50) ? 4 * KiB : 256 * KiB);
		addr = (uintptr_t)base + rnd(lim - len + 1);
		m = vmr(base, addr);
		if (!m || addr + len > m->addr + m->len)
			return;		/* crosses an MR border: not one operation */
		raddr = m->iova + (addr - m->addr);
		if (write)
			rnd_fill(local, len);
		wf_total++;
		ret = hp_rdma(&P, write, local, len, raddr, m->rkey, WAIT_MS, NULL);
		if (ret) {
			violation("RDMA %s of %" PRIu64 " bytes inside the victim's MR: %s",
				  write ? "WRITE" : "READ", len, strerror(-ret));
			peer_down();
			return;
		}
		if (write) {
			memcpy(a_mirror + (addr - (uintptr_t)va), local, len);
		} else if (hx_first_diff(local, (void *)(uintptr_t)addr, len) >= 0) {
			violation("RDMA READ inside the victim's MR: data differs");
			return;
		}
		wf_ok++;
		return;
	}
	case 2: case 3: {	/* past the MR's end, or before its start */
		uint8_t *base = chance(50) ? va : vr;

		m = vmr(base, (uintptr_t)base);
		if (!m)
			return;
		len = 2 + rnd(8 * KiB);
		raddr = k == 2 ? m->iova + m->len - rnd(len - 1) - 1 : m->iova - 1 - rnd(len - 1);
		if (k == 3 && chance(50))	/* wholly outside: a canary's address */
			raddr = m->iova - CANARY_LEN + rnd(CANARY_LEN - len);
		break;
	}
	case 4:			/* WRITE into R with R's key */
		m = vmr(vr, (uintptr_t)vr);
		if (!m)
			return;
		write = true;
		len = 1 + rnd(4 * KiB);
		raddr = m->iova + rnd(m->len - len);
		break;
	case 5: {		/* past the landing buffer */
		static struct hp_mr lm;

		if (!P.eng_stage_rkey)
			return;
		lm.iova = P.eng_stage_iova;
		lm.len = P.eng_stage_size;
		lm.rkey = P.eng_stage_rkey;
		m = &lm;
		len = 2 + rnd(8 * KiB);
		raddr = m->iova + m->len - rnd(len - 1) - 1;
		break;
	}
	default: {		/* a random key at a plausible address */
		static struct hp_mr rm;

		rm.rkey = (uint32_t)rnd64();
		m = vmr(va, (uintptr_t)va);
		if (m && rm.rkey == m->rkey)
			return;
		rm.iova = m ? m->iova : (uintptr_t)va;
		m = &rm;
		len = 1 + rnd(4 * KiB);
		raddr = m->iova + rnd(A_LEN);
		break;
	}
	}
	if (write)
		rnd_fill(local, len);
	ret = hp_rdma(&P, write, local, len, raddr, m->rkey, WAIT_MS, NULL);
	if (!ret)
		violation("RDMA %s of %" PRIu64 " bytes at 0x%" PRIx64 " key 0x%x (outside) worked",
			  write ? "WRITE" : "READ", len, raddr, m->rkey);
	peer_down();		/* the QP is in error now */
}

/* ---- cases: the victim stages to the hostile peer ----------------------------------- */

struct vx {
	struct hixl_op_desc d;
	uint32_t op;
	long ret;
	int done;
};

static void *vx_thread(void *arg)
{
	struct vx *x = arg;

	x->ret = hx_xfer(vfd, p_port, x->op, &x->d, 1, 3000, NULL);
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The victim READs or WRITEs B into an odd region the hostile peer just
 * announced (MR entries that do not cover it, random keys): planned against
 * those entries, posted, failed or not - B is the victim's only local memory
 * touched.  The link may break; the connection is dropped after.
 */
static void vxfer_odd(void)
{
	const struct hixl_wire_region *r = (const void *)msg;
	uint32_t len = build_region_odd(msg);
	uint64_t raddr = le64toh(r->addr), rlen = le64toh(r->len), n;
	struct vx x = { .op = chance(50) ? HIXL_OP_READ : HIXL_OP_WRITE };
	struct timespec t0;
	pthread_t th;

	/* every entry, so that the region is complete and used */
	((struct hixl_wire_region *)msg)->first = 0;
	if (le32toh(r->nr_mrs) > HIXL_WIRE_MRS_PER_MSG)
		((struct hixl_wire_region *)msg)->nr_mrs = htole32(HIXL_WIRE_MRS_PER_MSG);
	((struct hixl_wire_region *)msg)->count = r->nr_mrs;
	len = sizeof(*r) + le32toh(r->nr_mrs) * sizeof(r->mrs[0]);
	hdr(msg, HIXL_MSG_REGION, len);
	if (le32toh(r->nr_mrs) > (((raddr + rlen + 4095) >> 12) - (raddr >> 12)) ||
	    hp_send_raw(&P, msg, len)) {
		peer_down();
		return;
	}
	p_tbl_sent++;
	if (!expect_alive(0, "odd REGION for the victim's transfer"))
		return;
	n = chance(50) ? 1 + rnd(4096) : 256 * KiB;	/* staged or direct */
	if (n > rlen)
		n = rlen;
	x.d = (struct hixl_op_desc){ (uintptr_t)vb + rnd(B_LEN - n + 1), raddr + rnd(rlen - n + 1), n };
	if (pthread_create(&th, NULL, vx_thread, &x)) {
		peer_down();
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < 4000) {	/* a staged one: answer "done" */
		const struct hixl_wire_stage_req *q = (const void *)P.msg;
		int t = hp_pump(&P, 50);

		if (t < 0)
			break;
		if (t == HIXL_MSG_STAGE_REQ && P.msg_len >= sizeof(*q))
			hp_stage_done(&P, le64toh(q->seq), 0, 0);
		if (__atomic_load_n(&x.done, __ATOMIC_ACQUIRE))
			break;
	}
	pthread_join(th, NULL);
	if (trace)
		fprintf(stderr, "  victim's %s of %" PRIu64 " bytes into an odd region: %ld\n",
			x.op == HIXL_OP_READ ? "READ" : "WRITE", n, x.ret);
	peer_down();
}

/* hixl_stage_status(): what a caller sees of the peer's status. */
static long status_seen(uint32_t st)
{
	return st == 0 || st == ERANGE || st == EACCES || st == EPROTO ? -(long)st : -EREMOTEIO;
}

static void case_vxfer(void)
{
	const struct hixl_wire_stage_req *q = (const void *)P.msg;
	struct vx x = { .d = { (uintptr_t)vb + rnd(B_LEN - 4096), (uintptr_t)P.mem + rnd(P_MEM - 4096),
			       1 + rnd(4096) } };
	uint32_t status = chance(50) ? 0 : (uint32_t)(chance(50) ? rnd(200) : rnd64());
	int mode = rnd(4), t = 0;
	struct timespec t0;
	pthread_t th;
	uint64_t seq = 0;

	if (chance(30)) {
		vxfer_odd();
		return;
	}
	x.op = HIXL_OP_WRITE;
	if (pthread_create(&th, NULL, vx_thread, &x))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < 3000 && !P.disconnected) {
		t = hp_pump(&P, 50);
		if (t == HIXL_MSG_STAGE_REQ && P.msg_len >= sizeof(*q)) {
			seq = le64toh(q->seq);
			break;
		}
	}
	if (t == HIXL_MSG_STAGE_REQ) {
		switch (mode) {
		case 0:		/* another sequence first: ignored */
			hp_stage_done(&P, seq + 1 + rnd(1000), (uint32_t)rnd64(), (uint32_t)rnd64());
			hp_stage_done(&P, seq, status, 0);
			break;
		case 1:		/* twice: the second is ignored */
			hp_stage_done(&P, seq, status, 0);
			hp_stage_done(&P, seq, (uint32_t)rnd64(), (uint32_t)rnd64());
			break;
		case 2:
			hp_stage_done(&P, seq, status, 0);
			break;
		default:	/* never: the victim times out, then a late answer */
			break;
		}
	}
	pthread_join(th, NULL);
	if (t == HIXL_MSG_STAGE_REQ && mode == 3)
		hp_stage_done(&P, seq, 0, 0);
	if (t != HIXL_MSG_STAGE_REQ) {
		/* no staging on this link (no pool left for it): planned direct, fine */
		wf_total++;
		if (x.ret == 0)
			wf_ok++;
		peer_down();
		return;
	}
	wf_total += mode != 3 && !status;
	if (mode != 3 && x.ret != status_seen(status))
		violation("victim's staged WRITE answered status %u: returned %ld, want %ld",
			  status, x.ret, status_seen(status));
	else if (mode != 3 && !status)
		wf_ok++;
	if (mode == 3 && x.ret != -ETIMEDOUT)
		violation("victim's staged WRITE never answered: returned %ld, want %d", x.ret,
			  -ETIMEDOUT);
	if (mode == 3)
		peer_down();	/* the victim broke the link (its STAGE_REQ timed out) */
	else
		expect_alive(0, "STAGE_DONE of another sequence or twice");
}

/* ---- cases: the victim's table updates ---------------------------------------------- */

struct vr {
	void *addr;		/* REG_MEM of addr, or DEREG_MEM of handle */
	uint64_t handle;
	long ret;
	int done;
};

static void *vr_thread(void *arg)
{
	struct vr *x = arg;
	struct hixl_reg_mem out;

	if (x->addr) {
		x->ret = reg_mem(vfd, x->addr, 64 * KiB, 0, &out);
		x->handle = out.handle;
	} else {
		x->ret = dereg_mem(vfd, x->handle);
	}
	__atomic_store_n(&x->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * One REG_MEM or DEREG_MEM of the victim while the hostile peer answers its
 * REGION/REGION_DEL: at once, late (up to 1.5 s), or before it came (a
 * TABLE_ACK counting messages not sent yet).  Returns the call's result.
 */
static long vr_run(struct vr *x, int mode, const char *what)
{
	uint64_t before = P.received;
	struct timespec t0;
	pthread_t th;

	x->done = 0;
	if (mode == 2) {	/* acknowledged ahead: the victim need not wait */
		struct hixl_wire_ack *a = (void *)msg;

		a->applied = htole64(P.received + 1 + rnd(1000));
		hdr(a, HIXL_MSG_TABLE_ACK, sizeof(*a));
		if (hp_send_raw(&P, msg, sizeof(*a)))
			return -ECONNRESET;
	}
	P.hold_acks = mode == 1;
	if (pthread_create(&th, NULL, vr_thread, x)) {
		P.hold_acks = false;
		return -EAGAIN;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!__atomic_load_n(&x->done, __ATOMIC_ACQUIRE) && hx_ms_since(&t0) < 30000) {
		int t = hp_pump(&P, 20);

		if (mode == 1 && (t == HIXL_MSG_REGION || t == HIXL_MSG_REGION_DEL)) {
			usleep(rnd(1500) * 1000);
			hp_ack(&P);
		}
		if (t < 0)
			break;
	}
	pthread_join(th, NULL);
	P.hold_acks = false;
	hp_ack(&P);
	hp_pump(&P, 100);
	if (x->ret)
		violation("victim's %s with the hostile peer linked: %s", what, strerror(-x->ret));
	else if (P.received == before && !P.disconnected)
		violation("victim's %s: no table message reached the hostile peer", what);
	return x->ret;
}

static void case_vreg(void)
{
	static uint8_t *c;
	struct vr x = { 0 };
	int mode = rnd(3);

	if (!c)
		c = hx_map(64 * KiB);
	if (!c)
		return;
	x.addr = c;
	if (vr_run(&x, mode, "REG_MEM"))
		return;
	x.addr = NULL;
	vr_run(&x, rnd(3), "DEREG_MEM");
	if (!P.disconnected)
		expect_alive(0, "the victim's table updates");
}

/* ---- cases: connection flood, random bytes ------------------------------------------ */

static void case_flood(void)
{
	static struct hp fl[12];
	int n = 1 + rnd(12), i;

	for (i = 0; i < n; i++)
		if (hp_connect(&fl[i], VPORT, 0, 0))
			hp_close(&fl[i]);
	legit_check(true);	/* a legitimate engine still gets in */
	for (i = 0; i < n; i++)
		if (fl[i].id)
			hp_close(&fl[i]);
}

static void case_random(void)
{
	uint16_t type = pick_type(true, stage_possible());
	uint32_t len = build(type, msg), i, n = 1 + rnd(8);
	uint16_t t2;
	int ret;

	if (type == HIXL_MSG_STAGE_REQ) {	/* a list of empty entries: nothing is touched */
		memset(ents, 0, HIXL_STAGE_LIST);
		if (land_write(0, ents, HIXL_STAGE_LIST)) {
			peer_down();
			return;
		}
	}
	for (i = 0; i < n; i++)
		msg[rnd(len)] ^= 1 + rnd(255);
	t2 = le16toh(((struct hixl_wire_hdr *)msg)->type);
	if (t2 == HIXL_MSG_REGION || t2 == HIXL_MSG_REGION_DEL)
		p_tbl_sent++;
	ret = hp_send_raw(&P, msg, len);
	if (ret || hp_pump(&P, 100) < 0 || P.disconnected)
		peer_down();
}

/* ---- driver ------------------------------------------------------------------------- */

static enum kind pick_kind(void)
{
	unsigned int total = 0, k, r;

	for (k = 0; k < NKIND; k++)
		total += kind_weight[k];
	r = rnd(total);
	for (k = 0; k < NKIND; k++) {
		if (r < kind_weight[k])
			return k;
		r -= kind_weight[k];
	}
	return K_RANDOM;
}

static void run_case(uint64_t seed, unsigned long i)
{
	struct timespec t0;

	rng = seed ^ (0xa0761d6478bd642fULL * (i + 1));
	rnd64();
	cur_case = i;
	cur_kind = pick_kind();
	kind_runs[cur_kind]++;
	if (trace)
		fprintf(stderr, "case %lu: %s\n", i, kind_name[cur_kind]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cur_kind != K_PREHELLO && cur_kind != K_FLOOD && cur_kind != K_RAILS &&
	    cur_kind != K_RAILLINK && peer_ready())
		return;
	switch (cur_kind) {
	case K_HDR:
		case_hdr();
		break;
	case K_TRUNC:
		case_trunc();
		break;
	case K_OVERSIZE:
		case_oversize();
		break;
	case K_REGION_BAD:
		case_region_bad();
		break;
	case K_REGION_ODD:
		case_region_odd();
		break;
	case K_REGION_DEL:
		case_region_del();
		break;
	case K_REGIONS:
		case_regions();
		break;
	case K_REGIONS_BAD:
		case_regions_bad();
		break;
	case K_NOTIFY:
		case_notify();
		break;
	case K_SEQ:
		case_seq();
		break;
	case K_HELLO2:
		case_hello2();
		break;
	case K_PREHELLO:
		case_prehello();
		break;
	case K_STAGE:
		case_stage();
		break;
	case K_STAGE_BAD:
		case_stage_bad();
		break;
	case K_STAGE2:
		case_stage2();
		break;
	case K_TOCTOU:
		case_toctou();
		break;
	case K_RDMA:
		case_rdma();
		break;
	case K_VXFER:
		case_vxfer();
		break;
	case K_VREG:
		case_vreg();
		break;
	case K_FLOOD:
		case_flood();
		break;
	case K_RAILS:
		case_rails_hello();
		rails_legit_check();
		break;
	case K_RAILLINK:
		case_raillink();
		rails_legit_check();
		break;
	default:
		case_random();
		break;
	}
	check_memory();
	kind_ms[cur_kind] += hx_ms_since(&t0);
}

/* ---- setup and the final check ------------------------------------------------------ */

static int reg(int fd, void *addr, uint64_t len, uint32_t flags)
{
	struct hixl_reg_mem out;
	long ret = reg_mem(fd, addr, len, flags, &out);

	if (ret)
		printf("hixl-wire-fuzz: REG_MEM of %" PRIu64 " bytes: %s\n", len, strerror(-ret));
	return (int)ret;
}

/* The victim activates A's and R's MRs (direct WRITEs from them to the legitimate engine). */
static int victim_activate(void)
{
	struct hixl_op_desc d[2] = {
		{ (uintptr_t)va, (uintptr_t)lchk, A_LEN },
		{ (uintptr_t)vr, (uintptr_t)lchk + A_LEN, R_LEN },
	};
	long ret = hx_connect(vfd, LPORT, 10000);
	uint32_t failed;

	if (!ret)
		ret = xfer_retry(vfd, LPORT, HIXL_OP_WRITE, d, 2, &failed);
	if (ret)
		printf("hixl-wire-fuzz: victim's first WRITE: %s\n", strerror(-ret));
	hx_disconnect(vfd, LPORT);
	return (int)ret;
}

/* Lines of a debugfs file after its header; -1 when it cannot be read. */
static int debugfs_lines(const char *name)
{
	char path[128], line[512];
	FILE *f;
	int n = -1;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hixl/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static int final_check(void)
{
	struct hixl_stats st;
	struct timespec t0;
	int e = -1, r = -1, l = -1, rl = -1, fd;
	long pin = -1, ret = -1;

	peer_down();
	close(lfd);
	close(vfd);
	lfd = vfd = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < 15000) {	/* teardown finishes in work items */
		e = debugfs_lines("engines");
		r = debugfs_lines("regions");
		l = debugfs_lines("links");
		rl = debugfs_lines("raillinks");
		pin = vm_pin_kb();
		if (e <= 0 && r <= 0 && l <= 0 && rl <= 0 && pin == 0)
			break;
		usleep(100 * 1000);
	}
	fd = open_dev();
	memset(&st, 0, sizeof(st));
	ret = fd >= 0 ? xioctl(fd, HIXL_IOC_GET_STATS, &st) : -errno;
	if (fd >= 0)
		close(fd);
	printf("final: debugfs engines %d regions %d links %d raillinks %d (-1: no debugfs), "
	       "VmPin %ld kB, GET_STATS %ld proc_regions %llu proc_host_bytes %llu (after %.1f s)\n",
	       e, r, l, rl, pin,
	       ret, (unsigned long long)st.proc_regions, (unsigned long long)st.proc_host_bytes,
	       hx_ms_since(&t0) / 1000);
	if (e > 0 || r > 0 || l > 0 || rl > 0 || pin != 0 || ret || st.proc_regions || st.proc_host_bytes) {
		printf("FAIL: engines, regions, links or pins left after every descriptor closed\n");
		return 1;
	}
	return 0;
}

static uint8_t *map_or_die(size_t len)
{
	void *p = hx_map(len);

	if (!p) {
		perror("mmap");
		exit(2);
	}
	memset(p, 0, len);
	return p;
}

/* --only: weight 0 for every kind not in the comma-separated @list; -1 when none is left. */
static int only_kinds(const char *list)
{
	unsigned int k, left = 0;

	for (k = 0; k < NKIND; k++) {
		const char *p = strstr(list, kind_name[k]);
		size_t n = strlen(kind_name[k]);
		bool in = false;

		while (p && !in) {	/* a whole item of the list */
			in = (p == list || p[-1] == ',') && (p[n] == ',' || !p[n]);
			p = strstr(p + 1, kind_name[k]);
		}
		if (!in)
			kind_weight[k] = 0;
		left += kind_weight[k];
	}
	return left ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: hixl-wire-fuzz [--cases N] [--seed S] [--from I] [--time SECONDS] "
		"[--legit-every N] [--trace] [--only KIND,...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long ncases = 300, from = 0, legit_every = 25, i, done = 0;
	unsigned long long old_setup, old_hs;
	uint64_t seed = (uint64_t)time(NULL);
	double limit = 0, secs;
	struct timespec t0;
	const char *only = NULL;
	int rc = 0, k;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--cases") && k + 1 < argc)
			ncases = strtoul(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--seed") && k + 1 < argc)
			seed = strtoull(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--from") && k + 1 < argc)
			from = strtoul(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--time") && k + 1 < argc)
			limit = strtod(argv[++k], NULL);
		else if (!strcmp(argv[k], "--legit-every") && k + 1 < argc)
			legit_every = strtoul(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--trace"))
			trace = true;
		else if (!strcmp(argv[k], "--only") && k + 1 < argc)
			only = argv[++k];
		else
			usage();
	}
	if (!legit_every)
		legit_every = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	printf("hixl-wire-fuzz: seed %" PRIu64 " cases %lu from %lu time limit %.0f s\n", seed,
	       ncases, from, limit);

	/* the victim's memory: canary | A | canary | R | canary; B apart */
	vmap_len = 3 * CANARY_LEN + A_LEN + R_LEN;
	vmap = map_or_die(vmap_len);
	va = vmap + CANARY_LEN;
	vr = va + A_LEN + CANARY_LEN;
	vb = map_or_die(B_LEN);
	canary_ref = map_or_die(3 * CANARY_LEN);
	r_ref = map_or_die(R_LEN);
	a_mirror = map_or_die(A_LEN);
	lbuf = map_or_die(2 * MiB);
	lchk = map_or_die(2 * MiB);
	rng = seed;
	rnd_fill(vmap, vmap_len);
	rnd_fill(vb, B_LEN);
	for (k = 0; k < 3; k++)
		memcpy(canary_ref + k * CANARY_LEN, canary(k), CANARY_LEN);
	memcpy(r_ref, vr, R_LEN);
	memcpy(a_mirror, va, A_LEN);

	/* half-open links: at most 8 at once, closed after 2 s (the flood case) */
	old_setup = read_param("max_setup_links");
	old_hs = read_param("handshake_ms");
	write_param("max_setup_links", 8);
	write_param("handshake_ms", 2000);

	vfd = rails_engine(VPORT, 8, 2);	/* two rails when the VM has them */
	lfd = rails_engine(LPORT, 4, 2);
	if (!rails_on)
		kind_weight[K_RAILS] = kind_weight[K_RAILLINK] = 0;
	if (only && only_kinds(only))
		usage();
	if (vfd < 0 || lfd < 0 || reg(vfd, va, A_LEN, 0) || reg(vfd, vr, R_LEN, HIXL_REG_READ_ONLY) ||
	    reg(vfd, vb, B_LEN, 0) || reg(lfd, lbuf, 2 * MiB, 0) || reg(lfd, lchk, 2 * MiB, 0) ||
	    victim_activate()) {
		printf("hixl-wire-fuzz: setup failed\nresult FAIL\n");
		return 1;
	}
	legit_check(false);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = from; i < from + ncases; i++) {
		if (limit > 0 && hx_ms_since(&t0) >= limit * 1000)
			break;
		run_case(seed, i);
		done++;
		if (done % legit_every == 0)
			legit_check(rnd(4) == 0);
		if (done % 100 == 0)
			fprintf(stderr, "hixl-wire-fuzz: %lu cases, %.1f s, %lu violations\n", done,
				hx_ms_since(&t0) / 1000, violations);
		if (violations >= 20) {
			printf("hixl-wire-fuzz: stopping after 20 violations\n");
			break;
		}
	}
	secs = hx_ms_since(&t0) / 1000;
	cur_case = i;
	legit_check(true);
	check_memory();
	rc = final_check();
	write_param("max_setup_links", old_setup);
	write_param("handshake_ms", old_hs);
	if (violations)
		rc = 1;
	if (!wf_ok) {
		printf("FAIL: no well-formed transfer succeeded\n");
		rc = 1;
	}
	printf("hixl-wire-fuzz: seed %" PRIu64 ": %lu cases (%lu..%lu) in %.1f s (%.2f/s), "
	       "%lu connections, %lu legitimate checks, %lu closed and %lu accepted as the rules say, "
	       "%lu violations\n", seed, done, from, from + done - (done > 0), secs,
	       secs > 0 ? done / secs : 0.0, nconn, legit_checks, n_closed_ok, n_alive_ok, violations);
	printf("well-formed transfers: %lu of %lu succeeded, data verified\n", wf_ok, wf_total);
	printf("per kind:");
	for (k = 0; k < NKIND; k++)
		printf(" %s=%lu", kind_name[k], kind_runs[k]);
	printf("\nseconds per kind:");
	for (k = 0; k < NKIND; k++)
		printf(" %s=%.1f", kind_name[k], kind_ms[k] / 1000);
	printf("\n");
	rails_summary();
	printf("result %s\n", rc ? "FAIL" : "PASS");
	if (violations)
		printf("reproduce one case: hixl-wire-fuzz --seed %" PRIu64 " --from I --cases 1\n",
		       seed);
	return rc;
}
