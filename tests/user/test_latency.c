// SPDX-License-Identifier: GPL-2.0
/*
 * test_latency.c - the TRANSFER latency histograms (HIXL_FEAT_LATENCY,
 * struct hixl_lat_hist): one TRANSFER, by ioctl and through io_uring, is
 * counted once, in the one bucket its duration falls in, with that
 * duration as the sum, on its engine and on its link and nowhere else; a
 * failed one is not counted; an engine keeps its closed links' counts;
 * LINK_STATS's and ENGINES's LATENCY arguments are refused when wrong;
 * hixlctl stats prints the histograms as text, JSON and Prometheus
 * histograms that parse (tests/tools/prom_check.py), whose metric families
 * are those of the saved output tests/tools/hixlctl-stats.prom, with every
 * metric the Grafana dashboard (contrib/grafana) queries, and without
 * labels that change on a restart unless --ids asks for them.  With
 * HIXL_PROM_OUT set, the Prometheus output is written to that file (how
 * tests/tools/hixlctl-stats.prom is made again when the families change).
 *
 * Ports: 23740-23749 (no other test file uses them).
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
 * @h counts @n TRANSFERs more than @h0, of which the last took at most
 * @max_ns: count and the buckets' sum moved by @n, the sum by at most
 * @max_ns * @n and by more than 0, and with @n 1 the one bucket its
 * duration (the sum's move) falls in moved, no other.
 */
static void check_moved(const struct hixl_lat_hist *h0, const struct hixl_lat_hist *h,
			uint64_t n, uint64_t max_ns, const char *what)
{
	uint64_t d = h->sum_ns - h0->sum_ns, nb = 0;

	printf("#   %s: count %llu, sum %llu ns (at most %llu)\n", what,
	       (unsigned long long)h->count, (unsigned long long)h->sum_ns,
	       (unsigned long long)max_ns);
	CHECK_EQ(h->count - h0->count, n);
	CHECK(d > 0 && d <= max_ns * n);
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

/* Engines a (HX_IP:@pa) and b, a 1 MiB registration each, a linked to b. */
static void pair_up(struct pair *p, uint16_t pa, uint16_t pb)
{
	p->pa = pa;
	p->pb = pb;
	p->la = hx_map(1 << 20);
	p->rb = hx_map(1 << 20);
	p->a = hx_engine(pa, 0, 0);
	REQUIRE(p->a >= 0);
	need_latency(p->a);
	p->b = hx_engine(pb, 0, 0);
	REQUIRE(p->b >= 0 && p->la && p->rb);
	REQUIRE(reg_mem(p->a, p->la, 1 << 20, 0, NULL) == 0);
	REQUIRE(reg_mem(p->b, p->rb, 1 << 20, 0, NULL) == 0);
	REQUIRE(hx_connect(p->a, pb, 5000) == 0);
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
 * One WRITE by ioctl: counted once on engine a and on its link to b, in
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

	pair_up(&p, LT_PORT, LT_PORT + 1);
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

/* One WRITE through io_uring (the batch ends in its completion): counted once. */
static void test_latency_uring(void)
{
	struct hixl_lat_hist e0, e, l0, l;
	struct io_uring_params prm;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct hixl_transfer t;
	struct io_uring r;
	uint64_t ida, t0, dt;
	struct pair p;
	int ret;

	pair_up(&p, LT_PORT + 2, LT_PORT + 3);
	ida = hx_self_id(p.a);
	REQUIRE(ida);
	REQUIRE(engine_hist(p.a, ida, &e0) == 0);
	REQUIRE(link_hist(p.a, p.pb, &l0) == 0);
	memset(&prm, 0, sizeof(prm));
	prm.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(4, &r, &prm);
	if (ret == -ENOSYS || ret == -EPERM) {
		pair_down(&p);
		SKIP("io_uring is not available (io_uring_disabled?)");
	}
	REQUIRE(ret == 0);
	memset(&t, 0, sizeof(t));
	t.remote = hx_name(p.pb);
	t.op = HIXL_OP_WRITE;
	t.descs = (uintptr_t)&p.d;
	t.count = 1;
	t.timeout_ms = 10000;
	sqe = io_uring_get_sqe(&r);
	REQUIRE(sqe);
	hixl_raw_uring_cmd(sqe, 128, p.a, HIXL_IOC_TRANSFER, &t, sizeof(t), 7);
	t0 = now_ns();
	CHECK_EQ(io_uring_submit_and_wait(&r, 1), 1);
	REQUIRE(io_uring_wait_cqe(&r, &cqe) == 0);
	dt = now_ns() - t0;
	CHECK_EQ(cqe->res, 0);
	CHECK_EQ(cqe->user_data, 7);
	io_uring_cqe_seen(&r, cqe);
	io_uring_queue_exit(&r);
	REQUIRE(engine_hist(p.a, ida, &e) == 0);
	REQUIRE(link_hist(p.a, p.pb, &l) == 0);
	check_moved(&e0, &e, 1, dt, "engine after an io_uring WRITE");
	check_moved(&l0, &l, 1, dt, "link after an io_uring WRITE");
	pair_down(&p);
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

	pair_up(&p, LT_PORT + 4, LT_PORT + 5);
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

	pair_up(&p, LT_PORT + 6, LT_PORT + 7);
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

const struct ht_test latency_tests[] = {
	{ "latency_xfer", test_latency_xfer },
	{ "latency_uring", test_latency_uring },
	{ "latency_bad_args", test_latency_bad_args },
	{ "latency_hixlctl", test_latency_hixlctl },
	{ NULL, NULL },
};
