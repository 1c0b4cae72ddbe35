// SPDX-License-Identifier: GPL-2.0
/* local.c - same-host links: engines of this kernel pair by boot id and token */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <crypto/algapi.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "local.h"
#include "proto.h"

static u8 hixl_local_boot_id[HIXL_LOCAL_ID_LEN];
DEFINE_SPINLOCK(hixl_local_lock);	/* local.h; loopback.c pairs under it too */
static LIST_HEAD(hixl_local_offers);

/**
 * hixl_local_init() - draw this module's boot id
 * Context: module init.
 */
void hixl_local_init(void)
{
	get_random_bytes(hixl_local_boot_id, sizeof(hixl_local_boot_id));
}

/**
 * hixl_local_match() - may an accepted link pair with an offer?
 * @o:       the offer
 * @c:       what the accepting side received and is
 * @boot_id: this module's boot id
 * Return: 0 pair; -ENODEV another kernel; -ENOKEY another token; -EALREADY
 * paired; -EXDEV target or name mismatch; -ESHUTDOWN offerer closing.
 */
int hixl_local_match(const struct hixl_local_offer *o, const struct hixl_local_claim *c,
		     const u8 *boot_id)
{
	if (crypto_memneq(c->boot_id, boot_id, HIXL_LOCAL_ID_LEN))
		return -ENODEV;
	if (crypto_memneq(c->token, o->token, HIXL_LOCAL_ID_LEN))
		return -ENOKEY;
	if (o->paired)
		return -EALREADY;
	if (!hixl_sockaddr_equal(o->target, c->acceptor) ||
	    !hixl_sockaddr_equal(o->self, c->claimed))
		return -EXDEV;
	if (!o->alive)
		return -ESHUTDOWN;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_local_match);

static bool hixl_local_allowed(const struct hixl_engine *eng)
{
	return eng->rdma && eng->rdma->transport != HIXL_TRANSPORT_RDMA;
}

/**
 * hixl_local_offer() - fill the same-host block of an active link's HELLO
 * @l: the link; engine lock and post_mutex held
 * @x: out: the block
 * Return: bytes of the block, or 0.
 */
u32 hixl_local_offer(struct hixl_link *l, struct hixl_wire_hello_local *x)
{
	struct hixl_engine *eng = l->eng;
	unsigned long flags;
	u32 n = 0;

	lockdep_assert_held(&eng->lock);
	if (!l->active || !hixl_local_allowed(eng))
		return 0;
	memset(x, 0, sizeof(*x));
	spin_lock_irqsave(&hixl_local_lock, flags);
	if (!l->loc.offered && !l->loc.paired && !l->loc.broken) {
		get_random_bytes(l->loc.token, sizeof(l->loc.token));
		l->loc.self = eng->rdma->local;
		list_add_tail(&l->loc.node, &hixl_local_offers);
		l->loc.offered = true;
		x->magic = cpu_to_le32(HIXL_WIRE_LOCAL_MAGIC);
		x->version = cpu_to_le16(HIXL_WIRE_LOCAL_VERSION);
		x->len = cpu_to_le16(sizeof(*x));
		memcpy(x->boot_id, hixl_local_boot_id, sizeof(x->boot_id));
		memcpy(x->token, l->loc.token, sizeof(x->token));
		n = sizeof(*x);
	}
	spin_unlock_irqrestore(&hixl_local_lock, flags);
	return n;
}

/**
 * hixl_local_accept() - pair an accepted link with the offer its HELLO names
 * @l:       the accepted link, its peer's HELLO checked
 * @x:       the HELLO's same-host block, length checked
 * @claimed: the HELLO's engine name, checked to be the source address
 */
