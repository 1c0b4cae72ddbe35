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

#include <stddef.h>
#include <stdint.h>
#include <hixl/uapi.h>
#include <hixl/physmem.h>
#include <hixl/prof.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header: the library it was released with.  The
 * Makefile reads them from here (one place).  The library's soname changes
 * with an incompatible ABI change (libhixl-user.so.1 since 0.2.0); within
 * one soname symbols are versioned (HIXL_0.1, HIXL_0.2, ...).
 */
#define HIXL_VERSION_MAJOR	0
#define HIXL_VERSION_MINOR	3
#define HIXL_VERSION_PATCH	0
/* one number to compare: HIXL_VERSION_NUM(0, 3, 0) == 0x000300 */
#define HIXL_VERSION_NUM(major, minor, patch)	(((major) << 16) | ((minor) << 8) | (patch))
#define HIXL_VERSION	HIXL_VERSION_NUM(HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR, \
					 HIXL_VERSION_PATCH)

/**
 * hixl_version() - the running library's version string, e.g. "0.3.0"
 *
 * Return: a static string; never NULL.
 */
const char *hixl_version(void);

/**
 * hixl_version_check() - may a program built against @major.@minor use the
 * running library?
 * @major: HIXL_VERSION_MAJOR the program was built with
 * @minor: HIXL_VERSION_MINOR the program was built with
 *
 * HIXL_VERSION_CHECK() passes the header's values: call it once at start
 * to fail clearly instead of at the first missing behaviour.  As liburing's
 * io_uring_check_version(), but returning 0/-errno like the rest of the API.
 *
 * Return: 0 when the running library has the same major version and a
 * minor version >= @minor; -EPROTO otherwise (an older library, or another
 * major version: the soname should have prevented that).
 */
int hixl_version_check(int major, int minor);
#define HIXL_VERSION_CHECK()	hixl_version_check(HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR)

/**
 * hixl_dev_open() - open the hixl device
 * @path: device node, or NULL for HIXL_DEVICE_PATH ("/dev/hixl")
 *
 * The descriptor is opened O_RDWR | O_CLOEXEC.  One open descriptor is one
 * engine in the kernel.
 *
 * open(2)'s errors are turned into the cause, so that
 * hixl_status_from_errno() can tell them from a bad argument (the module
 * returns ENOENT and EACCES for other things: a range not registered, a
 * write into a read-only region):
 *
 * Return: a file descriptor (>= 0) on success;
 *  -ENOPKG  open(2) said ENOENT, ENXIO or ENODEV: no node, or no driver
 *           behind it - hixl.ko is not loaded (or udev has not made the
 *           node yet) (HIXL_NO_MODULE);
 *  -EPERM   open(2) said EACCES or EPERM: the caller may not open it - not
 *           in the group hixl, which the udev rule gives the node (see the
 *           README) (HIXL_NO_PERMISSION);
 *  any other -errno of open(2).
 */
int hixl_dev_open(const char *path);

/**
 * hixl_dev_get_info() - ABI version, feature mask and limits of the module
 * @fd:   descriptor from hixl_dev_open()
 * @info: filled on success; its previous contents are ignored
 *
 * Wraps HIXL_IOC_GET_INFO (uapi/rdma/hixl.h).
 *
 * Return: 0 on success;
 *  -EBADF if @fd is not open; -ENOTTY if @fd is not /dev/hixl;
 *  -EINVAL if the module rejected the request (a module too old for this
 *  library's ABI); -EPROTO if the module answers with another
 *  HIXL_ABI_VERSION than this library was built for (@info is filled).
 */
int hixl_dev_get_info(int fd, struct hixl_info *info);

/**
 * hixl_dev_uring_probe() - whether io_uring URING_CMDs work on a descriptor
 * @fd: descriptor from hixl_dev_open() (it need not be set up as an engine)
 *
 * Makes the check hixl_engine_init() makes to choose the io_uring path of
 * asynchronous transfers, on a ring of its own that it closes again:
 * HIXL_FEAT_URING_CMD in GET_INFO's features, an IORING_SETUP_SQE128 |
 * IORING_SETUP_CQE32 ring, and a first URING_CMD (a CANCEL of a tag no
 * request has).  For preflight tools (hixlctl check); engines need not call it.
 *
 * Return: 0 when URING_CMDs work on @fd;
 *  -EOPNOTSUPP when the module does not offer them (no HIXL_FEAT_URING_CMD),
 *  or the kernel or module rejects the command;
 *  a -errno of hixl_dev_get_info() (-EPROTO: another ABI version);
 *  a -errno of io_uring_setup(2): -ENOSYS (no io_uring in the kernel),
 *  -EPERM (kernel.io_uring_disabled), -EINVAL (a kernel without SQE128),
 *  -ENOMEM;
 *  -EINVAL or -ENOTTY from a kernel whose io_uring lacks URING_CMD.
 */
int hixl_dev_uring_probe(int fd);

/* ---- counters (HIXL_0.2; hixl_info.features has HIXL_FEAT_XFER_STATS) ---- */

/**
 * hixl_dev_get_stats() - the counters of the engine of a descriptor
 * @fd: descriptor from hixl_dev_open()
 * @st: filled on success (registration counters and, in @st->xfer, the
 *      data-path counters); its previous contents are ignored
 *
 * Wraps HIXL_IOC_GET_STATS.
 *
 * A module older than HIXL_FEAT_XFER_STATS takes the larger struct (its
 * tail is zero) and leaves @st->xfer zero.
 *
 * Return: 0; -EINVAL for NULL @st; -EBADF, -ENOTTY.
 */
int hixl_dev_get_stats(int fd, struct hixl_stats *st);

/**
 * hixl_dev_get_stats_rails() - the counters of the engine of a descriptor,
 * with one record per rail
 * @fd:    descriptor from hixl_dev_open()
 * @st:    filled on success as by hixl_dev_get_stats() (may be NULL)
 * @buf:   room for @count records (may be NULL when @count is 0)
 * @count: records @buf holds, 0..HIXL_MAX_RAILS
 * @total: out (may be NULL): the rails the engine has (0 before SETUP and
 *         for a loopback engine)
 *
 * Wraps HIXL_IOC_GET_STATS with HIXL_STATS_RAILS: rail 0 (SETUP's own
 * address and device) first, then the extra rails; each record has the
 * rail's address, device, NUMA node, state (HIXL_RAIL_STATE_UP, _DOWN,
 * _REMOVED), its links and those up, its MRs and the engine's counters of
 * that rail (struct hixl_rail_stat, docs/abi.md).  A @count smaller than
 * the engine's rails gets the first @count rails; @total says how many
 * there are.
 *
 * Return: records written (min(@count, rails)); -EINVAL (NULL @buf with a
 * count, @count above HIXL_MAX_RAILS, or a module without
 * HIXL_FEAT_STATS_RAILS); -EFAULT; -ENOMEM; -EBADF, -ENOTTY.
 */
int hixl_dev_get_stats_rails(int fd, struct hixl_stats *st, struct hixl_rail_stat *buf,
			     uint32_t count, uint32_t *total);

/**
 * hixl_dev_link_stats() - the links of an engine and their counters
 * @fd:     descriptor from hixl_dev_open() (need not be set up)
 * @engine: 0: @fd's own engine; else an engine id from hixl_dev_engines()
 * @buf:    room for @count records (may be NULL when @count is 0)
 * @count:  records @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:  out (may be NULL): links the engine has now
 *
 * Wraps HIXL_IOC_LINK_STATS.
 *
 * Return: records written (min(@count, links)); -EINVAL (NULL @buf with a
 * count, @count too large); -ENOENT (no visible engine @engine); -EFAULT;
 * -ENOMEM; -ENOTTY (a module without HIXL_FEAT_XFER_STATS).
 */
int hixl_dev_link_stats(int fd, uint64_t engine, struct hixl_link_stat *buf,
			uint32_t count, uint32_t *total);

/**
 * hixl_dev_link_stats_rails() - the links of an engine with their rails
 * @fd:     descriptor from hixl_dev_open() (need not be set up)
 * @engine: 0: @fd's own engine; else an engine id from hixl_dev_engines()
 * @buf:    room for @count records (may be NULL when @count is 0)
 * @count:  records @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:  out (may be NULL): links and rail entries the engine has now
 *
 * As hixl_dev_link_stats(), with HIXL_LINK_STATS_RAILS: each link
 * (@rail 0) is followed by one record per further rail paired with its
 * peer (@rail 1, 2, ...): that rail's connection state, the peer's
 * address on it and its own counters; HIXL_LINK_STAT_NO_LINK while the
 * rail has no connection (it is being re-made).  Sum the records of one
 * rail number for an engine's bytes per rail.
 *
 * Return: records written; the errors of hixl_dev_link_stats(), and
 * -EINVAL from a module without HIXL_FEAT_LINK_STATS_RAILS.
 */
int hixl_dev_link_stats_rails(int fd, uint64_t engine, struct hixl_link_stat *buf,
			      uint32_t count, uint32_t *total);

/**
 * hixl_dev_link_stats_latency() - the links of an engine with their rails
 * and each link's TRANSFER latency histogram
 * @fd:     descriptor from hixl_dev_open() (need not be set up)
 * @engine: 0: @fd's own engine; else an engine id from hixl_dev_engines()
 * @buf:    room for @count records (may be NULL when @count is 0)
 * @lat:    room for @count histograms (may be NULL when @count is 0):
 *          @lat[k] is record k's; a rail record's is zero (a TRANSFER
 *          counts on the link it named)
 * @count:  records @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:  out (may be NULL): links and rail entries the engine has now
 *
 * As hixl_dev_link_stats_rails(), with HIXL_LINK_STATS_LATENCY.
 *
 * Return: records written; the errors of hixl_dev_link_stats_rails(), and
 * -EINVAL for NULL @lat with a count and from a module without
 * HIXL_FEAT_LATENCY.
 */
int hixl_dev_link_stats_latency(int fd, uint64_t engine, struct hixl_link_stat *buf,
				struct hixl_lat_hist *lat, uint32_t count, uint32_t *total);

/**
 * hixl_dev_engines() - every engine on the host the caller may see
 * @fd:    descriptor from hixl_dev_open() (need not be set up)
 * @buf:   room for @count records (may be NULL when @count is 0)
 * @count: records @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total: out (may be NULL): engines visible now
 *
 * Wraps HIXL_IOC_ENGINES: owner pid, name, device and counters of each
 * engine whose process is visible in the caller's pid namespace; any
 * member of the group hixl may ask.
 *
 * Return: records written (min(@count, engines)); -EINVAL, -EFAULT,
 * -ENOMEM, -ENOTTY as hixl_dev_link_stats().
 */
