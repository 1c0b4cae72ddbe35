// SPDX-License-Identifier: GPL-2.0
/*
 * bench-table - what a peer's region table costs a CONNECT: two engines of
 * this process, each with N host registrations of one 4 KiB page, then
 * A's CONNECT to B, which returns once the link is READY, both tables
 * exchanged (docs/protocol.md, "The exchange").  For `make bench-table`
 * (bench/bench-table-guest.sh), from 1 to 10,000 regions per side.
 *
 * Usage: bench-table [--regions N] [--rep N] [--ip ADDR] [--port PORT]
 *
 * Prints one line:
 *   table REP REGIONS CONNECT_MS REG_MS CPU_SECONDS
 * CONNECT_MS: the CONNECT ioctl's wall time; REG_MS: the 2 x N REG_MEMs'
 * wall time; CPU_SECONDS: whole-machine busy time over the CONNECT (as
 * bench-lat.c counts it).  The process needs max_regions >= 2 x N (the
 * guest script raises it).  Exit status 1 and a message on stderr when a
 * call fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hixl/uapi.h>

#include "bench_clock.h"
#include "raw.h"

static int usage(void)
{
	fprintf(stderr, "usage: bench-table [--regions N] [--rep N] [--ip ADDR] [--port PORT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *ip = "10.77.0.1";
	unsigned int port = 17301;
	long regions = 1000, rep = 1;
	double t0, c0, reg_ms, conn_ms, cpu;
	struct hixl_connect c;
	unsigned char *mem;
	size_t len;
	int a, b;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(argv[i], "--regions"))
			regions = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rep"))
			rep = atol(argv[++i]);
		else if (!strcmp(argv[i], "--ip"))
			ip = argv[++i];
		else if (!strcmp(argv[i], "--port"))
			port = (unsigned int)atol(argv[++i]);
		else
			return usage();
	}
	if (regions < 1 || regions > 1000000 || port < 1 || port > 65534)
		return usage();
	a = hixl_raw_engine(ip, (uint16_t)port, 0, 0);
	b = hixl_raw_engine(ip, (uint16_t)(port + 1), 0, 0);
	if (a < 0 || b < 0) {
		fprintf(stderr, "bench-table: engine setup failed: %s\n", strerror(-(a < 0 ? a : b)));
		return 1;
	}
	/* one page per region, a guard page between two: no two adjacent */
	len = (size_t)regions * 2 * 8192;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "bench-table: mmap of %zu bytes: %s\n", len, strerror(errno));
		return 1;
	}
	memset(mem, 0x5a, len);
	t0 = (now_s() * 1000.0);
	for (long i = 0; i < 2 * regions; i++) {
		int ret = hixl_raw_reg_host(i < regions ? a : b, mem + i * 8192, 4096);

		if (ret) {
			fprintf(stderr, "bench-table: REG_MEM %ld of %ld: %s (max_regions?)\n",
				i + 1, 2 * regions, strerror(-ret));
			return 1;
		}
	}
	reg_ms = (now_s() * 1000.0) - t0;
	memset(&c, 0, sizeof(c));
	c.remote = hixl_raw_name(ip, (uint16_t)(port + 1));
	c.timeout_ms = 600000;
	c0 = busy_s();
	t0 = (now_s() * 1000.0);
	if (ioctl(a, HIXL_IOC_CONNECT, &c)) {
		fprintf(stderr, "bench-table: CONNECT with %ld regions a side: %s\n", regions,
			strerror(errno));
		return 1;
	}
	conn_ms = (now_s() * 1000.0) - t0;
	cpu = busy_s() - c0;
	printf("table %ld %ld %.1f %.1f %.3f\n", rep, regions, conn_ms, reg_ms, cpu);
	close(a);
	close(b);
	munmap(mem, len);
	return 0;
}
