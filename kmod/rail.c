// SPDX-License-Identifier: GPL-2.0
/* rail.c - SETUP's extra rails, one per further RDMA device (docs/abi.md, "Rails") */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "rail.h"

/**
 * hixl_rails_validate() - check SETUP's rail fields, before anything is read
 * @a: the request
 * Return: 0, or -EINVAL for both RAILS and RAILS_AUTO, a missing list, a
 * count out of range, rail fields without the flag or non-zero @reserved2.
 */
int hixl_rails_validate(const struct hixl_setup *a)
{
	if (a->reserved2)
		return hixl_einval("SETUP: reserved2 is not zero");
	if ((a->flags & HIXL_SETUP_RAILS) && (a->flags & HIXL_SETUP_RAILS_AUTO))
		return hixl_einval("SETUP: RAILS and RAILS_AUTO together");
	if (a->flags & HIXL_SETUP_RAILS) {
		if (!a->rails || !a->nr_rails || a->nr_rails > HIXL_MAX_RAILS - 1)
			return hixl_einval("SETUP: RAILS: rails %s, nr_rails %u (1..%u)",
					   a->rails ? "set" : "NULL", a->nr_rails,
					   HIXL_MAX_RAILS - 1);
	} else if (a->rails || a->nr_rails) {
		return hixl_einval("SETUP: rails or nr_rails set without RAILS");
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rails_validate);

static bool hixl_rail_same_addr(const struct hixl_sockaddr *x, const struct hixl_sockaddr *y)
{
	return x->family == y->family && x->scope_id == y->scope_id &&
	       !memcmp(x->addr, y->addr, sizeof(x->addr));
}

static bool hixl_rail_device_taken(const struct hixl_rdma *rd, const struct hixl_rail *rails,
				   u32 n, const char *dev)
{
	u32 i;

	if (!strcmp(dev, dev_name(&rd->ibdev->dev)))
		return true;
	for (i = 0; i < n; i++)
		if (!strcmp(dev, rails[i].device))
			return true;
	return false;
}

static int hixl_rails_from_list(struct hixl_rdma *rd, const struct hixl_setup *a,
				struct net *net, struct hixl_rail *rails)
{
	struct sockaddr_storage ss;
	u32 i, j;
	int ret;

	for (i = 0; i < a->nr_rails; i++) {
		if (copy_from_user(&rails[i].addr, u64_to_user_ptr(a->rails +
				   (u64)i * sizeof(rails[i].addr)), sizeof(rails[i].addr)))
			return -EFAULT;
	}
	for (i = 0; i < a->nr_rails; i++) {
		struct hixl_sockaddr *ad = &rails[i].addr;

		ret = hixl_sockaddr_to_kernel(ad, &ss);
		if (ret)
			return ret;
		if (ad->family != a->local.family)
			return hixl_einval("SETUP: rail %u: family %u, local's is %u", i + 1,
					   ad->family, a->local.family);
		if (ad->port)
			return hixl_einval("SETUP: rail %u: port %u (a rail has none: 0)", i + 1,
					   ad->port);
		if (hixl_loop_addr(ad))
			return hixl_einval("SETUP: rail %u: a loopback address", i + 1);
		if (hixl_rail_same_addr(ad, &a->local))
			return hixl_einval("SETUP: rail %u: local's own address", i + 1);
		for (j = 0; j < i; j++)
			if (hixl_rail_same_addr(ad, &rails[j].addr))
				return hixl_einval("SETUP: rail %u: the address of rail %u",
						   i + 1, j + 1);
		ret = hixl_rail_resolve(net, &ss, &rails[i]);
		if (ret)
			return ret;
		if (hixl_rail_device_taken(rd, rails, i, rails[i].device))
			return hixl_einval("SETUP: rail %u: device %s has a rail already",
					   i + 1, rails[i].device);
	}
	return a->nr_rails;	/* on failure the caller closes what was opened */
}

#define HIXL_RAIL_AUTO_CANDIDATES 64	/* IPv4 addresses looked at */

/* RAILS_AUTO: each other RDMA device's first IPv4 address on an up, non-loopback netdev */
static int hixl_rails_auto(struct hixl_rdma *rd, const struct hixl_setup *a,
			   struct net *net, struct hixl_rail *rails)
{
	__be32 *cand;
	struct net_device *dev;
	struct sockaddr_storage ss;
	u32 nc = 0, n = 0, i;
	int ret = 0;

	if (a->local.family != AF_INET)
		return -EOPNOTSUPP;	/* not yet: IPv6 addresses */
	cand = kcalloc(HIXL_RAIL_AUTO_CANDIDATES, sizeof(*cand), GFP_KERNEL);
	if (!cand)
		return -ENOMEM;
	rcu_read_lock();
	for_each_netdev_rcu(net, dev) {
		struct in_device *in_dev;
		const struct in_ifaddr *ifa;

		if ((dev->flags & IFF_LOOPBACK) || !(dev->flags & IFF_UP))
			continue;
		in_dev = __in_dev_get_rcu(dev);
		if (!in_dev)
			continue;
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (nc < HIXL_RAIL_AUTO_CANDIDATES)
				cand[nc++] = ifa->ifa_local;
		}
	}
	rcu_read_unlock();

	for (i = 0; i < nc && n < HIXL_MAX_RAILS - 1; i++) {
		struct hixl_rail *r = &rails[n];

		memset(r, 0, sizeof(*r));
		r->addr.family = AF_INET;
		memcpy(r->addr.addr, &cand[i], 4);
		if (hixl_rail_same_addr(&r->addr, &a->local) || hixl_loop_addr(&r->addr))
			continue;
		ret = hixl_sockaddr_to_kernel(&r->addr, &ss);
		if (ret)
			break;
		ret = hixl_rail_resolve(net, &ss, r);
		if (ret == -ENODEV || ret == -EADDRNOTAVAIL || ret == -EOPNOTSUPP) {
			ret = 0;	/* no (usable) RDMA device there */
			continue;
		}
		if (ret)
			break;
		if (!hixl_rail_device_taken(rd, rails, n, r->device))
			n++;
		else
			hixl_rail_close(r);
	}
	kfree(cand);
	return ret ? ret : n;
}

