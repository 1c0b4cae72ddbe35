/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pair.h - what the modes of hixl-pair share (tests/pair/hixl-pair.c):
 * TAP checks, patterns, a region at a fixed address, one TRANSFER,
 * SETUP, notifications, CONNECT with retries, a NIC up or down.
 */
#ifndef HIXL_PAIR_H
#define HIXL_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include <hixl/hixl.h>

#define REGION_ADDR	0x200000000000ULL	/* the same on both sides */
#define REGION_LEN	(8ULL << 20)
#define REGION_ADDR2	0x210000000000ULL	/* the restarted server's region */

extern int checks, fails;
void check(int ok, const char *what);				/* one TAP line */
void pattern(unsigned char *p, size_t len, unsigned int seed);
unsigned char *region_of(int fd, uint64_t addr, uint64_t len);	/* mapped, zeroed, registered */
unsigned char *region(int fd, uint64_t addr);			/* REGION_LEN of it */
int xfer(int fd, struct hixl_sockaddr peer, uint32_t op, uint64_t local, uint64_t remote,
	 uint64_t len);						/* 0 or -errno, 30 s */
int pair_setup(int fd, const char *ip, int port);
int pair_setup_rails(int fd, const char *ip, int port, const char *rail);
int wait_note(int fd, const char *name, int seconds, struct hixl_notify *n);	/* 1: it came */
int connect_retry(int fd, struct hixl_connect *c, int seconds);	/* 0 or the last -errno */
double now_ms(void);						/* CLOCK_MONOTONIC */
int nic_set(const char *ip, const char *updown);		/* the NIC holding @ip */

int rails_server(const char *ip, const char *ip2, int port, int seconds);
int rails_client(const char *ip, const char *ip2, int port, const char *peer_ip, int peer_port);

#endif
