// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_xfer.c - striped transfers and failover
 * (HIXL_FEAT_RAIL_STRIPE): two two-rail engines in the test VM (rail 0 on
 * 10.77.0.1/rxe0, rail 1 on 10.78.0.1/rxe1 over veth2), READ and WRITE
 * byte for byte across chunk borders, both rails moving bytes; rail 1 taken
 * away mid-batch (veth2 down, `rdma link delete rxe1`), synchronous and
 * through io_uring, every batch still verifying; both rails gone: the
 * link's error (synchronous and through io_uring) and nothing left pinned
 * (both devices removed: on one VM a port down does not stop rxe's
 * loopback); rail 1 back and used again; a one-rail peer; a batch of too
 * many stripe chunks refused (E2BIG).  Ports 24860-24899 (24876-24887: no
 * rail left; 24888-24889: too many chunks).
 *
 * Which rail moved what: LINK_STATS shows primary links only, so the
 * primary link's direct bytes are rail 0's share, and the engine's totals
 * (which every rail link adds to) minus those are the other rails'.
 *
 * Every test that changes veth0, veth2, rxe0 or rxe1 restores them before it
 * ends, failed or not (rail_restore()): later tests use the same VM.
 * Failover times (ms from the rail going down to the batch's end) are
 * printed as TAP comments, informational only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rail_util.h"
#include "tests.h"
#include "util.h"
#include "raw.h"

#define RX_TMO_MS	120000		/* a rail's RC retries take seconds */
#define RX_LEN		(6u * 1024 * 1024 + 12345)

void test_rail_xfer_stripe(void);
void test_rail_xfer_failover_sync(void);
void test_rail_xfer_failover_uring(void);
void test_rail_xfer_device_removed(void);
void test_rail_xfer_no_rail_left(void);
void test_rail_xfer_one_rail_peer(void);
void test_rail_xfer_cancel(void);

static void need_stripe(int fd)
{
	REQUIRE(ru_need(fd, HIXL_FEAT_RAIL_STRIPE | HIXL_FEAT_RAIL_LINKS,
			"HIXL_FEAT_RAIL_STRIPE/RAIL_LINKS (rails carry no traffic)") == 0);
	ru_need_tool("rdma");
	ru_need_tool("ip");
}

/* an engine on HX_IP:@port (and 10.78.0.1 with @two), staging off: fd or -1 */
static int rx_engine(uint16_t port, int two)
{
	return ru_engine(port, two, hixl_raw_transport());
}

/* the engine's direct bytes of @op, and its primary link's to HX_IP:@port */
static void rx_bytes(int fd, uint16_t port, uint32_t op, uint64_t *eng, uint64_t *rail0)
{
	struct hixl_link_stat ls[8];
	struct hixl_link_stats a;
	struct hixl_stats st = get_stats(fd);

	*eng = op == HIXL_OP_WRITE ? st.xfer.write_direct_bytes : st.xfer.read_direct_bytes;
	*rail0 = 0;
	memset(&a, 0, sizeof(a));
	a.buf = (uintptr_t)ls;
	a.count = 8;
	if (xioctl(fd, HIXL_IOC_LINK_STATS, &a))
		return;
	for (uint32_t i = 0; i < a.total && i < 8; i++)
		if (ls[i].peer.port == port)
			*rail0 = op == HIXL_OP_WRITE ? ls[i].xfer.write_direct_bytes :
						       ls[i].xfer.read_direct_bytes;
}

/* the batch: odd sizes across 512 KiB chunk borders, 1 MiB+ ones, many small ones */
static uint32_t rx_descs(struct hixl_op_desc *d, uint8_t *l, uint8_t *r, size_t len)
{
	uint32_t n = 0;
	size_t off = 0;

	d[n++] = (struct hixl_op_desc){ (uintptr_t)l + 1, (uintptr_t)r + 3, 2 * 1024 * 1024 + 5 };
	off = 2 * 1024 * 1024 + 64;
	d[n++] = (struct hixl_op_desc){ (uintptr_t)l + off, (uintptr_t)r + off + 7,
					1024 * 1024 + 524287 };
	off += 1024 * 1024 + 524288 + 64;
	for (int i = 0; i < 40 && off + 4097 + 8 < len; i++) {	/* small ones */
		d[n++] = (struct hixl_op_desc){ (uintptr_t)l + off, (uintptr_t)r + off, 4097 };
		off += 4097 + 3;
	}
	d[n++] = (struct hixl_op_desc){ (uintptr_t)l + off, (uintptr_t)r + off, len - off };
	return n;
}

struct rx_pair {
	int a, b;
	uint16_t pa, pb;
	uint8_t *la, *rb, *want;
	size_t len;
	struct hixl_op_desc d[64];
	uint32_t n;
};

static int rx_pair_open(struct rx_pair *p, uint16_t pa, uint16_t pb, int b_two, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->a = p->b = -1;
	p->pa = pa;
	p->pb = pb;
	p->len = len;
	p->a = rx_engine(pa, 1);
	p->b = rx_engine(pb, b_two);
	p->la = hx_map(len);
	p->rb = hx_map(len);
	p->want = hx_map(len);
	if (p->a < 0 || p->b < 0 || !p->la || !p->rb || !p->want)
		return -1;
	if (reg_mem(p->a, p->la, len, 0, NULL) || reg_mem(p->b, p->rb, len, 0, NULL))
		return -1;
	p->n = rx_descs(p->d, p->la, p->rb, len);
	return hx_connect(p->a, pb, 10000) ? -1 : 0;
}

static void rx_pair_close(struct rx_pair *p)
{
	if (p->a >= 0)
		close(p->a);
	if (p->b >= 0)
		close(p->b);
	if (p->la)
		munmap(p->la, p->len);
	if (p->rb)
		munmap(p->rb, p->len);
	if (p->want)
		munmap(p->want, p->len);
}

/* fill the source side of @op with @seed, the other with zeros; keep what must arrive */
static void rx_prime(struct rx_pair *p, uint32_t op, unsigned int seed)
{
	uint8_t *src = op == HIXL_OP_WRITE ? p->la : p->rb;
	uint8_t *dst = op == HIXL_OP_WRITE ? p->rb : p->la;

	hx_fill(src, p->len, seed);
	memset(dst, 0, p->len);
	memcpy(p->want, src, p->len);
}

/* every descriptor's bytes arrived; nothing outside them was written */
static int rx_verify(const struct rx_pair *p, uint32_t op)
{
	const uint8_t *src = p->want;
	const uint8_t *dst = op == HIXL_OP_WRITE ? p->rb : p->la;
	int bad = 0;

	for (uint32_t i = 0; i < p->n; i++) {
		const struct hixl_op_desc *d = &p->d[i];
		uint64_t so = (op == HIXL_OP_WRITE ? d->local_addr - (uintptr_t)p->la :
				d->remote_addr - (uintptr_t)p->rb);
		uint64_t dof = (op == HIXL_OP_WRITE ? d->remote_addr - (uintptr_t)p->rb :
				d->local_addr - (uintptr_t)p->la);

		if (hx_first_diff(dst + dof, src + so, d->len) != -1) {
			printf("#   descriptor %u differs\n", i);
			bad++;
		}
	}
	return bad;
}

static uint64_t rx_sum(const struct rx_pair *p)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < p->n; i++)
		s += p->d[i].len;
	return s;
}

