// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - hixl-bench on two hosts: --server and --client HOST[:PORT].
 *
 * Like perftest's ib_write_bw, the two processes meet over a side TCP
 * socket (port BENCH_PORT unless --port or HOST:PORT says otherwise) to
 * agree on what RDMA cannot tell them: where the other side's cache is.
 *
 *   client                                   server (engine already up)
 *   HELLO  model, seed           ------->    checks it, maps and registers
 *                                            a cache for it
 *          <-------  TABLE  engine name, cache address and size, its block
 *                           table (logical -> physical block)
 *   connects to the engine, then per mode:
 *   MODE   READ or WRITE         ------->    READ: fills its cache (the
 *                                            prefill side); WRITE: zeroes it
 *          <-------  READY
 *   the mode's transfers (kv.c: run_mode()); for WRITE then
 *   VERIFY                       ------->    checks every block
 *          <-------  RESULT blocks that differ
 *   BYE                          ------->    deregisters, exits
 *
 * Either side may send ERROR (an errno and a message) instead of its next
 * message, e.g. the server when the model is too large for it.
 *
 * Every message is a 12-byte header (magic "HXBN", version, type, payload
 * length; integers big-endian) and a payload whose length each type fixes
 * (TABLE: by its block count, ERROR: at most 256 bytes).  A receiver reads
 * the header, refuses a wrong magic, version, type (out of order
 * included), length or field before it reads or trusts the payload, and
 * says which; nothing in a message is used as an address or a size
 * without a check against what the receiver computed itself.  The socket
 * carries no secret: engine names, addresses, sizes, block numbers.  It is
 * not authenticated either: anyone who reaches the port may start a run
 * (one, then the server exits); hixl's own AllowedPeers and secret options
 * are what guard the engines.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define NET_MAGIC	0x4858424eu	/* "HXBN" */
#define NET_VERSION	1
#define NET_ERR_MAX	256		/* an ERROR's message, bytes */
#define HELLO_WAIT_S	30		/* the server's wait for a client's HELLO */
#define REPLY_WAIT_S	600		/* a client's wait for each reply (a fill, a check) */

enum net_type {
	NET_HELLO = 1, NET_TABLE, NET_MODE, NET_READY, NET_VERIFY, NET_RESULT, NET_BYE,
	NET_ERROR,
};

static const char *const type_names[] = {
	[NET_HELLO] = "HELLO", [NET_TABLE] = "TABLE", [NET_MODE] = "MODE",
	[NET_READY] = "READY", [NET_VERIFY] = "VERIFY", [NET_RESULT] = "RESULT",
	[NET_BYE] = "BYE", [NET_ERROR] = "ERROR",
};

struct net_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len;		/* payload bytes */
} __attribute__((packed));

/* HELLO: the client's model (the server's cache has this shape) */
struct net_hello {
	uint64_t layers, kv_heads, head_dim, dtype_bytes, block_tokens, tokens, seed;
} __attribute__((packed));

/* TABLE, followed by nblocks __be32 physical block numbers */
struct net_table {
	char engine[HIXL_ENGINE_NAME_MAX];	/* NUL-terminated, with the port */
	uint64_t base;		/* the cache's address in the server */
	uint64_t bytes;		/* its size: layers * 2 * nblocks * block_bytes */
	uint32_t nblocks;	/* blocks per layer per K/V */
	uint32_t reserved;	/* 0 */
} __attribute__((packed));

struct net_mode {
	uint32_t op;		/* HIXL_OP_READ or HIXL_OP_WRITE, the client's */
	uint32_t reserved;	/* 0 */
} __attribute__((packed));

struct net_result {
	uint64_t bad_blocks;
} __attribute__((packed));

struct net_error {
	int32_t err;		/* a positive errno */
	char msg[];		/* not NUL-terminated; at most NET_ERR_MAX */
} __attribute__((packed));

/* the largest payload: a TABLE of HIXL_MAX_DESCS / 2 blocks */
#define NET_MAX_LEN	(sizeof(struct net_table) + HIXL_MAX_DESCS / 2 * sizeof(uint32_t))

