// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_gstats.c - GET_STATS per rail (HIXL_FEAT_STATS_RAILS):
 * HIXL_STATS_RAILS's arguments refused one by one;
 * two two-rail engines (rail 0 on 10.77.0.1/rxe0, rail 1 on 10.78.0.1/rxe1
 * over veth2) moving a striped WRITE and READ, both rails' counters moving
 * and summing to the engine's; rail 1's device deleted under a batch (it
 * shows removed, the failover counters move: away from rail 1, re-posted
 * onto rail 0), then re-added (up again, its counters kept); and the rail
 * tracepoints (hixl_rail_state, hixl_rail_failover) read from tracefs
 * around the same events.  Ports 24940-24959.
 *
 * Every test that changes veth0, veth2, rxe0 or rxe1 puts them back before
 * it ends, failed or not (rail_util.c's rail_restore()): later tests use
 * the same VM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "rail_util.h"

void test_rail_gstats_args(void);
void test_rail_gstats_two(void);
void test_rail_gstats_removed(void);
void test_rail_gstats_trace(void);

#define GS_TMO_MS	120000		/* a rail's RC retries take seconds */
#define GS_CANARY	0xa5

static void gs_need_feature(int fd)
{
	struct hixl_info info;

	memset(&info, 0, sizeof(info));
	REQUIRE(xioctl(fd, HIXL_IOC_GET_INFO, &info) == 0);
	if (!(info.features & HIXL_FEAT_STATS_RAILS))
		SKIP("the module has no HIXL_FEAT_STATS_RAILS");
}

/* SKIP without per-rail stats and striping, rxe0 and rxe1, or the ip/rdma tools */
static void gs_need_rails(int fd)
{
	REQUIRE(ru_need(fd, HIXL_FEAT_STATS_RAILS | HIXL_FEAT_RAIL_STRIPE | HIXL_FEAT_RAIL_LINKS,
			"HIXL_FEAT_STATS_RAILS/RAIL_STRIPE/RAIL_LINKS") == 0);
	ru_need_tool("ip");
	ru_need_tool("rdma");
}

/* an engine on HX_IP:@port, with rail 1 (RAIL1_IP) when @two, RDMA only (rails
 * are RDMA's: never the same-host copy): fd or -1 */
static int gs_engine(uint16_t port, int two)
{
	return ru_engine(port, two, HIXL_TRANSPORT_RDMA);
}

/* GET_STATS with the raw fields: 0 or -errno */
static long gs_ioctl(int fd, uint32_t flags, uint32_t nr, uint64_t rails, struct hixl_stats *out)
{
	struct hixl_stats a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.nr_rails = nr;
	a.rails = rails;
	if (xioctl(fd, HIXL_IOC_GET_STATS, &a))
		return -errno;
	if (out)
		*out = a;
	return 0;
}

/* the engine's counters and its rails (up to HIXL_MAX_RAILS): rails, or -errno */
static int gs_rails(int fd, struct hixl_stats *st, struct hixl_rail_stat *r)
{
	uint32_t total = 0;
	int n;

	memset(r, 0, HIXL_MAX_RAILS * sizeof(*r));
	n = hixl_dev_get_stats_rails(fd, st, r, HIXL_MAX_RAILS, &total);
	if (n < 0)
		return n;
	return (int)total;
}

static int all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

static const char *gs_state(uint32_t s)
{
	static const char *const n[] = { "none", "up", "down", "removed" };

	return s < 4 ? n[s] : "?";
}

static void gs_print(const char *what, const struct hixl_rail_stat *r, int n)
{
	for (int i = 0; i < n; i++)
		printf("# %s: rail %u %s device %s node %d links %u/%u mrs %llu wr %llu rd %llu "
		       "failovers %llu reposted %llu\n", what, r[i].rail, gs_state(r[i].state),
		       r[i].device, r[i].numa_node, r[i].links_up, r[i].links,
		       (unsigned long long)r[i].mrs,
		       (unsigned long long)r[i].xfer.write_direct_bytes,
		       (unsigned long long)r[i].xfer.read_direct_bytes,
		       (unsigned long long)r[i].xfer.rail_failovers,
		       (unsigned long long)r[i].xfer.rail_repost_bytes);
}

/* wait up to @ms for rail 1 of @fd to be up with every paired link's connection up */
static int gs_wait_rail1(int fd, uint32_t state, unsigned int ms)
{
	struct hixl_rail_stat r[HIXL_MAX_RAILS];
	struct hixl_stats st;

	for (unsigned int t = 0; t <= ms; t += 100) {
		if (gs_rails(fd, &st, r) == 2 && r[1].state == state &&
		    (state != HIXL_RAIL_STATE_UP || (r[1].links && r[1].links_up == r[1].links)))
			return 0;
		usleep(100 * 1000);
	}
	gs_print("waited for", r, 2);
	return -1;
}

/*
 * Every argument of HIXL_STATS_RAILS refused on its own; no SETUP: 0
 * rails; a one-rail engine: rail 0 filled, nothing written past what
 * nr_rails in asked for; a pointer that cannot be written: -EFAULT.
 */
void test_rail_gstats_args(void)
{
	static uint8_t buf[(HIXL_MAX_RAILS + 1) * sizeof(struct hixl_rail_stat)];
	struct hixl_rail_stat *r = (void *)buf;
	uint64_t ub = (uintptr_t)buf;
	struct hixl_stats st;
	struct hixl_sockaddr me;
	uint32_t total = 77;
	void *ro, *hole;
	int fd = open_dev(), e;

	REQUIRE(fd >= 0);
	gs_need_feature(fd);
	/* unknown flags, with or without RAILS */
	CHECK_EQ(gs_ioctl(fd, 1U << 1, 0, 0, NULL), -EINVAL);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS | (1U << 31), 1, ub, NULL), -EINVAL);
	/* nr_rails or rails without the flag */
	CHECK_EQ(gs_ioctl(fd, 0, 1, 0, NULL), -EINVAL);
	CHECK_EQ(gs_ioctl(fd, 0, 0, ub, NULL), -EINVAL);
	CHECK_EQ(gs_ioctl(fd, 0, 1, ub, NULL), -EINVAL);
	/* more entries than an engine can have rails */
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, HIXL_MAX_RAILS + 1, ub, NULL), -EINVAL);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 0xffffffffu, ub, NULL), -EINVAL);
	/* one of nr_rails and rails without the other */
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 1, 0, NULL), -EINVAL);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 0, ub, NULL), -EINVAL);
	/* the library refuses the same before the module */
	CHECK_EQ(hixl_dev_get_stats_rails(fd, NULL, NULL, 1, &total), -EINVAL);
	CHECK_EQ(hixl_dev_get_stats_rails(fd, NULL, r, HIXL_MAX_RAILS + 1, &total), -EINVAL);
	CHECK_EQ(total, 77);

	/* no SETUP: 0 rails, nothing written */
	memset(buf, GS_CANARY, sizeof(buf));
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 0, 0, &st), 0);
	CHECK_EQ(st.nr_rails, 0);
	CHECK_EQ(st.flags, HIXL_STATS_RAILS);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 2, ub, &st), 0);
	CHECK_EQ(st.nr_rails, 0);
	CHECK_EQ(st.rails, ub);
	CHECK(all_bytes(buf, sizeof(buf), GS_CANARY));
	CHECK_EQ(hixl_dev_get_stats_rails(fd, NULL, r, 2, &total), 0);
	CHECK_EQ(total, 0);
	/* without the flag, nr_rails out stays 0 */
	CHECK_EQ(gs_ioctl(fd, 0, 0, 0, &st), 0);
	CHECK_EQ(st.nr_rails, 0);
	close(fd);

	/* a one-rail engine on rxe0 */
	if (access("/sys/class/infiniband/rxe0", F_OK))
		SKIP("no rxe0 (the test VM's 10.77.0.1) for the set-up half");
	fd = gs_engine(24940, 0);
	REQUIRE(fd >= 0);
	memset(buf, GS_CANARY, sizeof(buf));
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, HIXL_MAX_RAILS, ub, &st), 0);
	CHECK_EQ(st.nr_rails, 1);
	CHECK_EQ(r[0].rail, 0);
	CHECK_EQ(r[0].state, HIXL_RAIL_STATE_UP);
	CHECK_EQ(strcmp(r[0].device, "rxe0"), 0);
	me = hx_name(24940);
	CHECK_EQ(r[0].addr.family, AF_INET);
	CHECK_EQ(r[0].addr.port, 24940);
	CHECK_EQ(memcmp(r[0].addr.addr, me.addr, sizeof(me.addr)), 0);
	CHECK_EQ(r[0].links, 0);
	CHECK_EQ(r[0].links_up, 0);
	CHECK(r[0].numa_node >= -1);
	CHECK_EQ(r[0].reserved0, 0);
	CHECK(all_bytes(r[0].reserved, sizeof(r[0].reserved), 0));
	CHECK_EQ(r[0].xfer.write_direct_bytes, 0);
	/* only min(nr_rails in, out) entries are written */
	CHECK(all_bytes(&r[1], sizeof(buf) - sizeof(r[0]), GS_CANARY));
	/* a buffer that cannot be written: -EFAULT */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED && hole != MAP_FAILED);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 1, (uintptr_t)ro, NULL), -EFAULT);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 1, (uintptr_t)hole, NULL), -EFAULT);
	CHECK_EQ(gs_ioctl(fd, HIXL_STATS_RAILS, 1, 0xffff888000000000ULL, NULL), -EFAULT);
	/* the struct straddles into the hole: -EFAULT, not a partial success */
	e = (int)gs_ioctl(fd, HIXL_STATS_RAILS, 1,
			  (uintptr_t)hole - sizeof(struct hixl_rail_stat) / 2, NULL);
	CHECK(e == -EFAULT);
	munmap(ro, 4096);
	munmap(hole, 4096);

	/* ENGINES with HIXL_ENGINES_RAILS: its arguments, and our engine's rails */
	{
		static struct hixl_rail_stat er[4 * HIXL_MAX_RAILS];
		struct hixl_engine_stat es[4];
		struct hixl_engines en;
		int k, nr, found = 0;

		memset(&en, 0, sizeof(en));
		en.buf = (uintptr_t)es;
		en.count = 4;
		en.rails = (uintptr_t)er;		/* rails without the flag */
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EINVAL);
		en.flags = HIXL_ENGINES_RAILS | (1U << 1);
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EINVAL);
		en.flags = HIXL_ENGINES_RAILS;
		en.rails = 0;				/* a count without rails */
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EINVAL);
		en.count = 0;
		en.buf = 0;
		en.rails = (uintptr_t)er;		/* rails without a count */
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EINVAL);
		en.count = HIXL_MAX_RAIL_STAT_ENGINES + 1;
		en.buf = (uintptr_t)es;
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EINVAL);
		en.count = 1;
		en.rails = 0xffff888000000000ULL;	/* rails not writable */
		CHECK_EQ(xioctl(fd, HIXL_IOC_ENGINES, &en) ? -errno : 0, -EFAULT);
		CHECK_EQ(hixl_dev_engines_rails(fd, es, NULL, 1, NULL), -EINVAL);
		CHECK_EQ(hixl_dev_engines_rails(fd, NULL, NULL, 0, &total), 0);
		CHECK(total >= 1);
		memset(er, GS_CANARY, sizeof(er));
		nr = hixl_dev_engines_rails(fd, es, er, 4, &total);
		CHECK(nr >= 1);
		for (k = 0; k < nr; k++) {
			const struct hixl_rail_stat *x = &er[k * HIXL_MAX_RAILS];

			if (!(es[k].flags & HIXL_ENGINE_STAT_SELF))
				continue;
			found = 1;
			CHECK_EQ(es[k].nr_rails, 1);
			CHECK_EQ(x[0].rail, 0);
			CHECK_EQ(x[0].state, HIXL_RAIL_STATE_UP);
			CHECK_EQ(strcmp(x[0].device, "rxe0"), 0);
			CHECK_EQ(x[0].addr.port, 24940);
			/* the entries past the engine's rails: zero, state NONE */
			CHECK(all_bytes(&x[1], (HIXL_MAX_RAILS - 1) * sizeof(*x), 0));
			CHECK_EQ(x[1].state, HIXL_RAIL_STATE_NONE);
		}
		CHECK(found);
		/* nothing written for engine records not asked for */
		CHECK(all_bytes(&er[nr * HIXL_MAX_RAILS], (4 - nr) * HIXL_MAX_RAILS * sizeof(*er),
				GS_CANARY));
	}
	close(fd);
}