/* both rails carry a batch: READ and WRITE, byte for byte */
static void rx_stripe_body(void)
{
	uint64_t e0, r0, e1, r1;
	struct rx_pair p;
	uint32_t failed = 0;
	int ops[2] = { HIXL_OP_WRITE, HIXL_OP_READ };

	REQUIRE(rx_pair_open(&p, 24860, 24861, 1, RX_LEN) == 0);
	for (int k = 0; k < 2; k++) {
		uint32_t op = ops[k];

		rx_prime(&p, op, 11 + k);
		rx_bytes(p.a, 24861, op, &e0, &r0);
		CHECK_EQ(hx_xfer(p.a, 24861, op, p.d, p.n, RX_TMO_MS, &failed), 0);
		CHECK_EQ(rx_verify(&p, op), 0);
		rx_bytes(p.a, 24861, op, &e1, &r1);
		CHECK_EQ(e1 - e0, rx_sum(&p));		/* every byte once: no failover */
		CHECK(r1 - r0 > 0);			/* rail 0 moved some */
		CHECK(r1 - r0 < e1 - e0);		/* and rail 1 the rest */
		printf("# %s: %llu bytes, rail 0 %llu, other rails %llu\n",
		       op == HIXL_OP_WRITE ? "WRITE" : "READ", (unsigned long long)(e1 - e0),
		       (unsigned long long)(r1 - r0), (unsigned long long)(e1 - e0 - (r1 - r0)));
	}
	/* the parent completes with the lowest failing descriptor */
	p.d[3].remote_addr = (uintptr_t)p.rb + p.len - 10;	/* past the peer's region */
	p.d[5].remote_addr = (uintptr_t)p.rb + p.len - 10;
	CHECK_EQ(hx_xfer(p.a, 24861, HIXL_OP_WRITE, p.d, p.n, RX_TMO_MS, &failed), -ERANGE);
	CHECK_EQ(failed, 3);
	rx_pair_close(&p);
}