static const char *type_name(unsigned int t)
{
	return t && t < sizeof(type_names) / sizeof(type_names[0]) ? type_names[t] : "unknown";
}

static int send_all(int fd, const void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		done += (size_t)n;
	}
	return 0;
}

/* 0, -ECONNRESET on EOF (the peer closed), -EAGAIN on a timeout, -errno */
static int recv_all(int fd, void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = recv(fd, (char *)buf + done, len - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		done += (size_t)n;
	}
	return 0;
}

static int send_msg(int fd, enum net_type type, const void *payload, size_t len)
{
	struct net_hdr h = {
		htobe32(NET_MAGIC), htobe16(NET_VERSION), htobe16(type), htobe32((uint32_t)len),
	};
	int ret = send_all(fd, &h, sizeof(h));

	return ret || !len ? ret : send_all(fd, payload, len);
}

/* ERROR: -@err and a message, best effort (the peer may be gone) */
static void send_error(int fd, int err, const char *msg)
{
	char buf[sizeof(struct net_error) + NET_ERR_MAX];
	struct net_error *e = (struct net_error *)buf;
	size_t n = strnlen(msg, NET_ERR_MAX);

	e->err = (int32_t)htobe32((uint32_t)-err);
	memcpy(e->msg, msg, n);
	send_msg(fd, NET_ERROR, buf, sizeof(*e) + n);
}

