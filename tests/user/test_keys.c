// SPDX-License-Identifier: GPL-2.0
/*
 * test_keys.c - what an engine's keys and addresses tell a peer, and what
 * a peer that holds them can do.  The peer is the
 * userspace wire peer of peer.c, playing a hostile remote host:
 *
 *   keys_no_kernel_iova    no announced RDMA address (REGION entries, the
 *                          HELLO's landing buffer) is a kernel address; the
 *                          announced addresses still reach the memory
 *
 * Engines live on 10.77.0.1 (rxe0 in the test VM), ports 22100-22149; the
 * peers claim ports 22150-22199 in their HELLO.
 */
#include <errno.h>
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "peer.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

/*
 * A zero-based iova is below the MR's page size, at most 1 GiB
 * (HIXL_MAX_PAGE_SHIFT); the kernel's direct map and vmalloc space (what
 * rxe's DMA addresses are) start at 0xffff800000000000 on x86-64, 4-level
 * paging or 5.
 */
#define ZERO_BASED_LIMIT	(1ULL << 30)

/* The victim: an engine with a staging pool of 4 x 8 MiB (HIXL's default). */
static int victim(uint16_t port)
{
	int fd = hx_engine(port, 4, 8);

	if (fd < 0)
		printf("#   victim engine: %s\n", strerror(-fd));
	return fd;
}

/* A peer that connected and exchanged tables; 0 or -errno. */
static int peer_up(struct hp *p, uint16_t vport, uint16_t my_port, size_t land, size_t mem)
{
	int ret = hp_connect(p, vport, land, mem);

	if (ret) {
		printf("#   peer connect: %s\n", strerror(-ret));
		return ret;
	}
	ret = hp_handshake(p, my_port, land);
	if (ret)
		printf("#   peer handshake: %s\n", strerror(-ret));
	return ret;
}

/* The table entry of the engine's REGION for addr (its first message), or NULL. */
static const struct hp_tbl_ent *tbl_region(const struct hp *p, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < p->ntbl; i++)
		if (p->tbl[i].type == HIXL_MSG_REGION && p->tbl[i].addr == addr &&
		    !p->tbl[i].first)
			return &p->tbl[i];
	return NULL;
}

/* Pump until the engine's REGION for addr came (the peer acks it); 0 or -ETIMEDOUT. */
static int wait_region(struct hp *p, uint64_t addr, int ms)
{
	for (int i = 0; i < ms / 50 && !tbl_region(p, addr); i++)
		hp_pump(p, 50);
	return tbl_region(p, addr) ? 0 : -ETIMEDOUT;
}

/* A REG_MEM in a thread, timed. */
struct reg_op {
	pthread_t t;
	int fd;
	void *addr;
	size_t len;
	long ret;
	uint64_t handle;	/* REG_MEM's, when ret is 0 */
	double ms;		/* how long REG_MEM took */
	int done;
};

