// SPDX-License-Identifier: GPL-2.0
/*
 * test_latency.c - the TRANSFER latency histograms (HIXL_FEAT_LATENCY,
 * struct hixl_lat_hist): one TRANSFER, by ioctl and through io_uring, is
 * counted once, in the one bucket its duration falls in, with that
 * duration as the sum, on its engine and on its link and nowhere else (a
 * TRANSFER striped over two rails too, on its primary link); a
 * failed one is not counted; an engine keeps its closed links' counts;
 * LINK_STATS's and ENGINES's LATENCY arguments are refused when wrong;
 * hixlctl stats prints the histograms as text, JSON and Prometheus
 * histograms that parse (tests/tools/prom_check.py), whose metric families
 * are those of the saved output tests/tools/hixlctl-stats.prom, with every
 * metric the Grafana dashboard (contrib/grafana) queries, and without
 * labels that change on a restart unless --ids asks for them, but with
 * the engine label for two engines of one name (two network namespaces).  With
 * HIXL_PROM_OUT set, the Prometheus output is written to that file (how
 * tests/tools/hixlctl-stats.prom is made again when the families change).
 *
 * Ports: 23740-23749 (no other test file uses them).
 */
#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "rail_util.h"
#include "raw.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define LT_PORT 23740	/* +0 .. +9 */
#define HIXLCTL "tools/hixlctl"
#define PY "/usr/bin/python3"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The bucket struct hixl_lat_hist documents for @ns: smallest i with ns <= 1000 << i. */
static int lat_bucket(uint64_t ns)
{
	int i = 0;

	while (i < HIXL_LAT_BUCKETS - 1 && ns > HIXL_LAT_BOUND_NS(i))
		i++;
	return i;
}

static void need_latency(int fd)
{
	struct hixl_info info;

	REQUIRE(hixl_dev_get_info(fd, &info) == 0);
	if (!(info.features & HIXL_FEAT_LATENCY))
		SKIP("the module has no HIXL_FEAT_LATENCY");
}

/* Engine @id's histogram through ENGINES (asked on @fd): 0, or -1 when not found. */
static int engine_hist(int fd, uint64_t id, struct hixl_lat_hist *h)
{
	struct hixl_engine_stat es[64];
	struct hixl_lat_hist lh[64];
	uint32_t total;
	int n = hixl_dev_engines_latency(fd, es, NULL, lh, 64, &total);

	for (int i = 0; i < n; i++)
		if (es[i].id == id) {
			*h = lh[i];
			return 0;
		}
	return -1;
}

/* The histogram of @fd's link to HX_IP:@port through LINK_STATS: 0, or -1. */
static int link_hist(int fd, uint16_t port, struct hixl_lat_hist *h)
{
	struct hixl_sockaddr want = hx_name(port);
	struct hixl_link_stat ls[16];
	struct hixl_lat_hist lh[16];
	uint32_t total;
	int n = hixl_dev_link_stats_latency(fd, 0, ls, lh, 16, &total);

	for (int i = 0; i < n; i++)
		if (!ls[i].rail && (ls[i].flags & HIXL_LINK_STAT_NAMED) &&
		    ls[i].peer.port == want.port && !memcmp(ls[i].peer.addr, want.addr, 16)) {
			*h = lh[i];
			return 0;
		}
	return -1;
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return 0;
	return 1;
}

/*
 * The kernel's clock counts in ticks: the test VM's guest falls back to
 * the refined-jiffies clocksource (4 ms at HZ=250) when it cannot
 * calibrate the TSC under QEMU/TCG ("tsc: Unable to calibrate against
 * PIT"), and then high-resolution timers are off: CLOCK_MONOTONIC's
 * resolution is the tick.
 */
static int coarse_clock(void)
{
	struct timespec r;

	return !clock_getres(CLOCK_MONOTONIC, &r) && (r.tv_sec || r.tv_nsec >= 1000000);
}

