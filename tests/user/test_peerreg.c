// SPDX-License-Identifier: GPL-2.0
/*
 * test_peerreg.c - PEER_REGIONS: a linked peer's registrations as the link
 * knows them, oldest registration first, over RDMA and between loopback
 * engines; every bad argument refused; the library's hixl_peer_regions().
 *
 * Ports: 29200-29219 (no other test file uses them).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "loop.h"

#define PR_PORT 29200	/* +0 .. +19 */

static long peer_regions(int fd, const struct hixl_sockaddr *remote, struct hixl_peer_region *buf,
			 uint32_t count, uint32_t *total)
{
	struct hixl_peer_regions a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.remote = *remote;
	a.buf = (uintptr_t)buf;
	a.count = count;
	a.total = 0xdead;
	ret = xioctl(fd, HIXL_IOC_PEER_REGIONS, &a);
	if (total)
		*total = a.total;
	return ret;
}

static void need_peer_regions(int fd)
{
	struct hixl_info info;

	memset(&info, 0, sizeof(info));
	if (xioctl(fd, HIXL_IOC_GET_INFO, &info) || !(info.features & HIXL_FEAT_PEER_REGIONS))
		SKIP("the module has no HIXL_FEAT_PEER_REGIONS");
}

/* Is entry @e the range [@p, @p + @len) with @flags? */
static int same(const struct hixl_peer_region *e, const void *p, uint64_t len, uint32_t flags)
{
	return e->addr == (uintptr_t)p && e->len == len && e->flags == flags && !e->reserved;
}

/*
 * @a registers its memory, @b asks: the higher address registered first
 * comes first, a read-only one has no WRITABLE, a local-only one is never
 * shown; a registration after the CONNECT shows once REG_MEM returned, a
 * removed one is gone once DEREG_MEM returned.  @remote names @a for @b.
 */
static void table_checks(int a, int b, const struct hixl_sockaddr *remote,
			 long (*connect_ab)(int b))
{
	const uint32_t W = HIXL_PEER_REGION_WRITABLE;
	struct hixl_reg_mem hi, lo, lonly, late;
	struct hixl_peer_region e[8];
	uint32_t total;
	uint8_t *m = hx_map(16 * 4096);

	REQUIRE(m);
	CHECK_EQ(peer_regions(b, remote, e, 8, &total), -ENOTCONN);	/* no link yet */
	REQUIRE(reg_mem(a, m + 8 * 4096, 2 * 4096, 0, &hi) == 0);
	REQUIRE(reg_mem(a, m, 4096, HIXL_REG_READ_ONLY, &lo) == 0);
	REQUIRE(reg_mem(a, m + 4 * 4096, 4096, HIXL_REG_LOCAL_ONLY, &lonly) == 0);
	REQUIRE(connect_ab(b) == 0);

	CHECK_EQ(peer_regions(b, remote, e, 8, &total), 0);
	CHECK_EQ(total, 2);
	CHECK(same(&e[0], m + 8 * 4096, 2 * 4096, W));
	CHECK(same(&e[1], m, 4096, 0));
	CHECK(e[0].seq < e[1].seq);
	memset(e, 0xa5, sizeof(e));
	CHECK_EQ(peer_regions(b, remote, e, 1, &total), 0);	/* room for one */
	CHECK_EQ(total, 2);
	CHECK(same(&e[0], m + 8 * 4096, 2 * 4096, W));
	CHECK_EQ(e[1].addr, 0xa5a5a5a5a5a5a5a5ULL);		/* nothing past @count */
	CHECK_EQ(peer_regions(b, remote, NULL, 0, &total), 0);	/* just the count */
	CHECK_EQ(total, 2);

	REQUIRE(reg_mem(a, m + 12 * 4096, 4096, 0, &late) == 0);
	CHECK_EQ(peer_regions(b, remote, e, 8, &total), 0);
	CHECK_EQ(total, 3);
	CHECK(same(&e[2], m + 12 * 4096, 4096, W));
	REQUIRE(dereg_mem(a, hi.handle) == 0);
	CHECK_EQ(peer_regions(b, remote, e, 8, &total), 0);
	CHECK_EQ(total, 2);
	CHECK(same(&e[0], m, 4096, 0));
	CHECK(same(&e[1], m + 12 * 4096, 4096, W));
	/* @a's own view of @b: nothing registered there */
	munmap(m, 16 * 4096);
}

