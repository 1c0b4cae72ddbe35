// SPDX-License-Identifier: GPL-2.0
/*
 * test_peer.c - a remote host is untrusted input: a userspace wire peer
 * (peer.c) connects to an engine as another hixl.ko would and then breaks
 * the protocol of kmod/proto.h.  Each test is the regression test of a
 * defect a hostile peer could use against the engine's kernel:
 *
 *   peer_region_huge       a REGION announcing 2^24 MRs for a few pages
 *                          (used to kzalloc 512 MiB in the CQ work item)
 *   peer_hello_twice       a second HELLO (used to replace the peer's
 *                          landing buffer and name under running work)
 *   peer_impostor          a HELLO claiming an address the peer did not
 *                          connect from (another engine's name)
 *   peer_hello_shrinks_stage  a second HELLO shrinking the landing buffer
 *                          while a staged TRANSFER is planned (its copy ran
 *                          past the staging buffer: KASAN)
 *   peer_stage_status      STAGE_DONE statuses the engine never sends
 *                          (reached callers as errno 529, 512, 4095)
 *   peer_after_error       a message after a malformed one (used to be
 *                          parsed and carried out on the broken link)
 *   peer_ack_flood         table messages faster than the peer takes our
 *                          ACKs (filled the send queue, broke the link)
 *   peer_memcg             what a peer's messages make the kernel hold is
 *                          charged to the engine process's memory cgroup
 *   peer_flood             connections that never say HELLO (held every
 *                          link slot, kept legitimate engines out)
 *   peer_oversize          a message longer than a receive buffer (the
 *                          link was marked broken but never closed: the
 *                          peer stayed connected, the link kept its slot)
 *
 * and of what the engine tells a peer about its own table:
 *
 *   peer_dereg_invalidated DEREG_MEM of a region munmap invalidated before
 *                          its pins were released (it used to skip
 *                          REGION_DEL: the peer kept the region's keys)
 *   peer_update_before_ready  REG_MEM/DEREG_MEM while the engine has sent
 *                          its table but waits for the peer's TABLE_END
 *                          (the peer never heard of either)
 *
 * Engines live on 10.77.0.1 (rxe0 in the test VM), ports 20000-20099; the
 * peer claims ports 20100-20199 in its HELLO.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <endian.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "peer.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

/* The victim: an engine with the default staging pool (HIXL's 4:8). */
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

/* GET_NOTIFIES: how many are queued (taken off the queue). */
static long notifies(int fd)
{
	static struct hixl_notify buf[4];
	struct hixl_get_notifies g;
	long ret;

	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.max = 4;
	ret = xioctl(fd, HIXL_IOC_GET_NOTIFIES, &g);
	return ret ? ret : (long)g.count;
}

static void peer_region_huge(void)
{
	uint8_t raw[sizeof(struct hixl_wire_region) + sizeof(struct hixl_wire_mr)];
	struct hixl_wire_region *r = (void *)raw;
	struct hp p;
	int v = victim(20001);

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 20001, 20101, 0, 64 * KiB) == 0);
	memset(raw, 0, sizeof(raw));
	r->hdr.magic = htole32(HIXL_WIRE_MAGIC);
	r->hdr.type = htole16(HIXL_MSG_REGION);
	r->hdr.version = htole16(HIXL_WIRE_VERSION);
	r->hdr.len = htole32(sizeof(raw));
	r->addr = htole64((uintptr_t)p.mem + 8 * KiB);
	r->len = htole64(16 * KiB);
	r->flags = htole32(HIXL_WIRE_REGION_WRITABLE);
	r->nr_mrs = htole32(1U << 24);
	r->count = htole32(1);
	r->mrs[0].addr = r->addr;
	r->mrs[0].len = htole64(4 * KiB);
	r->mrs[0].iova = r->addr;
	r->mrs[0].rkey = htole32(p.mem_mr->rkey);
	CHECK_EQ(hp_send_raw(&p, raw, sizeof(raw)), 0);
	/* refused: the engine closes the link at once, allocating nothing */
	CHECK(hp_wait_disconnect(&p, 5000));
	hp_close(&p);
	close(v);
}

static void peer_hello_twice(void)
{
	struct hp p;
	int v = victim(20002);

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 20002, 20102, 4 * MiB, 64 * KiB) == 0);
	CHECK_EQ(hp_hello(&p, 20103, 4 * MiB), 0);	/* another name, too */
	CHECK(hp_wait_disconnect(&p, 5000));
	hp_close(&p);
	close(v);
}

