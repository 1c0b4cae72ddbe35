// SPDX-License-Identifier: GPL-2.0
/*
 * test_loopback.c - loopback engines (kmod/loopback.c):
 * engines named 127.0.0.1:port or [::1]:port need no RDMA device; two of
 * them in one network namespace link in the kernel and copy with the CPU.
 * Nothing here needs rxe0 except the one check that a device-bound engine
 * cannot reach a loopback name (that part SKIPs without it).
 *
 *   loop_privileged_port a port below 1024 without CAP_NET_BIND_SERVICE: EACCES
 *   loop_setup      SETUP on 127.0.0.1 and ::1 with no device (device "",
 *                   no MR sizes); the name taken twice -> EADDRINUSE; port
 *                   0 with LISTEN_ANY and without picks distinct ports;
 *                   transport=rdma -> ENODEV; a dma-buf REG_MEM -> EOPNOTSUPP
 *   loop_rw4        two engines of one process, IPv4: READ/WRITE byte for
 *                   byte, odd offsets; LINK_STATS says LOCAL, the bytes are
 *                   counted local; a second CONNECT -> EISCONN
 *   loop_rw6        the same on [::1]
 *   loop_refused    the peer's read-only region refuses WRITE, out of range
 *                   and unregistered -> ERANGE, a later-registered region
 *                   of the peer is reachable at once, a deregistered one
 *                   not; nothing of the peer changes on a refusal
 *   loop_disconnect DISCONNECT of either end breaks the other (ECONNRESET,
 *                   or ENOTCONN once released); nothing stays pinned
 *   loop_notify     SEND_NOTIFY both ways, GET_NOTIFIES gets name, message
 *                   and the sender's name
 *   loop_fork       an engine of a child process: READ its pattern, WRITE
 *                   one it checks
 *   loop_dereg_mid  the peer deregisters its region mid-batch: 0 or ERANGE,
 *                   its pins go
 *   loop_closed_mid the peer process closes its engine / is killed
 *                   mid-batch: ECONNRESET/ERANGE (or done), then the link
 *                   is broken; KASAN/lockdep clean on the debug kernel
 *   loop_auth       the target's allowed peers and the engine secret
 *   loop_route      loopback -> 10.77.0.1 and rxe0 engine -> 127.0.0.1:
 *                   ENETUNREACH; nobody listening, or a client-only
 *                   target: ETIMEDOUT
 *   loop_netns      a child in its own network namespace (unshare -n):
 *                   does not find the parent's engine, may take its name
 *   loop_lib        the library: hixl_engine_init("127.0.0.1:0"), register,
 *                   connect, transfer (sync and async), notify, disconnect
 *
 * (loop_dereg_mid, loop_closed_mid and loop_netns are in
 * test_loopback_fault.c; the helpers are declared in loop.h.)
 * Ports 24400-24449.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "tests.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

struct hixl_sockaddr lo_name(int family, uint16_t port)
{
	struct hixl_sockaddr a;

	memset(&a, 0, sizeof(a));
	a.family = family;
	a.port = port;
	if (family == AF_INET)
		inet_pton(AF_INET, "127.0.0.1", a.addr);
	else
		inet_pton(AF_INET6, "::1", a.addr);
	return a;
}

/* SETUP of a new engine on a loopback name: the fd, or -errno. */
int lo_setup(struct hixl_setup *s)
{
	int fd = open_dev();
	long ret;

	s->traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s->service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	ret = xioctl(fd, HIXL_IOC_SETUP, s);
	if (ret) {
		close(fd);
		return (int)ret;
	}
	return fd;
}

int lo_eng(int family, uint16_t port)
{
	struct hixl_setup s;

	memset(&s, 0, sizeof(s));
	s.local = lo_name(family, port);
	return lo_setup(&s);
}

