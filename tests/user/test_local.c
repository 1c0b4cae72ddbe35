// SPDX-License-Identifier: GPL-2.0
/*
 * test_local.c - same-host links (kmod/local.c): two engines of
 * this kernel, connected over RDMA CM as always, pair in the handshake and
 * move host registrations with one CPU copy in the kernel.
 *
 *   local_rw_4k         READ and WRITE byte for byte between 4 KiB pages,
 *                       odd offsets, descriptors ending at a region's end;
 *                       both links say LOCAL, the bytes are counted as
 *                       local (the path that ran)
 *   local_rw_thp        the same between THP-backed buffers
 *   local_rw_hugetlb    the same between 2 MiB hugetlb pages (SKIP without)
 *   local_rw_mixed      4 KiB pages against 2 MiB ones (hugetlb, else THP),
 *                       both ways
 *   local_refused       out of range and straddling -> ERANGE, the peer's
 *                       read-only region -> EACCES for WRITE, our read-only
 *                       region -> EACCES for READ, the peer's LOCAL_ONLY
 *                       region -> ERANGE; nothing written
 *   local_rdma_forced   transport=rdma on either side: no pairing, rxe moves
 *                       the bytes (direct bytes, no local bytes)
 *   local_transport     SETUP transport 3 -> EINVAL; transport=local on a
 *                       link that could not pair -> EOPNOTSUPP
 *   local_dereg_mid     the peer deregisters / munmaps its region while a
 *                       batch copies into it: the batch ends cleanly (0 or
 *                       ERANGE), pins are released afterwards
 *   local_peer_killed   the peer's process is killed, or closes its engine,
 *                       mid-batch: the batch ends with ERANGE/ECONNRESET
 *                       (or completes); no use after free (KASAN)
 *   local_cancel        CANCEL and the timeout stop a long local batch
 *   local_forged_token  a wire peer (peer.c) presenting a forged same-host
 *                       block in its HELLO is not paired
 *   local_lib_async     the library's Transport option; async transfers
 *                       (io_uring) on a paired link, an async ERANGE
 *
 * Engines on 10.77.0.1 (rxe0 in the test VM), ports 24200-24223.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "raw.h"
#include "tests.h"
#include "util.h"
#include "local_util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

static uint32_t link_flags(int fd)
{
	struct hixl_link_stat o;

	return lu_link0(fd, &o) ? 0 : o.flags;
}

static void *map_thp(size_t len)
{
	uint8_t *p = mmap(NULL, len + 2 * MiB, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *q;

	if (p == MAP_FAILED)
		return NULL;
	q = (uint8_t *)(((uintptr_t)p + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	madvise(q, len, MADV_HUGEPAGE);
	memset(q, 0, len);
	return q;
}

static void *map_hugetlb(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

/*
 * WRITE a's buffer into b's, READ it back into a's second half, check byte
 * for byte; descriptors at odd offsets, crossing pages, one ending exactly
 * at the region's end.  len: each buffer's bytes (a has 2 x len).
 */
