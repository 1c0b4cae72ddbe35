// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail.c - an engine on several rails: SETUP's extra rails
 * (HIXL_SETUP_RAILS, HIXL_SETUP_RAILS_AUTO), their validation, what
 * ENGINES and hixlctl show, the library's "Rails" option, and that a
 * two-rail engine still moves bytes with a one-rail peer both ways (the
 * rails carry no traffic yet: rail 0 only).  Engines on 10.77.0.1 (rxe0)
 * with the extra rail 10.78.0.1 (rxe1 in the test VM); ports 24700-24749.
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

void test_rail_setup_two(void);
void test_rail_setup_bad(void);
void test_rail_setup_auto(void);
void test_rail_setup_ipv6(void);
void test_rail_lib_option(void);
void test_rail_one_rail_peer(void);
void test_rail_device_removed(void);

#define RAIL1_IP6 "fd78::1"
#define HIXLCTL "tools/hixlctl"

static struct hixl_setup rail_setup_arg(const char *ip, uint16_t port)
{
	struct hixl_setup a;

	memset(&a, 0, sizeof(a));
	a.local = ru_addr(ip, port);
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	return a;
}

/* SETUP on HX_IP:port with the extra rails @rails[@n]: 0 or -errno */
static long setup_rails(int fd, uint16_t port, const struct hixl_sockaddr *rails, uint32_t n,
			struct hixl_setup *out)
{
	struct hixl_setup a = rail_setup_arg(HX_IP, port);
	long ret;

	if (n) {
		a.flags = HIXL_SETUP_RAILS;
		a.rails = (uintptr_t)rails;
		a.nr_rails = n;
	}
	ret = xioctl(fd, HIXL_IOC_SETUP, &a);
	if (out)
		*out = a;
	return ret;
}

void test_rail_setup_two(void)
{
	struct hixl_sockaddr r1 = ru_addr(RAIL1_IP, 0);
	struct hixl_engine_stat e;
	struct hixl_setup a;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	CHECK_EQ(setup_rails(fd, 24700, &r1, 1, &a), 0);
	CHECK_EQ(a.nr_rails, 2);
	CHECK_EQ(strcmp(a.device, "rxe0"), 0);		/* rail 0 names the engine */
	e = ru_engine_stat(fd, 24700);
	CHECK_EQ(e.nr_rails, 2);
	CHECK_EQ(strcmp(e.device, "rxe0"), 0);
	/* debugfs names each rail's address and device */
	if (access("/sys/kernel/debug/hixl/rails", R_OK) == 0) {
		char buf[4096], want[128];
		FILE *f = fopen("/sys/kernel/debug/hixl/rails", "r");
		size_t n;

		REQUIRE(f != NULL);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		snprintf(want, sizeof(want), "\n%llu 0 " HX_IP " rxe0 ", (unsigned long long)e.id);
		CHECK(strstr(buf, want) != NULL);
		snprintf(want, sizeof(want), "\n%llu 1 " RAIL1_IP " rxe1 ", (unsigned long long)e.id);
		CHECK(strstr(buf, want) != NULL);
	}
	close(fd);

	/* without rails: one, as before */
	fd = open_dev();
	REQUIRE(fd >= 0);
	CHECK_EQ(setup_rails(fd, 24701, NULL, 0, &a), 0);
	CHECK_EQ(a.nr_rails, 1);
	CHECK_EQ(ru_engine_stat(fd, 24701).nr_rails, 1);
	close(fd);
}

