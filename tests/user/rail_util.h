/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rail_util.h - helpers of the rail tests (test_rail.c, test_rail_mr.c,
 * test_raillink.c, test_rail_xfer.c, test_rail_stats.c): the test VM's
 * rail 1, engines with it, what a test needs before it runs (feature bits,
 * rxe0 and rxe1, iproute2), this process's engine in ENGINES, a connected
 * pair with registered memory, and putting rxe0/rxe1/veth0/veth2 back as
 * tests/vm/run.sh made them.
 *
 * The test VM: rail 0 is HX_IP (10.77.0.1, rxe0 on veth0), rail 1 is
 * RAIL1_IP (10.78.0.1, rxe1 on veth2).
 */
#ifndef HIXL_TEST_RAIL_UTIL_H
#define HIXL_TEST_RAIL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <hixl/hixl.h>

#define RAIL1_IP "10.78.0.1"	/* rail 1 of the test VM: rxe1 on veth2 */

/* @ip (IPv4, else IPv6; all zero when neither parses) with @port */
struct hixl_sockaddr ru_addr(const char *ip, uint16_t port);
/*
 * SETUP @fd on HX_IP:@port with transport @transport (HIXL_TRANSPORT_*,
 * 0: the default), rail 1 (RAIL1_IP) when @rail1, the engine secret
 * @secret when not NULL: 0 or -errno.
 */
long ru_setup(int fd, uint16_t port, int rail1, uint32_t transport, const char *secret);
/* an engine set up by ru_setup() without a secret: its fd, or -1 */
int ru_engine(uint16_t port, int rail1, uint32_t transport);
/* the features GET_INFO reports, 0 when it fails */
uint64_t ru_features(int fd);

/* SKIP without rxe0 and rxe1 (the test VM's two rails) */
void ru_need_rxe(void);
/*
 * SKIP unless the module reports every bit of @feat ("the module has no
 * @what") and rxe0 and rxe1 exist: 0; -1 (printed) when GET_INFO fails.
 */
int ru_need(int fd, uint64_t feat, const char *what);
/* SKIP without the command @tool ("ip", "rdma": iproute2) */
void ru_need_tool(const char *tool);

/* this process's set-up engine on HX_IP:@port in ENGINES, or all zero */
struct hixl_engine_stat ru_engine_stat(int fd, uint16_t port);

/*
 * @len bytes mapped for engine @a (*@la) and engine @b (*@rb), each
 * registered on its engine, then @a connected to HX_IP:@pb within @ms:
 * 0, or -1 with the step that failed printed (*@la and *@rb are set to
 * what was mapped: the caller unmaps them).
 */
int ru_pair_mem(int a, int b, uint16_t pb, size_t len, uint32_t ms, uint8_t **la,
		uint8_t **rb);

/*
 * veth0 and veth2 up, rxe0 and rxe1 added back if gone or made again if
 * rxe's CM died with the netdev down (hx_rxe_restore(), failures printed):
 * what a test that changes them calls before it ends, failed or not
 */
void rail_restore(void);

#endif
