/* SPDX-License-Identifier: GPL-2.0 */
/*
 * engine.h - an engine (one open file of /dev/hixl) and hixl.ko's lock order.
 *
 * Lock order, outer first ("a > b": b may be taken under a):
 *
 *   hixl_engine.rdma_sem (read: every command, dropped while a TRANSFER
 *     waits; write: device removal, engine teardown)
 *   rdma_sem > hixl_link.cm_mutex > hixl_engine.lock, post_mutex
 *   hixl_engine.lock > hixl_procs_lock > hixl_proc.lock > hixl_region.lock
 *   hixl_engine.lock > hixl_engine.links_lock > hixl_link.rails.lock
 *     (spinlock) > a rail link's hixl_link.lock
 *   hixl_engine.lock > hixl_link.msg.post_mutex > hixl_link.qp_mutex >
 *     the cm_id's qp_mutex
 *   hixl_engine.lock > hixl_link.rt.lock
 *   post_mutex > hixl_link.xq.mutex > hixl_link.xq.lock
 *   rdma_sem > hixl_link.scq.mutex > one spinlock at a time (xq.lock,
 *     xfer_lock, hixl_link.lock, hixl_xrail.lock); never a mutex
 *   hixl_engine.cancel_mutex > xfer_lock; cancel_mutex > post_mutex
 *     (revoking CANCEL)
 *   hixl_engine.lock > hixl_loop_lock > links_lock
 *   hixl_engine.lock > a dma-buf's dma_resv lock, never the reverse;
 *     dma_resv > hixl_region.lock (the exporter's move_notify)
 *   hixl_engines_lock > links_lock, rt.lock (debugfs); an engine's lock
 *     only with mutex_trylock()
 *   hixl_engine.lock > hixl_devs_lock (a rail's revival); its holders
 *     take no other lock
 *   innermost or alone: xfer_lock (never with xq.lock), hixl_xrail.lock,
 *     hixl_local_lock, hixl_rail_listen_lock
 *
 * A same-host copy takes its engine's lock and the peer's in turn, never both.
 * No user page is faulted in under a lock that a link's teardown takes.
 *
 * Work that may wait on an engine lock runs only on that engine's own
 * workqueues (eng->wq, eng->xwork_wq); hixl_engine_lock_check() warns
 * otherwise under lockdep.  hixl_wq runs only work that takes no engine
 * lock.
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

/* features and flags accepted; kept out of uapi as ublk's UBLK_F_ALL */
#define HIXL_FEAT_ALL		(HIXL_FEAT_GET_INFO | HIXL_FEAT_REG_HOST | \
				 HIXL_FEAT_REG_DMABUF | HIXL_FEAT_INVALIDATE | \
				 HIXL_FEAT_SETUP | HIXL_FEAT_LINKS | HIXL_FEAT_TRANSFER | \
				 HIXL_FEAT_NOTIFY | HIXL_FEAT_CANCEL | HIXL_FEAT_URING_CMD | \
				 HIXL_FEAT_AUTH | HIXL_FEAT_LOCAL_ONLY | HIXL_FEAT_LISTEN_ANY | \
				 HIXL_FEAT_POLL | HIXL_FEAT_XFER_STATS | HIXL_FEAT_LOCAL | \
				 HIXL_FEAT_LOOPBACK | HIXL_FEAT_RAILS | HIXL_FEAT_CANCEL_REVOKE | \
				 HIXL_FEAT_RAIL_LINKS | HIXL_FEAT_RAIL_STRIPE | \
				 HIXL_FEAT_LINK_STATS_RAILS | HIXL_FEAT_STATS_RAILS | \
				 HIXL_FEAT_LATENCY | HIXL_FEAT_ENGINE_AUTH | \
				 HIXL_FEAT_PEER_REGIONS)
#define HIXL_REG_FLAGS_ALL	(HIXL_REG_READ_ONLY | HIXL_REG_LOCAL_ONLY)
#define HIXL_SETUP_FLAGS_ALL	(HIXL_SETUP_ALLOWED_PEERS | HIXL_SETUP_SECRET | \
				 HIXL_SETUP_LISTEN_ANY | HIXL_SETUP_RAILS | \
				 HIXL_SETUP_RAILS_AUTO)

struct crypto_shash;

/**
 * struct hixl_auth - an engine's connection policy, fixed by SETUP
 * @allow:    source prefixes a request must match; NULL: anyone
 * @nr_allow: entries of @allow
 * @tfm:      "hmac(sha256)" keyed with the engine secret, or NULL
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

static inline unsigned long hixl_deadline(unsigned int ms)
{
	return jiffies + msecs_to_jiffies(ms);
}

/* @nonblock (io_uring inline issue): only try; true if taken */
static inline bool hixl_mutex_lock_nb(struct mutex *m, bool nonblock)
{
	if (nonblock)
		return mutex_trylock(m);
	mutex_lock(m);
	return true;
}

/* names of an engine's own workqueues, checked by hixl_engine_lock_check() */
#define HIXL_ENG_WQ_NAME	"hixl_eng"
#define HIXL_XWORK_WQ_NAME	"hixl_xwork"

const char *hixl_work_queue_shared(void);
struct hixl_engine;
void hixl_engine_lock_check(const struct hixl_engine *eng);

static inline long hixl_jiffies_left(unsigned long deadline)
{
	return time_before(jiffies, deadline) ? (long)(deadline - jiffies) : 0;
}

