// SPDX-License-Identifier: GPL-2.0
/* util.c - helpers shared by the user tests */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/udmabuf.h>
#include <sys/mman.h>
#include <sys/mount.h>

#include "harness.h"
#include "util.h"
#include "raw.h"

int open_dev(void)
{
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		SKIP("/dev/hixl missing: hixl.ko not loaded");
	return fd;
}

long xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

unsigned long long read_param(const char *name)
{
	char path[256];
	unsigned long long v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/hixl/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

int write_param(const char *name, unsigned long long v)
{
	char path[256];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/module/hixl/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%llu\n", v) < 0)
		ret = -EIO;
	if (fclose(f))
		ret = -errno;
	return ret;
}

int hx_stage_by_size(void)
{
	int ret = write_param("stage_policy", 1);

	if (ret)
		printf("#   stage_policy=1: %s\n", strerror(-ret));
	return ret;
}

long reg_mem(int fd, void *addr, uint64_t len, uint32_t flags, struct hixl_reg_mem *out)
{
	struct hixl_reg_mem a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.addr = (uintptr_t)addr;
	a.len = len;
	a.type = HIXL_MEM_HOST;
	a.flags = flags;
	a.dmabuf_fd = -1;
	ret = xioctl(fd, HIXL_IOC_REG_MEM, &a);
	if (out)
		*out = a;
	return ret;
}

long reg_dev(int fd, uint64_t addr, uint64_t len, int dmabuf_fd, uint64_t off,
	     struct hixl_reg_mem *out)
{
	struct hixl_reg_mem a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.addr = addr;
	a.len = len;
	a.type = HIXL_MEM_DEVICE;
	a.dmabuf_fd = dmabuf_fd;
	a.dmabuf_offset = off;
	ret = xioctl(fd, HIXL_IOC_REG_MEM, &a);
	if (out)
		*out = a;
	return ret;
}

long dereg_mem(int fd, uint64_t handle)
{
	struct hixl_dereg_mem a;

	memset(&a, 0, sizeof(a));
	a.handle = handle;
	return xioctl(fd, HIXL_IOC_DEREG_MEM, &a);
}

struct hixl_stats get_stats(int fd)
{
	struct hixl_stats s;

	memset(&s, 0, sizeof(s));
	if (xioctl(fd, HIXL_IOC_GET_STATS, &s)) {
		printf("#   GET_STATS failed\n");
		memset(&s, 0xff, sizeof(s));
	}
	return s;
}

long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int wait_pinned(int fd, uint64_t want, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited <= ms; waited += 10) {
		if (get_stats(fd).pinned_pages == want)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

int wait_invalid(int fd, uint64_t want, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int waited = 0; waited <= ms; waited += 10) {
		if (get_stats(fd).invalid_regions == want)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

const char *region_state(uint64_t addr)
{
	static char state[16];
	char line[512];
	const char *ret = NULL;
	FILE *f = fopen("/sys/kernel/debug/hixl/regions", "r");

	if (!f)
		return NULL;
	while (!ret && fgets(line, sizeof(line), f)) {
		unsigned long long a;

		if (sscanf(line, "%*u %*u %*s 0x%llx %*u %*u %*u %15s", &a, state) == 2 && a == addr)
			ret = state;
	}
	fclose(f);
	return ret;
}

int make_udmabuf(size_t len, int *memfd_out)
{
	struct udmabuf_create c;
	int dev, mfd, buf;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	mfd = memfd_create("hixl-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, len) || fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(dev);
		return -EIO;
	}
	memset(&c, 0, sizeof(c));
	c.memfd = mfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.size = len;
	buf = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	*memfd_out = mfd;
	return buf < 0 ? -errno : buf;
}


/* ---- links and transfers on the test VM's rxe0 (10.77.0.1) ------------------ */

struct hixl_sockaddr hx_name(uint16_t port)
{
	return hixl_raw_name(HX_IP, port);
}

int hx_engine(uint16_t port, uint32_t pool_n, uint32_t pool_mb)
{
	int fd = open_dev();
	int ret;

	if (fd < 0)
		return -errno;
	ret = hixl_raw_setup(fd, HX_IP, port, pool_n, pool_mb);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " HX_IP " (rxe0 in the test VM)");
	if (ret) {
		printf("#   SETUP %s:%u: %s\n", HX_IP, port, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

long hx_connect(int fd, uint16_t port, uint32_t timeout_ms)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = hx_name(port);
	c.timeout_ms = timeout_ms;
	return xioctl(fd, HIXL_IOC_CONNECT, &c);
}

long hx_disconnect(int fd, uint16_t port)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = hx_name(port);
	c.timeout_ms = 1000;
	return xioctl(fd, HIXL_IOC_DISCONNECT, &c);
}

long hx_xfer(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d, uint32_t n,
	     uint32_t timeout_ms, uint32_t *failed)
{
	struct hixl_transfer t;
	long ret;

	memset(&t, 0, sizeof(t));
	t.remote = hx_name(port);
	t.op = op;
	t.descs = (uintptr_t)d;
	t.count = n;
	t.timeout_ms = timeout_ms;
	t.failed = ~0U;
	ret = xioctl(fd, HIXL_IOC_TRANSFER, &t);
	if (failed)
		*failed = t.failed;
	return ret;
}

struct hixl_engine *hx_lib_engine(const char *name, const struct hixl_option *o, size_t n)
{
	struct hixl_engine *e = NULL;
	int ret = hixl_engine_init(&e, name, o, n);

	if (ret == -ENOPKG)
		SKIP("no /dev/hixl");
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " HX_IP " (rxe0 in the test VM)");
	if (ret)
		printf("#   init %s: %s\n", name, strerror(-ret));
	return ret ? NULL : e;
}

void *hx_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", 2014), 8 bytes a step: a byte-at-a-time LCG took seconds
 * for the 512 MiB buffers of some tests under QEMU/TCG.
 */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void hx_fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *c = p;
	uint64_t x = seed, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		w = splitmix64(&x);
		memcpy(c + i, &w, 8);
	}
	if (i < len) {
		w = splitmix64(&x);
		memcpy(c + i, &w, len - i);
	}
}

long hx_first_diff(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

long vm_pin_kb_pid(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int hx_debug_kernel(void)
{
	return access("/sys/kernel/debug/kmemleak", F_OK) == 0;
}

int hx_long(void)
{
	const char *v = getenv("HIXL_TEST_LONG");

	return v && *v && strcmp(v, "0");
}

int hx_count_engines(void)
{
	FILE *f = fopen("/sys/kernel/debug/hixl/engines", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

int hx_test_delay(const char *point, unsigned int ms)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/hixl/test/%s", point);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fprintf(f, "%u\n", ms) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

double hx_ms_between(const struct timespec *t0, const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) * 1e3 + (t1->tv_nsec - t0->tv_nsec) / 1e6;
}

double hx_ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return hx_ms_between(t0, &t1);
}

int hx_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int hx_thp_backed(void *p, size_t len)
{
	char line[256];
	unsigned long start, end;
	long kb, total = 0;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start <= (uintptr_t)p && (uintptr_t)p < end;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			total += kb;
	}
	fclose(f);
	return (size_t)total * 1024 >= len;
}

/*
 * Events enabled with the record-cmd option on (the default) also hook the
 * scheduler's sched_switch and sched_wakeup tracepoints to keep task names,
 * and their static calls in __schedule() are patched each time (int3 and
 * IPIs, text_poke_bp()).  Under QEMU's multi-threaded TCG a vCPU in
 * __schedule() then spun on the int3 for good while the other waited for
 * it (a 6.1 guest, the rail tracepoint test run in a loop).  The tests
 * read only hixl's own fields: the names are not kept, and enabling
 * hixl's events patches only hixl's code.
 */
static const char *hx_tracefs_ready(const char *dir)
{
	hx_tracefs_write(dir, "options/record-cmd", "0");
	return dir;
}

/*
 * tracefs, mounted if it is not yet: the folder that has hixl's event
 * @event ("hixl_rail_state"; "" for the hixl events folder), or NULL.
 */
const char *hx_tracefs(const char *event)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[160];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events/hixl/%s", dirs[i], event);
		if (!access(p, F_OK))
			return hx_tracefs_ready(dirs[i]);
	}
	snprintf(p, sizeof(p), "/sys/kernel/tracing/events/hixl/%s", event);
	if (!mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && !access(p, F_OK))
		return hx_tracefs_ready(dirs[0]);
	return NULL;
}

int hx_tracefs_write(const char *dir, const char *file, const char *v)
{
	char p[256];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "w");
	if (!f)
		return -1;
	ok = fputs(v, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

uint64_t hx_self_id(int fd)
{
	struct hixl_engine_stat e[64];
	uint32_t total = 0;
	int n = hixl_dev_engines(fd, e, 64, &total);

	for (int i = 0; i < n; i++)
		if (e[i].flags & HIXL_ENGINE_STAT_SELF)
			return e[i].id;
	return 0;
}

long hx_tracefs_read(const char *dir, char *buf, size_t size)
{
	char p[256];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/trace", dir);
	f = fopen(p, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (long)n;
}

int hx_rxe_active(const char *dev)
{
	char p[96], st[64] = "";
	FILE *f;

	snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/state", dev);
	f = fopen(p, "r");
	if (!f)
		return 0;
	if (!fgets(st, sizeof(st), f))
		st[0] = 0;
	fclose(f);
	return strstr(st, "ACTIVE") != NULL;
}

/*
 * Is rxe @dev's GSI QP (QP1, which carries the CM's MADs) in the ERR state?
 * rxe moves any QP whose packet finds no route to ERR, QP1 included, and the
 * MAD layer brings QP1 back only from SQE: a MAD sent while the netdev was
 * down ends rdma_cm on that device until the device is made again.
 */
static int rxe_gsi_dead(const char *dev)
{
	char cmd[128], out[512];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "rdma res show qp link %s/1 lqpn 1 2>/dev/null", dev);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	return strstr(out, " type GSI state ERR ") != NULL;
}

int hx_rxe_restore(const char *dev, const char *netdev)
{
	char p[96], cmd[128];

	snprintf(p, sizeof(p), "/sys/class/infiniband/%s", dev);
	if (access(p, F_OK) == 0 && rxe_gsi_dead(dev)) {
		printf("#   %s's GSI QP is in ERR (a CM MAD sent while %s was down: an rxe "
		       "defect, see docs/developing.md): making %s again\n", dev, netdev, dev);
		snprintf(cmd, sizeof(cmd), "timeout 60 rdma link delete %s", dev);
		if (system(cmd) != 0) {
			printf("#   RESTORING %s FAILED: later tests will fail\n", dev);
			return -1;
		}
	}
	snprintf(cmd, sizeof(cmd), "rdma link add %s type rxe netdev %s", dev, netdev);
	if (access(p, F_OK) != 0 && system(cmd) != 0) {
		printf("#   RESTORING %s FAILED: later tests will fail\n", dev);
		return -1;
	}
	for (int i = 0; i < 200 && !hx_rxe_active(dev); i++)
		usleep(50000);
	if (!hx_rxe_active(dev)) {
		printf("#   %s is back but not ACTIVE\n", dev);
		return -1;
	}
	return 0;
}

int hx_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

int hx_kmsg_wait(int fd, const char *what, int ms)
{
	char rec[1024];

	for (int waited = 0; waited <= ms; waited += 20) {
		ssize_t n;

		while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
			if (n <= 0)
				continue;	/* EPIPE: records overwritten, go on */
			rec[n] = '\0';
			if (strstr(rec, what))
				return 1;
		}
		usleep(20000);
	}
	return 0;
}

int hx_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}
