/* SPDX-License-Identifier: GPL-2.0 */
/* link_life.h - a link's life (link_life.c). */
#ifndef _HIXL_LINK_LIFE_H
#define _HIXL_LINK_LIFE_H

#include "link.h"

struct hixl_link *hixl_link_alloc(struct hixl_engine *eng, bool active);
int hixl_link_create_qp(struct hixl_link *l);
void hixl_link_destroy_qp(struct hixl_link *l);
void hixl_link_destroy(struct hixl_link *l);
void hixl_engine_links_destroy(struct hixl_engine *eng);
void hixl_engine_links_destroy_rail(struct hixl_engine *eng, u32 rail);

/* receive handlers (hixl_rx_handlers[]) */
int hixl_rx_hello(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_table_end(struct hixl_link *l, const void *buf, u32 len);

#endif /* _HIXL_LINK_LIFE_H */
