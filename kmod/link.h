/* SPDX-License-Identifier: GPL-2.0 */
/* link.h - a link: one RC connection to a peer engine.  Lock order: engine.h. */
#ifndef _HIXL_LINK_H
#define _HIXL_LINK_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include <rdma/hixl.h>
#include "region.h"
#include "ctrs.h"
#include "local.h"

struct hixl_engine;
struct rdma_cm_id;

#define HIXL_AUTH_NONCE		32	/* proto.h HIXL_AUTH_NONCE_LEN */
#define HIXL_RAIL_TOKEN		16

/* Where a link is in the secret exchange (hixl_link.auth_state). */
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

/**
 * struct hixl_link_rails - a primary link's rail links (raillink.c)
 * @lock:   protects @link[], @nr, @dying and @peer_rail[]; any context
 * @link:   rail i's link, no reference; [0] is NULL (the primary is rail 0)
 * @nr:     rails paired with the peer: min(ours, the peer's), >= 1
 * @token:  ours, random, sent in our HELLO; names the primary to rail links
 * @peer_token: the peer's, from its HELLO
 * @peer_rail: the peer's rail i address and listener port, from its HELLO
 * @dying:  the primary is being torn down: no rail link is hooked any more
 * @work:   (active) every HIXL_RAIL_RETRY_MS: reaps and remakes rail links
 * @work_on: @work may be queued; under hixl_link.lock
 */
struct hixl_link_rails {
	spinlock_t lock;
	struct hixl_link *link[HIXL_MAX_RAILS];
	u32 nr;
	u8 token[HIXL_RAIL_TOKEN];
	u8 peer_token[HIXL_RAIL_TOKEN];
	struct hixl_sockaddr peer_rail[HIXL_MAX_RAILS];
	bool dying;
	struct delayed_work work;
	bool work_on;
};

#define HIXL_CM_ENGINE	1
#define HIXL_CM_LINK	2

#define HIXL_RX_DEPTH	32	/* RECVs posted per link */
#define HIXL_SQ_DEPTH	256	/* send queue entries per link */
#define HIXL_SCQ_BATCH	16	/* send CQ: WCs per ib_poll_cq() (scq.c) */
#define HIXL_SCQ_BUDGET	65536	/* ... and per run of its worker, as IB_POLL_BUDGET_WORKQUEUE */

enum hixl_link_state {
	HIXL_LINK_CONNECTING,
	HIXL_LINK_READY,
	HIXL_LINK_ERROR,	/* broken: every call but DISCONNECT fails */
	HIXL_LINK_CLOSED,	/* being torn down */
};

/* A peer's registration; usable once all @nr_mrs arrived (@got); @seq: arrival order. */
struct hixl_rregion {
	u64 addr;
	u64 len;
	u64 seq;
	bool writable;
	bool device;
	u32 nr_mrs;
	u32 got;
	struct hixl_rmr mrs[];
};

struct hixl_link;

/**
 * struct hixl_iu - one message buffer of a link (as rtrs's struct rtrs_iu)
 * @cqe:  completion of the work request that uses the buffer
 * @link: the link
 * @buf:  the bytes, DMA-mapped; NULL if not allocated
 * @dma:  @buf's DMA address
 * @size: bytes of @buf
 * @dir:  DMA_TO_DEVICE or DMA_FROM_DEVICE
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
 * @chunk:   the blocks
 * @nchunks: blocks allocated
 * @size:    bytes
 * @sgt:     the blocks, DMA-mapped when @mapped
 * @mapped:  @sgt is DMA-mapped
 * @mr:      fast-registration MR over @sgt
 */
struct hixl_stbuf {
	struct page **chunk;
	u32 nchunks;
	size_t size;
	struct sg_table sgt;
	bool mapped;
	struct ib_mr *mr;
};

/* stage_policy=1: host descriptors below this are staged */
#define HIXL_STAGE_THRESHOLD	SZ_256K

/* stage_policy: which registered host descriptors are staged */
enum {
	HIXL_STAGE_BY_COST = 0,	/* hixl_stage_small() + hixl_stage_pays() */
	HIXL_STAGE_BY_SIZE = 1,	/* below HIXL_STAGE_THRESHOLD */
	HIXL_STAGE_MUST = 2,	/* none: only unregistered local memory */
};