void need_loopback(void)
{
	struct hixl_info i;
	int fd = open_dev();

	memset(&i, 0, sizeof(i));
	if (xioctl(fd, HIXL_IOC_GET_INFO, &i) || !(i.features & HIXL_FEAT_LOOPBACK))
		SKIP("the module has no loopback engines (HIXL_FEAT_LOOPBACK)");
	close(fd);
}

long lo_connect(int fd, int family, uint16_t port, uint32_t ms)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = lo_name(family, port);
	c.timeout_ms = ms;
	return xioctl(fd, HIXL_IOC_CONNECT, &c);
}

long lo_disconnect(int fd, int family, uint16_t port)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = lo_name(family, port);
	c.timeout_ms = 1000;
	return xioctl(fd, HIXL_IOC_DISCONNECT, &c);
}

long lo_xfer(int fd, int family, uint16_t port, uint32_t op, const struct hixl_op_desc *d,
		    uint32_t n, uint32_t ms, uint32_t *failed)
{
	struct hixl_transfer t;
	long ret;

	memset(&t, 0, sizeof(t));
	t.remote = lo_name(family, port);
	t.op = op;
	t.descs = (uintptr_t)d;
	t.count = n;
	t.timeout_ms = ms;
	ret = xioctl(fd, HIXL_IOC_TRANSFER, &t);
	if (failed)
		*failed = t.failed;
	return ret;
}

/* The engine's links: flags of the first, their number; -errno. */
long lo_links(int fd, struct hixl_link_stat *o, uint32_t *total)
{
	struct hixl_link_stats a;
	long ret;

	memset(o, 0, sizeof(*o));
	memset(&a, 0, sizeof(a));
	a.buf = (uintptr_t)o;
	a.count = 1;
	ret = xioctl(fd, HIXL_IOC_LINK_STATS, &a);
	*total = a.total;
	return ret;
}

/* Wait up to ms for the engine to have want links. */
int wait_links(int fd, uint32_t want, int ms)
{
	struct hixl_link_stat o;
	uint32_t n = ~0U;

	for (int i = 0; i < ms / 10; i++) {
		if (!lo_links(fd, &o, &n) && n == want)
			return 0;
		usleep(10000);
	}
	printf("#   %u links, want %u\n", n, want);
	return -1;
}

static void loop_setup(void)
{
	struct hixl_reg_mem r;
	struct hixl_setup s;
	int a, b, c, d, fd, mfd, dfd;
	uint16_t p1, p2;

	need_loopback();
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 24400);
	a = lo_setup(&s);
	REQUIRE(a >= 0);
	CHECK_EQ(s.device[0], 0);
	CHECK_EQ(s.page_size_cap, 0);
	CHECK_EQ(s.local.port, 24400);
	CHECK_EQ(lo_eng(AF_INET, 24400), -EADDRINUSE);
	b = lo_eng(AF_INET6, 24400);		/* another address: its own name */
	CHECK(b >= 0);
	/* port 0: picked, each its own; with and without LISTEN_ANY */
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 0);
	s.flags = HIXL_SETUP_LISTEN_ANY;
	c = lo_setup(&s);
	REQUIRE(c >= 0);
	p1 = s.local.port;
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 0);
	d = lo_setup(&s);
	REQUIRE(d >= 0);
	p2 = s.local.port;
	printf("#   port 0 picked %u (listening) and %u (client only)\n", p1, p2);
	CHECK(p1 != 0 && p2 != 0 && p1 != p2);
	CHECK_EQ(lo_connect(a, AF_INET, p1, 2000), 0);	/* LISTEN_ANY takes CONNECTs */
	/* transport RDMA: no device owns a loopback name */
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 24401);
	s.transport = HIXL_TRANSPORT_RDMA;
	CHECK_EQ(lo_setup(&s), -ENODEV);
	/* SETUP twice */
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 24402);
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	CHECK_EQ(xioctl(a, HIXL_IOC_SETUP, &s), -EALREADY);
	/* a dma-buf needs a device: refused, and nothing is left registered */
	dfd = make_udmabuf(64 * KiB, &mfd);
	if (dfd >= 0) {
		fd = a;
		CHECK_EQ(reg_dev(fd, 0x10000000, 64 * KiB, dfd, 0, &r), -EOPNOTSUPP);
		CHECK_EQ(get_stats(fd).regions, 0);
		close(dfd);
		close(mfd);
	} else {
		printf("#   note: no udmabuf here: the dma-buf refusal was not tried\n");
	}
	close(a);
	close(b);
	close(c);
	close(d);
	/* closed: the name is free again */
	a = lo_eng(AF_INET, 24400);
	CHECK(a >= 0);
	close(a);
}

