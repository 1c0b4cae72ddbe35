/* SPDX-License-Identifier: GPL-2.0 */
/*
 * local_util.h - helpers of the same-host and loopback link tests
 * (test_local.c, test_local_par.c, test_local_dmabuf.c,
 * test_loopback_fault.c): raw engines with a chosen transport, a link's
 * counters, a connected pair, a long TRANSFER in a background thread.
 */
#ifndef HIXL_TEST_LOCAL_UTIL_H
#define HIXL_TEST_LOCAL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <hixl/hixl.h>

/*
 * An engine on HX_IP:port with no staging pool and the given transport
 * (HIXL_TRANSPORT_*): its fd; SKIPs without rxe0; -errno (printed) on
 * another SETUP error.
 */
int lu_eng(uint16_t port, uint32_t transport);
/* the engine's first link: its flags and counters in *o; 0, or -errno (-ENOENT: no link) */
long lu_link0(int fd, struct hixl_link_stat *o);
/*
 * A connected pair: B set up on HX_IP:pb with transport tb, then A on pa
 * with ta, connected to B (5 s); 0 or -errno (*a, *b the fds set up so far).
 */
int lu_pair(uint16_t pa, uint32_t ta, uint16_t pb, uint32_t tb, int *a, int *b);

/* One TRANSFER (raw ioctl) run by lu_bg_run(), usually in a pthread. */
struct lu_bg {
	int fd;				/* in: the engine */
	struct hixl_sockaddr remote;	/* in: hx_name(port), lo_name(AF_INET, port), ... */
	uint32_t op;			/* in: HIXL_OP_READ or _WRITE */
	struct hixl_op_desc *d;		/* in: the batch */
	uint32_t n;
	uint32_t timeout_ms;
	uint64_t tag;			/* in: the CANCEL tag, 0 for none */
	long ret;			/* out: 0 or -errno */
	uint32_t failed;		/* out: hixl_transfer.failed (~0 if never written) */
	volatile int started;		/* set just before the ioctl */
};
void *lu_bg_run(void *arg);		/* arg: struct lu_bg; returns NULL */
/*
 * n descriptors of chunk bytes: [src + i * chunk, +chunk) -> dst + i * chunk;
 * calloc()ed (free() it), NULL without memory.
 */
struct hixl_op_desc *lu_descs(uint64_t src, uint64_t dst, size_t chunk, uint32_t n);

/* Set hixl.ko's local_copy_threads (a string: "-1" is the default); SKIPs when not writable. */
void hx_local_threads(const char *v);
/*
 * One io_uring TRANSFER SQE (a WRITE of the one descriptor @d to HX_IP:port)
 * on a 64-byte-SQE ring: @t behind @ptr, both the caller's until its CQE.
 * 0, or -1 when the ring has no free SQE.
 */
struct io_uring;
struct hixl_transfer;
struct hixl_uring_ptr;
struct hixl_op_desc;
int hx_uring_write_sqe(struct io_uring *r, int fd, struct hixl_transfer *t,
		       struct hixl_uring_ptr *ptr, uint16_t port, struct hixl_op_desc *d,
		       uint32_t timeout_ms, uint64_t user_data);

#endif
