/* SPDX-License-Identifier: GPL-2.0 */
/* scq.h - a link's send CQ (scq.c); struct hixl_scq is in link.h. */
#ifndef _HIXL_SCQ_H
#define _HIXL_SCQ_H

struct hixl_link;
struct ib_device;

void hixl_scq_init(struct hixl_link *l);
int hixl_scq_create(struct hixl_link *l, struct ib_device *dev, int cqe);
void hixl_scq_destroy(struct hixl_link *l);
int hixl_scq_poll(struct hixl_link *l);
void hixl_scq_spin_begin(struct hixl_link *l);
void hixl_scq_spin_end(struct hixl_link *l);
#if IS_ENABLED(CONFIG_KUNIT)
struct ib_cq;
void hixl_scq_comp(struct ib_cq *cq, void *ctx);
#endif

#endif /* _HIXL_SCQ_H */
