// SPDX-License-Identifier: GPL-2.0
/*
 * bench-submit - descriptors per second of small transfers submitted
 * through the TRANSFER ioctl against io_uring URING_CMD, between two
 * engines of this process over rxe0, with no staging pool (4 KiB
 * descriptors go straight to RDMA).
 *
 * Usage: bench-submit [--reps N] [--seconds S] [--depth D] [--out FILE.md]
 *
 * For WRITE and READ and batches of 1, 8, 32 and 256 descriptors of 4 KiB:
 *  - ioctl: one HIXL_IOC_TRANSFER after the other (each waits for its
 *    batch), for S seconds;
 *  - uring: IORING_OP_URING_CMD HIXL_IOC_TRANSFER on a ring with 128-byte
 *    SQEs and 32-byte CQEs, D batches (4) kept in flight, for S seconds.
 * Every measurement counts the descriptors of the batches that completed
 * and divides by the time until the last one did.  The pairs run
 * interleaved (the order alternates per repetition), N (5) repetitions;
 * the table gives medians, min..max and the uring/ioctl ratio of the
 * medians.  Data is verified byte for byte at the end.  Raw figures go to
 * stdout, the table to FILE.md (bench/results-submit.md through
 * bench/bench.sh submit).  Not a test: it asserts no speed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>	/* before raw.h: hixl_raw_uring_cmd() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "raw.h"

#define PIECE		4096
#define MAX_BATCH	256
#define MAX_DEPTH	16
#define MAX_REPS	64
#define NBATCH		4
#define HALF		((size_t)MAX_DEPTH * MAX_BATCH * PIECE)	/* 16 MiB */

static const unsigned int batches[NBATCH] = { 1, 8, 32, 256 };

struct bench {
	int a, b;			/* the engines' fds */
	struct hixl_sockaddr peer;	/* b's name */
	unsigned char *abuf, *bbuf;	/* 2 * HALF each: WRITE half, READ half */
	struct hixl_op_desc *d[2][MAX_DEPTH];	/* [op][slot]: MAX_BATCH each */
	struct io_uring ring;
	int depth;
	double seconds;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(struct hixl_transfer *t, const struct bench *bn, int op,
		 const struct hixl_op_desc *d, unsigned int n, uint64_t tag)
{
	memset(t, 0, sizeof(*t));
	t->remote = bn->peer;
	t->op = op ? HIXL_OP_READ : HIXL_OP_WRITE;
	t->descs = (uintptr_t)d;
	t->count = n;
	t->timeout_ms = 60000;
	t->tag = tag;
}

/* descriptors per second through the ioctl; < 0 on an error */
static double run_ioctl(struct bench *bn, int op, unsigned int n)
{
	double t0 = now_s(), t;
	unsigned long long descs = 0;
	int slot = 0;

	do {
		struct hixl_transfer x;

		fill(&x, bn, op, bn->d[op][slot], n, 0);
		if (ioctl(bn->a, HIXL_IOC_TRANSFER, &x)) {
			perror("bench-submit: TRANSFER ioctl");
			return -1;
		}
		descs += n;
		slot = (slot + 1) % bn->depth;
		t = now_s();
	} while (t - t0 < bn->seconds);
	return descs / (t - t0);
}

static int submit(struct bench *bn, int op, unsigned int n, int slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&bn->ring);
	struct hixl_transfer x;
	int ret;

	if (!sqe)
		return -EBUSY;
	fill(&x, bn, op, bn->d[op][slot], n, slot + 1);
	hixl_raw_uring_cmd(sqe, 128, bn->a, HIXL_IOC_TRANSFER, &x, sizeof(x), slot);
	ret = io_uring_submit(&bn->ring);
	return ret == 1 ? 0 : ret < 0 ? ret : -EAGAIN;
}