/*
 * The name in a peer's HELLO was never checked against where the
 * connection came from, so a peer could claim another engine's name and
 * receive the WRITEs meant for it.  A peer connecting from 10.77.0.1 that
 * claims 10.77.0.9 is now refused; one claiming its own address is not.
 */
static void peer_impostor(void)
{
	struct hixl_wire_hello *h;
	struct timespec t0;
	struct hp p;
	int v = victim(20010);

	REQUIRE(v >= 0);
	REQUIRE(hp_connect(&p, 20010, 0, 0) == 0);
	/*
	 * Once the engine's table came in, its side of the connection is
	 * established (RDMA CM ESTABLISHED ran its setup work), so that its
	 * disconnect reaches us as DISCONNECTED; a link closed before that
	 * is rejected instead, which a peer already connected does not see.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!p.table_end && hx_ms_since(&t0) < 10000)
		hp_pump(&p, 100);
	REQUIRE(p.table_end);
	h = (void *)p.tx;
	memset(h, 0, sizeof(*h));
	h->engine.family = htole16(AF_INET);
	h->engine.port = htole16(20111);
	inet_pton(AF_INET, "10.77.0.9", h->engine.addr);
	CHECK_EQ(hp_send(&p, HIXL_MSG_HELLO, sizeof(*h)), 0);
	CHECK(hp_wait_disconnect(&p, 5000));
	hp_close(&p);
	/* the same from the address it claims: accepted */
	REQUIRE(peer_up(&p, 20010, 20111, 0, 64 * KiB) == 0);
	CHECK(!hp_wait_disconnect(&p, 1000));
	hp_close(&p);
	close(v);
}

struct xfer_arg {
	int fd;
	uint16_t port;
	uint32_t op;
	const struct hixl_op_desc *d;
	uint32_t n;
	long ret;
	uint32_t failed;
};

/*
 * One TRANSFER, tried again every 50 ms (100 times at most) while the
 * engine's side of the link is still connecting (-EAGAIN): it is READY a
 * moment after our TABLE_END reaches it.
 */
static long xfer_ready(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d,
		       uint32_t n, int timeout_ms, uint32_t *failed)
{
	int tries = 0;
	long ret;

	do {
		ret = hx_xfer(fd, port, op, d, n, timeout_ms, failed);
	} while (ret == -EAGAIN && ++tries < 100 && !usleep(50000));
	return ret;
}

/* xfer_ready() in a thread */
static void *xfer_thread(void *arg)
{
	struct xfer_arg *a = arg;

	a->ret = xfer_ready(a->fd, a->port, a->op, a->d, a->n, 20000, &a->failed);
	return NULL;
}

/* Pump until the engine's next STAGE_REQ; its seq, or 0. */
static uint64_t wait_stage_req(struct hp *p, int ms)
{
	int t = hp_pump(p, ms);
	const struct hixl_wire_stage_req *q = (const void *)p->msg;

	if (t != HIXL_MSG_STAGE_REQ) {
		printf("#   expected STAGE_REQ, got %d\n", t);
		return 0;
	}
	return le64toh(q->seq);
}

/*
 * A TRANSFER is planned as staged; before it runs, the
 * peer's second HELLO announces a landing buffer too small for data.  The
 * staging copy used min(send buffer, peer's landing buffer) - 64 KiB as its
 * room, which underflowed, and copied 9.4 MiB into an 8 MiB buffer.  Now a
 * second HELLO closes the link and both transfers fail cleanly.
 */