/*
 * @h counts @n TRANSFERs more than @h0, of which the last took at most
 * @max_ns: count and the buckets' sum moved by @n, the sum by at most
 * @max_ns * @n and by more than 0 (or by 0 under a tick clock, where a
 * TRANSFER shorter than a tick may start and end in one tick), and with
 * @n 1 the one bucket its duration (the sum's move) falls in moved, no
 * other.
 */
static void check_moved(const struct hixl_lat_hist *h0, const struct hixl_lat_hist *h,
			uint64_t n, uint64_t max_ns, const char *what)
{
	uint64_t d = h->sum_ns - h0->sum_ns, nb = 0;

	printf("#   %s: count %llu, sum +%llu ns (the call took %llu ns)%s\n", what,
	       (unsigned long long)h->count, (unsigned long long)d, (unsigned long long)max_ns,
	       !d && coarse_clock() ? "; the kernel's clock counts in ticks here" : "");
	CHECK_EQ(h->count - h0->count, n);
	CHECK((d > 0 || coarse_clock()) && d <= max_ns * n);
	for (int i = 0; i < HIXL_LAT_BUCKETS; i++) {
		nb += h->bucket[i] - h0->bucket[i];
		if (n == 1)
			CHECK_EQ(h->bucket[i] - h0->bucket[i], i == lat_bucket(d));
	}
	CHECK_EQ(nb, n);
	CHECK(all_zero(h->reserved, sizeof(h->reserved)));
}

struct pair {
	int a, b;
	uint16_t pa, pb;
	unsigned char *la, *rb;
	struct hixl_op_desc d;
};

/*
 * Engines a (HX_IP:@pa) and b with @transport (HIXL_TRANSPORT_RDMA: RDMA
 * over rxe0; _AUTO: same host, the kernel copy), a 1 MiB registration
 * each, a linked to b by that path.
 */
static void pair_up(struct pair *p, uint16_t pa, uint16_t pb, uint32_t transport)
{
	struct hixl_link_stat ls[4];
	uint32_t total;
	int n;

	p->pa = pa;
	p->pb = pb;
	p->la = hx_map(1 << 20);
	p->rb = hx_map(1 << 20);
	p->a = ru_engine(pa, 0, transport);
	if (p->a < 0)
		hx_engine(pa, 0, 0);	/* SKIPs without rxe0, or says why SETUP failed */
	REQUIRE(p->a >= 0);
	need_latency(p->a);
	p->b = ru_engine(pb, 0, transport);
	REQUIRE(p->b >= 0 && p->la && p->rb);
	REQUIRE(reg_mem(p->a, p->la, 1 << 20, 0, NULL) == 0);
	REQUIRE(reg_mem(p->b, p->rb, 1 << 20, 0, NULL) == 0);
	REQUIRE(hx_connect(p->a, pb, 5000) == 0);
	n = hixl_dev_link_stats(p->a, 0, ls, 4, &total);
	REQUIRE(n == 1);
	if (transport == HIXL_TRANSPORT_RDMA)
		REQUIRE(!(ls[0].flags & HIXL_LINK_STAT_LOCAL));
	else if (!(ls[0].flags & HIXL_LINK_STAT_LOCAL))
		printf("#   same-host link not paired for the kernel copy: RDMA\n");
	/* registered on both sides and large: a direct TRANSFER */
	p->d = (struct hixl_op_desc){ (uintptr_t)p->la, (uintptr_t)p->rb, 768 * KiB };
}

static void pair_down(struct pair *p)
{
	close(p->a);
	close(p->b);
	munmap(p->la, 1 << 20);
	munmap(p->rb, 1 << 20);
}

/*
 * One WRITE by ioctl over RDMA: counted once on engine a and on its link to b, in
 * the bucket of its duration, which is at most the call's; b (the passive
 * side) counts nothing; a failed TRANSFER counts nothing; a READ then
 * makes two; the engine keeps the count after the link is closed.
 */
