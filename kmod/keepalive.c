// SPDX-License-Identifier: GPL-2.0
/*
 * keepalive.c - an idle READY link posts a zero-length RDMA WRITE (IBTA C9-88);
 * unACKed, the QP exhausts its retries (docs/protocol.md, "Keep-alive")
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_verbs.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "link.h"
#include "keepalive.h"

unsigned int hixl_keepalive_ms = 1000;
module_param_named(keepalive_ms, hixl_keepalive_ms, uint, 0644);
MODULE_PARM_DESC(keepalive_ms,
		 "ms a link may be idle before a keep-alive checks its peer; 0: off (default 1000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_keepalive_ms);

/**
 * hixl_ka_decide() - what a link's keep-alive tick does
 * @now:      jiffies now
 * @last:     jiffies of the link's last sign of life
 * @interval: the interval in jiffies; 0: keep-alives off
 * @busy:     a keep-alive is still on the send queue
 * @next:     out: jiffies until the next tick (at least 1)
 * Return: HIXL_KA_OFF, HIXL_KA_WAIT (recently active or one outstanding)
 * or HIXL_KA_POST (idle: post one).
 */
enum hixl_ka_action hixl_ka_decide(unsigned long now, unsigned long last,
				   unsigned long interval, bool busy, unsigned long *next)
{
	if (!interval) {
		*next = HZ;
		return HIXL_KA_OFF;
	}
	*next = interval;
	if (busy)
		return HIXL_KA_WAIT;
	if (time_before(now, last + interval)) {
		*next = max(last + interval - now, 1UL);
		return HIXL_KA_WAIT;
	}
	return HIXL_KA_POST;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_ka_decide);

/**
 * hixl_wc_errno() - the link error of a failed work completion
 * @wc: a completion whose status is not IB_WC_SUCCESS
 * Return: -ECONNRESET for a flush; -EHOSTDOWN if transport retries ran out;
 * else -EIO.
 */
int hixl_wc_errno(const struct ib_wc *wc)
{
	switch (wc->status) {
	case IB_WC_WR_FLUSH_ERR:
		return -ECONNRESET;
	case IB_WC_RETRY_EXC_ERR:
		return -EHOSTDOWN;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hixl_wc_errno);

/**
 * hixl_link_lost() - the transport gave up on the peer: fail the link
 * @l:    the link
 * @what: what went unanswered, for the log
 *
 * -EHOSTDOWN; an accepted link is also torn down, as no DREQ will come.
 * Context: any that may queue work.
 */
void hixl_link_lost(struct hixl_link *l, const char *what)
{
	int err;

	if (hixl_link_state(l, &err) >= HIXL_LINK_ERROR)
		return;
	hixl_link_warn(l, "%s: no answer from the peer (transport retries exhausted): closing the link\n",
		       what);
	if (l->active)
		hixl_link_fail(l, -EHOSTDOWN);
	else
		hixl_link_abort(l, -EHOSTDOWN);
}

static void hixl_ka_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct hixl_link *l = cq->cq_context;

	if (wc->status == IB_WC_SUCCESS) {
		hixl_link_alive(l);
		WRITE_ONCE(l->ka.busy, false);
		return;
	}
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		hixl_link_count(l, HIXL_CTR_WC_ERRORS, 1);	/* the reset counts itself */
	if (wc->status == IB_WC_RETRY_EXC_ERR) {
		hixl_link_lost(l, "keep-alive");
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		/* a local failure; for a flush, another completion said why */
		hixl_link_warn(l, "keep-alive: %s\n", ib_wc_status_msg(wc->status));
		hixl_link_fail(l, hixl_wc_errno(wc));
	}
}

/* Queue the next tick in @delay jiffies, unless the link left READY. */
static void hixl_ka_arm(struct hixl_link *l, unsigned long delay)
{
	spin_lock(&l->lock);
	if (l->state == HIXL_LINK_READY)
		queue_delayed_work(hixl_wq, &l->ka.work, delay);
	spin_unlock(&l->lock);
}

/*
 * post_mutex only if free: its holder's own completion tells whether the peer
 * answers.  Nothing while our port is down: that is a local event.
 */
static void hixl_ka_post(struct hixl_link *l)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
			.wr_cqe = &l->ka.cqe,
		},
	};
	int ret;

	if (!mutex_trylock(&l->msg.post_mutex))
		return;
	if (hixl_link_usable(l) && hixl_link_port_up(l)) {
		WRITE_ONCE(l->ka.busy, true);
		ret = ib_post_send(l->qp, &wr.wr, NULL);
		if (ret) {
			WRITE_ONCE(l->ka.busy, false);
			hixl_link_warn(l, "keep-alive: post failed: %d\n", ret);
		}
	}
	mutex_unlock(&l->msg.post_mutex);
}

static void hixl_ka_work(struct work_struct *w)
{
	struct hixl_link *l = container_of(to_delayed_work(w), struct hixl_link, ka.work);
	unsigned long next;
	int err;

	if (hixl_link_state(l, &err) != HIXL_LINK_READY)
		return;
	if (hixl_ka_decide(jiffies, READ_ONCE(l->ka.last),
			   msecs_to_jiffies(READ_ONCE(hixl_keepalive_ms)),
			   READ_ONCE(l->ka.busy), &next) == HIXL_KA_POST)
		hixl_ka_post(l);
	hixl_ka_arm(l, next);
}

/**
 * hixl_link_ka_init() - set up a new link's keep-alive, not started
 * @l: the link, being allocated
 */
void hixl_link_ka_init(struct hixl_link *l)
{
	INIT_DELAYED_WORK(&l->ka.work, hixl_ka_work);
	l->ka.cqe.done = hixl_ka_done;
}

/**
 * hixl_link_ka_start() - start a link's keep-alives
 * @l: the link; its @lock held, just set to READY
 * Context: any.
 */
void hixl_link_ka_start(struct hixl_link *l)
{
	unsigned long first = msecs_to_jiffies(READ_ONCE(hixl_keepalive_ms));

	lockdep_assert_held(&l->lock);
	l->ka.last = jiffies;
	l->ka.busy = false;
	queue_delayed_work(hixl_wq, &l->ka.work, first ? first : HZ);
}

/**
 * hixl_link_ka_stop() - stop a link's keep-alives for good
 * @l: the link, marked CLOSED
 * Context: process context, may sleep (waits for a running tick).
 */
void hixl_link_ka_stop(struct hixl_link *l)
{
	cancel_delayed_work_sync(&l->ka.work);
}
