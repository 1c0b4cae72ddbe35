/* SPDX-License-Identifier: MIT */
/*
 * <hixl/prof.h> - profiler hooks: telling profilers about memory pools
 * ("heaps") and the regions sub-allocated from them; the Linux form of
 * CANN's mstxMemHeapRegister / mstxMemHeapUnregister /
 * mstxMemRegionsRegister / mstxMemRegionsUnregister (seed
 * 002_mstxMemHeapRegister).
 *
 * Each successful call fires a USDT probe (<sys/sdt.h>, no semaphore: a
 * single nop when nobody traces) of provider "hixl":
 *
 *	hixl:heap_register(heap, domain, name, addr, size)
 *	hixl:heap_unregister(heap)
 *	hixl:region_register(heap, addr, size)
 *	hixl:region_unregister(heap, addr)
 *
 * heap is the opaque handle (a pointer), domain and name are NUL-terminated
 * strings (valid while the probe fires), addr a pointer and size bytes
 * (64-bit).  The probes are in libhixl-user.so (and in any program linked
 * with libhixl-user.a); list them with `readelf -n libhixl-user.so.1` (the
 * stapsdt notes) or `bpftrace -l 'usdt:/path/to/libhixl-user.so.1:*'`.
 * Watch them, for a program using the shared library, with e.g.
 *
 *	bpftrace -e 'usdt:/path/to/libhixl-user.so.1:hixl:heap_register {
 *		printf("%s %s %p %d\n", str(arg1), str(arg2), arg3, arg4); }'
 *	bpftrace -e 'usdt:/path/to/libhixl-user.so.1:hixl:region_* {
 *		printf("%s heap %p addr %p\n", probe, arg0, arg1); }'
 *
 * or with perf (as root, tracefs mounted):
 *
 *	perf buildid-cache --add /path/to/libhixl-user.so.1
 *	perf probe -x /path/to/libhixl-user.so.1 sdt_hixl:heap_register
 *	perf record -e 'sdt_hixl:*' -- PROGRAM && perf script
 *
 * (for a program linked with libhixl-user.a, name the program instead of
 * the library).
 *
 * The library keeps a registry of the live heaps and their regions, so that
 * it can validate calls: regions must lie inside their heap and not overlap
 * each other, heaps of one domain must not overlap, and a heap is only
 * unregistered once it has no live region (mstx leaves those to the user).
 * The memory itself is never touched.
 *
 * Conventions (liburing): every function returns 0 or a negative errno
 * value and never changes errno.  Thread safety: every function may be
 * called from any thread; the registry is guarded by one mutex.  A heap
 * handle must not be used after hixl_prof_heap_unregister() returned 0.
 */
#ifndef HIXL_PROF_H
#define HIXL_PROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest domain or heap name, in bytes, counting the terminating NUL. */
#define HIXL_PROF_NAME_MAX	256

/* A registered memory heap (mstxMemHeapHandle_t).  Opaque. */
struct hixl_prof_heap;

/**
 * hixl_prof_heap_register() - register a memory pool (mstxMemHeapRegister)
 * @heap:   set to the new heap's handle on success
 * @domain: the profiling domain (mstxDomainHandle_t), a non-empty string;
 *          "global" stands for mstx's globalDomain
 * @name:   the pool's name, a non-empty string
 * @addr:   start of the pool (already allocated; it is not touched)
 * @size:   bytes, non-zero
 *
 * @domain and @name are copied.  Fires hixl:heap_register(heap, domain,
 * name, addr, size).
 *
 * Return: 0 on success;
 *  -EINVAL if @heap, @domain, @name or @addr is NULL, @domain or @name is
 *  empty, @size is 0 or @addr + @size wraps around the address space;
 *  -ENAMETOOLONG if @domain or @name is HIXL_PROF_NAME_MAX bytes or longer;
 *  -EEXIST if [@addr, @addr + @size) overlaps a heap registered in the same
 *  domain (heaps of different domains may overlap);
 *  -ENOMEM if the registry entry could not be allocated.
 */
int hixl_prof_heap_register(struct hixl_prof_heap **heap, const char *domain,
			    const char *name, const void *addr, size_t size);

/**
 * hixl_prof_heap_unregister() - unregister a pool (mstxMemHeapUnregister)
 * @heap: a handle from hixl_prof_heap_register()
 *
 * Fires hixl:heap_unregister(heap).
 *
 * Return: 0 on success (the handle is gone);
 *  -EINVAL if @heap is NULL;
 *  -ENOENT if @heap is not a live heap (never registered, or unregistered);
 *  -EBUSY if regions are still registered in it:
 *  hixl_prof_region_unregister() them first.
 */
int hixl_prof_heap_unregister(struct hixl_prof_heap *heap);

/**
 * hixl_prof_region_register() - register a region sub-allocated from a pool
 *	(mstxMemRegionsRegister, one region)
 * @heap: the pool's handle
 * @addr: start of the region
 * @size: bytes, non-zero
 *
 * Fires hixl:region_register(heap, addr, size).
 *
 * Return: 0 on success;
 *  -EINVAL if @heap or @addr is NULL, @size is 0, or [@addr, @addr + @size)
 *  does not lie inside the heap;
 *  -ENOENT if @heap is not a live heap;
 *  -EEXIST if the region overlaps a region registered in the heap;
 *  -ENOMEM if the registry entry could not be allocated.
 */
int hixl_prof_region_register(struct hixl_prof_heap *heap, const void *addr,
			      size_t size);

/**
 * hixl_prof_region_unregister() - unregister a region
 *	(mstxMemRegionsUnregister, one region)
 * @heap: the pool's handle
 * @addr: the start of the region, as given to hixl_prof_region_register()
 *
 * Fires hixl:region_unregister(heap, addr).
 *
 * Return: 0 on success;
 *  -EINVAL if @heap or @addr is NULL;
 *  -ENOENT if @heap is not a live heap, or no region of it starts at @addr.
 */
int hixl_prof_region_unregister(struct hixl_prof_heap *heap, const void *addr);

#ifdef __cplusplus
}
#endif

#endif /* HIXL_PROF_H */
