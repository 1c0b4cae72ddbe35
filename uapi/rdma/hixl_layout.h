/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * hixl_layout.h - compile-time check of the uapi/rdma/hixl.h layout.
 *
 * Included by the module (kmod/main.c) and by the library (lib/hixl.c), so
 * an ABI change that moves a field breaks both builds, on any compiler or
 * architecture, instead of breaking users at run time.  The offsets are the
 * ABI: a struct may grow at its end (its size here then grows, its
 * HIXL_*_SIZE_VER0 never), a field never moves unless HIXL_ABI_VERSION does.
 */
#ifndef _HIXL_LAYOUT_H
#define _HIXL_LAYOUT_H

#include <rdma/hixl.h>

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#define HIXL_LAYOUT(expr)	static_assert(expr, #expr)
#else
#include <stddef.h>
#define HIXL_LAYOUT(expr)	_Static_assert(expr, #expr)
#endif

HIXL_LAYOUT(sizeof(struct hixl_info) == 128);
HIXL_LAYOUT(offsetof(struct hixl_info, flags) == 0);
HIXL_LAYOUT(offsetof(struct hixl_info, abi_version) == 4);
HIXL_LAYOUT(offsetof(struct hixl_info, features) == 8);
HIXL_LAYOUT(offsetof(struct hixl_info, max_regions) == 16);
HIXL_LAYOUT(offsetof(struct hixl_info, max_host_bytes) == 24);
HIXL_LAYOUT(offsetof(struct hixl_info, max_device_bytes) == 32);
HIXL_LAYOUT(offsetof(struct hixl_info, max_links) == 40);
HIXL_LAYOUT(offsetof(struct hixl_info, max_notify_pending) == 52);
HIXL_LAYOUT(offsetof(struct hixl_info, reserved0) == 56);
HIXL_LAYOUT(offsetof(struct hixl_info, reserved) == 64);
HIXL_LAYOUT(HIXL_IOC_GET_INFO == 0xc080b900);

