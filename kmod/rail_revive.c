// SPDX-License-Identifier: GPL-2.0
/*
 * rail_revive.c - an extra rail whose device went comes back: the rail
 * work of raillink.c asks hixl_rail_revive() before it re-makes a rail
 * link on a rail that has no device.  The address resolves again (as
 * SETUP's, rail_dev.c's hixl_rail_resolve()), the rail's PD and every
 * valid region's MRs on it are made (mr.c), and the rail is published.
 * Its removal is setup.c's (hixl_engine_rail_detach()).  Locks: as
 * engine.h's "Rails" says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/numa.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "rail.h"
#include "raillink.h"

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
 * engine's rdma_sem for reading (raillink.c's rail work).  Takes the
 * engine's lock (mutex_trylock()) and, to publish the rail, hixl_devs_lock.
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
	bool live;
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
	 * A device being unregistered still resolves, and ib_device_try_get()
	 * still succeeds on it, until every client's remove has run: it must
	 * also be live for hixl (hixl_dev_live()).  Checked here, cheaply, and
	 * again under hixl_devs_lock when the rail is published: a removal
	 * then comes either first (no revival) or after, and detaches it.
	 * The reference keeps the device while we use it.
	 */
	if (!ib_device_try_get(tmp.ibdev)) {
		hixl_rail_close(&tmp);
		return -ENODEV;
	}
	hixl_devs_live_lock();
	live = hixl_dev_live(tmp.ibdev);
	hixl_devs_live_unlock();
	if (!live) {
		ib_device_put(tmp.ibdev);
		hixl_rail_close(&tmp);
		return -ENODEV;
	}

	/* a busy engine is revived at the rail work's next tick */
	if (!mutex_trylock(&eng->lock)) {
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
		if (READ_ONCE(r->invalid) || r->withdrawing)
			continue;
		ret = hixl_region_make_mrs_dev(r, i, &dev);
		if (ret == -EOPNOTSUPP)
			ret = 0;	/* no MRs for this one on this device */
		if (ret)
			break;
	}
	/*
	 * The MRs were made without hixl_devs_lock (a device's add and removal
	 * wait for nothing of an engine); the device must still be live when
	 * the rail is published.
	 */
	if (!ret) {
		hixl_devs_live_lock();
		if (!hixl_dev_live(tmp.ibdev)) {
			hixl_devs_live_unlock();
			ret = -ENODEV;
		}
	}
	if (ret) {
		xa_for_each(&eng->regions, idx, r)
			hixl_region_free_mrs_rail(r, rd, i);
		rail->ibdev = NULL;
		goto out_close;		/* tmp's PD goes there */
	}
	smp_store_release(&rail->pd, tmp.pd);	/* hixl_rail_dev() sees it whole */
	WRITE_ONCE(eng->rail_ibdev[i], rail->ibdev);
	hixl_devs_live_unlock();
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
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_revive);
