// SPDX-License-Identifier: GPL-2.0
/*
 * test_physmem.c - user tests of physical memory handles (lib/physmem.c):
 * granularity, allocation (normal, 2 MiB and 1 GiB huge pages, NUMA node),
 * reserved ranges, mapping, export/import, passing handles between
 * processes with SCM_RIGHTS, every error path, errno left untouched.
 * Huge page tests SKIP when the machine has no free huge pages of that
 * size (the test VM reserves 64 x 2 MiB and one 1 GiB page).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include <hixl/hixl.h>
#include "tests.h"

#define SZ_2M	(2UL << 20)
#define SZ_1G	(1UL << 30)
#define ERRNO_CANARY	4242

/* Call into the library and check that errno came back untouched. */
static long errno_kept(long r, const char *what, int line)
{
	if (errno != ERRNO_CANARY) {
		printf("#   %s:%d: %s changed errno to %d\n", __FILE__, line, what, errno);
		ht_failures++;
	}
	return r;
}

#define CALL(expr) (errno = ERRNO_CANARY, errno_kept((expr), #expr, __LINE__))

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static struct hixl_phys_prop prop_of(uint32_t kind)
{
	struct hixl_phys_prop p;

	memset(&p, 0, sizeof(p));
	p.location = HIXL_MEM_LOCATION_HOST;
	p.numa_node = -1;
	p.page_kind = kind;
	return p;
}

/* A sysfs number of the huge page pool of @kb kB pages, -1 if no such pool. */
static long huge_param(unsigned long kb, const char *what)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%lukB/%s", kb, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* SKIP unless @n huge pages of @kb kB are free now. */
static void need_huge(unsigned long kb, long n)
{
	long free_pages = huge_param(kb, "free_hugepages");
	static char why[160];

	if (free_pages < n) {
		snprintf(why, sizeof(why),
			 "needs %ld free %lu kB huge pages, the machine has %ld (nr_hugepages)",
			 n, kb, free_pages < 0 ? 0 : free_pages);
		SKIP(why);
	}
}

/* The /proc/self/maps permissions ("rw-s", "---p") of @addr, "" if unmapped. */
static const char *perms_of(const void *addr)
{
	static char perms[8];
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	perms[0] = 0;
	if (!f)
		return perms;
	while (fgets(line, sizeof(line), f)) {
		char p[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, p) == 3 &&
		    (uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
			strcpy(perms, p);
			break;
		}
	}
	fclose(f);
	return perms;
}

/* KernelPageSize (kB) of the VMA holding @addr, from /proc/self/smaps; -1 if none. */
static long kernel_page_kb(const void *addr)
{
	unsigned long lo, hi;
	char line[512];
	int in = 0;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char p[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, p) == 3 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (in && sscanf(line, "KernelPageSize: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static void fill(void *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i += 64)
		((volatile unsigned char *)p)[i] = (unsigned char)(seed + i / 64);
}

static int same(const void *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i += 64)
		if (((const volatile unsigned char *)p)[i] != (unsigned char)(seed + i / 64))
			return 0;
	return 1;
}

static int numa_available(void)
{
	int mode;

	return syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0) == 0;
}

static void test_pm_granularity(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL);
	size_t g = 0;

	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), 0);
	CHECK_EQ(g, page_size());
	p.page_kind = HIXL_PAGE_HUGE;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), 0);
	CHECK_EQ(g, SZ_2M);
	p.page_kind = HIXL_PAGE_HUGE1G;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), 0);
	CHECK_EQ(g, SZ_1G);
	p.numa_node = 0;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), 0);

	/* errors */
	g = 12345;
	CHECK_EQ(CALL(hixl_mem_granularity(NULL, &g)), -EINVAL);
	CHECK_EQ(CALL(hixl_mem_granularity(&p, NULL)), -EINVAL);
	p = prop_of(3);
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.location = 1;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.numa_node = -2;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.reserved0 = 1;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.reserved[1] = 1;
	CHECK_EQ(CALL(hixl_mem_granularity(&p, &g)), -EINVAL);
	CHECK_EQ(g, 12345);
}

