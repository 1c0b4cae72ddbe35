// SPDX-License-Identifier: GPL-2.0
/*
 * test_notify.c - notifications and the end of their link
 *
 *   notify_before_close  engine A sends a NOTIFY and closes at once; B's
 *                        receive handler is held (the debug kernel's test
 *                        delay rx_msg_ms) until A's DISCONNECTED has broken
 *                        B's link, as happens by chance when RDMA CM's
 *                        handler runs before the CQ's work (a two-VM run
 *                        once lost a "done" this way): B still gets the
 *                        notification, since A's SEND completed and told A
 *                        it had arrived
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "local_util.h"

void test_notify_before_close(void);

#define NBC_PORT	16052	/* A; B: +1 */
#define NBC_DELAY_MS	2000	/* B's handler held this long */

/* Is @fd's link to its one peer broken or gone? 1, 0, or -1 (LINK_STATS failed) */
static int link_broken(int fd)
{
	struct hixl_link_stat o;
	long ret = lu_link0(fd, &o);

	if (ret == -ENOENT)
		return 1;
	if (ret)
		return -1;
	return o.state != HIXL_LINK_STATE_READY;
}

static int count_named(int fd, const char *name, uint32_t *total)
{
	struct hixl_notify n[8];
	struct hixl_get_notifies g = { .buf = (uintptr_t)n, .max = 8 };
	int found = 0;

	if (xioctl(fd, HIXL_IOC_GET_NOTIFIES, &g))
		return -1;
	for (uint32_t k = 0; k < g.count; k++)
		found += n[k].name_len == strlen(name) && !memcmp(n[k].name, name, n[k].name_len);
	*total += g.count;
	return found;
}

void test_notify_before_close(void)
{
	struct hixl_send_notify sn = { .remote = hx_name(NBC_PORT + 1), .name = (uintptr_t)"done",
				       .name_len = 4 };
	uint32_t early = 0, total = 0;
	struct timespec t0;
	int a, b, broken = 0, got = 0;
	double broke_ms = -1;

	if (hx_test_delay("rx_msg_ms", 0))
		SKIP("no debugfs hixl/test/rx_msg_ms (the module's test delays exist only against a kernel with KUnit)");
	/* over rxe: a same-host link (HIXL_TRANSPORT_LOCAL) has no QP, no CQ */
	REQUIRE(lu_pair(NBC_PORT, HIXL_TRANSPORT_RDMA, NBC_PORT + 1, HIXL_TRANSPORT_RDMA, &a, &b) == 0);
	usleep(200000);		/* the table's ACKs are through: no message is in flight */
	REQUIRE(hx_test_delay("rx_msg_ms", NBC_DELAY_MS) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(xioctl(a, HIXL_IOC_SEND_NOTIFY, &sn), 0);
	close(a);		/* A leaves: its DREQ reaches B while B's handler waits */
	while (hx_ms_since(&t0) < NBC_DELAY_MS / 2 && (broken = link_broken(b)) == 0)
		usleep(10000);
	broke_ms = hx_ms_since(&t0);
	/* B's link broke before its handler looked at the message */
	if (count_named(b, "done", &early) < 0)
		early = 99;
	CHECK_EQ(hx_test_delay("rx_msg_ms", 0), 0);
	printf("#   B's link broke %.0f ms after the SEND (%d), %u notification(s) then\n", broke_ms,
	       broken, early);
	CHECK_EQ(broken, 1);
	CHECK_EQ(early, 0);
	while (!got && hx_ms_since(&t0) < NBC_DELAY_MS + 5000) {
		int n = count_named(b, "done", &total);

		if (n < 0)
			break;
		got += n;
		if (!got)
			usleep(50000);
	}
	printf("#   the notification %s after %.0f ms\n", got ? "arrived" : "was lost", hx_ms_since(&t0));
	CHECK_EQ(got, 1);
	CHECK_EQ(total, 1);
	close(b);
}

const struct ht_test notify_tests[] = {
	{ "notify_before_close", test_notify_before_close },
	{ NULL, NULL },
};
