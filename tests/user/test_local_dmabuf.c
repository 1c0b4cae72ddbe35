// SPDX-License-Identifier: GPL-2.0
/*
 * test_local_dmabuf.c - device (dma-buf) registrations on same-host links
 * (kmod/local_dmabuf.c): a udmabuf (the test VM's exporter, with
 * vmap) stands in for GPU memory; the memfd behind it is the CPU's view to
 * fill and check.  Each test proves which path ran from LINK_STATS: the
 * same-host copy counts local_bytes/local_ops, RDMA does not.
 *
 *   local_dmabuf_host     host <-> the peer's dma-buf and the initiator's
 *                         dma-buf <-> the peer's host memory, WRITE and READ,
 *                         odd offsets and lengths, byte for byte, counted as
 *                         local; transport=local on both sides takes it too
 *   local_dmabuf_dmabuf   dma-buf <-> dma-buf, both ways, byte for byte, local
 *   local_dmabuf_rdma     transport=rdma: the same bytes over rxe (no local
 *                         bytes) - the path a buffer without vmap takes
 *   local_dmabuf_novmap   an exporter without vmap falling back to RDMA:
 *                         SKIP (see the test for why it cannot exist here)
 *   local_dmabuf_dereg_mid  the peer deregisters its dma-buf region while a
 *                         batch copies into it: 0 or ERANGE at a descriptor
 *                         after the first, a new batch on it ERANGE, the
 *                         region and the buffer released (KASAN, kmemleak)
 *
 * Engines on 10.77.0.1 (rxe0 in the test VM), ports 24500-24519.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "local_util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define DVA 0x100000000000ULL	/* the device address the dma-buf region is named by */

/*
 * A udmabuf of len bytes: its dma-buf fd in *fd (-1 on failure, counted),
 * *cpu its CPU view (SKIP without /dev/udmabuf).
 */
static void dbuf(size_t len, uint8_t **cpu, int *fd)
{
	int memfd;

	*fd = make_udmabuf(len, &memfd);
	if (*fd == -ENOENT)
		SKIP("/dev/udmabuf missing (CONFIG_UDMABUF)");
	REQUIRE(*fd >= 0);
	*cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	close(memfd);
	if (*cpu == MAP_FAILED) {
		close(*fd);
		*fd = -1;
	}
	REQUIRE(*fd >= 0);
}

/* One side of a round trip: a registered address, and where the CPU sees it. */
struct side {
	uint64_t addr;		/* in descriptors */
	uint8_t *cpu;		/* the same bytes for memcmp() */
};

/*
 * Engine a (initiator) WRITEs len bytes from as into bs in four odd
 * pieces, the last ending at the buffers' end, then READs them back into
 * as + len shifted by 3 bytes; byte for byte.  as has 2 x len bytes.
 * Returns the bytes moved (for the counters).
 */
