// SPDX-License-Identifier: GPL-2.0
/*
 * test_abi.c - the ABI decisions taken before 1.0:
 * the library's version macros and runtime check, struct hixl_mem_desc's
 * reserved space, hixl_transfer_async()'s args struct (flags, tag,
 * reserved), and CONNECT's timeout as a deadline that a signal's restart
 * does not reset.  The kernel's size rule for argument structs is in
 * test_dev.c (bad_sizes) and test_uring.c (uring_errors).  Engines on the
 * test VM's rxe0 (10.77.0.1), ports 18750..18759.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "harness.h"
#include "tests.h"
#include "util.h"

#define IP HX_IP

/* the header's version is the library's, and the check follows its rule */
static void test_lib_version(void)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR,
		 HIXL_VERSION_PATCH);
	CHECK(strcmp(hixl_version(), want) == 0);
	CHECK_EQ(HIXL_VERSION, HIXL_VERSION_NUM(HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR,
						HIXL_VERSION_PATCH));
	CHECK_EQ(HIXL_VERSION_CHECK(), 0);
	CHECK_EQ(hixl_version_check(HIXL_VERSION_MAJOR, 0), 0);
	/* built against a newer minor, or another major: refused */
	CHECK_EQ(hixl_version_check(HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR + 1), -EPROTO);
	CHECK_EQ(hixl_version_check(HIXL_VERSION_MAJOR + 1, 0), -EPROTO);
	CHECK_EQ(hixl_version_check(HIXL_VERSION_MAJOR, -1), -EPROTO);
}

/*
 * Reserved space in struct hixl_mem_desc and struct hixl_transfer_args:
 * a non-zero byte there is a field of a later version and is refused;
 * the args' flags and tag rules; a caller's tag works.
 */
static void test_api_reserved_fields(void)
{
	struct hixl_engine *srv = hx_lib_engine(IP ":18750", NULL, 0);
	struct hixl_engine *cli = hx_lib_engine(IP ":18751", NULL, 0);
	const size_t len = 1 << 16;
	char *a = hx_map(len), *b = hx_map(len);
	struct hixl_op_desc d = { 0, 0, len };
	struct hixl_transfer_args ta = HIXL_TRANSFER_ARGS_INIT(10000);
	enum hixl_transfer_status st;
	struct hixl_mem_desc md;
	struct hixl_request *r = NULL;
	uint64_t h;

	REQUIRE(srv && cli && a && b);
	hx_fill(a, len, 7);
	memset(&md, 0, sizeof(md));
	md.addr = (uintptr_t)a;
	md.len = len;
	for (size_t i = 0; i < sizeof(md.reserved) / sizeof(md.reserved[0]); i++) {
		md.reserved[i] = 1ULL << (i * 5);
		CHECK_EQ(hixl_register_mem(cli, &md, HIXL_MEM_HOST, &h), -EINVAL);
		md.reserved[i] = 0;
	}
	CHECK_EQ(hixl_register_mem(cli, &md, HIXL_MEM_HOST, &h), 0);
	md.addr = (uintptr_t)b;
	CHECK_EQ(hixl_register_mem(srv, &md, HIXL_MEM_HOST, &h), 0);
	REQUIRE(hixl_connect(cli, IP ":18750", 10000) == 0);
	d.local_addr = (uintptr_t)a;
	d.remote_addr = (uintptr_t)b;

	CHECK_EQ(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, NULL, &r), -EINVAL);
	ta.flags = 1;
	CHECK_EQ(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, &ta, &r), -EINVAL);
	ta.flags = 0;
	ta.tag = HIXL_TAG_CALLER_MAX;	/* the library's half */
	CHECK_EQ(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, &ta, &r), -EINVAL);
	ta.tag = 0;
	for (size_t i = 0; i < sizeof(ta.reserved) / sizeof(ta.reserved[0]); i++) {
		ta.reserved[i] = 2;
		CHECK_EQ(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, &ta, &r),
			 -EINVAL);
		ta.reserved[i] = 0;
	}
	ta.timeout_ms = 0;
	CHECK_EQ(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, &ta, &r), -EINVAL);
	CHECK(r == NULL);		/* set only on success */

	/* a caller's tag, user data through the args */
	ta.timeout_ms = 10000;
	ta.tag = 0x1234;
	ta.user_data = &ta;
	REQUIRE(hixl_transfer_async(cli, IP ":18750", HIXL_OP_WRITE, &d, 1, &ta, &r) == 0);
	CHECK_EQ(hixl_request_wait(cli, r, 10000, &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
	CHECK(hixl_request_user_data(r) == &ta);
	CHECK_EQ(hx_first_diff(a, b, len), -1);
	hixl_request_free(r);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	munmap(a, len);
	munmap(b, len);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void ticker(int sa_flags, int interval_ms)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = sa_flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = interval_ms * 1000;
	it.it_value.tv_usec = interval_ms * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void ticker_stop(void)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_IGN);
}

/*
 * CONNECT to a port nobody listens on retries until its timeout.  Signals
 * arrive every 100 ms: with SA_RESTART the call restarts each time, and
 * must still end at the original deadline (the module writes the time left
 * back into the struct), not start a full timeout again on every restart -
 * which would never end while the signals come (they stop after 6 s, so
 * a module that resets the timeout ends about 7.5 s in and fails the
 * bound).  Without SA_RESTART the call fails -EINTR with the time left.
 */
static void test_connect_deadline_restart(void)
{
	const uint32_t timeout_ms = 1500;
	struct hixl_connect c;
	struct timespec t0;
	double ms;
	long ret;
	int fd = hx_engine(18752, 0, 0);

	REQUIRE(fd >= 0);
	memset(&c, 0, sizeof(c));
	c.remote = hx_name(18759);	/* nobody listens there */
	c.timeout_ms = timeout_ms;
	alarms = 0;
	ticker(SA_RESTART, 100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = xioctl(fd, HIXL_IOC_CONNECT, &c);
		if (ret != -EINTR)	/* not expected with SA_RESTART; retry the same struct */
			break;
	}
	ms = hx_ms_since(&t0);
	ticker_stop();
	printf("#   CONNECT with SA_RESTART signals every 100 ms: %ld after %.0f ms, %d signals\n",
	       ret, ms, (int)alarms);
	CHECK_EQ(ret, -ETIMEDOUT);
	CHECK(alarms >= 5);		/* the signals did interrupt it */
	CHECK(ms < 4000);		/* the original deadline (1.5 s) with slack */

	/* without SA_RESTART: -EINTR, and the time left is written back */
	memset(&c, 0, sizeof(c));
	c.remote = hx_name(18759);
	c.timeout_ms = timeout_ms;
	alarms = 0;
	ticker(0, 300);
	ret = xioctl(fd, HIXL_IOC_CONNECT, &c);
	ticker_stop();
	printf("#   without SA_RESTART: %ld, timeout_ms now %u\n", ret, c.timeout_ms);
	CHECK_EQ(ret, -EINTR);
	CHECK(c.timeout_ms > 0 && c.timeout_ms < timeout_ms);
	close(fd);
}

const struct ht_test abi_tests[] = {
	{ "lib_version", test_lib_version },
	{ "api_reserved_fields", test_api_reserved_fields },
	{ "connect_deadline_restart", test_connect_deadline_restart },
	{ NULL, NULL },
};
