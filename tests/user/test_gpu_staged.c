// SPDX-License-Identifier: GPL-2.0
/*
 * test_gpu_staged.c - staged device memory (lib/staged.c): CUDA memory by
 * address that the RDMA device cannot reach, moved through the library's
 * pinned host bounce buffers by the GPU's copy engine, against
 * tests/gpu/fake_cuda.c (its device memory is a memfd mapped PROT_NONE: a
 * CPU load or store of it kills the test; its async copies are pread and
 * pwrite of the memfd).  Engine a holds the device memory, engine b host
 * memory; bytes are checked through cuMemcpyDtoH.
 *
 *   gpu_staged_forced      DeviceMemPath "staged": the registration says
 *                          HIXL_MEM_SOURCE_STAGED (no fd left, a handle of
 *                          the library's); one batch of a staged descriptor
 *                          spanning several bounce rounds from an unaligned
 *                          offset, a small staged one and a host one,
 *                          WRITE then READ, synchronous and asynchronous
 *                          (io_uring), over rxe and the same-host copy;
 *                          the staged-bytes counters grow by exactly the
 *                          staged bytes; the peer cannot name the staged
 *                          region; a second staged region outlives the
 *                          first; deregistered, it is gone; after
 *                          finalize no stream, event or pinning is left
 *   gpu_staged_auto        the default ("auto"): the export refused
 *                          (FAKE_CUDA_EXPORT_ERROR) registers staged and
 *                          moves bytes; the export working registers
 *                          peer-to-peer (CUDA); "p2p" with the export
 *                          refused fails as before; HIXL_DEVICE_MEM_PATH
 *                          sets it, a bad value is refused naming the
 *                          accepted ones; memory without a context of its
 *                          own (FAKE_CUDA_NO_PTR_CTX, as cuMemMap()) is
 *                          staged in the thread's current context, and
 *                          refused naming why without one
 *   gpu_staged_copy_error  a copy failing mid-pipeline
 *                          (FAKE_CUDA_COPY_ERROR=801:OFFSET): WRITE and
 *                          READ, sync and async, fail -EIO naming the
 *                          copy and CUDA_ERROR_NOT_SUPPORTED, with the
 *                          failing descriptor's index; the next transfer
 *                          works; nothing is left after finalize
 *   gpu_staged_pipeline    the fake's copies asynchronous on its stream's
 *                          thread and slow (FAKE_CUDA_COPY_DELAY_US): a
 *                          6.5 MiB WRITE and READ (seven rounds: the four
 *                          buffers reused), sync and async, right to the
 *                          byte; the WRITE's copies queued ahead of its
 *                          RDMA; a READ's next round read while the last
 *                          one's copy to device runs; 200 KV blocks of
 *                          10000 bytes each way, scattered
 *   gpu_staged_cancel      six asynchronous staged WRITEs of slow copies
 *                          on the four staged request threads: the
 *                          cancel of a queued one ends it at once
 *                          (-ECANCELED, failed 0), of a running one
 *                          between rounds; finalize with the rest
 *                          running returns promptly, nothing left
 *
 * Engines on 10.77.0.1 (rxe0 in the test VM), ports 29300-29339.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "../gpu/fake_cuda.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define IP HX_IP

static const struct hixl_option staged_rdma[] = {
	{ HIXL_OPTION_DEVICE_MEM_PATH, "staged" }, { "Transport", "rdma" } };
static const struct hixl_option staged_local[] = { { HIXL_OPTION_DEVICE_MEM_PATH, "staged" } };
static const struct hixl_option rdma_only[] = { { "Transport", "rdma" } };

/* streams, events and pinnings the fake driver has alive */
static int fake_live(void)
{
	fake_cuda_live_fn f = (fake_cuda_live_fn)dlsym(RTLD_DEFAULT, "fake_cuda_live");

	return f ? f() : -1;
}

static int dev_reg(struct hixl_engine *e, uint64_t addr, uint64_t len, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = addr, .len = len, .dmabuf_fd = -1 };

	return hixl_register_mem(e, &d, HIXL_MEM_DEVICE, h);
}

