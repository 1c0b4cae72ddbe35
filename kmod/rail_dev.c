// SPDX-License-Identifier: GPL-2.0
/*
 * rail_dev.c - the device side of an engine's extra rails (the
 * design is at the top of rail.c): opening a rail's RDMA device and its PD
 * (hixl_rail_resolve(), as SETUP does, and hixl_rail_close()), the one
 * accessor of rail i's device (hixl_rail_dev()), a rail's device removal
 * (hixl_engine_rail_detach(): its links, its regions' MRs and its PD go,
 * the engine stays on its other rails) and revival (hixl_rail_revive():
 * the address resolves again, PD and MRs made, the rail published).
 * Locks: as engine.h's "Rails" says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/numa.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "rail.h"

static int hixl_rail_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;	/* a transient bound id: destroyed by its maker */
}

/**
 * hixl_rail_close() - give up a rail's device objects (its PD) and forget
 * its device
 * @rail: the rail; its regions' MRs on it are gone already
 *
 * Undoes hixl_rail_resolve(); a rail without a device is left as it is.
 *
 * Context: process context (ib_dealloc_pd() may sleep).
 */
void hixl_rail_close(struct hixl_rail *rail)
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

/**
 * hixl_rail_resolve() - open the RDMA device that owns a local address
 * @net:  the network namespace to resolve in (the SETUP caller's)
 * @ss:   the address, port 0
 * @rail: out: on success its @device (the name), @ibdev, the device's MR
 *        limits and NUMA node, and a new PD
 *
 * As SETUP finds its own device (hixl_cmd_setup(): rdma_bind_addr() on a
 * transient id in @net); the PD is allocated while the transient id still
 * holds the device (hixl_rail_close() gives it up).
 *
 * Context: process context, may sleep.
 * Return: 0; -EADDRNOTAVAIL not a local address, -ENODEV no RDMA device
 * owns it (or it is being unregistered), -EOPNOTSUPP the device has no
 * fast-registration MRs, -ENOMEM, or RDMA CM's or ib_alloc_pd()'s -errno.
 * On failure @rail holds no device.
 */
int hixl_rail_resolve(struct net *net, struct sockaddr_storage *ss, struct hixl_rail *rail)
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
	/* not on a device being unregistered: see hixl_rail_revive() */
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
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_dev);

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
 * -EAGAIN when the engine's lock is busy (a command holds it: the caller
 * tries again later);
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
	 * A device being unregistered still resolves until RDMA CM's own
	 * removal, after ours (hixl_ib_remove() detached the rail), and its
	 * refcount drops only after every client's remove (disable_device()):
	 * ib_device_try_get() alone let the rail work revive the rail on the
	 * dying rxe1 (rxe_pool_cleanup WARNING, then a use after free in
	 * restrack; raillink_device_readd, make bench-rails).  So the device
	 * must also be live for hixl's ib_client (hixl_dev_live()), checked
	 * under the lock that hixl_ib_remove() takes before it looks for the
	 * device's engines, held until the rail is published: a removal
	 * comes either first (no revival) or after, and detaches it again.
	 * The reference keeps the device while we use it.
	 */
	if (!ib_device_try_get(tmp.ibdev)) {
		hixl_rail_close(&tmp);
		return -ENODEV;
	}
	hixl_devs_live_lock();
	if (!hixl_dev_live(tmp.ibdev)) {
		hixl_devs_live_unlock();
		ib_device_put(tmp.ibdev);
		hixl_rail_close(&tmp);
		return -ENODEV;
	}

	/*
	 * hixl_devs_lock is global (every device's add and removal take it):
	 * never sleep on an engine lock under it, which a command of that
	 * engine may hold while it waits for user memory that never comes
	 * (engine.h).  A busy engine is revived at the rail work's next tick.
	 */
	if (!mutex_trylock(&eng->lock)) {
		hixl_devs_live_unlock();
		ib_device_put(tmp.ibdev);
		hixl_rail_close(&tmp);
		return -EAGAIN;
	}
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
	hixl_devs_live_unlock();
	ib_device_put(tmp.ibdev);
	pr_info("engine %llu: rail %u back on %s\n", eng->id, i, rail->device);
	return 0;

out_close:
	mutex_unlock(&eng->lock);
	hixl_devs_live_unlock();
	ib_device_put(tmp.ibdev);
	hixl_rail_close(&tmp);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_revive);

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
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_rail_detach);
