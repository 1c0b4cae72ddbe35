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

#define REGION_ADDR	0x200000000000ULL	/* the same on both sides */
#define REGION_LEN	(8ULL << 20)
#define HALF		(REGION_LEN / 2)

static int checks, fails;

static void check(int ok, const char *what)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++checks, what);
	fflush(stdout);
	if (!ok)
		fails++;
}

static void pattern(unsigned char *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)((i * 2654435761u) >> 13) ^ seed;
}

static unsigned char *region(int fd, uint64_t addr)
{
	struct hixl_reg_mem r;
	unsigned char *p = mmap((void *)(uintptr_t)addr, REGION_LEN, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED || (uintptr_t)p != addr)
		return NULL;
	memset(p, 0, REGION_LEN);
	memset(&r, 0, sizeof(r));
	r.addr = addr;
	r.len = REGION_LEN;
	r.type = HIXL_MEM_HOST;
	r.dmabuf_fd = -1;
	return ioctl(fd, HIXL_IOC_REG_MEM, &r) ? NULL : p;
}

static int xfer(int fd, struct hixl_sockaddr peer, uint32_t op, uint64_t local,
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
 * against each other before the tables go out.
 */
static int pair_setup(int fd, const char *ip, int port)
{
	const char *secret = getenv("HIXL_PAIR_SECRET");
	struct hixl_setup s;

	if (!secret || !*secret)
		return hixl_raw_setup(fd, ip, port, 0, 0);
	memset(&s, 0, sizeof(s));
	s.local = hixl_raw_name(ip, port);
	s.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s.flags = HIXL_SETUP_SECRET;
	s.secret = (uintptr_t)secret;
	s.secret_len = strlen(secret);
	printf("# SETUP with an engine secret of %u bytes\n", s.secret_len);
	return ioctl(fd, HIXL_IOC_SETUP, &s) ? -errno : 0;
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
	 * (the two-VM flake of issue 12).
	 */
	p = fd >= 0 ? region(fd, REGION_ADDR) : NULL;
	if (p)
		pattern(p, HALF, 1);
	check(fd >= 0 && !pair_setup(fd, ip, port), "server: engine set up");
	check(p != NULL, "server: 8 MiB registered at the agreed address");
	if (fd < 0 || !p || !n || !want)
		return 1;
	for (int i = 0; i < seconds * 10 && !done; i++) {
		struct hixl_get_notifies g = { .buf = (uintptr_t)n, .max = 8 };

		if (!ioctl(fd, HIXL_IOC_GET_NOTIFIES, &g))
			for (uint32_t k = 0; k < g.count; k++)
				done |= n[k].name_len == 4 && !memcmp(n[k].name, "done", 4);
		usleep(100000);
	}
	check(done, "server: the client said done");
	pattern(want, HALF, 2);
	check(!memcmp(p + HALF, want, HALF), "server: the client's WRITE arrived byte for byte");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
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
	for (int i = 0; i < 60 && ret; i++) {	/* the server VM may still boot */
		ret = ioctl(fd, HIXL_IOC_CONNECT, &c) ? -errno : 0;
		if (ret)
			sleep(1);
	}
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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	if (argc == 5 && !strcmp(argv[1], "server"))
		return server(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), argv[4], atoi(argv[5]));
	fprintf(stderr, "usage: hixl-pair server IP PORT SECONDS | client IP PORT PEER PEER_PORT\n");
	return 2;
}
