/* SPDX-License-Identifier: GPL-2.0 */
/*
 * link.h - a link: one RC connection to a peer engine, and the layers that
 * use it (link.c lifetime and state, msg.c messages, cm.c RDMA CM,
 * table.c/rtable.c the region tables, notify.c, stage.c; xq.c's transfer
 * queue is xfer.h's).  Locks: in the order of engine.h; each lock's
 * purpose at its field in struct hixl_link.
 */
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

/**
 * struct hixl_link_rails - a primary link's rail links (raillink.c)
 * @lock:   protects @link[], @nr, @dying and @peer_rail[] (a spinlock:
 *          hixl_link_rail_get() runs in any context that may take one);
 *          nests inside hixl_link.lock's users only as documented in
 *          engine.h (it is innermost but for hixl_local_lock)
 * @link:   rail i's link (no reference: a rail link unhooks itself in
 *          hixl_link_destroy() before its list reference goes); [0] NULL,
 *          the primary is rail 0
 * @nr:     rails paired with the peer, >= 1: min(ours, the peer's), set
 *          by the peer's HELLO (1 before it and for a peer without rails)
 * @token:  ours, random, sent in our HELLO's rails block; an acceptor
 *          hangs a rail link off the primary whose token its HELLO names
 * @peer_token: the peer's, from its HELLO (the connector's rail links
 *          carry it)
 * @peer_rail: the peer's rail i address and listener port (i >= 1), from
 *          its HELLO: where the connector connects rail i, and the source
 *          address an acceptor requires of rail i's connection
 * @dying:  the primary is being torn down: no rail link is hooked any more
 * @work:   (active) every HIXL_RAIL_RETRY_MS while the primary is READY:
 *          destroys broken rail links and makes missing ones
 * @work_on: @work may be queued (an active primary whose CONNECT made its
 *          rails); under hixl_link.lock, as the queueing is
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

/* stage_policy=1: host descriptors below this are staged (0.2's fixed rule) */
#define HIXL_STAGE_THRESHOLD	SZ_256K

/* stage_policy: which registered host descriptors are staged (stage_cost.c) */
enum {
	HIXL_STAGE_BY_COST = 0,	/* hixl_stage_small() + hixl_stage_pays() */
	HIXL_STAGE_BY_SIZE = 1,	/* below HIXL_STAGE_THRESHOLD */
	HIXL_STAGE_MUST = 2,	/* none: only unregistered local memory */
};

/*
 * The cost model's defaults (stage_cost.c), fitted to the crossover measured on
 * rxe under QEMU/TCG (bench/results-crossover.md): a direct work request
 * costs about 40 us beyond its bytes and a staged entry about 5 us (35 us
 * saved per descriptor), a staging round about 3.5 ms, and a staged byte
 * about 12 ns more than a direct one.  So descriptors below about 2.9 KiB
 * are candidates, and tiny ones pay for a round from about 100 in a batch.
 */
#define HIXL_STAGE_WR_NS	35000
#define HIXL_STAGE_ROUND_NS	3500000
#define HIXL_STAGE_COPY_PS	12000

/**
 * struct hixl_stage_cost - the staging cost model's constants (stage_cost.c)
 * @wr_ns:    what one direct work request costs beyond its bytes, ns
 * @round_ns: one staging round: RDMA WRITE, STAGE_REQ, STAGE_DONE, ns
 * @copy_ps:  the two copies of a staged byte, ps
 */
struct hixl_stage_cost {
	u32 wr_ns;
	u32 round_ns;
	u32 copy_ps;
};

