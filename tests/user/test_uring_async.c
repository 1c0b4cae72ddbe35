// SPDX-License-Identifier: GPL-2.0
/*
 * test_uring_async.c - io_uring TRANSFERs that run in process context
 * (staged descriptors, same-host copies) hold no io_uring thread: the
 * kernel runs them from a work item (kmod/xwork.c) and posts the CQE.
 *
 *   uring_async_stalled  io-wq held to one worker; a staged WRITE whose
 *                        source page never arrives (userfaultfd) waits in
 *                        the kernel, and 16 staged and 16 same-host
 *                        batches submitted after it all complete; then
 *                        the page arrives and the first one completes too,
 *                        with the page's bytes at the peer
 *   uring_async_stuck_peer  same-host batches through io_uring whose peer
 *                        engine's lock sticks mid-copy (a REG_MEM waiting on
 *                        userfaultfd) before they run (the debug kernel's
 *                        test delay xwork_start_ms): a CANCEL of their tag
 *                        ends them all within 10 s (a work item cannot be
 *                        killed: it must not wait for the lock unbounded)
 *   uring_async_stuck_revoke  the same with a revoking CANCEL: it ends them
 *                        as a plain one does and breaks no link (a kernel
 *                        copy has nothing on the wire to revoke)
 *   uring_async_killed   the same, but the submitting process is killed:
 *                        io_uring cancels the batches at its ring's exit,
 *                        so its engine is gone within 10 s (io_uring's
 *                        cancel reaches the work item; 6.7+, the debug
 *                        kernel)
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "raw.h"
#include "tests.h"
#include "util.h"
#include "local_util.h"
#include "stall_util.h"

#define UA_TMO_MS	60000	/* each batch's timeout */

void test_uring_async_stalled(void);
void test_uring_async_stuck_peer(void);
void test_uring_async_killed(void);
void test_uring_async_stuck_revoke(void);

#define UA_CHUNK	(64 * 1024)	/* a staged descriptor (unregistered, small) */
#define UA_N		16		/* staged batches, and same-host batches, behind the stall */

static void *ua_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Reap CQEs until n with user_data < 1000 came, or @ms passed; res[user_data]; how many came. */
static unsigned int ua_reap(struct io_uring *r, unsigned int n, int *res, unsigned int ms)
{
	unsigned int got = 0;

	while (got < n) {
		struct __kernel_timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(r, &cqe, &ts))
			break;
		if (cqe->user_data < 1000) {
			res[cqe->user_data] = cqe->res;
			got++;
		}
		io_uring_cqe_seen(r, cqe);
	}
	return got;
}

/* How many of res[from..to] have their CQE (not the 1 they were set to). */
static int ua_done(const int *res, int from, int to)
{
	int n = 0;

	for (int i = from; i <= to; i++)
		n += res[i] != 1;
	return n;
}

