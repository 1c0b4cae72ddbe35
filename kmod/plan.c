// SPDX-License-Identifier: GPL-2.0
/* plan.c - a TRANSFER cut into single-SGE pieces, each inside one local and one remote MR */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/maple_tree.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "plan.h"

static u32 hixl_find_span(const struct hixl_rmr *s, u32 n, u64 addr)
{
	u32 lo = 0, hi = n;

	while (hi - lo > 1) {
		u32 mid = (lo + hi) / 2;

		if (s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/**
 * hixl_plan_init() - an empty plan whose first pieces go to @room
 * @pl:   the plan
 * @room: its owner's inline arrays, or NULL
 */
void hixl_plan_init(struct hixl_plan *pl, struct hixl_plan_room *room)
{
	memset(pl, 0, sizeof(*pl));
	pl->room = room;
	if (room) {
		pl->p = room->p;
		pl->cap = HIXL_PLAN_INLINE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hixl_plan_init);

/**
 * hixl_plan_move() - hand a plan to another owner
 * @dst: from hixl_plan_init() with a room, empty
 * @src: the plan; left empty
 */
void hixl_plan_move(struct hixl_plan *dst, struct hixl_plan *src)
{
	struct hixl_plan_room *room = dst->room, *sroom = src->room;

	*dst = *src;
	dst->room = room;
	if (sroom && src->p == sroom->p) {
		memcpy(room->p, src->p, src->n * sizeof(*src->p));
		dst->p = room->p;
	}
	if (sroom && src->held == sroom->held) {
		memcpy(room->held, src->held, src->nheld * sizeof(*src->held));
		dst->held = room->held;
	}
	hixl_plan_init(src, sroom);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_plan_move);

/**
 * hixl_plan_free() - free a plan's arrays (not the regions it holds)
 * @pl: the plan
 */
void hixl_plan_free(struct hixl_plan *pl)
{
	struct hixl_plan_room *room = pl->room;

	if (!room || pl->p != room->p)
		kvfree(pl->p);
	if (!room || pl->held != room->held)
		kvfree(pl->held);
	memset(pl, 0, sizeof(*pl));
}
EXPORT_SYMBOL_IF_KUNIT(hixl_plan_free);

/* small first array: init_on_alloc would zero a large one per TRANSFER */
static int hixl_plan_add(struct hixl_plan *pl, const struct hixl_piece *pc)
{
	if (pl->n == pl->cap) {
		u32 cap = pl->cap ? min(pl->cap * 2, HIXL_MAX_PIECES) : HIXL_PLAN_FIRST_PIECES;
		struct hixl_piece *np;

		if (pl->n >= HIXL_MAX_PIECES)
			return -E2BIG;
		np = kvmalloc_array(cap, sizeof(*np), HIXL_PLAN_GFP);
		if (!np)
			return -ENOMEM;
		if (pl->p)
			memcpy(np, pl->p, pl->n * sizeof(*np));
		if (!pl->room || pl->p != pl->room->p)
			kvfree(pl->p);
		pl->p = np;
		pl->cap = cap;
	}
	pl->p[pl->n++] = *pc;
	pl->bytes += pc->len;
	return 0;
}

/**
 * hixl_split() - cut one descriptor into work requests at MR borders
 * @lm:   local spans in address order (lkey)
 * @nl:   entries of @lm, > 0
 * @rm:   remote spans in address order (rkey)
 * @nr:   entries of @rm, > 0
 * @la:   local address
 * @ra:   remote address
 * @len:  bytes, > 0
 * @desc: descriptor index
 * @pl:   the plan to append to
 * Return: 0; -EPROTO the spans leave a hole; -E2BIG; -ENOMEM.
 */
int hixl_split(const struct hixl_rmr *lm, u32 nl, const struct hixl_rmr *rm, u32 nr,
	       u64 la, u64 ra, u64 len, u32 desc, struct hixl_plan *pl)
{
	int ret;

	while (len) {
		const struct hixl_rmr *l = &lm[hixl_find_span(lm, nl, la)];
		const struct hixl_rmr *r = &rm[hixl_find_span(rm, nr, ra)];
		struct hixl_piece pc;
		u64 n;

		if (la < l->addr || la >= l->addr + l->len ||
		    ra < r->addr || ra >= r->addr + r->len)
			return -EPROTO;
		n = min3(len, l->addr + l->len - la, r->addr + r->len - ra);
		n = min_t(u64, n, HIXL_MAX_SGE_LEN);
		pc.laddr = l->iova + (la - l->addr);
		pc.lkey = l->rkey;
		pc.raddr = r->iova + (ra - r->addr);
		pc.rkey = r->rkey;
		pc.len = n;
		pc.desc = desc;
		ret = hixl_plan_add(pl, &pc);
		if (ret)
			return ret;
		la += n;
		ra += n;
		len -= n;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_split);

/* rt.lock held */
static struct hixl_rregion *hixl_remote_range(struct hixl_link *l, u32 op, u64 ra, u64 len)
{
	struct hixl_rregion *rr = mtree_load(&l->rt.tree, ra);

	if (!rr || rr->got < rr->nr_mrs || ra + len > rr->addr + rr->len)
		return ERR_PTR(-ERANGE);
	if (op == HIXL_OP_WRITE && !rr->writable)
		return ERR_PTR(-EACCES);
	return rr;
}

/**
 * hixl_plan_desc() - check one descriptor on a link and cut it into pieces
 * @l:   the link
 * @op:  HIXL_OP_READ or HIXL_OP_WRITE
 * @d:   the descriptor, or one stripe piece of it
 * @idx: its index in the TRANSFER
 * @pl:  the plan; @pl->held has room for one more region
 * Context: the engine lock and @l's rt.lock held.
 * Return: 0; -EINVAL len 0; -EOVERFLOW wraps; -ENOENT not a local registration;
 * -EACCES read-only; -ERANGE not a peer region; as hixl_split().
 */
int hixl_plan_desc(struct hixl_link *l, u32 op, const struct hixl_op_desc *d,
		   u32 idx, struct hixl_plan *pl)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_rregion *rr;
	struct hixl_region *r;
	struct hixl_mrset *ms;
	u64 la = d->local_addr, ra = d->remote_addr, left = d->len;
	int ret;

	if (!d->len)
		return hixl_einval("TRANSFER: descriptor %u: len 0", idx);
	if (hixl_range_check(la, d->len) || hixl_range_check(ra, d->len))
		return -EOVERFLOW;
	r = hixl_region_lookup(eng, la, d->len);
	ms = r ? hixl_region_mrset(r, l->rail) : NULL;	/* the link's rail's MRs */
	if (!ms || !ms->nr_mrs)
		return -ENOENT;
	if (op == HIXL_OP_READ && (r->flags & HIXL_REG_READ_ONLY))
		return -EACCES;
	rr = hixl_remote_range(l, op, ra, d->len);
	if (IS_ERR(rr))
		return PTR_ERR(rr);

	ret = hixl_split(ms->spans, ms->nr_mrs, rr->mrs, rr->nr_mrs, la, ra, left,
			 idx, pl);
	if (ret)
		return ret;
	atomic_inc(&r->users);
	pl->held[pl->nheld++] = r;
	return 0;
}

/**
 * hixl_stage_check() - check a staged descriptor
 * @l:  the link; its rt.lock held
 * @op: HIXL_OP_READ or HIXL_OP_WRITE
 * @d:  the descriptor; its local side need only be user memory
 * Return: 0; -EOVERFLOW, -ERANGE, -EACCES as hixl_plan_desc(); -EFAULT.
 */
int hixl_stage_check(struct hixl_link *l, u32 op, const struct hixl_op_desc *d)
{
	struct hixl_rregion *rr;

	if (hixl_range_check(d->local_addr, d->len) || hixl_range_check(d->remote_addr, d->len))
		return -EOVERFLOW;
	rr = hixl_remote_range(l, op, d->remote_addr, d->len);
	if (IS_ERR(rr))
		return PTR_ERR(rr);
	if (!access_ok(u64_to_user_ptr(d->local_addr), d->len))
		return -EFAULT;
	return 0;
}

/**
 * hixl_plan_release() - give back the regions a plan holds, free its arrays
 * @eng: the engine
 * @pl:  the plan
 */
void hixl_plan_release(struct hixl_engine *eng, struct hixl_plan *pl)
{
	bool kick = false;
	u32 i;

	for (i = 0; i < pl->nheld; i++) {
		struct hixl_region *r = pl->held[i];

		if (atomic_dec_and_test(&r->users) && READ_ONCE(r->invalid))
			kick = true;
	}
	if (kick)	/* an invalidated region waited for us to release its pins */
		queue_work(eng->wq, &eng->inval_work);
	hixl_plan_free(pl);
}
