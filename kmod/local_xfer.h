/* SPDX-License-Identifier: GPL-2.0 */
/* local_xfer.h - the same-host transport (local_xfer.c, lcopy.c, local_dmabuf.c) */
#ifndef _HIXL_LOCAL_XFER_H
#define _HIXL_LOCAL_XFER_H

#include <linux/sizes.h>
#include <linux/types.h>

#define HIXL_LOCAL_CHUNK	SZ_1M	/* bytes copied between checks */
/* segments a chunk may need: 4 KiB pages, misaligned */
#define HIXL_LOCAL_SEGS		(HIXL_LOCAL_CHUNK / PAGE_SIZE + 1)

#define HIXL_LCOPY_MAX		16	/* CPUs one batch uses at most */
/* a share must be long against waking a worker on another CPU */
#define HIXL_LCOPY_MIN		SZ_2M	/* bytes: a smaller batch is copied inline */
#define HIXL_LCOPY_SHARE_MIN	SZ_1M	/* bytes a share gets at least */
#define HIXL_LCOPY_ALIGN	SZ_64K	/* share boundaries: multiples of it in the batch */
/* us a copy worker waits for the peer engine's lock before giving up its share */
#define HIXL_LCOPY_LOCK_US	20000

struct hixl_req;
struct hixl_engine;
struct hixl_link;
struct hixl_plan;
struct hixl_op_desc;
struct hixl_transfer;
struct hixl_xbatch;
struct hixl_region;
struct dentry;
struct page;
struct task_struct;

int hixl_local_prep(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		    const struct hixl_op_desc *d, bool nonblock, struct hixl_plan *pl);
int hixl_local_run(struct hixl_engine *eng, struct hixl_link *l, struct hixl_transfer *a,
		   const struct hixl_op_desc *d, const struct hixl_plan *pl,
		   unsigned long deadline, struct hixl_req *req);

/* A contiguous piece of the peer's memory in a chunk; its pages are held. */
struct hixl_local_seg {
	struct page *page;
	u32 off;
	u32 len;
};

int hixl_local_stop(struct hixl_xbatch *b, struct hixl_link *l, unsigned long deadline,
		    struct task_struct *submitter);
int hixl_local_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
		     u64 la, u64 ra, u64 n, struct hixl_local_seg *seg);

/**
 * struct hixl_lcopy_share - a contiguous byte range of a batch (lcopy.c)
 * @first: the descriptor it starts in
 * @off:   bytes into that descriptor
 * @pos:   its first byte's offset in the batch
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

struct hixl_region;
bool hixl_local_region_ok(struct hixl_region *r);
int hixl_local_dmabuf_chunk(struct hixl_engine *peer, u32 op, const struct hixl_region *lr,
			    u64 la, const struct hixl_region *rr, u64 ra, u64 n);

#endif /* _HIXL_LOCAL_XFER_H */
