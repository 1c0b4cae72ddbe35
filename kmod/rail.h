/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rail.h - an engine's rails (extra RDMA devices of SETUP): rail.c (SETUP's
 * rails, NUMA, debugfs) and rail_dev.c (a rail's device, PD, removal and
 * revival).  The striping planner is rail_plan.h's.  The design is at the
 * top of rail.c.
 */
#ifndef HIXL_RAIL_H
#define HIXL_RAIL_H

#include <linux/types.h>
#include <rdma/hixl.h>

struct hixl_rdma;
struct ib_device;
struct ib_pd;
struct net;
struct rdma_cm_id;
struct sockaddr_storage;

/*
 * A rail whose device is gone, for hixl_rail_numa_mask(): never chosen, and
 * not counted as a device on the memory's node.  (NUMA_NO_NODE, -1, is a
 * device whose node is not known.)
 */
#define HIXL_RAIL_NODE_GONE	(-2)

/**
 * struct hixl_rail - one extra rail of an engine (rail 1 and up; rail 0 is
 * SETUP's @local and its device, in struct hixl_rdma)
 * @addr:          the local address SETUP named (or "auto" found), port 0
 * @device:        the RDMA device RDMA CM resolved it to, at SETUP (kept,
 *                 as a name, while the device is gone)
 * @ibdev:         that device, NULL while it is gone (removed, not yet
 *                 revived: hixl_rail_revive())
 * @pd:            the rail's protection domain on @ibdev (every region's MRs
 *                 of this rail are in it), NULL while the device is gone
 * @page_size_cap: MR page sizes @ibdev supports
 * @max_mr_pages:  pages per fast-registration MR on @ibdev
 * @numa_node:     dev_to_node() of @ibdev's parent, or NUMA_NO_NODE
 * @removing:      the device is being removed (hixl_engine_rail_detach()):
 *                 hixl_rail_dev() says "gone" although @ibdev and @pd are
 *                 still set, so no new link is made on the rail meanwhile
 * @listen_id:     our listener on @addr with the engine's port (an engine
 *                 with a port, not LISTEN_ANY), NULL without; under
 *                 raillink_accept.c's hixl_rail_listen_lock
 * @listen:        the engine listens on this rail's address (set at SETUP,
 *                 never changed), so a revived rail listens again
 *
 * @addr and @device are written by SETUP before the engine's hixl_rdma is
 * published and never change.  The device fields change only under the
 * engine's lock: to NULL by a device removal (holding rdma_sem for
 * writing), back by hixl_rail_revive() (rdma_sem for reading; @pd is
 * written last, smp_store_release(), and hixl_rail_dev() reads it first,
 * smp_load_acquire()).  @removing is set under the engine's links_lock.
 */
struct hixl_rail {
	struct hixl_sockaddr addr;
	char device[64];
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u64 page_size_cap;
	u32 max_mr_pages;
	int numa_node;
	bool removing;
	struct rdma_cm_id *listen_id;
	bool listen;
};

/**
 * struct hixl_rail_dev - the device side of one rail, as hixl_rail_dev()
 * returns it
 * @ibdev:         the rail's device, NULL when it is gone
 * @pd:            the rail's PD, NULL when it is gone
 * @page_size_cap: MR page sizes the device supports
 * @max_mr_pages:  pages per fast-registration MR
 */
struct hixl_rail_dev {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u64 page_size_cap;
	u32 max_mr_pages;
};

/**
 * struct hixl_rail_piece - one piece of a descriptor on one rail
 * @desc: the descriptor's index in its batch
 * @rail: the rail it goes on, 0..nr_rails - 1
 * @off:  bytes from the descriptor's start
 * @len:  bytes, > 0
 *
 * Enough to post the piece again on another rail (failover): the same
 * bytes of the same descriptor.
 */
struct hixl_rail_piece {
	u32 desc;
	u32 rail;
	u64 off;
	u64 len;
};

/* rail.c */
int hixl_rails_validate(const struct hixl_setup *a);
int hixl_rails_setup(struct hixl_rdma *rd, struct hixl_setup *a, struct net *net);
void hixl_rails_free(struct hixl_rdma *rd);
u32 hixl_rails_count(const struct hixl_rdma *rd);

/* rail_dev.c */
int hixl_rail_resolve(struct net *net, struct sockaddr_storage *ss, struct hixl_rail *rail);
void hixl_rail_close(struct hixl_rail *rail);
bool hixl_rail_dev(const struct hixl_rdma *rd, u32 i, struct hixl_rail_dev *out);

#endif /* HIXL_RAIL_H */