int hixl_dev_engines(int fd, struct hixl_engine_stat *buf, uint32_t count,
		     uint32_t *total);

/**
 * hixl_dev_engines_rails() - every engine the caller may see, with its rails
 * @fd:    descriptor from hixl_dev_open() (need not be set up)
 * @buf:   room for @count records (may be NULL when @count is 0)
 * @rails: room for @count * HIXL_MAX_RAILS rail records (may be NULL when
 *         @count is 0): engine record k's rails are @rails[k *
 *         HIXL_MAX_RAILS ...], @buf[k].nr_rails of them, rail 0 first; the
 *         rest are zero (HIXL_RAIL_STATE_NONE)
 * @count: records @buf holds, 0..HIXL_MAX_RAIL_STAT_ENGINES
 * @total: out (may be NULL): engines visible now
 *
 * As hixl_dev_engines(), with HIXL_ENGINES_RAILS: each engine's rails as
 * hixl_dev_get_stats_rails() gives a caller its own (struct
 * hixl_rail_stat); an engine whose device side was being changed
 * (HIXL_ENGINE_STAT_BUSY) has none.
 *
 * Return: records written; the errors of hixl_dev_engines(), -EINVAL for
 * NULL @rails with a count or @count above HIXL_MAX_RAIL_STAT_ENGINES, and
 * from a module without HIXL_FEAT_STATS_RAILS.
 */
int hixl_dev_engines_rails(int fd, struct hixl_engine_stat *buf, struct hixl_rail_stat *rails,
			   uint32_t count, uint32_t *total);

/**
 * hixl_dev_engines_latency() - every engine the caller may see, with its
 * TRANSFER latency histogram (and its rails)
 * @fd:    descriptor from hixl_dev_open() (need not be set up)
 * @buf:   room for @count records (may be NULL when @count is 0)
 * @rails: NULL, or room for @count * HIXL_MAX_RAILS rail records, as
 *         hixl_dev_engines_rails() fills them
 * @lat:   room for @count histograms (may be NULL when @count is 0):
 *         @lat[k] is engine record k's (struct hixl_lat_hist: successful
 *         TRANSFERs by duration in log2 buckets from 1 us, their count
 *         and the sum of their durations in nanoseconds)
 * @count: records @buf holds, 0..HIXL_MAX_STAT_ENTRIES (with @rails,
 *         0..HIXL_MAX_RAIL_STAT_ENGINES)
 * @total: out (may be NULL): engines visible now
 *
 * Wraps HIXL_IOC_ENGINES with HIXL_ENGINES_LATENCY (and, with @rails,
 * HIXL_ENGINES_RAILS).
 *
 * Return: records written; the errors of hixl_dev_engines_rails(), and
 * -EINVAL for NULL @lat with a count and from a module without
 * HIXL_FEAT_LATENCY.
 */
int hixl_dev_engines_latency(int fd, struct hixl_engine_stat *buf, struct hixl_rail_stat *rails,
			     struct hixl_lat_hist *lat, uint32_t count, uint32_t *total);


/* ==== the engine API (HIXL's Hixl class, in C) ========================== */
/*
 * An engine is one open /dev/hixl set up on a local address (HIXL
 * Initialize).  Engines are named by their SETUP address: "ip", "ip:port",
 * "[ipv6]" or "[ipv6]:port" (the same strings name local and remote
 * engines).  Every function below returns 0 or a negative errno value and
 * never changes errno, like the rest of the library; hixl_status_from_errno()
 * turns such a value into HIXL's Status code for callers who want those.
 *
 * Thread safety: the functions of one engine may be called from several
 * threads at once, except hixl_engine_finalize(), which must not race with
 * any other call on the same engine (HIXL: "Finalize must not be called
 * concurrently with other interfaces").  Engines are tied to the process
 * that made them (the kernel refuses other processes with -EPERM): after
 * fork(2) the child must not use the parent's engines.
 */

/**
 * enum hixl_status - HIXL's Status codes
 * @HIXL_SUCCESS:            success
 * @HIXL_PARAM_INVALID:      a bad argument
 * @HIXL_TIMEOUT:            the operation did not finish in time
 * @HIXL_NOT_CONNECTED:      no link to that remote engine
 * @HIXL_ALREADY_CONNECTED:  a link (or a connect) to that engine exists
 * @HIXL_NOTIFY_FAILED:      a notification could not be delivered
 * @HIXL_UNSUPPORTED:        the module or device lacks the feature
 * @HIXL_RESOURCE_EXHAUSTED: a limit or memory ran out
 * @HIXL_FAILED:             any other failure
 * @HIXL_NO_MODULE:          (hixl extension) a kernel module is missing:
 *                           hixl.ko is not loaded (no /dev/hixl), or the
 *                           kernel lacks hmac(sha256) for an engine secret
 * @HIXL_NO_PERMISSION:      (hixl extension) the caller may not use the
 *                           device (not in the group hixl) or the engine
 *                           (another process's)
 *
 * Upstream HIXL's Status has the first nine; the last two are hixl's, after
 * HIXL_FAILED so that no value moves.  The C++ and Python bindings report
 * both as FAILED (upstream's values) and name the cause in their messages.
 */
enum hixl_status {
	HIXL_SUCCESS = 0,
	HIXL_PARAM_INVALID,
	HIXL_TIMEOUT,
	HIXL_NOT_CONNECTED,
	HIXL_ALREADY_CONNECTED,
	HIXL_NOTIFY_FAILED,
	HIXL_UNSUPPORTED,
	HIXL_RESOURCE_EXHAUSTED,
	HIXL_FAILED,
	HIXL_NO_MODULE,
	HIXL_NO_PERMISSION,
};

/**
 * hixl_status_from_errno() - HIXL's Status code for an errno value
 * @err: an errno value, negative (as the library returns it) or positive
 *
 * The mapping:
 *  0                                             -> HIXL_SUCCESS
 *  EINVAL, EOVERFLOW, EFAULT, EBADF, ERANGE, ENOENT, EACCES, EAFNOSUPPORT,
 *  EEXIST (an overlapping registration)          -> HIXL_PARAM_INVALID
 *  ETIMEDOUT                                     -> HIXL_TIMEOUT
 *  ENOTCONN                                      -> HIXL_NOT_CONNECTED
 *  EISCONN, EALREADY                             -> HIXL_ALREADY_CONNECTED
 *  ECOMM (hixl_send_notify(): the link broke)    -> HIXL_NOTIFY_FAILED
 *  EOPNOTSUPP (= ENOTSUP), ENOTTY (no such command: an older module),
 *  EPROTO (another ABI version)                  -> HIXL_UNSUPPORTED
 *  ENOSPC, E2BIG, ENOMEM, EMFILE, ENFILE         -> HIXL_RESOURCE_EXHAUSTED
 *  ENOPKG (hixl_dev_open(): no /dev/hixl; SETUP: no hmac(sha256))
 *                                                -> HIXL_NO_MODULE
 *  EPERM (hixl_dev_open(): not in the device's group; the module: the
 *  engine is another process's; io_uring disabled) -> HIXL_NO_PERMISSION
 *  anything else (EAGAIN, EIO, ECONNRESET, ENETDOWN, EHOSTUNREACH,
 *  ECANCELED, EADDRINUSE, ENODEV, ...)           -> HIXL_FAILED
 *
 * The mapping is by errno alone: the library chooses the errno by where the
 * error came from (hixl_dev_open() turns open(2)'s ENOENT into ENOPKG and
 * its EACCES into EPERM), so EACCES (a read-only region, a peer refusing
 * the link) and ENOENT (a range not registered) stay HIXL_PARAM_INVALID.
 *
 * Return: the status code.
 */
enum hixl_status hixl_status_from_errno(int err);

/**
 * hixl_status_str() - the name of a status code
 * @st: a status code
 *
 * Return: a static string such as "SUCCESS" or "PARAM_INVALID" (HIXL's
 * spelling); "UNKNOWN" for a value outside the enum.  Never NULL.
 */
const char *hixl_status_str(enum hixl_status st);

/**
 * hixl_strerror() - what an errno value means when hixl returns it
 * @err: an errno value, negative (as the library returns it) or positive
 *
 * One line (no newline) of hixl's meaning of @err, as the library and the
 * module return it, e.g. -ERANGE "the remote range is not inside a region
 * the peer registered", -EXDEV "the route to the peer leaves the engine's
 * RDMA device", -EBADFD "the engine is not set up", -ENOPKG "a kernel
 * module is missing: hixl.ko is not loaded ...".  Every errno this header,
 * physmem.h, prof.h and docs/abi.md name has one; any other falls back to
 * the C library's description (strerrordesc_np()), an unknown number to
 * "unknown error"; 0 is "success".  The errno's name is strerrorname_np().
 * Thread-safe.
 *
 * Return: a static string; never NULL.
 */
const char *hixl_strerror(int err);

/**
 * hixl_error_hint() - what to do about an errno value hixl returned
 * @err: an errno value, negative or positive
 *
 * For the errors whose fix lies outside the program - a module not loaded
 * (-ENOPKG: "sudo modprobe hixl"), a group (-EPERM: "sudo usermod -aG hixl
 * $USER"), the locked-memory limit (-ENOMEM: "ulimit -l"), an address no
 * RDMA device has (-EADDRNOTAVAIL, -ENODEV: "rdma link add ..."), a bad
 * argument the module explains in dynamic debug (-EINVAL), another ABI
 * version (-EPROTO), a byte limit (-E2BIG) - one line to print after the
 * error, e.g. as "hint: %s".  Thread-safe.
 *
 * Return: a static string; "" when there is no hint for @err.  Never NULL.
 */
const char *hixl_error_hint(int err);

/* Longest engine name hixl_format_engine_name() writes, NUL included */
#define HIXL_ENGINE_NAME_MAX	64