static void test_pm_malloc_errors(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL);
	struct hixl_phys_handle *h = NULL;
	size_t pg = page_size();

	CHECK_EQ(CALL(hixl_malloc_physical(NULL, pg, &p, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, 0, &p, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg + 1, &p, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg / 2, &p, 0)), -EINVAL);
	p.page_kind = HIXL_PAGE_HUGE;		/* not a multiple of 2 MiB */
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, 3 * SZ_1G / 2 + pg, &p, 0)), -EINVAL);
	p.page_kind = HIXL_PAGE_HUGE1G;
	CHECK_EQ(CALL(hixl_malloc_physical(&h, SZ_2M, &p, 0)), -EINVAL);
	p = prop_of(7);
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.location = 2;
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.reserved[0] = 1;
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	p = prop_of(HIXL_PAGE_NORMAL);
	p.numa_node = -5;
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	p.numa_node = 4096;			/* beyond any kernel's MAX_NUMNODES */
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)), -EINVAL);
	p.numa_node = 1000;			/* no such node here */
	CHECK_EQ(CALL(hixl_malloc_physical(&h, pg, &p, 0)),
		 numa_available() ? -EINVAL : -EOPNOTSUPP);
	CHECK(h == NULL);
}

static void test_pm_normal_lifecycle(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL), q;
	struct hixl_phys_handle *h = NULL;
	size_t pg = page_size(), size = 16 * pg, got = 0;
	struct stat st;
	void *va = NULL;
	int fd = -1;

	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	REQUIRE(h != NULL);
	CHECK_EQ(CALL(hixl_phys_get_info(h, &q, &got)), 0);
	CHECK_EQ(got, size);
	CHECK_EQ(q.location, HIXL_MEM_LOCATION_HOST);
	CHECK_EQ(q.page_kind, HIXL_PAGE_NORMAL);
	CHECK_EQ(q.numa_node, -1);
	CHECK_EQ(q.reserved0, 0);
	CHECK_EQ(CALL(hixl_phys_get_info(h, NULL, NULL)), 0);

	/* the memory exists already: every block allocated, size sealed */
	REQUIRE(CALL(hixl_mem_export_to_shareable_handle(h, &fd)) == 0);
	REQUIRE(fstat(fd, &st) == 0);
	CHECK_EQ(st.st_size, size);
	CHECK((size_t)st.st_blocks * 512 >= size);
	CHECK(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK);
	CHECK(fcntl(fd, F_GET_SEALS) & F_SEAL_GROW);
	CHECK(ftruncate(fd, pg) < 0);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	REQUIRE(CALL(hixl_reserve_mem_address(&va, 2 * size, 0, NULL, 0)) == 0);
	CHECK_EQ((uintptr_t)va % pg, 0);
	CHECK(!strcmp(perms_of(va), "---p"));
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	CHECK(!strcmp(perms_of(va), "rw-s"));
	CHECK(!strcmp(perms_of((char *)va + size), "---p"));
	fill(va, size, 7);
	CHECK(same(va, size, 7));

	/* busy while mapped */
	CHECK_EQ(CALL(hixl_free_physical(h)), -EBUSY);
	CHECK_EQ(CALL(hixl_release_mem_address(va, 2 * size)), -EBUSY);

	/* the second half of the handle in the second half of the range */
	REQUIRE(CALL(hixl_map_mem((char *)va + size, size / 2, size / 2, h, 0)) == 0);
	CHECK(same((char *)va + size, size / 2, 7 + (unsigned int)(size / 2 / 64)));
	((volatile char *)va)[size + 64] = 0x5a;
	CHECK_EQ(((volatile char *)va)[size / 2 + 64], 0x5a);

	/* unmapping puts the reservation back */
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK(!strcmp(perms_of(va), "---p"));
	CHECK_EQ(CALL(hixl_free_physical(h)), -EBUSY);	/* the second mapping */
	CHECK_EQ(CALL(hixl_unmap_mem((char *)va + size)), 0);
	CHECK(!strcmp(perms_of((char *)va + size), "---p"));
	/* and can be mapped again: the bytes are still there */
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	CHECK(same(va, size / 2, 7));
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);

	CHECK_EQ(CALL(hixl_release_mem_address(va, 2 * size)), 0);
	CHECK(!strcmp(perms_of(va), ""));
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);

	/* gone */
	CHECK_EQ(CALL(hixl_free_physical(h)), -ENOENT);
	CHECK_EQ(CALL(hixl_phys_get_info(h, &q, &got)), -ENOENT);
	CHECK_EQ(CALL(hixl_free_physical(NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_phys_get_info(NULL, &q, &got)), -EINVAL);
	CHECK_EQ(CALL(hixl_release_mem_address(va, 2 * size)), -EINVAL);
}

