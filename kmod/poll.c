// SPDX-License-Identifier: GPL-2.0
/*
 * poll.c - hybrid polling of small synchronous transfers: the TRANSFER
 * ioctl may spin briefly on its batch's completion before it sleeps, so
 * that a small batch that completes within microseconds does not pay a
 * sleep and a wake-up per call.
 *
 * The spinner polls the link's send CQ itself (hixl_scq_poll(), scq.c) as
 * it spins, the way a block device's poll queue is polled by its waiter
 * (blk_mq_poll(), nvme-rdma's IB_POLL_DIRECT queues): the completion of
 * its chain runs hixl_xwr_done(), which ends the batch, in the waiter's
 * own context, without the hop through the CQ's worker and without a
 * wake-up.  When the worker is polling already the spinner only watches
 * the batch's completion (completion_done()): the worker runs the same
 * handlers.
 *
 * Whether spinning pays depends on the machine: with a hardware RNIC the
 * WC is in the CQ as soon as the device wrote it; with a software device
 * (rxe) on few CPUs the WC itself needs a CPU (rxe's tasks), and a spinner
 * can delay the very completion it waits for - measured under QEMU/TCG
 * with 2 vCPUs when the spinner could not poll, spinning made a 64 B WRITE
 * slower (bench/results-lat.md).  So the
 * decision is measured per link, not assumed: each small synchronous batch
 * records the time its caller waited (post to return, what the caller
 * sees) in one of two EWMAs, the spinning one or the sleeping one, and a
 * batch spins when spinning has been the faster (hixl_poll_budget_ns()).
 * One batch in HIXL_POLL_EXPLORE takes the other way, so that both stay
 * current when the load changes.  A spin is bounded, like the block
 * layer's hybrid polling bounds its sleep by the mean completion time
 * (blk_mq_poll_nsecs()): by 1.5 times the spinning EWMA (a completion is
 * rarely much later than the mean; when it is, the waiter sleeps as
 * before), and always by the poll_us module parameter (0: off).
 *
 * The spinner stays a good citizen: it yields at need_resched(), stops at
 * a fatal signal, and does not spin at all on a single online CPU, where
 * the completion can only run once the waiter gives the CPU up.  What
 * follows the spin is the wait it replaces, unchanged (hixl_req_wait(),
 * hixl_xbatch_wait()).
 */
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
 * @spin_ns:  the link's EWMA of the wait of small batches that spun (0: none yet)
 * @sleep_ns: the same of those that slept at once (0: none yet)
 * @cap_ns:   the poll_us module parameter in ns (0: hybrid polling off)
 * @seq:      the link's count of small synchronous batches so far
 *
 * A way without a sample is tried first (spinning, then sleeping); then
 * the faster way is taken, except that every HIXL_POLL_EXPLORE-th batch
 * takes the other, to keep both averages current.
 *
 * Return: 0 to sleep at once; otherwise the time after posting until which
 * the waiter may spin, in ns: 1.5 times @spin_ns (@cap_ns before the first
 * sample), at most @cap_ns.
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
 * @sample_ns: a batch's post-to-completion time
 *
 * Weight 1/8 for the new sample (as the TCP RTT estimator); the first
 * sample is taken as it is, later ones count at most twice the average,
 * so that one stall of the machine (milliseconds, under a loaded
 * hypervisor) does not make one way look slow for dozens of batches,
 * while a real change is still followed (by up to 1/8 per sample); the
 * result is never 0 (0 means "no sample").
 *
 * Return: the new average.
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
 * hixl_poll_record() - a small batch ended well: feed the link's EWMAs
 * @l:       the link
 * @spun:    the waiter spun (hixl_poll_spin() returned a budget)
 * @post_ns: hixl_poll_clock() before the batch was submitted
 *
 * Called by the waiter once its wait returned; racing updates from two
 * waiters on one link may lose a sample, which an average can afford.  A
 * waiter that moved to a CPU whose poll clock is behind @post_ns's gives
 * no sample: the difference would wrap to a huge time.
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

/* Run this CPU's pending softirqs here, as netif_rx() has them run. */
static void hixl_poll_softirqs(void)
{
	local_bh_disable();
	local_bh_enable();
}

/**
 * hixl_poll_spin_until() - spin on a completion until a deadline
 * @l:      the link whose send CQ to poll meanwhile (NULL: none)
 * @done:   the completion
 * @end_ns: hixl_poll_clock() after which to give up
 *
 * Spins until @done is completed, @end_ns has passed or a fatal signal is
 * pending.  Each turn, the first one even past @end_ns, runs this CPU's
 * pending softirqs and polls @l's send CQ (hixl_scq_poll()), so that the
 * work that makes the completion, and the completion's handler that ends
 * @done, may run here; between turns the spinner yields the CPU whenever
 * the scheduler asks for it.  Meanwhile the CQ's completion events are
 * left to the spinner, which polls and re-arms the CQ when it stops
 * (hixl_scq_spin_begin(), hixl_scq_spin_end()).  Consumes nothing of @done.
 *
 * The softirqs run here as netif_rx() has them run, by enabling bottom
 * halves (local_bh_enable()): a software RDMA device may leave its work
 * as a pending softirq of the posting CPU (rxe's tasklets on Linux 6.1),
 * which ksoftirqd would otherwise run after taking the CPU from the
 * spinner, and hand the completion to the CQ's worker after that.
 *
 * Context: process context, bottom halves enabled; may sleep
 * (cond_resched(), the CQ's handlers).
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
		/* the CQ's event, when the device raised it as a softirq, finds us */
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
 * @post_ns: hixl_poll_clock() before the batch was submitted
 *
 * Spins (hixl_poll_spin_until()) for the budget hixl_poll_budget_ns()
 * gives, counted from @post_ns; not at all with one online CPU.  The
 * caller then waits for @done as it would without the spin, and passes
 * the return value to hixl_poll_record().
 *
 * Context: process context, may sleep (cond_resched()).
 * Return: true when the waiter spun (whether or not @done came meanwhile).
 */
bool hixl_poll_spin(struct hixl_link *l, struct completion *done, u64 post_ns)
{
	u32 seq = atomic_inc_return(&l->xq.poll_seq);
	u64 budget = hixl_poll_budget_ns(READ_ONCE(l->xq.poll_spin_ns),
					 READ_ONCE(l->xq.poll_sleep_ns),
					 (u64)READ_ONCE(hixl_poll_us) * NSEC_PER_USEC, seq);

	if (!budget || num_online_cpus() < 2)
		return false;
	hixl_poll_spin_until(l, done, post_ns + budget);
	return true;
}
