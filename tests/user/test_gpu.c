// SPDX-License-Identifier: GPL-2.0
/*
 * test_gpu.c - device memory by address (lib/gpu.c): hixl_register_mem()
 * of HIXL_MEM_DEVICE with dmabuf_fd -1, against tests/gpu/fake_cuda.c, a
 * stand-in for the CUDA driver built as build/fake-cuda/libcuda.so.1.  Its
 * device memory is a memfd mapped PROT_NONE (a CPU load or store of it
 * kills the test), exported as a udmabuf; cuMemcpyHtoD/DtoH fill and check
 * it.  The test dlopen()s the fake by its path first, so the library's own
 * dlopen("libcuda.so.1") finds it by its soname, as it finds the real
 * driver; each test runs in its own process, so one without the fake sees
 * no GPU runtime at all.
 *
 *   gpu_dev_addr       two engines each register a device allocation by
 *                      address; WRITE and READ between them on the same-host
 *                      copy and over rxe, checked through DtoH;
 *                      hixl_mem_get_info() says DEVICE from CUDA; no fd is
 *                      left open; a dma-buf fd given directly still works
 *   gpu_dev_mid        an unaligned range in the middle of an allocation:
 *                      registered from its page, bytes land exactly there
 *   gpu_dev_past_end   a range running past its allocation's end: -ERANGE
 *                      naming it; the export failing (DeviceMemPath p2p):
 *                      -EOPNOTSUPP
 *   gpu_no_runtime     no libcuda.so.1, the fake's cuInit() failing as the
 *                      toolkit's stub's does, and the stub itself when
 *                      installed: -ENODEV saying "no GPU runtime"
 *   gpu_host_as_dev    host memory registered as MEM_DEVICE (with and
 *                      without a runtime) becomes HIXL_MEM_HOST and says so,
 *                      and moves bytes
 *   gpu_rocm_addr      ROCm: the fake HSA runtime (fake_hsa.c) loaded, no
 *                      CUDA: an unaligned range inside an allocation
 *                      registered by address from the allocation's dma-buf
 *                      at its offset, bytes both ways; past the end -EFAULT
 *   gpu_check_gpu      make check-gpu's program (tests/gpu/check_gpu.c) on
 *                      the fake: resolve, past the end, the staged copies
 *                      and device to device pass, exit 0
 *
 * Engines on 10.77.0.1 (rxe0 in the test VM), ports 28100-28149, 28160-28169
 * and 28190-28191 (check_gpu.c's; its staged step 29390-29391).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "../gpu/fake_cuda.h"
#include "../gpu/fake_hsa.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define IP HX_IP

static struct {
	fake_cuMemAlloc_v2 alloc;
	fake_cuMemFree_v2 free;
	fake_cuMemcpyHtoD_v2 htod;
	fake_cuMemcpyDtoH_v2 dtoh;
} cu;

static const struct hixl_option rdma[] = { { "Transport", "rdma" } };
static const struct hixl_option p2p[] = { { HIXL_OPTION_DEVICE_MEM_PATH, "p2p" } };

/*
 * Load the fake driver (HIXL_TEST_FAKE_CUDA, else build/fake-cuda/ beside
 * this binary's tests/user/) and cuInit() it; SKIP without /dev/udmabuf or
 * the fake.  init_err: FAKE_CUDA_INIT_ERROR for cuInit(), 0 for none.
 */
static void fake_load(int init_err)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	const char *env = getenv("HIXL_TEST_FAKE_CUDA");
	fake_cuInit init;
	ssize_t n;
	void *h;

	if (!init_err && access("/dev/udmabuf", F_OK))
		SKIP("/dev/udmabuf missing (CONFIG_UDMABUF): the fake GPU exports udmabufs");
	if (env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			SKIP("no /proc/self/exe");
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
		snprintf(path, sizeof(path), "%s/../../build/fake-cuda/libcuda.so.1", exe);
	}
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		printf("#   %s\n", dlerror());
		SKIP("the fake CUDA driver is not built (make tests)");
	}
	cu.alloc = (fake_cuMemAlloc_v2)dlsym(h, "cuMemAlloc_v2");
	cu.free = (fake_cuMemFree_v2)dlsym(h, "cuMemFree_v2");
	cu.htod = (fake_cuMemcpyHtoD_v2)dlsym(h, "cuMemcpyHtoD_v2");
	cu.dtoh = (fake_cuMemcpyDtoH_v2)dlsym(h, "cuMemcpyDtoH_v2");
	init = (fake_cuInit)dlsym(h, "cuInit");
	if (init_err) {
		snprintf(exe, sizeof(exe), "%d", init_err);
		setenv("FAKE_CUDA_INIT_ERROR", exe, 1);
		return;		/* the library's cuInit() fails */
	}
	if (!cu.alloc || !cu.free || !cu.htod || !cu.dtoh || !init || init(0) != CUDA_SUCCESS)
		SKIP("the fake CUDA driver does not load");
}

