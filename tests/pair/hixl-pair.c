// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-pair - the two-VM transfer test (tests/vm/run-pair.sh).
 *
 *   hixl-pair server IP PORT SECONDS   engine on IP:PORT; registers 8 MiB at a
 *                                      fixed address, the first half filled
 *                                      with pattern 1; waits for the client's
 *                                      "done" notification, then checks the
 *                                      second half holds pattern 2
 *   hixl-pair client IP PORT PEER PEER_PORT
 *                                      connects (retrying while the server
 *                                      boots), READs the first half and checks
 *                                      pattern 1, WRITEs pattern 2 into the
 *                                      second half, READs it back, checks,
 *                                      notifies "done"
 *
 *   hixl-pair silent-server IP PORT SECONDS
 *   hixl-pair silent-client IP PORT PEER PEER_PORT
 *                                      a peer that restarts, then falls
 *                                      silent: the client READs and says
 *                                      "ready"; the server closes its engine
 *                                      and sets up a new one of the same name
 *                                      with its region elsewhere (REGION_ADDR2,
 *                                      pattern 3); the client's CONNECT
 *                                      replaces the broken link and the stale
 *                                      table (the new region READs byte for
 *                                      byte, the old address is ERANGE) and it
 *                                      says "restarted"; the server takes its
 *                                      NIC down for SILENT_S (a pulled cable:
 *                                      no CM event reaches the client), and
 *                                      the client's keep-alive must fail the
 *                                      idle link with EHOSTDOWN within the
 *                                      bound (docs/protocol.md "Keep-alive")
 *
 *   hixl-pair rails-server IP IP2 PORT SECONDS
 *   hixl-pair rails-client IP IP2 PORT PEER PEER_PORT
 *                                      two engines on two rails each (IP and
 *                                      IP2), striping and failover across
 *                                      the VMs: tests/pair/pair-rails.c
 *
 * Both print TAP; exit status 0 when every check passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "raw.h"
#include "pair.h"

#define HALF		(REGION_LEN / 2)
#define SILENT_S	10	/* the server's NIC stays down this long */

int checks, fails;

void check(int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++checks, what);
	fflush(stdout);
	if (!ok)
		fails++;
}

void pattern(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)((i * 2654435761u) >> 13) ^ seed;
}

unsigned char *region_of(int fd, uint64_t addr, uint64_t len)
{
	struct hixl_reg_mem r;
	unsigned char *p = mmap((void *)(uintptr_t)addr, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED || (uintptr_t)p != addr)
		return NULL;
	memset(p, 0, len);
	memset(&r, 0, sizeof(r));
	r.addr = addr;
	r.len = len;
	r.type = HIXL_MEM_HOST;
	r.dmabuf_fd = -1;
	return ioctl(fd, HIXL_IOC_REG_MEM, &r) ? NULL : p;
}

unsigned char *region(int fd, uint64_t addr)
{
	return region_of(fd, addr, REGION_LEN);
}

int xfer(int fd, struct hixl_sockaddr peer, uint32_t op, uint64_t local,
		uint64_t remote, uint64_t len)
{
	struct hixl_op_desc d = { local, remote, len };
	struct hixl_transfer t;
	int ret;

	memset(&t, 0, sizeof(t));
	t.remote = peer;
	t.op = op;
	t.descs = (uintptr_t)&d;
	t.count = 1;
	t.timeout_ms = 30000;
	ret = ioctl(fd, HIXL_IOC_TRANSFER, &t) ? -errno : 0;
	if (ret)
		printf("#   %s of %llu bytes: %s (failed descriptor %u)\n",
		       op == HIXL_OP_READ ? "READ" : "WRITE", (unsigned long long)len,
		       strerror(-ret), t.failed);
	return ret;
}

/*
 * SETUP on ip:port, with the engine secret of HIXL_PAIR_SECRET when it is
 * set (run-pair.sh --secret): the two kernels then run the HMAC challenge
 * against each other before the tables go out.  @rail (may be NULL): the
 * engine's second rail's address (HIXL_SETUP_RAILS).
 */
