// SPDX-License-Identifier: MIT
/*
 * poll_transfer.c - hixl in an event loop: one epoll(7) set holds both
 * engines' event fds (hixl_engine_event_fd()), and everything happens
 * when one of them is readable.  A "prefill" engine writes a KV cache of
 * BLOCKS blocks into a "decode" engine with asynchronous WRITEs, at most
 * DEPTH in flight; each time a WRITE ends it tells the decode side with a
 * notification and starts the next block.  The decode side wakes up on
 * its notifications and checks each block it is told about.  Two engines
 * in one process on the loopback path of one RDMA device; a server would
 * add its sockets to the same epoll set.
 *
 * Usage: poll_transfer [IP [PORT]]   (default 10.77.0.1 22460; PORT + 1
 * is used too).  HIXL_NO_URING=1 runs it on the library's worker threads.
 * Exit status: 0 when every block arrived intact and was announced, 77
 * when there is no hixl module (-ENOPKG) or no RDMA device on IP, 1
 * otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <hixl/hixl.h>

#define BLOCKS	16
#define BLOCK	(256 * 1024)	/* bytes */
#define DEPTH	4		/* WRITEs in flight at most */
#define IDLE_MS	30000		/* no event for this long: give up */

/* what failed, what hixl means by the error, and what to do about it */
static int fail(const char *what, int err)
{
	fprintf(stderr, "poll_transfer: %s: %s: %s\n", what,
		hixl_status_str(hixl_status_from_errno(err)), hixl_strerror(err));
	if (*hixl_error_hint(err))
		fprintf(stderr, "hint: %s\n", hixl_error_hint(err));
	return err == -ENOPKG || err == -EADDRNOTAVAIL || err == -ENODEV ? 77 : 1;
}

struct app {
	struct hixl_engine *prefill, *decode;
	char decode_name[64];
	unsigned char *src, *dst;
	int next;		/* the next block to write */
	int inflight;
	int written;		/* WRITEs that ended COMPLETED and were announced */
	int verified;		/* blocks the decode side checked */
	int failed;
};

/* Start the WRITE of the next block; user_data carries its number. */
static int start_next(struct app *a)
{
	struct hixl_op_desc d;
	struct hixl_request *r;
	int b = a->next, ret;
	struct hixl_transfer_args args = HIXL_TRANSFER_ARGS_INIT(10000);

	d.local_addr = (uintptr_t)(a->src + (size_t)b * BLOCK);
	d.remote_addr = (uintptr_t)(a->dst + (size_t)b * BLOCK);
	d.len = BLOCK;
	args.user_data = (void *)(uintptr_t)b;
	ret = hixl_transfer_async(a->prefill, a->decode_name, HIXL_OP_WRITE, &d, 1, &args, &r);
	if (ret)
		return ret;
	/* r is found again through hixl_get_all_transfer_status() */
	a->next++;
	a->inflight++;
	return 0;
}

/* The prefill engine's fd: WRITEs ended.  Announce each, refill the window. */
static int on_prefill(struct app *a)
{
	struct hixl_transfer_result res[DEPTH];
	int n, ret;

	n = hixl_get_all_transfer_status(a->prefill, HIXL_QUERY_SKIP_WAITING, res, DEPTH);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int b = (int)(uintptr_t)res[i].user_data;
		char msg[16];

		a->inflight--;
		hixl_request_free(res[i].req);
		if (res[i].status != HIXL_TRANSFER_COMPLETED) {
			fprintf(stderr, "poll_transfer: block %d: %s\n", b, strerror(-res[i].err));
			a->failed++;
			continue;
		}
		snprintf(msg, sizeof(msg), "%d", b);
		ret = hixl_send_notify(a->prefill, a->decode_name, "kv-block", msg, strlen(msg),
				       1000);
		if (ret)
			return ret;
		a->written++;
	}
	while (a->inflight < DEPTH && a->next < BLOCKS) {
		ret = start_next(a);
		if (ret)
			return ret;
	}
	return 0;
}

