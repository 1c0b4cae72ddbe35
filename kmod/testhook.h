/* SPDX-License-Identifier: GPL-2.0 */
/* testhook.h - test delays that provoke races; CONFIG_KUNIT only */
#ifndef _HIXL_TESTHOOK_H
#define _HIXL_TESTHOOK_H

#include <linux/dcache.h>

/* The points; each a u32 of milliseconds in debugfs hixl/test/. */
enum hixl_test_point {
	HIXL_TEST_ACCEPT_QP,	/* accept_qp_ms: hixl_accept(), QP made, not yet listed */
	HIXL_TEST_XWORK_START,	/* xwork_start_ms: an io_uring batch's work item, before it runs */
	HIXL_TEST_RX_MSG,	/* rx_msg_ms: a received message, before its link's state is read */
	HIXL_TEST_LOCAL_RUN,	/* local_run_ms: a same-host batch, listed, before its copy */
	HIXL_TEST_XWR_DONE,	/* xwr_done_ms: a chain's completion, before its handler; once */
	HIXL_TEST_NR,
};

#if IS_ENABLED(CONFIG_KUNIT)
void hixl_testhook_init(struct dentry *dir);
void hixl_test_delay(enum hixl_test_point p);
void hixl_test_delay_once(enum hixl_test_point p);
#else
static inline void hixl_testhook_init(struct dentry *dir) { }
static inline void hixl_test_delay(enum hixl_test_point p) { }
static inline void hixl_test_delay_once(enum hixl_test_point p) { }
#endif

#endif
