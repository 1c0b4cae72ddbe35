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
#define HIXL_FEAT_REG_HOST	(1ULL << 1)	/* REG_MEM of host memory */
#define HIXL_FEAT_REG_DMABUF	(1ULL << 2)	/* REG_MEM of dma-buf memory */
#define HIXL_FEAT_INVALIDATE	(1ULL << 3)	/* MMU-notifier invalidation */
#define HIXL_FEAT_ALL		(HIXL_FEAT_GET_INFO | HIXL_FEAT_REG_HOST | \
				 HIXL_FEAT_REG_DMABUF | HIXL_FEAT_INVALIDATE)

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

/* ---- memory registration ------------------------------------------------ */

/* hixl_reg_mem.type: HIXL's MemType */
#define HIXL_MEM_HOST		0	/* user virtual memory of the calling process */
#define HIXL_MEM_DEVICE		1	/* a dma-buf (GPU/NPU memory; udmabuf in tests) */

/*
 * hixl_reg_mem.flags.  With no flag a region is readable and writable both
 * locally and by peers.  HIXL_REG_READ_ONLY registers it for reading only:
 * a source of local RDMA WRITEs and of peers' RDMA READs, never written.
 * Read-only mappings (PROT_READ) must be registered with it (-EACCES
 * otherwise).
 */
#define HIXL_REG_READ_ONLY	(1U << 0)
#define HIXL_REG_FLAGS_ALL	(HIXL_REG_READ_ONLY)

/**
 * struct hixl_reg_mem - HIXL_IOC_REG_MEM argument (HIXL RegisterMem)
 * @addr:      in: start of the region in the engine's address space, bytes.
 *             HOST: a user virtual address of the calling process.
 *             DEVICE: the device virtual address the caller will use in
 *             transfer descriptors (any value; it names the region).
 * @len:       in: length in bytes, > 0; @addr + @len must not overflow
 * @type:      in: HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @flags:     in: HIXL_REG_* bits
 * @dmabuf_fd: in: DEVICE: the dma-buf file descriptor; HOST: must be -1
 * @reserved0: in: must be 0
 * @dmabuf_offset: in: DEVICE: offset of the region in the dma-buf, bytes,
 *             page aligned; HOST: must be 0
 * @handle:    out: the registration's handle, never 0
 * @page_size: out: the largest page size the physical layout allows, bytes
 *             (4 KiB .. 1 GiB): the unit of the region's MR page lists
 * @nr_pages:  out: pages of @page_size that cover the region
 * @reserved:  in: must be 0
 */
struct hixl_reg_mem {
	__u64 addr;
	__u64 len;
	__u32 type;
	__u32 flags;
	__s32 dmabuf_fd;
	__u32 reserved0;
	__u64 dmabuf_offset;
	__u64 handle;
	__u64 page_size;
	__u64 nr_pages;
	__u64 reserved[2];
};

/**
 * struct hixl_dereg_mem - HIXL_IOC_DEREG_MEM argument (HIXL DeregisterMem)
 * @handle:   in: from HIXL_IOC_REG_MEM on the same engine
 * @flags:    in: must be 0
 * @reserved0: in: must be 0
 * @reserved: in: must be 0
 */
struct hixl_dereg_mem {
	__u64 handle;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

/**
 * struct hixl_stats - HIXL_IOC_GET_STATS argument: counters of the engine
 * and of the process that owns it
 * @flags:          in: must be 0
 * @reserved0:      in: must be 0
 * @regions:        out: live registrations of this engine (valid or invalidated)
 * @invalid_regions: out: of those, invalidated by an unmap/remap
 * @host_bytes:     out: host bytes registered by this engine
 * @device_bytes:   out: device bytes registered by this engine
 * @pinned_pages:   out: pages (PAGE_SIZE) this engine holds pinned now
 * @proc_regions:   out: registrations of the owning process (all engines),
 *                  counted against hixl_info.max_regions
 * @proc_host_bytes: out: host bytes registered by the process (all engines)
 * @proc_device_bytes: out: device bytes registered by the process
 * @invalidations:  out: registrations of this engine invalidated so far
 * @limit_hits:     out: REG_MEM calls of this engine refused by a limit
 * @reserved:       out: 0
 */
struct hixl_stats {
	__u32 flags;
	__u32 reserved0;
	__u64 regions;
	__u64 invalid_regions;
	__u64 host_bytes;
	__u64 device_bytes;
	__u64 pinned_pages;
	__u64 proc_regions;
	__u64 proc_host_bytes;
	__u64 proc_device_bytes;
	__u64 invalidations;
	__u64 limit_hits;
	__u64 reserved[5];
};

#define HIXL_IOC_MAGIC		'H'
#define HIXL_IOC_NR_GET_INFO	0x00
#define HIXL_IOC_NR_REG_MEM	0x01
#define HIXL_IOC_NR_DEREG_MEM	0x02
#define HIXL_IOC_NR_GET_STATS	0x03

#define HIXL_IOC_GET_INFO	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info)
#define HIXL_IOC_REG_MEM	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_REG_MEM, struct hixl_reg_mem)
#define HIXL_IOC_DEREG_MEM	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_DEREG_MEM, struct hixl_dereg_mem)
#define HIXL_IOC_GET_STATS	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_STATS, struct hixl_stats)

#endif /* _UAPI_HIXL_H */