/* one striped batch of @op: the deltas of both rails and of the engine */
static void gs_batch(int a, uint16_t pb, uint32_t op, uint8_t *la, uint8_t *rb, size_t len)
{
	struct hixl_rail_stat r0[HIXL_MAX_RAILS], r1[HIXL_MAX_RAILS];
	struct hixl_stats s0, s1;
	struct hixl_op_desc d[3];
	uint64_t e, b0, b1, o0, o1, eo;
	uint32_t failed = 0;
	uint8_t *src = op == HIXL_OP_WRITE ? la : rb, *dst = op == HIXL_OP_WRITE ? rb : la;

	hx_fill(src, len, op == HIXL_OP_WRITE ? 31 : 32);
	memset(dst, 0, len);
	/* two striped descriptors (>= 1 MiB) and a small one */
	d[0] = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, len / 2 };
	d[1] = (struct hixl_op_desc){ (uintptr_t)la + len / 2, (uintptr_t)rb + len / 2,
				      len / 2 - 4096 };
	d[2] = (struct hixl_op_desc){ (uintptr_t)la + len - 4096, (uintptr_t)rb + len - 4096, 4096 };
	REQUIRE(gs_rails(a, &s0, r0) == 2);
	CHECK_EQ(hx_xfer(a, pb, op, d, 3, GS_TMO_MS, &failed), 0);
	CHECK_EQ(hx_first_diff(src, dst, len), -1);
	REQUIRE(gs_rails(a, &s1, r1) == 2);
	if (op == HIXL_OP_WRITE) {
		e = s1.xfer.write_direct_bytes - s0.xfer.write_direct_bytes;
		b0 = r1[0].xfer.write_direct_bytes - r0[0].xfer.write_direct_bytes;
		b1 = r1[1].xfer.write_direct_bytes - r0[1].xfer.write_direct_bytes;
		eo = s1.xfer.write_direct_ops - s0.xfer.write_direct_ops;
		o0 = r1[0].xfer.write_direct_ops - r0[0].xfer.write_direct_ops;
		o1 = r1[1].xfer.write_direct_ops - r0[1].xfer.write_direct_ops;
	} else {
		e = s1.xfer.read_direct_bytes - s0.xfer.read_direct_bytes;
		b0 = r1[0].xfer.read_direct_bytes - r0[0].xfer.read_direct_bytes;
		b1 = r1[1].xfer.read_direct_bytes - r0[1].xfer.read_direct_bytes;
		eo = s1.xfer.read_direct_ops - s0.xfer.read_direct_ops;
		o0 = r1[0].xfer.read_direct_ops - r0[0].xfer.read_direct_ops;
		o1 = r1[1].xfer.read_direct_ops - r0[1].xfer.read_direct_ops;
	}
	printf("# %s %zu bytes: engine %llu, rail 0 %llu, rail 1 %llu; ops engine %llu, "
	       "rail 0 %llu, rail 1 %llu\n", op == HIXL_OP_WRITE ? "WRITE" : "READ", len,
	       (unsigned long long)e, (unsigned long long)b0, (unsigned long long)b1,
	       (unsigned long long)eo, (unsigned long long)o0, (unsigned long long)o1);
	CHECK_EQ(e, len);		/* every byte once: no failover */
	CHECK(b0 > 0);			/* both rails moved some */
	CHECK(b1 > 0);
	CHECK_EQ(b0 + b1, e);		/* and the rails sum to the engine */
	CHECK_EQ(eo, 3);
	CHECK_EQ(o0 + o1, eo);		/* a striped TRANSFER's descriptors: rail 0's */
	CHECK_EQ(o0, 3);
	CHECK_EQ(r1[1].xfer.rail_failovers, r0[1].xfer.rail_failovers);
}

