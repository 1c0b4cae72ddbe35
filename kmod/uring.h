/* SPDX-License-Identifier: GPL-2.0 */
/* uring.h - io_uring URING_CMD (uring.c) and the command argument union. */
#ifndef _HIXL_URING_H
#define _HIXL_URING_H

#include <rdma/hixl.h>

struct hixl_engine;
struct io_uring_cmd;

union hixl_cmd_arg {
	struct hixl_info info;
	struct hixl_reg_mem reg_mem;
	struct hixl_dereg_mem dereg_mem;
	struct hixl_stats stats;
	struct hixl_setup setup;
	struct hixl_connect connect;
	struct hixl_transfer transfer;
	struct hixl_send_notify send_notify;
	struct hixl_get_notifies get_notifies;
	struct hixl_cancel cancel;
	struct hixl_link_stats link_stats;
	struct hixl_engines engines;
	struct hixl_peer_regions peer_regions;
};

#define HIXL_URING_CMD_AREA	80	/* bytes of sqe->cmd on an SQE128 ring */
#define HIXL_URING_CMD_AREA_SMALL 16	/* bytes of sqe->cmd on a 64-byte SQE ring */

int hixl_uring_decode(u32 cmd_op, const void *area, bool sqe128, union hixl_cmd_arg *arg,
		      unsigned int *canon);
int hixl_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);
void hixl_uring_engine_destroy(struct hixl_engine *eng);

#endif /* _HIXL_URING_H */
