// SPDX-License-Identifier: MIT
/*
 * register.c - libhixl-user: memory registration: REG_MEM / DEREG_MEM, and
 * the engine's list of registrations (what hixl_mem_get_info() reports),
 * which finalize deregisters.  Device memory given by address is resolved
 * by gpu.c.
 */
#include <stdio.h>
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
	struct hixl_reg_rec *h;
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

/*
 * REG_MEM of the region r describes (r->type decided), then the record
 * of it in eng->handles; r->handle out.
 */
static int reg_one(struct hixl_engine *eng, struct hixl_reg_mem *r, const struct hixl_mem_info *info)
{
	int ret;

	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		return ret;
	ret = hixl_ioctl(eng->fd, HIXL_IOC_REG_MEM, r);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);	/* a concurrent call may have used the room */
	if (!ret) {
		eng->handles[eng->nhandles].handle = r->handle;
		eng->handles[eng->nhandles].ctx = NULL;
		eng->handles[eng->nhandles++].info = *info;
	}
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		dereg(eng->fd, r->handle);
	return ret;
}

/*
 * A kernel's refusal of a dma-buf that staging answers: the device or the
 * exporter cannot do peer-to-peer (EOPNOTSUPP), or the importer could not
 * map it (EREMOTEIO).
 */
static bool staging_error(int err)
{
	return err == -EOPNOTSUPP || err == -EREMOTEIO;
}

/* Record a staged region (staged.c moves it): no REG_MEM; *handle the library's. */
static int reg_staged(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
		      const struct hixl_gpu_range *g, uint64_t *handle)
{
	struct hixl_reg_rec *rec;
	int ret;

	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);
	for (size_t i = 0; !ret && i < eng->nstaged; i++)
		if (g->addr < eng->staged[i].addr + eng->staged[i].len &&
		    eng->staged[i].addr < g->addr + g->len)
			ret = -EEXIST;	/* as the kernel answers an overlap */
	if (!ret && eng->nstaged == eng->staged_cap) {
		size_t cap = eng->staged_cap ? eng->staged_cap * 2 : 8;
		struct hixl_staged_rec *st = realloc(eng->staged, cap * sizeof(*st));

		if (st) {
			eng->staged = st;
			eng->staged_cap = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		rec = &eng->handles[eng->nhandles++];
		memset(rec, 0, sizeof(*rec));
		rec->handle = HIXL_STAGED_HANDLE_BIT | ++eng->next_staged;
		rec->ctx = g->ctx;
		rec->info.addr = g->addr;
		rec->info.len = g->len;
		rec->info.type = HIXL_MEM_DEVICE;
		rec->info.requested = HIXL_MEM_DEVICE;
		rec->info.source = HIXL_MEM_SOURCE_STAGED;
		rec->info.flags = desc->flags;
		eng->staged[eng->nstaged] = (struct hixl_staged_rec){
			.handle = rec->handle, .addr = g->addr, .len = g->len, .ctx = g->ctx };
		__atomic_add_fetch(&eng->nstaged, 1, __ATOMIC_RELEASE);
		*handle = rec->handle;
	}
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

static int register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
			enum hixl_mem_type type, uint64_t *handle, char *why, size_t wlen)
{
	struct hixl_gpu_range g = { .fd = -1 };
	struct hixl_mem_info info;
	struct hixl_reg_mem r;
	int ret;

