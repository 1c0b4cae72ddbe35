// SPDX-License-Identifier: GPL-2.0
/*
 * keepalive.c - a silent peer is detected: keep-alives on idle links, and
 * what a link does when the RC transport gives up on its peer.
 *
 * A peer that is hung, powered off or cut off (cable pulled, its netdev
 * set down, its address removed) sends no DREQ: without traffic nothing on
 * our side ever notices, and a transfer posted later would wait for the
 * transport.  So every READY link that has been idle - no completion of
 * ours (a message, a transfer, an earlier keep-alive) and no message from
 * the peer - for hixl.keepalive_ms posts one zero-length RDMA WRITE.  The
 * peer's RC transport must ACK it; the peer's process plays no part (its
 * kernel ACKs for a stopped process), so only a peer that the network no
 * longer reaches, or whose machine is gone, stays silent.  Then our QP
 * exhausts its retries (IB_WC_RETRY_EXC_ERR) and the link fails with
 * -EHOSTDOWN, "keep-alive: no answer from the peer".  A busy link needs no
 * keep-alive: its own transfers run into the same retry limit, and
 * hixl_link_lost() gives them the same error.
 *
 * A zero-length WRITE needs no remote key or address (IBTA C9-88; rxe:
 * check_rkey() in rxe_resp.c since before 6.1), consumes no receive buffer
 * of the peer and is no message of the wire protocol: a peer of any version
 * answers it, so nothing is negotiated.
 *
 * The bound (docs/protocol.md, "Keep-alive"): the QP's ACK timeout is set
 * to HIXL_ACK_TIMEOUT (4.096 us * 2^17 = 537 ms) and its retry count to
 * HIXL_RETRY_COUNT (6) on both sides (cm.c), so the transport gives up
 * 7 * 537 ms = 3.8 s after the last unanswered request; a silent peer is
 * detected at most keepalive_ms + 3.8 s after it fell silent (4.8 s at the
 * default 1000 ms), plus scheduling delay.
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

/*
 * The keep-alive interval, ms; 0 turns keep-alives off (a silent peer is
 * then noticed only by the transfers posted to it).  Read at every tick, so
 * a change applies to existing links within a second.
 */
unsigned int hixl_keepalive_ms = 1000;
module_param_named(keepalive_ms, hixl_keepalive_ms, uint, 0644);
MODULE_PARM_DESC(keepalive_ms,
		 "ms a link may be idle before a keep-alive checks its peer; 0: off (default 1000)");
EXPORT_SYMBOL_IF_KUNIT(hixl_keepalive_ms);

/**
 * hixl_ka_decide() - what a link's keep-alive tick does
 * @now:      jiffies now
 * @last:     jiffies of the link's last sign of life (&hixl_link_ka.last)
 * @interval: the keep-alive interval in jiffies; 0: keep-alives are off
 * @busy:     a keep-alive is still on the send queue
 * @next:     out: jiffies until the next tick (at least 1)
 *
 * Pure: the work (hixl_ka_work()) acts on it; KUnit tests it.
 *
 * Return: HIXL_KA_OFF (keep-alives off: look again in a second),
 * HIXL_KA_WAIT (the link was active within @interval, or a keep-alive is
 * outstanding and the QP's retries decide), HIXL_KA_POST (idle for
 * @interval: post one).
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
 *
 * Return: -ECONNRESET for a flush (the QP went to error for another
 * reason, which said why first); -EHOSTDOWN when the transport's retries
 * ran out (IB_WC_RETRY_EXC_ERR: the peer does not answer); else -EIO.
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
 * @what: what went unanswered, for the log ("keep-alive", "transfer")
 *
 * Marks the link broken with -EHOSTDOWN (the first error sticks) and, for
 * an accepted link, takes it off the engine's list and tears it down
 * (hixl_link_abort()): a silent peer sends no DREQ, so nothing else would,
 * and a peer that comes back connects anew.  A link we connected stays
 * listed, broken, so that the next call on it says -EHOSTDOWN, until a
 * DISCONNECT or a new CONNECT (AutoConnect does both) replaces it.
 *
 * Context: any that may queue work (the CQ handler).
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
		/* a local failure (the QP is in error now); a flush: another one said why */
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
 * Post one signaled zero-length RDMA WRITE.  post_mutex only if free: its
 * holder is posting (a message, staging), whose own completion or timeout
 * says whether the peer answers; the next tick tries again.
 *
 * Nothing is posted while our port is down (hixl_link_port_up()).  A
 * keep-alive there fails locally, not for want of an answer, and that is a
 * local event, not a silent peer.  Worse, on rxe: a send that fails moves
 * its QP to error (rxe_requester(), the GSI QP's too), and with
 * keep-alives posted while the netdev was down (the accepted link then
 * failed and was torn down, sending its DREQ) no CONNECT on the device
 * worked after it came back (test_fault.c's fault_netdev_down, 3 runs of 4
 * on the debug kernel).
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
 * hixl_link_ka_init() - set up a new link's keep-alive (not started)
 * @l: the link, being allocated
 */
void hixl_link_ka_init(struct hixl_link *l)
{
	INIT_DELAYED_WORK(&l->ka.work, hixl_ka_work);
	l->ka.cqe.done = hixl_ka_done;
}

/**
 * hixl_link_ka_start() - start a link's keep-alives as it becomes READY
 * @l: the link; its @lock held, its state just set to READY
 *
 * Context: any (called under the link's spinlock).
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
 * @l: the link, marked CLOSED (so no tick queues itself again)
 *
 * Context: process context, may sleep (waits for a running tick).
 */
void hixl_link_ka_stop(struct hixl_link *l)
{
	cancel_delayed_work_sync(&l->ka.work);
}
