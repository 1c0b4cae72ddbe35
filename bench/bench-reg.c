// SPDX-License-Identifier: GPL-2.0
/*
 * bench-reg - registration time of hixl (HIXL_IOC_REG_MEM on an engine set
 * up on an RDMA address, so pins and MRs) against ibv_reg_mr() on the same
 * device for the same pre-touched buffers, interleaved in one run.
 *
 * Usage: bench-reg [--size MiB] [--reps N] [--addr IP] [--out FILE.md]
 *
 * Buffers: 4 KiB pages (MADV_NOHUGEPAGE), 2 MiB THP (MADV_HUGEPAGE), 2 MiB
 * hugetlb (MAP_HUGETLB; needs free huge pages), a shmem memfd and a 2 MiB
 * hugetlb memfd (memfd_create(MFD_HUGETLB), MAP_SHARED: the files that
 * memfd_pin_folios() pins on 6.11+).  Each is registered and
 * deregistered --reps times by both, alternating; the table gives medians,
 * min..max, and the hixl/ibv ratio of the medians (below 1: hixl faster).
 * A kind that cannot be allocated is reported as such, not timed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/memfd.h>
#include <linux/mman.h>

#include <hixl/hixl.h>

#define MAX_REPS 64

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct series {
	double reg[MAX_REPS], dereg[MAX_REPS];
};

#define NKINDS 5

/*
 * The registration at @addr as debugfs regions shows it: runs, bytes of
 * runs, how it was pinned.  0, or -1 without debugfs or the line.
 */
static int dbg_runs(unsigned long addr, unsigned long *runs, unsigned long *bytes, char pin[16])
{
	char line[512];
	int ret = -1;
	FILE *f = fopen("/sys/kernel/debug/hixl/regions", "r");

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%*u %*u %*s 0x%llx %*u %*u %*u %*s %lu %lu %15s", &a, runs,
			   bytes, pin) == 4 && a == addr)
			ret = 0;
	}
	fclose(f);
	return ret;
}