static void set_timeout(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* each type's payload length; TABLE's is sizeof(struct net_table) + 4 a block */
static const size_t type_len[] = {
	[NET_HELLO] = sizeof(struct net_hello), [NET_TABLE] = 0,
	[NET_MODE] = sizeof(struct net_mode), [NET_READY] = 0, [NET_VERIFY] = 0,
	[NET_RESULT] = sizeof(struct net_result), [NET_BYE] = 0,
};

#define BIT(t)	(1u << (t))

/* "MODE, VERIFY or BYE": the types of @mask */
static void mask_names(unsigned int mask, char *buf, size_t len)
{
	size_t n = 0;
	int k = 0, total = __builtin_popcount(mask);

	buf[0] = '\0';
	for (unsigned int t = NET_HELLO; t < NET_ERROR && n < len; t++)
		if (mask & BIT(t)) {
			k++;
			n += (size_t)snprintf(buf + n, len - n, "%s%s", k == 1 ? "" :
					      k == total ? " or " : ", ", type_names[t]);
		}
}

/*
 * Receive one message of a type in @want (a mask of BIT(type)): its type
 * into *@type, its payload into @buf (@max bytes: enough for any type in
 * @want).  Returns the payload length, or -errno with @why set: the peer's
 * ERROR (-its errno), a timeout (-ETIMEDOUT), the peer gone
 * (-ECONNRESET), another protocol version (-EPROTO) or a garbled message
 * (-EBADMSG: which field was wrong).  Nothing of the payload is read
 * before the header has been checked.
 */
static long recv_msg(int fd, unsigned int want, unsigned int *type, void *buf, size_t max,
		     char *why, size_t wlen)
{
	char wanted[64];
	struct net_hdr h;
	uint32_t plen;
	unsigned int t;
	int ret = recv_all(fd, &h, sizeof(h));

	mask_names(want, wanted, sizeof(wanted));
	if (ret) {
		snprintf(why, wlen, "waiting for %s: %s", wanted,
			 ret == -EAGAIN ? "timed out" : ret == -ECONNRESET ?
			 "the peer closed the connection" : strerror(-ret));
		return ret == -EAGAIN ? -ETIMEDOUT : ret;
	}
	t = be16toh(h.type);
	plen = be32toh(h.len);
	if (be32toh(h.magic) != NET_MAGIC) {
		snprintf(why, wlen, "garbled message: magic %#x, not %#x (is the peer "
			 "hixl-bench?)", be32toh(h.magic), NET_MAGIC);
		return -EBADMSG;
	}
	if (be16toh(h.version) != NET_VERSION) {
		snprintf(why, wlen, "the peer speaks version %u of the side protocol, this "
			 "hixl-bench %u", be16toh(h.version), NET_VERSION);
		return -EPROTO;
	}
	if (t == NET_ERROR) {
		char ebuf[sizeof(struct net_error) + NET_ERR_MAX + 1];
		struct net_error *e = (struct net_error *)ebuf;
		int32_t err;

		if (plen < sizeof(*e) || plen > sizeof(*e) + NET_ERR_MAX ||
		    recv_all(fd, ebuf, plen)) {
			snprintf(why, wlen, "garbled message: ERROR of %u bytes", plen);
			return -EBADMSG;
		}
		memcpy(&err, &e->err, sizeof(err));
		err = (int32_t)be32toh((uint32_t)err);
		for (char *c = e->msg; c < ebuf + plen; c++)	/* printable only */
			if (*c < 0x20 || *c > 0x7e)
				*c = '?';
		ebuf[plen] = '\0';
		snprintf(why, wlen, "the peer says: %s", e->msg);
		return err > 0 && err < 4096 ? -err : -EREMOTEIO;
	}
	if (t >= NET_ERROR || !(want & BIT(t))) {
		snprintf(why, wlen, "garbled message: %s (type %u) where %s was due",
			 type_name(t), t, wanted);
		return -EBADMSG;
	}
	if (t == NET_TABLE ? plen < sizeof(struct net_table) || plen > max ||
			     (plen - sizeof(struct net_table)) % sizeof(uint32_t) :
			     plen != type_len[t] || plen > max) {
		snprintf(why, wlen, "garbled message: %s of %u bytes", type_name(t), plen);
		return -EBADMSG;
	}
	ret = plen ? recv_all(fd, buf, plen) : 0;
	if (ret) {
		snprintf(why, wlen, "reading %s: %s", type_name(t),
			 ret == -EAGAIN ? "timed out" : ret == -ECONNRESET ?
			 "the peer closed the connection" : strerror(-ret));
		return ret == -EAGAIN ? -ETIMEDOUT : ret;
	}
	*type = t;
	return plen;
}

/* "IP:PORT" of a connected socket's peer, for messages */
static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN], serv[8];

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, len, "?");
	else if (ss.ss_family == AF_INET6 && strncmp(host, "::ffff:", 7))
		snprintf(buf, len, "[%s]:%s", host, serv);
	else	/* IPv4, or IPv4 on the dual-stack socket (::ffff:a.b.c.d) */
		snprintf(buf, len, "%s:%s", strncmp(host, "::ffff:", 7) ? host : host + 7, serv);
}

/* ---- the server ---- */

/* What a HELLO asks for, checked as the command line is (opts.c); 0 or -errno. */
static int hello_check(const struct net_hello *h, char *why, size_t len)
{
	uint64_t v[] = {
		be64toh(h->layers), be64toh(h->kv_heads), be64toh(h->head_dim),
		be64toh(h->dtype_bytes), be64toh(h->block_tokens), be64toh(h->tokens),
	};
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	int ret;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!v[i] || v[i] > UINT32_MAX) {
			snprintf(why, len, "HELLO: model field %zu is %llu (1..%u)", i,
				 (unsigned long long)v[i], UINT32_MAX);
			return -EINVAL;
		}
	C.layers = v[0], C.kv_heads = v[1], C.head_dim = v[2], C.dtype_bytes = v[3];
	C.block_tokens = v[4], C.tokens = v[5], C.seed = be64toh(h->seed);
	if (C.tokens % C.block_tokens) {
		snprintf(why, len, "HELLO: %lu tokens, not a multiple of %lu-token blocks",
			 C.tokens, C.block_tokens);
		return -EINVAL;
	}
	ret = layout_check(why, len);
	if (ret)
		return ret;
	/* the client decides the size: at most half of this host's memory */
	if (pages > 0 && psize > 0 &&
	    C.layers * 2 * nblocks * block_bytes > (uint64_t)pages / 2 * (uint64_t)psize) {
		snprintf(why, len, "a %zu MiB cache is more than half of this host's memory",
			 C.layers * 2 * nblocks * block_bytes >> 20);
		return -ENOMEM;
	}
	return 0;
}

