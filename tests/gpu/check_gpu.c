// SPDX-License-Identifier: GPL-2.0
/*
 * check_gpu.c - make check-gpu: hixl against a real GPU, on a host that
 * has one (scripts/check-gpu.sh builds and runs it; TAP on stdout).
 *
 * It loads the CUDA driver the way lib/gpu.c does (dlopen("libcuda.so.1"),
 * or HIXL_CHECK_GPU_CUDA=PATH), makes device 0's primary context current
 * and allocates with cuMemAlloc(), then:
 *
 *  1. resolve: the library's lookup (hixl_gpu_resolve()) finds the
 *     allocation of an address inside it and exports the page-rounded range
 *     as a dma-buf the size of the range (no module needed);
 *  2. past the end: a range leaving its allocation is -ERANGE, named;
 *  3. staged copies: with hixl.ko and HIXL_CHECK_GPU_IP, an engine with
 *     DeviceMemPath "staged" registers a device allocation (the registration
 *     says HIXL_MEM_SOURCE_STAGED), WRITEs 3 MiB + 5 of it from an unaligned
 *     offset to host memory of a second engine and READs it back into the
 *     allocation elsewhere, through the bounce buffers and the GPU's copy
 *     engine; checked with cuMemcpyDtoH() and the staged-bytes counters;
 *  4. device to device: with hixl.ko loaded (/dev/hixl) and
 *     HIXL_CHECK_GPU_IP naming an address of an RDMA device, two engines
 *     on it register a device allocation each by address, WRITE 1 MiB and
 *     READ it back into a third range, checked with cuMemcpyDtoH().
 *
 * Without a driver (no libcuda.so.1, the toolkit's stub, cuInit() failing)
 * or without a device it prints "1..0 # SKIP" and why, and exits 0.
 * Exit status: 0 every test passed or skipped, 1 a test failed.
 * The cuda.h types and values it needs are in tests/gpu/fake_cuda.h (the
 * stand-in driver's header, which has the real driver's values), so that it
 * builds without the CUDA toolkit.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "internal.h"
#include "fake_cuda.h"

#define MiB	(1024u * 1024u)
#define ALLOC	(8 * MiB)

static struct {
	CUresult (*init)(unsigned int);
	CUresult (*count)(int *);
	CUresult (*get)(CUdevice *, int);
	CUresult (*name)(char *, int, CUdevice);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*release)(CUdevice);
	CUresult (*set)(CUcontext);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*free)(CUdeviceptr);
	CUresult (*htod)(CUdeviceptr, const void *, size_t);
	CUresult (*dtoh)(void *, CUdeviceptr, size_t);
} cu;

static int failed;
static unsigned int test_no;

static void result(int ok, const char *name)
{
	printf("%s %u - %s\n", ok ? "ok" : "not ok", ++test_no, name);
	if (!ok)
		failed = 1;
}

static void skip_all(const char *why, const char *detail)
{
	printf("1..0 # SKIP %s%s%s\n", why, detail ? ": " : "", detail ? detail : "");
	exit(0);
}

/* dlsym() every entry point; NULL or the name of the first missing */
static const char *cu_bind(void *h)
{
	static const struct { const char *sym; size_t off; } syms[] = {
#define S(f, name) { name, offsetof(__typeof__(cu), f) }
		S(init, "cuInit"), S(count, "cuDeviceGetCount"), S(get, "cuDeviceGet"),
		S(name, "cuDeviceGetName"), S(retain, "cuDevicePrimaryCtxRetain"),
		S(release, "cuDevicePrimaryCtxRelease_v2"), S(set, "cuCtxSetCurrent"),
		S(alloc, "cuMemAlloc_v2"), S(free, "cuMemFree_v2"), S(htod, "cuMemcpyHtoD_v2"),
		S(dtoh, "cuMemcpyDtoH_v2"),
#undef S
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].sym);

		if (!f)
			return syms[i].sym;
		memcpy((char *)&cu + syms[i].off, &f, sizeof(f));
	}
	return NULL;
}

static void fill(unsigned char *b, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)((i * 2654435761u) >> 13 ^ seed);
}

/* device range p equals pattern seed over len bytes */
static int dev_has(CUdeviceptr p, size_t len, unsigned int seed)
{
	unsigned char *want = malloc(len), *got = malloc(len);
	int same = 0;

	if (want && got && cu.dtoh(got, p, len) == CUDA_SUCCESS) {
		fill(want, len, seed);
		same = !memcmp(want, got, len);
	}
	free(want);
	free(got);
	return same;
}

static int dev_fill(CUdeviceptr p, size_t len, unsigned int seed)
{
	unsigned char *b = malloc(len);
	int ok = b != NULL;

	if (ok) {
		fill(b, len, seed);
		ok = cu.htod(p, b, len) == CUDA_SUCCESS;
	}
	free(b);
	return ok;
}

/* device ranges a and b hold the same len bytes */
static int dev_same(CUdeviceptr a, CUdeviceptr b, size_t len)
{
	unsigned char *x = malloc(len), *y = malloc(len);
	int same = x && y && cu.dtoh(x, a, len) == CUDA_SUCCESS &&
		   cu.dtoh(y, b, len) == CUDA_SUCCESS && !memcmp(x, y, len);

	free(x);
	free(y);
	return same;
}