static void peer_hello_shrinks_stage(void)
{
	struct hixl_op_desc d1, d2[48];
	struct xfer_arg a1, a2;
	pthread_t t1, t2;
	uint8_t *local = hx_map(16 * MiB);
	struct hp p;
	uint64_t seq;
	int v = victim(20003), i;

	REQUIRE(v >= 0 && local);
	REQUIRE(peer_up(&p, 20003, 20104, 8 * MiB, 16 * MiB) == 0);
	hx_fill(local, 16 * MiB, 3);
	d1 = (struct hixl_op_desc){ (uintptr_t)local, (uintptr_t)p.mem, 4 * KiB };
	for (i = 0; i < 48; i++)	/* 48 x 200 KiB: staged, 9.4 MiB in all */
		d2[i] = (struct hixl_op_desc){ (uintptr_t)local + i * 200 * KiB,
					       (uintptr_t)p.mem + i * 200 * KiB, 200 * KiB };
	a1 = (struct xfer_arg){ v, 20104, HIXL_OP_WRITE, &d1, 1, 0, 0 };
	a2 = (struct xfer_arg){ v, 20104, HIXL_OP_WRITE, d2, 48, 0, 0 };
	REQUIRE(pthread_create(&t1, NULL, xfer_thread, &a1) == 0);
	seq = wait_stage_req(&p, 10000);	/* the first holds the link's poster */
	CHECK(seq != 0);
	REQUIRE(pthread_create(&t2, NULL, xfer_thread, &a2) == 0);
	hp_pump(&p, 1000);			/* the second is planned and waits */
	CHECK_EQ(hp_hello(&p, 20104, 0), 0);	/* "no landing buffer after all" */
	if (!p.disconnected)
		hp_stage_done(&p, seq, 0, 0);
	hp_wait_disconnect(&p, 5000);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	CHECK(p.disconnected);
	/* whatever the first got, the second must not have been carried out */
	CHECK(a2.ret != 0);
	printf("#   first: %s, second: %s\n", strerror(-a1.ret), strerror(-a2.ret));
	hp_close(&p);
	close(v);
}

/*
 * The peer's STAGE_DONE status is a number on the wire;
 * it used to become the caller's errno as it was (529 = EIOCBQUEUED on
 * io_uring, 512 = ERESTARTSYS).  The engine maps it to its own set: the
 * codes its scatter/gather sends (ERANGE, EACCES, EPROTO) pass, anything
 * else is EREMOTEIO; the link stays up.
 */
static void peer_stage_status(void)
{
	static const struct { uint32_t wire; int want; } cases[] = {
		{ 34, -ERANGE }, { 13, -EACCES }, { 71, -EPROTO },
		{ 529, -EREMOTEIO }, { 512, -EREMOTEIO }, { 516, -EREMOTEIO },
		{ 4095, -EREMOTEIO }, { 4096, -EREMOTEIO }, { 0x80000000u, -EREMOTEIO },
		{ 1, -EREMOTEIO },
	};
	uint8_t *local = hx_map(64 * KiB);
	struct hixl_op_desc d;
	struct xfer_arg a;
	pthread_t t;
	struct hp p;
	unsigned int i;
	int v = victim(20004);

	REQUIRE(v >= 0 && local);
	REQUIRE(peer_up(&p, 20004, 20105, 4 * MiB, 64 * KiB) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)local, (uintptr_t)p.mem, 4 * KiB };
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t seq;

		a = (struct xfer_arg){ v, 20105, HIXL_OP_WRITE, &d, 1, 0, 0 };
		REQUIRE(pthread_create(&t, NULL, xfer_thread, &a) == 0);
		seq = wait_stage_req(&p, 10000);
		CHECK(seq != 0);
		CHECK_EQ(hp_stage_done(&p, seq, cases[i].wire, 0), 0);
		pthread_join(t, NULL);
		if (a.ret != cases[i].want)
			printf("#   STAGE_DONE status %u\n", cases[i].wire);
		CHECK_EQ(a.ret, cases[i].want);
		CHECK_EQ(a.failed, 0);
	}
	/* and a success still is one */
	a = (struct xfer_arg){ v, 20105, HIXL_OP_WRITE, &d, 1, 0, 0 };
	REQUIRE(pthread_create(&t, NULL, xfer_thread, &a) == 0);
	CHECK_EQ(hp_stage_done(&p, wait_stage_req(&p, 10000), 0, 0), 0);
	pthread_join(t, NULL);
	CHECK_EQ(a.ret, 0);
	hp_close(&p);
	close(v);
}

/* A malformed message breaks the link; what follows it is not carried out. */
static void peer_after_error(void)
{
	struct hixl_wire_hdr bad;
	struct hixl_wire_notify *n;
	struct hp p;
	int v = victim(20005);

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 20005, 20106, 0, 64 * KiB) == 0);
	memset(&bad, 0, sizeof(bad));
	bad.magic = htole32(0xdeadbeef);
	bad.len = htole32(sizeof(bad));
	CHECK_EQ(hp_send_raw(&p, &bad, sizeof(bad)), 0);
	n = (void *)p.tx;
	n->name_len = htole32(4);
	n->msg_len = htole32(2);
	memcpy(n->data, "evilhi", 6);
	hp_send(&p, HIXL_MSG_NOTIFY, sizeof(*n) + 6);	/* may fail: link closing */
	CHECK(hp_wait_disconnect(&p, 5000));
	CHECK_EQ(notifies(v), 0);
	hp_close(&p);
	close(v);
}

