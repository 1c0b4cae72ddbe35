// SPDX-License-Identifier: GPL-2.0
/*
 * auth.c - who may connect to an engine (SETUP's HIXL_SETUP_ALLOWED_PEERS
 * and HIXL_SETUP_SECRET; docs/protocol.md, "Who may connect").
 *
 * Allowed peers: a connection request is checked in the listener's
 * CONNECT_REQUEST handler, before a link or a QP exists; a refused one is
 * rejected with struct hixl_wire_cm_rej, counted (GET_STATS refused_peers)
 * and logged, rate-limited.
 *
 * Engine secret: a mutual HMAC-SHA256 challenge runs over the link's
 * SEND/RECV channel before HELLO, so neither side announces a region (nor
 * its landing buffer) to a peer that has not proved the secret:
 *
 *   connector                                  acceptor
 *   CM request, HIXL_WIRE_CM_AUTH  ------->    (no flag, or no secret here:
 *                                               rejected, EACCES)
 *   AUTH_CHALLENGE(Nc)             ------->
 *                                  <-------    AUTH_REPLY(Na, mac_A)
 *   mac_A wrong: closed, EACCES
 *   AUTH_PROOF(mac_C)              ------->    mac_C wrong: closed
 *   HELLO, REGION..., TABLE_END    <------>    HELLO, REGION..., TABLE_END
 *
 * mac_X = HMAC(secret, label_X || Nc || Na || connector addr || acceptor
 * addr) (proto.h).  The labels differ, so neither side's mac answers for
 * the other; the fresh nonces make a recorded mac useless on another
 * connection; the addresses tie it to this connection's endpoints, so an
 * impostor cannot relay a challenge to a real engine and hand its answer
 * back.  The acceptor answers first, so a connector with the wrong secret
 * learns that from the acceptor's mac and fails its CONNECT with -EACCES
 * deterministically.  The connector verifies in the receive handler and
 * then proves in the CONNECT thread; the acceptor's steps run in the
 * link's setup work, queued by the receive handler.
 *
 * The secret itself is copied from the caller, given to
 * crypto_shash_setkey() and wiped (kfree_sensitive()); the keyed transform
 * is freed with crypto_free_shash(), which wipes its context.  Neither is
 * ever logged or shown in debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "auth.h"
#include "link.h"
#include "msg.h"
#include "proto.h"

static_assert(HIXL_AUTH_NONCE == HIXL_AUTH_NONCE_LEN);

/* ---- allowed peers ---------------------------------------------------------- */

/**
 * hixl_auth_prefix_valid() - is one allowed-peers entry well-formed?
 * @p: the entry, as the caller gave it
 *
 * Return: true for AF_INET with @prefix_len <= 32 and bytes 4..15 zero, or
 * AF_INET6 with @prefix_len <= 128; reserved fields zero and every address
 * bit past @prefix_len zero (10.0.0.0/8, never 10.1.2.3/8: such an entry
 * is almost always a typo for a narrower one).
 */
VISIBLE_IF_KUNIT bool hixl_auth_prefix_valid(const struct hixl_peer_prefix *p)
{
	unsigned int bits, i;

	if (p->reserved0 || p->reserved1)
		return false;
	if (p->family == AF_INET) {
		bits = 32;
		if (memchr_inv(p->addr + 4, 0, sizeof(p->addr) - 4))
			return false;
	} else if (p->family == AF_INET6) {
		bits = 128;
	} else {
		return false;
	}
	if (p->prefix_len > bits)
		return false;
	for (i = p->prefix_len; i < bits; i++)
		if (p->addr[i / 8] & (0x80 >> (i % 8)))
			return false;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_auth_prefix_valid);

/* Do the first @bits bits of @a and @b agree? */
static bool hixl_bits_equal(const u8 *a, const u8 *b, unsigned int bits)
{
	unsigned int n = bits / 8, rest = bits % 8;

	if (memcmp(a, b, n))
		return false;
	return !rest || !((a[n] ^ b[n]) & (0xff00 >> rest));
}

