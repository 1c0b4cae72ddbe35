// SPDX-License-Identifier: GPL-2.0
/* rail_plan.c - striping's pure parts: the planner, failover re-planning */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "link.h"
#include "rail_plan.h"

/**
 * hixl_rail_plan() - split a batch's descriptors into pieces across rails
 * @lens:       descriptor lengths, bytes, each > 0
 * @n:          entries of @lens
 * @nr_rails:   1..HIXL_MAX_RAILS
 * @stripe_min: bytes from which a descriptor is striped
 * @chunk:      bytes per stripe chunk, > 0
 * @rr:         in: rail of the next piece; out: the rail after the last
 * @out:        out: the pieces, in descriptor and offset order
 * @max:        entries of @out
 *
 * Follows Mooncake's slicing: least-loaded rail, ties round-robin from @rr.
 * Return: pieces written; -EINVAL bad argument; -ENOSPC @max too small.
 */
long hixl_rail_plan(const u64 *lens, u32 n, u32 nr_rails, u64 stripe_min, u64 chunk,
		    u32 *rr, struct hixl_rail_piece *out, u32 max)
{
	u64 loads[HIXL_MAX_RAILS] = { 0 };
	u32 rail, best, i, j, k = 0;
	u64 off, len;

	if (!nr_rails || nr_rails > HIXL_MAX_RAILS || !chunk || *rr >= nr_rails)
		return -EINVAL;
	rail = *rr;
	for (i = 0; i < n; i++) {
		if (!lens[i])
			return -EINVAL;
		off = 0;
		do {
			len = lens[i] - off;
			if (nr_rails > 1 && lens[i] >= stripe_min && len > chunk)
				len = chunk;
			if (k == max)
				return -ENOSPC;
			best = rail;	/* the least-loaded rail, from the cursor on */
			for (j = 1; j < nr_rails; j++) {
				u32 r = (rail + j) % nr_rails;

				if (loads[r] < loads[best])
					best = r;
			}
			out[k++] = (struct hixl_rail_piece){ .desc = i, .rail = best,
							     .off = off, .len = len };
			loads[best] += len;
			rail = best + 1 == nr_rails ? 0 : best + 1;
			off += len;
		} while (off < lens[i]);
	}
	*rr = rail;
	return k;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rail_plan);

/**
 * hixl_xrail_replan() - move pieces to other rails (failover)
 * @pc:   the batch's pieces
 * @npc:  entries of @pc
 * @idx:  indices into @pc of the pieces to move
 * @n:    entries of @idx
 * @mask: bit i: rail i may take them
 * @rr:   in: rail tried first on a tie; out: the rail after the last used
 * Return: @n; -EINVAL bad argument (nothing moved).
 */
long hixl_xrail_replan(struct hixl_rail_piece *pc, u32 npc, const u32 *idx, u32 n, u32 mask,
		       u32 *rr)
{
	u64 loads[HIXL_MAX_RAILS] = { 0 };
	u32 i, j, rail, best;

	mask &= GENMASK(HIXL_MAX_RAILS - 1, 0);
	if (!mask || *rr >= HIXL_MAX_RAILS)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (idx[i] >= npc)
			return -EINVAL;
	rail = *rr;
	for (i = 0; i < n; i++) {
		best = HIXL_MAX_RAILS;
		for (j = 0; j < HIXL_MAX_RAILS; j++) {
			u32 r = (rail + j) % HIXL_MAX_RAILS;

			if (!(mask & BIT(r)))
				continue;
			if (best == HIXL_MAX_RAILS || loads[r] < loads[best])
				best = r;
		}
		pc[idx[i]].rail = best;
		loads[best] += pc[idx[i]].len;
		rail = (best + 1) % HIXL_MAX_RAILS;
	}
	*rr = rail;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xrail_replan);

/**
 * hixl_xrail_failover_ok() - is a failed sub-batch re-posted elsewhere?
 * @status:     the sub-batch's result
 * @link_state: its rail link's enum hixl_link_state after the end
 * @cancelled:  the TRANSFER was cancelled
 * @expired:    the TRANSFER's deadline has passed
 * Return: true to fail over: the link broke.
 */
bool hixl_xrail_failover_ok(int status, int link_state, bool cancelled, bool expired)
{
	if (!status || cancelled || expired)
		return false;
	switch (status) {
	case -ECANCELED:
	case -ETIMEDOUT:
	case -ENOMEM:
		return false;
	case -ECONNRESET:	/* flushed: the QP is in the error state, even when */
		return true;	/* the CM event that breaks the link is still to come */
	}
	return link_state >= HIXL_LINK_ERROR;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_xrail_failover_ok);
