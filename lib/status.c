// SPDX-License-Identifier: MIT
/*
 * status.c - libhixl-user: the status codes of the HIXL API
 * (hixl_status_from_errno(), hixl_status_str()).
 */
#include "internal.h"

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