void test_rail_setup_bad(void)
{
	struct hixl_sockaddr r[HIXL_MAX_RAILS + 1];
	struct hixl_setup a;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	/* the same address twice */
	r[0] = ru_addr(RAIL1_IP, 0);
	r[1] = ru_addr(RAIL1_IP, 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 2, NULL), -EINVAL);
	/* the engine's own address, or another on rail 0's device */
	r[0] = ru_addr(HX_IP, 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EINVAL);
	/* not a local address */
	r[0] = ru_addr("10.79.0.1", 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EADDRNOTAVAIL);
	/* a loopback address */
	r[0] = ru_addr("127.0.0.1", 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EINVAL);
	/* a port, a reserved field, the other family */
	r[0] = ru_addr(RAIL1_IP, 0);
	r[0].port = 24703;
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EINVAL);
	r[0] = ru_addr(RAIL1_IP, 0);
	r[0].reserved = 1;
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EINVAL);
	r[0] = ru_addr(RAIL1_IP6, 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EINVAL);
	/* more than the limit: HIXL_MAX_RAILS extra rails */
	for (int i = 0; i < HIXL_MAX_RAILS; i++)
		r[i] = ru_addr(RAIL1_IP, 0);
	CHECK_EQ(setup_rails(fd, 24702, r, HIXL_MAX_RAILS, NULL), -EINVAL);
	/* an unreadable list */
	a = rail_setup_arg(HX_IP, 24702);
	a.flags = HIXL_SETUP_RAILS;
	a.rails = 8;
	a.nr_rails = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EFAULT);
	/* flags: a list with AUTO, fields without the flag, unknown bits */
	r[0] = ru_addr(RAIL1_IP, 0);
	a = rail_setup_arg(HX_IP, 24702);
	a.flags = HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO;
	a.rails = (uintptr_t)r;
	a.nr_rails = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);
	a.flags = 0;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);
	a.flags = HIXL_SETUP_RAILS;
	a.nr_rails = 0;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);
	a = rail_setup_arg(HX_IP, 24702);
	a.flags = 1U << 5;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);
	a = rail_setup_arg(HX_IP, 24702);
	a.reserved2 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);
	/* a loopback engine has no rails */
	a = rail_setup_arg("127.0.0.1", 24702);
	a.flags = HIXL_SETUP_RAILS_AUTO;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EINVAL);

	/* all or nothing: the engine is still not set up, and now is */
	r[0] = ru_addr(RAIL1_IP, 0);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, &a), 0);
	CHECK_EQ(a.nr_rails, 2);
	CHECK_EQ(setup_rails(fd, 24702, r, 1, NULL), -EALREADY);
	close(fd);
}

void test_rail_setup_auto(void)
{
	struct hixl_setup a = rail_setup_arg(HX_IP, 24704);
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	a.flags = HIXL_SETUP_RAILS_AUTO;
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), 0);
	/* the test VM: rxe0 (rail 0) and rxe1, nothing else */
	if (access("/sys/class/infiniband/rxe2", F_OK) == 0)
		CHECK(a.nr_rails >= 2);
	else
		CHECK_EQ(a.nr_rails, 2);
	CHECK_EQ(ru_engine_stat(fd, 24704).nr_rails, a.nr_rails);
	close(fd);
}

void test_rail_setup_ipv6(void)
{
	struct hixl_sockaddr r1 = ru_addr(RAIL1_IP6, 0);
	struct hixl_setup a;
	int fd = open_dev();
	long ret;

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	a = rail_setup_arg("fd77::1", 24705);
	a.flags = HIXL_SETUP_RAILS_AUTO;	/* not yet for IPv6 */
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EOPNOTSUPP);
	a = rail_setup_arg("fd77::1", 24705);
	a.flags = HIXL_SETUP_RAILS;
	a.rails = (uintptr_t)&r1;
	a.nr_rails = 1;
	ret = xioctl(fd, HIXL_IOC_SETUP, &a);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("fd77::1 / fd78::1 not (yet) usable: IPv6 DAD");
	CHECK_EQ(ret, 0);
	CHECK_EQ(a.nr_rails, 2);
	close(fd);
}

