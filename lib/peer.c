// SPDX-License-Identifier: MIT
/*
 * peer.c - libhixl-user: links to peers: connect (blocking, or a detached
 * thread per asynchronous connect), their state, disconnect.
 */
#include <stdlib.h>

#include "internal.h"

static struct hixl_link *link_find(struct hixl_engine *eng, const struct hixl_sockaddr *a)
{
	struct hixl_link *l;

	for (l = eng->links; l; l = l->next)
		if (!memcmp(&l->addr, a, sizeof(*a)))
			return l;
	return NULL;
}

/* The state a caller sees for a link entry.  eng->lock held. */
static enum hixl_connect_status link_state(const struct hixl_link *l)
{
	if (l->disc_wait)
		return HIXL_DISCONNECT_PENDING;
	if (l->disc_async)
		return HIXL_DISCONNECTING;
	return l->st;
}

static void link_remove(struct hixl_engine *eng, struct hixl_link *l)
{
	struct hixl_link **pp;

	for (pp = &eng->links; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			free(l);
			return;
		}
	}
}

/* CONNECT or DISCONNECT (cmd) of the link to addr; the ioctl's -errno. */
static int link_ioctl(int fd, unsigned long cmd, const struct hixl_sockaddr *addr, int timeout_ms)
{
	struct hixl_connect c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.remote = *addr;
	c.timeout_ms = (uint32_t)timeout_ms;
	ret = hixl_ioctl(fd, cmd, &c);
	/* a host name may have moved: the next parse of it resolves it again */
	if (cmd == HIXL_IOC_CONNECT && ret && ret != -EISCONN && ret != -EALREADY)
		hixl_name_forget(addr);
	return ret;
}

/*
 * A new link entry for a connect to addr, or an error when one is in the
 * way.  Called with eng->lock held.  A CONNECT_FAILED entry is reused.
 */
static int link_start(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
		      enum hixl_connect_status st, struct hixl_link **out)
{
	struct hixl_link *l = link_find(eng, addr);

	if (eng->stopping)
		return -ESHUTDOWN;
	if (l) {
		if (l->disc_async)	/* its thread holds the entry */
			return -EALREADY;
		if (l->st == HIXL_CONNECTED)
			return -EISCONN;
		if (l->st != HIXL_CONNECT_FAILED)
			return -EALREADY;
	} else {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		l->addr = *addr;
		l->eng = eng;
		l->next = eng->links;
		eng->links = l;
	}
	l->st = st;
	l->err = 0;
	l->disc_wait = false;
	l->stale = false;
	*out = l;
	return 0;
}

/* The checks every connect makes: an engine, a timeout, a listening peer. */
static int connect_args(struct hixl_engine *eng, const char *remote, int timeout_ms,
			struct hixl_sockaddr *addr)
{
	int ret;

	if (!eng || timeout_ms <= 0)
		return -EINVAL;
	ret = hixl_parse_name(remote, addr);
	if (ret)
		return ret;
	return addr->port ? 0 : -EINVAL;
}

/* A blocking connect to addr (a listening peer), timeout_ms > 0. */
static int connect_addr(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
			int timeout_ms)
{
	struct hixl_link *l;
	int ret;

	pthread_mutex_lock(&eng->lock);
	ret = link_start(eng, addr, HIXL_CONNECTING, &l);
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		return ret;
	ret = link_ioctl(eng->fd, HIXL_IOC_CONNECT, addr, timeout_ms);
	pthread_mutex_lock(&eng->lock);
	if (ret)
		link_remove(eng, l);
	else
		l->st = HIXL_CONNECTED;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

static int do_connect(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	struct hixl_sockaddr addr;
	int ret;

	ret = connect_args(eng, remote, timeout_ms, &addr);
	return ret ? ret : connect_addr(eng, &addr, timeout_ms);
}

HIXL_EXPORT int hixl_connect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms)
{
	return hixl_fail("hixl_connect", remote_engine,
			 HIXL_KEEP_ERRNO(do_connect(eng, remote_engine, timeout_ms)));
}

/*
 * Start fn(l) on a detached library thread, counted in
 * eng->connect_threads (finalize waits for them); the thread drops the
 * count when done.  eng->lock held.  0, or -errno with nothing started.
 */
static int link_thread(struct hixl_engine *eng, void *(*fn)(void *), struct hixl_link *l)
{
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	eng->connect_threads++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&t, &attr, fn, l);
	pthread_attr_destroy(&attr);
	if (ret)
		eng->connect_threads--;
	return ret;
}

