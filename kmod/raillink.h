/* SPDX-License-Identifier: GPL-2.0 */
/* raillink.h - rail links: one more RC link per extra rail, off a primary */
#ifndef _HIXL_RAILLINK_H
#define _HIXL_RAILLINK_H

#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/hixl.h>

struct hixl_link;
struct hixl_engine;
struct hixl_wire_hello;

#define HIXL_RAIL_RETRY_MS	1000	/* the rail work re-makes broken rail links this often */

struct hixl_rdma;
struct ib_device;
struct net;
struct rdma_cm_id;
struct rdma_cm_event;

int hixl_rail_revive(struct hixl_engine *eng, u32 i);

void hixl_link_rails_init(struct hixl_link *l);
u32 hixl_link_nr_rails(struct hixl_link *l);
struct hixl_link *hixl_link_rail_get(struct hixl_link *l, u32 i);
void hixl_rail_work_arm(struct hixl_link *p);
int hixl_raillinks_connect(struct hixl_link *l, unsigned long deadline);
void hixl_raillinks_destroy(struct hixl_link *l);
void hixl_raillink_unhook(struct hixl_link *l);
void hixl_raillink_trace_up(struct hixl_link *rl, struct hixl_link *p);
void hixl_raillink_trace_down(struct hixl_link *rl, struct hixl_link *p, int err);

u32 hixl_rails_hello_fill(struct hixl_link *l, void *blk, u32 room);
int hixl_rails_hello_rx(struct hixl_link *l, const struct hixl_wire_hello *hm, u32 len,
			const struct hixl_sockaddr *name);

int hixl_raillink_attach(struct hixl_link *l, u32 i, const u8 *token,
			 const struct hixl_sockaddr *name);
u32 hixl_rail_of_device(struct hixl_engine *eng, struct ib_device *dev);
int hixl_rail_listen_one(struct hixl_rdma *rd, u32 i, struct net *net);
int hixl_rail_listen(struct hixl_rdma *rd, bool listen_any);
void hixl_rail_unlisten(struct hixl_rdma *rd);
int hixl_rail_listener_event(struct hixl_rdma *rd, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev);

#endif /* _HIXL_RAILLINK_H */
