/* SPDX-License-Identifier: GPL-2.0 */
/* loop.h - helpers of the loopback engine tests (test_loopback*.c) */
#ifndef HIXL_TEST_LOOP_H
#define HIXL_TEST_LOOP_H

#include <stdint.h>
#include <hixl/hixl.h>

struct hixl_sockaddr lo_name(int family, uint16_t port);	/* 127.0.0.1 or ::1 */
int lo_setup(struct hixl_setup *s);		/* a new engine: its fd, or -errno */
int lo_eng(int family, uint16_t port);		/* lo_setup() of lo_name(family, port) */
void need_loopback(void);			/* SKIPs without HIXL_FEAT_LOOPBACK */
long lo_connect(int fd, int family, uint16_t port, uint32_t ms);
long lo_disconnect(int fd, int family, uint16_t port);
long lo_xfer(int fd, int family, uint16_t port, uint32_t op, const struct hixl_op_desc *d,
	     uint32_t n, uint32_t ms, uint32_t *failed);
long lo_links(int fd, struct hixl_link_stat *o, uint32_t *total);
int wait_links(int fd, uint32_t want, int ms);	/* 0 once the engine has want links */

void loop_dereg_mid(void);			/* test_loopback_fault.c */
void loop_closed_mid(void);
void loop_netns(void);

#endif
