// SPDX-License-Identifier: MIT
/*
 * register.c - libhixl-user: memory registration: REG_MEM / DEREG_MEM, and
 * the engine's list of handles, which finalize deregisters.
 */
#include <stdlib.h>

#include "internal.h"

/* DEREG_MEM of one handle; its -errno. */
static int dereg(int fd, uint64_t handle)
{
	struct hixl_dereg_mem d;

	memset(&d, 0, sizeof(d));
	d.handle = handle;
	return hixl_ioctl(fd, HIXL_IOC_DEREG_MEM, &d);
}

/* Room for one more handle in eng->handles.  eng->lock held. */
static int handles_reserve(struct hixl_engine *eng)
{
	uint64_t *h;
	size_t cap;

	if (eng->nhandles < eng->cap)
		return 0;
	cap = eng->cap ? eng->cap * 2 : 16;
	h = realloc(eng->handles, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	eng->handles = h;
	eng->cap = cap;
	return 0;
}

static int register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
			enum hixl_mem_type type, uint64_t *handle)
{
	struct hixl_reg_mem r;
	int saved = errno, ret;

	if (!eng || !desc || !handle)
		return -EINVAL;
	if (type != HIXL_MEM_HOST && type != HIXL_MEM_DEVICE)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(desc->reserved) / sizeof(desc->reserved[0]); i++)
		if (desc->reserved[i])
			return -EINVAL;	/* a field of a later version */
	memset(&r, 0, sizeof(r));
	r.addr = desc->addr;
	r.len = desc->len;
	r.type = type;
	r.flags = desc->flags;
	r.dmabuf_fd = type == HIXL_MEM_DEVICE ? desc->dmabuf_fd : -1;
	r.dmabuf_offset = type == HIXL_MEM_DEVICE ? desc->dmabuf_offset : 0;
	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		goto out;
	ret = hixl_ioctl(eng->fd, HIXL_IOC_REG_MEM, &r);
	if (ret)
		goto out;
	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);	/* a concurrent call may have used the room */
	if (!ret)
		eng->handles[eng->nhandles++] = r.handle;
	pthread_mutex_unlock(&eng->lock);
	if (ret) {
		dereg(eng->fd, r.handle);
		goto out;
	}
	*handle = r.handle;
out:
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
				  enum hixl_mem_type type, uint64_t *handle)
{
	return hixl_failf(register_mem(eng, desc, type, handle), "hixl_register_mem(addr 0x%llx, len %llu, type %d, flags 0x%x)",
			  desc ? (unsigned long long)desc->addr : 0ULL,
			  desc ? (unsigned long long)desc->len : 0ULL, (int)type,
			  desc ? desc->flags : 0U);
}

HIXL_EXPORT int hixl_deregister_mem(struct hixl_engine *eng, uint64_t handle)
{
	int ret;

	if (!eng)
		return -EINVAL;
	ret = dereg(eng->fd, handle);
	if (ret)
		return hixl_failf(ret, "hixl_deregister_mem(handle %llu)",
				  (unsigned long long)handle);
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < eng->nhandles; i++) {
		if (eng->handles[i] == handle) {
			eng->handles[i] = eng->handles[--eng->nhandles];
			break;
		}
	}
	pthread_mutex_unlock(&eng->lock);
	return 0;
}

/* Finalize: deregister what is still registered.  No other thread is left. */
void hixl_handles_release(struct hixl_engine *eng)
{
	for (size_t i = 0; i < eng->nhandles; i++)
		dereg(eng->fd, eng->handles[i]);
	free(eng->handles);
}
