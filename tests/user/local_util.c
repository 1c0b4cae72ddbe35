// SPDX-License-Identifier: GPL-2.0
/*
 * local_util.c - helpers of the same-host and loopback link tests
 * (local_util.h says which and what each does).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <liburing.h>

#include "harness.h"
#include "local_util.h"
#include "loop.h"
#include "util.h"
#include "raw.h"

int lu_eng(uint16_t port, uint32_t transport)
{
	struct hixl_setup s;
	int fd = open_dev();
	long ret;

	memset(&s, 0, sizeof(s));
	s.local = hx_name(port);
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s.transport = transport;
	ret = xioctl(fd, HIXL_IOC_SETUP, &s);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " HX_IP " (rxe0 in the test VM)");
	if (ret) {
		printf("#   SETUP port %u transport %u: %s\n", port, transport, strerror(-ret));
		close(fd);
		return (int)ret;
	}
	return fd;
}

long lu_link0(int fd, struct hixl_link_stat *o)
{
	uint32_t total = 0;
	long ret = lo_links(fd, o, &total);	/* LINK_STATS of one link (test_loopback.c) */

	if (!ret && total < 1)
		ret = -ENOENT;
	return ret;
}

int lu_pair(uint16_t pa, uint32_t ta, uint16_t pb, uint32_t tb, int *a, int *b)
{
	*b = lu_eng(pb, tb);
	if (*b < 0)
		return *b;
	*a = lu_eng(pa, ta);
	if (*a < 0)
		return *a;
	return (int)hx_connect(*a, pb, 5000);
}

void *lu_bg_run(void *arg)
{
	struct lu_bg *x = arg;
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = x->remote;
	t.op = x->op;
	t.descs = (uintptr_t)x->d;
	t.count = x->n;
	t.timeout_ms = x->timeout_ms;
	t.tag = x->tag;
	t.failed = ~0U;
	x->started = 1;
	x->ret = xioctl(x->fd, HIXL_IOC_TRANSFER, &t);
	x->failed = t.failed;
	return NULL;
}

struct hixl_op_desc *lu_descs(uint64_t src, uint64_t dst, size_t chunk, uint32_t n)
{
	struct hixl_op_desc *d = calloc(n, sizeof(*d));

	for (uint32_t i = 0; d && i < n; i++)
		d[i] = (struct hixl_op_desc){ src + i * chunk, dst + i * chunk, chunk };
	return d;
}

#define HX_THREADS_PARAM	"/sys/module/hixl/parameters/local_copy_threads"

void hx_local_threads(const char *v)
{
	FILE *f = fopen(HX_THREADS_PARAM, "w");

	if (!f)
		SKIP("cannot write " HX_THREADS_PARAM " (not root, or an older hixl.ko)");
	fprintf(f, "%s\n", v);
	if (fclose(f))
		SKIP("cannot write " HX_THREADS_PARAM);
}

int hx_uring_write_sqe(struct io_uring *r, int fd, struct hixl_transfer *t,
		       struct hixl_uring_ptr *ptr, uint16_t port, struct hixl_op_desc *d,
		       uint32_t timeout_ms, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (!sqe)
		return -1;
	memset(t, 0, sizeof(*t));
	t->remote = hx_name(port);
	t->op = HIXL_OP_WRITE;
	t->descs = (uintptr_t)d;
	t->count = 1;
	t->timeout_ms = timeout_ms;
	memset(ptr, 0, sizeof(*ptr));
	ptr->addr = (uintptr_t)t;
	ptr->len = sizeof(*t);
	hixl_raw_uring_cmd(sqe, 64, fd, HIXL_IOC_TRANSFER, ptr, sizeof(*ptr), user_data);
	return 0;
}