static void *reg_thread(void *arg)
{
	struct reg_op *o = arg;
	struct hixl_reg_mem out;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	o->ret = reg_mem(o->fd, o->addr, o->len, 0, &out);
	o->ms = hx_ms_since(&t0);
	o->handle = out.handle;
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int reg_start(struct reg_op *o, int fd, void *addr, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->addr = addr;
	o->len = len;
	return pthread_create(&o->t, NULL, reg_thread, o);
}

static int reg_done(struct reg_op *o)
{
	return __atomic_load_n(&o->done, __ATOMIC_ACQUIRE);
}

/*
 * REGION entries carried mr->iova and HELLO the
 * landing buffer's, which on rxe are kernel direct-map addresses (the DMA
 * address of a page is its kernel virtual address): a peer learnt where
 * the kernel's memory is (KASLR).  The iova of every MR is now zero-based:
 * the offset of its first byte in its first MR page.  The peer sees no
 * address at or above ZERO_BASED_LIMIT, and the addresses it was given
 * still reach the memory (an RDMA WRITE and READ of its own; a staged-size
 * WRITE to the landing buffer).
 */
static void keys_no_kernel_iova(void)
{
	uint8_t *before = hx_map(2 * MiB), *after = hx_map(64 * KiB);
	const struct hp_tbl_ent *e;
	int st;
	struct hixl_reg_mem out;
	struct reg_op reg;
	struct hp p;
	uint64_t raddr, siova;
	int v = victim(22100);

	REQUIRE(v >= 0 && before && after);
	hx_fill(before, 2 * MiB, 1);
	REQUIRE(reg_mem(v, before, 2 * MiB, 0, &out) == 0);	/* in the table */
	REQUIRE(peer_up(&p, 22100, 22150, 0, 64 * KiB) == 0);
	REQUIRE(reg_start(&reg, v, after, 64 * KiB) == 0);	/* an update, */
	CHECK_EQ(wait_region(&p, (uintptr_t)after, 5000), 0);	/* acked by us */
	pthread_join(reg.t, NULL);
	CHECK_EQ(reg.ret, 0);
	REQUIRE(tbl_region(&p, (uintptr_t)before) && tbl_region(&p, (uintptr_t)after));
	CHECK(p.hello_seen);
	siova = le64toh(p.hello.stage_iova);
	printf("#   largest announced MR iova 0x%llx, landing buffer iova 0x%llx (%llu bytes)\n",
	       (unsigned long long)p.max_iova, (unsigned long long)siova,
	       (unsigned long long)le64toh(p.hello.stage_size));
	CHECK(p.max_iova < ZERO_BASED_LIMIT);
	CHECK(le64toh(p.hello.stage_size) > 0);	/* the victim stages: it has one */
	CHECK(siova < ZERO_BASED_LIMIT);

	/* the announced addresses are the memory's: WRITE, then READ back */
	e = tbl_region(&p, (uintptr_t)after);
	memset(p.mem, 0x5a, 4 * KiB);
	raddr = e->mr_iova + ((uintptr_t)after + 8 * KiB - e->mr_addr);
	CHECK_EQ(hp_rdma(&p, true, p.mem, 4 * KiB, raddr, e->mr_rkey, 10000, &st), 0);
	CHECK_EQ(after[8 * KiB], 0x5a);
	CHECK_EQ(after[12 * KiB - 1], 0x5a);
	CHECK_EQ(after[12 * KiB], 0);
	e = tbl_region(&p, (uintptr_t)before);
	raddr = e->mr_iova + ((uintptr_t)before + MiB - e->mr_addr);
	CHECK_EQ(hp_rdma(&p, false, p.mem + 16 * KiB, 4 * KiB, raddr, e->mr_rkey, 10000, &st), 0);
	CHECK_EQ(hx_first_diff(p.mem + 16 * KiB, before + MiB, 4 * KiB), -1);
	CHECK_EQ(hp_rdma(&p, true, p.mem, 4 * KiB, siova + 64 * KiB,
			 le32toh(p.hello.stage_rkey), 10000, &st), 0);
	CHECK(!p.disconnected);
	hp_close(&p);
	close(v);
}

#define SILENT		3
#define ACK_MS		3000	/* table_ack_ms for the test */
#define SLACK_MS	6000	/* TCG: a registration's own work, the sends */

/*
 * REG_MEM waited for each peer's TABLE_ACK with the
 * engine lock held, 10 s per silent peer: three peers that never answer
 * stalled the registrant 30 s and every other command of the engine with
 * it.  Now the peers get one deadline (table_ack_ms) all together, the
 * wait runs outside the engine lock, and a peer that misses it has its
 * link closed.  Three silent peers and a well-behaved one: REG_MEM returns
 * within one deadline, a second thread's REG_MEM is announced while the
 * first one waits, the silent links are closed, and the good peer has both
 * regions and carries a transfer.
 */
static void keys_silent_peers(void)
{
	unsigned long long old_ack = read_param("table_ack_ms");
	uint8_t *r1 = hx_map(64 * KiB), *r2 = hx_map(64 * KiB);
	struct hp silent[SILENT], good;
	struct reg_op a, b;
	struct hixl_op_desc d;
	struct timespec t0;
	bool b_while_a = false;
	int v, i, up = 0, closed = 0;

	REQUIRE(r1 && r2);
	if (write_param("table_ack_ms", ACK_MS))
		printf("#   no table_ack_ms parameter: the old per-peer 10 s wait\n");
	v = victim(22101);
	REQUIRE(v >= 0);
	for (i = 0; i < SILENT; i++) {
		up += peer_up(&silent[i], 22101, 22151 + i, 0, 64 * KiB) == 0;
		silent[i].hold_acks = true;	/* and we never pump them again */
	}
	REQUIRE(up == SILENT);
	REQUIRE(peer_up(&good, 22101, 22159, 0, 64 * KiB) == 0);

	hx_fill(r1, 64 * KiB, 5);
	REQUIRE(reg_start(&a, v, r1, 64 * KiB) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!tbl_region(&good, (uintptr_t)r1) && hx_ms_since(&t0) < 10000)
		hp_pump(&good, 20);
	CHECK(tbl_region(&good, (uintptr_t)r1) != NULL);
	REQUIRE(reg_start(&b, v, r2, 64 * KiB) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((!reg_done(&a) || !reg_done(&b)) && hx_ms_since(&t0) < 45000) {
		hp_pump(&good, 20);
		if (!reg_done(&a) && tbl_region(&good, (uintptr_t)r2))
			b_while_a = true;
	}
	pthread_join(a.t, NULL);
	pthread_join(b.t, NULL);
	printf("#   first REG_MEM %.0f ms, second %.0f ms (deadline %d ms for all peers)\n",
	       a.ms, b.ms, ACK_MS);
	CHECK_EQ(a.ret, 0);
	CHECK_EQ(b.ret, 0);
	CHECK(a.ms < ACK_MS + SLACK_MS);
	CHECK(b.ms < ACK_MS + SLACK_MS);
	CHECK(b_while_a);	/* announced while the first still waited */

	for (i = 0; i < SILENT; i++)
		closed += hp_wait_disconnect(&silent[i], 5000);
	CHECK_EQ(closed, SILENT);
	CHECK(!good.disconnected);
	CHECK(tbl_region(&good, (uintptr_t)r2) != NULL);
	d = (struct hixl_op_desc){ (uintptr_t)r1, (uintptr_t)good.mem, 4 * KiB };
	CHECK_EQ(hx_xfer(v, 22159, HIXL_OP_WRITE, &d, 1, 5000, NULL), 0);
	CHECK_EQ(hx_first_diff(good.mem, r1, 4 * KiB), -1);
	for (i = 0; i < SILENT; i++)
		hp_close(&silent[i]);
	hp_close(&good);
	close(v);
	if (old_ack != ~0ULL)
		write_param("table_ack_ms", old_ack);
}

/*
 * Every link's landing buffer is an MR of the
 * engine's one PD, so its rkey works on any of the engine's QPs, and
 * nothing but the rkey's 8 random bits (rxe; most devices alike) keeps
 * one peer out of another peer's staged data.  No per-link protection is
 * available (docs/protocol.md, "Addresses and keys on the wire"); what
 * holds is that a wrong guess costs the guesser its link.  Two peers of
 * one engine: B uses A's landing rkey with another key byte; the access
 * fails, the engine closes B's link, A's landing buffer keeps what A wrote
 * and A's link goes on.
 */
static void keys_landing_guess(void)
{
	int st = IBV_WC_SUCCESS;
	struct hp a, b;
	uint64_t land;
	uint32_t rkey;
	int v = victim(22102);

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&a, 22102, 22160, 0, 64 * KiB) == 0);
	REQUIRE(peer_up(&b, 22102, 22161, 0, 64 * KiB) == 0);
	REQUIRE(a.hello_seen && b.hello_seen && le64toh(a.hello.stage_size));
	land = le64toh(a.hello.stage_iova) + 64 * KiB;
	rkey = le32toh(a.hello.stage_rkey);
	CHECK(rkey != le32toh(b.hello.stage_rkey));
	memset(a.mem, 0xa1, 4 * KiB);
	CHECK_EQ(hp_rdma(&a, true, a.mem, 4 * KiB, land, rkey, 10000, &st), 0);

	memset(b.mem, 0xb2, 4 * KiB);
	CHECK(hp_rdma(&b, true, b.mem, 4 * KiB, land, rkey ^ 0x5a, 10000, &st) != 0);
	printf("#   B's WRITE with a wrong key for A's landing buffer: %s\n",
	       ibv_wc_status_str((enum ibv_wc_status)st));
	CHECK_EQ(st, IBV_WC_REM_ACCESS_ERR);
	CHECK(hp_wait_disconnect(&b, 5000));	/* the engine closed B's link */

	memset(a.mem + 8 * KiB, 0, 4 * KiB);
	CHECK_EQ(hp_rdma(&a, false, a.mem + 8 * KiB, 4 * KiB, land, rkey, 10000, &st), 0);
	CHECK_EQ(hx_first_diff(a.mem + 8 * KiB, a.mem, 4 * KiB), -1);
	CHECK(!a.disconnected);
	hp_close(&b);
	hp_close(&a);
	close(v);
}