/* The decode engine's fd: notifications.  Check the blocks they name. */
static int on_decode(struct app *a, struct hixl_notify *n, size_t max)
{
	size_t count;
	int ret;

	ret = hixl_get_notifies(a->decode, n, max, &count, NULL);
	if (ret)
		return ret;
	for (size_t i = 0; i < count; i++) {
		char num[16] = "";
		int b;

		memcpy(num, n[i].msg, n[i].msg_len < sizeof(num) - 1 ? n[i].msg_len : sizeof(num) - 1);
		b = atoi(num);
		if (b < 0 || b >= BLOCKS ||
		    memcmp(a->src + (size_t)b * BLOCK, a->dst + (size_t)b * BLOCK, BLOCK)) {
			fprintf(stderr, "poll_transfer: block %d announced but not intact\n", b);
			a->failed++;
			continue;
		}
		a->verified++;
	}
	return 0;
}

static int run(struct app *a, int ep)
{
	struct hixl_notify *n = calloc(8, sizeof(*n));
	int ret = 0;

	if (!n)
		return -ENOMEM;
	/* each block ends verified or failed (a failed WRITE is not announced) */
	while (!ret && a->verified + a->failed < BLOCKS) {
		struct epoll_event ev[2];
		int k = epoll_wait(ep, ev, 2, IDLE_MS);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = k ? -errno : -ETIMEDOUT;
			break;
		}
		for (int i = 0; i < k && !ret; i++)
			ret = ev[i].data.ptr == a->prefill ? on_prefill(a) : on_decode(a, n, 8);
	}
	free(n);
	return ret;
}

int main(int argc, char **argv)
{
	const char *ip = argc > 1 ? argv[1] : "10.77.0.1";
	int port = argc > 2 ? atoi(argv[2]) : 22460;
	struct app a = { 0 };
	char prefill_name[64];
	int ep = -1, ret, rc = 1;
	size_t len = (size_t)BLOCKS * BLOCK;
	uint64_t h;

	a.src = malloc(len);
	a.dst = calloc(1, len);
	if (!a.src || !a.dst)
		return 1;
	for (size_t i = 0; i < len; i++)
		a.src[i] = (unsigned char)(i * 131 + 17);
	snprintf(prefill_name, sizeof(prefill_name), "%s:%d", ip, port + 1);
	snprintf(a.decode_name, sizeof(a.decode_name), "%s:%d", ip, port);

	ret = hixl_engine_init(&a.decode, a.decode_name, NULL, 0);
	if (ret)
		return fail("init decode", ret);
	ret = hixl_engine_init(&a.prefill, prefill_name, NULL, 0);
	if (ret) {
		rc = fail("init prefill", ret);
		goto out;
	}
	ret = hixl_register_mem(a.prefill, &(struct hixl_mem_desc){ .addr = (uintptr_t)a.src,
				.len = len }, HIXL_MEM_HOST, &h);
	if (!ret)
		ret = hixl_register_mem(a.decode, &(struct hixl_mem_desc){ .addr = (uintptr_t)a.dst,
					.len = len }, HIXL_MEM_HOST, &h);
	if (!ret)
		ret = hixl_connect(a.prefill, a.decode_name, 5000);
	if (ret) {
		rc = fail("register/connect", ret);
		goto out;
	}

	/* one epoll set, both engines' event fds, level-triggered */
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		rc = fail("epoll_create1", -errno);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		struct hixl_engine *e = i ? a.decode : a.prefill;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = e };
		int fd = hixl_engine_event_fd(e);

		if (fd < 0) {
			rc = fail("hixl_engine_event_fd", fd);
			goto out;
		}
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
			rc = fail("epoll_ctl", -errno);
			goto out;
		}
	}
	ret = on_prefill(&a);	/* fills the window */
	if (!ret)
		ret = run(&a, ep);
	if (ret) {
		rc = fail("event loop", ret);
		goto out;
	}
	printf("poll_transfer: %s path, %d blocks of %d KiB written (%d in flight at most), "
	       "%d announced, %d verified, %d failed\n",
	       hixl_engine_async_path(a.prefill) == HIXL_ASYNC_URING ? "io_uring" : "threads",
	       BLOCKS, BLOCK / 1024, DEPTH, a.written, a.verified, a.failed);
	rc = a.verified == BLOCKS && a.written == BLOCKS && !a.failed &&
	     !memcmp(a.src, a.dst, len) ? 0 : 1;
	printf("poll_transfer: %s\n", rc ? "FAILED" : "OK");
out:
	if (ep >= 0)
		close(ep);
	hixl_engine_finalize(a.prefill);
	hixl_engine_finalize(a.decode);
	free(a.src);
	free(a.dst);
	return rc;
}