/**
 * hixl_auth_prefix_match() - does an address lie inside an allowed prefix?
 * @p:  a valid entry (hixl_auth_prefix_valid())
 * @sa: the peer's address, AF_INET or AF_INET6 (other families never match)
 *
 * An AF_INET entry also matches the IPv4-mapped AF_INET6 address
 * (::ffff:a.b.c.d) of the same IPv4 peer.
 *
 * Return: true when the first @p->prefix_len bits agree.
 */
VISIBLE_IF_KUNIT bool hixl_auth_prefix_match(const struct hixl_peer_prefix *p,
					     const struct sockaddr *sa)
{
	const u8 *addr;

	if (sa->sa_family == AF_INET) {
		if (p->family != AF_INET)
			return false;
		addr = (const u8 *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (p->family == AF_INET) {
			if (!ipv6_addr_v4mapped(a6))
				return false;
			addr = (const u8 *)&a6->s6_addr32[3];
		} else {
			addr = a6->s6_addr;
		}
	} else {
		return false;
	}
	return hixl_bits_equal(addr, p->addr, p->prefix_len);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_auth_prefix_match);

/**
 * hixl_auth_allowed() - may a peer at @sa connect under @auth's allowed peers?
 * @auth: the engine's policy
 * @sa:   the peer's address (a connection's source, or a loopback engine's
 *        name, loopback.c)
 *
 * Return: true when there is no list or @sa matches one of its prefixes.
 */
bool hixl_auth_allowed(const struct hixl_auth *auth, const struct sockaddr *sa)
{
	u32 i;

	if (!auth->allow)
		return true;
	for (i = 0; i < auth->nr_allow; i++)
		if (hixl_auth_prefix_match(&auth->allow[i], sa))
			return true;
	return false;
}

/* ---- SETUP ------------------------------------------------------------------ */

static int hixl_auth_setup_allow(struct hixl_auth *auth, const struct hixl_setup *a)
{
	u32 i;

	auth->allow = kvmalloc_array(a->nr_allowed, sizeof(*auth->allow), GFP_KERNEL);
	if (!auth->allow)
		return -ENOMEM;
	if (copy_from_user(auth->allow, u64_to_user_ptr(a->allowed),
			   array_size(a->nr_allowed, sizeof(*auth->allow))))
		return -EFAULT;
	auth->nr_allow = a->nr_allowed;
	for (i = 0; i < auth->nr_allow; i++)
		if (!hixl_auth_prefix_valid(&auth->allow[i]))
			return hixl_einval("SETUP: allowed[%u]: family %u, prefix_len %u: not a prefix (or bits past its length set)",
					   i, auth->allow[i].family, auth->allow[i].prefix_len);
	return 0;
}

static int hixl_auth_setup_secret(struct hixl_auth *auth, const struct hixl_setup *a)
{
	struct crypto_shash *tfm;
	u8 *key;
	int ret;

	key = memdup_user(u64_to_user_ptr(a->secret), a->secret_len);
	if (IS_ERR(key))
		return PTR_ERR(key);
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		ret = PTR_ERR(tfm);
		pr_warn_once("no hmac(sha256) in this kernel (%d): engine secrets need CONFIG_CRYPTO_HMAC and CONFIG_CRYPTO_SHA256\n",
			     ret);
		if (ret == -ENOENT)
			ret = -ENOPKG;
		goto out;
	}
	if (crypto_shash_digestsize(tfm) != HIXL_AUTH_MAC_LEN) {
		crypto_free_shash(tfm);
		ret = -ENOPKG;
		goto out;
	}
	ret = crypto_shash_setkey(tfm, key, a->secret_len);
	if (ret) {
		crypto_free_shash(tfm);
		goto out;
	}
	auth->tfm = tfm;
out:
	kfree_sensitive(key);
	return ret;
}

