/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scq.h - a link's send CQ, polled by hixl itself (scq.c); struct hixl_scq
 * is in link.h, which embeds it.
 */
#ifndef _HIXL_SCQ_H
#define _HIXL_SCQ_H

struct hixl_link;
struct ib_device;

void hixl_scq_init(struct hixl_link *l);
int hixl_scq_create(struct hixl_link *l, struct ib_device *dev, int cqe);
void hixl_scq_destroy(struct hixl_link *l);
int hixl_scq_poll(struct hixl_link *l);

#endif /* _HIXL_SCQ_H */
