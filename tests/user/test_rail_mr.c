// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_mr.c - a region's MRs on every rail: a
 * region on a two-rail engine has MRs on both rails (GET_STATS' mrs counts
 * every rail's, debugfs hixl/rails each rail's), registration before
 * SETUP, device memory (udmabuf), DEREG_MEM and munmap invalidation free
 * both rails' MRs; and a
 * rail's device removed (`rdma link delete rxe1`) under live regions and a
 * link: the rail's MRs go, the engine keeps moving bytes on rail 0,
 * REG_MEM still works (MRs on the rails that exist), nothing stays pinned.
 * rxe1 is restored before the test ends, on failure too.  Engines on
 * 10.77.0.1 (rxe0) with the extra rail 10.78.0.1 (rxe1); ports
 * 24800-24819.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rail_util.h"
#include "tests.h"
#include "util.h"

void test_rail_mr_two(void);
void test_rail_mr_before_setup(void);
void test_rail_mr_invalidate(void);
void test_rail_mr_device_removed(void);

#define RAILS_DEBUGFS "/sys/kernel/debug/hixl/rails"

/*
 * debugfs rails' line of engine @id, rail @rail: its MR count and whether
 * it is "up"; -1 when there is no such line (or no debugfs).
 */
static long long rail_mrs(uint64_t id, unsigned int rail, int *up)
{
	char line[512], dev[64], addr[64], state[16];
	unsigned long long eid, mrs;
	unsigned int r;
	long long ret = -1;
	int node;
	FILE *f = fopen(RAILS_DEBUGFS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %u %63s %63s %d %llu %15s", &eid, &r, addr, dev, &node,
			   &mrs, state) != 7)
			continue;
		if (eid == id && r == rail) {
			ret = (long long)mrs;
			if (up)
				*up = !strcmp(state, "up");
		}
	}
	fclose(f);
	return ret;
}

static int have_debugfs(void)
{
	return access(RAILS_DEBUGFS, R_OK) == 0;
}

/* wait up to @ms for GET_STATS' mrs to be @want */
static int wait_mrs(int fd, uint64_t want, int ms)
{
	for (int waited = 0; waited <= ms; waited += 10) {
		if (get_stats(fd).mrs == want)
			return 0;
		usleep(10000);
	}
	return -1;
}

