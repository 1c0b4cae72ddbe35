// SPDX-License-Identifier: GPL-2.0
/* util.c - helpers shared by the user tests */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/udmabuf.h>
#include <sys/mman.h>

#include "harness.h"
#include "util.h"

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