static int host_reg(struct hixl_engine *e, void *p, uint64_t len, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = (uintptr_t)p, .len = len };

	return hixl_register_mem(e, &d, HIXL_MEM_HOST, h);
}

/*
 * a (staged, over RDMA) at IP:port registering dlen bytes of device memory
 * at da, b (RDMA) at IP:port+1 registering hlen bytes of host, a linked
 * to b; false, the cause printed, when the engines or the link fail
 */
static bool staged_link(unsigned int port, CUdeviceptr da, uint64_t dlen, void *host,
			uint64_t hlen, struct hixl_engine **a, struct hixl_engine **b)
{
	char na[32], nb[32];
	uint64_t h;
	int ret;

	snprintf(na, sizeof(na), IP ":%u", port);
	snprintf(nb, sizeof(nb), IP ":%u", port + 1);
	*a = hx_lib_engine(na, staged_rdma, 2);
	*b = hx_lib_engine(nb, rdma_only, 1);
	if (!*a || !*b) {
		printf("#   engines %s and %s: not both made\n", na, nb);
		return false;
	}
	CHECK_EQ(dev_reg(*a, da, dlen, &h), 0);
	CHECK_EQ(host_reg(*b, host, hlen, &h), 0);
	ret = hixl_connect(*a, nb, 10000);
	if (ret)
		printf("#   connect to %s: %s\n", nb, strerror(-ret));
	return !ret;
}

/* one batch, synchronous or asynchronous (the engine's async path); failed may be NULL */
static int batch(struct hixl_engine *e, const char *peer, enum hixl_op op,
		 const struct hixl_op_desc *d, size_t n, bool async, size_t *failed)
{
	struct hixl_transfer_args args = { .timeout_ms = 60000 };
	struct hixl_request *r = NULL;
	enum hixl_transfer_status st;
	size_t f = n;
	int ret;

	if (!async) {
		ret = hixl_transfer_sync(e, peer, op, d, n, 60000, &f);
	} else {
		ret = hixl_transfer_async(e, peer, op, d, n, &args, &r);
		if (!ret) {
			ret = hixl_request_wait(e, r, 60000, &st);
			if (!ret)
				ret = hixl_request_result(r, &f);
			hixl_request_free(r);
		}
	}
	if (failed)
		*failed = f;
	return ret;
}

static uint64_t staged_bytes(struct hixl_engine *e, bool written)
{
	struct hixl_staged_stats ss;

	memset(&ss, 0xff, sizeof(ss));
	if (hixl_engine_staged_stats(e, &ss))
		return ~0ULL;
	return written ? ss.bytes_written : ss.bytes_read;
}

/*
 * a (options o: staged) and b (host memory): WRITE and READ batches of a
 * staged descriptor over several rounds, a small staged one and a host one
 */
