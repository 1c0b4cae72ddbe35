// SPDX-License-Identifier: GPL-2.0
/*
 * poll_kunit.c - KUnit suite hixl_poll: the hybrid polling decision of
 * poll.c - the choice and budget of a spin (hixl_poll_budget_ns()): off,
 * learning both ways first, the faster way taken, one batch in
 * HIXL_POLL_EXPLORE the other, the cap; the EWMA of completion times
 * (hixl_poll_ewma()) converging both ways, a stall clamped, never
 * reading as "no sample"; and which batches may spin (hixl_poll_small()).
 * The spinner runs its CPU's pending softirqs itself (a tasklet, as
 * rxe's on Linux 6.1, completes on the spinning task).
 * The spinner's poll of its link's send CQ (scq.c) without a CQ and while
 * another poller holds it: the spin goes on, and nothing waits for the
 * other poller; a completion event while waiters spin is left to the last
 * of them to stop (hixl_scq_comp()).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/workqueue.h>

#include "link.h"
#include "xq.h"
#include "scq.h"
#include "poll.h"

static void hixl_poll_off_never_spins(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(0, 0, 0, 1), 0ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(5000, 90000, 0, 1), 0ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(5000, 90000, 0, HIXL_POLL_EXPLORE), 0ULL);
}

static void hixl_poll_learns_both_ways_first(struct kunit *test)
{
	/* nothing learned: spin, up to the cap */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(0, 0, 200000, 1), 200000ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(0, 30000, 200000, 1), 200000ULL);
	/* spinning measured, sleeping not yet: sleep once */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(30000, 0, 200000, 1), 0ULL);
}

static void hixl_poll_takes_the_faster_way(struct kunit *test)
{
	/* spinning faster: spin 1.5 times its average */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10000, 40000, 200000, 1), 15000ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10000, 10000, 200000, 1), 15000ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(1, 2, 200000, 1), 1ULL);
	/* at most the cap */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(150000, 400000, 200000, 1), 200000ULL);
	/* the largest cap the parameter allows does not overflow */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(1000, 2000, (u64)UINT_MAX * NSEC_PER_USEC, 1),
			1500ULL);
	/* sleeping faster (a spinner delays a software device): sleep */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(115000, 71000, 200000, 1), 0ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10001, 10000, 200000, 7), 0ULL);
}

static void hixl_poll_explores_the_other_way(struct kunit *test)
{
	u32 spins = 0, seq;

	/* one in HIXL_POLL_EXPLORE takes the slower way */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(115000, 71000, 200000, HIXL_POLL_EXPLORE),
			172500ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10000, 40000, 200000, 2 * HIXL_POLL_EXPLORE),
			0ULL);
	for (seq = 1; seq <= 10 * HIXL_POLL_EXPLORE; seq++)
		spins += hixl_poll_budget_ns(115000, 71000, 200000, seq) > 0;
	KUNIT_EXPECT_EQ(test, spins, 10U);
	/* the sequence count wrapping is just another batch */
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10000, 40000, 200000, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_budget_ns(10000, 40000, 200000, U32_MAX), 15000ULL);
}

static void hixl_poll_ewma_converges(struct kunit *test)
{
	u64 e = hixl_poll_ewma(0, 80000);
	int i;

	KUNIT_EXPECT_EQ(test, e, 80000ULL);	/* the first sample as it is */
	KUNIT_EXPECT_EQ(test, hixl_poll_ewma(e, 0), 70000ULL);	/* weight 1/8 */
	/* the link got fast: within 32 samples the average follows */
	for (i = 0; i < 32; i++)
		e = hixl_poll_ewma(e, 10000);
	KUNIT_EXPECT_LT(test, e, 11000ULL);
	/* one stall counts twice the average, no more */
	KUNIT_EXPECT_EQ(test, hixl_poll_ewma(8000, 4000000), 9000ULL);
	/* and slow again: followed, up to 1/8 per sample */
	for (i = 0; i < 64; i++)
		e = hixl_poll_ewma(e, 1000000);
	KUNIT_EXPECT_GT(test, e, 900000ULL);
}

static void hixl_poll_ewma_edges(struct kunit *test)
{
	/* a 0 ns sample never reads back as "no sample" */
	KUNIT_EXPECT_EQ(test, hixl_poll_ewma(0, 0), 1ULL);
	KUNIT_EXPECT_EQ(test, hixl_poll_ewma(1, 0), 1ULL);
	/* a huge sample (a batch that waited out a timeout) is clamped */
	KUNIT_EXPECT_EQ(test, hixl_poll_ewma(0, U64_MAX), HIXL_POLL_EWMA_MAX_NS);
	KUNIT_EXPECT_LE(test, hixl_poll_ewma(HIXL_POLL_EWMA_MAX_NS, U64_MAX),
			HIXL_POLL_EWMA_MAX_NS);
}

