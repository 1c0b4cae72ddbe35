// SPDX-License-Identifier: GPL-2.0
/*
 * test_table.c - region tables at a serving stack's scale: two engines of
 * one process with thousands of registrations each connect, and each sees
 * every region of the other (the table goes out packed, REGIONS messages,
 * kmod/table_pub.c).  No time is asserted: `make bench-table` measures it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define TBL_REGIONS	3000	/* a side: 2 x 3000 per process, above max_regions' default */
#define TBL_PAGE	4096
#define TBL_PORT_A	29001
#define TBL_PORT_B	29002

void test_table_many_regions(void);

/* Region i of a side: one page, a guard page after it (no two adjacent). */
static uint8_t *tbl_region(uint8_t *base, unsigned int i)
{
	return base + (size_t)i * 2 * TBL_PAGE;
}

/*
 * from's region i into to's region i through the link of engine fd to
 * port, with a WRITE and then a READ back into from's scratch page;
 * 0 when both arrived byte for byte.
 */
static int tbl_check(int fd, uint16_t port, uint8_t *from, uint8_t *to, uint8_t *scratch,
		     unsigned int i, unsigned int seed)
{
	struct hixl_op_desc d = {
		(uintptr_t)tbl_region(from, i), (uintptr_t)tbl_region(to, i), TBL_PAGE,
	};
	long ret;

	hx_fill(tbl_region(from, i), TBL_PAGE, seed);
	ret = hx_xfer(fd, port, HIXL_OP_WRITE, &d, 1, 30000, NULL);
	if (ret || hx_first_diff(tbl_region(from, i), tbl_region(to, i), TBL_PAGE) >= 0) {
		printf("#   WRITE to region %u: %s\n", i, ret ? strerror((int)-ret) : "bytes differ");
		return -1;
	}
	d.local_addr = (uintptr_t)scratch;
	memset(scratch, 0, TBL_PAGE);
	ret = hx_xfer(fd, port, HIXL_OP_READ, &d, 1, 30000, NULL);
	if (ret || hx_first_diff(scratch, tbl_region(to, i), TBL_PAGE) >= 0) {
		printf("#   READ of region %u: %s\n", i, ret ? strerror((int)-ret) : "bytes differ");
		return -1;
	}
	return 0;
}

/* One WRITE batch of 64 bytes into every region of the peer, all verified. */
static int tbl_check_all(int fd, uint16_t port, uint8_t *from, uint8_t *to, unsigned int seed)
{
	struct hixl_op_desc *d = calloc(TBL_REGIONS, sizeof(*d));
	unsigned int i, bad = 0;
	long ret;

	if (!d)
		return -1;
	for (i = 0; i < TBL_REGIONS; i++) {
		size_t off = (i * 64) % TBL_PAGE;

		hx_fill(tbl_region(from, i) + off, 64, seed + i);
		d[i] = (struct hixl_op_desc){ (uintptr_t)tbl_region(from, i) + off,
					      (uintptr_t)tbl_region(to, i) + off, 64 };
	}
	ret = hx_xfer(fd, port, HIXL_OP_WRITE, d, TBL_REGIONS, 60000, NULL);
	for (i = 0; !ret && i < TBL_REGIONS; i++)
		if (hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				  (void *)(uintptr_t)d[i].remote_addr, 64) >= 0)
			bad++;
	if (ret || bad)
		printf("#   a WRITE into every region: %s, %u regions differ\n",
		       ret ? strerror((int)-ret) : "done", bad);
	free(d);
	return ret || bad ? -1 : 0;
}

/*
 * The one link serves both ways: B's side of it may still be finishing
 * the exchange when A's CONNECT returns (EALREADY); until CONNECT says it
 * is connected (EISCONN).
 */
static long tbl_wait_linked(int b, uint16_t port)
{
	struct timespec t0;
	long rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = hx_connect(b, port, 5000)) == -EALREADY && hx_ms_since(&t0) < 60000)
		usleep(10000);
	return rc;
}

static void table_many_regions(uint8_t *ma, uint8_t *mb, uint8_t *scratch)
{
	static const unsigned int pick[] = { 0, TBL_REGIONS / 2, TBL_REGIONS - 1 };
	int a = hx_engine(TBL_PORT_A, 0, 0), b = hx_engine(TBL_PORT_B, 0, 0);
	unsigned int i;

	REQUIRE(a >= 0 && b >= 0);
	for (i = 0; i < TBL_REGIONS; i++) {
		long ra = reg_mem(a, tbl_region(ma, i), TBL_PAGE, 0, NULL);
		long rb = reg_mem(b, tbl_region(mb, i), TBL_PAGE, 0, NULL);

		if (ra || rb)
			printf("#   REG_MEM %u: %s\n", i, strerror((int)-(ra ? ra : rb)));
		REQUIRE(!ra && !rb);
	}
	REQUIRE(reg_mem(a, scratch, TBL_PAGE, 0, NULL) == 0);
	REQUIRE(reg_mem(b, scratch + TBL_PAGE, TBL_PAGE, 0, NULL) == 0);
	REQUIRE(hx_connect(a, TBL_PORT_B, 120000) == 0);
	REQUIRE(tbl_wait_linked(b, TBL_PORT_A) == -EISCONN);
	/* each side's first, middle and last region in the other's table, both ways */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(tbl_check(a, TBL_PORT_B, ma, mb, scratch, pick[i], 10 + i), 0);
		CHECK_EQ(tbl_check(b, TBL_PORT_A, mb, ma, scratch + TBL_PAGE, pick[i], 20 + i), 0);
	}
	CHECK_EQ(tbl_check_all(a, TBL_PORT_B, ma, mb, 1000), 0);
	CHECK_EQ(tbl_check_all(b, TBL_PORT_A, mb, ma, 9000), 0);

	/* again: the MRs are registered already, the tables go out the same */
	CHECK_EQ(hx_disconnect(a, TBL_PORT_B), 0);
	REQUIRE(hx_connect(a, TBL_PORT_B, 120000) == 0);
	REQUIRE(tbl_wait_linked(b, TBL_PORT_A) == -EISCONN);
	for (i = 0; i < 3; i++)
		CHECK_EQ(tbl_check(a, TBL_PORT_B, ma, mb, scratch, pick[i], 30 + i), 0);
	CHECK_EQ(tbl_check_all(b, TBL_PORT_A, mb, ma, 17000), 0);
	close(a);
	close(b);
}

void test_table_many_regions(void)
{
	size_t len = (size_t)TBL_REGIONS * 2 * TBL_PAGE;
	unsigned long long old = read_param("max_regions");
	uint8_t *ma = hx_map(len), *mb = hx_map(len), *scratch = hx_map(2 * TBL_PAGE);

	REQUIRE(ma && mb && scratch);
	REQUIRE(old != ~0ULL);
	if (old < 2 * TBL_REGIONS + 2)
		REQUIRE(write_param("max_regions", 2 * TBL_REGIONS + 2) == 0);
	table_many_regions(ma, mb, scratch);
	if (old < 2 * TBL_REGIONS + 2)
		CHECK_EQ(write_param("max_regions", old), 0);
	munmap(ma, len);
	munmap(mb, len);
	munmap(scratch, 2 * TBL_PAGE);
}

const struct ht_test table_tests[] = {
	{ "table_many_regions", test_table_many_regions },
	{ NULL, NULL },
};
