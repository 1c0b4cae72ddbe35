// SPDX-License-Identifier: GPL-2.0
/*
 * pair-rails.c - hixl-pair's rails modes: two engines in two VMs, each on
 * two rails (its first NIC's address, which names it, and the second NIC's,
 * HIXL_SETUP_RAILS), across two kernels.
 *
 *   rails-server IP IP2 PORT SECONDS
 *       registers RAILS_LEN at RAILS_ADDR (pattern 6) before SETUP; on the
 *       client's "cut" takes its second NIC down for RAILS_DOWN_S (a pulled
 *       cable on rail 1: no CM event reaches the client), then up again; on
 *       "done" checks that the region holds the client's pattern 7
 *   rails-client IP IP2 PORT PEER PEER_PORT
 *       connects; rail 1 must come up; READs the server's region (pattern
 *       6) and WRITEs pattern 7 in 1 MiB descriptors, each byte for byte;
 *       with the striped data path (HIXL_FEAT_RAIL_STRIPE) both rails must
 *       have moved bytes; says "cut" and WRITEs again and again while the
 *       server's rail 1 goes away: every WRITE must succeed (failover) and
 *       the longest one is printed against the undisturbed one; once the
 *       NIC is back, rail 1 must be made again and carry bytes again; says
 *       "done"
 *
 * Without rail links in the module (HIXL_FEAT_RAIL_LINKS) both sides
 * report SKIP and pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "raw.h"
#include "pair.h"

#define RAILS_ADDR	0x220000000000ULL	/* the same on both sides */
#define RAILS_LEN	(32ULL << 20)
#define RAILS_DESC	(1ULL << 20)		/* descriptors of 1 MiB: striped */
#define RAILS_DOWN_S	8			/* the server's second NIC stays down */


static uint64_t features(int fd)
{
	struct hixl_info info;

	memset(&info, 0, sizeof(info));
	return ioctl(fd, HIXL_IOC_GET_INFO, &info) ? 0 : info.features;
}

/* the whole region in RAILS_DESC descriptors, one TRANSFER; 0 or -errno */
static int xfer_all(int fd, struct hixl_sockaddr peer, uint32_t op, double *ms)
{
	static struct hixl_op_desc d[RAILS_LEN / RAILS_DESC];
	struct hixl_transfer t;
	uint32_t n = RAILS_LEN / RAILS_DESC;
	double t0 = now_ms();
	int ret;

	for (uint32_t i = 0; i < n; i++)
		d[i] = (struct hixl_op_desc){ RAILS_ADDR + i * RAILS_DESC,
					      RAILS_ADDR + i * RAILS_DESC, RAILS_DESC };
	memset(&t, 0, sizeof(t));
	t.remote = peer;
	t.op = op;
	t.descs = (uintptr_t)d;
	t.count = n;
	t.timeout_ms = 60000;
	ret = ioctl(fd, HIXL_IOC_TRANSFER, &t) ? -errno : 0;
	if (ms)
		*ms = now_ms() - t0;
	if (ret)
		printf("#   %s of %llu bytes: %s (failed descriptor %u)\n",
		       op == HIXL_OP_READ ? "READ" : "WRITE", RAILS_LEN, strerror(-ret), t.failed);
	return ret;
}

/*
 * The link's rail 0 and rail 1 entries (LINK_STATS with rails); 0 when
 * both were read, -1 otherwise.
 */
static int rails_stat(int fd, struct hixl_link_stat *r0, struct hixl_link_stat *r1)
{
	struct hixl_link_stat st[4];
	uint32_t total = 0;

	memset(st, 0, sizeof(st));
	if (hixl_dev_link_stats_rails(fd, 0, st, 4, &total) < 2 || st[0].rail || st[1].rail != 1)
		return -1;
	*r0 = st[0];
	*r1 = st[1];
	return 0;
}

/* wait up to @seconds for rail 1 to be READY (@up) or not; 1 when it was */
static int wait_rail1(int fd, int up, int seconds)
{
	struct hixl_link_stat r0, r1;

	for (int i = 0; i < seconds * 20; i++) {
		if (!rails_stat(fd, &r0, &r1) && (r1.state == HIXL_LINK_STATE_READY) == !!up)
			return 1;
		usleep(50000);
	}
	return 0;
}

int rails_server(const char *ip, const char *ip2, int port, int seconds)
{
	struct hixl_notify *n = calloc(8, sizeof(*n));
	unsigned char *p, *want = malloc(RAILS_LEN);
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	double t0;

	if (fd >= 0 && !(features(fd) & HIXL_FEAT_RAIL_LINKS)) {
		printf("ok 1 - # SKIP the module has no rail links (HIXL_FEAT_RAIL_LINKS)\n1..1\n");
		close(fd);
		return 0;
	}
	p = fd >= 0 ? region_of(fd, RAILS_ADDR, RAILS_LEN) : NULL;	/* before SETUP */
	if (p)
		pattern(p, RAILS_LEN, 6);
	check(fd >= 0 && p && !pair_setup_rails(fd, ip, port, ip2),
	      "rails-server: engine on two rails, 32 MiB registered");
	if (fd < 0 || !p || !n || !want)
		return 1;
	check(wait_note(fd, "cut", seconds, n), "rails-server: the client is ready for the cut");
	/* rail 1 goes away under the client's transfers: no CM event reaches it */
	check(nic_set(ip2, "down") == 0, "rails-server: second NIC down");
	t0 = now_ms();
	while (now_ms() - t0 < RAILS_DOWN_S * 1000.0)
		usleep(100000);
	check(nic_set(ip2, "up") == 0, "rails-server: second NIC up again");
	check(wait_note(fd, "done", seconds, n), "rails-server: the client said done");
	pattern(want, RAILS_LEN, 7);
	check(!memcmp(p, want, RAILS_LEN), "rails-server: the client's WRITEs arrived byte for byte");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}

