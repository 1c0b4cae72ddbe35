// SPDX-License-Identifier: MIT
/*
 * gpu.c - libhixl-user: device memory named by its address.
 *
 * hixl_register_mem(HIXL_MEM_DEVICE) with dmabuf_fd -1 gives only an
 * address.  This file finds out what it is:
 *
 *  - GPU memory of the CUDA driver: the driver exports the page-rounded
 *    range as a dma-buf (cuMemGetHandleForAddressRange), which register.c
 *    registers at offset 0 and closes once the kernel holds its own
 *    reference;
 *  - host memory (readable or writable pages of this process: upstream
 *    HIXL's tests name host buffers MEM_DEVICE on hosts without an NPU):
 *    registered as HIXL_MEM_HOST, which hixl_mem_get_info() reports;
 *  - anything else: an error naming why (no GPU runtime, the range leaves
 *    its allocation, the driver cannot export it).
 *
 * The CUDA driver API is loaded at run time, dlopen("libcuda.so.1") and
 * dlsym() of the few entry points below; the library neither links against
 * it nor needs its headers at build time: the types and values below are
 * cuda.h's (CUDA 13).  ROCm: when the process has the HSA runtime loaded
 * (libhsa-runtime64.so.1, as HIP loads it), an address neither CUDA nor the
 * host knows is exported by hsa_amd_portable_export_dmabuf() (a dma-buf of
 * the whole allocation and the address's offset in it).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

/* cuda.h (CUDA 13): the few types and values this file uses */
typedef int cu_result;			/* CUresult */
typedef unsigned long long cu_devptr;	/* CUdeviceptr (64-bit) */
typedef void *cu_ctx;			/* CUcontext */
#define CU_SUCCESS			0
#define CU_ERROR_STUB_LIBRARY		34
#define CU_ERROR_NOT_SUPPORTED		801
#define CU_POINTER_ATTRIBUTE_CONTEXT	1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE	12
#define CU_MEMORYTYPE_DEVICE		2
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1
#define CU_STREAM_NON_BLOCKING		0x1
#define CU_EVENT_DISABLE_TIMING		0x2
#define CU_MEMHOSTREGISTER_PORTABLE	0x01

/* hsa.h / hsa_ext_amd.h (ROCm 6) */
#define HSA_OK				0
#define HSA_ERROR_INVALID_ARGUMENT	0x1001

#define HIXL_CUDA_LIB	"libcuda.so.1"
#define HIXL_HSA_LIB	"libhsa-runtime64.so.1"

static struct {
	cu_result (*init)(unsigned int flags);
	cu_result (*ptr_attr)(void *data, int attr, cu_devptr ptr);
	cu_result (*ctx_push)(cu_ctx ctx);
	cu_result (*ctx_pop)(cu_ctx *ctx);
	cu_result (*ctx_current)(cu_ctx *ctx);	/* optional */
	cu_result (*addr_range)(cu_devptr *base, size_t *size, cu_devptr ptr);
	cu_result (*export)(void *handle, cu_devptr ptr, size_t size, int type,
			    unsigned long long flags);
	cu_result (*err_name)(cu_result err, const char **name);
	/* staging (staged.c): the copy engine, pinned host memory */
	cu_result (*stream_create)(void **s, unsigned int flags);
	cu_result (*stream_destroy)(void *s);
	cu_result (*stream_sync)(void *s);
	cu_result (*event_create)(void **e, unsigned int flags);
	cu_result (*event_destroy)(void *e);
	cu_result (*event_record)(void *e, void *s);
	cu_result (*event_sync)(void *e);
	cu_result (*dtoh_async)(void *dst, cu_devptr src, size_t n, void *s);
	cu_result (*htod_async)(cu_devptr dst, const void *src, size_t n, void *s);
	cu_result (*host_register)(void *p, size_t n, unsigned int flags);
	cu_result (*host_unregister)(void *p);
	bool ok;		/* loaded and cuInit() succeeded */
	bool stage_ok;		/* and has every staging entry point */
	char why[160];		/* otherwise: why not */
} cuda;

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

static struct {
	int (*init)(void);
	int (*export)(const void *ptr, size_t size, int *dmabuf, uint64_t *offset);
	int (*close)(int dmabuf);
	int (*str)(int status, const char **s);
	bool ok;		/* loaded (by the program) and hsa_init() succeeded */
} hsa;

static pthread_mutex_t hsa_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The HSA runtime, when the process has loaded it (never loaded here: a
 * process without it has no ROCm memory); asked again until it is there.
 */
