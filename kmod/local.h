/* SPDX-License-Identifier: GPL-2.0 */
/*
 * local.h - same-host links.  hixl_local_lock (irq-safe, innermost) protects
 * every struct hixl_link_local and the list of offered tokens.
 */
#ifndef _HIXL_LOCAL_H
#define _HIXL_LOCAL_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/hixl.h>

#define HIXL_LOCAL_ID_LEN	16	/* bytes of the boot id and of a link token */

struct hixl_engine;
struct hixl_link;
struct hixl_wire_hello_local;

/**
 * struct hixl_link_local - a link's same-host pairing (under hixl_local_lock)
 * @node:     in the offered tokens while @offered
 * @offered:  our HELLO carried @token
 * @token:    random
 * @self:     our engine's name at the offer
 * @partner:  other end's link, unreferenced; cleared at either teardown
 * @peer_eng: other end's engine, referenced
 * @paired:   was paired (stays set)
 * @broken:   other end torn down
 * @loop:     paired by a loopback CONNECT: no QP
 */
struct hixl_link_local {
	struct list_head node;
	bool offered;
	u8 token[HIXL_LOCAL_ID_LEN];
	struct hixl_sockaddr self;
	struct hixl_link *partner;
	struct hixl_engine *peer_eng;
	bool paired;
	bool broken;
	bool loop;
};

/**
 * struct hixl_local_offer - what the pairing decision knows of an offer
 * @token:   offering link's token
 * @target:  its CONNECT target
 * @self:    its engine's name
 * @paired:  paired already
 * @alive:   its engine is not closing
 */
struct hixl_local_offer {
	const u8 *token;
	const struct hixl_sockaddr *target;
	const struct hixl_sockaddr *self;
	bool paired;
	bool alive;
};

/**
 * struct hixl_local_claim - what the accepting side was told and is
 * @boot_id:  from the peer's HELLO
 * @token:    from the peer's HELLO
 * @claimed:  engine name in the HELLO, the source address
 * @acceptor: accepting engine's name
 */
struct hixl_local_claim {
	const u8 *boot_id;
	const u8 *token;
	const struct hixl_sockaddr *claimed;
	const struct hixl_sockaddr *acceptor;
};

extern spinlock_t hixl_local_lock;
void hixl_local_init(void);
int hixl_local_match(const struct hixl_local_offer *o, const struct hixl_local_claim *c,
		     const u8 *boot_id);
u32 hixl_local_offer(struct hixl_link *l, struct hixl_wire_hello_local *x);
void hixl_local_accept(struct hixl_link *l, const struct hixl_wire_hello_local *x,
		       const struct hixl_sockaddr *claimed);
void hixl_local_link_gone(struct hixl_link *l);
void hixl_local_link_free(struct hixl_link *l);
bool hixl_local_paired(struct hixl_link *l);
struct hixl_engine *hixl_local_peer_get(struct hixl_link *l);
void hixl_local_engine_close(struct hixl_engine *eng);
#endif /* _HIXL_LOCAL_H */
