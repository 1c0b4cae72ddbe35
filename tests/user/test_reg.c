// SPDX-License-Identifier: GPL-2.0
/*
 * test_reg.c - HIXL_IOC_REG_MEM / DEREG_MEM / GET_STATS against real
 * memory of every kind, the limits, RLIMIT_MEMLOCK, MMU-notifier
 * invalidation, fork, and leaks.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/memfd.h>
#include <linux/mman.h>
#include <linux/udmabuf.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

void test_reg_anon(void);
void test_reg_anon_shared(void);
void test_reg_thp(void);
void test_reg_hugetlb_2m(void);
void test_reg_hugetlb_1g(void);
void test_reg_memfd(void);
void test_reg_memfd_hugetlb(void);
void test_reg_readonly(void);
void test_reg_dmabuf(void);
void test_reg_limit_count(void);
void test_reg_limit_bytes(void);
void test_reg_rlimit_memlock(void);
void test_inval_munmap(void);
void test_inval_mremap(void);
void test_inval_madv_dontneed(void);
void test_inval_map_fixed(void);
void test_inval_mprotect_ignored(void);
void test_inval_thp_split_neighbour(void);
void test_reg_fork(void);
void test_reg_close_releases(void);
void test_reg_exit_releases(void);
void test_reg_cycles(void);
void test_reg_bad_input(void);
void test_tracepoints(void);
void test_debugfs(void);
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

static void *map_anon(size_t len, int extra)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* len bytes aligned to align, from an over-sized anonymous mapping */
static void *map_aligned(size_t len, size_t align)
{
	char *p = map_anon(len + align, 0), *a;

	if (!p)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + align - a);
	return a;
}

/* register, check the engine's counters and VmPin, deregister, check again */
static void reg_cycle(int fd, void *p, size_t len, uint64_t want_page_size)
{
	long pin0 = vm_pin_kb();
	struct hixl_reg_mem r;
	struct hixl_stats s;

	memset(p, 0x5a, len);
	REQUIRE(reg_mem(fd, p, len, 0, &r) == 0);
	CHECK(r.handle != 0);
	/* at least the mapping's page size; more when the physical pages happen
	 * to be contiguous and congruent */
	CHECK(r.page_size >= (want_page_size ? want_page_size : 4096));
	CHECK(r.page_size && !(r.page_size & (r.page_size - 1)));
	CHECK_EQ(r.nr_pages, ((uintptr_t)p + len - 1) / r.page_size - (uintptr_t)p / r.page_size + 1);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 1);
	CHECK_EQ(s.host_bytes, len);
	CHECK_EQ(s.pinned_pages, len / 4096);
	CHECK_EQ(s.proc_regions, 1);
	CHECK_EQ(s.proc_host_bytes, len);
	CHECK_EQ(vm_pin_kb() - pin0, (long)(len / 1024));
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.pinned_pages, 0);
	CHECK_EQ(s.proc_host_bytes, 0);
	CHECK_EQ(vm_pin_kb(), pin0);
	CHECK_EQ(dereg_mem(fd, r.handle), -ENOENT);
}

void test_reg_anon(void)
{
	int fd = open_dev();
	void *p = map_anon(1 * MiB, 0);

	REQUIRE(fd >= 0 && p);
	reg_cycle(fd, p, 1 * MiB, 0);
	close(fd);
}

