// SPDX-License-Identifier: GPL-2.0
/*
 * rail_plan.c - the pure parts of striping: which
 * rail carries which bytes of which descriptor (hixl_rail_plan()), where
 * the unfinished pieces of a broken rail go (hixl_xrail_replan()), and
 * which failed sub-batches fail over at all (hixl_xrail_failover_ok()).
 * No lock, no allocation: xrail.c calls them, KUnit tests them
 * (tests/rail_kunit.c, tests/xrail_kunit.c).  The design is at the top of
 * rail.c and xrail.c.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <kunit/visibility.h>

#include "link.h"
#include "rail_plan.h"

/**
 * hixl_rail_plan() - split a batch's descriptors into pieces, one per rail
 * @lens:       the descriptors' lengths, bytes, each > 0
 * @n:          descriptors
 * @nr_rails:   1..HIXL_MAX_RAILS
 * @stripe_min: bytes: a descriptor this long or longer is striped (with
 *              two rails or more)
 * @chunk:      bytes of one stripe chunk, > 0; a descriptor's chunks start
 *              at multiples of @chunk from its start, the last may be short
 * @rr:         in: the rail of the next piece, < @nr_rails; out: the rail
 *              after the last piece (the link keeps it from batch to batch)
 * @out:        out: the pieces, in descriptor order, each descriptor's in
 *              offset order
 * @max:        entries @out holds
 *
 * A pure function (no lock, no allocation), modelled on how Mooncake's
 * transfer engine slices a request across devices: a short descriptor is
 * one piece, a long one a run of chunks; each piece goes to the rail with
 * the fewest bytes of this batch so far, ties broken round-robin from the
 * cursor (so equal pieces alternate, and batches of one small descriptor
 * each still spread).  Within a batch the rails' bytes then differ by at
 * most the largest piece: @chunk, or a descriptor below @stripe_min.  The
 * pieces of a descriptor cover it exactly once.  KUnit: tests/rail_kunit.c.
 *
 * Return: pieces written; -EINVAL for @nr_rails 0 or above HIXL_MAX_RAILS,
 * @chunk 0, @rr not below @nr_rails or a zero length; -ENOSPC when @max is
 * too small (@out then holds the first @max pieces, @rr is unchanged).
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
 * hixl_xrail_replan() - move pieces onto other rails (failover)
 * @pc:   the batch's pieces
 * @npc:  entries of @pc
 * @idx:  indices into @pc of the pieces to move
 * @n:    entries of @idx
 * @mask: bit i: rail i may take them (bits at HIXL_MAX_RAILS and above
 *        are ignored)
 * @rr:   in: the rail to try first on a tie, < HIXL_MAX_RAILS; out: the
 *        rail after the last one used
 *
 * Pure (no lock, no allocation): each piece named goes whole to the rail
 * of @mask with the fewest bytes of this call so far, ties broken
 * round-robin from @rr, as hixl_rail_plan() assigns them; pieces not named
 * keep their rail.  Pieces are not cut again: each is at most
 * HIXL_RAIL_CHUNK or a descriptor below HIXL_RAIL_STRIPE_MIN already.
 *
 * Return: @n; -EINVAL when @mask has no rail, @rr is out of range or an
 * index is not below @npc (then nothing was moved).
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
 * @status:     the sub-batch's -errno (0: it succeeded)
 * @link_state: its rail link's enum hixl_link_state after the end
 * @cancelled:  the TRANSFER was cancelled
 * @expired:    the TRANSFER's deadline has passed
 *
 * Pure.  Yes when the sub-batch failed because its link broke: the link is
 * ERROR or CLOSED now, or its requests were flushed (-ECONNRESET: the QP is
 * in the error state; the peer's DREQ may flush them before the CM event
 * that marks the link broken is handled), and the error is not the
 * batch's own timeout (-ETIMEDOUT: the deadline is the TRANSFER's, no time
 * is left), a cancel (-ECANCELED) or a lack of memory (-ENOMEM).
 *
 * Return: true to fail over.
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