/* a (family, pa) -> b (pb) and both ways byte for byte */
static void rw_case(int family, uint16_t pa, uint16_t pb)
{
	size_t len = 1 * MiB;
	uint8_t *abuf = hx_map(2 * len), *bbuf = hx_map(len);
	struct hixl_link_stat st;
	struct hixl_reg_mem r;
	struct hixl_op_desc d[3];
	uint32_t failed = 0, n;
	uint64_t want;
	int a, b;

	need_loopback();
	REQUIRE(abuf && bbuf);
	b = lo_eng(family, pb);
	a = lo_eng(family, pa);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(reg_mem(a, abuf, 2 * len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	REQUIRE(lo_connect(a, family, pb, 5000) == 0);
	CHECK_EQ(lo_connect(a, family, pb, 5000), -EISCONN);
	REQUIRE(lo_links(a, &st, &n) == 0);
	CHECK_EQ(n, 1);
	CHECK(st.flags & HIXL_LINK_STAT_LOCAL);
	REQUIRE(lo_links(b, &st, &n) == 0);
	CHECK_EQ(n, 1);
	CHECK(st.flags & HIXL_LINK_STAT_LOCAL);
	{
		struct hixl_sockaddr want_a = lo_name(family, pa);

		CHECK(!memcmp(&st.peer, &want_a, sizeof(want_a)));	/* b knows a by name */
	}
	hx_fill(abuf, len, 5);
	memset(bbuf, 0xee, len);
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf, 1 };
	d[1] = (struct hixl_op_desc){ (uintptr_t)abuf + 1, (uintptr_t)bbuf + 1, 4095 + 33 };
	d[2] = (struct hixl_op_desc){ (uintptr_t)abuf + 4129, (uintptr_t)bbuf + 4129, len - 4129 };
	CHECK_EQ(lo_xfer(a, family, pb, HIXL_OP_WRITE, d, 3, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	memset(abuf + len, 0, len);
	d[0] = (struct hixl_op_desc){ (uintptr_t)abuf + len + 7, (uintptr_t)bbuf + 7, len - 7 };
	CHECK_EQ(lo_xfer(a, family, pb, HIXL_OP_READ, d, 1, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf + len + 7, bbuf + 7, len - 7), -1);
	want = len + len - 7;
	REQUIRE(lo_links(a, &st, &n) == 0);
	CHECK_EQ(st.xfer.local_bytes, want);
	/* the accepting side transfers too, over its own link object */
	hx_fill(bbuf, len, 9);
	d[0] = (struct hixl_op_desc){ (uintptr_t)bbuf, (uintptr_t)abuf, len };
	CHECK_EQ(lo_xfer(b, family, pa, HIXL_OP_WRITE, d, 1, 10000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), 0);
}

static void loop_rw4(void)
{
	rw_case(AF_INET, 24403, 24404);
}

static void loop_rw6(void)
{
	rw_case(AF_INET6, 24403, 24404);
}

static void loop_refused(void)
{
	size_t len = 256 * KiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len), *bro = hx_map(len), *late = hx_map(len);
	struct hixl_reg_mem r, rl;
	struct hixl_op_desc d;
	uint32_t failed = 0;
	int a, b;

	need_loopback();
	REQUIRE(abuf && bbuf && bro && late);
	memset(bbuf, 0x11, len);
	memset(bro, 0x22, len);
	memset(late, 0x33, len);
	hx_fill(abuf, len, 3);
	b = lo_eng(AF_INET, 24405);
	a = lo_eng(AF_INET, 24406);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bro, len, HIXL_REG_READ_ONLY, &r) == 0);
	REQUIRE(lo_connect(a, AF_INET, 24405, 5000) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bro, len };
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_WRITE, &d, 1, 5000, &failed), -EACCES);
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_READ, &d, 1, 5000, &failed), 0);
	CHECK_EQ(abuf[len - 1], 0x22);
	hx_fill(abuf, len, 3);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf + len - 10, 20 };
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ERANGE);
	CHECK_EQ(failed, 0);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)late, 100 };
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ERANGE);
	/* our unregistered memory: the loopback engine has no staging */
	d = (struct hixl_op_desc){ (uintptr_t)late, (uintptr_t)bbuf, 100 };
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_WRITE, &d, 1, 5000, &failed), -ENOENT);
	for (size_t i = 0; i < len; i++)
		if (bbuf[i] != 0x11 || bro[i] != 0x22 || late[i] != 0x33) {
			printf("#   byte %zu of the peer changed\n", i);
			ht_failures++;
			break;
		}
	/* registered after CONNECT: reachable at once; deregistered: not */
	REQUIRE(reg_mem(b, late, len, 0, &rl) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)late, len };
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_WRITE, &d, 1, 5000, &failed), 0);
	CHECK_EQ(hx_first_diff(abuf, late, len), -1);
	CHECK_EQ(dereg_mem(b, rl.handle), 0);
	CHECK_EQ(lo_xfer(a, AF_INET, 24405, HIXL_OP_READ, &d, 1, 5000, &failed), -ERANGE);
	close(a);
	close(b);
}