/**
 * hixl_auth_setup() - take SETUP's allowed peers and secret
 * @auth: the new engine's policy, zeroed
 * @a:    the SETUP request, its flags and sizes checked by
 *        hixl_setup_validate()
 *
 * Copies the allowed peers and checks every entry; copies the secret, keys
 * an "hmac(sha256)" transform with it and wipes the copy.  On failure
 * whatever was made stays in @auth for hixl_auth_free().
 *
 * Context: process context, may sleep.
 * Return: 0; -EFAULT (a list or secret not readable); -EINVAL (an entry
 * hixl_auth_prefix_valid() refuses); -ENOPKG (the kernel has no
 * hmac(sha256): CONFIG_CRYPTO_HMAC, CONFIG_CRYPTO_SHA256); -ENOMEM, or
 * crypto_shash_setkey()'s -errno.
 */
int hixl_auth_setup(struct hixl_auth *auth, const struct hixl_setup *a)
{
	int ret = 0;

	if (a->flags & HIXL_SETUP_ALLOWED_PEERS)
		ret = hixl_auth_setup_allow(auth, a);
	if (!ret && (a->flags & HIXL_SETUP_SECRET))
		ret = hixl_auth_setup_secret(auth, a);
	return ret;
}

/**
 * hixl_auth_free() - free an engine's policy; the keyed transform is wiped
 * @auth: the policy (may be partly made, or empty)
 */
void hixl_auth_free(struct hixl_auth *auth)
{
	kvfree(auth->allow);
	auth->allow = NULL;
	auth->nr_allow = 0;
	crypto_free_shash(auth->tfm);	/* NULL-safe; kfree_sensitive() of the context */
	auth->tfm = NULL;
}

/* ---- connection requests -------------------------------------------------------- */

static void hixl_auth_reject(struct rdma_cm_id *id, u16 reason)
{
	struct hixl_wire_cm_rej rej = {
		.magic = cpu_to_le32(HIXL_WIRE_MAGIC),
		.version = cpu_to_le16(HIXL_WIRE_VERSION),
		.reason = cpu_to_le16(reason),
	};

	/* best effort: the id is destroyed (and rejected) by RDMA CM anyway */
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
}

/* Does the request's private data say the connector will prove a secret? */
static bool hixl_auth_offered(const struct rdma_cm_event *ev)
{
	const struct hixl_wire_cm_req *req = ev->param.conn.private_data;

	if (!req || ev->param.conn.private_data_len < sizeof(*req) ||
	    le32_to_cpu(req->magic) != HIXL_WIRE_MAGIC ||
	    le16_to_cpu(req->version) != HIXL_WIRE_VERSION)
		return false;
	return le16_to_cpu(req->flags) & HIXL_WIRE_CM_AUTH;
}

/**
 * hixl_auth_admit() - may this connection request become a link?
 * @eng: the listening engine (its @rdma published)
 * @id:  the new connection's id, in its CONNECT_REQUEST handler
 * @ev:  the CONNECT_REQUEST event
 *
 * Called before anything is allocated for the request.  A source address
 * outside the allowed peers is refused (counted in st_refused); so is a
 * request that offers no proof to an engine with a secret, or offers one
 * to an engine without (counted in st_auth_failed).  A refused request is
 * rejected here with struct hixl_wire_cm_rej, so that the connector's
 * CONNECT fails with -EACCES instead of retrying.
 *
 * Context: RDMA CM handler (may sleep).
 * Return: 0 to go on; -EACCES refused: the caller returns it so that RDMA
 * CM destroys @id.
 */
int hixl_auth_admit(struct hixl_engine *eng, struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct hixl_auth *auth = &eng->rdma->auth;
	struct sockaddr *src = (struct sockaddr *)&id->route.addr.dst_addr;
	bool offered = hixl_auth_offered(ev);

	if (!hixl_auth_allowed(auth, src)) {
		atomic64_inc(&eng->st_refused);
		pr_warn_ratelimited("engine %llu: peer %pISpc: refusing the connection: not an allowed peer\n",
				    eng->id, src);
		hixl_auth_reject(id, HIXL_WIRE_REJ_NOT_ALLOWED);
		return -EACCES;
	}
	if (!!auth->tfm != offered) {
		atomic64_inc(&eng->st_auth_failed);
		pr_warn_ratelimited("engine %llu: peer %pISpc: refusing the connection: %s\n",
				    eng->id, src, auth->tfm ?
				    "it offers no proof of the engine secret" :
				    "it wants an engine secret and this engine has none");
		hixl_auth_reject(id, HIXL_WIRE_REJ_AUTH);
		return -EACCES;
	}
	return 0;
}

