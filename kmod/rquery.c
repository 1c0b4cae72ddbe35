// SPDX-License-Identifier: GPL-2.0
/* rquery.c - PEER_REGIONS: a linked peer's registrations, as the link knows them */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/maple_tree.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "local.h"
#include "loopback.h"
#include "rquery.h"

static int hixl_peer_region_cmp(const void *a, const void *b)
{
	const struct hixl_peer_region *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The link's copy of the peer's table; complete regions only. */
static int hixl_rtable_snapshot(struct hixl_link *l, struct hixl_peer_region **out, u32 *nr)
{
	struct hixl_peer_region *o;
	struct hixl_rregion *rr;
	unsigned long idx = 0;
	u32 n = 0;

	mutex_lock(&l->rt.lock);
	o = kvcalloc(l->rt.regions, sizeof(*o), GFP_KERNEL);
	if (!o && l->rt.regions) {
		mutex_unlock(&l->rt.lock);
		return -ENOMEM;
	}
	mt_for_each(&l->rt.tree, rr, idx, ULONG_MAX) {
		if (n == l->rt.regions || rr->got < rr->nr_mrs)
			continue;
		o[n].addr = rr->addr;
		o[n].len = rr->len;
		o[n].seq = rr->seq;
		o[n].flags = (rr->writable ? HIXL_PEER_REGION_WRITABLE : 0) |
			     (rr->device ? HIXL_PEER_REGION_DEVICE : 0);
		n++;
	}
	mutex_unlock(&l->rt.lock);
	*out = o;
	*nr = n;
	return 0;
}

/*
 * A loopback link has no table: the peer engine's own regions, those a
 * TRANSFER may name (live, valid, not local-only), in handle order.
 */
static int hixl_loop_snapshot(struct hixl_link *l, struct hixl_peer_region **out, u32 *nr)
{
	struct hixl_peer_region *o = NULL;
	struct hixl_engine *peer;
	struct hixl_region *r;
	unsigned long idx;
	u32 n = 0, room = 0;
	int ret = 0;

	peer = hixl_local_peer_get(l);
	if (!peer)
		return -ECONNRESET;
	hixl_engine_lock(peer);
	xa_for_each(&peer->regions, idx, r)
		room++;
	if (room) {
		o = kvcalloc(room, sizeof(*o), GFP_KERNEL);
		if (!o)
			ret = -ENOMEM;
	}
	xa_for_each(&peer->regions, idx, r) {
		if (ret || n == room)
			break;
		if (!r->live || hixl_region_local_only(r) || READ_ONCE(r->invalid))
			continue;
		o[n].addr = r->addr;
		o[n].len = r->len;
		o[n].seq = idx;
		o[n].flags = (r->flags & HIXL_REG_READ_ONLY ? 0 : HIXL_PEER_REGION_WRITABLE) |
			     (r->type == HIXL_MEM_DEVICE ? HIXL_PEER_REGION_DEVICE : 0);
		n++;
	}
	mutex_unlock(&peer->lock);
	hixl_engine_put(peer);
	*out = o;
	*nr = n;
	return ret;
}

/**
 * hixl_cmd_peer_regions() - HIXL_IOC_PEER_REGIONS: a linked peer's registrations
 * @eng: the engine of the calling file
 * @a:   in: remote, buf, count (0..HIXL_MAX_STAT_ENTRIES); out: total
 *
 * The table is snapshotted under its lock and copied out after, so a
 * faulting @buf never holds the link's receive path.  Entries go out
 * oldest registration first (struct hixl_peer_region.seq).
 * Context: process context, sleeps.
 * Return: 0; -EINVAL bad argument; -EAFNOSUPPORT bad @remote family;
 * -EBADFD no SETUP; -EPERM not the owner; -ENOTCONN no link to @remote;
 * -EAGAIN still connecting; the link's error once broken; -ECONNRESET the
 * same-host partner went; -ENOMEM; -EFAULT.
 */
int hixl_cmd_peer_regions(struct hixl_engine *eng, struct hixl_peer_regions *a)
{
	struct hixl_peer_region *o = NULL;
	struct sockaddr_storage ss;
	struct hixl_link *l;
	u32 n = 0;
	int ret, st, err;

	if (a->flags)
		return hixl_einval("PEER_REGIONS: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved[0] || a->reserved[1])
		return hixl_einval("PEER_REGIONS: reserved is not zero");
	if (a->count > HIXL_MAX_STAT_ENTRIES)
		return hixl_einval("PEER_REGIONS: count %u is above %u", a->count,
				   HIXL_MAX_STAT_ENTRIES);
	if (!a->count != !a->buf)
		return hixl_einval("PEER_REGIONS: buf and count must be both set or both 0");
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	ret = hixl_engine_usable(eng);
	if (ret)
		return ret;
	l = hixl_link_get(eng, &a->remote);
	if (!l)
		return -ENOTCONN;
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY)
		ret = st == HIXL_LINK_CONNECTING ? -EAGAIN : err;
	else if (hixl_loop_engine(eng))
		ret = hixl_loop_snapshot(l, &o, &n);
	else
		ret = hixl_rtable_snapshot(l, &o, &n);
	hixl_link_put(l);
	if (ret)
		goto out;
	sort(o, n, sizeof(*o), hixl_peer_region_cmp, NULL);
	a->total = n;
	n = min(n, a->count);
	if (n && copy_to_user(u64_to_user_ptr(a->buf), o, array_size(n, sizeof(*o))))
		ret = -EFAULT;
out:
	kvfree(o);
	return ret;
}