/**
 * hixl_parse_engine_name() - parse an engine name into an address
 * @name: "a.b.c.d", "a.b.c.d:port", "[ipv6]", "[ipv6]:port", "host" or
 *        "host:port"; an IPv6 address may carry a scope, "[fe80::1%eth0]"
 *        (interface name or number).  The port is decimal, 0..65535, no sign
 *        or spaces; no port or port 0 means a client-only engine.  IPv6
 *        addresses must be in brackets.  A host name (letters, digits, '-'
 *        and '.', at least one letter: "localhost", "decode-0.svc") is
 *        resolved with getaddrinfo(), its first IPv4 address taken, else its
 *        first IPv6 one; the answer is cached for the process, and dropped
 *        when a connect to that address fails, so that the next call
 *        resolves the name again.
 * @out:  filled on success (port in host order, reserved 0); untouched
 *        otherwise
 *
 * This is the parser hixl_engine_init() and every call taking a remote
 * engine name use.  Thread-safe.
 *
 * Return: 0; -EINVAL for NULL arguments, an empty or malformed string, a
 * port out of range, an unknown scope interface, a host name that does not
 * resolve (the resolver's answer, or none: no DNS server reachable), or
 * a name longer than HIXL_ENGINE_NAME_MAX - 1 characters; -ENOMEM.
 */
int hixl_parse_engine_name(const char *name, struct hixl_sockaddr *out);

/**
 * hixl_format_engine_name() - the name of an address, as the parser takes it
 * @addr: an IPv4 or IPv6 address (e.g. hixl_notify.from)
 * @buf:  out: NUL-terminated name; "ip:port" / "[ipv6]:port", or without
 *        ":port" when the port is 0
 * @len:  bytes @buf holds (HIXL_ENGINE_NAME_MAX is always enough)
 *
 * Return: 0; -EINVAL for NULL arguments; -EAFNOSUPPORT for a family other
 * than AF_INET/AF_INET6; -ENOSPC when @buf is too small (it then holds "").
 */
int hixl_format_engine_name(const struct hixl_sockaddr *addr, char *buf, size_t len);

/* Option keys of hixl_engine_init() (HIXL's OPTION_* constants) */
#define HIXL_OPTION_BUFFER_POOL		"BufferPool"
#define HIXL_OPTION_RDMA_TRAFFIC_CLASS	"RdmaTrafficClass"
#define HIXL_OPTION_RDMA_SERVICE_LEVEL	"RdmaServiceLevel"
#define HIXL_OPTION_AUTO_CONNECT	"AutoConnect"
/* hixl's own: how links to engines of the same host move bytes */
#define HIXL_OPTION_TRANSPORT		"Transport"
#define HIXL_OPTION_RAILS		"Rails"
/* hixl's own (HIXL has no such options): who may connect, see hixl_engine_init() */
#define HIXL_OPTION_ALLOWED_PEERS	"AllowedPeers"
#define HIXL_OPTION_AUTH_SECRET		"AuthSecret"
#define HIXL_OPTION_AUTH_SECRET_FILE	"AuthSecretFile"
/*
 * hixl's own: how CUDA device memory registered by address is reached:
 * "auto" (the default: peer-to-peer through its dma-buf, staged through
 * pinned host buffers where the driver cannot export it or the kernel
 * cannot register it), "p2p" (the dma-buf only) or "staged" (always
 * staged); HIXL_DEVICE_MEM_PATH when no option says
 */
#define HIXL_OPTION_DEVICE_MEM_PATH	"DeviceMemPath"

/**
 * struct hixl_option - one key/value option of hixl_engine_init()
 * @key:   one of the HIXL_OPTION_* strings
 * @value: its value, a string
 */
struct hixl_option {
	const char *key;
	const char *value;
};

struct hixl_engine;	/* opaque */
struct hixl_request;	/* opaque: one asynchronous transfer */

/**
 * hixl_engine_init() - make an engine (HIXL Initialize)
 * @eng:          out: the engine; set only on success
 * @local_engine: the engine's name, see hixl_parse_engine_name().  With a
 *                port > 0 the engine listens there for peers' connects;
 *                with port 0 ("10.0.0.1:0", as upstream HIXL's tests name
 *                engines) it listens on a free port the kernel picks
 *                (hixl_engine_name() tells which); without a port it is a
 *                client only.  The address must be local and owned by an
 *                RDMA device (a loopback address has none: -ENODEV or
 *                -EADDRNOTAVAIL, and hixl_last_error() says so).
 * @opts:         @nopts options, may be NULL when @nopts is 0.  Keys:
 *   "BufferPool"       "N:SIZE_MB": N staging buffers of SIZE_MB MiB each,
 *                      N 0..256, SIZE_MB 0..1024, both 0 ("0:0") or both
 *                      non-zero; default "4:8".  Unregistered
 *                      local memory always goes through the pool; registered
 *                      descriptors only when the module's cost model finds a
 *                      batch faster staged (docs/abi.md)
 *   "RdmaTrafficClass" 0..255, a multiple of 4; default 132
 *   "RdmaServiceLevel" 0..7; default 4
 *   "AllowedPeers"     only peers whose address is in this comma-separated
 *                      list of "ADDR" or "ADDR/LEN" (IPv4 or IPv6, no
 *                      brackets; bits past LEN zero), up to 256 entries,
 *                      may connect to this engine; others are refused
 *                      before any resource is spent on them and their
 *                      connect fails with -EACCES.  Default: anyone.
 *                      E.g. "10.0.0.0/8,fd77::/64,192.0.2.7"
 *   "AuthSecret"       the engine secret, 16..128 bytes (the string's
 *                      bytes): every link to or from this engine must
 *                      prove the same secret before either side learns a
 *                      region of the other; a peer without it, or with
 *                      another, is refused (-EACCES).  Default: none
 *   "AuthSecretFile"   the same, read from this file (16..128 bytes, one
 *                      trailing newline left out: `head -c 32 /dev/urandom
 *                      > key`, or `openssl rand -hex 32 > key`); keep it
 *                      mode 0600.  With both, the last one given wins
 *   "AutoConnect"      "1" (or "true"): hixl_transfer_sync(),
 *                      hixl_transfer_async() and hixl_send_notify() to a
 *                      peer without a link connect to it first, within the
 *                      call's own timeout (HIXL's AutoConnect); "0" (or
 *                      "false", the default): they fail with -ENOTCONN.
 *                      Env: HIXL_AUTO_CONNECT
 *   "Transport"        "auto" (default): a link whose peer is an engine of
 *                      this same kernel (proved in the handshake) copies
 *                      host registrations with the CPU, one kernel copy,
 *                      instead of going through the RDMA device; anything
 *                      else (device memory, remote peers) uses RDMA.
 *                      "rdma": always RDMA.  "local": as "auto", but a
 *                      transfer that cannot take the local copy fails
 *                      with -EOPNOTSUPP.  Env: HIXL_TRANSPORT
 *   "Rails"            the engine's extra rails: a comma-separated list of
 *                      local addresses (IPv4 or IPv6, no port), one per
 *                      further RDMA device, at most 7, e.g. "10.78.0.1";
 *                      or "auto": every other RDMA device with an IPv4
 *                      address in this network namespace.  A bad list,
 *                      a duplicate, a loopback address, an address
 *                      without an RDMA device: the init fails (-EINVAL,
 *                      -EADDRNOTAVAIL, -ENODEV); a module without rails:
 *                      -EOPNOTSUPP.  Default: none (one rail).  Not yet:
 *                      transfers use the first rail only.  Env: HIXL_RAILS
 *                Values are decimal.  A key given twice: the last one wins.
 * @nopts:        number of options
 *
 * Without the option, the traffic class comes from the environment variable
 * HIXL_RDMA_TC, else HCCL_RDMA_TC (HIXL's name), else the default; the
 * service level likewise from HIXL_RDMA_SL, else HCCL_RDMA_SL.  The first
 * variable that is set (even to "") is the one used and must be valid
 * (-EINVAL otherwise); variables an option overrides are not looked at.
 * Likewise HIXL_ALLOWED_PEERS for "AllowedPeers" and HIXL_AUTH_SECRET_FILE
 * for "AuthSecret"/"AuthSecretFile" (the secret itself is never taken
 * from the environment).  The library wipes its copy of the secret once
 * SETUP returns; the kernel keeps only the keyed hash.
 *
 * Opens /dev/hixl and issues HIXL_IOC_SETUP, then chooses how the engine
 * runs asynchronous transfers (hixl_engine_async_path()): through an
 * io_uring of its own (IORING_OP_URING_CMD) when the module offers
 * HIXL_FEAT_URING_CMD, a ring with 128-byte SQEs and 32-byte CQEs can be
 * made and a first URING_CMD (a CANCEL probe) succeeds; through library
 * worker threads issuing the TRANSFER ioctl otherwise, which the library
 * says once per process on stderr ("libhixl-user: ...").  The environment
 * variable HIXL_NO_URING set to anything but "" or "0" (e.g.
 * HIXL_NO_URING=1) chooses the worker threads silently.  None of this makes
 * the call fail.
 *
 * Return: 0;
 *  -EINVAL  NULL @eng or @local_engine, a malformed name, an unknown option
 *           key, a malformed or out-of-range option value or variable
 *           (a secret outside 16..128 bytes, an allowed-peers entry with
 *           host bits set, more than 256 entries): hixl_last_error() names
 *           the option or environment variable, its value (a secret's
 *           left out) and what it accepts;
 *  -EOPNOTSUPP "AllowedPeers" or a secret, and hixl.ko predates them
 *           (no HIXL_FEAT_AUTH); port 0 and no HIXL_FEAT_LISTEN_ANY;
 *  -ENOPKG  a secret, and the kernel has no hmac(sha256)
 *           (CONFIG_CRYPTO_HMAC, CONFIG_CRYPTO_SHA256);
 *  -ENOENT, -EACCES, ...: the key file could not be read;
 *  -ENOPKG  /dev/hixl does not exist (hixl.ko not loaded: hixl_dev_open());
 *  -EPERM   the caller may not open /dev/hixl (not in the group hixl);
 *  -EADDRNOTAVAIL the address is not local; -ENODEV no RDMA device owns it;
 *  -EADDRINUSE another engine listens on that address and port;
 *  -EOPNOTSUPP the device has no fast-registration MRs;
 *  -ENOMEM, or another -errno of open(2) or SETUP.
 */
int hixl_engine_init(struct hixl_engine **eng, const char *local_engine,
		     const struct hixl_option *opts, size_t nopts);