struct ib_device;
struct ib_pd;
struct rdma_cm_id;

/**
 * struct hixl_rdma - the RDMA side of an engine, made by HIXL_IOC_SETUP
 * @cm_kind:        HIXL_CM_ENGINE
 * @eng:            the engine
 * @cm_id:          bound to the local address; listening if port != 0
 * @ibdev:          device of the local address
 * @pd:             protection domain
 * @page_size_cap:  MR page sizes the device supports
 * @max_mr_pages:   pages per fast-registration MR
 * @local:          local address as given
 * @traffic_class:  QP traffic class
 * @service_level:  QP service level
 * @pool_buffers:   staging pool size (buffers)
 * @pool_buffer_mb: staging buffer size (MiB)
 * @auth:           who may connect
 * @transport:      HIXL_TRANSPORT_*
 * @loopback:       loopback engine: no @cm_id, @ibdev or @pd
 * @loop_listen:    loopback engine accepting CONNECTs
 * @loop_listed:    on loopback.c's list
 * @loop_node:      in that list; under hixl_loop_lock
 * @loop_net:       caller's netns, held while @loop_listed
 * @rails:          rails 1..@nr_rails or NULL; device fields under eng->lock
 * @nr_rails:       0..HIXL_MAX_RAILS - 1
 * @rails_net:      caller's netns, held while @nr_rails > 0
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
 * @lock:       protects @regions writes, a region's runs/npages/pins/in_tree
 * @ref:        the file's, plus one per device removal and queued release
 * @node:       in hixl_engines
 * @ibdev:      @rdma's device; READ_ONCE(), compared only
 * @rail_ibdev: [i >= 1]: rail i's device; written under @lock
 * @removal_seq: last device removal seen; under hixl_engines_lock
 * @releases:   link releases queued on @wq
 * @release_wq: woken when @releases reaches zero
 * @id:         engine number
 * @owner:      opener's thread-group leader
 * @mm:         opener's mm; memory commands from another get -EPERM
 * @proc:       opener's per-process accounting
 * @wq:         own workqueue, for work that may wait on @lock
 * @xwork_wq:   io_uring staged and same-host batches; set with cmpxchg()
 * @memcg:      opener's memcg; charged for allocations a peer causes
 * @regions:    handle -> struct hixl_region
 * @next_handle: xa_alloc_cyclic() cursor
 * @ranges:     [addr, addr + len - 1] -> valid region
 * @inval_work: unpins invalidated regions
 * @rdma:       device side, NULL until SETUP; smp_store_release() under @lock
 * @links_lock: protects @links and @nr_links (a mutex: CM handlers sleep)
 * @links:      this engine's links
 * @nr_links:   entries of @links
 * @rdma_sem:   read by every command, written while @rdma, QPs, MRs are freed
 * @rdma_gone:  device removed: commands get -ENODEV
 * @notify_lock: protects @notifies, @notify_dropped, @notify_total, links' notify_pending
 * @notifies:   received struct hixl_notify_ent, oldest first
 * @notify_dropped: dropped since the last GET_NOTIFIES
 * @notify_wq:  poll(2) waiters
 * @notify_total: notifications queued over all links
 * @peer_mrs:   MR entries in all links' peer tables
 * @pool_free:  staging buffers left
 * @st_notify_dropped: notifications dropped
 * @st_regions: regions registered
 * @st_invalid: regions invalidated, not yet deregistered
 * @st_host_bytes: registered host memory (bytes)
 * @st_device_bytes: registered dma-buf memory (bytes)
 * @st_pinned_pages: pages pinned
 * @st_invalidations: invalidations seen
 * @st_limit_hits: registrations refused by a limit
 * @st_mrs:     MRs on every rail
 * @st_rail_mrs: [i]: MRs on rail i
 * @st_refused: requests refused by the allowed peers
 * @st_auth_failed: links refused or closed for the secret
 * @ctrs:       data-path counters, closed links' included
 * @rail_ctrs:  [i]: the same for rail i, and its failovers
 * @xfer_lock:  protects @xfers, @uring_saved, @nr_uring_saved, request<->batch pointers
 * @xfers:      batches in flight
 * @uring_saved: io_uring commands kept for reissue
 * @nr_uring_saved: entries on @uring_saved, <= HIXL_URING_SAVED_MAX
 * @cancel_mutex: one CANCEL at a time; owns every batch's cancel_node
 * @link_walk:  last table-update walk; under @lock
 * @tbl_gen:    tables published on links; under @lock
 * @local_dead: closing: no same-host copy enters; under @lock
 * @local_users: other engines' same-host copies in its regions
 * @local_wq:   woken when @local_users reaches zero
 * @closing:    hixl_engine_destroy() has begun
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

static inline bool hixl_is_owner(const struct hixl_engine *eng)
{
	return eng->mm && current->mm == eng->mm;
}

void hixl_engine_put(struct hixl_engine *eng);

/* every wait for eng->lock goes through these, for hixl_engine_lock_check() */
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

/**
 * hixl_einval() - ratelimited pr_debug() of why an argument is refused
 * @fmt: command, field and reason
 * Return: -EINVAL.
 */
#define hixl_einval(fmt, ...)	({					\
	pr_debug_ratelimited(fmt "\n", ##__VA_ARGS__);			\
	-EINVAL;							\
})

#endif /* _HIXL_ENGINE_H */