void test_rail_mr_two(void)
{
	const size_t len = 3 * 1024 * 1024 + 8192;
	struct hixl_reg_mem out;
	uint64_t id;
	uint8_t *buf;
	int up = 0, fd = open_dev(), one;

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	REQUIRE(ru_setup(fd, 24800, 1, 0, NULL) == 0);
	id = ru_engine_stat(fd, 24800).id;
	CHECK(id != 0);
	buf = hx_map(len);
	REQUIRE(buf != NULL);
	REQUIRE(reg_mem(fd, buf, len, 0, &out) == 0);
	CHECK(out.nr_mrs > 0);			/* REG_MEM reports rail 0's */
	/* both rxe devices take the same page sizes: as many MRs on each */
	CHECK_EQ(get_stats(fd).mrs, 2 * out.nr_mrs);
	if (have_debugfs()) {
		CHECK_EQ(rail_mrs(id, 0, &up), out.nr_mrs);
		CHECK(up);
		up = 0;
		CHECK_EQ(rail_mrs(id, 1, &up), out.nr_mrs);
		CHECK(up);
	}
	/* deregistration frees both rails' */
	CHECK_EQ(dereg_mem(fd, out.handle), 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	if (have_debugfs()) {
		CHECK_EQ(rail_mrs(id, 0, NULL), 0);
		CHECK_EQ(rail_mrs(id, 1, NULL), 0);
	}

	/* device memory (udmabuf): MRs on both rails too (rxe maps CPU pages) */
	{
		int mfd = -1, dbuf = make_udmabuf(2 * 1024 * 1024, &mfd);

		if (dbuf >= 0) {
			CHECK_EQ(reg_dev(fd, 0x7f0000000000ULL, 2 * 1024 * 1024, dbuf, 0, &out), 0);
			CHECK(out.nr_mrs > 0);
			CHECK_EQ(get_stats(fd).mrs, 2 * out.nr_mrs);
			if (have_debugfs())
				CHECK_EQ(rail_mrs(id, 1, NULL), out.nr_mrs);
			CHECK_EQ(dereg_mem(fd, out.handle), 0);
			CHECK_EQ(get_stats(fd).mrs, 0);
			close(dbuf);
			close(mfd);
		} else {
			printf("# no udmabuf (%d): device memory not checked\n", dbuf);
		}
	}

	/* a one-rail engine: MRs on its one device only */
	one = hx_engine(24801, 0, 0);
	REQUIRE(one >= 0);
	REQUIRE(reg_mem(one, buf, len, 0, &out) == 0);
	CHECK_EQ(get_stats(one).mrs, out.nr_mrs);
	if (have_debugfs())
		CHECK_EQ(rail_mrs(ru_engine_stat(one, 24801).id, 1, NULL), -1);	/* no rail 1 */
	close(one);
	close(fd);
	munmap(buf, len);
}

/* regions registered before SETUP get MRs on every rail at SETUP */
void test_rail_mr_before_setup(void)
{
	const size_t len = 1024 * 1024;
	struct hixl_reg_mem out[2];
	uint8_t *buf;
	uint64_t id;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	buf = hx_map(2 * len);
	REQUIRE(buf != NULL);
	REQUIRE(reg_mem(fd, buf, len, 0, &out[0]) == 0);
	REQUIRE(reg_mem(fd, buf + len, len, HIXL_REG_READ_ONLY, &out[1]) == 0);
	CHECK_EQ(get_stats(fd).mrs, 0);			/* no device yet */
	REQUIRE(ru_setup(fd, 24802, 1, 0, NULL) == 0);
	id = ru_engine_stat(fd, 24802).id;
	if (have_debugfs()) {
		long long m0 = rail_mrs(id, 0, NULL), m1 = rail_mrs(id, 1, NULL);

		CHECK(m0 >= 2);
		CHECK_EQ(m1, m0);
		CHECK_EQ(get_stats(fd).mrs, m0 + m1);
	} else {
		CHECK(get_stats(fd).mrs >= 4);
		CHECK_EQ(get_stats(fd).mrs % 2, 0);
	}
	CHECK_EQ(dereg_mem(fd, out[0].handle), 0);
	CHECK_EQ(dereg_mem(fd, out[1].handle), 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	close(fd);
	munmap(buf, 2 * len);
}

/* munmap of a region registered on two rails frees both rails' MRs */
void test_rail_mr_invalidate(void)
{
	const size_t len = 2 * 1024 * 1024;
	struct hixl_reg_mem keep, gone;
	uint8_t *a, *b;
	long pin0 = vm_pin_kb();
	uint64_t id;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	REQUIRE(ru_setup(fd, 24803, 1, 0, NULL) == 0);
	id = ru_engine_stat(fd, 24803).id;
	a = hx_map(len);
	b = hx_map(len);
	REQUIRE(a && b);
	REQUIRE(reg_mem(fd, a, len, 0, &keep) == 0);
	REQUIRE(reg_mem(fd, b, len, 0, &gone) == 0);
	CHECK_EQ(get_stats(fd).mrs, 2 * (keep.nr_mrs + gone.nr_mrs));
	CHECK_EQ(munmap(b, len), 0);
	CHECK_EQ(wait_invalid(fd, 1, 5000), 0);
	/* the invalidation work releases the pins and both rails' MRs */
	CHECK_EQ(wait_mrs(fd, 2 * keep.nr_mrs, 5000), 0);
	if (have_debugfs()) {
		CHECK_EQ(rail_mrs(id, 0, NULL), keep.nr_mrs);
		CHECK_EQ(rail_mrs(id, 1, NULL), keep.nr_mrs);
	}
	CHECK_EQ(dereg_mem(fd, gone.handle), 0);
	CHECK_EQ(dereg_mem(fd, keep.handle), 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	close(fd);
	munmap(a, len);
	CHECK(vm_pin_kb() <= pin0);
}

/*
 * `rdma link delete rxe1` under a two-rail engine with registered regions
 * and a live link: the removal takes rail 1's MRs and PD (it would hang or
 * leak otherwise: the core waits for them, kmemleak and the splat scan
 * watch), the engine moves bytes on rail 0 both ways, REG_MEM makes MRs on
 * rail 0 only, and the close leaves nothing pinned.
 */
void test_rail_mr_device_removed(void)
{
	const size_t len = 256 * 1024;
	struct hixl_reg_mem ra, ra2, rb;
	struct hixl_op_desc d;
	uint8_t *la, *la2, *rbuf;
	long pin0 = vm_pin_kb();
	uint32_t failed;
	uint64_t id;
	int a, b, up = 1, rc;

	a = open_dev();
	REQUIRE(a >= 0);
	REQUIRE(ru_need(a, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	ru_need_tool("rdma");
	REQUIRE(ru_setup(a, 24804, 1, 0, NULL) == 0);
	id = ru_engine_stat(a, 24804).id;
	b = hx_engine(24805, 0, 0);
	REQUIRE(b >= 0);
	la = hx_map(len);
	la2 = hx_map(len);
	rbuf = hx_map(len);
	REQUIRE(la && la2 && rbuf);
	REQUIRE(reg_mem(a, la, len, 0, &ra) == 0);
	REQUIRE(reg_mem(b, rbuf, len, 0, &rb) == 0);
	REQUIRE(hx_connect(a, 24805, 5000) == 0);
	CHECK_EQ(get_stats(a).mrs, 2 * ra.nr_mrs);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rbuf, len };
	hx_fill(la, len, 5);
	CHECK_EQ(hx_xfer(a, 24805, HIXL_OP_WRITE, &d, 1, 20000, &failed), 0);

	/* from here on: no REQUIRE until rxe1 is back */
	rc = system("timeout 60 rdma link delete rxe1");
	CHECK_EQ(rc, 0);
	CHECK(access("/sys/class/infiniband/rxe1", F_OK) != 0);
	/* rail 1's MRs went with its device; rail 0's stay */
	CHECK_EQ(get_stats(a).mrs, ra.nr_mrs);
	if (have_debugfs()) {
		CHECK_EQ(rail_mrs(id, 1, &up), 0);
		CHECK(!up);
		CHECK_EQ(rail_mrs(id, 0, NULL), ra.nr_mrs);
	}
	/* the engine goes on on rail 0: WRITE and READ, byte for byte */
	hx_fill(la, len, 6);
	CHECK_EQ(hx_xfer(a, 24805, HIXL_OP_WRITE, &d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(la, rbuf, len), -1);
	hx_fill(rbuf, len, 7);
	CHECK_EQ(hx_xfer(a, 24805, HIXL_OP_READ, &d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(la, rbuf, len), -1);
	/* REG_MEM while the rail is gone: MRs on rail 0 only */
	memset(&ra2, 0, sizeof(ra2));
	CHECK_EQ(reg_mem(a, la2, len, 0, &ra2), 0);
	CHECK(ra2.nr_mrs > 0);
	CHECK_EQ(get_stats(a).mrs, ra.nr_mrs + ra2.nr_mrs);
	if (have_debugfs())
		CHECK_EQ(rail_mrs(id, 1, NULL), 0);
	/* ... and the new region moves bytes too */
	d.local_addr = (uintptr_t)la2;
	hx_fill(la2, len, 8);
	CHECK_EQ(hx_xfer(a, 24805, HIXL_OP_WRITE, &d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(la2, rbuf, len), -1);
	CHECK_EQ(dereg_mem(a, ra2.handle), 0);
	CHECK_EQ(dereg_mem(a, ra.handle), 0);
	CHECK_EQ(get_stats(a).mrs, 0);
	close(b);
	close(a);
	munmap(la, len);
	munmap(la2, len);
	munmap(rbuf, len);
	CHECK(vm_pin_kb() <= pin0);

	CHECK_EQ(hx_rxe_restore("rxe1", "veth2"), 0);
	/* a two-rail engine on the restored rxe1 has MRs on it again */
	a = open_dev();
	REQUIRE(a >= 0);
	CHECK_EQ(ru_setup(a, 24806, 1, 0, NULL), 0);
	la = hx_map(len);
	REQUIRE(la != NULL);
	CHECK_EQ(reg_mem(a, la, len, 0, &ra), 0);
	CHECK_EQ(get_stats(a).mrs, 2 * ra.nr_mrs);
	close(a);
	munmap(la, len);
}

const struct ht_test rail_mr_tests[] = {
	{ "rail_mr_two", test_rail_mr_two },
	{ "rail_mr_before_setup", test_rail_mr_before_setup },
	{ "rail_mr_invalidate", test_rail_mr_invalidate },
	{ "rail_mr_device_removed", test_rail_mr_device_removed },
	{ NULL, NULL },
};
