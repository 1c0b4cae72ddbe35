/* SPDX-License-Identifier: GPL-2.0 */
/*
 * local.h - same-host links (local.c pairs them; local_xfer.h: the copy): a
 * link whose two ends are engines of this kernel copies host registrations
 * with the CPU instead of RDMA.
 * Locks: hixl_local_lock (a spinlock, irq-safe) guards every link's
 * struct hixl_link_local and the list of offered tokens; it nests inside
 * everything and nothing nests inside it.  See docs/protocol.md,
 * "Same-host links", for the proof that a remote peer cannot pair.
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
 * @node:     in the list of offered tokens while @offered
 * @offered:  an active link whose HELLO carried @token; taken off the list
 *            when it pairs or is torn down (a token pairs once)
 * @token:    random, HIXL_LOCAL_ID_LEN bytes, drawn for this link's HELLO
 * @self:     our engine's name when the token was offered
 * @partner:  the other end's link object, while both exist (no reference:
 *            whichever is torn down first clears both pointers)
 * @peer_eng: the other end's engine, a reference (hixl_engine_put() at the
 *            link's free); set once at pairing
 * @paired:   the link was paired (stays set; @broken says it is over)
 * @broken:   the other end was torn down: no more local copies
 * @loop:     paired by a loopback CONNECT (loopback.c), not by HELLO: the
 *            link has no QP, and its partner breaks when it goes
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
 * @token:   the offering (active) link's token
 * @target:  its CONNECT target
 * @self:    its engine's name
 * @paired:  it is paired already
 * @alive:   its engine is not closing, and allows the local path
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
 * @boot_id:  the boot id in the peer's HELLO
 * @token:    the token in the peer's HELLO
 * @claimed:  the engine name in the peer's HELLO (checked to be the
 *            connection's source address)
 * @acceptor: the accepting engine's own name
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