/**
 * hixl_auth_conn_param() - add our connection request's private data
 * @eng: the connecting engine
 * @p:   the request's parameters (hixl_conn_param())
 * @req: storage for the private data, alive until rdma_connect() returns
 *
 * Without a secret nothing is added: the request is what it always was.
 */
void hixl_auth_conn_param(struct hixl_engine *eng, struct rdma_conn_param *p,
			  struct hixl_wire_cm_req *req)
{
	if (!eng->rdma->auth.tfm)
		return;
	req->magic = cpu_to_le32(HIXL_WIRE_MAGIC);
	req->version = cpu_to_le16(HIXL_WIRE_VERSION);
	req->flags = cpu_to_le16(HIXL_WIRE_CM_AUTH);
	p->private_data = req;
	p->private_data_len = sizeof(*req);
}

/**
 * hixl_auth_rejected() - was our connection request refused by the peer's policy?
 * @id: our id
 * @ev: its RDMA_CM_EVENT_REJECTED event
 *
 * Return: true when the reject carries a hixl_wire_cm_rej with a known
 * reason (the CONNECT then fails with -EACCES); false for any other reject
 * (nobody listens, a full engine: the CONNECT retries).
 */
bool hixl_auth_rejected(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct hixl_wire_cm_rej *rej;
	u8 len = 0;
	u16 reason;

	rej = rdma_consumer_reject_data(id, ev, &len);
	if (!rej || len < sizeof(*rej) || le32_to_cpu(rej->magic) != HIXL_WIRE_MAGIC ||
	    le16_to_cpu(rej->version) != HIXL_WIRE_VERSION)
		return false;
	reason = le16_to_cpu(rej->reason);
	return reason == HIXL_WIRE_REJ_NOT_ALLOWED || reason == HIXL_WIRE_REJ_AUTH;
}

/* ---- the challenge -------------------------------------------------------------- */

static void hixl_auth_name(const struct sockaddr *sa, struct hixl_wire_name *w)
{
	memset(w, 0, sizeof(*w));
	w->family = cpu_to_le16(sa->sa_family);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		w->port = cpu_to_le16(ntohs(sin->sin_port));
		memcpy(w->addr, &sin->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;

		w->port = cpu_to_le16(ntohs(sin6->sin6_port));
		memcpy(w->addr, &sin6->sin6_addr, 16);
	}
}

/**
 * hixl_auth_mac() - one side's mac over this connection's exchange
 * @l:     the link (its cm_id gives the two addresses)
 * @label: HIXL_AUTH_LABEL_CONNECTOR or HIXL_AUTH_LABEL_ACCEPTOR
 * @nonce: the connector's [0] and the acceptor's [1] nonce
 * @out:   HIXL_AUTH_MAC_LEN bytes
 *
 * Return: 0 or the crypto API's -errno.
 */
static int hixl_auth_mac(struct hixl_link *l, const char *label,
			 const u8 nonce[2][HIXL_AUTH_NONCE], u8 *out)
{
	struct crypto_shash *tfm = l->eng->rdma->auth.tfm;
	const struct rdma_addr *ra = &l->cm_id->route.addr;
	struct hixl_wire_name names[2];	/* connector, acceptor */
	int ret;
	SHASH_DESC_ON_STACK(desc, tfm);

	/* our own address is src_addr, the peer's dst_addr, on both sides */
	hixl_auth_name((const struct sockaddr *)&ra->src_addr, &names[l->active ? 0 : 1]);
	hixl_auth_name((const struct sockaddr *)&ra->dst_addr, &names[l->active ? 1 : 0]);
	desc->tfm = tfm;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, label, strlen(label) + 1);
	if (!ret)
		ret = crypto_shash_update(desc, &nonce[0][0], 2 * HIXL_AUTH_NONCE);
	if (!ret)
		ret = crypto_shash_update(desc, (const u8 *)names, sizeof(names));
	if (!ret)
		ret = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return ret;
}