int pair_setup_rails(int fd, const char *ip, int port, const char *rail)
{
	const char *secret = getenv("HIXL_PAIR_SECRET");
	struct hixl_sockaddr r1;
	struct hixl_setup s;

	if ((!secret || !*secret) && !rail)
		return hixl_raw_setup(fd, ip, port, 0, 0);
	memset(&s, 0, sizeof(s));
	s.local = hixl_raw_name(ip, port);
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s.transport = hixl_raw_transport();
	if (secret && *secret) {
		s.flags = HIXL_SETUP_SECRET;
		s.secret = (uintptr_t)secret;
		s.secret_len = strlen(secret);
		printf("# SETUP with an engine secret of %u bytes\n", s.secret_len);
	}
	if (rail) {
		r1 = hixl_raw_name(rail, 0);
		s.flags |= HIXL_SETUP_RAILS;
		s.rails = (uintptr_t)&r1;
		s.nr_rails = 1;
		printf("# SETUP with the second rail %s\n", rail);
	}
	return ioctl(fd, HIXL_IOC_SETUP, &s) ? -errno : 0;
}

int pair_setup(int fd, const char *ip, int port)
{
	return pair_setup_rails(fd, ip, port, NULL);
}

/*
 * What the engine knows when a notification did not come: each link's
 * state and error, the notifications it dropped and the other ones it got
 * meanwhile, as TAP comments (a two-VM run once waited in vain, and its
 * output said nothing more).
 */
static void note_missing(int fd, const char *name, int seconds, unsigned int other)
{
	struct hixl_link_stat st[8];
	struct hixl_link_stats a = { .buf = (uintptr_t)st, .count = 8 };
	struct hixl_stats s = { 0 };

	printf("#   no notification \"%s\" in %d s; %u other(s) came\n", name, seconds, other);
	if (!ioctl(fd, HIXL_IOC_GET_STATS, &s))
		printf("#   notifications dropped: %llu\n", (unsigned long long)s.notify_dropped);
	if (ioctl(fd, HIXL_IOC_LINK_STATS, &a))
		return;
	printf("#   %u link(s)\n", a.total);
	for (uint32_t i = 0; i < a.total && i < 8; i++)
		printf("#   link %u: state %u err %d\n", i, st[i].state, st[i].err);
}

/* Wait up to @seconds for a notification named @name; 1 when it came. */
int wait_note(int fd, const char *name, int seconds, struct hixl_notify *n)
{
	size_t len = strlen(name);
	unsigned int other = 0;

	for (int i = 0; i < seconds * 10; i++) {
		struct hixl_get_notifies g = { .buf = (uintptr_t)n, .max = 8 };

		if (!ioctl(fd, HIXL_IOC_GET_NOTIFIES, &g))
			for (uint32_t k = 0; k < g.count; k++) {
				if (n[k].name_len == len && !memcmp(n[k].name, name, len))
					return 1;
				other++;
			}
		usleep(100000);
	}
	note_missing(fd, name, seconds, other);
	return 0;
}

static int server(const char *ip, int port, int seconds)
{
	struct hixl_notify *n = calloc(8, sizeof(*n));
	unsigned char *p, *want = malloc(HALF);
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC), done = 0;

	/*
	 * Registered and filled before SETUP listens: a client that connects
	 * at once must find the region in our table.  Registered after it, the
	 * region reached the client in a REGION update that could come just
	 * after its CONNECT returned, and its first READ failed with ERANGE
	 * (a two-VM flake once).
	 */
	p = fd >= 0 ? region(fd, REGION_ADDR) : NULL;
	if (p)
		pattern(p, HALF, 1);
	check(fd >= 0 && !pair_setup(fd, ip, port), "server: engine set up");
	check(p != NULL, "server: 8 MiB registered at the agreed address");
	if (fd < 0 || !p || !n || !want)
		return 1;
	done = wait_note(fd, "done", seconds, n);
	check(done, "server: the client said done");
	pattern(want, HALF, 2);
	check(!memcmp(p + HALF, want, HALF), "server: the client's WRITE arrived byte for byte");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}

/* CONNECT to @peer, retrying for up to @seconds; 0 or the last -errno */
int connect_retry(int fd, struct hixl_connect *c, int seconds)
{
	int ret = -1;

	for (int i = 0; i < seconds && ret; i++) {
		ret = ioctl(fd, HIXL_IOC_CONNECT, c) ? -errno : 0;
		if (ret)
			sleep(1);
	}
	if (ret)
		printf("#   CONNECT: %s\n", strerror(-ret));
	return ret;
}