/**
 * hixl_rails_setup() - SETUP's extra rails: check, resolve and keep them
 * @rd:  the engine's device side being built, rail 0 bound, unpublished
 * @a:   the validated request; out: @a->nr_rails, rail 0 included
 * @net: the caller's network namespace (referenced for hixl_rail_revive())
 * Context: process context, may sleep; @rd->eng->lock held.
 * Return: 0, or -errno as docs/abi.md, "Rails", lists; then nothing is left in @rd.
 */
int hixl_rails_setup(struct hixl_rdma *rd, struct hixl_setup *a, struct net *net)
{
	struct hixl_rail *rails;
	int n;

	rd->rails = NULL;
	rd->nr_rails = 0;
	if (!(a->flags & (HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO))) {
		a->nr_rails = 1;
		return 0;
	}
	rails = kcalloc(HIXL_MAX_RAILS - 1, sizeof(*rails), GFP_KERNEL);
	if (!rails)
		return -ENOMEM;
	if (a->flags & HIXL_SETUP_RAILS)
		n = hixl_rails_from_list(rd, a, net, rails);
	else
		n = hixl_rails_auto(rd, a, net, rails);
	if (n <= 0) {
		u32 i;

		for (i = 0; i < HIXL_MAX_RAILS - 1; i++)
			hixl_rail_close(&rails[i]);
		kfree(rails);
		if (n < 0)
			return n;
		rails = NULL;
	}
	rd->rails = rails;
	rd->nr_rails = n;
	if (n)
		rd->rails_net = get_net(net);
	a->nr_rails = 1 + n;
	return 0;
}

/**
 * hixl_rails_free() - free what hixl_rails_setup() kept
 * @rd: the engine's device side, unpublished or being freed
 */
void hixl_rails_free(struct hixl_rdma *rd)
{
	u32 i;

	for (i = 0; i < rd->nr_rails; i++)
		hixl_rail_close(&rd->rails[i]);
	kfree(rd->rails);
	if (rd->rails_net)
		put_net(rd->rails_net);
	rd->rails_net = NULL;
	rd->rails = NULL;
	rd->nr_rails = 0;
}

/**
 * hixl_rails_count() - rails of a set-up engine
 * @rd: its device side
 * Return: 1 + its extra rails; 0 for a loopback engine (no device).
 */
u32 hixl_rails_count(const struct hixl_rdma *rd)
{
	return rd->loopback ? 0 : 1 + rd->nr_rails;
}