HIXL_LAYOUT(sizeof(struct hixl_reg_mem) == 80);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, type) == 16);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, dmabuf_fd) == 24);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, dmabuf_offset) == 32);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, handle) == 40);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, nr_mrs) == 64);
HIXL_LAYOUT(offsetof(struct hixl_reg_mem, mr_page_size) == 72);
HIXL_LAYOUT(sizeof(struct hixl_dereg_mem) == 32);
HIXL_LAYOUT(offsetof(struct hixl_dereg_mem, flags) == 8);
HIXL_LAYOUT(sizeof(struct hixl_stats) == 320);
HIXL_LAYOUT(offsetof(struct hixl_stats, regions) == 8);
HIXL_LAYOUT(offsetof(struct hixl_stats, limit_hits) == 80);
HIXL_LAYOUT(offsetof(struct hixl_stats, mrs) == 88);
HIXL_LAYOUT(offsetof(struct hixl_stats, notify_dropped) == 96);
HIXL_LAYOUT(offsetof(struct hixl_stats, refused_peers) == 104);
HIXL_LAYOUT(offsetof(struct hixl_stats, auth_failures) == 112);
HIXL_LAYOUT(offsetof(struct hixl_stats, nr_rails) == 4);
HIXL_LAYOUT(offsetof(struct hixl_stats, rails) == 120);
HIXL_LAYOUT(sizeof(struct hixl_rail_stat) == 352);
HIXL_LAYOUT(offsetof(struct hixl_rail_stat, addr) == 8);
HIXL_LAYOUT(offsetof(struct hixl_rail_stat, device) == 40);
HIXL_LAYOUT(offsetof(struct hixl_rail_stat, numa_node) == 104);
HIXL_LAYOUT(offsetof(struct hixl_rail_stat, mrs) == 120);
HIXL_LAYOUT(offsetof(struct hixl_rail_stat, xfer) == 160);
HIXL_LAYOUT(offsetof(struct hixl_stats, xfer) == 128);
HIXL_LAYOUT(sizeof(struct hixl_xfer_stats) == 192);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, errors) == 64);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, link_resets) == 96);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, connect_us_sum) == 136);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, local_bytes) == 144);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, rail_failovers) == 160);
HIXL_LAYOUT(offsetof(struct hixl_xfer_stats, reserved) == 176);
HIXL_LAYOUT(sizeof(struct hixl_link_stat) == 240);
HIXL_LAYOUT(offsetof(struct hixl_link_stat, state) == 32);
HIXL_LAYOUT(offsetof(struct hixl_link_stat, xfer) == 48);
HIXL_LAYOUT(sizeof(struct hixl_link_stats) == 48);
HIXL_LAYOUT(offsetof(struct hixl_link_stats, count) == 16);
HIXL_LAYOUT(offsetof(struct hixl_link_stats, lat) == 32);
HIXL_LAYOUT(offsetof(struct hixl_link_stats, reserved) == 40);
HIXL_LAYOUT(sizeof(struct hixl_engine_stat) == 360);
HIXL_LAYOUT(offsetof(struct hixl_engine_stat, local) == 24);
HIXL_LAYOUT(offsetof(struct hixl_engine_stat, device) == 56);
HIXL_LAYOUT(offsetof(struct hixl_engine_stat, regions) == 120);
HIXL_LAYOUT(offsetof(struct hixl_engine_stat, xfer) == 168);
HIXL_LAYOUT(sizeof(struct hixl_engines) == 40);
HIXL_LAYOUT(offsetof(struct hixl_engines, count) == 8);
HIXL_LAYOUT(offsetof(struct hixl_engines, rails) == 24);
HIXL_LAYOUT(offsetof(struct hixl_engines, lat) == 32);
HIXL_LAYOUT(sizeof(struct hixl_peer_region) == 32);
HIXL_LAYOUT(offsetof(struct hixl_peer_region, flags) == 24);
HIXL_LAYOUT(sizeof(struct hixl_peer_regions) == 72);
HIXL_LAYOUT(offsetof(struct hixl_peer_regions, buf) == 32);
HIXL_LAYOUT(offsetof(struct hixl_peer_regions, flags) == 48);
HIXL_LAYOUT(offsetof(struct hixl_peer_regions, reserved) == 56);
HIXL_LAYOUT(sizeof(struct hixl_lat_hist) == 256);
HIXL_LAYOUT(offsetof(struct hixl_lat_hist, bucket) == 16);
HIXL_LAYOUT(offsetof(struct hixl_lat_hist, reserved) == 240);
HIXL_LAYOUT(sizeof(struct hixl_send_notify) == 80);
HIXL_LAYOUT(offsetof(struct hixl_send_notify, name_len) == 48);
HIXL_LAYOUT(sizeof(struct hixl_notify) == 2088);
HIXL_LAYOUT(offsetof(struct hixl_notify, name) == 40);
HIXL_LAYOUT(sizeof(struct hixl_get_notifies) == 48);
HIXL_LAYOUT(offsetof(struct hixl_get_notifies, dropped) == 16);
HIXL_LAYOUT(sizeof(struct hixl_sockaddr) == 32);
HIXL_LAYOUT(offsetof(struct hixl_sockaddr, addr) == 8);
HIXL_LAYOUT(sizeof(struct hixl_setup) == 184);
HIXL_LAYOUT(offsetof(struct hixl_setup, rails) == 168);
HIXL_LAYOUT(offsetof(struct hixl_setup, nr_rails) == 176);
HIXL_LAYOUT(offsetof(struct hixl_setup, flags) == 32);
HIXL_LAYOUT(offsetof(struct hixl_setup, transport) == 52);
HIXL_LAYOUT(offsetof(struct hixl_setup, device) == 56);
HIXL_LAYOUT(offsetof(struct hixl_setup, page_size_cap) == 120);
HIXL_LAYOUT(offsetof(struct hixl_setup, allowed) == 136);
HIXL_LAYOUT(offsetof(struct hixl_setup, nr_allowed) == 144);
HIXL_LAYOUT(offsetof(struct hixl_setup, secret_len) == 148);
HIXL_LAYOUT(offsetof(struct hixl_setup, secret) == 152);
HIXL_LAYOUT(offsetof(struct hixl_setup, reserved) == 160);
HIXL_LAYOUT(sizeof(struct hixl_peer_prefix) == 24);
HIXL_LAYOUT(offsetof(struct hixl_peer_prefix, addr) == 8);
HIXL_LAYOUT(sizeof(struct hixl_connect) == 56);
HIXL_LAYOUT(offsetof(struct hixl_connect, timeout_ms) == 32);
HIXL_LAYOUT(sizeof(struct hixl_op_desc) == 24);
HIXL_LAYOUT(sizeof(struct hixl_transfer) == 80);
HIXL_LAYOUT(offsetof(struct hixl_transfer, op) == 32);
HIXL_LAYOUT(offsetof(struct hixl_transfer, descs) == 40);
HIXL_LAYOUT(offsetof(struct hixl_transfer, failed) == 56);
HIXL_LAYOUT(offsetof(struct hixl_transfer, tag) == 64);
HIXL_LAYOUT(offsetof(struct hixl_transfer, reserved) == 72);
HIXL_LAYOUT(sizeof(struct hixl_cancel) == 32);
HIXL_LAYOUT(offsetof(struct hixl_cancel, broken) == 16);
HIXL_LAYOUT(offsetof(struct hixl_cancel, reserved) == 24);
HIXL_LAYOUT(sizeof(struct hixl_uring_ptr) == 16);
HIXL_LAYOUT(sizeof(struct hixl_send_notify) <= 80);	/* fits an SQE128 */

/* a struct may grow, never below its first version */
HIXL_LAYOUT(sizeof(struct hixl_info) >= HIXL_INFO_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_reg_mem) >= HIXL_REG_MEM_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_dereg_mem) >= HIXL_DEREG_MEM_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_stats) >= HIXL_STATS_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_setup) >= HIXL_SETUP_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_connect) >= HIXL_CONNECT_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_transfer) >= HIXL_TRANSFER_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_send_notify) >= HIXL_SEND_NOTIFY_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_get_notifies) >= HIXL_GET_NOTIFIES_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_cancel) >= HIXL_CANCEL_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_link_stats) >= HIXL_LINK_STATS_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_engines) >= HIXL_ENGINES_SIZE_VER0);
HIXL_LAYOUT(sizeof(struct hixl_peer_regions) >= HIXL_PEER_REGIONS_SIZE_VER0);

#endif /* _HIXL_LAYOUT_H */
