/* SPDX-License-Identifier: GPL-2.0 */
/* rail_plan.h - striping's pure parts (rail_plan.c); no lock, no allocation */
#ifndef HIXL_RAIL_PLAN_H
#define HIXL_RAIL_PLAN_H

#include <linux/types.h>

#include "rail.h"

/* striping defaults of the multi-rail data path (xrail.c) */
#define HIXL_RAIL_STRIPE_MIN	(1ULL << 20)	/* bytes: striped from here on */
#define HIXL_RAIL_CHUNK		(512ULL << 10)	/* bytes: one stripe chunk */

long hixl_rail_plan(const u64 *lens, u32 n, u32 nr_rails, u64 stripe_min, u64 chunk,
		    u32 *rr, struct hixl_rail_piece *out, u32 max);
long hixl_xrail_replan(struct hixl_rail_piece *pc, u32 npc, const u32 *idx, u32 n, u32 mask,
		       u32 *rr);
bool hixl_xrail_failover_ok(int status, int link_state, bool cancelled, bool expired);

#endif /* HIXL_RAIL_PLAN_H */
