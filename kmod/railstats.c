// SPDX-License-Identifier: GPL-2.0
/* railstats.c - GET_STATS with HIXL_STATS_RAILS; a rail's state is read, not kept */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "rail.h"
#include "link.h"
#include "rail_plan.h"
#include "raillink.h"
#include "report.h"

/* Is a port of @ibdev active?  Does not sleep. */
static bool hixl_rail_port_active(struct ib_device *ibdev)
{
	enum ib_port_state st;
	u32 p;

	rdma_for_each_port(ibdev, p)
		if (!ib_get_cached_port_state(ibdev, p, &st) && st == IB_PORT_ACTIVE)
			return true;
	return false;
}

/*
 * Links per rail and those up, rails 0..@nr - 1: rail 0 counts every link,
 * rail i every READY link paired on rail i.
 */
static void hixl_rail_links_count(struct hixl_engine *eng, u32 nr, u32 *links, u32 *up)
{
	struct hixl_link *l, *rl;
	u32 i, lnr;
	int err;

	mutex_lock(&eng->links_lock);
	list_for_each_entry(l, &eng->links, node) {
		if (l->rail)		/* a rail link: counted through its primary */
			continue;
		links[0]++;
		if (hixl_link_state(l, &err) != HIXL_LINK_READY)
			continue;
		up[0]++;
		lnr = min(hixl_link_nr_rails(l), nr);
		for (i = 1; i < lnr; i++) {
			links[i]++;
			rl = hixl_link_rail_get(l, i);
			if (rl) {
				up[i]++;
				hixl_link_put(rl);
			}
		}
	}
	mutex_unlock(&eng->links_lock);
}

/* Rail @i's record; @eng->rdma_sem held for reading. */
static void hixl_rail_stat_fill(struct hixl_engine *eng, const struct hixl_rdma *rd, u32 i,
				u32 links, u32 up, struct hixl_rail_stat *o)
{
	struct hixl_rail_dev dev;
	bool there = hixl_rail_dev(rd, i, &dev);

	o->rail = i;
	if (i) {
		o->addr = rd->rails[i - 1].addr;
		strscpy(o->device, rd->rails[i - 1].device, sizeof(o->device));
	} else {
		o->addr = rd->local;
		if (rd->ibdev)
			strscpy(o->device, dev_name(&rd->ibdev->dev), sizeof(o->device));
	}
	o->numa_node = there ? dev_to_node(&dev.ibdev->dev) : NUMA_NO_NODE;
	o->links = links;
	o->links_up = up;
	o->mrs = atomic64_read(&eng->st_rail_mrs[i]);
	if (!there)
		o->state = HIXL_RAIL_STATE_REMOVED;
	else if (!hixl_rail_port_active(dev.ibdev) || (i && links && !up))
		o->state = HIXL_RAIL_STATE_DOWN;
	else
		o->state = HIXL_RAIL_STATE_UP;
	hixl_ctrs_read(&eng->rail_ctrs[i], &o->xfer);
}

/**
 * hixl_rail_stats_fill() - the records of an engine's first rails
 * @eng: the engine; its rdma_sem held for reading
 * @rd:  its device side
 * @out: out: @n records, rail 0 first, zeroed by the caller
 * @n:   records, at most hixl_rails_count(@rd)
 * Context: process context, sleeps.
 */
void hixl_rail_stats_fill(struct hixl_engine *eng, const struct hixl_rdma *rd,
			  struct hixl_rail_stat *out, u32 n)
{
	u32 links[HIXL_MAX_RAILS] = {}, up[HIXL_MAX_RAILS] = {};
	u32 i;

	n = min_t(u32, n, HIXL_MAX_RAILS);
	hixl_rail_links_count(eng, n, links, up);
	for (i = 0; i < n; i++)
		hixl_rail_stat_fill(eng, rd, i, links[i], up[i], &out[i]);
}

/**
 * hixl_stats_rails() - GET_STATS's rail records (HIXL_STATS_RAILS)
 * @eng:  the engine; its rdma_sem held for reading
 * @ubuf: user pointer to @room struct hixl_rail_stat
 * @room: records @ubuf holds, 0..HIXL_MAX_RAILS; min(@room, *@nr) written
 * @nr:   out: the engine's rails (0 before SETUP and for loopback)
 * Context: process context, sleeps.
 * Return: 0; -ENOMEM; -EFAULT.
 */
int hixl_stats_rails(struct hixl_engine *eng, u64 ubuf, u32 room, u32 *nr)
{
	const struct hixl_rdma *rd = smp_load_acquire(&eng->rdma);	/* SETUP's store */
	struct hixl_rail_stat *out;
	int ret = 0;
	u32 n;

	*nr = rd ? min_t(u32, hixl_rails_count(rd), HIXL_MAX_RAILS) : 0;
	n = min(room, *nr);
	if (!n)
		return 0;
	out = kcalloc(n, sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	hixl_rail_stats_fill(eng, rd, out, n);
	if (copy_to_user(u64_to_user_ptr(ubuf), out, array_size(n, sizeof(*out))))
		ret = -EFAULT;
	kfree(out);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_stats_rails);