static void rw_roundtrip(uint8_t *abuf, uint8_t *bbuf, size_t len, uint16_t pa, uint16_t pb)
{
	struct hixl_reg_mem ra, rb;
	struct hixl_link_stat st;
	struct hixl_op_desc d[4];
	uint32_t failed = 0;
	uint64_t want = 0;
	int a, b;

	REQUIRE(lu_pair(pa, HIXL_TRANSPORT_AUTO, pb, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, 2 * len, 0, &ra) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &rb) == 0);
	CHECK(link_flags(a) & HIXL_LINK_STAT_LOCAL);
	CHECK(link_flags(b) & HIXL_LINK_STAT_LOCAL);
	hx_fill(abuf, len, 7);
	memset(bbuf, 0xee, len);
	/* the whole buffer in four odd pieces, the last one ending at b's end */
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf, 1 };
	d[1] = (struct hixl_op_desc){ (uintptr_t)abuf + 1, (uintptr_t)bbuf + 1, 4095 + 17 };
	d[2] = (struct hixl_op_desc){ (uintptr_t)abuf + 4113, (uintptr_t)bbuf + 4113,
				      len / 2 - 4113 };
	d[3] = (struct hixl_op_desc){ (uintptr_t)abuf + len / 2, (uintptr_t)bbuf + len / 2,
				      len / 2 };
	for (int i = 0; i < 4; i++)
		want += d[i].len;
	CHECK_EQ(hx_xfer(a, pb, HIXL_OP_WRITE, d, 4, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	/* READ it back, shifted by 3 bytes, into a's second half */
	memset(abuf + len, 0, len);
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf + len + 3, (uintptr_t)bbuf + 3, len - 3 };
	CHECK_EQ(hx_xfer(a, pb, HIXL_OP_READ, d, 1, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf + len + 3, bbuf + 3, len - 3), -1);
	want += len - 3;
	REQUIRE(lu_link0(a, &st) == 0);
	CHECK_EQ(st.xfer.local_bytes, want);
	CHECK_EQ(st.xfer.local_ops, 5);
	CHECK_EQ(st.xfer.write_direct_bytes + st.xfer.read_direct_bytes, want);
	close(a);
	close(b);
}

static void local_rw_4k(void)
{
	size_t len = 1 * MiB;
	uint8_t *a = hx_map(2 * len), *b = hx_map(len);

	REQUIRE(a && b);
	rw_roundtrip(a, b, len, 24200, 24201);
}

static void local_rw_thp(void)
{
	size_t len = 4 * MiB;
	uint8_t *a = map_thp(2 * len), *b = map_thp(len);

	REQUIRE(a && b);
	if (!hx_thp_backed(b, len))
		printf("#   note: not THP-backed (THP off?): the test ran on 4 KiB pages\n");
	rw_roundtrip(a, b, len, 24202, 24203);
}

static void local_rw_hugetlb(void)
{
	size_t len = 4 * MiB;
	uint8_t *a = map_hugetlb(2 * len), *b = map_hugetlb(len);

	if (!a || !b)
		SKIP("no 2 MiB hugetlb pages (vm.nr_hugepages)");
	rw_roundtrip(a, b, len, 24204, 24205);
}

/*
 * Mixed page sizes: 4 KiB pages on one side and 2 MiB pages (hugetlb, else
 * THP) on the other, both ways round, so that the copy's segments break at
 * different places on the two sides.
 */
static void local_rw_mixed(void)
{
	size_t len = 4 * MiB;
	uint8_t *small_a = hx_map(2 * len), *small_b = hx_map(len);
	uint8_t *huge_a = map_hugetlb(2 * len), *huge_b = map_hugetlb(len);
	const char *kind = "hugetlb";

	REQUIRE(small_a && small_b);
	if (!huge_a || !huge_b) {
		if (huge_a)
			munmap(huge_a, 2 * len);
		if (huge_b)
			munmap(huge_b, len);
		huge_a = map_thp(2 * len);
		huge_b = map_thp(len);
		kind = "THP";
		REQUIRE(huge_a && huge_b);
		if (!hx_thp_backed(huge_b, len))
			SKIP("neither hugetlb nor THP pages here: nothing to mix with 4 KiB pages");
	}
	printf("#   4 KiB pages against %s, both ways\n", kind);
	rw_roundtrip(small_a, huge_b, len, 24220, 24221);
	rw_roundtrip(huge_a, small_b, len, 24222, 24223);
}

