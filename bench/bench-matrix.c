// SPDX-License-Identifier: GPL-2.0
/*
 * bench-matrix - the measurements behind `make bench` (bench/results.md):
 * WRITE and READ throughput, and what it costs the whole machine in CPU
 * time, of hixl beside perftest and UCX over a grid of block sizes and batch
 * sizes; and the memcpy bandwidth of the machine, the ceiling of a software
 * RDMA device.  It runs in the bench VM (bench/bench-all-guest.sh) and
 * prints raw lines that bench/bench-results.py turns into tables and a plot.
 *
 * Usage:
 *   bench-matrix memcpy [--mib N] [--reps N]
 *   bench-matrix run [--ops write,read] [--blocks KiB,...] [--batches N,...]
 *                    [--tools hixl-sync,hixl-async,perftest,ucx] [--reps N]
 *                    [--min-mib N] [--inflight N] [--ip ADDR] [--dev RDMADEV]
 *                    [--pool N:MB] [--max-msgs N] [--max-batch-mib N]
 *                    [--verbose 1]
 *
 * --blocks: KiB, or bytes with a B suffix (64B,512B,4,32).  --max-msgs caps
 * the messages of a point (tiny blocks would take minutes to reach --min-mib).
 * --max-batch-mib: a point whose one batch (B blocks) is larger is not run,
 * an "na" line per tool says so (make bench: 256, leaving out the 1 GiB
 * batch of 256 x 4 MiB, which took a fifth of the matrix's time).
 *
 * The tools, per point (op, block, batch B); every tool moves the same
 * bytes, max(--min-mib, B blocks, 8 blocks), from one block-sized buffer on
 * one side to one block-sized buffer on the other (perftest and
 * ucx_perftest reuse one message buffer per side; so does hixl here):
 *
 *   hixl-sync   two engines of this process on --ip (the staging pool off:
 *               SETUP pool_buffers=0, pool_buffer_mb=0, so every descriptor
 *               is a direct RDMA op); one HIXL_IOC_TRANSFER ioctl of B
 *               descriptors after the other.
 *   hixl-async  the same engines; the same batches submitted as
 *               IORING_OP_URING_CMD on an IORING_SETUP_SQE128 | CQE32 ring
 *               (liburing 2.3 has no helper: the SQE is filled by hand),
 *               --inflight batches (4) in flight, refilled as CQEs arrive.
 *   hixl-sync-pool, hixl-async-pool
 *               as hixl-sync and hixl-async, on a second pair of engines
 *               whose SETUP has the staging pool of --pool (default 4:8,
 *               HIXL's): the module decides per batch which descriptors
 *               are staged (kmod/xfer.c); not in the default tool list.
 *   perftest    ib_write_bw / ib_read_bw -R (RDMA CM) -d DEV -s BLOCK
 *               -n MESSAGES -t B -l B: B work requests posted with one
 *               ibv_post_send, one completion (CQ moderation = post list),
 *               the next list posted when it completes - a hixl batch.  -N
 *               (no peak computation), -F.  Throughput: its "BW average".
 *   ucx         ucx_perftest -t ucp_put_bw / ucp_get -s BLOCK -n MESSAGES
 *               -O B (at most B operations outstanding, refilled one at a
 *               time) -w min(B, max(1, MESSAGES / 8)) (unmeasured warm-up)
 *               over UCP with the UCX_TLS, UCX_NET_DEVICES,
 *               UCX_IB_GID_INDEX and UCX_MODULES of the environment
 *               (default rc_verbs,ud_verbs / DEV:1 / 2 / ib: RC moves the
 *               data, UD only carries UCP's wire-up, which over rxe works
 *               on the IPv6 GID 2 and times out on GIDs 0 and 1).
 *               Throughput: its "Final" overall bandwidth.
 *
 * Tools are interleaved point by point; their order rotates with the
 * repetition.  Peers run as server and client processes on pseudo-terminals
 * (so their output arrives line by line); a client that finds no listener
 * yet is started again.
 *
 * CPU: whole-machine busy time (user + nice + system + irq + softirq + steal
 * of /proc/stat's "cpu" line: rxe does its work in softirq and kernel
 * threads, not in the caller) while the tool moves its bytes.  hixl: read
 * before and after the timed loop.  Peers: /proc/stat is sampled every 10 ms
 * while they run, and the busy time is interpolated over the interval the
 * tool itself reports as measured (it ends when its result line appears),
 * minus this program's own CPU time in that interval; setup and teardown
 * are thus excluded for every tool alike.
 *
 * Output (stdout), one line per measurement:
 *   memcpy BYTES SECONDS
 *   res REP TOOL OP BLOCK BATCH BYTES SECONDS CPU_SECONDS
 *   na REP TOOL OP BLOCK BATCH REASON...
 *   info KEY VALUE...
 * Progress goes to stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <hixl/uapi.h>

#include "raw.h"

#define KiB		1024UL
#define MiB		(1024 * KiB)
#define MAX_LIST	16
#define HIXL_PORT	17102
#define HIXL_POOL_PORT	17104
#define UCX_PORT	13337

enum { T_SYNC, T_ASYNC, T_PERFTEST, T_UCX, T_SYNC_POOL, T_ASYNC_POOL, T_NR };
static const char *const tool_name[T_NR] = {
	"hixl-sync", "hixl-async", "perftest", "ucx", "hixl-sync-pool", "hixl-async-pool",
};

static struct {
	const char *ip, *dev;
	int ops[2], nops;			/* HIXL_OP_WRITE / HIXL_OP_READ */
	size_t blocks[MAX_LIST];
	int nblocks;
	unsigned int batches[MAX_LIST];
	int nbatches;
	int tools[T_NR], ntools;
	int reps;
	size_t min_bytes;
	unsigned long max_msgs;		/* 0: no cap on messages per point */
	size_t max_batch_bytes;		/* 0: no cap on a batch's bytes */
	unsigned int inflight;
	unsigned int pool_n, pool_mb;	/* the -pool tools' staging pool */
	int verbose;			/* log the peers' output with times to stderr */
} cfg = {
	.ip = "10.77.0.1", .dev = "rxe0",
	.ops = { HIXL_OP_WRITE, HIXL_OP_READ }, .nops = 2,
	.blocks = { 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB }, .nblocks = 6,
	.batches = { 1, 8, 32, 256 }, .nbatches = 4,
	.tools = { T_SYNC, T_ASYNC, T_PERFTEST, T_UCX }, .ntools = 4,
	.reps = 3, .min_bytes = 32 * MiB, .inflight = 4, .pool_n = 4, .pool_mb = 8,
};