static CUdeviceptr dalloc(size_t len)
{
	CUdeviceptr p = 0;

	return cu.alloc(&p, len) == CUDA_SUCCESS ? p : 0;
}

/* Fill device memory with a pattern of seed; 0 or -1. */
static int dfill(CUdeviceptr p, size_t len, unsigned int seed)
{
	unsigned char *b = malloc(len);
	int ret;

	if (!b)
		return -1;
	hx_fill(b, len, seed);
	ret = cu.htod(p, b, len) == CUDA_SUCCESS ? 0 : -1;
	free(b);
	return ret;
}

/* Device memory into a new host buffer (free() it), or NULL. */
static unsigned char *dread(CUdeviceptr p, size_t len)
{
	unsigned char *b = malloc(len);

	if (b && cu.dtoh(b, p, len) != CUDA_SUCCESS) {
		free(b);
		b = NULL;
	}
	return b;
}

/* Compare device ranges a and b, len bytes; the first difference or -1. */
static long long dcmp(CUdeviceptr a, CUdeviceptr b, size_t len)
{
	unsigned char *x = dread(a, len), *y = dread(b, len);
	long long ret = x && y ? hx_first_diff(x, y, len) : 0;

	free(x);
	free(y);
	return ret;
}

static int dev_reg(struct hixl_engine *e, uint64_t addr, uint64_t len, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = addr, .len = len, .dmabuf_fd = -1 };
	uint64_t tmp;

	return hixl_register_mem(e, &d, HIXL_MEM_DEVICE, h ? h : &tmp);
}

static int xfer(struct hixl_engine *e, const char *peer, enum hixl_op op, uint64_t l, uint64_t r,
		uint64_t len)
{
	struct hixl_op_desc d = { .local_addr = l, .remote_addr = r, .len = len };

	return hixl_transfer_sync(e, peer, op, &d, 1, 20000, NULL);
}

/* a WRITE then a READ between device memory of a and b, on one link */
static void dev_pair(uint16_t pa, uint16_t pb, const struct hixl_option *o, size_t no)
{
	const size_t len = 1 * MiB;
	char pbn[32], an[32];
	struct hixl_engine *a, *b;
	CUdeviceptr da, db;
	uint64_t ha, hb;
	struct hixl_mem_info mi;
	int fds;

	snprintf(an, sizeof(an), IP ":%u", pa);
	snprintf(pbn, sizeof(pbn), IP ":%u", pb);
	a = hx_lib_engine(an, o, no);
	REQUIRE(a);
	b = hx_lib_engine(pbn, o, no);
	REQUIRE(b);
	da = dalloc(2 * len);
	db = dalloc(len);
	REQUIRE(da && db);
	REQUIRE(dfill(da, 2 * len, 7) == 0 && dfill(db, len, 8) == 0);
	fds = hx_count_fds();
	CHECK_EQ(dev_reg(a, da, 2 * len, &ha), 0);
	CHECK_EQ(dev_reg(b, db, len, &hb), 0);
	CHECK_EQ(hx_count_fds(), fds);	/* the exported dma-bufs were closed */
	memset(&mi, 0x55, sizeof(mi));
	CHECK_EQ(hixl_mem_get_info(a, ha, &mi), 0);
	CHECK_EQ(mi.addr, da);
	CHECK_EQ(mi.len, 2 * len);
	CHECK_EQ(mi.type, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.requested, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_CUDA);
	CHECK_EQ(mi.reserved[0] | mi.reserved[3], 0);
	REQUIRE(hixl_connect(a, pbn, 10000) == 0);
	/* a's first half -> b, b -> a's second half */
	CHECK_EQ(xfer(a, pbn, HIXL_OP_WRITE, da + 4 * KiB, db + 4 * KiB, len - 8 * KiB + 3), 0);
	CHECK_EQ(dcmp(da + 4 * KiB, db + 4 * KiB, len - 8 * KiB + 3), -1);
	CHECK_EQ(xfer(a, pbn, HIXL_OP_READ, da + len, db, len), 0);
	CHECK_EQ(dcmp(da + len, db, len), -1);
	if (ht_failures)
		printf("#   %s\n", hixl_last_error());
	CHECK_EQ(hixl_deregister_mem(a, ha), 0);
	CHECK_EQ(hixl_mem_get_info(a, ha, &mi), -ENOENT);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	CHECK_EQ(cu.free(da), CUDA_SUCCESS);
	CHECK_EQ(cu.free(db), CUDA_SUCCESS);
}