static void local_refused(void)
{
	size_t len = 256 * KiB;
	uint8_t *abuf = hx_map(len), *aro = hx_map(len), *bbuf = hx_map(len), *bro = hx_map(len);
	uint8_t *blo = hx_map(len);
	struct hixl_reg_mem r;
	struct hixl_op_desc d;
	uint32_t failed = 0;
	int a, b;

	REQUIRE(abuf && aro && bbuf && bro && blo);
	/* filled before registering: a read-only pin is of the pages there then */
	memset(bbuf, 0x11, len);
	memset(bro, 0x22, len);
	memset(blo, 0x33, len);
	memset(aro, 0x44, len);
	hx_fill(abuf, len, 3);
	REQUIRE(lu_pair(24206, HIXL_TRANSPORT_AUTO, 24207, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(a, aro, len, HIXL_REG_READ_ONLY, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bro, len, HIXL_REG_READ_ONLY, &r) == 0);
	REQUIRE(reg_mem(b, blo, len, HIXL_REG_LOCAL_ONLY, &r) == 0);
	CHECK(link_flags(a) & HIXL_LINK_STAT_LOCAL);

	/* straddles b's region end */
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf + len - 100, 200 };
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ERANGE);
	CHECK_EQ(failed, 0);
	/* not registered by b at all */
	d = (struct hixl_op_desc){ (uintptr_t)abuf, 4096, 100 };
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_READ, &d, 1, 5000, &failed), -ERANGE);
	/* b's read-only region: no WRITE, READ fine */
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bro, len };
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_WRITE, &d, 1, 5000, &failed), -EACCES);
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_READ, &d, 1, 5000, &failed), 0);
	CHECK_EQ(abuf[0], 0x22);
	/* our read-only region: no READ into it */
	d = (struct hixl_op_desc){ (uintptr_t)aro, (uintptr_t)bbuf, len };
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_READ, &d, 1, 5000, &failed), -EACCES);
	/* b's LOCAL_ONLY region is nobody's to reach */
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)blo, len };
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ERANGE);
	CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_READ, &d, 1, 5000, &failed), -ERANGE);
	/* second descriptor bad: the first must not have moved */
	{
		struct hixl_op_desc dd[2] = {
			{ (uintptr_t)abuf, (uintptr_t)bbuf, 4096 },
			{ (uintptr_t)abuf, (uintptr_t)bro, 4096 },
		};

		CHECK_EQ(hx_xfer(a, 24207, HIXL_OP_WRITE, dd, 2, 5000, &failed), -EACCES);
		CHECK_EQ(failed, 1);
	}
	for (size_t i = 0; i < len; i++)
		if (bbuf[i] != 0x11 || bro[i] != 0x22 || blo[i] != 0x33) {
			printf("#   byte %zu of the peer changed\n", i);
			ht_failures++;
			break;
		}
	close(a);
	close(b);
}

static void local_rdma_forced(void)
{
	static const uint32_t t[2][2] = {
		{ HIXL_TRANSPORT_RDMA, HIXL_TRANSPORT_AUTO },
		{ HIXL_TRANSPORT_AUTO, HIXL_TRANSPORT_RDMA },
	};
	size_t len = 256 * KiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);

	REQUIRE(abuf && bbuf);
	for (int k = 0; k < 2; k++) {
		struct hixl_link_stat st;
		struct hixl_reg_mem r;
		struct hixl_op_desc d = { (uintptr_t)abuf, (uintptr_t)bbuf, len };
		uint32_t failed = 0;
		int a, b;

		REQUIRE(lu_pair(24208, t[k][0], 24209, t[k][1], &a, &b) == 0);
		REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
		REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
		CHECK(!(link_flags(a) & HIXL_LINK_STAT_LOCAL));
		CHECK(!(link_flags(b) & HIXL_LINK_STAT_LOCAL));
		hx_fill(abuf, len, 11 + k);
		CHECK_EQ(hx_xfer(a, 24209, HIXL_OP_WRITE, &d, 1, 10000, &failed), 0);
		CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
		REQUIRE(lu_link0(a, &st) == 0);
		CHECK_EQ(st.xfer.local_bytes, 0);
		CHECK_EQ(st.xfer.write_direct_bytes, len);	/* rxe moved them */
		close(a);
		close(b);
	}
}