static bool hsa_load(void)
{
	void *h;

	pthread_mutex_lock(&hsa_lock);
	if (!hsa.ok && (h = dlopen(HIXL_HSA_LIB, RTLD_NOW | RTLD_NOLOAD))) {
		hsa.init = (int (*)(void))dlsym(h, "hsa_init");
		hsa.export = (int (*)(const void *, size_t, int *, uint64_t *))
			dlsym(h, "hsa_amd_portable_export_dmabuf");
		hsa.close = (int (*)(int))dlsym(h, "hsa_amd_portable_close_dmabuf");
		hsa.str = (int (*)(int, const char **))dlsym(h, "hsa_status_string");
		/* hsa_init() counts: the program's own stays as it is */
		hsa.ok = hsa.init && hsa.export && hsa.close && hsa.init() == HSA_OK;
		if (!hsa.ok)
			dlclose(h);	/* else kept for the process's life */
	}
	pthread_mutex_unlock(&hsa_lock);
	return hsa.ok;
}

/* Load the CUDA driver and cuInit() it, once per process. */
static void cuda_load(void)
{
	void *h = dlopen(HIXL_CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
	const char *err, *missing;
	cu_result rc;

	if (!h) {
		err = dlerror();
		snprintf(cuda.why, sizeof(cuda.why), "no GPU runtime: %s", err ? err : HIXL_CUDA_LIB);
		return;
	}
	/* the unversioned names are the _v2 entry points in cuda.h */
	cuda.init = (cu_result (*)(unsigned int))dlsym(h, "cuInit");
	cuda.ptr_attr = (cu_result (*)(void *, int, cu_devptr))dlsym(h, "cuPointerGetAttribute");
	cuda.ctx_push = (cu_result (*)(cu_ctx))dlsym(h, "cuCtxPushCurrent_v2");
	cuda.ctx_pop = (cu_result (*)(cu_ctx *))dlsym(h, "cuCtxPopCurrent_v2");
	cuda.ctx_current = (cu_result (*)(cu_ctx *))dlsym(h, "cuCtxGetCurrent");
	cuda.addr_range = (cu_result (*)(cu_devptr *, size_t *, cu_devptr))
		dlsym(h, "cuMemGetAddressRange_v2");
	cuda.export = (cu_result (*)(void *, cu_devptr, size_t, int, unsigned long long))
		dlsym(h, "cuMemGetHandleForAddressRange");
	cuda.err_name = (cu_result (*)(cu_result, const char **))dlsym(h, "cuGetErrorName");
	/* staging's: cuda.h's names for the default (legacy) stream semantics */
	cuda.stream_create = (cu_result (*)(void **, unsigned int))dlsym(h, "cuStreamCreate");
	cuda.stream_destroy = (cu_result (*)(void *))dlsym(h, "cuStreamDestroy_v2");
	cuda.stream_sync = (cu_result (*)(void *))dlsym(h, "cuStreamSynchronize");
	cuda.event_create = (cu_result (*)(void **, unsigned int))dlsym(h, "cuEventCreate");
	cuda.event_destroy = (cu_result (*)(void *))dlsym(h, "cuEventDestroy_v2");
	cuda.event_record = (cu_result (*)(void *, void *))dlsym(h, "cuEventRecord");
	cuda.event_sync = (cu_result (*)(void *))dlsym(h, "cuEventSynchronize");
	cuda.dtoh_async = (cu_result (*)(void *, cu_devptr, size_t, void *))
		dlsym(h, "cuMemcpyDtoHAsync_v2");
	cuda.htod_async = (cu_result (*)(cu_devptr, const void *, size_t, void *))
		dlsym(h, "cuMemcpyHtoDAsync_v2");
	cuda.host_register = (cu_result (*)(void *, size_t, unsigned int))
		dlsym(h, "cuMemHostRegister_v2");
	cuda.host_unregister = (cu_result (*)(void *))dlsym(h, "cuMemHostUnregister");
	cuda.stage_ok = cuda.stream_create && cuda.stream_destroy && cuda.stream_sync &&
			cuda.event_create && cuda.event_destroy && cuda.event_record &&
			cuda.event_sync && cuda.dtoh_async && cuda.htod_async &&
			cuda.host_register && cuda.host_unregister;
	missing = !cuda.init ? "cuInit" : !cuda.ptr_attr ? "cuPointerGetAttribute" :
		  !cuda.ctx_push ? "cuCtxPushCurrent_v2" : !cuda.ctx_pop ? "cuCtxPopCurrent_v2" :
		  !cuda.addr_range ? "cuMemGetAddressRange_v2" :
		  !cuda.export ? "cuMemGetHandleForAddressRange" : NULL;
	if (missing) {
		snprintf(cuda.why, sizeof(cuda.why), "no GPU runtime: %s has no %s (CUDA before 11.7?)",
			 HIXL_CUDA_LIB, missing);
		dlclose(h);
		return;
	}
	rc = cuda.init(0);
	if (rc != CU_SUCCESS) {
		const char *name = NULL;

		if (!cuda.err_name || cuda.err_name(rc, &name) != CU_SUCCESS)
			name = rc == CU_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY: the toolkit's stub" : NULL;
		/* the toolkit's stub library answers CUDA_ERROR_STUB_LIBRARY (34) */
		snprintf(cuda.why, sizeof(cuda.why), "no GPU runtime: cuInit() of %s failed: %d (%s)",
			 HIXL_CUDA_LIB, rc, name ? name : "?");
		dlclose(h);
		return;
	}
	cuda.ok = true;		/* h stays open for the process's life */
}

/* The CUDA error's name, "CUDA_ERROR_..." or its number. */
static const char *cu_name(cu_result rc, char *buf, size_t len)
{
	const char *name = NULL;

	if (cuda.err_name && cuda.err_name(rc, &name) == CU_SUCCESS && name)
		return name;
	snprintf(buf, len, "CUresult %d", rc);
	return buf;
}

static int why_set(char *why, size_t wlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int why_set(char *why, size_t wlen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wlen, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Whether [addr, addr + len) is host memory of this process: every byte in
 * a mapping that is readable or writable (/proc/self/maps).  GPU address
 * ranges the driver reserves are PROT_NONE ("---p"), and are not.
 */
static bool range_is_host(uint64_t addr, uint64_t len)
{
	uint64_t cur = addr, end = addr + len;
	unsigned long long s, e;
	char line[512], perms[8];
	bool host = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) != 3)
			continue;
		if (e <= cur)
			continue;
		if (s > cur)
			break;	/* a hole */
		if (perms[0] != 'r' && perms[1] != 'w')
			break;
		cur = e;
		if (cur >= end) {
			host = true;
			break;
		}
	}
	fclose(f);
	return host;
}