int rails_client(const char *ip, const char *ip2, int port, const char *peer_ip, int peer_port)
{
	struct hixl_sockaddr peer = hixl_raw_name(peer_ip, peer_port);
	struct hixl_connect c = { .remote = peer, .timeout_ms = 5000 };
	struct hixl_send_notify sn = { .remote = peer, .name = (uintptr_t)"cut", .name_len = 3 };
	struct hixl_link_stat r0, r1;
	unsigned char *p, *want = malloc(RAILS_LEN);
	double base = 0, ms, worst = 0, t0;
	int fd = open(HIXL_DEVICE_PATH, O_RDWR | O_CLOEXEC), ok, saw_down = 0, after = 0;
	uint64_t feat = fd >= 0 ? features(fd) : 0;

	if (fd >= 0 && !(feat & HIXL_FEAT_RAIL_LINKS)) {
		printf("ok 1 - # SKIP the module has no rail links (HIXL_FEAT_RAIL_LINKS)\n1..1\n");
		close(fd);
		return 0;
	}
	if (fd >= 0 && pair_setup_rails(fd, ip, port, ip2)) {
		close(fd);
		fd = -1;
	}
	p = fd >= 0 ? region_of(fd, RAILS_ADDR, RAILS_LEN) : NULL;
	check(fd >= 0 && p && want, "rails-client: engine on two rails, 32 MiB registered");
	if (fd < 0 || !p || !want)
		return 1;
	check(connect_retry(fd, &c, 90) == 0, "rails-client: connected to the other VM");
	check(wait_rail1(fd, 1, 20), "rails-client: rail 1 is up (the second NICs)");

	check(xfer_all(fd, peer, HIXL_OP_READ, NULL) == 0, "rails-client: READ 32 MiB");
	pattern(want, RAILS_LEN, 6);
	check(!memcmp(p, want, RAILS_LEN), "rails-client: READ data byte for byte");
	pattern(p, RAILS_LEN, 7);
	check(xfer_all(fd, peer, HIXL_OP_WRITE, &base) == 0, "rails-client: WRITE 32 MiB");
	ok = !rails_stat(fd, &r0, &r1);
	printf("#   rail 0: read %llu write %llu bytes; rail 1: read %llu write %llu bytes;"
	       " one WRITE %.0f ms\n",
	       (unsigned long long)r0.xfer.read_direct_bytes,
	       (unsigned long long)r0.xfer.write_direct_bytes,
	       (unsigned long long)r1.xfer.read_direct_bytes,
	       (unsigned long long)r1.xfer.write_direct_bytes, base);
	if (feat & HIXL_FEAT_RAIL_STRIPE)
		check(ok && r0.xfer.write_direct_bytes && r1.xfer.write_direct_bytes &&
		      r0.xfer.read_direct_bytes && r1.xfer.read_direct_bytes,
		      "rails-client: both rails carried READ and WRITE bytes");
	else
		printf("ok %d - # SKIP no striped data path (HIXL_FEAT_RAIL_STRIPE)\n", ++checks);

	/* the cut: WRITE on while the server's second NIC goes down */
	check(ioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn) == 0, "rails-client: said cut");
	ok = 1;
	t0 = now_ms();
	while (now_ms() - t0 < (RAILS_DOWN_S + 20) * 1000.0 && after < 2) {
		if (xfer_all(fd, peer, HIXL_OP_WRITE, &ms))
			ok = 0;
		if (ms > worst)
			worst = ms;
		if (saw_down)
			after++;
		else if (rails_stat(fd, &r0, &r1) || r1.state != HIXL_LINK_STATE_READY)
			saw_down = 1;
	}
	printf("#   while rail 1 went away: longest WRITE of 32 MiB %.0f ms, undisturbed %.0f ms"
	       " (failover cost about %.0f ms)\n", worst, base, worst - base);
	check(saw_down, "rails-client: rail 1 went down under the transfers");
	if (feat & HIXL_FEAT_RAIL_STRIPE)
		check(ok, "rails-client: every WRITE succeeded while rail 1 died (failover)");
	else
		printf("ok %d - # SKIP no striped data path (HIXL_FEAT_RAIL_STRIPE)\n", ++checks);

	/* the NIC comes back: rail 1 is made again and carries bytes again */
	check(wait_rail1(fd, 1, RAILS_DOWN_S + 30), "rails-client: rail 1 made again");
	check(xfer_all(fd, peer, HIXL_OP_WRITE, NULL) == 0, "rails-client: WRITE 32 MiB after");
	ok = !rails_stat(fd, &r0, &r1);
	printf("#   rail 1 since it came back: write %llu bytes\n",
	       (unsigned long long)r1.xfer.write_direct_bytes);
	if (feat & HIXL_FEAT_RAIL_STRIPE)
		check(ok && r1.xfer.write_direct_bytes, "rails-client: rail 1 carries bytes again");
	sn.name = (uintptr_t)"done";
	sn.name_len = 4;
	check(ioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn) == 0, "rails-client: said done");
	printf("1..%d\n", checks);
	close(fd);
	return fails ? 1 : 0;
}