static void local_transport(void)
{
	size_t len = 64 * KiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_op_desc d = { (uintptr_t)abuf, (uintptr_t)bbuf, len };
	struct hixl_reg_mem r;
	uint32_t failed = 0;
	int a, b, fd;

	REQUIRE(abuf && bbuf);
	fd = open_dev();
	{
		struct hixl_setup s;

		memset(&s, 0, sizeof(s));
		s.local = hx_name(24210);
		s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
		s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
		s.transport = HIXL_TRANSPORT_LOCAL + 1;
		CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &s), -EINVAL);
	}
	close(fd);
	/* LOCAL against a peer that wants RDMA: no pairing, so no TRANSFER */
	REQUIRE(lu_pair(24210, HIXL_TRANSPORT_LOCAL, 24211, HIXL_TRANSPORT_RDMA, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	CHECK_EQ(hx_xfer(a, 24211, HIXL_OP_WRITE, &d, 1, 5000, &failed), -EOPNOTSUPP);
	close(a);
	close(b);
	/* LOCAL on both: unregistered local memory is refused, not staged */
	REQUIRE(lu_pair(24210, HIXL_TRANSPORT_LOCAL, 24211, HIXL_TRANSPORT_LOCAL, &a, &b) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	CHECK(link_flags(a) & HIXL_LINK_STAT_LOCAL);
	CHECK_EQ(hx_xfer(a, 24211, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ENOENT);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	CHECK_EQ(hx_xfer(a, 24211, HIXL_OP_WRITE, &d, 1, 5000, &failed), 0);
	close(a);
	close(b);
}

static size_t big_len(void)
{
	return hx_debug_kernel() ? 32 * MiB : 256 * MiB;
}

static void local_dereg_mid(void)
{
	size_t len = big_len(), chunk = 1 * MiB;
	uint32_t n = len / chunk;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_reg_mem ra, rb;
	struct lu_bg x = { 0 };
	pthread_t th;
	long ret;
	int a, b;

	REQUIRE(abuf && bbuf);
	REQUIRE(lu_pair(24212, HIXL_TRANSPORT_AUTO, 24213, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &ra) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &rb) == 0);
	REQUIRE(link_flags(a) & HIXL_LINK_STAT_LOCAL);
	x = (struct lu_bg){ .fd = a, .remote = hx_name(24213), .op = HIXL_OP_WRITE,
			    .d = lu_descs((uintptr_t)abuf, (uintptr_t)bbuf, chunk, n), .n = n,
			    .timeout_ms = 60000 };
	REQUIRE(x.d);
	/* deregistration: EBUSY only while a chunk is inside it */
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	for (int i = 0; i < 100000; i++) {
		ret = dereg_mem(b, rb.handle);
		if (ret != -EBUSY)
			break;
	}
	CHECK_EQ(ret, 0);
	pthread_join(th, NULL);
	printf("#   WRITE during DEREG_MEM: %ld (failed %u of %u)\n", x.ret, x.failed, n);
	CHECK(x.ret == 0 || (x.ret == -ERANGE && x.failed < n));
	/* and munmap: the region is invalidated, its pins go once we are out */
	REQUIRE(reg_mem(b, bbuf, len, 0, &rb) == 0);
	x.started = 0;
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	CHECK_EQ(munmap(bbuf, len), 0);
	pthread_join(th, NULL);
	printf("#   WRITE during munmap: %ld (failed %u of %u)\n", x.ret, x.failed, n);
	CHECK(x.ret == 0 || (x.ret == -ERANGE && x.failed < n));
	CHECK_EQ(wait_invalid(b, 1, 5000), 0);
	CHECK_EQ(wait_pinned(b, 0, 5000), 0);
	free(x.d);
	close(a);
	close(b);
}

/*
 * The peer's process: engine b on port with len bytes registered; tells the
 * parent the address, then, on a byte from the parent, closes its engine
 * (close_first), says so with a byte back and waits to be killed.
 */
static void peer_child(uint16_t port, size_t len, int wfd, int rfd, bool close_first)
{
	uint8_t *bbuf = hx_map(len);
	struct hixl_reg_mem rb;
	uint64_t baddr;
	char c;
	int b = lu_eng(port, HIXL_TRANSPORT_AUTO);

	if (b < 0 || !bbuf || reg_mem(b, bbuf, len, 0, &rb))
		_exit(1);
	baddr = (uintptr_t)bbuf;
	if (write(wfd, &baddr, sizeof(baddr)) != sizeof(baddr))
		_exit(1);
	if (close_first && read(rfd, &c, 1) == 1) {
		close(b);		/* the engine goes, its memory stays mapped */
		if (write(wfd, &c, 1) != 1)
			_exit(1);
	}
	pause();
	_exit(0);
}

/*
 * A long WRITE into a peer process's engine; mid-batch the peer closes its
 * engine (close_first: the copy must stop with ECONNRESET, the engine's
 * close waits for it) or is killed (its mm goes first: ERANGE, or the close:
 * ECONNRESET).
 */
static void killed_case(uint16_t pa, uint16_t pb, bool close_first)
{
	size_t len = big_len(), chunk = 1 * MiB;
	uint32_t n = len / chunk;
	uint8_t *abuf = hx_map(len);
	struct hixl_reg_mem ra;
	struct lu_bg x = { 0 };
	int up[2], down[2], a, status;
	uint64_t baddr = 0;
	pthread_t th;
	pid_t pid;

	REQUIRE(abuf && pipe(up) == 0 && pipe(down) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0)
		peer_child(pb, len, up[1], down[0], close_first);
	close(up[1]);
	REQUIRE(read(up[0], &baddr, sizeof(baddr)) == sizeof(baddr));
	a = lu_eng(pa, HIXL_TRANSPORT_AUTO);
	REQUIRE(a >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &ra) == 0);
	REQUIRE(hx_connect(a, pb, 5000) == 0);
	CHECK(link_flags(a) & HIXL_LINK_STAT_LOCAL);
	x = (struct lu_bg){ .fd = a, .remote = hx_name(pb), .op = HIXL_OP_WRITE,
			    .d = lu_descs((uintptr_t)abuf, baddr, chunk, n), .n = n,
			    .timeout_ms = 60000 };
	REQUIRE(x.d);
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	if (close_first)
		CHECK_EQ(write(down[1], "c", 1), 1);
	else
		kill(pid, SIGKILL);
	pthread_join(th, NULL);
	printf("#   WRITE while the peer %s: %ld (failed %u of %u)\n",
	       close_first ? "closed its engine" : "was killed", x.ret, x.failed, n);
	if (close_first)
		CHECK(x.ret == 0 || x.ret == -ECONNRESET);
	else
		CHECK(x.ret == 0 || x.ret == -ECONNRESET || x.ret == -ERANGE);
	if (x.ret)
		CHECK(x.failed < n);
	/*
	 * Whatever it said, the next one fails once the peer engine is gone:
	 * its close done (the child's byte back), or the killed child reaped
	 * (its files are closed by then).  The WRITE above may have ended
	 * before either, the child being slow to run.
	 */
	if (close_first) {
		char c;

		CHECK_EQ(read(up[0], &c, 1), 1);
	} else {
		CHECK_EQ(waitpid(pid, &status, 0), pid);
		pid = 0;
	}
	x.n = 1;
	lu_bg_run(&x);
	CHECK(x.ret != 0);
	if (pid) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	free(x.d);
	close(a);
}

static void local_peer_killed(void)
{
	killed_case(24214, 24215, false);
	killed_case(24214, 24215, true);
}

static void local_cancel(void)
{
	size_t len = big_len(), chunk = 1 * MiB;
	uint32_t n = len / chunk;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_reg_mem r;
	struct hixl_cancel c;
	struct lu_bg x;
	pthread_t th;
	int a, b;

	REQUIRE(abuf && bbuf);
	REQUIRE(lu_pair(24216, HIXL_TRANSPORT_AUTO, 24217, HIXL_TRANSPORT_AUTO, &a, &b) == 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	x = (struct lu_bg){ .fd = a, .remote = hx_name(24217), .op = HIXL_OP_READ,
			    .d = lu_descs((uintptr_t)abuf, (uintptr_t)bbuf, chunk, n), .n = n,
			    .timeout_ms = 60000, .tag = 77 };
	REQUIRE(x.d);
	pthread_create(&th, NULL, lu_bg_run, &x);
	while (!x.started)
		usleep(100);
	usleep(2000);
	memset(&c, 0, sizeof(c));
	c.tag = 77;
	CHECK_EQ(xioctl(a, HIXL_IOC_CANCEL, &c), 0);
	pthread_join(th, NULL);
	printf("#   cancelled READ: %ld (count %u, failed %u of %u)\n", x.ret, c.count, x.failed, n);
	CHECK(x.ret == -ECANCELED || (x.ret == 0 && c.count == 0));
	/* the timeout: 1 ms for the whole batch */
	x.timeout_ms = 1;
	x.tag = 0;
	lu_bg_run(&x);
	printf("#   1 ms READ: %ld\n", x.ret);
	CHECK(x.ret == -ETIMEDOUT || x.ret == 0);
	/* the link is still good */
	x.n = 1;
	x.timeout_ms = 5000;
	lu_bg_run(&x);
	CHECK_EQ(x.ret, 0);
	free(x.d);
	close(a);
	close(b);
}

static void local_forged_token(void)
{
	struct hixl_wire_hello_local *x;
	struct hixl_link_stat st[4];
	struct hixl_link_stats ls;
	struct hp p;
	uint8_t *bbuf = hx_map(64 * KiB);
	struct hixl_reg_mem r;
	int b, ret;

	REQUIRE(bbuf);
	b = lu_eng(24218, HIXL_TRANSPORT_AUTO);
	REQUIRE(b >= 0);
	REQUIRE(reg_mem(b, bbuf, 64 * KiB, 0, &r) == 0);
	ret = hp_connect(&p, 24218, 0, 64 * KiB);
	REQUIRE(ret == 0);
	/* a HELLO with a same-host block of made-up ids, the rest as a hixl peer */
	{
		struct hixl_wire_hello *h = (void *)p.tx;

		memset(h, 0, sizeof(*h) + sizeof(*x));
		h->engine.family = htole16(AF_INET);
		h->engine.port = htole16(24219);
		inet_pton(AF_INET, HX_IP, h->engine.addr);
		x = (void *)(h + 1);
		x->magic = htole32(HIXL_WIRE_LOCAL_MAGIC);
		x->version = htole16(HIXL_WIRE_LOCAL_VERSION);
		x->len = htole16(sizeof(*x));
		hx_fill(x->boot_id, sizeof(x->boot_id), 1);
		hx_fill(x->token, sizeof(x->token), 2);
		REQUIRE(hp_send(&p, HIXL_MSG_HELLO, sizeof(*h) + sizeof(*x)) == 0);
	}
	REQUIRE(hp_region(&p) == 0);
	REQUIRE(hp_table_end(&p) == 0);
	for (int i = 0; i < 50 && !p.table_end; i++)
		hp_pump(&p, 100);
	usleep(200000);
	memset(&ls, 0, sizeof(ls));
	ls.buf = (uintptr_t)st;
	ls.count = 4;
	REQUIRE(xioctl(b, HIXL_IOC_LINK_STATS, &ls) == 0);
	REQUIRE(ls.total == 1);
	CHECK(st[0].flags & HIXL_LINK_STAT_NAMED);	/* its HELLO was taken */
	CHECK_EQ(st[0].state, HIXL_LINK_STATE_READY);
	CHECK(!(st[0].flags & HIXL_LINK_STAT_LOCAL));
	hp_close(&p);
	close(b);
}

/* The library: Transport option, async transfers (io_uring's worker runs the copy). */
static void local_lib_async(void)
{
	static const struct hixl_option auto_o[] = { { HIXL_OPTION_TRANSPORT, "auto" },
						     { HIXL_OPTION_BUFFER_POOL, "0:0" } };
	static const struct hixl_option bad_o[] = { { HIXL_OPTION_TRANSPORT, "shm" } };
	size_t len = 2 * MiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_engine *a, *b, *bad = NULL;
	struct hixl_mem_desc md = { 0 };
	struct hixl_request *req[4];
	struct hixl_op_desc d[4];
	enum hixl_transfer_status st;
	uint64_t h;
	size_t failed;

	REQUIRE(abuf && bbuf);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP ":24219", bad_o, 1), -EINVAL);
	b = hx_lib_engine(HX_IP ":24219", auto_o, 2);
	a = hx_lib_engine(HX_IP ":24218", auto_o, 2);
	REQUIRE(a && b);
	md.addr = (uintptr_t)abuf;
	md.len = len;
	REQUIRE(hixl_register_mem(a, &md, HIXL_MEM_HOST, &h) == 0);
	md.addr = (uintptr_t)bbuf;
	REQUIRE(hixl_register_mem(b, &md, HIXL_MEM_HOST, &h) == 0);
	REQUIRE(hixl_connect(a, HX_IP ":24219", 5000) == 0);
	printf("#   async path: %s\n", hixl_engine_async_path(a) == HIXL_ASYNC_URING ? "io_uring" :
	       "threads");
	hx_fill(abuf, len, 5);
	memset(bbuf, 0, len);
	for (int i = 0; i < 4; i++) {
		d[i] = (struct hixl_op_desc){ (uintptr_t)abuf + i * (len / 4) + 5,
					      (uintptr_t)bbuf + i * (len / 4) + 5, len / 4 - 5 };
		CHECK_EQ(hixl_transfer_async(a, HX_IP ":24219", HIXL_OP_WRITE, &d[i], 1,
					     &HX_TARGS(10000, NULL), &req[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(hixl_request_wait(a, req[i], -1, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		CHECK_EQ(hixl_request_result(req[i], &failed), 0);
		hixl_request_free(req[i]);
		CHECK_EQ(hx_first_diff(abuf + d[i].local_addr - (uintptr_t)abuf,
				       bbuf + d[i].remote_addr - (uintptr_t)bbuf, d[i].len), -1);
	}
	/* an async error: out of b's range */
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf + len - 8, 16 };
	CHECK_EQ(hixl_transfer_async(a, HX_IP ":24219", HIXL_OP_READ, d, 1, &HX_TARGS(10000, NULL),
				     &req[0]), 0);
	CHECK_EQ(hixl_request_wait(a, req[0], -1, &st), 0);
	CHECK_EQ(hixl_request_result(req[0], &failed), -ERANGE);
	hixl_request_free(req[0]);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

const struct ht_test local_tests[] = {
	{ "local_rw_4k", local_rw_4k },
	{ "local_rw_thp", local_rw_thp },
	{ "local_rw_hugetlb", local_rw_hugetlb },
	{ "local_rw_mixed", local_rw_mixed },
	{ "local_refused", local_refused },
	{ "local_rdma_forced", local_rdma_forced },
	{ "local_transport", local_transport },
	{ "local_dereg_mid", local_dereg_mid },
	{ "local_peer_killed", local_peer_killed },
	{ "local_cancel", local_cancel },
	{ "local_forged_token", local_forged_token },
	{ "local_lib_async", local_lib_async },
	{ NULL, NULL },
};
