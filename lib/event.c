// SPDX-License-Identifier: MIT
/*
 * event.c - libhixl-user: event-loop completions: the engine's pollable
 * event fd (hixl_engine_event_fd()) and waiting for notifications
 * (hixl_get_notifies_timeout()).
 *
 * The event fd is an epoll set of two level-triggered sources:
 *  - an eventfd of the library's (eng->evfd) that holds 1 while some
 *    request has ended and no status call has reported that end yet
 *    (eng->unseen > 0), else 0.  The library writes and reads it itself,
 *    under the engine's lock, when eng->unseen leaves or reaches 0: after
 *    the request's state changed, so whoever wakes up on it finds the
 *    request ended.  (io_uring's IORING_REGISTER_EVENTFD was the other
 *    candidate for the io_uring path: it fires when the CQE is posted,
 *    before the reaper has ended the request, so a caller woken by it could
 *    find the request still WAITING and go back to sleep with nothing left
 *    to wake it; and it would serve one path of two.)
 *  - /dev/hixl itself when the module has HIXL_FEAT_POLL: readable while
 *    notifications are queued on the engine, until GET_NOTIFIES took them.
 * An epoll fd is itself pollable (readable while one of its members is),
 * so the caller adds one fd to its own poll()/epoll/io_uring loop.
 */
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

/* eventfd's counter to 1 (from 0: the library's writes alternate). */
static void event_raise(struct hixl_engine *eng)
{
	uint64_t one = 1;

	if (eng->evfd >= 0)
		(void)HIXL_SYSCALL_RET((int)write(eng->evfd, &one, sizeof(one)));
}

/* eventfd's counter back to 0. */
static void event_lower(struct hixl_engine *eng)
{
	uint64_t v;

	if (eng->evfd >= 0)
		(void)HIXL_SYSCALL_RET((int)read(eng->evfd, &v, sizeof(v)));
}

/* A request (not detached) ended: its end is unseen.  eng->lock held. */
void hixl_req_unseen(struct hixl_engine *eng, struct hixl_request *r)
{
	if (r->unseen)
		return;
	r->unseen = true;
	if (eng->unseen++ == 0)
		event_raise(eng);
}

/* A status call reported r's end, or r is freed.  eng->lock held. */
void hixl_req_seen(struct hixl_engine *eng, struct hixl_request *r)
{
	if (!r->unseen)
		return;
	r->unseen = false;
	if (--eng->unseen == 0)
		event_lower(eng);
}

/* Finalize: close the event fd.  No other thread is left. */
void hixl_event_release(struct hixl_engine *eng)
{
	if (eng->epfd >= 0)
		close(eng->epfd);
	if (eng->evfd >= 0)
		close(eng->evfd);
	eng->epfd = eng->evfd = -1;
}

/* Make the eventfd and the epoll set.  eng->lock held. */
static int event_make(struct hixl_engine *eng)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int evfd, epfd, ret;

	evfd = HIXL_SYSCALL_RET(eventfd(eng->unseen ? 1 : 0, EFD_NONBLOCK | EFD_CLOEXEC));
	if (evfd < 0)
		return evfd;
	epfd = HIXL_SYSCALL_RET(epoll_create1(EPOLL_CLOEXEC));
	if (epfd < 0) {
		close(evfd);
		return epfd;
	}
	ev.data.fd = evfd;
	ret = HIXL_SYSCALL_RET(epoll_ctl(epfd, EPOLL_CTL_ADD, evfd, &ev));
	if (!ret && (eng->features & HIXL_FEAT_POLL)) {
		ev.data.fd = eng->fd;
		ret = HIXL_SYSCALL_RET(epoll_ctl(epfd, EPOLL_CTL_ADD, eng->fd, &ev));
	}
	if (ret) {
		close(epfd);
		close(evfd);
		return ret;
	}
	eng->evfd = evfd;
	eng->epfd = epfd;
	return 0;
}

HIXL_EXPORT int hixl_engine_event_fd(struct hixl_engine *eng)
{
	int ret = 0;

	if (!eng)
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	if (eng->epfd < 0)
		ret = HIXL_KEEP_ERRNO(event_make(eng));
	if (!ret)
		ret = eng->epfd;
	pthread_mutex_unlock(&eng->lock);
	return hixl_fail("hixl_engine_event_fd", NULL, ret);
}

/* GET_NOTIFIES once; hixl_get_notifies() and the waiting form share it. */
int hixl_do_get_notifies(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
			 size_t *count, uint64_t *dropped)
{
	struct hixl_get_notifies g;
	int ret;

	if (!eng || !out || !max || !count)
		return -EINVAL;
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)out;
	g.max = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	ret = hixl_ioctl(eng->fd, HIXL_IOC_GET_NOTIFIES, &g);
	if (ret)
		return ret;
	*count = g.count;
	if (dropped)
		*dropped = g.dropped;
	return 0;
}

/*
 * GET_NOTIFIES, and while it finds none, poll(2) on /dev/hixl (EPOLLIN
 * while notifications are queued, HIXL_FEAT_POLL) until timeout_ms passed.
 * poll() may wake for a notification another thread takes first: look
 * again with the time left.
 */
static int get_notifies_timeout(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
				size_t *count, uint64_t *dropped, int timeout_ms)
{
	long long deadline = hixl_deadline(timeout_ms > 0 ? timeout_ms : 0);
	uint64_t seen = 0, d;
	int ret;

	for (;;) {
		struct pollfd p = { .fd = eng ? eng->fd : -1, .events = POLLIN };
		long long left;

		ret = hixl_do_get_notifies(eng, out, max, count, &d);
		if (ret)
			return ret;
		seen += d;	/* each GET_NOTIFIES reports and resets the count */
		if (dropped)
			*dropped = seen;
		if (*count)
			return 0;
		left = timeout_ms < 0 ? -1 : hixl_ms_left(deadline);
		if (!left)
			return -ETIMEDOUT;
		if (!(eng->features & HIXL_FEAT_POLL))
			return -EOPNOTSUPP;
		ret = HIXL_SYSCALL_RET(poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left));
		if (ret < 0 && ret != -EINTR)
			return ret;
	}
}

HIXL_EXPORT int hixl_get_notifies_timeout(struct hixl_engine *eng, struct hixl_notify *out,
					  size_t max, size_t *count, uint64_t *dropped,
					  int timeout_ms)
{
	return hixl_fail("hixl_get_notifies_timeout", NULL,
			 HIXL_KEEP_ERRNO(get_notifies_timeout(eng, out, max, count, dropped,
							      timeout_ms)));
}
