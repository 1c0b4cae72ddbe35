/* SPDX-License-Identifier: GPL-2.0 */
/*
 * local.h - same-host links (local.c pairs them, local_xfer.c copies): a
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
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/hixl.h>

#define HIXL_LOCAL_ID_LEN	16	/* bytes of the boot id and of a link token */
#define HIXL_LOCAL_CHUNK	SZ_1M	/* bytes copied between checks */
/* Segments a chunk may need: HIXL_LOCAL_CHUNK of 4 KiB pages, misaligned. */
#define HIXL_LOCAL_SEGS		(HIXL_LOCAL_CHUNK / PAGE_SIZE + 1)

/* lcopy.c: the parallel copy */
#define HIXL_LCOPY_MAX		16	/* CPUs one batch uses at most */
/*
 * A share must be long against waking a worker on another CPU (a few us on
 * hardware, far more under QEMU/TCG): 1 MiB is ~100 us of memcpy at 10 GB/s.
 */
#define HIXL_LCOPY_MIN		SZ_2M	/* bytes: a smaller batch is copied inline */
#define HIXL_LCOPY_SHARE_MIN	SZ_1M	/* bytes a share gets at least */
#define HIXL_LCOPY_ALIGN	SZ_64K	/* share boundaries: multiples of it in the batch */
/* us a copy worker waits for the peer engine's lock before it hands its share back */
#define HIXL_LCOPY_LOCK_US	20000

struct hixl_req;
struct hixl_engine;
struct hixl_link;
struct hixl_plan;
struct hixl_op_desc;
struct hixl_transfer;
struct hixl_wire_hello_local;
struct hixl_xbatch;
struct hixl_region;
struct dentry;

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
/* local_xfer.c: the same-host transport */
int hixl_local_prep(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		    const struct hixl_op_desc *d, bool nonblock, struct hixl_plan *pl);
int hixl_local_run(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		   const struct hixl_op_desc *d, const struct hixl_plan *pl,
		   unsigned long deadline, struct hixl_req *req);

/*
 * One physically contiguous piece of the peer's memory in a chunk: @len
 * bytes from byte @off of @page on, each of its pages referenced
 * (get_page()) while the chunk is copied.
 */
struct hixl_local_seg {
	struct page *page;
	u32 off;
	u32 len;
};

int hixl_local_stop(struct hixl_xbatch *b, struct hixl_link *l, unsigned long deadline);
int hixl_local_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
		     u64 la, u64 ra, u64 n, struct hixl_local_seg *seg);

/**
 * struct hixl_lcopy_share - a contiguous byte range of a batch (lcopy.c)
 * @first: the descriptor it starts in
 * @off:   bytes into that descriptor
 * @pos:   its first byte's position in the batch (descriptors end to end)
 * @bytes: its length, > 0
 */
struct hixl_lcopy_share {
	u32 first;
	u64 off;
	u64 pos;
	u64 bytes;
};

u32 hixl_lcopy_threads(void);
u32 hixl_lcopy_workers(u64 total, u32 threads);
u32 hixl_lcopy_plan(const struct hixl_op_desc *d, u32 count, u32 nw,
		    struct hixl_lcopy_share *share);
int hixl_lcopy_run(struct hixl_engine *peer, struct hixl_link *l, struct hixl_xbatch *b,
		   struct hixl_transfer *a, const struct hixl_op_desc *d,
		   const struct hixl_plan *pl, unsigned long deadline, u64 *bytes);
void hixl_lcopy_debugfs(struct dentry *dir);
void hixl_lcopy_init(void);
void hixl_lcopy_exit(void);

/* local_dmabuf.c: device (dma-buf) registrations on the same-host path */
struct hixl_region;
bool hixl_local_region_ok(struct hixl_region *r);
int hixl_local_dmabuf_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
			    u64 la, const struct hixl_region *rr, u64 ra, u64 n);

#endif /* _HIXL_LOCAL_H */