static void test_pm_numa_node(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL), q;
	struct hixl_phys_handle *h = NULL;
	size_t size = 64 * page_size();
	int mode = -1, node = -1;
	void *va;

	p.numa_node = 0;
	if (!numa_available()) {
		CHECK_EQ(CALL(hixl_malloc_physical(&h, size, &p, 0)), -EOPNOTSUPP);
		SKIP("kernel without NUMA (get_mempolicy ENOSYS): checked -EOPNOTSUPP only");
	}
	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	/* the caller's policy is back to the default */
	CHECK_EQ(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0), 0);
	CHECK_EQ(mode, MPOL_DEFAULT);
	CHECK_EQ(CALL(hixl_phys_get_info(h, &q, NULL)), 0);
	CHECK_EQ(q.numa_node, 0);
	REQUIRE(CALL(hixl_reserve_mem_address(&va, size, 0, NULL, 0)) == 0);
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	for (size_t off = 0; off < size; off += page_size()) {
		node = -1;
		CHECK_EQ(syscall(SYS_get_mempolicy, &node, NULL, 0, (char *)va + off,
				 MPOL_F_NODE | MPOL_F_ADDR), 0);
		CHECK_EQ(node, 0);
	}
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, size)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);
}

/* More huge pages than are free: -ENOMEM (or -EOPNOTSUPP without the size). */
static void no_huge_pages(uint32_t kind, unsigned long kb)
{
	struct hixl_phys_prop p = prop_of(kind);
	struct hixl_phys_handle *h = NULL;
	long free_pages = huge_param(kb, "free_hugepages");

	if (free_pages < 0) {
		CHECK_EQ(CALL(hixl_malloc_physical(&h, kb << 10, &p, 0)), -EOPNOTSUPP);
		return;
	}
	if (huge_param(kb, "nr_overcommit_hugepages") != 0)
		SKIP("nr_overcommit_hugepages is set: surplus huge pages may be allocated");
	CHECK_EQ(CALL(hixl_malloc_physical(&h, (size_t)(free_pages + 1) * (kb << 10), &p, 0)),
		 -ENOMEM);
	CHECK(h == NULL);
	/* nothing leaked: the pool is as it was */
	CHECK_EQ(huge_param(kb, "free_hugepages"), free_pages);
}

static void test_pm_huge_exhausted(void)
{
	no_huge_pages(HIXL_PAGE_HUGE, 2048);
	no_huge_pages(HIXL_PAGE_HUGE1G, 1048576);
}

/* Allocate, map twice, export/import, with huge pages of @gran bytes. */
static void huge_lifecycle(uint32_t kind, size_t gran, size_t n)
{
	struct hixl_phys_prop p = prop_of(kind), q;
	struct hixl_phys_handle *h = NULL, *h2 = NULL;
	size_t size = n * gran, got = 0;
	long free_before = huge_param(gran >> 10, "free_hugepages");
	void *va, *va2;
	int fd;

	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	/* allocated now, not at first touch */
	CHECK_EQ(huge_param(gran >> 10, "free_hugepages"), free_before - (long)n);
	REQUIRE(CALL(hixl_reserve_mem_address(&va, size, gran, NULL, 0)) == 0);
	CHECK_EQ((uintptr_t)va % gran, 0);
	/* not at a multiple of the page size of the handle */
	CHECK_EQ(CALL(hixl_map_mem((char *)va + page_size(), gran, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, gran / 2, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, gran, gran / 2, h, 0)), -EINVAL);
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	CHECK_EQ(kernel_page_kb(va), (long)(gran >> 10));
	fill(va, size, 3);

	/* export, import: same kind, same size, same bytes */
	REQUIRE(CALL(hixl_mem_export_to_shareable_handle(h, &fd)) == 0);
	REQUIRE(CALL(hixl_mem_import_from_shareable_handle(fd, &h2)) == 0);
	close(fd);
	CHECK_EQ(CALL(hixl_phys_get_info(h2, &q, &got)), 0);
	CHECK_EQ(q.page_kind, kind);
	CHECK_EQ(q.numa_node, -1);
	CHECK_EQ(got, size);
	REQUIRE(CALL(hixl_reserve_mem_address(&va2, size, gran, NULL, 0)) == 0);
	REQUIRE(CALL(hixl_map_mem(va2, size, 0, h2, 0)) == 0);
	CHECK(same(va2, size, 3));
	fill(va2, size, 9);
	CHECK(same(va, size, 9));

	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK_EQ(CALL(hixl_unmap_mem(va2)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, size)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va2, size)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);
	CHECK_EQ(huge_param(gran >> 10, "free_hugepages"), free_before - (long)n);
	CHECK_EQ(CALL(hixl_free_physical(h2)), 0);	/* the last reference */
	CHECK_EQ(huge_param(gran >> 10, "free_hugepages"), free_before);
}

