// SPDX-License-Identifier: GPL-2.0
/*
 * rail.c - an engine on several rails (issue 13): SETUP's extra local
 * addresses, one per further RDMA device, and the planner that splits a
 * batch's descriptors across the rails.
 *
 * Design (what is here, and what comes next):
 *
 *  - Rail 0 is SETUP's @local, its device, PD and listener (engine.c); it
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
 *  - A rail's device removed (hixl_ib_remove(), engine.c, calls
 *    hixl_engine_rail_detach()): the rail is marked removing, its links
 *    (l->rail == i) are destroyed, then, with the engine's rdma_sem held
 *    for writing, every region's MRs on the rail and its PD go and
 *    @ibdev/@pd become NULL: the engine goes on on its other rails (rail
 *    0's removal detaches the whole engine, as before).  REG_MEM meanwhile
 *    makes MRs on the rails that exist.  hixl_rail_revive() brings a rail
 *    back when its address resolves again (in the SETUP caller's network
 *    namespace): PD, every valid region's MRs, then published.
 *
 *  - Rail links (one RDMA CM connection per rail pair, bound to the
 *    primary link by a token) are raillink.c's; until they exist every
 *    link and transfer uses rail 0 only, byte for byte the one-rail path.
 *
 *  - The data path will split a batch with hixl_rail_plan(): a descriptor
 *    of at least HIXL_RAIL_STRIPE_MIN bytes is striped in HIXL_RAIL_CHUNK
 *    chunks (chunk borders at multiples of the chunk from the descriptor's
 *    start), smaller ones go whole, each piece to the least-loaded rail (ties
 *    round-robin), so that bytes spread evenly.  Each piece names
 *    its descriptor, offset and length: re-posting a failed rail's
 *    unfinished pieces on another rail (failover, item 4) is re-planning
 *    those pieces with that rail removed, and a batch's error remains its
 *    lowest failing descriptor.  With one rail the planner is not called:
 *    the one-rail path stays as it is.
 *
 *  - NUMA (issue 13 item 5): a region's rails (hixl_region_rails()) are
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
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "hixl_priv.h"
#include "rail.h"

int hixl_rail_numa = 1;
module_param_named(rail_numa, hixl_rail_numa, int, 0644);
MODULE_PARM_DESC(rail_numa,
		 "1 (default): a host region's descriptors go on the rails whose device is on the region's NUMA node (when there is one); 0: on every rail");

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

static int hixl_rail_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;	/* a transient bound id: destroyed by its maker */
}

/* give up a rail's device objects (its PD); its MRs are gone already */
static void hixl_rail_close(struct hixl_rail *rail)
{
	if (rail->pd)
		ib_dealloc_pd(rail->pd);
	rail->pd = NULL;
	rail->ibdev = NULL;
	rail->page_size_cap = 0;
	rail->max_mr_pages = 0;
	rail->numa_node = NUMA_NO_NODE;
	rail->removing = false;
}

/*
 * The RDMA device that owns @ss in @net, as SETUP finds its own
 * (rdma_bind_addr()): 0 with its name in @rail->device, and the device
 * opened: @rail->ibdev, its limits and node, and a PD allocated while the
 * transient id still holds the device (hixl_rail_close() gives it up);
 * -EADDRNOTAVAIL not a local address, -ENODEV no RDMA device owns it,
 * -EOPNOTSUPP the device has no fast-registration MRs, -ENOMEM, or
 * ib_alloc_pd()'s -errno.  On failure @rail holds no device.
 */
static int hixl_rail_resolve(struct net *net, struct sockaddr_storage *ss,
			     struct hixl_rail *rail)
{
	struct ib_pd *pd;
	struct rdma_cm_id *id;
	struct ib_device *dev;
	int ret;

