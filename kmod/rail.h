/* SPDX-License-Identifier: GPL-2.0 */
/* rail.h - an engine's extra RDMA devices (rail.c, rail_dev.c) */
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

/* hixl_rail_numa_mask(): a rail whose device is gone; never chosen */
#define HIXL_RAIL_NODE_GONE	(-2)

/**
 * struct hixl_rail - one extra rail of an engine (rail 1 and up)
 * @addr:          the local address, port 0; fixed
 * @device:        the RDMA device's name, kept while it is gone; fixed
 * @ibdev:         that device, NULL while gone
 * @pd:            the rail's PD on @ibdev, NULL while gone; written last
 *                 (smp_store_release()), read first by hixl_rail_dev()
 * @page_size_cap: MR page sizes @ibdev supports
 * @max_mr_pages:  pages per fast-registration MR on @ibdev
 * @numa_node:     @ibdev's NUMA node, or NUMA_NO_NODE
 * @removing:      device being removed; under the engine's links_lock
 * @listen_id:     our listener on @addr, or NULL; under hixl_rail_listen_lock
 * @listen:        the engine listens on @addr, also once revived
 *
 * The device fields change under the engine's lock.
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
 * struct hixl_rail_dev - the device side of one rail (hixl_rail_dev())
 * @ibdev:         the device, NULL when gone
 * @pd:            the PD, NULL when gone
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
 * @rail: its rail
 * @off:  bytes from the descriptor's start
 * @len:  bytes, > 0
 */
struct hixl_rail_piece {
	u32 desc;
	u32 rail;
	u64 off;
	u64 len;
};

int hixl_rails_validate(const struct hixl_setup *a);
int hixl_rails_setup(struct hixl_rdma *rd, struct hixl_setup *a, struct net *net);
void hixl_rails_free(struct hixl_rdma *rd);
u32 hixl_rails_count(const struct hixl_rdma *rd);

int hixl_rail_resolve(struct net *net, struct sockaddr_storage *ss, struct hixl_rail *rail);
void hixl_rail_close(struct hixl_rail *rail);
bool hixl_rail_dev(const struct hixl_rdma *rd, u32 i, struct hixl_rail_dev *out);

#endif /* HIXL_RAIL_H */
