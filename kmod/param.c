// SPDX-License-Identifier: GPL-2.0
/* param.c - module parameters and module-wide objects (set up by main.c). */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "param.h"

/* A new limit applies to the next call that checks it. */
unsigned int hixl_max_regions = 4096;
module_param_named(max_regions, hixl_max_regions, uint, 0644);
MODULE_PARM_DESC(max_regions, "registrations per process (default 4096; HIXL's is 256)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_regions);

unsigned long hixl_max_host_bytes = 20UL << 30;
module_param_named(max_host_bytes, hixl_max_host_bytes, ulong, 0644);
MODULE_PARM_DESC(max_host_bytes, "host memory registered per process, bytes (default 20 GiB)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_host_bytes);

unsigned long hixl_max_device_bytes = 50UL << 30;
module_param_named(max_device_bytes, hixl_max_device_bytes, ulong, 0644);
MODULE_PARM_DESC(max_device_bytes, "device (dma-buf) memory registered per process, bytes (default 50 GiB)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_device_bytes);

unsigned int hixl_max_links = 512;
module_param_named(max_links, hixl_max_links, uint, 0644);
MODULE_PARM_DESC(max_links, "links per engine (default 512)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_links);

unsigned int hixl_handshake_ms = 10000;
module_param_named(handshake_ms, hixl_handshake_ms, uint, 0644);
MODULE_PARM_DESC(handshake_ms, "ms an accepted link's handshake may go without progress before it is closed (default 10000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_handshake_ms);

unsigned int hixl_max_setup_links = 64;
module_param_named(max_setup_links, hixl_max_setup_links, uint, 0644);
MODULE_PARM_DESC(max_setup_links, "accepted links per engine still in their handshake (default 64)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_setup_links);

unsigned int hixl_max_peer_mrs = 65536;
module_param_named(max_peer_mrs, hixl_max_peer_mrs, uint, 0644);
MODULE_PARM_DESC(max_peer_mrs, "MRs one peer's region table may hold, per link (default 65536)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_peer_mrs);

int hixl_xwork_max_active = 16;
module_param_named(xwork_max_active, hixl_xwork_max_active, int, 0644);
MODULE_PARM_DESC(xwork_max_active, "io_uring staged and same-host batches one engine runs at once, 1..512, read at open (default 16)");
EXPORT_SYMBOL_IF_KUNIT(hixl_xwork_max_active);

struct device *hixl_dev;
struct workqueue_struct *hixl_wq;
struct workqueue_struct *hixl_cq_wq;
