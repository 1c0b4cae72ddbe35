// SPDX-License-Identifier: GPL-2.0
/*
 * test_runs.c - registrations keep their pages as physically contiguous
 * runs (kmod/runs.c), as debugfs regions shows them (columns runs,
 * run_bytes, pin): 2 MiB pages (THP, hugetlb, hugetlb memfd) take at most
 * one run each and a few hundred bytes, not 8 bytes per 4 KiB page; 4 KiB
 * pages at most one run per page.  On 6.11+ a shared memfd mapping is
 * pinned folio by folio (memfd_pin_folios(): pin "folios"), elsewhere page
 * by page ("pages"); the MMU notifier rules stay those of the page path
 * (MADV_DONTNEED keeps the registration, a hole punched in the file
 * invalidates it), and transfers on folio-pinned memory move the right
 * bytes.  Ports 23800..23809.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/memfd.h>
#include <linux/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KiB 1024UL
#define MiB (1024 * KiB)
#define RUN_BYTES 16	/* sizeof(struct hixl_run) */
#define RUNS_MIN 64	/* the first allocation of runs */

struct dbg_region {
	unsigned long runs, run_bytes;
	char state[16], pin[16];
};

/* the debugfs regions line of the registration at @p: 0, -ENOENT */
static int dbg_region(const void *p, struct dbg_region *out)
{
	char line[512];
	int ret = -ENOENT;
	FILE *f = fopen("/sys/kernel/debug/hixl/regions", "r");

	if (!f)
		SKIP("debugfs not mounted");
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%*u %*u %*s 0x%llx %*u %*u %*u %15s %lu %lu %15s", &a,
			   out->state, &out->runs, &out->run_bytes, out->pin) == 5 &&
		    a == (uintptr_t)p)
			ret = 0;
	}
	fclose(f);
	return ret;
}

/* does the running kernel pin memfd mappings by folio (6.11+)? */
static int folio_pinning(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj > 6 || (maj == 6 && min >= 11);
}

/*
 * The kernel's FOLL_PIN counters (/proc/vmstat, per-CPU deltas folded in
 * first through /proc/sys/vm/stat_refresh): 0, or -1 when unreadable.
 */
static int foll_pins(long long *acquired, long long *released)
{
	char name[64];
	long long v;
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY), got = 0;
	FILE *f;

	if (fd < 0 || write(fd, "1", 1) != 1) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			*acquired = v, got |= 1;
		else if (!strcmp(name, "nr_foll_pin_released"))
			*released = v, got |= 2;
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/*
 * Register @len bytes at @p, check the runs against @max_runs (and the
 * array against its growth rule: 64 runs, doubling) and the pin kind,
 * print the metadata per GiB beside what a page array cost, deregister;
 * the kernel must count as many pins released as acquired in between.
 */
static void check_runs(const char *what, void *p, size_t len, unsigned long max_runs,
		       const char *pin)
{
	int fd = open_dev();
	struct hixl_reg_mem r;
	struct dbg_region d;
	unsigned long cap;
	long long acq0, rel0, acq1, rel1;

	REQUIRE(fd >= 0);
	memset(p, 0x5a, len);
	REQUIRE(foll_pins(&acq0, &rel0) == 0);
	REQUIRE(reg_mem(fd, p, len, 0, &r) == 0);
	REQUIRE(dbg_region(p, &d) == 0);
	CHECK_EQ(strcmp(d.state, "valid"), 0);
	CHECK(d.runs >= 1 && d.runs <= max_runs);
	for (cap = RUNS_MIN; cap < d.runs; cap *= 2)
		;
	CHECK_EQ(d.run_bytes, cap * RUN_BYTES);
	CHECK_EQ(strcmp(d.pin, pin), 0);
	printf("# %s, %zu MiB: %lu runs, %lu bytes of runs = %lu bytes per GiB "
	       "(a page array: %lu per GiB); pinned by %s\n", what, len / MiB, d.runs,
	       d.run_bytes, (unsigned long)(d.run_bytes * (1024.0 * MiB / len)),
	       (1024 * MiB / 4096) * 8, d.pin);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	REQUIRE(foll_pins(&acq1, &rel1) == 0);
	CHECK(acq1 - acq0 > 0);
	CHECK_EQ(rel1 - rel0, acq1 - acq0);
	printf("# %s: %lld pins acquired, %lld released\n", what, acq1 - acq0, rel1 - rel0);
	close(fd);
}

