/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hixl_priv.h - internal types and prototypes of hixl.ko.
 *
 * One open file of /dev/hixl is one engine (struct hixl_engine).  Commands
 * reach an engine through hixl_engine_ioctl(), which the ioctl entry point
 * and, later, the uring_cmd entry point share.
 */
#ifndef _HIXL_PRIV_H
#define _HIXL_PRIV_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <kunit/visibility.h>

#include "../uapi/hixl.h"
#include "compat.h"

/* Limits, module parameters (main.c); read them with READ_ONCE(). */
extern unsigned int hixl_max_regions;
extern unsigned long hixl_max_host_bytes;
extern unsigned long hixl_max_device_bytes;
extern unsigned int hixl_max_links;

#define HIXL_NOTIFY_NAME_MAX	1024
#define HIXL_NOTIFY_MSG_MAX	1024
#define HIXL_NOTIFY_PENDING_MAX	4096

/**
 * struct hixl_engine - state of one open file of /dev/hixl
 * @lock:   serialises commands that change the engine's state; taken by
 *          the command handlers that need it (none yet: GET_INFO reads only
 *          module parameters)
 * @owner:  thread-group leader of the opener, for diagnostics
 */
struct hixl_engine {
	struct mutex lock;
	struct pid *owner;
};

struct hixl_engine *hixl_engine_create(void);
void hixl_engine_destroy(struct hixl_engine *eng);
long hixl_engine_ioctl(struct hixl_engine *eng, unsigned int cmd,
		       void __user *uarg);

int hixl_cmd_get_info(struct hixl_engine *eng, struct hixl_info *info);

#endif /* _HIXL_PRIV_H */
