// SPDX-License-Identifier: GPL-2.0
/*
 * fake_cuda.c - a stand-in for the CUDA driver (libcuda.so.1) for the
 * tests of device memory by address, on machines without a GPU.
 *
 * A "device allocation" (cuMemAlloc) is a memfd, sealed against shrinking
 * as udmabuf requires, mapped PROT_NONE in the process: its address is
 * reserved as a real GPU's would be, and any CPU load or store of device
 * memory faults, which proves hixl never touches it with the CPU.
 * cuMemGetHandleForAddressRange() exports a range as a udmabuf of the
 * memfd (/dev/udmabuf, UDMABUF_CREATE); cuMemcpyHtoD/DtoH are pwrite and
 * pread of the memfd, for the tests to fill and check device memory.
 *
 * The entry points are the real driver's symbols (cuda.h maps cuMemAlloc to
 * cuMemAlloc_v2, ...), with its rules where a test could tell: the calls
 * that need a context fail with CUDA_ERROR_INVALID_CONTEXT unless one is
 * pushed, the export wants page-aligned ranges inside one allocation.
 * Built by the Makefile as build/fake-cuda/libcuda.so.1 (soname
 * libcuda.so.1), never installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_cuda.h"

#define API __attribute__((visibility("default")))
#define MAX_ALLOCS 64

struct alloc {
	CUdeviceptr base;
	size_t size;
	int memfd;
};

static struct alloc allocs[MAX_ALLOCS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int inited;
static struct CUctx_st { int dummy; } the_ctx;
static __thread int ctx_depth;		/* contexts pushed on this thread */

static CUresult env_error(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? (CUresult)atoi(v) : CUDA_SUCCESS;
}

/* The allocation holding p, copied to *a; 0 or -1. */
static int find(CUdeviceptr p, struct alloc *a)
{
	int ret = -1;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].size && p >= allocs[i].base && p - allocs[i].base < allocs[i].size) {
			*a = allocs[i];
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

API CUresult cuInit(unsigned int flags)
{
	CUresult rc = env_error("FAKE_CUDA_INIT_ERROR");

	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (rc)
		return rc;
	inited = 1;
	return CUDA_SUCCESS;
}

API CUresult cuGetErrorName(CUresult err, const char **name)
{
	switch (err) {
	case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
	case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
	case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
	case CUDA_ERROR_NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; break;
	case CUDA_ERROR_STUB_LIBRARY: *name = "CUDA_ERROR_STUB_LIBRARY"; break;
	case CUDA_ERROR_INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; break;
	case CUDA_ERROR_NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* Allocations are whole pages (a real GPU's are 2 MiB granules). */
API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *p;
	int fd, i;

	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!dptr || !size)
		return CUDA_ERROR_INVALID_VALUE;
	size = (size + pg - 1) & ~(pg - 1);
	fd = memfd_create("fake-cuda", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (ftruncate(fd, (off_t)size) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	p = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_ALLOCS && allocs[i].size; i++)
		;
	if (i < MAX_ALLOCS)
		allocs[i] = (struct alloc){ (CUdeviceptr)(uintptr_t)p, size, fd };
	pthread_mutex_unlock(&lock);
	if (i == MAX_ALLOCS) {
		munmap(p, size);
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	CUresult rc = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].size && allocs[i].base == dptr) {
			munmap((void *)(uintptr_t)dptr, allocs[i].size);
			close(allocs[i].memfd);
			allocs[i].size = 0;
			rc = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

/* pwrite/pread of the memfd: the CPU never maps device memory readable */
static CUresult copy(CUdeviceptr d, void *h, size_t n, int to_dev)
{
	struct alloc a;
	size_t done = 0;

	if (find(d, &a) || n > a.size - (d - a.base))
		return CUDA_ERROR_INVALID_VALUE;
	while (done < n) {
		off_t off = (off_t)(d - a.base + done);
		ssize_t k = to_dev ? pwrite(a.memfd, (char *)h + done, n - done, off)
				   : pread(a.memfd, (char *)h + done, n - done, off);

		if (k <= 0)
			return CUDA_ERROR_UNKNOWN;
		done += (size_t)k;
	}
	return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	return copy(dst, (void *)src, n, 1);
}

API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	return copy(src, dst, n, 0);
}

/* Without a context: as the real driver, and no error for host memory it does not know. */
API CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr ptr)
{
	struct alloc a;

	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!data || find(ptr, &a))
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		/* FAKE_CUDA_NO_PTR_CTX: as a cuMemMap() range, which has no context */
		*(CUcontext *)data = env_error("FAKE_CUDA_NO_PTR_CTX") ? NULL : &the_ctx;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(CUdeviceptr *)data = a.base;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = a.size;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

API CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	if (ctx != &the_ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	ctx_depth++;
	return CUDA_SUCCESS;
}

API CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	ctx_depth--;
	if (ctx)
		*ctx = &the_ctx;
	return CUDA_SUCCESS;
}

API CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr ptr)
{
	struct alloc a;

	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (find(ptr, &a))
		return CUDA_ERROR_INVALID_VALUE;
	if (base)
		*base = a.base;
	if (size)
		*size = a.size;
	return CUDA_SUCCESS;
}

API CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr, size_t size,
					   int type, unsigned long long flags)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct udmabuf_create c;
	CUresult rc = env_error("FAKE_CUDA_EXPORT_ERROR");
	struct alloc a;
	int dev, fd;

	if (rc)
		return rc;
	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!handle || type != CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || flags || !size ||
	    (dptr | size) & (pg - 1) || find(dptr, &a) || size > a.size - (dptr - a.base))
		return CUDA_ERROR_INVALID_VALUE;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	memset(&c, 0, sizeof(c));
	c.memfd = (unsigned int)a.memfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.offset = dptr - a.base;
	c.size = size;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	if (fd < 0)
		return CUDA_ERROR_UNKNOWN;
	*(int *)handle = fd;
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *count)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = 1;
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!dev || ordinal)
		return CUDA_ERROR_INVALID_VALUE;
	*dev = 0;
	return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	if (!name || len <= 0 || dev)
		return CUDA_ERROR_INVALID_VALUE;
	strncpy(name, "hixl fake GPU", (size_t)len - 1);
	name[len - 1] = 0;
	return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!ctx || dev)
		return CUDA_ERROR_INVALID_VALUE;
	*ctx = &the_ctx;
	return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	return dev ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext *ctx)
{
	if (!ctx)
		return CUDA_ERROR_INVALID_VALUE;
	*ctx = ctx_depth ? &the_ctx : NULL;
	return CUDA_SUCCESS;
}

/* the thread's current context: the bottom of its stack, as the driver's */
API CUresult cuCtxSetCurrent(CUcontext ctx)
{
	if (ctx && ctx != &the_ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (ctx && !ctx_depth)
		ctx_depth = 1;
	else if (!ctx && ctx_depth)
		ctx_depth--;
	return CUDA_SUCCESS;
}

/*
 * Staging's entry points, asynchronous as the driver's: each stream has a
 * thread of its own that runs its copies in order (pread/pwrite of the
 * memfd), FAKE_CUDA_COPY_DELAY_US microseconds each (read at enqueue;
 * default 0); an event is the count of the stream's copies enqueued when
 * it was recorded, and has passed once the thread did that many.  So a
 * caller that used a bounce buffer before its event passed, or reused one
 * whose copy still runs, reads or writes the wrong bytes.
 * FAKE_CUDA_COPY_ERROR=N[:OFF] makes an async copy fail at enqueue with N,
 * every one or (with OFF) those reaching past byte OFF of their
 * allocation.  cuMemHostRegister_v2 wants memory that is not device
 * memory.  fake_cuda_live() counts the streams, events and host
 * registrations alive; fake_cuda_max_inflight() the most copies one
 * stream had queued and not done when a copy was enqueued.
 */
struct fake_op {
	struct fake_op *next;
	CUdeviceptr d;
	void *h;
	size_t n;
	int to_dev;
	unsigned int delay_us;
};

struct CUstream_st {
	int magic;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fake_op *head, *tail;
	unsigned long long enq, done;
	CUresult err;		/* the first copy that failed running: sticky */
	int stop;
};

struct CUevent_st {
	int magic;
	struct CUstream_st *s;
	unsigned long long seq;
};

#define STREAM_MAGIC 0x5157
#define EVENT_MAGIC 0x4576
static int live_streams, live_events, live_host_regs, max_inflight;

static void *stream_thread(void *arg)
{
	struct CUstream_st *s = arg;
	struct fake_op *op;
	CUresult rc;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->head && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		op = s->head;
		if (!op)
			break;
		pthread_mutex_unlock(&s->mu);
		if (op->delay_us)
			usleep(op->delay_us);
		rc = copy(op->d, op->h, op->n, op->to_dev);
		pthread_mutex_lock(&s->mu);
		if (rc && !s->err)
			s->err = rc;
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		free(op);
		s->done++;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

API CUresult cuStreamCreate(CUstream *sp, unsigned int flags)
{
	struct CUstream_st *s;

	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!sp || flags > 1)
		return CUDA_ERROR_INVALID_VALUE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->magic = STREAM_MAGIC;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->th, NULL, stream_thread, s)) {
		free(s);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	__atomic_add_fetch(&live_streams, 1, __ATOMIC_RELAXED);
	*sp = s;
	return CUDA_SUCCESS;
}

