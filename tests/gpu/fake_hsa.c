// SPDX-License-Identifier: GPL-2.0
/*
 * fake_hsa.c - a stand-in for the ROCm HSA runtime (libhsa-runtime64.so.1)
 * for the tests of ROCm device memory by address, as fake_cuda.c is for
 * CUDA: an allocation (fake_hsa_alloc(), the tests' hipMalloc) is a sealed
 * memfd mapped PROT_NONE; hsa_amd_portable_export_dmabuf() gives a udmabuf
 * of the whole allocation and the pointer's offset in it, as ROCr's
 * DmaBufExport does, HSA_STATUS_ERROR_INVALID_ARGUMENT for a range that is
 * not inside one allocation; fake_hsa_copy() is pread/pwrite of the memfd.
 * Built as build/fake-cuda/libhsa-runtime64.so.1, never installed.
 */
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_hsa.h"

#define API __attribute__((visibility("default")))
#define MAX_ALLOCS 16

static struct { uintptr_t base; size_t size; int memfd; } allocs[MAX_ALLOCS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int inits;

API int hsa_init(void)
{
	__atomic_add_fetch(&inits, 1, __ATOMIC_SEQ_CST);
	return HSA_STATUS_SUCCESS;
}

API int hsa_status_string(int status, const char **s)
{
	*s = status == HSA_STATUS_ERROR_INVALID_ARGUMENT ? "HSA_STATUS_ERROR_INVALID_ARGUMENT" :
	     status == HSA_STATUS_ERROR ? "HSA_STATUS_ERROR" : "HSA_STATUS_SUCCESS";
	return HSA_STATUS_SUCCESS;
}

/* the allocation holding [p, p + n), or -1 */
static int find(uintptr_t p, size_t n)
{
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (allocs[i].size && p >= allocs[i].base && p - allocs[i].base < allocs[i].size &&
		    n <= allocs[i].size - (p - allocs[i].base))
			return i;
	return -1;
}

API int hsa_amd_portable_export_dmabuf(const void *ptr, size_t size, int *dmabuf, uint64_t *offset)
{
	struct udmabuf_create c;
	int i, dev, fd;

	if (!inits || !size || !dmabuf || !offset)
		return HSA_STATUS_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&lock);
	i = find((uintptr_t)ptr, size);
	memset(&c, 0, sizeof(c));
	if (i >= 0) {
		c.memfd = (unsigned int)allocs[i].memfd;
		c.size = allocs[i].size;
		*offset = (uintptr_t)ptr - allocs[i].base;
	}
	pthread_mutex_unlock(&lock);
	if (i < 0)
		return HSA_STATUS_ERROR_INVALID_ARGUMENT;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return HSA_STATUS_ERROR;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	if (fd < 0)
		return HSA_STATUS_ERROR;
	*dmabuf = fd;
	return HSA_STATUS_SUCCESS;
}

API int hsa_amd_portable_close_dmabuf(int dmabuf)
{
	return close(dmabuf) ? HSA_STATUS_ERROR : HSA_STATUS_SUCCESS;
}

API int fake_hsa_alloc(size_t size, void **ptr)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int fd, i;
	void *p;

	size = (size + pg - 1) & ~(pg - 1);
	fd = memfd_create("fake-hsa", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
		return HSA_STATUS_ERROR;
	p = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return HSA_STATUS_ERROR;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_ALLOCS && allocs[i].size; i++)
		;
	if (i < MAX_ALLOCS) {
		allocs[i].base = (uintptr_t)p;
		allocs[i].size = size;
		allocs[i].memfd = fd;
	}
	pthread_mutex_unlock(&lock);
	if (i == MAX_ALLOCS)
		return HSA_STATUS_ERROR;
	*ptr = p;
	return HSA_STATUS_SUCCESS;
}

API int fake_hsa_copy(void *dev, void *host, size_t n, int to_dev)
{
	int i;

	pthread_mutex_lock(&lock);
	i = find((uintptr_t)dev, n);
	pthread_mutex_unlock(&lock);
	if (i < 0)
		return HSA_STATUS_ERROR_INVALID_ARGUMENT;
	off_t off = (off_t)((uintptr_t)dev - allocs[i].base);
	ssize_t k = to_dev ? pwrite(allocs[i].memfd, host, n, off) : pread(allocs[i].memfd, host, n, off);

	return k == (ssize_t)n ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR;
}