	id = rdma_create_id(net, hixl_rail_cm_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)ss);
	dev = id->device;
	if (!ret && !dev)
		ret = -ENODEV;
	if (!ret && (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
		     !dev->attrs.max_fast_reg_page_list_len))
		ret = -EOPNOTSUPP;
	/* (hR2) not on a device being unregistered: see hixl_rail_revive() */
	if (!ret && !ib_device_try_get(dev))
		ret = -ENODEV;
	if (!ret) {
		pd = ib_alloc_pd(dev, 0);
		ib_device_put(dev);
		if (IS_ERR(pd))
			ret = PTR_ERR(pd);
	}
	if (!ret) {
		strscpy(rail->device, dev_name(&dev->dev), sizeof(rail->device));
		rail->ibdev = dev;
		rail->pd = pd;
		rail->page_size_cap = dev->attrs.page_size_cap;
		rail->max_mr_pages = dev->attrs.max_fast_reg_page_list_len;
		rail->numa_node = dev_to_node(&dev->dev);
		rail->removing = false;
	}
	rdma_destroy_id(id);
	return ret;
}

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
 * (hixl_cmd_setup(): rdma_bind_addr() on an id in @net); the transient ids
 * are destroyed before this returns, so no object is held on a rail's
 * device.  On failure nothing is left in @rd.
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
 *  -ENOMEM, or RDMA CM's -errno.
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

/**
 * hixl_rail_dev() - the device side of one rail of an engine
 * @rd:  the engine's device side (NULL or a loopback one: no rail)
 * @i:   the rail: 0 is SETUP's own device (@rd->ibdev, @rd->pd), 1..
 *       @rd->nr_rails the extra rails (@rd->rails[i - 1])
 * @out: out: the rail's device, PD and MR limits; zeroed when it has none
 *
 * Context: any; the caller holds the engine's rdma_sem (for reading) or
 * its lock, so @rd stays; a rail revived meanwhile (hixl_rail_revive()) is
 * seen whole or not at all.
 * Return: true when rail @i exists and its device is there (not removed,
 * not being removed); false otherwise.
 */
bool hixl_rail_dev(const struct hixl_rdma *rd, u32 i, struct hixl_rail_dev *out)
{
	const struct hixl_rail *rail;
	struct ib_pd *pd;

	memset(out, 0, sizeof(*out));
	if (!rd || rd->loopback)
		return false;
	if (!i) {
		if (!rd->ibdev || !rd->pd)
			return false;
		*out = (struct hixl_rail_dev){ .ibdev = rd->ibdev, .pd = rd->pd,
					       .page_size_cap = rd->page_size_cap,
					       .max_mr_pages = rd->max_mr_pages };
		return true;
	}
	if (i > rd->nr_rails)
		return false;
	rail = &rd->rails[i - 1];
	pd = smp_load_acquire(&rail->pd);	/* pairs with hixl_rail_revive() */
	if (!pd || READ_ONCE(rail->removing))
		return false;
	*out = (struct hixl_rail_dev){ .ibdev = rail->ibdev, .pd = pd,
				       .page_size_cap = rail->page_size_cap,
				       .max_mr_pages = rail->max_mr_pages };
	return true;
}

/**
 * hixl_rail_numa_mask() - the rails a region on a NUMA node should use
 * @dev_node: each rail's device node: a node id, NUMA_NO_NODE (not known)
 *            or HIXL_RAIL_NODE_GONE (no device: never chosen)
 * @nr_rails: entries of @dev_node, at most HIXL_MAX_RAILS (more are
 *            ignored)
 * @mem_node: the region's node, NUMA_NO_NODE when not known (device memory)
 * @enabled:  the rail_numa module parameter
 *
 * A pure function (KUnit: tests/rail_kunit.c).  With @enabled, a known
 * @mem_node and at least one rail's device on @mem_node: those rails plus
 * the rails whose node is not known (they are not known to be remote).
 * Otherwise every rail that has a device.
 *
 * Return: bit i set for rail i chosen; 0 only when no rail has a device.
 */