/*
 * The engine answered every REGION with its own TABLE_ACK,
 * none counted against the send queue.  A peer slow to post receive buffers
 * (RNR: the first ACK waits at the head of the queue) and quick to send
 * table messages filled the queue: ib_post_send() failed and the link broke.
 * Now one ACK is in flight at a time and it carries the latest count.
 */
static void peer_ack_flood(void)
{
	struct timespec t0;
	struct hp p;
	int v = victim(20006), i, ret = 0;

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 20006, 20107, 0, 64 * KiB) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p.acked < 1 && hx_ms_since(&t0) < 5000)
		hp_pump(&p, 100);
	printf("#   acked after the handshake: %llu\n", (unsigned long long)p.acked);
	REQUIRE(p.acked == 1);			/* the handshake's REGION */
	p.hold_rx = true;
	for (i = 0; i < 1000 && !ret; i++)	/* the same region, 1000 times */
		ret = hp_region(&p);
	CHECK_EQ(ret, 0);
	CHECK_EQ(hp_release_rx(&p), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p.acked < 1001 && !p.disconnected && hx_ms_since(&t0) < 10000)
		hp_pump(&p, 100);
	CHECK(!p.disconnected);
	CHECK_EQ(p.acked, 1001);
	hp_close(&p);
	close(v);
}

/* A REG_MEM or DEREG_MEM in a thread: the engine waits for the peer's ACK. */
struct memop {
	pthread_t t;
	int fd;
	void *addr;		/* REG_MEM of addr/len, or DEREG_MEM of handle */
	size_t len;
	uint64_t handle;
	long ret;
	pid_t tid;
	int done;
};

static void *memop_thread(void *arg)
{
	struct memop *m = arg;
	struct hixl_reg_mem out;

	__atomic_store_n(&m->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (m->addr) {
		m->ret = reg_mem(m->fd, m->addr, m->len, 0, &out);
		if (!m->ret)
			m->handle = out.handle;
	} else {
		m->ret = dereg_mem(m->fd, m->handle);
	}
	__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int memop_start(struct memop *m, int fd, void *addr, size_t len, uint64_t handle)
{
	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->addr = addr;
	m->len = len;
	m->handle = handle;
	return pthread_create(&m->t, NULL, memop_thread, m);
}

static int memop_done(struct memop *m)
{
	return __atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
}

/* Pump (answering the table updates) until the operation returned; its result. */
static long memop_finish(struct hp *p, struct memop *m)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!memop_done(m) && hx_ms_since(&t0) < 30000) {
		if (p->hold_acks)
			hp_ack(p);	/* what came so far, handed out or not */
		hp_pump(p, 20);
	}
	if (!memop_done(m))
		printf("#   REG_MEM/DEREG_MEM still waiting after 30 s\n");
	pthread_join(m->t, NULL);
	hp_pump(p, 300);	/* and whatever the engine sends right after */
	return m->ret;
}

/* Has the thread gone to sleep in the kernel (state D: a mutex)? */
static int thread_blocked(pid_t tid, int ms)
{
	struct timespec t0;
	char path[64], buf[256], *st;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < ms) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		st = strrchr(buf, ')');
		if (st && st[1] == ' ' && st[2] == 'D')
			return 1;
		usleep(1000);
	}
	return 0;
}

/*
 * A region that munmap invalidated is withdrawn from
 * the peer's table with REGION_DEL when its pins are released - by the
 * invalidation work, or by DEREG_MEM when that comes first.  DEREG_MEM
 * skipped it for any invalidated region, so a DEREG_MEM that got the
 * engine lock before the invalidation work freed the MRs and left their
 * keys in the peer's table.  To order the two: a DEREG_MEM whose
 * REGION_DEL the peer does not acknowledge yet holds the engine lock (a
 * REG_MEM waits for its ACK without it); DEREG_MEM of the invalidated
 * region queues on it first, then munmap queues the invalidation work
 * behind it.
 */