/*
 * The CUDA allocation holding addr: a dma-buf of the page-rounded range
 * [page_down(addr), page_up(addr + len)), in out.  The driver's calls run
 * in the allocation's context (pushed and popped here).
 */
/* [addr, addr + len) as a staged region of ctx: the library copies it (staged.c) */
static int cuda_staged(uint64_t addr, uint64_t len, cu_ctx ctx, struct hixl_gpu_range *out,
		       char *why, size_t wlen)
{
	if (!cuda.stage_ok)
		return why_set(why, wlen, -EOPNOTSUPP,
			       "staged device memory: %s lacks the stream, event or async copy entry points",
			       HIXL_CUDA_LIB);
	if (!ctx)
		return why_set(why, wlen, -EOPNOTSUPP,
			       "staged device memory: 0x%llx has no CUDA context to copy in (none of its own, none current)",
			       (unsigned long long)addr);
	out->fd = -1;
	out->addr = addr;
	out->len = len;
	out->offset = 0;
	out->ctx = ctx;
	out->staged = true;
	out->source = HIXL_MEM_SOURCE_STAGED;
	return 0;
}

/*
 * path (enum hixl_devmem_path): P2P exports a dma-buf or fails; STAGED never
 * exports; AUTO exports, and stages where the driver cannot export.
 */
