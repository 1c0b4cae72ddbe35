/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_hsa.h - the part of the ROCm HSA runtime that tests/gpu/fake_hsa.c
 * stands in for (hsa.h / hsa_ext_amd.h values), and its test helpers.
 */
#ifndef HIXL_FAKE_HSA_H
#define HIXL_FAKE_HSA_H

#include <stddef.h>
#include <stdint.h>

#define HSA_STATUS_SUCCESS			0
#define HSA_STATUS_ERROR			0x1000
#define HSA_STATUS_ERROR_INVALID_ARGUMENT	0x1001

int hsa_init(void);
int hsa_status_string(int status, const char **s);
int hsa_amd_portable_export_dmabuf(const void *ptr, size_t size, int *dmabuf, uint64_t *offset);
int hsa_amd_portable_close_dmabuf(int dmabuf);
/* the tests' hipMalloc and hipMemcpy: device memory PROT_NONE to the CPU */
int fake_hsa_alloc(size_t size, void **ptr);
int fake_hsa_copy(void *dev, void *host, size_t n, int to_dev);
typedef int (*fake_hsa_alloc_fn)(size_t size, void **ptr);
typedef int (*fake_hsa_copy_fn)(void *dev, void *host, size_t n, int to_dev);

#endif
