/* SPDX-License-Identifier: GPL-2.0 */
/* stage_cost.h - the staging cost model (stage_cost.c). */
#ifndef _HIXL_STAGE_COST_H
#define _HIXL_STAGE_COST_H

#include "link.h"

extern unsigned int hixl_stage_policy;
void hixl_stage_cost_get(struct hixl_stage_cost *c);
bool hixl_stage_small(const struct hixl_stage_cost *c, u64 len);
bool hixl_stage_pays(const struct hixl_stage_cost *c, u64 n, u64 bytes, u64 cap);

#endif /* _HIXL_STAGE_COST_H */