static void test_pm_huge_2m(void)
{
	need_huge(2048, 4);
	huge_lifecycle(HIXL_PAGE_HUGE, SZ_2M, 4);
}

static void test_pm_huge_1g(void)
{
	need_huge(1048576, 1);
	huge_lifecycle(HIXL_PAGE_HUGE1G, SZ_1G, 1);
}

static void test_pm_reserve(void)
{
	size_t pg = page_size(), sizes[] = { pg, SZ_2M, SZ_1G };
	void *va = NULL, *vb = NULL, *vc = NULL;

	/* any alignment: a power of two; below the page size means the page size */
	for (unsigned int i = 0; i < 3; i++) {
		REQUIRE(CALL(hixl_reserve_mem_address(&va, 3 * pg, sizes[i], NULL, 0)) == 0);
		CHECK_EQ((uintptr_t)va % sizes[i], 0);
		CHECK(!strcmp(perms_of(va), "---p"));
		CHECK(!strcmp(perms_of((char *)va + 2 * pg), "---p"));
		CHECK_EQ(CALL(hixl_release_mem_address(va, 3 * pg)), 0);
	}
	REQUIRE(CALL(hixl_reserve_mem_address(&va, pg, 16, NULL, 0)) == 0);
	CHECK_EQ((uintptr_t)va % pg, 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, pg)), 0);
	/* a big one costs nothing (MAP_NORESERVE, PROT_NONE) */
	REQUIRE(CALL(hixl_reserve_mem_address(&va, 64 * SZ_1G, SZ_1G, NULL, 0)) == 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, 64 * SZ_1G)), 0);

	/* a free hint is taken; a hint over a live range is not */
	REQUIRE(CALL(hixl_reserve_mem_address(&va, 4 * SZ_2M, SZ_2M, NULL, 0)) == 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, 4 * SZ_2M)), 0);
	REQUIRE(CALL(hixl_reserve_mem_address(&vb, 4 * SZ_2M, SZ_2M, va, 0)) == 0);
	CHECK(vb == va);
	REQUIRE(CALL(hixl_reserve_mem_address(&vc, 4 * SZ_2M, SZ_2M, va, 0)) == 0);
	CHECK(vc != va);
	CHECK_EQ((uintptr_t)vc % SZ_2M, 0);
	CHECK((uintptr_t)vc + 4 * SZ_2M <= (uintptr_t)vb || (uintptr_t)vb + 4 * SZ_2M <= (uintptr_t)vc);
	/* release must name exactly one reservation */
	CHECK_EQ(CALL(hixl_release_mem_address(vb, 2 * SZ_2M)), -EINVAL);
	CHECK_EQ(CALL(hixl_release_mem_address((char *)vb + SZ_2M, 3 * SZ_2M)), -EINVAL);
	CHECK_EQ(CALL(hixl_release_mem_address(NULL, 4 * SZ_2M)), -EINVAL);
	CHECK_EQ(CALL(hixl_release_mem_address(&va, pg)), -EINVAL);
	CHECK(!strcmp(perms_of(vb), "---p"));
	CHECK_EQ(CALL(hixl_release_mem_address(vb, 4 * SZ_2M)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(vc, 4 * SZ_2M)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(vc, 4 * SZ_2M)), -EINVAL);

	/* errors */
	va = (void *)1;
	CHECK_EQ(CALL(hixl_reserve_mem_address(NULL, pg, 0, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, 0, 0, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, pg + 1, 0, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, pg, 3, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, pg, 3 * SZ_2M, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, pg, SZ_2M, (void *)(SZ_1G + pg), 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, pg, 0, NULL, 1)), -EINVAL);
	/* no room in the address space */
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, SIZE_MAX - pg + 1, 0, NULL, 0)), -ENOMEM);
	CHECK_EQ(CALL(hixl_reserve_mem_address(&va, SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, NULL, 0)),
		 -ENOMEM);
	CHECK(va == (void *)1);
}

