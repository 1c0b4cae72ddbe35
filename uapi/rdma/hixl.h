/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * hixl.h - the one ABI header shared by hixl.ko and libhixl-user.
 *
 * /dev/hixl is a misc character device.  One open file is one engine.  Every
 * command is an ioctl encoded with _IOWR(HIXL_IOC_MAGIC, nr, struct); the
 * same numbers are accepted as io_uring URING_CMD cmd_op values.
 *
 * Conventions (Documentation/process/botching-up-ioctls.rst, ublk_cmd.h):
 *  - fixed-width __u32/__u64 fields only, user pointers carried as __u64;
 *  - every struct is a multiple of 8 bytes with explicit padding;
 *  - every "flags" field rejects unknown bits with -EINVAL;
 *  - every "reserved"/"pad" field must be zero on input (-EINVAL otherwise)
 *    and is written as zero on output;
 *  - argument structs grow only at their end.  The size encoded in the
 *    ioctl number is the caller's struct: the module reads a smaller one
 *    (an older caller's) zero-extended, and a larger one (a newer caller's)
 *    when every byte past the module's struct is zero, -E2BIG otherwise
 *    (copy_struct_from_user(), as openat2 and clone3).  Out fields are
 *    written up to the smaller of the two sizes.  A struct smaller than
 *    the command's first version (HIXL_*_SIZE_VER0) or another direction
 *    than _IOC_READ | _IOC_WRITE is -EINVAL; a number of another type, or
 *    of our type with an unknown nr, is -ENOTTY;
 *  - which flag bits and features a module knows is told at run time
 *    (hixl_info.features), not by masks in this header.
 *
 * The layout is checked at build time by uapi/rdma/hixl_layout.h, which both
 * the module and the library compile.
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
#define HIXL_ABI_VERSION	2

/* hixl_info.features bits: one per command family the module implements */
#define HIXL_FEAT_GET_INFO	(1ULL << 0)
#define HIXL_FEAT_REG_HOST	(1ULL << 1)	/* REG_MEM of host memory */
#define HIXL_FEAT_REG_DMABUF	(1ULL << 2)	/* REG_MEM of dma-buf memory */
#define HIXL_FEAT_INVALIDATE	(1ULL << 3)	/* MMU-notifier invalidation */
#define HIXL_FEAT_SETUP		(1ULL << 4)	/* SETUP: bind to an RDMA device, MRs */
#define HIXL_FEAT_LINKS		(1ULL << 5)	/* listen, CONNECT, DISCONNECT */
#define HIXL_FEAT_TRANSFER	(1ULL << 6)	/* TRANSFER: RDMA READ/WRITE batches */
#define HIXL_FEAT_NOTIFY	(1ULL << 7)	/* SEND_NOTIFY, GET_NOTIFIES */
#define HIXL_FEAT_CANCEL	(1ULL << 8)	/* CANCEL, hixl_transfer.tag */
#define HIXL_FEAT_URING_CMD	(1ULL << 9)	/* io_uring URING_CMD submission */
#define HIXL_FEAT_AUTH		(1ULL << 10)	/* SETUP's allowed peers and secret */
#define HIXL_FEAT_LOCAL_ONLY	(1ULL << 11)	/* REG_MEM's HIXL_REG_LOCAL_ONLY */
#define HIXL_FEAT_LISTEN_ANY	(1ULL << 12)	/* SETUP's HIXL_SETUP_LISTEN_ANY */
#define HIXL_FEAT_POLL		(1ULL << 13)	/* poll(2): EPOLLIN while notifications wait */
#define HIXL_FEAT_XFER_STATS	(1ULL << 16)	/* hixl_stats.xfer, LINK_STATS, ENGINES */
#define HIXL_FEAT_LOCAL		(1ULL << 17)	/* same-host links copy in the kernel:
						 * hixl_setup.transport, HIXL_LINK_STAT_LOCAL,
						 * hixl_xfer_stats.local_bytes */
#define HIXL_FEAT_LOOPBACK	(1ULL << 18)	/* SETUP on 127.0.0.0/8 or ::1 needs no
						 * RDMA device; such engines link to each
						 * other in the kernel (docs/abi.md) */
#define HIXL_FEAT_CANCEL_REVOKE	(1ULL << 19)	/* hixl_cancel.flags HIXL_CANCEL_REVOKE */
#define HIXL_FEAT_RAILS		(1ULL << 20)	/* SETUP's extra rails (HIXL_SETUP_RAILS,
						 * HIXL_SETUP_RAILS_AUTO), hixl_engine_stat.nr_rails */
#define HIXL_FEAT_RAIL_LINKS	(1ULL << 21)	/* a link between two engines with
						 * rails has one RC connection and
						 * region table per rail pair */
#define HIXL_FEAT_RAIL_STRIPE	(1ULL << 22)	/* a TRANSFER is striped across the rail
						 * links and fails over when one breaks;
						 * hixl_xfer_stats.rail_failovers,
						 * rail_repost_bytes (docs/abi.md) */
#define HIXL_FEAT_LINK_STATS_RAILS (1ULL << 23)	/* LINK_STATS lists rail links
						 * (HIXL_LINK_STATS_RAILS, hixl_link_stat.rail) */
#define HIXL_FEAT_STATS_RAILS	(1ULL << 24)	/* GET_STATS and ENGINES list engines'
						 * rails (HIXL_STATS_RAILS, HIXL_ENGINES_RAILS,
						 * struct hixl_rail_stat) */
#define HIXL_FEAT_LATENCY	(1ULL << 25)	/* TRANSFER latency histograms per
						 * engine and link (HIXL_LINK_STATS_LATENCY,
						 * HIXL_ENGINES_LATENCY, struct hixl_lat_hist) */
#define HIXL_FEAT_ENGINE_AUTH	(1ULL << 26)	/* ENGINES says whether an engine has a
						 * secret or allowed peers
						 * (HIXL_ENGINE_STAT_SECRET, _ALLOWED) */
#define HIXL_FEAT_PEER_REGIONS	(1ULL << 27)	/* HIXL_IOC_PEER_REGIONS */

/**
 * struct hixl_info - HIXL_IOC_GET_INFO argument
 * @flags:           in: must be 0
 * @abi_version:     out: HIXL_ABI_VERSION of the running module
 * @features:        out: HIXL_FEAT_* bits
 * @max_regions:     out: registrations allowed per process (4096; vendor: 256)
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

/*
 * hixl_reg_mem.type: HIXL's MemType.  An enum, not macros, so that
 * libhixl-user's API uses these very names and types (one spelling for C
 * and C++ callers); the struct field stays a __u32.
 */
