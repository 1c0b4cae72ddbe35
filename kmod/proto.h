/* SPDX-License-Identifier: GPL-2.0 */
/* proto.h - link messages: little-endian, fixed layout, one per 4 KiB (docs/protocol.md) */
#ifndef _HIXL_PROTO_H
#define _HIXL_PROTO_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/sizes.h>
#else	/* included by the user tests' wire peer (tests/user/peer.c) */
#define SZ_64K	0x10000
#endif

#define HIXL_WIRE_MAGIC		0x4c586948	/* "HiXL" */
#define HIXL_WIRE_VERSION	1
#define HIXL_MSG_SIZE		4096

enum hixl_wire_type {
	HIXL_MSG_HELLO = 1,
	HIXL_MSG_REGION = 2,
	HIXL_MSG_REGION_DEL = 3,
	HIXL_MSG_TABLE_END = 4,
	HIXL_MSG_NOTIFY = 5,
	HIXL_MSG_STAGE_REQ = 6,
	HIXL_MSG_STAGE_DONE = 7,
	HIXL_MSG_TABLE_ACK = 8,
	HIXL_MSG_AUTH_CHALLENGE = 9,	/* connector -> acceptor: nonce */
	HIXL_MSG_AUTH_REPLY = 10,	/* acceptor -> connector: nonce, mac */
	HIXL_MSG_AUTH_PROOF = 11,	/* connector -> acceptor: mac */
	HIXL_MSG_REGIONS = 12,		/* whole regions, packed: a new link's table */
};

struct hixl_wire_hdr {
	__le32 magic;
	__le16 type;
	__le16 version;
	__le32 len;		/* bytes of the whole message */
	__le32 reserved;
};

struct hixl_wire_name {
	__le16 family;
	__le16 port;
	__le32 reserved;
	__u8 addr[16];
};

struct hixl_wire_hello {
	struct hixl_wire_hdr hdr;
	struct hixl_wire_name engine;
	__le64 stage_iova;	/* the sender's landing buffer for staged data */
	__le64 stage_size;	/* bytes; 0: the sender does not stage */
	__le32 stage_rkey;
	__le32 reserved;
};

/* optional HELLO blocks follow struct hixl_wire_hello; unknown ones are skipped */
#define HIXL_WIRE_LOCAL_MAGIC	0x434c4858	/* "XHLC" */
#define HIXL_WIRE_LOCAL_VERSION	1

struct hixl_wire_hello_local {
	__le32 magic;
	__le16 version;
	__le16 len;		/* sizeof(struct hixl_wire_hello_local) */
	__le32 flags;		/* 0; unknown bits are ignored */
	__le32 reserved;
	__u8 boot_id[16];
	__u8 token[16];
};

/* rails: a primary's HELLO carries hixl_wire_hello_rails, a rail link's hixl_wire_hello_rail */
#define HIXL_WIRE_RAILS_MAGIC	0x534c4858	/* "XHLS" */
#define HIXL_WIRE_RAILS_VERSION	1
#define HIXL_WIRE_RAIL_MAGIC	0x524c4858	/* "XHLR" */
#define HIXL_WIRE_RAIL_VERSION	1
#define HIXL_WIRE_RAIL_TOKEN	16
#define HIXL_WIRE_MAX_RAILS	8	/* HIXL_MAX_RAILS: rail 0 included */

struct hixl_wire_hello_blk {	/* the start of every HELLO block */
	__le32 magic;
	__le16 version;
	__le16 len;		/* bytes of the block, header included */
};

struct hixl_wire_hello_rails {
	__le32 magic;		/* HIXL_WIRE_RAILS_MAGIC */
	__le16 version;		/* HIXL_WIRE_RAILS_VERSION */
	__le16 len;		/* sizeof(struct hixl_wire_hello_rails) */
	__le32 nr_rails;	/* the sender's rails, rail 0 included: 1..8 */
	__le32 reserved;	/* 0 */
	__u8 token[HIXL_WIRE_RAIL_TOKEN];	/* random, per link; all zero: no rails */
	struct hixl_wire_name rail[HIXL_WIRE_MAX_RAILS - 1];	/* rails 1..nr_rails-1 */
};

struct hixl_wire_hello_rail {
	__le32 magic;		/* HIXL_WIRE_RAIL_MAGIC */
	__le16 version;		/* HIXL_WIRE_RAIL_VERSION */
	__le16 len;		/* sizeof(struct hixl_wire_hello_rail) */
	__le32 rail;		/* 1..HIXL_WIRE_MAX_RAILS - 1 */
	__le32 reserved;	/* 0 */
	__u8 token[HIXL_WIRE_RAIL_TOKEN];	/* the acceptor's, from the primary's HELLO */
};

