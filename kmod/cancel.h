/* SPDX-License-Identifier: GPL-2.0 */
/* cancel.h - HIXL_IOC_CANCEL, plain and revoking (cancel.c) */
#ifndef _HIXL_CANCEL_H
#define _HIXL_CANCEL_H

#include <linux/list.h>
#include <linux/types.h>

struct hixl_engine;
struct hixl_cancel;

int hixl_cmd_cancel(struct hixl_engine *eng, struct hixl_cancel *a, bool nonblock);
int hixl_revoke_wait(struct list_head *wire, unsigned int flush_ms, u32 *broken);

#endif /* _HIXL_CANCEL_H */