void test_rail_xfer_stripe(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_stripe_body();
}

struct rx_down {
	const char *cmd;
	unsigned int after_ms;
	struct timespec at;	/* the command started */
	struct timespec done;	/* it returned: the device is gone */
};

static void *rx_down_thread(void *arg)
{
	struct rx_down *d = arg;

	usleep(d->after_ms * 1000);
	clock_gettime(CLOCK_MONOTONIC, &d->at);
	if (system(d->cmd) != 0)
		printf("# '%s' failed\n", d->cmd);
	clock_gettime(CLOCK_MONOTONIC, &d->done);
	return NULL;
}

/*
 * Wait up to @ms for rail 1 to move bytes again (the rail work re-makes
 * it); when it does not, print the rail links' and rxe1's state.
 */
static int rx_rail1_used(struct rx_pair *p, int ms)
{
	struct timespec t0;
	uint32_t failed;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < ms) {
		uint64_t e0, r0, e1, r1;

		rx_bytes(p->a, p->pb, HIXL_OP_WRITE, &e0, &r0);
		/* the first descriptor alone (2 MiB: striped) */
		if (hx_xfer(p->a, p->pb, HIXL_OP_WRITE, p->d, 1, RX_TMO_MS, &failed) == 0) {
			rx_bytes(p->a, p->pb, HIXL_OP_WRITE, &e1, &r1);
			if (e1 - e0 > r1 - r0)
				return 1;
		}
		usleep(500 * 1000);
	}
	/* what the rail links, rxe1's GSI QP and the kernel say, for the report */
	if (system("{ cat /sys/kernel/debug/hixl/raillinks; rdma link show; "
		   "rdma res show qp link rxe1/1 lqpn 1; "
		   "dmesg | grep -E 'hixl|rxe|infiniband' | tail -n 25; "
		   "echo 'an RDMA CM connection on rxe1 (perftest):'; "
		   "timeout 20 ib_write_lat -d rxe1 -R -n 5 >/dev/null & sleep 1; "
		   "timeout 15 ib_write_lat -d rxe1 -R -n 5 " RAIL1_IP " | tail -n 2; wait; } 2>&1 | "
		   "sed 's/^/#   rail 1 unused: /'") != 0)
		printf("#   rail 1 unused: no state to show\n");
	return 0;
}

/*
 * One batch of @p's descriptors, @op: the TRANSFER ioctl, or with @uring
 * a raw URING_CMD on a ring of its own (no rdma_sem held while it is in
 * flight).  Returns its result, the failing descriptor in *@failed;
 * -ENOSYS when io_uring is not available.
 */