struct hixl_wire_mr {
	__le64 addr;		/* first byte of the region covered */
	__le64 len;
	__le64 iova;		/* RDMA address of @addr */
	__le32 rkey;
	__le32 reserved;
};

#define HIXL_WIRE_REGION_WRITABLE	1
#define HIXL_WIRE_REGION_DEVICE		2	/* dma-buf memory: never staged */

struct hixl_wire_region {
	struct hixl_wire_hdr hdr;
	__le64 addr;
	__le64 len;
	__le32 flags;		/* HIXL_WIRE_REGION_* */
	__le32 nr_mrs;		/* MRs of the whole region */
	__le32 first;		/* index of mrs[0] */
	__le32 count;		/* entries in this message */
	struct hixl_wire_mr mrs[];
};

#define HIXL_WIRE_MRS_PER_MSG \
	((HIXL_MSG_SIZE - sizeof(struct hixl_wire_region)) / sizeof(struct hixl_wire_mr))

/* REGIONS: @count entries, each a struct hixl_wire_region_ent and its @nr_mrs MRs */
struct hixl_wire_regions {
	struct hixl_wire_hdr hdr;
	__le32 count;		/* entries, at least 1 */
	__le32 reserved;	/* 0 */
	__u8 ents[];
};

struct hixl_wire_region_ent {
	__le64 addr;
	__le64 len;
	__le32 flags;		/* HIXL_WIRE_REGION_* */
	__le32 nr_mrs;		/* MRs of the whole region, all in this entry */
	struct hixl_wire_mr mrs[];
};

struct hixl_wire_region_del {
	struct hixl_wire_hdr hdr;
	__le64 addr;
	__le64 len;
};

struct hixl_wire_notify {
	struct hixl_wire_hdr hdr;
	__le32 name_len;
	__le32 msg_len;
	__u8 data[];		/* name, then message */
};

/* a landing buffer starts with HIXL_STAGE_LIST bytes of {addr, len}; data follows */
#define HIXL_STAGE_LIST		SZ_64K
#define HIXL_STAGE_MAX_ENTS	(HIXL_STAGE_LIST / sizeof(struct hixl_wire_stage_ent))
#define HIXL_STAGE_SCATTER	0	/* landing buffer -> registrations (WRITE) */
#define HIXL_STAGE_GATHER	1	/* registrations -> landing buffer (READ) */

struct hixl_wire_stage_ent {
	__le64 addr;
	__le64 len;
};

struct hixl_wire_stage_req {
	struct hixl_wire_hdr hdr;
	__le32 op;
	__le32 count;		/* entries in the landing buffer's list */
	__le64 seq;
};

struct hixl_wire_stage_done {
	struct hixl_wire_hdr hdr;
	__le64 seq;
	__le32 status;		/* 0 or a positive errno */
	__le32 failed;		/* the first failing entry */
};

struct hixl_wire_ack {
	struct hixl_wire_hdr hdr;
	__le64 applied;		/* REGION and REGION_DEL messages applied so far */
};

/* mac: HMAC-SHA256(label with NUL || Nc || Na || both CM addresses as hixl_wire_name) */
#define HIXL_AUTH_NONCE_LEN	32
#define HIXL_AUTH_MAC_LEN	32
#define HIXL_AUTH_LABEL_CONNECTOR	"hixl auth v1 connector"
#define HIXL_AUTH_LABEL_ACCEPTOR	"hixl auth v1 acceptor"

struct hixl_wire_auth {
	struct hixl_wire_hdr hdr;
	__u8 nonce[HIXL_AUTH_NONCE_LEN];	/* CHALLENGE, REPLY */
	__u8 mac[HIXL_AUTH_MAC_LEN];		/* REPLY, PROOF */
};

/* RDMA CM private data: the connector's request and the acceptor's reject */
#define HIXL_WIRE_CM_AUTH	1	/* the connector will prove a secret */

struct hixl_wire_cm_req {
	__le32 magic;		/* HIXL_WIRE_MAGIC */
	__le16 version;		/* HIXL_WIRE_VERSION */
	__le16 flags;		/* HIXL_WIRE_CM_* */
};

#define HIXL_WIRE_REJ_NOT_ALLOWED	1	/* source address not allowed */
#define HIXL_WIRE_REJ_AUTH		2	/* one side has a secret, the other not */

struct hixl_wire_cm_rej {
	__le32 magic;		/* HIXL_WIRE_MAGIC */
	__le16 version;		/* HIXL_WIRE_VERSION */
	__le16 reason;		/* HIXL_WIRE_REJ_* */
};

#endif /* _HIXL_PROTO_H */
