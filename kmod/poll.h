/* SPDX-License-Identifier: GPL-2.0 */
/* poll.h - hybrid polling of small synchronous batches (poll.c) */
#ifndef _HIXL_POLL_H
#define _HIXL_POLL_H

#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <linux/time64.h>
#include <linux/types.h>

struct completion;
struct hixl_link;

#define HIXL_POLL_MAX_BYTES	SZ_64K		/* larger batches never spin */
#define HIXL_POLL_EWMA_MAX_NS	(10ULL * NSEC_PER_SEC)	/* a sample counts at most this */
#define HIXL_POLL_EXPLORE	16	/* one batch in this many tries the other way */

/**
 * hixl_poll_clock() - local_clock(), as busy_loop_current_time()
 * Return: the time in ns.
 */
static inline u64 hixl_poll_clock(void)
{
	return local_clock();
}

extern unsigned int hixl_poll_us;
u64 hixl_poll_budget_ns(u64 spin_ns, u64 sleep_ns, u64 cap_ns, u32 seq);
u64 hixl_poll_ewma(u64 ewma_ns, u64 sample_ns);
bool hixl_poll_small(u64 bytes, u32 pieces);
void hixl_poll_record(struct hixl_link *l, bool spun, u64 post_ns);
bool hixl_poll_spin_until(struct hixl_link *l, struct completion *done, u64 end_ns);
bool hixl_poll_spin(struct hixl_link *l, struct completion *done, u64 post_ns, u64 max_ns);

#endif /* _HIXL_POLL_H */
