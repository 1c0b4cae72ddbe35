// SPDX-License-Identifier: GPL-2.0
/*
 * test_alive.c - silent peers and peer restarts:
 *
 * - alive_silent_peer: a peer engine on a second address of rxe0's netdev
 *   (10.77.0.5) is silenced by removing that address (its GID goes, rxe
 *   drops what arrives for it: no CM event on our side, no DREQ); our idle
 *   link must fail with -EHOSTDOWN within keepalive_ms + the transport's
 *   retry time (docs/protocol.md, "Keep-alive"), a healthy idle link must
 *   not, and a new CONNECT once the address is back must work.
 * - alive_peer_restart: a peer process, stopped (SIGSTOP: its kernel still
 *   answers, the link stays up) and then killed (SIGKILL) and started again
 *   under the same name with its region at another address: without
 *   AutoConnect the first TRANSFER fails with the link's error, a CONNECT
 *   (no DISCONNECT first) replaces the broken link, the old table is gone
 *   (its address: -ERANGE) and the new one is used.
 * - alive_peer_restart_auto: the same through the library with AutoConnect:
 *   the first transfer after the restart succeeds, into the new table.
 *
 * Engines: 10.77.0.1 and 10.77.0.5, ports 18600-18629.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include <raw.h>

#include "tests.h"
#include "util.h"

#define PEER_IP		"10.77.0.5"
#define PEER_GID	"0000:0000:0000:0000:0000:ffff:0a4d:0005"
#define LEN		(64 * 1024)
#define KA_MS		200
#define RETRY_MS	3760	/* 7 * 4.096 us * 2^17: cm.c's HIXL_ACK_TIMEOUT, HIXL_RETRY_COUNT */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Is PEER_GID in rxe0's GID table? */
static int peer_gid_present(void)
{
	char path[128], gid[64];

	for (int i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/rxe0/ports/1/gids/%d", i);
		if (!hx_read_line(path, gid, sizeof(gid)) && !strcmp(gid, PEER_GID))
			return 1;
	}
	return 0;
}

static int wait_peer_gid(int want, int ms)
{
	for (int waited = 0; waited <= ms; waited += 50) {
		if (peer_gid_present() == want)
			return 0;
		usleep(50000);
	}
	return -1;
}

/*
 * The state and error of the active link to @peer ("IP:PORT") from
 * debugfs (hixl/links: "ENGINE PEER active|passive STATE ERR REGIONS
 * NOTIFIES"); 0 when found.
 */
static int link_state(const char *peer, char *state, size_t len, int *err)
{
	FILE *f = fopen("/sys/kernel/debug/hixl/links", "r");
	char line[256], name[64], dir[16], st[16];
	unsigned long long id;
	int e, found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %63s %15s %15s %d", &id, name, dir, st, &e) == 5 &&
		    !strcmp(name, peer) && !strcmp(dir, "active")) {
			snprintf(state, len, "%s", st);
			*err = e;
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static int link_ready(const char *peer)
{
	char st[16];
	int err;

	return !link_state(peer, st, sizeof(st), &err) && !strcmp(st, "ready");
}

static long connect_to(int fd, const char *ip, uint16_t port, uint32_t timeout_ms)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = hixl_raw_name(ip, port);
	c.timeout_ms = timeout_ms;
	return xioctl(fd, HIXL_IOC_CONNECT, &c);
}

static long write_to(int fd, const char *ip, uint16_t port, void *local, uint64_t remote,
		     uint32_t timeout_ms)
{
	struct hixl_op_desc d = { (uintptr_t)local, remote, LEN };
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = hixl_raw_name(ip, port);
	t.op = HIXL_OP_WRITE;
	t.descs = (uintptr_t)&d;
	t.count = 1;
	t.timeout_ms = timeout_ms;
	t.failed = ~0U;
	return xioctl(fd, HIXL_IOC_TRANSFER, &t);
}

/* ---- a silent peer --------------------------------------------------------- */