/* A userfaultfd range of @len bytes, missing: its fd, or -1 (SKIPs without userfaultfd). */
static int ua_uffd(void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ureg;
	int fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		SKIP("no userfaultfd in this kernel");
	ureg.range.start = (uintptr_t)addr;
	ureg.range.len = len;
	ureg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &ureg)) {
		printf("#   userfaultfd: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait up to @ms for a page fault on @uffd: 1 when one came. */
static int ua_fault(int uffd, unsigned int ms)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	for (unsigned int waited = 0; waited < ms; waited += 100) {
		if (poll(&pfd, 1, 100) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT)
			return 1;
	}
	return 0;
}

void test_uring_async_stalled(void)
{
	static struct hixl_transfer t[1 + 2 * UA_N];
	static struct hixl_uring_ptr ptr[1 + 2 * UA_N];
	static struct hixl_op_desc d[1 + 2 * UA_N];
	static int res[1 + 2 * UA_N];
	unsigned int max[2] = { 1, 1 };	/* io-wq: one bound, one unbound worker */
	size_t len = UA_N * UA_CHUNK;
	unsigned char *src, *stall, *rb, *rc, *la, *lb, *pat;
	int a, b, c, la_fd = -1, lb_fd = -1, uffd, faulted, got;
	struct uffdio_copy cp;
	struct io_uring r;

	/*
	 * The missing range first, and registered before anything is
	 * touched: a transparent huge page faulted in for a neighbour in the
	 * same VMA would otherwise map it already (seen on Linux 6.1).
	 */
	stall = ua_buf(UA_CHUNK);
	REQUIRE(stall);
	uffd = ua_uffd(stall, UA_CHUNK);
	REQUIRE(uffd >= 0);
	src = ua_buf(len);
	pat = ua_buf(UA_CHUNK);
	rb = ua_buf(UA_CHUNK);
	rc = ua_buf(len);
	la = ua_buf(len);
	lb = ua_buf(len);
	REQUIRE(src && pat && rb && rc && la && lb);
	hx_fill(src, len, 41);
	hx_fill(la, len, 43);
	hx_fill(pat, UA_CHUNK, 47);

	/* A stages to B (the stalled batch) and to C; D copies to E on the same host */
	a = hx_engine(16230, 4, 8);
	b = a >= 0 ? hx_engine(16231, 4, 8) : -1;
	c = b >= 0 ? hx_engine(16232, 4, 8) : -1;
	REQUIRE(a >= 0 && b >= 0 && c >= 0);
	REQUIRE(reg_mem(b, rb, UA_CHUNK, 0, NULL) == 0);
	REQUIRE(reg_mem(c, rc, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 16231, 5000) == 0 && hx_connect(a, 16232, 5000) == 0);
	REQUIRE(lu_pair(16233, HIXL_TRANSPORT_LOCAL, 16234, HIXL_TRANSPORT_AUTO, &la_fd,
			&lb_fd) == 0);
	REQUIRE(reg_mem(la_fd, la, len, 0, NULL) == 0 && reg_mem(lb_fd, lb, len, 0, NULL) == 0);

	REQUIRE(io_uring_queue_init(128, &r, 0) == 0);
	REQUIRE(io_uring_register_iowq_max_workers(&r, max) == 0);

	d[0] = (struct hixl_op_desc){ .local_addr = (uintptr_t)stall, .remote_addr = (uintptr_t)rb,
				      .len = UA_CHUNK };
	REQUIRE(hx_uring_write_sqe(&r, a, &t[0], &ptr[0], 16231, &d[0], UA_TMO_MS, 0) == 0);
	for (int i = 0; i <= 2 * UA_N; i++)
		res[i] = 1;	/* no CQE yet: a CQE's res is 0 or -errno */
	REQUIRE(io_uring_submit(&r) == 1);
	faulted = ua_fault(uffd, 10000);	/* the staging copy waits for the page */
	printf("#   the first batch %s on its missing source page\n",
	       faulted ? "waits" : "did not fault within 10 s");
	CHECK(faulted);

	for (int i = 0; i < UA_N; i++) {
		struct hixl_op_desc *s = &d[1 + i], *l = &d[1 + UA_N + i];

		*s = (struct hixl_op_desc){ .local_addr = (uintptr_t)(src + i * UA_CHUNK),
					    .remote_addr = (uintptr_t)(rc + i * UA_CHUNK),
					    .len = UA_CHUNK };
		*l = (struct hixl_op_desc){ .local_addr = (uintptr_t)(la + i * UA_CHUNK),
					    .remote_addr = (uintptr_t)(lb + i * UA_CHUNK),
					    .len = UA_CHUNK };
		REQUIRE(hx_uring_write_sqe(&r, a, &t[1 + i], &ptr[1 + i], 16232, s, UA_TMO_MS,
					   1 + i) == 0);
		REQUIRE(hx_uring_write_sqe(&r, la_fd, &t[1 + UA_N + i], &ptr[1 + UA_N + i], 16234, l,
					   UA_TMO_MS, 1 + UA_N + i) == 0);
	}
	REQUIRE(io_uring_submit(&r) == 2 * UA_N);
	/* one io-wq worker: a batch that held it would hold them all */
	ua_reap(&r, 2 * UA_N, res, 20000);
	got = ua_done(res, 1, 2 * UA_N);
	printf("#   %d of %d batches behind the stalled one completed while it waited\n",
	       got, 2 * UA_N);
	CHECK_EQ(got, 2 * UA_N);
	for (int i = 1; i <= 2 * UA_N; i++) {
		if (res[i] != 1 && res[i])
			printf("#   batch %d: res %d\n", i, res[i]);
		CHECK(res[i] == 1 || res[i] == 0);
	}
	if (got == 2 * UA_N) {
		CHECK_EQ(hx_first_diff(src, rc, len), -1);
		CHECK_EQ(hx_first_diff(la, lb, len), -1);
	}

	/* the page arrives: the first batch completes with its bytes (and any held behind it) */
	cp = (struct uffdio_copy){ .dst = (uintptr_t)stall, .src = (uintptr_t)pat,
				   .len = UA_CHUNK };
	if (ioctl(uffd, UFFDIO_COPY, &cp))
		printf("#   UFFDIO_COPY: %s\n", strerror(errno));
	ua_reap(&r, (unsigned int)(1 + 2 * UA_N - ua_done(res, 0, 2 * UA_N)), res, 60000);
	printf("#   the first batch: res %d%s\n", res[0], res[0] == 1 ? " (no CQE)" : "");
	CHECK_EQ(res[0], 0);
	CHECK_EQ(hx_first_diff(pat, rb, UA_CHUNK), -1);

	io_uring_queue_exit(&r);
	close(uffd);
	close(a);
	close(b);
	close(c);
	close(la_fd);
	close(lb_fd);
}

/* batches stuck behind the peer's lock */
#define SP_N		4
#define SP_TAG		7
#define SP_HOOK		"xwork_start_ms"	/* debugfs hixl/test/ */

static void stuck_peer(uint32_t flags, uint16_t pa, uint16_t pb)
{
	static struct hixl_transfer t[SP_N];
	static struct hixl_uring_ptr ptr[SP_N];
	static int res[SP_N];
	size_t len = 4 << 20;
	unsigned char *a0 = ua_buf(len), *a1 = ua_buf(len);
	struct hixl_cancel cn = { .tag = SP_TAG, .flags = flags };
	struct hixl_op_desc d;
	struct io_uring r;
	struct hx_stall st;
	int a = -1, b = -1, got, cancelled = 0;
	long cret;

	if (hx_test_delay(SP_HOOK, 0))
		SKIP("no debugfs hixl/test/" SP_HOOK " (the module's test delays exist only against a kernel with KUnit)");
	REQUIRE(a0 && a1);
	REQUIRE(lu_pair(pa, HIXL_TRANSPORT_LOCAL, pb, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, a0, len, 0, NULL) == 0 && reg_mem(b, a1, len, 0, NULL) == 0);
	hx_fill(a0, len, 51);
	d = (struct hixl_op_desc){ .local_addr = (uintptr_t)a0, .remote_addr = (uintptr_t)a1,
				   .len = len };
	REQUIRE(io_uring_queue_init(64, &r, 0) == 0);
	for (int i = 0; i < SP_N; i++) {
		REQUIRE(hx_uring_write_sqe(&r, a, &t[i], &ptr[i], pb, &d, UA_TMO_MS, (uint64_t)i) == 0);
		t[i].tag = SP_TAG;
		res[i] = 1;
	}
	/* planned and queued; their work items wait 2 s before they run */
	REQUIRE(hx_test_delay(SP_HOOK, 2000) == 0);
	REQUIRE(io_uring_submit(&r) == SP_N);
	usleep(300000);
	hx_test_delay(SP_HOOK, 0);
	/* meanwhile b's lock sticks: the batches' first chunks wait for it */
	REQUIRE(hx_stall_begin(&st, b, 120) == 0);
	usleep(2500000);
	cret = xioctl(a, HIXL_IOC_CANCEL, &cn);
	ua_reap(&r, SP_N, res, 10000);
	got = ua_done(res, 0, SP_N - 1);
	for (int i = 0; i < SP_N; i++)
		cancelled += res[i] == -ECANCELED;
	printf("#   %sCANCEL %ld: %u batches, %u links broken; within 10 s %d of %d CQEs, "
	       "%d of them -ECANCELED\n", flags ? "revoking " : "", cret, cn.count, cn.broken, got,
	       SP_N, cancelled);
	CHECK_EQ(cret, 0);
	CHECK_EQ(cn.count, SP_N);	/* every batch was stuck behind the lock */
	CHECK_EQ(cn.broken, 0);		/* a kernel copy: nothing on the wire, no link reset */
	CHECK_EQ(got, SP_N);
	CHECK_EQ(cancelled, SP_N);
	CHECK_EQ(hx_stall_end(&st), 0);	/* b's pages arrive */
	if (got < SP_N)
		ua_reap(&r, (unsigned int)(SP_N - got), res, 120000);
	io_uring_queue_exit(&r);
	close(a);
	close(b);
	munmap(st.addr, HX_STALL_LEN);
}

void test_uring_async_stuck_peer(void)
{
	stuck_peer(0, 16235, 16236);
}

void test_uring_async_stuck_revoke(void)
{
	stuck_peer(HIXL_CANCEL_REVOKE, 16241, 16242);
}

/* The child of uring_async_killed: SP_N same-host batches to port 16240, then waits. */
static void sp_child(int ready, unsigned char *a0, size_t len)
{
	static struct hixl_transfer t[SP_N];
	static struct hixl_uring_ptr ptr[SP_N];
	struct hixl_op_desc d = { .local_addr = (uintptr_t)a0, .remote_addr = 0, .len = len };
	struct io_uring r;
	char c = 0;
	int a = lu_eng(16239, HIXL_TRANSPORT_LOCAL);

	if (a < 0 || reg_mem(a, a0, len, 0, NULL) || hx_connect(a, 16240, 5000) ||
	    io_uring_queue_init(64, &r, 0))
		_exit(2);
	if (read(ready, &d.remote_addr, sizeof(d.remote_addr)) != sizeof(d.remote_addr))
		_exit(3);
	for (int i = 0; i < SP_N; i++)
		if (hx_uring_write_sqe(&r, a, &t[i], &ptr[i], 16240, &d, UA_TMO_MS, (uint64_t)i))
			_exit(4);
	if (io_uring_submit(&r) != SP_N)
		_exit(5);
	if (read(ready, &c, 1) != 1)	/* the parent kills us first */
		_exit(6);
	_exit(7);
}

void test_uring_async_killed(void)
{
	size_t len = 4 << 20;
	unsigned char *a0 = ua_buf(len), *a1 = ua_buf(len);
	struct timespec t0;
	struct hx_stall st;
	int b, p[2], status = 0, gone = 0, n0;
	uint64_t rb;
	pid_t pid;

	if (hx_test_delay(SP_HOOK, 0))
		SKIP("no debugfs hixl/test/" SP_HOOK " (the module's test delays exist only against a kernel with KUnit)");
	REQUIRE(a0 && a1);
	hx_fill(a0, len, 53);
	b = lu_eng(16240, HIXL_TRANSPORT_AUTO);
	REQUIRE(b >= 0);
	n0 = hx_count_engines();
	REQUIRE(n0 >= 1);
	REQUIRE(reg_mem(b, a1, len, 0, NULL) == 0);
	REQUIRE(pipe(p) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (!pid) {
		close(p[1]);
		sp_child(p[0], a0, len);
	}
	close(p[0]);
	/* the child's batches: planned and queued; their work items wait 2 s */
	REQUIRE(hx_test_delay(SP_HOOK, 2000) == 0);
	rb = (uintptr_t)a1;
	REQUIRE(write(p[1], &rb, sizeof(rb)) == sizeof(rb));
	usleep(500000);
	hx_test_delay(SP_HOOK, 0);
	/* meanwhile b's lock sticks: the batches' first chunks wait for it */
	REQUIRE(hx_stall_begin(&st, b, 120) == 0);
	usleep(2500000);
	kill(pid, SIGKILL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < 10000 && !(gone = waitpid(pid, &status, WNOHANG) == pid))
		usleep(20000);
	printf("#   the killed child %s (%.0f ms after SIGKILL)\n",
	       gone ? "is gone" : "is still there after 10 s", hx_ms_since(&t0));
	CHECK(gone);
	CHECK(gone && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* its ring's exit cancels the batches: then its engine (the file) goes */
	while (hx_ms_since(&t0) < 10000 && hx_count_engines() > n0)
		usleep(20000);
	printf("#   engines: %d before the child, %d %.0f ms after SIGKILL\n", n0, hx_count_engines(),
	       hx_ms_since(&t0));
	CHECK_EQ(hx_count_engines(), n0);
	CHECK_EQ(hx_stall_end(&st), 0);	/* b's pages arrive */
	if (!gone)
		waitpid(pid, &status, 0);
	close(p[1]);
	close(b);
	munmap(st.addr, HX_STALL_LEN);
}

const struct ht_test uring_async_tests[] = {
	{ "uring_async_stalled", test_uring_async_stalled },
	{ "uring_async_stuck_peer", test_uring_async_stuck_peer },
	{ "uring_async_stuck_revoke", test_uring_async_stuck_revoke },
	{ "uring_async_killed", test_uring_async_killed },
	{ NULL, NULL },
};
