// SPDX-License-Identifier: GPL-2.0
/*
 * connect.c - the CONNECT and DISCONNECT commands: a link to a peer engine
 * made from the calling thread, retried while the peer does not listen yet,
 * and taken down.  The RDMA CM side of a link (its events, accepting, one
 * connection attempt) is cm.c's.
 *
 * A CONNECT to a port nobody listens on is refused at once by the peer's CM;
 * like a server that is still starting, it is retried every
 * HIXL_RETRY_MS until the timeout, which then returns -ETIMEDOUT.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <rdma/rdma_cm.h>

#include "engine.h"
#include "stats.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "cm.h"
#include "connect.h"
#include "table.h"
#include "raillink.h"
#include "loopback.h"
#include "trace.h"

static int hixl_connect_validate(struct hixl_engine *eng, const struct hixl_connect *a,
				 struct sockaddr_storage *dst)
{
	int ret;

	if (a->flags)
		return hixl_einval("CONNECT: flags 0x%x has unknown bits", a->flags);
	if (a->reserved[0] || a->reserved[1])
		return hixl_einval("CONNECT: reserved is not zero");
	ret = hixl_sockaddr_to_kernel(&a->remote, dst);
	if (ret)
		return ret;
	if (!a->remote.port)	/* a peer that does not listen cannot be reached */
		return hixl_einval("CONNECT: remote.port 0");
	return hixl_engine_usable(eng);
}

/*
 * Put a new active link @l on the engine's list, in place of a broken link
 * to the same peer (*@old, to be torn down by the caller once it has
 * unlisted it here); the list's reference and one for the caller.
 * Return: 0; -EISCONN or -EALREADY when a link to the peer is READY or
 * CONNECTING; -ENOSPC at max_links; -ENODEV when the device is going.
 */
static int hixl_connect_list(struct hixl_engine *eng, struct hixl_link *l,
			     struct hixl_link **old)
{
	int ret = 0, st, err;

	mutex_lock(&eng->links_lock);
	*old = hixl_link_lookup(eng, &l->peer);
	if (*old) {
		st = hixl_link_state(*old, &err);
		if (st == HIXL_LINK_READY) {
			ret = -EISCONN;
		} else if (st == HIXL_LINK_CONNECTING) {
			ret = -EALREADY;
		} else {	/* broken: replace it */
			list_del_init(&(*old)->node);
			eng->nr_links--;
		}
	}
	if (!ret && eng->nr_links >= READ_ONCE(hixl_max_links))
		ret = -ENOSPC;
	if (!ret && eng->rdma_gone)
		ret = -ENODEV;		/* the device is going away (setup.c) */
	if (!ret) {
		list_add_tail(&l->node, &eng->links);
		eng->nr_links++;
		kref_get(&l->ref);	/* ours, until we return: others can unlist it now */
	}
	mutex_unlock(&eng->links_lock);
	return ret;
}

/*
 * Connection attempts until one is ESTABLISHED: one refused because nobody
 * listens yet is undone and tried again every HIXL_RETRY_MS until
 * @deadline.  Return: as hixl_link_try_connect(); -ETIMEDOUT when the
 * retries ran out; -ERESTARTSYS for a signal during a pause.
 */
static int hixl_connect_retry(struct hixl_link *l, struct sockaddr *src,
			      struct sockaddr *dst, unsigned long deadline)
{
	int ret;

	for (;;) {
		mutex_lock(&l->cm_mutex);
		ret = hixl_link_try_connect(l, src, dst, deadline);
		if (ret == -ECONNREFUSED)
			hixl_link_reset_attempt(l);
		mutex_unlock(&l->cm_mutex);
		if (ret != -ECONNREFUSED)
			return ret;
		if (hixl_jiffies_left(deadline) <= msecs_to_jiffies(HIXL_RETRY_MS))
			return -ETIMEDOUT;
		/* the pause before the next attempt; a teardown cuts it short */
		if (wait_event_interruptible_timeout(l->wq,
						     READ_ONCE(l->state) >= HIXL_LINK_ERROR,
						     msecs_to_jiffies(HIXL_RETRY_MS)) < 0)
			return -ERESTARTSYS;
	}
}

