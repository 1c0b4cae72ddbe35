/* SPDX-License-Identifier: GPL-2.0 */
/* notify.h - notifications: SEND_NOTIFY, GET_NOTIFIES, poll (notify.c). */
#ifndef _HIXL_NOTIFY_H
#define _HIXL_NOTIFY_H

#include "link.h"

extern unsigned int hixl_max_engine_notifies;
int hixl_cmd_send_notify(struct hixl_engine *eng, struct hixl_send_notify *a);
int hixl_cmd_get_notifies(struct hixl_engine *eng, struct hixl_get_notifies *a);
void hixl_engine_notifies_destroy(struct hixl_engine *eng);
__poll_t hixl_notify_poll(struct hixl_engine *eng, struct file *file, poll_table *wait);

/* receive handler (hixl_rx_handlers[]) */
int hixl_rx_notify(struct hixl_link *l, const void *buf, u32 len);

#endif /* _HIXL_NOTIFY_H */
