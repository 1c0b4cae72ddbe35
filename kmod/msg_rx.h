/* SPDX-License-Identifier: GPL-2.0 */
/* msg_rx.h - a link's message buffers and receive side (msg_rx.c) */
#ifndef _HIXL_MSG_RX_H
#define _HIXL_MSG_RX_H

struct hixl_link;

int hixl_link_msg_alloc(struct hixl_link *l);
void hixl_link_msg_free(struct hixl_link *l);

#endif /* _HIXL_MSG_RX_H */