/* wait until the stream did seq copies; its sticky error */
static CUresult stream_wait(struct CUstream_st *s, unsigned long long seq)
{
	CUresult rc;

	pthread_mutex_lock(&s->mu);
	while (s->done < seq)
		pthread_cond_wait(&s->cv, &s->mu);
	rc = s->err;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* as the driver: destroying a stream lets its work finish first */
API CUresult cuStreamDestroy_v2(CUstream s)
{
	if (!s || s->magic != STREAM_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	s->magic = 0;
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
	__atomic_sub_fetch(&live_streams, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

API CUresult cuStreamSynchronize(CUstream s)
{
	unsigned long long seq;

	if (!s || s->magic != STREAM_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&s->mu);
	seq = s->enq;
	pthread_mutex_unlock(&s->mu);
	return stream_wait(s, seq);
}

API CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!e || flags & ~0x7u)
		return CUDA_ERROR_INVALID_VALUE;
	*e = calloc(1, sizeof(**e));
	if (!*e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*e)->magic = EVENT_MAGIC;
	__atomic_add_fetch(&live_events, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

API CUresult cuEventDestroy_v2(CUevent e)
{
	if (!e || e->magic != EVENT_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	e->magic = 0;
	free(e);
	__atomic_sub_fetch(&live_events, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

/* only the library's own streams: the legacy stream is not faked */
API CUresult cuEventRecord(CUevent e, CUstream s)
{
	if (!e || e->magic != EVENT_MAGIC || !s || s->magic != STREAM_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&s->mu);
	e->s = s;
	e->seq = s->enq;
	pthread_mutex_unlock(&s->mu);
	return CUDA_SUCCESS;
}

/* an event never recorded has passed, as the driver's */
API CUresult cuEventSynchronize(CUevent e)
{
	if (!e || e->magic != EVENT_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	return e->s ? stream_wait(e->s, e->seq) : CUDA_SUCCESS;
}

/* FAKE_CUDA_COPY_ERROR for the async copy of [d, d + n) */
static CUresult copy_error(CUdeviceptr d, size_t n)
{
	const char *v = getenv("FAKE_CUDA_COPY_ERROR"), *colon;
	struct alloc a;

	if (!v || !*v)
		return CUDA_SUCCESS;
	colon = strchr(v, ':');
	if (colon && !find(d, &a) && d - a.base + n <= strtoull(colon + 1, NULL, 0))
		return CUDA_SUCCESS;
	return (CUresult)atoi(v);
}

static CUresult async_copy(CUdeviceptr d, void *h, size_t n, int to_dev, CUstream s)
{
	const char *delay = getenv("FAKE_CUDA_COPY_DELAY_US");
	struct fake_op *op;
	struct alloc a;
	CUresult rc;
	int inflight, max;

	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!s || s->magic != STREAM_MAGIC || !h || find(d, &a) || n > a.size - (d - a.base))
		return CUDA_ERROR_INVALID_VALUE;
	rc = copy_error(d, n);
	if (rc)
		return rc;
	op = calloc(1, sizeof(*op));
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*op = (struct fake_op){ .d = d, .h = h, .n = n, .to_dev = to_dev,
				.delay_us = delay ? (unsigned int)atoi(delay) : 0 };
	pthread_mutex_lock(&s->mu);
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	s->enq++;
	inflight = (int)(s->enq - s->done);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	max = __atomic_load_n(&max_inflight, __ATOMIC_RELAXED);
	while (inflight > max &&
	       !__atomic_compare_exchange_n(&max_inflight, &max, inflight, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	return async_copy(src, dst, n, 0, s);
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	return async_copy(dst, (void *)src, n, 1, s);
}

API CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags)
{
	struct alloc a;

	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!p || !n || flags > 0xf || !find((CUdeviceptr)(uintptr_t)p, &a))
		return CUDA_ERROR_INVALID_VALUE;	/* device memory is not host memory */
	__atomic_add_fetch(&live_host_regs, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

API CUresult cuMemHostUnregister(void *p)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_sub_fetch(&live_host_regs, 1, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

/* the fake's own (tests only): streams + events + host registrations alive */
API int fake_cuda_live(void)
{
	return __atomic_load_n(&live_streams, __ATOMIC_RELAXED) +
	       __atomic_load_n(&live_events, __ATOMIC_RELAXED) +
	       __atomic_load_n(&live_host_regs, __ATOMIC_RELAXED);
}

/* the fake's own: the most copies one stream had queued at an enqueue; reset to 0 */
API int fake_cuda_max_inflight(void)
{
	return __atomic_exchange_n(&max_inflight, 0, __ATOMIC_RELAXED);
}
