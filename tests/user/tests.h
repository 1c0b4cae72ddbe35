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

/* test_reg.c: memory registration */
void test_reg_anon(void);
void test_reg_anon_shared(void);
void test_reg_thp(void);
void test_reg_hugetlb_2m(void);
void test_reg_hugetlb_1g(void);
void test_reg_memfd(void);
void test_reg_memfd_hugetlb(void);
void test_reg_readonly(void);
void test_reg_dmabuf(void);
void test_reg_limit_count(void);
void test_reg_limit_bytes(void);
void test_reg_rlimit_memlock(void);
void test_inval_munmap(void);
void test_inval_mremap(void);
void test_inval_madv_dontneed(void);
void test_inval_map_fixed(void);
void test_inval_mprotect_ignored(void);
void test_inval_thp_split_neighbour(void);
void test_reg_fork(void);
void test_reg_close_releases(void);
void test_reg_exit_releases(void);
void test_reg_cycles(void);
void test_reg_bad_input(void);
void test_tracepoints(void);
void test_debugfs(void);

/* test_setup.c: SETUP and MRs */
void test_setup_binds_device(void);
void test_setup_ipv6(void);
void test_setup_bad_input(void);
void test_setup_mrs(void);
void test_setup_hugetlb_1g_mr(void);
void test_setup_dmabuf_mrs(void);

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
	{ "reg_anon", test_reg_anon },
	{ "reg_anon_shared", test_reg_anon_shared },
	{ "reg_thp", test_reg_thp },
	{ "reg_hugetlb_2m", test_reg_hugetlb_2m },
	{ "reg_hugetlb_1g", test_reg_hugetlb_1g },
	{ "reg_memfd", test_reg_memfd },
	{ "reg_memfd_hugetlb", test_reg_memfd_hugetlb },
	{ "reg_readonly", test_reg_readonly },
	{ "reg_dmabuf", test_reg_dmabuf },
	{ "reg_limit_count", test_reg_limit_count },
	{ "reg_limit_bytes", test_reg_limit_bytes },
	{ "reg_rlimit_memlock", test_reg_rlimit_memlock },
	{ "inval_munmap", test_inval_munmap },
	{ "inval_mremap", test_inval_mremap },
	{ "inval_madv_dontneed", test_inval_madv_dontneed },
	{ "inval_map_fixed", test_inval_map_fixed },
	{ "inval_mprotect_ignored", test_inval_mprotect_ignored },
	{ "inval_thp_split_neighbour", test_inval_thp_split_neighbour },
	{ "reg_fork", test_reg_fork },
	{ "reg_close_releases", test_reg_close_releases },
	{ "reg_exit_releases", test_reg_exit_releases },
	{ "reg_cycles", test_reg_cycles },
	{ "reg_bad_input", test_reg_bad_input },
	{ "tracepoints", test_tracepoints },
	{ "debugfs", test_debugfs },
	{ "setup_binds_device", test_setup_binds_device },
	{ "setup_ipv6", test_setup_ipv6 },
	{ "setup_bad_input", test_setup_bad_input },
	{ "setup_mrs", test_setup_mrs },
	{ "setup_hugetlb_1g_mr", test_setup_hugetlb_1g_mr },
	{ "setup_dmabuf_mrs", test_setup_dmabuf_mrs },
	{ NULL, NULL },
};

#endif