static void hixl_poll_small_batches(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, hixl_poll_small(64, 1));
	KUNIT_EXPECT_TRUE(test, hixl_poll_small(4096, 1));
	KUNIT_EXPECT_TRUE(test, hixl_poll_small(HIXL_POLL_MAX_BYTES, 16));
	KUNIT_EXPECT_FALSE(test, hixl_poll_small(HIXL_POLL_MAX_BYTES + 1, 1));
	KUNIT_EXPECT_FALSE(test, hixl_poll_small(0, 0));
	/* more than one chain: more than one completion, never spun on */
	KUNIT_EXPECT_FALSE(test, hixl_poll_small(HIXL_CHAIN + 1, HIXL_CHAIN + 1));
	KUNIT_EXPECT_TRUE(test, hixl_poll_small(HIXL_CHAIN, HIXL_CHAIN));
}

static void hixl_poll_spin_done_returns_at_once(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);

	complete(&done);
	KUNIT_EXPECT_TRUE(test, hixl_poll_spin_until(NULL, &done, hixl_poll_clock() + NSEC_PER_SEC));
	/* the spin consumed nothing: the wait after it returns at once */
	KUNIT_EXPECT_TRUE(test, completion_done(&done));
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&done, 1), 0UL);
}

static void hixl_poll_spin_gives_up_at_the_deadline(struct kunit *test)
{
	DECLARE_COMPLETION_ONSTACK(done);
	u64 t0;

	/* the poll clock is local_clock(): read both times on one CPU */
	migrate_disable();
	t0 = hixl_poll_clock();
	KUNIT_EXPECT_FALSE(test, hixl_poll_spin_until(NULL, &done, t0 + 200 * NSEC_PER_USEC));
	KUNIT_EXPECT_GE(test, hixl_poll_clock() - t0, 200 * NSEC_PER_USEC);
	migrate_enable();
	/* a deadline already past: one turn, no spin */
	KUNIT_EXPECT_FALSE(test, hixl_poll_spin_until(NULL, &done, t0));
}

struct hixl_poll_timer {
	struct hrtimer t;
	struct completion done;
};

static enum hrtimer_restart hixl_poll_timer_fn(struct hrtimer *t)
{
	complete(&container_of(t, struct hixl_poll_timer, t)->done);
	return HRTIMER_NORESTART;
}

static void hixl_poll_spin_sees_a_completion(struct kunit *test)
{
	struct hixl_poll_timer *pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pt);
	init_completion(&pt->done);
	hrtimer_init(&pt->t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	pt->t.function = hixl_poll_timer_fn;
	hrtimer_start(&pt->t, ns_to_ktime(50 * NSEC_PER_USEC), HRTIMER_MODE_REL);
	/* completed from hard interrupt context well before the deadline */
	KUNIT_EXPECT_TRUE(test, hixl_poll_spin_until(NULL, &pt->done, hixl_poll_clock() + 5 * NSEC_PER_SEC));
	hrtimer_cancel(&pt->t);
	wait_for_completion(&pt->done);
}

struct hixl_poll_tasklet {
	struct tasklet_struct t;
	struct completion done;
	struct task_struct *ran_on;
};

static void hixl_poll_tasklet_fn(struct tasklet_struct *t)
{
	struct hixl_poll_tasklet *pt = from_tasklet(pt, t, t);

	pt->ran_on = current;
	complete(&pt->done);
}

static void hixl_poll_spin_runs_softirqs(struct kunit *test)
{
	struct hixl_poll_tasklet *pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pt);
	init_completion(&pt->done);
	tasklet_setup(&pt->t, hixl_poll_tasklet_fn);
	/*
	 * Scheduled from process context, the tasklet is this CPU's pending
	 * softirq and ksoftirqd is woken for it, as for rxe's tasklets on
	 * Linux 6.1: the spinner runs it itself, on its first turn (which
	 * a deadline already past does not skip), instead of handing the
	 * CPU to ksoftirqd.
	 */
	tasklet_schedule(&pt->t);
	KUNIT_EXPECT_TRUE(test, hixl_poll_spin_until(NULL, &pt->done, 0));
	KUNIT_EXPECT_PTR_EQ(test, pt->ran_on, current);
	tasklet_kill(&pt->t);
	wait_for_completion(&pt->done);
}

static struct hixl_link *hixl_poll_test_link(struct kunit *test)
{
	struct hixl_link *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	hixl_scq_init(l);
	return l;
}

static void hixl_poll_record_feeds_the_waits_average(struct kunit *test)
{
	struct hixl_link *l = hixl_poll_test_link(test);

	/* a spun batch posted 1 ms ago: the spin EWMA's first sample */
	hixl_poll_record(l, true, hixl_poll_clock() - NSEC_PER_MSEC);
	KUNIT_EXPECT_GE(test, l->xq.poll_spin_ns, NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, l->xq.poll_sleep_ns, 0ULL);
	/*
	 * posted "later" than now, as a CPU whose local_clock() is ahead
	 * reads it: no sample, not a wrapped difference of centuries
	 */
	hixl_poll_record(l, false, hixl_poll_clock() + NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, l->xq.poll_sleep_ns, 0ULL);
}

