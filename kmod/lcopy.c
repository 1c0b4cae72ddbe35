// SPDX-License-Identifier: GPL-2.0
/*
 * lcopy.c - the parallel kernel copy of same-host links: a
 * TRANSFER that local_xfer.c planned is cut into shares, contiguous byte ranges
 * of the batch (its descriptors end to end), one per CPU up to
 * local_copy_threads; the caller copies the first share itself and queues
 * the others on a bounded unbound workqueue (hixl_lcopy_wq), then takes
 * back (runs itself) any share no worker has started yet, and waits for
 * the workers.  A batch below HIXL_LCOPY_MIN bytes, or with
 * local_copy_threads 0 or 1, is one share, copied inline.
 *
 * Every share copies chunk by chunk through hixl_local_chunk() (the peer's
 * region looked up anew under its lock, the chunk's pages referenced, the
 * peer's local_users and the region's local_chunks raised), and checks
 * between chunks hixl_local_stop() (CANCEL, the deadline, the link; a
 * fatal signal of the caller's task, in the shares the caller runs) as
 * the one-thread copy did.
 *
 * The descriptor to blame: a failing share records its error and the
 * byte position in the batch of the chunk that failed, and lowers the
 * batch's stop position to it; shares stop before a chunk that lies past
 * the stop position, and those before it go on.  So every byte before the
 * lowest failing position is copied, and the TRANSFER reports the
 * descriptor holding that position (the lowest index that failed, as the
 * one-thread copy in descriptor order reports) and its error.
 *
 * Nobody waits without bound: a worker waits for the peer engine's lock at
 * most HIXL_LCOPY_LOCK_US (a command of the peer's may hold it while it
 * waits for user memory, engine.h) and then hands the rest of its share
 * back to the caller, which copies it after the workers ended; the caller
 * too waits for the lock in HIXL_LCOPY_LOCK_US steps, between which CANCEL,
 * the deadline and a fatal signal end the batch (it may be an io_uring
 * batch's work item, xwork.c, which no signal reaches);
 * the caller takes every still-queued work item off the queue
 * (cancel_work()) when it takes its share back, so it never waits for an
 * item that a queue full of other engines' copies would run late.
 *
 * Lifetime: the caller does not return before every started work item has
 * finished with the job (pending, then a completion); everything a share
 * uses (the peer engine's reference, the link, the batch, our held
 * regions, the descriptors) is the caller's and outlives it.  The
 * workqueue is created at module init and destroyed at its exit.  No new
 * lock: the job is shared through atomics; a worker takes what the inline
 * copy takes (the peer engine's lock, the link's xq.lock), and the caller
 * waits for it holding only what it held for the inline copy.
 *
 * The pattern is padata_do_multithreaded()'s (kernel/padata.c): one job
 * cut into chunks on an unbound workqueue, the caller copying too, a
 * completion counted down by the last work item; padata's is __init only,
 * hence this one, which adds the take-back of unstarted shares and the
 * per-chunk stop checks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "link.h"
#include "plan.h"
#include "xq.h"
#include "local_xfer.h"

static int local_copy_threads = -1;
module_param(local_copy_threads, int, 0644);
MODULE_PARM_DESC(local_copy_threads,
		 "CPUs that copy one same-host batch: -1 (default) min(online CPUs, 16), 0 or 1 inline only, at most 16");

static struct workqueue_struct *hixl_lcopy_wq;

/* what the parallel copy did, for debugfs hixl/lcopy (the tests read it) */
static atomic64_t hixl_lcopy_inline;		/* batches copied as one share */
static atomic64_t hixl_lcopy_parallel;		/* batches cut into more than one */
static atomic64_t hixl_lcopy_worker_shares;	/* shares a worker copied */
static atomic64_t hixl_lcopy_taken_back;	/* queued shares the caller copied */
static atomic64_t hixl_lcopy_worker_bytes;	/* bytes workers copied */
static atomic64_t hixl_lcopy_handed_back;	/* shares a worker gave back (peer's lock busy) */