static void loop_disconnect(void)
{
	size_t len = 64 * KiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_op_desc d = { 0 };
	struct hixl_reg_mem r;
	int a, b;
	long ret;

	need_loopback();
	REQUIRE(abuf && bbuf);
	b = lo_eng(AF_INET, 24407);
	a = lo_eng(AF_INET, 24408);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, bbuf, len, 0, &r) == 0);
	/* the connecting side disconnects: the accepted link is released */
	REQUIRE(lo_connect(a, AF_INET, 24407, 5000) == 0);
	CHECK_EQ(wait_links(b, 1, 2000), 0);
	CHECK_EQ(lo_disconnect(a, AF_INET, 24407), 0);
	CHECK_EQ(wait_links(b, 0, 5000), 0);
	d = (struct hixl_op_desc){ (uintptr_t)bbuf, (uintptr_t)abuf, len };
	CHECK_EQ(lo_xfer(b, AF_INET, 24408, HIXL_OP_WRITE, &d, 1, 1000, NULL), -ENOTCONN);
	CHECK_EQ(lo_disconnect(a, AF_INET, 24407), -ENOTCONN);
	/* the accepting side disconnects: the active link breaks, stays listed */
	REQUIRE(lo_connect(a, AF_INET, 24407, 5000) == 0);
	CHECK_EQ(lo_disconnect(b, AF_INET, 24408), 0);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf, len };
	ret = lo_xfer(a, AF_INET, 24407, HIXL_OP_WRITE, &d, 1, 1000, NULL);
	CHECK_EQ(ret, -ECONNRESET);
	/* a new CONNECT replaces the broken link */
	CHECK_EQ(lo_connect(a, AF_INET, 24407, 5000), 0);
	CHECK_EQ(lo_xfer(a, AF_INET, 24407, HIXL_OP_WRITE, &d, 1, 1000, NULL), 0);
	CHECK_EQ(wait_links(a, 1, 1000), 0);
	/* the accepting engine closes: the active link breaks */
	close(b);
	CHECK_EQ(lo_xfer(a, AF_INET, 24407, HIXL_OP_WRITE, &d, 1, 1000, NULL), -ECONNRESET);
	close(a);
	CHECK_EQ(vm_pin_kb(), 0);
}