static void test_pm_map_errors(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL);
	struct hixl_phys_handle *h = NULL, *gone = NULL;
	size_t pg = page_size(), size = 8 * pg;
	char *va, *other;
	long bogus[4] = { 0 };

	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	REQUIRE(CALL(hixl_malloc_physical(&gone, pg, &p, 0)) == 0);
	REQUIRE(CALL(hixl_free_physical(gone)) == 0);
	REQUIRE(CALL(hixl_reserve_mem_address((void **)&va, 2 * size, 0, NULL, 0)) == 0);

	CHECK_EQ(CALL(hixl_map_mem(NULL, size, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, size, 0, NULL, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, size, 0, h, 1)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, 0, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va + 1, pg, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, pg + 1, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, pg, 1, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va, pg, size, h, 0)), -EINVAL);		/* past the end */
	CHECK_EQ(CALL(hixl_map_mem(va, 2 * pg, size - pg, h, 0)), -EINVAL);	/* runs past it */
	CHECK_EQ(CALL(hixl_map_mem(va, 2 * size, 0, h, 0)), -EINVAL);		/* bigger than h */
	CHECK_EQ(CALL(hixl_map_mem(va, pg, SIZE_MAX - pg + 1, h, 0)), -EINVAL);	/* wraps */
	CHECK_EQ(CALL(hixl_map_mem(va, size, 0, (struct hixl_phys_handle *)bogus, 0)), -ENOENT);
	CHECK_EQ(CALL(hixl_map_mem(va, pg, 0, gone, 0)), -ENOENT);

	/* outside any reservation: not reserved, or running past its end */
	other = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(other != MAP_FAILED);
	CHECK_EQ(CALL(hixl_map_mem(other, size, 0, h, 0)), -EINVAL);
	CHECK(!strcmp(perms_of(other), "---p"));
	munmap(other, size);
	CHECK_EQ(CALL(hixl_map_mem(va + size + pg, size, 0, h, 0)), -EINVAL);
	CHECK_EQ(CALL(hixl_map_mem(va - pg, 2 * pg, 0, h, 0)), -EINVAL);
	CHECK(!strcmp(perms_of(va + size + pg), "---p"));

	/* overlapping a mapping made there */
	REQUIRE(CALL(hixl_map_mem(va + 2 * pg, 2 * pg, 0, h, 0)) == 0);
	CHECK_EQ(CALL(hixl_map_mem(va, 3 * pg, 0, h, 0)), -EEXIST);
	CHECK_EQ(CALL(hixl_map_mem(va + 3 * pg, pg, 0, h, 0)), -EEXIST);
	CHECK_EQ(CALL(hixl_map_mem(va, size, 0, h, 0)), -EEXIST);
	CHECK_EQ(CALL(hixl_map_mem(va, 2 * pg, 0, h, 0)), 0);		/* adjacent is fine */
	CHECK_EQ(CALL(hixl_map_mem(va + 4 * pg, 2 * pg, 0, h, 0)), 0);
	CHECK(!strcmp(perms_of(va + 3 * pg), "rw-s"));

	/* unmap: only at the start of a mapping */
	CHECK_EQ(CALL(hixl_unmap_mem(NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_unmap_mem(va + 3 * pg)), -EINVAL);
	CHECK_EQ(CALL(hixl_unmap_mem(va + 6 * pg)), -EINVAL);	/* reserved, not mapped */
	CHECK_EQ(CALL(hixl_unmap_mem(bogus)), -EINVAL);
	CHECK(!strcmp(perms_of(va + 3 * pg), "rw-s"));
	CHECK_EQ(CALL(hixl_unmap_mem(va + 2 * pg)), 0);
	CHECK_EQ(CALL(hixl_unmap_mem(va + 2 * pg)), -EINVAL);	/* already */
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK_EQ(CALL(hixl_unmap_mem(va + 4 * pg)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, 2 * size)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);
}

