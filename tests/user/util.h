/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - helpers shared by the user tests */
#ifndef HIXL_TEST_UTIL_H
#define HIXL_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <hixl/hixl.h>

int open_dev(void);			/* SKIPs when /dev/hixl is missing */
long xioctl(int fd, unsigned long cmd, void *arg);	/* 0 or -errno */
unsigned long long read_param(const char *name);
int write_param(const char *name, unsigned long long v);	/* 0 or -errno */
long reg_mem(int fd, void *addr, uint64_t len, uint32_t flags, struct hixl_reg_mem *out);
long reg_dev(int fd, uint64_t addr, uint64_t len, int dmabuf_fd, uint64_t off,
	     struct hixl_reg_mem *out);
long dereg_mem(int fd, uint64_t handle);
struct hixl_stats get_stats(int fd);
long vm_pin_kb(void);			/* VmPin of /proc/self/status, kB */
/* wait up to ms milliseconds for the engine's pinned pages to reach want */
int wait_pinned(int fd, uint64_t want, int ms);
/* wait up to ms milliseconds for the engine to count want invalid regions */
int wait_invalid(int fd, uint64_t want, int ms);
/* state of the registration at addr in debugfs: "valid", "suspect",
 * "invalid", or NULL when not found */
const char *region_state(uint64_t addr);
/* a udmabuf of len bytes over a new sealed memfd: the dma-buf fd, or
 * -ENOENT without /dev/udmabuf, or another -errno */
int make_udmabuf(size_t len, int *memfd_out);

#endif