static void silent_peer(const char *ndev)
{
	char peer[64], st[16] = "";
	unsigned char *la = hx_map(LEN), *rb = hx_map(LEN);
	long pin0 = vm_pin_kb(), ret;
	struct hixl_xfer_stats xs;
	struct timespec t0;
	int a, b, err = 0;
	double ms = 0;

	snprintf(peer, sizeof(peer), PEER_IP ":%u", 18600);
	REQUIRE(la && rb);
	a = hx_engine(0, 0, 0);
	REQUIRE(a >= 0);
	b = hixl_raw_engine(PEER_IP, 18600, 0, 0);
	if (b < 0)
		printf("#   SETUP %s: %s\n", peer, strerror(-b));
	REQUIRE(b >= 0);
	REQUIRE(hixl_raw_reg_host(a, la, LEN) == 0);
	REQUIRE(hixl_raw_reg_host(b, rb, LEN) == 0);
	REQUIRE(connect_to(a, PEER_IP, 18600, 10000) == 0);
	hx_fill(la, LEN, 1);
	memset(rb, 0, LEN);
	CHECK_EQ(write_to(a, PEER_IP, 18600, la, (uintptr_t)rb, 10000), 0);
	CHECK_EQ(memcmp(la, rb, LEN), 0);

	/* idle and healthy: keep-alives are answered, the link stays up */
	usleep(4 * KA_MS * 1000 + 500000);
	CHECK(link_ready(peer));

	/* silence the peer: its address (and GID) goes; nothing tells us */
	REQUIRE(sh("ip addr del " PEER_IP "/24 dev %s", ndev) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < 30000) {
		if (!link_state(peer, st, sizeof(st), &err) && strcmp(st, "ready"))
			break;
		usleep(20000);
	}
	ms = hx_ms_since(&t0);
	printf("#   silent peer: link %s (%d) after %.0f ms (bound %d + %d ms)\n", st, err, ms,
	       KA_MS, RETRY_MS);
	CHECK(!strcmp(st, "error"));
	CHECK_EQ(err, -EHOSTDOWN);
	CHECK(ms <= KA_MS + RETRY_MS + 10000);	/* the bound, and slack for TCG */
	/* counted: one link reset, the keep-alive's failed completion */
	xs = get_stats(a).xfer;
	CHECK_EQ(xs.link_resets, 1);
	CHECK_EQ(xs.wc_errors, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = write_to(a, PEER_IP, 18600, la, (uintptr_t)rb, 10000);
	printf("#   next TRANSFER: %ld after %.0f ms\n", ret, hx_ms_since(&t0));
	CHECK_EQ(ret, -EHOSTDOWN);

	/* the address is back: a new CONNECT replaces the broken link */
	CHECK_EQ(sh("ip addr add " PEER_IP "/24 dev %s", ndev), 0);
	CHECK_EQ(wait_peer_gid(1, 10000), 0);
	ret = connect_to(a, PEER_IP, 18600, 10000);
	printf("#   CONNECT after the address came back: %ld\n", ret);
	CHECK_EQ(ret, 0);
	hx_fill(la, LEN, 2);
	memset(rb, 0, LEN);
	CHECK_EQ(write_to(a, PEER_IP, 18600, la, (uintptr_t)rb, 10000), 0);
	CHECK_EQ(memcmp(la, rb, LEN), 0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
	munmap(la, LEN);
	munmap(rb, LEN);
}

static void test_alive_silent_peer(void)
{
	unsigned long long ka = read_param("keepalive_ms");
	char ndev[64];

	if (geteuid() != 0)
		SKIP("needs root to add and remove an address");
	if (hx_read_line("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", ndev, sizeof(ndev)))
		SKIP("no rxe0 with a netdev (the test VM's Soft-RoCE)");
	if (system("command -v ip >/dev/null 2>&1"))
		SKIP("no ip(8)");
	REQUIRE(ka != ~0ULL);		/* the module has the parameter */
	CHECK_EQ(ka, 1000);		/* its documented default */
	if (sh("ip addr add " PEER_IP "/24 dev %s", ndev))
		SKIP("cannot add " PEER_IP " to rxe0's netdev");
	if (wait_peer_gid(1, 10000)) {
		printf("#   no GID for " PEER_IP " on rxe0 after 10 s\n");
		ht_failures++;
	} else {
		REQUIRE(write_param("keepalive_ms", KA_MS) == 0);
		silent_peer(ndev);
		CHECK_EQ(write_param("keepalive_ms", ka), 0);
	}
	/* leave the netdev as it was: only 10.77.0.1 */
	sh("ip addr del " PEER_IP "/24 dev %s 2>/dev/null", ndev);
	CHECK_EQ(wait_peer_gid(0, 10000), 0);
	write_param("keepalive_ms", ka);
}

/* ---- a peer process killed and started again ---------------------------------- */

struct peer_proc {
	pid_t pid;
	int cmd, res;		/* our ends of its pipes */
	uint64_t addr;		/* its region */
};

/*
 * A peer engine on HX_IP:@port in a child process, its region of LEN bytes
 * registered; with @spacer, a mapping of LEN first, so that the region
 * lands at another address than a child without one (a restarted peer's
 * new table).  Commands: 'v' + seed: are the region's bytes hx_fill(seed)?
 * (one byte back: 1 yes, 0 no); 'x': exit.  0 when it is up.
 */
static int peer_start(struct peer_proc *p, uint16_t port, int spacer)
{
	int cp[2], pc[2];

	if (pipe(cp) || pipe(pc))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		unsigned char *pad = spacer ? hx_map(LEN) : NULL, *rb = hx_map(LEN), *want = hx_map(LEN);
		int e = hixl_raw_engine(HX_IP, port, 0, 0);
		uint64_t addr = (uintptr_t)rb;
		unsigned char c, ok;

		(void)pad;
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* a failed REQUIRE leaves no orphan */
		if (e < 0 || !rb || !want || hixl_raw_reg_host(e, rb, LEN))
			_exit(2);
		memset(rb, 0, LEN);
		if (write(cp[1], &addr, sizeof(addr)) != sizeof(addr))
			_exit(3);
		while (read(pc[0], &c, 1) == 1 && c == 'v') {
			if (read(pc[0], &c, 1) != 1)
				_exit(4);
			hx_fill(want, LEN, c);
			ok = !memcmp(rb, want, LEN);
			if (write(cp[1], &ok, 1) != 1)
				_exit(5);
		}
		_exit(0);
	}
	close(cp[1]);
	close(pc[0]);
	p->res = cp[0];
	p->cmd = pc[1];
	return read(p->res, &p->addr, sizeof(p->addr)) == sizeof(p->addr) ? 0 : -1;
}

/* Does the peer's region hold hx_fill(@seed)? */
static int peer_verify(struct peer_proc *p, unsigned char seed)
{
	unsigned char c[2] = { 'v', seed }, ok = 0;

	if (write(p->cmd, c, 2) != 2 || read(p->res, &ok, 1) != 1)
		return 0;
	return ok;
}

static void peer_end(struct peer_proc *p, int sig)
{
	int status;

	if (sig)
		kill(p->pid, sig);
	else if (write(p->cmd, "x", 1) != 1)
		kill(p->pid, SIGKILL);
	waitpid(p->pid, &status, 0);
	close(p->cmd);
	close(p->res);
}

static int is_link_error(long e)
{
	return e == -ECONNRESET || e == -EHOSTDOWN || e == -ENETDOWN || e == -EIO;
}

static void peer_restart(void)
{
	unsigned char *la = hx_map(LEN);
	struct peer_proc p1, p2;
	char peer[64];
	uint64_t old;
	long ret;
	int a;

	snprintf(peer, sizeof(peer), HX_IP ":%u", 18610);
	REQUIRE(la);
	a = hx_engine(0, 0, 0);
	REQUIRE(a >= 0);
	REQUIRE(hixl_raw_reg_host(a, la, LEN) == 0);
	REQUIRE(peer_start(&p1, 18610, 0) == 0);
	REQUIRE(hx_connect(a, 18610, 10000) == 0);
	hx_fill(la, LEN, 1);
	CHECK_EQ(write_to(a, HX_IP, 18610, la, p1.addr, 10000), 0);
	CHECK(peer_verify(&p1, 1));

	/* stopped, not gone: its kernel answers the keep-alives */
	kill(p1.pid, SIGSTOP);
	usleep((KA_MS + RETRY_MS + 1000) * 1000);
	CHECK(link_ready(peer));
	hx_fill(la, LEN, 2);
	CHECK_EQ(write_to(a, HX_IP, 18610, la, p1.addr, 10000), 0);	/* no process needed */
	kill(p1.pid, SIGCONT);
	CHECK(peer_verify(&p1, 2));

	/* killed, and started again under the same name, its region elsewhere */
	old = p1.addr;
	peer_end(&p1, SIGKILL);
	REQUIRE(peer_start(&p2, 18610, 1) == 0);
	CHECK(p2.addr != old);
	hx_fill(la, LEN, 3);
	ret = write_to(a, HX_IP, 18610, la, p2.addr, 20000);
	printf("#   first TRANSFER after the restart: %ld\n", ret);
	CHECK(is_link_error(ret));
	/* a CONNECT replaces the broken link (no DISCONNECT needed) */
	CHECK_EQ(hx_connect(a, 18610, 10000), 0);
	CHECK(link_ready(peer));
	ret = write_to(a, HX_IP, 18610, la, old, 10000);
	printf("#   TRANSFER to the old region's address: %ld\n", ret);
	CHECK_EQ(ret, -ERANGE);			/* the old table is gone */
	CHECK_EQ(write_to(a, HX_IP, 18610, la, p2.addr, 10000), 0);
	CHECK(peer_verify(&p2, 3));
	peer_end(&p2, 0);
	close(a);
	munmap(la, LEN);
}

static void test_alive_peer_restart(void)
{
	unsigned long long ka = read_param("keepalive_ms");
	long pin0 = vm_pin_kb();

	REQUIRE(ka != ~0ULL);
	if (geteuid() == 0)
		REQUIRE(write_param("keepalive_ms", KA_MS) == 0);
	else
		printf("#   not root: keepalive_ms stays %llu\n", ka);
	peer_restart();
	if (geteuid() == 0)
		CHECK_EQ(write_param("keepalive_ms", ka), 0);
	CHECK_EQ(vm_pin_kb(), pin0);
}

static void test_alive_peer_restart_auto(void)
{
	static const struct hixl_option ac[] = { { HIXL_OPTION_AUTO_CONNECT, "1" } };
	unsigned char *la = hx_map(LEN);
	struct hixl_mem_desc md = { .addr = (uintptr_t)la, .len = LEN };
	struct hixl_op_desc d = { (uintptr_t)la, 0, LEN };
	const char *name = HX_IP ":18620";
	struct hixl_engine *cli;
	struct peer_proc p1, p2;
	long pin0 = vm_pin_kb();
	uint64_t h, old;
	int ret;

	REQUIRE(la);
	cli = hx_lib_engine(HX_IP ":18621", ac, 1);
	REQUIRE(cli);
	REQUIRE(hixl_register_mem(cli, &md, HIXL_MEM_HOST, &h) == 0);
	REQUIRE(peer_start(&p1, 18620, 0) == 0);
	hx_fill(la, LEN, 1);
	d.remote_addr = p1.addr;
	CHECK_EQ(hixl_transfer_sync(cli, name, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK(peer_verify(&p1, 1));

	old = p1.addr;
	peer_end(&p1, SIGKILL);
	REQUIRE(peer_start(&p2, 18620, 1) == 0);
	CHECK(p2.addr != old);
	/* the first transfer after the restart: reconnected, into the new table */
	hx_fill(la, LEN, 2);
	d.remote_addr = p2.addr;
	ret = hixl_transfer_sync(cli, name, HIXL_OP_WRITE, &d, 1, 20000, NULL);
	printf("#   first transfer after the restart: %d\n", ret);
	CHECK_EQ(ret, 0);
	CHECK(peer_verify(&p2, 2));
	d.remote_addr = old;
	CHECK_EQ(hixl_transfer_sync(cli, name, HIXL_OP_WRITE, &d, 1, 10000, NULL), -ERANGE);
	peer_end(&p2, 0);
	hixl_engine_finalize(cli);
	munmap(la, LEN);
	CHECK_EQ(vm_pin_kb(), pin0);
}

const struct ht_test alive_tests[] = {
	{ "alive_silent_peer", test_alive_silent_peer },
	{ "alive_peer_restart", test_alive_peer_restart },
	{ "alive_peer_restart_auto", test_alive_peer_restart_auto },
	{ NULL, NULL },
};