/* The side socket: listening on every address, port C.port; fd or -errno. */
static int listen_on(char *why, size_t len)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(C.port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(C.port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, zero = 0, fd, ret;

	/* IPv6 and IPv4 on one socket; IPv4 alone where IPv6 is off */
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, (struct sockaddr *)&a6, sizeof(a6)) && !listen(fd, 1))
			return fd;
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "socket: %s", strerror(-ret));
		return ret;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) || listen(fd, 1)) {
		ret = -errno;
		snprintf(why, len, "TCP port %lu: %s", C.port, strerror(-ret));
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * One client's run on the server's engine @srv: HELLO .. BYE.  Returns 0
 * when it ended with BYE, else -errno with @why set (and sent to the
 * client as an ERROR when it is ours).  @write_bad: blocks that differed
 * at the last VERIFY, or -1 when there was none.
 */
static int serve(int fd, struct side *srv, long long *write_bad, char *why, size_t wlen)
{
	struct net_hello hello;
	struct net_table *t = NULL;
	uint64_t *sums = NULL;
	bool wrote = false;
	unsigned int type;
	size_t tlen;
	long n;
	int ret;

	set_timeout(fd, HELLO_WAIT_S);
	n = recv_msg(fd, BIT(NET_HELLO), &type, &hello, sizeof(hello), why, wlen);
	if (n < 0) {
		ret = (int)n;
		if (ret == -EBADMSG || ret == -EPROTO)	/* tell the client why */
			goto refuse;
		return ret;
	}
	ret = hello_check(&hello, why, wlen);
	if (ret)
		goto refuse;
	srv->bytes = C.layers * 2 * nblocks * block_bytes;
	sums = malloc(C.layers * 2 * nblocks * sizeof(*sums));
	tlen = sizeof(*t) + nblocks * sizeof(uint32_t);
	t = calloc(1, tlen);
	if (!sums || !t) {
		ret = -ENOMEM;
		snprintf(why, wlen, "no memory for the block sums");
		goto refuse;
	}
	ret = side_map(srv, srv->name, C.seed ^ 0x5eed);
	if (!ret)
		ret = side_register(srv);
	if (ret) {
		snprintf(why, wlen, "%s", last_err);
		goto refuse;
	}
	ret = hixl_engine_name(srv->eng, t->engine, sizeof(t->engine));
	if (ret) {
		snprintf(why, wlen, "hixl_engine_name: %s", strerror(-ret));
		goto refuse;
	}
	t->base = htobe64((uintptr_t)srv->base);
	t->bytes = htobe64(srv->bytes);
	t->nblocks = htobe32((uint32_t)nblocks);
	for (size_t b = 0; b < nblocks; b++) {
		uint32_t v = htobe32(srv->table[b]);

		memcpy((char *)(t + 1) + b * sizeof(v), &v, sizeof(v));
	}
	ret = send_msg(fd, NET_TABLE, t, tlen);
	if (ret) {
		snprintf(why, wlen, "sending TABLE: %s", strerror(-ret));
		goto out;
	}
	/* the client runs its transfers between our answers: no timeout, but
	 * keepalive notices a client host that went away */
	set_timeout(fd, 0);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &(int){ 1 }, sizeof(int));
	for (;;) {
		union {
			struct net_mode m;
			struct net_result r;
		} u;
		size_t bad;

		/* MODE, or BYE; VERIFY only right after a WRITE */
		n = recv_msg(fd, BIT(NET_MODE) | BIT(NET_BYE) | (wrote ? BIT(NET_VERIFY) : 0),
			     &type, &u, sizeof(u), why, wlen);
		if (n < 0) {
			ret = (int)n;
			if (ret == -EBADMSG || ret == -EPROTO)
				goto refuse;
			goto out;
		}
		if (type == NET_BYE) {
			ret = 0;
			goto out;
		}
		if (type == NET_MODE) {
			uint32_t op = be32toh(u.m.op);

			if (u.m.reserved || (op != HIXL_OP_READ && op != HIXL_OP_WRITE)) {
				ret = -EBADMSG;
				snprintf(why, wlen, "garbled message: MODE op %u, reserved %u", op,
					 be32toh(u.m.reserved));
				goto refuse;
			}
			wrote = op == HIXL_OP_WRITE;
			if (wrote)	/* we are the decode side: start from zeroes */
				memset(srv->base, 0, srv->bytes);
			else		/* the prefill side: its blocks */
				prefill_fill(srv, sums);
			ret = send_msg(fd, NET_READY, NULL, 0);
		} else {	/* VERIFY */
			prefill_fill_sums(sums);
			bad = decode_verify(srv, sums);
			*write_bad = (long long)bad;
			u.r.bad_blocks = htobe64(bad);
			wrote = false;
			ret = send_msg(fd, NET_RESULT, &u.r, sizeof(u.r));
		}
		if (ret) {
			snprintf(why, wlen, "sending a reply: %s", strerror(-ret));
			goto out;
		}
	}
refuse:
	send_error(fd, ret, why);
out:
	free(sums);
	free(t);
	return ret;
}