static void test_runs_4k(void)
{
	size_t len = 8 * MiB;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED);
	REQUIRE(madvise(p, len, MADV_NOHUGEPAGE) == 0);
	check_runs("4 KiB pages", p, len, len / 4096, "pages");
	munmap(p, len);
}

static void test_runs_thp(void)
{
	size_t len = 32 * MiB;
	char *m = mmap(NULL, len + 2 * MiB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;

	REQUIRE(m != MAP_FAILED);
	p = (char *)(((uintptr_t)m + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	if (madvise(p, len, MADV_HUGEPAGE))
		SKIP("madvise(MADV_HUGEPAGE) failed: no THP");
	memset(p, 1, len);
	if (!hx_thp_backed(p, len))
		SKIP("the kernel did not back the range with THP");
	check_runs("2 MiB THP", p, len, len / (2 * MiB), "pages");
	munmap(m, len + 2 * MiB);
}

static void test_runs_hugetlb(void)
{
	size_t len = 16 * MiB;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);

	if (p == MAP_FAILED)
		SKIP("no free 2 MiB huge pages (hugepages= on the kernel command line)");
	check_runs("2 MiB hugetlb", p, len, len / (2 * MiB), "pages");
	munmap(p, len);
}

/* a shared mapping of a new memfd of @len bytes, or NULL; *@mfd its fd */
static void *map_memfd(size_t len, unsigned int flags, int *mfd)
{
	void *p;

	*mfd = memfd_create("hixl-runs", MFD_CLOEXEC | flags);
	if (*mfd < 0)
		return NULL;
	if (ftruncate(*mfd, len)) {
		close(*mfd);
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *mfd, 0);
	if (p == MAP_FAILED) {
		close(*mfd);
		return NULL;
	}
	return p;
}

static void test_runs_memfd(void)
{
	size_t len = 8 * MiB;
	int mfd;
	void *p = map_memfd(len, 0, &mfd);

	REQUIRE(p);
	check_runs("shmem memfd", p, len, len / 4096, folio_pinning() ? "folios" : "pages");
	munmap(p, len);
	close(mfd);
}

/* wait up to 5 s for the region at @p to be in @state */
static int wait_state(const void *p, const char *state)
{
	for (int i = 0; i < 500; i++) {
		const char *s = region_state((uintptr_t)p);

		if (s && !strcmp(s, state))
			return 0;
		usleep(10000);
	}
	return -1;
}

/*
 * A hugetlb memfd: one run per 2 MiB page at most; on 6.11+ (folio pins)
 * MADV_DONTNEED on the shared mapping leaves the file's pages where they
 * were (the region goes suspect and back to valid: the pages the page
 * tables map again are the pinned ones); a hole punched in the file
 * replaces a page (invalid).
 */
static void test_runs_memfd_hugetlb(void)
{
	size_t len = 16 * MiB;
	int fd, mfd;
	char *p = map_memfd(len, MFD_HUGETLB | MFD_HUGE_2MB, &mfd);
	struct hixl_reg_mem r;

	if (!p)
		SKIP("no free 2 MiB huge pages for memfd(MFD_HUGETLB)");
	check_runs("2 MiB hugetlb memfd", p, len, len / (2 * MiB),
		   folio_pinning() ? "folios" : "pages");

	fd = open_dev();
	REQUIRE(fd >= 0);
	REQUIRE(reg_mem(fd, p, len, 0, &r) == 0);
	if (!region_state((uintptr_t)p))
		SKIP("debugfs not mounted");
	/*
	 * 6.1 zaps hugetlb mappings with MMU_NOTIFY_UNMAP (the region is gone
	 * for hixl, whichever way it was pinned); 6.12 with MMU_NOTIFY_CLEAR,
	 * after which the folio pins must be found in place.
	 */
	if (folio_pinning()) {
		REQUIRE(madvise(p, len, MADV_DONTNEED) == 0);
		CHECK_EQ(wait_state(p, "valid"), 0);
		CHECK_EQ(get_stats(fd).invalid_regions, 0);
		p[0] = 1;	/* fault the page back in */
	}
	REQUIRE(fallocate(mfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * MiB, 2 * MiB) == 0);
	CHECK_EQ(wait_invalid(fd, 1, 5000), 0);
	CHECK_EQ(wait_pinned(fd, 0, 5000), 0);
	CHECK_EQ(dereg_mem(fd, r.handle), 0);
	close(fd);
	munmap(p, len);
	close(mfd);
}

/*
 * Transfers between two memfd registrations (folio-pinned on 6.11+):
 * a 1 MiB descriptor goes directly through the MRs built from the runs,
 * 4 KiB ones through the staging pool (staged by size, stage_policy=1: the
 * peer copies by run lookup);
 * WRITE and READ, byte for byte.
 */
static void test_runs_xfer_memfd(void)
{
	const size_t len = 4 * MiB, big = 1 * MiB, small = 4 * KiB;
	const uint32_t n = 17;
	struct hixl_op_desc d[17];
	int ma, mb, a, b;
	unsigned char *pa = map_memfd(len, 0, &ma), *pb = map_memfd(len, 0, &mb);
	unsigned char *want = malloc(len);

	REQUIRE(pa && pb && want);
	a = hx_engine(23801, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(a >= 0);
	b = hx_engine(23802, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(b >= 0);
	REQUIRE(hx_stage_by_size() == 0);
	memset(pa, 0, len);
	memset(pb, 0, len);
	REQUIRE(reg_mem(a, pa, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, pb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 23802, 5000) == 0);
	/* 0: 1 MiB at 0 -> 1 MiB + 4 KiB + 100; 1..16: 4 KiB scattered */
	memset(d, 0, sizeof(d));
	d[0].local_addr = (uintptr_t)pa;
	d[0].remote_addr = (uintptr_t)pb + big + small + 100;
	d[0].len = big;
	for (uint32_t i = 1; i < n; i++) {
		d[i].local_addr = (uintptr_t)pa + 2 * big + i * 3 * small;
		d[i].remote_addr = (uintptr_t)pb + 3 * big + ((i * 7) % 16) * 2 * small + 8;
		d[i].len = small;
	}
	hx_fill(pa, len, 71);
	CHECK_EQ(hx_xfer(a, 23802, HIXL_OP_WRITE, d, n, 20000, NULL), 0);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ(hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				       (void *)(uintptr_t)d[i].remote_addr, d[i].len), -1);
	hx_fill(pb, len, 72);
	memcpy(want, pb, len);
	CHECK_EQ(hx_xfer(a, 23802, HIXL_OP_READ, d, n, 20000, NULL), 0);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ(hx_first_diff((void *)(uintptr_t)d[i].local_addr,
				       want + (d[i].remote_addr - (uintptr_t)pb), d[i].len), -1);
	close(a);
	close(b);
	munmap(pa, len);
	munmap(pb, len);
	close(ma);
	close(mb);
	free(want);
}

const struct ht_test runs_tests[] = {
	{ "runs_4k", test_runs_4k },
	{ "runs_thp", test_runs_thp },
	{ "runs_hugetlb", test_runs_hugetlb },
	{ "runs_memfd", test_runs_memfd },
	{ "runs_memfd_hugetlb", test_runs_memfd_hugetlb },
	{ "runs_xfer_memfd", test_runs_xfer_memfd },
	{ NULL, NULL },
};
