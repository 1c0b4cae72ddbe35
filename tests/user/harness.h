/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - the user test runner's tiny TAP harness.
 *
 * Each test is a function run in its own child process, so a crash or a
 * leaked descriptor in one test cannot hide or fake the result of another.
 * Output is TAP 13: "ok N - name", "not ok N - name", "ok N - name # SKIP why".
 * A test that needs something the machine lacks calls SKIP(); it never passes.
 */
#ifndef HIXL_TEST_HARNESS_H
#define HIXL_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ht_test {
	const char *name;
	void (*fn)(void);
};

/* Defined by the harness, set by the CHECK and SKIP macros in the child. */
extern int ht_failures;
void ht_skip(const char *why) __attribute__((noreturn));

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);\
		ht_failures++;							\
	}									\
} while (0)

#define CHECK_EQ(a, b) do {							\
	long long _a = (long long)(a), _b = (long long)(b);			\
	if (_a != _b) {								\
		printf("#   %s:%d: %s == %s failed: %lld != %lld\n",		\
		       __FILE__, __LINE__, #a, #b, _a, _b);			\
		ht_failures++;							\
	}									\
} while (0)

/* Stop the test now when a precondition of the rest of it failed. */
#define REQUIRE(cond) do {							\
	if (!(cond)) {								\
		printf("#   %s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond);\
		ht_failures++;							\
		return;								\
	}									\
} while (0)

#define SKIP(why) ht_skip(why)

#endif /* HIXL_TEST_HARNESS_H */
