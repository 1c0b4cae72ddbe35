// SPDX-License-Identifier: MIT
/*
 * notify.c - libhixl-user: notifications: sending one to a peer and
 * taking those received (HIXL_IOC_SEND_NOTIFY, HIXL_IOC_GET_NOTIFIES; the
 * waiting form, hixl_get_notifies_timeout(), is event.c's).
 */
#include "internal.h"

static int send_notify(struct hixl_engine *eng, const char *remote_engine, const char *name,
		       const void *msg, size_t msg_len, int timeout_ms)
{
	struct hixl_send_notify n;
	size_t name_len;
	int ret;

	if (!eng || !name || (msg_len && !msg) || timeout_ms <= 0)
		return -EINVAL;
	name_len = strnlen(name, HIXL_NOTIFY_MAX_NAME + 1);
	if (!name_len || name_len > HIXL_NOTIFY_MAX_NAME || msg_len > HIXL_NOTIFY_MAX_MSG)
		return -EINVAL;
	memset(&n, 0, sizeof(n));
	ret = hixl_parse_engine_name(remote_engine, &n.remote);
	if (ret)
		return ret;
	n.name = (uintptr_t)name;
	n.msg = (uintptr_t)msg;
	n.name_len = (uint32_t)name_len;
	n.msg_len = (uint32_t)msg_len;
	if (eng->auto_connect)
		ret = hixl_auto_connect(eng, &n.remote, hixl_deadline(timeout_ms), false);
	if (!ret)
		ret = hixl_ioctl(eng->fd, HIXL_IOC_SEND_NOTIFY, &n);
	if (ret == -ECONNRESET || ret == -ENETDOWN || ret == -ETIMEDOUT || ret == -EIO ||
	    ret == -EHOSTDOWN)
		ret = -ECOMM;
	return ret;
}

HIXL_EXPORT int hixl_send_notify(struct hixl_engine *eng, const char *remote_engine,
				 const char *name, const void *msg, size_t msg_len, int timeout_ms)
{
	return hixl_fail("hixl_send_notify", remote_engine,
			 HIXL_KEEP_ERRNO(send_notify(eng, remote_engine, name, msg, msg_len,
						     timeout_ms)));
}

HIXL_EXPORT int hixl_get_notifies(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
				  size_t *count, uint64_t *dropped)
{
	return HIXL_KEEP_ERRNO(hixl_do_get_notifies(eng, out, max, count, dropped));
}
