/* SPDX-License-Identifier: GPL-2.0 */
/* rtable.h - the peer's region table and its TABLE_ACKs (rtable.c). */
#ifndef _HIXL_RTABLE_H
#define _HIXL_RTABLE_H

#include "link.h"

extern unsigned int hixl_max_engine_peer_mrs;
int hixl_peer_mrs_charge(struct hixl_engine *eng, u32 nr);
void hixl_peer_mrs_uncharge(struct hixl_engine *eng, u32 nr);
int hixl_table_ack(struct hixl_link *l, u64 applied);
void hixl_ack_done(struct ib_cq *cq, struct ib_wc *wc);

struct hixl_wire_region;
struct hixl_wire_regions;
struct hixl_wire_region_del;
void hixl_rtable_clear(struct hixl_link *l);
#if IS_ENABLED(CONFIG_KUNIT)
int hixl_rx_region(struct hixl_link *l, const struct hixl_wire_region *m, u32 len);
int hixl_rx_regions(struct hixl_link *l, const struct hixl_wire_regions *m, u32 len);
void hixl_rx_region_del(struct hixl_link *l, const struct hixl_wire_region_del *m);
#endif

/* receive handlers (hixl_rx_handlers[]) */
int hixl_rx_region_msg(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_regions_msg(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_region_del_msg(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_table_ack(struct hixl_link *l, const void *buf, u32 len);

#endif /* _HIXL_RTABLE_H */
