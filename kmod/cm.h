/* SPDX-License-Identifier: GPL-2.0 */
/* cm.h - RDMA CM for links: events, accepting, connecting (cm.c) */
#ifndef _HIXL_CM_H
#define _HIXL_CM_H

#include "link.h"

struct rdma_cm_id;
struct rdma_cm_event;

/* a refused CONNECT (nobody listens yet) is tried again after this */
#define HIXL_RETRY_MS		50

int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int hixl_link_try_connect(struct hixl_link *l, struct sockaddr *src,
			  struct sockaddr *dst, unsigned long deadline);
void hixl_link_reset_attempt(struct hixl_link *l);
int hixl_connect_once(struct hixl_link *l, struct sockaddr *src, struct sockaddr *dst,
		      unsigned long deadline);
int hixl_connect_wait_ready(struct hixl_link *l, unsigned long deadline);

#endif /* _HIXL_CM_H */
