// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_transfer.cpp - NIXL's own generic backend test, test/gtest/
 * test_transfer.cpp of the NIXL tree the plugin is built against (NIXL 1.4:
 * RandomSizes, remoteMDFromSocket, NotificationOnly, SelfNotification,
 * EmptyNotificationPayload; two agents of one process, DRAM_SEG), compiled
 * as it is and instantiated for the backend HIXL, without and with NIXL's
 * progress thread.  NIXL instantiates it for UCX in the same file; those
 * need NIXL's UCX plugin, so the binary runs with --gtest_filter='hixl*'
 * (tests/vm/guest-tests.sh).  Built by `make nixl` into
 * build/nixl/nixl-gtest-hixl with NIXL's main.cpp and common.cpp when
 * NIXL_SRC has that tree and GoogleTest is installed.
 */
#include "test_transfer.cpp"

namespace gtest {
NIXL_INSTANTIATE_TEST(hixl, TestTransfer, "HIXL", false, 1, 0, "");
NIXL_INSTANTIATE_TEST(hixl_pt, TestTransfer, "HIXL", true, 1, 0, "");
} // namespace gtest