static void staged_pair(uint16_t pa, uint16_t pb, const struct hixl_option *o, size_t no,
			const struct hixl_option *ob, size_t nob)
{
	const size_t dlen = 8 * MiB, hlen = 8 * MiB;
	const uint64_t big = 2 * MiB + 512 * KiB + 7, small = 1000, hsz = 5000;
	unsigned char *ahost = hx_map(hlen), *bhost = hx_map(hlen), *want, *got;
	struct hixl_engine *a, *b;
	struct hixl_mem_info mi;
	struct hixl_staged_stats ss;
	char an[32], bn[32];
	uint64_t hd, hd2, hd3, ha, hb, w0, r0;
	size_t failed;
	CUdeviceptr da, db;
	int fds;

	snprintf(an, sizeof(an), IP ":%u", pa);
	snprintf(bn, sizeof(bn), IP ":%u", pb);
	REQUIRE(ahost && bhost);
	da = gpu_dalloc(dlen);
	REQUIRE(da);
	fds = hx_count_fds();
	a = hx_lib_engine(an, o, no);
	REQUIRE(a);
	b = hx_lib_engine(bn, ob, nob);
	REQUIRE(b);
	REQUIRE(gpu_dfill(da, dlen, 31) == 0);
	hx_fill(ahost, hlen, 32);
	CHECK_EQ(dev_reg(a, da, dlen, &hd), 0);
	CHECK(hd & (1ULL << 32));	/* the library's handle, never a kernel one */
	CHECK_EQ(hixl_mem_get_info(a, hd, &mi), 0);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_STAGED);
	CHECK_EQ(mi.type, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.addr, da);
	CHECK_EQ(mi.len, dlen);
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK_EQ(ss.regions, 1);
	CHECK_EQ(ss.bytes_written | ss.bytes_read | ss.errors, 0);
	CHECK_EQ(host_reg(a, ahost, hlen, &ha), 0);
	CHECK_EQ(host_reg(b, bhost, hlen, &hb), 0);
	REQUIRE(hixl_connect(a, bn, 10000) == 0);

	for (int async = 0; async < 2; async++) {
		/* WRITE: device (staged) and host -> b's host memory */
		struct hixl_op_desc w[3] = {
			{ da + 4096 + 3, (uintptr_t)bhost + 11, big },
			{ (uintptr_t)ahost + 5, (uintptr_t)bhost + 4 * MiB, hsz },
			{ da + 5 * MiB + 1, (uintptr_t)bhost + 5 * MiB + 3, small },
		};
		/* READ: b's host memory -> device elsewhere (staged) and host */
		struct hixl_op_desc r[3] = {
			{ da + 6 * MiB + 17 - big / 2, (uintptr_t)bhost + 11, big },
			{ da + 7 * MiB + 512 * KiB + 4000, (uintptr_t)bhost + 5 * MiB + 3, small },
			{ (uintptr_t)ahost + 6 * MiB, (uintptr_t)bhost + 4 * MiB, hsz },
		};

		printf("#   %s\n", async ? "asynchronous" : "synchronous");
		memset(bhost, 0, hlen);
		w0 = staged_bytes(a, true);
		r0 = staged_bytes(a, false);
		CHECK_EQ(batch(a, bn, HIXL_OP_WRITE, w, 3, async, &failed), 0);
		if (ht_failures)
			printf("#   %s\n", hixl_last_error());
		CHECK_EQ(failed, 3);
		want = gpu_dread(da, dlen);
		REQUIRE(want);
		CHECK_EQ(hx_first_diff(bhost + 11, want + 4096 + 3, big), -1);
		CHECK_EQ(hx_first_diff(bhost + 5 * MiB + 3, want + 5 * MiB + 1, small), -1);
		CHECK_EQ(hx_first_diff(bhost + 4 * MiB, ahost + 5, hsz), -1);
		CHECK_EQ(bhost[10], 0);
		CHECK_EQ(bhost[11 + big], 0);
		CHECK_EQ(staged_bytes(a, true) - w0, big + small);
		CHECK_EQ(staged_bytes(a, false), r0);

		/* what the READ must leave: b's bytes at their places, nothing else moved */
		memcpy(want + 6 * MiB + 17 - big / 2, bhost + 11, big);
		memcpy(want + 7 * MiB + 512 * KiB + 4000, bhost + 5 * MiB + 3, small);
		CHECK_EQ(batch(a, bn, HIXL_OP_READ, r, 3, async, &failed), 0);
		if (ht_failures)
			printf("#   %s\n", hixl_last_error());
		got = gpu_dread(da, dlen);
		REQUIRE(got);
		CHECK_EQ(hx_first_diff(got, want, dlen), -1);
		CHECK_EQ(hx_first_diff(ahost + 6 * MiB, bhost + 4 * MiB, hsz), -1);
		CHECK_EQ(staged_bytes(a, false) - r0, big + small);
		free(want);
		free(got);
	}
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK(ss.rounds >= 2 * (3 + 3));	/* big spans 3 rounds each way */
	CHECK_EQ(ss.errors, 0);

	/* the peer cannot name the staged region: it is in no table */
	{
		struct hixl_op_desc p = { (uintptr_t)bhost, da, 4096 };

		int c = hixl_connect(b, an, 10000);

		CHECK(c == 0 || c == -EISCONN);	/* a's link serves b too */
		CHECK(hixl_transfer_sync(b, an, HIXL_OP_READ, &p, 1, 10000, NULL) < 0);
		printf("#   the peer's READ of it: %s\n", hixl_last_error());
	}
	/* a second staged region outlives the first */
	db = gpu_dalloc(64 * KiB);
	REQUIRE(db && gpu_dfill(db, 64 * KiB, 33) == 0);
	CHECK_EQ(dev_reg(a, db + 100, 60 * KiB, &hd2), 0);
	CHECK_EQ(dev_reg(a, db + 60 * KiB, 4 * KiB, &hd3), -EEXIST);	/* overlaps it */
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK_EQ(ss.regions, 2);
	CHECK_EQ(hixl_deregister_mem(a, hd), 0);
	CHECK_EQ(hixl_mem_get_info(a, hd, &mi), -ENOENT);
	CHECK_EQ(hixl_deregister_mem(a, hd), -ENOENT);
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK_EQ(ss.regions, 1);
	{
		struct hixl_op_desc d = { db + 100, (uintptr_t)bhost, 60 * KiB };

		CHECK_EQ(hixl_transfer_sync(a, bn, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
		got = gpu_dread(db + 100, 60 * KiB);
		REQUIRE(got);
		CHECK_EQ(hx_first_diff(got, bhost, 60 * KiB), -1);
		free(got);
	}
	CHECK_EQ(hixl_deregister_mem(a, hd2), 0);
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK_EQ(ss.regions, 0);
	CHECK_EQ(gpu_dfree(db), 0);
	{
		/* no longer staged: the kernel knows no such local range */
		struct hixl_op_desc d = { da, (uintptr_t)bhost, 4096 };

		CHECK(hixl_transfer_sync(a, bn, HIXL_OP_WRITE, &d, 1, 10000, NULL) < 0);
	}
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	CHECK_EQ(fake_live(), 0);	/* the stream, events and pinning are gone */
	CHECK_EQ(hx_count_fds(), fds);
	CHECK_EQ(gpu_dfree(da), 0);
	munmap(ahost, hlen);
	munmap(bhost, hlen);
}

static void test_gpu_staged_forced(void)
{
	gpu_fake_load();
	staged_pair(29300, 29301, staged_rdma, 2, rdma_only, 1);	/* rxe */
	staged_pair(29302, 29303, staged_local, 1, NULL, 0);	/* the same-host copy */
}

/* register len bytes of da on e: its source, or -errno */
static int reg_source(struct hixl_engine *e, CUdeviceptr da, uint64_t len, uint64_t *h)
{
	struct hixl_mem_info mi;
	int ret = dev_reg(e, da, len, h);

	if (ret)
		return ret;
	return hixl_mem_get_info(e, *h, &mi) ? -1 : (int)mi.source;
}

static void test_gpu_staged_auto(void)
{
	static const struct hixl_option p2p[] = { { HIXL_OPTION_DEVICE_MEM_PATH, "p2p" },
						  { "Transport", "rdma" } };
	static const struct hixl_option bad[] = { { HIXL_OPTION_DEVICE_MEM_PATH, "bounce" } };
	const uint64_t len = 1 * MiB + 300 * KiB + 9;
	struct hixl_engine *a, *b, *c;
	unsigned char *host = hx_map(2 * MiB), *got;
	struct hixl_op_desc d;
	CUdeviceptr da;
	uint64_t h, hh;

	gpu_fake_load();
	REQUIRE(host);
	da = gpu_dalloc(4 * MiB);
	REQUIRE(da && gpu_dfill(da, 4 * MiB, 41) == 0);
	a = hx_lib_engine(IP ":29310", rdma_only, 1);
	b = hx_lib_engine(IP ":29311", rdma_only, 1);
	REQUIRE(a && b);
	CHECK_EQ(host_reg(b, host, 2 * MiB, &hh), 0);
	/* auto, the export working: peer-to-peer as before */
	CHECK_EQ(reg_source(a, da, 4096, &h), HIXL_MEM_SOURCE_CUDA);
	CHECK_EQ(hixl_deregister_mem(a, h), 0);
	/* auto, the export refused: staged, and it moves bytes */
	setenv("FAKE_CUDA_EXPORT_ERROR", "801", 1);
	CHECK_EQ(reg_source(a, da, 4 * MiB, &h), HIXL_MEM_SOURCE_STAGED);
	REQUIRE(hixl_connect(a, IP ":29311", 10000) == 0);
	d = (struct hixl_op_desc){ da + 100, (uintptr_t)host + 1, len };
	CHECK_EQ(hixl_transfer_sync(a, IP ":29311", HIXL_OP_WRITE, &d, 1, 60000, NULL), 0);
	got = gpu_dread(da + 100, len);
	REQUIRE(got);
	CHECK_EQ(hx_first_diff(host + 1, got, len), -1);
	free(got);
	d.local_addr = da + 2 * MiB + 5;
	CHECK_EQ(hixl_transfer_sync(a, IP ":29311", HIXL_OP_READ, &d, 1, 60000, NULL), 0);
	got = gpu_dread(da + 2 * MiB + 5, len);
	REQUIRE(got);
	CHECK_EQ(hx_first_diff(host + 1, got, len), -1);
	free(got);
	CHECK_EQ(staged_bytes(a, true), len);
	CHECK_EQ(staged_bytes(a, false), len);
	/* p2p: the export refused fails as it always did */
	c = hx_lib_engine(IP ":29312", p2p, 2);
	REQUIRE(c);
	CHECK_EQ(dev_reg(c, da, 4096, &h), -EOPNOTSUPP);
	printf("#   p2p: %s\n", hixl_last_error());
	hixl_engine_finalize(c);
	/* the environment variable, when no option says */
	setenv("HIXL_DEVICE_MEM_PATH", "p2p", 1);
	c = hx_lib_engine(IP ":29313", NULL, 0);
	REQUIRE(c);
	CHECK_EQ(dev_reg(c, da, 4096, &h), -EOPNOTSUPP);
	hixl_engine_finalize(c);
	unsetenv("FAKE_CUDA_EXPORT_ERROR");
	setenv("HIXL_DEVICE_MEM_PATH", "staged", 1);
	c = hx_lib_engine(IP ":29314", NULL, 0);
	REQUIRE(c);
	CHECK_EQ(reg_source(c, da, 4096, &h), HIXL_MEM_SOURCE_STAGED);
	hixl_engine_finalize(c);
	/*
	 * memory without a context of its own (a cuMemMap() range): staged in
	 * the thread's current context, refused without one
	 */
	setenv("FAKE_CUDA_NO_PTR_CTX", "1", 1);
	c = hx_lib_engine(IP ":29316", staged_local, 1);
	REQUIRE(c);
	CHECK_EQ(dev_reg(c, da, 4096, &h), -EOPNOTSUPP);
	printf("#   no context: %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "no CUDA context") != NULL);
	{
		fake_cuDevicePrimaryCtxRetain retain =
			(fake_cuDevicePrimaryCtxRetain)dlsym(RTLD_DEFAULT, "cuDevicePrimaryCtxRetain");
		fake_cuCtxSetCurrent set = (fake_cuCtxSetCurrent)dlsym(RTLD_DEFAULT, "cuCtxSetCurrent");
		CUcontext cx = NULL;

		REQUIRE(retain && set && retain(&cx, 0) == CUDA_SUCCESS && set(cx) == CUDA_SUCCESS);
		CHECK_EQ(reg_source(c, da, 4 * MiB, &h), HIXL_MEM_SOURCE_STAGED);
		set(NULL);
	}
	unsetenv("FAKE_CUDA_NO_PTR_CTX");
	{
		/* and it moves bytes, copied in that context (pushed by the library) */
		struct hixl_op_desc w = { da + 3, (uintptr_t)host + 5, 300 * KiB };

		REQUIRE(hixl_connect(c, IP ":29311", 10000) == 0);
		CHECK_EQ(hixl_transfer_sync(c, IP ":29311", HIXL_OP_WRITE, &w, 1, 60000, NULL), 0);
		got = gpu_dread(da + 3, 300 * KiB);
		REQUIRE(got);
		CHECK_EQ(hx_first_diff(host + 5, got, 300 * KiB), -1);
		free(got);
	}
	hixl_engine_finalize(c);
	setenv("HIXL_DEVICE_MEM_PATH", "sometimes", 1);
	CHECK_EQ(hixl_engine_init(&c, IP ":29315", NULL, 0), -EINVAL);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "auto, p2p or staged") != NULL);
	unsetenv("HIXL_DEVICE_MEM_PATH");
	CHECK_EQ(hixl_engine_init(&c, IP ":29315", bad, 1), -EINVAL);
	CHECK(strstr(hixl_last_error(), "DeviceMemPath") != NULL);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	CHECK_EQ(fake_live(), 0);
	CHECK_EQ(gpu_dfree(da), 0);
	munmap(host, 2 * MiB);
}

