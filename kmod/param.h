/* SPDX-License-Identifier: GPL-2.0 */
/* param.h - module parameters and module-wide objects (param.c). */
#ifndef _HIXL_PARAM_H
#define _HIXL_PARAM_H

struct device;
struct workqueue_struct;

/* Limits (param.c); read them with READ_ONCE(). */
extern unsigned int hixl_max_regions;
extern unsigned long hixl_max_host_bytes;
extern unsigned long hixl_max_device_bytes;
extern unsigned int hixl_max_links;
extern unsigned int hixl_max_peer_mrs;
extern unsigned int hixl_handshake_ms;
extern unsigned int hixl_max_setup_links;
extern int hixl_xwork_max_active;

/* The device dma-bufs are attached to. */
extern struct device *hixl_dev;
/* Work that engine teardown must be able to wait for. */
extern struct workqueue_struct *hixl_wq;
/* The send CQs' pollers (scq.c). */
extern struct workqueue_struct *hixl_cq_wq;

#endif /* _HIXL_PARAM_H */
