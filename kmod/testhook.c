// SPDX-License-Identifier: GPL-2.0
/*
 * testhook.c - the test delays of testhook.h: debugfs hixl/test/<point>_ms
 * (root only, 0600), 0 by default.  A user test writes a delay, provokes
 * the race it needs inside it (tests/user/test_rail_race.c,
 * test_uring_async.c, test_notify.c, test_cancel_matrix.c), and writes 0
 * back.  Compiled only against a kernel with CONFIG_KUNIT (Kbuild).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>

#include "testhook.h"

static u32 hixl_test_ms[HIXL_TEST_NR];

static const char *const hixl_test_names[HIXL_TEST_NR] = {
	[HIXL_TEST_ACCEPT_QP] = "accept_qp_ms",
	[HIXL_TEST_XWORK_START] = "xwork_start_ms",
	[HIXL_TEST_RX_MSG] = "rx_msg_ms",
	[HIXL_TEST_LOCAL_RUN] = "local_run_ms",
	[HIXL_TEST_XWR_DONE] = "xwr_done_ms",
};

/**
 * hixl_testhook_init() - the test delays' files
 * @dir: hixl's debugfs folder (debugfs.c); hixl/test/ is made in it
 *
 * Context: module init.
 */
void hixl_testhook_init(struct dentry *dir)
{
	struct dentry *t = debugfs_create_dir("test", dir);
	int i;

	for (i = 0; i < HIXL_TEST_NR; i++)
		debugfs_create_u32(hixl_test_names[i], 0600, t, &hixl_test_ms[i]);
}

/* Log and sleep @ms at point @p, at most 10 s. */
static void hixl_test_sleep(enum hixl_test_point p, u32 ms)
{
	ms = min(ms, 10000U);
	pr_info("test delay %s: %u ms\n", hixl_test_names[p], ms);
	msleep(ms);
}

/**
 * hixl_test_delay() - sleep for the delay the tests set at point @p
 * @p: the point
 *
 * Context: process context, may sleep (msleep()); at most 10 s whatever
 * was written, so a test that forgets to write 0 back cannot stall the
 * module.
 */
void hixl_test_delay(enum hixl_test_point p)
{
	u32 ms = READ_ONCE(hixl_test_ms[p]);

	if (ms)
		hixl_test_sleep(p, ms);
}

/**
 * hixl_test_delay_once() - hixl_test_delay(), for the first caller only
 * @p: the point
 *
 * The delay is taken (set back to 0) by the first caller that finds it, so
 * that of completions that come at once (a striped TRANSFER's rails) one
 * is held and the others run.
 *
 * Context: process context, may sleep (msleep()).
 */
void hixl_test_delay_once(enum hixl_test_point p)
{
	u32 ms = READ_ONCE(hixl_test_ms[p]);

	if (ms && cmpxchg(&hixl_test_ms[p], ms, 0) == ms)
		hixl_test_sleep(p, ms);
}