/* the cost model's defaults (docs/abi.md) */
#define HIXL_STAGE_WR_NS	35000
#define HIXL_STAGE_ROUND_NS	3500000
#define HIXL_STAGE_COPY_PS	12000

/**
 * struct hixl_stage_cost - the staging cost model's constants (stage_cost.c)
 * @wr_ns:    one direct work request beyond its bytes, ns
 * @round_ns: one staging round, ns
 * @copy_ps:  the two copies of a staged byte, ps
 */
struct hixl_stage_cost {
	u32 wr_ns;
	u32 round_ns;
	u32 copy_ps;
};

/**
 * struct hixl_link_msg - a link's message channel (msg.c, msg_rx.c)
 * @post_mutex: serialises posting on the QP (a staged batch's too); protects @tx
 * @rx:         receive buffers
 * @tx:         the send buffer
 * @tx_done:    completion of its last SEND or REG_MR
 * @tx_status:  that completion's status
 * @tx_deadline: 0, or jiffies a post must complete by; under @post_mutex
 * @rx_stopped: nothing more is parsed (receive handler only)
 */
struct hixl_link_msg {
	struct mutex post_mutex;
	struct hixl_iu rx[HIXL_RX_DEPTH];
	struct hixl_iu tx;
	struct completion tx_done;
	int tx_status;
	unsigned long tx_deadline;
	bool rx_stopped;
};

/**
 * struct hixl_link_stage - a link's staging (stage.c)
 * @tx:         our staging send buffer
 * @rx:         our landing buffer (no MR: no staging)
 * @peer_iova:  the peer's landing buffer, from its HELLO
 * @peer_size:  its size; 0: the peer does not stage
 * @peer_rkey:  its rkey
 * @seq:        our STAGE_REQ in flight; this and the next three under @lock
 * @answered:   the peer's STAGE_DONE came
 * @status:     its status
 * @failed:     its failed entry
 * @busy:       a peer's STAGE_REQ is being carried out
 * @req_op:     the peer's STAGE_REQ (with @busy, under hixl_link.lock)
 * @req_count:  its entries
 * @req_seq:    its sequence number
 * @work:       carries it out
 * @reply_lock: protects @reply; not post_mutex, so mutual staging can't deadlock
 * @reply:      the STAGE_DONE send buffer
 * @reply_done: its completion
 */
struct hixl_link_stage {
	struct hixl_stbuf tx;
	struct hixl_stbuf rx;
	u64 peer_iova;
	u64 peer_size;
	u32 peer_rkey;
	u64 seq;
	bool answered;
	int status;
	u32 failed;
	bool busy;
	u32 req_op;
	u32 req_count;
	u64 req_seq;
	struct work_struct work;
	struct mutex reply_lock;
	struct hixl_iu reply;
	struct completion reply_done;
};

/**
 * struct hixl_link_xq - a link's transfer queue (xq.c)
 * @mutex:      one pump posts at a time; protects @wr
 * @lock:       protects @batches, @credits, @closed, @posting, batch counters, @ack_*, @tbl_applied
 * @batches:    batches waiting to be posted
 * @credits:    send queue entries left to transfers, of HIXL_CHAIN
 * @closed:     the link is going away
 * @work:       runs the pump when completions free entries
 * @wr:         the pump's scratch work requests
 * @planning:   TRANSFERs between reading the peer's table and queueing
 * @posting:    the pump is between taking pieces and posting them
 * @poll_spin_ns: EWMA wait of small synchronous batches that spun, ns (poll.c)
 * @poll_sleep_ns: the same for those that slept at once
 * @poll_seq:   small synchronous batches so far
 * @spare:      a freed batch kept for the next one (xq.c), or NULL
 */
struct hixl_link_xq {
	struct mutex mutex;
	spinlock_t lock;
	struct list_head batches;
	u32 credits;
	bool closed;
	struct work_struct work;
	void *wr;
	atomic_t planning;
	bool posting;
	u64 poll_spin_ns;
	u64 poll_sleep_ns;
	atomic_t poll_seq;
	void *spare;
};

/**
 * struct hixl_scq - a link's send CQ (scq.c)
 * @cq:    the CQ; NULL before it exists and once freed
 * @mutex: serialises polling @cq; protects @cq against its free
 * @work:  polls @cq after a completion event and re-arms it
 * @spinners: waiters spinning on a batch of this link
 * @event: HIXL_SCQ_EVENT: an event came while waiters spun
 * @wc:    the poller's WCs (under @mutex)
 */
