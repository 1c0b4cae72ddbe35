/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raw.h - the raw /dev/hixl calls that the benchmarks, the pair test and the
 * user tests share.  They drive the ioctls of uapi/rdma/hixl.h directly, below
 * libhixl-user's engine API, so each used to carry its own copy of these.
 * Header-only (static inline), so that programs which do not link the library
 * (bench/bench-matrix) can use it too.  A test-only header: found through
 * -Itests/include (TEST_CPPFLAGS in the Makefile), never installed.
 */
#ifndef HIXL_TESTS_RAW_H
#define HIXL_TESTS_RAW_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hixl/uapi.h>

/**
 * hixl_raw_name() - an engine address from an IPv4 address and a port
 * @ip:   dotted IPv4 address, for example "10.77.0.1"
 * @port: port in host order; 0 names a client-only engine
 *
 * Return: the address, family AF_INET, reserved bytes zero.  An @ip that does
 * not parse leaves the address 0.0.0.0, which SETUP and CONNECT refuse.
 */
static inline struct hixl_sockaddr hixl_raw_name(const char *ip, uint16_t port)
{
	struct hixl_sockaddr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	a.port = port;
	inet_pton(AF_INET, ip, a.addr);
	return a;
}

/**
 * hixl_raw_transport() - hixl_setup.transport from HIXL_TRANSPORT
 *
 * "rdma" and "local" as the library takes them; unset or anything else:
 * HIXL_TRANSPORT_AUTO.  The user test runner sets HIXL_TRANSPORT=rdma, so
 * the tests about RDMA keep using rxe between two engines of one host;
 * tests/user/test_local.c sets each engine's transport itself.
 */
static inline uint32_t hixl_raw_transport(void)
{
	const char *v = getenv("HIXL_TRANSPORT");

	if (v && !strcmp(v, "rdma"))
		return HIXL_TRANSPORT_RDMA;
	if (v && !strcmp(v, "local"))
		return HIXL_TRANSPORT_LOCAL;
	return HIXL_TRANSPORT_AUTO;
}

/**
 * hixl_raw_setup() - HIXL_IOC_SETUP on an open engine
 * @fd:      an open /dev/hixl file
 * @ip:      local IPv4 address (see hixl_raw_name())
 * @port:    listening port, 0 for a client-only engine
 * @pool_n:  staging buffers (0 together with @pool_mb 0: no staging pool,
 *           every descriptor a direct RDMA operation)
 * @pool_mb: size of each staging buffer, MiB
 *
 * The default traffic class and service level (uapi/rdma/hixl.h), the
 * transport of hixl_raw_transport().
 *
 * Return: 0, or SETUP's -errno (-EADDRNOTAVAIL or -ENODEV: no RDMA device on
 * @ip; see uapi/rdma/hixl.h for the rest).
 */
static inline int hixl_raw_setup(int fd, const char *ip, uint16_t port, uint32_t pool_n,
				 uint32_t pool_mb)
{
	struct hixl_setup s;

	memset(&s, 0, sizeof(s));
	s.local = hixl_raw_name(ip, port);
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s.pool_buffers = pool_n;
	s.pool_buffer_mb = pool_mb;
	s.transport = hixl_raw_transport();
	return ioctl(fd, HIXL_IOC_SETUP, &s) ? -errno : 0;
}

/**
 * hixl_raw_engine() - open /dev/hixl and set the engine up
 * @ip, @port, @pool_n, @pool_mb: as hixl_raw_setup()
 *
 * Return: the engine's file descriptor (O_CLOEXEC), or -errno: open(2)'s
 * (-ENOENT without the module) or hixl_raw_setup()'s; the file is closed on
 * failure.
 */
