// SPDX-License-Identifier: MIT
/*
 * hixl.c - libhixl-user: device access.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include <rdma/hixl_layout.h>
#include "internal.h"

HIXL_EXPORT const char *hixl_version(void)
{
	return HIXL_LIB_VERSION;
}

HIXL_EXPORT int hixl_version_check(int major, int minor)
{
	return major == HIXL_VERSION_MAJOR && minor >= 0 && minor <= HIXL_VERSION_MINOR ?
	       0 : -EPROTO;
}

HIXL_EXPORT int hixl_dev_open(const char *path)
{
	int fd = HIXL_SYSCALL_RET(open(path ? path : HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC));

	/* say which cause, not which syscall errno: see hixl_dev_open() in hixl.h */
	switch (fd) {
	case -ENOENT:	/* no node: hixl.ko not loaded, or udev has not made it */
	case -ENXIO:	/* a node, but no driver behind its number */
	case -ENODEV:
		return -ENOPKG;
	case -EACCES:	/* the mode or group of the node keeps the caller out */
		return -EPERM;
	default:
		return fd;
	}
}

HIXL_EXPORT int hixl_dev_get_info(int fd, struct hixl_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	ret = HIXL_SYSCALL_RET(ioctl(fd, HIXL_IOC_GET_INFO, info));
	if (ret)
		return ret;
	return info->abi_version == HIXL_ABI_VERSION ? 0 : -EPROTO;
}

HIXL_EXPORT int hixl_dev_get_stats(int fd, struct hixl_stats *st)
{
	if (!st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	return HIXL_SYSCALL_RET(ioctl(fd, HIXL_IOC_GET_STATS, st));
}

HIXL_EXPORT int hixl_dev_get_stats_rails(int fd, struct hixl_stats *st, struct hixl_rail_stat *buf,
					 uint32_t count, uint32_t *total)
{
	struct hixl_stats a;
	int ret;

	if ((count && !buf) || count > HIXL_MAX_RAILS)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.flags = HIXL_STATS_RAILS;
	a.nr_rails = count;
	a.rails = count ? (uint64_t)(uintptr_t)buf : 0;
	ret = HIXL_SYSCALL_RET(ioctl(fd, HIXL_IOC_GET_STATS, &a));
	if (ret)
		return ret;
	if (total)
		*total = a.nr_rails;
	if (st)
		*st = a;
	return (int)(a.nr_rails < count ? a.nr_rails : count);
}

static int link_stats(int fd, uint64_t engine, uint32_t flags, struct hixl_link_stat *buf,
		      struct hixl_lat_hist *lat, uint32_t count, uint32_t *total)
{
	struct hixl_link_stats a;
	int ret;

	if (count && (!buf || ((flags & HIXL_LINK_STATS_LATENCY) && !lat)))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.engine = engine;
	a.buf = count ? (uint64_t)(uintptr_t)buf : 0;
	a.count = count;
	a.flags = flags;
	a.lat = count && (flags & HIXL_LINK_STATS_LATENCY) ? (uint64_t)(uintptr_t)lat : 0;
	ret = HIXL_SYSCALL_RET(ioctl(fd, HIXL_IOC_LINK_STATS, &a));
	if (ret)
		return ret;
	if (total)
		*total = a.total;
	return (int)(a.total < count ? a.total : count);
}

HIXL_EXPORT int hixl_dev_link_stats(int fd, uint64_t engine, struct hixl_link_stat *buf,
				    uint32_t count, uint32_t *total)
{
	return link_stats(fd, engine, 0, buf, NULL, count, total);
}

HIXL_EXPORT int hixl_dev_link_stats_rails(int fd, uint64_t engine, struct hixl_link_stat *buf,
					  uint32_t count, uint32_t *total)
{
	return link_stats(fd, engine, HIXL_LINK_STATS_RAILS, buf, NULL, count, total);
}

HIXL_EXPORT int hixl_dev_link_stats_latency(int fd, uint64_t engine, struct hixl_link_stat *buf,
					    struct hixl_lat_hist *lat, uint32_t count,
					    uint32_t *total)
{
	return link_stats(fd, engine, HIXL_LINK_STATS_RAILS | HIXL_LINK_STATS_LATENCY, buf, lat,
			  count, total);
}

static int engines(int fd, struct hixl_engine_stat *buf, struct hixl_rail_stat *rails,
		   struct hixl_lat_hist *lat, uint32_t flags, uint32_t count, uint32_t *total)
{
	struct hixl_engines a;
	int ret;

	if (count && (!buf || ((flags & HIXL_ENGINES_RAILS) && !rails) ||
		      ((flags & HIXL_ENGINES_LATENCY) && !lat)))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.buf = count ? (uint64_t)(uintptr_t)buf : 0;
	a.count = count;
	a.flags = flags;
	a.rails = count && (flags & HIXL_ENGINES_RAILS) ? (uint64_t)(uintptr_t)rails : 0;
	a.lat = count && (flags & HIXL_ENGINES_LATENCY) ? (uint64_t)(uintptr_t)lat : 0;
	ret = HIXL_SYSCALL_RET(ioctl(fd, HIXL_IOC_ENGINES, &a));
	if (ret)
		return ret;
	if (total)
		*total = a.total;
	return (int)(a.total < count ? a.total : count);
}

HIXL_EXPORT int hixl_dev_engines(int fd, struct hixl_engine_stat *buf, uint32_t count,
				 uint32_t *total)
{
	return engines(fd, buf, NULL, NULL, 0, count, total);
}

HIXL_EXPORT int hixl_dev_engines_rails(int fd, struct hixl_engine_stat *buf,
				       struct hixl_rail_stat *rails, uint32_t count,
				       uint32_t *total)
{
	if (count > HIXL_MAX_RAIL_STAT_ENGINES)
		return -EINVAL;
	return engines(fd, buf, rails, NULL, HIXL_ENGINES_RAILS, count, total);
}

HIXL_EXPORT int hixl_dev_engines_latency(int fd, struct hixl_engine_stat *buf,
					 struct hixl_rail_stat *rails, struct hixl_lat_hist *lat,
					 uint32_t count, uint32_t *total)
{
	if (rails && count > HIXL_MAX_RAIL_STAT_ENGINES)
		return -EINVAL;
	return engines(fd, buf, rails, lat,
		       HIXL_ENGINES_LATENCY | (rails ? HIXL_ENGINES_RAILS : 0), count, total);
}
