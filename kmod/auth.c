// SPDX-License-Identifier: GPL-2.0
/*
 * auth.c - who may connect: allowed peers and the engine secret's HMAC-SHA256
 * challenge before HELLO (docs/protocol.md, "Who may connect")
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

/**
 * hixl_auth_prefix_valid() - is one allowed-peers entry well-formed?
 * @p: the entry
 * Return: true if valid, with no address bit past the prefix.
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

static bool hixl_bits_equal(const u8 *a, const u8 *b, unsigned int bits)
{
	unsigned int n = bits / 8, rest = bits % 8;

	if (memcmp(a, b, n))
		return false;
	return !rest || !((a[n] ^ b[n]) & (0xff00 >> rest));
}

/**
 * hixl_auth_prefix_match() - does an address lie inside an allowed prefix?
 * @p:  a valid entry; AF_INET also matches IPv4-mapped IPv6
 * @sa: the peer's address
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
 * hixl_auth_allowed() - may a peer at @sa connect under @auth?
 * @auth: the engine's policy
 * @sa:   the peer's address
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
 * @auth: the new engine's policy, zeroed; hixl_auth_free() on failure too
 * @a:    the SETUP request, flags and sizes checked
 * Context: process context, may sleep.
 * Return: 0; -EFAULT unreadable; -EINVAL bad entry; -ENOPKG no hmac(sha256);
 * -ENOMEM; crypto_shash_setkey()'s error.
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
 * hixl_auth_free() - free an engine's policy, wiping the key
 * @auth: the policy, possibly partly made
 */
void hixl_auth_free(struct hixl_auth *auth)
{
	kvfree(auth->allow);
	auth->allow = NULL;
	auth->nr_allow = 0;
	crypto_free_shash(auth->tfm);	/* NULL-safe; kfree_sensitive() of the context */
	auth->tfm = NULL;
}

static void hixl_auth_reject(struct rdma_cm_id *id, u16 reason)
{
	struct hixl_wire_cm_rej rej = {
		.magic = cpu_to_le32(HIXL_WIRE_MAGIC),
		.version = cpu_to_le16(HIXL_WIRE_VERSION),
		.reason = cpu_to_le16(reason),
	};

	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
}

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
 * @eng: the listening engine
 * @id:  the new connection's id
 * @ev:  the CONNECT_REQUEST event
 * Context: RDMA CM handler (may sleep).
 * Return: 0 to go on; -EACCES refused and rejected.
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
 * @p:   the request's parameters
 * @req: private data storage, alive until rdma_connect() returns
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
 * hixl_auth_rejected() - was our request refused by the peer's policy?
 * @id: our id
 * @ev: its RDMA_CM_EVENT_REJECTED event
 * Return: true for a hixl_wire_cm_rej with a known reason.
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

/* one side's mac over this connection's exchange (nonce[0]: connector's) */
static int hixl_auth_mac(struct hixl_link *l, const char *label,
			 const u8 nonce[2][HIXL_AUTH_NONCE], u8 *out)
{
	struct crypto_shash *tfm = l->eng->rdma->auth.tfm;
	const struct rdma_addr *ra = &l->cm_id->route.addr;
	struct hixl_wire_name names[2];	/* connector, acceptor */
	int ret;
	SHASH_DESC_ON_STACK(desc, tfm);

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
 * @l: a new link of a set-up engine
 */
void hixl_auth_link_init(struct hixl_link *l)
{
	if (!l->eng->rdma->auth.tfm)
		l->auth_state = HIXL_AUTH_NONE;
	else
		l->auth_state = l->active ? HIXL_AUTH_START : HIXL_AUTH_WAIT;
}

/* NULL @nonce or @mac send zeros */
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
 * @deadline: jiffies
 * Context: process context, sleeps until @deadline.
 * Return: 0; -EACCES wrong proof; -ETIMEDOUT; -ERESTARTSYS; the link's,
 * crypto or hixl_send_msg() errors.
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
		/* a wrong REPLY may close the link before our SEND completes */
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
 * Context: process context; takes @l->lock, then post_mutex.
 * Return: 0 publish now; 1 nothing to do yet; crypto or hixl_send_msg() errors.
 */
int hixl_auth_accept_step(struct hixl_link *l)
{
	u8 nonce[2][HIXL_AUTH_NONCE], mac[HIXL_AUTH_MAC_LEN];
	int ret;

	/* only this work leaves CHALLENGED */
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

static int hixl_auth_rx_msg(struct hixl_link *l, u16 type, const struct hixl_wire_auth *m)
{
	u8 nonce[2][HIXL_AUTH_NONCE];
	u8 want = type == HIXL_MSG_AUTH_CHALLENGE ? HIXL_AUTH_WAIT :
		  type == HIXL_MSG_AUTH_REPLY ? HIXL_AUTH_SENT : HIXL_AUTH_ANSWERED;
	int ret;

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
 * @type: message type, header checked
 * @buf:  the message
 * @len:  bytes
 * Context: the link's CQ handler; takes @l->lock.
 * Return: 0 not AUTH_*; HIXL_AUTH_RX_DONE handled; HIXL_AUTH_RX_STEP queue
 * the setup work; -EPROTO malformed; -EACCES wrong or missing proof.
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
 * hixl_auth_expired() - count and log a peer that never finished the exchange
 * @l: the accepted link, closing
 */
void hixl_auth_expired(struct hixl_link *l)
{
	u8 st = READ_ONCE(l->auth_state);

	if (st != HIXL_AUTH_NONE && st != HIXL_AUTH_DONE && st != HIXL_AUTH_PUBLISHED)
		hixl_auth_failed(l, "no proof of the engine secret by the handshake deadline");
}
