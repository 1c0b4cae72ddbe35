/* SPDX-License-Identifier: GPL-2.0 */
/* xfer.h - a TRANSFER's submission (xfer.c) */
#ifndef _HIXL_XFER_H
#define _HIXL_XFER_H

#include <linux/types.h>

struct hixl_engine;
struct hixl_transfer;
struct hixl_req;

int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a);
int hixl_transfer_submit(struct hixl_engine *eng, struct hixl_transfer *a, struct hixl_req *req,
			 bool nonblock);

#endif /* _HIXL_XFER_H */