static void loop_notify(void)
{
	struct hixl_notify *nb = calloc(4, sizeof(*nb));
	struct hixl_send_notify sn;
	struct hixl_get_notifies gn;
	struct hixl_sockaddr pa = lo_name(AF_INET6, 24410);
	int a, b;

	need_loopback();
	REQUIRE(nb);
	b = lo_eng(AF_INET6, 24409);
	a = lo_eng(AF_INET6, 24410);
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(lo_connect(a, AF_INET6, 24409, 5000) == 0);
	for (int k = 0; k < 2; k++) {
		int from = k ? b : a, to = k ? a : b;

		memset(&sn, 0, sizeof(sn));
		sn.remote = lo_name(AF_INET6, k ? 24410 : 24409);
		sn.name = (uintptr_t)"kv-ready";
		sn.name_len = 8;
		sn.msg = (uintptr_t)(k ? "back" : "layer 3 done");
		sn.msg_len = k ? 4 : 12;
		CHECK_EQ(xioctl(from, HIXL_IOC_SEND_NOTIFY, &sn), 0);
		memset(&gn, 0, sizeof(gn));
		gn.buf = (uintptr_t)nb;
		gn.max = 4;
		CHECK_EQ(xioctl(to, HIXL_IOC_GET_NOTIFIES, &gn), 0);
		CHECK_EQ(gn.count, 1);
		CHECK_EQ(nb[0].name_len, 8);
		CHECK(!memcmp(nb[0].name, "kv-ready", 8));
		CHECK_EQ(nb[0].msg_len, k ? 4 : 12);
		CHECK(!memcmp(nb[0].msg, k ? "back" : "layer 3 done", nb[0].msg_len));
		if (!k)
			CHECK(!memcmp(&nb[0].from, &pa, sizeof(pa)));
	}
	/* the receiving engine goes: the sender's link is broken */
	close(b);
	memset(&sn, 0, sizeof(sn));
	sn.remote = lo_name(AF_INET6, 24409);
	sn.name = (uintptr_t)"x";
	sn.name_len = 1;
	CHECK_EQ(xioctl(a, HIXL_IOC_SEND_NOTIFY, &sn), -ECONNRESET);
	close(a);
	free(nb);
}