static uint64_t roundtrip(int a, uint16_t pb, struct side as, struct side bs, size_t len,
			  unsigned int seed)
{
	struct hixl_op_desc d[4];
	uint32_t failed = 0;
	uint64_t want = 0;

	hx_fill(as.cpu, len, seed);
	memset(bs.cpu, 0xee, len);
	d[0] = (struct hixl_op_desc){ as.addr, bs.addr, 1 };
	d[1] = (struct hixl_op_desc){ as.addr + 1, bs.addr + 1, 4095 + 17 };
	d[2] = (struct hixl_op_desc){ as.addr + 4113, bs.addr + 4113, len / 2 - 4113 };
	d[3] = (struct hixl_op_desc){ as.addr + len / 2, bs.addr + len / 2, len / 2 };
	for (int i = 0; i < 4; i++)
		want += d[i].len;
	CHECK_EQ(hx_xfer(a, pb, HIXL_OP_WRITE, d, 4, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(as.cpu, bs.cpu, len), -1);
	memset(as.cpu + len, 0, len);
	d[0] = (struct hixl_op_desc){ as.addr + len + 3, bs.addr + 3, len - 3 };
	CHECK_EQ(hx_xfer(a, pb, HIXL_OP_READ, d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(as.cpu + len + 3, bs.cpu + 3, len - 3), -1);
	return want + len - 3;
}

/* The counters of a's link after n_ops descriptors of `bytes` bytes. */
static void check_path(int a, uint64_t bytes, uint64_t n_ops, bool local)
{
	struct hixl_link_stat st;

	REQUIRE(lu_link0(a, &st) == 0);
	printf("#   local %s: local_bytes %llu local_ops %llu direct %llu\n",
	       local ? "expected" : "not expected", (unsigned long long)st.xfer.local_bytes,
	       (unsigned long long)st.xfer.local_ops,
	       (unsigned long long)(st.xfer.write_direct_bytes + st.xfer.read_direct_bytes));
	CHECK_EQ(!!(st.flags & HIXL_LINK_STAT_LOCAL), local);
	CHECK_EQ(st.xfer.local_bytes, local ? bytes : 0);
	CHECK_EQ(st.xfer.local_ops, local ? n_ops : 0);
	CHECK_EQ(st.xfer.write_direct_bytes + st.xfer.read_direct_bytes, bytes);
}

/*
 * host <-> dma-buf on a link with transport t on both ends: A's host
 * memory and B's dma-buf, then B initiating from its dma-buf into A's host
 * memory over the link B itself makes.
 */
static void host_dev(uint16_t pa, uint16_t pb, uint32_t t, bool local)
{
	const size_t len = 2 * MiB;
	uint8_t *host = hx_map(2 * len), *dev, *host2 = hx_map(len), *dev2;
	int fb = -1, fa = -1, a, b, a2, b2;
	uint64_t moved;

	dbuf(len, &dev, &fb);
	dbuf(2 * len, &dev2, &fa);
	REQUIRE(host && host2 && fa >= 0 && fb >= 0);
	REQUIRE(lu_pair(pa, t, pb, t, &a, &b) == 0);
	REQUIRE(reg_mem(a, host, 2 * len, 0, NULL) == 0);
	REQUIRE(reg_dev(b, DVA, len, fb, 0, NULL) == 0);
	moved = roundtrip(a, pb, (struct side){ (uintptr_t)host, host },
			  (struct side){ DVA, dev }, len, 51);
	check_path(a, moved, 5, local);
	close(a);
	close(b);

	/* the initiator's side is the dma-buf (at an offset in the buffer) */
	REQUIRE(lu_pair(pa + 2, t, pb + 2, t, &a2, &b2) == 0);
	REQUIRE(reg_dev(a2, DVA, len * 2 - 4 * KiB, fa, 4 * KiB, NULL) == 0);
	REQUIRE(reg_mem(b2, host2, len, 0, NULL) == 0);
	moved = roundtrip(a2, pb + 2, (struct side){ DVA, dev2 + 4 * KiB },
			  (struct side){ (uintptr_t)host2, host2 }, len - 4 * KiB, 52);
	check_path(a2, moved, 5, local);
	close(a2);
	close(b2);
	close(fa);
	close(fb);
}

static void local_dmabuf_host(void)
{
	host_dev(24500, 24501, HIXL_TRANSPORT_AUTO, true);
	/* forced local: a dma-buf with vmap does not make the batch EOPNOTSUPP */
	host_dev(24504, 24505, HIXL_TRANSPORT_LOCAL, true);
}

static void local_dmabuf_dmabuf(void)
{
	const size_t len = 2 * MiB;
	uint8_t *da, *db;
	int fa = -1, fb = -1, a, b;
	uint64_t moved;

	dbuf(2 * len, &da, &fa);
	dbuf(len, &db, &fb);
	REQUIRE(fa >= 0 && fb >= 0);

	REQUIRE(lu_pair(24512, HIXL_TRANSPORT_AUTO, 24513, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_dev(a, DVA, 2 * len, fa, 0, NULL) == 0);
	REQUIRE(reg_dev(b, DVA + 2 * len, len, fb, 0, NULL) == 0);
	moved = roundtrip(a, 24513, (struct side){ DVA, da }, (struct side){ DVA + 2 * len, db },
			  len, 53);
	check_path(a, moved, 5, true);
	close(a);
	close(b);
	close(fa);
	close(fb);
}

static void local_dmabuf_rdma(void)
{
	host_dev(24514, 24515, HIXL_TRANSPORT_RDMA, false);
}

/*
 * An exporter that cannot vmap (or maps I/O memory) would make the batch
 * go over RDMA.  The test VM has one exporter, udmabuf, which vmaps; and on
 * the software RDMA devices hixl runs on (rxe, siw) a dma-buf without a
 * kernel mapping cannot be registered at all, since its MRs need the same
 * mapping (kmod/dmabuf.c): REG_MEM fails with EOPNOTSUPP before any link
 * could try.  So the fallback is unreachable here: SKIP, saying so.
 */
static void local_dmabuf_novmap(void)
{
	SKIP("no dma-buf exporter without vmap in the test VM (udmabuf vmaps), and rxe "
	     "cannot register one: the RDMA fallback is untestable here");
}

/*
 * A batch long enough to be caught mid-way: n descriptors of 1 MiB going
 * round the peer's 16 MiB dma-buf region again and again (2 GiB in all
 * on a stock kernel, 512 MiB on the debug one: seconds of copying).
 */
static void local_dmabuf_dereg_mid(void)
{
	const size_t len = 16 * MiB, chunk = 1 * MiB;
	const uint32_t n = hx_debug_kernel() ? 512 : 2048, per = len / chunk;
	uint8_t *host = hx_map(len), *dev;
	struct hixl_op_desc *d = calloc(n, sizeof(*d));
	struct hixl_reg_mem rb;
	struct lu_bg x = { 0 };
	uint32_t failed = 0;
	pthread_t th;
	long ret = 0;
	int fb = -1, a, b;

	dbuf(len, &dev, &fb);
	REQUIRE(host && d && fb >= 0);
	REQUIRE(lu_pair(24518, HIXL_TRANSPORT_AUTO, 24519, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, host, len, 0, NULL) == 0);
	REQUIRE(reg_dev(b, DVA, len, fb, 0, &rb) == 0);
	for (uint32_t i = 0; i < n; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)host + (i % per) * chunk,
					      DVA + (i % per) * chunk, chunk };
	hx_fill(host, len, 54);
	/* one descriptor first: the link is local and the region reachable */
	CHECK_EQ(hx_xfer(a, 24519, HIXL_OP_WRITE, d, 1, 20000, &failed), 0);
	CHECK_EQ(hx_first_diff(host, dev, chunk), -1);

	x = (struct lu_bg){ .fd = a, .remote = hx_name(24519), .op = HIXL_OP_WRITE, .d = d,
			    .n = n, .timeout_ms = 120000 };
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(50000);
	for (int i = 0; i < 100000; i++) {
		ret = dereg_mem(b, rb.handle);
		if (ret != -EBUSY)
			break;
	}
	CHECK_EQ(ret, 0);
	pthread_join(th, NULL);
	printf("#   WRITE during DEREG_MEM of the dma-buf region: %ld (failed %u of %u)\n",
	       x.ret, x.failed, n);
	CHECK_EQ(x.ret, -ERANGE);
	CHECK(x.failed < n);
	/* the descriptors before the failed one all landed */
	CHECK_EQ(hx_first_diff(host, dev, (size_t)(x.failed < per ? x.failed : per) * chunk), -1);
	/* the region is gone: a new batch fails on its first descriptor */
	failed = 99;
	CHECK_EQ(hx_xfer(a, 24519, HIXL_OP_WRITE, d, 1, 20000, &failed), -ERANGE);
	CHECK_EQ(failed, 0);
	free(d);
	close(a);
	close(b);
	close(fb);
}

const struct ht_test local_dmabuf_tests[] = {
	{ "local_dmabuf_host", local_dmabuf_host },
	{ "local_dmabuf_dmabuf", local_dmabuf_dmabuf },
	{ "local_dmabuf_rdma", local_dmabuf_rdma },
	{ "local_dmabuf_novmap", local_dmabuf_novmap },
	{ "local_dmabuf_dereg_mid", local_dmabuf_dereg_mid },
	{ NULL, NULL },
};
