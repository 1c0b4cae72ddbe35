/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nixl-ucx113-compat.h - the two names NIXL 1.4's UCX plugin takes from a
 * UCX newer than Debian 12's 1.13.1 (scripts/build-nixl-ucx.sh includes
 * this first in src/plugins/ucx/ucx_utils.cpp, nowhere else).  Both are used
 * only by nixlUcxContext's hardware check, a warning: UCS_BIT_GET (UCX
 * 1.14's ucs/sys/compiler_def.h, the same definition) tests a memory-type
 * bit; UCS_MEMORY_TYPE_RDMA (a later UCX's memory type) is read only when
 * ucp_get_version() reports a UCX that has it, never with 1.13, so any
 * value compiles it away.
 */
#ifndef UCS_BIT_GET
#define UCS_BIT_GET(_value, _bit)	(!!((_value) & (1ull << (_bit))))
#endif
#define UCS_MEMORY_TYPE_RDMA		UCS_MEMORY_TYPE_LAST
