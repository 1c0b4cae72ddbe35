// SPDX-License-Identifier: GPL-2.0
/* test_physmem.c - user tests of physical memory handles (lib/physmem.c) */
#include "tests.h"

const struct ht_test physmem_tests[] = {
	{ NULL, NULL },
};
