/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire-fuzz.h - what the wire fuzzer's files share: hixl-wire-fuzz.c (the
 * driver, the victim, the hostile peer's connection, the invariants) and
 * wire-rails.c (the rail cases, tests/fuzz/README.md "Rails").
 */
#ifndef HIXL_WIRE_FUZZ_H
#define HIXL_WIRE_FUZZ_H

#include <stdbool.h>
#include <stdint.h>

#include "peer.h"

#define KiB		1024ULL
#define MiB		(1024 * KiB)
#define VPORT		21000		/* the victim */
#define LPORT		21001		/* the legitimate engine */
#define PPORT		21100		/* names the hostile peer claims: 21100-21199 */
#define CANARY_LEN	(16 * KiB)
#define A_LEN		(1 * MiB)
#define A_MIR		(768 * KiB)	/* mirrored part of A; the rest is scratch */
#define R_LEN		(256 * KiB)
#define B_LEN		(256 * KiB)	/* the victim's source for vxfer */
#define P_LAND		(2 * MiB)	/* the hostile peer's landing buffer */
#define P_MEM		(4 * MiB)	/* the hostile peer's region, and its staging copy */
#define SLOT_BASE	0x100000000000ULL	/* odd regions: 64 slots of 16 MiB */
#define SLOT_LEN	(16 * MiB)
#define WAIT_MS		5000

/* the hostile peer's names of the rail cases' second connections: 24960-24979 */
#define RPORT		24960
#define RPORT_N		20

/* hixl-wire-fuzz.c: the case's PRNG stream */
uint64_t rnd64(void);
uint64_t rnd(uint64_t n);		/* 0 .. n-1 */
bool chance(unsigned int pct);
void rnd_fill(void *p, size_t n);

/* hixl-wire-fuzz.c: the run's state */
extern int vfd, lfd;			/* victim and legitimate engines */
extern uint8_t *va, *vr, *vb;		/* A, R, B of the victim */
extern uint8_t *canary_ref, *r_ref, *a_mirror;
extern uint8_t *lbuf, *lchk;		/* the legitimate engine's buffers (2 MiB each) */
extern struct hp P;			/* the hostile peer's connection */
extern bool p_up;
extern uint16_t p_port;			/* the name P claims */
extern uint64_t p_tbl_sent;
extern unsigned long nconn;
extern bool l_linked;
extern unsigned long cur_case, violations, wf_ok, wf_total, legit_checks;
extern unsigned long n_closed_ok, n_alive_ok;

void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void peer_down(void);
int peer_connect(void);			/* P connected, nothing said; 0 or -errno */
void expect_closed(int send_ret, const char *what);
bool expect_alive(int send_ret, const char *what);
void hdr(void *buf, uint16_t type, uint32_t len);
long xfer_retry(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d, uint32_t n,
		uint32_t *failed);
bool legit_link(bool reconnect);	/* the legitimate engine linked to the victim */

/* wire-rails.c */
extern bool rails_on;			/* victim and legitimate engine have two rails */
int rails_engine(uint16_t port, uint32_t pool_n, uint32_t pool_mb);
void case_rails_hello(void);
void case_raillink(void);
void rails_legit_check(void);
void rails_summary(void);

#endif