u32 hixl_rail_numa_mask(const int *dev_node, u32 nr_rails, int mem_node, bool enabled)
{
	u32 all = 0, local = 0, unknown = 0, i;

	for (i = 0; i < min_t(u32, nr_rails, HIXL_MAX_RAILS); i++) {
		if (dev_node[i] == HIXL_RAIL_NODE_GONE)
			continue;
		all |= BIT(i);
		if (dev_node[i] == NUMA_NO_NODE)
			unknown |= BIT(i);
		else if (mem_node != NUMA_NO_NODE && dev_node[i] == mem_node)
			local |= BIT(i);
	}
	if (!enabled || mem_node == NUMA_NO_NODE || !local)
		return all;
	return local | unknown;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_numa_mask);

/**
 * hixl_region_rails_update() - recompute a region's rails (struct
 * hixl_region.rails)
 * @r:  the region; its engine's lock held
 * @rd: the device side its MRs were made on (published or being set up)
 *
 * The rails whose device exists and where @r has MRs, narrowed by
 * hixl_rail_numa_mask() with rail_numa as it is now; rail 0 always.
 *
 * Context: any; the engine's lock held.
 */
void hixl_region_rails_update(struct hixl_region *r, const struct hixl_rdma *rd)
{
	int node[HIXL_MAX_RAILS];
	struct hixl_rail_dev dev;
	u32 i, n, have = 0;

	lockdep_assert_held(&r->eng->lock);
	n = rd && !rd->loopback ? 1 + rd->nr_rails : 1;
	for (i = 0; i < n; i++) {
		node[i] = HIXL_RAIL_NODE_GONE;
		if (!hixl_region_mrset(r, i)->nr_mrs || !hixl_rail_dev(rd, i, &dev))
			continue;
		have |= BIT(i);
		node[i] = i ? rd->rails[i - 1].numa_node : dev_to_node(&rd->ibdev->dev);
	}
	WRITE_ONCE(r->rails, (hixl_rail_numa_mask(node, n, r->numa_node,
						  READ_ONCE(hixl_rail_numa)) & have) | 1);
}

/**
 * hixl_engine_rails_update() - recompute every region's rails after a rail's
 * device went or came back
 * @eng: the engine; its lock held
 *
 * Context: any; the engine's lock held.
 */
void hixl_engine_rails_update(struct hixl_engine *eng)
{
	struct hixl_region *r;
	unsigned long idx;

	lockdep_assert_held(&eng->lock);
	xa_for_each(&eng->regions, idx, r)
		hixl_region_rails_update(r, eng->rdma);
}

/**
 * hixl_rail_revive() - bring back rail @i of an engine whose device is gone
 * @eng: the engine
 * @i:   the rail, 1..its extra rails (0: rail 0 is never revived: its
 *       device's removal detached the whole engine)
 *
 * When rail @i's device is gone (removed, hixl_engine_rail_detach()), its
 * address is resolved again in the SETUP caller's network namespace, as
 * SETUP did (rdma_bind_addr()); when a device owns it (the same one added
 * again, or another, that no other rail of the engine has), the rail's PD
 * and every valid region's MRs on it are made under the engine's lock, and
 * the rail is published (hixl_rail_dev() sees it, the regions' rails are
 * recomputed).  Rail links then activate those MRs (IB_WR_REG_MR) as rail
 * 0's links do.  Follows SETUP's own device lookup (hixl_cmd_setup()).
 *
 * Context: process context, may sleep; no hixl lock held except the
 * engine's rdma_sem for reading (raillink.c's rail work).
 * Return: 0 when rail @i is usable (it was, or is now); -EINVAL for a rail
 * the engine does not have or a loopback or unset engine; -ENODEV while
 * rail 0's device is gone, while rail @i's device is still being removed,
 * when no RDMA device owns the address, or it is rail 0's or another
 * rail's device; -EADDRNOTAVAIL when the address is not local (yet);
 * -EOPNOTSUPP, -ENOMEM, or the device's -errno from ib_alloc_pd() or MR
 * creation (everything made here undone).
 */
