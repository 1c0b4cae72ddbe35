// SPDX-License-Identifier: GPL-2.0
/*
 * test_setup.c - HIXL_IOC_SETUP: binding an engine to the RDMA device that
 * owns its address (rxe0 on 10.77.0.1 / fd77::1 in the test VM; set
 * HIXL_TEST_ADDR elsewhere), option validation, and the fast-registration
 * MRs that registrations get.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/mman.h>

#include "tests.h"

void test_setup_binds_device(void);
void test_setup_ipv6(void);
void test_setup_bad_input(void);
void test_setup_mrs(void);
void test_setup_hugetlb_1g_mr(void);
void test_setup_dmabuf_mrs(void);
#include "util.h"

#define MiB (1024ULL * 1024)

static struct hixl_setup setup_arg(const char *ip)
{
	struct hixl_setup a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, ip, a.local.addr) == 1) {
		a.local.family = AF_INET;
	} else if (inet_pton(AF_INET6, ip, a.local.addr) == 1) {
		a.local.family = AF_INET6;
	}
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a.pool_buffers = HIXL_DEFAULT_POOL_BUFFERS;
	a.pool_buffer_mb = HIXL_DEFAULT_POOL_BUFFER_MB;
	return a;
}

static const char *test_addr(void)
{
	const char *a = getenv("HIXL_TEST_ADDR");

	return a ? a : "10.77.0.1";
}

/* SETUP on the test address, SKIP when this machine has no such RDMA address */
static void setup_or_skip(int fd, struct hixl_setup *out)
{
	struct hixl_setup a = setup_arg(test_addr());
	long ret = xioctl(fd, HIXL_IOC_SETUP, &a);

	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device owns HIXL_TEST_ADDR (default 10.77.0.1, rxe0 in the test VM)");
	CHECK_EQ(ret, 0);
	if (out)
		*out = a;
}

static unsigned int ilog2u(unsigned long long v)
{
	return 63 - __builtin_clzll(v);
}

void test_setup_binds_device(void)
{
	struct hixl_setup a;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	setup_or_skip(fd, &a);
	CHECK(a.device[0] != 0);
	CHECK(memchr(a.device, 0, sizeof(a.device)) != NULL);
	printf("#   device %s, page_size_cap 0x%llx, %u pages per MR\n", a.device,
	       (unsigned long long)a.page_size_cap, a.max_mr_pages);
	CHECK(a.page_size_cap & 4096);
	CHECK(a.max_mr_pages > 0);
	if (!getenv("HIXL_TEST_ADDR")) {	/* the test VM's rxe0 */
		CHECK(!strcmp(a.device, "rxe0"));
		CHECK_EQ(a.max_mr_pages, 512);
	}
	a = setup_arg(test_addr());
	CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), -EALREADY);
	close(fd);
}

void test_setup_ipv6(void)
{
	struct hixl_setup a = setup_arg("fd77::1");
	int fd = open_dev();
	long ret;

	REQUIRE(fd >= 0);
	ret = xioctl(fd, HIXL_IOC_SETUP, &a);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device owns fd77::1 (rxe0 in the test VM)");
	CHECK_EQ(ret, 0);
	CHECK(!strcmp(a.device, "rxe0"));
	close(fd);
}

void test_setup_bad_input(void)
{
	struct hixl_setup a;
	int fd = open_dev();

	REQUIRE(fd >= 0);
#define BAD(edit, err) do { a = setup_arg(test_addr()); edit; \
		CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &a), err); } while (0)
	BAD(a.traffic_class = 133, -EINVAL);
	BAD(a.traffic_class = 256, -EINVAL);
	BAD(a.service_level = 8, -EINVAL);
	BAD(a.pool_buffers = 0, -EINVAL);
	BAD(a.pool_buffer_mb = 0, -EINVAL);
	BAD(a.pool_buffers = 257, -EINVAL);
	BAD(a.flags = 1, -EINVAL);
	BAD(a.reserved[0] = 1, -EINVAL);
	BAD(a.local.reserved = 1, -EINVAL);
	BAD(a.local.family = 99, -EAFNOSUPPORT);
	BAD(a.local.scope_id = 1, -EINVAL);
	BAD(inet_pton(AF_INET, "10.77.0.99", a.local.addr), -EADDRNOTAVAIL);
	/* a loopback name is a loopback engine (test_loopback.c), but never over RDMA */
	BAD(inet_pton(AF_INET, "127.0.0.1", a.local.addr); a.transport = HIXL_TRANSPORT_RDMA,
	    -ENODEV);
#undef BAD
	/* all refused: the engine is still not set up, so a good SETUP works */
	setup_or_skip(fd, NULL);
	close(fd);
}

/* an MR spans at most 256 MiB (kmod/mr.c HIXL_MR_MAX_SHIFT) */
#define MR_MAX_SPAN	(256ULL * MiB)

static void check_mrs(const struct hixl_reg_mem *r, const struct hixl_setup *s)
{
	unsigned int shift;
	unsigned long long first, last, pages, per;

	CHECK(r->nr_mrs > 0);
	CHECK(r->mr_page_size >= 4096 && r->mr_page_size <= r->page_size);
	CHECK(r->mr_page_size <= MR_MAX_SPAN);
	CHECK(r->mr_page_size & s->page_size_cap);
	shift = ilog2u(r->mr_page_size);
	first = r->addr >> shift;
	last = (r->addr + r->len - 1) >> shift;
	pages = last - first + 1;
	per = s->max_mr_pages;
	if (per > MR_MAX_SPAN >> shift)
		per = MR_MAX_SPAN >> shift;
	CHECK_EQ(r->nr_mrs, (pages + per - 1) / per);
	printf("#   %llu bytes: page %llu, MR page %llu, %u MRs\n",
	       (unsigned long long)r->len, (unsigned long long)r->page_size,
	       (unsigned long long)r->mr_page_size, r->nr_mrs);
}

