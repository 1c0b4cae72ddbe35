// SPDX-License-Identifier: GPL-2.0
/*
 * bench-rails.c - one measurement of `make bench-rails`:
 * a large WRITE or READ batch between two engines of this VM over RDMA,
 * with one rail, with two, or with two and the second rail's RDMA device
 * deleted in the middle of the batch.
 *
 *   bench-rails --config one|two|two-down --op write|read [--mib 64]
 *               [--block-kib 1024] [--rep N] [--port 24900]
 *               [--rail1 10.78.0.1] [--netdev veth2] [--rxe rxe1]
 *
 * Engines A (initiator, port) and B (port + 1) on 10.77.0.1 (rxe0 in the
 * test VM), Transport "rdma" (two engines of one kernel would otherwise
 * pair for the same-host copy), BufferPool "0:0" (every descriptor a work
 * request); with "two" and "two-down" both also get the extra rail
 * (option "Rails" = --rail1: SETUP's HIXL_SETUP_RAILS).  A fresh pair per
 * measurement, so a rail taken away cannot leave a later one a broken
 * link.  The timed part is one hixl_transfer_sync() of MIB / BLOCK
 * descriptors of BLOCK bytes, after a 1-block warm-up on the same link.
 *
 * two-down: a thread watches the batch's destination and, once the first
 * bytes of the descriptor a quarter of the way in have landed (a fixed
 * point of the batch, whatever the speed), runs `rdma link delete RXE`
 * (the rail's device goes: its QPs flush at once and the striped batch
 * fails over to rail 0).  In one VM `ip link set NETDEV down` would not
 * do: both engines sit on the same rxe device, whose loopback delivery
 * does not need the netdev.  After the batch `rdma link add RXE type rxe
 * netdev NETDEV`, and a wait (10 s at most) for its port to be ACTIVE.
 *
 * Every destination byte is compared with its source afterwards.
 * Output (stdout), one line each:
 *   res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS   (bench-matrix's shape)
 *   verified REP TOOL OP BYTES_EQUAL BYTES
 *   down REP TOOL OP MS_INTO_BATCH                          (two-down: when it went down)
 *   na REP TOOL OP BLOCK BATCH REASON...                   (the batch failed, or no rails)
 * TOOL is rails-1, rails-2 or rails-2-down.  CPU: the whole VM's busy time
 * from /proc/stat over the batch (rxe works in softirq and kernel threads).
 * Exit status 0 when the batch completed and every byte matched, 1 when
 * it did not, 2 on a usage error, 77 without /dev/hixl or the rails.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "bench_blocks.h"
#include "bench_clock.h"

#define IP	"10.77.0.1"
#define MIB	(1024ULL * 1024)

/* A pseudo-random pattern of seed, never 0 in a block's first byte. */
static void fill(unsigned char *p, size_t len, size_t block, unsigned int seed)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1);

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < len; i += block)
		p[i] |= 1;
}

/* The port of rxe's device on netdev (rxe1 on veth2) ACTIVE?  */
static bool rail_active(const char *netdev)
{
	char cmd[256], line[128] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma link show 2>/dev/null | grep -w 'netdev %s'", netdev);
	f = popen(cmd, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	pclose(f);
	return strstr(line, "state ACTIVE") != NULL;
}

struct downer {
	const unsigned char *watch;	/* the destination byte that says "a quarter in" */
	const char *netdev;
	double t0;			/* the batch's start */
	volatile bool done;		/* the batch returned */
	double down_ms;			/* when the rail went down, ms into the batch; -1: never */
	const char *rxe;		/* the rail's RDMA device, deleted */
	int rc;				/* the `rdma link delete` exit status */
};

static void *downer_run(void *arg)
{
	struct downer *d = arg;
	char cmd[128];

	d->down_ms = -1;
	while (!d->done && !*(volatile const unsigned char *)d->watch)
		usleep(200);
	if (d->done)
		return NULL;	/* the batch ended first: nothing was taken away */
	snprintf(cmd, sizeof(cmd), "rdma link delete %s", d->rxe);
	d->rc = system(cmd);
	d->down_ms = (now_s() - d->t0) * 1000;
	return NULL;
}

static void rail_restore(const char *netdev, const char *rxe)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rdma link add %s type rxe netdev %s", rxe, netdev);
	if (system(cmd))
		fprintf(stderr, "bench-rails: %s failed\n", cmd);
	for (int i = 0; i < 100 && !rail_active(netdev); i++)
		usleep(100 * 1000);
	if (!rail_active(netdev))
		fprintf(stderr, "bench-rails: the rail on %s is not ACTIVE 10 s after re-adding it\n", netdev);
}

static struct hixl_engine *engine(uint16_t port, const char *rails, int *err)
{
	struct hixl_option o[3] = {
		{ HIXL_OPTION_TRANSPORT, "rdma" }, { HIXL_OPTION_BUFFER_POOL, "0:0" },
		{ HIXL_OPTION_RAILS, rails },
	};
	struct hixl_engine *e = NULL;
	char name[64];