/* descriptors per second through URING_CMD, bn->depth batches in flight */
static double run_uring(struct bench *bn, int op, unsigned int n)
{
	double t0 = now_s(), t = t0;
	unsigned long long descs = 0;
	int inflight = 0, ret, err = 0;

	for (int s = 0; s < bn->depth; s++) {
		ret = submit(bn, op, n, s);
		if (ret) {
			fprintf(stderr, "bench-submit: submit: %s\n", strerror(-ret));
			err = 1;
			break;
		}
		inflight++;
	}
	while (inflight) {
		struct io_uring_cqe *cqe;
		int slot, res;

		ret = io_uring_wait_cqe(&bn->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret) {
			fprintf(stderr, "bench-submit: wait: %s\n", strerror(-ret));
			return -1;
		}
		slot = (int)cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&bn->ring, cqe);
		inflight--;
		if (res) {
			fprintf(stderr, "bench-submit: URING_CMD TRANSFER: %s\n", strerror(-res));
			err = 1;
			continue;
		}
		descs += n;
		t = now_s();
		if (!err && t - t0 < bn->seconds) {
			ret = submit(bn, op, n, slot);
			if (ret) {
				fprintf(stderr, "bench-submit: submit: %s\n", strerror(-ret));
				err = 1;
			} else {
				inflight++;
			}
		}
	}
	return err ? -1 : descs / (t - t0);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "median (min..max)"; v is sorted by median() */
static void cell(FILE *f, double *v, int n)
{
	double m = median(v, n);

	fprintf(f, "%.0f (%.0f..%.0f)", m, v[0], v[n - 1]);
}