void test_setup_mrs(void)
{
	struct hixl_reg_mem before, after, huge;
	struct hixl_setup s;
	char *p, *h;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	p = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(p != MAP_FAILED);
	memset(p, 1, 8 * MiB);
	/* registered before SETUP: no device, no MRs yet */
	REQUIRE(reg_mem(fd, p, 4 * MiB, 0, &before) == 0);
	CHECK_EQ(before.nr_mrs, 0);
	CHECK_EQ(before.mr_page_size, 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	setup_or_skip(fd, &s);
	/* SETUP made them */
	CHECK(get_stats(fd).mrs > 0);
	/* registered after SETUP: MRs at once */
	REQUIRE(reg_mem(fd, p + 4 * MiB, 4 * MiB, 0, &after) == 0);
	check_mrs(&after, &s);
	CHECK_EQ(get_stats(fd).mrs >= after.nr_mrs + 1, 1);
	/* huge pages: one MR, not hundreds */
	h = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (h != MAP_FAILED) {
		REQUIRE(reg_mem(fd, h, 8 * MiB, 0, &huge) == 0);
		check_mrs(&huge, &s);
		CHECK(huge.mr_page_size >= 2 * MiB);
		CHECK_EQ(huge.nr_mrs, 1);
		CHECK_EQ(dereg_mem(fd, huge.handle), 0);
		munmap(h, 8 * MiB);
	} else {
		printf("#   no 2 MiB huge pages: huge-page MR count not checked\n");
	}
	/* invalidation releases the region's MRs with its pins */
	{
		unsigned long long mrs = get_stats(fd).mrs;

		REQUIRE(munmap(p + 4 * MiB, 4096) == 0);
		CHECK_EQ(wait_pinned(fd, 1024, 2000), 0);
		CHECK_EQ(get_stats(fd).mrs, mrs - after.nr_mrs);
	}
	CHECK_EQ(dereg_mem(fd, before.handle), 0);
	CHECK_EQ(dereg_mem(fd, after.handle), 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	close(fd);
}

void test_setup_hugetlb_1g_mr(void)
{
	struct hixl_reg_mem r;
	struct hixl_setup s;
	int fd = open_dev();
	void *p;

	REQUIRE(fd >= 0);
	setup_or_skip(fd, &s);
	p = mmap(NULL, 1024 * MiB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB, -1, 0);
	if (p == MAP_FAILED)
		SKIP("no free 1 GiB huge page");
	REQUIRE(reg_mem(fd, p, 1024 * MiB, 0, &r) == 0);
	check_mrs(&r, &s);
	/* 256 MiB pages where the device has them (rxe): four MRs of one each */
	if (s.page_size_cap & MR_MAX_SPAN) {
		CHECK_EQ(r.mr_page_size, MR_MAX_SPAN);
		CHECK_EQ(r.nr_mrs, 4);
	}
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	munmap(p, 1024 * MiB);
	close(fd);
}

/* device memory (udmabuf) gets MRs too on a software RDMA device */
void test_setup_dmabuf_mrs(void)
{
	const uint64_t dva = 0x200000000000ULL;
	struct hixl_reg_mem r;
	struct hixl_setup s;
	int fd = open_dev(), mfd = -1, buf;

	REQUIRE(fd >= 0);
	buf = make_udmabuf(4 * MiB, &mfd);
	if (buf == -ENOENT)
		SKIP("/dev/udmabuf missing (CONFIG_UDMABUF)");
	REQUIRE(buf >= 0);
	/* registered before SETUP, MRs made by SETUP */
	REQUIRE(reg_dev(fd, dva, 2 * MiB, buf, 0, &r) == 0);
	CHECK_EQ(r.nr_mrs, 0);
	setup_or_skip(fd, &s);
	CHECK(get_stats(fd).mrs >= 1);
	CHECK_EQ(get_stats(fd).pinned_pages, 0);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	CHECK_EQ(get_stats(fd).mrs, 0);
	/* registered after SETUP: MRs at once */
	REQUIRE(reg_dev(fd, dva, 2 * MiB, buf, 2 * MiB, &r) == 0);
	check_mrs(&r, &s);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	/* a device address that is not page aligned */
	CHECK_EQ(reg_dev(fd, dva + 1, 4096, buf, 0, NULL), -EINVAL);
	/* device VAs up to the top of the 64-bit space: MR borders must not wrap */
	for (uint64_t top = 0x1000; top <= 0x400000; top <<= 1) {
		uint64_t va = -top;	/* the last pages below 2^64 */
		uint64_t len = top < 2 * MiB ? top : 2 * MiB;

		CHECK_EQ(reg_dev(fd, va, len - 1, buf, 0, &r), 0);
		check_mrs(&r, &s);
		CHECK_EQ(dereg_mem(fd, r.handle), 0);
	}
	CHECK_EQ(get_stats(fd).regions, 0);
	close(buf);
	close(mfd);
	close(fd);
}

const struct ht_test setup_tests[] = {
	{ "setup_binds_device", test_setup_binds_device },
	{ "setup_ipv6", test_setup_ipv6 },
	{ "setup_bad_input", test_setup_bad_input },
	{ "setup_mrs", test_setup_mrs },
	{ "setup_hugetlb_1g_mr", test_setup_hugetlb_1g_mr },
	{ "setup_dmabuf_mrs", test_setup_dmabuf_mrs },
	{ NULL, NULL },
};