static void loop_fork(void)
{
	size_t len = 512 * KiB;
	uint8_t *abuf = hx_map(len), *want = hx_map(len);
	struct hixl_reg_mem r;
	struct hixl_op_desc d;
	int up[2], down[2], a, status;
	uint64_t baddr = 0;
	pid_t pid;
	char c;

	need_loopback();
	REQUIRE(abuf && want && pipe(up) == 0 && pipe(down) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		uint8_t *bbuf = hx_map(len), *chk = hx_map(len);
		int b = lo_eng(AF_INET, 24411);

		if (b < 0 || !bbuf || !chk || reg_mem(b, bbuf, len, 0, &r))
			_exit(2);
		hx_fill(bbuf, len, 21);
		baddr = (uintptr_t)bbuf;
		if (write(up[1], &baddr, sizeof(baddr)) != sizeof(baddr) ||
		    read(down[0], &c, 1) != 1)
			_exit(2);
		hx_fill(chk, len, 22);
		_exit(hx_first_diff(bbuf, chk, len) == -1 ? 0 : 1);
	}
	REQUIRE(read(up[0], &baddr, sizeof(baddr)) == sizeof(baddr));
	a = lo_eng(AF_INET, 24412);
	REQUIRE(a >= 0);
	REQUIRE(reg_mem(a, abuf, len, 0, &r) == 0);
	REQUIRE(lo_connect(a, AF_INET, 24411, 5000) == 0);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, baddr, len };
	CHECK_EQ(lo_xfer(a, AF_INET, 24411, HIXL_OP_READ, &d, 1, 10000, NULL), 0);
	hx_fill(want, len, 21);
	CHECK_EQ(hx_first_diff(abuf, want, len), -1);
	hx_fill(abuf, len, 22);
	CHECK_EQ(lo_xfer(a, AF_INET, 24411, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK_EQ(write(down[1], "k", 1), 1);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the child's engine went with it */
	CHECK_EQ(lo_xfer(a, AF_INET, 24411, HIXL_OP_WRITE, &d, 1, 1000, NULL), -ECONNRESET);
	close(a);
}

static void loop_auth(void)
{
	static const char secret[] = "0123456789abcdef0123456789abcdef";
	static const char other[] = "fedcba9876543210fedcba9876543210";
	struct hixl_peer_prefix pp;
	struct hixl_setup s;
	int a, b, c;

	need_loopback();
	/* allowed peers 10.0.0.0/8: our 127.0.0.1 is refused */
	memset(&pp, 0, sizeof(pp));
	pp.family = AF_INET;
	pp.prefix_len = 8;
	pp.addr[0] = 10;
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 24417);
	s.flags = HIXL_SETUP_ALLOWED_PEERS;
	s.allowed = (uintptr_t)&pp;
	s.nr_allowed = 1;
	b = lo_setup(&s);
	REQUIRE(b >= 0);
	a = lo_eng(AF_INET, 24418);
	REQUIRE(a >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24417, 2000), -EACCES);
	CHECK_EQ(wait_links(b, 0, 100), 0);
	CHECK_EQ(wait_links(a, 0, 100), 0);
	close(b);
	/* 127.0.0.0/8 allowed: admitted */
	pp.addr[0] = 127;
	s.local = lo_name(AF_INET, 24417);
	b = lo_setup(&s);
	REQUIRE(b >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24417, 2000), 0);
	close(b);
	close(a);
	/* a secret on the target only, on the connector only, two different: refused */
	memset(&s, 0, sizeof(s));
	s.local = lo_name(AF_INET, 24419);
	s.flags = HIXL_SETUP_SECRET;
	s.secret = (uintptr_t)secret;
	s.secret_len = 32;
	b = lo_setup(&s);
	REQUIRE(b >= 0);
	a = lo_eng(AF_INET, 24420);
	REQUIRE(a >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24419, 2000), -EACCES);
	close(a);
	s.local = lo_name(AF_INET, 24420);
	s.secret = (uintptr_t)other;
	a = lo_setup(&s);
	REQUIRE(a >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24419, 2000), -EACCES);
	close(a);
	s.secret = (uintptr_t)secret;
	a = lo_setup(&s);
	REQUIRE(a >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24419, 2000), 0);	/* the same secret */
	c = lo_eng(AF_INET, 24421);
	REQUIRE(c >= 0);
	CHECK_EQ(lo_connect(c, AF_INET, 24419, 2000), -EACCES);	/* none vs. a secret */
	close(c);
	close(a);
	close(b);
}