enum hixl_mem_type {
	HIXL_MEM_HOST = 0,	/* user virtual memory of the calling process */
	HIXL_MEM_DEVICE = 1,	/* a dma-buf (GPU/NPU memory; udmabuf in tests) */
};

/*
 * hixl_reg_mem.flags.  With no flag a region is readable and writable both
 * locally and by peers.  HIXL_REG_READ_ONLY registers it for reading only:
 * a source of local RDMA WRITEs and of peers' RDMA READs, never written.
 * Read-only mappings (PROT_READ) must be registered with it (-EACCES
 * otherwise).  HIXL_REG_LOCAL_ONLY (HIXL's MemDesc.local_only) keeps the
 * region out of the table sent to peers: it serves as the local side of
 * this engine's transfers only, and a peer's descriptor naming it fails
 * as any unregistered range does (-ERANGE).
 */
#define HIXL_REG_READ_ONLY	(1U << 0)
#define HIXL_REG_LOCAL_ONLY	(1U << 1)

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
 * @nr_mrs:    out: fast-registration MRs made for the region on the engine's
 *             RDMA device (0 before HIXL_IOC_SETUP; made then)
 * @mr_page_size: out: page size of those MRs, bytes: @page_size capped by
 *             what the device supports (0 while @nr_mrs is 0)
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
	__u32 nr_mrs;
	__u32 reserved1;
	__u64 mr_page_size;
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
 * struct hixl_xfer_stats - data-path counters of an engine or of one link
 * @read_direct_bytes:  bytes of READ descriptors that completed, posted
 *                      directly (RDMA READ into a registration)
 * @read_direct_ops:    those descriptors
 * @read_staged_bytes:  bytes of READ descriptors that completed through the
 *                      staging buffers (small or unregistered local memory)
 * @read_staged_ops:    those descriptors
 * @write_direct_bytes: as @read_direct_bytes, for WRITE
 * @write_direct_ops:   as @read_direct_ops, for WRITE
 * @write_staged_bytes: as @read_staged_bytes, for WRITE
 * @write_staged_ops:   as @read_staged_ops, for WRITE
 * @errors:        TRANSFERs that failed other than by @timeouts or @cancels:
 *                 a descriptor refused (-ERANGE, -ENOENT, -EACCES, ...), a
 *                 work-completion error, a broken link; counted once per
 *                 TRANSFER (a failed half, direct or staged, of one)
 * @wc_errors:     work completions of transfer requests with an error
 *                 status other than a flush (the device's verdict, -EIO)
 * @timeouts:      TRANSFERs that ended with -ETIMEDOUT
 * @cancels:       TRANSFERs that ended with -ECANCELED (HIXL_IOC_CANCEL,
 *                 io_uring's cancelation, a fatal signal)
 * @link_resets:   links that broke while READY (peer gone, QP error,
 *                 timeout on the wire; not a local DISCONNECT)
 * @connects:      links made by CONNECT that became READY
 * @connect_failures: CONNECTs that failed after their link was made
 * @accepts:       links accepted from the listener that became READY
 * @connect_us_last: duration of the last successful CONNECT, microseconds
 *                 (from the call to the link being READY)
 * @connect_us_sum: sum of the durations of all @connects, microseconds:
 *                 the mean is @connect_us_sum / @connects
 * @local_bytes:   of the direct bytes above (READ and WRITE), those the
 *                 same-host path copied with the CPU instead of RDMA
 * @local_ops:     those descriptors
 * @rail_failovers: times a striped TRANSFER re-posted the unfinished
 *                 pieces of a rail link that broke under it on the other
 *                 rails (HIXL_FEAT_RAIL_STRIPE; counted on the primary
 *                 link; 0 from a module without the feature)
 * @rail_repost_bytes: the bytes those re-posts moved again
 * @reserved:      0
 *
 * Counters only grow (except @connect_us_last).  An engine's counters
 * include those of its links, open and closed; a link's are its own.
 * "Ops" are descriptors: a TRANSFER of 8 descriptors that all completed
 * directly adds 8 to @read_direct_ops or @write_direct_ops.  Bytes and ops
 * count descriptors of successful parts only: a TRANSFER's direct part is
 * counted when it completed, its staged part likewise.
 */
struct hixl_xfer_stats {
	__u64 read_direct_bytes;
	__u64 read_direct_ops;
	__u64 read_staged_bytes;
	__u64 read_staged_ops;
	__u64 write_direct_bytes;
	__u64 write_direct_ops;
	__u64 write_staged_bytes;
	__u64 write_staged_ops;
	__u64 errors;
	__u64 wc_errors;
	__u64 timeouts;
	__u64 cancels;
	__u64 link_resets;
	__u64 connects;
	__u64 connect_failures;
	__u64 accepts;
	__u64 connect_us_last;
	__u64 connect_us_sum;
	__u64 local_bytes;
	__u64 local_ops;
	__u64 rail_failovers;
	__u64 rail_repost_bytes;
	__u64 reserved[2];
};

/**
 * struct hixl_stats - HIXL_IOC_GET_STATS argument: counters of the engine
 * and of the process that owns it
 * @flags:          in: 0, or HIXL_STATS_RAILS (HIXL_FEAT_STATS_RAILS): one
 *                  struct hixl_rail_stat per rail of the engine to @rails;
 *                  other bits: -EINVAL
 * @nr_rails:       in: with HIXL_STATS_RAILS, the entries @rails holds,
 *                  0..HIXL_MAX_RAILS (-EINVAL above); without it, must be
 *                  0.  out: the rails the engine has (0 before SETUP and
 *                  for a loopback engine); min(in, out) entries are
 *                  written, rail 0 first, so a caller whose buffer is
 *                  smaller gets the first rails and the real count here
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
 * @mrs:            out: fast-registration MRs this engine holds
 * @notify_dropped: out: notifications dropped (a full queue) so far
 * @refused_peers:  out: connection requests refused because their source
 *                  address is not in SETUP's allowed peers
 * @auth_failures:  out: links refused or closed for the engine secret: a
 *                  peer that offered no proof where one is needed (or one
 *                  where we have no secret), a wrong proof, a message before
 *                  the proof, or no proof by the handshake deadline; on the
 *                  connecting side, an acceptor whose proof was wrong
 * @rails:          in: with HIXL_STATS_RAILS, a user pointer to @nr_rails
 *                  struct hixl_rail_stat (0 when @nr_rails is 0, -EINVAL
 *                  otherwise; -EFAULT when it cannot be written); without
 *                  it, must be 0.  out: as given
 * @xfer:           out: the engine's data-path counters (hixl_info.features
 *                  has HIXL_FEAT_XFER_STATS); in: ignored, but
 *                  @xfer.reserved must be 0
 */
#define HIXL_STATS_RAILS	(1U << 0)	/* hixl_stats.flags: the rail entries too */

struct hixl_stats {
	__u32 flags;
	__u32 nr_rails;
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
	__u64 mrs;
	__u64 notify_dropped;
	__u64 refused_peers;
	__u64 auth_failures;
	__u64 rails;
	struct hixl_xfer_stats xfer;
};

/* ---- engine setup ------------------------------------------------------------- */

/**
 * struct hixl_sockaddr - an IPv4 or IPv6 address and port
 * @family:   AF_INET (2) or AF_INET6 (10)
 * @port:     host byte order; 0: none
 * @scope_id: IPv6 scope (interface index) for link-local addresses, else 0
 * @addr:     the address in network byte order: IPv4 in addr[0..3], the
 *            rest 0; IPv6 in all 16 bytes
 * @reserved: must be 0
 */
struct hixl_sockaddr {
	__u16 family;
	__u16 port;
	__u32 scope_id;
	__u8 addr[16];
	__u64 reserved;
};

/* hixl_rail_stat.state */
#define HIXL_RAIL_STATE_NONE	0	/* not a rail: never written by the module (a
					 * zeroed entry past hixl_stats.nr_rails) */
#define HIXL_RAIL_STATE_UP	1	/* device there, a port active, and (rails
					 * 1..) a connection up for every link
					 * paired on it, or no link paired */
