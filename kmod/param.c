// SPDX-License-Identifier: GPL-2.0
/*
 * param.c - the module's parameters (its limits) and the module-wide
 * objects every layer may use: the misc device's struct device and the
 * module's workqueue.  main.c sets the two objects up at load and tears
 * them down at unload; nothing here calls anything.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "param.h"

/*
 * Per-process limits.  Defaults are the vendor's published limits for HIXL
 * RegisterMem: 256 registrations, 20 GiB host memory, 50 GiB device
 * memory; and HIXL Connect's 512 links per engine.  Writable by root at run time; a new
 * value applies to the next call that checks it.
 */
unsigned int hixl_max_regions = 256;
module_param_named(max_regions, hixl_max_regions, uint, 0644);
MODULE_PARM_DESC(max_regions, "registrations per process (default 256)");
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

/*
 * Half-open links: a link accepted from a peer is closed when its handshake
 * (HELLO, tables both ways) makes no progress for handshake_ms - none
 * within handshake_ms of the connect request, or none since the last
 * handshake message either way (hixl_link_hs_progress(): a table of
 * thousands of regions takes longer than that to cross) - and at most
 * max_setup_links accepted links of an engine may be in the handshake at
 * once, so that connections that never say HELLO can neither hold a slot
 * for long nor take every slot of max_links.
 */
unsigned int hixl_handshake_ms = 10000;
module_param_named(handshake_ms, hixl_handshake_ms, uint, 0644);
MODULE_PARM_DESC(handshake_ms, "ms an accepted link's handshake may go without progress before it is closed (default 10000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_handshake_ms);

unsigned int hixl_max_setup_links = 64;
module_param_named(max_setup_links, hixl_max_setup_links, uint, 0644);
MODULE_PARM_DESC(max_setup_links, "accepted links per engine still in their handshake (default 64)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_setup_links);

/*
 * What one peer's region table may hold: MR entries over all its regions
 * (32 bytes each, so 2 MiB per link by default).  A legitimate peer at the
 * default limits needs at most ~36,000 (70 GiB of 4 KiB pages, 512 pages
 * per MR on rxe; fewer on devices with longer page lists).
 */
unsigned int hixl_max_peer_mrs = 65536;
module_param_named(max_peer_mrs, hixl_max_peer_mrs, uint, 0644);
MODULE_PARM_DESC(max_peer_mrs, "MRs one peer's region table may hold, per link (default 65536)");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_peer_mrs);

/*
 * io_uring's staged and same-host batches run from work items on a queue
 * of their engine's own (xwork.c); this many of one engine's run at once,
 * the rest wait for one of them, so an engine whose batches wait for a
 * stuck peer holds up only its own.  Read when an engine is opened.
 */
int hixl_xwork_max_active = 16;
module_param_named(xwork_max_active, hixl_xwork_max_active, int, 0644);
MODULE_PARM_DESC(xwork_max_active, "io_uring staged and same-host batches one engine runs at once, 1..512, read at open (default 16)");
EXPORT_SYMBOL_IF_KUNIT(hixl_xwork_max_active);

/* The device dma-bufs are attached to (dmabuf.c). */
struct device *hixl_dev;

/* Work that engine teardown must be able to wait for (link.c). */
struct workqueue_struct *hixl_wq;

/* The send CQs' pollers (scq.c), of the core's ib_comp_wq's kind. */
struct workqueue_struct *hixl_cq_wq;