int hixl_rail_revive(struct hixl_engine *eng, u32 i)
{
	struct hixl_rdma *rd = READ_ONCE(eng->rdma);
	struct sockaddr_storage ss;
	struct hixl_rail_dev dev;
	struct hixl_rail *rail, tmp;
	struct hixl_region *r;
	unsigned long idx;
	u32 j;
	int ret;

	if (!rd || rd->loopback)
		return -EINVAL;
	if (!i)
		return hixl_rail_dev(rd, 0, &dev) ? 0 : -ENODEV;
	if (i > rd->nr_rails)
		return -EINVAL;
	rail = &rd->rails[i - 1];
	if (hixl_rail_dev(rd, i, &dev))
		return 0;
	if (READ_ONCE(rail->removing))
		return -ENODEV;
	ret = hixl_sockaddr_to_kernel(&rail->addr, &ss);
	if (ret)
		return ret;
	memset(&tmp, 0, sizeof(tmp));
	tmp.addr = rail->addr;
	ret = hixl_rail_resolve(rd->rails_net, &ss, &tmp);
	if (ret)
		return ret;
	/*
	 * (hR2) A device being unregistered still resolves until RDMA CM's
	 * own removal, after ours (hixl_ib_remove() detached the rail): its
	 * refcount is zero by then (disable_device()).  Without this, the rail
	 * work revived the rail on the dying rxe1 (rxe_pool_cleanup WARNING,
	 * then a use after free in restrack, raillink_device_readd).  The
	 * reference, held until the rail is published, makes an unregistration
	 * that begins meanwhile wait, then detach the rail again.
	 */
	if (!ib_device_try_get(tmp.ibdev)) {
		hixl_rail_close(&tmp);
		return -ENODEV;
	}

	mutex_lock(&eng->lock);
	if (rail->pd || rail->removing) {	/* revived by another caller, or going */
		ret = rail->pd && !rail->removing ? 0 : -ENODEV;
		goto out_close;
	}
	ret = -ENODEV;
	if (!strcmp(tmp.device, dev_name(&rd->ibdev->dev)))
		goto out_close;
	for (j = 0; j < rd->nr_rails; j++)
		if (j != i - 1 && rd->rails[j].ibdev == tmp.ibdev)
			goto out_close;
	/*
	 * The MRs first, on the device not yet published (hixl_rail_dev()
	 * reads @pd first): nobody sees the rail before they all exist.
	 */
	strscpy(rail->device, tmp.device, sizeof(rail->device));
	rail->ibdev = tmp.ibdev;
	rail->page_size_cap = tmp.page_size_cap;
	rail->max_mr_pages = tmp.max_mr_pages;
	rail->numa_node = tmp.numa_node;
	dev = (struct hixl_rail_dev){ .ibdev = tmp.ibdev, .pd = tmp.pd,
				      .page_size_cap = tmp.page_size_cap,
				      .max_mr_pages = tmp.max_mr_pages };
	ret = 0;
	xa_for_each(&eng->regions, idx, r) {
		if (READ_ONCE(r->invalid))
			continue;
		ret = hixl_region_make_mrs_dev(r, i, &dev);
		if (ret == -EOPNOTSUPP)
			ret = 0;	/* no MRs for this one on this device */
		if (ret)
			break;
	}
	if (ret) {
		xa_for_each(&eng->regions, idx, r)
			hixl_region_free_mrs_rail(r, rd, i);
		rail->ibdev = NULL;
		goto out_close;		/* tmp's PD goes there */
	}
	smp_store_release(&rail->pd, tmp.pd);	/* hixl_rail_dev() sees it whole */
	WRITE_ONCE(eng->rail_ibdev[i], rail->ibdev);
	hixl_engine_rails_update(eng);
	mutex_unlock(&eng->lock);
	ib_device_put(tmp.ibdev);
	pr_info("engine %llu: rail %u back on %s\n", eng->id, i, rail->device);
	return 0;

out_close:
	mutex_unlock(&eng->lock);
	ib_device_put(tmp.ibdev);
	hixl_rail_close(&tmp);
	return ret;
}

