// SPDX-License-Identifier: GPL-2.0
/*
 * scq.c - a link's send CQ, polled by a worker and by spinning TRANSFERs; every poll
 * holds scq.mutex: handlers run one at a time, in CQ order, in process context
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "param.h"
#include "link.h"
#include "scq.h"

/* Run the handlers of up to @budget WCs; scq.mutex held. */
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
 * As ib_cq_poll_work(); requeued under the mutex so that hixl_scq_destroy()'s
 * cancel_work_sync() comes after it.
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
 * The CQ's event, any context.  While waiters spin the last one to stop
 * takes it, as NAPI does; flag and spinner count are each written before
 * the other is read, with full barriers (store buffering).
 */
VISIBLE_IF_KUNIT void hixl_scq_comp(struct ib_cq *cq, void *ctx)
{
	struct hixl_link *l = ctx;
	struct hixl_scq *s = &l->scq;

	if (atomic_read(&s->spinners)) {
		set_bit(HIXL_SCQ_EVENT, &s->event);
		smp_mb__after_atomic();	/* pairs with atomic_dec_return() in the spinner's end */
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
 */
void hixl_scq_spin_begin(struct hixl_link *l)
{
	atomic_inc(&l->scq.spinners);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_scq_spin_begin);

/**
 * hixl_scq_spin_end() - a spinning waiter stops; the last one takes an event
 * @l: the link of hixl_scq_spin_begin()
 * Context: process context, may sleep.
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
 * hixl_scq_destroy() - free a link's send CQ, if any
 * @l: the link; its QP is destroyed
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
 * @l:    the link
 * @dev:  the device of the link's QP
 * @cqe:  entries: the send queue plus the drain markers
 * Context: process context.
 * Return: 0, or ib_create_cq()'s or ib_req_notify_cq()'s -errno.
 */
int hixl_scq_create(struct hixl_link *l, struct ib_device *dev, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe, .comp_vector = 0 };
	struct ib_cq *cq = ib_create_cq(dev, hixl_scq_comp, hixl_scq_event, l, &attr);
	int ret;

	if (IS_ERR(cq))
		return PTR_ERR(cq);
	/* set before arming, so the worker finds it */
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
 * Context: process context; the handlers may sleep.
 * Return: completions handled (up to HIXL_SCQ_BATCH); 0 if another polls.
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