void test_reg_anon_shared(void)
{
	int fd = open_dev();
	void *p = mmap(NULL, 256 * KiB, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	REQUIRE(fd >= 0 && p != MAP_FAILED);
	reg_cycle(fd, p, 256 * KiB, 0);
	close(fd);
}

void test_reg_thp(void)
{
	size_t len = 8 * MiB;
	int fd = open_dev();
	void *p = map_aligned(len, 2 * MiB);

	REQUIRE(fd >= 0 && p);
	if (madvise(p, len, MADV_HUGEPAGE))
		SKIP("madvise(MADV_HUGEPAGE) failed: no THP");
	memset(p, 1, len);
	if (!hx_thp_backed(p, len))
		SKIP("the kernel did not back the range with THP");
	reg_cycle(fd, p, len, 2 * MiB);
	close(fd);
}

static void *map_hugetlb(size_t len, int size_flag)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void test_reg_hugetlb_2m(void)
{
	size_t len = 8 * MiB;
	int fd = open_dev();
	void *p = map_hugetlb(len, MAP_HUGE_2MB);

	REQUIRE(fd >= 0);
	if (!p)
		SKIP("no free 2 MiB huge pages (hugepages= on the kernel command line)");
	reg_cycle(fd, p, len, 2 * MiB);
	munmap(p, len);
	close(fd);
}

void test_reg_hugetlb_1g(void)
{
	size_t len = 1 * GiB;
	int fd = open_dev();
	struct hixl_reg_mem r;
	void *p = map_hugetlb(len, MAP_HUGE_1GB);

	REQUIRE(fd >= 0);
	if (!p)
		SKIP("no free 1 GiB huge page (hugepagesz=1G hugepages=1 on the command line)");
	memset(p, 3, 4096);
	REQUIRE(reg_mem(fd, p, len, 0, &r) == 0);
	CHECK_EQ(r.page_size, 1 * GiB);
	CHECK_EQ(r.nr_pages, 1);
	CHECK_EQ(get_stats(fd).pinned_pages, len / 4096);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 0);
	munmap(p, len);
	close(fd);
}

static void memfd_case(unsigned int mfd_flags, size_t len, uint64_t page_size,
		       const char *skip_why)
{
	int fd = open_dev(), mfd;
	void *p;

	REQUIRE(fd >= 0);
	mfd = memfd_create("hixl-test", MFD_CLOEXEC | mfd_flags);
	if (mfd < 0 && skip_why)
		SKIP(skip_why);
	REQUIRE(mfd >= 0);
	REQUIRE(ftruncate(mfd, len) == 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED && skip_why)
		SKIP(skip_why);
	REQUIRE(p != MAP_FAILED);
	reg_cycle(fd, p, len, page_size);
	munmap(p, len);
	close(mfd);
	close(fd);
}

void test_reg_memfd(void)
{
	memfd_case(0, 2 * MiB, 0, NULL);
}

void test_reg_memfd_hugetlb(void)
{
	memfd_case(MFD_HUGETLB | MFD_HUGE_2MB, 4 * MiB, 2 * MiB,
		   "no free 2 MiB huge pages for memfd(MFD_HUGETLB)");
}

void test_reg_readonly(void)
{
	int fd = open_dev();
	struct hixl_reg_mem r;
	char *p = map_anon(64 * KiB, 0);

	REQUIRE(fd >= 0 && p);
	memset(p, 7, 64 * KiB);
	REQUIRE(mprotect(p, 64 * KiB, PROT_READ) == 0);
	CHECK_EQ(reg_mem(fd, p, 64 * KiB, 0, &r), -EACCES);
	CHECK_EQ(get_stats(fd).regions, 0);
	REQUIRE(reg_mem(fd, p, 64 * KiB, HIXL_REG_READ_ONLY, &r) == 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 16);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	/* PROT_NONE: not even readable */
	REQUIRE(mprotect(p, 64 * KiB, PROT_NONE) == 0);
	CHECK_EQ(reg_mem(fd, p, 64 * KiB, HIXL_REG_READ_ONLY, &r), -EACCES);
	close(fd);
}