/* Is @mac the peer's right answer?  Constant time (crypto_memneq()). */
static int hixl_auth_check(struct hixl_link *l, const char *label,
			   const u8 nonce[2][HIXL_AUTH_NONCE], const u8 *mac)
{
	u8 want[HIXL_AUTH_MAC_LEN];
	int ret = hixl_auth_mac(l, label, nonce, want);

	if (!ret && crypto_memneq(want, mac, HIXL_AUTH_MAC_LEN))
		ret = -EACCES;
	memzero_explicit(want, sizeof(want));
	return ret;
}

static void hixl_auth_failed(struct hixl_link *l, const char *why)
{
	atomic64_inc(&l->eng->st_auth_failed);
	hixl_link_warn(l, "closing the link: %s\n", why);
}

/**
 * hixl_auth_link_init() - where a new link starts in the exchange
 * @l: a new link (hixl_link_alloc()) of an engine that is set up
 */
void hixl_auth_link_init(struct hixl_link *l)
{
	if (!l->eng->rdma->auth.tfm)
		l->auth_state = HIXL_AUTH_NONE;
	else
		l->auth_state = l->active ? HIXL_AUTH_START : HIXL_AUTH_WAIT;
}

/* Send one AUTH_* message with @nonce and @mac (either may be NULL: zeros). */
static int hixl_auth_send(struct hixl_link *l, u16 type, const u8 *nonce, const u8 *mac)
{
	struct hixl_wire_auth *m;
	int ret;

	mutex_lock(&l->msg.post_mutex);
	if (!hixl_link_usable(l)) {
		mutex_unlock(&l->msg.post_mutex);
		return -ECONNRESET;
	}
	m = l->msg.tx.buf;
	memset(m, 0, sizeof(*m));
	if (nonce)
		memcpy(m->nonce, nonce, HIXL_AUTH_NONCE_LEN);
	if (mac)
		memcpy(m->mac, mac, HIXL_AUTH_MAC_LEN);
	ret = hixl_send_msg(l, type, sizeof(*m));
	memzero_explicit(m->mac, sizeof(m->mac));
	mutex_unlock(&l->msg.post_mutex);
	return ret;
}

/**
 * hixl_auth_connect() - the connector's side of the exchange
 * @l:        an active link, ESTABLISHED, not yet published
 * @deadline: jiffies by which the CONNECT must be done
 *
 * Without a secret, nothing.  Else: sends AUTH_CHALLENGE, waits for the
 * acceptor's AUTH_REPLY (checked by the receive handler, hixl_auth_rx()),
 * and answers with AUTH_PROOF; the caller publishes after that.
 *
 * Context: process context (the CONNECT caller), sleeps until @deadline.
 * Return: 0; -EACCES (the acceptor's proof was wrong: the link is closed);
 * -ETIMEDOUT (no REPLY by @deadline); -ERESTARTSYS (a signal); the link's
 * error when it broke; the crypto API's or hixl_send_msg()'s -errno.
 */
