// SPDX-License-Identifier: GPL-2.0
/*
 * test_vanish.c - peers that vanish mid-handshake (hostile
 * peers, peers that die).
 *
 *   peer_connect_vanish  200 connection requests, each peer gone 0-4 ms
 *                        after it sent its request: its REJ races the
 *                        engine's hixl_accept(), whose rdma_accept() then
 *                        fails while the link's receives flush.  That path
 *                        and a release work queued by the flush both tore
 *                        the link down (6.1: a WARNING in ib_drain_rq(),
 *                        then a NULL cm_id in rdma_destroy_qp()).  After
 *                        the churn no slot is held, a real engine links
 *                        and moves bytes, and nothing stays pinned.
 *
 * Engines live on HX_IP (rxe0 in the test VM), ports 22300-22309.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL

#define VAN_PORT	22300	/* the engine peers vanish from; +1: a real engine */
#define VAN_PEERS	200
#define VAN_MAX_US	4000	/* a peer leaves 0 .. VAN_MAX_US after its request */

static void peer_connect_vanish(void)
{
	unsigned long long old_links = read_param("max_links");
	unsigned int seed = (unsigned int)time(NULL), est = 0, dialed = 0;
	long pin0 = vm_pin_kb();
	unsigned char *src, *dst;
	struct hixl_op_desc d;
	int v, c, i, ret = -1;

	printf("#   seed %u\n", seed);
	srand(seed);
	/* few slots: a link the churn leaked would keep the real engine out */
	REQUIRE(write_param("max_links", 8) == 0);
	v = hx_engine(VAN_PORT, 4, 8);
	c = hx_engine(VAN_PORT + 1, 0, 0);
	CHECK(v >= 0 && c >= 0);
	if (v < 0 || c < 0)
		goto out;
	for (i = 0; i < VAN_PEERS; i++) {
		struct hp p;
		int r = hp_dial(&p, VAN_PORT, 0, 0, 0);

		if (r == 0) {
			dialed++;
			usleep((useconds_t)(rand() % VAN_MAX_US));
			/* established already (the engine accepted first): it leaves all the same */
			est += hp_wait_established(&p, 0) == 0;
		} else {
			printf("#   peer %d: dial: %s\n", i, strerror(-r));
		}
		hp_close(&p);
	}
	printf("#   %u of %d peers dialed, %u saw ESTABLISHED before they left\n",
	       dialed, VAN_PEERS, est);
	CHECK_EQ(dialed, VAN_PEERS);

	/* what the churn left is closed: a real engine links within 15 s */
	for (i = 0; i < 150; i++) {
		ret = hx_connect(c, VAN_PORT, 2000);
		if (ret == 0 || ret == -EISCONN)
			break;
		usleep(100000);
	}
	CHECK_EQ(ret, 0);
	src = hx_map(64 * KiB);
	dst = hx_map(64 * KiB);
	if (ret == 0 && src && dst) {
		memset(src, 0x5a, 64 * KiB);
		memset(dst, 0, 64 * KiB);
		CHECK_EQ(reg_mem(c, src, 64 * KiB, 0, NULL), 0);
		CHECK_EQ(reg_mem(v, dst, 64 * KiB, 0, NULL), 0);
		d.local_addr = (uintptr_t)src;
		d.remote_addr = (uintptr_t)dst;
		d.len = 64 * KiB;
		CHECK_EQ(hx_xfer(c, VAN_PORT, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
		CHECK(memcmp(src, dst, 64 * KiB) == 0);
	}
	close(c);
	close(v);
	c = v = -1;
	if (src)
		munmap(src, 64 * KiB);
	if (dst)
		munmap(dst, 64 * KiB);
	CHECK_EQ(vm_pin_kb(), pin0);
out:
	if (c >= 0)
		close(c);
	if (v >= 0)
		close(v);
	write_param("max_links", old_links);
}

const struct ht_test vanish_tests[] = {
	{ "peer_connect_vanish", peer_connect_vanish },
	{ NULL, NULL },
};