/**
 * hixl_engine_name() - the engine's name, with the port it listens on
 * @eng: the engine
 * @buf: out: "ip:port", "[ipv6]:port", or without ":port" for a client-only
 *       engine (hixl_format_engine_name()); for an engine made with port 0,
 *       the port the kernel picked: the name peers connect to
 * @len: bytes @buf holds (HIXL_ENGINE_NAME_MAX is always enough)
 *
 * Return: 0; -EINVAL for NULL @eng or @buf; -ENOSPC when @buf is too small.
 */
int hixl_engine_name(const struct hixl_engine *eng, char *buf, size_t len);

/**
 * hixl_engine_finalize() - tear an engine down (HIXL Finalize)
 * @eng: the engine, or NULL (then nothing happens)
 *
 * Waits for pending asynchronous connects (each bounded by its timeout),
 * cancels queued asynchronous transfers (they end FAILED with -ECANCELED),
 * cancels running ones with HIXL_IOC_CANCEL (repeated every 100 ms; a
 * module without CANCEL lets each run to its end or timeout) and waits
 * for them to end, stops the engine's threads and closes its io_uring,
 * disconnects every link, deregisters every
 * registration, closes the device and frees the engine and every request
 * of it that was not freed yet.  Afterwards @eng and those requests are
 * invalid: do not call this twice on the same pointer.  Must not run
 * concurrently with another call on @eng.
 */
void hixl_engine_finalize(struct hixl_engine *eng);

/**
 * hixl_engine_caps() - the module's ABI version, features and limits
 * @eng:  the engine
 * @info: out: as HIXL_IOC_GET_INFO fills it
 *
 * Return: 0; -EINVAL for NULL arguments; -EPROTO when the module speaks
 * another HIXL_ABI_VERSION (@info is filled); another -errno of GET_INFO.
 */
int hixl_engine_caps(struct hixl_engine *eng, struct hixl_info *info);

/**
 * enum hixl_async_path - how an engine runs asynchronous transfers
 * @HIXL_ASYNC_THREADS: library worker threads (4) issue the blocking
 *                      TRANSFER ioctl: the fallback
 * @HIXL_ASYNC_URING:   URING_CMD TRANSFERs on an io_uring of the engine; one
 *                      library thread reaps their completions
 */
enum hixl_async_path {
	HIXL_ASYNC_THREADS = 0,
	HIXL_ASYNC_URING = 1,
};

/**
 * hixl_engine_async_path() - how the engine runs asynchronous transfers
 * @eng: the engine
 *
 * Chosen by hixl_engine_init() for the engine's lifetime (see there).
 *
 * Return: HIXL_ASYNC_URING or HIXL_ASYNC_THREADS; -EINVAL for NULL @eng.
 */
int hixl_engine_async_path(const struct hixl_engine *eng);

/**
 * hixl_engine_fd() - the engine's /dev/hixl descriptor
 * @eng: the engine
 *
 * For raw ioctls such as HIXL_IOC_GET_STATS.  The descriptor stays owned by
 * the engine: do not close it.
 *
 * Return: the descriptor (>= 0), or -EINVAL for NULL.
 */
int hixl_engine_fd(const struct hixl_engine *eng);

/**
 * hixl_engine_device() - the name of the engine's RDMA device
 * @eng: the engine
 *
 * Return: a string owned by the engine (e.g. "rxe0"), valid until
 * hixl_engine_finalize(); "" for NULL.
 */
const char *hixl_engine_device(const struct hixl_engine *eng);

/**
 * hixl_engine_stats() - the engine's counters (HIXL_0.2)
 * @eng: the engine
 * @st:  filled on success, as hixl_dev_get_stats() fills it
 *
 * Return: 0, or -EINVAL for NULL arguments, or a -errno of
 * hixl_dev_get_stats().
 */
int hixl_engine_stats(const struct hixl_engine *eng, struct hixl_stats *st);

/**
 * struct hixl_staged_stats - the library's counters of staged device memory
 * @regions:       staged regions registered now (HIXL_MEM_SOURCE_STAGED)
 * @bytes_written: bytes of staged regions sent by WRITE (device to bounce
 *                 buffer to the peer), counted once a round's WRITE ended
 * @bytes_read:    bytes of staged regions received by READ (the peer to
 *                 bounce buffer to device), counted once copied to device
 * @rounds:        bounce-buffer rounds done (each up to 1 MiB)
 * @errors:        staged transfers that failed (a copy, the RDMA, a timeout)
 * @reserved:      0
 *
 * 64 bytes on every ABI.
 */
struct hixl_staged_stats {
	uint64_t regions;
	uint64_t bytes_written;
	uint64_t bytes_read;
	uint64_t rounds;
	uint64_t errors;
	uint64_t reserved[3];
};

/**
 * hixl_engine_staged_stats() - the engine's staged device memory counters (HIXL_0.3)
 * @eng: the engine
 * @st:  out: the counters since hixl_engine_init()
 *
 * Staged regions live in the library only (the kernel never sees them):
 * this, and hixl_mem_get_info()'s HIXL_MEM_SOURCE_STAGED, is where they
 * show; hixlctl's tables list the kernel's registrations.
 *
 * Return: 0; -EINVAL for NULL arguments.
 */
int hixl_engine_staged_stats(const struct hixl_engine *eng, struct hixl_staged_stats *st);

/**
 * hixl_engine_link_stats() - the engine's links and their counters (HIXL_0.2)
 * @eng:   the engine
 * @buf:   room for @count records (may be NULL when @count is 0)
 * @count: records @buf holds
 * @total: out (may be NULL): links the engine has
 *
 * Return: records written, or -EINVAL for NULL @eng, or a -errno of
 * hixl_dev_link_stats().
 */
int hixl_engine_link_stats(const struct hixl_engine *eng, struct hixl_link_stat *buf,
			   uint32_t count, uint32_t *total);

/* ---- memory ---- */

/*
 * hixl_register_mem() types: HIXL's MemType is <hixl/uapi.h>'s enum
 * hixl_mem_type: HIXL_MEM_HOST (memory of this process), HIXL_MEM_DEVICE
 * (a dma-buf, or device memory by address: see hixl_register_mem()).
 */

/**
 * struct hixl_mem_desc - a region to register (HIXL MemDesc)
 * @addr:          HOST: start, a virtual address of this process; DEVICE
 *                 with a dma-buf fd: the device address transfer
 *                 descriptors will use (it names the region; any page
 *                 aligned value); DEVICE by address (@dmabuf_fd -1): the
 *                 GPU virtual address (a CUDA device pointer), any
 *                 alignment
 * @len:           bytes, > 0
 * @flags:         HIXL_REG_* bits: HIXL_REG_READ_ONLY, HIXL_REG_LOCAL_ONLY
 *                 (HIXL's MemDesc.local_only: registered for this engine's
 *                 own side of transfers, never announced to peers)
 * @dmabuf_fd:     DEVICE: the dma-buf file descriptor (the library does not
 *                 keep or close it), or -1: device memory by address (the
 *                 library asks the GPU runtime for a dma-buf of @addr, see
 *                 hixl_register_mem()); ignored for HOST
 * @dmabuf_offset: DEVICE: offset of the region in the dma-buf, bytes, page
 *                 aligned; 0 with @dmabuf_fd -1; ignored for HOST
 * @reserved:      must be 0 (-EINVAL otherwise): room for the fields of
 *                 later versions, as HIXL's MemDesc has reserved[128].
 *                 Initialize the whole struct (= {0}, memset, or a
 *                 designated initializer) and a later library reads the
 *                 fields it added as their defaults.
 *
 * 128 bytes on every ABI (checked at build time).
 */
struct hixl_mem_desc {
	uint64_t addr;
	uint64_t len;
	uint32_t flags;
	int32_t dmabuf_fd;
	uint64_t dmabuf_offset;
	uint64_t reserved[12];
};

/**
 * hixl_register_mem() - register memory for transfers (HIXL RegisterMem)
 * @eng:    the engine
 * @desc:   the region
 * @type:   HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @handle: out: the registration's handle (never 0), set only on success
 *
 * Unlike HIXL, registering after hixl_connect() is allowed: peers are sent
 * the new region.  Wraps HIXL_IOC_REG_MEM.
 *
 * Device memory by address (HIXL_MEM_DEVICE, @desc->dmabuf_fd -1,
 * @desc->dmabuf_offset 0): the library finds what @desc->addr is.
 *  - CUDA device memory (the driver, libcuda.so.1, is loaded with dlopen()
 *    at the first such call; no build-time dependency): the driver exports
 *    the pages holding [addr, addr + len) as a dma-buf
 *    (cuMemGetHandleForAddressRange), registered as HIXL_MEM_DEVICE from
 *    addr rounded down to its page to addr + len, and its fd closed at
 *    once (the kernel holds its own reference until deregistration).  The
 *    range must lie in one allocation (cuMemGetAddressRange).
 *    Where the RDMA device cannot reach it (the export fails, or the
 *    kernel refuses the dma-buf with -EOPNOTSUPP or -EREMOTEIO), or the
 *    engine's "DeviceMemPath" option is "staged", it is registered staged
 *    instead (not with "p2p"): [addr, addr + len) exactly, in the library
 *    only (HIXL_MEM_SOURCE_STAGED, a handle above 32 bits), its bytes
 *    moved through the engine's pinned host bounce buffers by the GPU's
 *    copy engine; local only (no peer can name it).
 *  - ROCm device memory, when the program has loaded the HSA runtime
 *    (libhsa-runtime64.so.1, as HIP does): hsa_amd_portable_export_dmabuf()
 *    gives a dma-buf of the allocation and the address's offset in it,
 *    registered as HIXL_MEM_DEVICE from addr rounded down to its page.
 *  - Host memory of this process (every page readable or writable): it is
 *    registered as HIXL_MEM_HOST, as upstream HIXL's tests on hosts
 *    without an NPU expect; hixl_mem_get_info() says so.
 *  The CPU never loads or stores device memory.  hixl_last_error() names
 *  the cause of each error below.
 *
 * Return: 0;
 *  -EINVAL  NULL arguments, an unknown type or flag, reserved not 0, len 0, a misaligned
 *           dma-buf offset or DEVICE address with a dma-buf fd; a non-zero
 *           dmabuf_offset with dmabuf_fd -1; a GPU allocation that is not
 *           page aligned;
 *  -EOVERFLOW addr + len wraps;  -EFAULT (HOST) the range is not mapped;
 *           (DEVICE by address) a GPU runtime runs but the address is
 *           neither its memory (in one allocation) nor host memory;
 *  -ENODEV  (DEVICE by address) not host memory and no GPU runtime: no
 *           libcuda.so.1, or its cuInit() failed (the toolkit's stub);
 *  -ERANGE  (DEVICE by address) the range runs past the end of its GPU
 *           allocation;
 *  -EACCES  (HOST) a read-only mapping without HIXL_REG_READ_ONLY;
 *  -EBADF   (DEVICE) not a dma-buf;  -EEXIST overlaps a registration;
 *  -ENOSPC  max_regions (4096) per process;  -E2BIG the byte limit
 *           (20 GiB host / 50 GiB device per process);
 *  -ENOMEM  RLIMIT_MEMLOCK or memory;  -EOPNOTSUPP (DEVICE) no MRs possible;
 *           (DEVICE by address, "p2p") the runtime cannot export the range
 *           as a dma-buf; ("staged") the CUDA driver lacks the stream,
 *           event or async copy entry points;
 *  -EIO     (DEVICE by address, "p2p") another error of the CUDA driver's
 *           export;
 *  -EAGAIN, -EINTR as REG_MEM documents.
 */