static int client(const char *ip, int port, const char *peer_ip, int peer_port)
{
	struct hixl_sockaddr peer = hixl_raw_name(peer_ip, peer_port);
	struct hixl_connect c = { .remote = peer, .timeout_ms = 2000 };
	struct hixl_send_notify sn = { .remote = peer, .name = (uintptr_t)"done", .name_len = 4 };
	unsigned char *p, *want = malloc(HALF);
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC), ret = -1;

	if (fd >= 0 && pair_setup(fd, ip, port)) {
		close(fd);
		fd = -1;
	}
	check(fd >= 0, "client: engine set up");
	if (fd < 0 || !want)
		return 1;
	p = region(fd, REGION_ADDR);
	check(p != NULL, "client: 8 MiB registered");
	if (!p)
		return 1;
	ret = connect_retry(fd, &c, 60);	/* the server VM may still boot */
	check(ret == 0, "client: connected to the server in the other VM");
	if (ret)
		return 1;
	check(xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR, HALF) == 0,
	      "client: READ 4 MiB from the other kernel");
	pattern(want, HALF, 1);
	check(!memcmp(p, want, HALF), "client: READ data byte for byte");
	pattern(p + HALF, HALF, 2);
	check(xfer(fd, peer, HIXL_OP_WRITE, REGION_ADDR + HALF, REGION_ADDR + HALF, HALF) == 0,
	      "client: WRITE 4 MiB to the other kernel");
	memset(p, 0, HALF);
	check(xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR + HALF, HALF) == 0,
	      "client: READ it back");
	pattern(want, HALF, 2);
	check(!memcmp(p, want, HALF), "client: the round trip byte for byte");
	check(ioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn) == 0, "client: notified the server");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}

double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* `ip link set dev DEV up|down` for the device that holds @ip; 0 or -1 */
int nic_set(const char *ip, const char *updown)
{
	char cmd[256], dev[64] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip -o -4 addr show to %s | awk '{print $2}'", ip);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(dev, sizeof(dev), f))
		dev[0] = 0;
	pclose(f);
	dev[strcspn(dev, "\n")] = 0;
	if (!dev[0])
		return -1;
	snprintf(cmd, sizeof(cmd), "ip link set dev %s %s", dev, updown);
	printf("# %s\n", cmd);
	return system(cmd) == 0 ? 0 : -1;
}

static int silent_server(const char *ip, int port, int seconds)
{
	struct hixl_notify *n = calloc(8, sizeof(*n));
	unsigned char *p;
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	double t0;

	p = fd >= 0 ? region(fd, REGION_ADDR) : NULL;	/* before SETUP: see server() */
	if (p)
		pattern(p, HALF, 1);
	check(fd >= 0 && p && !pair_setup(fd, ip, port), "silent-server: engine set up");
	if (fd < 0 || !p || !n)
		return 1;
	check(wait_note(fd, "ready", seconds, n), "silent-server: the client READ and said ready");
	/* a restart: the engine goes, a new one of the same name comes, its region elsewhere */
	close(fd);
	munmap(p, REGION_LEN);
	fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	p = fd >= 0 ? region(fd, REGION_ADDR2) : NULL;
	if (p)
		pattern(p, HALF, 3);
	check(fd >= 0 && p && !pair_setup(fd, ip, port), "silent-server: restarted under the same name");
	if (fd < 0 || !p)
		return 1;
	check(wait_note(fd, "restarted", seconds, n),
	      "silent-server: the client reconnected, READ the new region and said so");
	/* a pulled cable: nothing reaches the client, no CM event either */
	check(nic_set(ip, "down") == 0, "silent-server: NIC down");
	t0 = now_ms();
	while (now_ms() - t0 < SILENT_S * 1000.0)
		usleep(100000);
	check(nic_set(ip, "up") == 0, "silent-server: NIC up again");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}

/* The state and error of this engine's link to @peer (LINK_STATS); -1 when none. */
static int link_state(int fd, const struct hixl_sockaddr *peer, int *err)
{
	struct hixl_link_stat st[16];
	struct hixl_link_stats a = { .buf = (uintptr_t)st, .count = 16 };

	if (ioctl(fd, HIXL_IOC_LINK_STATS, &a))
		return -1;
	for (uint32_t i = 0; i < a.total && i < 16; i++) {
		if (memcmp(&st[i].peer, peer, sizeof(*peer)))
			continue;
		*err = st[i].err;
		return (int)st[i].state;
	}
	return -1;
}

static unsigned int keepalive_ms(void)
{
	FILE *f = fopen("/sys/module/hixl/parameters/keepalive_ms", "r");
	unsigned int ms = 1000;

	if (f) {
		if (fscanf(f, "%u", &ms) != 1)
			ms = 1000;
		fclose(f);
	}
	return ms;
}

