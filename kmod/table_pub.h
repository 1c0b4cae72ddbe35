/* SPDX-License-Identifier: GPL-2.0 */
/* table_pub.h - a new link's region table sent in waves (table_pub.c). */
#ifndef _HIXL_TABLE_PUB_H
#define _HIXL_TABLE_PUB_H

#include "link.h"

struct hixl_mrset;
struct hixl_region;
struct hixl_wire_region;
struct hixl_pub;

u32 hixl_region_msg_fill(const struct hixl_mrset *ms, const struct hixl_region *r,
			 struct hixl_wire_region *m, u32 first);
struct hixl_pub *hixl_pub_start(struct hixl_link *l);
int hixl_pub_region(struct hixl_pub *p, struct hixl_region *r);
int hixl_pub_finish(struct hixl_pub *p);

#endif /* _HIXL_TABLE_PUB_H */
