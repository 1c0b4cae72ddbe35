// SPDX-License-Identifier: GPL-2.0
/*
 * test_auth.c - who may connect: SETUP's allowed peers
 * and engine secret (kmod/auth.c, docs/protocol.md "Who may connect").
 *
 *   auth_allow_admits      a listed address (IPv4 /32, IPv6 /64) connects
 *   auth_allow_refuses     an unlisted one is refused at once with EACCES
 *                          (no retry until the timeout) and counted
 *   auth_secret_xfer       the same secret on both sides: connect, WRITE
 *                          and READ back verified data
 *   auth_secret_mismatch   different secrets: EACCES both ways, counted
 *   auth_secret_one_sided  a secret on one side only: EACCES both ways
 *   auth_peer_no_offer     a wire peer whose request offers no proof
 *   auth_peer_wrong_proof  a wire peer that answers the challenge wrongly:
 *                          closed, counted, and it never got a REGION or
 *                          HELLO (nothing of the engine's table)
 *   auth_peer_hello_first  a wire peer that skips the challenge
 *   auth_peer_silent       a wire peer that never challenges, and one that
 *                          never proves: closed by the handshake deadline
 *   auth_setup_invalid     malformed options: EINVAL (EFAULT)
 *   auth_lib               the library's options and variables
 *   auth_engine_flags      ENGINES says whether each engine has a secret
 *                          or allowed peers (HIXL_FEAT_ENGINE_AUTH)
 *
 * Engines on 10.77.0.1 / fd77::1 (rxe0 in the test VM), ports 22000-22099.
 * A kernel without hmac(sha256) refuses a secret with ENOPKG: the secret
 * tests SKIP then.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "tests.h"
#include "raw.h"
#include "util.h"

#define KEY1 "0123456789abcdef-first-secret"
#define KEY2 "0123456789abcdef-other-secret"
#define IP6 "fd77::1"

static struct hixl_peer_prefix pfx(const char *addr, uint8_t len)
{
	struct hixl_peer_prefix p;

	memset(&p, 0, sizeof(p));
	p.prefix_len = len;
	if (strchr(addr, ':')) {
		p.family = AF_INET6;
		inet_pton(AF_INET6, addr, p.addr);
	} else {
		p.family = AF_INET;
		inet_pton(AF_INET, addr, p.addr);
	}
	return p;
}

/* SETUP arguments for ip:port with the default options. */
static struct hixl_setup setup_at(const char *ip, uint16_t port)
{
	struct hixl_setup s;

	memset(&s, 0, sizeof(s));
	if (strchr(ip, ':')) {
		s.local.family = AF_INET6;
		inet_pton(AF_INET6, ip, s.local.addr);
	} else {
		s.local.family = AF_INET;
		inet_pton(AF_INET, ip, s.local.addr);
	}
	s.local.port = port;
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s.transport = hixl_raw_transport();	/* RDMA in the runner */
	return s;	/* no staging pool: every descriptor one RDMA op */
}

static void with_allowed(struct hixl_setup *s, const struct hixl_peer_prefix *p, uint32_t n)
{
	s->flags |= HIXL_SETUP_ALLOWED_PEERS;
	s->allowed = (uintptr_t)p;
	s->nr_allowed = n;
}

static void with_secret(struct hixl_setup *s, const char *key)
{
	s->flags |= HIXL_SETUP_SECRET;
	s->secret = (uintptr_t)key;
	s->secret_len = strlen(key);
}

/* An engine set up with s; SKIPs without rxe0 or hmac(sha256); -errno. */
static int engine_with(struct hixl_setup *s)
{
	int fd = open_dev();
	long ret;

	if (fd < 0)
		return -errno;
	ret = xioctl(fd, HIXL_IOC_SETUP, s);
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " HX_IP " / " IP6 " (rxe0 in the test VM)");
	if (ret == -ENOPKG)
		SKIP("the kernel has no hmac(sha256) (CONFIG_CRYPTO_HMAC, CONFIG_CRYPTO_SHA256)");
	if (ret) {
		printf("#   SETUP: %s\n", strerror((int)-ret));
		close(fd);
		return (int)ret;
	}
	return fd;
}