static void test_gpu_dev_addr(void)
{
	struct hixl_engine *e;
	struct hixl_mem_desc d = { .dmabuf_fd = -1, .len = 64 * KiB };
	struct hixl_mem_info mi;
	uint64_t h;
	int memfd, fd;

	fake_load(0);
	dev_pair(28100, 28101, NULL, 0);	/* the same-host copy */
	dev_pair(28102, 28103, rdma, 1);	/* rxe */

	/* a dma-buf fd given directly: as before, and its info says so */
	e = hx_lib_engine(IP ":28104", NULL, 0);
	REQUIRE(e);
	fd = make_udmabuf(64 * KiB, &memfd);
	REQUIRE(fd >= 0);
	d.addr = 0x100000000000ULL;
	d.dmabuf_fd = fd;
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_DEVICE, &h), 0);
	CHECK_EQ(hixl_mem_get_info(e, h, &mi), 0);
	CHECK_EQ(mi.type, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_DMABUF);
	CHECK(fcntl(fd, F_GETFD) >= 0);	/* the caller's fd stays open */
	/* by address: a non-zero offset is refused */
	d.addr = dalloc(64 * KiB);
	d.dmabuf_fd = -1;
	d.dmabuf_offset = 4096;
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_DEVICE, &h), -EINVAL);
	CHECK(strstr(hixl_last_error(), "dmabuf_fd -1") != NULL);
	CHECK_EQ(hixl_mem_get_info(e, 12345, &mi), -ENOENT);
	CHECK_EQ(hixl_mem_get_info(e, h, NULL), -EINVAL);
	CHECK_EQ(hixl_mem_get_info(NULL, h, &mi), -EINVAL);
	hixl_engine_finalize(e);
	close(fd);
	close(memfd);
}

static void test_gpu_dev_mid(void)
{
	const size_t len = 256 * KiB, off = 3 * 4096 + 100, n = 10000;
	struct hixl_engine *a, *b;
	unsigned char *host = hx_map(len), *got, *want;
	struct hixl_mem_desc hd = { .len = len };
	struct hixl_mem_info mi;
	CUdeviceptr da;
	uint64_t h, hh;

	fake_load(0);
	a = hx_lib_engine(IP ":28110", NULL, 0);
	REQUIRE(a);
	b = hx_lib_engine(IP ":28111", NULL, 0);
	REQUIRE(b && host);
	da = dalloc(len);
	REQUIRE(da);
	REQUIRE(dfill(da, len, 21) == 0);
	CHECK_EQ(dev_reg(a, da + off, n, &h), 0);
	CHECK_EQ(hixl_mem_get_info(a, h, &mi), 0);
	CHECK_EQ(mi.addr, da + 3 * 4096);	/* from its page */
	CHECK_EQ(mi.len, 100 + n);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_CUDA);
	hd.addr = (uintptr_t)host;
	REQUIRE(hixl_register_mem(b, &hd, HIXL_MEM_HOST, &hh) == 0);
	REQUIRE(hixl_connect(a, IP ":28111", 10000) == 0);
	hx_fill(host, len, 22);
	want = dread(da, len);
	REQUIRE(want);
	memcpy(want + off, host + 5, n);
	CHECK_EQ(xfer(a, IP ":28111", HIXL_OP_READ, da + off, (uintptr_t)host + 5, n), 0);
	got = dread(da, len);
	REQUIRE(got);
	CHECK_EQ(hx_first_diff(got, want, len), -1);	/* exactly the range, nothing around it */
	memset(host, 0, len);
	CHECK_EQ(xfer(a, IP ":28111", HIXL_OP_WRITE, da + off, (uintptr_t)host + 7, n), 0);
	CHECK_EQ(hx_first_diff(host + 7, want + off, n), -1);
	/* the bytes outside the registration are not registered */
	CHECK(xfer(a, IP ":28111", HIXL_OP_WRITE, da + off + n, (uintptr_t)host, 1) < 0);
	free(got);
	free(want);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

