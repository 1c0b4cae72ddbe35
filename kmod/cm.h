/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cm.h - RDMA CM, CONNECT and DISCONNECT (cm.c).
 */
#ifndef _HIXL_CM_H
#define _HIXL_CM_H

#include "link.h"

struct rdma_cm_id;
struct rdma_cm_event;

int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int hixl_cmd_connect(struct hixl_engine *eng, struct hixl_connect *a);
int hixl_cmd_disconnect(struct hixl_engine *eng, struct hixl_connect *a);
int hixl_connect_once(struct hixl_link *l, struct sockaddr *src, struct sockaddr *dst,
		      unsigned long deadline);
int hixl_connect_wait_ready(struct hixl_link *l, unsigned long deadline);

#endif /* _HIXL_CM_H */