static int engine_secret(uint16_t port, const char *key)
{
	struct hixl_setup s = setup_at(HX_IP, port);

	if (key)
		with_secret(&s, key);
	return engine_with(&s);
}

static long connect_to(int fd, const char *ip, uint16_t port, uint32_t timeout_ms)
{
	struct hixl_setup s = setup_at(ip, port);
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = s.local;
	c.timeout_ms = timeout_ms;
	return xioctl(fd, HIXL_IOC_CONNECT, &c);
}

/* ---- allowed peers ------------------------------------------------------------ */

void test_auth_allow_admits(void);
void test_auth_allow_admits(void)
{
	struct hixl_peer_prefix v4[] = { pfx("192.0.2.0", 24), pfx(HX_IP, 32) };
	struct hixl_peer_prefix v6[] = { pfx("fd77::", 64) };
	struct hixl_setup s = setup_at(HX_IP, 22000);
	int a, b, a6, b6;

	with_allowed(&s, v4, 2);
	a = engine_with(&s);
	REQUIRE(a >= 0);
	b = hx_engine(0, 0, 0);
	REQUIRE(b >= 0);
	CHECK_EQ(connect_to(b, HX_IP, 22000, 5000), 0);
	CHECK_EQ(get_stats(a).refused_peers, 0);

	s = setup_at(IP6, 22001);
	with_allowed(&s, v6, 1);
	a6 = engine_with(&s);
	REQUIRE(a6 >= 0);
	s = setup_at(IP6, 0);
	b6 = engine_with(&s);
	REQUIRE(b6 >= 0);
	CHECK_EQ(connect_to(b6, IP6, 22001, 5000), 0);
	CHECK_EQ(get_stats(a6).refused_peers, 0);
	close(b6);
	close(a6);
	close(b);
	close(a);
}

