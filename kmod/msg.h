/* SPDX-License-Identifier: GPL-2.0 */
/* msg.h - posting a link's messages (msg.c). */
#ifndef _HIXL_MSG_H
#define _HIXL_MSG_H

#include "link.h"

struct hixl_wire_hdr;
struct hixl_wire_name;
void hixl_tx_done(struct ib_cq *cq, struct ib_wc *wc);
int hixl_post_wait(struct hixl_link *l, struct ib_send_wr *wr);
void hixl_wire_hdr_fill(struct hixl_wire_hdr *h, u16 type, u32 len);
int hixl_send_msg(struct hixl_link *l, u16 type, u32 len);
int hixl_iu_alloc(struct hixl_link *l, struct hixl_iu *iu, u32 size,
		  enum dma_data_direction dir, void (*done)(struct ib_cq *, struct ib_wc *));
void hixl_iu_free(struct ib_device *ibdev, struct hixl_iu *iu);
void hixl_name_to_wire(const struct hixl_sockaddr *a, struct hixl_wire_name *w);
void hixl_name_from_wire(const struct hixl_wire_name *w, struct hixl_sockaddr *a);

#endif /* _HIXL_MSG_H */
