/* SPDX-License-Identifier: GPL-2.0 */
/*
 * auth.h - who may connect to an engine: its allowed peers and secret
 * (auth.c), and where a link is in the secret exchange.
 */
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

/* Where a link is in the secret exchange (hixl_link.auth_state, under its @lock). */
enum hixl_auth_state {
	HIXL_AUTH_NONE,		/* no secret: no exchange, nothing waits for it */
	HIXL_AUTH_START,	/* connector: CHALLENGE not sent yet */
	HIXL_AUTH_SENT,		/* connector: CHALLENGE sent, waiting for REPLY */
	HIXL_AUTH_VERIFIED,	/* connector: the REPLY's proof was right */
	HIXL_AUTH_WAIT,		/* acceptor: waiting for CHALLENGE */
	HIXL_AUTH_CHALLENGED,	/* acceptor: CHALLENGE in, REPLY to send */
	HIXL_AUTH_ANSWERED,	/* acceptor: REPLY sent, waiting for PROOF */
	HIXL_AUTH_DONE,		/* the peer proved the secret: publish */
	HIXL_AUTH_PUBLISHED,	/* acceptor: the setup work publishes, once */
};

struct hixl_link;
struct hixl_rdma;
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
#define HIXL_AUTH_NONCE		32	/* proto.h HIXL_AUTH_NONCE_LEN */

#endif /* _HIXL_AUTH_H */