static void cpu_model(char *buf, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && v) {
			v += 1 + (v[1] == ' ');
			v[strcspn(v, "\n")] = '\0';
			snprintf(buf, len, "%s", v);
			break;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static double res[2][NBATCH][2][MAX_REPS];	/* [op][batch][ioctl, uring][rep] */
	const char *ip = "10.77.0.1", *out = NULL;
	struct io_uring_params p;
	struct hixl_connect c;
	struct hixl_info info;
	struct bench bn;
	struct utsname un;
	char cpu[128];
	int reps = 5, ret, have_uring;
	FILE *f;

	memset(&bn, 0, sizeof(bn));
	bn.depth = 4;
	bn.seconds = 1.0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			bn.seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			bn.depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else
			goto usage;
	}
	if (reps < 1 || reps > MAX_REPS || bn.depth < 1 || bn.depth > MAX_DEPTH ||
	    !(bn.seconds > 0))
		goto usage;

	bn.a = hixl_raw_engine(ip, 17011, 0, 0);
	bn.b = hixl_raw_engine(ip, 17012, 0, 0);
	if (bn.a < 0 || bn.b < 0) {
		fprintf(stderr, "bench-submit: engine setup failed: %s\n",
			strerror(-(bn.a < 0 ? bn.a : bn.b)));
		return 1;
	}
	ret = hixl_dev_get_info(bn.a, &info);
	have_uring = !ret && (info.features & HIXL_FEAT_URING_CMD);
	bn.peer = hixl_raw_name(ip, 17012);
	bn.abuf = mmap(NULL, 2 * HALF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bn.bbuf = mmap(NULL, 2 * HALF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bn.abuf == MAP_FAILED || bn.bbuf == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < HALF; i++) {
		bn.abuf[i] = (unsigned char)(i * 131 + 7);		/* WRITE source */
		bn.bbuf[HALF + i] = (unsigned char)(i * 37 + 3);	/* READ source */
	}
	memset(bn.bbuf, 0, HALF);
	memset(bn.abuf + HALF, 0, HALF);
	if (hixl_raw_reg_host(bn.a, bn.abuf, 2 * HALF) ||
	    hixl_raw_reg_host(bn.b, bn.bbuf, 2 * HALF)) {
		perror("bench-submit: REG_MEM");
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.remote = bn.peer;
	c.timeout_ms = 10000;
	if (ioctl(bn.a, HIXL_IOC_CONNECT, &c)) {
		perror("bench-submit: CONNECT");
		return 1;
	}
	/* slot s of op o: pieces s * MAX_BATCH .. of that op's half, both sides */
	for (int o = 0; o < 2; o++)
		for (int s = 0; s < bn.depth; s++) {
			bn.d[o][s] = calloc(MAX_BATCH, sizeof(struct hixl_op_desc));
			if (!bn.d[o][s])
				return 1;
			for (int i = 0; i < MAX_BATCH; i++) {
				size_t off = o * HALF + ((size_t)s * MAX_BATCH + i) * PIECE;

				bn.d[o][s][i].local_addr = (uintptr_t)(bn.abuf + off);
				bn.d[o][s][i].remote_addr = (uintptr_t)(bn.bbuf + off);
				bn.d[o][s][i].len = PIECE;
			}
		}
	if (have_uring) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
		ret = io_uring_queue_init_params(64, &bn.ring, &p);
		if (ret) {
			fprintf(stderr, "bench-submit: io_uring_queue_init_params: %s\n",
				strerror(-ret));
			have_uring = 0;
		}
	} else {
		fprintf(stderr, "bench-submit: hixl.ko does not offer URING_CMD: ioctl only\n");
	}

	for (int r = 0; r < reps; r++)
		for (int o = 0; o < 2; o++)
			for (int k = 0; k < NBATCH; k++)
				for (int w = 0; w < 2; w++) {
					int m = (w + r) % 2;	/* alternate who goes first */
					double v;

					if (m && !have_uring)
						continue;
					v = m ? run_uring(&bn, o, batches[k]) :
						run_ioctl(&bn, o, batches[k]);
					if (v < 0)
						return 1;
					res[o][k][m][r] = v;
					printf("%s %s %u %.1f\n", m ? "uring" : "ioctl",
					       o ? "read" : "write", batches[k], v);
					fflush(stdout);
				}
	if (memcmp(bn.abuf, bn.bbuf, (size_t)bn.depth * MAX_BATCH * PIECE) ||
	    memcmp(bn.abuf + HALF, bn.bbuf + HALF, (size_t)bn.depth * MAX_BATCH * PIECE)) {
		fprintf(stderr, "bench-submit: data differs after the transfers\n");
		return 1;
	}
	if (!out)
		return 0;
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	uname(&un);
	cpu_model(cpu, sizeof(cpu));
	fprintf(f, "# Submission: TRANSFER ioctl vs io_uring URING_CMD\n\n");
	fprintf(f, "Machine %s (%s), Debian kernel %s (no debug options), QEMU/TCG, Soft-RoCE "
		"rxe0 loopback on a veth with MTU 9000 (`make bench-submit`). Two engines of one "
		"process, staging pool off, batches of 4 KiB descriptors. ioctl: one "
		"HIXL_IOC_TRANSFER after the other; uring: URING_CMD HIXL_IOC_TRANSFER on an "
		"SQE128/CQE32 ring with %d batches in flight. %.1f s per measurement, ioctl and "
		"uring interleaved, %d repetitions. Descriptors per second, median (min..max); "
		"ratio = uring median / ioctl median. Under TCG only the ratio means anything.\n\n",
		un.machine, cpu, un.release, bn.depth, bn.seconds, reps);
	fprintf(f, "| op | batch | ioctl desc/s | uring desc/s | ratio | runs |\n");
	fprintf(f, "|---|---|---|---|---|---|\n");
	for (int o = 0; o < 2; o++)
		for (int k = 0; k < NBATCH; k++) {
			double mi = median(res[o][k][0], reps), mu;

			fprintf(f, "| %s | %u | ", o ? "READ" : "WRITE", batches[k]);
			cell(f, res[o][k][0], reps);
			fprintf(f, " | ");
			if (have_uring) {
				mu = median(res[o][k][1], reps);
				cell(f, res[o][k][1], reps);
				fprintf(f, " | %.2f | %d |\n", mi > 0 ? mu / mi : 0, reps);
			} else {
				fprintf(f, "n/a | n/a | %d |\n", reps);
			}
		}
	fclose(f);
	if (have_uring)
		io_uring_queue_exit(&bn.ring);
	close(bn.a);
	close(bn.b);
	return 0;
usage:
	fprintf(stderr, "usage: bench-submit [--reps N (1..%d)] [--seconds S] [--depth D (1..%d)] "
		"[--out FILE.md]\n", MAX_REPS, MAX_DEPTH);
	return 2;
}