int hixl_register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
		      enum hixl_mem_type type, uint64_t *handle);

/**
 * hixl_deregister_mem() - drop a registration (HIXL DeregisterMem)
 * @eng:    the engine
 * @handle: from hixl_register_mem() on @eng
 *
 * Unlike HIXL, links may stay up: peers are told the region is gone.
 *
 * Return: 0; -EINVAL for NULL @eng; -ENOENT when @handle is not a live
 * registration of @eng.
 */
int hixl_deregister_mem(struct hixl_engine *eng, uint64_t handle);

/**
 * enum hixl_mem_source - where a registration's memory came from
 * @HIXL_MEM_SOURCE_HOST:   host memory of the process, by address
 * @HIXL_MEM_SOURCE_DMABUF: a dma-buf fd the caller gave
 * @HIXL_MEM_SOURCE_CUDA:   a dma-buf the CUDA driver exported for a device
 *                          address (HIXL_MEM_DEVICE, dmabuf_fd -1)
 * @HIXL_MEM_SOURCE_ROCM:   a dma-buf the ROCm (HSA) runtime exported for a
 *                          device address (HIXL_MEM_DEVICE, dmabuf_fd -1)
 * @HIXL_MEM_SOURCE_STAGED: CUDA device memory by address that the RDMA
 *                          device cannot reach (or "DeviceMemPath" is
 *                          "staged"): not registered in the kernel; the
 *                          library moves it through pinned host bounce
 *                          buffers with the GPU's copy engine.  Local only:
 *                          no peer can name it in a transfer
 */
enum hixl_mem_source {
	HIXL_MEM_SOURCE_HOST = 0,
	HIXL_MEM_SOURCE_DMABUF = 1,
	HIXL_MEM_SOURCE_CUDA = 2,
	HIXL_MEM_SOURCE_ROCM = 3,
	HIXL_MEM_SOURCE_STAGED = 4,
};

/**
 * struct hixl_mem_info - a live registration, as hixl_mem_get_info() says
 * @addr:      start of the registered region, bytes: the descriptor's
 *             address, or for device memory by address that address
 *             rounded down to its page
 * @len:       bytes registered, from @addr
 * @type:      what it became: HIXL_MEM_HOST or HIXL_MEM_DEVICE (host
 *             memory registered as HIXL_MEM_DEVICE becomes HIXL_MEM_HOST)
 * @requested: the type hixl_register_mem() was given
 * @source:    enum hixl_mem_source
 * @flags:     the descriptor's HIXL_REG_* bits
 * @reserved:  0
 *
 * 64 bytes on every ABI.
 */
struct hixl_mem_info {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	uint32_t requested;
	uint32_t source;
	uint32_t flags;
	uint64_t reserved[4];
};

/**
 * hixl_mem_get_info() - what a registration became (HIXL_0.3)
 * @eng:    the engine
 * @handle: from hixl_register_mem() on @eng
 * @info:   out: the registration, set only on success
 *
 * Return: 0; -EINVAL for NULL @eng or @info; -ENOENT when @handle is not a
 * live registration of @eng.
 */
int hixl_mem_get_info(struct hixl_engine *eng, uint64_t handle, struct hixl_mem_info *info);

/* ---- links ---- */

/**
 * enum hixl_connect_status - a link's state as the library tracks it
 * (HIXL GetAsyncConnectStatus)
 * @HIXL_NOT_CONNECT:         no link, no connect pending
 * @HIXL_CONNECT_PENDING:     hixl_connect_async() accepted it, not started
 * @HIXL_CONNECTING:          the CONNECT is running
 * @HIXL_CONNECTED:           the link is up
 * @HIXL_CONNECT_FAILED:      the last asynchronous connect failed (see
 *                            hixl_get_connect_status()); a new connect may
 *                            be started
 * @HIXL_DISCONNECT_PENDING:  hixl_disconnect() waits for a connect to end
 * @HIXL_DISCONNECTING:       the DISCONNECT is running
 */
enum hixl_connect_status {
	HIXL_NOT_CONNECT = 0,
	HIXL_CONNECT_PENDING,
	HIXL_CONNECTING,
	HIXL_CONNECTED,
	HIXL_CONNECT_FAILED,
	HIXL_DISCONNECT_PENDING,
	HIXL_DISCONNECTING,
};

/**
 * hixl_connect() - connect to a remote engine (HIXL Connect)
 * @eng:           the engine
 * @remote_engine: the peer's name (its hixl_engine_init() name), with a port
 * @timeout_ms:    resolution, connection and region-table exchange must
 *                 finish within this, ms, > 0 (HIXL's default: 1000)
 *
 * Blocks until the link is up or failed.  At most 512 links per engine.
 *
 * Return: 0;
 *  -EINVAL     NULL arguments, a malformed name, port 0, timeout <= 0;
 *  -EISCONN    already connected (HIXL ALREADY_CONNECTED);
 *  -EALREADY   a connect or disconnect to this peer is in progress;
 *  -ETIMEDOUT  not done within @timeout_ms (HIXL TIMEOUT);
 *  -ENOSPC     the engine has 512 links;
 *  -EHOSTUNREACH, -ENETUNREACH, -EADDRNOTAVAIL, -EXDEV, -ECONNRESET,
 *  -ECONNREFUSED, -EINTR, -ENOMEM, or another -errno of CONNECT.
 */
int hixl_connect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms);

/**
 * hixl_connect_async() - start a connect (HIXL ConnectAsync)
 * @eng:           the engine
 * @remote_engine: the peer's name, with a port
 * @timeout_ms:    as for hixl_connect(), ms, > 0
 *
 * Starts a library thread that issues the blocking CONNECT (the module has
 * no asynchronous connect yet) and returns at once; follow it with
 * hixl_get_connect_status().
 *
 * Return: 0 when the connect was started (state CONNECT_PENDING or later);
 *  -EINVAL as hixl_connect(); -EISCONN already connected; -EALREADY a
 *  connect or disconnect to this peer is in progress; -ENOMEM, -EAGAIN
 *  (no thread could be made).
 */
int hixl_connect_async(struct hixl_engine *eng, const char *remote_engine, int timeout_ms);

/**
 * hixl_get_connect_status() - state of the link to a peer (HIXL
 * GetAsyncConnectStatus)
 * @eng:           the engine
 * @remote_engine: the peer's name
 * @st:            out: the state
 *
 * Return: 0 (@st set; HIXL_NOT_CONNECT for a peer never connected);
 * -EINVAL for NULL arguments or a malformed name; when @st is
 * HIXL_CONNECT_FAILED, the connect's error is returned instead of 0
 * (e.g. -ETIMEDOUT, -ECONNREFUSED) with @st still set.
 */
int hixl_get_connect_status(struct hixl_engine *eng, const char *remote_engine,
			    enum hixl_connect_status *st);

/**
 * hixl_disconnect() - tear down the link to a peer (HIXL Disconnect)
 * @eng:           the engine
 * @remote_engine: the peer's name
 * @timeout_ms:    ms, > 0: how long to wait for a pending asynchronous
 *                 connect to this peer to end first; the teardown itself
 *                 does not wait for the peer
 *
 * Also clears a CONNECT_FAILED state (returning -ENOTCONN).
 *
 * Return: 0; -EINVAL for NULL arguments, a malformed name or timeout <= 0;
 * -ENOTCONN no link (HIXL NOT_CONNECTED); -EALREADY another disconnect is
 * running; -ETIMEDOUT a pending connect did not end within @timeout_ms.
 */
int hixl_disconnect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms);

/**
 * hixl_peer_regions() - what a linked peer has registered (HIXL_0.3)
 * @eng:           the engine
 * @remote_engine: the peer's name; a link to it must be up
 * @buf:           out: room for @count entries (may be NULL when @count is 0)
 * @count:         entries @buf holds, 0..HIXL_MAX_STAT_ENTRIES
 * @total:         out (may be NULL): the peer's usable registrations
 *
 * The kernel's copy of the peer's region table (HIXL_IOC_PEER_REGIONS,
 * HIXL_FEAT_PEER_REGIONS): each entry's address and length in the peer's
 * address space, whether it may be written and is device memory, oldest
 * registration first.  Mooncake's get_first_buffer_address() is entry 0.
 * A registration the peer made or dropped a moment ago may not show yet.
 *
 * Return: entries written (min(@count, @total)); -EINVAL NULL @eng or
 * @remote_engine, a malformed name, @buf NULL with @count > 0, or @count too
 * large; -ENOTCONN no link to the peer; -EAGAIN the link is still
 * connecting; the link's error once it broke (e.g. -ECONNRESET); -ENOTTY a
 * module without HIXL_FEAT_PEER_REGIONS; -ENOMEM.
 */
int hixl_peer_regions(struct hixl_engine *eng, const char *remote_engine,
		      struct hixl_peer_region *buf, uint32_t count, uint32_t *total);

