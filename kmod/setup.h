/* SPDX-License-Identifier: GPL-2.0 */
/* setup.h - an engine's RDMA side: SETUP, teardown, device removal. */
#ifndef _HIXL_SETUP_H
#define _HIXL_SETUP_H

struct hixl_engine;
struct hixl_setup;
struct ib_device;

int hixl_cmd_setup(struct hixl_engine *eng, struct hixl_setup *arg);
int hixl_setup_validate(const struct hixl_setup *a);
void hixl_engine_rdma_stop(struct hixl_engine *eng);
void hixl_engine_rdma_destroy(struct hixl_engine *eng);
void hixl_engine_rail_detach(struct hixl_engine *eng, struct ib_device *ibdev);
int hixl_ib_client_register(void);
void hixl_ib_client_unregister(void);

#endif /* _HIXL_SETUP_H */