static int silent_client(const char *ip, int port, const char *peer_ip, int peer_port)
{
	struct hixl_sockaddr peer = hixl_raw_name(peer_ip, peer_port);
	struct hixl_connect c = { .remote = peer, .timeout_ms = 2000 };
	struct hixl_send_notify sn = { .remote = peer, .name = (uintptr_t)"ready", .name_len = 5 };
	/* keepalive_ms, then 7 x 537 ms of RC retries (docs/protocol.md) */
	double bound = keepalive_ms() + 7 * 537.0, t0, ms = -1;
	unsigned char *p, *want = malloc(HALF);
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC), ret = -1, st = -1, err = 0;

	if (fd >= 0 && pair_setup(fd, ip, port)) {
		close(fd);
		fd = -1;
	}
	p = fd >= 0 ? region(fd, REGION_ADDR) : NULL;
	check(fd >= 0 && p != NULL && want != NULL, "silent-client: engine set up, 8 MiB registered");
	if (fd < 0 || !p || !want)
		return 1;
	check(connect_retry(fd, &c, 60) == 0 &&
	      xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR, HALF) == 0,
	      "silent-client: connected (the server VM may still be busy), READ 4 MiB");
	pattern(want, HALF, 1);
	check(!memcmp(p, want, HALF), "silent-client: READ data byte for byte");
	check(ioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn) == 0, "silent-client: said ready");
	/* the server restarts: its link breaks; a new CONNECT replaces it */
	for (int i = 0; i < 600; i++) {
		st = link_state(fd, &peer, &err);
		if (st != HIXL_LINK_STATE_READY)
			break;
		usleep(100000);
	}
	printf("#   the link to the restarting server: state %d err %d\n", st, err);
	check(st != HIXL_LINK_STATE_READY, "silent-client: the server's restart broke the link");
	ret = connect_retry(fd, &c, 60);
	check(ret == 0, "silent-client: CONNECT to the restarted server replaced the broken link");
	memset(p, 0, HALF);
	check(!ret && xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR2, HALF) == 0,
	      "silent-client: READ 4 MiB from the restarted server's new region");
	pattern(want, HALF, 3);
	check(!memcmp(p, want, HALF), "silent-client: its data byte for byte");
	check(xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR, 4096) == -ERANGE,
	      "silent-client: the old engine's region is gone from the table (ERANGE)");
	sn.name = (uintptr_t)"restarted";
	sn.name_len = 9;
	check(ioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn) == 0, "silent-client: said so");
	t0 = now_ms();
	/* idle: only the keep-alive can tell that the server went silent */
	while (now_ms() - t0 < 4 * bound + 20000) {
		st = link_state(fd, &peer, &err);
		if (st == HIXL_LINK_STATE_ERROR) {
			ms = now_ms() - t0;
			break;
		}
		usleep(50000);
	}
	printf("#   link state %d err %d after %.0f ms; bound %.0f ms after the server's NIC went down\n",
	       st, err, ms, bound);
	check(st == HIXL_LINK_STATE_ERROR && err == -EHOSTDOWN,
	      "silent-client: the keep-alive failed the link with EHOSTDOWN");
	/* from "restarted" to the NIC down is the server's reaction, not ours: 2 s for it */
	check(ms >= 0 && ms < bound + 2000, "silent-client: detected within the keep-alive bound");
	check(xfer(fd, peer, HIXL_OP_READ, REGION_ADDR, REGION_ADDR2, 4096) == -EHOSTDOWN,
	      "silent-client: a transfer on the broken link fails EHOSTDOWN at once");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (argc == 5 && !strcmp(argv[1], "server"))
		return server(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "silent-server"))
		return silent_server(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "silent-client"))
		return silent_client(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]));
	if (argc == 6 && !strcmp(argv[1], "rails-server"))
		return rails_server(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "rails-client"))
		return rails_client(argv[2], argv[3], atoi(argv[4]), argv[5], atoi(argv[6]));
	fprintf(stderr, "usage: hixl-pair server|silent-server IP PORT SECONDS\n"
		"       hixl-pair client|silent-client IP PORT PEER PEER_PORT\n"
		"       hixl-pair rails-server IP IP2 PORT SECONDS\n"
		"       hixl-pair rails-client IP IP2 PORT PEER PEER_PORT\n");
	return 2;
}
