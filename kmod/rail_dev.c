// SPDX-License-Identifier: GPL-2.0
/* rail_dev.c - the RDMA device and PD of an engine's extra rails */
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
 * hixl_rail_close() - release a rail's PD and forget its device
 * @rail: the rail; its MRs are gone
 * Context: process context.
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
 * @net:  the SETUP caller's netns
 * @ss:   the address, port 0
 * @rail: out: device, MR limits, NUMA node and a new PD; none on failure
 * Context: process context, may sleep.
 * Return: 0; -EADDRNOTAVAIL not local; -ENODEV no RDMA device; -EOPNOTSUPP
 * no fast-registration MRs; -ENOMEM; RDMA CM's or ib_alloc_pd()'s error.
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
	/* not a device being unregistered */
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
 * @rd:  the engine's device side, or NULL
 * @i:   the rail
 * @out: out: device, PD and MR limits; zeroed when none
 * Context: any; rdma_sem or the engine's lock held.
 * Return: true when rail @i exists and its device is not being removed.
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