static inline int hixl_raw_engine(const char *ip, uint16_t port, uint32_t pool_n,
				  uint32_t pool_mb)
{
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = hixl_raw_setup(fd, ip, port, pool_n, pool_mb);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * hixl_raw_reg_host() - HIXL_IOC_REG_MEM of host memory, read-write
 * @fd:  a set-up engine
 * @p:   first byte
 * @len: bytes
 *
 * Return: 0, or REG_MEM's -errno (uapi/rdma/hixl.h).
 */
static inline int hixl_raw_reg_host(int fd, void *p, size_t len)
{
	struct hixl_reg_mem r;

	memset(&r, 0, sizeof(r));
	r.addr = (uintptr_t)p;
	r.len = len;
	r.type = HIXL_MEM_HOST;
	r.dmabuf_fd = -1;
	return ioctl(fd, HIXL_IOC_REG_MEM, &r) ? -errno : 0;
}

/**
 * struct hixl_raw_pair - two engines of one process, A linked to B, with
 * one buffer each registered (the benchmarks' set-up)
 * @a, @b:     the engines' file descriptors
 * @src, @dst: @len bytes each, page-aligned anonymous memory; @src holds
 *             the pattern (i * 131 + 7), @dst zeroes.  A WRITE moves A's
 *             @src into B's @dst, a READ brings B's @src into A's @dst:
 *             hixl_raw_pair_desc() gives the addresses for either
 * @remote:    B's name, for TRANSFERs of A
 * @len:       bytes of each buffer
 */
struct hixl_raw_pair {
	int a, b;
	unsigned char *src, *dst;
	struct hixl_sockaddr remote;
	size_t len;
};

/**
 * hixl_raw_pair_open() - set up a struct hixl_raw_pair
 * @p:      out
 * @ip:     the engines' address (an RDMA device's)
 * @port_a: A's port; B listens on @port_b
 * @port_b: B's port
 * @len:    bytes of each buffer, rounded up to 4 KiB
 * @op:     HIXL_OP_WRITE (A registers @src, B @dst) or HIXL_OP_READ (A
 *          @dst, B @src)
 * @who:    the program's name, for the messages on stderr
 *
 * No staging pool; CONNECT with a 10 s timeout.  Nothing is undone on
 * failure: the benchmarks exit.
 *
 * Return: 0, or -1 after a message on stderr saying what failed.
 */
static inline int hixl_raw_pair_open(struct hixl_raw_pair *p, const char *ip, uint16_t port_a,
				     uint16_t port_b, size_t len, uint32_t op, const char *who)
{
	struct hixl_connect c;

	memset(p, 0, sizeof(*p));
	p->len = (len + 4095) & ~(size_t)4095;
	p->a = hixl_raw_engine(ip, port_a, 0, 0);
	p->b = hixl_raw_engine(ip, port_b, 0, 0);
	if (p->a < 0 || p->b < 0) {
		fprintf(stderr, "%s: engine setup failed: %s\n", who,
			strerror(-(p->a < 0 ? p->a : p->b)));
		return -1;
	}
	p->src = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p->dst = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->src == MAP_FAILED || p->dst == MAP_FAILED) {
		fprintf(stderr, "%s: mmap of 2 x %zu bytes: %s\n", who, p->len, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < p->len; i++)
		p->src[i] = (unsigned char)(i * 131 + 7);
	memset(p->dst, 0, p->len);
	if (hixl_raw_reg_host(p->a, op == HIXL_OP_WRITE ? p->src : p->dst, p->len) ||
	    hixl_raw_reg_host(p->b, op == HIXL_OP_WRITE ? p->dst : p->src, p->len)) {
		fprintf(stderr, "%s: REG_MEM: %s\n", who, strerror(errno));
		return -1;
	}
	memset(&c, 0, sizeof(c));
	p->remote = c.remote = hixl_raw_name(ip, port_b);
	c.timeout_ms = 10000;
	if (ioctl(p->a, HIXL_IOC_CONNECT, &c)) {
		fprintf(stderr, "%s: CONNECT: %s\n", who, strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * hixl_raw_pair_desc() - descriptor @i of @n equal ones over the buffers
 * @p:     the pair
 * @op:    as given to hixl_raw_pair_open()
 * @d:     out
 * @off:   byte offset into both buffers
 * @len:   bytes
 */
static inline void hixl_raw_pair_desc(const struct hixl_raw_pair *p, uint32_t op,
				      struct hixl_op_desc *d, size_t off, size_t len)
{
	memset(d, 0, sizeof(*d));
	d->local_addr = (uintptr_t)(op == HIXL_OP_WRITE ? p->src : p->dst) + off;
	d->remote_addr = (uintptr_t)(op == HIXL_OP_WRITE ? p->dst : p->src) + off;
	d->len = len;
}

/*
 * hixl_raw_uring_cmd() - fill one SQE with a hixl URING_CMD (uapi/rdma/hixl.h,
 * "io_uring passthrough"), the one copy of the tests, the fuzzers and the
 * benchmarks: liburing 2.3 (Debian 12) has no io_uring_prep_uring_cmd(),
 * and the library's own filler (ring_cmd() in lib/uring.c) is private to
 * it.  Available when <liburing.h> (or <linux/io_uring.h>) was
 * included before this header.
 * @sqe:       from io_uring_get_sqe(); @sqe_bytes of it are written
 * @sqe_bytes: 128 on an IORING_SETUP_SQE128 ring (the command's struct
 *             inline in sqe->cmd), 64 otherwise (a struct hixl_uring_ptr)
 * @fd:        an open /dev/hixl (the engine)
 * @cmd_op:    HIXL_IOC_TRANSFER, HIXL_IOC_SEND_NOTIFY or HIXL_IOC_CANCEL
 * @arg:       copied into sqe->cmd; the kernel reads it at submission
 * @len:       its size in bytes; at most the SQE's command area (80 or 16
 *             bytes), anything beyond is not copied; the rest is zero
 * @user_data: returned in the command's CQE
 */
#ifdef LINUX_IO_URING_H
#include <stddef.h>

static inline void hixl_raw_uring_cmd(struct io_uring_sqe *sqe, size_t sqe_bytes, int fd,
				      uint32_t cmd_op, const void *arg, size_t len,
				      uint64_t user_data)
{
	size_t room = sqe_bytes - offsetof(struct io_uring_sqe, cmd);

	memset(sqe, 0, sqe_bytes);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, arg, len <= room ? len : room);
}
#endif /* LINUX_IO_URING_H */

#endif
