// SPDX-License-Identifier: GPL-2.0
/* engine.c - engine usability, live RDMA devices, addresses, references, lock check */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "engine.h"

/**
 * hixl_sockaddr_to_kernel() - convert a uapi address to a sockaddr
 * @a:  the uapi address
 * @ss: out: a sockaddr_in or sockaddr_in6
 * Return: 0; -EINVAL malformed; -EAFNOSUPPORT another family.
 */
int hixl_sockaddr_to_kernel(const struct hixl_sockaddr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->reserved)	/* SETUP, CONNECT, TRANSFER, SEND_NOTIFY: the address */
		return hixl_einval("address: reserved is not zero");
	switch (a->family) {
	case AF_INET: {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (a->scope_id)
			return hixl_einval("address: an IPv4 address with scope_id %u",
					   a->scope_id);
		if (memchr_inv(a->addr + 4, 0, sizeof(a->addr) - 4))
			return hixl_einval("address: an IPv4 address with bytes past the fourth");
		sin->sin_family = AF_INET;
		sin->sin_port = htons(a->port);
		memcpy(&sin->sin_addr, a->addr, 4);
		return 0;
	}
	case AF_INET6: {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(a->port);
		sin6->sin6_scope_id = a->scope_id;
		memcpy(&sin6->sin6_addr, a->addr, sizeof(a->addr));
		return 0;
	}
	default:
		return -EAFNOSUPPORT;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hixl_sockaddr_to_kernel);

/**
 * hixl_loop_addr() - is an engine name on a loopback address?
 * @a: the name, unchecked
 * Return: true for 127.0.0.0/8 and ::1.
 */
bool hixl_loop_addr(const struct hixl_sockaddr *a)
{
	if (a->family == AF_INET)
		return a->addr[0] == 127;
	if (a->family == AF_INET6)
		return ipv6_addr_loopback((const struct in6_addr *)a->addr);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_loop_addr);

/**
 * hixl_engine_usable() - may the caller run a command that needs the device?
 * @eng: the engine
 * Return: 0; -EPERM not the owner; -ENODEV device removed; -EBADFD not set up.
 */
int hixl_engine_usable(struct hixl_engine *eng)
{
	if (!hixl_is_owner(eng))
		return -EPERM;
	if (!eng->rdma)
		return READ_ONCE(eng->rdma_gone) ? -ENODEV : -EBADFD;
	return 0;
}

/*
 * hixl_devs_lock protects hixl_devs: devices between our ib_client add and
 * remove; ib_device_try_get() still succeeds on one being unregistered.
 */
static DEFINE_MUTEX(hixl_devs_lock);
static DEFINE_XARRAY(hixl_devs);

/**
 * hixl_devs_live_lock() - hold the set of live RDMA devices
 * Context: process context, may sleep; a holder takes no other lock.
 */
void hixl_devs_live_lock(void)
{
	mutex_lock(&hixl_devs_lock);
}

/** hixl_devs_live_unlock() - release hixl_devs_live_lock() */
void hixl_devs_live_unlock(void)
{
	mutex_unlock(&hixl_devs_lock);
}

/**
 * hixl_dev_live() - has @ibdev been added and its removal not begun?
 * @ibdev: a device, compared only
 * Context: hixl_devs_live_lock() held.
 * Return: true if live.
 */
bool hixl_dev_live(struct ib_device *ibdev)
{
	lockdep_assert_held(&hixl_devs_lock);
	return xa_load(&hixl_devs, ibdev->index) == ibdev;
}

/**
 * hixl_dev_add() - ib_client.add: @ibdev is live from now on
 * @ibdev: the device being registered
 * Context: process context; takes hixl_devs_lock.
 * Return: 0, or -ENOMEM.
 */
int hixl_dev_add(struct ib_device *ibdev)
{
	int ret;

	mutex_lock(&hixl_devs_lock);
	ret = xa_err(xa_store(&hixl_devs, ibdev->index, ibdev, GFP_KERNEL));
	mutex_unlock(&hixl_devs_lock);
	return ret;
}

/**
 * hixl_dev_remove() - ib_client.remove's first step: @ibdev is not live
 * @ibdev: the device being unregistered
 * Context: process context; takes hixl_devs_lock.
 */
void hixl_dev_remove(struct ib_device *ibdev)
{
	mutex_lock(&hixl_devs_lock);
	xa_cmpxchg(&hixl_devs, ibdev->index, ibdev, NULL, GFP_KERNEL);
	mutex_unlock(&hixl_devs_lock);
}

/** hixl_devs_destroy() - free the set, empty once the ib_client is gone */
void hixl_devs_destroy(void)
{
	xa_destroy(&hixl_devs);
}

static void hixl_engine_free(struct kref *ref)
{
	struct hixl_engine *eng = container_of(ref, struct hixl_engine, ref);

	mutex_destroy(&eng->cancel_mutex);
	mutex_destroy(&eng->links_lock);
	mutex_destroy(&eng->lock);
	kfree(eng);
}

/**
 * hixl_engine_put() - drop a reference on an engine's struct
 * @eng: the engine; the last put frees the struct only
 * Context: any.
 */
void hixl_engine_put(struct hixl_engine *eng)
{
	kref_put(&eng->ref, hixl_engine_free);
}

/**
 * hixl_work_queue_shared() - the shared workqueue the current work runs on
 *
 * Read from lockdep's "(wq_completion)<name>" map held by process_one_work().
 * Context: any.
 * Return: the name if not an engine's own queue; NULL otherwise or without lockdep.
 */
const char *hixl_work_queue_shared(void)
{
#ifdef CONFIG_LOCKDEP
	static const char pfx[] = "(wq_completion)";
	int i;

	if (!current_work() || !debug_locks)
		return NULL;
	for (i = 0; i < current->lockdep_depth; i++) {
		const struct lockdep_map *m = current->held_locks[i].instance;
		const char *q;

		if (!m || !m->name || !str_has_prefix(m->name, pfx))
			continue;
		q = m->name + sizeof(pfx) - 1;
		if (!strcmp(q, HIXL_ENG_WQ_NAME) || !strcmp(q, HIXL_XWORK_WQ_NAME))
			return NULL;
		return q;
	}
#endif
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_work_queue_shared);

/**
 * hixl_engine_lock_check() - warn when a shared workqueue waits for an engine
 * @eng: the engine whose lock is about to be waited for; closing is allowed
 */
void hixl_engine_lock_check(const struct hixl_engine *eng)
{
	const char *q;

	if (READ_ONCE(eng->closing))
		return;
	q = hixl_work_queue_shared();
	WARN_ONCE(q, "an engine's lock waited for in a work item of the shared workqueue %s\n", q);
}
