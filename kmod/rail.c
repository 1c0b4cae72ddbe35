// SPDX-License-Identifier: GPL-2.0
/*
 * rail.c - an engine on several rails: SETUP's extra local
 * addresses, one per further RDMA device (checked, resolved, kept and
 * freed) and the NUMA choice of a region's rails (debugfs "rails" is
 * debugfs.c's).  A rail's
 * device side (opening it and its PD, hixl_rail_dev(), its removal and
 * revival) is rail_dev.c's; the striping planner is rail_plan.c's.
 *
 * Design (of the rails as a whole):
 *
 *  - Rail 0 is SETUP's @local, its device, PD and listener (setup.c); it
 *    names the engine.  Rails 1.. come from hixl_setup.rails (a list of
 *    local addresses, port 0) or HIXL_SETUP_RAILS_AUTO (every other RDMA
 *    device with an IPv4 address in the caller's network namespace).  Each
 *    is resolved by RDMA CM in that namespace exactly as @local is
 *    (rdma_bind_addr() on a transient id), so rxe, siw and hardware devices
 *    are found alike, and checked as SETUP checks its device: no loopback
 *    address, the family of @local, no address twice, one rail per device,
 *    fast-registration MRs, at most HIXL_MAX_RAILS in all.  SETUP keeps
 *    their addresses and device names (struct hixl_rail) and reports the
 *    count (hixl_setup.nr_rails, hixl_engine_stat.nr_rails, hixlctl).
 *
 *  - Each rail has its own device objects (struct hixl_rail: @ibdev, @pd,
 *    the device's MR limits and NUMA node): SETUP allocates the rail's PD
 *    while resolving it, and every region has a set of MRs per rail (struct
 *    hixl_mrset, mr.c) made at REG_MEM (and at SETUP for earlier regions)
 *    and freed at DEREG_MEM, invalidation and close like rail 0's.  MRs of
 *    rails 1.. are activated (IB_WR_REG_MR) on that rail's link's QP.
 *    hixl_rail_dev() is the one accessor of rail i's device side.
 *
 *  - A rail's device removed (hixl_ib_remove(), setup.c, calls
 *    hixl_engine_rail_detach()): the rail is marked removing, its links
 *    (l->rail == i) are destroyed, then, with the engine's rdma_sem held
 *    for writing, every region's MRs on the rail and its PD go and
 *    @ibdev/@pd become NULL: the engine goes on on its other rails (rail
 *    0's removal detaches the whole engine, as before).  REG_MEM meanwhile
 *    makes MRs on the rails that exist.  hixl_rail_revive() brings a rail
 *    back when its address resolves again (in the SETUP caller's network
 *    namespace): PD, every valid region's MRs, then published
 *    (rail_revive.c).
 *
 *  - Rail links (one RDMA CM connection per rail pair, bound to the
 *    primary link by a token) are raillink.c's (raillink_hello.c their
 *    HELLO blocks, raillink_accept.c the acceptor's side and listeners).
 *
 *  - The data path (xrail.c) splits a batch with hixl_rail_plan()
 *    (rail_plan.c): a descriptor of at least HIXL_RAIL_STRIPE_MIN bytes is
 *    striped in HIXL_RAIL_CHUNK chunks (chunk borders at multiples of the
 *    chunk from the descriptor's start), smaller ones go whole, each piece
 *    to the least-loaded rail (ties round-robin), so that bytes spread
 *    evenly.  Each piece names its descriptor, offset and length: re-posting a failed rail's
 *    unfinished pieces on another rail (failover) is re-planning
 *    those pieces with that rail removed, and a batch's error remains its
 *    lowest failing descriptor.  With one rail the planner is not called:
 *    the one-rail path stays as it is.
 *
 *  - NUMA: a region's rails (hixl_region_rails()) are
 *    chosen once, at registration (and again when a rail's device goes or
 *    comes back): when the node of the region's first page is known (host
 *    memory; device memory: not known) and at least one rail's device sits
 *    on that node, only those rails - plus the rails whose device's node is
 *    not known (NUMA_NO_NODE: not known to be remote) - carry its
 *    descriptors; otherwise every rail does (hixl_rail_numa_mask()).  Rail 0
 *    always stays in the mask: it is the primary link, which carries what
 *    is not striped.  The module parameter rail_numa (1, the default: on;
 *    0: every rail for every region) is read at those moments, so a change
 *    applies to regions registered afterwards.  The MRs themselves exist on
 *    every rail regardless (a peer may need any rail's keys after a
 *    failover).
 */
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
 *
 * Return: 0, or -EINVAL for HIXL_SETUP_RAILS with HIXL_SETUP_RAILS_AUTO, for
 * HIXL_SETUP_RAILS without a list or with @nr_rails outside
 * 1..HIXL_MAX_RAILS - 1, for @rails or @nr_rails set without the flag, or
 * for a non-zero @reserved2.
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

/* is @dev rail 0's device or one of the first @n extra rails'? */
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

/* HIXL_SETUP_RAILS: check and resolve the caller's list into @rails */
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

/*
 * HIXL_SETUP_RAILS_AUTO: every RDMA device other than rail 0's with an IPv4
 * address on an up, non-loopback interface of @net, the first address found
 * per device, in the namespace's interface order, at most
 * HIXL_MAX_RAILS - 1.  Addresses that no RDMA device owns are passed over.
 */
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
 * @rd:  the engine's device side being built, its rail 0 bound (@rd->ibdev
 *       set); not yet published
 * @a:   the request, checked by hixl_rails_validate(); out: @a->nr_rails,
 *       the rails in all, rail 0 included
 * @net: the caller's network namespace, where the addresses are resolved
 *
 * Without HIXL_SETUP_RAILS or HIXL_SETUP_RAILS_AUTO the engine has one rail
 * and nothing is allocated.  Follows SETUP's own device lookup
 * (hixl_cmd_setup(): rdma_bind_addr() on an id in @net); each rail's PD is
 * allocated while its transient id still holds the device, and the ids are
 * destroyed before this returns: the engine holds the rail's PD (and later
 * its regions' MRs) on the device, which hixl_ib_remove() gives up when the
 * device goes.  A reference on @net, for hixl_rail_revive(), is kept
 * while there are extra rails (@rd->rails_net).  On failure nothing is left in @rd.
 *
 * Context: process context, may sleep; @rd->eng->lock held (SETUP).
 * Return: 0, or
 *  -EFAULT        the list is not readable;
 *  -EINVAL        a rail address with a non-zero reserved field, a port, a
 *                 family other than @local's, a loopback address, @local's
 *                 address, an address given twice, or on a device that has
 *                 a rail already (rail 0's included);
 *  -EAFNOSUPPORT  a rail address neither AF_INET nor AF_INET6;
 *  -EADDRNOTAVAIL a rail address is not local;
 *  -ENODEV        a rail address is local but no RDMA device owns it;
 *  -EOPNOTSUPP    a rail's device has no fast-registration MRs, or
 *                 RAILS_AUTO with an IPv6 @local (not yet);
 *  -ENOMEM, or RDMA CM's or ib_alloc_pd()'s -errno.
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
 * hixl_rails_free() - free what hixl_rails_setup() kept: each rail's PD (the
 * regions' MRs on it are gone already), the list, the namespace reference
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
 *
 * Return: 1 + its extra rails; 0 for a loopback engine (no device).
 */
u32 hixl_rails_count(const struct hixl_rdma *rd)
{
	return rd->loopback ? 0 : 1 + rd->nr_rails;
}