static void peer_dereg_invalidated(void)
{
	uint8_t *inv = hx_map(64 * KiB), *blk = hx_map(64 * KiB), *gone = hx_map(64 * KiB);
	uint8_t *hold = hx_map(64 * KiB);
	struct memop reg, dereg, m;
	struct hixl_op_desc d;
	uint64_t hinv, hgone;
	struct hp p;
	int v = victim(20020), t;

	REQUIRE(v >= 0 && inv && blk && gone && hold);
	REQUIRE(peer_up(&p, 20020, 20120, 0, 64 * KiB) == 0);
	REQUIRE(memop_start(&m, v, inv, 64 * KiB, 0) == 0);
	REQUIRE(memop_finish(&p, &m) == 0);
	hinv = m.handle;
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)inv), 1);
	REQUIRE(memop_start(&m, v, blk, 64 * KiB, 0) == 0);
	REQUIRE(memop_finish(&p, &m) == 0);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)blk), 1);
	REQUIRE(memop_start(&m, v, hold, 64 * KiB, 0) == 0);
	REQUIRE(memop_finish(&p, &m) == 0);

	/* a DEREG_MEM waits for our ACK with the engine lock held */
	p.hold_acks = true;
	REQUIRE(memop_start(&reg, v, NULL, 0, m.handle) == 0);
	t = hp_pump(&p, 10000);
	CHECK_EQ(t, HIXL_MSG_REGION_DEL);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)hold), 1);
	/* DEREG_MEM of inv waits for that lock ... */
	REQUIRE(memop_start(&dereg, v, NULL, 0, hinv) == 0);
	while (!__atomic_load_n(&dereg.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	CHECK(thread_blocked(dereg.tid, 5000));
	/* ... then inv is unmapped: invalid at once, its pins still held */
	REQUIRE(munmap(inv, 64 * KiB) == 0);
	CHECK_EQ(wait_invalid(v, 1, 5000), 0);
	CHECK(!memop_done(&dereg));
	CHECK_EQ(hp_ack(&p), 0);		/* the first DEREG_MEM returns, the second runs */
	t = hp_pump(&p, 5000);
	if (t != HIXL_MSG_REGION_DEL)
		printf("#   after DEREG_MEM of the invalidated region: message %d, no REGION_DEL\n",
		       t);
	CHECK_EQ(t, HIXL_MSG_REGION_DEL);
	/* withdrawn before DEREG_MEM returned, that is before its MRs went */
	CHECK(!memop_done(&dereg));
	CHECK_EQ(memop_finish(&p, &dereg), 0);
	CHECK_EQ(memop_finish(&p, &reg), 0);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)inv), 1);
	p.hold_acks = false;

	/* munmap alone: the invalidation work withdraws it, DEREG_MEM not again */
	REQUIRE(memop_start(&m, v, gone, 64 * KiB, 0) == 0);
	REQUIRE(memop_finish(&p, &m) == 0);
	hgone = m.handle;
	REQUIRE(munmap(gone, 64 * KiB) == 0);
	for (int i = 0; i < 50 && !hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)gone); i++)
		hp_pump(&p, 100);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)gone), 1);
	CHECK_EQ(wait_pinned(v, 16, 5000), 0);	/* only blk's pages are left */
	REQUIRE(memop_start(&m, v, NULL, 0, hgone) == 0);
	CHECK_EQ(memop_finish(&p, &m), 0);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)gone), 1);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)blk), 0);
	/* every update was answered in time: the link still carries transfers */
	d = (struct hixl_op_desc){ (uintptr_t)blk, (uintptr_t)p.mem, 4 * KiB };
	CHECK_EQ(hx_xfer(v, 20120, HIXL_OP_WRITE, &d, 1, 5000, NULL), 0);
	CHECK(!p.disconnected);
	hp_close(&p);
	close(v);
}

/* A cgroup v2 folder with the memory controller for this process: its
 * memory.current path in cur (size n), or SKIP. */