static void test_gpu_dev_past_end(void)
{
	struct hixl_engine *e;
	struct hixl_mem_info mi;
	CUdeviceptr da, db;
	uint64_t h;
	int fds;

	fake_load(0);
	e = hx_lib_engine(IP ":28120", p2p, 1);	/* "auto" would stage what cannot be exported */
	REQUIRE(e);
	da = dalloc(64 * KiB);
	db = dalloc(64 * KiB);
	REQUIRE(da && db);
	fds = hx_count_fds();
	h = 0;
	CHECK_EQ(dev_reg(e, da + 4096, 64 * KiB, &h), -ERANGE);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "runs past its GPU allocation") != NULL);
	CHECK_EQ(h, 0);
	CHECK_EQ(dev_reg(e, da + 64 * KiB - 1, 2, &h), -ERANGE);
	/* exactly to the end is fine */
	CHECK_EQ(dev_reg(e, da + 60 * KiB, 4 * KiB, &h), 0);
	CHECK_EQ(hixl_mem_get_info(e, h, &mi), 0);
	CHECK_EQ(mi.len, 4 * KiB);
	/* the driver's export failing */
	setenv("FAKE_CUDA_EXPORT_ERROR", "801", 1);
	CHECK_EQ(dev_reg(e, db, 4 * KiB, &h), -EOPNOTSUPP);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "CUDA_ERROR_NOT_SUPPORTED") != NULL);
	setenv("FAKE_CUDA_EXPORT_ERROR", "999", 1);
	CHECK_EQ(dev_reg(e, db, 4 * KiB, &h), -EIO);
	unsetenv("FAKE_CUDA_EXPORT_ERROR");
	CHECK_EQ(hx_count_fds(), fds);
	/* freed device memory is not anything: neither GPU nor host memory */
	CHECK_EQ(cu.free(db), CUDA_SUCCESS);
	CHECK_EQ(dev_reg(e, db, 4 * KiB, &h), -EFAULT);
	printf("#   %s\n", hixl_last_error());
	hixl_engine_finalize(e);
}

/* A reserved, inaccessible range: what a GPU address looks like to the CPU. */
static void *gpu_like(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void no_runtime(struct hixl_engine *e, const char *what)
{
	void *p = gpu_like(64 * KiB);
	uint64_t h = 0;

	REQUIRE(p);
	CHECK_EQ(dev_reg(e, (uintptr_t)p, 64 * KiB, &h), -ENODEV);
	printf("#   %s: %s\n", what, hixl_last_error());
	CHECK(strstr(hixl_last_error(), "no GPU runtime") != NULL);
	CHECK(strstr(hixl_last_error(), what) != NULL);
	CHECK_EQ(h, 0);
	/* an address nothing maps at all */
	CHECK_EQ(dev_reg(e, 0x7e0000000000ULL, 64 * KiB, &h), -ENODEV);
	munmap(p, 64 * KiB);
}

static void test_gpu_no_runtime(void)
{
	static const char *const stubs[] = {
		"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/lib/stubs/libcuda.so",
		"/usr/local/cuda-13.0/lib/stubs/libcuda.so",
		"/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so",
	};
	struct hixl_engine *e;
	pid_t pid;
	int st;

	/*
	 * Children first: the library looks for the runtime once per process.
	 * The fake's cuInit() failing as the stub's does.
	 */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		e = hx_lib_engine(IP ":28131", NULL, 0);
		if (!e)
			_exit(2);
		fake_load(CUDA_ERROR_STUB_LIBRARY);
		no_runtime(e, "CUDA_ERROR_STUB_LIBRARY");
		hixl_engine_finalize(e);
		_exit(ht_failures ? 1 : 0);
	}
	REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77));
	/* the toolkit's stub itself */
	for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++) {
		if (access(stubs[i], R_OK))
			continue;
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			e = hx_lib_engine(IP ":28132", NULL, 0);
			if (!e || !dlopen(stubs[i], RTLD_NOW | RTLD_GLOBAL))
				_exit(2);
			no_runtime(e, "cuInit()");
			hixl_engine_finalize(e);
			_exit(ht_failures ? 1 : 0);
		}
		printf("#   the toolkit's stub: %s\n", stubs[i]);
		REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		break;
	}
	e = hx_lib_engine(IP ":28130", NULL, 0);
	REQUIRE(e);
	/* this process: no libcuda.so.1 anywhere the loader looks (the test VM) */
	if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) == NULL) {
		void *h = dlopen("libcuda.so.1", RTLD_LAZY);

		if (h) {
			printf("#   a libcuda.so.1 is installed: not testing its absence\n");
			dlclose(h);
		} else {
			no_runtime(e, "libcuda.so.1");
		}
	}
	hixl_engine_finalize(e);
}

