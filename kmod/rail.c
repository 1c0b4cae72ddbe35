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
 *  - Not yet: the rails carry no traffic.  A PD and the regions' MRs per
 *    rail, one RDMA CM connection per rail pair (rail i to the peer's rail
 *    i; a peer with fewer rails pairs only those; the extra connections
 *    made by the kernel after the first link's HELLO lists the peer's rails,
 *    bound to the link by a per-link token as local.c's pairing token, so
 *    they are no way around auth.c), the table carrying one rkey per rail
 *    with a wire version bump, and the data path below.  Until then every
 *    link and transfer uses rail 0 only, byte for byte the one-rail path,
 *    and a rail's device going away changes nothing (SETUP holds no object
 *    on it).
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
 *  - NUMA (issue 13 item 5): the rail choice per descriptor would weigh the
 *    local buffer's node against each device's node here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "hixl_priv.h"
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

static int hixl_rail_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;	/* a transient bound id: destroyed by its maker */
}

/*
 * The RDMA device that owns @ss in @net, as SETUP finds its own
 * (rdma_bind_addr()): 0 with its name in @rail->device; -EADDRNOTAVAIL not a
 * local address, -ENODEV no RDMA device owns it, -EOPNOTSUPP the device has
 * no fast-registration MRs, or -ENOMEM.
 */
static int hixl_rail_resolve(struct net *net, struct sockaddr_storage *ss,
			     struct hixl_rail *rail)
{
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
	if (!ret)
		strscpy(rail->device, dev_name(&dev->dev), sizeof(rail->device));
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
	return a->nr_rails;
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
		kfree(rails);
		if (n < 0)
			return n;
		rails = NULL;
	}
	rd->rails = rails;
	rd->nr_rails = n;
	a->nr_rails = 1 + n;
	return 0;
}

/**
 * hixl_rails_free() - free what hixl_rails_setup() kept
 * @rd: the engine's device side, unpublished or being freed
 */
void hixl_rails_free(struct hixl_rdma *rd)
{
	kfree(rd->rails);
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
 * hixl_rails_show() - debugfs "rails": one line per rail of each set-up
 * device engine: "engine rail address device", rail 0 first
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
	struct hixl_rdma *rd;
	u32 i;

	seq_puts(m, "engine rail address device\n");
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

				seq_printf(m, "%llu %u ", eng->id, i);
				if (a->family == AF_INET)
					seq_printf(m, "%pI4", a->addr);
				else
					seq_printf(m, "%pI6c", a->addr);
				seq_printf(m, " %s\n", i ? rd->rails[i - 1].device :
					   dev_name(&rd->ibdev->dev));
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
