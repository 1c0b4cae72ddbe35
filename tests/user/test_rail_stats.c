// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_stats.c - what LINK_STATS (HIXL_LINK_STATS_RAILS,
 * hixl_dev_link_stats_rails()) and `hixlctl stats` show of a link's rails
 * one entry per further rail after its link, the
 * rail's state, the peer's address on it, its own counters; flags
 * validated.  Engines on 10.77.0.1 (rxe0) with the extra rail 10.78.0.1
 * (rxe1 in the test VM); ports 24920-24929.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rail_util.h"
#include "tests.h"
#include "util.h"

void test_rail_stats_flags(void);
void test_rail_stats_two(void);

/* LINK_STATS with @flags into @st[@n]: entries written, or -errno */
static long rs_link_stats(int fd, uint32_t flags, struct hixl_link_stat *st, uint32_t n,
			  uint32_t *total)
{
	struct hixl_link_stats a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.buf = n ? (uintptr_t)st : 0;
	a.count = n;
	if (xioctl(fd, HIXL_IOC_LINK_STATS, &a))
		return -errno;
	*total = a.total;
	return a.total < n ? a.total : n;
}

/* wait up to @ms for entry 1 (rail 1) of @fd's first link to be READY */
static int rs_wait_rail_ready(int fd, struct hixl_link_stat *st, unsigned int ms)
{
	uint32_t total;

	for (unsigned int t = 0; t <= ms; t += 50) {
		memset(st, 0, 4 * sizeof(*st));
		if (hixl_dev_link_stats_rails(fd, 0, st, 4, &total) == 2 && st[1].rail == 1 &&
		    st[1].state == HIXL_LINK_STATE_READY)
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

void test_rail_stats_flags(void)
{
	struct hixl_link_stat st[2];
	uint32_t total = 7;
	int fd = open_dev();
	struct hixl_info info;

	REQUIRE(fd >= 0);
	memset(&info, 0, sizeof(info));
	REQUIRE(xioctl(fd, HIXL_IOC_GET_INFO, &info) == 0);
	if (!(info.features & HIXL_FEAT_LINK_STATS_RAILS))
		SKIP("the module has no HIXL_FEAT_LINK_STATS_RAILS");
	/* unknown bits beside RAILS: EINVAL, with or without it */
	CHECK_EQ(rs_link_stats(fd, 1U << 1, st, 2, &total), -EINVAL);
	CHECK_EQ(rs_link_stats(fd, HIXL_LINK_STATS_RAILS | (1U << 31), st, 2, &total), -EINVAL);
	/* an engine without links: nothing, either way */
	CHECK_EQ(rs_link_stats(fd, HIXL_LINK_STATS_RAILS, st, 2, &total), 0);
	CHECK_EQ(total, 0);
	CHECK_EQ(hixl_dev_link_stats_rails(fd, 0, NULL, 0, &total), 0);
	CHECK_EQ(hixl_dev_link_stats_rails(fd, 0, NULL, 1, &total), -EINVAL);
	close(fd);
}

/*
 * Two two-rail engines: each side's LINK_STATS lists its link and, with
 * RAILS, rail 1 right after it: READY, the peer's address on rail 1, its
 * own counters; a WRITE that moves bytes adds to the link's or a rail's
 * counters (which, depends on the data path: both sum to the bytes).
 * hixlctl stats shows the rail line and the JSON "rails" array.
 */
void test_rail_stats_two(void)
{
	const size_t len = 8u << 20;
	struct hixl_link_stat st[4];
	struct hixl_op_desc d;
	uint32_t total, failed;
	uint8_t *abuf, *bbuf;
	char cmd[256], buf[16384];
	int a = open_dev(), b;
	uint64_t sum;
	FILE *p;
	size_t n;

	REQUIRE(a >= 0);
	REQUIRE(ru_need(a, HIXL_FEAT_LINK_STATS_RAILS | HIXL_FEAT_RAIL_LINKS,
			"HIXL_FEAT_LINK_STATS_RAILS or HIXL_FEAT_RAIL_LINKS") == 0);
	close(a);
	a = ru_engine(24920, 1, HIXL_TRANSPORT_RDMA);
	b = ru_engine(24921, 1, HIXL_TRANSPORT_RDMA);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(ru_pair_mem(a, b, 24921, len, 10000, &abuf, &bbuf) == 0);

	/* the connector: link then rail 1 */
	if (rs_wait_rail_ready(a, st, 10000)) {
		CHECK(!"rail 1 of the connector READY within 10 s");
		printf("# entries: rail %u state %u err %d flags 0x%x\n", st[1].rail, st[1].state,
		       st[1].err, st[1].flags);
		if (system("cat /sys/kernel/debug/hixl/raillinks /sys/kernel/debug/hixl/links"
			   " 2>&1 | sed 's/^/# /'"))
			printf("# no debugfs\n");
	}
	CHECK_EQ(st[0].rail, 0);
	CHECK_EQ(st[0].state, HIXL_LINK_STATE_READY);
	CHECK(st[0].flags & HIXL_LINK_STAT_ACTIVE);
	CHECK_EQ(st[0].peer.port, 24921);
	CHECK_EQ(st[1].rail, 1);
	CHECK(!(st[1].flags & HIXL_LINK_STAT_NO_LINK));
	CHECK(st[1].flags & HIXL_LINK_STAT_ACTIVE);
	{
		struct hixl_sockaddr want;

		memset(&want, 0, sizeof(want));
		want.family = AF_INET;
		inet_pton(AF_INET, RAIL1_IP, want.addr);
		CHECK_EQ(st[1].peer.family, AF_INET);
		CHECK_EQ(memcmp(st[1].peer.addr, want.addr, sizeof(want.addr)), 0);
	}
	/* without the flag: the link alone, as before */
	CHECK_EQ(hixl_dev_link_stats(a, 0, st, 4, &total), 1);
	CHECK_EQ(total, 1);
	CHECK_EQ(st[0].rail, 0);
	/* the acceptor sees its rail too, passive */
	CHECK_EQ(rs_wait_rail_ready(b, st, 10000), 0);
	CHECK(!(st[0].flags & HIXL_LINK_STAT_ACTIVE));
	CHECK(!(st[1].flags & HIXL_LINK_STAT_ACTIVE));
	/* room for the link only: total still counts the rail */
	CHECK_EQ(hixl_dev_link_stats_rails(b, 0, st, 1, &total), 1);
	CHECK_EQ(total, 2);

	/* 8 MiB written: the link's and the rail's direct bytes sum to it */
	hx_fill(abuf, len, 5);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf, len };
	CHECK_EQ(hx_xfer(a, 24921, HIXL_OP_WRITE, &d, 1, 30000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	CHECK_EQ(hixl_dev_link_stats_rails(a, 0, st, 4, &total), 2);
	sum = st[0].xfer.write_direct_bytes + st[1].xfer.write_direct_bytes;
	printf("# rail 0 wrote %llu bytes, rail 1 %llu\n",
	       (unsigned long long)st[0].xfer.write_direct_bytes,
	       (unsigned long long)st[1].xfer.write_direct_bytes);
	CHECK(sum >= len);

	/* hixlctl: the rail's line, and "rails" in --json */
	snprintf(cmd, sizeof(cmd), "tools/hixlctl stats 2>&1");
	p = popen(cmd, "r");
	REQUIRE(p != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	CHECK(strstr(buf, "    rail engine=") != NULL);
	CHECK(strstr(buf, " rail=1 address=" RAIL1_IP ":") != NULL);
	p = popen("tools/hixlctl stats --json 2>&1", "r");
	REQUIRE(p != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	CHECK(strstr(buf, "\"rails\": [{\"rail\": 1, \"address\": \"" RAIL1_IP ":") != NULL);

	close(a);
	close(b);
	munmap(abuf, len);
	munmap(bbuf, len);
}

const struct ht_test rail_stats_tests[] = {
	{ "rail_stats_flags", test_rail_stats_flags },
	{ "rail_stats_two", test_rail_stats_two },
	{ NULL, NULL },
};
