// SPDX-License-Identifier: MIT
/*
 * status.c - libhixl-user: the status codes of the HIXL API
 * (hixl_status_from_errno(), hixl_status_str()), the per-thread last
 * error message (hixl_last_error(), HIXL's GetRecentErrMsg) and the
 * capability query (hixl_get_capability(), HIXL's GetCapability).
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
	const char *name;
	char buf[128];
	va_list ap;

	if (err >= 0)
		return err;
	va_start(ap, fmt);
	n = vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(last_error))
		n = 0;
	name = strerrorname_np(-err);
	snprintf(last_error + n, sizeof(last_error) - n, ": %s (-%s)",
		 strerror_r(-err, buf, sizeof(buf)), name ? name : "E?");
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
	};

	if ((unsigned int)st >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN";
	return names[st];
}
