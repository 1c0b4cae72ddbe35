/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - helpers shared by the user tests */
#ifndef HIXL_TEST_UTIL_H
#define HIXL_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <hixl/hixl.h>

int open_dev(void);			/* SKIPs when /dev/hixl is missing */
long xioctl(int fd, unsigned long cmd, void *arg);	/* 0 or -errno */
unsigned long long read_param(const char *name);
int write_param(const char *name, unsigned long long v);	/* 0 or -errno */
/*
 * Stage every registered host descriptor below 256 KiB (the module's
 * stage_policy=1, the fixed rule of 0.2) for the rest of the test, so that
 * a test of the staging path does not depend on the cost model's choice
 * (the runner restores the parameter after the test).  0 or -errno:
 * REQUIRE(hx_stage_by_size() == 0).
 */
int hx_stage_by_size(void);
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

/* Links and transfers between engines on the test VM's rxe0 (HX_IP). */
#define HX_IP "10.77.0.1"
struct hixl_sockaddr hx_name(uint16_t port);	/* HX_IP:port */
/* an engine set up on HX_IP:port (0: client only) with a staging pool of
 * pool_n x pool_mb MiB (0, 0: none); SKIPs without rxe0; -errno on error */
int hx_engine(uint16_t port, uint32_t pool_n, uint32_t pool_mb);
long hx_connect(int fd, uint16_t port, uint32_t timeout_ms);	/* 0 or -errno */
long hx_disconnect(int fd, uint16_t port);
/* one TRANSFER to HX_IP:port; *failed gets hixl_transfer.failed */
long hx_xfer(int fd, uint16_t port, uint32_t op, const struct hixl_op_desc *d, uint32_t n,
	     uint32_t timeout_ms, uint32_t *failed);
/* a library engine (hixl_engine_init()) named name with n options; SKIPs
 * without /dev/hixl or an RDMA device on the address; NULL (and the error
 * printed) on another error */
struct hixl_engine *hx_lib_engine(const char *name, const struct hixl_option *o, size_t n);
/* hixl_transfer_async()'s args: a timeout (ms) and user data, the rest 0 */
#define HX_TARGS(ms, ud) ((struct hixl_transfer_args){ .timeout_ms = (ms), .user_data = (ud) })
void *hx_map(size_t len);		/* anonymous read-write mapping, or NULL */
void hx_fill(void *p, size_t len, unsigned int seed);	/* pseudo-random bytes */
long hx_first_diff(const void *a, const void *b, size_t len);	/* index, or -1 */
long vm_pin_kb_pid(pid_t pid);		/* VmPin of /proc/PID/status, kB */
int hx_debug_kernel(void);		/* the KASAN/kmemleak test kernel? */
/*
 * make check-long (HIXL_TEST_LONG=1 in the VM)?  Then the long cases that
 * make check runs on the stock kernels only (where they take seconds, not
 * minutes, and the code under test is the same) run on the debug kernel too.
 */
int hx_long(void);
/* tracefs with hixl's event @event (events/hixl/@event): its folder, or NULL */
const char *hx_tracefs(const char *event);
/* write @v to tracefs @dir's @file ("trace", "events/.../enable"): 0 or -1 */
int hx_tracefs_write(const char *dir, const char *file, const char *v);
/* the id of @fd's engine (its ENGINES record flagged SELF), 0 when not found */
uint64_t hx_self_id(int fd);
/* rxe device @dev ("rxe0") has port 1 ACTIVE */
int hx_rxe_active(const char *dev);
/*
 * @dev added back (`rdma link add @dev type rxe netdev @netdev`) if it is
 * gone, or made again if its GSI QP is in ERR (rxe's, after a MAD met a
 * netdev that was down), then up to 10 s for its port to be ACTIVE: 0, or
 * -1 (printed)
 */
int hx_rxe_restore(const char *dev, const char *netdev);
/* tracefs @dir's trace buffer into @buf (@size bytes, NUL-terminated): its length, or -1 */
long hx_tracefs_read(const char *dir, char *buf, size_t size);
int hx_count_engines(void);	/* the module's engines: lines of debugfs hixl/engines; -1 without it */
/*
 * The module's test delay @point (debugfs hixl/test/<point>, e.g.
 * "rx_msg_ms") set to @ms: 0, or -errno (-ENOENT: the module has no test
 * delays, which exist only against a kernel with KUnit: the debug kernel)
 */
int hx_test_delay(const char *point, unsigned int ms);
/* /dev/kmsg from now on, non-blocking: an fd, or -1 */
int hx_kmsg_open(void);
/* wait up to @ms for a kernel log line containing @what on hx_kmsg_open()'s @fd: 1 found, 0 not */
int hx_kmsg_wait(int fd, const char *what, int ms);
double hx_ms_since(const struct timespec *t0);	/* CLOCK_MONOTONIC ms since t0 */
double hx_ms_between(const struct timespec *t0, const struct timespec *t1);	/* ms from t0 to t1 */
int hx_count_fds(void);	/* entries of /proc/self/fd (., .. and the listing's own fd included), -1 on error */
/* the first line of a file, without its newline: 0, or -1 */
int hx_read_line(const char *path, char *buf, size_t len);
/* is [p, p + len) backed by transparent huge pages (AnonHugePages in smaps)? */
int hx_thp_backed(void *p, size_t len);

/* test_gpu.c's fake CUDA driver, for test_gpu_staged.c: load it (SKIPs
 * without it or /dev/udmabuf); its device memory by address, filled and
 * read through its HtoD/DtoH (the CPU never touches it) */
void gpu_fake_load(void);
unsigned long long gpu_dalloc(size_t len);	/* 0 on failure */
int gpu_dfree(unsigned long long p);
int gpu_dfill(unsigned long long p, size_t len, unsigned int seed);
unsigned char *gpu_dread(unsigned long long p, size_t len);	/* free() it; NULL on failure */

#endif