static void test_latency_xfer(void)
{
	struct hixl_lat_hist e0, e, l0, l, eb, lb;
	struct hixl_op_desc bad;
	struct pair p;
	uint64_t ida, idb, t0, t;

	pair_up(&p, LT_PORT, LT_PORT + 1, HIXL_TRANSPORT_RDMA);
	ida = hx_self_id(p.a);
	idb = hx_self_id(p.b);
	REQUIRE(ida && idb);
	REQUIRE(engine_hist(p.a, ida, &e0) == 0);
	REQUIRE(link_hist(p.a, p.pb, &l0) == 0);
	CHECK_EQ(e0.count, 0);
	CHECK(all_zero(&l0, sizeof(l0)));

	t0 = now_ns();
	CHECK_EQ(hx_xfer(p.a, p.pb, HIXL_OP_WRITE, &p.d, 1, 10000, NULL), 0);
	t = now_ns() - t0;
	REQUIRE(engine_hist(p.a, ida, &e) == 0);
	REQUIRE(link_hist(p.a, p.pb, &l) == 0);
	check_moved(&e0, &e, 1, t, "engine after one WRITE");
	check_moved(&l0, &l, 1, t, "link after one WRITE");
	CHECK(!memcmp(&e, &l, sizeof(e)));	/* the engine's only link */
	/* asked from b's descriptor, a's engine reads the same */
	REQUIRE(engine_hist(p.b, ida, &e0) == 0);
	CHECK(!memcmp(&e0, &e, sizeof(e)));
	/* the passive side moved nothing of its own */
	REQUIRE(engine_hist(p.a, idb, &eb) == 0);
	CHECK(all_zero(&eb, sizeof(eb)));
	REQUIRE(link_hist(p.b, p.pa, &lb) == 0);
	CHECK(all_zero(&lb, sizeof(lb)));

	/* a remote range past b's registration: -ERANGE, not counted */
	bad = (struct hixl_op_desc){ (uintptr_t)p.la, (uintptr_t)p.rb + (1 << 20), 4096 };
	CHECK_EQ(hx_xfer(p.a, p.pb, HIXL_OP_WRITE, &bad, 1, 10000, NULL), -ERANGE);
	REQUIRE(engine_hist(p.a, ida, &e0) == 0);
	CHECK(!memcmp(&e0, &e, sizeof(e)));

	t0 = now_ns();
	CHECK_EQ(hx_xfer(p.a, p.pb, HIXL_OP_READ, &p.d, 1, 10000, NULL), 0);
	t = now_ns() - t0;
	REQUIRE(engine_hist(p.a, ida, &e0) == 0);
	check_moved(&e, &e0, 1, t, "engine after a READ");
	CHECK_EQ(e0.count, 2);

	/* the link closed: the engine's histogram keeps what it counted */
	CHECK_EQ(hx_disconnect(p.a, p.pb), 0);
	REQUIRE(engine_hist(p.a, ida, &e) == 0);
	CHECK(!memcmp(&e, &e0, sizeof(e)));
	CHECK_EQ(link_hist(p.a, p.pb, &l), -1);
	pair_down(&p);
}

/*
 * One WRITE of @d from @fd to HX_IP:@port through io_uring: its CQE's res,
 * *@ns the time from submission to the CQE; SKIPs without io_uring.
 */
static int uring_write(int fd, uint16_t port, const struct hixl_op_desc *d, uint64_t *ns)
{
	struct io_uring_params prm;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct hixl_transfer t;
	struct io_uring r;
	uint64_t t0;
	int ret;

	memset(&prm, 0, sizeof(prm));
	prm.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(4, &r, &prm);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP("io_uring is not available (io_uring_disabled?)");
	if (ret)
		return ret;
	memset(&t, 0, sizeof(t));
	t.remote = hx_name(port);
	t.op = HIXL_OP_WRITE;
	t.descs = (uintptr_t)d;
	t.count = 1;
	t.timeout_ms = 10000;
	sqe = io_uring_get_sqe(&r);
	if (!sqe) {
		io_uring_queue_exit(&r);
		return -EBUSY;
	}
	hixl_raw_uring_cmd(sqe, 128, fd, HIXL_IOC_TRANSFER, &t, sizeof(t), 7);
	t0 = now_ns();
	ret = io_uring_submit_and_wait(&r, 1);
	if (ret == 1)
		ret = io_uring_wait_cqe(&r, &cqe);
	*ns = now_ns() - t0;
	if (!ret) {
		ret = cqe->user_data == 7 ? cqe->res : -EPROTO;
		io_uring_cqe_seen(&r, cqe);
	}
	io_uring_queue_exit(&r);
	return ret;
}

