// SPDX-License-Identifier: GPL-2.0
/* test_lib.c - user tests of the HIXL-style engine API of libhixl-user */
#include "tests.h"

const struct ht_test lib_tests[] = {
	{ NULL, NULL },
};