static void join_memcg(char *cur, size_t n)
{
	const char *root = "/sys/fs/cgroup";
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (access(path, R_OK)) {
		root = "/tmp/hixl-cg";
		mkdir(root, 0755);
		if (mount("none", root, "cgroup2", 0, NULL) && errno != EBUSY)
			SKIP("no cgroup v2 (mount cgroup2 failed)");
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	f = fopen(path, "r");
	if (!f || !fgets(path, sizeof(path), f) || !strstr(path, "memory"))
		SKIP("no memory cgroup controller in this kernel");
	fclose(f);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	f = fopen(path, "w");
	if (!f || fputs("+memory", f) < 0 || fclose(f))
		SKIP("cannot enable the memory controller");
	snprintf(path, sizeof(path), "%s/hixl-peer-%d", root, getpid());
	if (mkdir(path, 0755))
		SKIP("cannot make a cgroup");
	snprintf(cur, n, "%s/cgroup.procs", path);
	f = fopen(cur, "w");
	if (!f || fprintf(f, "%d", getpid()) < 0 || fclose(f))
		SKIP("cannot join the cgroup");
	snprintf(cur, n, "%s/memory.current", path);
}

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * What a peer's messages make the kernel hold for an engine is
 * charged to the memory cgroup of the engine's process.  4,000 queued
 * NOTIFY messages of 2 KiB are 8 MiB of kernel memory; they were allocated
 * in the CQ's kworker and charged to nobody.
 */
static void peer_memcg(void)
{
	char cur[300];
	long long before, after;
	struct hixl_wire_notify *n;
	struct hp p;
	int v, i, ret = 0;

	join_memcg(cur, sizeof(cur));
	v = victim(20007);
	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 20007, 20108, 0, 64 * KiB) == 0);
	before = read_ll(cur);
	n = (void *)p.tx;
	for (i = 0; i < 4000 && !ret; i++) {
		n->name_len = htole32(1024);
		n->msg_len = htole32(1024);
		memset(n->data, 'n', 2048);
		ret = hp_send(&p, HIXL_MSG_NOTIFY, sizeof(*n) + 2048);
	}
	CHECK_EQ(ret, 0);
	hp_pump(&p, 500);
	after = read_ll(cur);
	printf("#   memory.current %lld -> %lld bytes\n", before, after);
	CHECK(before >= 0 && after - before >= 4 * (long long)MiB);
	CHECK(!p.disconnected);
	hp_close(&p);
	close(v);
}

/*
 * Once the engine has sent its table on a link, every
 * later registration and deregistration reaches that link, even while it
 * waits for the peer's TABLE_END (not READY yet).  Table updates went to
 * READY links only, so a REG_MEM in that window was missing from the
 * peer's table for good and a DEREG_MEM left stale keys in it.  Each region
 * is announced exactly once: in the table, in the window, or after.
 */
static void peer_update_before_ready(void)
{
	uint8_t *r0 = hx_map(64 * KiB), *r1 = hx_map(64 * KiB), *r2 = hx_map(64 * KiB);
	struct hixl_reg_mem out;
	struct hixl_op_desc d;
	struct memop m;
	uint64_t h0;
	uint32_t failed;
	struct hp p;
	int v = victim(20021);

	REQUIRE(v >= 0 && r0 && r1 && r2);
	REQUIRE(reg_mem(v, r0, 64 * KiB, 0, &out) == 0);	/* no link yet */
	h0 = out.handle;
	REQUIRE(hp_connect(&p, 20021, 0, 64 * KiB) == 0);
	REQUIRE(hp_handshake_open(&p, 20121, 0) == 0);	/* we keep our TABLE_END */
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r0), 1);

	/* the engine's side is not ready: a TRANSFER on it waits */
	hx_fill(r1, 64 * KiB, 7);
	d = (struct hixl_op_desc){ (uintptr_t)r0, (uintptr_t)p.mem, 4 * KiB };
	CHECK_EQ(hx_xfer(v, 20121, HIXL_OP_WRITE, &d, 1, 5000, NULL), -EAGAIN);

	REQUIRE(memop_start(&m, v, r1, 64 * KiB, 0) == 0);
	CHECK_EQ(memop_finish(&p, &m), 0);
	if (!hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r1))
		printf("#   REG_MEM before our TABLE_END: no REGION came\n");
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r1), 1);
	REQUIRE(memop_start(&m, v, NULL, 0, h0) == 0);
	CHECK_EQ(memop_finish(&p, &m), 0);
	if (!hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)r0))
		printf("#   DEREG_MEM before our TABLE_END: no REGION_DEL came\n");
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)r0), 1);

	/* now the link becomes ready; nothing is announced twice */
	CHECK_EQ(hp_table_end(&p), 0);
	hp_pump(&p, 500);
	REQUIRE(memop_start(&m, v, r2, 64 * KiB, 0) == 0);
	CHECK_EQ(memop_finish(&p, &m), 0);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r0), 1);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r1), 1);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION, (uintptr_t)r2), 1);
	CHECK_EQ(hp_tbl_count(&p, HIXL_MSG_REGION_DEL, (uintptr_t)r0), 1);
	CHECK_EQ(p.received, 4);	/* REGION r0, r1, r2, REGION_DEL r0: nothing else */

	/* and the engine uses the link: r1 (registered in the window) to our memory */
	d = (struct hixl_op_desc){ (uintptr_t)r1, (uintptr_t)p.mem, 4 * KiB };
	CHECK_EQ(xfer_ready(v, 20121, HIXL_OP_WRITE, &d, 1, 5000, &failed), 0);
	CHECK_EQ(hx_first_diff(p.mem, r1, 4 * KiB), -1);
	CHECK(!p.disconnected);
	hp_close(&p);
	close(v);
}

