// SPDX-License-Identifier: GPL-2.0
/*
 * poll.c - hybrid polling of small synchronous transfers: the TRANSFER
 * ioctl spins briefly on its batch's completion before it sleeps, so that a
 * small batch that completes within microseconds does not pay a sleep and a
 * wake-up per call.
 *
 * The link's CQ is IB_POLL_WORKQUEUE (link.c): the core's worker polls it
 * and runs hixl_xwr_done(), which ends the batch.  Polling that CQ from the
 * waiter as well would race with the core's poller (ib_poll_cq() is not
 * serialized against it), so the waiter spins on the batch's completion
 * (completion_done()) instead: the same work runs in the worker, only the
 * waiter's sleep and wake-up are saved.  Each spin is bounded
 * (hixl_poll_budget_ns()): by the poll_us module parameter (0: off), and,
 * like the block layer's hybrid polling (blk_mq_poll_nsecs(): sleep half
 * the mean completion time, then poll), by what recent batches took: the
 * link keeps an EWMA of the post-to-completion time of its small
 * synchronous batches, and the waiter spins until 1.5 times that after
 * posting (a completion is rarely much later than the mean; when it is,
 * the waiter sleeps as before).  A link whose small batches usually take
 * longer than poll_us is not spun on at all, so slow links (a software
 * device on a busy machine, large work requests) cost no CPU; their
 * completions still feed the EWMA, and spinning comes back when they get
 * fast.
 *
 * The spinner stays a good citizen: it yields at need_resched() (on a
 * software device such as rxe the completion itself needs a CPU: its
 * kernel threads and the CQ's worker), stops at a fatal signal, and does
 * not spin at all on a single online CPU, where the completion can only
 * run once the waiter gives the CPU up.  What follows the spin is the wait
 * it replaces, unchanged (hixl_xbatch_wait()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "hixl_priv.h"

unsigned int hixl_poll_us = 200;
module_param_named(poll_us, hixl_poll_us, uint, 0644);
MODULE_PARM_DESC(poll_us,
		 "a synchronous TRANSFER of at most 64 KiB spins up to this many microseconds on its completion before it sleeps, adaptively (1.5x the link's recent completion time; not when that exceeds poll_us); 0: off (default 200)");
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_us);

/**
 * hixl_poll_budget_ns() - how long a waiter spins before it sleeps
 * @ewma_ns: the link's EWMA of small batch completion times (0: none yet)
 * @cap_ns:  the poll_us module parameter in ns (0: hybrid polling off)
 *
 * Return: the time after posting until which the waiter may spin, in ns:
 * 0 when polling is off or completions usually take longer than @cap_ns;
 * @cap_ns before the link has a sample; otherwise 1.5 times @ewma_ns, at
 * most @cap_ns.
 */
u64 hixl_poll_budget_ns(u64 ewma_ns, u64 cap_ns)
{
	if (!cap_ns)
		return 0;
	if (!ewma_ns)
		return cap_ns;
	if (ewma_ns > cap_ns)
		return 0;
	return min(cap_ns, ewma_ns + ewma_ns / 2);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_budget_ns);

/**
 * hixl_poll_ewma() - add a completion time to an EWMA
 * @ewma_ns:   the average so far (0: no sample yet)
 * @sample_ns: a batch's post-to-completion time
 *
 * Weight 1/8 for the new sample (as the TCP RTT estimator); the first
 * sample is taken as it is; the result is never 0 (0 means "no sample").
 *
 * Return: the new average.
 */
u64 hixl_poll_ewma(u64 ewma_ns, u64 sample_ns)
{
	u64 avg;

	if (sample_ns > HIXL_POLL_EWMA_MAX_NS)
		sample_ns = HIXL_POLL_EWMA_MAX_NS;
	avg = ewma_ns ? ewma_ns - ewma_ns / 8 + sample_ns / 8 : sample_ns;
	return avg ?: 1;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_ewma);

/**
 * hixl_poll_small() - is a batch one whose waiter may spin?
 * @bytes:  the bytes its direct pieces move
 * @pieces: their count
 *
 * Return: true for at most HIXL_POLL_MAX_BYTES in one chain of work
 * requests (one completion ends it).
 */
bool hixl_poll_small(u64 bytes, u32 pieces)
{
	return pieces && pieces <= HIXL_CHAIN && bytes <= HIXL_POLL_MAX_BYTES;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_small);

/**
 * hixl_poll_record() - a small batch completed: feed the link's EWMA
 * @l:       the link
 * @post_ns: ktime_get_ns() before the batch was submitted
 *
 * Called from the batch's end (the CQ's worker, or the submitter); racing
 * updates may lose a sample, which an average can afford.
 */
void hixl_poll_record(struct hixl_link *l, u64 post_ns)
{
	u64 old = READ_ONCE(l->xq.lat_ewma_ns);

	WRITE_ONCE(l->xq.lat_ewma_ns, hixl_poll_ewma(old, ktime_get_ns() - post_ns));
}

/**
 * hixl_poll_spin_until() - spin on a completion until a deadline
 * @done:   the completion
 * @end_ns: ktime_get_ns() after which to give up
 *
 * Spins until @done is completed, @end_ns has passed or a fatal signal is
 * pending; yields the CPU whenever the scheduler asks for it.  Consumes
 * nothing of @done.
 *
 * Context: process context, may sleep (cond_resched()).
 * Return: true when @done was completed.
 */
bool hixl_poll_spin_until(struct completion *done, u64 end_ns)
{
	while (!completion_done(done)) {
		if (fatal_signal_pending(current) || ktime_get_ns() >= end_ns)
			return false;
		if (need_resched())
			cond_resched();
		else
			cpu_relax();
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_poll_spin_until);

/**
 * hixl_poll_spin() - spin briefly on a small batch's completion
 * @l:       the batch's link
 * @done:    the completion its end completes
 * @post_ns: ktime_get_ns() before the batch was submitted
 *
 * Spins (hixl_poll_spin_until()) for the budget hixl_poll_budget_ns()
 * gives, counted from @post_ns; not at all with one online CPU.  The
 * caller then waits for @done as it would without the spin.
 *
 * Context: process context, may sleep (cond_resched()).
 * Return: true when @done was completed during the spin.
 */
bool hixl_poll_spin(struct hixl_link *l, struct completion *done, u64 post_ns)
{
	u64 budget = hixl_poll_budget_ns(READ_ONCE(l->xq.lat_ewma_ns),
					 (u64)READ_ONCE(hixl_poll_us) * NSEC_PER_USEC);

	if (!budget || num_online_cpus() < 2)
		return false;
	return hixl_poll_spin_until(done, post_ns + budget);
}