/* `tools/hixlctl stats @args` into @buf */
static void gs_run(const char *args, char *buf, size_t len)
{
	char cmd[128];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "tools/hixlctl stats %s 2>&1", args);
	buf[0] = '\0';
	p = popen(cmd, "r");
	if (!p) {
		CHECK(!"popen hixlctl");
		return;
	}
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	pclose(p);
}

/* hixlctl stats shows engine @a's rails: text, --json, --prometheus */
static void gs_hixlctl(int a)
{
	static char buf[1 << 16];
	struct hixl_engine_stat es[16];
	unsigned long long id = 0;
	char want[256];
	uint32_t total;
	int n = hixl_dev_engines(a, es, 16, &total);

	for (int i = 0; i < n; i++)
		if (es[i].flags & HIXL_ENGINE_STAT_SELF)
			id = es[i].id;
	REQUIRE(id);
	gs_run("", buf, sizeof(buf));
	snprintf(want, sizeof(want), "\n  rail engine=%llu rail=0 address=%s:24942 device=rxe0 "
		 "state=up ", id, HX_IP);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "\n  rail engine=%llu rail=1 address=%s device=rxe1 "
		 "state=up ", id, RAIL1_IP);
	CHECK(strstr(buf, want) != NULL);
	if (ht_failures)
		printf("# hixlctl stats:\n%s", buf);
	gs_run("--json", buf, sizeof(buf));
	snprintf(want, sizeof(want), "\"rails\": [{\"rail\": 0, \"address\": \"%s:24942\", "
		 "\"device\": \"rxe0\", \"state\": \"up\"", HX_IP);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "{\"rail\": 1, \"address\": \"%s\", \"device\": \"rxe1\", "
		 "\"state\": \"up\"", RAIL1_IP);
	CHECK(strstr(buf, want) != NULL);
	gs_run("--prometheus", buf, sizeof(buf));
	CHECK(strstr(buf, "# TYPE hixl_rail_up gauge") != NULL);
	snprintf(want, sizeof(want), "{name=\"%s:24942\",rail=\"1\",device=\"rxe1\"} 1\n", HX_IP);
	CHECK(strstr(buf, want) != NULL);
	CHECK(strstr(buf, "# TYPE hixl_rail_repost_bytes_total counter") != NULL);
}