/* host memory named MEM_DEVICE: HIXL_MEM_HOST, and bytes move */
static void host_as_dev(uint16_t pa, uint16_t pb)
{
	const size_t len = 128 * KiB;
	unsigned char *x = hx_map(len), *y = hx_map(len);
	struct hixl_engine *a, *b;
	struct hixl_mem_info mi;
	char an[32], bn[32];
	uint64_t h;

	snprintf(an, sizeof(an), IP ":%u", pa);
	snprintf(bn, sizeof(bn), IP ":%u", pb);
	a = hx_lib_engine(an, NULL, 0);
	REQUIRE(a);
	b = hx_lib_engine(bn, NULL, 0);
	REQUIRE(b && x && y);
	CHECK_EQ(dev_reg(a, (uintptr_t)x + 100, len - 100, &h), 0);
	memset(&mi, 0x55, sizeof(mi));
	CHECK_EQ(hixl_mem_get_info(a, h, &mi), 0);
	CHECK_EQ(mi.type, HIXL_MEM_HOST);
	CHECK_EQ(mi.requested, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_HOST);
	CHECK_EQ(mi.addr, (uintptr_t)x + 100);
	CHECK_EQ(mi.len, len - 100);
	CHECK_EQ(dev_reg(b, (uintptr_t)y, len, NULL), 0);
	REQUIRE(hixl_connect(a, bn, 10000) == 0);
	hx_fill(x, len, 31);
	CHECK_EQ(xfer(a, bn, HIXL_OP_WRITE, (uintptr_t)x + 100, (uintptr_t)y + 1, len - 101), 0);
	CHECK_EQ(hx_first_diff(x + 100, y + 1, len - 101), -1);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	munmap(x, len);
	munmap(y, len);
}

static void test_gpu_host_as_dev(void)
{
	pid_t pid;
	int st;

	/* no GPU runtime in this process */
	host_as_dev(28140, 28141);
	/* with the fake driver, which does not know host memory */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fake_load(0);
		host_as_dev(28142, 28143);
		_exit(ht_failures ? 1 : 0);
	}
	REQUIRE(pid > 0 && waitpid(pid, &st, 0) == pid);
	/* 77: fake_load() skipped in the child (no udmabuf, not built) */
	CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77));
}