/*
 * --server: set the engine up on --local, wait on the side socket for one
 * client, serve it, exit.  Returns the exit status.
 */
int net_server(void)
{
	struct side srv = { 0 };
	long long write_bad = -1;
	char why[512] = "", peer[64] = "?";
	int lfd, fd, ret;

	srv.name = C.local;
	ret = side_engine_init(&srv);
	if (ret)
		return fail_early(ret, "%s", last_err);
	lfd = listen_on(why, sizeof(why));
	if (lfd < 0) {
		side_engine_end(&srv);
		return fail_early(lfd, "%s", why);
	}
	{
		char name[HIXL_ENGINE_NAME_MAX] = "";

		hixl_engine_name(srv.eng, name, sizeof(name));
		fprintf(stderr, "hixl-bench: server: engine %s on %s, waiting on TCP port %lu\n",
			name, device, C.port);
	}
	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	ret = fd < 0 ? -errno : 0;
	close(lfd);
	if (fd < 0) {
		snprintf(why, sizeof(why), "accept: %s", strerror(-ret));
	} else {
		peer_name(fd, peer, sizeof(peer));
		fprintf(stderr, "hixl-bench: server: client %s\n", peer);
		ret = serve(fd, &srv, &write_bad, why, sizeof(why));
		close(fd);
	}
	side_unmap(&srv);
	if (ret)
		fprintf(stderr, "hixl-bench: server: client %s: %s\n", peer, why);
	else if (write_bad > 0)
		fprintf(stderr, "hixl-bench: server: %lld blocks differed after the client's "
			"WRITE\n", write_bad);
	else
		fprintf(stderr, "hixl-bench: server: client %s done\n", peer);
	if (C.json) {
		printf("{\"tool\":\"hixl-bench\",\"role\":\"server\",\"ok\":%s,\"client\":\"%s\","
		       "\"write_bad_blocks\":%lld,\"error\":\"", !ret && write_bad <= 0 ?
		       "true" : "false", peer, write_bad);
		for (const char *c = ret ? why : ""; *c; c++)
			printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
		printf("\",\"errno\":%d}\n", -ret);
	}
	return ret || write_bad > 0 ? 1 : 0;
}

/* ---- the client ---- */