/**
 * hixl_disconnect_async() - start a disconnect (HIXL DisconnectAsync)
 * @eng:           the engine
 * @remote_engine: the peer's name
 * @timeout_ms:    as for hixl_disconnect(), ms, > 0
 *
 * Runs the teardown of hixl_disconnect() on a library thread and returns
 * at once; the peer's state (hixl_get_connect_status()) is then
 * DISCONNECT_PENDING while a connect to it is still pending (the thread
 * waits up to @timeout_ms for it to end), DISCONNECTING while the teardown
 * runs, then NOT_CONNECT; CONNECTED again when the module's DISCONNECT
 * failed (as hixl_disconnect() leaves it).  A connect to the peer meanwhile
 * gets -EALREADY.  hixl_engine_finalize() waits for the thread.
 *
 * Only links the library made (hixl_connect(), hixl_connect_async(),
 * AutoConnect) are known to it; a link a peer made to this engine gets
 * -ENOTCONN here (hixl_disconnect() takes it down).  When a pending
 * connect outlasts @timeout_ms, the thread leaves the link to it.
 *
 * Return: 0 when the disconnect was started; -EINVAL as hixl_disconnect();
 * -ENOTCONN no link and no connect pending (HIXL NOT_CONNECTED);
 * -EALREADY a disconnect to this peer is already running; -ESHUTDOWN the
 * engine is being finalized; -ENOMEM, -EAGAIN (no thread could be made).
 */
int hixl_disconnect_async(struct hixl_engine *eng, const char *remote_engine, int timeout_ms);

/**
 * struct hixl_connect_entry - one peer of hixl_get_all_connect_status()
 * @remote_engine: the peer's name, as hixl_format_engine_name() prints it
 * @status:        its enum hixl_connect_status
 * @err:           CONNECT_FAILED: the connect's -errno; else 0
 */
struct hixl_connect_entry {
	char remote_engine[HIXL_ENGINE_NAME_MAX];
	int32_t status;
	int32_t err;
};

/**
 * hixl_get_all_connect_status() - the state of every peer the engine knows
 * (HIXL GetAsyncConnectStatus(std::map&))
 * @eng: the engine
 * @out: array of @max entries, may be NULL when @max is 0
 * @max: entries @out holds
 *
 * Lists each peer with a link, a connect or disconnect in progress, or a
 * failed asynchronous connect not cleared yet, most recent first; peers
 * never connected and links torn down are not listed (their state is
 * NOT_CONNECT).
 *
 * Return: the number of such peers (may exceed @max: only @max are
 * written; call with @max 0 to size @out); -EINVAL for NULL @eng, or NULL
 * @out with @max > 0.
 */
int hixl_get_all_connect_status(struct hixl_engine *eng, struct hixl_connect_entry *out,
				size_t max);

/* ---- transfers ---- */

/*
 * hixl_transfer_*() operations: HIXL's TransferOp is <hixl/uapi.h>'s enum
 * hixl_op: HIXL_OP_READ (remote -> local), HIXL_OP_WRITE (local -> remote).
 */

/**
 * enum hixl_transfer_status - an asynchronous transfer's state (HIXL
 * TransferStatus)
 * @HIXL_TRANSFER_WAITING:   queued or running
 * @HIXL_TRANSFER_COMPLETED: every descriptor completed
 * @HIXL_TRANSFER_TIMEOUT:   not completed within its timeout
 * @HIXL_TRANSFER_FAILED:    failed; hixl_request_result() says why
 */
enum hixl_transfer_status {
	HIXL_TRANSFER_WAITING = 0,
	HIXL_TRANSFER_COMPLETED,
	HIXL_TRANSFER_TIMEOUT,
	HIXL_TRANSFER_FAILED,
};

/**
 * hixl_transfer_sync() - one READ or WRITE batch (HIXL TransferSync)
 * @eng:           the engine
 * @remote_engine: a connected peer's name
 * @op:            HIXL_OP_READ or HIXL_OP_WRITE
 * @descs:         @count descriptors {local_addr, remote_addr, len (bytes)};
 *                 each range inside one registration (local: of @eng;
 *                 remote: of the peer)
 * @count:         >= 1; batches above HIXL_MAX_DESCS (65536) are issued as
 *                 several TRANSFER calls, in order, under one deadline
 * @timeout_ms:    the whole batch must complete within this, ms, > 0
 *                 (HIXL's default: 1000); the kernel gives one TRANSFER
 *                 call at most HIXL_MAX_TIMEOUT_MS (one hour): a longer
 *                 timeout is cut to that
 * @failed_index:  out, may be NULL: on a descriptor or RDMA error the index
 *                 (into @descs) of the first failing descriptor; on
 *                 -ETIMEDOUT or -ECANCELED the first descriptor not known
 *                 to be complete; @count when no single descriptor is to
 *                 blame or on success
 *
 * Always the blocking TRANSFER ioctl, whatever hixl_engine_async_path()
 * says: one syscall that returns when the batch ended, through the same
 * kernel transfer queue as a URING_CMD (a ring would add a submission and a
 * wait, nothing else).  Descriptors whose local range lies in a staged
 * region (HIXL_MEM_SOURCE_STAGED) go after the others, in rounds through
 * the engine's bounce buffers and the GPU's copy engine, one TRANSFER per
 * round; an asynchronous batch with such descriptors runs on one of the
 * engine's staged request threads.
 *
 * Return: 0 when every descriptor completed;
 *  -EINVAL     NULL arguments, a bad op, count 0, timeout <= 0, len 0;
 *  -ENOTCONN   no link (HIXL NOT_CONNECTED);  -EAGAIN still connecting;
 *  -ETIMEDOUT  not complete in time (HIXL TIMEOUT; the link is broken);
 *  -EOVERFLOW, -ENOENT (local range not registered), -ERANGE (remote range
 *  not registered by the peer), -EACCES (read-only region): descriptor
 *  errors, found before anything is posted;
 *  -ECONNRESET, -ENETDOWN, -EIO: the link is broken; -ENOMEM;
 *  -EIO also: a staged descriptor's copy failed (hixl_last_error() names
 *  the CUDA call and error; @failed_index that descriptor).
 */
int hixl_transfer_sync(struct hixl_engine *eng, const char *remote_engine, enum hixl_op op,
		       const struct hixl_op_desc *descs, size_t count, int timeout_ms,
		       size_t *failed_index);

/**
 * struct hixl_transfer_args - how hixl_transfer_async() runs a request
 * @timeout_ms: ms, > 0, counted from the call: the kernel is given the
 *              time left when the request (or its next chunk of
 *              HIXL_MAX_DESCS) is issued; a request not issued yet when it
 *              expires ends TIMEOUT without being issued; the kernel is
 *              given at most HIXL_MAX_TIMEOUT_MS (one hour) per chunk
 * @flags:      none defined yet: 0 (-EINVAL otherwise)
 * @tag:        the request's hixl_transfer.tag, as the kernel's CANCEL and
 *              the tracepoints see it: 0 (the usual): the library gives the
 *              request a unique one (bit 63 set); else the caller's, below
 *              HIXL_TAG_CALLER_MAX (bit 63 clear, -EINVAL otherwise).
 *              Requests that share a caller's tag are one group for the
 *              kernel: a CANCEL of the tag stops them all.
 * @user_data:  any pointer, returned by hixl_request_user_data() and in
 *              hixl_get_all_transfer_status()
 * @reserved:   must be 0 (-EINVAL otherwise): room for later fields
 *
 * HIXL_TRANSFER_ARGS_INIT(timeout_ms) gives the defaults.  64 bytes on
 * every LP64 ABI (checked at build time).
 */
struct hixl_transfer_args {
	int32_t timeout_ms;
	uint32_t flags;
	uint64_t tag;
	void *user_data;
	uint64_t reserved[5];
};

#define HIXL_TAG_CALLER_MAX	(1ULL << 63)	/* caller's tags are below this */
#define HIXL_TRANSFER_ARGS_INIT(ms)	{ (ms), 0, 0, NULL, { 0, 0, 0, 0, 0 } }

/**
 * hixl_transfer_async() - queue a READ or WRITE batch (HIXL TransferAsync)
 * @eng, @remote_engine, @op, @descs, @count: as for hixl_transfer_sync();
 *                 @descs is copied: the caller may free it on return
 * @args:          timeout, flags, tag and user data (struct
 *                 hixl_transfer_args); read during the call only
 * @req:           out: the request, set only on success; free it with
 *                 hixl_request_free()
 *
 * Two paths, one
 * per engine (hixl_engine_async_path(), chosen at hixl_engine_init()):
 *  - io_uring: the call submits a URING_CMD TRANSFER (the first chunk) on
 *    the engine's ring and returns; one library thread per engine (started
 *    on the first call) reaps the completions, issues the next chunks and
 *    ends requests.  With 1023 URING_CMDs in flight (the ring's completion
 *    queue) more requests wait in the library and are issued in order as
 *    others end.
 *  - worker threads (the fallback, HIXL_NO_URING): a pool of 4 library
 *    threads (started on the first call) issues the blocking TRANSFER
 *    ioctl; requests wait in the library until a thread is free.
 * Either way requests start in submission order and several run at once
 * (the kernel queues them on the link in that order); results, statuses
 * and failed indexes are the same.  The library's copy of @descs stays
 * until the request ends: the kernel may read it late.
 *
 * Return: 0 (the request is WAITING or already done); -EINVAL as
 * hixl_transfer_sync() for the arguments it checks before queueing (NULL,
 * op, count, timeout, a malformed name), and for @args: NULL, unknown
 * flags, a tag with bit 63 set, reserved not 0; -ENOMEM; -EAGAIN no library thread
 * could be started; io_uring only: -EAGAIN, -EBUSY, -ENOMEM or another
 * -errno of io_uring_enter(2) when the ring did not take the submission;
 * -ESHUTDOWN the engine is being finalized.
 */
int hixl_transfer_async(struct hixl_engine *eng, const char *remote_engine, enum hixl_op op,
			const struct hixl_op_desc *descs, size_t count,
			const struct hixl_transfer_args *args, struct hixl_request **req);

/**
 * hixl_get_transfer_status() - an asynchronous transfer's state (HIXL
 * GetTransferStatus)
 * @eng: the engine the request was made on
 * @req: the request
 * @st:  out: its state
 *
 * Return: 0; -EINVAL for NULL arguments or a request of another engine.
 */
int hixl_get_transfer_status(struct hixl_engine *eng, struct hixl_request *req,
			     enum hixl_transfer_status *st);

/**
 * hixl_get_transfer_statuses() - the states of several requests at once
 * @eng:   the engine
 * @reqs:  @count requests of @eng
 * @count: number of requests (0 is allowed)
 * @st:    out: @count states, @st[i] for @reqs[i]
 *
 * Return: the number of requests no longer WAITING (0..@count), or -EINVAL
 * for NULL arrays (with @count > 0), a NULL request or one of another engine
 * (nothing is written then).
 */
