// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_mr.c - a region's MRs on every rail (issue 13 item 2): a
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

#include "tests.h"
#include "util.h"

void test_rail_mr_two(void);
void test_rail_mr_before_setup(void);
void test_rail_mr_invalidate(void);
void test_rail_mr_device_removed(void);

#define RAIL1_IP "10.78.0.1"
#define RAILS_DEBUGFS "/sys/kernel/debug/hixl/rails"

/* SKIP without the module's rails, rxe0 and rxe1 */
static void need_two_rails(int fd)
{
	struct hixl_info info;

	memset(&info, 0, sizeof(info));
	REQUIRE(xioctl(fd, HIXL_IOC_GET_INFO, &info) == 0);
	if (!(info.features & HIXL_FEAT_RAILS))
		SKIP("the module has no HIXL_FEAT_RAILS");
	if (access("/sys/class/infiniband/rxe0", F_OK) ||
	    access("/sys/class/infiniband/rxe1", F_OK))
		SKIP("no rxe0 and rxe1 (the test VM's two rails on 10.77.0.1, 10.78.0.1)");
}

/* SETUP on HX_IP:port with rail 1 on RAIL1_IP: 0 or -errno */
static long setup_two(int fd, uint16_t port)
{
	struct hixl_sockaddr r1;
	struct hixl_setup a;

	memset(&r1, 0, sizeof(r1));
	r1.family = AF_INET;
	inet_pton(AF_INET, RAIL1_IP, r1.addr);
	memset(&a, 0, sizeof(a));
	a.local = hx_name(port);
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a.flags = HIXL_SETUP_RAILS;
	a.rails = (uintptr_t)&r1;
	a.nr_rails = 1;
	return xioctl(fd, HIXL_IOC_SETUP, &a);
}

/* the id of this process's set-up engine named HX_IP:port, or 0 */
static uint64_t engine_id(int fd, uint16_t port)
{
	static struct hixl_engine_stat es[64];
	uint32_t total = 0;
	int n = hixl_dev_engines(fd, es, 64, &total);

	for (int i = 0; i < n; i++)
		if (es[i].pid == (uint32_t)getpid() && (es[i].flags & HIXL_ENGINE_STAT_SETUP) &&
		    es[i].local.port == port)
			return es[i].id;
	return 0;
}

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
	need_two_rails(fd);
	REQUIRE(setup_two(fd, 24800) == 0);
	id = engine_id(fd, 24800);
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
		CHECK_EQ(rail_mrs(engine_id(one, 24801), 1, NULL), -1);	/* no rail 1 */
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
	need_two_rails(fd);
	buf = hx_map(2 * len);
	REQUIRE(buf != NULL);
	REQUIRE(reg_mem(fd, buf, len, 0, &out[0]) == 0);
	REQUIRE(reg_mem(fd, buf + len, len, HIXL_REG_READ_ONLY, &out[1]) == 0);
	CHECK_EQ(get_stats(fd).mrs, 0);			/* no device yet */
	REQUIRE(setup_two(fd, 24802) == 0);
	id = engine_id(fd, 24802);
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
	need_two_rails(fd);
	REQUIRE(setup_two(fd, 24803) == 0);
	id = engine_id(fd, 24803);
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

static int rxe1_active(void)
{
	char st[64] = "";
	FILE *f = fopen("/sys/class/infiniband/rxe1/ports/1/state", "r");

	if (!f)
		return 0;
	if (!fgets(st, sizeof(st), f))
		st[0] = 0;
	fclose(f);
	return strstr(st, "ACTIVE") != NULL;
}

/* put rxe1 back (if it is gone) and wait for its port: 0, or -1 */
static int rxe1_restore(void)
{
	if (access("/sys/class/infiniband/rxe1", F_OK) != 0 &&
	    system("rdma link add rxe1 type rxe netdev veth2") != 0) {
		printf("#   RESTORING rxe1 FAILED: later rail tests will fail\n");
		return -1;
	}
	for (int i = 0; i < 200 && !rxe1_active(); i++)
		usleep(50000);
	return rxe1_active() ? 0 : -1;
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
	need_two_rails(a);
	if (system("command -v rdma >/dev/null") != 0)
		SKIP("no rdma tool (iproute2)");
	REQUIRE(setup_two(a, 24804) == 0);
	id = engine_id(a, 24804);
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

	CHECK_EQ(rxe1_restore(), 0);
	/* a two-rail engine on the restored rxe1 has MRs on it again */
	a = open_dev();
	REQUIRE(a >= 0);
	CHECK_EQ(setup_two(a, 24806), 0);
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
