/* SPDX-License-Identifier: GPL-2.0 */
/* auth.h - who may connect to an engine: allowed peers and secret (auth.c) */
#ifndef _HIXL_AUTH_H
#define _HIXL_AUTH_H

#include <linux/types.h>
#include <kunit/visibility.h>

#include <rdma/hixl.h>

struct hixl_engine;
struct rdma_cm_id;
struct rdma_cm_event;
struct sockaddr;

struct hixl_auth;

struct hixl_link;
struct rdma_conn_param;
struct hixl_wire_cm_req;
int hixl_auth_setup(struct hixl_auth *auth, const struct hixl_setup *a);
void hixl_auth_free(struct hixl_auth *auth);
bool hixl_auth_allowed(const struct hixl_auth *auth, const struct sockaddr *sa);
int hixl_auth_admit(struct hixl_engine *eng, struct rdma_cm_id *id, struct rdma_cm_event *ev);
void hixl_auth_conn_param(struct hixl_engine *eng, struct rdma_conn_param *p,
			  struct hixl_wire_cm_req *req);
bool hixl_auth_rejected(struct rdma_cm_id *id, struct rdma_cm_event *ev);
void hixl_auth_link_init(struct hixl_link *l);
int hixl_auth_connect(struct hixl_link *l, unsigned long deadline);
int hixl_auth_accept_step(struct hixl_link *l);
int hixl_auth_rx(struct hixl_link *l, u16 type, const void *buf, u32 len);
void hixl_auth_expired(struct hixl_link *l);
#if IS_ENABLED(CONFIG_KUNIT)
bool hixl_auth_prefix_valid(const struct hixl_peer_prefix *p);
bool hixl_auth_prefix_match(const struct hixl_peer_prefix *p, const struct sockaddr *sa);
#endif

#define HIXL_AUTH_RX_DONE	1	/* hixl_auth_rx(): an AUTH_* message, done */
#define HIXL_AUTH_RX_STEP	2	/* hixl_auth_rx(): done; queue the setup work */

#endif /* _HIXL_AUTH_H */