#define HIXL_RAIL_STATE_DOWN	2	/* device there, but no port of it active,
					 * or (rails 1..) links are paired on it
					 * and none has its connection up */
#define HIXL_RAIL_STATE_REMOVED	3	/* its RDMA device is gone (removed, not yet
					 * revived) or being removed */

/**
 * struct hixl_rail_stat - one rail of an engine, as HIXL_IOC_GET_STATS writes
 * it with HIXL_STATS_RAILS (HIXL_FEAT_STATS_RAILS)
 * @rail:      the rail's index: 0 is SETUP's @local and its device, 1.. the
 *             extra rails in SETUP's order
 * @state:     HIXL_RAIL_STATE_*
 * @addr:      the rail's local address (rail 0: SETUP's @local with its
 *             port; rails 1..: port 0)
 * @device:    its RDMA device's name, NUL-terminated (kept while the device
 *             is gone)
 * @numa_node: the device's NUMA node, -1 when not known or gone
 * @links:     links that use this rail: rail 0, the engine's links (as
 *             hixl_engine_stat.nr_links); rails 1.., links paired with
 *             their peer on it (both engines have the rail)
 * @links_up:  of those, the ones whose connection on this rail is ready
 *             (rail 0: the link; rails 1..: its rail link)
 * @reserved0: 0
 * @mrs:       fast-registration MRs of the engine's regions on this rail
 *             (hixl_stats.mrs is their sum)
 * @reserved:  0
 * @xfer:      the engine's counters of this rail, since SETUP, kept while
 *             links and rail links come and go and while the device is
 *             gone: every counter of the links of this rail (rail 0: the
 *             primary links, their staged and same-host bytes included;
 *             rail i: its rail links).  A striped TRANSFER counts each
 *             piece's bytes on the rail that moved it, and its
 *             descriptors (the _ops counters) and its result (@errors,
 *             @timeouts, @cancels) on rail 0, as LINK_STATS does.  Here
 *             @rail_failovers counts failovers AWAY from this rail (each
 *             time the failover work re-posted the unfinished pieces of
 *             this rail's broken link elsewhere) and @rail_repost_bytes the
 *             bytes re-posted ONTO this rail.  Summed over the rails, every
 *             counter equals the engine's @xfer but @connect_us_last and
 *             @rail_failovers (the engine counts one failover when two
 *             rails broke under it at once)
 */
struct hixl_rail_stat {
	__u32 rail;
	__u32 state;
	struct hixl_sockaddr addr;
	char device[64];
	__s32 numa_node;
	__u32 links;
	__u32 links_up;
	__u32 reserved0;
	__u64 mrs;
	__u64 reserved[4];
	struct hixl_xfer_stats xfer;
};

/* hixl_setup defaults, as HIXL documents them (seeds/003_HIXL-api.md) */
#define HIXL_DEFAULT_TRAFFIC_CLASS	132
#define HIXL_DEFAULT_SERVICE_LEVEL	4
#define HIXL_DEFAULT_POOL_BUFFERS	4
#define HIXL_DEFAULT_POOL_BUFFER_MB	8
#define HIXL_MAX_POOL_BUFFERS		256
#define HIXL_MAX_POOL_BUFFER_MB		1024

/* hixl_setup.flags */
#define HIXL_SETUP_ALLOWED_PEERS (1U << 0)	/* @allowed, @nr_allowed are given */
#define HIXL_SETUP_SECRET	(1U << 1)	/* @secret, @secret_len are given */
#define HIXL_SETUP_LISTEN_ANY	(1U << 2)	/* @local.port 0: listen on a port the
						 * kernel picks, returned in @local.port */
#define HIXL_SETUP_RAILS	(1U << 3)	/* @rails, @nr_rails are given */
#define HIXL_SETUP_RAILS_AUTO	(1U << 4)	/* every other RDMA device with an address
						 * of @local's family is a rail */

#define HIXL_MAX_RAILS		8	/* rails of an engine, @local's included */

#define HIXL_MAX_ALLOWED_PEERS	256	/* prefixes in hixl_setup.allowed */
#define HIXL_SECRET_MIN		16	/* bytes of hixl_setup.secret */
#define HIXL_SECRET_MAX		128