/* one share's progress; the work item of a queued share */
struct hixl_lcopy_slot {
	struct work_struct work;
	struct hixl_lcopy_job *job;
	u32 idx;
	atomic_t claimed;	/* 1: a worker or the caller runs (ran) it */
	int err;		/* its first error, 0 */
	u32 failed;		/* the descriptor of @err */
	u64 fpos;		/* the batch byte position of @err */
	u64 done;		/* bytes copied */
	/* where the share goes on: descriptor @i, @off bytes in, batch position @pos */
	u32 i;
	u64 off, pos, left;
	bool handback;		/* its worker gave the rest back (the peer's lock was busy) */
};

/* a batch being copied: the caller's, on its stack's allocation */
struct hixl_lcopy_job {
	struct hixl_engine *peer;
	struct hixl_link *l;
	struct hixl_xbatch *b;
	const struct hixl_op_desc *d;
	const struct hixl_plan *pl;
	u32 op;
	unsigned long deadline;
	atomic64_t stop;	/* lowest failing position so far; U64_MAX: none */
	int abort;		/* the caller's fatal signal while waiting: -ECANCELED */
	atomic_t pending;	/* queued work items not finished with the job */
	struct completion done;	/* pending reached 0 */
	struct hixl_local_seg *segs;		/* HIXL_LOCAL_SEGS a share */
	struct hixl_lcopy_share *share;
	struct hixl_lcopy_slot slot[];
};

/**
 * hixl_lcopy_threads() - CPUs one batch may use, from local_copy_threads
 *
 * Return: 1..HIXL_LCOPY_MAX: -1 (or any negative) gives
 * min(num_online_cpus(), HIXL_LCOPY_MAX), 0 and 1 give 1 (inline only),
 * larger values are capped at HIXL_LCOPY_MAX.
 */
u32 hixl_lcopy_threads(void)
{
	int t = READ_ONCE(local_copy_threads);

	if (t < 0)
		return clamp_t(u32, num_online_cpus(), 1, HIXL_LCOPY_MAX);
	return clamp_t(u32, t, 1, HIXL_LCOPY_MAX);
}

/**
 * hixl_lcopy_workers() - how many shares a batch is cut into
 * @total:   the batch's bytes
 * @threads: hixl_lcopy_threads()
 *
 * Pure.  Below HIXL_LCOPY_MIN bytes one (inline); else as many as
 * @threads allows with at least HIXL_LCOPY_SHARE_MIN bytes each.
 *
 * Return: 1..@threads (1 when @threads is 0).
 */
u32 hixl_lcopy_workers(u64 total, u32 threads)
{
	u64 n;

	if (threads <= 1 || total < HIXL_LCOPY_MIN)
		return 1;
	n = div64_u64(total, HIXL_LCOPY_SHARE_MIN);
	return clamp_t(u64, n, 1, threads);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_lcopy_workers);

/**
 * hixl_lcopy_plan() - cut a batch into contiguous shares
 * @d:     the descriptors, each len > 0 (checked by hixl_local_prep())
 * @count: how many, > 0
 * @nw:    shares wanted, >= 1 (hixl_lcopy_workers())
 * @share: out: room for @nw shares
 *
 * Pure.  The batch is its descriptors' bytes end to end, @total bytes;
 * share k covers positions [k * per, min((k + 1) * per, total)) with per
 * = @total / @nw rounded up to HIXL_LCOPY_ALIGN bytes (so a boundary
 * falls on a 64 KiB multiple of the batch, in the middle of a descriptor
 * or not); a share that would be empty is dropped.  Each share says where
 * it starts: descriptor @first, @off bytes into it, at batch position
 * @pos, and its @bytes.
 *
 * Return: the number of shares written, 1..@nw, covering the batch in
 * order without gap or overlap.
 */
u32 hixl_lcopy_plan(const struct hixl_op_desc *d, u32 count, u32 nw,
		    struct hixl_lcopy_share *share)
{
	u64 total = 0, per, start = 0;	/* start: position of descriptor i */
	u32 i = 0, k, n = 0;

