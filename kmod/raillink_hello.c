// SPDX-License-Identifier: GPL-2.0
/* raillink_hello.c - HELLO's rail blocks; a peer's are checked field by field */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/string.h>

#include "engine.h"
#include "rail.h"
#include "link.h"
#include "msg.h"
#include "raillink.h"
#include "proto.h"

/* the wire's rail arrays are indexed by the engine's rail numbers */
static_assert(HIXL_WIRE_MAX_RAILS == HIXL_MAX_RAILS);
static_assert(HIXL_WIRE_RAIL_TOKEN == HIXL_RAIL_TOKEN);

/**
 * hixl_rails_hello_fill() - append our rails or rail block to a HELLO
 * @l:    the link; post_mutex held
 * @blk:  where the block goes
 * @room: bytes left in the send buffer from @blk
 * Return: bytes appended; 0 without extra rails or on an accepted rail link.
 */
u32 hixl_rails_hello_fill(struct hixl_link *l, void *blk, u32 room)
{
	struct hixl_rdma *rd = l->eng->rdma;
	u32 i;

	if (l->rail) {
		struct hixl_wire_hello_rail *x = blk;

		if (!l->active || !l->parent || room < sizeof(*x))
			return 0;
		memset(x, 0, sizeof(*x));
		x->magic = cpu_to_le32(HIXL_WIRE_RAIL_MAGIC);
		x->version = cpu_to_le16(HIXL_WIRE_RAIL_VERSION);
		x->len = cpu_to_le16(sizeof(*x));
		x->rail = cpu_to_le32(l->rail);
		spin_lock(&l->parent->rails.lock);
		memcpy(x->token, l->parent->rails.peer_token, sizeof(x->token));
		spin_unlock(&l->parent->rails.lock);
		return sizeof(*x);
	}
	if (!rd || !rd->nr_rails || room < sizeof(struct hixl_wire_hello_rails))
		return 0;
	{
		struct hixl_wire_hello_rails *x = blk;
		u32 nr = min_t(u32, rd->nr_rails, HIXL_MAX_RAILS - 1);

		memset(x, 0, sizeof(*x));
		x->magic = cpu_to_le32(HIXL_WIRE_RAILS_MAGIC);
		x->version = cpu_to_le16(HIXL_WIRE_RAILS_VERSION);
		x->len = cpu_to_le16(sizeof(*x));
		x->nr_rails = cpu_to_le32(nr + 1);
		memcpy(x->token, l->rails.token, sizeof(x->token));
		for (i = 0; i < nr; i++) {
			struct hixl_sockaddr a = rd->rails[i].addr;

			a.port = rd->local.port;	/* 0 when we do not listen */
			hixl_name_to_wire(&a, &x->rail[i]);
		}
		return sizeof(*x);
	}
}