/**
 * struct hixl_peer_prefix - one entry of SETUP's allowed peers
 * @family:     AF_INET (2) or AF_INET6 (10)
 * @prefix_len: leading bits of @addr that must match: 0..32 (AF_INET) or
 *              0..128 (AF_INET6); 0 matches every address of the family
 * @reserved0:  must be 0
 * @reserved1:  must be 0
 * @addr:       network byte order: IPv4 in addr[0..3], the rest 0; IPv6 in
 *              all 16 bytes.  Bits past @prefix_len must be 0 (write
 *              10.0.0.0/8, not 10.1.2.3/8)
 *
 * An IPv4 entry also matches the IPv4-mapped IPv6 address (::ffff:a.b.c.d)
 * of a peer that reaches an IPv6 listener over IPv4.
 */
struct hixl_peer_prefix {
	__u16 family;
	__u8 prefix_len;
	__u8 reserved0;
	__u32 reserved1;
	__u8 addr[16];
};

/**
 * struct hixl_setup - HIXL_IOC_SETUP argument (HIXL Initialize)
 * @local:          in: the engine's local address, which is also its name
 *                  for peers.  Its RDMA device (found with RDMA CM in the
 *                  caller's network namespace) is the device every MR and QP
 *                  of the engine lives on.  Port 0: client only; port > 0:
 *                  the engine also listens there for peers' CONNECTs.  With
 *                  HIXL_SETUP_LISTEN_ANY (port must be 0): the engine listens
 *                  on a free port RDMA CM picks, and @local.port is set to it
 *                  on return (out)
 * @flags:          in: HIXL_SETUP_* bits; others must be 0
 * @traffic_class:  in: RDMA traffic class, 0..255, a multiple of 4 (132)
 * @service_level:  in: RDMA service level, 0..7 (4)
 * @pool_buffers:   in: staging pool, number of buffers (4); 0 with
 *                  @pool_buffer_mb 0 turns the pool off
 * @pool_buffer_mb: in: staging buffer size, MiB (8)
 * @transport:      in: HIXL_TRANSPORT_AUTO (0: a link whose two ends are
 *                  engines of this same kernel copies host registrations
 *                  with the CPU, anything else over RDMA),
 *                  HIXL_TRANSPORT_RDMA (always RDMA: this engine neither
 *                  offers nor accepts the same-host pairing) or
 *                  HIXL_TRANSPORT_LOCAL (as AUTO, but a TRANSFER that
 *                  cannot take the local copy fails with -EOPNOTSUPP);
 *                  anything else is -EINVAL (docs/protocol.md, "Same-host
 *                  links")
 * @device:         out: name of the RDMA device, NUL-terminated
 * @page_size_cap:  out: MR page sizes the device supports (bit n: 2^n bytes)
 * @max_mr_pages:   out: pages one fast-registration MR can hold
 * @reserved1:      in: must be 0
 * @allowed:        in: with HIXL_SETUP_ALLOWED_PEERS, a user pointer to
 *                  @nr_allowed struct hixl_peer_prefix: only a connection
 *                  request whose source address matches one of them is
 *                  accepted (others are rejected before any QP is made and
 *                  their CONNECT fails with -EACCES).  Without the flag,
 *                  must be 0: anyone may connect.  Not applied to this
 *                  engine's own CONNECTs
 * @nr_allowed:     in: with HIXL_SETUP_ALLOWED_PEERS, 1..HIXL_MAX_ALLOWED_PEERS;
 *                  without it, must be 0
 * @secret_len:     in: with HIXL_SETUP_SECRET, HIXL_SECRET_MIN..HIXL_SECRET_MAX
 *                  bytes; without it, must be 0
 * @secret:         in: with HIXL_SETUP_SECRET, a user pointer to the engine
 *                  secret: every link, accepted or connected, must then
 *                  prove the same secret (a mutual HMAC-SHA256 challenge,
 *                  docs/protocol.md) before either side announces a region;
 *                  a link to or from an engine without it, or with another,
 *                  is refused (-EACCES).  Without the flag, must be 0.  The
 *                  kernel keeps only the keyed hash, never shows it, and
 *                  wipes it when the engine goes
 * @reserved:       in: must be 0
 * @rails:          in: with HIXL_SETUP_RAILS, a user pointer to @nr_rails
 *                  struct hixl_sockaddr: the engine's extra rails, one local
 *                  address per further RDMA device, port 0 (HIXL_FEAT_RAILS;
 *                  docs/abi.md, "Rails").  Without the flag, must be 0
 * @nr_rails:       in: with HIXL_SETUP_RAILS, 1..HIXL_MAX_RAILS - 1; without
 *                  it, must be 0.  out: the rails the engine has, @local's
 *                  included (1 without extra rails; 0 for a loopback engine)
 * @reserved2:      in: must be 0
 *
 * Both options are off by default; hixl_info.features has HIXL_FEAT_AUTH
 * when the module knows them (an older one refuses them: -EINVAL).
 */
/* hixl_setup.transport */
#define HIXL_TRANSPORT_AUTO	0
#define HIXL_TRANSPORT_RDMA	1
#define HIXL_TRANSPORT_LOCAL	2

struct hixl_setup {
	struct hixl_sockaddr local;
	__u32 flags;
	__u32 traffic_class;
	__u32 service_level;
	__u32 pool_buffers;
	__u32 pool_buffer_mb;
	__u32 transport;
	char device[64];
	__u64 page_size_cap;
	__u32 max_mr_pages;
	__u32 reserved1;
	__u64 allowed;
	__u32 nr_allowed;
	__u32 secret_len;
	__u64 secret;
	__u64 reserved[1];
	__u64 rails;
	__u32 nr_rails;
	__u32 reserved2;
};

/* ---- links ---------------------------------------------------------------------- */

/**
 * struct hixl_connect - HIXL_IOC_CONNECT / HIXL_IOC_DISCONNECT argument
 * (HIXL Connect / Disconnect)
 * @remote:     in: the peer engine's name: its SETUP address and port
 * @timeout_ms: in: CONNECT: address and route resolution plus connection
 *              and region-table exchange must finish within this, ms, > 0;
 *              DISCONNECT: time allowed for a clean disconnect, ms
 * @flags:      in: must be 0
 * @reserved:   in: must be 0
 */
struct hixl_connect {
	struct hixl_sockaddr remote;
	__u32 timeout_ms;
	__u32 flags;
	__u64 reserved[2];
};

/* ---- transfers ---------------------------------------------------------------- */

/* hixl_transfer.op: HIXL's TransferOp (an enum for the reason above) */
enum hixl_op {
	HIXL_OP_READ = 0,	/* remote -> local (RDMA READ) */
	HIXL_OP_WRITE = 1,	/* local -> remote (RDMA WRITE) */
};