void test_rail_lib_option(void)
{
	const struct hixl_option two = { HIXL_OPTION_RAILS, RAIL1_IP };
	const struct hixl_option dup = { HIXL_OPTION_RAILS, RAIL1_IP "," RAIL1_IP };
	const struct hixl_option junk = { HIXL_OPTION_RAILS, "10.78.0.1,,x" };
	const struct hixl_option none = { HIXL_OPTION_RAILS, "" };
	struct hixl_engine *e, *f;
	char out[65536];
	FILE *p;
	size_t n;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(ru_need(fd, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	e = hx_lib_engine(HX_IP ":24706", &two, 1);
	REQUIRE(e != NULL);
	CHECK_EQ(ru_engine_stat(fd, 24706).nr_rails, 2);
	CHECK_EQ(hixl_engine_init(&f, HX_IP ":24707", &dup, 1), -EINVAL);
	CHECK_EQ(hixl_engine_init(&f, HX_IP ":24707", &junk, 1), -EINVAL);
	/* the environment, and an option that overrides it */
	setenv("HIXL_RAILS", "auto", 1);
	f = hx_lib_engine(HX_IP ":24708", NULL, 0);
	CHECK(f != NULL);
	CHECK(ru_engine_stat(fd, 24708).nr_rails >= 2);
	hixl_engine_finalize(f);
	f = hx_lib_engine(HX_IP ":24709", &none, 1);
	CHECK(f != NULL);
	CHECK_EQ(ru_engine_stat(fd, 24709).nr_rails, 1);
	hixl_engine_finalize(f);
	setenv("HIXL_RAILS", "10.79.0.1", 1);	/* not local */
	CHECK_EQ(hixl_engine_init(&f, HX_IP ":24710", NULL, 0), -EADDRNOTAVAIL);
	unsetenv("HIXL_RAILS");

	/* hixlctl shows the rails */
	if (access(HIXLCTL, X_OK) == 0) {
		p = popen(HIXLCTL " stats 2>/dev/null", "r");
		REQUIRE(p != NULL);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		CHECK_EQ(pclose(p), 0);
		CHECK(strstr(out, "name=" HX_IP ":24706 device=rxe0 rails=2 ") != NULL);
		p = popen(HIXLCTL " stats --json 2>/dev/null", "r");
		REQUIRE(p != NULL);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		CHECK_EQ(pclose(p), 0);
		CHECK(strstr(out, "\"nr_rails\": 2") != NULL);
	}
	hixl_engine_finalize(e);
	close(fd);
}

/* a two-rail engine and a one-rail engine, both directions, byte for byte */
void test_rail_one_rail_peer(void)
{
	const size_t len = 3 * 1024 * 1024 + 4097;
	struct hixl_sockaddr r1 = ru_addr(RAIL1_IP, 0);
	struct hixl_op_desc d[3];
	uint8_t *a_buf, *b_buf, *want;
	int a = open_dev(), b;
	uint32_t failed;

	REQUIRE(a >= 0);
	REQUIRE(ru_need(a, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	REQUIRE(setup_rails(a, 24711, &r1, 1, NULL) == 0);
	b = hx_engine(24712, 0, 0);
	REQUIRE(b >= 0);
	a_buf = hx_map(len);
	b_buf = hx_map(len);
	want = hx_map(len);
	REQUIRE(a_buf && b_buf && want);
	REQUIRE(reg_mem(a, a_buf, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, b_buf, len, 0, NULL) == 0);
	/* a large one straddling 512 KiB borders, a tiny one, an odd one */
	d[0] = (struct hixl_op_desc){ (uintptr_t)a_buf + 1, (uintptr_t)b_buf + 3,
				      2 * 1024 * 1024 + 5 };
	d[1] = (struct hixl_op_desc){ (uintptr_t)a_buf + 2200000, (uintptr_t)b_buf + 2200000, 1 };
	d[2] = (struct hixl_op_desc){ (uintptr_t)a_buf + 2300000, (uintptr_t)b_buf + 2400000,
				      len - 2400000 };

	/* the two-rail engine writes to and reads from the one-rail one */
	REQUIRE(hx_connect(a, 24712, 5000) == 0);
	hx_fill(a_buf, len, 1);
	memset(b_buf, 0, len);
	CHECK_EQ(hx_xfer(a, 24712, HIXL_OP_WRITE, d, 3, 20000, &failed), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				       (void *)(uintptr_t)d[i].remote_addr, d[i].len), -1);
	hx_fill(b_buf, len, 2);
	memcpy(want, b_buf, len);
	CHECK_EQ(hx_xfer(a, 24712, HIXL_OP_READ, d, 3, 20000, &failed), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				       want + (d[i].remote_addr - (uintptr_t)b_buf), d[i].len), -1);

	/* a one-rail engine connects to the two-rail one (it listens on 24711) */
	close(b);
	b = hx_engine(24712, 0, 0);
	REQUIRE(b >= 0);
	REQUIRE(reg_mem(b, b_buf, len, 0, NULL) == 0);
	for (int i = 0; i < 3; i++) {
		uint64_t t = d[i].local_addr;

		d[i].local_addr = d[i].remote_addr;
		d[i].remote_addr = t;
	}
	CHECK_EQ(hx_connect(b, 24711, 5000), 0);
	hx_fill(b_buf, len, 3);
	memset(a_buf, 0, len);
	CHECK_EQ(hx_xfer(b, 24711, HIXL_OP_WRITE, d, 3, 20000, &failed), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				       (void *)(uintptr_t)d[i].remote_addr, d[i].len), -1);
	close(b);
	close(a);
	munmap(a_buf, len);
	munmap(b_buf, len);
	munmap(want, len);
}

/*
 * `rdma link delete rxe1` under a two-rail engine with a live link: the
 * engine gives up rail 1 (its PD and MRs, hixl_engine_rail_detach()), so
 * the removal does not wait for it, the link on rail 0 keeps moving bytes,
 * and the engine's close leaves nothing pinned.  rxe1 is put back
 * afterwards.
 */
void test_rail_device_removed(void)
{
	const size_t len = 256 * 1024;
	struct hixl_sockaddr r1 = ru_addr(RAIL1_IP, 0);
	struct hixl_op_desc d;
	uint8_t *la, *rb;
	long pin0 = vm_pin_kb();
	uint32_t failed;
	int a = open_dev(), b, rc;

	REQUIRE(a >= 0);
	REQUIRE(ru_need(a, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	ru_need_tool("rdma");
	REQUIRE(setup_rails(a, 24713, &r1, 1, NULL) == 0);
	b = hx_engine(24714, 0, 0);
	REQUIRE(b >= 0);
	REQUIRE(ru_pair_mem(a, b, 24714, len, 5000, &la, &rb) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, len };

	rc = system("timeout 60 rdma link delete rxe1");
	CHECK_EQ(rc, 0);
	CHECK(access("/sys/class/infiniband/rxe1", F_OK) != 0);
	hx_fill(la, len, 7);
	CHECK_EQ(hx_xfer(a, 24714, HIXL_OP_WRITE, &d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(la, rb, len), -1);
	CHECK_EQ(ru_engine_stat(a, 24713).nr_rails, 2);	/* SETUP's rails, as named */
	close(b);
	close(a);
	munmap(la, len);
	munmap(rb, len);
	CHECK(vm_pin_kb() <= pin0);

	rc = hx_rxe_restore("rxe1", "veth2");
	CHECK_EQ(rc, 0);
	if (rc)
		return;
	/* a two-rail SETUP finds it again */
	a = open_dev();
	REQUIRE(a >= 0);
	CHECK_EQ(setup_rails(a, 24715, &r1, 1, NULL), 0);
	close(a);
}

const struct ht_test rail_tests[] = {
	{ "rail_setup_two", test_rail_setup_two },
	{ "rail_setup_bad", test_rail_setup_bad },
	{ "rail_setup_auto", test_rail_setup_auto },
	{ "rail_setup_ipv6", test_rail_setup_ipv6 },
	{ "rail_lib_option", test_rail_lib_option },
	{ "rail_one_rail_peer", test_rail_one_rail_peer },
	{ "rail_device_removed", test_rail_device_removed },
	{ NULL, NULL },
};
