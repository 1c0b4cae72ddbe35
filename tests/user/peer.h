/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - a wire peer for the user tests: a userspace RDMA CM client
 * (librdmacm + libibverbs) that connects to a hixl engine the way another
 * hixl.ko does and then speaks kmod/proto.h, correctly or not, as the test
 * says.  It is how the tests play a hostile or broken remote host.
 *
 * The peer owns, on its own PD: RX_DEPTH receive buffers, one send buffer,
 * a landing buffer (what its HELLO announces for staging) and a memory
 * buffer (what its REGION messages announce), both remote read/write.
 * hp_pump() answers the engine's REGION/REGION_DEL with TABLE_ACK, as a
 * hixl peer does, and hands every other message to the test.  Every REGION
 * and REGION_DEL the engine sends is also logged (struct hp.tbl; each region
 * of a REGIONS message, a new link's packed table, as a REGION), so a test
 * sees exactly which updates reached this peer's table; with hold_acks set
 * they are handed to the test unanswered instead, and hp_ack() answers them
 * when the test says (an engine's DEREG_MEM waits for that ACK holding its
 * lock; REG_MEM waits without it, table.c).
 */
#ifndef HIXL_TEST_PEER_H
#define HIXL_TEST_PEER_H

#include <stdbool.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>

#include <hixl/uapi.h>
#include "../../kmod/proto.h"

#define HP_RX_DEPTH	16
#define HP_TBL_LOG	64
#define HP_MR_LOG	64
#define HP_TX_SIZE	(2 * HIXL_MSG_SIZE)	/* room for oversized messages */

/* One REGION or REGION_DEL message of the engine, as received. */
struct hp_tbl_ent {
	uint16_t type;			/* HIXL_MSG_REGION or HIXL_MSG_REGION_DEL */
	uint32_t first;			/* REGION: index of its first MR entry */
	uint64_t addr, len;
	uint64_t mr_addr, mr_iova;	/* REGION: its first MR entry */
	uint32_t mr_rkey;
};

/* One MR entry of a REGION the engine announced, with its region's shape. */
struct hp_mr {
	uint64_t raddr, rlen;		/* the region */
	uint32_t rflags;		/* HIXL_WIRE_REGION_* */
	uint64_t addr, len, iova;	/* the entry */
	uint32_t rkey;
};

/* A received message, kept until hp_pump() hands it out. */
struct hp_msg {
	uint8_t buf[HIXL_MSG_SIZE];
	uint32_t len;
};

struct hp {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *rx;			/* HP_RX_DEPTH x HIXL_MSG_SIZE */
	uint8_t *tx;			/* HP_TX_SIZE */
	uint8_t *land;			/* landing buffer, land_len bytes */
	uint8_t *mem;			/* announced memory, mem_len bytes */
	size_t land_len, mem_len;
	struct ibv_mr *rx_mr, *tx_mr, *land_mr, *mem_mr;
	uint64_t applied;		/* engine's REGION/REGION_DEL we acked */
	uint64_t received;		/* engine's REGION/REGION_DEL received */
	bool hold_acks;			/* hand REGION/REGION_DEL to the test unacked */
	struct hp_tbl_ent tbl[HP_TBL_LOG];	/* the first HP_TBL_LOG of them */
	unsigned int ntbl;		/* entries logged in tbl */
	bool table_end;			/* the engine's TABLE_END came in */
	bool disconnected;		/* RDMA CM said DISCONNECTED */
	uint64_t acked;			/* highest TABLE_ACK count the engine sent */
	bool hold_rx;			/* leave used receive buffers unposted */
	bool no_rx;			/* hp_dial_norx(): no receive was ever posted */
	unsigned int held[HP_RX_DEPTH], nheld;
	uint8_t msg[HIXL_MSG_SIZE];	/* hp_pump(): the last message handed out */
	uint32_t msg_len;
	struct hp_msg *backlog;		/* HP_RX_DEPTH messages received, not taken */
	unsigned int nback;
	/* what the engine's HELLO announced */
	bool eng_hello;
	uint64_t eng_stage_iova, eng_stage_size;
	uint32_t eng_stage_rkey;
	/* the MR entries of the engine's regions still in its table (REGION_DEL drops them) */
	struct hp_mr mrs[HP_MR_LOG];
	unsigned int nmrs;
	struct hixl_wire_hello hello;	/* the engine's first HELLO, once hello_seen */
	bool hello_seen;
	uint8_t hello_raw[HIXL_MSG_SIZE];	/* ... all of it, blocks included */
	uint32_t hello_len;
	uint64_t max_iova;		/* largest iova of any MR entry the engine sent */
};

/*
 * Connect to the engine at HX_IP:port.  land_len and mem_len: bytes of the
 * landing and announced buffers (0: none).  Returns 0 or -errno; SKIPs when
 * the machine has no RDMA device for HX_IP.
 */
int hp_connect(struct hp *p, uint16_t port, size_t land_len, size_t mem_len);
/*
 * As hp_connect(), with a struct hixl_wire_cm_req carrying cm_flags
 * (HIXL_WIRE_CM_AUTH: "I will prove the engine secret") in the request's
 * private data; 0 sends none, as hp_connect() does.
 */
int hp_connect_cm(struct hp *p, uint16_t port, size_t land_len, size_t mem_len,
		  uint16_t cm_flags);
/*
 * As hp_connect_cm(), up to the connection request sent: returns once
 * rdma_connect() did, without waiting for the engine's answer, so a test
 * can vanish mid-handshake (hp_close()) or wait (hp_wait_established()).
 */
int hp_dial(struct hp *p, uint16_t port, size_t land_len, size_t mem_len, uint16_t cm_flags);
/* As hp_dial(), to ip:port (an engine's rail address) rather than HX_IP. */
int hp_dial_to(struct hp *p, const char *ip, uint16_t port, size_t land_len, size_t mem_len,
	       uint16_t cm_flags);
/*
 * As hp_dial(), posting no receive at all: every SEND of the engine meets
 * an empty queue (its RNR retries never end), as a hostile peer's would.
 */
int hp_dial_norx(struct hp *p, uint16_t port);
/* 0 once the connection is ESTABLISHED, or -errno (-ETIMEDOUT after ms). */
int hp_wait_established(struct hp *p, int ms);
void hp_close(struct hp *p);

/*
 * Send len bytes of p->tx as a message whose header says type/len; waits up
 * to 10 s for the SEND's completion, and at most 2 s more once the engine
 * disconnected (RDMA CM's DISCONNECTED: a SEND into a destroyed QP would
 * wait out its retries).  Returns 0, -ECONNRESET when it completed in error
 * or not within 2 s of the disconnect, -ETIMEDOUT, -EIO (post failed).
 * hp_send_raw() likewise.
 */
int hp_send(struct hp *p, uint16_t type, uint32_t len);
/*
 * Send a raw buffer as it is (headers and all), for malformed messages; up
 * to HP_TX_SIZE bytes, more than the engine's receive buffers hold.
 */
int hp_send_raw(struct hp *p, const void *buf, uint32_t len);
/* HELLO naming HX_IP:my_port, announcing the landing buffer of stage_size bytes. */
int hp_hello(struct hp *p, uint16_t my_port, uint64_t stage_size);
/* REGION: the whole memory buffer as one region with one MR, writable. */
int hp_region(struct hp *p);
int hp_table_end(struct hp *p);
/* STAGE_DONE answering seq with status (a positive errno) and failed. */
int hp_stage_done(struct hp *p, uint64_t seq, uint32_t status, uint32_t failed);

/*
 * Process what arrives for up to ms milliseconds: acks REGION/REGION_DEL,
 * notes TABLE_END and DISCONNECTED.  Returns the type of the first other
 * message (copied to p->msg), 0 on timeout, or -errno (-ECONNRESET once
 * the engine disconnected).
 */
int hp_pump(struct hp *p, int ms);
/* Post again the receive buffers left unposted while p->hold_rx was set. */
int hp_release_rx(struct hp *p);
/* HELLO, REGION, TABLE_END, then pump until the engine's TABLE_END. */
int hp_handshake(struct hp *p, uint16_t my_port, uint64_t stage_size);
/*
 * As hp_handshake() but without our TABLE_END: the engine has sent its
 * whole table and waits for ours, so its side of the link is not ready.
 * hp_table_end() finishes the exchange.
 */
int hp_handshake_open(struct hp *p, uint16_t my_port, uint64_t stage_size);
/* TABLE_ACK for every REGION/REGION_DEL received so far (hold_acks). */
int hp_ack(struct hp *p);
/* REGIONs (counting a region's first message only) or REGION_DELs logged for addr. */
unsigned int hp_tbl_count(const struct hp *p, uint16_t type, uint64_t addr);
/*
 * One RDMA WRITE (write) or READ of len bytes between local (inside p->land
 * or p->mem) and the engine's raddr/rkey; waits up to ms for its completion.
 * Returns 0, -EREMOTEIO when it completed in error (the QP is then broken;
 * the status in *wc_status when not NULL) or not within 2 s of the engine's
 * disconnect (*wc_status untouched), -ETIMEDOUT, -EINVAL (local not
 * inside our buffers), -EIO (post failed).
 */
int hp_rdma(struct hp *p, bool write, void *local, uint32_t len, uint64_t raddr,
	    uint32_t rkey, int ms, int *wc_status);
/* The logged MR entry of the engine's region at raddr covering addr, or NULL. */
const struct hp_mr *hp_mr_find(const struct hp *p, uint64_t raddr, uint64_t addr);
/* Wait up to ms for the engine to disconnect: 1 disconnected, 0 not. */
int hp_wait_disconnect(struct hp *p, int ms);

#endif