/**
 * struct hixl_op_desc - one transfer descriptor (HIXL TransferOpDesc)
 * @local_addr:  an address inside a registration of this engine
 * @remote_addr: an address inside a registration of the peer
 * @len:         bytes, > 0; both ranges must lie inside one registration each
 */
struct hixl_op_desc {
	__u64 local_addr;
	__u64 remote_addr;
	__u64 len;
};

#define HIXL_MAX_DESCS		65536	/* descriptors per TRANSFER */
/*
 * The longest timeout a TRANSFER may ask for, ms (one hour); more is
 * -EINVAL.  A batch waits in kernel queues shared with the engine's other
 * batches until it ends, so "forever" is not offered: pass this instead.
 */
#define HIXL_MAX_TIMEOUT_MS	3600000

/**
 * struct hixl_transfer - HIXL_IOC_TRANSFER argument (HIXL TransferSync)
 * @remote:     in: the peer engine's name (a connected link)
 * @op:         in: HIXL_OP_READ or HIXL_OP_WRITE
 * @flags:      in: must be 0
 * @descs:      in: user pointer to @count struct hixl_op_desc
 * @count:      in: 1 .. HIXL_MAX_DESCS
 * @timeout_ms: in: the whole batch must complete within this, ms,
 *              1 .. HIXL_MAX_TIMEOUT_MS
 * @failed:     out: on a descriptor error (-EINVAL, -EFAULT, -ERANGE,
 *              -EACCES, -ENOENT) or an RDMA error, the index of the first
 *              failing descriptor; on -ETIMEDOUT or -ECANCELED the first
 *              descriptor not known to be complete; otherwise @count
 * @reserved0:  in: must be 0
 * @tag:        in: any value; HIXL_IOC_CANCEL with the same non-zero tag
 *              cancels the batch while it runs (0: not cancelable by tag)
 * @reserved:   in: must be 0
 */
struct hixl_transfer {
	struct hixl_sockaddr remote;
	__u32 op;
	__u32 flags;
	__u64 descs;
	__u32 count;
	__u32 timeout_ms;
	__u32 failed;
	__u32 reserved0;
	__u64 tag;
	__u64 reserved;
};

/**
 * struct hixl_cancel - HIXL_IOC_CANCEL argument
 * @tag:       in: non-zero; every TRANSFER of this engine still running with
 *             this tag ends with -ECANCELED: work requests not yet posted
 *             are dropped, posted ones are waited for (the link stays up)
 * @flags:     in: 0 or HIXL_CANCEL_REVOKE (HIXL_FEAT_CANCEL_REVOKE; an
 *             older module refuses it: -EINVAL)
 * @count:     out: batches cancelled
 * @broken:    out: with HIXL_CANCEL_REVOKE, links this CANCEL broke to
 *             revoke requests on the wire (0: nothing was on the wire, no
 *             link was touched); 0 without the flag
 * @reserved0: in: must be 0
 * @reserved:  in: must be 0
 *
 * HIXL_CANCEL_REVOKE: when CANCEL returns 0, no RDMA READ or WRITE of the
 * cancelled batches can read or write the caller's memory any more: a link
 * with such requests on the wire has its QP moved to the error state and
 * CANCEL waits (at most HIXL_REVOKE_FLUSH_MS) until every one of them has
 * flushed.  That link is broken for everyone: its other batches end with
 * -ECONNABORTED (retriable: CONNECT again, or let the library's AutoConnect
 * do it), later calls get -ECONNABORTED until the link is replaced.  What
 * the peer may have seen: docs/abi.md, "Revoking cancel".
 */
#define HIXL_CANCEL_REVOKE	(1U << 0)
#define HIXL_CANCEL_FLAGS	HIXL_CANCEL_REVOKE
#define HIXL_REVOKE_FLUSH_MS	5000	/* CANCEL's bound on the flush, ms */
struct hixl_cancel {
	__u64 tag;
	__u32 flags;
	__u32 count;
	__u32 broken;
	__u32 reserved0;
	__u64 reserved[1];
};

/* ---- notifications ------------------------------------------------------------- */

#define HIXL_NOTIFY_MAX_NAME	1024	/* bytes */
#define HIXL_NOTIFY_MAX_MSG	1024	/* bytes */
#define HIXL_NOTIFY_MAX_PENDING	4096	/* per link, at the receiver */

/**
 * struct hixl_send_notify - HIXL_IOC_SEND_NOTIFY argument (HIXL SendNotify)
 * @remote:     in: the peer engine's name (a connected link)
 * @name:       in: user pointer to the notification's name
 * @msg:        in: user pointer to its message
 * @name_len:   in: bytes, 1 .. HIXL_NOTIFY_MAX_NAME
 * @msg_len:    in: bytes, 0 .. HIXL_NOTIFY_MAX_MSG
 * @flags:      in: must be 0
 * @reserved0:  in: must be 0
 * @reserved:   in: must be 0
 *
 * Returns once the peer's adapter has the notification in its receive
 * queue.  A receiver whose queue for this link already holds
 * HIXL_NOTIFY_MAX_PENDING counts it as dropped and reports that in
 * GET_NOTIFIES and GET_STATS.
 */
