// SPDX-License-Identifier: GPL-2.0
/* testhook.c - test delays at debugfs hixl/test/<point>_ms, root only */
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
 * hixl_testhook_init() - create the test delays' debugfs files
 * @dir: hixl's debugfs directory; hixl/test/ is made in it
 * Context: module init.
 */
void hixl_testhook_init(struct dentry *dir)
{
	struct dentry *t = debugfs_create_dir("test", dir);
	int i;

	for (i = 0; i < HIXL_TEST_NR; i++)
		debugfs_create_u32(hixl_test_names[i], 0600, t, &hixl_test_ms[i]);
}

static void hixl_test_sleep(enum hixl_test_point p, u32 ms)
{
	ms = min(ms, 10000U);
	pr_info("test delay %s: %u ms\n", hixl_test_names[p], ms);
	msleep(ms);
}

/**
 * hixl_test_delay() - sleep for the delay set at point @p
 * @p: the point
 * Context: process context, may sleep; at most 10 s.
 */
void hixl_test_delay(enum hixl_test_point p)
{
	u32 ms = READ_ONCE(hixl_test_ms[p]);

	if (ms)
		hixl_test_sleep(p, ms);
}

/**
 * hixl_test_delay_once() - hixl_test_delay() for the first caller only
 * @p: the point; the first caller resets its delay to 0
 * Context: process context, may sleep.
 */
void hixl_test_delay_once(enum hixl_test_point p)
{
	u32 ms = READ_ONCE(hixl_test_ms[p]);

	if (ms && cmpxchg(&hixl_test_ms[p], ms, 0) == ms)
		hixl_test_sleep(p, ms);
}