static const char *op_name(int op)
{
	return op == HIXL_OP_WRITE ? "write" : "read";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* ---- CPU accounting ------------------------------------------------------------ */

static int stat_fd = -1;
static double clk_tck = 100;

/* Whole-machine busy CPU time so far, seconds (all CPUs summed). */
static double busy_now(void)
{
	unsigned long long v[8] = { 0 };
	char buf[512];
	ssize_t n;

	if (stat_fd < 0) {
		stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
		clk_tck = sysconf(_SC_CLK_TCK);
	}
	n = pread(stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
	       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	/* user nice system [idle iowait] irq softirq steal */
	return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / clk_tck;
}

/* This process's own CPU time so far, seconds. */
static double self_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct sample {
	double t, busy, self;
};

static struct sample *samples;
static size_t nsamples, capsamples;

static void sample(void)
{
	if (nsamples == capsamples) {
		capsamples = capsamples ? 2 * capsamples : 4096;
		samples = realloc(samples, capsamples * sizeof(*samples));
		if (!samples) {
			perror("bench-matrix: realloc");
			exit(1);
		}
	}
	samples[nsamples].t = now_s();
	samples[nsamples].busy = busy_now();
	samples[nsamples].self = self_now();
	nsamples++;
}

/* busy - self at time t, interpolated between the samples around it */
static double sampled_at(double t)
{
	size_t i;
	double f;

	if (!nsamples)
		return 0;
	if (t <= samples[0].t)
		return samples[0].busy - samples[0].self;
	for (i = 1; i < nsamples && samples[i].t < t; i++)
		;
	if (i == nsamples)
		return samples[i - 1].busy - samples[i - 1].self;
	f = (t - samples[i - 1].t) / (samples[i].t - samples[i - 1].t);
	return (samples[i - 1].busy - samples[i - 1].self) * (1 - f) +
	       (samples[i].busy - samples[i].self) * f;
}

/* ---- memcpy -------------------------------------------------------------------- */

static int cmd_memcpy(size_t len, int reps)
{
	unsigned char *src = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *dst = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (src == MAP_FAILED || dst == MAP_FAILED) {
		perror("bench-matrix: mmap");
		return 1;
	}
	for (size_t i = 0; i < len; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	memset(dst, 0, len);
	memcpy(dst, src, len);		/* warm-up: every page touched */
	for (int r = 0; r < reps; r++) {
		double t0 = now_s();

		memcpy(dst, src, len);
		printf("memcpy %zu %.6f\n", len, now_s() - t0);
		fflush(stdout);
		/* keep the copy from being optimised away */
		if (dst[len / 2] != src[len / 2])
			return 1;
	}
	munmap(src, len);
	munmap(dst, len);
	return 0;
}

/* ---- hixl ---------------------------------------------------------------------- */

struct hx {
	int a, b;			/* engine a initiates; b listens on port */
	uint16_t port;
	uint32_t pool_n, pool_mb;	/* both engines' staging pool */
	unsigned char *abuf, *bbuf;
	size_t buflen;
	struct hixl_sockaddr bname;
	struct hixl_op_desc *descs;	/* the batch: every descriptor alike */
	struct io_uring ring;
	int ring_ok;
};

static void hx_close(struct hx *h)
{
	if (h->ring_ok)
		io_uring_queue_exit(&h->ring);
	h->ring_ok = 0;
	if (h->a >= 0)
		close(h->a);
	if (h->b >= 0)
		close(h->b);
	h->a = h->b = -1;
}

/* Two engines, a buffer of buflen registered on each, a connected, a ring. */
static int hx_open(struct hx *h, size_t buflen, unsigned int maxbatch)
{
	struct io_uring_params p;
	struct hixl_connect c;
	int ret;

	h->a = h->b = -1;
	h->ring_ok = 0;
	if (!h->abuf) {
		h->buflen = buflen;
		h->abuf = mmap(NULL, buflen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		h->bbuf = mmap(NULL, buflen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		h->descs = calloc(maxbatch, sizeof(*h->descs));
		if (h->abuf == MAP_FAILED || h->bbuf == MAP_FAILED || !h->descs)
			return -ENOMEM;
		memset(h->abuf, 1, buflen);
		memset(h->bbuf, 2, buflen);
	}
	h->bname = hixl_raw_name(cfg.ip, h->port);
	h->b = hixl_raw_engine(cfg.ip, h->port, h->pool_n, h->pool_mb);
	if (h->b < 0)
		return h->b;
	h->a = hixl_raw_engine(cfg.ip, 0, h->pool_n, h->pool_mb);
	if (h->a < 0)
		return h->a;
	ret = hixl_raw_reg_host(h->a, h->abuf, h->buflen);
	if (!ret)
		ret = hixl_raw_reg_host(h->b, h->bbuf, h->buflen);
	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	c.remote = h->bname;
	c.timeout_ms = 10000;
	if (ioctl(h->a, HIXL_IOC_CONNECT, &c))
		return -errno;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(2 * cfg.inflight, &h->ring, &p);
	if (ret)
		return ret;
	h->ring_ok = 1;
	return 0;
}

static struct hixl_transfer xfer_arg(struct hx *h, int op, unsigned int batch)
{
	struct hixl_transfer t;

	memset(&t, 0, sizeof(t));
	t.remote = h->bname;
	t.op = op;
	t.descs = (uintptr_t)h->descs;
	t.count = batch;
	t.timeout_ms = 600000;
	return t;
}

static void fill_descs(struct hx *h, size_t block, unsigned int batch)
{
	for (unsigned int i = 0; i < batch; i++) {
		h->descs[i].local_addr = (uintptr_t)h->abuf;
		h->descs[i].remote_addr = (uintptr_t)h->bbuf;
		h->descs[i].len = block;
	}
}

/* nb batches, one ioctl after the other */
static int hx_sync(struct hx *h, int op, unsigned int batch, unsigned long nb)
{
	for (unsigned long i = 0; i < nb; i++) {
		struct hixl_transfer t = xfer_arg(h, op, batch);

		if (ioctl(h->a, HIXL_IOC_TRANSFER, &t))
			return -errno;
	}
	return 0;
}

/* nb batches as URING_CMD, up to cfg.inflight in flight */
static int hx_async(struct hx *h, int op, unsigned int batch, unsigned long nb)
{
	struct hixl_transfer t = xfer_arg(h, op, batch);
	unsigned long sent = 0, done = 0;

	while (done < nb) {
		struct __kernel_timespec ts = { .tv_sec = 600 };
		struct io_uring_cqe *cqe;
		int ret, res;
		uint64_t res2;

		while (sent < nb && sent - done < cfg.inflight) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&h->ring);

			if (!sqe)
				break;
			hixl_raw_uring_cmd(sqe, 128, h->a, HIXL_IOC_TRANSFER, &t, sizeof(t), sent);
			sent++;
		}
		ret = io_uring_submit(&h->ring);
		if (ret < 0)
			return ret;
		ret = io_uring_wait_cqe_timeout(&h->ring, &cqe, &ts);
		if (ret)
			return ret;
		res = cqe->res;
		res2 = cqe->big_cqe[0];
		io_uring_cqe_seen(&h->ring, cqe);
		if (res)
			return res;
		if (res2 != batch)
			return -EPROTO;
		done++;
	}
	return 0;
}

/* One WRITE and one READ of a block, checked byte for byte. */
static int hx_verify(struct hx *h)
{
	size_t len = h->buflen;
	int ret;

	for (size_t i = 0; i < len; i++)
		h->abuf[i] = (unsigned char)(i * 131 + 7);
	memset(h->bbuf, 0, len);
	fill_descs(h, len, 1);
	ret = hx_sync(h, HIXL_OP_WRITE, 1, 1);
	if (ret || memcmp(h->abuf, h->bbuf, len))
		return ret ? ret : -EIO;
	for (size_t i = 0; i < len; i++)
		h->bbuf[i] = (unsigned char)(i * 17 + 3);
	ret = hx_async(h, HIXL_OP_READ, 1, 1);
	if (ret || memcmp(h->abuf, h->bbuf, len))
		return ret ? ret : -EIO;
	return 0;
}

/* ---- peers: server and client processes on pseudo-terminals --------------------- */

struct child {
	pid_t pid;
	int fd;				/* pty master; -1 at EOF */
	int status;			/* wait status once reaped, else -1 */
	char buf[4096];
	size_t len;
	char err[256];			/* the first line that reads like an error */
};

static int spawn(struct child *c, char *const argv[])
{
	struct termios tio;
	int m, s;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->status = -1;
	memset(&tio, 0, sizeof(tio));
	cfmakeraw(&tio);
	if (openpty(&m, &s, NULL, &tio, NULL))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		close(m);
		close(s);
		return -errno;
	}
	if (!c->pid) {
		setsid();
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		close(m);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(s);
	fcntl(m, F_SETFD, FD_CLOEXEC);
	fcntl(m, F_SETFL, O_NONBLOCK);
	c->fd = m;
	return 0;
}

static void reap(struct child *c, int block)
{
	int st;

	if (c->pid > 0 && c->status < 0 && waitpid(c->pid, &st, block ? 0 : WNOHANG) == c->pid)
		c->status = st;
}

static void kill_child(struct child *c)
{
	if (c->pid > 0 && c->status < 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	reap(c, 1);
}

static int alive(struct child *c)
{
	reap(c, 0);
	return c->pid > 0 && c->status < 0;
}

typedef int (*line_fn)(void *arg, struct child *c, char *line, double t);

static void note_error(struct child *c, const char *line)
{
	static const char *const words[] = { "ERROR", "rror", "Fatal", "failed", "Failed",
					     "Unable", "Couldn't", "unreachable", "refused",
					     "Unexpected", "exec " };

	if (c->err[0])
		return;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *p;

		if (!strstr(line, words[i]))
			continue;
		/* UCX's log lines: drop the time, host and source prefix */
		p = strstr(line, "UCX  ");
		if (p)
			line = (char *)p;
		while (*line == ' ')
			line++;
		snprintf(c->err, sizeof(c->err), "%.200s", line);
		return;
	}
}

/*
 * Read the children's output line by line, sampling /proc/stat at least
 * every 10 ms, until fn returns non-zero, the child "until" (or, when it is
 * NULL, every child) reached EOF, or the deadline passed (-ETIMEDOUT).
 */
static int pump(struct child **cs, int n, struct child *until, double deadline, line_fn fn,
		void *arg)
{
	for (;;) {
		struct pollfd pfd[4];
		int open_fds = 0, ret;

		for (int i = 0; i < n; i++) {
			pfd[i].fd = cs[i]->fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			open_fds += cs[i]->fd >= 0;
		}
		if (!open_fds || (until && until->fd < 0))
			return 0;
		if (now_s() > deadline)
			return -ETIMEDOUT;
		poll(pfd, n, 10);
		sample();
		for (int i = 0; i < n; i++) {
			struct child *c = cs[i];
			ssize_t r;
			char *nl;

			if (c->fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
			if (r <= 0) {
				if (r < 0 && errno == EAGAIN)
					continue;
				close(c->fd);	/* EIO: the slave side is gone */
				c->fd = -1;
				continue;
			}
			c->len += r;
			c->buf[c->len] = 0;
			while ((nl = memchr(c->buf, '\n', c->len))) {
				*nl = 0;
				if (nl > c->buf && nl[-1] == '\r')
					nl[-1] = 0;
				note_error(c, c->buf);
				if (cfg.verbose)
					progress("\n  %.3f [%d] %s", now_s(), (int)c->pid, c->buf);
				ret = fn ? fn(arg, c, c->buf, now_s()) : 0;
				c->len -= nl + 1 - c->buf;
				memmove(c->buf, nl + 1, c->len + 1);
				if (ret)
					return ret;
			}
			if (c->len == sizeof(c->buf) - 1)	/* a very long line: drop it */
				c->len = 0;
		}
	}
}

struct peer_state {
	struct child *srv;
	int kind;			/* T_PERFTEST or T_UCX */
	size_t block;
	unsigned long msgs;
	int server_ready;
	int have_result;
	double mib_s, secs, t_end;
};

static int split(char *line, char **f, int max)
{
	int n = 0;

	for (char *p = strtok(line, " \t"); p && n < max; p = strtok(NULL, " \t"))
		f[n++] = p;
	return n;
}

static int peer_line(void *arg, struct child *c, char *line, double t)
{
	struct peer_state *ps = arg;
	char copy[4096], *f[12];
	int n;

	if (c == ps->srv) {
		if (strstr(line, "Waiting for client to connect") ||
		    strstr(line, "Waiting for connection")) {
			ps->server_ready = 1;
			return 1;
		}
		return 0;
	}
	snprintf(copy, sizeof(copy), "%s", line);
	n = split(copy, f, 12);
	if (ps->kind == T_PERFTEST) {
		/* " #bytes #iterations BW-peak BW-average MsgRate": MiB/s */
		if (n >= 5 && strtoull(f[0], NULL, 10) == ps->block &&
		    strtoull(f[1], NULL, 10) == ps->msgs) {
			ps->mib_s = atof(f[3]);
			if (ps->mib_s > 0)
				ps->secs = (double)ps->block * ps->msgs / (ps->mib_s * MiB);
			ps->t_end = t;
			ps->have_result = ps->mib_s > 0;
		}
	} else {
		/* "Final: iters p50 avg overall(usec) bw-avg bw-overall(MiB/s) ..." */
		if (n >= 7 && !strcmp(f[0], "Final:")) {
			ps->secs = strtoull(f[1], NULL, 10) * atof(f[4]) / 1e6;
			ps->mib_s = atof(f[6]);
			ps->t_end = t;
			ps->have_result = ps->mib_s > 0 && ps->secs > 0;
		}
	}
	return 0;
}

static char ucx_unavailable[400];
static int ucx_worked, ucx_failed;

/*
 * One peer measurement: the server, then the client (again while it finds
 * no listener), their output parsed.  Prints a res or na line.
 */
static void run_peer(int rep, int kind, int op, size_t block, unsigned int batch,
		     unsigned long msgs)
{
	char s_block[32], s_msgs[32], s_batch[32], s_warm[32];
	char *sargv[24], *cargv[24];
	struct peer_state ps;
	struct child srv, cli;
	char reason[300] = "";
	int n = 0, attempts = 0;
	double deadline, t_start = now_s();

	snprintf(s_block, sizeof(s_block), "%zu", block);
	snprintf(s_msgs, sizeof(s_msgs), "%lu", msgs);
	snprintf(s_batch, sizeof(s_batch), "%u", batch);
	if (kind == T_UCX && ucx_unavailable[0]) {
		printf("na %d %s %s %zu %u %s\n", rep, tool_name[kind], op_name(op), block, batch,
		       ucx_unavailable);
		fflush(stdout);
		return;
	}
	if (kind == T_PERFTEST) {
		sargv[n++] = op == HIXL_OP_WRITE ? "ib_write_bw" : "ib_read_bw";
		sargv[n++] = "-d";
		sargv[n++] = (char *)cfg.dev;
		sargv[n++] = "-R";
		sargv[n++] = "-F";
		sargv[n++] = "-N";
		sargv[n++] = "-s";
		sargv[n++] = s_block;
		sargv[n++] = "-n";
		sargv[n++] = s_msgs;
		sargv[n++] = "-t";
		sargv[n++] = s_batch;
		if (batch > 1) {
			sargv[n++] = "-l";
			sargv[n++] = s_batch;
		}
	} else {
		/* warm-up: a few operations, not measured */
		snprintf(s_warm, sizeof(s_warm), "%lu",
			 msgs / 8 < batch ? (msgs / 8 ? msgs / 8 : 1) : batch);
		sargv[n++] = "ucx_perftest";
		sargv[n++] = "-t";
		sargv[n++] = op == HIXL_OP_WRITE ? "ucp_put_bw" : "ucp_get";
		sargv[n++] = "-s";
		sargv[n++] = s_block;
		sargv[n++] = "-n";
		sargv[n++] = s_msgs;
		sargv[n++] = "-w";
		sargv[n++] = s_warm;
		sargv[n++] = "-O";
		sargv[n++] = s_batch;
	}
	sargv[n] = NULL;
	memcpy(cargv, sargv, sizeof(sargv));
	if (kind == T_PERFTEST) {
		cargv[n] = (char *)cfg.ip;
		cargv[n + 1] = NULL;
	} else {
		/* ucx_perftest: the server's host name comes first */
		memmove(cargv + 2, cargv + 1, n * sizeof(char *));
		cargv[1] = (char *)cfg.ip;
	}

	memset(&ps, 0, sizeof(ps));
	ps.srv = &srv;
	ps.kind = kind;
	ps.block = block;
	ps.msgs = msgs;
	nsamples = 0;
	/* generous: 30 s of start-up plus 4 MiB/s */
	deadline = now_s() + 30 + (double)block * msgs / (4 * MiB);
	if (spawn(&srv, sargv)) {
		snprintf(reason, sizeof(reason), "cannot start %s: %s", sargv[0], strerror(errno));
		goto out;
	}
	{
		struct child *cs[1] = { &srv };

		pump(cs, 1, &srv, now_s() + 30, peer_line, &ps);
	}
	if (!ps.server_ready) {
		snprintf(reason, sizeof(reason), "server did not start: %.200s",
			 srv.err[0] ? srv.err : "no output");
		kill_child(&srv);
		goto out;
	}
	for (;;) {
		struct child *cs[2] = { &srv, &cli };
		int ret;

		/* perftest's banner comes before RDMA CM listens: give it a moment */
		pump(cs, 1, NULL, now_s() + (attempts ? 1.0 : 0.3), NULL, NULL);
		attempts++;
		if (spawn(&cli, cargv)) {
			snprintf(reason, sizeof(reason), "cannot start %s: %s", cargv[0],
				 strerror(errno));
			break;
		}
		ret = pump(cs, 2, &cli, deadline, peer_line, &ps);
		if (ret == -ETIMEDOUT) {
			snprintf(reason, sizeof(reason), "timed out after %.0f s%s%.200s",
				 30 + (double)block * msgs / (4 * MiB), cli.err[0] ? ": " : "",
				 cli.err);
			kill_child(&cli);
			break;
		}
		kill_child(&cli);	/* reaps it: its output ended */
		if (ps.have_result)
			break;
		snprintf(reason, sizeof(reason), "%.200s (exit status %d)",
			 cli.err[0] ? cli.err : srv.err[0] ? srv.err : "no result line",
			 WIFEXITED(cli.status) ? WEXITSTATUS(cli.status) : 128 + WTERMSIG(cli.status));
		/*
		 * Start the client again while the server still waits for one:
		 * it found no listener yet (perftest: a CM reject; UCX: a
		 * refused TCP connection).  Other UCX failures are final.
		 */
		if (attempts >= 5 || !alive(&srv) ||
		    (kind == T_UCX && !strstr(cli.err, "refused")))
			break;
	}
	/* the server ends after the client; give it a little while */
	if (srv.fd >= 0) {
		struct child *cs[1] = { &srv };

		pump(cs, 1, &srv, now_s() + (ps.have_result ? 20 : 2), NULL, NULL);
	}
	kill_child(&srv);
out:
	if (ps.have_result) {
		double cpu = sampled_at(ps.t_end) - sampled_at(ps.t_end - ps.secs);

		printf("res %d %s %s %zu %u %lu %.6f %.4f\n", rep, tool_name[kind], op_name(op),
		       block, batch, block * msgs, ps.secs, cpu);
		progress(" %s %.1f (%.1f s)", tool_name[kind], ps.mib_s, now_s() - t_start);
		if (kind == T_UCX)
			ucx_worked = 1;
	} else {
		printf("na %d %s %s %zu %u %s: %s\n", rep, tool_name[kind], op_name(op), block,
		       batch, kind == T_PERFTEST ? sargv[0] : "ucx_perftest", reason);
		progress(" %s n/a (%s)", tool_name[kind], reason);
		/* UCX that never worked and fails twice will not do better later */
		if (kind == T_UCX && !ucx_worked && ++ucx_failed >= 2)
			snprintf(ucx_unavailable, sizeof(ucx_unavailable),
				 "ucx_perftest: %.300s", reason);
	}
	fflush(stdout);
}

/* ---- the matrix ------------------------------------------------------------------ */

static void run_hixl(struct hx *h, int rep, int tool, int op, size_t block, unsigned int batch,
		     unsigned long msgs)
{
	unsigned long nb = msgs / batch;
	double t0, t1, b0, b1;
	int ret;

	if (h->a < 0) {
		ret = hx_open(h, h->buflen, 256);
		if (ret) {
			printf("na %d %s %s %zu %u engines: %s\n", rep, tool_name[tool],
			       op_name(op), block, batch, strerror(-ret));
			hx_close(h);
			return;
		}
	}
	fill_descs(h, block, batch);
	b0 = busy_now();
	t0 = now_s();
	ret = tool == T_SYNC || tool == T_SYNC_POOL ? hx_sync(h, op, batch, nb) :
						    hx_async(h, op, batch, nb);
	t1 = now_s();
	b1 = busy_now();
	if (ret) {
		printf("na %d %s %s %zu %u TRANSFER: %s\n", rep, tool_name[tool], op_name(op),
		       block, batch, strerror(-ret));
		progress(" %s n/a", tool_name[tool]);
		hx_close(h);		/* a failed batch breaks the link: start again */
	} else {
		printf("res %d %s %s %zu %u %lu %.6f %.4f\n", rep, tool_name[tool], op_name(op),
		       block, batch, block * msgs, t1 - t0, b1 - b0);
		progress(" %s %.1f", tool_name[tool], block * msgs / (t1 - t0) / MiB);
	}
	fflush(stdout);
}

static int cmd_run(void)
{
	size_t maxblock = 0;
	struct hx h, hp;
	int ret, want_pool = 0;

	memset(&h, 0, sizeof(h));
	memset(&hp, 0, sizeof(hp));
	h.port = HIXL_PORT;		/* staging off: every descriptor direct */
	hp.port = HIXL_POOL_PORT;
	hp.pool_n = cfg.pool_n;
	hp.pool_mb = cfg.pool_mb;
	for (int k = 0; k < cfg.ntools; k++)
		want_pool |= cfg.tools[k] == T_SYNC_POOL || cfg.tools[k] == T_ASYNC_POOL;
	for (int i = 0; i < cfg.nblocks; i++)
		if (cfg.blocks[i] > maxblock)
			maxblock = cfg.blocks[i];
	/* UCP over rxe: RC for the data, UD only for the wire-up (DESIGN in the header) */
	setenv("UCX_TLS", "rc_verbs,ud_verbs", 0);
	{
		char nd[64];

		snprintf(nd, sizeof(nd), "%s:1", cfg.dev);
		setenv("UCX_NET_DEVICES", nd, 0);
	}
	setenv("UCX_IB_GID_INDEX", "2", 0);
	/* load only the verbs transports' module: a faster start, the same data path */
	setenv("UCX_MODULES", "ib", 0);
	printf("info env UCX_TLS=%s UCX_NET_DEVICES=%s UCX_IB_GID_INDEX=%s UCX_MODULES=%s\n",
	       getenv("UCX_TLS"), getenv("UCX_NET_DEVICES"), getenv("UCX_IB_GID_INDEX"),
	       getenv("UCX_MODULES"));
	printf("info config reps %d min_bytes %zu inflight %u pool %u:%u max_batch_bytes %zu\n",
	       cfg.reps, cfg.min_bytes, cfg.inflight, cfg.pool_n, cfg.pool_mb, cfg.max_batch_bytes);
	ret = hx_open(&h, maxblock, 256);
	if (!ret)
		ret = hx_verify(&h);
	if (ret) {
		printf("info hixl setup failed: %s\n", strerror(-ret));
		hx_close(&h);
	} else {
		printf("info hixl verify ok\n");
	}
	if (want_pool) {
		ret = hx_open(&hp, maxblock, 256);
		if (!ret)
			ret = hx_verify(&hp);
		printf("info hixl-pool %s%s\n", ret ? "setup failed: " : "verify ok",
		       ret ? strerror(-ret) : "");
		if (ret)
			hx_close(&hp);
	}
	fflush(stdout);
	for (int rep = 1; rep <= cfg.reps; rep++) {
		for (int o = 0; o < cfg.nops; o++) {
			for (int bi = 0; bi < cfg.nblocks; bi++) {
				for (int ci = 0; ci < cfg.nbatches; ci++) {
					size_t block = cfg.blocks[bi];
					unsigned int batch = cfg.batches[ci];
					size_t bytes = cfg.min_bytes;
					unsigned long msgs;

					if (cfg.max_batch_bytes && batch * block > cfg.max_batch_bytes) {
						for (int k = 0; k < cfg.ntools; k++)
							printf("na %d %s %s %zu %u not run: a batch of %zu MiB is over --max-batch-mib %zu\n",
							       rep, tool_name[cfg.tools[k]],
							       op_name(cfg.ops[o]), block, batch,
							       batch * block / MiB,
							       cfg.max_batch_bytes / MiB);
						fflush(stdout);
						continue;
					}
					if (bytes < batch * block)
						bytes = batch * block;
					if (bytes < 8 * block)
						bytes = 8 * block;
					msgs = (bytes + block - 1) / block;
					if (cfg.max_msgs && msgs > cfg.max_msgs)
						msgs = cfg.max_msgs > batch ? cfg.max_msgs : batch;
					msgs = (msgs + batch - 1) / batch * batch;
					progress("[rep %d/%d] %s %zu B x %u:", rep, cfg.reps,
						 op_name(cfg.ops[o]), block, batch);
					for (int k = 0; k < cfg.ntools; k++) {
						int tool = cfg.tools[(k + rep - 1) % cfg.ntools];

						if (tool == T_SYNC || tool == T_ASYNC)
							run_hixl(&h, rep, tool, cfg.ops[o], block,
								 batch, msgs);
						else if (tool == T_SYNC_POOL || tool == T_ASYNC_POOL)
							run_hixl(&hp, rep, tool, cfg.ops[o], block,
								 batch, msgs);
						else
							run_peer(rep, tool, cfg.ops[o], block, batch,
								 msgs);
					}
					progress(" MiB/s\n");
				}
			}
		}
	}
	hx_close(&h);
	hx_close(&hp);
	return 0;
}

/* ---- arguments ------------------------------------------------------------------- */

static int parse_list(const char *s, size_t *out, size_t mult)
{
	int n = 0;
	char *end;

	while (*s && n < MAX_LIST) {
		out[n++] = strtoull(s, &end, 0) * mult;
		if (mult > 1 && end != s && *end == 'B') {	/* bytes */
			out[n - 1] /= mult;
			end++;
		}
		if (end == s || out[n - 1] == 0)
			return -1;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-matrix memcpy [--mib N] [--reps N]\n"
		"       bench-matrix run [--ops write,read] [--blocks KiB,...] [--batches N,...]\n"
		"                        [--tools hixl-sync,hixl-async,perftest,ucx] [--reps N]\n"
		"                        [--min-mib N] [--inflight N] [--ip ADDR] [--dev RDMADEV]\n"
		"                        [--pool N:MB] [--max-msgs N] [--max-batch-mib N] [--verbose 1]\n"
		"  --blocks: KiB, or bytes with a B suffix; tools also hixl-sync-pool,\n"
		"  hixl-async-pool (engines with the --pool staging pool, default 4:8)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t mcp_mib = 256, list[MAX_LIST];
	int mcp_reps = 7, n;

	if (argc < 2)
		usage();
	signal(SIGPIPE, SIG_IGN);
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(o, "--mib")) {
			mcp_mib = strtoul(v, NULL, 0);
		} else if (!strcmp(o, "--reps")) {
			mcp_reps = cfg.reps = atoi(v);
		} else if (!strcmp(o, "--min-mib")) {
			cfg.min_bytes = strtoul(v, NULL, 0) * MiB;
		} else if (!strcmp(o, "--inflight")) {
			cfg.inflight = strtoul(v, NULL, 0);
		} else if (!strcmp(o, "--max-msgs")) {
			cfg.max_msgs = strtoul(v, NULL, 0);
		} else if (!strcmp(o, "--max-batch-mib")) {
			cfg.max_batch_bytes = strtoul(v, NULL, 0) * MiB;
		} else if (!strcmp(o, "--pool")) {
			if (sscanf(v, "%u:%u", &cfg.pool_n, &cfg.pool_mb) != 2)
				usage();
		} else if (!strcmp(o, "--verbose")) {
			cfg.verbose = atoi(v);
		} else if (!strcmp(o, "--ip")) {
			cfg.ip = v;
		} else if (!strcmp(o, "--dev")) {
			cfg.dev = v;
		} else if (!strcmp(o, "--blocks")) {
			n = parse_list(v, cfg.blocks, KiB);
			if (n <= 0)
				usage();
			cfg.nblocks = n;
		} else if (!strcmp(o, "--batches")) {
			n = parse_list(v, list, 1);
			if (n <= 0)
				usage();
			for (int k = 0; k < n; k++) {
				if (list[k] > 256)
					usage();
				cfg.batches[k] = list[k];
			}
			cfg.nbatches = n;
		} else if (!strcmp(o, "--ops")) {
			cfg.nops = 0;
			if (strstr(v, "write"))
				cfg.ops[cfg.nops++] = HIXL_OP_WRITE;
			if (strstr(v, "read"))
				cfg.ops[cfg.nops++] = HIXL_OP_READ;
			if (!cfg.nops)
				usage();
		} else if (!strcmp(o, "--tools")) {
			cfg.ntools = 0;
			for (int t = 0; t < T_NR; t++) {
				const char *p = strstr(v, tool_name[t]);

				/* whole words of the comma-separated list */
				if (p && (p == v || p[-1] == ',') &&
				    (p[strlen(tool_name[t])] == 0 || p[strlen(tool_name[t])] == ','))
					cfg.tools[cfg.ntools++] = t;
			}
			if (!cfg.ntools)
				usage();
		} else {
			usage();
		}
	}
	if (cfg.reps < 1 || cfg.inflight < 1 || cfg.inflight > 64 || !cfg.min_bytes)
		usage();
	if (!strcmp(argv[1], "memcpy"))
		return cmd_memcpy(mcp_mib * MiB, mcp_reps);
	if (!strcmp(argv[1], "run"))
		return cmd_run();
	usage();
	return 2;
}
