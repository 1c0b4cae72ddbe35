/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.h - an engine (one open file of /dev/hixl), its RDMA side, the
 * commands, the module's limits and globals - and the locking order of
 * hixl.ko, written here once.  Each lock's purpose is at its declaration:
 * struct hixl_engine and struct hixl_rdma (here), struct hixl_link
 * (link.h), struct hixl_proc and struct hixl_region (region.h),
 * hixl_engines_lock (below), hixl_procs_lock (acct.c).
 *
 * One open file of /dev/hixl is one engine (struct hixl_engine).  Commands
 * reach an engine through hixl_engine_ioctl() (the ioctl entry point) or
 * hixl_uring_cmd() (io_uring's URING_CMD, uring.c); transfers from both end
 * in a link's transfer queue (xq.c).
 *
 * Lock order (outer first):
 *   hixl_engine.rdma_sem (read: every command, but a striped TRANSFER
 *   releases it while it waits for its batch, xrail.c, as a batch through
 *   io_uring is in flight without it; and a device removal while it
 *   tears the engine's links down; write: the device going away, setup.c,
 *   and the engine's own teardown, main.c)  >  hixl_engine.lock  >
 *   hixl_procs_lock (acct.c)  >  hixl_proc.lock  >  hixl_region.lock
 * hixl_engines_lock (main.c) is held only to walk or change hixl_engines,
 * never while waiting for an engine: debugfs takes an engine's links_lock,
 * its links' rt.lock and spinlocks under it, and its lock only with
 * mutex_trylock(); a device removal takes a reference on an engine and
 * drops hixl_engines_lock before it waits for that engine's rdma_sem.  So a
 * command that waits for user memory that never comes (a userfaultfd or
 * FUSE page) holds up its own engine, and the removal of its device, and
 * nobody else.
 * Rails (setup.c, rail_revive.c): a rail's device removal holds rdma_sem for reading, then
 * for writing, as rail 0's (hixl_engine_rail_detach()); it marks the rail
 * under hixl_engine.lock  >  hixl_engine.links_lock.  hixl_rail_revive()
 * runs under rdma_sem (read) and takes engine.c's hixl_devs_lock (the
 * live devices, which hixl_ib_remove() takes alone first), then
 * hixl_engine.lock with mutex_trylock() only: a stuck engine must not
 * hold up every RDMA device's add and removal.
 * Rail links (raillink*.c): hixl_engine.links_lock  >  a primary's
 * hixl_link.rails.lock (a spinlock)  >  a rail link's hixl_link.lock; the
 * rail work takes rdma_sem for reading only with down_read_trylock(), so a
 * close or removal holding it for writing may cancel the work and wait for
 * it; raillink_accept.c's hixl_rail_listen_lock (a spinlock) is innermost.
 * Work that may wait for hixl_engine.lock without bound runs on the
 * engine's own workqueue (hixl_engine.wq), never on one that other engines
 * or the kernel share: an accepted link's setup (table publishing), a
 * link's release (it cancels the setup work), the peer's STAGE_REQ, the
 * release of invalidated pins, the rail work and a striped transfer's
 * failover.  hixl_wq runs only work that takes no engine lock.  Every
 * wait for an engine's lock goes through hixl_engine_lock() and its
 * variants, which check this under lockdep (hixl_engine_lock_check()).
 * No user page is faulted in under a lock that a link's teardown or
 * timeout takes (stage.c copies without faults under post_mutex).
 * io_uring's staged and same-host batches run from work items of xwork.c
 * on the engine's hixl_engine.xwork_wq (at most xwork_max_active at once)
 * under rdma_sem for reading, as a command: a batch that waits for a
 * peer (the same-host copy takes the peer's lock in HIXL_LCOPY_LOCK_US
 * tries, checking for CANCEL and the deadline between them, lcopy.c; a
 * staging round waits for the peer's answer) fills a slot of its own
 * engine only.  A queued batch holds no hixl_xq_plan_begin() (xrdma.c's
 * queue op), and nothing flushes that workqueue but the engine's close,
 * after its last CQE.
 * Links: hixl_engine.rdma_sem  >  hixl_link.cm_mutex  >  hixl_engine.lock
 * and hixl_link.msg.post_mutex (hixl_link_destroy() waits for the link's
 * works, which take them, under cm_mutex); hixl_engine.lock  >
 * hixl_engine.links_lock, hixl_link.msg.post_mutex and hixl_link.rt.lock;
 * hixl_link.msg.post_mutex  >  hixl_link.qp_mutex  >  RDMA CM's cm_id
 * qp_mutex (the CM handler takes hixl_link.qp_mutex alone, for its
 * rdma_disconnect()).
 * mmu_interval_notifier_remove() is called with hixl_engine.lock held; the
 * notifier callback takes only hixl_region.lock, so that cannot deadlock.
 * Transfer queue: hixl_link.xq.mutex  >  hixl_link.xq.lock;
 * hixl_engine.xfer_lock is never held with xq.lock;
 * hixl_link.msg.post_mutex  >  hixl_link.xq.mutex (the QP is freed under
 * both).  The send CQ's handlers (xq.c, msg.c, rtable.c, keepalive.c) run
 * under hixl_link.scq.mutex (scq.c), in its worker or in a spinning
 * TRANSFER's caller, which holds only rdma_sem (read) and takes scq.mutex
 * with mutex_trylock() while it spins and with mutex_lock() when it stops
 * (rdma_sem  >  scq.mutex); under it they take spinlocks only (xq.lock,
 * xfer_lock, hixl_link.lock, a striped TRANSFER's hixl_xrail.lock), one
 * at a time, and queue work: never a mutex, never rdma_sem.
 * hixl_link_destroy_qp() takes scq.mutex alone, after its drain.
 * Striped transfers (xrail*.c): hixl_xrail.lock is taken alone (no other
 * lock under it, none held but the caller's own, never xq.lock or
 * xfer_lock); its failover work takes no rdma_sem (xrail.c says why none
 * is needed), only hixl_engine.lock  >  a rail link's msg.post_mutex and
 * rt.lock, as a TRANSFER does.
 * Requests (req.c): the ioctl waits for its request without rdma_sem
 * (hixl_req_wait() releases the command's and takes it again); a
 * request's end takes only hixl_engine.xfer_lock, alone.
 * hixl_engine.cancel_mutex (one CANCEL at a time)  >  hixl_engine.xfer_lock,
 * then, dropped, hixl_link.xq.lock; a revoking CANCEL (cancel.c) takes
 * hixl_link.msg.post_mutex under cancel_mutex (hixl_xq_break()) and waits
 * for the flushes, which take only the CQ handler's locks, holding it.
 * Same-host copies (local_xfer.c): a TRANSFER takes its own engine's lock and
 * the peer engine's lock one after the other, never both; the peer's
 * regions are held by their users count and the peer's local_users, which
 * its close waits for before anything of it is freed.  hixl_local_lock (a
 * spinlock) is innermost.  The parallel copy (lcopy.c) adds no lock: its
 * workers take only what the caller's own copy takes (the peer engine's
 * lock, with mutex_trylock() for at most HIXL_LCOPY_LOCK_US, and the
 * link's xq.lock), one at a time, and the caller waits for them (a
 * completion) holding only what it holds for the inline copy.
 * Loopback engines (loopback.c): hixl_engine.lock  >  hixl_loop_lock  >
 * hixl_engine.links_lock (a loopback CONNECT lists the target's link under
 * hixl_loop_lock, holding neither engine's lock).
 * dma-buf: hixl_engine.lock  >  the buffer's dma_resv lock (dma_buf_vmap
 * at registration/SETUP, dmabuf.c; the same-host copy of a dma-buf chunk,
 * local_dmabuf.c, runs under the peer engine's lock and its
 * dma_buf_begin_cpu_access() may take it); hixl never takes an engine lock
 * under a dma_resv lock (static attachments: no move_notify).
 */
#ifndef _HIXL_ENGINE_H
#define _HIXL_ENGINE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mmu_notifier.h>
#include <linux/mutex.h>
#include <linux/printk.h>
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

#include <rdma/hixl.h>
#include "compat.h"

#include "ctrs.h"
#include "param.h"

/*
 * What this module knows: the hixl_info.features it reports and the flag
 * bits each command accepts (anything else is -EINVAL).  Kept here, not in
 * the uapi header, as ublk keeps UBLK_F_ALL in its driver: user space asks
 * the running module (GET_INFO) instead of trusting a header's mask.
 */
#define HIXL_FEAT_ALL		(HIXL_FEAT_GET_INFO | HIXL_FEAT_REG_HOST | \
				 HIXL_FEAT_REG_DMABUF | HIXL_FEAT_INVALIDATE | \
				 HIXL_FEAT_SETUP | HIXL_FEAT_LINKS | HIXL_FEAT_TRANSFER | \
				 HIXL_FEAT_NOTIFY | HIXL_FEAT_CANCEL | HIXL_FEAT_URING_CMD | \
				 HIXL_FEAT_AUTH | HIXL_FEAT_LOCAL_ONLY | HIXL_FEAT_LISTEN_ANY | \
				 HIXL_FEAT_POLL | HIXL_FEAT_XFER_STATS | HIXL_FEAT_LOCAL | \
				 HIXL_FEAT_LOOPBACK | HIXL_FEAT_RAILS | HIXL_FEAT_CANCEL_REVOKE | \
				 HIXL_FEAT_RAIL_LINKS | HIXL_FEAT_RAIL_STRIPE | \
				 HIXL_FEAT_LINK_STATS_RAILS | HIXL_FEAT_STATS_RAILS | \
				 HIXL_FEAT_LATENCY)
#define HIXL_REG_FLAGS_ALL	(HIXL_REG_READ_ONLY | HIXL_REG_LOCAL_ONLY)
#define HIXL_SETUP_FLAGS_ALL	(HIXL_SETUP_ALLOWED_PEERS | HIXL_SETUP_SECRET | \
				 HIXL_SETUP_LISTEN_ANY | HIXL_SETUP_RAILS | \
				 HIXL_SETUP_RAILS_AUTO)

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

struct hixl_proc;

#define HIXL_NOTIFY_NAME_MAX	1024
#define HIXL_NOTIFY_MSG_MAX	1024
#define HIXL_NOTIFY_PENDING_MAX	4096
#define HIXL_TX_MIN_MS		1000	/* a post past its link's msg.tx_deadline still gets this */
#define HIXL_MSG_TIMEOUT_MS	10000	/* a SEND, REG_MR or STAGE_DONE completes within this */

/* Deadlines are in jiffies: hixl_deadline() makes one @ms from now. */
static inline unsigned long hixl_deadline(unsigned int ms)
{
	return jiffies + msecs_to_jiffies(ms);
}

/*
 * Take @m, or with @nonblock (io_uring's inline issue) only if it is free:
 * true when taken.  The planners' locks (xrdma.c, xrail.c).
 */
static inline bool hixl_mutex_lock_nb(struct mutex *m, bool nonblock)
{
	if (nonblock)
		return mutex_trylock(m);
	mutex_lock(m);
	return true;
}

/* the names of an engine's own workqueues (engine.c's check, main.c, xwork.c) */
#define HIXL_ENG_WQ_NAME	"hixl_eng"
#define HIXL_XWORK_WQ_NAME	"hixl_xwork"

const char *hixl_work_queue_shared(void);
struct hixl_engine;
void hixl_engine_lock_check(const struct hixl_engine *eng);

/* Jiffies left until @deadline; 0 once it has passed. */
static inline long hixl_jiffies_left(unsigned long deadline)
{
	return time_before(jiffies, deadline) ? (long)(deadline - jiffies) : 0;
}

struct ib_device;
struct ib_pd;
struct rdma_cm_id;

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
 * @transport:     SETUP's HIXL_TRANSPORT_*: may links pair for the
 *                 same-host copy (local.c)
 * @loopback:      set up on a loopback name (loopback.c): no @cm_id,
 *                 @ibdev, @pd or MR; @transport is HIXL_TRANSPORT_LOCAL
 * @loop_listen:   a loopback engine that takes CONNECTs (a port, or
 *                 LISTEN_ANY)
 * @loop_listed:   on loopback.c's list, @loop_node, until its close
 * @loop_node:     in that list (under hixl_loop_lock)
 * @loop_net:      the network namespace of its SETUP caller, a reference
 *                 while @loop_listed: CONNECTs find it only from there
 * @rails:         the extra rails (rail 1..@nr_rails), or NULL (rail.c);
 *                 the list written before publication, then read without
 *                 a lock; each rail's device fields change under the
 *                 engine's lock (struct hixl_rail says how)
 * @nr_rails:      how many: 0..HIXL_MAX_RAILS - 1
 * @rails_net:     the SETUP caller's network namespace, a reference while
 *                 @nr_rails > 0: where hixl_rail_revive() resolves a rail
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
	u32 transport;
	bool loopback;
	bool loop_listen;
	bool loop_listed;
	struct list_head loop_node;
	struct net *loop_net;
	struct hixl_rail *rails;
	u32 nr_rails;
	struct net *rails_net;
};