	snprintf(name, sizeof(name), IP ":%u", port);
	*err = hixl_engine_init(&e, name, o, rails ? 3 : 2);
	return *err ? NULL : e;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-rails --config one|two|two-down --op write|read [--mib N] "
		"[--block-kib N] [--rep N] [--port P] [--rail1 IP] [--netdev DEV] [--rxe DEV]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", 1, NULL, 'c' }, { "op", 1, NULL, 'o' }, { "mib", 1, NULL, 'm' },
		{ "block-kib", 1, NULL, 'b' }, { "rep", 1, NULL, 'r' }, { "port", 1, NULL, 'p' },
		{ "rail1", 1, NULL, 'R' }, { "netdev", 1, NULL, 'n' }, { "rxe", 1, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *opname = NULL, *rail1 = "10.78.0.1", *netdev = "veth2";
	const char *rxe = "rxe1";
	const char *tool, *rails;
	unsigned long mib = 64, block_kib = 1024, rep = 0, port = 24900;
	struct hixl_engine *a = NULL, *b = NULL;
	struct downer dn = { 0 };
	struct hixl_op_desc *d = NULL;
	struct hixl_mem_desc ma, mb;
	unsigned char *la, *rb, *src, *dst;
	size_t len, block, n, failed = 0, equal = 0;
	double t0, t1, c0, c1;
	enum hixl_op op;
	bool down;
	pthread_t th;
	uint64_t h;
	char peer[64];
	int c, err, ret = 1;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'o': opname = optarg; break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'b': block_kib = strtoul(optarg, NULL, 0); break;
		case 'r': rep = strtoul(optarg, NULL, 0); break;
		case 'p': port = strtoul(optarg, NULL, 0); break;
		case 'R': rail1 = optarg; break;
		case 'n': netdev = optarg; break;
		case 'x': rxe = optarg; break;
		default: usage();
		}
	}
	if (!config || !opname || optind != argc || !mib || mib > 1024 || !block_kib ||
	    (mib * 1024) % block_kib || !port || port > 65534)
		usage();
	if (!strcmp(opname, "write"))
		op = HIXL_OP_WRITE;
	else if (!strcmp(opname, "read"))
		op = HIXL_OP_READ;
	else
		usage();
	if (!strcmp(config, "one"))
		tool = "rails-1", rails = NULL, down = false;
	else if (!strcmp(config, "two"))
		tool = "rails-2", rails = rail1, down = false;
	else if (!strcmp(config, "two-down"))
		tool = "rails-2-down", rails = rail1, down = true;
	else
		usage();
	len = mib * MIB;
	block = block_kib * 1024;
	n = len / block;

	b = engine(port + 1, rails, &err);
	if (b)
		a = engine(port, rails, &err);
	if (!a || !b) {
		printf("na %lu %s %s %zu %zu engine: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		ret = err == -ENOPKG || err == -EOPNOTSUPP || err == -EADDRNOTAVAIL ||
		      err == -ENODEV ? 77 : 1;
		goto out;
	}
	la = bench_map(len);
	rb = bench_map(len);
	d = calloc(n, sizeof(*d));
	if (!la || !rb || !d) {
		fprintf(stderr, "bench-rails: out of memory\n");
		goto out;
	}
	ma = (struct hixl_mem_desc){ .addr = (uintptr_t)la, .len = len };
	mb = (struct hixl_mem_desc){ .addr = (uintptr_t)rb, .len = len };
	if (hixl_register_mem(a, &ma, HIXL_MEM_HOST, &h) ||
	    hixl_register_mem(b, &mb, HIXL_MEM_HOST, &h)) {
		fprintf(stderr, "bench-rails: registration failed\n");
		goto out;
	}
	snprintf(peer, sizeof(peer), IP ":%lu", port + 1);
	err = hixl_connect(a, peer, 10000);
	if (err) {
		printf("na %lu %s %s %zu %zu connect: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		goto out;
	}
	src = op == HIXL_OP_WRITE ? la : rb;
	dst = op == HIXL_OP_WRITE ? rb : la;
	for (size_t i = 0; i < n; i++)
		d[i] = (struct hixl_op_desc){ (uintptr_t)la + i * block, (uintptr_t)rb + i * block,
					      block };
	/* warm-up: one block, then the destination cleared again */
	fill(src, len, block, (unsigned int)rep);
	memset(dst, 0, len);
	err = hixl_transfer_sync(a, peer, op, d, 1, 30000, NULL);
	if (err) {
		printf("na %lu %s %s %zu %zu warm-up: %s\n", rep, tool, opname, block, n,
		       strerror(-err));
		goto out;
	}
	memset(dst, 0, len);

	dn = (struct downer){ .watch = dst + (n / 4) * block, .netdev = netdev,
			      .rxe = rxe };
	c0 = busy_s();
	t0 = now_s();
	dn.t0 = t0;
	if (down && pthread_create(&th, NULL, downer_run, &dn)) {
		fprintf(stderr, "bench-rails: pthread_create failed\n");
		goto out;
	}
	err = hixl_transfer_sync(a, peer, op, d, n, 300000, &failed);
	t1 = now_s();
	c1 = busy_s();
	if (down) {
		dn.done = true;
		pthread_join(th, NULL);
		if (dn.down_ms >= 0)
			rail_restore(netdev, rxe);
		printf("down %lu %s %s %.1f%s\n", rep, tool, opname, dn.down_ms,
		       dn.down_ms < 0 ? " (the batch ended before a quarter was seen landing)" :
		       dn.rc ? " (rdma link delete failed)" : "");
	}
	for (size_t i = 0; i < len; i += block) {
		if (!memcmp(dst + i, src + i, block)) {
			equal += block;
			continue;
		}
		for (size_t k = 0; k < block; k++)
			equal += dst[i + k] == src[i + k];
	}
	printf("verified %lu %s %s %zu %zu\n", rep, tool, opname, equal, len);
	if (err)
		printf("na %lu %s %s %zu %zu transfer: %s (failed descriptor %zu, %.3f s)\n", rep,
		       tool, opname, block, n, strerror(-err), failed, t1 - t0);
	else
		printf("res %lu %s %s %zu %zu %zu %.6f %.3f\n", rep, tool, opname, block, n, len,
		       t1 - t0, c1 - c0);
	ret = !err && equal == len ? 0 : 1;
out:
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	free(d);
	return ret;
}