/*
 * One WRITE through io_uring, over RDMA (the batch ends in its
 * completion) and by the same-host kernel copy (it ends in the issue):
 * each counted once.
 */
static void test_latency_uring(void)
{
	static const uint32_t tr[] = { HIXL_TRANSPORT_RDMA, HIXL_TRANSPORT_AUTO };
	struct hixl_lat_hist e0, e, l0, l;
	uint64_t ida, dt;
	struct pair p;

	for (int i = 0; i < 2; i++) {
		pair_up(&p, LT_PORT + 2, LT_PORT + 3, tr[i]);
		ida = hx_self_id(p.a);
		REQUIRE(ida);
		REQUIRE(engine_hist(p.a, ida, &e0) == 0);
		REQUIRE(link_hist(p.a, p.pb, &l0) == 0);
		CHECK_EQ(uring_write(p.a, p.pb, &p.d, &dt), 0);
		REQUIRE(engine_hist(p.a, ida, &e) == 0);
		REQUIRE(link_hist(p.a, p.pb, &l) == 0);
		check_moved(&e0, &e, 1, dt, i ? "engine, io_uring, kernel copy" : "engine, io_uring, RDMA");
		check_moved(&l0, &l, 1, dt, i ? "link, io_uring, kernel copy" : "link, io_uring, RDMA");
		pair_down(&p);
	}
}

/* rail 1's links up on @fd's engine within @ms: 0, or -1 */
static int wait_rail1(int fd, int ms)
{
	struct hixl_rail_stat r[HIXL_MAX_RAILS];

	for (int t = 0; t < ms; t += 50) {
		if (hixl_dev_get_stats_rails(fd, NULL, r, HIXL_MAX_RAILS, NULL) == 2 &&
		    r[1].links && r[1].links_up == r[1].links)
			return 0;
		usleep(50000);
	}
	return -1;
}

/* bytes rail 1 of @fd's engine wrote, or 0 */
static uint64_t rail1_written(int fd)
{
	struct hixl_rail_stat r[HIXL_MAX_RAILS];

	if (hixl_dev_get_stats_rails(fd, NULL, r, HIXL_MAX_RAILS, NULL) < 2)
		return 0;
	return r[1].xfer.write_direct_bytes;
}

/*
 * Two engines on two rails: a 4 MiB WRITE striped over both, by ioctl and
 * through io_uring (the striped batch ends in its own completion), each
 * counted once on the engine and the primary link; the rail 1 entry of
 * LINK_STATS has no histogram.
 */