/**
 * hixl_engine_rail_detach() - rail @ibdev of @eng is being unregistered
 * @eng:   an engine that has @ibdev as one of its extra rails (a reference
 *         held by the caller, hixl_ib_remove())
 * @ibdev: the device
 *
 * As hixl_engine_detach() does for rail 0, for one extra rail: first,
 * holding rdma_sem for reading, the rail is marked removing (under
 * links_lock: no new link on it, hixl_rail_dev() says it is gone) and its
 * links are destroyed (hixl_engine_links_destroy_rail(); their batches
 * end, their QPs flush); then, holding rdma_sem for writing (commands that
 * may use the rail's MRs have ended), every region's MRs on the rail and
 * its PD are freed and the rail's @ibdev/@pd are cleared.  The engine keeps
 * working on its other rails; hixl_rail_revive() may bring the rail back.
 *
 * Context: process context, may sleep; the caller holds no lock.
 */
void hixl_engine_rail_detach(struct hixl_engine *eng, struct ib_device *ibdev)
{
	struct hixl_region *r;
	struct hixl_rdma *rd;
	unsigned long idx;
	u32 i = 0, j;

	down_read(&eng->rdma_sem);
	rd = eng->rdma;
	mutex_lock(&eng->lock);
	for (j = 0; rd && !rd->loopback && j < rd->nr_rails; j++) {
		if (rd->rails[j].ibdev == ibdev && rd->rails[j].pd) {
			i = j + 1;
			break;
		}
	}
	if (i) {
		mutex_lock(&eng->links_lock);
		WRITE_ONCE(rd->rails[i - 1].removing, true);
		mutex_unlock(&eng->links_lock);
	}
	mutex_unlock(&eng->lock);
	if (!i) {			/* closed, or not (any more) on @ibdev */
		up_read(&eng->rdma_sem);
		return;
	}
	pr_warn("engine %llu: rail %u's RDMA device %s removed; its links and MRs go\n",
		eng->id, i, dev_name(&ibdev->dev));
	hixl_engine_links_destroy_rail(eng, i);
	up_read(&eng->rdma_sem);

	down_write(&eng->rdma_sem);	/* commands that still run finish */
	mutex_lock(&eng->lock);
	rd = eng->rdma;
	if (rd && rd->nr_rails >= i && rd->rails[i - 1].ibdev == ibdev) {
		xa_for_each(&eng->regions, idx, r)
			hixl_region_free_mrs_rail(r, rd, i);
		hixl_rail_close(&rd->rails[i - 1]);
		WRITE_ONCE(eng->rail_ibdev[i], NULL);
		hixl_engine_rails_update(eng);
	}
	mutex_unlock(&eng->lock);
	up_write(&eng->rdma_sem);
}

/**
 * hixl_rails_show() - debugfs "rails": one line per rail of each set-up
 * device engine, rail 0 first: "engine rail address device node mrs
 * state", where node is the device's NUMA node (-1: not known), mrs the
 * region MRs on the rail (struct hixl_engine.st_rail_mrs) and state "up",
 * or "gone" while the rail's device is removed (device: the name it had)
 * @m: the seq_file
 *
 * An engine whose device side is being changed (SETUP, close, device
 * removal: its rdma_sem held for writing) is shown "busy", as ENGINES
 * does, rather than waited for under hixl_engines_lock.
 *
 * Context: process context; takes hixl_engines_lock, then each engine's
 * rdma_sem with down_read_trylock() only.
 * Return: 0.
 */