/* fd is a dma-buf (its /proc/self/fd link names the dmabuf inode) of >= len bytes */
static int is_dmabuf(int fd, uint64_t len)
{
	char path[64], link[128];
	ssize_t n;
	off_t size;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	size = lseek(fd, 0, SEEK_END);
	printf("#   fd %d: %s, %lld bytes\n", fd, link, (long long)size);
	return strstr(link, "dmabuf") && size >= 0 && (uint64_t)size >= len;
}

static void test_resolve(CUdeviceptr p)
{
	struct hixl_gpu_range g;
	char why[256] = "";
	int ret = hixl_gpu_resolve(p + 64 * 1024, MiB, HIXL_DEVMEM_P2P, &g, why, sizeof(why));

	if (ret)
		printf("#   hixl_gpu_resolve: %d, %s\n", ret, why);
	result(!ret && g.fd >= 0 && g.source == HIXL_MEM_SOURCE_CUDA && g.addr <= p + 64 * 1024 &&
	       g.addr + g.len >= p + 64 * 1024 + MiB && is_dmabuf(g.fd, g.len),
	       "resolve: an address inside a cuMemAlloc() allocation exports as a dma-buf");
	if (!ret)
		hixl_gpu_release(&g);
}

static void test_past_end(CUdeviceptr p)
{
	struct hixl_gpu_range g;
	char why[256] = "";
	int ret = hixl_gpu_resolve(p + ALLOC - 4096, 8192, HIXL_DEVMEM_P2P, &g, why, sizeof(why));

	printf("#   %d: %s\n", ret, why);
	result(ret == -ERANGE, "past the end: a range leaving its allocation is -ERANGE");
	if (!ret)
		hixl_gpu_release(&g);
}

static int reg_dev(struct hixl_engine *e, CUdeviceptr p, uint64_t len, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = p, .len = len, .dmabuf_fd = -1 };
	int ret = hixl_register_mem(e, &d, HIXL_MEM_DEVICE, h);

	if (ret)
		printf("#   register 0x%llx: %d, %s\n", (unsigned long long)p, ret,
		       hixl_last_error());
	return ret;
}

static void test_dev_to_dev(CUdeviceptr pa, CUdeviceptr pb)
{
	const char *ip = getenv("HIXL_CHECK_GPU_IP");
	char an[80], bn[80];
	struct hixl_engine *a = NULL, *b = NULL;
	uint64_t ha, hb;
	struct hixl_op_desc w = { pa, pb, MiB }, r = { pa + MiB, pb, MiB };
	int ok = 0;

	if (access("/dev/hixl", F_OK)) {
		printf("ok %u - device to device # SKIP hixl.ko is not loaded (no /dev/hixl)\n",
		       ++test_no);
		return;
	}
	if (!ip || !*ip) {
		printf("ok %u - device to device # SKIP set HIXL_CHECK_GPU_IP to an address of an RDMA device\n",
		       ++test_no);
		return;
	}
	snprintf(an, sizeof(an), "%s:28190", ip);
	snprintf(bn, sizeof(bn), "%s:28191", ip);
	if (!dev_fill(pa, 2 * MiB, 3) || !dev_fill(pb, MiB, 4)) {
		result(0, "device to device: filling device memory");
		return;
	}
	if (hixl_engine_init(&a, an, NULL, 0) || hixl_engine_init(&b, bn, NULL, 0)) {
		printf("#   engines on %s: %s\n", ip, hixl_last_error());
	} else if (!reg_dev(a, pa, ALLOC, &ha) && !reg_dev(b, pb, ALLOC, &hb)) {
		int c = hixl_connect(a, bn, 10000);
		int wr = c ? c : hixl_transfer_sync(a, bn, HIXL_OP_WRITE, &w, 1, 20000, NULL);
		int rd = wr ? wr : hixl_transfer_sync(a, bn, HIXL_OP_READ, &r, 1, 20000, NULL);

		if (rd)
			printf("#   connect %d, WRITE %d, READ %d: %s\n", c, wr, rd, hixl_last_error());
		ok = !rd && dev_has(pb, MiB, 3) && dev_has(pa + MiB, MiB, 3);
	}
	if (a)
		hixl_engine_finalize(a);
	if (b)
		hixl_engine_finalize(b);
	result(ok, "device to device: WRITE and READ of 1 MiB between two engines, checked");
}