struct hixl_send_notify {
	struct hixl_sockaddr remote;
	__u64 name;
	__u64 msg;
	__u32 name_len;
	__u32 msg_len;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

/**
 * struct hixl_notify - one received notification, as GET_NOTIFIES writes it
 * @from:     the sending engine's name
 * @name_len: bytes of @name used
 * @msg_len:  bytes of @msg used
 * @name:     the name (not NUL-terminated)
 * @msg:      the message (not NUL-terminated)
 */
struct hixl_notify {
	struct hixl_sockaddr from;
	__u32 name_len;
	__u32 msg_len;
	__u8 name[HIXL_NOTIFY_MAX_NAME];
	__u8 msg[HIXL_NOTIFY_MAX_MSG];
};

/**
 * struct hixl_get_notifies - HIXL_IOC_GET_NOTIFIES argument (HIXL GetNotifies)
 * @buf:       in: user pointer to an array of @max struct hixl_notify
 * @max:       in: entries @buf holds, >= 1
 * @count:     out: entries written, oldest first; the rest stay queued
 * @dropped:   out: notifications dropped since the last GET_NOTIFIES because
 *             a link's queue was full
 * @flags:     in: must be 0
 * @reserved0: in: must be 0
 * @reserved:  in: must be 0
 */
struct hixl_get_notifies {
	__u64 buf;
	__u32 max;
	__u32 count;
	__u64 dropped;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

/* ---- counters of links and of every engine ------------------------------------- */

/* hixl_link_stat.state */
#define HIXL_LINK_STATE_CONNECTING	0
#define HIXL_LINK_STATE_READY		1
#define HIXL_LINK_STATE_ERROR		2	/* broken: only DISCONNECT is left */
#define HIXL_LINK_STATE_CLOSED		3	/* being torn down */

/* hixl_link_stat.flags */
#define HIXL_LINK_STAT_ACTIVE	(1U << 0)	/* made by our CONNECT (else accepted) */
#define HIXL_LINK_STAT_NAMED	(1U << 1)	/* @peer is known (an accepted link
						 * learns it from the peer's HELLO) */
#define HIXL_LINK_STAT_LOCAL	(1U << 2)	/* paired with an engine of this
						 * kernel: host transfers are CPU copies */
#define HIXL_LINK_STAT_NO_LINK	(1U << 3)	/* a rail entry whose rail has no
						 * connection now (being re-made):
						 * @state ERROR, @err -ENOTCONN,
						 * counters 0 */

/**
 * struct hixl_lat_hist - how long TRANSFERs took: a histogram of an engine
 * or of one link (HIXL_FEAT_LATENCY)
 * @count:   TRANSFERs that succeeded
 * @sum_ns:  the sum of their durations, nanoseconds (from the call, or
 *           the io_uring submission, to the result: what the
 *           hixl_xfer_complete tracepoint reports as ns)
 * @bucket:  TRANSFERs by duration, not cumulative: @bucket[i], i <
 *           HIXL_LAT_BUCKETS - 1, counts those that took more than
 *           HIXL_LAT_BOUND_NS(i - 1) and at most HIXL_LAT_BOUND_NS(i)
 *           nanoseconds (@bucket[0]: at most 1 us); the last counts those
 *           above HIXL_LAT_BOUND_NS(HIXL_LAT_BUCKETS - 2), about 67 s
 * @reserved: 0
 *
 * Log2 buckets from 1 us to 2^26 us, fixed by the ABI so that histograms
 * of different engines and hosts add up.  Only TRANSFERs that succeeded
 * are counted (a failed one: hixl_xfer_stats.errors, timeouts, cancels),
 * once each, on the engine and on the link it named (a striped TRANSFER:
 * its primary link; a rail entry of LINK_STATS has zeros).  An engine's
 * histogram includes its closed links'.  Each field is its own atomic
 * counter: a reader racing a completion may find it in @count before
 * its @bucket (sum the buckets for a consistent count).
 */
#define HIXL_LAT_BUCKETS	28
#define HIXL_LAT_BOUND_NS(i)	(1000ULL << (i))	/* upper bound of bucket i */

struct hixl_lat_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 bucket[HIXL_LAT_BUCKETS];
	__u64 reserved[2];
};

/**
 * struct hixl_link_stat - one link, as HIXL_IOC_LINK_STATS writes it
 * @peer:  the peer engine's name (0s until known, see @flags)
 * @state: HIXL_LINK_STATE_*
 * @flags: HIXL_LINK_STAT_* bits
 * @err:   why the link broke (-errno), or 0
 * @rail:  0: a link (the peer engine's primary link, rail 0); 1..: the
 *         connection of rail @rail of the link written just before it
 *         (only with HIXL_LINK_STATS_RAILS); @peer is then the peer's
 *         address of that rail and @xfer that rail's own counters, since
 *         the rail's connection was made (the engine's counters include
 *         them; the link's own entry counts what went over rail 0)
 * @xfer:  the link's counters
 */
struct hixl_link_stat {
	struct hixl_sockaddr peer;
	__u32 state;
	__u32 flags;
	__s32 err;
	__u32 rail;
	struct hixl_xfer_stats xfer;
};

#define HIXL_MAX_STAT_ENTRIES	65536	/* entries of one LINK_STATS or ENGINES */

/**
 * struct hixl_link_stats - HIXL_IOC_LINK_STATS argument: the links of an engine
 * @engine:    in: 0: this engine; else an engine's id from HIXL_IOC_ENGINES
 *             (-ENOENT when it is gone or not visible to the caller)
 * @buf:       in: user pointer to @count struct hixl_link_stat (0 when
 *             @count is 0)
 * @count:     in: entries @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:     out: links the engine has (with HIXL_LINK_STATS_RAILS: and
 *             their rail entries); min(@count, @total) entries are
 *             written, in the engine's link order (oldest first)
 * @flags:     in: 0, or HIXL_LINK_STATS_RAILS: after each link, one entry
 *             per further rail paired with its peer (rail 1 first;
 *             HIXL_FEAT_LINK_STATS_RAILS); HIXL_LINK_STATS_LATENCY
 *             (HIXL_FEAT_LATENCY): each entry's latency histogram to
 *             @lat; other bits: -EINVAL
 * @reserved0: in: must be 0
 * @lat:       in: with HIXL_LINK_STATS_LATENCY, a user pointer to @count
 *             struct hixl_lat_hist (0 when @count is 0): @lat[k] is the
 *             histogram of entry k of @buf; without the flag, must be 0
 * @reserved:  in: must be 0
 *
 * Needs no SETUP: any open /dev/hixl may ask (an engine without links has
 * @total 0).  Peers' names are shown for any visible engine; nothing of
 * its memory is.
 */
#define HIXL_LINK_STATS_RAILS	(1U << 0)	/* hixl_link_stats.flags: rail entries too */
#define HIXL_LINK_STATS_LATENCY	(1U << 1)	/* hixl_link_stats.flags: histograms to @lat */

struct hixl_link_stats {
	__u64 engine;
	__u64 buf;
	__u32 count;
	__u32 total;
	__u32 flags;
	__u32 reserved0;
	__u64 lat;
	__u64 reserved[1];
};

/* hixl_engine_stat.flags */
#define HIXL_ENGINE_STAT_SETUP	(1U << 0)	/* SETUP done: @local and @device are set */
#define HIXL_ENGINE_STAT_SELF	(1U << 1)	/* the engine of the file that asked */
#define HIXL_ENGINE_STAT_BUSY	(1U << 2)	/* its device side was being changed:
						 * @local and @device are left 0 */
#define HIXL_ENGINE_STAT_SECRET	(1U << 3)	/* set up with an engine secret
						 * (HIXL_SETUP_SECRET; HIXL_FEAT_ENGINE_AUTH) */
#define HIXL_ENGINE_STAT_ALLOWED (1U << 4)	/* set up with allowed peers
						 * (HIXL_SETUP_ALLOWED_PEERS; HIXL_FEAT_ENGINE_AUTH) */

/**
 * struct hixl_engine_stat - one engine, as HIXL_IOC_ENGINES writes it
 * @id:         the engine's number (debugfs, tracepoints, LINK_STATS)
 * @pid:        its owner's process id in the caller's pid namespace
 * @flags:      HIXL_ENGINE_STAT_* bits
 * @nr_links:   its links
 * @nr_rails:   its rails (SETUP's @nr_rails out; 0 before SETUP, and for
 *              a module without HIXL_FEAT_RAILS)
 * @local:      its name: SETUP's local address and port
 * @device:     its RDMA device, NUL-terminated
 * @regions:    its live registrations
 * @host_bytes: host bytes they cover
 * @device_bytes: device bytes they cover
 * @reserved:   0
 * @xfer:       its data-path counters, as GET_STATS's @xfer
 *
 * Counters, names and sizes only: no address of the engine's memory.
 */
struct hixl_engine_stat {
	__u64 id;
	__u32 pid;
	__u32 flags;
	__u32 nr_links;
	__u32 nr_rails;
	struct hixl_sockaddr local;
	char device[64];
	__u64 regions;
	__u64 host_bytes;
	__u64 device_bytes;
	__u64 reserved[3];
	struct hixl_xfer_stats xfer;
};

/**
 * struct hixl_engines - HIXL_IOC_ENGINES argument: every engine on the host
 * @buf:       in: user pointer to @count struct hixl_engine_stat (0 when
 *             @count is 0)
 * @count:     in: entries @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:     out: engines visible to the caller; min(@count, @total)
 *             entries are written, oldest engine first
 * @flags:     in: 0, or HIXL_ENGINES_RAILS (HIXL_FEAT_STATS_RAILS): each
 *             engine's rails to @rails too; HIXL_ENGINES_LATENCY
 *             (HIXL_FEAT_LATENCY): each engine's latency histogram to
 *             @lat; other bits: -EINVAL
 * @reserved0: in: must be 0
 * @rails:     in: with HIXL_ENGINES_RAILS, a user pointer to @count *
 *             HIXL_MAX_RAILS struct hixl_rail_stat (0 when @count is 0;
 *             @count at most HIXL_MAX_RAIL_STAT_ENGINES): entry k of @buf
 *             has its rails at @rails[k * HIXL_MAX_RAILS], as GET_STATS's
 *             HIXL_STATS_RAILS writes them, hixl_engine_stat.nr_rails of
 *             them (0 for an engine whose device side was being changed,
 *             HIXL_ENGINE_STAT_BUSY), the rest zeroed (HIXL_RAIL_STATE_NONE);
 *             without the flag, must be 0
 * @lat:       in: with HIXL_ENGINES_LATENCY, a user pointer to @count
 *             struct hixl_lat_hist (0 when @count is 0): @lat[k] is the
 *             histogram of entry k of @buf; without the flag, must be 0
 *
 * Any open /dev/hixl may ask, without SETUP: the device node is mode 0660,
 * group hixl, so this is what a member of that group sees of every engine
 * (hixlctl stats).  An engine is visible when its owner's process is
 * visible in the caller's pid namespace (a container sees its own).
 */
#define HIXL_ENGINES_RAILS		(1U << 0)	/* hixl_engines.flags: rails too */
#define HIXL_ENGINES_LATENCY		(1U << 1)	/* hixl_engines.flags: histograms */
#define HIXL_MAX_RAIL_STAT_ENGINES	1024	/* @count with HIXL_ENGINES_RAILS */

struct hixl_engines {
	__u64 buf;
	__u32 count;
	__u32 total;
	__u32 flags;
	__u32 reserved0;
	__u64 rails;
	__u64 lat;
};

/* hixl_peer_region.flags */
#define HIXL_PEER_REGION_WRITABLE	(1U << 0)	/* the peer allows WRITEs to it */
#define HIXL_PEER_REGION_DEVICE		(1U << 1)	/* device memory (a dma-buf) */

/**
 * struct hixl_peer_region - one of a linked peer's registrations
 * @addr:     first byte, in the peer's address space (TRANSFER's remote_addr)
 * @len:      bytes
 * @seq:      the order the peer made its registrations in: lower is older
 *            (not contiguous; comparable only within one link)
 * @flags:    HIXL_PEER_REGION_*
 * @reserved: 0
 */
struct hixl_peer_region {
	__u64 addr;
	__u64 len;
	__u64 seq;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct hixl_peer_regions - HIXL_IOC_PEER_REGIONS argument: what a linked
 * peer has registered, as this engine's link knows it (HIXL_FEAT_PEER_REGIONS)
 * @remote:    in: the peer's name, as CONNECT's
 * @buf:       in: user pointer to @count struct hixl_peer_region (0 when
 *             @count is 0)
 * @count:     in: entries @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:     out: the peer's usable registrations; min(@count, @total)
 *             entries are written, oldest registration first
 * @flags:     in: must be 0
 * @reserved0: in: must be 0
 * @reserved:  in: must be 0
 *
 * The table is the one TRANSFER checks remote ranges against: the peer
 * sends it at CONNECT and each registration and deregistration after, so
 * a registration the peer made a moment ago may be missing.  Mooncake's
 * get_first_buffer_address() is entry 0.  Errors: -EINVAL a bad field,
 * -EAFNOSUPPORT @remote of an unknown family,
 * -EBADFD no SETUP, -EPERM not the engine's owner, -ENOTCONN no link to
 * @remote, -EAGAIN the link is still connecting, the link's error when it
 * broke, -ENOMEM, -EFAULT.
 */
struct hixl_peer_regions {
	struct hixl_sockaddr remote;
	__u64 buf;
	__u32 count;
	__u32 total;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

/*
 * Waiting for notifications (HIXL_FEAT_POLL): /dev/hixl is pollable.
 * poll(2), select(2), epoll(7) and io_uring's IORING_OP_POLL_ADD report
 * EPOLLIN | EPOLLRDNORM on an engine's file while at least one received
 * notification is queued on it, and nothing else (no EPOLLOUT: commands
 * never wait for room).  Level-triggered: it stays readable until
 * GET_NOTIFIES has taken every queued notification; each notification
 * queued wakes the waiters.  A module without HIXL_FEAT_POLL reports the
 * default mask (always readable and writable): check the bit first.
 */

/*
 * 0xB9: a type Documentation/userspace-api/ioctl/ioctl-number.rst lists for
 * no driver (0xB8 is mshv and Marvell DPI, 0xBA liveupdate); 'H', which
 * hixl used before ABI 2, is hiddev, hidraw, mei and ALSA's.
 */
#define HIXL_IOC_MAGIC		0xB9
#define HIXL_IOC_NR_GET_INFO	0x00
#define HIXL_IOC_NR_REG_MEM	0x01
#define HIXL_IOC_NR_DEREG_MEM	0x02
#define HIXL_IOC_NR_GET_STATS	0x03
#define HIXL_IOC_NR_SETUP	0x04
#define HIXL_IOC_NR_CONNECT	0x05
#define HIXL_IOC_NR_DISCONNECT	0x06
#define HIXL_IOC_NR_TRANSFER	0x07
#define HIXL_IOC_NR_SEND_NOTIFY	0x08
#define HIXL_IOC_NR_GET_NOTIFIES	0x09
#define HIXL_IOC_NR_CANCEL	0x0a
#define HIXL_IOC_NR_LINK_STATS	0x10
#define HIXL_IOC_NR_ENGINES	0x11
#define HIXL_IOC_NR_PEER_REGIONS	0x12

/*
 * The size of each command's struct in its first ABI: a caller's struct may
 * be larger (newer) or smaller (older) than the module's, never smaller
 * than this.
 */
#define HIXL_INFO_SIZE_VER0		128
#define HIXL_REG_MEM_SIZE_VER0		80
#define HIXL_DEREG_MEM_SIZE_VER0	32
#define HIXL_STATS_SIZE_VER0		128
#define HIXL_SETUP_SIZE_VER0		168
#define HIXL_CONNECT_SIZE_VER0		56
#define HIXL_TRANSFER_SIZE_VER0		80
#define HIXL_SEND_NOTIFY_SIZE_VER0	80
#define HIXL_GET_NOTIFIES_SIZE_VER0	48
#define HIXL_CANCEL_SIZE_VER0		32
#define HIXL_LINK_STATS_SIZE_VER0	48
#define HIXL_ENGINES_SIZE_VER0		40
#define HIXL_PEER_REGIONS_SIZE_VER0	72

#define HIXL_IOC_GET_INFO	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info)
#define HIXL_IOC_REG_MEM	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_REG_MEM, struct hixl_reg_mem)
#define HIXL_IOC_DEREG_MEM	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_DEREG_MEM, struct hixl_dereg_mem)
#define HIXL_IOC_GET_STATS	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_STATS, struct hixl_stats)
#define HIXL_IOC_SETUP		_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_SETUP, struct hixl_setup)
#define HIXL_IOC_CONNECT	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_CONNECT, struct hixl_connect)
#define HIXL_IOC_DISCONNECT	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_DISCONNECT, struct hixl_connect)
#define HIXL_IOC_TRANSFER	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_TRANSFER, struct hixl_transfer)
#define HIXL_IOC_SEND_NOTIFY	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_SEND_NOTIFY, struct hixl_send_notify)
#define HIXL_IOC_GET_NOTIFIES	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_NOTIFIES, struct hixl_get_notifies)
#define HIXL_IOC_CANCEL		_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_CANCEL, struct hixl_cancel)
#define HIXL_IOC_LINK_STATS	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_LINK_STATS, struct hixl_link_stats)
#define HIXL_IOC_ENGINES	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_ENGINES, struct hixl_engines)
#define HIXL_IOC_PEER_REGIONS	_IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_PEER_REGIONS, \
				      struct hixl_peer_regions)

/* ---- io_uring passthrough (IORING_OP_URING_CMD) ---------------------------------- */

/*
 * The data path is also submitted through io_uring (model: NVMe's
 * /dev/ng* char devices and ublk): an SQE with opcode IORING_OP_URING_CMD
 * on an open /dev/hixl, cmd_op one of
 *
 *   HIXL_IOC_TRANSFER     asynchronous: its CQE arrives when the batch ends
 *   HIXL_IOC_SEND_NOTIFY  runs in io_uring's worker threads, then completes
 *   HIXL_IOC_CANCEL       completes at once; CQE res = batches cancelled
 *
 * Every other hixl command number is -EOPNOTSUPP (the control path stays on
 * ioctl), any other number -ENOTTY; sqe->uring_cmd_flags must be 0.
 *
 * The argument: on a ring created with IORING_SETUP_SQE128 it is the
 * command's struct itself, at sqe->cmd (80 bytes; the bytes after the struct
 * must be 0).  On a ring with 64-byte SQEs, sqe->cmd (16 bytes) holds a
 * struct hixl_uring_ptr that points to the struct.  Either way the struct
 * is read once, at submission, and may be reused as soon as
 * io_uring_submit() returns; a command that then waits for io_uring's
 * worker threads runs as it was read.  (An SQE with IOSQE_ASYNC, or one
 * that waits behind IOSQE_IO_LINK or IOSQE_IO_DRAIN, is first issued
 * later, by io_uring: keep its struct until its CQE.)  What the struct
 * points to - TRANSFER's descriptors, SEND_NOTIFY's name and message - is
 * read when the command runs: keep it until the CQE.  Out fields are not
 * written back.
 *
 * The CQE: res is 0 or -errno, as the ioctl would return (TRANSFER: also
 * -ETIMEDOUT when @timeout_ms passed, -ECANCELED when cancelled by CANCEL,
 * by io_uring at ring exit, or by the process being killed; any command:
 * -EBUSY when 65536 commands of the engine wait for io_uring's worker
 * threads already, -ENOMEM when a command that must wait cannot be kept).
 * On a ring created with IORING_SETUP_CQE32, big_cqe[0] is what the ioctl
 * writes to hixl_transfer.failed: @count on success, else the failing
 * descriptor.
 */

/**
 * struct hixl_uring_ptr - sqe->cmd on a ring with 64-byte SQEs
 * @addr:     user pointer to the command's argument struct
 * @len:      its size in bytes, exactly _IOC_SIZE(cmd_op) (the caller's
 *            struct: see the size rule at the top of this file)
 * @reserved: must be 0
 */
struct hixl_uring_ptr {
	__u64 addr;
	__u32 len;
	__u32 reserved;
};

#endif /* _UAPI_HIXL_H */
