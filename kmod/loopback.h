/* SPDX-License-Identifier: GPL-2.0 */
/* loopback.h - loopback engines; hixl_loop_lock protects their list */
#ifndef _HIXL_LOOPBACK_H
#define _HIXL_LOOPBACK_H

#include <linux/types.h>
#include <rdma/hixl.h>

struct hixl_engine;
struct hixl_link;
struct hixl_setup;

int hixl_loop_route(bool loop_engine, const struct hixl_sockaddr *dst);
bool hixl_loop_engine(const struct hixl_engine *eng);
int hixl_loop_setup(struct hixl_engine *eng, struct hixl_setup *a);
void hixl_loop_stop(struct hixl_engine *eng);
int hixl_loop_join(struct hixl_link *l, unsigned long deadline);
int hixl_loop_pair(struct hixl_link *a, struct hixl_link *p);
struct hixl_link *hixl_loop_partner_get(struct hixl_link *l);
void hixl_loop_link_gone(struct hixl_link *l);
int hixl_loop_notify(struct hixl_link *l, const u8 *data, u32 name_len, u32 msg_len);

#endif /* _HIXL_LOOPBACK_H */