/* A connect to l is pending or running. */
static bool link_connecting(const struct hixl_link *l)
{
	return l->st == HIXL_CONNECT_PENDING || l->st == HIXL_CONNECTING;
}

/*
 * Wait until the connect to l has ended, at most until deadline
 * (CLOCK_MONOTONIC ns).  eng->lock held.  0, or -ETIMEDOUT when it still
 * runs.
 */
static int link_wait_connect(struct hixl_engine *eng, struct hixl_link *l, long long deadline)
{
	struct timespec ts;

	hixl_ns_to_ts(deadline, &ts);
	while (link_connecting(l))
		if (pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT &&
		    link_connecting(l))
			return -ETIMEDOUT;
	return 0;
}

/*
 * Take the CONNECTED link l down with the module's DISCONNECT: the entry
 * goes when the module has no link left, else it is CONNECTED again.
 * eng->lock held, dropped around the ioctl.  The ioctl's -errno.
 */
static int link_teardown(struct hixl_engine *eng, struct hixl_link *l, int timeout_ms)
{
	int ret;

	l->st = HIXL_DISCONNECTING;
	pthread_mutex_unlock(&eng->lock);
	ret = link_ioctl(eng->fd, HIXL_IOC_DISCONNECT, &l->addr, timeout_ms);
	pthread_mutex_lock(&eng->lock);
	if (!ret || ret == -ENOTCONN)
		link_remove(eng, l);
	else
		l->st = HIXL_CONNECTED;
	return ret;
}

static void *connect_thread(void *arg)
{
	struct hixl_link *l = arg;
	struct hixl_engine *eng = l->eng;
	int ret;

	pthread_mutex_lock(&eng->lock);
	l->st = HIXL_CONNECTING;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	ret = link_ioctl(eng->fd, HIXL_IOC_CONNECT, &l->addr, l->timeout_ms);
	pthread_mutex_lock(&eng->lock);
	l->st = ret ? HIXL_CONNECT_FAILED : HIXL_CONNECTED;
	l->err = ret;
	eng->connect_threads--;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);	/* eng may be freed from here on */
	return NULL;
}