/**
 * struct hixl_link_msg - a link's message channel (msg.c, msg_rx.c)
 * @post_mutex: one poster of messages, REG_MR and staging requests at a
 *              time on the link's QP, and owner of @tx; a staged transfer
 *              holds it for its whole batch
 * @rx:         receive buffers
 * @tx, @tx_done, @tx_status: the message send buffer and the completion of
 *              its last SEND or REG_MR
 * @tx_deadline: 0, or jiffies by which a post must complete (a table
 *              update's deadline, table.c; at least HIXL_TX_MIN_MS from the
 *              post) rather than HIXL_MSG_TIMEOUT_MS; under @post_mutex
 * @rx_stopped: a bad message or a failed receive closed the link: nothing
 *              the peer sends is parsed any more (only the receive handler
 *              reads and writes it; a CQ's completions are handled one at a
 *              time)
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
 * @tx, @rx:    our staging send and landing buffers (no MR: no staging)
 * @peer_iova, @peer_rkey, @peer_size: the peer's landing buffer, from its
 *              HELLO (size 0: the peer does not stage)
 * @seq, @answered, @status, @failed: our STAGE_REQ in flight and the peer's
 *              STAGE_DONE (under hixl_link.lock; msg.post_mutex serialises
 *              requests)
 * @busy:       a STAGE_REQ of the peer is being carried out; another one
 *              before our STAGE_DONE closes the link
 * @req_op, @req_count, @req_seq, @work: the peer's STAGE_REQ, carried out
 *              by @work (written with @busy under hixl_link.lock, read
 *              once by the work under hixl_link.lock)
 * @reply_lock, @reply, @reply_done: the STAGE_DONE send path, apart from
 *              msg.post_mutex so that two engines staging to each other
 *              cannot wait on each other
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
 * @mutex:      one pump posts at a time (with @wr its scratch work requests)
 * @lock:       protects @batches, @credits, @closed, @posting, the batches'
 *              counters and, in struct hixl_link, @ack_held, @ack_busy,
 *              @ack_sent, @ack_next and @tbl_applied
 * @batches:    batches waiting to be posted (struct hixl_xbatch.q_node)
 * @credits:    send queue entries left to transfers, of HIXL_CHAIN
 * @closed:     the link is going away
 * @work:       runs the pump when completions free entries
 * @wr:         the pump's scratch work requests
 * @planning:   TRANSFERs between reading the peer's table and queueing
 *              (atomic, not under @lock)
 * @posting:    the pump is between taking pieces and posting them
 * @poll_spin_ns, @poll_sleep_ns: EWMAs of the wait of the link's small
 *              synchronous batches that spun and that slept at once, 0
 *              before the first (poll.c; READ_ONCE/WRITE_ONCE, no lock)
 * @poll_seq:   small synchronous batches so far (poll.c)
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
};

/**
 * struct hixl_scq - a link's send CQ (scq.c)
 * @cq:    the CQ of the QP's send queue, made by ib_create_cq() with
 *         scq.c's completion handler; NULL before it exists and once freed
 * @mutex: serialises the polling of @cq - its worker and a spinning
 *         synchronous waiter run its WCs' handlers under it, one at a
 *         time, in order - and protects @cq against its free
 * @work:  polls @cq after a completion event and re-arms it (hixl_cq_wq)
 * @spinners: waiters spinning on a batch of this link (poll.c): while
 *         there is one, a completion event is left to them (@event)
 * @event: HIXL_SCQ_EVENT: a completion event came while a waiter spun; the
 *         last one to stop polls and re-arms @cq in the worker's stead
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
 * @init:     set up a new link's queue (struct hixl_link_xq); 0 or -ENOMEM
 * @close:    the link is going away, its QP still exists: its batches end
 * @free:     free what @init allocated; no batch refers to the link any more
 * @hold_ack: may a table message's TABLE_ACK go now?  true: the queue
 *            holds it and sends it once what was planned against the
 *            table is posted; false: the caller sends it (@applied: the
 *            count it says either way)
 *
 * The links sit below the data path (kmod/LAYERS): a link reaches its
 * queue through these, which the data path's queue provides (xq.c,
 * hixl_xq_link_ops) and main.c sets at load, before any link can exist
 * (hixl_xq_ops).  Read-only afterwards.
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
 * @lock:       protects @tree, the hixl_rregion entries in it and the two
 *              counts
 * @tree:       [addr, addr + len - 1] -> struct hixl_rregion of the peer
 * @regions, @mrs: regions and MR entries in @tree, bounded by
 *              hixl_max_regions and hixl_max_peer_mrs
 */
struct hixl_rtable {
	struct mutex lock;
	struct maple_tree tree;
	u32 regions;
	u32 mrs;
};

