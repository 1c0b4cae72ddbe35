/* SPDX-License-Identifier: GPL-2.0 */
/* plan.h - a TRANSFER planned into pieces, one work request each */
#ifndef _HIXL_PLAN_H
#define _HIXL_PLAN_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <rdma/hixl.h>

#include "link.h"

/* one work request's worth of a descriptor */
struct hixl_piece {
	u64 laddr;		/* local RDMA address */
	u64 raddr;		/* remote RDMA address */
	u32 len;
	u32 lkey;
	u32 rkey;
	u32 desc;
};

#define HIXL_PLAN_INLINE	4	/* pieces, held regions, descriptors kept inline */

/* a small plan's arrays inside its owner: no allocation */
struct hixl_plan_room {
	struct hixl_piece p[HIXL_PLAN_INLINE];
	struct hixl_region *held[HIXL_PLAN_INLINE];
};

/* a TRANSFER's pieces (@bytes: their sum) and the regions it holds */
struct hixl_plan {
	struct hixl_piece *p;
	u32 n, cap;
	u64 bytes;
	struct hixl_region **held;
	u32 nheld;
	struct hixl_plan_room *room;
};

#define HIXL_MAX_SGE_LEN	SZ_1G	/* bytes one work request moves at most */
/* pieces per TRANSFER: planning arrays stay below 200 MiB */
#define HIXL_MAX_PIECES		(1U << 22)
#define HIXL_PLAN_FIRST_PIECES	8
#define HIXL_PLAN_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NOWARN)

int hixl_plan_desc(struct hixl_link *l, u32 op, const struct hixl_op_desc *d, u32 idx,
		   struct hixl_plan *pl);
int hixl_stage_check(struct hixl_link *l, u32 op, const struct hixl_op_desc *d);
int hixl_split(const struct hixl_rmr *lm, u32 nl, const struct hixl_rmr *rm, u32 nr,
	       u64 la, u64 ra, u64 len, u32 desc, struct hixl_plan *pl);
void hixl_plan_init(struct hixl_plan *pl, struct hixl_plan_room *room);
void hixl_plan_move(struct hixl_plan *dst, struct hixl_plan *src);
void hixl_plan_free(struct hixl_plan *pl);
void hixl_plan_release(struct hixl_engine *eng, struct hixl_plan *pl);

#endif /* _HIXL_PLAN_H */