/**
 * struct hixl_engine - state of one open file of /dev/hixl
 * @lock:       serialises REG_MEM/DEREG_MEM and the invalidation work;
 *              protects @regions (writes) and the region fields that those
 *              change (@runs, @npages, @folio_pins, @in_tree)
 * @ref:        the open file's reference, and one per device removal and
 *              per queued link release that may still use the struct;
 *              the last hixl_engine_put() frees it (hixl_engine_destroy()
 *              has freed everything else by then)
 * @node:       in hixl_engines (main.c), for debugfs and device removal
 *              (setup.c), until its RDMA objects are freed
 * @ibdev:      @rdma's device, for hixl_ib_remove() to find the engine
 *              without its rdma_sem: set with @rdma, cleared when @rdma is
 *              freed (WRITE_ONCE(); read with READ_ONCE() and only compared,
 *              never dereferenced)
 * @rail_ibdev: [i], i >= 1: rail i's device (hixl_rail.ibdev), for
 *              hixl_ib_remove() as @ibdev; written under @lock when the
 *              rail is published, revived or removed, read with READ_ONCE()
 *              and only compared; [0] unused (@ibdev)
 * @removal_seq: the last device removal that looked at this engine; under
 *              hixl_engines_lock
 * @releases:   link releases queued on @wq and not yet finished
 *              (hixl_link_schedule_release()); hixl_engine_links_destroy()
 *              waits on @release_wq for it to reach zero, so a close waits
 *              for its own links only
 * @release_wq: woken when @releases reaches zero
 * @id:         engine number, for debugfs and tracepoints
 * @owner:      thread-group leader of the opener
 * @mm:         the opener's mm (mmgrab()); memory commands from another mm
 *              get -EPERM.  NULL for an engine opened without an mm.
 * @proc:       the opener's per-process accounting
 * @wq:         the engine's own workqueue (unbound): every work that may
 *              wait for its lock (the lock order above), so that an engine
 *              whose lock a command holds while it waits for user memory
 *              fills no slot of a queue other engines or the kernel share;
 *              empty when the engine is destroyed (links and batches are
 *              gone, every link CLOSED, so nothing queues more), destroyed
 *              then
 * @xwork_wq:   the engine's io_uring staged and same-host batches, one
 *              work item each (xwork.c; unbound, max_active
 *              xwork_max_active when it was made); made at the engine's
 *              first such batch (most engines have none, and a workqueue's
 *              making and destroying are not cheap), set once with
 *              cmpxchg(), read with READ_ONCE(); destroyed first at the
 *              engine's close, when io_uring has every CQE
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
 *              under its own rt.lock)
 * @notifies:   received notifications (struct hixl_notify_ent), oldest first
 * @notify_dropped: dropped since the last GET_NOTIFIES
 * @notify_wq:  poll(2) waiters of the engine's file (hixl_notify_poll()):
 *              woken each time a notification is queued on @notifies
 * @pool_free:  staging buffer credits left (SETUP's pool_buffers; a link
 *              with staging holds two)
 * @st_*:       counters for GET_STATS and debugfs (@st_mrs: MRs on every
 *              rail, @st_rail_mrs[i] those on rail i; @st_refused: connection
 *              requests refused by the allowed peers; @st_auth_failed:
 *              links refused or closed for the engine secret, auth.c)
 * @ctrs:       data-path counters, its links' included, closed ones too
 *              (stats.c; atomic, no lock)
 * @rail_ctrs:  [i]: the same counters of the links on rail i (l->rail),
 *              kept for the engine's life, and rail i's failovers and
 *              re-posted bytes (railstats.c; atomic, no lock)
 * @link_walk:  the last table-update walk (hixl_next_table_link()); under @lock
 * @tbl_gen:    tables that began to go out on links (hixl_link_publish());
 *              under @lock
 * @xfer_lock:  protects @xfers, @uring_saved, @nr_uring_saved, the
 *              request pointer of a URING_CMD's pdu (uring.c) and a
 *              request's batch and cancelled mark (req.c)
 * @uring_saved: io_uring commands read at their first issue and kept for
 *              io_uring's reissue of them (struct hixl_uring_saved, uring.c),
 *              and those io_uring dropped without issuing them again; freed
 *              at the reissue, the rest at destroy
 * @nr_uring_saved: entries on @uring_saved, at most HIXL_URING_SAVED_MAX
 * @cancel_mutex: one HIXL_IOC_CANCEL at a time: its holder owns every
 *              batch's cancel_node (xq.c, hixl_cmd_cancel())
 * @local_dead: the engine closes: no same-host copy of another engine
 *              enters its regions any more (set under @lock, local.c)
 * @local_users: same-host copies of other engines inside one of its regions
 *              now (raised under @lock while @local_dead is clear)
 * @local_wq:   woken when @local_users reaches zero
 * @closing:    hixl_engine_destroy() has begun: no command of the engine
 *              runs any more.  Its close may run in a kernel work item
 *              (delayed_fput(), when a kernel thread dropped the file's
 *              last reference) and waits only for the engine's own work,
 *              so hixl_engine_lock_check() lets it be
 */
