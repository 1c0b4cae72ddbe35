// SPDX-License-Identifier: GPL-2.0
/* connect.c - CONNECT and DISCONNECT; a refused CONNECT is retried until its timeout */
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

/* a broken link to the same peer is replaced: *@old, for the caller to tear down */
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
		if (wait_event_interruptible_timeout(l->wq,
						     READ_ONCE(l->state) >= HIXL_LINK_ERROR,
						     msecs_to_jiffies(HIXL_RETRY_MS)) < 0)
			return -ERESTARTSYS;
	}
}

/* a restart keeps the deadline (botching-up-ioctls.rst) */
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
 * @a:   in: the peer's name, timeout_ms
 *
 * The link is listed from the start, so others may tear it down meanwhile;
 * its cm_id and QP change only under cm_mutex while it is not CLOSED.
 * Context: process context, sleeps up to @a->timeout_ms; takes cm_mutex,
 * then the engine lock and post_mutex.
 * Return: 0, or -errno as docs/abi.md lists; -ERESTARTSYS leaves the time left in timeout_ms.
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
		/* torn down under us (a refused proof closes it too) */
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
 * @a:   in: the peer's name
 * Context: process context, may sleep.
 * Return: 0; -ENOTCONN no link; else as CONNECT's checks.
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