static void hixl_poll_scq_without_cq(struct kunit *test)
{
	struct hixl_link *l = hixl_poll_test_link(test);
	DECLARE_COMPLETION_ONSTACK(done);
	u64 t0;

	/* before the QP exists, or after it is gone: nothing to poll */
	KUNIT_EXPECT_EQ(test, hixl_scq_poll(l), 0);
	migrate_disable();	/* local_clock() read on one CPU */
	t0 = hixl_poll_clock();
	KUNIT_EXPECT_FALSE(test, hixl_poll_spin_until(l, &done, t0 + 100 * NSEC_PER_USEC));
	KUNIT_EXPECT_GE(test, hixl_poll_clock() - t0, 100 * NSEC_PER_USEC);
	migrate_enable();
	complete(&done);
	KUNIT_EXPECT_TRUE(test, hixl_poll_spin_until(l, &done, hixl_poll_clock() + NSEC_PER_SEC));
	hixl_scq_destroy(l);		/* no CQ: nothing to free */
	KUNIT_EXPECT_NULL(test, l->scq.cq);
}

static void hixl_poll_scq_busy_poller(struct kunit *test)
{
	struct hixl_link *l = hixl_poll_test_link(test);
	struct hixl_poll_timer *pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pt);
	/* the CQ's worker (here: the test) polls: the spinner does not wait for it */
	mutex_lock(&l->scq.mutex);
	KUNIT_EXPECT_EQ(test, hixl_scq_poll(l), 0);
	init_completion(&pt->done);
	hrtimer_init(&pt->t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	pt->t.function = hixl_poll_timer_fn;
	hrtimer_start(&pt->t, ns_to_ktime(50 * NSEC_PER_USEC), HRTIMER_MODE_REL);
	KUNIT_EXPECT_TRUE(test, hixl_poll_spin_until(l, &pt->done, hixl_poll_clock() + 5 * NSEC_PER_SEC));
	mutex_unlock(&l->scq.mutex);
	hrtimer_cancel(&pt->t);
	wait_for_completion(&pt->done);
}

static void hixl_poll_scq_event_left_to_spinners(struct kunit *test)
{
	struct hixl_link *l = hixl_poll_test_link(test);

	/* no spinner: the event queues the worker (no CQ: it finds nothing) */
	hixl_scq_comp(NULL, l);
	KUNIT_EXPECT_FALSE(test, test_bit(HIXL_SCQ_EVENT, &l->scq.event));
	flush_work(&l->scq.work);

	/* two spinners: the event waits for the last one to stop */
	hixl_scq_spin_begin(l);
	hixl_scq_spin_begin(l);
	hixl_scq_comp(NULL, l);
	KUNIT_EXPECT_TRUE(test, test_bit(HIXL_SCQ_EVENT, &l->scq.event));
	KUNIT_EXPECT_FALSE(test, work_pending(&l->scq.work));
	hixl_scq_spin_end(l);
	KUNIT_EXPECT_TRUE(test, test_bit(HIXL_SCQ_EVENT, &l->scq.event));
	hixl_scq_spin_end(l);
	KUNIT_EXPECT_FALSE(test, test_bit(HIXL_SCQ_EVENT, &l->scq.event));
	KUNIT_EXPECT_EQ(test, atomic_read(&l->scq.spinners), 0);
	KUNIT_EXPECT_FALSE(test, work_pending(&l->scq.work));

	/* a spinner without an event leaves nothing behind */
	hixl_scq_spin_begin(l);
	hixl_scq_spin_end(l);
	KUNIT_EXPECT_FALSE(test, test_bit(HIXL_SCQ_EVENT, &l->scq.event));
	KUNIT_EXPECT_FALSE(test, work_pending(&l->scq.work));
	hixl_scq_destroy(l);
}

static struct kunit_case hixl_hybrid_poll_cases[] = {
	KUNIT_CASE(hixl_poll_off_never_spins),
	KUNIT_CASE(hixl_poll_learns_both_ways_first),
	KUNIT_CASE(hixl_poll_takes_the_faster_way),
	KUNIT_CASE(hixl_poll_explores_the_other_way),
	KUNIT_CASE(hixl_poll_ewma_converges),
	KUNIT_CASE(hixl_poll_ewma_edges),
	KUNIT_CASE(hixl_poll_small_batches),
	KUNIT_CASE(hixl_poll_spin_done_returns_at_once),
	KUNIT_CASE(hixl_poll_spin_gives_up_at_the_deadline),
	KUNIT_CASE(hixl_poll_spin_sees_a_completion),
	KUNIT_CASE(hixl_poll_spin_runs_softirqs),
	KUNIT_CASE(hixl_poll_record_feeds_the_waits_average),
	KUNIT_CASE(hixl_poll_scq_without_cq),
	KUNIT_CASE(hixl_poll_scq_busy_poller),
	KUNIT_CASE(hixl_poll_scq_event_left_to_spinners),
	{}
};

static struct kunit_suite hixl_hybrid_poll_suite = {
	.name = "hixl_poll",
	.test_cases = hixl_hybrid_poll_cases,
};

kunit_test_suite(hixl_hybrid_poll_suite);
