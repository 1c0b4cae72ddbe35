/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rail_shim.h - NOT YET: the rail device interface of issue 13 (hR1's
 * rail.h: struct hixl_rail_dev, hixl_rail_dev(), hixl_rail_revive()) as
 * raillink.c uses it, until that branch merges.  Here every extra rail has
 * no device side (no PD, no MRs), so no rail link is ever made: links and
 * transfers stay on rail 0, exactly as before.  Deleted when hR1 merges.
 */
#ifndef _HIXL_RAIL_SHIM_H
#define _HIXL_RAIL_SHIM_H

#include <linux/errno.h>
#include "engine.h"

struct hixl_rail_dev {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u64 page_size_cap;
	u32 max_mr_pages;
};

static inline bool hixl_rail_dev(const struct hixl_rdma *rd, u32 i, struct hixl_rail_dev *out)
{
	memset(out, 0, sizeof(*out));
	if (i)
		return false;
	out->ibdev = rd->ibdev;
	out->pd = rd->pd;
	out->page_size_cap = rd->page_size_cap;
	out->max_mr_pages = rd->max_mr_pages;
	return true;
}

static inline int hixl_rail_revive(struct hixl_engine *eng, u32 i)
{
	return -ENODEV;
}

#endif /* _HIXL_RAIL_SHIM_H */