int hixl_rails_show(struct seq_file *m)
{
	struct hixl_engine *eng;
	struct hixl_rail_dev dev;
	struct hixl_rdma *rd;
	u32 i;

	seq_puts(m, "engine rail address device node mrs state\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		if (!down_read_trylock(&eng->rdma_sem)) {
			seq_printf(m, "%llu - busy -\n", eng->id);
			continue;
		}
		rd = eng->rdma;
		if (rd && !rd->loopback && rd->ibdev) {
			for (i = 0; i <= rd->nr_rails; i++) {
				const struct hixl_sockaddr *a = i ? &rd->rails[i - 1].addr :
								    &rd->local;
				bool up = hixl_rail_dev(rd, i, &dev);

				seq_printf(m, "%llu %u ", eng->id, i);
				if (a->family == AF_INET)
					seq_printf(m, "%pI4", a->addr);
				else
					seq_printf(m, "%pI6c", a->addr);
				seq_printf(m, " %s %d %lld %s\n", i ? rd->rails[i - 1].device :
					   dev_name(&rd->ibdev->dev),
					   up ? dev_to_node(&dev.ibdev->dev) : NUMA_NO_NODE,
					   atomic64_read(&eng->st_rail_mrs[i]), up ? "up" : "gone");
			}
		}
		up_read(&eng->rdma_sem);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}

/**
 * hixl_rail_plan() - split a batch's descriptors into pieces, one per rail
 * @lens:       the descriptors' lengths, bytes, each > 0
 * @n:          descriptors
 * @nr_rails:   1..HIXL_MAX_RAILS
 * @stripe_min: bytes: a descriptor this long or longer is striped (with
 *              two rails or more)
 * @chunk:      bytes of one stripe chunk, > 0; a descriptor's chunks start
 *              at multiples of @chunk from its start, the last may be short
 * @rr:         in: the rail of the next piece, < @nr_rails; out: the rail
 *              after the last piece (the link keeps it from batch to batch)
 * @out:        out: the pieces, in descriptor order, each descriptor's in
 *              offset order
 * @max:        entries @out holds
 *
 * A pure function (no lock, no allocation), modelled on how Mooncake's
 * transfer engine slices a request across devices: a short descriptor is
 * one piece, a long one a run of chunks; each piece goes to the rail with
 * the fewest bytes of this batch so far, ties broken round-robin from the
 * cursor (so equal pieces alternate, and batches of one small descriptor
 * each still spread).  Within a batch the rails' bytes then differ by at
 * most the largest piece: @chunk, or a descriptor below @stripe_min.  The
 * pieces of a descriptor cover it exactly once.  KUnit: tests/rail_kunit.c.
 *
 * Return: pieces written; -EINVAL for @nr_rails 0 or above HIXL_MAX_RAILS,
 * @chunk 0, @rr not below @nr_rails or a zero length; -ENOSPC when @max is
 * too small (@out then holds the first @max pieces, @rr is unchanged).
 */
long hixl_rail_plan(const u64 *lens, u32 n, u32 nr_rails, u64 stripe_min, u64 chunk,
		    u32 *rr, struct hixl_rail_piece *out, u32 max)
{
	u64 loads[HIXL_MAX_RAILS] = { 0 };
	u32 rail, best, i, j, k = 0;
	u64 off, len;

	if (!nr_rails || nr_rails > HIXL_MAX_RAILS || !chunk || *rr >= nr_rails)
		return -EINVAL;
	rail = *rr;
	for (i = 0; i < n; i++) {
		if (!lens[i])
			return -EINVAL;
		off = 0;
		do {
			len = lens[i] - off;
			if (nr_rails > 1 && lens[i] >= stripe_min && len > chunk)
				len = chunk;
			if (k == max)
				return -ENOSPC;
			best = rail;	/* the least-loaded rail, from the cursor on */
			for (j = 1; j < nr_rails; j++) {
				u32 r = (rail + j) % nr_rails;

				if (loads[r] < loads[best])
					best = r;
			}
			out[k++] = (struct hixl_rail_piece){ .desc = i, .rail = best,
							     .off = off, .len = len };
			loads[best] += len;
			rail = best + 1 == nr_rails ? 0 : best + 1;
			off += len;
		} while (off < lens[i]);
	}
	*rr = rail;
	return k;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_plan);
