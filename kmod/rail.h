/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rail.h - an engine's rails (extra RDMA devices of SETUP) and the striping
 * planner that will split a batch across them.  The design is at the top of
 * rail.c.
 */
#ifndef HIXL_RAIL_H
#define HIXL_RAIL_H

#include <linux/types.h>
#include <rdma/hixl.h>

struct hixl_rdma;
struct net;
struct rdma_cm_id;

/* striping defaults for the multi-rail data path (rail.c: not yet used) */
#define HIXL_RAIL_STRIPE_MIN	(1ULL << 20)	/* bytes: striped from here on */
#define HIXL_RAIL_CHUNK		(512ULL << 10)	/* bytes: one stripe chunk */

/**
 * struct hixl_rail - one extra rail of an engine (rail 1 and up; rail 0 is
 * SETUP's @local and its device, in struct hixl_rdma)
 * @addr:   the local address SETUP named (or "auto" found), port 0
 * @device: the RDMA device RDMA CM resolved it to, at SETUP
 *
 * Written by SETUP before the engine's hixl_rdma is published, never
 * changed after: read without a lock.
 */
struct hixl_rail {
	struct hixl_sockaddr addr;
	char device[64];
	/* hR2 (raillink.c): our listener on @addr with the engine's port (an
	 * engine with a port, not LISTEN_ANY), NULL without; under
	 * raillink.c's hixl_rail_listen_lock */
	struct rdma_cm_id *listen_id;
};

/**
 * struct hixl_rail_piece - one piece of a descriptor on one rail
 * @desc: the descriptor's index in its batch
 * @rail: the rail it goes on, 0..nr_rails - 1
 * @off:  bytes from the descriptor's start
 * @len:  bytes, > 0
 *
 * Enough to post the piece again on another rail (failover, issue 13
 * item 4): the same bytes of the same descriptor.
 */
struct hixl_rail_piece {
	u32 desc;
	u32 rail;
	u64 off;
	u64 len;
};

int hixl_rails_validate(const struct hixl_setup *a);
int hixl_rails_setup(struct hixl_rdma *rd, struct hixl_setup *a, struct net *net);
void hixl_rails_free(struct hixl_rdma *rd);
u32 hixl_rails_count(const struct hixl_rdma *rd);
struct seq_file;
int hixl_rails_show(struct seq_file *m);
long hixl_rail_plan(const u64 *lens, u32 n, u32 nr_rails, u64 stripe_min, u64 chunk,
		    u32 *rr, struct hixl_rail_piece *out, u32 max);

#endif /* HIXL_RAIL_H */
