/* SPDX-License-Identifier: GPL-2.0 */
/* report.h - GET_STATS, LINK_STATS, ENGINES (report.c, railstats.c) */
#ifndef _HIXL_REPORT_H
#define _HIXL_REPORT_H

#include <linux/types.h>

struct hixl_engine;
struct hixl_rdma;
struct hixl_stats;
struct hixl_link_stats;
struct hixl_engines;
struct hixl_rail_stat;

int hixl_cmd_get_stats(struct hixl_engine *eng, struct hixl_stats *arg);
int hixl_cmd_link_stats(struct hixl_engine *eng, struct hixl_link_stats *a);
int hixl_cmd_engines(struct hixl_engine *eng, struct hixl_engines *a);

int hixl_stats_rails(struct hixl_engine *eng, u64 ubuf, u32 room, u32 *nr);
void hixl_rail_stats_fill(struct hixl_engine *eng, const struct hixl_rdma *rd,
			  struct hixl_rail_stat *out, u32 n);

#endif /* _HIXL_REPORT_H */