/*
 * Two two-rail engines: both rails listed (address, device, up, one link
 * up each, MRs on both), a striped WRITE and READ move bytes on both rails
 * and the rails' counters sum to the engine's.
 */
static void gs_two_body(void)
{
	const size_t len = 4u << 20;
	struct hixl_rail_stat r[HIXL_MAX_RAILS];
	struct hixl_sockaddr want;
	struct hixl_stats st;
	uint8_t *la, *rb;
	int a, b;

	a = gs_engine(24942, 1);
	b = gs_engine(24943, 1);
	REQUIRE(a >= 0 && b >= 0);
	la = hx_map(len);
	rb = hx_map(len);
	REQUIRE(la && rb);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	/* before any link: both rails up, no link on either */
	REQUIRE(gs_rails(a, &st, r) == 2);
	CHECK_EQ(r[0].state, HIXL_RAIL_STATE_UP);
	CHECK_EQ(r[1].state, HIXL_RAIL_STATE_UP);
	CHECK_EQ(r[1].links, 0);
	REQUIRE(hx_connect(a, 24943, 10000) == 0);
	CHECK_EQ(gs_wait_rail1(a, HIXL_RAIL_STATE_UP, 15000), 0);
	CHECK_EQ(gs_wait_rail1(b, HIXL_RAIL_STATE_UP, 15000), 0);
	REQUIRE(gs_rails(a, &st, r) == 2);
	gs_print("connected", r, 2);
	CHECK_EQ(r[0].rail, 0);
	CHECK_EQ(r[1].rail, 1);
	CHECK_EQ(strcmp(r[0].device, "rxe0"), 0);
	CHECK_EQ(strcmp(r[1].device, "rxe1"), 0);
	CHECK_EQ(r[0].addr.port, 24942);
	CHECK_EQ(r[1].addr.port, 0);
	memset(&want, 0, sizeof(want));
	inet_pton(AF_INET, RAIL1_IP, want.addr);
	CHECK_EQ(memcmp(r[1].addr.addr, want.addr, sizeof(want.addr)), 0);
	CHECK_EQ(r[0].links, 1);
	CHECK_EQ(r[0].links_up, 1);
	CHECK_EQ(r[1].links, 1);
	CHECK_EQ(r[1].links_up, 1);
	CHECK(r[0].mrs > 0);		/* the region's MRs, on both rails */
	CHECK(r[1].mrs > 0);
	CHECK_EQ(r[0].mrs + r[1].mrs, st.mrs);
	/* the acceptor counted rail 1's link on rail 1 (a connector's rail links count no connect) */
	{
		struct hixl_rail_stat rb1[HIXL_MAX_RAILS];
		struct hixl_stats sb;

		REQUIRE(gs_rails(b, &sb, rb1) == 2);
		CHECK(rb1[1].xfer.accepts >= 1);
		CHECK_EQ(rb1[0].xfer.accepts, 1);
		CHECK_EQ(rb1[0].xfer.accepts + rb1[1].xfer.accepts, sb.xfer.accepts);
	}

	gs_batch(a, 24943, HIXL_OP_WRITE, la, rb, len);
	gs_batch(a, 24943, HIXL_OP_READ, la, rb, len);
	gs_hixlctl(a);
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

void test_rail_gstats_two(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	gs_need_rails(fd);
	close(fd);
	gs_two_body();
}

struct gs_down {
	const char *cmd;
	unsigned int after_ms;
	struct timespec at;	/* the command started */
	struct timespec done;	/* it returned */
};

static void *gs_down_thread(void *arg)
{
	struct gs_down *d = arg;

	usleep(d->after_ms * 1000);
	clock_gettime(CLOCK_MONOTONIC, &d->at);
	if (system(d->cmd) != 0)
		printf("# '%s' failed\n", d->cmd);
	clock_gettime(CLOCK_MONOTONIC, &d->done);
	return NULL;
}

/* a batch long enough for a rail to go under it (rxe: ~3 MB/s under KASAN) */
static size_t gs_long_len(void)
{
	return hx_debug_kernel() ? 24u << 20 : 96u << 20;
}

/*
 * WRITE @len bytes from @la to @rb on @a with rxe1 deleted 30 ms in:
 * 0 or -errno; *@during: the device was gone (the deletion returned) 500 ms
 * or more before the batch ended.  Its removal destroys the rail's links at
 * once, so the batch then had pieces on rail 1 to re-post.  How long after
 * the deletion began says nothing: the removal reaches hixl only after the
 * other RDMA clients, rail 1's pieces may all be done by then, and it may
 * wait for a synchronous batch to end (the rail's RDMA CM ids and the
 * engine's rdma_sem); such a batch is not judged, as in
 * rail_xfer_device_removed.
 */
static long gs_write_rail1_deleted(int a, uint16_t pb, uint8_t *la, uint8_t *rb, size_t len,
				   int *during)
{
	struct gs_down dn = { .cmd = "rdma link delete rxe1", .after_ms = 30 };
	struct hixl_op_desc d[4];
	struct timespec t_end;
	uint32_t failed = 0;
	pthread_t th;
	long ret;

	for (int i = 0; i < 4; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)la + i * (len / 4),
					      (uintptr_t)rb + i * (len / 4), len / 4 };
	hx_fill(la, len, 41);
	memset(rb, 0, len);
	if (pthread_create(&th, NULL, gs_down_thread, &dn)) {
		CHECK(!"pthread_create");
		return -1;
	}
	ret = hx_xfer(a, pb, HIXL_OP_WRITE, d, 4, GS_TMO_MS, &failed);
	clock_gettime(CLOCK_MONOTONIC, &t_end);
	pthread_join(th, NULL);
	*during = (long)hx_ms_between(&dn.done, &t_end) >= 500;
	printf("#   the deletion took %ld ms; the batch ended %ld ms after it returned\n",
	       (long)hx_ms_between(&dn.at, &dn.done), (long)hx_ms_between(&dn.done, &t_end));
	if (ret)
		printf("#   failed descriptor %u\n", failed);
	CHECK_EQ(hx_first_diff(la, rb, len), -1);
	return ret;
}

