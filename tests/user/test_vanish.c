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
 *   peer_never_receives  a peer that never posts a receive: the link the
 *                        engine's HELLO broke in its handshake is released
 *                        at the handshake's deadline, not kept listed
 *                        while the peer keeps its connection.
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

static long long van_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

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

/* Lines of debugfs links of engine @id, and how many of them say "error". */
static int van_links(uint64_t id, int *errors)
{
	char line[256], pfx[32];
	int n = 0;
	FILE *f = fopen("/sys/kernel/debug/hixl/links", "r");

	*errors = 0;
	if (!f)
		return -1;
	snprintf(pfx, sizeof(pfx), "%llu ", (unsigned long long)id);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, pfx, strlen(pfx))) {
			n++;
			*errors += strstr(line, " error ") != NULL;
		}
	fclose(f);
	return n;
}

/*
 * A peer that connects and never posts a receive: the engine's HELLO
 * cannot be delivered, its SEND times out (10 s) and breaks the link in
 * its handshake; the handshake's deadline (handshake_ms, here 12 s, after
 * the SEND's) then releases it as a half-open one, while the peer keeps
 * its connection.
 */
#define VAN_NORX_HS_MS	12000

static void peer_never_receives(void)
{
	unsigned long long hs = read_param("handshake_ms");
	long long t0, gone_ms = -1, err_ms = -1;
	int v, n = 0, errs = 0;
	uint64_t id;
	struct hp p;

	if (access("/sys/kernel/debug/hixl/links", R_OK) != 0)
		SKIP("debugfs not mounted");
	if (hx_debug_kernel() && !hx_long())
		SKIP("waits 13 s: on the stock kernels (make check-long: here too)");
	REQUIRE(hs != ~0ULL);
	REQUIRE(write_param("handshake_ms", VAN_NORX_HS_MS) == 0);
	v = hx_engine(VAN_PORT + 2, 0, 0);
	REQUIRE(v >= 0);
	id = hx_self_id(v);
	REQUIRE(id != 0);
	REQUIRE(hp_dial_norx(&p, VAN_PORT + 2) == 0);
	REQUIRE(hp_wait_established(&p, 5000) == 0);
	t0 = van_now_ms();
	while (van_now_ms() - t0 < VAN_NORX_HS_MS + 4000) {
		n = van_links(id, &errs);
		if (errs && err_ms < 0)
			err_ms = van_now_ms() - t0;
		if (n == 0) {
			gone_ms = van_now_ms() - t0;
			break;
		}
		usleep(200000);
	}
	printf("#   the link broke after %lld ms, was released after %lld ms (-1: not within %d)\n",
	       err_ms, gone_ms, VAN_NORX_HS_MS + 4000);
	CHECK(gone_ms >= 0);
	CHECK_EQ(n, 0);
	hp_close(&p);
	close(v);
	CHECK_EQ(write_param("handshake_ms", hs), 0);
}

const struct ht_test vanish_tests[] = {
	{ "peer_connect_vanish", peer_connect_vanish },
	{ "peer_never_receives", peer_never_receives },
	{ NULL, NULL },
};
