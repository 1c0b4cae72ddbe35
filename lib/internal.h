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

#endif /* HIXL_LIB_INTERNAL_H */