static int rdma_port;

static long rdma_connect(int b)
{
	return hx_connect(b, (uint16_t)rdma_port, 5000);
}

static void test_peer_regions_rdma(void)
{
	int a = hx_engine(PR_PORT, 0, 0), b = hx_engine(PR_PORT + 1, 0, 0);
	struct hixl_sockaddr remote = hx_name(PR_PORT);

	REQUIRE(a >= 0 && b >= 0);
	need_peer_regions(b);
	rdma_port = PR_PORT;
	table_checks(a, b, &remote, rdma_connect);
	close(a);	/* the peer gone: the link's error, never a stale table */
	{
		struct hixl_peer_region e[4];
		uint32_t total;
		long r = 0;

		for (int i = 0; i < 100; i++) {
			r = peer_regions(b, &remote, e, 4, &total);
			if (r != 0)
				break;
			usleep(20000);
		}
		CHECK(r != 0);
		printf("#   after the peer closed: %ld (%s)\n", r, strerror((int)-r));
	}
	close(b);
}

static int loop_port;

static long loop_connect(int b)
{
	return lo_connect(b, AF_INET, (uint16_t)loop_port, 5000);
}

static void test_peer_regions_loopback(void)
{
	struct hixl_sockaddr remote;
	int a, b;

	need_loopback();
	loop_port = PR_PORT + 2;
	a = lo_eng(AF_INET, PR_PORT + 2);
	b = lo_eng(AF_INET, PR_PORT + 3);
	REQUIRE(a >= 0 && b >= 0);
	need_peer_regions(b);
	remote = lo_name(AF_INET, PR_PORT + 2);
	table_checks(a, b, &remote, loop_connect);
	close(a);
	close(b);
}

static void test_peer_regions_args(void)
{
	int a = hx_engine(PR_PORT + 4, 0, 0), b = hx_engine(PR_PORT + 5, 0, 0);
	struct hixl_sockaddr remote = hx_name(PR_PORT + 4), nobody = hx_name(PR_PORT + 6);
	struct hixl_peer_regions arg;
	struct hixl_peer_region e[2], *ro;
	struct hixl_reg_mem r;
	uint32_t total;
	uint8_t *m = hx_map(4096);
	int fresh = open_dev();

	REQUIRE(a >= 0 && b >= 0 && m && fresh >= 0);
	need_peer_regions(b);
	REQUIRE(reg_mem(a, m, 4096, 0, &r) == 0);
	REQUIRE(hx_connect(b, PR_PORT + 4, 5000) == 0);
	CHECK_EQ(peer_regions(b, &nobody, e, 2, &total), -ENOTCONN);
	CHECK_EQ(peer_regions(fresh, &remote, e, 2, &total), -EBADFD);	/* no SETUP */
	CHECK_EQ(peer_regions(b, &remote, NULL, 2, &total), -EINVAL);	/* count without buf */
	CHECK_EQ(peer_regions(b, &remote, e, 0, &total), -EINVAL);	/* buf without count */
	CHECK_EQ(peer_regions(b, &remote, e, HIXL_MAX_STAT_ENTRIES + 1, &total), -EINVAL);
	memset(&arg, 0, sizeof(arg));
	arg.remote = remote;
	arg.flags = 1;
	CHECK_EQ(xioctl(b, HIXL_IOC_PEER_REGIONS, &arg), -EINVAL);
	arg.flags = 0;
	arg.reserved0 = 1;
	CHECK_EQ(xioctl(b, HIXL_IOC_PEER_REGIONS, &arg), -EINVAL);
	arg.reserved0 = 0;
	arg.reserved[1] = 1;
	CHECK_EQ(xioctl(b, HIXL_IOC_PEER_REGIONS, &arg), -EINVAL);
	arg.reserved[1] = 0;
	arg.remote.family = 12345;
	CHECK_EQ(xioctl(b, HIXL_IOC_PEER_REGIONS, &arg), -EAFNOSUPPORT);
	arg.remote = remote;
	/* smaller than the first version: -EINVAL; larger with a stray byte: -E2BIG */
	CHECK_EQ(xioctl(b, _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_PEER_REGIONS,
				HIXL_PEER_REGIONS_SIZE_VER0 - 8), &arg), -EINVAL);
	{
		unsigned char big[sizeof(arg) + 8];

		memset(big, 0, sizeof(big));
		memcpy(big, &arg, sizeof(arg));
		big[sizeof(big) - 1] = 1;
		CHECK_EQ(xioctl(b, _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
					HIXL_IOC_NR_PEER_REGIONS, sizeof(big)), big), -E2BIG);
	}
	/* a buffer the kernel cannot write: -EFAULT, the table untouched */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED);
	CHECK_EQ(peer_regions(b, &remote, ro, 2, &total), -EFAULT);
	CHECK_EQ(peer_regions(b, &remote, e, 2, &total), 0);
	CHECK_EQ(total, 1);
	CHECK(same(&e[0], m, 4096, HIXL_PEER_REGION_WRITABLE));
	munmap(ro, 4096);
	close(fresh);
	close(a);
	close(b);
}

