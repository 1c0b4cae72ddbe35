/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HIXL_TESTS_H
#define HIXL_TESTS_H

#include "harness.h"

/* test_dev.c: /dev/hixl, GET_INFO and ioctl decoding */
void test_dev_node(void);
void test_get_info(void);
void test_get_info_lib(void);
void test_bad_ioctl_numbers(void);
void test_bad_sizes(void);
void test_bad_flags_and_reserved(void);
void test_bad_pointers(void);
void test_many_engines(void);
void test_fork_shares_engine(void);
void test_unload_busy(void);
void test_unprivileged_open(void);

static const struct ht_test hixl_tests[] = {
	{ "dev_node", test_dev_node },
	{ "get_info", test_get_info },
	{ "get_info_lib", test_get_info_lib },
	{ "bad_ioctl_numbers", test_bad_ioctl_numbers },
	{ "bad_sizes", test_bad_sizes },
	{ "bad_flags_and_reserved", test_bad_flags_and_reserved },
	{ "bad_pointers", test_bad_pointers },
	{ "many_engines", test_many_engines },
	{ "fork_shares_engine", test_fork_shares_engine },
	{ "unload_busy", test_unload_busy },
	{ "unprivileged_open", test_unprivileged_open },
	{ NULL, NULL },
};

#endif
