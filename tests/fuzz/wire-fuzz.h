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

/* wire-rails.c: the rail cases' set-up, the rails kind, the two-rail check */
#define RAIL1_IP	"10.78.0.1"	/* rail 1 of the victim and the legitimate engine */
#define GONE_MS		10000		/* a closed rail connection off the victim's lists */

extern bool rails_on;			/* victim and legitimate engine have two rails */
int rails_engine(uint16_t port, uint32_t pool_n, uint32_t pool_mb);
void case_rails_hello(void);
void rails_legit_check(void);
void rails_summary(void);

/* wire-rails.c: what the raillink cases use too (see each one's comment) */
extern uint8_t hbuf[HP_TX_SIZE];	/* the HELLO being built */
uint32_t hello_head(uint8_t *b, uint16_t port, const struct hp *p);
int send_hello(struct hp *p, uint32_t len);
void rails_fill(struct hixl_wire_hello_rails *x, uint32_t nr, const char *rail1,
		uint8_t *token);
const struct hixl_wire_hello_rails *rails_blk_of(const struct hp *p);
int victim_rails(uint16_t port, int *entries, int *conns, int *ready, int *foreign);
int raillinks_hostile(int *live);
void check_rails(uint16_t owner, int owned, const char *what);
int wait_table_end(struct hp *p, int ms);
bool wait_acked(struct hp *p, uint64_t n, int ms);
void expect_primary_closed(struct hp *p, uint16_t port, int keep, int send_ret,
			   const char *what);
int primary_accept(uint32_t hlen, const char *what);

/* wire-raillink.c: the raillink kind */
extern unsigned long rail_conns;	/* connections to the victim's rail 1 listener */
void case_raillink(void);
void raillink_summary(void);

#endif