static void test_pm_export_import(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL), q;
	struct hixl_phys_handle *h = NULL, *h2 = NULL, *gone = NULL;
	size_t pg = page_size(), size = 4 * pg, got = 0;
	long bogus[4] = { 0 };
	int fd = -1, fd2 = -1, pfd[2], ro, dir, empty, odd;
	char path[64];
	void *va, *va2;

	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	REQUIRE(CALL(hixl_malloc_physical(&gone, pg, &p, 0)) == 0);
	REQUIRE(CALL(hixl_free_physical(gone)) == 0);
	REQUIRE(CALL(hixl_mem_export_to_shareable_handle(h, &fd)) == 0);
	CHECK(fd > 2);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	REQUIRE(CALL(hixl_mem_export_to_shareable_handle(h, &fd2)) == 0);
	CHECK(fd2 != fd);
	close(fd2);
	REQUIRE(CALL(hixl_mem_import_from_shareable_handle(fd, &h2)) == 0);
	CHECK(h2 != h);
	CHECK_EQ(fcntl(fd, F_GETFD) >= 0, 1);	/* the caller's fd is not taken */
	CHECK_EQ(CALL(hixl_phys_get_info(h2, &q, &got)), 0);
	CHECK_EQ(got, size);
	CHECK_EQ(q.page_kind, HIXL_PAGE_NORMAL);
	CHECK_EQ(q.numa_node, -1);

	/* the memory outlives the handle it was made with */
	REQUIRE(CALL(hixl_reserve_mem_address(&va, size, 0, NULL, 0)) == 0);
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	fill(va, size, 11);
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);
	close(fd);
	REQUIRE(CALL(hixl_reserve_mem_address(&va2, size, 0, NULL, 0)) == 0);
	REQUIRE(CALL(hixl_map_mem(va2, size, 0, h2, 0)) == 0);
	CHECK(same(va2, size, 11));
	CHECK_EQ(CALL(hixl_unmap_mem(va2)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, size)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va2, size)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h2)), 0);

	/* export errors */
	fd = -7;
	CHECK_EQ(CALL(hixl_mem_export_to_shareable_handle(NULL, &fd)), -EINVAL);
	CHECK_EQ(CALL(hixl_mem_export_to_shareable_handle(h2, NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_mem_export_to_shareable_handle(h2, &fd)), -ENOENT);
	CHECK_EQ(CALL(hixl_mem_export_to_shareable_handle((struct hixl_phys_handle *)bogus, &fd)),
		 -ENOENT);
	CHECK_EQ(fd, -7);

	/* import errors */
	h2 = NULL;
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(0, NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(-1, &h2)), -EBADF);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(999, &h2)), -EBADF);
	REQUIRE(pipe(pfd) == 0);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(pfd[0], &h2)), -EINVAL);
	close(pfd[0]);
	close(pfd[1]);
	dir = open("/", O_RDONLY | O_DIRECTORY);
	REQUIRE(dir >= 0);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(dir, &h2)), -EINVAL);
	close(dir);
	empty = memfd_create("empty", MFD_CLOEXEC);
	REQUIRE(empty >= 0);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(empty, &h2)), -EINVAL);
	odd = memfd_create("odd", MFD_CLOEXEC);
	REQUIRE(odd >= 0 && ftruncate(odd, pg + 100) == 0);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(odd, &h2)), -EINVAL);
	REQUIRE(ftruncate(empty, pg) == 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", empty);
	ro = open(path, O_RDONLY | O_CLOEXEC);
	REQUIRE(ro >= 0);
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(ro, &h2)), -EACCES);
	close(ro);
	/* a plain memfd of the right size is a shareable handle too */
	CHECK_EQ(CALL(hixl_mem_import_from_shareable_handle(empty, &h2)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h2)), 0);
	close(empty);
	close(odd);
}

/*
 * A child process gets the handle over a socketpair with SCM_RIGHTS,
 * imports and maps it, checks the parent's bytes and writes its own; the
 * parent sees them through its own mapping.
 */
