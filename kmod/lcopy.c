// SPDX-License-Identifier: GPL-2.0
/*
 * lcopy.c - same-host copies in parallel, as padata_do_multithreaded(): the caller
 * copies the first share, queues the rest and takes back any not started
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
#include "xprep.h"

static int local_copy_threads = -1;
module_param(local_copy_threads, int, 0644);
MODULE_PARM_DESC(local_copy_threads,
		 "CPUs that copy one same-host batch: -1 (default) min(online CPUs, 16), 0 or 1 inline only, at most 16");

static atomic64_t hixl_lcopy_inline;		/* batches copied as one share */
static atomic64_t hixl_lcopy_parallel;		/* batches cut into more than one */
static atomic64_t hixl_lcopy_worker_shares;	/* shares a worker copied */
static atomic64_t hixl_lcopy_taken_back;	/* queued shares the caller copied */
static atomic64_t hixl_lcopy_worker_bytes;	/* bytes workers copied */
static atomic64_t hixl_lcopy_handed_back;	/* shares a worker gave back (peer's lock busy) */

struct hixl_lcopy_slot {
	struct work_struct work;
	struct hixl_lcopy_job *job;
	u32 idx;
	atomic_t claimed;	/* 1: a worker or the caller runs (ran) it */
	int err;		/* its first error, 0 */
	u32 failed;		/* the descriptor of @err */
	u64 fpos;		/* the batch byte position of @err */
	u64 done;		/* bytes copied */
	/* resume point: descriptor @i, @off bytes in, batch position @pos */
	u32 i;
	u64 off, pos, left;
	bool handback;		/* its worker gave the rest back (the peer's lock was busy) */
};

struct hixl_lcopy_job {
	struct hixl_engine *peer;
	struct hixl_link *l;
	struct hixl_xbatch *b;
	const struct hixl_op_desc *d;
	const struct hixl_plan *pl;
	u32 op;
	unsigned long deadline;
	struct task_struct *submitter;	/* runs share 0 and waits for the others */
	atomic64_t stop;	/* lowest failing position so far; U64_MAX: none */
	atomic_t pending;	/* queued work items not finished with the job */
	struct completion done;	/* pending reached 0 */
	struct hixl_local_seg *segs;		/* HIXL_LOCAL_SEGS a share */
	struct hixl_lcopy_share *share;
	struct hixl_lcopy_slot slot[];
};

/**
 * hixl_lcopy_threads() - CPUs one batch may use, from local_copy_threads
 * Return: 1..HIXL_LCOPY_MAX.
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
 * Return: 1..@threads, each share at least HIXL_LCOPY_SHARE_MIN bytes.
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
 * @d:     the descriptors, each len > 0
 * @count: entries of @d, > 0
 * @nw:    shares wanted
 * @share: out: room for @nw shares
 *
 * Boundaries fall on HIXL_LCOPY_ALIGN multiples of the batch position.
 * Return: shares written, 1..@nw.
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

/* a worker that cannot take the peer's lock in time hands the rest back */
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
		ret = hixl_local_stop(j->b, j->l, j->deadline, j->submitter);
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
	/* last use of the job */
	if (atomic_dec_and_test(&j->pending))
		complete(&j->done);
}

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
 * hixl_lcopy_run() - copy a planned same-host TRANSFER on several CPUs
 * @peer:     the peer engine, held
 * @l:        the link, held
 * @b:        the batch on our xfers list
 * @a:        the TRANSFER; out: failed
 * @d:        its descriptors
 * @pl:       hixl_local_prep()'s plan
 * @deadline: jiffies
 * @bytes:    out: bytes copied
 * Context: process context, sleeps; holds only our rdma_sem (read).
 * Return: 0, or the lowest failing position's error; -ENOMEM nothing copied.
 */
int hixl_lcopy_run(struct hixl_engine *peer, struct hixl_link *l, struct hixl_xbatch *b,
		   struct hixl_transfer *a, const struct hixl_op_desc *d,
		   const struct hixl_plan *pl, unsigned long deadline, u64 *bytes)
{
	u32 nw = hixl_lcopy_workers(pl->bytes, hixl_lcopy_threads());
	struct workqueue_struct *wq;
	struct hixl_lcopy_job *j;
	u32 k, best = U32_MAX;
	int ret = 0;

	*bytes = 0;
	wq = nw > 1 ? hixl_xwork_wq_get(l->eng) : NULL;	/* our engine's own */
	if (!wq)
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
	j->submitter = current;
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
		queue_work(wq, &j->slot[k].work);
	}
	atomic_set(&j->slot[0].claimed, 1);
	hixl_lcopy_share_run(j, 0, false);
	for (k = 1; k < nw; k++) {
		if (cancel_work(&j->slot[k].work) && atomic_dec_and_test(&j->pending))
			complete(&j->done);
		if (atomic_xchg(&j->slot[k].claimed, 1))
			continue;
		hixl_lcopy_share_run(j, k, false);
		atomic64_inc(&hixl_lcopy_taken_back);
	}
	if (nw > 1)	/* a fatal signal stops the workers at their next chunk */
		wait_for_completion(&j->done);
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
 * hixl_lcopy_debugfs() - create hixl/lcopy
 * @dir: hixl's debugfs directory
 */
void hixl_lcopy_debugfs(struct dentry *dir)
{
	debugfs_create_file("lcopy", 0400, dir, NULL, &hixl_lcopy_fops);
}