/* SEND_NOTIFY from the engine fd to the peer that claimed port: 0 or -errno. */
static long engine_notify(int fd, uint16_t port)
{
	struct hixl_send_notify n;

	memset(&n, 0, sizeof(n));
	n.remote = hx_name(port);
	n.name = (uintptr_t)"fill";
	n.name_len = 4;
	return xioctl(fd, HIXL_IOC_SEND_NOTIFY, &n);
}

#define STARVED		2

/*
 * The sends: a peer that stops posting receives holds
 * a SEND of ours forever (RNR retries never end), and each table update's
 * REGION waited 10 s per such peer with the engine lock held.  The sends
 * now have the update's deadline too (at least 1 s each once it passed).
 * Two peers whose receive queues the engine has filled (16 notifications,
 * never taken) and a good one: REG_MEM returns within table_ack_ms plus
 * 1 s per further starved peer, the starved links are broken and
 * disconnected, the good peer has the region.
 */
static void keys_rnr_peers(void)
{
	unsigned long long old_ack = read_param("table_ack_ms");
	uint8_t *r1 = hx_map(64 * KiB);
	struct hp starved[STARVED], good;
	struct reg_op a;
	struct timespec t0;
	int v, i, j, up = 0, closed = 0;

	REQUIRE(r1);
	if (write_param("table_ack_ms", ACK_MS))
		printf("#   no table_ack_ms parameter: the old 10 s per SEND\n");
	v = victim(22104);
	REQUIRE(v >= 0);
	for (i = 0; i < STARVED; i++)
		up += peer_up(&starved[i], 22104, 22165 + i, 0, 64 * KiB) == 0;
	REQUIRE(up == STARVED);
	REQUIRE(peer_up(&good, 22104, 22169, 0, 64 * KiB) == 0);
	for (i = 0; i < STARVED; i++)		/* every receive they posted, used */
		for (j = 0; j < HP_RX_DEPTH; j++)
			CHECK_EQ(engine_notify(v, 22165 + i), 0);

	REQUIRE(reg_start(&a, v, r1, 64 * KiB) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!reg_done(&a) && hx_ms_since(&t0) < 45000)
		hp_pump(&good, 20);
	pthread_join(a.t, NULL);
	hp_pump(&good, 200);
	printf("#   REG_MEM with %d peers taking no SEND: %.0f ms (deadline %d ms)\n",
	       STARVED, a.ms, ACK_MS);
	CHECK_EQ(a.ret, 0);
	CHECK(a.ms < ACK_MS + (STARVED - 1) * 1000 + SLACK_MS);
	CHECK(tbl_region(&good, (uintptr_t)r1) != NULL);
	for (i = 0; i < STARVED; i++)
		closed += hp_wait_disconnect(&starved[i], 5000);
	CHECK_EQ(closed, STARVED);
	CHECK(!good.disconnected);
	for (i = 0; i < STARVED; i++)
		hp_close(&starved[i]);
	hp_close(&good);
	close(v);
	if (old_ack != ~0ULL)
		write_param("table_ack_ms", old_ack);
}