static bool hixl_rail_addr_equal(const struct hixl_sockaddr *a, const struct hixl_sockaddr *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Return: 0 with the rails in @out and their count in *@nr, or -EPROTO. */
static int hixl_rails_blk_check(struct hixl_link *l, const struct hixl_wire_hello_rails *x,
				const struct hixl_sockaddr *name, struct hixl_sockaddr *out,
				u32 *nr)
{
	static const u8 zero[sizeof(struct hixl_wire_name)];
	u32 n = le32_to_cpu(x->nr_rails), i, j;
	bool any = false;

	if (le16_to_cpu(x->len) != sizeof(*x) || x->reserved) {
		hixl_link_warn(l, "HELLO rails block: len %u (want %zu) or reserved set\n",
			       le16_to_cpu(x->len), sizeof(*x));
		return -EPROTO;
	}
	if (n < 1 || n > HIXL_MAX_RAILS) {
		hixl_link_warn(l, "HELLO rails block: nr_rails %u (1..%u)\n", n, HIXL_MAX_RAILS);
		return -EPROTO;
	}
	for (i = 0; i < sizeof(x->token); i++)
		any |= x->token[i];
	if (!any) {
		hixl_link_warn(l, "HELLO rails block: a zero token\n");
		return -EPROTO;
	}
	for (i = 0; i < HIXL_MAX_RAILS - 1; i++) {
		const struct hixl_wire_name *w = &x->rail[i];

		if (i >= n - 1) {
			if (memcmp(w, zero, sizeof(zero))) {
				hixl_link_warn(l, "HELLO rails block: rail %u beyond nr_rails %u is set\n",
					       i + 1, n);
				return -EPROTO;
			}
			continue;
		}
		hixl_name_from_wire(w, &out[i + 1]);
		if (w->reserved || out[i + 1].family != name->family ||
		    hixl_rail_addr_equal(&out[i + 1], name)) {
			hixl_link_warn(l, "HELLO rails block: rail %u: family %u (want %u), reserved %u, or the engine's own address\n",
				       i + 1, out[i + 1].family, name->family,
				       le32_to_cpu(w->reserved));
			return -EPROTO;
		}
		for (j = 1; j < i + 1; j++) {
			if (hixl_rail_addr_equal(&out[j], &out[i + 1])) {
				hixl_link_warn(l, "HELLO rails block: rails %u and %u have one address\n",
					       j, i + 1);
				return -EPROTO;
			}
		}
	}
	*nr = n;
	return 0;
}

/**
 * hixl_rails_hello_rx() - the rail blocks of a peer's HELLO
 * @l:    the link
 * @hm:   the HELLO
 * @len:  its bytes
 * @name: the engine name in the HELLO
 *
 * Unknown blocks are skipped; an accepted rail link is attached.
 * Context: the receive work; may sleep.
 * Return: 0; -EPROTO malformed, repeated, misplaced, missing or unpaired
 * block; -ECONNABORTED the primary is going.
 */
int hixl_rails_hello_rx(struct hixl_link *l, const struct hixl_wire_hello *hm, u32 len,
			const struct hixl_sockaddr *name)
{
	struct hixl_sockaddr peer_rail[HIXL_MAX_RAILS] = {};
	const struct hixl_wire_hello_rails *rails = NULL;
	const struct hixl_wire_hello_rail *rail = NULL;
	const u8 *base = (const u8 *)hm;
	u32 off = sizeof(*hm), nr = 1, ours;
	int ret;

	while (len - off >= sizeof(struct hixl_wire_hello_blk)) {
		const struct hixl_wire_hello_blk *b = (const void *)(base + off);
		u32 magic = le32_to_cpu(b->magic), blen = le16_to_cpu(b->len);
		bool mine = magic == HIXL_WIRE_RAILS_MAGIC || magic == HIXL_WIRE_RAIL_MAGIC;

		if (blen < sizeof(*b) || blen > len - off) {
			if (mine) {
				hixl_link_warn(l, "HELLO: rail block of %u bytes at %u of %u\n",
					       blen, off, len);
				return -EPROTO;
			}
			break;		/* not a block: the rest is ignored, as ever */
		}
		if (mine && (rails || rail)) {
			hixl_link_warn(l, "HELLO: a second rails or rail block\n");
			return -EPROTO;
		}
		if (magic == HIXL_WIRE_RAILS_MAGIC &&
		    le16_to_cpu(b->version) == HIXL_WIRE_RAILS_VERSION) {
			if (blen < sizeof(*rails)) {
				hixl_link_warn(l, "HELLO rails block: %u bytes\n", blen);
				return -EPROTO;
			}
			rails = (const void *)b;
		} else if (magic == HIXL_WIRE_RAIL_MAGIC) {
			if (le16_to_cpu(b->version) != HIXL_WIRE_RAIL_VERSION ||
			    blen != sizeof(*rail)) {
				hixl_link_warn(l, "HELLO rail block: version %u, %u bytes\n",
					       le16_to_cpu(b->version), blen);
				return -EPROTO;
			}
			rail = (const void *)b;
		}
		off += blen;
	}

	if (l->rail) {			/* a rail link */
		u32 i;

		if (rails || (l->active && rail)) {
			hixl_link_warn(l, "HELLO: a rails block on rail link %u\n", l->rail);
			return -EPROTO;
		}
		if (l->active) {	/* the acceptor's plain HELLO, in its engine's name */
			if (!hixl_sockaddr_equal(name, &l->peer)) {
				hixl_link_warn(l, "HELLO on rail %u names another engine\n",
					       l->rail);
				return -EPROTO;
			}
			return 0;
		}
		if (!rail) {
			hixl_link_warn(l, "HELLO: a connection on rail %u without a rail block: closing\n",
				       l->rail);
			return -EPROTO;
		}
		i = le32_to_cpu(rail->rail);
		if (i != l->rail || rail->reserved) {
			hixl_link_warn(l, "HELLO rail block: rail %u on rail %u's device, reserved %u\n",
				       i, l->rail, le32_to_cpu(rail->reserved));
			return -EPROTO;
		}
		return hixl_raillink_attach(l, i, rail->token, name);
	}

	if (rail) {
		hixl_link_warn(l, "HELLO: a rail block on a primary link\n");
		return -EPROTO;
	}
	if (!rails)
		return 0;		/* an old or one-rail peer */
	ret = hixl_rails_blk_check(l, rails, name, peer_rail, &nr);
	if (ret)
		return ret;
	ours = l->eng->rdma ? max(1U, hixl_rails_count(l->eng->rdma)) : 1;
	spin_lock(&l->rails.lock);
	memcpy(l->rails.peer_token, rails->token, sizeof(l->rails.peer_token));
	memcpy(l->rails.peer_rail, peer_rail, sizeof(peer_rail));
	l->rails.nr = min3(nr, ours, (u32)HIXL_MAX_RAILS);
	nr = l->rails.nr;
	spin_unlock(&l->rails.lock);
	if (!l->active && nr > 1) {	/* revives our rails while the link lives */
		spin_lock(&l->lock);
		l->rails.work_on = true;
		spin_unlock(&l->lock);
		hixl_rail_work_arm(l);
	}
	return 0;
}
