/* SPDX-License-Identifier: MIT */
/*
 * <hixl/hixl.h> - libhixl-user, the C API of the hixl RDMA transfer engine.
 *
 * Conventions (liburing): every function returns 0 or a negative errno
 * value and never touches errno; pointers are never retained past the call
 * unless documented.
 */
#ifndef HIXL_HIXL_H
#define HIXL_HIXL_H

#include <hixl/uapi.h>
#include <hixl/physmem.h>
#include <hixl/prof.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * hixl_version() - the library's version string, e.g. "0.1.0"
 *
 * Return: a static string; never NULL.
 */
const char *hixl_version(void);

/**
 * hixl_dev_open() - open the hixl device
 * @path: device node, or NULL for HIXL_DEVICE_PATH ("/dev/hixl")
 *
 * The descriptor is opened O_RDWR | O_CLOEXEC.  One open descriptor is one
 * engine in the kernel.
 *
 * Return: a file descriptor (>= 0) on success;
 *  -ENOENT if the node does not exist (hixl.ko not loaded);
 *  -EACCES if the caller may not open it (see the udev rule in the README);
 *  any other -errno of open(2).
 */
int hixl_dev_open(const char *path);

/**
 * hixl_dev_get_info() - ABI version, feature mask and limits of the module
 * @fd:   descriptor from hixl_dev_open()
 * @info: filled on success; its previous contents are ignored
 *
 * Wraps HIXL_IOC_GET_INFO (uapi/hixl.h).
 *
 * Return: 0 on success;
 *  -EBADF if @fd is not open; -ENOTTY if @fd is not /dev/hixl;
 *  -EINVAL if the module rejected the request (a module too old for this
 *  library's ABI); -EPROTO if the module answers with another
 *  HIXL_ABI_VERSION than this library was built for (@info is filled).
 */
int hixl_dev_get_info(int fd, struct hixl_info *info);

#ifdef __cplusplus
}
#endif

#endif /* HIXL_HIXL_H */
