/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests.h - the user test runner's tables: each test_<area>.c defines one
 * NULL-terminated table <area>_tests[]; main.c runs them in this order.
 */
#ifndef HIXL_TESTS_H
#define HIXL_TESTS_H

#include "harness.h"

extern const struct ht_test dev_tests[];	/* test_dev.c: /dev/hixl, GET_INFO, ioctl decoding */
extern const struct ht_test reg_tests[];	/* test_reg.c: memory registration */
extern const struct ht_test runs_tests[];	/* test_runs.c: pins kept as runs, folio pins */
extern const struct ht_test setup_tests[];	/* test_setup.c: SETUP and MRs */
extern const struct ht_test xfer_tests[];	/* test_xfer.c: links and transfers */
extern const struct ht_test peerreg_tests[];	/* test_peerreg.c: a linked peer's registrations */
extern const struct ht_test table_tests[];	/* test_table.c: region tables of thousands of regions */
extern const struct ht_test uring_tests[];	/* test_uring.c: io_uring URING_CMD */
extern const struct ht_test notify_tests[];	/* test_notify.c: notifications and their link's end */
extern const struct ht_test uring_async_tests[];	/* test_uring_async.c: staged, same-host through io_uring */
extern const struct ht_test uring_xwork_tests[];	/* test_uring_xwork.c: per-engine work items, the timeout's maximum */
extern const struct ht_test physmem_tests[];	/* test_physmem.c: physical memory handles */
extern const struct ht_test prof_tests[];	/* test_prof.c: profiler hooks */
extern const struct ht_test peer_tests[];	/* test_peer.c: a hostile wire peer */
extern const struct ht_test auth_tests[];	/* test_auth.c: who may connect */
extern const struct ht_test keys_tests[];	/* test_keys.c: keys and addresses on the wire */
extern const struct ht_test vanish_tests[];	/* test_vanish.c: peers that vanish mid-handshake */
extern const struct ht_test sec_tests[];	/* test_sec.c: bounds, read-only, handles, the node */
extern const struct ht_test alive_tests[];	/* test_alive.c: silent peers, peer restarts */
extern const struct ht_test fault_tests[];	/* test_fault.c: peer closed, netdev down, OOM, threads */
extern const struct ht_test hotplug_tests[];	/* test_hotplug.c: the device goes away (last) */
extern const struct ht_test lib_tests[];	/* test_lib.c: the engine API */
extern const struct ht_test liburing_tests[];	/* test_liburing.c: async transfers, io_uring and threads */
extern const struct ht_test poll_tests[];	/* test_poll.c: event fd, wait-any, cancel, notify wait */
extern const struct ht_test api_tests[];	/* test_api.c: HIXL API members for the bindings */
extern const struct ht_test errors_tests[];	/* test_errors.c: errors that name their cause */
extern const struct ht_test tools_tests[];	/* test_tools.c: hixlctl check on a good setup */
extern const struct ht_test abi_tests[];	/* test_abi.c: versions, reserved fields, CONNECT's deadline */
extern const struct ht_test bench_tests[];	/* test_bench.c: hixl-bench --server/--client, early failures */
extern const struct ht_test local_tests[];	/* test_local.c: same-host links, the kernel copy */
extern const struct ht_test local_par_tests[];	/* test_local_par.c: the parallel kernel copy */
extern const struct ht_test local_dmabuf_tests[];	/* test_local_dmabuf.c: dma-buf on same-host links */
extern const struct ht_test gpu_tests[];	/* test_gpu.c: device memory by address (a fake CUDA driver) */
extern const struct ht_test gpu_staged_tests[];	/* test_gpu_staged.c: staged device memory (bounce buffers) */
extern const struct ht_test stats_tests[];	/* test_stats.c: data-path counters, hixlctl stats, tracepoints */
extern const struct ht_test latency_tests[];	/* test_latency.c: TRANSFER latency histograms */
extern const struct ht_test loopback_tests[];	/* test_loopback.c: loopback engines, no device */
extern const struct ht_test hpoll_tests[];	/* test_hpoll.c: hybrid polling of small sync transfers */
extern const struct ht_test revoke_tests[];	/* test_revoke.c: the revoking CANCEL */
extern const struct ht_test cancel_matrix_tests[];	/* test_cancel_matrix.c: each cancel on each path */
extern const struct ht_test rail_tests[];	/* test_rail.c: an engine on several rails */
extern const struct ht_test rail_mr_tests[];	/* test_rail_mr.c: a region's MRs on every rail */
extern const struct ht_test raillink_tests[];	/* test_raillink.c: rail links, their HELLO blocks */
extern const struct ht_test rail_xfer_tests[];	/* test_rail_xfer.c: striped transfers, failover */
extern const struct ht_test rail_stats_tests[];	/* test_rail_stats.c: LINK_STATS and hixlctl of rails */
extern const struct ht_test rail_gstats_tests[];	/* test_rail_gstats.c: GET_STATS per rail, rail tracepoints */
extern const struct ht_test stall_tests[];	/* test_stall.c: a stuck engine holds up nobody else */
extern const struct ht_test rail_race_tests[];	/* test_rail_race.c: rail removal/revival races, a stuck engine */

static const struct ht_test *const hixl_test_tables[] = {
	dev_tests, reg_tests, runs_tests, setup_tests, xfer_tests, peerreg_tests, table_tests, notify_tests, uring_tests, uring_async_tests, uring_xwork_tests, physmem_tests, prof_tests,
	lib_tests, liburing_tests, poll_tests, api_tests, abi_tests, errors_tests, tools_tests, bench_tests,
	stats_tests, latency_tests, hpoll_tests, revoke_tests, cancel_matrix_tests, peer_tests, auth_tests, keys_tests, vanish_tests, sec_tests, local_tests,
	loopback_tests,
	local_par_tests,
	local_dmabuf_tests,
	gpu_tests,
	gpu_staged_tests,
	rail_tests,
	rail_mr_tests,
	raillink_tests,
	rail_stats_tests,
	rail_gstats_tests,	/* deletes and restores rxe1 */
	rail_xfer_tests,	/* takes veth0/veth2/rxe1 away and restores them */
	rail_race_tests,	/* deletes and restores rxe1, adds and deletes rxe9 */
	stall_tests,
	fault_tests, alive_tests,
	hotplug_tests,	/* deletes and restores rxe0: keep it last */
	NULL,
};

#endif