static void test_latency_striped(void)
{
	const uint16_t pa = LT_PORT + 8, pb = LT_PORT + 9;
	const size_t len = 4u << 20;
	struct hixl_lat_hist e0, e, l0, l, lh[8];
	struct hixl_link_stat ls[8];
	struct hixl_op_desc d;
	uint8_t *la = NULL, *rb = NULL;
	uint64_t ida, t0, dt, w0;
	uint32_t total;
	int a, b, n;

	ru_need_rxe();
	a = ru_engine(pa, 1, HIXL_TRANSPORT_RDMA);	/* same host: not the kernel copy */
	REQUIRE(a >= 0);
	if (ru_need(a, HIXL_FEAT_RAIL_STRIPE | HIXL_FEAT_RAIL_LINKS | HIXL_FEAT_LATENCY |
		    HIXL_FEAT_STATS_RAILS, "HIXL_FEAT_RAIL_STRIPE/RAIL_LINKS/LATENCY/STATS_RAILS"))
		REQUIRE(0);
	b = ru_engine(pb, 1, HIXL_TRANSPORT_RDMA);
	REQUIRE(b >= 0);
	REQUIRE(ru_pair_mem(a, b, pb, len, 10000, &la, &rb) == 0);
	REQUIRE(wait_rail1(a, 15000) == 0);
	ida = hx_self_id(a);
	REQUIRE(ida);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, len };

	REQUIRE(engine_hist(a, ida, &e0) == 0);
	REQUIRE(link_hist(a, pb, &l0) == 0);
	w0 = rail1_written(a);
	t0 = now_ns();
	CHECK_EQ(hx_xfer(a, pb, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	dt = now_ns() - t0;
	CHECK(rail1_written(a) > w0);		/* striped: rail 1 moved part of it */
	REQUIRE(engine_hist(a, ida, &e) == 0);
	REQUIRE(link_hist(a, pb, &l) == 0);
	check_moved(&e0, &e, 1, dt, "engine after a striped WRITE");
	check_moved(&l0, &l, 1, dt, "link after a striped WRITE");

	w0 = rail1_written(a);
	CHECK_EQ(uring_write(a, pb, &d, &dt), 0);
	CHECK(rail1_written(a) > w0);
	REQUIRE(engine_hist(a, ida, &e0) == 0);
	REQUIRE(link_hist(a, pb, &l0) == 0);
	check_moved(&e, &e0, 1, dt, "engine after a striped io_uring WRITE");
	check_moved(&l, &l0, 1, dt, "link after a striped io_uring WRITE");

	n = hixl_dev_link_stats_latency(a, 0, ls, lh, 8, &total);
	CHECK_EQ(n, 2);				/* the link and its rail 1 entry */
	for (int i = 0; i < n; i++)
		if (ls[i].rail)
			CHECK(all_zero(&lh[i], sizeof(lh[i])));
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

/* LINK_STATS's and ENGINES's LATENCY flag and lat pointer: refused when they disagree. */
static void test_latency_bad_args(void)
{
	static struct hixl_link_stat ls[4];
	static struct hixl_engine_stat es[4];
	static struct hixl_lat_hist lh[4];
	struct hixl_link_stats a;
	struct hixl_engines en;
	struct pair p;
	void *ro;

	pair_up(&p, LT_PORT + 4, LT_PORT + 5, HIXL_TRANSPORT_AUTO);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED);

	memset(&a, 0, sizeof(a));
	a.flags = HIXL_LINK_STATS_LATENCY;		/* no entries, no pointer: fine */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), 0);
	CHECK_EQ(a.total, 1);
	a.buf = (uintptr_t)ls;
	a.count = 4;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), -EINVAL);	/* entries, no lat */
	a.lat = (uintptr_t)lh;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), 0);
	a.flags = 0;					/* lat without the flag */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), -EINVAL);
	a.flags = HIXL_LINK_STATS_LATENCY | (1U << 2);	/* an unknown bit */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), -EINVAL);
	a.flags = HIXL_LINK_STATS_LATENCY;
	a.buf = 0;
	a.count = 0;					/* lat without a count */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), -EINVAL);
	a.buf = (uintptr_t)ls;
	a.count = 4;
	a.lat = (uintptr_t)ro;				/* cannot be written */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_LINK_STATS, &a), -EFAULT);
	CHECK_EQ(hixl_dev_link_stats_latency(p.a, 0, ls, NULL, 4, NULL), -EINVAL);

	memset(&en, 0, sizeof(en));
	en.flags = HIXL_ENGINES_LATENCY;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), 0);
	CHECK(en.total >= 2);
	en.buf = (uintptr_t)es;
	en.count = 4;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), -EINVAL);	/* entries, no lat */
	en.lat = (uintptr_t)lh;
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), 0);
	en.flags = 0;					/* lat without the flag */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), -EINVAL);
	en.flags = HIXL_ENGINES_LATENCY | (1U << 2);	/* an unknown bit */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), -EINVAL);
	en.flags = HIXL_ENGINES_LATENCY;
	en.buf = 0;
	en.count = 0;					/* lat without a count */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), -EINVAL);
	en.buf = (uintptr_t)es;
	en.count = 4;
	en.lat = (uintptr_t)ro;				/* cannot be written */
	CHECK_EQ(xioctl(p.a, HIXL_IOC_ENGINES, &en), -EFAULT);
	CHECK_EQ(hixl_dev_engines_latency(p.a, es, NULL, NULL, 4, NULL), -EINVAL);
	munmap(ro, 4096);
	pair_down(&p);
}