static void loop_route(void)
{
	struct hixl_connect cn;
	struct timespec t0;
	int a, b, r;

	need_loopback();
	a = lo_eng(AF_INET, 24423);
	REQUIRE(a >= 0);
	memset(&cn, 0, sizeof(cn));
	cn.remote = hx_name(24424);
	cn.timeout_ms = 1000;
	CHECK_EQ(xioctl(a, HIXL_IOC_CONNECT, &cn), -ENETUNREACH);
	/* nobody on the name: retried until the timeout */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(lo_connect(a, AF_INET, 24425, 300), -ETIMEDOUT);
	CHECK(hx_ms_since(&t0) >= 200);
	/* a client-only engine takes no CONNECT */
	{
		struct hixl_setup s;

		memset(&s, 0, sizeof(s));
		s.local = lo_name(AF_INET, 0);
		b = lo_setup(&s);
		REQUIRE(b >= 0);
		CHECK_EQ(lo_connect(a, AF_INET, s.local.port, 300), -ETIMEDOUT);
		close(b);
	}
	/* an IPv4 engine does not find the IPv6 one of the same port */
	b = lo_eng(AF_INET6, 24425);
	REQUIRE(b >= 0);
	CHECK_EQ(lo_connect(a, AF_INET, 24425, 300), -ETIMEDOUT);
	close(b);
	/* a device-bound engine cannot reach a loopback name */
	r = open_dev();
	{
		struct hixl_setup s;

		memset(&s, 0, sizeof(s));
		s.local = hx_name(24426);
		s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
		s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
		if (xioctl(r, HIXL_IOC_SETUP, &s)) {
			printf("#   note: no rxe0 (" HX_IP "): device -> loopback not tried\n");
		} else {
			CHECK_EQ(lo_connect(r, AF_INET, 24423, 1000), -ENETUNREACH);
		}
	}
	close(r);
	close(a);
}

static void loop_lib(void)
{
	size_t len = 256 * KiB;
	uint8_t *abuf = hx_map(len), *bbuf = hx_map(len);
	struct hixl_engine *ea = NULL, *eb = NULL;
	struct hixl_notify *nb = calloc(2, sizeof(*nb));
	char na[HIXL_ENGINE_NAME_MAX], nbn[HIXL_ENGINE_NAME_MAX];
	struct hixl_mem_desc md;
	struct hixl_op_desc d;
	uint64_t ha, hb;
	size_t cnt = 0;

	need_loopback();
	REQUIRE(abuf && bbuf && nb);
	unsetenv("HIXL_TRANSPORT");	/* main.c's default for RDMA tests; HIXL's tests set none */
	if (hixl_engine_init(&eb, "127.0.0.1:0", &(struct hixl_option){ HIXL_OPTION_TRANSPORT,
								      "rdma" }, 1) != -ENODEV ||
	    !strstr(hixl_last_error(), "loopback"))
		CHECK(!"Transport rdma on a loopback name: -ENODEV, said clearly");
	printf("#   %s\n", hixl_last_error());
	REQUIRE(hixl_engine_init(&eb, "127.0.0.1:0", NULL, 0) == 0);
	REQUIRE(hixl_engine_init(&ea, "[::1]:24429", NULL, 0) == 0);
	CHECK_EQ(hixl_engine_init(&ea, "[::1]:24429", NULL, 0), -EADDRINUSE);
	REQUIRE(hixl_engine_name(eb, nbn, sizeof(nbn)) == 0);
	REQUIRE(hixl_engine_name(ea, na, sizeof(na)) == 0);
	printf("#   engines %s and %s, device \"%s\"\n", na, nbn, hixl_engine_device(eb));
	CHECK(strncmp(nbn, "127.0.0.1:", 10) == 0 && strcmp(nbn, "127.0.0.1:0") != 0);
	/* loopback names of either family are this host's: ::1 reaches 127.0.0.1 */
	CHECK_EQ(hixl_connect(ea, nbn, 2000), 0);
	hixl_engine_finalize(ea);
	REQUIRE(hixl_engine_init(&ea, "127.0.0.1:24429", NULL, 0) == 0);
	REQUIRE(hixl_engine_name(ea, na, sizeof(na)) == 0);
	memset(&md, 0, sizeof(md));
	md.addr = (uintptr_t)abuf;
	md.len = len;
	REQUIRE(hixl_register_mem(ea, &md, HIXL_MEM_HOST, &ha) == 0);
	md.addr = (uintptr_t)bbuf;
	REQUIRE(hixl_register_mem(eb, &md, HIXL_MEM_HOST, &hb) == 0);
	REQUIRE(hixl_connect(ea, nbn, 2000) == 0);
	hx_fill(abuf, len, 31);
	d = (struct hixl_op_desc){ (uintptr_t)abuf, (uintptr_t)bbuf, len };
	CHECK_EQ(hixl_transfer_sync(ea, nbn, HIXL_OP_WRITE, &d, 1, 5000, NULL), 0);
	CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
	/* asynchronous (io_uring when the engine has it): the same copy */
	{
		struct hixl_transfer_args ta = HX_TARGS(5000, NULL);
		struct hixl_request *rq = NULL;
		enum hixl_transfer_status ts;

		memset(bbuf, 0, len);
		REQUIRE(hixl_transfer_async(ea, nbn, HIXL_OP_WRITE, &d, 1, &ta, &rq) == 0);
		CHECK_EQ(hixl_request_wait(ea, rq, 10000, &ts), 0);
		CHECK_EQ(hixl_request_result(rq, NULL), 0);
		CHECK_EQ(hx_first_diff(abuf, bbuf, len), -1);
		printf("#   async path %d\n", hixl_engine_async_path(ea));
		hixl_request_free(rq);
	}
	CHECK_EQ(hixl_send_notify(ea, nbn, "done", "7", 1, 1000), 0);
	CHECK_EQ(hixl_get_notifies(eb, nb, 2, &cnt, NULL), 0);
	CHECK_EQ(cnt, 1);
	CHECK(cnt == 1 && nb[0].msg_len == 1 && nb[0].msg[0] == '7');
	CHECK_EQ(hixl_disconnect(ea, nbn, 1000), 0);
	CHECK(hixl_transfer_sync(ea, nbn, HIXL_OP_WRITE, &d, 1, 1000, NULL) != 0);
	hixl_engine_finalize(ea);
	hixl_engine_finalize(eb);
	free(nb);
	CHECK_EQ(vm_pin_kb(), 0);
}

