/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_cuda.h - the part of the CUDA driver API that tests/gpu/fake_cuda.c
 * stands in for, with cuda.h's (CUDA 13) values, so that neither the fake
 * nor the tests need the CUDA headers.  The tests call the fake through
 * dlsym() of the handle they dlopen() it by.
 */
#ifndef HIXL_FAKE_CUDA_H
#define HIXL_FAKE_CUDA_H

#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef int CUdevice;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS			0
#define CUDA_ERROR_INVALID_VALUE	1
#define CUDA_ERROR_OUT_OF_MEMORY	2
#define CUDA_ERROR_NOT_INITIALIZED	3
#define CUDA_ERROR_STUB_LIBRARY		34
#define CUDA_ERROR_INVALID_CONTEXT	201
#define CUDA_ERROR_NOT_SUPPORTED	801
#define CUDA_ERROR_UNKNOWN		999

#define CU_POINTER_ATTRIBUTE_CONTEXT		1
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE	2
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR	11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE		12
#define CU_MEMORYTYPE_DEVICE			2
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD	1

/* the entry points (the real driver's symbol names) */
typedef CUresult (*fake_cuInit)(unsigned int flags);
typedef CUresult (*fake_cuMemAlloc_v2)(CUdeviceptr *dptr, size_t size);
typedef CUresult (*fake_cuMemFree_v2)(CUdeviceptr dptr);
typedef CUresult (*fake_cuMemcpyHtoD_v2)(CUdeviceptr dst, const void *src, size_t n);
typedef CUresult (*fake_cuMemcpyDtoH_v2)(void *dst, CUdeviceptr src, size_t n);

/* the fake's definitions (the tests reach them through dlsym()) */
CUresult cuInit(unsigned int flags);
CUresult cuGetErrorName(CUresult err, const char **name);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr ptr);
CUresult cuCtxPushCurrent_v2(CUcontext ctx);
CUresult cuCtxPopCurrent_v2(CUcontext *ctx);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr ptr);
CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr, size_t size, int type,
				       unsigned long long flags);
/* one device, "hixl fake GPU", whose primary context is the one context */
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxGetCurrent(CUcontext *ctx);
typedef CUresult (*fake_cuCtxSetCurrent)(CUcontext ctx);
typedef CUresult (*fake_cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
/* staging's: a stream and events of the library's, async copies, pinning */
CUresult cuStreamCreate(CUstream *s, unsigned int flags);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuEventCreate(CUevent *e, unsigned int flags);
CUresult cuEventDestroy_v2(CUevent e);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventSynchronize(CUevent e);
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s);
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags);
CUresult cuMemHostUnregister(void *p);
/* the fake's own, for tests: streams, events and host registrations alive */
int fake_cuda_live(void);
typedef int (*fake_cuda_live_fn)(void);
/* the fake's own: the most copies one stream had queued at an enqueue since the last call */
int fake_cuda_max_inflight(void);
typedef int (*fake_cuda_max_inflight_fn)(void);

/*
 * Environment the fake reads at each call (tests set it in their own
 * process): FAKE_CUDA_INIT_ERROR=N makes cuInit() return N (34: the
 * toolkit's stub library); FAKE_CUDA_EXPORT_ERROR=N makes
 * cuMemGetHandleForAddressRange() return N; FAKE_CUDA_COPY_ERROR=N[:OFF]
 * makes cuMemcpyDtoHAsync/HtoDAsync return N (with OFF: only a copy
 * reaching past byte OFF of its allocation); FAKE_CUDA_COPY_DELAY_US=N
 * makes each async copy take N microseconds more on its stream's thread;
 * FAKE_CUDA_NO_PTR_CTX=1 gives device memory no context of its own (NULL
 * from cuPointerGetAttribute(CONTEXT)), as a cuMemMap() range.
 */

#endif