/* @kind's buffer of @len bytes; *@mfd: the memfd behind it (or -1) */
static void *alloc_kind(int kind, size_t len, int *mfd)
{
	size_t align = 2UL << 20;
	char *p, *a;

	*mfd = -1;
	if (kind == 3 || kind == 4) {
		*mfd = memfd_create("bench-reg", kind == 4 ? MFD_HUGETLB | MFD_HUGE_2MB : 0);
		if (*mfd < 0)
			return NULL;
		if (ftruncate(*mfd, len))
			goto err_fd;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, *mfd, 0);
		if (p != MAP_FAILED)
			return p;
err_fd:
		close(*mfd);
		*mfd = -1;
		return NULL;
	}
	if (kind == 2) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + align - 1) & ~(align - 1));
	if (madvise(a, len, kind == 1 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		return NULL;
	return a;
}

int main(int argc, char **argv)
{
	static const char *kinds[NKINDS] = { "4 KiB pages", "2 MiB THP", "2 MiB hugetlb",
					     "shmem memfd", "2 MiB hugetlb memfd" };
	const char *addr = "10.77.0.1", *out = NULL;
	size_t size_mb = 1024, len;
	int reps = 5, fd, ndev;
	struct ibv_device **devs;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct hixl_setup s;
	struct utsname un;
	FILE *f = stdout;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size_mb = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--addr") && i + 1 < argc)
			addr = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: bench-reg [--size MiB] [--reps N] [--addr IP] [--out FILE]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || !size_mb) {
		fprintf(stderr, "bench-reg: --reps 1..%d, --size > 0\n", MAX_REPS);
		return 2;
	}
	len = size_mb << 20;

	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		fprintf(stderr, "bench-reg: /dev/hixl: %s\n", hixl_strerror(fd));
		return 1;
	}
	memset(&s, 0, sizeof(s));
	s.local.family = AF_INET;
	if (inet_pton(AF_INET, addr, s.local.addr) != 1) {
		fprintf(stderr, "bench-reg: bad IPv4 address %s\n", addr);
		return 2;
	}
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	if (ioctl(fd, HIXL_IOC_SETUP, &s)) {
		perror("bench-reg: HIXL_IOC_SETUP");
		return 1;
	}
	devs = ibv_get_device_list(&ndev);
	for (int i = 0; devs && i < ndev; i++)
		if (!strcmp(ibv_get_device_name(devs[i]), s.device))
			ctx = ibv_open_device(devs[i]);
	if (!ctx) {
		fprintf(stderr, "bench-reg: cannot open %s with libibverbs\n", s.device);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		perror("bench-reg: ibv_alloc_pd");
		return 1;
	}

	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	uname(&un);
	fprintf(f, "# Registration: hixl vs ibv_reg_mr\n\n");
	fprintf(f, "Kernel %s, device %s, %zu MiB pre-touched buffer, %d repetitions each, "
		"hixl and ibv_reg_mr alternating in one VM run (`make bench-reg`). "
		"hixl: HIXL_IOC_REG_MEM on an engine set up on the device (long-term pin, "
		"accounting, MMU notifier, fast-registration MRs); ibv: ibv_reg_mr() with "
		"LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE. Times in ms, median (min..max); "
		"ratio = hixl median / ibv median (below 1: hixl faster). Under QEMU/TCG only "
		"the ratios mean anything. hixl runs: the physically contiguous runs hixl keeps "
		"the pins as (debugfs regions), their memory per GiB registered (16 bytes a run; "
		"a flat array of page pointers took 2 MiB per GiB), and how the pages were "
		"pinned (pages: pin_user_pages_fast(); folios: memfd_pin_folios(), 6.11+).\n\n",
		un.release, s.device, size_mb, reps);
	fprintf(f, "| buffer | page size found | hixl MRs | hixl runs | run bytes per GiB | pinned by | hixl reg | ibv_reg_mr | reg ratio | hixl dereg | ibv_dereg_mr | dereg ratio |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");

	for (int k = 0; k < NKINDS; k++) {
		struct series h, v;
		struct hixl_reg_mem r;
		struct ibv_mr *mr;
		double t, hm, vm, hd, vd, hmin, hmax, vmin, vmax, hdmin, hdmax, vdmin, vdmax;
		unsigned int nr_mrs = 0;
		unsigned long long page_size = 0;
		unsigned long runs = 0, run_bytes = 0;
		char pin[16] = "-", runs_s[32] = "-", bytes_s[32] = "-";
		int mfd;
		char *p = alloc_kind(k, len, &mfd);

		if (!p) {
			fprintf(f, "| %s | - | - | - | - | - | not available | | | | | |\n", kinds[k]);
			continue;
		}
		memset(p, 1, len);
		for (int i = 0; i < reps; i++) {
			memset(&r, 0, sizeof(r));
			r.addr = (unsigned long)p;
			r.len = len;
			r.type = HIXL_MEM_HOST;
			r.dmabuf_fd = -1;
			t = now_ms();
			if (ioctl(fd, HIXL_IOC_REG_MEM, &r)) {
				perror("bench-reg: REG_MEM");
				return 1;
			}
			h.reg[i] = now_ms() - t;
			nr_mrs = r.nr_mrs;
			page_size = r.page_size;
			if (i == 0 && !dbg_runs(r.addr, &runs, &run_bytes, pin)) {
				snprintf(runs_s, sizeof(runs_s), "%lu", runs);
				snprintf(bytes_s, sizeof(bytes_s), "%.0f",
					 run_bytes * (1024.0 / size_mb));
			}
			{
				struct hixl_dereg_mem d = { .handle = r.handle };

				t = now_ms();
				if (ioctl(fd, HIXL_IOC_DEREG_MEM, &d)) {
					perror("bench-reg: DEREG_MEM");
					return 1;
				}
				h.dereg[i] = now_ms() - t;
			}
			t = now_ms();
			mr = ibv_reg_mr(pd, p, len, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
			if (!mr) {
				perror("bench-reg: ibv_reg_mr");
				return 1;
			}
			v.reg[i] = now_ms() - t;
			t = now_ms();
			ibv_dereg_mr(mr);
			v.dereg[i] = now_ms() - t;
		}
		hm = median(h.reg, reps);
		hmin = h.reg[0];
		hmax = h.reg[reps - 1];
		vm = median(v.reg, reps);
		vmin = v.reg[0];
		vmax = v.reg[reps - 1];
		hd = median(h.dereg, reps);
		hdmin = h.dereg[0];
		hdmax = h.dereg[reps - 1];
		vd = median(v.dereg, reps);
		vdmin = v.dereg[0];
		vdmax = v.dereg[reps - 1];
		fprintf(f, "| %s | %llu KiB | %u | %s | %s | %s | %.1f (%.1f..%.1f) | "
			"%.1f (%.1f..%.1f) | %.2f | %.1f (%.1f..%.1f) | %.1f (%.1f..%.1f) | %.2f |\n",
			kinds[k], page_size >> 10, nr_mrs, runs_s, bytes_s, pin,
			hm, hmin, hmax, vm, vmin, vmax, hm / vm,
			hd, hdmin, hdmax, vd, vdmin, vdmax, hd / vd);
		fflush(f);
		munmap(p, len);
		if (mfd >= 0)
			close(mfd);
	}
	if (out)
		fclose(f);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	close(fd);
	return 0;
}