/**
 * struct hixl_link_ka - a link's keep-alive (keepalive.c)
 * @work: the tick, every hixl_keepalive_ms while the link is READY; queued
 *        only under hixl_link.lock with the state READY, so none is queued
 *        after hixl_link_destroy() marked the link CLOSED
 * @cqe:  completion of the keep-alive WRITE
 * @last: jiffies of the last sign of life: a successful completion of ours
 *        or a message of the peer (hixl_link_alive(); WRITE_ONCE, no lock)
 * @busy: a keep-alive WRITE is on the send queue (WRITE_ONCE, no lock: set
 *        by the tick under msg.post_mutex, cleared by its completion)
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
 * @ref:        the engine's list holds one; users (transfers, the CONNECT
 *              that made the link, for its whole run) take one
 * @active:     we connected (CONNECT); else accepted from our listener
 * @accepting:  hixl_accept() is still running for this link and frees it
 *              itself if rdma_accept() fails, so hixl_link_abort() only
 *              marks it broken and hixl_accept() releases it afterwards
 *              (under @lock)
 * @peer:       the peer engine's name; set at CONNECT or by its HELLO
 * @named:      @peer is known
 * @raddr:      the peer's address as connected: CONNECT's destination or
 *              an accepted connection's source; set before the link is
 *              listed and never changed, so log lines read it unlocked
 * @cm_id, @qp: the connection
 * @rcq:        the receive CQ (ib_alloc_cq(), IB_POLL_WORKQUEUE: its
 *              handlers parse the peer's messages and take mutexes)
 * @scq:        the send CQ, polled by hixl (scq.c)
 * @cm_mutex:   protects @cm_id and the making of the QP side of an active
 *              link: CONNECT holds it over each attempt (it creates, uses
 *              and, after a refusal, frees them) and starts none once the
 *              link is CLOSED; hixl_link_destroy() holds it while it frees
 *              them.  The CM handler does not take it.
 * @qp_mutex:   serialises the QP state changes hixl makes outside RDMA CM's
 *              own (which hold the cm_id's qp_mutex): the CM handler's
 *              rdma_disconnect() on DISCONNECTED and hixl_link_destroy_qp()'s
 *              drain, RESET and destroy.  rxe does not serialise two
 *              ib_modify_qp() on one QP: a DISCONNECTED (the DREP to our
 *              own teardown's DREQ) moving the QP to ERR beside our RESET
 *              underflowed the QP's refcount (WARNING in rxe_enable_task()).
 *              Innermost but for spinlocks; never held while waiting for the
 *              CM handler.
 * @lock:       protects @state, @err and the CM event slot below
 * @state:      enum hixl_link_state
 * @err:        why the link broke (-errno), for the next caller
 * @cm_event, @cm_status, @cm_pending: the last RDMA CM event, for the
 *              CONNECT caller that waits for it
 * @table_sent: our HELLO, table and TABLE_END went out
 * @peer_done:  the peer's TABLE_END came in
 * @ever_ready: the link was READY once (set under @lock)
 * @wq:         woken on every state or CM event change
 * @setup_work: an accepted link's publishing of our table (on hixl_engine.wq)
 * @release_work: frees a link off its engine's list (on hixl_engine.wq)
 * @hs_work:    closes an accepted link still CONNECTING hixl_handshake_ms
 *              after the peer's CONNECT_REQUEST or the handshake's last
 *              progress (hixl_link_hs_progress())
 * @msg:        the message channel: buffers, posting (msg.c, msg_rx.c)
 * @rt:         the peer's region table (rtable.c)
 * @stage:      staging buffers and requests (stage.c)
 * @xq:         the transfer queue (xq.c)
 * @ka:         the keep-alive (keepalive.c)
 * @hello_seen: the peer's HELLO came in; its name and landing buffer are
 *              fixed from then on (a second HELLO closes the link)
 * @auth_state: enum hixl_auth_state (under @lock); with an engine secret,
 *              only AUTH_* messages are taken before HIXL_AUTH_DONE
 * @auth_nonce: the connector's [0] and the acceptor's [1] nonce of the
 *              exchange (under @lock)
 * @notify_pending: notifications of this link queued on the engine
 *              (under the engine's notify_lock)
 * @tbl_sent:   REGION/REGION_DEL messages we sent (msg.post_mutex)
 * @tbl_acked:  how many of them the peer has applied (TABLE_ACK, under @lock)
 * @tbl_applied: the peer's REGION/REGION_DEL messages we applied (RX only;
 *              under xq.lock)
 * @ack_cqe:    completion of our inline TABLE_ACK sends (nothing to do)
 * @ack_held:   TABLE_ACKs wait for the transfer queue (xq.c,
 *              hixl_xq_hold_ack()); under xq.lock, as are the next three
 * @ack_busy:   a TABLE_ACK is on the send queue
 * @ack_sent:   the count it or the last one said
 * @ack_next:   the highest count asked for since
 * @walk:       the last table-update walk that visited this link (under the
 *              engine's links_lock; hixl_next_table_link())
 * @tbl_gen:    0 until our whole table went out on this link, then the
 *              engine's table generation it went out at; from then on every
 *              table update of the engine reaches the link, READY or not
 *              (under the engine's lock, which hixl_link_publish() holds
 *              from the first region it reads to the TABLE_END it sends)
 * @ctrs:       the link's data-path counters (stats.c; atomic, no lock)
 * @connect_ns: ktime_get_ns() when CONNECT began (active links), for the
 *              connect latency; written once before the link is listed
 * @loc:        its same-host pairing (local.c; under hixl_local_lock)
 * @ibdev, @pd: the device and PD of the link's QP and message buffers:
 *              rail 0's, or rail @rail's (hixl_link_create_qp(); set before
 *              the QP exists, never changed while it does)
 * @rail:       0: a primary link; 1..: rail @rail's link of @parent
 *              (raillink.c); set before the link is listed, never changed
 * @parent:     rail links: their primary (a reference, dropped when the
 *              struct is freed); set before the link is listed (connector)
 *              or once its HELLO pairs it (acceptor, under the primary's
 *              rails.lock and @lock, never once the link is broken or
 *              CLOSED), never changed after
 * @rail_up:    rail links: hixl_rail_state said it came up and has not
 *              yet said it went (hixl_raillink_trace_down(); under @lock)
 * @rails:      primary links: their rail links (raillink.h)
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

/* A received notification, queued on its engine (notify.c). */
struct hixl_notify_ent {
	struct list_head node;
	struct hixl_link *link;		/* a reference: pending counts are per link */
	struct hixl_sockaddr from;
	u32 name_len;
	u32 msg_len;
	u8 data[];
};

/* link.c: lifetime, state, the engine's list of links */
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