/* TCP to C.host:C.port, retrying for C.connect_wait seconds; fd or -errno */
static int dial(char *why, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	time_t end = time(NULL) + (time_t)C.connect_wait;
	char port[8];
	int fd = -1, ret;

	snprintf(port, sizeof(port), "%lu", C.port);
	ret = getaddrinfo(C.host, port, &hints, &res);
	if (ret) {
		snprintf(why, len, "%s: %s", C.host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	for (;;) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
			if (fd < 0) {
				ret = -errno;
				continue;
			}
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				goto done;
			ret = -errno;
			close(fd);
			fd = -1;
		}
		/* the server may not be up yet (still booting, still setting up) */
		if (time(NULL) >= end || (ret != -ECONNREFUSED && ret != -ENETUNREACH &&
					  ret != -EHOSTUNREACH && ret != -ETIMEDOUT))
			break;
		sleep(1);
	}
	snprintf(why, len, "connecting to the server %s port %lu: %s%s", C.host, C.port,
		 strerror(-ret), ret == -ECONNREFUSED ? " (is hixl-bench --server running there?)"
		 : "");
done:
	freeaddrinfo(res);
	return fd >= 0 ? fd : ret;
}

/* TABLE: checked against the model we sent; fills @remote (not mapped here) */
static int table_check(const struct net_table *t, size_t plen, struct side *remote,
		       char *engine, char *why, size_t len)
{
	const unsigned char *p = (const unsigned char *)(t + 1);
	uint64_t base = be64toh(t->base), bytes = be64toh(t->bytes);
	uint32_t n = be32toh(t->nblocks);
	struct hixl_sockaddr a;
	unsigned char *seen;

	if (!memchr(t->engine, '\0', sizeof(t->engine)) ||
	    hixl_parse_engine_name(t->engine, &a) || !a.port) {
		snprintf(why, len, "garbled TABLE: no engine name with a port");
		return -EBADMSG;
	}
	if (n != nblocks || plen != sizeof(*t) + (size_t)n * sizeof(uint32_t) || t->reserved ||
	    bytes != C.layers * 2 * nblocks * block_bytes || !base || base + bytes < base) {
		snprintf(why, len, "garbled TABLE: %u blocks of a %llu-byte cache at %#llx, not "
			 "the %zu blocks of %zu bytes asked for", n, (unsigned long long)bytes,
			 (unsigned long long)base, nblocks, C.layers * 2 * nblocks * block_bytes);
		return -EBADMSG;
	}
	seen = calloc(nblocks, 1);
	remote->table = malloc(nblocks * sizeof(*remote->table));
	if (!seen || !remote->table) {
		free(seen);
		snprintf(why, len, "no memory for the block table");
		return -ENOMEM;
	}
	/* a permutation of 0..n-1: every block inside the cache, none twice */
	for (size_t b = 0; b < nblocks; b++) {
		uint32_t v;

		memcpy(&v, p + b * sizeof(v), sizeof(v));
		v = be32toh(v);
		if (v >= nblocks || seen[v]++) {
			free(seen);
			snprintf(why, len, "garbled TABLE: block %zu maps to %u (%s)", b, v,
				 v >= nblocks ? "outside the cache" : "twice");
			return -EBADMSG;
		}
		remote->table[b] = v;
	}
	free(seen);
	snprintf(engine, HIXL_ENGINE_NAME_MAX, "%s", t->engine);
	remote->name = engine;
	remote->base = (unsigned char *)(uintptr_t)base;	/* the server's address */
	remote->bytes = bytes;
	return 0;
}

/* the WRITE mode's verifier: VERIFY, then the server's RESULT */
static int net_verify(void *ctx, size_t *bad, char *why, size_t len)
{
	int fd = *(int *)ctx, ret = send_msg(fd, NET_VERIFY, NULL, 0);
	struct net_result r;
	unsigned int type;
	long n;

	if (ret) {
		snprintf(why, len, "sending VERIFY: %s", strerror(-ret));
		return ret;
	}
	n = recv_msg(fd, BIT(NET_RESULT), &type, &r, sizeof(r), why, len);
	if (n < 0)
		return (int)n;
	if (be64toh(r.bad_blocks) > C.layers * 2 * nblocks) {
		snprintf(why, len, "garbled RESULT: %llu bad blocks of %zu",
			 (unsigned long long)be64toh(r.bad_blocks), C.layers * 2 * nblocks);
		return -EBADMSG;
	}
	*bad = be64toh(r.bad_blocks);
	return 0;
}

/*
 * --client HOST: the side socket's exchange, then each mode against the
 * server's engine, then the report.  Returns the exit status.
 */