void test_reg_dmabuf(void)
{
	const uint64_t dva = 0x100000000000ULL;	/* a "device VA" naming the region */
	int fd = open_dev(), mfd = -1, buf, null;
	struct hixl_reg_mem r, r2;
	struct hixl_stats s;
	long pin0 = vm_pin_kb();

	REQUIRE(fd >= 0);
	buf = make_udmabuf(4 * MiB, &mfd);
	if (buf == -ENOENT)
		SKIP("/dev/udmabuf missing (CONFIG_UDMABUF)");
	REQUIRE(buf >= 0);
	REQUIRE(reg_dev(fd, dva, 4 * MiB, buf, 0, &r) == 0);
	CHECK(r.handle != 0);
	CHECK(r.page_size >= 4096);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 1);
	CHECK_EQ(s.device_bytes, 4 * MiB);
	CHECK_EQ(s.proc_device_bytes, 4 * MiB);
	CHECK_EQ(s.host_bytes, 0);
	CHECK_EQ(s.pinned_pages, 0);	/* the exporter owns these pages */
	CHECK_EQ(vm_pin_kb(), pin0);
	/* a sub-range at an offset, under another device VA */
	CHECK_EQ(reg_dev(fd, dva + 8 * MiB, 1 * MiB, buf, 2 * MiB, &r2), 0);
	CHECK_EQ(dereg_mem(fd, r2.handle), 0);
	/* overlapping device VAs follow the same rule as host ranges */
	CHECK_EQ(reg_dev(fd, dva + 1 * MiB, 4096, buf, 0, NULL), -EEXIST);
	/* outside the buffer, bad fds */
	CHECK_EQ(reg_dev(fd, dva + 16 * MiB, 4 * MiB, buf, 4096, NULL), -EINVAL);
	CHECK_EQ(reg_dev(fd, dva + 16 * MiB, 4096, buf, 4 * MiB, NULL), -EINVAL);
	CHECK_EQ(reg_dev(fd, dva + 16 * MiB, 4096, 9999, 0, NULL), -EBADF);
	null = open("/dev/null", O_RDONLY);
	CHECK_EQ(reg_dev(fd, dva + 16 * MiB, 4096, null, 0, NULL), -EBADF);
	close(null);
	CHECK_EQ(get_stats(fd).regions, 1);
	/* the registration holds the dma-buf: closing our fds does not matter */
	close(buf);
	close(mfd);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.device_bytes, 0);
	close(fd);
}

/*
 * The per-process registration count, at HIXL's 256 (max_regions, set for
 * the test and put back; the default is 4096: test_dev.c).
 */
void test_reg_limit_count(void)
{
	unsigned long long saved = read_param("max_regions"), max = 256;
	int fd = open_dev(), fd2;
	char *p;
	struct hixl_stats s;

	REQUIRE(fd >= 0);
	REQUIRE(write_param("max_regions", max) == 0);
	p = map_anon((max + 1) * 4096, 0);
	REQUIRE(p);
	/* 256 in two engines of this process: the limit is per process */
	fd2 = open_dev();
	REQUIRE(fd2 >= 0);
	for (unsigned long long i = 0; i < max; i++)
		CHECK_EQ(reg_mem(i < max / 2 ? fd : fd2, p + i * 4096, 4096, 0, NULL), 0);
	CHECK_EQ(reg_mem(fd, p + max * 4096, 4096, 0, NULL), -ENOSPC);
	CHECK_EQ(reg_mem(fd2, p + max * 4096, 4096, 0, NULL), -ENOSPC);
	s = get_stats(fd);
	CHECK_EQ(s.regions, max / 2);
	CHECK_EQ(s.proc_regions, max);
	CHECK_EQ(s.limit_hits, 1);
	CHECK_EQ(s.pinned_pages, max / 2);
	/* closing one engine frees its share */
	close(fd2);
	CHECK_EQ(get_stats(fd).proc_regions, max / 2);
	CHECK_EQ(reg_mem(fd, p + max * 4096, 4096, 0, NULL), 0);
	close(fd);
	CHECK_EQ(write_param("max_regions", saved), 0);
}

void test_reg_limit_bytes(void)
{
	unsigned long long saved = read_param("max_host_bytes");
	int fd = open_dev();
	char *p = map_anon(2 * MiB, 0);
	struct hixl_stats s;

	REQUIRE(fd >= 0 && p);
	if (geteuid() != 0)
		SKIP("needs root to lower max_host_bytes");
	CHECK_EQ(saved, 20 * GiB);
	REQUIRE(write_param("max_host_bytes", 1 * MiB) == 0);
	CHECK_EQ(reg_mem(fd, p, 1 * MiB + 1, 0, NULL), -E2BIG);
	CHECK_EQ(reg_mem(fd, p, 1 * MiB, 0, NULL), 0);	/* exactly the limit */
	CHECK_EQ(reg_mem(fd, p + 1 * MiB, 1, 0, NULL), -E2BIG);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 1);
	CHECK_EQ(s.host_bytes, 1 * MiB);
	CHECK_EQ(s.limit_hits, 2);
	CHECK_EQ(write_param("max_host_bytes", saved), 0);
	CHECK_EQ(reg_mem(fd, p + 1 * MiB, 1, 0, NULL), 0);
	close(fd);
}

