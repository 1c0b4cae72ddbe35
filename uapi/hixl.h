/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * hixl.h - the one ABI header shared by hixl.ko and libhixl-user.
 *
 * /dev/hixl is a misc character device.  One open file is one engine.  Every
 * command is an ioctl encoded with _IOWR('H', nr, struct); the same numbers
 * will be accepted as io_uring URING_CMD cmd_op values.
 *
 * Conventions (Documentation/process/botching-up-ioctls.rst, ublk_cmd.h):
 *  - fixed-width __u32/__u64 fields only, user pointers carried as __u64;
 *  - every struct is a multiple of 8 bytes with explicit padding;
 *  - every "flags" field rejects unknown bits with -EINVAL;
 *  - every "reserved"/"pad" field must be zero on input (-EINVAL otherwise)
 *    and is written as zero on output;
 *  - an ioctl number of ours ('H' type, known nr) with a different size or
 *    direction is -EINVAL; any other number is -ENOTTY.
 *
 * The layout is checked at build time by uapi/hixl_layout.h, which both the
 * module and the library compile.
 */
#ifndef _UAPI_HIXL_H
#define _UAPI_HIXL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HIXL_DEVICE_NAME	"hixl"
#define HIXL_DEVICE_PATH	"/dev/hixl"

/*
 * ABI version: bumped on any incompatible change.  Compatible additions are
 * announced through hixl_info.features instead.
 */
#define HIXL_ABI_VERSION	1

/* hixl_info.features bits: one per command family the module implements */
#define HIXL_FEAT_GET_INFO	(1ULL << 0)
#define HIXL_FEAT_ALL		(HIXL_FEAT_GET_INFO)

/**
 * struct hixl_info - HIXL_IOC_GET_INFO argument
 * @flags:           in: must be 0
 * @abi_version:     out: HIXL_ABI_VERSION of the running module
 * @features:        out: HIXL_FEAT_* bits
 * @max_regions:     out: registrations allowed per process (vendor: 256)
 * @max_links:       out: links (connections) allowed per engine (vendor: 512)
 * @max_host_bytes:  out: host memory one process may register, bytes (20 GiB)
 * @max_device_bytes: out: device (dma-buf) memory one process may register,
 *                   bytes (50 GiB)
 * @max_notify_name: out: longest notification name, bytes (1024)
 * @max_notify_msg:  out: longest notification message, bytes (1024)
 * @max_notify_pending: out: notifications queued per link before overflow (4096)
 * @reserved0:       in/out: must be 0
 * @reserved:        in/out: must be 0
 *
 * The limits are the module parameters in force when the call is made.
 */
struct hixl_info {
	__u32 flags;
	__u32 abi_version;
	__u64 features;
	__u64 max_regions;
	__u64 max_host_bytes;
	__u64 max_device_bytes;
	__u32 max_links;
	__u32 max_notify_name;
	__u32 max_notify_msg;
	__u32 max_notify_pending;
	__u32 reserved0;
	__u32 reserved1;
	__u64 reserved[8];
};

#define HIXL_IOC_MAGIC		'H'
#define HIXL_IOC_NR_GET_INFO	0x00

#define HIXL_IOC_GET_INFO	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info)

#endif /* _UAPI_HIXL_H */
