/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_kmem.h - the kernel's memory as the benchmarks read it
 * (bench/bench-scale.c): /proc/meminfo's kernel fields (KiB), the slab
 * caches of /proc/slabinfo (KiB; root only) and the RDMA resources of
 * `rdma resource show` (counts over every device), each printed as one
 * raw line whose first fields are "KIND REP".
 */
#ifndef HIXL_BENCH_KMEM_H
#define HIXL_BENCH_KMEM_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* kernel memory counters of /proc/meminfo, KiB */
struct kmem {
	long slab, sunreclaim, pagetables, vmalloc, kstack, percpu;
};

/* *m := the VM's kernel memory now (KiB; -1 for a field not found) */
static inline void kmem_read(struct kmem *m)
{
	static const char *const key[] = { "Slab:", "SUnreclaim:", "PageTables:",
					   "VmallocUsed:", "KernelStack:", "Percpu:" };
	long *v[] = { &m->slab, &m->sunreclaim, &m->pagetables, &m->vmalloc, &m->kstack,
		      &m->percpu };
	FILE *f = fopen("/proc/meminfo", "r");
	char k[64];
	long x;

	for (int i = 0; i < 6; i++)
		*v[i] = -1;
	if (!f)
		return;
	while (fscanf(f, "%63s %ld%*[^\n]", k, &x) == 2)
		for (int i = 0; i < 6; i++)
			if (!strcmp(k, key[i]))
				*v[i] = x;
	fclose(f);
}

/* a "kmem REP WHAT N STAGE SLAB SUNRECLAIM PAGETABLES VMALLOC KSTACK PERCPU"
 * line (KiB), after 200 ms */
static inline void kmem_print(unsigned long rep, const char *what, unsigned long n,
			      const char *stage)
{
	struct kmem m;

	/* let RCU-freed slab objects of what came before go first */
	usleep(200000);
	kmem_read(&m);
	printf("kmem %lu %s %lu %s %ld %ld %ld %ld %ld %ld\n", rep, what, n, stage, m.slab,
	       m.sunreclaim, m.pagetables, m.vmalloc, m.kstack, m.percpu);
}

/* a "rdmares REP N STAGE PD CQ QP CM_ID MR" line: the counts summed over
 * `rdma resource show`'s devices, -1 each without the rdma tool */
static inline void rdma_print(unsigned long rep, unsigned long n, const char *stage)
{
	static const char *const key[] = { "pd", "cq", "qp", "cm_id", "mr" };
	long c[5] = { -1, -1, -1, -1, -1 };
	FILE *f = popen("rdma resource show 2>/dev/null", "r");
	char tok[64], prev[64] = "";

	while (f && fscanf(f, "%63s", tok) == 1) {
		for (int i = 0; i < 5; i++)
			if (!strcmp(prev, key[i]))
				c[i] = (c[i] < 0 ? 0 : c[i]) + atol(tok);
		snprintf(prev, sizeof(prev), "%s", tok);
	}
	if (f)
		pclose(f);
	printf("rdmares %lu %lu %s %ld %ld %ld %ld %ld\n", rep, n, stage, c[0], c[1], c[2], c[3],
	       c[4]);
}

#define MAX_CACHES	1024

/* /proc/slabinfo: each cache's name and KiB (slabs x pages a slab x 4) */
struct slabs {
	int n;
	char name[MAX_CACHES][40];
	long kib[MAX_CACHES];
};

/* *s := the slab caches now; s->n 0 when /proc/slabinfo cannot be read */
static inline void slabs_read(struct slabs *s)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	long pps, slabs;

	s->n = 0;
	while (f && fgets(line, sizeof(line), f) && s->n < MAX_CACHES) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%39s %*d %*d %*d %*d %ld : tunables %*d %*d %*d : "
			   "slabdata %*d %ld", s->name[s->n], &pps, &slabs) != 3)
			continue;
		s->kib[s->n++] = slabs * pps * (sysconf(_SC_PAGESIZE) / 1024);
	}
	if (f)
		fclose(f);
}

/* "slabgrow" lines: the 6 caches of *now that grew most since *then, KiB */
static inline void slabs_print(unsigned long rep, const struct slabs *then,
			       const struct slabs *now, const char *what, unsigned long n)
{
	bool used[MAX_CACHES] = { false };

	for (int k = 0; k < 6; k++) {
		long best = 0, d;
		int bi = -1;

		for (int i = 0; i < now->n; i++) {
			long old = 0;

			for (int j = 0; j < then->n; j++)
				if (!strcmp(then->name[j], now->name[i]))
					old = then->kib[j];
			d = now->kib[i] - old;
			if (!used[i] && d > best) {
				best = d;
				bi = i;
			}
		}
		if (bi < 0)
			return;
		used[bi] = true;
		printf("slabgrow %lu %s %lu %s %ld\n", rep, what, n, now->name[bi], best);
	}
}

#endif