void test_auth_allow_refuses(void);
void test_auth_allow_refuses(void)
{
	/* 10.77.0.1 is in none of 10.77.1.0/24, 10.78.0.0/15 (10.78-79.x.x), fd77::/64 */
	struct hixl_peer_prefix v4[] = { pfx("10.77.1.0", 24), pfx("10.78.0.0", 15), pfx("fd77::", 64) };
	struct hixl_peer_prefix v4only[] = { pfx(HX_IP, 32) };
	struct hixl_setup s = setup_at(HX_IP, 22002);
	struct timespec t0;
	int a, b, a6, b6;
	double ms;

	with_allowed(&s, v4, 3);
	a = engine_with(&s);
	REQUIRE(a >= 0);
	b = hx_engine(0, 0, 0);
	REQUIRE(b >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(connect_to(b, HX_IP, 22002, 5000), -EACCES);
	ms = hx_ms_since(&t0);
	CHECK(ms < 2500);	/* refused, not retried until the timeout */
	printf("#   refused in %.0f ms\n", ms);
	CHECK_EQ(get_stats(a).refused_peers, 1);
	CHECK_EQ(get_stats(a).auth_failures, 0);
	CHECK_EQ(connect_to(b, HX_IP, 22002, 5000), -EACCES);
	CHECK_EQ(get_stats(a).refused_peers, 2);
	CHECK_EQ(get_stats(b).refused_peers, 0);	/* counted by the listener only */

	/* an IPv6 peer of a listener that lists only an IPv4 address */
	s = setup_at(IP6, 22003);
	with_allowed(&s, v4only, 1);
	a6 = engine_with(&s);
	REQUIRE(a6 >= 0);
	s = setup_at(IP6, 0);
	b6 = engine_with(&s);
	REQUIRE(b6 >= 0);
	CHECK_EQ(connect_to(b6, IP6, 22003, 5000), -EACCES);
	CHECK_EQ(get_stats(a6).refused_peers, 1);
	close(b6);
	close(a6);
	close(b);
	close(a);
}

/* ---- the engine secret ------------------------------------------------------- */

void test_auth_secret_xfer(void);
void test_auth_secret_xfer(void)
{
	const size_t len = 64 * 1024;
	unsigned char *la = hx_map(len), *lb = hx_map(len), *rb = hx_map(len);
	struct hixl_op_desc d;
	uint32_t failed = 0;
	int a, b;

	REQUIRE(la && lb && rb);
	a = engine_secret(0, KEY1);
	REQUIRE(a >= 0);
	b = engine_secret(22010, KEY1);
	REQUIRE(b >= 0);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(a, lb, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 22010, 10000) == 0);
	hx_fill(la, len, 7);
	memset(rb, 0, len);
	d = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, len };
	CHECK_EQ(hx_xfer(a, 22010, HIXL_OP_WRITE, &d, 1, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(la, rb, len), -1);
	memset(lb, 0, len);
	d.local_addr = (uintptr_t)lb;
	CHECK_EQ(hx_xfer(a, 22010, HIXL_OP_READ, &d, 1, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(lb, rb, len), -1);
	CHECK_EQ(get_stats(a).auth_failures, 0);
	CHECK_EQ(get_stats(b).auth_failures, 0);
	close(a);
	close(b);
}

void test_auth_secret_mismatch(void);
void test_auth_secret_mismatch(void)
{
	unsigned char *ma = hx_map(4096), *mb = hx_map(4096);
	struct timespec t0;
	int a, b;

	REQUIRE(ma && mb);
	a = engine_secret(22011, KEY1);
	REQUIRE(a >= 0);
	b = engine_secret(22012, KEY2);
	REQUIRE(b >= 0);
	REQUIRE(reg_mem(a, ma, 4096, 0, NULL) == 0);
	REQUIRE(reg_mem(b, mb, 4096, 0, NULL) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(hx_connect(a, 22012, 8000), -EACCES);
	CHECK(hx_ms_since(&t0) < 6000);
	CHECK_EQ(get_stats(a).auth_failures, 1);	/* the acceptor's proof was wrong */
	CHECK_EQ(hx_connect(b, 22011, 8000), -EACCES);
	CHECK_EQ(get_stats(b).auth_failures, 1);
	/* and the failed links are gone: a second try fails the same way */
	CHECK_EQ(hx_connect(a, 22012, 8000), -EACCES);
	CHECK_EQ(get_stats(a).auth_failures, 2);
	close(a);
	close(b);
}

void test_auth_secret_one_sided(void);
void test_auth_secret_one_sided(void)
{
	int a, b;

	a = engine_secret(22013, KEY1);
	REQUIRE(a >= 0);
	b = engine_secret(22014, NULL);
	REQUIRE(b >= 0);
	/* a connector without the secret: refused in the connection request */
	CHECK_EQ(hx_connect(b, 22013, 5000), -EACCES);
	CHECK_EQ(get_stats(a).auth_failures, 1);
	/* a connector with one, to an engine without: refused there too */
	CHECK_EQ(hx_connect(a, 22014, 5000), -EACCES);
	CHECK_EQ(get_stats(b).auth_failures, 1);
	close(a);
	close(b);
}

/* ---- a hostile wire peer against an engine with a secret ---------------------- */

/* The victim: an engine with a secret and one registered region. */
static int secret_victim(uint16_t port, void **mem)
{
	int fd = engine_secret(port, KEY1);

	*mem = hx_map(4096);
	if (fd < 0 || !*mem)
		return fd < 0 ? fd : -ENOMEM;
	if (reg_mem(fd, *mem, 4096, 0, NULL)) {
		close(fd);
		return -EIO;
	}
	return fd;
}

/* Pump until the engine disconnects (or ms); the types seen, as a bit mask. */
static unsigned int pump_until_closed(struct hp *p, int ms, bool *closed)
{
	struct timespec t0;
	unsigned int seen = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*closed = false;
	while (hx_ms_since(&t0) < ms) {
		int t = hp_pump(p, 100);

		if (t < 0) {
			*closed = true;
			break;
		}
		if (t > 0 && t < 32)
			seen |= 1U << t;
	}
	return seen;
}

void test_auth_peer_no_offer(void);
void test_auth_peer_no_offer(void)
{
	struct hp p;
	void *mem;
	int v = secret_victim(22020, &mem);

	REQUIRE(v >= 0);
	CHECK(hp_connect(&p, 22020, 0, 0) != 0);	/* rejected: never ESTABLISHED */
	hp_close(&p);
	CHECK_EQ(get_stats(v).auth_failures, 1);
	close(v);
}

void test_auth_peer_wrong_proof(void);
void test_auth_peer_wrong_proof(void)
{
	struct hixl_wire_auth *m;
	unsigned int seen;
	bool closed;
	struct hp p;
	void *mem;
	int v = secret_victim(22021, &mem), t;

	REQUIRE(v >= 0);
	REQUIRE(hp_connect_cm(&p, 22021, 0, 0, HIXL_WIRE_CM_AUTH) == 0);
	m = (void *)p.tx;
	memset(m, 0, sizeof(*m));
	memset(m->nonce, 0x5a, sizeof(m->nonce));
	REQUIRE(hp_send(&p, HIXL_MSG_AUTH_CHALLENGE, sizeof(*m)) == 0);
	t = hp_pump(&p, 5000);
	CHECK_EQ(t, HIXL_MSG_AUTH_REPLY);
	if (t == HIXL_MSG_AUTH_REPLY) {
		const struct hixl_wire_auth *r = (const void *)p.msg;
		static const uint8_t zero[HIXL_AUTH_MAC_LEN];

		CHECK_EQ(p.msg_len, sizeof(*r));
		CHECK(memcmp(r->nonce, zero, sizeof(zero)));	/* a fresh nonce */
		CHECK(memcmp(r->mac, zero, sizeof(zero)));
	}
	/* a proof made without the secret */
	m = (void *)p.tx;
	memset(m, 0, sizeof(*m));
	memset(m->mac, 0xa5, sizeof(m->mac));
	REQUIRE(hp_send(&p, HIXL_MSG_AUTH_PROOF, sizeof(*m)) == 0);
	seen = pump_until_closed(&p, 5000, &closed);
	CHECK(closed);
	CHECK_EQ(seen, 0);			/* no HELLO, nothing */
	CHECK_EQ(p.ntbl, 0);			/* no REGION reached the peer */
	CHECK_EQ(p.received, 0);
	CHECK_EQ(get_stats(v).auth_failures, 1);
	hp_close(&p);
	close(v);
}

void test_auth_peer_hello_first(void);
void test_auth_peer_hello_first(void)
{
	unsigned int seen;
	bool closed;
	struct hp p;
	void *mem;
	int v = secret_victim(22022, &mem);

	REQUIRE(v >= 0);
	REQUIRE(hp_connect_cm(&p, 22022, 0, 4096, HIXL_WIRE_CM_AUTH) == 0);
	REQUIRE(hp_hello(&p, 22122, 0) == 0);		/* no challenge, straight to HELLO */
	/* the engine may have closed the link on the HELLO already: these may fail */
	if (hp_region(&p) == 0)
		hp_table_end(&p);
	seen = pump_until_closed(&p, 5000, &closed);
	if (!closed) {
		/*
		 * The engine can take the HELLO before RDMA CM has handled our
		 * RTU (a MAD, apart from the data): closing its link then
		 * sends no DREQ (RDMA CM sends one only once established),
		 * and we hear nothing.  What counts is that the engine
		 * dropped the link.
		 */
		struct hixl_link_stats a = { 0 };

		closed = !xioctl(v, HIXL_IOC_LINK_STATS, &a) && a.total == 0;
		printf("#   no DISCONNECTED reached us; the engine's links: %u\n", a.total);
	}
	CHECK(closed);
	CHECK_EQ(seen, 0);
	CHECK_EQ(p.ntbl, 0);
	CHECK_EQ(p.received, 0);
	CHECK_EQ(get_stats(v).auth_failures, 1);
	hp_close(&p);
	close(v);
}

void test_auth_peer_silent(void);
void test_auth_peer_silent(void)
{
	unsigned long long old_hs = read_param("handshake_ms");
	struct hixl_wire_auth *m;
	struct timespec t0;
	unsigned int seen;
	bool closed;
	struct hp p;
	void *mem;
	int v, t;

	v = secret_victim(22023, &mem);	/* may SKIP: before the parameter changes */
	REQUIRE(v >= 0);
	if (write_param("handshake_ms", 2000))
		SKIP("no handshake_ms parameter");

	/* never says anything */
	if (hp_connect_cm(&p, 22023, 0, 0, HIXL_WIRE_CM_AUTH) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		seen = pump_until_closed(&p, 8000, &closed);
		CHECK(closed);
		CHECK(hx_ms_since(&t0) > 1000);		/* the deadline, not at once */
		CHECK_EQ(seen, 0);
		CHECK_EQ(p.received, 0);
		CHECK_EQ(get_stats(v).auth_failures, 1);
	} else {
		CHECK(!"peer connect");
	}
	hp_close(&p);

	/* challenges, takes the reply, never proves */
	if (hp_connect_cm(&p, 22023, 0, 0, HIXL_WIRE_CM_AUTH) == 0) {
		m = (void *)p.tx;
		memset(m, 0, sizeof(*m));
		memset(m->nonce, 0x33, sizeof(m->nonce));
		CHECK_EQ(hp_send(&p, HIXL_MSG_AUTH_CHALLENGE, sizeof(*m)), 0);
		t = hp_pump(&p, 5000);
		CHECK_EQ(t, HIXL_MSG_AUTH_REPLY);
		seen = pump_until_closed(&p, 8000, &closed);
		CHECK(closed);
		CHECK_EQ(seen, 0);
		CHECK_EQ(p.received, 0);
		CHECK_EQ(get_stats(v).auth_failures, 2);
	} else {
		CHECK(!"peer connect");
	}
	hp_close(&p);
	close(v);
	write_param("handshake_ms", old_hs);
}

/* ---- option validation ----------------------------------------------------------- */

void test_auth_setup_invalid(void);
void test_auth_setup_invalid(void)
{
	struct hixl_peer_prefix good[] = { pfx(HX_IP, 32) };
	struct hixl_peer_prefix bad[] = { pfx("10.77.0.1", 8) };	/* host bits */
	struct hixl_peer_prefix many[HIXL_MAX_ALLOWED_PEERS + 1];
	struct hixl_setup s;
	int fd = open_dev();
	struct hixl_info info;

	REQUIRE(fd >= 0);
	REQUIRE(xioctl(fd, HIXL_IOC_GET_INFO, &(struct hixl_info){ 0 }) == 0);
	memset(&info, 0, sizeof(info));
	REQUIRE(xioctl(fd, HIXL_IOC_GET_INFO, &info) == 0);
	CHECK(info.features & HIXL_FEAT_AUTH);
	for (unsigned int i = 0; i < HIXL_MAX_ALLOWED_PEERS + 1; i++)
		many[i] = pfx(HX_IP, 32);

#define SETUP_FAILS(edit, err) do {						\
		s = setup_at(HX_IP, 22030);					\
		edit;								\
		CHECK_EQ(xioctl(fd, HIXL_IOC_SETUP, &s), err);			\
	} while (0)

	SETUP_FAILS(s.flags = HIXL_SETUP_ALLOWED_PEERS, -EINVAL);		/* no list */
	SETUP_FAILS(with_allowed(&s, good, 0), -EINVAL);
	SETUP_FAILS(with_allowed(&s, many, HIXL_MAX_ALLOWED_PEERS + 1), -EINVAL);
	SETUP_FAILS(with_allowed(&s, bad, 1), -EINVAL);
	SETUP_FAILS((s.allowed = (uintptr_t)good, s.nr_allowed = 1), -EINVAL);	/* no flag */
	SETUP_FAILS(s.flags = 1U << 5, -EINVAL);				/* unknown flag */
	SETUP_FAILS((with_allowed(&s, good, 1), s.allowed = 8), -EFAULT);
	SETUP_FAILS(with_secret(&s, "short"), -EINVAL);
	SETUP_FAILS((with_secret(&s, KEY1), s.secret_len = HIXL_SECRET_MAX + 1), -EINVAL);
	SETUP_FAILS((with_secret(&s, KEY1), s.secret = 0), -EINVAL);
	SETUP_FAILS((s.secret = (uintptr_t)KEY1), -EINVAL);			/* no flag */
	SETUP_FAILS((with_secret(&s, KEY1), s.secret = 8), -EFAULT);
	SETUP_FAILS(s.reserved[0] = 1, -EINVAL);
	{
		struct hixl_peer_prefix r[] = { pfx(HX_IP, 32) };

		r[0].reserved1 = 1;
		SETUP_FAILS(with_allowed(&s, r, 1), -EINVAL);
		r[0] = pfx(HX_IP, 33);
		SETUP_FAILS(with_allowed(&s, r, 1), -EINVAL);
		r[0] = pfx(HX_IP, 32);
		r[0].family = AF_UNIX;
		SETUP_FAILS(with_allowed(&s, r, 1), -EINVAL);
	}
	/* after all that, the engine is not set up and a good SETUP works */
	s = setup_at(HX_IP, 22030);
	with_allowed(&s, good, 1);
	with_secret(&s, KEY1);
	{
		long ret = xioctl(fd, HIXL_IOC_SETUP, &s);

		if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
			SKIP("no RDMA device on " HX_IP);
		if (ret == -ENOPKG)
			printf("#   no hmac(sha256) in this kernel: SETUP with a secret says ENOPKG\n");
		else
			CHECK_EQ(ret, 0);
	}
#undef SETUP_FAILS
	close(fd);
}

/* ---- the library ------------------------------------------------------------------ */

static int lib_init(struct hixl_engine **e, const char *name, const struct hixl_option *o,
		    size_t n)
{
	int ret = hixl_engine_init(e, name, o, n);

	if (ret == -ENOPKG && !o)
		SKIP("no /dev/hixl");
	if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
		SKIP("no RDMA device on " HX_IP);
	if (ret == -ENOPKG)
		SKIP("the kernel has no hmac(sha256)");
	return ret;
}

void test_auth_lib(void);
void test_auth_lib(void)
{
	char keyfile[] = "/tmp/hixl-auth-keyXXXXXX";
	struct hixl_engine *srv = NULL, *cli = NULL, *bad = NULL;
	int kfd;

	/* malformed values */
	CHECK_EQ(hixl_engine_init(&bad, HX_IP, (struct hixl_option[]){ { "AllowedPeers", "" } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP,
				  (struct hixl_option[]){ { "AllowedPeers", "10.77.0.1/8" } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP,
				  (struct hixl_option[]){ { "AllowedPeers", "10.77.0.0/16," } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP,
				  (struct hixl_option[]){ { "AllowedPeers", "10.77.0.0/33" } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP,
				  (struct hixl_option[]){ { "AllowedPeers", "fd77::/64/1" } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP, (struct hixl_option[]){ { "AuthSecret", "short" } }, 1),
		 -EINVAL);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP,
				  (struct hixl_option[]){ { "AuthSecretFile", "/nonexistent/key" } }, 1),
		 -ENOENT);
	setenv("HIXL_ALLOWED_PEERS", "not-an-address", 1);
	CHECK_EQ(hixl_engine_init(&bad, HX_IP, NULL, 0), -EINVAL);
	unsetenv("HIXL_ALLOWED_PEERS");
	CHECK(!bad);

	/* the key file: 32 bytes and a newline */
	kfd = mkstemp(keyfile);
	REQUIRE(kfd >= 0);
	REQUIRE(write(kfd, KEY1 "xyz\n", strlen(KEY1) + 4) == (ssize_t)strlen(KEY1) + 4);
	close(kfd);

	/* the server: allowed peers from the environment, the secret from the file */
	setenv("HIXL_ALLOWED_PEERS", "192.0.2.0/24, 10.77.0.0/24 ,fd77::/64", 1);
	setenv("HIXL_AUTH_SECRET_FILE", keyfile, 1);
	if (lib_init(&srv, HX_IP ":22040", NULL, 0)) {
		CHECK(!"server init");
		goto out;
	}
	unsetenv("HIXL_ALLOWED_PEERS");
	unsetenv("HIXL_AUTH_SECRET_FILE");
	/* a client with the same secret given as a string (file minus its newline) */
	if (lib_init(&cli, HX_IP, (struct hixl_option[]){ { "AuthSecret", KEY1 "xyz" } }, 1)) {
		CHECK(!"client init");
		goto out;
	}
	CHECK_EQ(hixl_connect(cli, HX_IP ":22040", 10000), 0);
	hixl_engine_finalize(cli);
	cli = NULL;
	/* another secret: refused */
	if (lib_init(&cli, HX_IP, (struct hixl_option[]){ { "AuthSecret", KEY2 } }, 1)) {
		CHECK(!"client init");
		goto out;
	}
	CHECK_EQ(hixl_connect(cli, HX_IP ":22040", 10000), -EACCES);
	CHECK_EQ(get_stats(hixl_engine_fd(cli)).auth_failures, 1);
out:
	unsetenv("HIXL_ALLOWED_PEERS");
	unsetenv("HIXL_AUTH_SECRET_FILE");
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	unlink(keyfile);
}

/* ---- what ENGINES shows of it ------------------------------------------------------ */

void test_auth_engine_flags(void);
void test_auth_engine_flags(void)
{
	const uint32_t sec = HIXL_ENGINE_STAT_SECRET, alw = HIXL_ENGINE_STAT_ALLOWED;
	const uint32_t want[4] = { 0, sec, alw, sec | alw };	/* ports 22050 + i */
	struct hixl_peer_prefix v4[] = { pfx(HX_IP, 32) };
	struct hixl_engine_stat e[64];
	struct hixl_info info;
	uint64_t id[4];
	int fd[4], n, cnt, seen = 0;

	n = open_dev();
	REQUIRE(n >= 0);
	memset(&info, 0, sizeof(info));
	REQUIRE(xioctl(n, HIXL_IOC_GET_INFO, &info) == 0);
	CHECK(info.features & HIXL_FEAT_ENGINE_AUTH);
	for (int i = 0; i < 4; i++) {
		struct hixl_setup s = setup_at(HX_IP, 22050 + i);

		if (want[i] & sec)
			with_secret(&s, KEY1);
		if (want[i] & alw)
			with_allowed(&s, v4, 1);
		fd[i] = engine_with(&s);
		REQUIRE(fd[i] >= 0);
		id[i] = hx_self_id(fd[i]);
		REQUIRE(id[i] != 0);
	}
	cnt = hixl_dev_engines(n, e, 64, NULL);
	CHECK(cnt >= 5);
	for (int k = 0; k < cnt; k++) {
		if (e[k].flags & HIXL_ENGINE_STAT_SELF) {	/* not set up: nothing to say */
			CHECK_EQ(e[k].flags, HIXL_ENGINE_STAT_SELF);
			continue;
		}
		for (int i = 0; i < 4; i++) {
			if (e[k].id != id[i])
				continue;
			seen++;
			CHECK_EQ(e[k].flags, HIXL_ENGINE_STAT_SETUP | want[i]);
			CHECK_EQ(e[k].local.port, 22050 + i);
		}
	}
	CHECK_EQ(seen, 4);
	for (int i = 0; i < 4; i++)
		close(fd[i]);
	close(n);
}

const struct ht_test auth_tests[] = {
	{ "auth_allow_admits", test_auth_allow_admits },
	{ "auth_allow_refuses", test_auth_allow_refuses },
	{ "auth_secret_xfer", test_auth_secret_xfer },
	{ "auth_secret_mismatch", test_auth_secret_mismatch },
	{ "auth_secret_one_sided", test_auth_secret_one_sided },
	{ "auth_peer_no_offer", test_auth_peer_no_offer },
	{ "auth_peer_wrong_proof", test_auth_peer_wrong_proof },
	{ "auth_peer_hello_first", test_auth_peer_hello_first },
	{ "auth_peer_silent", test_auth_peer_silent },
	{ "auth_setup_invalid", test_auth_setup_invalid },
	{ "auth_lib", test_auth_lib },
	{ "auth_engine_flags", test_auth_engine_flags },
	{ NULL, NULL },
};