static int cuda_export(uint64_t addr, uint64_t len, int path, struct hixl_gpu_range *out,
		       char *why, size_t wlen)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start, end, lim;
	cu_devptr base = 0;
	size_t size = 0;
	cu_ctx ctx = NULL, sctx, popped;
	char nb[32];
	cu_result rc;
	int fd = -1, ret = 0;

	if (cuda.ptr_attr(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, addr) != CU_SUCCESS)
		ctx = NULL;
	if (ctx && cuda.ctx_push(ctx) != CU_SUCCESS)
		ctx = NULL;
	/*
	 * staging copies in the allocation's context; a cuMemMap() range has
	 * none: the calling thread's current one (the program's device)
	 */
	sctx = ctx;
	if (!sctx && (!cuda.ctx_current || cuda.ctx_current(&sctx) != CU_SUCCESS))
		sctx = NULL;
	rc = cuda.addr_range(&base, &size, addr);
	if (rc != CU_SUCCESS) {
		/* e.g. no context for a cuMemMap() range: the pointer's own attributes */
		if (cuda.ptr_attr(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, addr) != CU_SUCCESS ||
		    cuda.ptr_attr(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, addr) != CU_SUCCESS) {
			ret = why_set(why, wlen, -EFAULT,
				      "cuMemGetAddressRange(0x%llx) failed: %s", (unsigned long long)addr,
				      cu_name(rc, nb, sizeof(nb)));
			goto out;
		}
	}
	lim = base + size;
	if (addr < base || addr + len > lim || addr + len < addr) {
		ret = why_set(why, wlen, -ERANGE,
			      "the range runs past its GPU allocation [0x%llx, 0x%llx): register each allocation on its own",
			      (unsigned long long)base, (unsigned long long)lim);
		goto out;
	}
	if (path == HIXL_DEVMEM_STAGED) {
		ret = cuda_staged(addr, len, sctx, out, why, wlen);
		goto out;
	}
	start = addr & ~(pg - 1);
	end = (addr + len + pg - 1) & ~(pg - 1);
	if (start < base || end > lim) {
		if (path == HIXL_DEVMEM_AUTO && cuda.stage_ok && sctx) {
			ret = cuda_staged(addr, len, sctx, out, why, wlen);
			goto out;
		}
		ret = why_set(why, wlen, -EINVAL,
			      "GPU allocation [0x%llx, 0x%llx) is not page aligned: its pages cannot be exported",
			      (unsigned long long)base, (unsigned long long)lim);
		goto out;
	}
	rc = cuda.export(&fd, start, end - start, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (rc != CU_SUCCESS || fd < 0) {
		if (path == HIXL_DEVMEM_AUTO && cuda.stage_ok && sctx) {
			/* no dma-buf of it: no peer-to-peer either; the copy engine moves it */
			ret = cuda_staged(addr, len, sctx, out, why, wlen);
			goto out;
		}
		ret = why_set(why, wlen, rc == CU_ERROR_NOT_SUPPORTED || rc == CU_SUCCESS ? -EOPNOTSUPP : -EIO,
			      "cuMemGetHandleForAddressRange(0x%llx, %llu, DMA_BUF_FD): %s (needs CUDA 11.7+, the open kernel modules)",
			      (unsigned long long)start, (unsigned long long)(end - start),
			      cu_name(rc, nb, sizeof(nb)));
		goto out;
	}
	out->fd = fd;
	out->addr = start;
	out->len = addr + len - start;
	out->offset = 0;
	out->source = HIXL_MEM_SOURCE_CUDA;
	out->ctx = sctx;
	out->stageable = cuda.stage_ok && sctx;
out:
	if (ctx)
		cuda.ctx_pop(&popped);
	return ret;
}

/**
 * hixl_gpu_resolve() - what a HIXL_MEM_DEVICE address without a dma-buf is
 * @addr: start, bytes: a GPU virtual address or host memory of this process
 * @len:  bytes, > 0
 * @path: enum hixl_devmem_path, the engine's DeviceMemPath: for CUDA memory,
 *        P2P exports a dma-buf (or fails), STAGED never does (@out->staged),
 *        AUTO exports and stages where the driver cannot
 * @out:  out: the region to register: @out->fd a dma-buf the caller
 *        registers as HIXL_MEM_DEVICE at @out->offset and then closes, or
 *        -1 for host memory (HIXL_MEM_HOST); @out->addr, @out->len the
 *        range (device: @addr rounded down to its page .. @addr + @len);
 *        @out->source an enum hixl_mem_source
 * @why:  out: on error, the cause in words (for hixl_last_error())
 * @wlen: bytes at @why
 *
 * The first call loads the CUDA driver (once per process); the HSA runtime
 * is used when the program has loaded it.
 * Context: any thread; the CUDA calls run in the allocation's context.
 * Return: 0; -EOVERFLOW @addr + @len wraps; -ERANGE past the end of the
 * GPU allocation; -EINVAL an allocation that is not page aligned; -EFAULT
 * the driver runs and knows neither the address nor is it host memory;
 * -EOPNOTSUPP the driver cannot export it; -EIO another
 * driver error of the export; -ENODEV not host memory and no GPU runtime.
 */
/*
 * ROCm: a dma-buf of the allocation holding [addr, addr + len) and addr's
 * offset in it; registered from addr's page.  1 when HSA does not know the
 * range (not its memory, or past its allocation's end), 0 or -errno.
 */