/* The library's call: a name, entries oldest first, its own refusals. */
static void test_peer_regions_lib(void)
{
	struct hixl_option o = { HIXL_OPTION_TRANSPORT, "rdma" };
	struct hixl_engine *a, *b;
	struct hixl_peer_region e[4];
	uint8_t *m = hx_map(2 * 4096);
	uint64_t h1, h2;
	uint32_t total = 0;
	char an[HIXL_ENGINE_NAME_MAX];

	REQUIRE(m);
	snprintf(an, sizeof(an), "%s:%d", HX_IP, PR_PORT + 7);
	a = hx_lib_engine(an, &o, 1);
	REQUIRE(a);
	b = hx_lib_engine(HX_IP, &o, 1);
	REQUIRE(b);
	need_peer_regions(hixl_engine_fd(b));
	REQUIRE(hixl_register_mem(a, &(struct hixl_mem_desc){ .addr = (uintptr_t)(m + 4096),
			.len = 4096, .dmabuf_fd = -1 }, HIXL_MEM_HOST, &h1) == 0);
	REQUIRE(hixl_register_mem(a, &(struct hixl_mem_desc){ .addr = (uintptr_t)m,
			.len = 4096, .dmabuf_fd = -1 }, HIXL_MEM_HOST, &h2) == 0);
	CHECK_EQ(hixl_peer_regions(b, an, e, 4, &total), -ENOTCONN);
	CHECK(strstr(hixl_last_error(), "hixl_peer_regions") != NULL);
	REQUIRE(hixl_connect(b, an, 5000) == 0);
	CHECK_EQ(hixl_peer_regions(b, an, e, 4, &total), 2);
	CHECK_EQ(total, 2);
	CHECK_EQ(e[0].addr, (uintptr_t)(m + 4096));
	CHECK_EQ(e[1].addr, (uintptr_t)m);
	CHECK_EQ(hixl_peer_regions(b, an, e, 1, &total), 1);
	CHECK_EQ(hixl_peer_regions(b, an, NULL, 0, &total), 0);
	CHECK_EQ(total, 2);
	CHECK_EQ(hixl_peer_regions(NULL, an, e, 4, &total), -EINVAL);
	CHECK_EQ(hixl_peer_regions(b, NULL, e, 4, &total), -EINVAL);
	CHECK_EQ(hixl_peer_regions(b, an, NULL, 4, &total), -EINVAL);
	CHECK_EQ(hixl_peer_regions(b, "not a name", e, 4, &total), -EINVAL);
	hixl_engine_finalize(b);
	hixl_engine_finalize(a);
}

const struct ht_test peerreg_tests[] = {
	{ "peer_regions_rdma", test_peer_regions_rdma },
	{ "peer_regions_loopback", test_peer_regions_loopback },
	{ "peer_regions_args", test_peer_regions_args },
	{ "peer_regions_lib", test_peer_regions_lib },
	{ NULL, NULL },
};