static void share_with_child(uint32_t kind, size_t gran, size_t n)
{
	struct hixl_phys_prop p = prop_of(kind);
	struct hixl_phys_handle *h = NULL;
	size_t size = n * gran, half = size / 2;
	int sv[2], fd = -1, status = -1;
	void *va;
	pid_t pid;

	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	REQUIRE(CALL(hixl_malloc_physical(&h, size, &p, 0)) == 0);
	REQUIRE(CALL(hixl_reserve_mem_address(&va, size, gran, NULL, 0)) == 0);
	REQUIRE(CALL(hixl_map_mem(va, size, 0, h, 0)) == 0);
	fill(va, half, 21);

	fflush(stdout);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct hixl_phys_handle *ch = NULL;
		struct hixl_phys_prop q;
		size_t got = 0;
		void *cva;
		int cfd = -1;

		close(sv[0]);
		ht_failures = 0;
		if (CALL(hixl_shareable_handle_recv(sv[1], &cfd)) != 0 || cfd < 0) {
			printf("#   child: no descriptor received\n");
			_exit(1);
		}
		CHECK(fcntl(cfd, F_GETFD) & FD_CLOEXEC);
		if (CALL(hixl_mem_import_from_shareable_handle(cfd, &ch)) != 0) {
			printf("#   child: import failed\n");
			_exit(1);
		}
		close(cfd);
		CHECK_EQ(CALL(hixl_phys_get_info(ch, &q, &got)), 0);
		CHECK_EQ(q.page_kind, kind);
		CHECK_EQ(got, size);
		if (CALL(hixl_reserve_mem_address(&cva, size, gran, NULL, 0)) ||
		    CALL(hixl_map_mem(cva, size, 0, ch, 0))) {
			printf("#   child: map failed\n");
			_exit(1);
		}
		/* its own mapping: a fresh range, not the inherited one */
		CHECK(same(cva, half, 21));
		fill((char *)cva + half, half, 42);
		CHECK_EQ(CALL(hixl_unmap_mem(cva)), 0);
		CHECK_EQ(CALL(hixl_release_mem_address(cva, size)), 0);
		CHECK_EQ(CALL(hixl_free_physical(ch)), 0);
		fflush(stdout);
		_exit(ht_failures ? 1 : 0);
	}
	close(sv[1]);
	REQUIRE(CALL(hixl_mem_export_to_shareable_handle(h, &fd)) == 0);
	CHECK_EQ(CALL(hixl_shareable_handle_send(sv[0], fd)), 0);
	close(fd);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	CHECK(same((char *)va + half, half, 42));
	CHECK(same(va, half, 21));
	close(sv[0]);
	CHECK_EQ(CALL(hixl_unmap_mem(va)), 0);
	CHECK_EQ(CALL(hixl_release_mem_address(va, size)), 0);
	CHECK_EQ(CALL(hixl_free_physical(h)), 0);
}

static void test_pm_share_scm_rights(void)
{
	share_with_child(HIXL_PAGE_NORMAL, page_size(), 32);
}

static void test_pm_share_scm_rights_huge(void)
{
	need_huge(2048, 2);
	share_with_child(HIXL_PAGE_HUGE, SZ_2M, 2);
}

