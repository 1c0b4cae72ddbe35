// SPDX-License-Identifier: MIT
/*
 * status.c - libhixl-user: the status codes of the HIXL API
 * (hixl_status_from_errno(), hixl_status_str()), what an errno means in
 * hixl and what to do about it (hixl_strerror(), hixl_error_hint()), the
 * per-thread last error message (hixl_last_error(), HIXL's
 * GetRecentErrMsg) and the capability query (hixl_get_capability(),
 * HIXL's GetCapability).
 */
/* strerrorname_np(): glibc 2.32, _GNU_SOURCE (set by the Makefile) */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

#define HIXL_ERRMSG_MAX	256

static __thread char last_error[HIXL_ERRMSG_MAX];

/*
 * Record "<what>: strerror (-ENAME)" as this thread's last error when err
 * is negative, what being printf(fmt, ...) ("hixl_connect(10.0.0.2:16000)"),
 * and return err: the public functions end with "return hixl_failf(ret,
 * ...)" or hixl_fail().
 */
int hixl_failf(int err, const char *fmt, ...)
{
	int saved = errno, n;
	char buf[128], suffix[160];
	const char *name;
	size_t room;
	va_list ap;

	if (err >= 0)
		return err;
	name = strerrorname_np(-err);
	snprintf(suffix, sizeof(suffix), ": %s (-%s)", strerror_r(-err, buf, sizeof(buf)),
		 name ? name : "E?");
	va_start(ap, fmt);
	n = vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	/* a message too long is cut short ("..."), never the error's name */
	room = sizeof(last_error) - 1 - strlen(suffix);
	if (n < 0)
		n = 0;
	if ((size_t)n > room) {
		n = (int)room;
		memcpy(last_error + n - 3, "...", 3);
	}
	strcpy(last_error + n, suffix);
	errno = saved;
	return err;
}

int hixl_fail(const char *fn, const char *obj, int err)
{
	return err < 0 ? hixl_failf(err, "%s(%.*s)", fn, HIXL_ENGINE_NAME_MAX, obj ? obj : "") : err;
}

HIXL_EXPORT const char *hixl_last_error(void)
{
	return last_error;
}

HIXL_EXPORT int hixl_get_capability(int32_t feature, int32_t *value)
{
	if (!value)
		return -EINVAL;
	switch (feature) {
	case HIXL_FEATURE_AUTO_CONNECT:
	case HIXL_FEATURE_CLIENT_SERVER_COMM:
		*value = 1;
		break;
	default:
		*value = 0;
		break;
	}
	return 0;
}

HIXL_EXPORT enum hixl_status hixl_status_from_errno(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return HIXL_SUCCESS;
	case EINVAL: case EOVERFLOW: case EFAULT: case EBADF: case ERANGE:
	case ENOENT: case EACCES: case EAFNOSUPPORT: case EEXIST:
		return HIXL_PARAM_INVALID;
	case ENOPKG:
		return HIXL_NO_MODULE;
	case EPERM:
		return HIXL_NO_PERMISSION;
	case ETIMEDOUT:
		return HIXL_TIMEOUT;
	case ENOTCONN:
		return HIXL_NOT_CONNECTED;
	case EISCONN: case EALREADY:
		return HIXL_ALREADY_CONNECTED;
	case ECOMM:
		return HIXL_NOTIFY_FAILED;
	case EOPNOTSUPP: case ENOTTY: case EPROTO:
		return HIXL_UNSUPPORTED;
	case ENOSPC: case E2BIG: case ENOMEM: case EMFILE: case ENFILE:
		return HIXL_RESOURCE_EXHAUSTED;
	default:
		return HIXL_FAILED;
	}
}

