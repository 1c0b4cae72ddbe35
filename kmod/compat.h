/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels hixl.ko builds against
 * (Debian bookworm's 6.1 and bookworm-backports' 6.12) lives here, so the
 * rest of the module is written against the newest API only.
 */
#ifndef _HIXL_COMPAT_H
#define _HIXL_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>

/*
 * Module namespaces: the namespace argument became a string literal in 6.13
 * (commit cdd30ebb1b9f, "module: Convert symbol namespace to string literal").
 * HIXL_IMPORT_KUNIT_NS() imports the namespace that EXPORT_SYMBOL_IF_KUNIT()
 * exports into.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#else
#define HIXL_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#define HIXL_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#endif

#endif /* _HIXL_COMPAT_H */
