/* SPDX-License-Identifier: GPL-2.0 */
/* stats.h - counting into the data-path counters (stats.c, ctrs.h). */
#ifndef _HIXL_STATS_H
#define _HIXL_STATS_H

#include "ctrs.h"

struct hixl_engine;
struct hixl_link;

void hixl_ctrs_read(struct hixl_ctrs *c, struct hixl_xfer_stats *s);
void hixl_link_count(struct hixl_link *l, enum hixl_ctr i, u64 n);
void hixl_link_count_xfer(struct hixl_link *l, u32 op, bool staged, u64 bytes, u64 ops);
void hixl_link_count_result(struct hixl_link *l, int ret);
void hixl_link_count_connect(struct hixl_link *l, int ret, u64 ns);
void hixl_xfer_done(struct hixl_engine *eng, struct hixl_link *l, u32 op, int ret,
		    u64 bytes, u64 tag, u64 ns);
u32 hixl_lat_bucket(u64 ns);
void hixl_link_count_latency(struct hixl_link *l, int ret, u64 ns);
void hixl_lat_read(struct hixl_lat *h, struct hixl_lat_hist *o);

struct hixl_rail_piece;
void hixl_rail_count_failover(struct hixl_engine *eng, u32 from,
			      const struct hixl_rail_piece *pc, const u32 *idx, u32 n);

#endif /* _HIXL_STATS_H */