static void test_pm_socket_errors(void)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	int sv[2], pfd[2], fds[2], udp, fd = -9, mfd;
	char byte = 'H';

	mfd = memfd_create("x", MFD_CLOEXEC);
	REQUIRE(mfd >= 0);
	REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	REQUIRE(pipe(pfd) == 0);

	/* send */
	CHECK_EQ(CALL(hixl_shareable_handle_send(-1, mfd)), -EBADF);
	CHECK_EQ(CALL(hixl_shareable_handle_send(sv[0], -1)), -EBADF);
	CHECK_EQ(CALL(hixl_shareable_handle_send(sv[0], 999)), -EBADF);	/* not open */
	CHECK_EQ(CALL(hixl_shareable_handle_send(999, mfd)), -EBADF);
	CHECK_EQ(CALL(hixl_shareable_handle_send(pfd[1], mfd)), -ENOTSOCK);
	udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp >= 0) {
		CHECK_EQ(CALL(hixl_shareable_handle_send(udp, mfd)), -EOPNOTSUPP);
		CHECK_EQ(CALL(hixl_shareable_handle_recv(udp, &fd)), -EOPNOTSUPP);
		close(udp);
	}

	/* recv */
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], NULL)), -EINVAL);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(-1, &fd)), -EBADF);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(pfd[0], &fd)), -ENOTSOCK);
	/* nothing there on a non-blocking socket */
	REQUIRE(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), -EAGAIN);
	/* data without a descriptor */
	REQUIRE(write(sv[0], "H", 1) == 1);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), -EBADMSG);
	/* two descriptors in one message: both closed, -EBADMSG */
	memset(&u, 0, sizeof(u));
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	fds[0] = fds[1] = mfd;
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	REQUIRE(sendmsg(sv[0], &msg, 0) == 1);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), -EBADMSG);
	/* a descriptor with another payload than ours */
	byte = 'X';
	msg.msg_controllen = CMSG_SPACE(sizeof(int));
	c->cmsg_len = CMSG_LEN(sizeof(int));
	REQUIRE(sendmsg(sv[0], &msg, 0) == 1);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), -EBADMSG);
	CHECK_EQ(fd, -9);
	/* a good one still works after all that */
	CHECK_EQ(CALL(hixl_shareable_handle_send(sv[0], mfd)), 0);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), 0);
	CHECK(fd >= 0 && fd != mfd);
	close(fd);
	fd = -9;
	/* the peer is gone: end of file, and no one to send to */
	close(sv[0]);
	CHECK_EQ(CALL(hixl_shareable_handle_recv(sv[1], &fd)), -ECONNRESET);
	CHECK_EQ(CALL(hixl_shareable_handle_send(sv[1], mfd)), -EPIPE);
	CHECK_EQ(fd, -9);
	close(sv[1]);
	close(pfd[0]);
	close(pfd[1]);
	close(mfd);
}

/* Threads reserving, mapping, unmapping and releasing all at once. */
struct pm_thread_arg {
	struct hixl_phys_handle *h;
	size_t size;
	int errors;
};

static void *pm_thread(void *p)
{
	struct pm_thread_arg *a = p;

	for (int i = 0; i < 200; i++) {
		void *va;

		if (hixl_reserve_mem_address(&va, a->size, 0, NULL, 0)) {
			a->errors++;
			continue;
		}
		if (hixl_map_mem(va, a->size, 0, a->h, 0) ||
		    (((volatile char *)va)[0] = 1, hixl_unmap_mem(va)))
			a->errors++;
		if (hixl_release_mem_address(va, a->size))
			a->errors++;
	}
	return NULL;
}

static void test_pm_threads(void)
{
	struct hixl_phys_prop p = prop_of(HIXL_PAGE_NORMAL);
	struct pm_thread_arg args[4];
	pthread_t t[4];
	struct hixl_phys_handle *h = NULL;
	size_t size = 4 * page_size();

	REQUIRE(hixl_malloc_physical(&h, size, &p, 0) == 0);
	for (int i = 0; i < 4; i++) {
		args[i].h = h;
		args[i].size = size;
		args[i].errors = 0;
		REQUIRE(pthread_create(&t[i], NULL, pm_thread, &args[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ(args[i].errors, 0);
	}
	CHECK_EQ(hixl_free_physical(h), 0);
}

const struct ht_test physmem_tests[] = {
	{ "physmem_granularity", test_pm_granularity },
	{ "physmem_malloc_errors", test_pm_malloc_errors },
	{ "physmem_normal_lifecycle", test_pm_normal_lifecycle },
	{ "physmem_numa_node", test_pm_numa_node },
	{ "physmem_huge_exhausted", test_pm_huge_exhausted },
	{ "physmem_huge_2m", test_pm_huge_2m },
	{ "physmem_huge_1g", test_pm_huge_1g },
	{ "physmem_reserve", test_pm_reserve },
	{ "physmem_map_errors", test_pm_map_errors },
	{ "physmem_export_import", test_pm_export_import },
	{ "physmem_share_scm_rights", test_pm_share_scm_rights },
	{ "physmem_share_scm_rights_huge", test_pm_share_scm_rights_huge },
	{ "physmem_socket_errors", test_pm_socket_errors },
	{ "physmem_threads", test_pm_threads },
	{ NULL, NULL },
};
