// SPDX-License-Identifier: GPL-2.0
/* test_prof.c - user tests of profiler hooks (lib/prof.c) */
#include "tests.h"

const struct ht_test prof_tests[] = {
	{ NULL, NULL },
};