static void test_gpu_staged_copy_error(void)
{
	const uint64_t len = 3 * MiB + 77;
	struct hixl_engine *a, *b;
	unsigned char *host = hx_map(4 * MiB), *got;
	struct hixl_staged_stats ss;
	CUdeviceptr da;
	size_t failed;
	int fds;

	gpu_fake_load();
	REQUIRE(host);
	fds = hx_count_fds();
	da = gpu_dalloc(8 * MiB);
	REQUIRE(da && gpu_dfill(da, 8 * MiB, 51) == 0);
	REQUIRE(staged_link(29320, da, 8 * MiB, host, 4 * MiB, &a, &b));
	for (int async = 0; async < 2; async++) {
		struct hixl_op_desc d[2] = {
			{ da + 64 * KiB, (uintptr_t)host, 4096 },
			{ da + 1 * MiB, (uintptr_t)host + 8192, len },
		};

		/* copies reaching past 2 MiB of the allocation fail: the third round's */
		setenv("FAKE_CUDA_COPY_ERROR", "801:0x200000", 1);
		CHECK_EQ(batch(a, IP ":29321", HIXL_OP_WRITE, d, 2, async, &failed), -EIO);
		printf("#   WRITE: %s\n", hixl_last_error());
		if (!async)
			CHECK(strstr(hixl_last_error(), "cuMemcpyDtoHAsync: CUDA_ERROR_NOT_SUPPORTED"));
		CHECK_EQ(failed, 1);
		d[1].local_addr = da + 4 * MiB;	/* READ into 4 MiB on: every copy fails */
		CHECK_EQ(batch(a, IP ":29321", HIXL_OP_READ, d, 2, async, &failed), -EIO);
		printf("#   READ: %s\n", hixl_last_error());
		if (!async)
			CHECK(strstr(hixl_last_error(), "cuMemcpyHtoDAsync: CUDA_ERROR_NOT_SUPPORTED"));
		CHECK_EQ(failed, 1);
		/* the next transfer works: the bounce buffers were drained and reused */
		unsetenv("FAKE_CUDA_COPY_ERROR");
		CHECK_EQ(batch(a, IP ":29321", HIXL_OP_READ, d, 2, async, &failed), 0);
		got = gpu_dread(da + 4 * MiB, len);
		REQUIRE(got);
		CHECK_EQ(hx_first_diff(got, host + 8192, len), -1);
		free(got);
	}
	CHECK_EQ(hixl_engine_staged_stats(a, &ss), 0);
	CHECK_EQ(ss.errors, 4);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	CHECK_EQ(fake_live(), 0);
	CHECK_EQ(gpu_dfree(da), 0);
	CHECK_EQ(hx_count_fds(), fds);
	munmap(host, 4 * MiB);
}