static long rx_run(struct rx_pair *p, uint32_t op, int uring, uint32_t *failed)
{
	struct io_uring_params pr;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct hixl_transfer t;
	struct io_uring r;
	long ret;

	if (!uring)
		return hx_xfer(p->a, p->pb, op, p->d, p->n, RX_TMO_MS, failed);
	memset(&pr, 0, sizeof(pr));
	pr.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (io_uring_queue_init_params(8, &r, &pr))
		return -ENOSYS;
	memset(&t, 0, sizeof(t));
	t.remote = hx_name(p->pb);
	t.op = op;
	t.descs = (uintptr_t)p->d;
	t.count = p->n;
	t.timeout_ms = RX_TMO_MS;
	sqe = io_uring_get_sqe(&r);
	if (!sqe) {			/* an empty ring of 8: not reached */
		io_uring_queue_exit(&r);
		return -ENOMEM;
	}
	hixl_raw_uring_cmd(sqe, 128, p->a, HIXL_IOC_TRANSFER, &t, sizeof(t), 7);
	ret = io_uring_submit_and_wait(&r, 1);
	CHECK_EQ(ret, 1);
	ret = io_uring_wait_cqe(&r, &cqe);
	CHECK_EQ(ret, 0);
	if (!ret) {
		ret = cqe->res;
		*failed = cqe->big_cqe[0];
		io_uring_cqe_seen(&r, cqe);
	}
	io_uring_queue_exit(&r);
	return ret;
}

/*
 * One batch with rail 1 taken away (@down) @after_ms into it: it succeeds,
 * verifies, and the engine counted a failover.  Async through a raw
 * URING_CMD with @uring.
 */
static void rx_failover(struct rx_pair *p, uint32_t op, const char *down, int uring)
{
	struct hixl_stats s0 = get_stats(p->a), s1;
	struct rx_down dn = { .cmd = down, .after_ms = 30 };
	struct timespec t_end;
	pthread_t th;
	uint32_t failed = 0;
	int during;
	long ret;

	rx_prime(p, op, 21 + uring);
	REQUIRE(pthread_create(&th, NULL, rx_down_thread, &dn) == 0);
	ret = rx_run(p, op, uring, &failed);
	if (ret == -ENOSYS) {
		pthread_join(th, NULL);
		rail_restore();
		SKIP("io_uring is not available");
	}
	clock_gettime(CLOCK_MONOTONIC, &t_end);
	pthread_join(th, NULL);
	/*
	 * The device went under the batch: it was gone (the command returned)
	 * well before the batch ended.  A removal under a synchronous TRANSFER
	 * may wait for it to end (the rail's RDMA CM ids and the engine's
	 * rdma_sem), and is then not judged.
	 */
	during = hx_ms_between(&dn.done, &t_end) > 500;
	CHECK_EQ(ret, 0);
	if (ret)
		printf("#   failed descriptor %u\n", failed);
	CHECK_EQ(rx_verify(p, op), 0);
	s1 = get_stats(p->a);
	printf("# %s %s, '%s' %u ms in: failovers %llu, re-posted %llu bytes, "
	       "batch ended %.0f ms after the rail went down\n",
	       op == HIXL_OP_WRITE ? "WRITE" : "READ", uring ? "io_uring" : "ioctl", down,
	       dn.after_ms, (unsigned long long)(s1.xfer.rail_failovers - s0.xfer.rail_failovers),
	       (unsigned long long)(s1.xfer.rail_repost_bytes - s0.xfer.rail_repost_bytes),
	       hx_ms_between(&dn.at, &t_end));
	printf("#   the command took %.0f ms; the batch ended %.0f ms after it returned\n",
	       hx_ms_between(&dn.at, &dn.done), hx_ms_between(&dn.done, &t_end));
	/*
	 * A device removal destroys rail 1's links at once: a batch still
	 * running then had pieces there to re-post.  A port down (veth2) has
	 * no event and, both ends being on rxe1, rxe's loopback still carries
	 * the rail: it fails over only if the rail work marks the rail link
	 * broken (port state) before the batch is done, which is timing, so
	 * that is printed, not checked.
	 */
	if (strstr(down, "rdma link delete") && during) {
		CHECK(s1.xfer.rail_failovers > s0.xfer.rail_failovers);
		CHECK(s1.xfer.rail_repost_bytes > s0.xfer.rail_repost_bytes);
	} else if (strstr(down, "rdma link delete")) {
		printf("#   the batch was nearly done when the device went: not judged\n");
	}
}

