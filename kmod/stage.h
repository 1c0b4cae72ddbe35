/* SPDX-License-Identifier: GPL-2.0 */
/* stage.h - staging through the peer's staging buffers (stage.c). */
#ifndef _HIXL_STAGE_H
#define _HIXL_STAGE_H

#include "link.h"

int hixl_stbuf_alloc(struct hixl_link *l, struct hixl_stbuf *b, size_t size);
void hixl_stbuf_free(struct ib_device *ibdev, struct hixl_stbuf *b);
void hixl_stage_work(struct work_struct *w);
size_t hixl_stage_cap(struct hixl_link *l);
int hixl_stage_status(u32 wire);
int hixl_stage_register(struct hixl_link *l);
void hixl_link_stage_alloc(struct hixl_link *l);
int hixl_stage_run(struct hixl_link *l, u32 op, const struct hixl_op_desc *d, const u32 *idx,
		   u32 n, unsigned long deadline, bool (*cancelled)(void *ctx), void *ctx,
		   u32 *failed);

/* receive handlers (hixl_rx_handlers[]) */
int hixl_rx_stage_req(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_stage_done(struct hixl_link *l, const void *buf, u32 len);

#endif /* _HIXL_STAGE_H */
