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
