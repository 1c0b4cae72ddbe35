// SPDX-License-Identifier: GPL-2.0
/*
 * test_loopback_fault.c - loopback engines (kmod/loopback.c) when the peer
 * goes mid-batch, and network namespaces: loop_dereg_mid, loop_closed_mid,
 * loop_netns (described in test_loopback.c, which lists them).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "tests.h"
#include "util.h"
#include "local_util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

static size_t big_len(void)
{
	return hx_debug_kernel() ? 16 * MiB : 128 * MiB;
}

void loop_dereg_mid(void)
{
	size_t len = big_len(), chunk = 1 * MiB;
	uint32_t n = len / chunk;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_reg_mem r, rb;
	struct lu_bg x = { 0 };
	pthread_t th;
	long ret = 0;
	int a, b;

	need_loopback();
	REQUIRE(abuf && bbuf);
	b = lo_eng(AF_INET, 24413);
	a = lo_eng(AF_INET, 24414);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &rb) == 0);
	REQUIRE(lo_connect(a, AF_INET, 24413, 5000) == 0);
	x = (struct lu_bg){ .fd = a, .remote = lo_name(AF_INET, 24413), .op = HIXL_OP_WRITE,
			    .d = lu_descs((uintptr_t)abuf, (uintptr_t)bbuf, chunk, n), .n = n,
			    .timeout_ms = 60000 };
	REQUIRE(x.d);
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	for (int i = 0; i < 100000; i++) {
		ret = dereg_mem(b, rb.handle);
		if (ret != -EBUSY)
			break;
	}
	CHECK_EQ(ret, 0);
	pthread_join(th, NULL);
	printf("#   WRITE during DEREG_MEM: %ld (failed %u of %u)\n", x.ret, x.failed, n);
	CHECK(x.ret == 0 || (x.ret == -ERANGE && x.failed < n));
	CHECK_EQ(wait_pinned(b, 0, 5000), 0);
	free(x.d);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), 0);
}

/* the peer child: engine on port, len bytes registered; closes it on a byte */
static void closed_child(uint16_t port, size_t len, int wfd, int rfd)
{
	uint8_t *bbuf = hx_map(len);
	struct hixl_reg_mem rb;
	uint64_t baddr;
	char c;
	int b = lo_eng(AF_INET, port);

	if (b < 0 || !bbuf || reg_mem(b, bbuf, len, 0, &rb))
		_exit(1);
	baddr = (uintptr_t)bbuf;
	if (write(wfd, &baddr, sizeof(baddr)) != sizeof(baddr))
		_exit(1);
	if (read(rfd, &c, 1) == 1)
		close(b);
	pause();
	_exit(0);
}

static void closed_case(uint16_t pa, uint16_t pb, bool kill_it)
{
	size_t len = big_len(), chunk = 1 * MiB;
	uint32_t n = len / chunk;
	uint8_t *abuf = hx_map(len);
	struct hixl_reg_mem ra;
	struct lu_bg x = { 0 };
	int up[2], down[2], a, status;
	uint64_t baddr = 0;
	pthread_t th;
	pid_t pid;

	REQUIRE(abuf && pipe(up) == 0 && pipe(down) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0)
		closed_child(pb, len, up[1], down[0]);
	close(up[1]);
	REQUIRE(read(up[0], &baddr, sizeof(baddr)) == sizeof(baddr));
	a = lo_eng(AF_INET, pa);
	REQUIRE(a >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &ra) == 0);
	REQUIRE(lo_connect(a, AF_INET, pb, 5000) == 0);
	x = (struct lu_bg){ .fd = a, .remote = lo_name(AF_INET, pb), .op = HIXL_OP_WRITE,
			    .d = lu_descs((uintptr_t)abuf, baddr, chunk, n), .n = n, .timeout_ms = 60000 };
	REQUIRE(x.d);
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	if (kill_it)
		kill(pid, SIGKILL);
	else
		CHECK_EQ(write(down[1], "c", 1), 1);
	pthread_join(th, NULL);
	printf("#   WRITE while the peer %s: %ld (failed %u of %u)\n",
	       kill_it ? "was killed" : "closed its engine", x.ret, x.failed, n);
	CHECK(x.ret == 0 || x.ret == -ECONNRESET || x.ret == -ERANGE);
	if (x.ret)
		CHECK(x.failed < n);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* the peer engine is gone now: the link is broken */
	x.n = 1;
	lu_bg_run(&x);
	CHECK_EQ(x.ret, -ECONNRESET);
	CHECK_EQ(vm_pin_kb_pid(getpid()), len / KiB);	/* ours only */
	free(x.d);
	close(a);
	CHECK_EQ(vm_pin_kb(), 0);
}

void loop_closed_mid(void)
{
	need_loopback();
	closed_case(24415, 24416, false);
	closed_case(24415, 24416, true);
}

void loop_netns(void)
{
	int a, status, p[2];
	pid_t pid;
	long res[3] = { 0 };

	need_loopback();
	a = lo_eng(AF_INET, 24427);
	REQUIRE(a >= 0);
	REQUIRE(pipe(p) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		int c, d;

		if (unshare(CLONE_NEWNET)) {
			res[0] = -errno;
			(void)!write(p[1], res, sizeof(res));
			_exit(0);
		}
		c = lo_eng(AF_INET, 24428);
		res[0] = c < 0 ? c : 0;
		res[1] = c < 0 ? 0 : lo_connect(c, AF_INET, 24427, 300);
		d = lo_eng(AF_INET, 24427);	/* the parent's name: free in this namespace */
		res[2] = d < 0 ? d : 0;
		(void)!write(p[1], res, sizeof(res));
		_exit(0);
	}
	REQUIRE(read(p[0], res, sizeof(res)) == sizeof(res));
	waitpid(pid, &status, 0);
	if (res[0] == -EPERM || res[0] == -EINVAL || res[0] == -ENOSYS)
		SKIP("no unshare(CLONE_NEWNET) here");
	CHECK_EQ(res[0], 0);
	CHECK_EQ(res[1], -ETIMEDOUT);
	CHECK_EQ(res[2], 0);
	close(a);
}