/* a batch that lasts long enough for a rail to go under it (rxe: ~3 MB/s under KASAN) */
static size_t rx_long_len(void)
{
	return hx_debug_kernel() ? 4 * RX_LEN : 8 * RX_LEN;
}

static void rx_failover_body(int uring)
{
	struct rx_pair p;

	REQUIRE(rx_pair_open(&p, 24862 + 2 * uring, 24863 + 2 * uring, 1, rx_long_len()) == 0);
	rx_failover(&p, HIXL_OP_WRITE, "ip link set veth2 down", uring);
	rail_restore();
	CHECK(rx_rail1_used(&p, 40000));	/* the rail is re-made, and used */
	rx_failover(&p, HIXL_OP_READ, "ip link set veth2 down", uring);
	rail_restore();
	CHECK(rx_rail1_used(&p, 40000));
	rx_pair_close(&p);
}

void test_rail_xfer_failover_sync(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_failover_body(0);
	rail_restore();
}

void test_rail_xfer_failover_uring(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_failover_body(1);
	rail_restore();
}

static void rx_removed_body(void)
{
	struct rx_pair p;

	REQUIRE(rx_pair_open(&p, 24866, 24867, 1, rx_long_len()) == 0);
	rx_failover(&p, HIXL_OP_WRITE, "rdma link delete rxe1", 0);
	rail_restore();
	CHECK(rx_rail1_used(&p, 40000));	/* re-resolved on the new rxe1 */
	rx_failover(&p, HIXL_OP_READ, "rdma link delete rxe1", 1);
	rail_restore();
	CHECK(rx_rail1_used(&p, 40000));
	rx_pair_close(&p);
}

void test_rail_xfer_device_removed(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_removed_body();
	rail_restore();
}

/*
 * Both rails gone under a batch: the link's error, and the engines' close
 * leaves nothing pinned.  Both rails' devices go ("rdma link delete rxe1;
 * rdma link delete rxe0"): on one VM a port down does not stop rxe's
 * loopback (both ends are on the same device), a removal does.
 *
 * Synchronous (the TRANSFER ioctl) and through io_uring (@uring) alike,
 * nothing holds the removals up (the waiting ioctl holds no rdma_sem,
 * xrail.c): rail 1's goes, its pieces fail over to rail 0, rail 0's goes,
 * and the batch must end with the link's error (the removal command
 * returns seconds later: rxe's own teardown).  A batch done before rail 0
 * went must have succeeded, every byte in place; it is then made longer
 * (up to 3 tries, each twice the last) until the error is seen.
 */
