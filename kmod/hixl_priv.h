/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hixl_priv.h - internal types and prototypes of hixl.ko.
 *
 * One open file of /dev/hixl is one engine (struct hixl_engine).  Commands
 * reach an engine through hixl_engine_ioctl() (the ioctl entry point) or
 * hixl_uring_cmd() (io_uring's URING_CMD, uring.c); transfers from both end
 * in a link's transfer queue (xq.c).
 *
 * Lock order (outer first):
 *   hixl_engine.rdma_sem (read: every command, and a device removal while it
 *   tears the engine's links down; write: the device going away, engine.c,
 *   and the engine's own teardown, main.c)  >  hixl_engine.lock  >
 *   hixl_procs_lock (acct.c)  >  hixl_proc.lock  >  hixl_region.lock
 * hixl_engines_lock (main.c) is held only to walk or change hixl_engines,
 * never while waiting for an engine: debugfs takes an engine's links_lock,
 * rtable_lock and spinlocks under it, and its lock only with
 * mutex_trylock(); a device removal takes a reference on an engine and
 * drops hixl_engines_lock before it waits for that engine's rdma_sem.  So a
 * command that waits for user memory that never comes (a userfaultfd or
 * FUSE page) holds up its own engine, and the removal of its device, and
 * nobody else.
 * Links: hixl_engine.rdma_sem  >  hixl_link.cm_mutex  >  hixl_engine.lock
 * and hixl_link.post_mutex (hixl_link_destroy() waits for the link's works,
 * which take them, under cm_mutex).
 * mmu_interval_notifier_remove() is called with hixl_engine.lock held; the
 * notifier callback takes only hixl_region.lock, so that cannot deadlock.
 * Transfer queue: hixl_link.xq_mutex  >  hixl_link.xq_lock; hixl_engine.
 * xfer_lock is never held with xq_lock; hixl_link.post_mutex  >
 * hixl_link.xq_mutex (the QP is freed under both).  The CQ handler takes
 * only xq_lock and xfer_lock.
 */
#ifndef _HIXL_PRIV_H
#define _HIXL_PRIV_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/sizes.h>
#include <linux/iosys-map.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <linux/socket.h>
#include <linux/scatterlist.h>
#include <kunit/visibility.h>

#include "../uapi/hixl.h"
#include "compat.h"

/* Limits, module parameters (main.c); read them with READ_ONCE(). */
extern unsigned int hixl_max_regions;
extern unsigned long hixl_max_host_bytes;
extern unsigned long hixl_max_device_bytes;
extern unsigned int hixl_max_links;
extern unsigned int hixl_max_peer_mrs;
extern unsigned int hixl_handshake_ms;
extern unsigned int hixl_max_setup_links;

#define HIXL_NOTIFY_NAME_MAX	1024
#define HIXL_NOTIFY_MSG_MAX	1024
#define HIXL_NOTIFY_PENDING_MAX	4096
#define HIXL_TX_MIN_MS		1000	/* a post under a passed @tx_deadline still gets this */
#define HIXL_MSG_TIMEOUT_MS	10000	/* a SEND, REG_MR or STAGE_DONE completes within this */

/* Deadlines are in jiffies: hixl_deadline() makes one @ms from now. */
static inline unsigned long hixl_deadline(unsigned int ms)
{
	return jiffies + msecs_to_jiffies(ms);
}

/* Jiffies left until @deadline; 0 once it has passed. */
static inline long hixl_jiffies_left(unsigned long deadline)
{
	return time_before(jiffies, deadline) ? (long)(deadline - jiffies) : 0;
}

struct ib_device;
struct ib_pd;
struct ib_mr;
struct rdma_cm_id;
struct rdma_cm_event;

/* Largest page size a region's MR page list uses: 1 GiB. */
#define HIXL_MAX_PAGE_SHIFT	30

/* ---- acct.c: per-process registration limits ------------------------------ */

/**
 * struct hixl_proc - the registrations of one process, over all its engines
 * @node:         in hixl_procs, under hixl_procs_lock
 * @mm:           the process's mm (the key); a counted mmgrab() reference
 * @ref:          engines of this process that use this entry
 * @lock:         protects the three counters
 * @regions:      registrations, limit hixl_max_regions
 * @host_bytes:   host bytes registered, limit hixl_max_host_bytes
 * @device_bytes: device bytes registered, limit hixl_max_device_bytes
 */
struct hixl_proc {
	struct list_head node;
	struct mm_struct *mm;
	refcount_t ref;
	spinlock_t lock;
	u32 regions;
	u64 host_bytes;
	u64 device_bytes;
};

struct hixl_proc *hixl_proc_get(struct mm_struct *mm);
void hixl_proc_put(struct hixl_proc *proc);
int hixl_limit_check(u32 regions, u64 bytes, u64 add, u32 max_regions, u64 max_bytes);
int hixl_proc_charge(struct hixl_proc *proc, u32 type, u64 bytes);
void hixl_proc_uncharge(struct hixl_proc *proc, u32 type, u64 bytes);

/* ---- region.c: registered memory ------------------------------------------ */

/**
 * struct hixl_pgsz - accumulator for the largest page size a physical
 * layout allows (the idea of ib_umem_find_best_pgsz())
 * @va:      virtual address of the next piece
 * @next_pa: physical address that would continue the current run
 * @mask:    OR of every address whose low bits must be zero
 * @started: a piece was added
 */
struct hixl_pgsz {
	u64 va;
	u64 next_pa;
	u64 mask;
	bool started;
};

void hixl_pgsz_init(struct hixl_pgsz *s, u64 va);
void hixl_pgsz_add(struct hixl_pgsz *s, u64 pa, u64 len);
unsigned int hixl_pgsz_shift(const struct hixl_pgsz *s, unsigned int max_shift);
u64 hixl_pages_spanned(u64 addr, u64 len, unsigned int shift);
int hixl_range_check(u64 addr, u64 len);

/**
 * struct hixl_region - one registration
 * @eng:        owning engine
 * @handle:     index in @eng->regions, never 0
 * @addr:       first byte (user VA for host, caller's device VA for device)
 * @len:        bytes
 * @type:       HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @flags:      HIXL_REG_* flags it was registered with
 * @page_shift: log2 of the largest page size the physical layout allows
 * @pages:      the region's pages, @npages of them, from the first page
 *              holding @addr: host: pinned (and charged to mm->pinned_vm),
 *              NULL once released; device: the exporter's pages seen through
 *              @vmap, looked up when an MR needs them
 * @npages:     PAGE_SIZE pages in @pages
 * @notifier:   host: MMU interval notifier on [addr, addr + len)
 * @lock:       orders the notifier callback against registration
 *              (mmu_interval_set_seq()/mmu_interval_read_retry())
 * @live:       set once registration completed; callbacks before that only
 *              advance the sequence (registration retries)
 * @suspect:    set by the notifier for an event that may leave the pages in
 *              place (MMU_NOTIFY_CLEAR: a THP split, MADV_DONTNEED, ...);
 *              the invalidation work looks at the range again and either
 *              clears it or sets @invalid.  Transfers do not use a suspect
 *              region.
 * @event:      the mmu_notifier_event that made the region suspect or invalid
 * @invalid:    the VA range no longer maps the pinned pages (munmap, mremap,
 *              exit, or a suspect region found changed); transfers fail,
 *              pins are released by the engine's invalidation work
 * @in_tree:    the range is in @eng->ranges
 * @users:      in-flight users (transfers); DEREG_MEM returns -EBUSY while
 *              non-zero
 * @dmabuf:     device: the dma-buf, its attachment and mapping
 * @mrs:        fast-registration MRs covering the region on the engine's
 *              device, in address order; @nr_mrs of them (0 before SETUP,
 *              and after invalidation)
 * @mr_shift:   log2 of the MRs' page size
 * @mrs_registered: every MR went through IB_WR_REG_MR (engine lock)
 * @spans:      the MRs as struct hixl_rmr (key = lkey), for hixl_split()
 * @tbl_hidden: which peer tables hold the region (engine lock): 0, every
 *              link whose table went out (hixl_link.tbl_gen != 0) has it;
 *              else the table generation from which on links never got it
 *              (a table that went out while the region was invalid leaves
 *              it out; 1: no link has it, after its REGION_DEL or when it
 *              was invalid before it could be announced)
 */
struct hixl_region {
	struct hixl_engine *eng;
	u32 handle;
	u64 addr;
	u64 len;
	u32 type;
	u32 flags;
	unsigned int page_shift;
	struct page **pages;
	unsigned long npages;
	struct mmu_interval_notifier notifier;
	spinlock_t lock;
	bool live;
	bool suspect;
	bool invalid;
	int event;
	bool in_tree;
	atomic_t users;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map vmap;
	u64 dmabuf_offset;
	struct hixl_mr *mrs;
	u32 nr_mrs;
	unsigned int mr_shift;
	bool mrs_registered;
	struct hixl_rmr *spans;
	u64 tbl_hidden;
};

/**
 * struct hixl_mr - one fast-registration MR of a region (mr.c)
 * @mr:   from ib_alloc_mr(IB_MR_TYPE_MEM_REG), mapped with ib_map_mr_sg();
 *        its lkey/rkey and iova are what the transfer path uses
 * @addr: first byte of the region's address space the MR covers
 * @len:  bytes covered
 * @sgt:  the pages of [@addr, @addr + @len)
 * @dma_mapped: @sgt is DMA-mapped for the device
 */
struct hixl_mr {
	struct ib_mr *mr;
	u64 addr;
	u64 len;
	struct sg_table sgt;
	bool dma_mapped;
	bool registered;	/* IB_WR_REG_MR completed: lkey/rkey usable */
};

/* ---- auth.c: who may connect ---------------------------------------------- */

struct crypto_shash;

/**
 * struct hixl_auth - an engine's connection policy, fixed by SETUP
 * @allow:    prefixes a connection request's source must match (validated:
 *            family, length, host bits zero), @nr_allow of them; NULL:
 *            anyone may connect
 * @nr_allow: entries of @allow, 0..HIXL_MAX_ALLOWED_PEERS
 * @tfm:      "hmac(sha256)" keyed with the engine secret, NULL without one.
 *            Read-only after SETUP (no lock: crypto_shash_setkey() ran
 *            before the engine was published); the raw secret is not kept
 */
struct hixl_auth {
	struct hixl_peer_prefix *allow;
	u32 nr_allow;
	struct crypto_shash *tfm;
};

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

/**
 * struct hixl_rdma - the RDMA side of an engine, made by HIXL_IOC_SETUP
 * @cm_kind:       HIXL_CM_ENGINE: tells hixl_cm_handler() what
 *                 rdma_cm_id.context points to
 * @eng:           the engine
 * @cm_id:         RDMA CM id bound to the local address (net namespace of
 *                 the caller of SETUP); listening when the port is not 0
 * @ibdev:         the device that owns the local address
 * @pd:            the engine's protection domain (no unsafe global rkey)
 * @page_size_cap: MR page sizes the device supports
 * @max_mr_pages:  pages per fast-registration MR
 * @local:         the local address as SETUP gave it
 * @traffic_class: RDMA traffic class for the engine's QPs
 * @service_level: RDMA service level for the engine's QPs
 * @pool_buffers:  staging pool size (buffers)
 * @pool_buffer_mb: staging buffer size (MiB)
 * @auth:          who may connect (SETUP's allowed peers and secret)
 */
struct hixl_rdma {
	int cm_kind;
	struct hixl_engine *eng;
	struct rdma_cm_id *cm_id;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u64 page_size_cap;
	u32 max_mr_pages;
	struct hixl_sockaddr local;
	u32 traffic_class;
	u32 service_level;
	u32 pool_buffers;
	u32 pool_buffer_mb;
	struct hixl_auth auth;
};

/**
 * struct hixl_engine - state of one open file of /dev/hixl
 * @lock:       serialises REG_MEM/DEREG_MEM and the invalidation work;
 *              protects @regions (writes) and the region fields that those
 *              change (@pages, @npages, @in_tree)
 * @ref:        the open file's reference, and one per device removal and
 *              per queued link release that may still use the struct;
 *              the last hixl_engine_put() frees it (hixl_engine_destroy()
 *              has freed everything else by then)
 * @node:       in hixl_engines (main.c), for debugfs and device removal
 *              (engine.c), until its RDMA objects are freed
 * @ibdev:      @rdma's device, for hixl_ib_remove() to find the engine
 *              without its rdma_sem: set with @rdma, cleared when @rdma is
 *              freed (WRITE_ONCE(); read with READ_ONCE() and only compared,
 *              never dereferenced)
 * @removal_seq: the last device removal that looked at this engine; under
 *              hixl_engines_lock
 * @releases:   link releases queued on hixl_wq and not yet finished
 *              (hixl_link_schedule_release()); hixl_engine_links_destroy()
 *              waits on @release_wq for it to reach zero, so a close waits
 *              for its own links only
 * @release_wq: woken when @releases reaches zero
 * @id:         engine number, for debugfs and tracepoints
 * @owner:      thread-group leader of the opener
 * @mm:         the opener's mm (mmgrab()); memory commands from another mm
 *              get -EPERM.  NULL for an engine opened without an mm.
 * @proc:       the opener's per-process accounting
 * @memcg:      the opener's memory cgroup (a reference, may be NULL): what a
 *              peer's messages make the kernel allocate for this engine's
 *              links (its region table, queued notifications) is charged
 *              to it (hixl_rx_done(), set_active_memcg())
 * @regions:    handle -> struct hixl_region (xa_alloc_cyclic, from 1)
 * @next_handle: xa_alloc_cyclic() cursor, so a freed handle is not reused
 *              at once
 * @ranges:     [addr, addr + len - 1] -> valid struct hixl_region; no two
 *              overlap (the maple tree's own lock serialises it)
 * @inval_work: releases the pins of invalidated regions
 * @rdma:       the device side, NULL until HIXL_IOC_SETUP succeeded; set
 *              once under @lock (smp_store_release(), when SETUP can no
 *              longer fail: the listener's CM handler refuses connections
 *              until then) and never changed until destroy or the device's
 *              removal
 * @links_lock: protects @links and @nr_links (a mutex: RDMA CM handlers
 *              that add accepted links may sleep); nests inside @lock
 * @links:      struct hixl_link of this engine, connecting or connected
 * @rdma_sem:   read: held by every command, so the device side (@rdma, the
 *              links' QPs, the MRs) cannot go away under one; write: held
 *              while that side is freed, by a device removal
 *              (hixl_engine_detach(), which holds it for reading while it
 *              tears the links down) and by hixl_engine_destroy(), which
 *              holds it until the engine's RDMA objects are gone, so a
 *              removal that finds the engine later sees @rdma NULL
 * @rdma_gone:  the device was removed (commands get -ENODEV)
 * @notify_lock: protects @notifies, @notify_dropped, @notify_total and
 *              every link's @notify_pending
 * @notify_total: notifications queued, of all links (hixl_max_engine_notifies)
 * @peer_mrs:   MR entries in the peer tables of all links
 *              (hixl_max_engine_peer_mrs; atomic, each link's share changes
 *              under its own rtable_lock)
 * @notifies:   received notifications (struct hixl_notify_ent), oldest first
 * @notify_dropped: dropped since the last GET_NOTIFIES
 * @pool_free:  staging buffer credits left (SETUP's pool_buffers; a link
 *              with staging holds two)
 * @st_*:       counters for GET_STATS and debugfs (@st_refused: connection
 *              requests refused by the allowed peers; @st_auth_failed:
 *              links refused or closed for the engine secret, auth.c)
 * @link_walk:  the last table-update walk (hixl_next_table_link()); under @lock
 * @tbl_gen:    tables that began to go out on links (hixl_link_publish());
 *              under @lock
 * @xfer_lock:  protects @xfers, @uring_saved, @nr_uring_saved and the
 *              batch pointer of a URING_CMD's pdu (uring.c)
 * @uring_saved: io_uring commands read at their first issue and kept for
 *              io_uring's reissue of them (struct hixl_uring_saved, uring.c),
 *              and those io_uring dropped without issuing them again; freed
 *              at the reissue, the rest at destroy
 * @nr_uring_saved: entries on @uring_saved, at most HIXL_URING_SAVED_MAX
 */
struct hixl_engine {
	struct mutex lock;
	struct kref ref;
	struct list_head node;
	struct ib_device *ibdev;
	u64 removal_seq;
	atomic_t releases;
	wait_queue_head_t release_wq;
	u64 id;
	struct pid *owner;
	struct mm_struct *mm;
	struct hixl_proc *proc;
	struct mem_cgroup *memcg;
	struct xarray regions;
	u32 next_handle;
	struct maple_tree ranges;
	struct work_struct inval_work;
	struct hixl_rdma *rdma;
	struct mutex links_lock;
	struct list_head links;
	u32 nr_links;
	spinlock_t notify_lock;
	struct list_head notifies;
	u64 notify_dropped;
	u32 notify_total;
	atomic64_t peer_mrs;
	atomic64_t st_notify_dropped;
	atomic_t pool_free;
	atomic64_t st_regions;
	atomic64_t st_invalid;
	atomic64_t st_host_bytes;
	atomic64_t st_device_bytes;
	atomic64_t st_pinned_pages;
	atomic64_t st_invalidations;
	atomic64_t st_limit_hits;
	atomic64_t st_mrs;
	atomic64_t st_refused;
	atomic64_t st_auth_failed;
	spinlock_t xfer_lock;
	struct list_head xfers;
	struct list_head uring_saved;
	u32 nr_uring_saved;
	struct mutex cancel_mutex;
	struct rw_semaphore rdma_sem;
	bool rdma_gone;
	u64 link_walk;
	u64 tbl_gen;
};

/*
 * Is the caller the engine's process?  Commands that touch memory, the
 * device or the links are the opener's alone (-EPERM for anyone else,
 * and for an engine opened without an mm).
 */
static inline bool hixl_is_owner(const struct hixl_engine *eng)
{
	return eng->mm && current->mm == eng->mm;
}

struct hixl_engine *hixl_engine_create(void);
void hixl_engine_destroy(struct hixl_engine *eng);
void hixl_engine_put(struct hixl_engine *eng);
long hixl_engine_ioctl(struct hixl_engine *eng, unsigned int cmd,
		       void __user *uarg);

int hixl_cmd_get_info(struct hixl_engine *eng, struct hixl_info *info);
int hixl_cmd_reg_mem(struct hixl_engine *eng, struct hixl_reg_mem *arg);
int hixl_cmd_dereg_mem(struct hixl_engine *eng, struct hixl_dereg_mem *arg);
int hixl_cmd_get_stats(struct hixl_engine *eng, struct hixl_stats *arg);
int hixl_cmd_setup(struct hixl_engine *eng, struct hixl_setup *arg);

/* ---- link.c: connections between engines --------------------------------- */

#define HIXL_CM_ENGINE	1
#define HIXL_CM_LINK	2

#define HIXL_RX_DEPTH	32	/* RECVs posted per link */
#define HIXL_SQ_DEPTH	256	/* send queue entries per link */

enum hixl_link_state {
	HIXL_LINK_CONNECTING,
	HIXL_LINK_READY,
	HIXL_LINK_ERROR,	/* broken: every call but DISCONNECT fails */
	HIXL_LINK_CLOSED,	/* being torn down */
};

/*
 * One MR as the transfer path sees it: the region bytes [addr, addr + len)
 * are RDMA address iova under key.  A peer's MRs as it announced them
 * (key = rkey), and our own (key = lkey, struct hixl_region.spans).
 */
struct hixl_rmr {
	u64 addr;
	u64 len;
	u64 iova;
	u32 rkey;
};

/* One work request's worth of a descriptor (xfer.c). */
struct hixl_piece {
	u64 laddr;		/* local RDMA address */
	u64 raddr;		/* remote RDMA address */
	u32 len;
	u32 lkey;
	u32 rkey;
	u32 desc;
};

/* The pieces of a TRANSFER, and the regions it holds (users raised). */
struct hixl_plan {
	struct hixl_piece *p;
	u32 n, cap;
	struct hixl_region **held;
	u32 nheld;
};

#define HIXL_MAX_SGE_LEN	SZ_1G	/* bytes one work request moves at most */

int hixl_split(const struct hixl_rmr *lm, u32 nl, const struct hixl_rmr *rm, u32 nr,
	       u64 la, u64 ra, u64 len, u32 desc, struct hixl_plan *pl);
void hixl_plan_free(struct hixl_plan *pl);

/*
 * A peer's registration; usable once all @nr_mrs arrived (@got).  @device:
 * dma-buf memory, which the peer cannot scatter into or gather from, so
 * descriptors to it are never staged.
 */
struct hixl_rregion {
	u64 addr;
	u64 len;
	bool writable;
	bool device;
	u32 nr_mrs;
	u32 got;
	struct hixl_rmr mrs[];
};

struct hixl_link;

/**
 * struct hixl_iu - one message buffer of a link: its send buffer, a receive
 * buffer or the STAGE_DONE reply buffer (like rtrs's struct rtrs_iu; msg.c)
 * @cqe:  completion of the work request that uses the buffer
 * @link: the link
 * @buf:  the bytes, DMA-mapped; NULL when not allocated
 * @dma:  @buf's DMA address
 * @size: bytes of @buf
 * @dir:  DMA_TO_DEVICE (send, reply) or DMA_FROM_DEVICE (receive)
 */
struct hixl_iu {
	struct ib_cqe cqe;
	struct hixl_link *link;
	void *buf;
	u64 dma;
	u32 size;
	enum dma_data_direction dir;
};

/**
 * struct hixl_stbuf - a staging buffer: 2 MiB blocks under one MR (stage.c)
 * @chunk:   the blocks, @nchunks of them
 * @nchunks: blocks allocated
 * @size:    bytes
 * @sgt:     the blocks, DMA-mapped when @mapped
 * @mapped:  @sgt is DMA-mapped for the device
 * @mr:      fast-registration MR over @sgt (2 MiB pages)
 */
struct hixl_stbuf {
	struct page **chunk;
	u32 nchunks;
	size_t size;
	struct sg_table sgt;
	bool mapped;
	struct ib_mr *mr;
};

#define HIXL_STAGE_THRESHOLD	SZ_256K	/* descriptors below this are staged */

/**
 * struct hixl_link - one RC connection to a peer engine
 * @cm_kind:    HIXL_CM_LINK (see struct hixl_rdma)
 * @eng:        the engine
 * @node:       in @eng->links, under @eng->links_lock
 * @ref:        the engine's list holds one; users (transfers, the CONNECT
 *              that made the link, for its whole run) take one
 * @active:     we connected (CONNECT); else accepted from our listener
 * @accepting:  hixl_accept() is still running for this link and frees it
 *              itself if rdma_accept() fails, so hixl_link_abort() only
 *              marks it broken and hixl_accept() releases it afterwards
 *              (under @lock)
 * @peer:       the peer engine's name; set at CONNECT or by its HELLO
 * @named:      @peer is known
 * @cm_id, @cq, @qp: the connection
 * @cm_mutex:   protects @cm_id and the making of the QP side of an active
 *              link: CONNECT holds it over each attempt (it creates, uses
 *              and, after a refusal, frees them) and starts none once the
 *              link is CLOSED; hixl_link_destroy() holds it while it frees
 *              them.  The CM handler does not take it.
 * @lock:       protects @state, @err and the CM event slot below
 * @state:      enum hixl_link_state
 * @err:        why the link broke (-errno), for the next caller
 * @cm_event, @cm_status, @cm_pending: the last RDMA CM event, for the
 *              CONNECT caller that waits for it
 * @table_sent: our HELLO, table and TABLE_END went out
 * @peer_done:  the peer's TABLE_END came in
 * @wq:         woken on every state or CM event change
 * @setup_work: an accepted link's publishing of our table
 * @release_work: frees an accepted link whose peer left
 * @hs_work:    closes an accepted link still CONNECTING hixl_handshake_ms
 *              after the peer's CONNECT_REQUEST
 * @post_mutex: one poster of messages, REG_MR and staging requests at a
 *              time on @qp, and owner of @tx; a staged transfer holds
 *              it for its whole batch
 * @xq_mutex, @xq_lock, @xq, @xq_credits, @xq_closed, @xq_work, @xq_wr: the
 *              transfer queue (xq.c): one pump posts at a time (@xq_mutex,
 *              with @xq_wr its scratch work requests); @xq_lock protects
 *              the queue of batches waiting to be posted, the send queue
 *              entries left to transfers (@xq_credits, of HIXL_CHAIN) and
 *              the batches' counters; @xq_closed: the link is going away;
 *              @xq_work runs the pump when completions free entries;
 *              @xq_planning: TRANSFERs between reading @rtable and
 *              queueing; @xq_posting: the pump is between taking pieces
 *              and posting them; @ack_held: TABLE_ACKs wait (xq.c,
 *              hixl_xq_hold_ack()) - all under @xq_lock but @xq_planning
 * @tbl_applied is under @xq_lock too, and so are @ack_busy (a TABLE_ACK is
 *              on the send queue), @ack_sent (the count it or the last one
 *              said) and @ack_next (the highest count asked for since)
 * @walk:       the last table-update walk that visited this link (under the
 *              engine's links_lock; hixl_next_table_link())
 * @tbl_gen:    0 until our whole table went out on this link, then the
 *              engine's table generation it went out at; from then on every
 *              table update of the engine reaches the link, READY or not
 *              (under the engine's lock, which hixl_link_publish() holds
 *              from the first region it reads to the TABLE_END it sends)
 * @rtable_lock: protects @rtable, the hixl_rregion entries in it and the
 *              two counts below
 * @rtable:     [addr, addr + len - 1] -> struct hixl_rregion of the peer
 * @rtable_regions, @rtable_mrs: regions and MR entries in @rtable, bounded
 *              by hixl_max_regions and hixl_max_peer_mrs
 * @hello_seen: the peer's HELLO came in; its name and landing buffer are
 *              fixed from then on (a second HELLO closes the link)
 * @auth_state: enum hixl_auth_state (under @lock); with an engine secret,
 *              only AUTH_* messages are taken before HIXL_AUTH_DONE
 * @auth_nonce: the connector's [0] and the acceptor's [1] nonce of the
 *              exchange (under @lock)
 * @stage_busy: a STAGE_REQ of the peer is being carried out; another one
 *              before our STAGE_DONE closes the link
 * @rx:         receive buffers
 * @tx, @tx_done, @tx_status: the message send buffer
 *              and the completion of its last SEND or REG_MR
 * @tx_deadline: 0, or jiffies by which a post must complete (a table
 *              update's deadline, table.c; at least HIXL_TX_MIN_MS from the
 *              post) rather than HIXL_MSG_TIMEOUT_MS; under post_mutex
 * @notify_pending: notifications of this link queued on the engine
 *              (under the engine's notify_lock)
 * @st_tx, @st_rx: our staging send and landing buffers (no MR: no staging)
 * @peer_stage_iova, @peer_stage_rkey, @peer_stage_size: the peer's landing
 *              buffer, from its HELLO (size 0: the peer does not stage)
 * @stage_seq, @stage_answered, @stage_status, @stage_failed: our STAGE_REQ in
 *              flight and the peer's STAGE_DONE (under @lock; post_mutex
 *              serialises requests)
 * @req_op, @req_count, @req_seq, @stage_work: the peer's STAGE_REQ, carried out
 *              by @stage_work (written with @stage_busy under @lock, read
 *              once by the work under @lock)
 * @tbl_sent:   REGION/REGION_DEL messages we sent (post_mutex)
 * @tbl_acked:  how many of them the peer has applied (TABLE_ACK, under @lock)
 * @tbl_applied: the peer's REGION/REGION_DEL messages we applied (RX only)
 * @ack_cqe:    completion of our inline TABLE_ACK sends (nothing to do)
 * @reply_lock, @reply, @reply_done: the STAGE_DONE
 *              send path, apart from post_mutex so that two engines staging
 *              to each other cannot wait on each other
 */
struct hixl_link {
	int cm_kind;
	struct hixl_engine *eng;
	struct list_head node;
	struct kref ref;
	bool active;
	bool accepting;
	struct hixl_sockaddr peer;
	bool named;
	struct rdma_cm_id *cm_id;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct mutex cm_mutex;
	spinlock_t lock;
	int state;
	int err;
	int cm_event;
	int cm_status;
	bool cm_pending;
	bool table_sent;
	bool peer_done;
	wait_queue_head_t wq;
	struct work_struct setup_work;
	struct work_struct release_work;
	struct delayed_work hs_work;
	struct mutex post_mutex;
	struct mutex rtable_lock;
	struct maple_tree rtable;
	u32 rtable_regions;
	u32 rtable_mrs;
	bool hello_seen;
	u8 auth_state;
	u8 auth_nonce[2][HIXL_AUTH_NONCE];
	bool stage_busy;
	struct hixl_iu rx[HIXL_RX_DEPTH];
	struct hixl_iu tx;
	struct completion tx_done;
	int tx_status;
	unsigned long tx_deadline;
	u32 notify_pending;
	struct hixl_stbuf st_tx;
	struct hixl_stbuf st_rx;
	u64 peer_stage_iova;
	u64 peer_stage_size;
	u32 peer_stage_rkey;
	u64 stage_seq;
	bool stage_answered;
	int stage_status;
	u32 stage_failed;
	u32 req_op;
	u32 req_count;
	u64 req_seq;
	struct work_struct stage_work;
	struct mutex reply_lock;
	struct hixl_iu reply;
	struct completion reply_done;
	u64 tbl_sent;
	u64 tbl_acked;
	u64 tbl_applied;
	struct ib_cqe ack_cqe;
	struct mutex xq_mutex;
	spinlock_t xq_lock;
	struct list_head xq;
	u32 xq_credits;
	bool xq_closed;
	struct work_struct xq_work;
	void *xq_wr;
	atomic_t xq_planning;
	bool xq_posting;
	bool ack_held;
	bool ack_busy;
	u64 ack_sent;
	u64 ack_next;
	u64 walk;
	u64 tbl_gen;
};

/* A received notification, queued on its engine (link.c). */
struct hixl_notify_ent {
	struct list_head node;
	struct hixl_link *link;		/* a reference: pending counts are per link */
	struct hixl_sockaddr from;
	u32 name_len;
	u32 msg_len;
	u8 data[];
};

int hixl_cmd_connect(struct hixl_engine *eng, struct hixl_connect *a);
int hixl_cmd_disconnect(struct hixl_engine *eng, struct hixl_connect *a);
int hixl_cmd_send_notify(struct hixl_engine *eng, struct hixl_send_notify *a);
int hixl_cmd_get_notifies(struct hixl_engine *eng, struct hixl_get_notifies *a);
void hixl_engine_notifies_destroy(struct hixl_engine *eng);
int hixl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
void hixl_engine_links_destroy(struct hixl_engine *eng);
struct hixl_link *hixl_link_lookup(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
struct hixl_link *hixl_link_get(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
struct hixl_link *hixl_link_tryget(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
void hixl_link_put(struct hixl_link *l);
void hixl_link_fail(struct hixl_link *l, int err);
void hixl_link_abort(struct hixl_link *l, int err);
int hixl_link_state(struct hixl_link *l, int *err);
int hixl_link_reg_mrs(struct hixl_link *l, struct hixl_region *r);
int hixl_send_region(struct hixl_link *l, struct hixl_region *r);
int hixl_link_publish(struct hixl_link *l);

/* link.c: lifetime and state, used by cm.c */
struct hixl_link *hixl_link_alloc(struct hixl_engine *eng, bool active);
int hixl_link_create_qp(struct hixl_link *l);
void hixl_link_destroy_qp(struct hixl_link *l);
void hixl_link_destroy(struct hixl_link *l);
bool hixl_link_unlist(struct hixl_link *l);
void hixl_link_schedule_release(struct hixl_link *l);
void hixl_link_cancel_release(struct hixl_link *l);
void hixl_link_check_ready(struct hixl_link *l);
void hixl_link_queue(struct hixl_link *l, struct workqueue_struct *wq, struct work_struct *w);

/* msg.c: message buffers, wire names */
struct hixl_wire_name;
struct hixl_wire_hdr;
void hixl_wire_hdr_fill(struct hixl_wire_hdr *h, u16 type, u32 len);
int hixl_link_msg_alloc(struct hixl_link *l);
void hixl_link_msg_free(struct hixl_link *l);
void hixl_name_to_wire(const struct hixl_sockaddr *a, struct hixl_wire_name *w);
void hixl_name_from_wire(const struct hixl_wire_name *w, struct hixl_sockaddr *a);

/* Receive handlers, one per message type (msg.c's hixl_rx_handlers[]). */
int hixl_rx_hello(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_table_end(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_region_msg(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_region_del_msg(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_table_ack(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_notify(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_stage_req(struct hixl_link *l, const void *buf, u32 len);
int hixl_rx_stage_done(struct hixl_link *l, const void *buf, u32 len);
void hixl_ack_done(struct ib_cq *cq, struct ib_wc *wc);

/* ---- table.c: table updates to the peers ----------------------------------- */

/**
 * struct hixl_tbl_wait - the acknowledgements one table update waits for
 * @eng:      the engine
 * @deadline: jiffies by which every peer must have acknowledged
 * @ents:     each link sent the update (a reference), the count of its
 *            table messages its peer must have applied, and by when
 * @n:        entries used; @cap: entries allocated
 *
 * Owned by the one thread making the update; no lock.
 */
struct hixl_tbl_wait {
	struct hixl_engine *eng;
	unsigned long deadline;
	struct hixl_tbl_wait_ent {
		struct hixl_link *link;
		u64 want;
		unsigned long deadline;
	} *ents;
	u32 n, cap;
};

extern unsigned int hixl_table_ack_ms;
extern unsigned int hixl_max_engine_peer_mrs;
extern unsigned int hixl_max_engine_notifies;
int hixl_peer_mrs_charge(struct hixl_engine *eng, u32 nr);
void hixl_peer_mrs_uncharge(struct hixl_engine *eng, u32 nr);
void hixl_links_region_added(struct hixl_engine *eng, struct hixl_region *r,
			     struct hixl_tbl_wait *w);
void hixl_tbl_wait_finish(struct hixl_tbl_wait *w);
void hixl_links_region_removed(struct hixl_engine *eng, struct hixl_region *r);
bool hixl_sockaddr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b);

struct hixl_wire_region;
struct hixl_wire_region_del;
void hixl_rtable_clear(struct hixl_link *l);
#if IS_ENABLED(CONFIG_KUNIT)
int hixl_rx_region(struct hixl_link *l, const struct hixl_wire_region *m, u32 len);
void hixl_rx_region_del(struct hixl_link *l, const struct hixl_wire_region_del *m);
#endif

bool hixl_link_usable(struct hixl_link *l);
int hixl_post_wait(struct hixl_link *l, struct ib_send_wr *wr);
int hixl_send_msg(struct hixl_link *l, u16 type, u32 len);

/* stage.c */
int hixl_stbuf_alloc(struct hixl_link *l, struct hixl_stbuf *b, size_t size);
void hixl_stbuf_free(struct ib_device *ibdev, struct hixl_stbuf *b);
void hixl_stage_work(struct work_struct *w);
bool hixl_stage_usable(struct hixl_link *l);
int hixl_stage_status(u32 wire);
int hixl_stage_register(struct hixl_link *l);
void hixl_link_stage_alloc(struct hixl_link *l);
int hixl_stage_run(struct hixl_link *l, u32 op, const struct hixl_op_desc *d, const u32 *idx,
		   u32 n, unsigned long deadline, u32 *failed);

/* xfer.c */
int hixl_cmd_transfer(struct hixl_engine *eng, struct hixl_transfer *a);
struct io_uring_cmd;
int hixl_transfer_async(struct hixl_engine *eng, struct hixl_transfer *a,
			struct io_uring_cmd *cmd, bool nonblock, unsigned int issue_flags);
void hixl_plan_release(struct hixl_engine *eng, struct hixl_plan *pl);

/* xq.c: a link's transfer queue */
/*
 * Transfer WRs in flight per link.  The send queue's other users each keep
 * at most one request on it: the post_mutex holder (a message, REG_MR or
 * staging RDMA, hixl_post_wait()), the STAGE_DONE reply (reply_lock) and
 * one TABLE_ACK (hixl_table_ack()): 248 + 3 <= HIXL_SQ_DEPTH.
 */
#define HIXL_CHAIN	(HIXL_SQ_DEPTH - 8)

/**
 * struct hixl_xbatch - the RDMA part of one TRANSFER, queued on a link
 * @ref:      the submitter holds one, an armed timeout one
 * @eng:      the engine
 * @l:        the link (a reference, dropped when the batch is freed)
 * @eng_node: in @eng->xfers while the batch runs, under @eng->xfer_lock
 * @q_node:   in @l->xq while pieces wait to be posted, under @l->xq_lock
 * @pl:       the pieces; its held regions are released when the batch ends
 * @op:       HIXL_OP_READ or HIXL_OP_WRITE
 * @count:    descriptors of the TRANSFER (what @failed says on success)
 * @tag:      hixl_transfer.tag, for HIXL_IOC_CANCEL
 * @next:     pieces posted so far                        (under @l->xq_lock)
 * @acked:    pieces known complete, in posting order     (under @l->xq_lock)
 * @chains:   chains of work requests on the send queue   (under @l->xq_lock)
 * @queued:   on @l->xq                                   (under @l->xq_lock)
 * @submitted: hixl_xbatch_submit() queued or ended it; until then a
 *            cancel only sets @status, which submission honours
 *                                                        (under @l->xq_lock)
 * @ended:    @end_fn was called or is about to be        (under @l->xq_lock)
 * @status:   0 or the first error; once set nothing more is posted
 * @failed:   with @status, the descriptor to blame
 * @tmo:      the timeout
 * @end_fn:   called once when the batch has ended, without locks, from the
 *            CQ handler, the timeout, a cancel or the submitter
 * @done:     completed by the ioctl's @end_fn
 * @cmd:      the io_uring command (uring.c), or NULL
 */
struct hixl_xbatch {
	struct kref ref;
	struct hixl_engine *eng;
	struct hixl_link *l;
	struct list_head eng_node;
	struct list_head q_node;
	struct list_head cancel_node;
	struct hixl_plan pl;
	u32 op;
	u32 count;
	u64 tag;
	bool planning;
	u32 next;
	u32 acked;
	u32 chains;
	bool queued;
	bool submitted;
	bool ended;
	int status;
	u32 failed;
	struct delayed_work tmo;
	void (*end_fn)(struct hixl_xbatch *b);
	struct completion done;
	struct io_uring_cmd *cmd;
};

int hixl_link_xq_init(struct hixl_link *l);
void hixl_link_xq_close(struct hixl_link *l);
void hixl_link_xq_free(struct hixl_link *l);
struct hixl_xbatch *hixl_xbatch_new(struct hixl_engine *eng, struct hixl_link *l, u32 op,
				    u32 count, u64 tag);
void hixl_xbatch_put(struct hixl_xbatch *b);
void hixl_xbatch_submit(struct hixl_xbatch *b, unsigned long deadline, bool nonblock);
void hixl_xbatch_cancel(struct hixl_xbatch *b);
int hixl_xbatch_wait(struct hixl_xbatch *b, u32 *failed);
int hixl_cmd_cancel(struct hixl_engine *eng, struct hixl_cancel *a, bool nonblock);
void hixl_xq_plan_begin(struct hixl_link *l);
void hixl_xq_plan_end(struct hixl_link *l);
bool hixl_xq_hold_ack(struct hixl_link *l, bool fence, u64 *applied);
int hixl_table_ack(struct hixl_link *l, u64 applied);

/* uring.c: io_uring URING_CMD */
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
};

#define HIXL_URING_CMD_AREA	80	/* bytes of sqe->cmd on an SQE128 ring */
#define HIXL_URING_CMD_AREA_SMALL 16	/* bytes of sqe->cmd on a 64-byte SQE ring */

bool hixl_ioctl_known(unsigned int cmd);
int hixl_uring_decode(u32 cmd_op, const void *area, bool sqe128, union hixl_cmd_arg *arg);
int hixl_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);
void hixl_uring_end(struct hixl_xbatch *b);
void hixl_uring_attach(struct io_uring_cmd *cmd, struct hixl_xbatch *b, unsigned int issue_flags);
void hixl_uring_engine_destroy(struct hixl_engine *eng);

/* engine.c */
int hixl_setup_validate(const struct hixl_setup *a);
int hixl_sockaddr_to_kernel(const struct hixl_sockaddr *a, struct sockaddr_storage *ss);
void hixl_engine_rdma_stop(struct hixl_engine *eng);
int hixl_engine_no_rdma(struct hixl_engine *eng);
int hixl_ib_client_register(void);
void hixl_ib_client_unregister(void);
void hixl_engine_rdma_destroy(struct hixl_engine *eng);

/* mr.c */
unsigned int hixl_mr_shift(unsigned int region_shift, u64 page_size_cap);
u32 hixl_mr_count(u64 addr, u64 len, unsigned int shift, u32 max_pages);
void hixl_mr_zero_base(struct ib_mr *mr, u64 page_size);
int hixl_region_make_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
int hixl_region_make_mrs(struct hixl_region *r);
void hixl_region_free_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
void hixl_region_free_mrs(struct hixl_region *r);

void hixl_engine_regions_init(struct hixl_engine *eng);
void hixl_engine_regions_destroy(struct hixl_engine *eng);
struct hixl_region *hixl_region_lookup(struct hixl_engine *eng, u64 addr, u64 len);
bool hixl_range_read_only(struct hixl_engine *eng, u64 addr, u64 len);

/* dmabuf.c */
int hixl_dmabuf_map(struct hixl_region *r, int fd, u64 offset, struct hixl_pgsz *pgsz);
int hixl_dmabuf_pages(struct hixl_region *r);
void hixl_dmabuf_unmap(struct hixl_region *r);

/* debugfs.c */
void hixl_debugfs_init(void);
void hixl_debugfs_exit(void);
extern struct mutex hixl_engines_lock;
extern struct list_head hixl_engines;
extern struct device *hixl_dev;
extern struct workqueue_struct *hixl_wq;

#endif /* _HIXL_PRIV_H */