	if (!eng || !desc || !handle)
		return -EINVAL;
	if (type != HIXL_MEM_HOST && type != HIXL_MEM_DEVICE)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(desc->reserved) / sizeof(desc->reserved[0]); i++)
		if (desc->reserved[i])
			return -EINVAL;	/* a field of a later version */
	memset(&r, 0, sizeof(r));
	memset(&info, 0, sizeof(info));
	r.addr = desc->addr;
	r.len = desc->len;
	r.type = type;
	r.flags = desc->flags;
	r.dmabuf_fd = type == HIXL_MEM_DEVICE ? desc->dmabuf_fd : -1;
	r.dmabuf_offset = type == HIXL_MEM_DEVICE ? desc->dmabuf_offset : 0;
	info.source = type == HIXL_MEM_DEVICE ? HIXL_MEM_SOURCE_DMABUF : HIXL_MEM_SOURCE_HOST;
	if (type == HIXL_MEM_DEVICE && desc->dmabuf_fd == -1) {
		/* device memory by address: the GPU runtime's dma-buf, or host memory */
		if (desc->dmabuf_offset) {
			snprintf(why, wlen, "dmabuf_offset 0x%llx with dmabuf_fd -1 (by address)",
				 (unsigned long long)desc->dmabuf_offset);
			return -EINVAL;
		}
		if (!desc->len)
			return -EINVAL;
		ret = hixl_gpu_resolve(desc->addr, desc->len, eng->devmem_path, &g, why, wlen);
		if (ret)
			return ret;
		if (g.staged)
			return reg_staged(eng, desc, &g, handle);
		r.addr = g.addr;
		r.len = g.len;
		r.dmabuf_fd = g.fd;
		r.dmabuf_offset = g.offset;
		if (g.fd < 0) {
			r.type = HIXL_MEM_HOST;
			r.dmabuf_offset = 0;
		}
		info.source = g.source;
	}
	info.addr = r.addr;
	info.len = r.len;
	info.type = r.type;
	info.requested = type;
	info.flags = r.flags;
	ret = reg_one(eng, &r, &info);
	hixl_gpu_release(&g);	/* the kernel holds its own reference (dma_buf_get) */
	if (ret && g.stageable && eng->devmem_path == HIXL_DEVMEM_AUTO && staging_error(ret)) {
		/* the RDMA device cannot reach it: the copy engine moves it */
		g.addr = desc->addr;
		g.len = desc->len;
		g.source = HIXL_MEM_SOURCE_STAGED;
		return reg_staged(eng, desc, &g, handle);
	}
	if (!ret)
		*handle = r.handle;
	return ret;
}

HIXL_EXPORT int hixl_register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
				  enum hixl_mem_type type, uint64_t *handle)
{
	char why[256] = "";
	int saved = errno, ret;

	ret = register_mem(eng, desc, type, handle, why, sizeof(why));
	errno = saved;
	return hixl_failf(ret, "hixl_register_mem(addr 0x%llx, len %llu, type %d, flags 0x%x)%s%s",
			  desc ? (unsigned long long)desc->addr : 0ULL,
			  desc ? (unsigned long long)desc->len : 0ULL, (int)type,
			  desc ? desc->flags : 0U, why[0] ? ": " : "", why);
}

HIXL_EXPORT int hixl_mem_get_info(struct hixl_engine *eng, uint64_t handle, struct hixl_mem_info *info)
{
	int ret = -ENOENT;

	if (!eng || !info)
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < eng->nhandles; i++) {
		if (eng->handles[i].handle == handle) {
			*info = eng->handles[i].info;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_deregister_mem(struct hixl_engine *eng, uint64_t handle)
{
	int ret;

	if (!eng)
		return -EINVAL;
	if (handle & HIXL_STAGED_HANDLE_BIT) {
		/* a staged region: the library's record only */
		ret = -ENOENT;
		pthread_mutex_lock(&eng->lock);
		for (size_t i = 0; i < eng->nhandles; i++) {
			if (eng->handles[i].handle == handle) {
				eng->handles[i] = eng->handles[--eng->nhandles];
				ret = 0;
				break;
			}
		}
		for (size_t i = 0; !ret && i < eng->nstaged; i++) {
			if (eng->staged[i].handle == handle) {
				eng->staged[i] = eng->staged[eng->nstaged - 1];
				__atomic_sub_fetch(&eng->nstaged, 1, __ATOMIC_RELEASE);
				break;
			}
		}
		pthread_mutex_unlock(&eng->lock);
		if (ret)
			return hixl_failf(ret, "hixl_deregister_mem(handle %llu)",
					  (unsigned long long)handle);
		return 0;
	}
	ret = dereg(eng->fd, handle);
	if (ret)
		return hixl_failf(ret, "hixl_deregister_mem(handle %llu)",
				  (unsigned long long)handle);
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < eng->nhandles; i++) {
		if (eng->handles[i].handle == handle) {
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
		if (!eng->handles[i].ctx)
			dereg(eng->fd, eng->handles[i].handle);
	free(eng->handles);
	free(eng->staged);
}
