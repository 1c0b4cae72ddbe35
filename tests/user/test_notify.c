// SPDX-License-Identifier: GPL-2.0
/*
 * test_notify.c - notifications (SEND_NOTIFY, GET_NOTIFIES)
 *
 *   notify               delivery both ways, by the sender's name, bad
 *                        input, a buffer GET_NOTIFIES cannot write
 *   notify_overflow      beyond 4096 pending on one link: counted as
 *                        dropped, reported once, room again after a fetch
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

static int nt_engine(uint16_t port)
{
	return hx_engine(port, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
}

static long notify(int fd, uint16_t port, const char *name, const char *msg)
{
	struct hixl_send_notify n;

	memset(&n, 0, sizeof(n));
	n.remote = hx_name(port);
	n.name = (uintptr_t)name;
	n.name_len = strlen(name);
	n.msg = (uintptr_t)msg;
	n.msg_len = strlen(msg);
	return xioctl(fd, HIXL_IOC_SEND_NOTIFY, &n);
}

static long get_notifies(int fd, struct hixl_notify *buf, uint32_t max, uint32_t *count,
			 uint64_t *dropped)
{
	struct hixl_get_notifies g;
	long ret;

	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	g.max = max;
	ret = xioctl(fd, HIXL_IOC_GET_NOTIFIES, &g);
	*count = g.count;
	if (dropped)
		*dropped = g.dropped;
	return ret;
}

void test_notify(void);
void test_notify(void)
{
	struct hixl_notify *buf = calloc(64, sizeof(*buf));
	struct hixl_sockaddr an = hx_name(16015);
	struct hixl_send_notify n;
	struct hixl_get_notifies g;
	int a = nt_engine(16015), b;
	uint32_t count;
	uint64_t dropped;
	char big[1100];

	REQUIRE(buf && a >= 0);
	b = nt_engine(16016);
	REQUIRE(b >= 0);
	REQUIRE(hx_connect(a, 16016, 5000) == 0);
	CHECK_EQ(notify(a, 16016, "kv_ready", "layer=3 blocks=17"), 0);
	CHECK_EQ(notify(a, 16016, "done", ""), 0);
	usleep(100000);
	CHECK_EQ(get_notifies(b, buf, 64, &count, &dropped), 0);
	CHECK_EQ(count, 2);
	CHECK_EQ(dropped, 0);
	CHECK(!memcmp(&buf[0].from, &an, sizeof(an)));
	CHECK_EQ(buf[0].name_len, 8);
	CHECK(!memcmp(buf[0].name, "kv_ready", 8));
	CHECK_EQ(buf[0].msg_len, 17);
	CHECK(!memcmp(buf[0].msg, "layer=3 blocks=17", 17));
	CHECK_EQ(buf[1].msg_len, 0);
	CHECK_EQ(get_notifies(b, buf, 64, &count, NULL), 0);
	CHECK_EQ(count, 0);
	/* the accepting side answers by the connecting engine's name */
	CHECK_EQ(notify(b, 16015, "ack", "ok"), 0);
	usleep(100000);
	CHECK_EQ(get_notifies(a, buf, 64, &count, NULL), 0);
	CHECK_EQ(count, 1);
	CHECK(!memcmp(buf[0].name, "ack", 3));
	/* bad input */
	CHECK_EQ(notify(a, 16016, "", "x"), -EINVAL);
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK_EQ(notify(a, 16016, big, "x"), -EINVAL);
	CHECK_EQ(notify(a, 16016, "x", big), -EINVAL);
	big[1024] = 0;
	CHECK_EQ(notify(a, 16016, big, big), 0);	/* exactly the limits */
	CHECK_EQ(notify(a, 16099, "x", "y"), -ENOTCONN);
	memset(&n, 0, sizeof(n));
	n.remote = hx_name(16016);
	n.name = 16;
	n.name_len = 4;
	CHECK_EQ(xioctl(a, HIXL_IOC_SEND_NOTIFY, &n), -EFAULT);
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)buf;
	CHECK_EQ(xioctl(b, HIXL_IOC_GET_NOTIFIES, &g), -EINVAL);	/* max 0 */
	g.max = 4;
	g.buf = 16;
	usleep(100000);
	CHECK_EQ(xioctl(b, HIXL_IOC_GET_NOTIFIES, &g), -EFAULT);
	/* the one that could not be written is still there */
	CHECK_EQ(get_notifies(b, buf, 64, &count, NULL), 0);
	CHECK_EQ(count, 1);
	CHECK_EQ(buf[0].name_len, 1024);
	CHECK_EQ(buf[0].msg_len, 1024);
	close(a);
	close(b);
	free(buf);
}

/* more than 4096 pending on one link: the rest are counted, not lost silently */
void test_notify_overflow(void);
void test_notify_overflow(void)
{
	struct hixl_notify *buf = calloc(4096, sizeof(*buf));
	int a = nt_engine(16017), b;
	uint32_t count, total = 0;
	uint64_t dropped;
	int fails = 0;

	REQUIRE(buf && a >= 0);
	b = nt_engine(16018);
	REQUIRE(b >= 0);
	REQUIRE(hx_connect(a, 16018, 5000) == 0);
	for (int i = 0; i < 4100; i++)
		if (notify(a, 16018, "n", "m"))
			fails++;
	CHECK_EQ(fails, 0);
	usleep(200000);
	CHECK_EQ(get_stats(b).notify_dropped, 4);
	CHECK_EQ(get_notifies(b, buf, 4096, &count, &dropped), 0);
	total += count;
	CHECK_EQ(total, 4096);
	CHECK_EQ(dropped, 4);
	CHECK_EQ(get_notifies(b, buf, 4096, &count, &dropped), 0);
	CHECK_EQ(count, 0);
	CHECK_EQ(dropped, 0);		/* reported once */
	/* room again */
	CHECK_EQ(notify(a, 16018, "n", "m"), 0);
	usleep(100000);
	CHECK_EQ(get_notifies(b, buf, 4096, &count, NULL), 0);
	CHECK_EQ(count, 1);
	close(a);
	close(b);
	free(buf);
}


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
	{ "notify", test_notify },
	{ "notify_overflow", test_notify_overflow },
	{ "notify_before_close", test_notify_before_close },
	{ NULL, NULL },
};
