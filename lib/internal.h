/* SPDX-License-Identifier: MIT */
/*
 * internal.h - private helpers shared by the library's source files.
 * Not installed; never included by users.
 */
#ifndef HIXL_LIB_INTERNAL_H
#define HIXL_LIB_INTERNAL_H

#include <errno.h>

/* Marks a symbol as part of the ABI (the library builds -fvisibility=hidden);
 * every such symbol must also be listed in lib/libhixl-user.map. */
#ifndef HIXL_EXPORT
#define HIXL_EXPORT __attribute__((visibility("default")))
#endif

/* The library's functions return -errno and leave errno as they found it:
 * evaluate a syscall-style expression (< 0 and errno on failure) and turn
 * it into 0 / a non-negative value or -errno, errno untouched. */
#ifndef HIXL_SYSCALL_RET
#define HIXL_SYSCALL_RET(expr) ({		\
	int _saved = errno, _r = (expr);	\
	if (_r < 0)				\
		_r = -errno;			\
	errno = _saved;				\
	_r;					\
})
#endif

/*
 * hixl_sqe_uring_cmd() - fill one SQE of a ring set up with
 * IORING_SETUP_SQE128 with a hixl URING_CMD (uapi/hixl.h, "io_uring
 * passthrough").  liburing 2.3 (Debian 12) has no io_uring_prep_uring_cmd(),
 * so this is the one place that builds such an SQE, for the library and the
 * in-tree tools.  Available when <linux/io_uring.h> (or <liburing.h>) was
 * included before this header.
 * @sqe:       the SQE: all HIXL_SQE128_BYTES (128) bytes are written
 * @fd:        an open /dev/hixl (the engine)
 * @cmd_op:    HIXL_IOC_TRANSFER, HIXL_IOC_SEND_NOTIFY or HIXL_IOC_CANCEL
 * @arg:       the command's argument struct, copied into sqe->cmd; the
 *             kernel reads it at submission, so it may go right after
 * @len:       its size in bytes, at most HIXL_SQE_CMD_BYTES (80); the rest
 *             of sqe->cmd is zero
 * @user_data: returned in the command's CQE
 */
#ifdef LINUX_IO_URING_H
#include <stddef.h>
#include <string.h>

#define HIXL_SQE128_BYTES	128
#define HIXL_SQE_CMD_BYTES	(HIXL_SQE128_BYTES - offsetof(struct io_uring_sqe, cmd))

static inline void hixl_sqe_uring_cmd(struct io_uring_sqe *sqe, int fd, __u32 cmd_op,
				      const void *arg, size_t len, __u64 user_data)
{
	memset(sqe, 0, HIXL_SQE128_BYTES);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, arg, len <= HIXL_SQE_CMD_BYTES ? len : HIXL_SQE_CMD_BYTES);
}
#endif /* LINUX_IO_URING_H */

/*
 * auth.c: the engine options that say who may connect.  Gathered by
 * engine_init() from its options (hixl_auth_option()) and the environment
 * (hixl_auth_env()), put into SETUP (hixl_auth_apply()), and the secret
 * wiped after SETUP (hixl_auth_opts_clear()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <hixl/uapi.h>

struct hixl_auth_opts {
	bool have_allowed;		/* an option said: the variable is not read */
	bool have_secret;
	uint32_t nr_allowed;
	uint32_t secret_len;
	struct hixl_peer_prefix allowed[HIXL_MAX_ALLOWED_PEERS];
	uint8_t secret[HIXL_SECRET_MAX];
};

int hixl_auth_option(struct hixl_auth_opts *o, const char *key, const char *value);
int hixl_auth_env(struct hixl_auth_opts *o);
struct hixl_setup;
void hixl_auth_apply(struct hixl_auth_opts *o, struct hixl_setup *s);
void hixl_auth_opts_clear(struct hixl_auth_opts *o);

#endif /* HIXL_LIB_INTERNAL_H */