/*
 * A CONNECT that a signal interrupted gives the time it has left back in
 * @a->timeout_ms (hixl_engine_ioctl() copies CONNECT's struct out on
 * failure too), so that the restarted call (SA_RESTART, io_uring's task-work
 * notification) or the caller's retry after -EINTR waits only for the rest
 * of the original deadline, not for a new full timeout: a relative timeout
 * must not restart (Documentation/process/botching-up-ioctls.rst).  Once
 * nothing is left, the call ends -ETIMEDOUT instead of restarting.
 */
static int hixl_connect_time_left(struct hixl_connect *a, unsigned long deadline)
{
	long left = (long)(deadline - jiffies);

	if (left <= 0)
		return -ETIMEDOUT;
	a->timeout_ms = max(1U, jiffies_to_msecs(left));
	return -ERESTARTSYS;
}

/**
 * hixl_cmd_connect() - HIXL_IOC_CONNECT: connect to a peer engine
 * @eng: the engine, set up
 * @a:   in: the peer's name, timeout_ms (> 0)
 *
 * Resolves the peer over RDMA CM, connects one RC QP, activates the MRs of
 * every registration and exchanges region tables; returns when the link is
 * ready or the timeout has passed.  A refused connection (no listener yet)
 * is retried every 50 ms until then.
 *
 * The link is on the engine's list from the start, so a DISCONNECT of the
 * same peer from another thread, a second CONNECT replacing it once it
 * broke, the device's removal or an address change can tear it down while
 * CONNECT runs: CONNECT holds its own reference on the link until it
 * returns, makes and frees the link's cm_id and QP only under the link's
 * cm_mutex after checking that the link is not CLOSED, and then fails with
 * -ECONNABORTED (-ENODEV for the device's removal).
 *
 * Context: process context, sleeps up to @a->timeout_ms; takes the link's
 * cm_mutex, then the engine lock and its post_mutex (hixl_link_publish()).
 * Return: 0, or
 *  -EINVAL       flags, reserved fields, timeout 0, port 0, a bad address;
 *  -EAFNOSUPPORT the family is not AF_INET or AF_INET6;
 *  -EPERM        the caller is not the engine's process;
 *  -EBADFD       the engine was not set up (HIXL_IOC_SETUP);
 *  -ENODEV       the engine's RDMA device was removed (SETUP again), before
 *                or during the CONNECT;
 *  -EISCONN      already connected to this peer (HIXL ALREADY_CONNECTED);
 *  -EALREADY     a CONNECT to this peer is in progress;
 *  -ENOSPC       the engine has max_links links;
 *  -EACCES       refused by the peer's policy (docs/protocol.md, "Who may
 *                connect"): our address is not among its allowed peers,
 *                one of the two engines has a secret and the other not, or
 *                the peer's proof of our secret was wrong (no region of
 *                ours was announced to it); a CONNECT the peer's policy
 *                refuses is not retried;
 *  -ETIMEDOUT    not connected and exchanged within the timeout (also: a
 *                peer that never answers our secret's challenge);
 *  -EHOSTUNREACH, -ENETUNREACH, -EADDRNOTAVAIL: resolution failed;
 *                -ENETUNREACH also: a loopback engine (loopback.c) named a
 *                peer that is not on a loopback address, or an engine with
 *                a device named one that is (hixl_loop_route()); between
 *                loopback engines, CONNECT is hixl_loop_join() and fails
 *                as it documents;
 *  -EXDEV        the route to the peer leaves the engine's RDMA device;
 *  -ECONNRESET   the peer went away during the exchange;
 *  -ECONNABORTED the link was torn down here while CONNECT ran: a DISCONNECT
 *                of this peer from another thread, another CONNECT that
 *                replaced it after it broke, or a change of its address;
 *  -ENETDOWN     the link broke on a device or address event (before it
 *                was torn down; then -ECONNABORTED or -ENODEV);
 *  -EINTR        a signal with a handler arrived (the link attempt is undone;
 *                with SA_RESTART, and after io_uring's task-work
 *                notification (TIF_NOTIFY_SIGNAL), the call restarts instead:
 *                -ERESTARTSYS inside the kernel); either way @a->timeout_ms
 *                is set to the time left of the original timeout, so the
 *                restart (or a retry with the same struct) keeps the
 *                deadline; with no time left: -ETIMEDOUT;
 *  -ENOMEM, or the device's -errno.
 */