int hixl_get_transfer_statuses(struct hixl_engine *eng, struct hixl_request *const *reqs,
			       size_t count, enum hixl_transfer_status *st);

/**
 * hixl_request_wait() - wait for an asynchronous transfer to end
 * @eng:        the engine
 * @req:        the request
 * @timeout_ms: ms to wait; < 0: until it ends (every request ends within
 *              its own timeout); 0: do not wait
 * @st:         out, may be NULL: its state on return
 *
 * Return: 0 when it is no longer WAITING; -ETIMEDOUT when it still is after
 * @timeout_ms; -EINVAL for NULL arguments or a request of another engine.
 */
int hixl_request_wait(struct hixl_engine *eng, struct hixl_request *req, int timeout_ms,
		      enum hixl_transfer_status *st);

/**
 * hixl_request_result() - how an asynchronous transfer ended
 * @req:          the request
 * @failed_index: out, may be NULL: as hixl_transfer_sync() sets it (the
 *                request's count while WAITING)
 *
 * Return: 0 when COMPLETED; -EINPROGRESS while WAITING; the -errno that
 * made it TIMEOUT (-ETIMEDOUT) or FAILED (as hixl_transfer_sync(), or
 * -ECANCELED when it was cancelled: hixl_request_cancel(), the engine was
 * finalized, or a HIXL_IOC_CANCEL of its tag); -EINVAL for NULL @req.
 */
int hixl_request_result(const struct hixl_request *req, size_t *failed_index);

/**
 * hixl_request_user_data() - the user_data given to hixl_transfer_async()
 * @req: the request
 *
 * Return: that pointer; NULL for NULL @req.
 */
void *hixl_request_user_data(const struct hixl_request *req);

/**
 * hixl_request_free() - free a request
 * @req: the request, or NULL (nothing happens)
 *
 * A request still WAITING is detached: it runs to its end and the library
 * frees it then.  @req is invalid afterwards either way.
 */
void hixl_request_free(struct hixl_request *req);

/* hixl_get_all_transfer_status() flags */
#define HIXL_QUERY_SKIP_WAITING	(1U << 0)	/* list only requests that ended */

/**
 * struct hixl_transfer_result - one request of hixl_get_all_transfer_status()
 * (HIXL TransferResult)
 * @req:       the request (still the caller's to hixl_request_free())
 * @user_data: its hixl_transfer_async() user_data
 * @status:    its enum hixl_transfer_status
 * @err:       hixl_request_result()'s value: 0, or the -errno it ended with
 *             (-EINPROGRESS while WAITING)
 */
struct hixl_transfer_result {
	struct hixl_request *req;
	void *user_data;
	int32_t status;
	int32_t err;
};

/**
 * hixl_get_all_transfer_status() - the engine's asynchronous requests and
 * their states (HIXL GetTransferStatus(GetTransferStatusArgs, results))
 * @eng:   the engine
 * @flags: HIXL_QUERY_* bits
 * @out:   array of @max entries, may be NULL when @max is 0
 * @max:   entries to write at most (HIXL's max_query_count)
 *
 * Walks the requests of @eng not freed yet, oldest first.  A request that
 * has ended (COMPLETED, TIMEOUT, FAILED) is listed once: after a call has
 * written it, later calls leave it out (HIXL erases it; here it stays
 * valid until hixl_request_free()).  WAITING requests are listed each time
 * unless @flags has HIXL_QUERY_SKIP_WAITING.  Requests freed while WAITING
 * (detached) are not listed.
 *
 * With @max 0 nothing is written or marked, and the call counts the
 * requests it would list: the size to give @out.
 *
 * Return: entries written (0..@max), or with @max 0 the count; -EINVAL
 * for NULL @eng, NULL @out with @max > 0, or an unknown flag.
 */
int hixl_get_all_transfer_status(struct hixl_engine *eng, uint32_t flags,
				 struct hixl_transfer_result *out, size_t max);

/* ---- notifications ---- */

/**
 * hixl_send_notify() - send a small message to a connected peer (HIXL
 * SendNotify)
 * @eng:           the engine
 * @remote_engine: a connected peer's name
 * @name:          the notification's name, NUL-terminated, 1..1024 bytes
 *                 (HIXL_NOTIFY_MAX_NAME) without the NUL
 * @msg:           the message, @msg_len bytes (may be NULL when 0)
 * @msg_len:       bytes, 0..1024 (HIXL_NOTIFY_MAX_MSG)
 * @timeout_ms:    ms, > 0.  The module bounds the wait for the send's
 *                 completion itself (10 s) and takes no timeout yet: the
 *                 value is checked, not used
 *
 * Returns once the peer's adapter holds the notification.  A peer whose
 * queue for this link is full (4096) drops it and counts it.
 *
 * Return: 0;
 *  -EINVAL   NULL arguments, an empty or too long name, msg_len > 1024,
 *            timeout <= 0, a malformed name;
 *  -ENOTCONN no link (HIXL NOT_CONNECTED);  -EAGAIN still connecting;
 *  -ECOMM    the link broke (the module's -ECONNRESET, -ENETDOWN,
 *            -ETIMEDOUT or -EIO): HIXL NOTIFY_FAILED;
 *  -EFAULT.
 */
int hixl_send_notify(struct hixl_engine *eng, const char *remote_engine, const char *name,
		     const void *msg, size_t msg_len, int timeout_ms);

/**
 * hixl_get_notifies() - fetch received notifications (HIXL GetNotifies)
 * @eng:     the engine
 * @out:     array of @max entries (each about 2 KiB); name and msg are not
 *           NUL-terminated (see name_len, msg_len); @out[i].from is the
 *           sender's name (hixl_format_engine_name() prints it)
 * @max:     entries @out holds, >= 1 (more than 2^32 - 1 is clamped)
 * @count:   out: entries written, oldest first; the rest stay queued
 * @dropped: out, may be NULL: notifications dropped (a full queue) since
 *           the last call
 *
 * Does not wait: @count is 0 when nothing arrived (hixl_get_notifies_timeout()
 * waits; hixl_engine_event_fd() tells an event loop when to call).
 *
 * Return: 0; -EINVAL for NULL @eng, @out or @count, or @max 0; -EFAULT.
 */
int hixl_get_notifies(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
		      size_t *count, uint64_t *dropped);

/* ---- event loops (HIXL_0.2) ------------------------------------------------------- */

/**
 * hixl_engine_event_fd() - a descriptor an event loop polls for the engine
 * @eng: the engine
 *
 * For poll(2), select(2), epoll(7) or io_uring's IORING_OP_POLL_ADD: the
 * descriptor is readable (POLLIN / EPOLLIN) while
 *  - an asynchronous request of @eng has ended and no status call has
 *    reported that end yet: hixl_get_transfer_status(),
 *    hixl_get_transfer_statuses(), hixl_request_wait(),
 *    hixl_request_wait_any() returning it, hixl_get_all_transfer_status()
 *    writing it (hixl_request_result() does not count: it only reads), or
 *    hixl_request_free() of it.  Requests freed while WAITING never
 *    count.  Both asynchronous paths (hixl_engine_async_path()) signal
 *    it, after the request's state changed: a status call made on the
 *    wake-up finds it ended;
 *  - notifications are queued on the engine, until hixl_get_notifies()
 *    or hixl_get_notifies_timeout() took them all - with a module that
 *    offers HIXL_FEAT_POLL (hixl_engine_caps()); without it the
 *    descriptor reports request ends only.
 * Level-triggered: it stays readable until the calls above have consumed
 * what made it so, so a loop that handles everything it finds never
 * misses an event and never needs EPOLLET.  The library resets it itself
 * in those calls: the caller never reads, writes or closes it.
 *
 * It is an epoll(7) descriptor (an eventfd the library keeps and the
 * engine's /dev/hixl in one set), made by the first call; later calls
 * return the same one.  Owned by the engine: valid until
 * hixl_engine_finalize(), close-on-exec.
 *
 * Return: the descriptor (>= 0); -EINVAL for NULL @eng; -EMFILE,
 * -ENFILE, -ENOMEM when it cannot be made.
 */
int hixl_engine_event_fd(struct hixl_engine *eng);

/**
 * hixl_request_wait_any() - wait until one of several requests has ended
 * @eng:        the engine
 * @reqs:       @n requests of @eng (a request may appear twice)
 * @n:          >= 1
 * @timeout_ms: ms to wait; < 0: until one ends (each ends within its own
 *              timeout); 0: do not wait
 * @index:      out: on success, the lowest i whose @reqs[i] is no longer
 *              WAITING
 *
 * Sleeps on the engine's condition variable, which both asynchronous
 * paths signal when they end a request (no polling).  Reports only
 * @reqs[*@index]'s end (hixl_engine_event_fd()); call again, or
 * hixl_get_transfer_statuses(), for the others.  @reqs must not be
 * freed by another thread meanwhile.
 *
 * Return: 0; -ETIMEDOUT when all are still WAITING after @timeout_ms;
 * -EINVAL for NULL @eng, @reqs or @index, @n 0, a NULL request or one of
 * another engine.
 */
int hixl_request_wait_any(struct hixl_engine *eng, struct hixl_request *const *reqs, size_t n,
			  int timeout_ms, size_t *index);

/**
 * hixl_request_cancel() - cancel one asynchronous transfer
 * @eng: the engine
 * @req: a request of @eng, not freed (nor freed by another thread during
 *       the call)
 *
 * A request still queued in the library ends at once.  A running one gets
 * the kernel's HIXL_IOC_CANCEL of its tag (on either path: it finds the
 * request's batch however it was submitted; io_uring's own
 * IORING_OP_ASYNC_CANCEL does not reach a hixl URING_CMD once issued),
 * repeated every 100 ms until the request has ended, since a CANCEL that
 * arrives before the TRANSFER reached the kernel's transfer queue misses
 * it; and no further chunk of a request longer than HIXL_MAX_DESCS is
 * issued.  The kernel posts nothing more of the batch and ends it once
 * the work requests already on the wire have completed, so the call
 * returns within one such round trip; the link stays up.  When the
 * module has HIXL_FEAT_CANCEL_REVOKE, AutoConnect is on and no other
 * request to the same peer and no hixl_transfer_sync() of the engine is
 * running, the cancel revokes instead (HIXL_CANCEL_REVOKE): the link's QP
 * is flushed at once, the call returns within milliseconds, and the next
 * call to that peer connects again by itself (docs/abi.md, "Revoking
 * cancel").
 *
 * The request then is FAILED, hixl_request_result() -ECANCELED, its
 * failed index the first descriptor not known to be complete: those
 * before it were transferred whole; from it on, a descriptor may be
 * untouched, partly or wholly transferred (RDMA writes already posted
 * reach the remote memory).  A request that ended before the cancel took
 * effect keeps its own outcome (COMPLETED, TIMEOUT, FAILED): look at its
 * status.  Either way it is ended when the call returns, its end unseen
 * until a status call (hixl_engine_event_fd()), and its buffers are free
 * to reuse.
 *
 * The kernel cancels by tag: requests given the same caller's tag
 * (hixl_transfer_args.tag) are one group, and those of them running in
 * the kernel end -ECANCELED too (the call waits for @req only).  With the
 * library's own tags (tag 0 in the args) it is @req alone.
 *
 * Return: 0 (the request has ended: its status says how); -EALREADY when
 * it had ended before the call; -EINVAL for NULL arguments or a request
 * of another engine.
 */
