/* SPDX-License-Identifier: GPL-2.0 */
/* main.h - /dev/hixl, its ioctls, GET_INFO and debugfs */
#ifndef _HIXL_MAIN_H
#define _HIXL_MAIN_H

#include <linux/list.h>
#include <linux/mutex.h>

struct hixl_engine;
struct hixl_info;

struct hixl_engine *hixl_engine_create(void);
void hixl_engine_destroy(struct hixl_engine *eng);
long hixl_engine_ioctl(struct hixl_engine *eng, unsigned int cmd,
		       void __user *uarg);
int hixl_ioctl_canon(unsigned int cmd, unsigned int *canon, size_t *usize);

/* protects hixl_engines, every open engine */
extern struct mutex hixl_engines_lock;
extern struct list_head hixl_engines;

int hixl_cmd_get_info(struct hixl_engine *eng, struct hixl_info *info);

void hixl_debugfs_init(void);
void hixl_debugfs_exit(void);

#endif /* _HIXL_MAIN_H */
