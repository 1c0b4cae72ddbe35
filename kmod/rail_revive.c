// SPDX-License-Identifier: GPL-2.0
/* rail_revive.c - an extra rail whose device went away comes back */
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
 * @i:   the rail, >= 1
 *
 * Resolves the rail's address again as SETUP did; if an unused device owns
 * it, makes the rail's PD and every valid region's MRs and publishes it.
 * Context: process context; @eng->rdma_sem held for reading; trylocks the
 * engine lock, takes hixl_devs_lock.
 * Return: 0 usable; -EINVAL no such rail, loopback or unset engine; -ENODEV
 * device gone or none owns the address; -EADDRNOTAVAIL; -EAGAIN engine lock
 * busy; -EOPNOTSUPP, -ENOMEM or the device's -errno (all undone).
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
	 * A device being unregistered still resolves: it must be live for our
	 * ib_client too, here and again under hixl_devs_lock at publication.
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

	/* a busy engine is revived at a later tick */
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
	/* make the MRs before publishing the rail (hixl_rail_dev() reads @pd) */
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
	/* MRs made without hixl_devs_lock: is the device still live? */
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