static void rx_no_rail_body(long pin0, int uring)
{
	int seen = 0;

	for (int try = 0; try < 3 && !seen; try++) {
		struct rx_down dn = { .cmd = "rdma link delete rxe1; rdma link delete rxe0",
				      .after_ms = 30 };
		struct timespec t_end;
		struct rx_pair p;
		uint32_t failed = 0;
		uint16_t pa = (uring ? 24876 : 24882) + 2 * try;
		pthread_t th;
		long ret;

		REQUIRE(rx_pair_open(&p, pa, pa + 1, 1, rx_long_len() << try) == 0);
		rx_prime(&p, HIXL_OP_WRITE, 31);
		CHECK_EQ(rx_run(&p, HIXL_OP_WRITE, 0, &failed), 0);
		REQUIRE(pthread_create(&th, NULL, rx_down_thread, &dn) == 0);
		ret = rx_run(&p, HIXL_OP_WRITE, uring, &failed);
		clock_gettime(CLOCK_MONOTONIC, &t_end);
		pthread_join(th, NULL);
		if (ret == -ENOSYS) {
			rail_restore();
			rx_pair_close(&p);
			SKIP("io_uring is not available");
		}
		printf("# both rails down under a %zu MiB %s WRITE: %ld (%s), failed descriptor "
		       "%u of %u; the batch ended %.0f ms after the removals began, which "
		       "took %.0f ms\n", p.len >> 20, uring ? "io_uring" : "ioctl", ret,
		       strerror((int)-ret), failed, p.n, hx_ms_between(&dn.at, &t_end),
		       hx_ms_between(&dn.at, &dn.done));
		if (ret) {	/* both went while it ran */
			seen = 1;
			CHECK(failed < p.n);
			/* the documented link errors (docs/abi.md, striped transfers) */
			CHECK(ret == -EHOSTDOWN || ret == -ECONNRESET || ret == -ENETDOWN ||
			      ret == -EIO || ret == -ECONNABORTED || ret == -ENODEV);
		} else {	/* done before rail 0 went: every byte landed */
			CHECK_EQ(rx_verify(&p, HIXL_OP_WRITE), 0);
		}
		rail_restore();
		rx_pair_close(&p);
		/* closing the engines let go of every pin */
		for (int i = 0; i < 50 && vm_pin_kb() > pin0; i++)
			usleep(100 * 1000);
		CHECK_EQ(vm_pin_kb(), pin0);
	}
	CHECK(seen);	/* the error was seen, not assumed */
}

void test_rail_xfer_no_rail_left(void)
{
	long pin0 = vm_pin_kb();
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_no_rail_body(pin0, 0);
	rx_no_rail_body(pin0, 1);
	rail_restore();
	/* rail 0 works again for whoever comes next */
	fd = hx_engine(24870, 0, 0);
	CHECK(fd >= 0);
	if (fd >= 0) {
		int g = hx_engine(24871, 0, 0);

		long c = -1;

		CHECK(g >= 0);
		for (int i = 0; g >= 0 && i < 100 && (c = hx_connect(fd, 24871, 2000)); i++)
			usleep(100 * 1000);
		CHECK_EQ(c, 0);
		if (g >= 0)
			close(g);
		close(fd);
	}
}

/* a two-rail engine and a one-rail peer: no striping, every byte on rail 0 */
static void rx_one_rail_body(void)
{
	uint64_t e0, r0, e1, r1;
	struct rx_pair p;
	uint32_t failed;

	REQUIRE(rx_pair_open(&p, 24872, 24873, 0, RX_LEN) == 0);
	rx_prime(&p, HIXL_OP_WRITE, 41);
	rx_bytes(p.a, 24873, HIXL_OP_WRITE, &e0, &r0);
	CHECK_EQ(hx_xfer(p.a, 24873, HIXL_OP_WRITE, p.d, p.n, RX_TMO_MS, &failed), 0);
	CHECK_EQ(rx_verify(&p, HIXL_OP_WRITE), 0);
	rx_bytes(p.a, 24873, HIXL_OP_WRITE, &e1, &r1);
	CHECK_EQ(e1 - e0, rx_sum(&p));
	CHECK_EQ(r1 - r0, e1 - e0);
	rx_prime(&p, HIXL_OP_READ, 42);
	CHECK_EQ(hx_xfer(p.a, 24873, HIXL_OP_READ, p.d, p.n, RX_TMO_MS, &failed), 0);
	CHECK_EQ(rx_verify(&p, HIXL_OP_READ), 0);
	rx_pair_close(&p);
}

void test_rail_xfer_one_rail_peer(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_one_rail_body();
}

/*
 * CANCEL of a striped io_uring batch: counted once, the batch ends with
 * -ECANCELED (or 0 when it was done); then a revoking CANCEL of another
 * breaks every rail link it had requests on and returns once they flushed.
 */