/* A DEREG_MEM in a thread, timed. */
struct dereg_op {
	pthread_t t;
	int fd;
	uint64_t handle;
	long ret;
	double ms;
	int done;
};

static void *dereg_thread(void *arg)
{
	struct dereg_op *o = arg;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	o->ret = dereg_mem(o->fd, o->handle);
	o->ms = hx_ms_since(&t0);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* REG_MEM of len bytes at addr while n peers and good are pumped (they acknowledge); its return */
static long reg_pumped(struct reg_op *o, int fd, void *addr, struct hp *peers, int n,
		       struct hp *good)
{
	struct timespec t0;
	int i;

	if (reg_start(o, fd, addr, 64 * KiB))
		return -EAGAIN;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!reg_done(o) && hx_ms_since(&t0) < 20000) {
		for (i = 0; i < n; i++)
			hp_pump(&peers[i], 5);
		hp_pump(good, 5);
	}
	pthread_join(o->t, NULL);
	return o->ret;
}

#define DEREG_ACK_MS	5000	/* table_ack_ms for keys_silent_dereg */

/*
 * Peers that stop acknowledging table updates delay a DEREG_MEM by
 * table_ack_ms at most and nobody else: its REGION_DELs go out under the
 * engine lock, their TABLE_ACKs are awaited without it.  Three peers that
 * took the region and then fall silent, and a good one: while the
 * DEREG_MEM waits, a TRANSFER to the good peer completes and a second
 * DEREG_MEM of the same handle fails with ENOENT; then the DEREG_MEM
 * returns within one deadline, the silent links are closed and the good
 * peer has the REGION_DEL.
 */