static void test_gpu_rocm_addr(void)
{
	const size_t len = 256 * KiB, off = 5 * 4096 + 40, n = 20000;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	unsigned char *host = hx_map(len), *got = malloc(len), *want = malloc(len);
	struct hixl_mem_desc hd = { .len = len };
	struct hixl_engine *a, *b;
	struct hixl_mem_info mi;
	fake_hsa_alloc_fn halloc;
	fake_hsa_copy_fn hcopy;
	void *h, *dev = NULL;
	uint64_t rh, hh;
	ssize_t k;
	int fds;

	if (access("/dev/udmabuf", F_OK))
		SKIP("/dev/udmabuf missing (CONFIG_UDMABUF): the fake GPU exports udmabufs");
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	REQUIRE(k > 0);
	exe[k] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/../../build/fake-cuda/libhsa-runtime64.so.1", exe);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		SKIP("the fake HSA runtime is not built (make tests)");
	halloc = (fake_hsa_alloc_fn)dlsym(h, "fake_hsa_alloc");
	hcopy = (fake_hsa_copy_fn)dlsym(h, "fake_hsa_copy");
	REQUIRE(halloc && hcopy && host && got && want);
	REQUIRE(halloc(len, &dev) == 0);
	hx_fill(want, len, 41);
	REQUIRE(hcopy(dev, want, len, 1) == 0);
	a = hx_lib_engine(IP ":28160", NULL, 0);
	REQUIRE(a);
	b = hx_lib_engine(IP ":28161", NULL, 0);
	REQUIRE(b);
	fds = hx_count_fds();
	CHECK_EQ(dev_reg(a, (uintptr_t)dev + off, n, &rh), 0);
	if (ht_failures)
		printf("#   %s\n", hixl_last_error());
	CHECK_EQ(hx_count_fds(), fds);	/* closed (hsa_amd_portable_close_dmabuf) */
	CHECK_EQ(hixl_mem_get_info(a, rh, &mi), 0);
	CHECK_EQ(mi.source, HIXL_MEM_SOURCE_ROCM);
	CHECK_EQ(mi.type, HIXL_MEM_DEVICE);
	CHECK_EQ(mi.addr, (uintptr_t)dev + 5 * 4096);
	CHECK_EQ(mi.len, 40 + n);
	hd.addr = (uintptr_t)host;
	REQUIRE(hixl_register_mem(b, &hd, HIXL_MEM_HOST, &hh) == 0);
	REQUIRE(hixl_connect(a, IP ":28161", 10000) == 0);
	/* device -> host: the device's bytes at off */
	CHECK_EQ(xfer(a, IP ":28161", HIXL_OP_WRITE, (uintptr_t)dev + off, (uintptr_t)host + 3, n), 0);
	CHECK_EQ(hx_first_diff(host + 3, want + off, n), -1);
	/* host -> device: exactly the range */
	hx_fill(host, len, 42);
	memcpy(want + off, host + 9, n);
	CHECK_EQ(xfer(a, IP ":28161", HIXL_OP_READ, (uintptr_t)dev + off, (uintptr_t)host + 9, n), 0);
	REQUIRE(hcopy(dev, got, len, 0) == 0);
	CHECK_EQ(hx_first_diff(got, want, len), -1);
	/* past the allocation's end: HSA does not know it */
	CHECK_EQ(dev_reg(a, (uintptr_t)dev + len - 4096, 8192, NULL), -EFAULT);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "ROCm") != NULL);
	CHECK_EQ(hixl_deregister_mem(a, rh), 0);
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	free(got);
	free(want);
}

/*
 * make check-gpu's program (tests/gpu/check_gpu.c) against the stand-in
 * driver: what a GPU host runs, proven here on its every step but the
 * staged one (the library has none yet).
 */
static void test_gpu_check_gpu(void)
{
	char exe[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	int n_ok = 0, n_skip = 0, n_bad = 0, st;
	ssize_t n;
	FILE *f;

	fake_load(0);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	REQUIRE(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(cmd, sizeof(cmd),
		 "HIXL_CHECK_GPU_CUDA=%s/../../build/fake-cuda/libcuda.so.1 HIXL_CHECK_GPU_IP=" IP
		 " %s/../../build/check-gpu/check-gpu", exe, exe);
	if (access(strrchr(cmd, ' ') + 1, X_OK))
		SKIP("build/check-gpu/check-gpu is not built (make tests)");
	f = popen(cmd, "r");
	REQUIRE(f);
	while (fgets(line, sizeof(line), f)) {
		printf("#   | %s", line);
		if (!strncmp(line, "not ok", 6))
			n_bad++;
		else if (!strncmp(line, "ok", 2) && strstr(line, "# SKIP"))
			n_skip++;
		else if (!strncmp(line, "ok", 2))
			n_ok++;
	}
	st = pclose(f);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(n_bad, 0);
	CHECK_EQ(n_ok, 4);	/* resolve, past the end, staged copies, device to device */
	CHECK_EQ(n_skip, 0);
}

/* for test_gpu_staged.c: the fake driver and its device memory */
void gpu_fake_load(void)
{
	fake_load(0);
}

unsigned long long gpu_dalloc(size_t len)
{
	return dalloc(len);
}

int gpu_dfree(unsigned long long p)
{
	return cu.free(p) == CUDA_SUCCESS ? 0 : -1;
}

int gpu_dfill(unsigned long long p, size_t len, unsigned int seed)
{
	return dfill(p, len, seed);
}

unsigned char *gpu_dread(unsigned long long p, size_t len)
{
	return dread(p, len);
}

const struct ht_test gpu_tests[] = {
	{ "gpu_dev_addr", test_gpu_dev_addr },
	{ "gpu_dev_mid", test_gpu_dev_mid },
	{ "gpu_dev_past_end", test_gpu_dev_past_end },
	{ "gpu_no_runtime", test_gpu_no_runtime },
	{ "gpu_host_as_dev", test_gpu_host_as_dev },
	{ "gpu_rocm_addr", test_gpu_rocm_addr },
	{ "gpu_check_gpu", test_gpu_check_gpu },
	{ NULL, NULL },
};
