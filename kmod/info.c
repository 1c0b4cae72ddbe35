// SPDX-License-Identifier: GPL-2.0
/* info.c - HIXL_IOC_GET_INFO: ABI version, features and limits in force. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "main.h"

/**
 * hixl_cmd_get_info() - validate and answer a GET_INFO request
 * @eng:  the asking engine (unused)
 * @info: in: the request, in kernel memory; out: the answer
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL if a flag or reserved field is non-zero.
 */
int hixl_cmd_get_info(struct hixl_engine *eng, struct hixl_info *info)
{
	if (info->flags)
		return hixl_einval("GET_INFO: flags 0x%x has unknown bits", info->flags);
	if (info->reserved0 || info->reserved1 ||
	    memchr_inv(info->reserved, 0, sizeof(info->reserved)))
		return hixl_einval("GET_INFO: reserved is not zero");

	memset(info, 0, sizeof(*info));
	info->abi_version = HIXL_ABI_VERSION;
	info->features = HIXL_FEAT_ALL;
	info->max_regions = READ_ONCE(hixl_max_regions);
	info->max_host_bytes = READ_ONCE(hixl_max_host_bytes);
	info->max_device_bytes = READ_ONCE(hixl_max_device_bytes);
	info->max_links = READ_ONCE(hixl_max_links);
	info->max_notify_name = HIXL_NOTIFY_NAME_MAX;
	info->max_notify_msg = HIXL_NOTIFY_MSG_MAX;
	info->max_notify_pending = HIXL_NOTIFY_PENDING_MAX;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_get_info);