static void keys_silent_dereg(void)
{
	unsigned long long old_ack = read_param("table_ack_ms");
	uint8_t *r1 = hx_map(64 * KiB), *r2 = hx_map(64 * KiB);
	struct hp silent[SILENT], good;
	struct hixl_op_desc d;
	struct dereg_op del;
	struct reg_op a, b;
	struct timespec t0;
	bool xfer_while_del = false;
	int v, i, up = 0, closed = 0;

	REQUIRE(r1 && r2);
	REQUIRE(write_param("table_ack_ms", DEREG_ACK_MS) == 0);
	v = victim(22105);
	REQUIRE(v >= 0);
	for (i = 0; i < SILENT; i++)
		up += peer_up(&silent[i], 22105, 22170 + i, 0, 64 * KiB) == 0;
	REQUIRE(up == SILENT);
	REQUIRE(peer_up(&good, 22105, 22174, 0, 64 * KiB) == 0);

	/* r1 and r2 reach every peer's table, each acknowledges them */
	REQUIRE(reg_pumped(&a, v, r1, silent, SILENT, &good) == 0);
	REQUIRE(reg_pumped(&b, v, r2, silent, SILENT, &good) == 0);
	for (i = 0; i < SILENT; i++) {
		REQUIRE(tbl_region(&silent[i], (uintptr_t)r1) != NULL);
		silent[i].hold_acks = true;	/* and we never pump them again */
	}
	for (i = 0; i < SILENT; i++)
		CHECK(!silent[i].disconnected);

	memset(&del, 0, sizeof(del));
	del.fd = v;
	del.handle = a.handle;
	REQUIRE(pthread_create(&del.t, NULL, dereg_thread, &del) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!hp_tbl_count(&good, HIXL_MSG_REGION_DEL, (uintptr_t)r1) &&
	       hx_ms_since(&t0) < 10000)
		hp_pump(&good, 20);
	CHECK(hp_tbl_count(&good, HIXL_MSG_REGION_DEL, (uintptr_t)r1) == 1);
	/* the DEREG_MEM now waits for the silent peers */
	hx_fill(r2, 64 * KiB, 7);
	d = (struct hixl_op_desc){ (uintptr_t)r2, (uintptr_t)good.mem, 4 * KiB };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hx_xfer(v, 22174, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	xfer_while_del = !__atomic_load_n(&del.done, __ATOMIC_ACQUIRE);
	printf("#   TRANSFER during the DEREG_MEM's wait: %.0f ms\n", hx_ms_since(&t0));
	CHECK(xfer_while_del);
	CHECK_EQ(hx_first_diff(good.mem, r2, 4 * KiB), -1);
	if (xfer_while_del)
		CHECK_EQ(dereg_mem(v, a.handle), -ENOENT);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!__atomic_load_n(&del.done, __ATOMIC_ACQUIRE) && hx_ms_since(&t0) < 45000)
		hp_pump(&good, 20);
	pthread_join(del.t, NULL);
	printf("#   DEREG_MEM with %d silent peers: %.0f ms (deadline %d ms)\n",
	       SILENT, del.ms, DEREG_ACK_MS);
	CHECK_EQ(del.ret, 0);
	CHECK(del.ms < DEREG_ACK_MS + SLACK_MS);
	for (i = 0; i < SILENT; i++)
		closed += hp_wait_disconnect(&silent[i], 5000);
	CHECK_EQ(closed, SILENT);
	CHECK(!good.disconnected);
	CHECK_EQ(dereg_mem(v, a.handle), -ENOENT);
	CHECK_EQ(dereg_mem(v, b.handle), 0);
	for (i = 0; i < SILENT; i++)
		hp_close(&silent[i]);
	hp_close(&good);
	close(v);
	if (old_ack != ~0ULL)
		write_param("table_ack_ms", old_ack);
}