/* the most copies the fake's stream had queued at once since the last call */
static int fake_inflight(void)
{
	fake_cuda_max_inflight_fn f =
		(fake_cuda_max_inflight_fn)dlsym(RTLD_DEFAULT, "fake_cuda_max_inflight");

	return f ? f() : -1;
}

static void test_gpu_staged_pipeline(void)
{
	const uint64_t big = 6 * MiB + 512 * KiB + 3, blk = 10000, stride = 16 * KiB;
	enum { NBLK = 200 };
	struct hixl_op_desc *kv = calloc(NBLK, sizeof(*kv)), d;
	unsigned char *host = hx_map(16 * MiB), *want, *got;
	struct hixl_engine *a, *b;
	CUdeviceptr da;

	gpu_fake_load();
	REQUIRE(host && kv);
	da = gpu_dalloc(16 * MiB);
	REQUIRE(da && gpu_dfill(da, 16 * MiB, 61) == 0);
	REQUIRE(staged_link(29330, da, 16 * MiB, host, 16 * MiB, &a, &b));

	/*
	 * every copy takes 3 ms on the fake's stream thread: a round sent
	 * before its copy ended, or a buffer read into while its copy to
	 * device runs, moves wrong bytes; 7 rounds reuse the 4 buffers
	 */
	setenv("FAKE_CUDA_COPY_DELAY_US", "3000", 1);
	for (int async = 0; async < 2; async++) {
		memset(host, 0, 16 * MiB);
		fake_inflight();
		d = (struct hixl_op_desc){ da + 1, (uintptr_t)host + 2, big };
		CHECK_EQ(batch(a, IP ":29331", HIXL_OP_WRITE, &d, 1, async, NULL), 0);
		want = gpu_dread(da + 1, big);
		REQUIRE(want);
		CHECK_EQ(hx_first_diff(host + 2, want, big), -1);
		/* the copies ran ahead of the WRITEs: up to four rounds queued */
		CHECK(fake_inflight() >= 2);
		d.local_addr = da + 8 * MiB + 5;
		CHECK_EQ(batch(a, IP ":29331", HIXL_OP_READ, &d, 1, async, NULL), 0);
		got = gpu_dread(da + 8 * MiB + 5, big);
		REQUIRE(got);
		CHECK_EQ(hx_first_diff(got, want, big), -1);
		free(want);
		free(got);
	}
	/* KV blocks: 200 of 10000 bytes, 64 pieces a round at most */
	for (int i = 0; i < NBLK; i++)
		kv[i] = (struct hixl_op_desc){ da + (uint64_t)i * stride, (uintptr_t)host + 7 * MiB +
					       (uint64_t)i * blk, blk };
	CHECK_EQ(batch(a, IP ":29331", HIXL_OP_WRITE, kv, NBLK, false, NULL), 0);
	want = gpu_dread(da, NBLK * stride);
	REQUIRE(want);
	for (int i = 0; i < NBLK; i++)
		CHECK_EQ(hx_first_diff(host + 7 * MiB + (uint64_t)i * blk, want + (uint64_t)i * stride,
				       blk), -1);
	for (int i = 0; i < NBLK; i++)
		kv[i].local_addr = da + 10 * MiB + (uint64_t)(NBLK - 1 - i) * stride;
	CHECK_EQ(batch(a, IP ":29331", HIXL_OP_READ, kv, NBLK, true, NULL), 0);
	got = gpu_dread(da + 10 * MiB, NBLK * stride);
	REQUIRE(got);
	for (int i = 0; i < NBLK; i++)
		CHECK_EQ(hx_first_diff(got + (uint64_t)(NBLK - 1 - i) * stride,
				       want + (uint64_t)i * stride, blk), -1);
	free(want);
	free(got);

	/*
	 * READ overlaps too: each copy to device takes 1 s, so round 2's copy
	 * finds round 1's still queued only if round 2's READ ran meanwhile
	 */
	setenv("FAKE_CUDA_COPY_DELAY_US", "1000000", 1);
	fake_inflight();
	d = (struct hixl_op_desc){ da + 12 * MiB, (uintptr_t)host, 2 * MiB };
	CHECK_EQ(batch(a, IP ":29331", HIXL_OP_READ, &d, 1, false, NULL), 0);
	CHECK_EQ(fake_inflight(), 2);
	unsetenv("FAKE_CUDA_COPY_DELAY_US");
	got = gpu_dread(da + 12 * MiB, 2 * MiB);
	REQUIRE(got);
	CHECK_EQ(hx_first_diff(got, host, 2 * MiB), -1);
	free(got);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	CHECK_EQ(fake_live(), 0);
	CHECK_EQ(gpu_dfree(da), 0);
	munmap(host, 16 * MiB);
	free(kv);
}

