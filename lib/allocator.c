// SPDX-License-Identifier: MIT
/*
 * allocator.c - libhixl-user: user allocators: the callbacks a request's
 * descriptor copy comes from (hixl_allocator_*()).
 */
#include <stdlib.h>

#include "internal.h"

HIXL_EXPORT int hixl_allocator_desc_create(struct hixl_allocator_desc **desc)
{
	if (!desc)
		return -EINVAL;
	*desc = calloc(1, sizeof(**desc));
	return *desc ? 0 : -ENOMEM;
}

HIXL_EXPORT void hixl_allocator_desc_destroy(struct hixl_allocator_desc *desc)
{
	free(desc);
}

HIXL_EXPORT int hixl_allocator_set_obj(struct hixl_allocator_desc *desc, void *obj)
{
	if (!desc)
		return -EINVAL;
	desc->a.obj = obj;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_alloc_func(struct hixl_allocator_desc *desc, hixl_alloc_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.alloc = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_free_func(struct hixl_allocator_desc *desc, hixl_free_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.free = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_block_addr_func(struct hixl_allocator_desc *desc,
						   hixl_block_addr_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.addr = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_register(struct hixl_engine *eng,
					const struct hixl_allocator_desc *desc)
{
	if (!eng)
		return -EINVAL;
	if (desc && (!desc->a.alloc || !desc->a.free || !desc->a.addr))
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	if (desc)
		eng->alloc = desc->a;
	else
		memset(&eng->alloc, 0, sizeof(eng->alloc));
	pthread_mutex_unlock(&eng->lock);
	return 0;
}