	for (k = 0; k < count; k++)
		total += d[k].len;
	if (!nw)
		nw = 1;
	per = round_up(DIV_ROUND_UP_ULL(total, nw), HIXL_LCOPY_ALIGN);
	for (k = 0; k < nw; k++) {
		u64 pos = per * k, end = min(total, per * (k + 1));

		if (pos >= total)
			break;
		while (i < count && start + d[i].len <= pos) {
			start += d[i].len;
			i++;
		}
		share[n++] = (struct hixl_lcopy_share){
			.first = i, .off = pos - start, .pos = pos, .bytes = end - pos,
		};
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_lcopy_plan);

/* Lower the job's stop position to @pos. */
static void hixl_lcopy_stop_at(struct hixl_lcopy_job *j, u64 pos)
{
	s64 old = atomic64_read(&j->stop);

	while ((u64)old > pos) {
		s64 seen = atomic64_cmpxchg(&j->stop, old, pos);

		if (seen == old)
			break;
		old = seen;
	}
}

/*
 * Copy share @k of the job from where it stands (its slot's cursor); from
 * the caller or a worker (@worker).  A worker that cannot have the peer's
 * lock within HIXL_LCOPY_LOCK_US (hixl_local_chunk()'s -EBUSY) stops at
 * that chunk and hands the rest of the share back to the caller.
 */
static void hixl_lcopy_share_run(struct hixl_lcopy_job *j, u32 k, bool worker)
{
	struct hixl_lcopy_slot *slot = &j->slot[k];
	struct hixl_local_seg *seg = j->segs + (size_t)k * HIXL_LOCAL_SEGS;
	int ret = 0;

	while (slot->left) {
		const struct hixl_op_desc *d = &j->d[slot->i];
		u64 n = min3(slot->left, d->len - slot->off, (u64)HIXL_LOCAL_CHUNK);

		if (slot->pos > (u64)atomic64_read(&j->stop))
			return;		/* a failure before us ends the batch */
		ret = READ_ONCE(j->abort);
		if (!ret)
			ret = hixl_local_stop(j->b, j->l, j->deadline);
		if (!ret)
			ret = hixl_local_chunk(j->peer, j->op, j->pl->held[slot->i],
					       d->local_addr + slot->off,
					       d->remote_addr + slot->off, n, seg);
		if (ret == -EBUSY && worker) {
			slot->handback = true;
			return;
		}
		if (ret == -EBUSY) {	/* the caller: again, after hixl_local_stop() */
			msleep(1);
			continue;
		}
		if (ret) {
			slot->err = ret;
			slot->failed = slot->i;
			slot->fpos = slot->pos;
			hixl_lcopy_stop_at(j, slot->pos);
			return;
		}
		slot->off += n;
		slot->pos += n;
		slot->left -= n;
		slot->done += n;
		if (slot->off == d->len) {
			slot->i++;
			slot->off = 0;
		}
		cond_resched();
	}
}

static void hixl_lcopy_work(struct work_struct *work)
{
	struct hixl_lcopy_slot *slot = container_of(work, struct hixl_lcopy_slot, work);
	struct hixl_lcopy_job *j = slot->job;

	if (!atomic_xchg(&slot->claimed, 1)) {
		hixl_lcopy_share_run(j, slot->idx, true);
		atomic64_inc(&hixl_lcopy_worker_shares);
		atomic64_add(slot->done, &hixl_lcopy_worker_bytes);
	}
	/* the last thing done with the job: the caller frees it after this */
	if (atomic_dec_and_test(&j->pending))
		complete(&j->done);
}

/* The job for @nw shares, or NULL; its arrays in one allocation beside. */
static struct hixl_lcopy_job *hixl_lcopy_job_new(u32 nw)
{
	struct hixl_lcopy_job *j = kzalloc(struct_size(j, slot, nw), GFP_KERNEL);