int hixl_request_cancel(struct hixl_engine *eng, struct hixl_request *req);

/**
 * hixl_get_notifies_timeout() - hixl_get_notifies() that waits for one
 * @eng, @out, @max, @count: as for hixl_get_notifies()
 * @dropped:    out, may be NULL: notifications dropped since the last
 *              call, also on -ETIMEDOUT
 * @timeout_ms: ms to wait for at least one notification; < 0: until one
 *              arrives; 0: do not wait (hixl_get_notifies() with
 *              -ETIMEDOUT for none)
 *
 * Takes what is queued at once; with nothing queued, sleeps in poll(2) on
 * the engine's /dev/hixl (HIXL_FEAT_POLL: readable while notifications are
 * queued) and takes them when they come.  A notification another thread
 * takes first is no wake-up: the wait goes on for the time left.
 *
 * Return: 0 with @count >= 1; -ETIMEDOUT (@count 0) when none came within
 * @timeout_ms; -EOPNOTSUPP (@count 0) when none is queued and the module
 * lacks HIXL_FEAT_POLL, so waiting is impossible; -EINVAL as
 * hixl_get_notifies(); -EFAULT; -EINTR is not returned (a signal
 * restarts the wait with the time left).
 */
int hixl_get_notifies_timeout(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
			      size_t *count, uint64_t *dropped, int timeout_ms);

/* ---- capabilities and errors ---------------------------------------------------- */

/* hixl_get_capability() features: HIXL's FeatureType, the same values */
enum hixl_feature {
	HIXL_FEATURE_AUTO_CONNECT = 0,		/* the "AutoConnect" option */
	HIXL_FEATURE_CLIENT_SERVER_COMM = 1,	/* either end of a link may transfer
						 * and notify: the accepting engine
						 * too, not only the connecting one */
};

/**
 * hixl_get_capability() - whether the library has a feature (HIXL
 * GetCapability)
 * @feature: an enum hixl_feature value (any int32_t)
 * @value:   out: 1 supported, 0 not (an unknown feature is 0, as in HIXL)
 *
 * Return: 0; -EINVAL for NULL @value.
 */
int hixl_get_capability(int32_t feature, int32_t *value);

/**
 * hixl_last_error() - what the last failing call of this thread said
 * (HIXL GetRecentErrMsg)
 *
 * These calls record, when they fail, one line per thread naming the call,
 * its object (the peer, the region, the handle) and the error, e.g.
 * "hixl_connect(10.77.0.2:16000): Connection refused (-ECONNREFUSED)":
 * hixl_engine_init(), hixl_register_mem(), hixl_deregister_mem(),
 * hixl_connect(), hixl_connect_async(), hixl_disconnect(),
 * hixl_disconnect_async(), hixl_transfer_sync(), hixl_transfer_async() and
 * hixl_send_notify() (at most 255 characters).  Errors met later on
 * library threads (an asynchronous connect's, a request's) are not
 * recorded: hixl_get_connect_status() and hixl_request_result() return
 * them.  A successful call does not clear it.
 *
 * Return: the thread's last message, "" when none; valid until the thread's
 * next failing call.  Never NULL.
 */
const char *hixl_last_error(void);

/* ---- user allocators (aclrtAllocatorRegister) ------------------------------------ */

/*
 * A user allocator supplies the memory the library needs per submission
 * queue (seeds/001_aclrtAllocatorRegister.md).  An engine's submission queue
 * is where hixl_transfer_async() requests wait; the memory it takes from the
 * allocator is each request's copy of its descriptor array, taken when the
 * request is submitted and given back when it is freed (hixl_request_free(),
 * or hixl_engine_finalize() for requests the caller never freed).  The
 * staging pool is kernel memory (HIXL_IOC_SETUP) and does not come from it.
 *
 * Rules: the last hixl_allocator_register() on an engine wins; a request is
 * always freed with the allocator it was allocated with, so one may switch
 * allocators while requests are in flight.  One allocator may serve several
 * engines: its callbacks are then called from several threads at once (the
 * submitting threads, and the engine's reaper or worker threads for the
 * frees of requests the library frees itself), so they must be thread-safe, and @obj
 * must outlive every engine it is registered on.  A block must stay valid
 * until free_block is called for it.
 */

/* Returns a block of at least @size bytes, or NULL (the call gets -ENOMEM). */
typedef void *(*hixl_alloc_fn)(void *obj, size_t size);
/* Gives a block back. */
typedef void (*hixl_free_fn)(void *obj, void *block);
/* The address of a block's memory (aclrtAllocatorGetAddrFromBlockFunc). */
typedef void *(*hixl_block_addr_fn)(void *obj, void *block);

struct hixl_allocator_desc;	/* opaque */

/**
 * hixl_allocator_desc_create() - a new, empty allocator descriptor
 *	(aclrtAllocatorCreateDesc)
 * @desc: out: the descriptor
 *
 * Return: 0; -EINVAL for NULL @desc; -ENOMEM.
 */
int hixl_allocator_desc_create(struct hixl_allocator_desc **desc);

/**
 * hixl_allocator_desc_destroy() - free a descriptor (aclrtAllocatorDestroyDesc)
 * @desc: the descriptor, or NULL (nothing happens).  Engines keep their own
 *        copy: destroying a registered descriptor is allowed.
 */
void hixl_allocator_desc_destroy(struct hixl_allocator_desc *desc);

/**
 * hixl_allocator_set_obj() - the object passed to every callback
 *	(aclrtAllocatorSetObjToDesc)
 * @desc: the descriptor
 * @obj:  the allocator object (may be NULL)
 *
 * Return: 0; -EINVAL for NULL @desc.
 */
int hixl_allocator_set_obj(struct hixl_allocator_desc *desc, void *obj);

/**
 * hixl_allocator_set_alloc_func() - (aclrtAllocatorSetAllocFuncToDesc)
 * @desc: the descriptor
 * @fn:   allocates a block
 *
 * Return: 0; -EINVAL for NULL @desc or @fn.
 */
int hixl_allocator_set_alloc_func(struct hixl_allocator_desc *desc, hixl_alloc_fn fn);

/**
 * hixl_allocator_set_free_func() - (aclrtAllocatorSetFreeFuncToDesc)
 * @desc: the descriptor
 * @fn:   frees a block
 *
 * Return: 0; -EINVAL for NULL @desc or @fn.
 */
int hixl_allocator_set_free_func(struct hixl_allocator_desc *desc, hixl_free_fn fn);

/**
 * hixl_allocator_set_block_addr_func() - the address of a block's memory
 *	(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)
 * @desc: the descriptor
 * @fn:   returns the usable address of a block (its memory must hold the
 *        size asked for, aligned for 8-byte fields)
 *
 * Return: 0; -EINVAL for NULL @desc or @fn.
 */
int hixl_allocator_set_block_addr_func(struct hixl_allocator_desc *desc, hixl_block_addr_fn fn);

/**
 * hixl_allocator_register() - use an allocator for an engine's submission
 *	queue (aclrtAllocatorRegister)
 * @eng:  the engine (its submission queue)
 * @desc: a descriptor with all three callbacks set, copied; NULL goes back
 *        to the library's own malloc()
 *
 * Return: 0; -EINVAL for NULL @eng, or a descriptor missing a callback.
 */
int hixl_allocator_register(struct hixl_engine *eng, const struct hixl_allocator_desc *desc);

/*
 * The layout of the public structs, checked by every caller's compiler: a
 * program built with other packing or alignment fails to compile instead
 * of handing the library structs it reads differently.  (The library's
 * own side is checked by abidiff against lib/libhixl-user.abi in make
 * check; the kernel ABI by uapi/rdma/hixl_layout.h.)
 */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define HIXL_LAYOUT_ASSERT(e, name)	static_assert(e, #name)
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HIXL_LAYOUT_ASSERT(e, name)	_Static_assert(e, #name)
#else
#define HIXL_LAYOUT_ASSERT(e, name)	typedef char hixl_layout_##name[(e) ? 1 : -1]
#endif
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_mem_desc) == 128, mem_desc_size);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_mem_desc, flags) == 16, mem_desc_flags);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_mem_desc, dmabuf_fd) == 20, mem_desc_dmabuf_fd);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_mem_desc, dmabuf_offset) == 24, mem_desc_dmabuf_offset);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_mem_desc, reserved) == 32, mem_desc_reserved);
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_mem_info) == 64, mem_info_size);
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_staged_stats) == 64, staged_stats_size);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_mem_info, source) == 24, mem_info_source);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_transfer_args, flags) == 4, transfer_args_flags);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_transfer_args, tag) == 8, transfer_args_tag);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_transfer_args, user_data) == 16, transfer_args_user_data);
#if UINTPTR_MAX == UINT64_MAX
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_transfer_args) == 64, transfer_args_size);
#endif
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_option) == 2 * sizeof(void *), option_size);
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_connect_entry) == HIXL_ENGINE_NAME_MAX + 8, connect_entry_size);
HIXL_LAYOUT_ASSERT(offsetof(struct hixl_transfer_result, status) == 2 * sizeof(void *),
		   transfer_result_status);
HIXL_LAYOUT_ASSERT(sizeof(struct hixl_transfer_result) == 2 * sizeof(void *) + 8,
		   transfer_result_size);

#ifdef __cplusplus
}
#endif

#endif /* HIXL_HIXL_H */
