// SPDX-License-Identifier: GPL-2.0
/*
 * scq.c - a link's send CQ: hixl polls it itself, from a worker after a
 * completion event and from a synchronous TRANSFER that spins on its own
 * completion (hybrid polling, poll.c), so that a small batch's completion
 * reaches its waiter without a hop through a workqueue.
 *
 * A link's QP has two CQs (link_life.c).  The receive CQ is the core's
 * (ib_alloc_cq(), IB_POLL_WORKQUEUE): its handlers parse the peer's
 * messages and take mutexes.  The send CQ carries the completions of what
 * we post - transfer chains (xq.c), messages (msg.c), TABLE_ACKs
 * (rtable.c), keep-alives (keepalive.c) and the drain markers - and is made
 * with ib_create_cq() and this file's own completion handler, as IPoIB
 * (ipoib_verbs.c, polled by NAPI) and RDS (rds/ib_cm.c, polled by a
 * tasklet) make theirs: a CQ of the core's may not be polled by anyone but
 * its poller (ib_process_cq_direct() is for IB_POLL_DIRECT CQs, which have
 * no completion events at all), and a waiter polling one beside the core's
 * worker would run two WCs' handlers at once, out of order.
 *
 * Here every poll holds @l->scq.mutex: the worker takes it (it may sleep,
 * as the core's worker may), a spinning waiter only tries it
 * (mutex_trylock()) and goes on spinning when the worker has it.  So the
 * handlers run one at a time, in the CQ's order, in process context, as
 * under IB_POLL_WORKQUEUE; the waiter runs them in its own context, holding
 * its engine's rdma_sem for reading, which no handler takes.  While a
 * waiter spins, the CQ's completion events do not wake the worker: the
 * last spinner to stop polls and re-arms the CQ instead (hixl_scq_comp()).
 *
 * The worker is the core's ib_cq_poll_work() (drivers/infiniband/core/cq.c)
 * on a workqueue of the same kind (hixl_cq_wq: WQ_HIGHPRI, as ib_comp_wq):
 * poll up to HIXL_SCQ_BUDGET WCs, then re-arm with
 * IB_CQ_REPORT_MISSED_EVENTS and run again when completions slipped in
 * between.  A WC the waiter took leaves the event it raised to the worker,
 * which then finds the CQ empty and re-arms it: the CQ is armed whenever
 * no poller runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "param.h"
#include "link.h"
#include "scq.h"

/* Run the handlers of up to @budget WCs, in the CQ's order; scq.mutex held. */
static int hixl_scq_process(struct hixl_link *l, int budget)
{
	struct hixl_scq *s = &l->scq;
	int done = 0;

	lockdep_assert_held(&s->mutex);
	while (done < budget) {
		int n = ib_poll_cq(s->cq, min_t(int, HIXL_SCQ_BATCH, budget - done), s->wc);

		if (n <= 0)
			break;
		for (int i = 0; i < n; i++) {
			struct ib_wc *wc = &s->wc[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(s->cq, wc);
			else	/* every request of ours names its handler */
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += n;
		if (n < HIXL_SCQ_BATCH)
			break;
	}
	return done;
}

/*
 * What the worker does after a completion event: poll up to
 * HIXL_SCQ_BUDGET WCs, then re-arm the CQ, and run again (queued) when
 * the budget ran out or completions slipped in before the re-arm.  The
 * work is queued under the mutex, with the CQ there, so that
 * hixl_scq_destroy()'s cancel_work_sync() comes after it.
 */
static void hixl_scq_run(struct hixl_link *l)
{
	struct hixl_scq *s = &l->scq;

	mutex_lock(&s->mutex);
	if (s->cq && (hixl_scq_process(l, HIXL_SCQ_BUDGET) >= HIXL_SCQ_BUDGET ||
		      ib_req_notify_cq(s->cq, IB_CQ_NEXT_COMP |
				       IB_CQ_REPORT_MISSED_EVENTS) > 0))
		queue_work(hixl_cq_wq, &s->work);
	mutex_unlock(&s->mutex);
}

static void hixl_scq_work(struct work_struct *w)
{
	hixl_scq_run(container_of(w, struct hixl_link, scq.work));
}

/*
 * The CQ's completion event: any context, hard IRQ included.  While a
 * waiter spins on a batch of the link it polls the CQ anyway, so the
 * event is left to it (as NAPI leaves a device's interrupt off while it
 * polls): the last spinner to stop runs what the worker would
 * (hixl_scq_spin_end()).  The event's flag and the spinner count are
 * each written before the other is read, with full barriers between
 * (store buffering, tools/memory-model), so that when a spinner stops
 * just as the event comes one of the two sees the other's write; the
 * flag's test_and_clear_bit() lets only one of them run the worker's part.
 */
VISIBLE_IF_KUNIT void hixl_scq_comp(struct ib_cq *cq, void *ctx)
{
	struct hixl_link *l = ctx;
	struct hixl_scq *s = &l->scq;

	if (atomic_read(&s->spinners)) {
		set_bit(HIXL_SCQ_EVENT, &s->event);
		smp_mb__after_atomic();
		if (atomic_read(&s->spinners) ||
		    !test_and_clear_bit(HIXL_SCQ_EVENT, &s->event))
			return;
	}
	queue_work(hixl_cq_wq, &s->work);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_comp);

/**
 * hixl_scq_spin_begin() - a waiter starts to spin on a batch of @l
 * @l: the link, referenced by the waiter
 *
 * From now until hixl_scq_spin_end() the CQ's completion events are left
 * to the spinners, which poll it (hixl_scq_poll()).
 */
void hixl_scq_spin_begin(struct hixl_link *l)
{
	atomic_inc(&l->scq.spinners);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_spin_begin);

/**
 * hixl_scq_spin_end() - a spinning waiter stops
 * @l: the link of hixl_scq_spin_begin()
 *
 * The last spinner to stop polls and re-arms the CQ, as the worker would
 * have, when a completion event came while they spun (hixl_scq_comp()).
 *
 * Context: process context; may sleep (@l->scq.mutex, the handlers).
 */
void hixl_scq_spin_end(struct hixl_link *l)
{
	struct hixl_scq *s = &l->scq;

	if (atomic_dec_return(&s->spinners))	/* ordered: the flag is read after */
		return;				/* the last one polls */
	if (test_and_clear_bit(HIXL_SCQ_EVENT, &s->event))
		hixl_scq_run(l);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_spin_end);

static void hixl_scq_event(struct ib_event *ev, void *ctx)
{
	struct hixl_link *l = ctx;

	hixl_link_warn(l, "send CQ event %s: closing the link\n", ib_event_msg(ev->event));
	hixl_link_fail(l, -EIO);
}

/**
 * hixl_scq_init() - prepare a new link's send CQ slot
 * @l: the link, not yet connected
 */
void hixl_scq_init(struct hixl_link *l)
{
	mutex_init(&l->scq.mutex);
	INIT_WORK(&l->scq.work, hixl_scq_work);
	atomic_set(&l->scq.spinners, 0);
	l->scq.event = 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_init);

/**
 * hixl_scq_destroy() - free a link's send CQ, if it has one
 * @l: the link; its QP is destroyed (nothing completes on the CQ any more)
 *
 * A waiter that still spins finds no CQ and waits as before; the worker
 * is stopped once no completion event can queue it again.
 *
 * Context: process context; takes @l->scq.mutex.
 */
void hixl_scq_destroy(struct hixl_link *l)
{
	struct ib_cq *cq;

	mutex_lock(&l->scq.mutex);
	cq = l->scq.cq;
	l->scq.cq = NULL;
	mutex_unlock(&l->scq.mutex);
	if (!cq)
		return;
	ib_destroy_cq(cq);	/* no completion event after this */
	cancel_work_sync(&l->scq.work);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_destroy);

/**
 * hixl_scq_create() - make and arm a link's send CQ
 * @l:    the link (@l->scq.cq is NULL)
 * @dev:  the device of the link's QP
 * @cqe:  entries: every send queue entry plus the drain markers
 *
 * Completion vector 0, as the receive CQ's.
 *
 * Context: process context.
 * Return: 0, or ib_create_cq()'s or ib_req_notify_cq()'s -errno (nothing
 * is left to free then).
 */
int hixl_scq_create(struct hixl_link *l, struct ib_device *dev, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe, .comp_vector = 0 };
	struct ib_cq *cq = ib_create_cq(dev, hixl_scq_comp, hixl_scq_event, l, &attr);
	int ret;

	if (IS_ERR(cq))
		return PTR_ERR(cq);
	/* set before it is armed: its worker finds it (nothing is posted yet) */
	mutex_lock(&l->scq.mutex);
	l->scq.cq = cq;
	mutex_unlock(&l->scq.mutex);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (ret)
		hixl_scq_destroy(l);
	return ret;
}

/**
 * hixl_scq_poll() - a spinning waiter polls its link's send CQ
 * @l: the link
 *
 * Runs the handlers of up to HIXL_SCQ_BATCH completions, as the worker
 * would, unless a poller is busy (the worker or another waiter: they run
 * the same handlers) or the CQ is gone.
 *
 * Context: process context; the handlers may sleep.
 * Return: the count of completions handled (0 also when another polls).
 */
int hixl_scq_poll(struct hixl_link *l)
{
	int n = 0;

	if (!mutex_trylock(&l->scq.mutex))
		return 0;
	if (l->scq.cq)
		n = hixl_scq_process(l, HIXL_SCQ_BATCH);
	mutex_unlock(&l->scq.mutex);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_poll);
