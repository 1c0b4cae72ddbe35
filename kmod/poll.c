// SPDX-License-Identifier: GPL-2.0
/* poll.c - hybrid polling of small synchronous batches, as blk_mq_poll() */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "link.h"
#include "xq.h"
#include "scq.h"
#include "poll.h"

unsigned int hixl_poll_us = 200;
module_param_named(poll_us, hixl_poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us,
		 "a synchronous TRANSFER of at most 64 KiB may spin up to this many microseconds on its completion before it sleeps, when spinning has been faster than sleeping on its link (measured per link); 0: off (default 200)");
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_us);

/**
 * hixl_poll_budget_ns() - does a waiter spin, and for how long?
 * @spin_ns:  EWMA of waits that spun (0: none yet)
 * @sleep_ns: EWMA of waits that slept (0: none yet)
 * @cap_ns:   poll_us in ns (0: off)
 * @seq:      the link's count of small synchronous batches
 * Return: 0 to sleep at once; else the spin budget in ns, <= @cap_ns.
 */
u64 hixl_poll_budget_ns(u64 spin_ns, u64 sleep_ns, u64 cap_ns, u32 seq)
{
	bool spin;

	if (!cap_ns)
		return 0;
	if (!spin_ns)
		spin = true;
	else if (!sleep_ns)
		spin = false;
	else
		spin = (spin_ns <= sleep_ns) != !(seq % HIXL_POLL_EXPLORE);
	if (!spin)
		return 0;
	if (!spin_ns)
		return cap_ns;
	return min(cap_ns, spin_ns + spin_ns / 2);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_budget_ns);

/**
 * hixl_poll_ewma() - add a completion time to an EWMA
 * @ewma_ns:   the average so far (0: no sample yet)
 * @sample_ns: post-to-completion time
 *
 * Weight 1/8, as the TCP RTT estimator; a sample counts at most twice the average.
 * Return: the new average, never 0.
 */
u64 hixl_poll_ewma(u64 ewma_ns, u64 sample_ns)
{
	u64 avg;

	if (sample_ns > HIXL_POLL_EWMA_MAX_NS)
		sample_ns = HIXL_POLL_EWMA_MAX_NS;
	if (ewma_ns && sample_ns / 2 > ewma_ns)
		sample_ns = 2 * ewma_ns;
	avg = ewma_ns ? ewma_ns - ewma_ns / 8 + sample_ns / 8 : sample_ns;
	return avg ?: 1;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_ewma);

/**
 * hixl_poll_small() - may a batch's waiter spin?
 * @bytes:  bytes of its direct pieces
 * @pieces: their count
 * Return: true for at most HIXL_POLL_MAX_BYTES in one chain.
 */
bool hixl_poll_small(u64 bytes, u32 pieces)
{
	return pieces && pieces <= HIXL_CHAIN && bytes <= HIXL_POLL_MAX_BYTES;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_small);

/**
 * hixl_poll_record() - feed a small batch's wait to the link's EWMAs
 * @l:       the link
 * @spun:    the waiter spun
 * @post_ns: hixl_poll_clock() before submission; racing updates may lose a sample
 */
void hixl_poll_record(struct hixl_link *l, bool spun, u64 post_ns)
{
	u64 *avg = spun ? &l->xq.poll_spin_ns : &l->xq.poll_sleep_ns;
	u64 now = hixl_poll_clock();

	if (now < post_ns)
		return;
	WRITE_ONCE(*avg, hixl_poll_ewma(READ_ONCE(*avg), now - post_ns));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_record);

/* run this CPU's pending softirqs here, as netif_rx() does */
static void hixl_poll_softirqs(void)
{
	local_bh_disable();
	local_bh_enable();
}

/**
 * hixl_poll_spin_until() - spin on a completion until a deadline
 * @l:      the link whose send CQ to poll meanwhile, or NULL
 * @done:   the completion, not consumed
 * @end_ns: hixl_poll_clock() deadline
 *
 * Runs pending softirqs each turn: a software device may leave its work there.
 * Context: process context, bottom halves enabled; may sleep.
 * Return: true when @done was completed.
 */
bool hixl_poll_spin_until(struct hixl_link *l, struct completion *done, u64 end_ns)
{
	bool ret;

	if (l)
		hixl_scq_spin_begin(l);
	for (;;) {
		int n = 0;

		hixl_poll_softirqs();
		if (l)
			n = hixl_scq_poll(l);
		ret = completion_done(done);
		if (ret || fatal_signal_pending(current) || hixl_poll_clock() >= end_ns)
			break;
		if (n)
			continue;
		if (need_resched())
			cond_resched();
		else
			cpu_relax();
	}
	if (l) {
		hixl_poll_softirqs();
		hixl_scq_spin_end(l);
	}
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_spin_until);

/**
 * hixl_poll_spin() - spin briefly on a small batch's completion, or not
 * @l:       the batch's link
 * @done:    the completion its end completes
 * @post_ns: hixl_poll_clock() before submission
 * @max_ns:  hixl_poll_clock() time the spin never passes (the batch's deadline)
 * Context: process context, may sleep.
 * Return: true when the waiter spun.
 */
bool hixl_poll_spin(struct hixl_link *l, struct completion *done, u64 post_ns, u64 max_ns)
{
	u32 seq = atomic_inc_return(&l->xq.poll_seq);
	u64 budget = hixl_poll_budget_ns(READ_ONCE(l->xq.poll_spin_ns),
					 READ_ONCE(l->xq.poll_sleep_ns),
					 (u64)READ_ONCE(hixl_poll_us) * NSEC_PER_USEC, seq);

	if (!budget || num_online_cpus() < 2)
		return false;
	hixl_poll_spin_until(l, done, min(post_ns + budget, max_ns));
	return true;
}