/* Run "tools/hixlctl ARGS", stdout into @out: its exit status, or -1. */
static int hixlctl(const char *args, char *out, size_t len)
{
	char cmd[256];
	size_t n = 0, got;
	FILE *f;
	int st;

	if (access(HIXLCTL, X_OK))
		SKIP(HIXLCTL " not built (run from the repo after make tools)");
	snprintf(cmd, sizeof(cmd), HIXLCTL " %s 2>/dev/null", args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, f)))
		n += got;
	out[n] = '\0';
	st = pclose(f);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Feed @in to the shell command @cmd: its exit status, or -1. */
static int pipe_to(const char *cmd, const char *in)
{
	FILE *f = popen(cmd, "w");
	int st;

	if (!f)
		return -1;
	fputs(in, f);
	st = pclose(f);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * hixlctl stats after one WRITE: text, JSON and Prometheus show it in the
 * engine's and the link's histogram; the Prometheus output is checked by
 * tests/tools/prom_check.py (format, histogram rules, the dashboard's
 * metrics, the saved output's families); no pid or engine label without
 * --ids, both with it.
 */
static void test_latency_hixlctl(void)
{
	static char out[1 << 20];
	char want[512], id[32];
	struct pair p;
	uint64_t ida;

	pair_up(&p, LT_PORT + 6, LT_PORT + 7, HIXL_TRANSPORT_AUTO);
	CHECK_EQ(hx_xfer(p.a, p.pb, HIXL_OP_WRITE, &p.d, 1, 10000, NULL), 0);
	ida = hx_self_id(p.a);
	REQUIRE(ida);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)ida);

	CHECK_EQ(hixlctl("stats", out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "engine=%s pid=%d name=%s:%u ", id, getpid(), HX_IP, p.pa);
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, " latency_count=1 latency_sum_ns=") != NULL);

	/* JSON: engine a's histogram and its link's (that it parses: stats_hixlctl) */
	CHECK_EQ(hixlctl("stats --json", out, sizeof(out)), 0);
	{
		const char *e = strstr(out, "\"latency\": {\"count\": 1, \"sum_ns\": ");

		CHECK(e != NULL);
		CHECK(e && strstr(e + 1, "\"latency\": {\"count\": 1, \"sum_ns\": ") != NULL);
		CHECK(strstr(out, "\"le_ns\": [1000, 2000, 4000, ") != NULL);
	}

	if (access(PY, X_OK)) {
		pair_down(&p);
		SKIP("no " PY " to check hixlctl's Prometheus output");
	}
	CHECK_EQ(hixlctl("stats --prometheus", out, sizeof(out)), 0);
	snprintf(want, sizeof(want),
		 "\nhixl_engine_transfer_duration_seconds_count{name=\"%s:%u\"} 1\n", HX_IP, p.pa);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want),
		 "\nhixl_link_transfer_duration_seconds_bucket{name=\"%s:%u\",peer=\"%s:%u\","
		 "le=\"+Inf\"} 1\n", HX_IP, p.pa, HX_IP, p.pb);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want),
		 "\nhixl_engine_transfer_duration_seconds_bucket{name=\"%s:%u\",le=\"1e-06\"} ",
		 HX_IP, p.pa);
	CHECK(strstr(out, want) != NULL);
	CHECK(strstr(out, "pid=") == NULL);		/* no label that a restart changes */
	CHECK(strstr(out, "engine=") == NULL);
	CHECK_EQ(pipe_to(PY " tests/tools/prom_check.py --dashboard contrib/grafana/hixl-dashboard.json"
			 " --families tests/tools/hixlctl-stats.prom -", out), 0);
	if (getenv("HIXL_PROM_OUT")) {	/* to save as tests/tools/hixlctl-stats.prom */
		FILE *f = fopen(getenv("HIXL_PROM_OUT"), "w");

		if (f) {
			fputs(out, f);
			fclose(f);
		}
	}

	CHECK_EQ(hixlctl("stats --prometheus --ids", out, sizeof(out)), 0);
	snprintf(want, sizeof(want),
		 "\nhixl_engine_transfer_duration_seconds_count{pid=\"%d\",engine=\"%s\","
		 "name=\"%s:%u\"} 1\n", getpid(), id, HX_IP, p.pa);
	CHECK(strstr(out, want) != NULL);
	/* its format: test_stats.c's stats_hixlctl; --ids without --prometheus: tests/tools/hixlctl.sh */
	pair_down(&p);
}