struct hixl_engine {
	struct mutex lock;
	struct kref ref;
	struct list_head node;
	struct ib_device *ibdev;
	struct ib_device *rail_ibdev[HIXL_MAX_RAILS];
	u64 removal_seq;
	atomic_t releases;
	wait_queue_head_t release_wq;
	u64 id;
	struct pid *owner;
	struct mm_struct *mm;
	struct hixl_proc *proc;
	struct workqueue_struct *wq;
	struct workqueue_struct *xwork_wq;
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
	wait_queue_head_t notify_wq;
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
	atomic64_t st_rail_mrs[HIXL_MAX_RAILS];
	atomic64_t st_refused;
	atomic64_t st_auth_failed;
	struct hixl_ctrs ctrs;
	struct hixl_ctrs rail_ctrs[HIXL_MAX_RAILS];
	spinlock_t xfer_lock;
	struct list_head xfers;
	struct list_head uring_saved;
	u32 nr_uring_saved;
	struct mutex cancel_mutex;
	struct rw_semaphore rdma_sem;
	bool rdma_gone;
	u64 link_walk;
	u64 tbl_gen;
	bool local_dead;
	atomic_t local_users;
	wait_queue_head_t local_wq;
	bool closing;
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

void hixl_engine_put(struct hixl_engine *eng);

/*
 * Every wait for an engine's lock goes through these, so that the debug
 * kernel checks the rule above (hixl_engine_lock_check()): mutex_lock(),
 * mutex_lock_killable() and hixl_mutex_lock_nb() of @eng->lock.
 */
static inline void hixl_engine_lock(struct hixl_engine *eng)
{
	hixl_engine_lock_check(eng);
	mutex_lock(&eng->lock);
}

static inline int hixl_engine_lock_killable(struct hixl_engine *eng)
{
	hixl_engine_lock_check(eng);
	return mutex_lock_killable(&eng->lock);
}

static inline bool hixl_engine_lock_nb(struct hixl_engine *eng, bool nonblock)
{
	if (!nonblock)
		hixl_engine_lock_check(eng);
	return hixl_mutex_lock_nb(&eng->lock, nonblock);
}

int hixl_sockaddr_to_kernel(const struct hixl_sockaddr *a, struct sockaddr_storage *ss);
bool hixl_loop_addr(const struct hixl_sockaddr *a);
int hixl_engine_usable(struct hixl_engine *eng);
int hixl_dev_add(struct ib_device *ibdev);
void hixl_dev_remove(struct ib_device *ibdev);
void hixl_devs_destroy(void);
void hixl_devs_live_lock(void);
void hixl_devs_live_unlock(void);
bool hixl_dev_live(struct ib_device *ibdev);

/*
 * hixl_einval() - -EINVAL for an argument the module refuses, after saying
 * why in one line naming the command and the field, e.g.
 * "return hixl_einval("REG_MEM: flags 0x%x has unknown bits", a->flags);".
 * The line goes through pr_debug_ratelimited(): dynamic debug, off until
 * "echo 'module hixl +p' > /sys/kernel/debug/dynamic_debug/control", and
 * rate-limited per site when on, so a caller cannot flood the log.
 */
#define hixl_einval(fmt, ...)	({					\
	pr_debug_ratelimited(fmt "\n", ##__VA_ARGS__);			\
	-EINVAL;							\
})

#endif /* _HIXL_ENGINE_H */