/* A REGION for [addr, addr + pages * 4 KiB) of nr_mrs MRs, announcing its first only. */
static int send_region(struct hp *p, uint64_t addr, uint32_t pages, uint32_t nr_mrs)
{
	struct hixl_wire_region *r = (void *)p->tx;

	memset(r, 0, sizeof(*r) + sizeof(r->mrs[0]));
	r->addr = htole64(addr);
	r->len = htole64(pages * 4 * KiB);
	r->flags = htole32(HIXL_WIRE_REGION_WRITABLE);
	r->nr_mrs = htole32(nr_mrs);
	r->count = htole32(1);
	r->mrs[0].addr = r->addr;
	r->mrs[0].len = htole64(4 * KiB);
	r->mrs[0].rkey = htole32(p->mem_mr->rkey);
	return hp_send(p, HIXL_MSG_REGION, sizeof(*r) + sizeof(r->mrs[0]));
}

/* Pump until the engine acknowledged want of our table messages: 1, or 0. */
static int wait_acked(struct hp *p, uint64_t want, int ms)
{
	for (int i = 0; i < ms / 50 && p->acked < want && !p->disconnected; i++)
		hp_pump(p, 50);
	return p->acked >= want;
}

static int send_notifies(struct hp *p, int n)
{
	struct hixl_wire_notify *m = (void *)p->tx;
	int i, ret = 0;

	for (i = 0; i < n && !ret; i++) {
		m->name_len = htole32(4);
		m->msg_len = htole32(2);
		memcpy(m->data, "peerhi", 6);
		ret = hp_send(p, HIXL_MSG_NOTIFY, sizeof(*m) + 6);
	}
	return ret;
}