/* staged device memory: device -> host (WRITE), host -> device (READ) */
static void test_staged(CUdeviceptr pa)
{
	static const struct hixl_option st[] = { { HIXL_OPTION_DEVICE_MEM_PATH, "staged" } };
	const char *ip = getenv("HIXL_CHECK_GPU_IP");
	const uint64_t len = 3 * MiB + 5, off = 4096 + 3;
	struct hixl_engine *a = NULL, *b = NULL;
	struct hixl_staged_stats ss = { 0 };
	struct hixl_mem_info mi = { 0 };
	struct hixl_mem_desc hd = { 0 };
	unsigned char *host = NULL;
	uint64_t ha, hb;
	char an[80], bn[80];
	int ok = 0;

	if (access("/dev/hixl", F_OK)) {
		printf("ok %u - staged copies # SKIP hixl.ko is not loaded (no /dev/hixl)\n",
		       ++test_no);
		return;
	}
	if (!ip || !*ip) {
		printf("ok %u - staged copies # SKIP set HIXL_CHECK_GPU_IP to an address of an RDMA device\n",
		       ++test_no);
		return;
	}
	snprintf(an, sizeof(an), "%s:29390", ip);
	snprintf(bn, sizeof(bn), "%s:29391", ip);
	host = calloc(1, 4 * MiB);
	if (!host || !dev_fill(pa, 4 * MiB, 5) || !dev_fill(pa + 4 * MiB, 4 * MiB, 6)) {
		result(0, "staged copies: filling device memory");
		free(host);
		return;
	}
	hd.addr = (uintptr_t)host;
	hd.len = 4 * MiB;
	if (hixl_engine_init(&a, an, st, 1) || hixl_engine_init(&b, bn, NULL, 0)) {
		printf("#   engines on %s: %s\n", ip, hixl_last_error());
	} else if (!reg_dev(a, pa, ALLOC, &ha) && !hixl_register_mem(b, &hd, HIXL_MEM_HOST, &hb)) {
		struct hixl_op_desc w = { pa + off, (uintptr_t)host + 1, len };
		struct hixl_op_desc r = { pa + 4 * MiB + off, (uintptr_t)host + 1, len };
		int c = hixl_connect(a, bn, 10000);
		int wr = c ? c : hixl_transfer_sync(a, bn, HIXL_OP_WRITE, &w, 1, 60000, NULL);
		int rd = wr ? wr : hixl_transfer_sync(a, bn, HIXL_OP_READ, &r, 1, 60000, NULL);

		if (rd)
			printf("#   connect %d, WRITE %d, READ %d: %s\n", c, wr, rd, hixl_last_error());
		hixl_mem_get_info(a, ha, &mi);
		hixl_engine_staged_stats(a, &ss);
		printf("#   source %u, staged: %llu written, %llu read, %llu rounds\n", mi.source,
		       (unsigned long long)ss.bytes_written, (unsigned long long)ss.bytes_read,
		       (unsigned long long)ss.rounds);
		ok = !rd && mi.source == HIXL_MEM_SOURCE_STAGED && ss.bytes_written == len &&
		     ss.bytes_read == len && dev_same(pa + off, pa + 4 * MiB + off, len);
	} else {
		printf("#   %s\n", hixl_last_error());
	}
	if (a)
		hixl_engine_finalize(a);
	if (b)
		hixl_engine_finalize(b);
	free(host);
	result(ok, "staged copies: WRITE and READ of 3 MiB + 5 through the bounce buffers, checked");
}

int main(void)
{
	const char *path = getenv("HIXL_CHECK_GPU_CUDA");
	const char *missing, *ename = NULL;
	CUdeviceptr pa = 0, pb = 0;
	CUcontext ctx;
	CUdevice dev;
	char name[128] = "";
	CUresult rc;
	int n = 0;
	void *h;

	setvbuf(stdout, NULL, _IOLBF, 0);
	h = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		skip_all("no CUDA driver (libcuda.so.1) on this host", dlerror());
	missing = cu_bind(h);
	if (missing)
		skip_all("the CUDA driver lacks an entry point", missing);
	rc = cu.init(0);
	if (rc == CUDA_ERROR_STUB_LIBRARY)
		skip_all("libcuda.so.1 is the CUDA toolkit's stub: no NVIDIA driver", NULL);
	if (rc != CUDA_SUCCESS) {
		CUresult (*err_name)(CUresult, const char **) =
			(CUresult (*)(CUresult, const char **))dlsym(h, "cuGetErrorName");

		if (err_name)
			err_name(rc, &ename);
		skip_all("cuInit() failed", ename ? ename : "no name");
	}
	if (cu.count(&n) != CUDA_SUCCESS || n < 1)
		skip_all("no CUDA device", NULL);
	if (cu.get(&dev, 0) != CUDA_SUCCESS || cu.retain(&ctx, dev) != CUDA_SUCCESS ||
	    cu.set(ctx) != CUDA_SUCCESS) {
		printf("1..1\nnot ok 1 - device 0's primary context\n");
		return 1;
	}
	cu.name(name, sizeof(name), dev);
	printf("1..4\n# device 0: %s\n", name);
	if (cu.alloc(&pa, ALLOC) != CUDA_SUCCESS || cu.alloc(&pb, ALLOC) != CUDA_SUCCESS) {
		printf("# cuMemAlloc of %u bytes failed\n", ALLOC);
		return 1;
	}
	test_resolve(pa);
	test_past_end(pa);
	test_staged(pa);
	test_dev_to_dev(pa, pb);
	cu.free(pa);
	cu.free(pb);
	cu.set(NULL);
	cu.release(dev);
	return failed;
}