/*
 * Two loopback engines of one name, 127.0.0.1:LT_PORT+8, in two network
 * namespaces: hixlctl stats --prometheus tells them apart by the engine
 * label (their name alone would make one series of two) and its output
 * still passes prom_check.py.
 */
static void test_latency_same_name(void)
{
	static char out[1 << 20];
	char want[256], name[64];
	uint64_t ida, idc = 0;
	int a, p[2], q[2], status;
	long res[2] = { 0 };
	pid_t pid;

	need_loopback();
	a = lo_eng(AF_INET, LT_PORT + 8);
	REQUIRE(a >= 0);
	need_latency(a);
	ida = hx_self_id(a);
	REQUIRE(ida);
	REQUIRE(pipe(p) == 0 && pipe(q) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int c;
		char x;

		close(q[1]);
		if (unshare(CLONE_NEWNET)) {
			res[0] = -errno;
			(void)!write(p[1], res, sizeof(res));
			_exit(0);
		}
		c = lo_eng(AF_INET, LT_PORT + 8);	/* the same name, another namespace */
		res[0] = c < 0 ? c : 0;
		res[1] = c < 0 ? 0 : (long)hx_self_id(c);
		(void)!write(p[1], res, sizeof(res));
		(void)!read(q[0], &x, 1);		/* hold the engine until the parent is done */
		_exit(0);
	}
	close(q[0]);
	REQUIRE(read(p[0], res, sizeof(res)) == sizeof(res));
	if (res[0] == -EPERM || res[0] == -EINVAL || res[0] == -ENOSYS) {
		close(q[1]);
		waitpid(pid, &status, 0);
		SKIP("no unshare(CLONE_NEWNET) here");
	}
	CHECK_EQ(res[0], 0);
	idc = (uint64_t)res[1];
	CHECK(idc && idc != ida);
	CHECK_EQ(hixlctl("stats --prometheus", out, sizeof(out)), 0);
	close(q[1]);
	waitpid(pid, &status, 0);
	snprintf(name, sizeof(name), "127.0.0.1:%u", LT_PORT + 8);
	snprintf(want, sizeof(want), "\nhixl_engine_links{engine=\"%llu\",name=\"%s\"} 0\n",
		 (unsigned long long)ida, name);
	CHECK(strstr(out, want) != NULL);
	snprintf(want, sizeof(want), "\nhixl_engine_links{engine=\"%llu\",name=\"%s\"} 0\n",
		 (unsigned long long)idc, name);
	CHECK(strstr(out, want) != NULL);
	if (!access(PY, X_OK))
		CHECK_EQ(pipe_to(PY " tests/tools/prom_check.py -", out), 0);
	close(a);
}

const struct ht_test latency_tests[] = {
	{ "latency_xfer", test_latency_xfer },
	{ "latency_uring", test_latency_uring },
	{ "latency_striped", test_latency_striped },
	{ "latency_bad_args", test_latency_bad_args },
	{ "latency_hixlctl", test_latency_hixlctl },
	{ "latency_same_name", test_latency_same_name },
	{ NULL, NULL },
};