	if (!j)
		return NULL;
	j->share = kcalloc(nw, sizeof(*j->share), GFP_KERNEL);
	j->segs = kvmalloc_array(array_size(nw, HIXL_LOCAL_SEGS), sizeof(*j->segs), GFP_KERNEL);
	if (!j->share || !j->segs) {
		kfree(j->share);
		kvfree(j->segs);
		kfree(j);
		return NULL;
	}
	return j;
}

static void hixl_lcopy_job_free(struct hixl_lcopy_job *j)
{
	kvfree(j->segs);
	kfree(j->share);
	kfree(j);
}

/**
 * hixl_lcopy_run() - copy a planned same-host TRANSFER, on several CPUs
 * @peer:     the peer engine, referenced by the caller for the whole call
 * @l:        the link, referenced
 * @b:        the batch on our engine's xfers list (CANCEL sets its status)
 * @a:        the TRANSFER; out: @a->failed on error (see the file's head)
 * @d:        its descriptors, each len > 0
 * @pl:       hixl_local_prep()'s plan: @pl->held[i] holds descriptor i's
 *            region, @pl->bytes the batch's bytes
 * @deadline: jiffies: -ETIMEDOUT after it
 * @bytes:    out: bytes copied (all of them on success)
 *
 * Up to hixl_lcopy_threads() shares (hixl_lcopy_workers(), then
 * hixl_lcopy_plan()); one share runs inline in the caller without the
 * workqueue.  The caller copies share 0, then any queued share no worker
 * has claimed (its work item taken off the queue), then waits for the
 * workers that started (killable: a fatal signal makes the remaining
 * shares stop at their next chunk with -ECANCELED, and the wait goes on
 * uninterruptibly for at most one chunk and HIXL_LCOPY_LOCK_US per
 * worker), then copies what workers handed back.
 *
 * Context: process context, sleeps; no lock held but our engine's
 * rdma_sem (read).
 * Return: 0; the error of the lowest failing batch position:
 * -ECANCELED, -ETIMEDOUT, -ECONNRESET (or the link's error), -ERANGE,
 * -EACCES, -EIO as hixl_local_chunk() and hixl_local_stop() give them;
 * -ENOMEM (nothing copied; @a->failed untouched).
 */
int hixl_lcopy_run(struct hixl_engine *peer, struct hixl_link *l, struct hixl_xbatch *b,
		   struct hixl_transfer *a, const struct hixl_op_desc *d,
		   const struct hixl_plan *pl, unsigned long deadline, u64 *bytes)
{
	u32 nw = hixl_lcopy_workers(pl->bytes, hixl_lcopy_threads());
	struct hixl_lcopy_job *j;
	u32 k, best = U32_MAX;
	int ret = 0;

	*bytes = 0;
	if (!hixl_lcopy_wq)
		nw = 1;
	j = hixl_lcopy_job_new(nw);
	if (!j && nw > 1) {
		nw = 1;		/* no memory for the split: inline */
		j = hixl_lcopy_job_new(nw);
	}
	if (!j)
		return -ENOMEM;
	j->peer = peer;
	j->l = l;
	j->b = b;
	j->d = d;
	j->pl = pl;
	j->op = a->op;
	j->deadline = deadline;
	atomic64_set(&j->stop, -1);	/* U64_MAX */
	init_completion(&j->done);
	nw = hixl_lcopy_plan(d, a->count, nw, j->share);
	atomic_set(&j->pending, nw - 1);
	for (k = 0; k < nw; k++) {
		struct hixl_lcopy_slot *slot = &j->slot[k];

		slot->job = j;
		slot->idx = k;
		slot->i = j->share[k].first;
		slot->off = j->share[k].off;
		slot->pos = j->share[k].pos;
		slot->left = j->share[k].bytes;
	}
	for (k = 1; k < nw; k++) {
		INIT_WORK(&j->slot[k].work, hixl_lcopy_work);
		queue_work(hixl_lcopy_wq, &j->slot[k].work);
	}
	atomic_set(&j->slot[0].claimed, 1);
	hixl_lcopy_share_run(j, 0, false);
	for (k = 1; k < nw; k++) {
		/*
		 * A work item still queued (the queue's slots may all be
		 * taken, by anyone's copies) is taken off it: it never runs,
		 * so it is not waited for.  One that started claims its share
		 * first or finds it claimed.
		 */
		if (cancel_work(&j->slot[k].work) && atomic_dec_and_test(&j->pending))
			complete(&j->done);
		if (atomic_xchg(&j->slot[k].claimed, 1))
			continue;
		hixl_lcopy_share_run(j, k, false);
		atomic64_inc(&hixl_lcopy_taken_back);
	}
	/*
	 * Only workers that started are waited for, each for at most the
	 * chunk it copies and HIXL_LCOPY_LOCK_US for the peer's lock; after a
	 * fatal signal they stop at their next chunk.
	 */
	if (nw > 1 && wait_for_completion_killable(&j->done)) {
		WRITE_ONCE(j->abort, -ECANCELED);
		wait_for_completion(&j->done);
	}
	for (k = 1; k < nw; k++) {
		if (!j->slot[k].handback)
			continue;
		j->slot[k].handback = false;	/* the rest of a handed-back share */
		hixl_lcopy_share_run(j, k, false);
		atomic64_inc(&hixl_lcopy_handed_back);
	}
	atomic64_inc(nw > 1 ? &hixl_lcopy_parallel : &hixl_lcopy_inline);

	for (k = 0; k < nw; k++) {
		*bytes += j->slot[k].done;
		if (j->slot[k].err && (best == U32_MAX || j->slot[k].fpos < j->slot[best].fpos))
			best = k;
	}
	if (best != U32_MAX) {
		ret = j->slot[best].err;
		a->failed = j->slot[best].failed;
	}
	hixl_lcopy_job_free(j);
	return ret;
}

static int hixl_lcopy_show(struct seq_file *m, void *v)
{
	seq_printf(m, "threads %u\n", hixl_lcopy_threads());
	seq_printf(m, "inline_batches %lld\n", (s64)atomic64_read(&hixl_lcopy_inline));
	seq_printf(m, "parallel_batches %lld\n", (s64)atomic64_read(&hixl_lcopy_parallel));
	seq_printf(m, "worker_shares %lld\n", (s64)atomic64_read(&hixl_lcopy_worker_shares));
	seq_printf(m, "taken_back %lld\n", (s64)atomic64_read(&hixl_lcopy_taken_back));
	seq_printf(m, "worker_bytes %lld\n", (s64)atomic64_read(&hixl_lcopy_worker_bytes));
	seq_printf(m, "handed_back %lld\n", (s64)atomic64_read(&hixl_lcopy_handed_back));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hixl_lcopy);

/**
 * hixl_lcopy_debugfs() - hixl/lcopy in debugfs: the counters above
 * @dir: hixl's debugfs directory (an error pointer is ignored, as debugfs
 *       calls do)
 */
void hixl_lcopy_debugfs(struct dentry *dir)
{
	debugfs_create_file("lcopy", 0400, dir, NULL, &hixl_lcopy_fops);
}

/**
 * hixl_lcopy_init() - create the copy workqueue
 *
 * Unbound (a share may run on any CPU), at most HIXL_LCOPY_MAX work
 * items at once over all batches; shares queued beyond that wait, or are
 * taken back by their caller.  Failing it is not fatal: every batch is
 * then copied inline.
 *
 * Context: module init.
 */
void hixl_lcopy_init(void)
{
	hixl_lcopy_wq = alloc_workqueue("hixl_lcopy", WQ_UNBOUND, HIXL_LCOPY_MAX);
	if (!hixl_lcopy_wq)
		pr_warn("no copy workqueue: same-host copies run on one CPU\n");
}

/**
 * hixl_lcopy_exit() - destroy the copy workqueue (module exit: no engine,
 * so no batch and no queued share, is left; destroy_workqueue() drains it
 * anyway)
 */
void hixl_lcopy_exit(void)
{
	if (hixl_lcopy_wq)
		destroy_workqueue(hixl_lcopy_wq);
	hixl_lcopy_wq = NULL;
}