void hixl_local_accept(struct hixl_link *l, const struct hixl_wire_hello_local *x,
		       const struct hixl_sockaddr *claimed)
{
	struct hixl_engine *eng = l->eng;
	struct hixl_link_local *o;
	struct hixl_link *a = NULL;
	unsigned long flags;

	if (l->active || le32_to_cpu(x->magic) != HIXL_WIRE_LOCAL_MAGIC ||
	    le16_to_cpu(x->version) != HIXL_WIRE_LOCAL_VERSION ||
	    le16_to_cpu(x->len) != sizeof(*x) || !hixl_local_allowed(eng))
		return;
	if (crypto_memneq(x->boot_id, hixl_local_boot_id, HIXL_LOCAL_ID_LEN))
		return;		/* another kernel: the common case, no lock */
	spin_lock_irqsave(&hixl_local_lock, flags);
	list_for_each_entry(o, &hixl_local_offers, node) {
		struct hixl_link *cand = container_of(o, struct hixl_link, loc);
		struct hixl_local_offer of = {
			.token = o->token, .target = &cand->peer, .self = &o->self,
			.paired = o->paired || o->broken,
			.alive = !READ_ONCE(cand->eng->local_dead),
		};
		struct hixl_local_claim cl = {
			.boot_id = x->boot_id, .token = x->token, .claimed = claimed,
			.acceptor = &eng->rdma->local,
		};

		if (!hixl_local_match(&of, &cl, hixl_local_boot_id)) {
			a = cand;
			break;
		}
	}
	if (a && !l->loc.paired && !l->loc.broken && !READ_ONCE(eng->local_dead)) {
		list_del_init(&a->loc.node);
		a->loc.offered = false;
		a->loc.partner = l;
		l->loc.partner = a;
		kref_get(&eng->ref);
		a->loc.peer_eng = eng;
		kref_get(&a->eng->ref);
		l->loc.peer_eng = a->eng;
		a->loc.paired = true;
		l->loc.paired = true;
	}
	spin_unlock_irqrestore(&hixl_local_lock, flags);
}

/**
 * hixl_local_link_gone() - end a link's pairing; idempotent
 * @l: the link, being torn down
 * Context: any.
 */
void hixl_local_link_gone(struct hixl_link *l)
{
	unsigned long flags;

	spin_lock_irqsave(&hixl_local_lock, flags);
	if (l->loc.offered) {
		list_del_init(&l->loc.node);
		l->loc.offered = false;
	}
	if (l->loc.partner) {
		l->loc.partner->loc.partner = NULL;
		l->loc.partner->loc.broken = true;
		l->loc.partner = NULL;
	}
	l->loc.broken = true;
	spin_unlock_irqrestore(&hixl_local_lock, flags);
}

/**
 * hixl_local_link_free() - drop the peer engine at the link's last put
 * @l: the link
 * Context: any.
 */
void hixl_local_link_free(struct hixl_link *l)
{
	hixl_local_link_gone(l);
	if (l->loc.peer_eng)
		hixl_engine_put(l->loc.peer_eng);
	l->loc.peer_eng = NULL;
}

/**
 * hixl_local_peer_get() - the engine at the other end of a paired link
 * @l: the link
 * Return: the peer engine, referenced, or NULL.
 */
struct hixl_engine *hixl_local_peer_get(struct hixl_link *l)
{
	struct hixl_engine *peer = NULL;
	unsigned long flags;

	spin_lock_irqsave(&hixl_local_lock, flags);
	if (l->loc.paired && !l->loc.broken && l->loc.peer_eng) {
		peer = l->loc.peer_eng;
		kref_get(&peer->ref);
	}
	spin_unlock_irqrestore(&hixl_local_lock, flags);
	return peer;
}

/**
 * hixl_local_paired() - is the link paired now?
 * @l: the link
 * Return: true if paired and not broken.
 */
bool hixl_local_paired(struct hixl_link *l)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&hixl_local_lock, flags);
	ret = l->loc.paired && !l->loc.broken;
	spin_unlock_irqrestore(&hixl_local_lock, flags);
	return ret;
}

/**
 * hixl_local_engine_close() - stop copies into a closing engine
 * @eng: the engine, being destroyed; waits for copies in its regions
 * Context: process context, sleeps; no lock held.
 */
void hixl_local_engine_close(struct hixl_engine *eng)
{
	hixl_engine_lock(eng);
	WRITE_ONCE(eng->local_dead, true);
	mutex_unlock(&eng->lock);
	wait_event(eng->local_wq, !atomic_read(&eng->local_users));
}