static void test_gpu_staged_cancel(void)
{
	enum { NREQ = 6 };
	struct hixl_transfer_args args = { .timeout_ms = 60000 };
	struct hixl_request *r[NREQ] = { 0 };
	unsigned char *host = hx_map(4 * MiB);
	struct hixl_engine *a, *b;
	enum hixl_transfer_status st;
	struct timespec t0;
	struct hixl_op_desc d;
	CUdeviceptr da;
	size_t failed;
	int fds, ret;

	gpu_fake_load();
	REQUIRE(host);
	da = gpu_dalloc(4 * MiB);
	REQUIRE(da && gpu_dfill(da, 4 * MiB, 71) == 0);
	fds = hx_count_fds();
	REQUIRE(staged_link(29335, da, 4 * MiB, host, 4 * MiB, &a, &b));
	/* 200 ms a copy: each request copies for 800 ms; 4 threads, 2 queued */
	setenv("FAKE_CUDA_COPY_DELAY_US", "200000", 1);
	d = (struct hixl_op_desc){ da, (uintptr_t)host, 4 * MiB };
	for (int i = 0; i < NREQ; i++)
		CHECK_EQ(hixl_transfer_async(a, IP ":29336", HIXL_OP_WRITE, &d, 1, &args, &r[i]), 0);
	/* the last one is queued behind the four running: its cancel ends it at once */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hixl_request_cancel(a, r[NREQ - 1]), 0);
	CHECK_EQ(hixl_get_transfer_status(a, r[NREQ - 1], &st), 0);
	CHECK_EQ(st, HIXL_TRANSFER_FAILED);
	CHECK_EQ(hixl_request_result(r[NREQ - 1], &failed), -ECANCELED);
	CHECK_EQ(failed, 0);
	printf("#   cancel of a queued staged request: %.0f ms\n", hx_ms_since(&t0));
	/* a running one: ends between rounds */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(hx_ms_since(&t0) < 100);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = hixl_request_cancel(a, r[0]);
	CHECK(ret == 0 || ret == -EALREADY);	/* it may just have ended */
	CHECK(hixl_request_result(r[0], NULL) == -ECANCELED || hixl_request_result(r[0], NULL) == 0);
	printf("#   cancel of a running staged request: %.0f ms, %d\n", hx_ms_since(&t0),
	       hixl_request_result(r[0], NULL));
	hixl_request_free(r[0]);
	hixl_request_free(r[NREQ - 1]);
	/* finalize with the others running or queued: each ends between rounds */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hixl_engine_finalize(a);
	printf("#   finalize with %d staged requests: %.0f ms\n", NREQ - 2, hx_ms_since(&t0));
	CHECK(hx_ms_since(&t0) < 10000);
	unsetenv("FAKE_CUDA_COPY_DELAY_US");
	hixl_engine_finalize(b);
	CHECK_EQ(fake_live(), 0);
	CHECK_EQ(hx_count_fds(), fds);
	CHECK_EQ(gpu_dfree(da), 0);
	munmap(host, 4 * MiB);
}

const struct ht_test gpu_staged_tests[] = {
	{ "gpu_staged_forced", test_gpu_staged_forced },
	{ "gpu_staged_auto", test_gpu_staged_auto },
	{ "gpu_staged_copy_error", test_gpu_staged_copy_error },
	{ "gpu_staged_pipeline", test_gpu_staged_pipeline },
	{ "gpu_staged_cancel", test_gpu_staged_cancel },
	{ NULL, NULL },
};
