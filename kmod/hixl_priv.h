/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hixl_priv.h - the internal headers of hixl.ko, one per object:
 *
 *   engine.h  an engine (one open file), its RDMA side, commands, limits,
 *             globals - and the locking order of the whole module
 *   auth.h    who may connect (allowed peers, secret)
 *   region.h  registered memory: accounting, regions, MRs, dma-bufs
 *   link.h    a link to a peer engine and its layers (messages, RDMA CM,
 *             region tables, notifications, staging)
 *   xfer.h    transfers: plans, batches, the transfer queue
 *   stats.h   data-path counters of engines and links
 *
 * proto.h (the wire format) and trace.h (tracepoints) are included only
 * where they are used.
 */
#ifndef _HIXL_PRIV_H
#define _HIXL_PRIV_H

#include "engine.h"
#include "auth.h"
#include "region.h"
#include "link.h"
#include "xfer.h"
#include "loopback.h"
#include "rail.h"
#include "stats.h"

#include <linux/printk.h>

/*
 * hixl_einval() - -EINVAL for an argument the module refuses, after saying
 * why in one line naming the command and the field, e.g.
 * "return hixl_einval("REG_MEM: flags 0x%x has unknown bits", a->flags);".
 * The line goes through pr_debug_ratelimited(): dynamic debug, off until
 * "echo 'module hixl +p' > /sys/kernel/debug/dynamic_debug/control", and
 * rate-limited per site when on, so a caller cannot flood the log.
 */
#define hixl_einval(fmt, ...)	({					\
	pr_debug_ratelimited(fmt "\n", ##__VA_ARGS__);			\
	-EINVAL;							\
})

#endif /* _HIXL_PRIV_H */