static void rx_cancel_body(void)
{
	struct hixl_transfer t;
	struct hixl_cancel c;
	struct io_uring_params pr;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring r;
	struct rx_pair p;
	int revoke;

	REQUIRE(rx_pair_open(&p, 24874, 24875, 1, rx_long_len()) == 0);
	memset(&pr, 0, sizeof(pr));
	pr.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (io_uring_queue_init_params(8, &r, &pr))
		SKIP("io_uring is not available");
	for (revoke = 0; revoke < 2; revoke++) {
		rx_prime(&p, HIXL_OP_WRITE, 51 + revoke);
		memset(&t, 0, sizeof(t));
		t.remote = hx_name(p.pb);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)p.d;
		t.count = p.n;
		t.timeout_ms = RX_TMO_MS;
		t.tag = 77 + revoke;
		sqe = io_uring_get_sqe(&r);
		REQUIRE(sqe != NULL);
		hixl_raw_uring_cmd(sqe, 128, p.a, HIXL_IOC_TRANSFER, &t, sizeof(t), 9);
		REQUIRE(io_uring_submit(&r) == 1);
		usleep(50 * 1000);
		memset(&c, 0, sizeof(c));
		c.tag = t.tag;
		c.flags = revoke ? HIXL_CANCEL_REVOKE : 0;
		CHECK_EQ(xioctl(p.a, HIXL_IOC_CANCEL, &c), 0);
		CHECK(c.count <= 1);		/* one TRANSFER, however many rails */
		printf("# %s CANCEL: count %u, links broken %u\n", revoke ? "revoking" : "plain",
		       c.count, c.broken);
		REQUIRE(io_uring_wait_cqe(&r, &cqe) == 0);
		printf("#   the batch ended with %d\n", cqe->res);
		CHECK(cqe->res == -ECANCELED || (cqe->res == 0 && c.count == 0));
		if (revoke && c.count)
			CHECK(c.broken >= 1);
		io_uring_cqe_seen(&r, cqe);
	}
	io_uring_queue_exit(&r);
	rx_pair_close(&p);
}

void test_rail_xfer_cancel(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	rx_cancel_body();
}

/*
 * A striped batch of more stripe chunks than the module plans for one
 * TRANSFER (4,194,304: kmod/xfer.h's HIXL_MAX_PIECES): the whole
 * descriptor table (65,536) over one 33 MiB range, 66 chunks each, is
 * refused with E2BIG before anything moves, and the link still works.
 */
void test_rail_xfer_too_big(void);
void test_rail_xfer_too_big(void)
{
	const size_t len = 33u * 1024 * 1024;
	struct hixl_op_desc *d;
	struct rx_pair p;
	uint32_t failed = 0;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	need_stripe(fd);
	close(fd);
	REQUIRE(rx_pair_open(&p, 24888, 24889, 1, len) == 0);
	d = calloc(HIXL_MAX_DESCS, sizeof(*d));
	REQUIRE(d != NULL);
	for (uint32_t i = 0; i < HIXL_MAX_DESCS; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)p.rb, len };
	CHECK_EQ(hx_xfer(p.a, 24889, HIXL_OP_WRITE, d, HIXL_MAX_DESCS, 5000, &failed), -E2BIG);
	rx_prime(&p, HIXL_OP_WRITE, 17);
	CHECK_EQ(hx_xfer(p.a, 24889, HIXL_OP_WRITE, p.d, p.n, RX_TMO_MS, &failed), 0);
	CHECK_EQ(rx_verify(&p, HIXL_OP_WRITE), 0);
	free(d);
	rx_pair_close(&p);
}

const struct ht_test rail_xfer_tests[] = {
	{ "rail_xfer_too_big", test_rail_xfer_too_big },
	{ "rail_xfer_cancel", test_rail_xfer_cancel },
	{ "rail_xfer_stripe", test_rail_xfer_stripe },
	{ "rail_xfer_one_rail_peer", test_rail_xfer_one_rail_peer },
	{ "rail_xfer_failover_sync", test_rail_xfer_failover_sync },
	{ "rail_xfer_failover_uring", test_rail_xfer_failover_uring },
	{ "rail_xfer_device_removed", test_rail_xfer_device_removed },
	{ "rail_xfer_no_rail_left", test_rail_xfer_no_rail_left },
	{ NULL, NULL },
};