/* An unprivileged owner is held to RLIMIT_MEMLOCK; pins count in VmPin. */
void test_reg_rlimit_memlock(void)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root to open /dev/hixl and then drop privileges");
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 128 * KiB, 128 * KiB };
		int fd = open_dev();
		char *p = map_anon(512 * KiB, 0);

		if (fd < 0 || !p || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		CHECK_EQ(reg_mem(fd, p, 64 * KiB, 0, NULL), 0);
		CHECK_EQ(reg_mem(fd, p + 64 * KiB, 64 * KiB, 0, NULL), 0);
		CHECK_EQ(vm_pin_kb(), 128);
		CHECK_EQ(reg_mem(fd, p + 128 * KiB, 4 * KiB, 0, NULL), -ENOMEM);
		CHECK_EQ(vm_pin_kb(), 128);
		CHECK_EQ(get_stats(fd).regions, 2);
		close(fd);
		CHECK_EQ(vm_pin_kb(), 0);
		fflush(stdout);
		_exit(ht_failures ? 1 : 0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

static void invalidate_case(int how)
{
	size_t len = 256 * KiB;
	int fd = open_dev();
	char *p = map_anon(len, 0), *q;
	long pin0 = vm_pin_kb();
	struct hixl_reg_mem r;
	struct hixl_stats s;

	REQUIRE(fd >= 0 && p);
	memset(p, 1, len);
	REQUIRE(reg_mem(fd, p, len, 0, &r) == 0);
	switch (how) {
	case 0:		/* munmap of one page in the middle */
		REQUIRE(munmap(p + 64 * KiB, 4096) == 0);
		break;
	case 1:		/* mremap moves the range away */
		q = map_anon(len, 0);
		REQUIRE(q);
		REQUIRE(mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q) == q);
		p = q;
		break;
	case 2:		/* MADV_DONTNEED drops the pages under the range */
		REQUIRE(madvise(p + len - 4096, 4096, MADV_DONTNEED) == 0);
		break;
	case 3:		/* mmap(MAP_FIXED) over part of it */
		REQUIRE(mmap(p, 4096, PROT_READ | PROT_WRITE,
			     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == p);
		break;
	}
	/* munmap and mremap invalidate at once; MADV_DONTNEED once the work
	 * item has looked at the range again */
	if (how != 2)
		CHECK_EQ(get_stats(fd).invalid_regions, 1);
	CHECK_EQ(wait_invalid(fd, 1, 2000), 0);
	s = get_stats(fd);
	CHECK_EQ(s.invalid_regions, 1);
	CHECK_EQ(s.invalidations, 1);
	CHECK_EQ(s.regions, 1);
	/* the pins go back (released by a work item) */
	CHECK_EQ(wait_pinned(fd, 0, 2000), 0);
	CHECK_EQ(vm_pin_kb(), pin0);
	/* the range is free for a new registration; the old handle still deregisters */
	if (how != 0) {
		struct hixl_reg_mem r2;

		CHECK_EQ(reg_mem(fd, p, 8192, 0, &r2), 0);
		CHECK_EQ(dereg_mem(fd, r2.handle), 0);
	}
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.invalid_regions, 0);
	CHECK_EQ(s.proc_regions, 0);
	CHECK_EQ(s.proc_host_bytes, 0);
	close(fd);
}

void test_inval_munmap(void) { invalidate_case(0); }
void test_inval_mremap(void) { invalidate_case(1); }
void test_inval_madv_dontneed(void) { invalidate_case(2); }
void test_inval_map_fixed(void) { invalidate_case(3); }

/*
 * A THP split caused by unmapping a neighbouring page keeps the same pages
 * under the registration: it must stay valid (it goes suspect, then back).
 */
void test_inval_thp_split_neighbour(void)
{
	size_t len = 4 * MiB;
	int fd = open_dev();
	char *p = map_aligned(len, 2 * MiB);
	struct hixl_reg_mem r;
	const char *st = NULL;

	REQUIRE(fd >= 0 && p);
	if (madvise(p, len, MADV_HUGEPAGE))
		SKIP("madvise(MADV_HUGEPAGE) failed: no THP");
	memset(p, 1, len);
	if (!hx_thp_backed(p, len))
		SKIP("the kernel did not back the range with THP");
	if (!region_state(0) && access("/sys/kernel/debug/hixl/regions", R_OK))
		SKIP("debugfs not mounted");
	REQUIRE(reg_mem(fd, p, 1 * MiB, 0, &r) == 0);
	REQUIRE(munmap(p + 1 * MiB, 4096) == 0);	/* splits the first huge page */
	for (int i = 0; i < 200; i++) {
		st = region_state((uintptr_t)p);
		if (st && strcmp(st, "suspect"))
			break;
		usleep(10000);
	}
	CHECK(st && !strcmp(st, "valid"));
	CHECK_EQ(get_stats(fd).invalid_regions, 0);
	CHECK_EQ(get_stats(fd).invalidations, 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 256);
	/* and a real change inside it still invalidates */
	REQUIRE(madvise(p + 4096, 4096, MADV_DONTNEED) == 0);
	CHECK_EQ(wait_invalid(fd, 1, 2000), 0);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	close(fd);
}

/* mprotect keeps the same pages: not an invalidation */
void test_inval_mprotect_ignored(void)
{
	int fd = open_dev();
	char *p = map_anon(64 * KiB, 0);
	struct hixl_reg_mem r;

	REQUIRE(fd >= 0 && p);
	memset(p, 1, 64 * KiB);
	REQUIRE(reg_mem(fd, p, 64 * KiB, 0, &r) == 0);
	REQUIRE(mprotect(p, 64 * KiB, PROT_READ) == 0);
	REQUIRE(mprotect(p, 64 * KiB, PROT_READ | PROT_WRITE) == 0);
	CHECK_EQ(get_stats(fd).invalid_regions, 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 16);
	close(fd);
}

/* fork must not break the parent's registration, nor the child's writes */
void test_reg_fork(void)
{
	int fd = open_dev(), status;
	char *p = map_anon(128 * KiB, 0);
	struct hixl_reg_mem r;
	pid_t pid;

	REQUIRE(fd >= 0 && p);
	memset(p, 1, 128 * KiB);
	REQUIRE(reg_mem(fd, p, 128 * KiB, 0, &r) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		memset(p, 2, 128 * KiB);	/* the child's own copy */
		/* the engine belongs to the parent: the child may not use it */
		_exit(reg_mem(fd, p, 4096, 0, NULL) == -EPERM &&
		      dereg_mem(fd, r.handle) == -EPERM ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	memset(p, 3, 128 * KiB);
	CHECK_EQ(p[0], 3);
	CHECK_EQ(get_stats(fd).invalid_regions, 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 32);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	close(fd);
}

void test_reg_close_releases(void)
{
	long pin0 = vm_pin_kb();
	int fd = open_dev();
	char *p = map_anon(1 * MiB, 0);

	REQUIRE(fd >= 0 && p);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(reg_mem(fd, p + i * 64 * KiB, 64 * KiB, 0, NULL), 0);
	CHECK_EQ(vm_pin_kb() - pin0, 1024);
	close(fd);
	CHECK_EQ(vm_pin_kb(), pin0);
	fd = open_dev();
	CHECK_EQ(get_stats(fd).proc_regions, 0);
	close(fd);
}

/* A process that exits with registrations leaves nothing behind. */
void test_reg_exit_releases(void)
{
	int fd, status;
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		int efd = open_dev();
		char *p = map_anon(1 * MiB, 0);

		if (efd < 0 || !p || reg_mem(efd, p, 1 * MiB, 0, NULL))
			_exit(1);
		_exit(0);		/* no DEREG, no close */
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fd = open_dev();
	REQUIRE(fd >= 0);
	/* our own fresh engine: the dead process's entry is gone */
	CHECK_EQ(get_stats(fd).proc_regions, 0);
	close(fd);
}

void test_reg_cycles(void)
{
	long pin0 = vm_pin_kb();
	int fd = open_dev();
	char *p = map_anon(64 * KiB, 0);
	struct hixl_reg_mem r;
	struct hixl_stats s;
	int fails = 0;

	REQUIRE(fd >= 0 && p);
	for (int i = 0; i < 1000; i++) {
		if (reg_mem(fd, p + (i % 8) * 4096, 4096 * (1 + i % 8), 0, &r) ||
		    dereg_mem(fd, r.handle))
			fails++;
	}
	CHECK_EQ(fails, 0);
	s = get_stats(fd);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.pinned_pages, 0);
	CHECK_EQ(s.proc_regions, 0);
	CHECK_EQ(vm_pin_kb(), pin0);
	close(fd);
}

void test_reg_bad_input(void)
{
	int fd = open_dev(), fd2;
	char *p = map_anon(68 * KiB, 0);
	struct hixl_reg_mem a, r;
	struct hixl_dereg_mem d;

	REQUIRE(fd >= 0 && p);
	REQUIRE(munmap(p + 64 * KiB, 4 * KiB) == 0);	/* a hole after the buffer */
	memset(p, 0, 64 * KiB);
	CHECK_EQ(reg_mem(fd, p, 0, 0, NULL), -EINVAL);
	CHECK_EQ(reg_mem(fd, p, 4096, 1U << 5, NULL), -EINVAL);
	CHECK_EQ(reg_mem(fd, (void *)(uintptr_t)-4096, 8192, 0, NULL), -EOVERFLOW);
	CHECK_EQ(reg_mem(fd, (void *)0xffff888000000000ULL, 4096, 0, NULL), -EFAULT);
	CHECK_EQ(reg_mem(fd, p + 60 * KiB, 8 * KiB, 0, NULL), -EFAULT);
	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)p;
	a.len = 4096;
	a.dmabuf_fd = -1;
	a.reserved1 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_REG_MEM, &a), -EINVAL);
	a.reserved1 = 0;
	a.type = 7;
	CHECK_EQ(xioctl(fd, HIXL_IOC_REG_MEM, &a), -EINVAL);
	a.type = HIXL_MEM_HOST;
	a.dmabuf_fd = 0;
	CHECK_EQ(xioctl(fd, HIXL_IOC_REG_MEM, &a), -EINVAL);
	CHECK_EQ(get_stats(fd).regions, 0);
	CHECK_EQ(get_stats(fd).pinned_pages, 0);
	/* duplicates and overlaps within an engine */
	REQUIRE(reg_mem(fd, p, 32 * KiB, 0, &r) == 0);
	CHECK_EQ(reg_mem(fd, p, 32 * KiB, 0, NULL), -EEXIST);
	CHECK_EQ(reg_mem(fd, p + 4 * KiB, 4 * KiB, 0, NULL), -EEXIST);
	CHECK_EQ(reg_mem(fd, p + 28 * KiB, 8 * KiB, 0, NULL), -EEXIST);
	/* a handle is only valid on its own engine */
	fd2 = open_dev();
	REQUIRE(fd2 >= 0);
	CHECK_EQ(dereg_mem(fd2, r.handle), -ENOENT);
	CHECK_EQ(reg_mem(fd2, p, 32 * KiB, 0, NULL), 0);	/* independent engines */
	close(fd2);
	CHECK_EQ(dereg_mem(fd, 0), -ENOENT);
	CHECK_EQ(dereg_mem(fd, r.handle + 1000), -ENOENT);
	memset(&d, 0, sizeof(d));
	d.handle = r.handle;
	d.flags = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_DEREG_MEM, &d), -EINVAL);
	CHECK_EQ(get_stats(fd).regions, 1);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	close(fd);
}