/*
 * Connections that never say HELLO held a link slot each for as
 * long as the peer liked; max_links of them kept every legitimate engine
 * out.  Now at most max_setup_links accepted links may be in their
 * handshake, and one that has not finished it within handshake_ms is
 * closed.  Here: max_links 8, max_setup_links 4, handshake_ms 3000.
 */
static void peer_flood(void)
{
	unsigned long long old_links = read_param("max_links");
	unsigned long long old_setup = read_param("max_setup_links");
	unsigned long long old_hs = read_param("handshake_ms");
	struct hp flood[8];
	bool ok[8];
	int v, c, i, up = 0, closed = 0;
	long ret;

	REQUIRE(write_param("max_links", 8) == 0);
	if (write_param("max_setup_links", 4) || write_param("handshake_ms", 3000))
		printf("#   no max_setup_links/handshake_ms parameters\n");
	v = victim(20008);
	c = hx_engine(20009, 0, 0);
	if (v >= 0 && c >= 0) {
		for (i = 0; i < 8; i++) {	/* connect, then say nothing */
			ok[i] = hp_connect(&flood[i], 20008, 0, 0) == 0;
			up += ok[i];
		}
		printf("#   %d of 8 silent connections accepted\n", up);
		CHECK(up <= 4);
		ret = hx_connect(c, 20008, 5000);	/* a legitimate engine gets in */
		CHECK_EQ(ret, 0);
		for (i = 0; i < 8; i++)		/* and the silent ones are closed */
			closed += ok[i] && hp_wait_disconnect(&flood[i], 8000);
		CHECK_EQ(closed, up);
		for (i = 0; i < 8; i++)
			hp_close(&flood[i]);
	}
	CHECK(v >= 0 && c >= 0);
	if (c >= 0)
		close(c);
	if (v >= 0)
		close(v);
	write_param("max_links", old_links);
	write_param("max_setup_links", old_setup);
	write_param("handshake_ms", old_hs);
}

/*
 * The handshake deadline counts from the handshake's last progress: a peer
 * whose table takes longer than handshake_ms to arrive keeps its link
 * (1,000 regions a side took over the 10 s default under QEMU/TCG, and
 * NIXL's generic test saw the link closed midway); a peer that says HELLO
 * and then nothing is still closed.  Here handshake_ms is 1500: HELLO,
 * then a REGION every 500 ms for 3 s, then TABLE_END, and the engine
 * WRITEs into our memory over the link.
 */