/*
 * What a peer's messages make the engine hold was
 * bounded per link only (max_peer_mrs table entries, 4096 notifications),
 * so max_links links could make it hold max_links times that.  Now the
 * links of an engine share max_engine_peer_mrs and max_engine_notifies.
 * With 10 entries and 8 notifications for the engine: A's region of 6 MRs
 * is taken, B's of 6 closes B's link (ENOSPC), C's of 6 fits once A
 * withdrew its; 6 notifications from A and 6 from C queue 8, and 4 are
 * dropped.
 */
static void keys_engine_bounds(void)
{
	unsigned long long old_mrs = read_param("max_engine_peer_mrs");
	unsigned long long old_nt = read_param("max_engine_notifies");
	static struct hixl_notify buf[16];
	struct hixl_get_notifies g;
	struct hixl_wire_region_del *d;
	struct hp a, b, c;
	int v;

	CHECK_EQ(write_param("max_engine_peer_mrs", 10), 0);
	CHECK_EQ(write_param("max_engine_notifies", 8), 0);
	v = victim(22103);
	REQUIRE(v >= 0);
	/* peer_up() announces the peer's own 1-MR region: 3 of the 10 */
	REQUIRE(peer_up(&a, 22103, 22162, 0, 64 * KiB) == 0);
	REQUIRE(peer_up(&b, 22103, 22163, 0, 64 * KiB) == 0);
	REQUIRE(peer_up(&c, 22103, 22164, 0, 64 * KiB) == 0);
	CHECK(wait_acked(&a, 1, 5000) && wait_acked(&b, 1, 5000) && wait_acked(&c, 1, 5000));

	CHECK_EQ(send_region(&a, 0x10000000, 6, 6), 0);		/* 9 of 10 */
	CHECK(wait_acked(&a, 2, 5000));
	CHECK_EQ(send_region(&b, 0x20000000, 6, 6), 0);		/* 15: refused */
	CHECK(hp_wait_disconnect(&b, 5000));
	/* B's own entry may still count until its link is freed: 9 or 10 */
	CHECK_EQ(send_region(&c, 0x30000000, 1, 1), 0);
	CHECK(wait_acked(&c, 2, 5000));
	d = (void *)a.tx;
	d->addr = htole64(0x10000000);
	d->len = htole64(6 * 4 * KiB);
	CHECK_EQ(hp_send(&a, HIXL_MSG_REGION_DEL, sizeof(*d)), 0);	/* 3 or 4 */
	CHECK(wait_acked(&a, 3, 5000));
	CHECK_EQ(send_region(&c, 0x40000000, 6, 6), 0);		/* 9 or 10 */
	CHECK(wait_acked(&c, 3, 5000));
	CHECK(!a.disconnected && !c.disconnected);

	CHECK_EQ(send_notifies(&a, 6), 0);
	CHECK_EQ(send_notifies(&c, 6), 0);
	hp_pump(&a, 300);
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.max = 16;
	CHECK_EQ(xioctl(v, HIXL_IOC_GET_NOTIFIES, &g), 0);
	printf("#   notifications queued %u, dropped %llu\n", g.count,
	       (unsigned long long)g.dropped);
	CHECK_EQ(g.count, 8);
	CHECK_EQ(g.dropped, 4);
	CHECK(!a.disconnected && !c.disconnected);
	hp_close(&c);
	hp_close(&b);
	hp_close(&a);
	close(v);
	if (old_mrs != ~0ULL)
		write_param("max_engine_peer_mrs", old_mrs);
	if (old_nt != ~0ULL)
		write_param("max_engine_notifies", old_nt);
}

const struct ht_test keys_tests[] = {
	{ "keys_no_kernel_iova", keys_no_kernel_iova },
	{ "keys_silent_peers", keys_silent_peers },
	{ "keys_rnr_peers", keys_rnr_peers },
	{ "keys_silent_dereg", keys_silent_dereg },
	{ "keys_landing_guess", keys_landing_guess },
	{ "keys_engine_bounds", keys_engine_bounds },
	{ NULL, NULL },
};