static int tracefs_write(const char *file, const char *val)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

void test_tracepoints(void)
{
	static char buf[65536];
	int fd, tfd;
	ssize_t n, got = 0;
	char *p = map_anon(64 * KiB, 0);
	struct hixl_reg_mem r;

	if (access("/sys/kernel/tracing/events/hixl", F_OK))
		SKIP("tracefs with events/hixl not available");
	fd = open_dev();
	REQUIRE(fd >= 0 && p);
	memset(p, 0, 64 * KiB);
	REQUIRE(tracefs_write("trace", "") == 0);
	REQUIRE(tracefs_write("events/hixl/enable", "1") == 0);
	CHECK_EQ(reg_mem(fd, p, 32 * KiB, 0, &r), 0);
	CHECK_EQ(reg_mem(fd, p, 4 * KiB, 0, NULL), -EEXIST);
	CHECK_EQ(munmap(p, 4096), 0);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	REQUIRE(tracefs_write("events/hixl/enable", "0") == 0);
	tfd = open("/sys/kernel/tracing/trace", O_RDONLY);
	REQUIRE(tfd >= 0);
	while ((n = read(tfd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(tfd);
	CHECK(strstr(buf, "hixl_reg_mem:") != NULL);
	CHECK(strstr(buf, "hixl_invalidate:") != NULL);
	CHECK(strstr(buf, "hixl_dereg_mem:") != NULL);
	CHECK(strstr(buf, "invalid=1") != NULL);
	/* -EEXIST is not a limit; no limit event */
	CHECK(strstr(buf, "hixl_limit_hit:") == NULL);
	close(fd);
}

void test_debugfs(void)
{
	char line[512];
	int fd = open_dev(), found = 0;
	char *p = map_anon(64 * KiB, 0);
	FILE *f;

	REQUIRE(fd >= 0 && p);
	memset(p, 0, 64 * KiB);
	REQUIRE(reg_mem(fd, p, 64 * KiB, 0, NULL) == 0);
	f = fopen("/sys/kernel/debug/hixl/regions", "r");
	if (!f)
		SKIP("debugfs not mounted");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr, len;
		char type[16], state[16];

		if (sscanf(line, "%*u %*u %15s 0x%llx %llu %*u %*u %15s", type, &addr, &len, state) == 4 &&
		    addr == (uintptr_t)p && len == 64 * KiB && !strcmp(type, "host") &&
		    !strcmp(state, "valid"))
			found++;
	}
	fclose(f);
	CHECK_EQ(found, 1);
	f = fopen("/sys/kernel/debug/hixl/engines", "r");
	REQUIRE(f);
	found = 0;
	while (fgets(line, sizeof(line), f)) {
		int pid;
		long long regions, inval, host, dev, pinned;

		if (sscanf(line, "%*u %d %lld %lld %lld %lld %lld", &pid, &regions, &inval,
			   &host, &dev, &pinned) == 6 && pid == getpid() && regions == 1 &&
		    host == 64 * 1024 && pinned == 16)
			found++;
	}
	fclose(f);
	CHECK_EQ(found, 1);
	close(fd);
}

const struct ht_test reg_tests[] = {
	{ "reg_anon", test_reg_anon },
	{ "reg_anon_shared", test_reg_anon_shared },
	{ "reg_thp", test_reg_thp },
	{ "reg_hugetlb_2m", test_reg_hugetlb_2m },
	{ "reg_hugetlb_1g", test_reg_hugetlb_1g },
	{ "reg_memfd", test_reg_memfd },
	{ "reg_memfd_hugetlb", test_reg_memfd_hugetlb },
	{ "reg_readonly", test_reg_readonly },
	{ "reg_dmabuf", test_reg_dmabuf },
	{ "reg_limit_count", test_reg_limit_count },
	{ "reg_limit_bytes", test_reg_limit_bytes },
	{ "reg_rlimit_memlock", test_reg_rlimit_memlock },
	{ "inval_munmap", test_inval_munmap },
	{ "inval_mremap", test_inval_mremap },
	{ "inval_madv_dontneed", test_inval_madv_dontneed },
	{ "inval_map_fixed", test_inval_map_fixed },
	{ "inval_mprotect_ignored", test_inval_mprotect_ignored },
	{ "inval_thp_split_neighbour", test_inval_thp_split_neighbour },
	{ "reg_fork", test_reg_fork },
	{ "reg_close_releases", test_reg_close_releases },
	{ "reg_exit_releases", test_reg_exit_releases },
	{ "reg_cycles", test_reg_cycles },
	{ "reg_bad_input", test_reg_bad_input },
	{ "tracepoints", test_tracepoints },
	{ "debugfs", test_debugfs },
	{ NULL, NULL },
};