static int rocm_export(uint64_t addr, uint64_t len, struct hixl_gpu_range *out, char *why,
		       size_t wlen)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t off = 0, start = addr & ~(pg - 1);
	const char *name = NULL;
	int fd = -1, rc;

	rc = hsa.export((const void *)(uintptr_t)addr, len, &fd, &off);
	if (rc == HSA_ERROR_INVALID_ARGUMENT)
		return 1;
	if (rc != HSA_OK || fd < 0) {
		if (!hsa.str || hsa.str(rc, &name) != HSA_OK)
			name = NULL;
		return why_set(why, wlen, -EOPNOTSUPP,
			       "hsa_amd_portable_export_dmabuf(0x%llx, %llu): 0x%x (%s)",
			       (unsigned long long)addr, (unsigned long long)len, rc, name ? name : "?");
	}
	if (off < addr - start || (off - (addr - start)) & (pg - 1)) {
		hsa.close(fd);
		return why_set(why, wlen, -EINVAL,
			       "ROCm allocation holding 0x%llx is not page aligned (offset 0x%llx in its dma-buf)",
			       (unsigned long long)addr, (unsigned long long)off);
	}
	out->fd = fd;
	out->addr = start;
	out->len = addr + len - start;
	out->offset = off - (addr - start);
	out->source = HIXL_MEM_SOURCE_ROCM;
	return 0;
}

void hixl_gpu_release(struct hixl_gpu_range *g)
{
	if (g->fd < 0)
		return;
	if (g->source == HIXL_MEM_SOURCE_ROCM)
		hsa.close(g->fd);
	else
		close(g->fd);
	g->fd = -1;
}

int hixl_gpu_resolve(uint64_t addr, uint64_t len, int path, struct hixl_gpu_range *out,
		     char *why, size_t wlen)
{
	int mt = 0, ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (addr + len < addr)
		return -EOVERFLOW;
	pthread_once(&cuda_once, cuda_load);
	if (cuda.ok && cuda.ptr_attr(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addr) == CU_SUCCESS &&
	    mt == CU_MEMORYTYPE_DEVICE)
		return cuda_export(addr, len, path, out, why, wlen);
	if (range_is_host(addr, len)) {
		out->addr = addr;
		out->len = len;
		out->source = HIXL_MEM_SOURCE_HOST;
		return 0;
	}
	if (hsa_load()) {
		ret = rocm_export(addr, len, out, why, wlen);
		if (ret <= 0)
			return ret;
		return why_set(why, wlen, -EFAULT,
			       "neither GPU memory in one allocation (%s does not know it) nor host memory of this process",
			       cuda.ok ? "CUDA or ROCm" : "ROCm");
	}
	if (cuda.ok)
		return why_set(why, wlen, -EFAULT,
			       "neither GPU memory (the CUDA driver does not know it) nor host memory of this process");
	return why_set(why, wlen, -ENODEV, "not host memory, and %s", cuda.why);
}

/*
 * The staging calls (staged.c): thin wrappers of the driver's, each
 * returning the CUresult (0 success); hixl_cu_name() names one.  Only
 * called once a staged region exists, so the driver is loaded and has
 * them (cuda.stage_ok).
 */
const char *hixl_cu_name(int rc, char *buf, size_t len)
{
	return cu_name(rc, buf, len);
}

int hixl_cu_push(void *ctx)
{
	return cuda.ctx_push(ctx);
}

void hixl_cu_pop(void)
{
	cu_ctx popped;

	cuda.ctx_pop(&popped);
}

int hixl_cu_stream_create(void **s)
{
	/* non-blocking: the program's own work on the legacy stream does not wait for it */
	return cuda.stream_create(s, CU_STREAM_NON_BLOCKING);
}

void hixl_cu_stream_destroy(void *s)
{
	cuda.stream_destroy(s);
}

int hixl_cu_stream_sync(void *s)
{
	return cuda.stream_sync(s);
}

int hixl_cu_event_create(void **e)
{
	return cuda.event_create(e, CU_EVENT_DISABLE_TIMING);
}

void hixl_cu_event_destroy(void *e)
{
	cuda.event_destroy(e);
}

int hixl_cu_event_record(void *e, void *s)
{
	return cuda.event_record(e, s);
}

int hixl_cu_event_sync(void *e)
{
	return cuda.event_sync(e);
}

int hixl_cu_dtoh_async(void *dst, uint64_t src, size_t n, void *s)
{
	return cuda.dtoh_async(dst, src, n, s);
}

int hixl_cu_htod_async(uint64_t dst, const void *src, size_t n, void *s)
{
	return cuda.htod_async(dst, src, n, s);
}

int hixl_cu_host_register(void *p, size_t n)
{
	return cuda.host_register(p, n, CU_MEMHOSTREGISTER_PORTABLE);
}

void hixl_cu_host_unregister(void *p)
{
	cuda.host_unregister(p);
}
