// SPDX-License-Identifier: GPL-2.0
/* stall_util.c - an engine whose lock is stuck on userfaultfd (stall_util.h) */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "util.h"
#include "stall_util.h"

static void *hx_stall_reg(void *arg)
{
	struct hx_stall *st = arg;

	st->ret = reg_mem(st->fd, st->addr, HX_STALL_LEN, 0, NULL);
	return NULL;
}

static void *hx_stall_arrive(void *arg)
{
	struct hx_stall *st = arg;
	struct uffdio_zeropage zp;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += st->max_s;
	pthread_mutex_lock(&st->lock);
	while (!st->go && pthread_cond_timedwait(&st->now, &st->lock, &ts) != ETIMEDOUT)
		;
	if (!st->go)
		printf("#   the stuck pages arrive after %d s: something waited for them\n",
		       st->max_s);
	pthread_mutex_unlock(&st->lock);
	zp.range.start = (uintptr_t)st->addr;
	zp.range.len = HX_STALL_LEN;
	zp.mode = 0;
	if (ioctl(st->uffd, UFFDIO_ZEROPAGE, &zp) && errno != EEXIST)
		printf("#   UFFDIO_ZEROPAGE: %s\n", strerror(errno));
	return NULL;
}

void *hx_uffd_map(size_t len, int *uffd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ureg;
	void *p;

	*uffd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (*uffd < 0)
		SKIP("no userfaultfd in this kernel");
	if (ioctl(*uffd, UFFDIO_API, &api)) {
		printf("#   UFFDIO_API: %s\n", strerror(errno));
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	ureg.range.start = (uintptr_t)p;
	ureg.range.len = len;
	ureg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(*uffd, UFFDIO_REGISTER, &ureg)) {
		printf("#   UFFDIO_REGISTER: %s\n", strerror(errno));
		munmap(p, len);
		return NULL;
	}
	return p;
}

int hx_uffd_wait_fault(int uffd)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	for (int waited = 0; waited < 10000; waited += 100)
		if (poll(&pfd, 1, 100) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			return 0;
	return -1;
}

int hx_stall_begin(struct hx_stall *st, int fd, int max_s)
{
	struct pollfd pfd;
	struct uffd_msg msg;

	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->max_s = max_s;
	st->ret = 1;
	st->addr = hx_uffd_map(HX_STALL_LEN, &st->uffd);
	if (!st->addr)
		return -1;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->now, NULL);
	if (pthread_create(&st->arrive, NULL, hx_stall_arrive, st) ||
	    pthread_create(&st->reg, NULL, hx_stall_reg, st))
		return -1;
	pfd = (struct pollfd){ .fd = st->uffd, .events = POLLIN };
	for (int waited = 0; waited < 10000; waited += 100) {
		if (st->ret != 1) {
			long ret = st->ret;

			hx_stall_end(st);
			if (ret == -EFAULT)
				SKIP("a long-term pin does not wait for userfaultfd here (Linux 6.1)");
			printf("#   the stalling REG_MEM ended at once: %ld\n", ret);
			return -1;
		}
		if (poll(&pfd, 1, 100) == 1 && read(st->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			return 0;
	}
	printf("#   no userfaultfd fault within 10 s\n");
	hx_stall_end(st);
	return -1;
}

long hx_stall_end(struct hx_stall *st)
{
	pthread_mutex_lock(&st->lock);
	st->go = 1;
	pthread_cond_signal(&st->now);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->arrive, NULL);
	pthread_join(st->reg, NULL);
	close(st->uffd);
	return st->ret;
}
