/* SPDX-License-Identifier: GPL-2.0 */
/* table.h - our region table on the links (table.c). */
#ifndef _HIXL_TABLE_H
#define _HIXL_TABLE_H

#include "link.h"

extern unsigned int hixl_table_ack_ms;
extern const struct hixl_region_events hixl_table_region_events;

int hixl_link_reg_mrs(struct hixl_link *l, struct hixl_region *r);
int hixl_send_region(struct hixl_link *l, struct hixl_region *r);
int hixl_link_publish(struct hixl_link *l);

#endif /* _HIXL_TABLE_H */
