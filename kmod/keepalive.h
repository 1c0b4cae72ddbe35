/* SPDX-License-Identifier: GPL-2.0 */
/* keepalive.h - a link's keep-alive (keepalive.c). */
#ifndef _HIXL_KEEPALIVE_H
#define _HIXL_KEEPALIVE_H

#include "link.h"

enum hixl_ka_action {
	HIXL_KA_OFF,
	HIXL_KA_WAIT,
	HIXL_KA_POST,
};

extern unsigned int hixl_keepalive_ms;
enum hixl_ka_action hixl_ka_decide(unsigned long now, unsigned long last,
				   unsigned long interval, bool busy, unsigned long *next);
int hixl_wc_errno(const struct ib_wc *wc);
void hixl_link_lost(struct hixl_link *l, const char *what);
void hixl_link_ka_init(struct hixl_link *l);
void hixl_link_ka_start(struct hixl_link *l);
void hixl_link_ka_stop(struct hixl_link *l);

/* A sign of life from the peer: restart the keep-alive interval. */
static inline void hixl_link_alive(struct hixl_link *l)
{
	WRITE_ONCE(l->ka.last, jiffies);
}

#endif /* _HIXL_KEEPALIVE_H */