int hixl_cmd_connect(struct hixl_engine *eng, struct hixl_connect *a)
{
	struct sockaddr_storage dst, src;
	struct hixl_link *l, *old;
	unsigned long deadline;
	int ret, err;
	bool loop;
	u64 ns;

	ret = hixl_connect_validate(eng, a, &dst);
	if (ret)
		return ret;
	if (!a->timeout_ms)
		return hixl_einval("CONNECT: timeout_ms 0");
	loop = hixl_loop_engine(eng);
	ret = hixl_loop_route(loop, &a->remote);	/* loopback only to loopback */
	if (ret)
		return ret;
	ret = hixl_sockaddr_to_kernel(&eng->rdma->local, &src);
	if (ret)
		return ret;
	((struct sockaddr_in *)&src)->sin_port = 0;	/* same offset in sin6 */
	deadline = hixl_deadline(a->timeout_ms);

	l = hixl_link_alloc(eng, true);
	if (!l)
		return -ENOMEM;
	l->connect_ns = ktime_get_ns();
	l->peer = a->remote;
	l->named = true;
	l->raddr = dst;
	ret = hixl_connect_list(eng, l, &old);
	if (ret) {
		hixl_link_put(l);	/* never listed: frees it */
		return ret;
	}
	if (old && old->state >= HIXL_LINK_ERROR) {
		hixl_link_cancel_release(old);
		hixl_link_destroy(old);
	}

	if (loop) {
		ret = hixl_loop_join(l, deadline);	/* in the kernel, no wire */
		goto done;
	}
	ret = hixl_connect_retry(l, (struct sockaddr *)&src, (struct sockaddr *)&dst, deadline);
	if (!ret)
		ret = hixl_auth_connect(l, deadline);	/* the secret exchange, if any */
	if (!ret)
		ret = hixl_link_publish(l);
	if (!ret)
		ret = hixl_connect_wait_ready(l, deadline);
	if (!ret)	/* within the deadline; one that fails is retried later */
		hixl_raillinks_connect(l, deadline);
done:
	ns = ktime_get_ns() - l->connect_ns;
	hixl_link_count_connect(l, ret, ns);
	trace_hixl_connect(eng->id, &l->raddr, ret, ns);
	if (ret) {
		/* torn down under us rather than failed: say so (a refused proof closes it) */
		if (hixl_link_state(l, &err) == HIXL_LINK_CLOSED && ret != -EACCES)
			ret = READ_ONCE(eng->rdma_gone) ? -ENODEV : -ECONNABORTED;
		if (hixl_link_unlist(l))
			hixl_link_destroy(l);
	}
	hixl_link_put(l);
	if (ret == -ERESTARTSYS)
		ret = hixl_connect_time_left(a, deadline);
	return ret;
}

/**
 * hixl_cmd_disconnect() - HIXL_IOC_DISCONNECT: tear down the link to a peer
 * @eng: the engine
 * @a:   in: the peer's name; timeout_ms is accepted for HIXL's signature
 *       (the teardown does not wait for the peer)
 *
 * A CONNECT to that peer still running in another thread ends with
 * -ECONNABORTED.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL, -EAFNOSUPPORT, -EPERM, -EBADFD, -ENODEV as for CONNECT;
 * -ENOTCONN when there is no link to that peer (HIXL NOT_CONNECTED).
 */
int hixl_cmd_disconnect(struct hixl_engine *eng, struct hixl_connect *a)
{
	struct sockaddr_storage dst;
	struct hixl_link *l;
	int ret;

	ret = hixl_connect_validate(eng, a, &dst);
	if (ret)
		return ret;
	l = hixl_link_get(eng, &a->remote);
	if (!l)
		return -ENOTCONN;
	if (hixl_link_unlist(l)) {
		hixl_link_cancel_release(l);
		hixl_link_destroy(l);
	}
	hixl_link_put(l);
	return 0;
}
