// SPDX-License-Identifier: MIT
/*
 * prof.c - libhixl-user: profiler hooks, the Linux form of
 * mstxMemHeapRegister and family.  See <hixl/prof.h>.
 *
 * Registry: a list of live heaps (few per process); in each heap its
 * regions in an array sorted by address (many: one per sub-allocation),
 * searched by bisection.  One mutex guards it all, and the probes fire
 * under it, so a tracer sees the events in the order the registry took
 * them (a heap's unregister after its regions', a reused handle after the
 * old one's unregister).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include <hixl/hixl.h>
#include "internal.h"

struct prof_region {
	uintptr_t addr;
	size_t size;
};

struct hixl_prof_heap {
	struct hixl_prof_heap *next;
	uintptr_t addr;
	size_t size;
	struct prof_region *regions;	/* sorted by addr, non-overlapping */
	size_t nr, cap;
	char *domain;
	char *name;
};

static pthread_mutex_t prof_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t prof_once = PTHREAD_ONCE_INIT;
static struct hixl_prof_heap *prof_heaps;

static void prof_atfork_prepare(void)
{
	pthread_mutex_lock(&prof_mutex);
}

static void prof_atfork_release(void)
{
	pthread_mutex_unlock(&prof_mutex);
}

static void prof_init(void)
{
	pthread_atfork(prof_atfork_prepare, prof_atfork_release, prof_atfork_release);
}

static void prof_lock(void)
{
	pthread_once(&prof_once, prof_init);
	pthread_mutex_lock(&prof_mutex);
}

static void prof_unlock(void)
{
	pthread_mutex_unlock(&prof_mutex);
}

/* Caller holds prof_mutex. */
static struct hixl_prof_heap **prof_find(const struct hixl_prof_heap *heap)
{
	struct hixl_prof_heap **pp;

	for (pp = &prof_heaps; *pp; pp = &(*pp)->next)
		if (*pp == heap)
			return pp;
	return NULL;
}

static int prof_check_name(const char *s)
{
	if (!s || !*s)
		return -EINVAL;
	if (strnlen(s, HIXL_PROF_NAME_MAX) >= HIXL_PROF_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* [a, a + as) and [b, b + bs) overlap; neither wraps, both non-empty */
static bool prof_overlap(uintptr_t a, size_t as, uintptr_t b, size_t bs)
{
	return a < b ? b - a < as : a - b < bs;
}

static void prof_heap_free(struct hixl_prof_heap *h)
{
	free(h->regions);
	free(h->domain);
	free(h->name);
	free(h);
}

HIXL_EXPORT int hixl_prof_heap_register(struct hixl_prof_heap **heap, const char *domain,
					const char *name, const void *addr, size_t size)
{
	uintptr_t a = (uintptr_t)addr;
	struct hixl_prof_heap *h;
	int saved = errno, ret;

	if (!heap || !addr || !size || size - 1 > UINTPTR_MAX - a)
		return -EINVAL;
	ret = prof_check_name(domain);
	if (!ret)
		ret = prof_check_name(name);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (h) {
		h->domain = strdup(domain);
		h->name = strdup(name);
	}
	if (!h || !h->domain || !h->name) {
		if (h)
			prof_heap_free(h);
		errno = saved;
		return -ENOMEM;
	}
	h->addr = a;
	h->size = size;

	prof_lock();
	for (struct hixl_prof_heap *o = prof_heaps; o; o = o->next)
		if (prof_overlap(a, size, o->addr, o->size) && !strcmp(o->domain, h->domain)) {
			prof_unlock();
			prof_heap_free(h);
			errno = saved;
			return -EEXIST;
		}
	h->next = prof_heaps;
	prof_heaps = h;
	DTRACE_PROBE5(hixl, heap_register, h, h->domain, h->name, addr, (uint64_t)size);
	prof_unlock();
	*heap = h;
	return 0;
}

HIXL_EXPORT int hixl_prof_heap_unregister(struct hixl_prof_heap *heap)
{
	struct hixl_prof_heap **pp;

	if (!heap)
		return -EINVAL;
	prof_lock();
	pp = prof_find(heap);
	if (!pp) {
		prof_unlock();
		return -ENOENT;
	}
	if (heap->nr) {
		prof_unlock();
		return -EBUSY;
	}
	*pp = heap->next;
	DTRACE_PROBE1(hixl, heap_unregister, heap);
	prof_unlock();
	prof_heap_free(heap);
	return 0;
}

/* Index of the first region with addr >= @a. */
static size_t prof_lower_bound(const struct hixl_prof_heap *h, uintptr_t a)
{
	size_t lo = 0, hi = h->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->regions[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

HIXL_EXPORT int hixl_prof_region_register(struct hixl_prof_heap *heap, const void *addr,
					  size_t size)
{
	uintptr_t a = (uintptr_t)addr;
	int saved = errno, ret = 0;
	size_t i;

	if (!heap || !addr || !size)
		return -EINVAL;
	prof_lock();
	if (!prof_find(heap)) {
		ret = -ENOENT;
		goto out;
	}
	if (a < heap->addr || a - heap->addr >= heap->size ||
	    size > heap->size - (a - heap->addr)) {
		ret = -EINVAL;
		goto out;
	}
	i = prof_lower_bound(heap, a);
	/* overlap with the region before, or the one at/after a */
	if ((i > 0 && a - heap->regions[i - 1].addr < heap->regions[i - 1].size) ||
	    (i < heap->nr && heap->regions[i].addr - a < size)) {
		ret = -EEXIST;
		goto out;
	}
	if (heap->nr == heap->cap) {
		size_t cap = heap->cap ? 2 * heap->cap : 16;
		struct prof_region *r = realloc(heap->regions, cap * sizeof(*r));

		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		heap->regions = r;
		heap->cap = cap;
	}
	memmove(&heap->regions[i + 1], &heap->regions[i],
		(heap->nr - i) * sizeof(heap->regions[0]));
	heap->regions[i].addr = a;
	heap->regions[i].size = size;
	heap->nr++;
	DTRACE_PROBE3(hixl, region_register, heap, addr, (uint64_t)size);
out:
	prof_unlock();
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_prof_region_unregister(struct hixl_prof_heap *heap, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	int ret = 0;
	size_t i;

	if (!heap || !addr)
		return -EINVAL;
	prof_lock();
	if (!prof_find(heap)) {
		ret = -ENOENT;
		goto out;
	}
	i = prof_lower_bound(heap, a);
	if (i == heap->nr || heap->regions[i].addr != a) {
		ret = -ENOENT;
		goto out;
	}
	memmove(&heap->regions[i], &heap->regions[i + 1],
		(heap->nr - i - 1) * sizeof(heap->regions[0]));
	heap->nr--;
	DTRACE_PROBE2(hixl, region_unregister, heap, addr);
out:
	prof_unlock();
	return ret;
}