static void peer_slow_table(void)
{
	unsigned long long old_hs = read_param("handshake_ms");
	uint8_t *src = hx_map(64 * KiB);
	struct hixl_op_desc d;
	struct timespec t0;
	uint32_t failed = 0;
	struct hp p;
	int v, i;
	long ms;

	REQUIRE(src);
	if (write_param("handshake_ms", 1500))
		SKIP("no handshake_ms parameter");
	v = victim(20031);
	CHECK(v >= 0);
	if (v >= 0)
		CHECK_EQ(reg_mem(v, src, 64 * KiB, 0, NULL), 0);	/* the WRITE's source */
	if (v >= 0 && hp_connect(&p, 20031, 0, 64 * KiB) == 0) {
		CHECK_EQ(hp_hello(&p, 20131, 0), 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < 6 && !p.disconnected; i++) {
			CHECK_EQ(hp_region(&p), 0);	/* the same region, again: progress */
			hp_pump(&p, 500);
		}
		ms = hx_ms_since(&t0);
		printf("#   table messages for %ld ms (handshake_ms 1500); closed: %d\n", ms,
		       p.disconnected);
		CHECK(!p.disconnected);
		CHECK_EQ(hp_table_end(&p), 0);
		hp_pump(&p, 300);
		CHECK(!p.disconnected);
		hx_fill(src, 64 * KiB, 31);
		d = (struct hixl_op_desc){ (uintptr_t)src, (uintptr_t)p.mem, 64 * KiB };
		CHECK_EQ(xfer_ready(v, 20131, HIXL_OP_WRITE, &d, 1, 5000, &failed), 0);
		CHECK_EQ(hx_first_diff(p.mem, src, 64 * KiB), -1);
		hp_close(&p);
	} else {
		CHECK(!"peer connect");
	}

	/* HELLO, then silence: closed about handshake_ms after the HELLO */
	if (v >= 0 && hp_connect(&p, 20031, 0, 64 * KiB) == 0) {
		CHECK_EQ(hp_hello(&p, 20132, 0), 0);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(hp_wait_disconnect(&p, 8000));
		ms = hx_ms_since(&t0);
		printf("#   HELLO, then nothing: closed after %ld ms\n", ms);
		CHECK(ms > 1000);
		hp_close(&p);
	} else {
		CHECK(!"peer connect");
	}
	if (v >= 0)
		close(v);
	munmap(src, 64 * KiB);
	write_param("handshake_ms", old_hs);
}

/* Links (any engine, any state) to HX_IP:peer_port in debugfs, or -1 without debugfs. */
static int debugfs_links_to(uint16_t peer_port)
{
	FILE *f = fopen("/sys/kernel/debug/hixl/links", "r");
	char line[512], want[64];
	int n = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s:%u ", HX_IP, peer_port);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, want) != NULL;
	fclose(f);
	return n;
}

/*
 * Found by the wire fuzzer (hixl-wire-fuzz): a SEND longer than the engine's
 * 4 KiB receive buffer completes in error on the engine's side (local
 * length error).  That only marked the link broken: it stayed on the
 * engine's list in the error state, counting toward max_links and holding
 * its staging buffers, and the peer was never disconnected, so a peer could
 * leave any number of such links behind.  It is a malformed message like
 * any other now: the link is closed and the peer disconnected.
 */
static void peer_oversize(void)
{
	uint8_t raw[HIXL_MSG_SIZE + 512];
	struct hixl_wire_hdr *h = (void *)raw;
	struct timespec t0;
	struct hp p;
	int v = victim(21010), n, ret;

	REQUIRE(v >= 0);
	REQUIRE(peer_up(&p, 21010, 21110, 4 * MiB, 64 * KiB) == 0);
	CHECK(debugfs_links_to(21110) != 0);	/* 1, or -1 without debugfs */
	memset(raw, 0x5a, sizeof(raw));
	h->magic = htole32(HIXL_WIRE_MAGIC);
	h->type = htole16(HIXL_MSG_NOTIFY);
	h->version = htole16(HIXL_WIRE_VERSION);
	h->len = htole32(sizeof(raw));
	ret = hp_send_raw(&p, raw, sizeof(raw));
	printf("#   SEND of %zu bytes: %s\n", sizeof(raw), ret ? strerror(-ret) : "completed");
	CHECK(hp_wait_disconnect(&p, 5000));
	/* and the engine's side of it is gone, not left broken on its list */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = debugfs_links_to(21110)) > 0 && hx_ms_since(&t0) < 5000)
		usleep(50000);
	printf("#   links to the peer left after 5 s: %d\n", n);
	CHECK(n <= 0);
	hp_close(&p);
	close(v);
}

const struct ht_test peer_tests[] = {
	{ "peer_region_huge", peer_region_huge },
	{ "peer_hello_twice", peer_hello_twice },
	{ "peer_impostor", peer_impostor },
	{ "peer_hello_shrinks_stage", peer_hello_shrinks_stage },
	{ "peer_stage_status", peer_stage_status },
	{ "peer_after_error", peer_after_error },
	{ "peer_ack_flood", peer_ack_flood },
	{ "peer_memcg", peer_memcg },
	{ "peer_flood", peer_flood },
	{ "peer_slow_table", peer_slow_table },
	{ "peer_dereg_invalidated", peer_dereg_invalidated },
	{ "peer_update_before_ready", peer_update_before_ready },
	{ "peer_oversize", peer_oversize },
	{ NULL, NULL },
};