int hixl_auth_connect(struct hixl_link *l, unsigned long deadline)
{
	u8 nonce[2][HIXL_AUTH_NONCE], mac[HIXL_AUTH_MAC_LEN];
	long left;
	int ret, st, err;

	if (!l->eng->rdma->auth.tfm)
		return 0;
	get_random_bytes(nonce[0], HIXL_AUTH_NONCE);
	spin_lock(&l->lock);
	if (l->auth_state != HIXL_AUTH_START) {
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	memcpy(l->auth_nonce[0], nonce[0], HIXL_AUTH_NONCE);
	l->auth_state = HIXL_AUTH_SENT;
	spin_unlock(&l->lock);
	ret = hixl_auth_send(l, HIXL_MSG_AUTH_CHALLENGE, nonce[0], NULL);
	if (ret) {
		/*
		 * The REPLY can be judged before our SEND's completion is
		 * reaped: a wrong one closes the link, which flushes that
		 * SEND.  The link's error says why.
		 */
		st = hixl_link_state(l, &err);
		return st >= HIXL_LINK_ERROR && err ? err : ret;
	}

	left = hixl_jiffies_left(deadline);
	left = wait_event_interruptible_timeout(l->wq,
						READ_ONCE(l->auth_state) == HIXL_AUTH_VERIFIED ||
						READ_ONCE(l->state) >= HIXL_LINK_ERROR,
						max(left, 1L));
	st = hixl_link_state(l, &err);
	if (st >= HIXL_LINK_ERROR)
		return err ? err : -ECONNRESET;
	if (left < 0)
		return -ERESTARTSYS;
	spin_lock(&l->lock);
	if (l->auth_state != HIXL_AUTH_VERIFIED) {
		spin_unlock(&l->lock);
		return -ETIMEDOUT;
	}
	memcpy(nonce, l->auth_nonce, sizeof(nonce));
	l->auth_state = HIXL_AUTH_DONE;	/* the acceptor's HELLO may follow our proof */
	spin_unlock(&l->lock);
	ret = hixl_auth_mac(l, HIXL_AUTH_LABEL_CONNECTOR, nonce, mac);
	if (!ret)
		ret = hixl_auth_send(l, HIXL_MSG_AUTH_PROOF, NULL, mac);
	memzero_explicit(mac, sizeof(mac));
	return ret;
}

/**
 * hixl_auth_accept_step() - the acceptor's next step, from the setup work
 * @l: an accepted link
 *
 * Called by the link's setup work each time it runs (ESTABLISHED, and when
 * hixl_auth_rx() asks for it): answers a CHALLENGE with AUTH_REPLY, and
 * says "publish" once, when there is no secret or the peer's proof was
 * right.
 *
 * Context: process context (a work item); takes @l->lock, then post_mutex.
 * Return: 0: publish now (once per link); 1: nothing to do yet (wait for
 * the peer); or -errno of the crypto API or hixl_send_msg().
 */
int hixl_auth_accept_step(struct hixl_link *l)
{
	u8 nonce[2][HIXL_AUTH_NONCE], mac[HIXL_AUTH_MAC_LEN];
	int ret;

	/* only this work leaves CHALLENGED: the peek holds until the switch */
	if (READ_ONCE(l->auth_state) == HIXL_AUTH_CHALLENGED)
		get_random_bytes(nonce[1], HIXL_AUTH_NONCE);
	spin_lock(&l->lock);
	switch (l->auth_state) {
	case HIXL_AUTH_NONE:
		spin_unlock(&l->lock);
		return 0;
	case HIXL_AUTH_DONE:
		l->auth_state = HIXL_AUTH_PUBLISHED;
		spin_unlock(&l->lock);
		return 0;
	case HIXL_AUTH_CHALLENGED:
		memcpy(l->auth_nonce[1], nonce[1], HIXL_AUTH_NONCE);
		memcpy(nonce[0], l->auth_nonce[0], HIXL_AUTH_NONCE);
		l->auth_state = HIXL_AUTH_ANSWERED;	/* before the PROOF can come */
		spin_unlock(&l->lock);
		break;
	default:
		spin_unlock(&l->lock);
		return 1;
	}
	ret = hixl_auth_mac(l, HIXL_AUTH_LABEL_ACCEPTOR, nonce, mac);
	if (!ret)
		ret = hixl_auth_send(l, HIXL_MSG_AUTH_REPLY, nonce[1], mac);
	memzero_explicit(mac, sizeof(mac));
	return ret ? ret : 1;
}

/* An AUTH_* message; l->lock not held. */
static int hixl_auth_rx_msg(struct hixl_link *l, u16 type, const struct hixl_wire_auth *m)
{
	u8 nonce[2][HIXL_AUTH_NONCE];
	u8 want = type == HIXL_MSG_AUTH_CHALLENGE ? HIXL_AUTH_WAIT :
		  type == HIXL_MSG_AUTH_REPLY ? HIXL_AUTH_SENT : HIXL_AUTH_ANSWERED;
	int ret;

	/* fields the type does not use are zero */
	if ((type == HIXL_MSG_AUTH_PROOF && memchr_inv(m->nonce, 0, sizeof(m->nonce))) ||
	    (type == HIXL_MSG_AUTH_CHALLENGE && memchr_inv(m->mac, 0, sizeof(m->mac))))
		return -EPROTO;
	spin_lock(&l->lock);
	if (l->auth_state != want) {	/* unasked for, or a second one */
		spin_unlock(&l->lock);
		return -EPROTO;
	}
	if (type == HIXL_MSG_AUTH_CHALLENGE) {
		memcpy(l->auth_nonce[0], m->nonce, HIXL_AUTH_NONCE);
		l->auth_state = HIXL_AUTH_CHALLENGED;
		spin_unlock(&l->lock);
		return HIXL_AUTH_RX_STEP;
	}
	if (type == HIXL_MSG_AUTH_REPLY)
		memcpy(l->auth_nonce[1], m->nonce, HIXL_AUTH_NONCE);
	memcpy(nonce, l->auth_nonce, sizeof(nonce));
	spin_unlock(&l->lock);

	ret = hixl_auth_check(l, type == HIXL_MSG_AUTH_REPLY ? HIXL_AUTH_LABEL_ACCEPTOR :
			      HIXL_AUTH_LABEL_CONNECTOR, nonce, m->mac);
	if (ret) {
		hixl_auth_failed(l, ret == -EACCES ? "its proof of the engine secret is wrong" :
				 "the proof could not be checked");
		return ret;
	}
	spin_lock(&l->lock);
	l->auth_state = type == HIXL_MSG_AUTH_REPLY ? HIXL_AUTH_VERIFIED : HIXL_AUTH_DONE;
	spin_unlock(&l->lock);
	if (type == HIXL_MSG_AUTH_REPLY) {
		wake_up_all(&l->wq);	/* the CONNECT thread proves our side */
		return HIXL_AUTH_RX_DONE;
	}
	return HIXL_AUTH_RX_STEP;	/* the setup work publishes */
}

/**
 * hixl_auth_rx() - the exchange's gate on every received message
 * @l:    the link
 * @type: the message's type (its header checked)
 * @buf:  the message
 * @len:  its length as received, bytes
 *
 * An AUTH_* message is carried out here (a mac is checked here, in the
 * receive handler); any other message passes only once the peer has proved
 * the secret, or when the engine has none.
 *
 * Context: the link's CQ handler; takes @l->lock.
 * Return: 0: not an AUTH_* message, the caller carries it out;
 * HIXL_AUTH_RX_DONE: an AUTH_* message, done; HIXL_AUTH_RX_STEP: done,
 * queue the link's setup work; -EPROTO: a malformed, unasked-for or repeated AUTH_* message, or
 * one on a link without a secret; -EACCES: a wrong proof, or another
 * message before the proof (counted, logged); the crypto API's -errno.
 * Any -errno closes the link.
 */
int hixl_auth_rx(struct hixl_link *l, u16 type, const void *buf, u32 len)
{
	u8 st = READ_ONCE(l->auth_state);

	if (type == HIXL_MSG_AUTH_CHALLENGE || type == HIXL_MSG_AUTH_REPLY ||
	    type == HIXL_MSG_AUTH_PROOF) {
		if (st == HIXL_AUTH_NONE || len < sizeof(struct hixl_wire_auth))
			return -EPROTO;
		return hixl_auth_rx_msg(l, type, buf);
	}
	if (st == HIXL_AUTH_NONE || st == HIXL_AUTH_DONE || st == HIXL_AUTH_PUBLISHED)
		return 0;
	hixl_auth_failed(l, "a message before its proof of the engine secret");
	return -EACCES;
}

/**
 * hixl_auth_expired() - an accepted link's handshake deadline passed
 * @l: the link, about to be closed
 *
 * Counts and logs a peer that never finished the exchange (it never sent
 * its CHALLENGE or its PROOF).
 */
void hixl_auth_expired(struct hixl_link *l)
{
	u8 st = READ_ONCE(l->auth_state);

	if (st != HIXL_AUTH_NONE && st != HIXL_AUTH_DONE && st != HIXL_AUTH_PUBLISHED)
		hixl_auth_failed(l, "no proof of the engine secret by the handshake deadline");
}