static int do_connect_async(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int ret;

	ret = connect_args(eng, remote, timeout_ms, &addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	ret = link_start(eng, &addr, HIXL_CONNECT_PENDING, &l);
	if (ret)
		goto out;
	l->timeout_ms = timeout_ms;
	ret = link_thread(eng, connect_thread, l);
	if (ret)
		link_remove(eng, l);
out:
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_connect_async(struct hixl_engine *eng, const char *remote_engine,
				   int timeout_ms)
{
	return hixl_fail("hixl_connect_async", remote_engine,
			 HIXL_KEEP_ERRNO(do_connect_async(eng, remote_engine, timeout_ms)));
}

HIXL_EXPORT int hixl_get_connect_status(struct hixl_engine *eng, const char *remote_engine,
					enum hixl_connect_status *st)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int saved = errno, ret;

	if (!eng || !st)
		return -EINVAL;
	ret = hixl_parse_name(remote_engine, &addr);
	errno = saved;
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	l = link_find(eng, &addr);
	if (!l) {
		*st = HIXL_NOT_CONNECT;
	} else {
		*st = link_state(l);
		if (*st == HIXL_CONNECT_FAILED)
			ret = l->err;
	}
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

static int do_disconnect(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	long long deadline = hixl_deadline(timeout_ms);
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int ret;

	if (!eng || timeout_ms <= 0)
		return -EINVAL;
	ret = hixl_parse_name(remote, &addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	l = link_find(eng, &addr);
	if (!l) {
		/* not ours: maybe a link a peer made to us; the module knows */
		pthread_mutex_unlock(&eng->lock);
		return link_ioctl(eng->fd, HIXL_IOC_DISCONNECT, &addr, timeout_ms);
	}
	if (l->disc_wait || l->disc_async || l->st == HIXL_DISCONNECTING) {
		ret = -EALREADY;
		goto out;
	}
	if (link_connecting(l)) {
		l->disc_wait = true;
		ret = link_wait_connect(eng, l, deadline);
		l->disc_wait = false;
		if (ret)
			goto out;
	}
	if (l->st != HIXL_CONNECTED) {		/* CONNECT_FAILED */
		link_remove(eng, l);
		ret = -ENOTCONN;
		goto out;
	}
	ret = link_teardown(eng, l, timeout_ms);
out:
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_disconnect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms)
{
	return hixl_fail("hixl_disconnect", remote_engine,
			 HIXL_KEEP_ERRNO(do_disconnect(eng, remote_engine, timeout_ms)));
}

/*
 * The detached thread of hixl_disconnect_async(): wait for a pending connect
 * to end (disc_wait), then tear the link down like hixl_disconnect().
 */
static void *disconnect_thread(void *arg)
{
	struct hixl_link *l = arg;
	struct hixl_engine *eng = l->eng;
	long long deadline = hixl_deadline(l->timeout_ms);

	pthread_mutex_lock(&eng->lock);
	link_wait_connect(eng, l, deadline);	/* still connecting: left below */
	l->disc_wait = false;
	l->disc_async = false;
	if (l->st == HIXL_CONNECTED) {
		link_teardown(eng, l, l->timeout_ms);	/* as hixl_disconnect() leaves it */
	} else if (l->st == HIXL_CONNECT_FAILED) {
		link_remove(eng, l);
	}
	/* still connecting after the timeout: the connect's thread owns it */
	eng->connect_threads--;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);	/* eng may be freed from here on */
	return NULL;
}

static int do_disconnect_async(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int ret;

	if (!eng || timeout_ms <= 0)
		return -EINVAL;
	ret = hixl_parse_name(remote, &addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	l = link_find(eng, &addr);
	if (eng->stopping) {
		ret = -ESHUTDOWN;
	} else if (!l) {
		ret = -ENOTCONN;
	} else if (l->disc_wait || l->disc_async || l->st == HIXL_DISCONNECTING) {
		ret = -EALREADY;
	} else if (l->st == HIXL_CONNECT_FAILED) {
		link_remove(eng, l);		/* as hixl_disconnect() clears it */
		ret = -ENOTCONN;
	}
	if (ret)
		goto out;
	/* seen at once: DISCONNECT_PENDING behind a connect, else DISCONNECTING */
	l->disc_wait = l->st != HIXL_CONNECTED;
	l->disc_async = true;
	l->timeout_ms = timeout_ms;
	ret = link_thread(eng, disconnect_thread, l);
	if (ret) {
		l->disc_wait = false;
		l->disc_async = false;
	}
out:
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_disconnect_async(struct hixl_engine *eng, const char *remote_engine,
				      int timeout_ms)
{
	return hixl_fail("hixl_disconnect_async", remote_engine,
			 HIXL_KEEP_ERRNO(do_disconnect_async(eng, remote_engine, timeout_ms)));
}

HIXL_EXPORT int hixl_get_all_connect_status(struct hixl_engine *eng,
					    struct hixl_connect_entry *out, size_t max)
{
	struct hixl_link *l;
	size_t n = 0;
	int saved = errno;

	if (!eng || (max && !out))
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	for (l = eng->links; l; l = l->next, n++) {
		if (n >= max)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		hixl_format_engine_name(&l->addr, out[n].remote_engine,
					sizeof(out[n].remote_engine));
		out[n].status = link_state(l);
		out[n].err = l->st == HIXL_CONNECT_FAILED ? l->err : 0;
	}
	pthread_mutex_unlock(&eng->lock);
	errno = saved;
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

static int auto_connect_once(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
			     long long deadline, bool stale);

/*
 * AutoConnect: make sure a link to addr exists before a transfer or a
 * notification, within deadline.  stale: the module just said the link is
 * gone or broken (hixl_link_error(): the peer went away or restarted):
 * take it down and connect again.  0 when the link is up (ours, or one the peer made to
 * us: -EISCONN from the module); -ENOTCONN without AutoConnect; -ETIMEDOUT
 * past deadline; else the connect's error.  Threads that need the same
 * link at once share one connect: one whose connect finds another's under
 * way (-EALREADY, from the library's list or the module) waits for it and
 * looks again, rather than failing the transfer (NIXL's generic backend
 * test, several threads posting to one new peer, showed it).
 */
int hixl_auto_connect(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
		      long long deadline, bool stale)
{
	int ret;

	for (;;) {
		ret = auto_connect_once(eng, addr, deadline, stale);
		if (ret != -EALREADY)
			return ret;
		if (hixl_ms_left(deadline) <= 0)
			return -ETIMEDOUT;
		stale = false;	/* the connect under way makes the new link */
		usleep(1000);	/* the module's connect has no entry of ours to wait on */
	}
}

static int auto_connect_once(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
			     long long deadline, bool stale)
{
	struct hixl_link *l;
	struct timespec ts;
	long long left;
	int ret;

	if (!eng->auto_connect)
		return -ENOTCONN;
	if (!addr->port)
		return -ENOTCONN;	/* a client-only peer cannot be connected to */
	pthread_mutex_lock(&eng->lock);
	hixl_ns_to_ts(deadline, &ts);
	while ((l = link_find(eng, addr)) &&
	       (link_connecting(l) || l->st == HIXL_DISCONNECTING || l->disc_wait ||
		l->disc_async)) {
		if (pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT) {
			pthread_mutex_unlock(&eng->lock);
			return -ETIMEDOUT;
		}
	}
	if (l && l->st == HIXL_CONNECTED && !stale && !l->stale) {
		pthread_mutex_unlock(&eng->lock);
		return 0;
	}
	if (l) {
		stale |= l->stale;
		link_remove(eng, l);	/* failed, or gone under us: start again */
	}
	pthread_mutex_unlock(&eng->lock);
	left = hixl_ms_left(deadline);
	if (left <= 0)
		return -ETIMEDOUT;
	if (stale)	/* the module may keep the broken link: take it down first */
		link_ioctl(eng->fd, HIXL_IOC_DISCONNECT, addr, (int)(left < 1000 ? left : 1000));
	left = hixl_ms_left(deadline);
	if (left <= 0)
		return -ETIMEDOUT;
	ret = connect_addr(eng, addr, left > INT32_MAX ? INT32_MAX : (int)left);
	if (ret == -EISCONN) {
		/* the peer made the link to us: list it, so the next call is free */
		pthread_mutex_lock(&eng->lock);
		if (!link_start(eng, addr, HIXL_CONNECTED, &l))
			pthread_cond_broadcast(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
		ret = 0;
	}
	return ret;
}

/*
 * A request to addr ended with a link error: the link is gone or broken
 * (the peer went away); mark the library's entry so that AutoConnect takes
 * it down and connects again.  eng->lock held.
 */
void hixl_link_forget(struct hixl_engine *eng, const struct hixl_sockaddr *addr)
{
	struct hixl_link *l = link_find(eng, addr);

	if (l && l->st == HIXL_CONNECTED)
		l->stale = true;
}

/*
 * An error that says the link to the peer is gone or broken; -EHOSTDOWN:
 * the peer stopped answering (the module's keep-alive); -ECONNABORTED: a
 * revoking CANCEL of another request broke the link (HIXL_CANCEL_REVOKE).
 */
bool hixl_link_error(int err)
{
	return err == -ENOTCONN || err == -ECONNRESET || err == -ENETDOWN || err == -EIO ||
	       err == -EHOSTDOWN || err == -ECONNABORTED;
}

/*
 * Finalize: disconnect the links that are up (1 s each) and forget them all.
 * No other thread is left.
 */
void hixl_links_release(struct hixl_engine *eng)
{
	while (eng->links) {
		if (eng->links->st == HIXL_CONNECTED)
			link_ioctl(eng->fd, HIXL_IOC_DISCONNECT, &eng->links->addr, 1000);
		link_remove(eng, eng->links);
	}
}

static int do_peer_regions(struct hixl_engine *eng, const char *remote,
			   struct hixl_peer_region *buf, uint32_t count, uint32_t *total)
{
	struct hixl_peer_regions a;
	int ret;

	if (!eng || !remote || (count && !buf) || count > HIXL_MAX_STAT_ENTRIES)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	ret = hixl_parse_name(remote, &a.remote);
	if (ret)
		return ret;
	a.buf = count ? (uint64_t)(uintptr_t)buf : 0;
	a.count = count;
	ret = HIXL_SYSCALL_RET(ioctl(eng->fd, HIXL_IOC_PEER_REGIONS, &a));
	if (ret)
		return ret;
	if (total)
		*total = a.total;
	return (int)(a.total < count ? a.total : count);
}

HIXL_EXPORT int hixl_peer_regions(struct hixl_engine *eng, const char *remote_engine,
				  struct hixl_peer_region *buf, uint32_t count, uint32_t *total)
{
	return hixl_fail("hixl_peer_regions", remote_engine,
			 do_peer_regions(eng, remote_engine, buf, count, total));
}