struct hixl_scq {
	struct ib_cq *cq;
	struct mutex mutex;
	struct work_struct work;
	atomic_t spinners;
	unsigned long event;
	struct ib_wc wc[HIXL_SCQ_BATCH];
};

#define HIXL_SCQ_EVENT	0	/* bit of struct hixl_scq's event */

/**
 * struct hixl_link_queue_ops - what a link asks of its transfer queue
 * @init:     set up a new link's queue; 0 or -ENOMEM
 * @close:    the link is going away, its QP still exists: end its batches
 * @free:     free what @init allocated
 * @hold_ack: true if the queue holds a TABLE_ACK until earlier pieces post
 *
 * Links reach the data path (kmod/LAYERS) only through these; read-only.
 */
struct hixl_link_queue_ops {
	int (*init)(struct hixl_link *l);
	void (*close)(struct hixl_link *l);
	void (*free)(struct hixl_link *l);
	bool (*hold_ack)(struct hixl_link *l, bool fence, u64 *applied);
};

extern const struct hixl_link_queue_ops *hixl_xq_ops;

/**
 * struct hixl_rtable - the peer's region table on a link (rtable.c)
 * @lock:    protects @tree, its entries, @regions and @mrs
 * @tree:    [addr, addr + len - 1] -> struct hixl_rregion
 * @regions: regions in @tree, at most hixl_max_regions
 * @mrs:     MR entries in @tree, at most hixl_max_peer_mrs
 * @seq:     the next new region's hixl_rregion.seq
 */
struct hixl_rtable {
	struct mutex lock;
	struct maple_tree tree;
	u32 regions;
	u32 mrs;
	u64 seq;
};

/**
 * struct hixl_link_ka - a link's keep-alive (keepalive.c)
 * @work: the tick; queued only under hixl_link.lock while READY
 * @cqe:  completion of the keep-alive WRITE
 * @last: jiffies of the last sign of life (WRITE_ONCE)
 * @busy: a keep-alive WRITE is on the send queue (WRITE_ONCE)
 */
struct hixl_link_ka {
	struct delayed_work work;
	struct ib_cqe cqe;
	unsigned long last;
	bool busy;
};