int net_client(void)
{
	struct net_hello hello = {
		htobe64(C.layers), htobe64(C.kv_heads), htobe64(C.head_dim),
		htobe64(C.dtype_bytes), htobe64(C.block_tokens), htobe64(C.tokens),
		htobe64(C.seed),
	};
	struct side mine = { 0 }, remote = { 0 };
	struct result res[2] = { { 0 } };
	char why[512] = "", engine[HIXL_ENGINE_NAME_MAX];
	struct net_table *t = malloc(NET_MAX_LEN);
	uint64_t *sums = malloc(C.layers * 2 * nblocks * sizeof(uint64_t));
	struct verifier v;
	unsigned int type;
	size_t nres = 0;
	int fd = -1, ret, rc = 1;
	long n;

	if (!t || !sums) {
		rc = fail_early(-ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	fd = dial(why, sizeof(why));
	if (fd < 0) {
		rc = fail_early(fd, "%s", why);
		goto out;
	}
	v.verify = net_verify;
	v.ctx = &fd;
	set_timeout(fd, REPLY_WAIT_S);
	ret = send_msg(fd, NET_HELLO, &hello, sizeof(hello));
	if (ret) {
		rc = fail_early(ret, "sending HELLO to %s: %s", C.client, strerror(-ret));
		goto out;
	}
	n = recv_msg(fd, BIT(NET_TABLE), &type, t, NET_MAX_LEN, why, sizeof(why));
	ret = n < 0 ? (int)n : table_check(t, (size_t)n, &remote, engine, why, sizeof(why));
	if (ret) {
		rc = fail_early(ret, "server %s: %s", C.client, why);
		goto out;
	}
	mine.bytes = remote.bytes;
	ret = side_map(&mine, C.local, C.seed);
	if (!ret)
		ret = side_engine(&mine);
	if (ret) {
		send_error(fd, ret, last_err);
		rc = fail_early(ret, "%s", last_err);
		goto out;
	}
	for (int m = 0; m < 2; m++) {
		bool write_mode = m == 0;
		struct net_mode mode = { htobe32(write_mode ? HIXL_OP_WRITE : HIXL_OP_READ), 0 };
		struct result *r = &res[nres];

		if (!strcmp(C.mode, write_mode ? "read" : "write"))
			continue;
		r->mode = write_mode ? "write" : "read";
		nres++;
		ret = send_msg(fd, NET_MODE, &mode, sizeof(mode));
		n = ret ? ret : recv_msg(fd, BIT(NET_READY), &type, NULL, 0, r->why, sizeof(r->why));
		if (n < 0) {
			r->err = (int)n;
			if (!r->why[0])
				snprintf(r->why, sizeof(r->why), "sending MODE: %s", strerror(-ret));
			fprintf(stderr, "hixl-bench: %s: server %s: %s\n", r->mode, C.client, r->why);
			break;
		}
		if (write_mode) {	/* we are prefill, the server decode */
			prefill_fill(&mine, sums);
			run_mode(r, &mine, &remote, HIXL_OP_WRITE, &remote, sums, &v);
		} else {		/* we are decode, the server prefill */
			prefill_fill_sums(sums);
			run_mode(r, &mine, &remote, HIXL_OP_READ, &mine, sums, NULL);
		}
		if (r->err == -ECONNRESET || r->err == -EPIPE || r->err == -ETIMEDOUT ||
		    r->err == -EBADMSG || r->err == -EPROTO)
			break;	/* the side socket is gone or garbled: no next mode */
	}
	send_msg(fd, NET_BYE, NULL, 0);
	report(res, nres, &mine);
	rc = 0;
	for (size_t i = 0; i < nres; i++)
		if (!result_ok(&res[i]))
			rc = 1;
out:
	if (fd >= 0)
		close(fd);
	side_unmap(&mine);
	free(remote.table);
	for (size_t i = 0; i < nres; i++)
		free(res[i].lat_ms);
	free(sums);
	free(t);
	return rc;
}
