// SPDX-License-Identifier: GPL-2.0
/*
 * rail_dev.c - the device side of an engine's extra rails (the
 * design is at the top of rail.c): opening a rail's RDMA device and its PD
 * (hixl_rail_resolve(), as SETUP does, and hixl_rail_close()), the one
 * accessor of rail i's device (hixl_rail_dev()).  A rail's device removal
 * is setup.c's (hixl_engine_rail_detach()), its revival rail_revive.c's.
 * Locks: as engine.h's "Rails" says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/numa.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
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