/**
 * struct hixl_link - one RC connection to a peer engine
 * @cm_kind:    HIXL_CM_LINK (see struct hixl_rdma)
 * @eng:        the engine
 * @node:       in @eng->links, under @eng->links_lock
 * @ref:        one for the engine's list, one per user
 * @active:     we connected; else accepted from our listener
 * @accepting:  hixl_accept() runs and frees the link on failure (under @lock)
 * @peer:       the peer engine's name
 * @named:      @peer is known
 * @raddr:      the peer's address as connected; fixed before listing
 * @cm_id:      the connection's RDMA CM id
 * @qp:         its QP
 * @rcq:        the receive CQ (IB_POLL_WORKQUEUE)
 * @scq:        the send CQ (scq.c)
 * @cm_mutex:   protects @cm_id and an active link's QP side
 * @qp_mutex:   serialises our QP state changes (rxe does not)
 * @lock:       protects @state, @err and the CM event fields
 * @state:      enum hixl_link_state
 * @err:        why the link broke (-errno)
 * @cm_event:   the last RDMA CM event, for a waiting CONNECT
 * @cm_status:  its status
 * @cm_pending: it is not consumed yet
 * @table_sent: our HELLO, table and TABLE_END went out
 * @peer_done:  the peer's TABLE_END came in
 * @ever_ready: the link was READY once (under @lock)
 * @wq:         woken on every state or CM event change
 * @setup_work: an accepted link's publishing of our table
 * @release_work: frees a link off its engine's list
 * @hs_work:    closes an accepted link whose handshake stalls
 * @msg:        the message channel
 * @rt:         the peer's region table
 * @stage:      staging
 * @xq:         the transfer queue
 * @ka:         the keep-alive
 * @hello_seen: the peer's HELLO came in; a second one closes the link
 * @auth_state: enum hixl_auth_state (under @lock)
 * @auth_nonce: the connector's [0] and acceptor's [1] nonce (under @lock)
 * @notify_pending: notifications queued on the engine (under its notify_lock)
 * @tbl_sent:   REGION/REGION_DEL messages we sent (msg.post_mutex)
 * @tbl_acked:  how many the peer applied (under @lock)
 * @tbl_applied: the peer's table messages we applied (under xq.lock)
 * @ack_cqe:    completion of our inline TABLE_ACKs
 * @ack_held:   TABLE_ACKs wait for the queue; this and next three under xq.lock
 * @ack_busy:   a TABLE_ACK is on the send queue
 * @ack_sent:   the count the last one said
 * @ack_next:   the highest count asked for since
 * @walk:       the last table-update walk seen (under the engine's links_lock)
 * @tbl_gen:    0 until our table went out, then that generation (engine lock)
 * @ctrs:       the link's data-path counters
 * @connect_ns: ktime_get_ns() when CONNECT began
 * @loc:        its same-host pairing (under hixl_local_lock)
 * @ibdev:      the device of the link's QP (rail @rail's); fixed with the QP
 * @pd:         the PD of its QP and message buffers
 * @rail:       0: a primary link; else rail @rail's link of @parent
 * @parent:     rail links: their primary (a reference); set under rails.lock, @lock
 * @rail_up:    rail links: hixl_rail_state reported it up (under @lock)
 * @rails:      primary links: their rail links
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
	struct sockaddr_storage raddr;
	struct rdma_cm_id *cm_id;
	struct ib_cq *rcq;
	struct hixl_scq scq;
	struct ib_qp *qp;
	struct mutex cm_mutex;
	struct mutex qp_mutex;
	spinlock_t lock;
	int state;
	int err;
	int cm_event;
	int cm_status;
	bool cm_pending;
	bool table_sent;
	bool peer_done;
	bool ever_ready;
	wait_queue_head_t wq;
	struct work_struct setup_work;
	struct work_struct release_work;
	struct delayed_work hs_work;
	struct hixl_link_msg msg;
	struct hixl_rtable rt;
	struct hixl_link_stage stage;
	struct hixl_link_xq xq;
	struct hixl_link_ka ka;
	bool hello_seen;
	u8 auth_state;
	u8 auth_nonce[2][HIXL_AUTH_NONCE];
	u32 notify_pending;
	u64 tbl_sent;
	u64 tbl_acked;
	u64 tbl_applied;
	struct ib_cqe ack_cqe;
	bool ack_held;
	bool ack_busy;
	u64 ack_sent;
	u64 ack_next;
	u64 walk;
	u64 tbl_gen;
	struct hixl_ctrs ctrs;
	u64 connect_ns;
	struct hixl_link_local loc;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 rail;
	struct hixl_link *parent;
	bool rail_up;
	struct hixl_link_rails rails;
};

/* A received notification, queued on its engine. */
struct hixl_notify_ent {
	struct list_head node;
	struct hixl_link *link;		/* a reference: pending counts are per link */
	struct hixl_sockaddr from;
	u32 name_len;
	u32 msg_len;
	u8 data[];
};

bool hixl_sockaddr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b);
bool hixl_name_is_source(struct hixl_link *l, const struct hixl_sockaddr *name);
int hixl_link_state(struct hixl_link *l, int *err);
void hixl_link_fail(struct hixl_link *l, int err);
void hixl_link_abort(struct hixl_link *l, int err);
void hixl_link_check_ready(struct hixl_link *l);
void hixl_link_hs_progress(struct hixl_link *l);
bool hixl_link_usable(struct hixl_link *l);
bool hixl_link_port_up(struct hixl_link *l);
bool hixl_link_queue(struct hixl_link *l, struct work_struct *w);
bool hixl_link_unlist(struct hixl_link *l);
void hixl_link_schedule_release(struct hixl_link *l);
void hixl_link_cancel_release(struct hixl_link *l);
void hixl_release_done(struct hixl_engine *eng);
struct hixl_link *hixl_link_lookup(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
struct hixl_link *hixl_link_get(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
struct hixl_link *hixl_link_tryget(struct hixl_engine *eng, const struct hixl_sockaddr *peer);
void hixl_link_put(struct hixl_link *l);
__printf(2, 3) void hixl_link_warn(const struct hixl_link *l, const char *fmt, ...);

#endif /* _HIXL_LINK_H */