/*
 * A port below 1024 needs CAP_NET_BIND_SERVICE, as RDMA CM asks of an
 * engine with a device (cma_get_port()): with it (root) SETUP on
 * 127.0.0.1:999 works; with the capability dropped from this test's
 * process, 998 is EACCES and an unprivileged port still works.
 */
static void loop_privileged_port(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	int a;

	need_loopback();
	a = lo_eng(AF_INET, 999);
	if (a == -EACCES)
		SKIP("the test does not run with CAP_NET_BIND_SERVICE");
	CHECK(a >= 0);
	if (a >= 0)
		close(a);
	REQUIRE(syscall(SYS_capget, &h, c) == 0);
	c[CAP_TO_INDEX(CAP_NET_BIND_SERVICE)].effective &= ~CAP_TO_MASK(CAP_NET_BIND_SERVICE);
	REQUIRE(syscall(SYS_capset, &h, c) == 0);
	CHECK_EQ(lo_eng(AF_INET, 998), -EACCES);
	a = lo_eng(AF_INET, 24403);
	CHECK(a >= 0);
	if (a >= 0)
		close(a);
}

const struct ht_test loopback_tests[] = {
	{ "loop_privileged_port", loop_privileged_port },
	{ "loop_setup", loop_setup },
	{ "loop_rw4", loop_rw4 },
	{ "loop_rw6", loop_rw6 },
	{ "loop_refused", loop_refused },
	{ "loop_disconnect", loop_disconnect },
	{ "loop_notify", loop_notify },
	{ "loop_fork", loop_fork },
	{ "loop_dereg_mid", loop_dereg_mid },
	{ "loop_closed_mid", loop_closed_mid },
	{ "loop_auth", loop_auth },
	{ "loop_route", loop_route },
	{ "loop_netns", loop_netns },
	{ "loop_lib", loop_lib },
	{ NULL, NULL },
};