/*
 * rxe1 deleted under a striped WRITE: the batch succeeds on rail 0, rail 1
 * shows removed, rail 1 counted the failover away from it and rail 0 the
 * re-posted bytes (their sums the engine's); rxe1 re-added: rail 1 up
 * again with its link, its counters kept from before.
 */
static void gs_removed_body(void)
{
	const size_t len = gs_long_len();
	struct hixl_rail_stat r0[HIXL_MAX_RAILS], r1[HIXL_MAX_RAILS], r2[HIXL_MAX_RAILS];
	struct hixl_stats s0, s1, s2;
	uint8_t *la, *rb;
	int a, b, during = 0;

	a = gs_engine(24944, 1);
	b = gs_engine(24945, 1);
	REQUIRE(a >= 0 && b >= 0);
	la = hx_map(len);
	rb = hx_map(len);
	REQUIRE(la && rb);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 24945, 10000) == 0);
	REQUIRE(gs_wait_rail1(a, HIXL_RAIL_STATE_UP, 15000) == 0);
	REQUIRE(gs_rails(a, &s0, r0) == 2);

	CHECK_EQ(gs_write_rail1_deleted(a, 24945, la, rb, len, &during), 0);
	REQUIRE(gs_rails(a, &s1, r1) == 2);
	gs_print("rxe1 deleted", r1, 2);
	CHECK_EQ(r1[1].state, HIXL_RAIL_STATE_REMOVED);
	CHECK_EQ(strcmp(r1[1].device, "rxe1"), 0);	/* kept while gone */
	CHECK_EQ(r1[1].numa_node, -1);
	CHECK_EQ(r1[1].links_up, 0);
	CHECK_EQ(r1[0].state, HIXL_RAIL_STATE_UP);
	/* nothing counted goes away with the device */
	CHECK(r1[1].xfer.write_direct_bytes >= r0[1].xfer.write_direct_bytes);
	/* judged when the batch ran on, or when the engine counted a failover anyway */
	if (during || s1.xfer.rail_failovers > s0.xfer.rail_failovers) {
		CHECK(r1[1].xfer.rail_failovers > r0[1].xfer.rail_failovers);	/* away from 1 */
		CHECK(r1[0].xfer.rail_repost_bytes > r0[0].xfer.rail_repost_bytes);	/* onto 0 */
		CHECK_EQ(r1[1].xfer.rail_repost_bytes, r0[1].xfer.rail_repost_bytes);
		CHECK_EQ(r1[0].xfer.rail_failovers, r0[0].xfer.rail_failovers);
	} else {
		printf("#   the batch was nearly done when the device went: failover not judged\n");
	}
	/* per rail the re-posted bytes sum to the engine's; failovers: one rail broke */
	CHECK_EQ((r1[0].xfer.rail_repost_bytes - r0[0].xfer.rail_repost_bytes) +
		 (r1[1].xfer.rail_repost_bytes - r0[1].xfer.rail_repost_bytes),
		 s1.xfer.rail_repost_bytes - s0.xfer.rail_repost_bytes);
	CHECK_EQ(r1[1].xfer.rail_failovers - r0[1].xfer.rail_failovers,
		 s1.xfer.rail_failovers - s0.xfer.rail_failovers);
	/*
	 * Every byte of the batch counted once: on the rail that moved it
	 * (what rail 1 completed before it went stays rail 1's, the re-posted
	 * rest is rail 0's)
	 */
	CHECK_EQ(s1.xfer.write_direct_bytes - s0.xfer.write_direct_bytes, len / 4 * 4);
	/* the bytes: each rail's write bytes sum to the engine's, re-posts included */
	CHECK_EQ((r1[0].xfer.write_direct_bytes - r0[0].xfer.write_direct_bytes) +
		 (r1[1].xfer.write_direct_bytes - r0[1].xfer.write_direct_bytes),
		 s1.xfer.write_direct_bytes - s0.xfer.write_direct_bytes);

	rail_restore();
	CHECK_EQ(gs_wait_rail1(a, HIXL_RAIL_STATE_UP, 40000), 0);	/* revived, re-made */
	REQUIRE(gs_rails(a, &s2, r2) == 2);
	gs_print("rxe1 re-added", r2, 2);
	CHECK(r2[1].xfer.write_direct_bytes >= r1[1].xfer.write_direct_bytes);
	CHECK(r2[1].xfer.rail_failovers >= r1[1].xfer.rail_failovers);
	CHECK(r2[1].mrs > 0);		/* the region's MRs made again on the new rxe1 */
	CHECK(r2[1].numa_node >= -1);
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

