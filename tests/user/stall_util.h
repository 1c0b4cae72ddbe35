/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stall_util.h - an engine whose lock is stuck: a REG_MEM of a range whose
 * pages never arrive (userfaultfd) holds the engine's lock while it pins,
 * as a command of a user whose FUSE daemon never answers would
 * (kmod/engine.h's threat model).  Used by the tests that check that such
 * an engine stalls only itself (test_rail_race.c, test_local_par.c).
 */
#ifndef HIXL_TEST_STALL_UTIL_H
#define HIXL_TEST_STALL_UTIL_H
#include <pthread.h>
#include <stddef.h>

struct hx_stall {
	int uffd;
	int fd;			/* the stuck engine */
	void *addr;		/* the missing range, HX_STALL_LEN bytes */
	volatile long ret;	/* the REG_MEM's result, 1 while it runs */
	pthread_t reg, arrive;
	pthread_mutex_t lock;
	pthread_cond_t now;
	int go;			/* under lock: the pages may arrive */
	int max_s;
};
#define HX_STALL_LEN	(1024 * 1024)

/*
 * Stick engine @fd's lock: a REG_MEM in a thread, waiting on a missing
 * page.  The pages arrive at hx_stall_end(), or after @max_s seconds
 * whatever happens (so a module where something waits for them fails the
 * test instead of hanging it).  Returns 0 once the REG_MEM waits on the
 * fault; SKIPs without userfaultfd, or where a long-term pin does not wait
 * for it (Linux 6.1: the REG_MEM fails with EFAULT at once); -1 (printed)
 * on another error.
 */
int hx_stall_begin(struct hx_stall *st, int fd, int max_s);
/*
 * @len bytes of anonymous memory whose pages are missing until the test
 * gives them (UFFDIO_ZEROPAGE on *@uffd, a nonblocking userfaultfd): the
 * mapping, or NULL (printed).  SKIPs without userfaultfd.
 */
void *hx_uffd_map(size_t len, int *uffd);
/* Wait up to 10 s for a page fault on @uffd (hx_uffd_map()'s): 0, or -1. */
int hx_uffd_wait_fault(int uffd);
/* The pages arrive and the REG_MEM ends: its result, 0 or -errno (printed when late). */
long hx_stall_end(struct hx_stall *st);
#endif