HIXL_EXPORT const char *hixl_status_str(enum hixl_status st)
{
	static const char *const names[] = {
		[HIXL_SUCCESS] = "SUCCESS",
		[HIXL_PARAM_INVALID] = "PARAM_INVALID",
		[HIXL_TIMEOUT] = "TIMEOUT",
		[HIXL_NOT_CONNECTED] = "NOT_CONNECTED",
		[HIXL_ALREADY_CONNECTED] = "ALREADY_CONNECTED",
		[HIXL_NOTIFY_FAILED] = "NOTIFY_FAILED",
		[HIXL_UNSUPPORTED] = "UNSUPPORTED",
		[HIXL_RESOURCE_EXHAUSTED] = "RESOURCE_EXHAUSTED",
		[HIXL_FAILED] = "FAILED",
		[HIXL_NO_MODULE] = "NO_MODULE",
		[HIXL_NO_PERMISSION] = "NO_PERMISSION",
	};

	if ((unsigned int)st >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN";
	return names[st];
}

/*
 * hixl's meaning of each errno the library or the module returns (from the
 * kernel-doc of kmod/ and lib/, and docs/abi.md), and a hint where the fix
 * lies outside the program (a module, a group, a limit, an RDMA device).
 * String literals only: nothing is written at run time.
 */
static const struct hixl_errmsg {
	int err;
	const char *what;
	const char *hint;
} errmsgs[] = {
	{ EINVAL, "an invalid argument: NULL, a malformed engine name or option, an unknown "
	  "flag, a non-zero reserved field, a length of 0 or a value out of range",
	  "the module says which field: echo 'module hixl +p' > "
	  "/sys/kernel/debug/dynamic_debug/control; then dmesg" },
	{ EOVERFLOW, "an address range wraps around (addr + len overflows)", NULL },
	{ EFAULT, "memory named by the call is not (entirely) mapped user memory, or could "
	  "not be read or written", NULL },
	{ EBADF, "not an open file descriptor, or not a dma-buf where one was expected", NULL },
	{ ERANGE, "the remote range is not inside a region the peer registered", NULL },
	{ ENOENT, "not found: a local range outside this engine's registrations (or "
	  "unregistered memory with the staging pool off), a handle that names no "
	  "registration, or a missing file", NULL },
	{ EACCES, "access refused: a write into a read-only region (or a read-only mapping "
	  "registered without HIXL_REG_READ_ONLY), or the peer refused the link (its "
	  "allowed peers or engine secret)", NULL },
	{ EPERM, "not permitted: the caller may not open /dev/hixl, or the engine belongs "
	  "to another process (a forked child, a receiver of the fd), or io_uring is "
	  "disabled (kernel.io_uring_disabled)",
	  "/dev/hixl is for the group hixl: sudo usermod -aG hixl $USER, then log in "
	  "again; an engine is usable only by the process that made it" },
	{ ENOPKG, "a kernel module is missing: hixl.ko is not loaded (no /dev/hixl), or "
	  "the kernel has no hmac(sha256) for an engine secret",
	  "load the module: sudo modprobe hixl (install it first with sudo make "
	  "install-module); hixlctl check says what else is missing" },
	{ EAFNOSUPPORT, "an address family hixl does not handle (IPv4 and IPv6 only)", NULL },
	{ EEXIST, "the range overlaps one of this engine's registrations", NULL },
	{ ETIMEDOUT, "timed out: the peer did not answer or the transfer did not complete "
	  "within its timeout", NULL },
	{ ENOTCONN, "not connected to that remote engine", NULL },
	{ EISCONN, "already connected to that remote engine", NULL },
	{ EALREADY, "already in progress: a connect to that engine is running, the "
	  "engine is already set up, or the request to cancel had already ended", NULL },
	{ ECOMM, "the notification could not be delivered: the link broke", NULL },
	{ EOPNOTSUPP, "not supported by this module or RDMA device (e.g. no "
	  "fast-registration MRs, a feature an older hixl.ko lacks)", NULL },
	{ ENOTTY, "not a hixl device, or a command this module does not know (an older "
	  "hixl.ko)", NULL },
	{ EPROTO, "another version: the module speaks another ABI version than this "
	  "library, the library is older than the program was built for "
	  "(hixl_version_check()), or the peer broke the wire protocol",
	  "install hixl.ko and libhixl-user of the same release (hixlctl check)" },
	{ ENOSPC, "a count limit reached: registrations per process (max_regions) or links "
	  "per engine (max_links)", NULL },
	{ E2BIG, "a byte limit reached (max_host_bytes or max_device_bytes per process), "
	  "or an argument with fields this module does not know (a library newer than "
	  "hixl.ko)",
	  "raise the module parameter (hixlctl info shows the limits in force); or "
	  "install hixl.ko and libhixl-user of the same release" },
	{ ENOMEM, "out of memory, or the locked-memory limit (RLIMIT_MEMLOCK) is too small "
	  "for the registration",
	  "raise the memlock limit: ulimit -l (limits.conf, systemd LimitMEMLOCK=); "
	  "hixlctl check --size SIZE compares it with what you register" },
	{ EMFILE, "too many open files in this process", NULL },
	{ ENFILE, "too many open files in the system", NULL },
	{ EADDRNOTAVAIL, "the engine's address is not an address of this host",
	  "name the engine by the IP of an RDMA device (rdma link shows them; for "
	  "Soft-RoCE: sudo rdma link add rxe0 type rxe netdev ETH); see hixlctl check" },
	{ ENODEV, "no RDMA device owns the engine's address, or the RDMA device went away",
	  "name the engine by the IP of an RDMA device (rdma link shows them; for "
	  "Soft-RoCE: sudo rdma link add rxe0 type rxe netdev ETH); see hixlctl check" },
	{ EADDRINUSE, "another engine listens on that address and port", NULL },
	{ EBADFD, "the engine is not set up (no SETUP yet)", NULL },
	{ EXDEV, "the route to the peer leaves the engine's RDMA device", NULL },
	{ EHOSTUNREACH, "no route to the peer", NULL },
	{ ENETUNREACH, "no route to the peer's network", NULL },
	{ ECONNREFUSED, "nobody listens at the peer's address and port", NULL },
	{ ECONNRESET, "the link was reset: the peer went away or its RDMA device was "
	  "removed", NULL },
	{ ECONNABORTED, "the link was torn down while the call ran (a disconnect from "
	  "another thread)", NULL },
	{ ENETDOWN, "the link is down", NULL },
	{ EHOSTDOWN, "the peer stopped answering (hung, powered off or unreachable): the "
	  "link is broken", "a new connect replaces the link once the peer is back "
	  "(AutoConnect does it); the module's keepalive_ms sets how soon a silent peer "
	  "is noticed" },
	{ EIO, "an RDMA work request failed: the link is broken until disconnected", NULL },
	{ EREMOTEIO, "the peer failed a staged descriptor with an error of its own", NULL },
	{ ECANCELED, "cancelled (hixl_request_cancel(), a CANCEL of its tag, the engine "
	  "finalized, or a fatal signal)", NULL },
	{ EBUSY, "busy: a transfer is using the region, or the object is in use", NULL },
	{ EAGAIN, "try again: the range kept changing while being pinned, or a resource "
	  "was briefly unavailable", NULL },
	{ EINTR, "interrupted by a signal", NULL },
	{ ESHUTDOWN, "the engine is being finalized", NULL },
	{ EINPROGRESS, "still in progress", NULL },
	{ ENOSYS, "the kernel has no io_uring", NULL },
	{ ENOTSOCK, "not a socket (hixl_shareable_handle_send/recv() need an AF_UNIX one)",
	  NULL },
	{ EPIPE, "the socket has no peer (the receiving process closed it)", NULL },
	{ ETOOMANYREFS, "too many descriptors in flight on AF_UNIX sockets (the kernel's "
	  "limit)", NULL },
	{ ENXIO, "a device node without its driver (hixl_dev_open() returns ENOPKG for it)",
	  NULL },
	{ EBADMSG, "a malformed message on the socket (no file descriptor in it)", NULL },
	{ ENAMETOOLONG, "a name is too long", NULL },
};

static const struct hixl_errmsg *errmsg(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(errmsgs) / sizeof(errmsgs[0]); i++)
		if (errmsgs[i].err == err)
			return &errmsgs[i];
	return NULL;
}

HIXL_EXPORT const char *hixl_strerror(int err)
{
	const struct hixl_errmsg *m = errmsg(err);
	const char *s;

	if (!err)
		return "success";
	if (m)
		return m->what;
	s = strerrordesc_np(err < 0 ? -err : err);	/* static, no buffer */
	return s ? s : "unknown error";
}

HIXL_EXPORT const char *hixl_error_hint(int err)
{
	const struct hixl_errmsg *m = errmsg(err);

	return m && m->hint ? m->hint : "";
}