void test_rail_gstats_removed(void)
{
	int fd = open_dev();

	REQUIRE(fd >= 0);
	gs_need_rails(fd);
	close(fd);
	gs_removed_body();
	rail_restore();
}

/* ---- the rail tracepoints ---- */

static int gs_trace_enable(const char *dir, const char *v)
{
	return hx_tracefs_write(dir, "events/hixl/hixl_rail_state/enable", v) |
	       hx_tracefs_write(dir, "events/hixl/hixl_rail_failover/enable", v);
}

/* the first line of @buf from @from on that contains @what, or NULL */
static const char *gs_find(const char *buf, const char *from, const char *what)
{
	const char *l = strstr(from ? from : buf, what);

	return l;
}

/*
 * hixl_rail_state and hixl_rail_failover from tracefs: rail 1 up when the
 * link connects, down with the right engine and rail when rxe1 is deleted
 * under a batch, a failover from rail 1 onto rail 0 with the bytes, and
 * up again after rxe1 is re-added.  The events are disabled and the buffer
 * cleared afterwards.
 */
static void gs_trace_body(const char *dir)
{
	static char buf[1 << 20];
	const size_t len = gs_long_len();
	const char *up1, *down, *fo, *up2, *l;
	char want[256];
	uint8_t *la, *rb;
	int a, b, during = 0;
	uint64_t ida;

	a = gs_engine(24946, 1);
	b = gs_engine(24947, 1);
	REQUIRE(a >= 0 && b >= 0);
	la = hx_map(len);
	rb = hx_map(len);
	REQUIRE(la && rb);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	ida = hx_self_id(a);
	REQUIRE(ida);
	REQUIRE(hx_tracefs_write(dir, "trace", "") == 0);	/* clear */
	REQUIRE(gs_trace_enable(dir, "1") == 0);

	REQUIRE(hx_connect(a, 24947, 10000) == 0);
	CHECK_EQ(gs_wait_rail1(a, HIXL_RAIL_STATE_UP, 15000), 0);
	CHECK_EQ(gs_write_rail1_deleted(a, 24947, la, rb, len, &during), 0);
	rail_restore();
	CHECK_EQ(gs_wait_rail1(a, HIXL_RAIL_STATE_UP, 40000), 0);

	CHECK_EQ(gs_trace_enable(dir, "0"), 0);
	REQUIRE(hx_tracefs_read(dir, buf, sizeof(buf)) >= 0);
	CHECK_EQ(hx_tracefs_write(dir, "trace", ""), 0);	/* leave it empty */

	/* rail 1 of engine A up (its link to B's rail 1 made), in order: up, down, up */
	snprintf(want, sizeof(want), "hixl_rail_state: engine=%llu peer=%s:%u rail=1 up err=0",
		 (unsigned long long)ida, HX_IP, 24947);
	up1 = gs_find(buf, NULL, want);
	CHECK(up1 != NULL);
	snprintf(want, sizeof(want), "hixl_rail_state: engine=%llu peer=%s:%u rail=1 down err=-",
		 (unsigned long long)ida, HX_IP, 24947);
	down = gs_find(buf, up1, want);
	CHECK(down != NULL);
	snprintf(want, sizeof(want), "hixl_rail_state: engine=%llu peer=%s:%u rail=1 up err=0",
		 (unsigned long long)ida, HX_IP, 24947);
	up2 = down ? gs_find(buf, down + 1, want) : NULL;
	CHECK(up2 != NULL);
	/* the failover: from rail 1, onto rail 0 alone, some bytes */
	snprintf(want, sizeof(want), "hixl_rail_failover: engine=%llu rail_from=1 pieces=",
		 (unsigned long long)ida);
	fo = gs_find(buf, NULL, want);
	if (during || fo) {
		unsigned int pieces = 0, mask = 0;
		unsigned long long bytes = 0;

		CHECK(fo != NULL);
		if (fo) {
			CHECK_EQ(sscanf(fo + strlen(want) - strlen("pieces="),
					"pieces=%u bytes=%llu rail_to_mask=0x%x", &pieces, &bytes,
					&mask), 3);
			CHECK(pieces > 0);
			CHECK(bytes > 0);
			CHECK_EQ(mask, 1);
		}
	} else {
		printf("#   the batch was nearly done when the device went: failover not judged%s\n",
		       fo ? " (one was traced)" : "");
	}
	/* no rail event of another engine id claims rail 0 */
	for (l = strstr(buf, "hixl_rail_state:"); l; l = strstr(l + 1, "hixl_rail_state:")) {
		const char *eol = strchr(l, '\n'), *r0 = strstr(l, " rail=0 ");

		CHECK(!r0 || (eol && r0 > eol));
	}
	if (ht_failures)
		printf("#   trace:\n%s", buf);
	close(a);
	close(b);
	munmap(la, len);
	munmap(rb, len);
}

void test_rail_gstats_trace(void)
{
	const char *dir;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	gs_need_rails(fd);
	close(fd);
	dir = hx_tracefs("hixl_rail_state");
	if (!dir)
		SKIP("no tracefs with events/hixl/hixl_rail_state (not mounted, or no tracing)");
	gs_trace_body(dir);
	gs_trace_enable(dir, "0");
	hx_tracefs_write(dir, "trace", "");
	rail_restore();
}

const struct ht_test rail_gstats_tests[] = {
	{ "rail_gstats_args", test_rail_gstats_args },
	{ "rail_gstats_two", test_rail_gstats_two },
	{ "rail_gstats_removed", test_rail_gstats_removed },
	{ "rail_gstats_trace", test_rail_gstats_trace },
	{ NULL, NULL },
};
