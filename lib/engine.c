// SPDX-License-Identifier: MIT
/*
 * engine.c - libhixl-user: the HIXL-style engine API (Initialize, Finalize,
 * RegisterMem, Connect, TransferSync/Async, notifications) over /dev/hixl.
 *
 * One struct hixl_engine owns one open /dev/hixl.  The library keeps, under
 * one mutex per engine (hixl_engine.lock):
 *  - the registration handles (finalize deregisters them);
 *  - the link table: the state of every outgoing link (the module has no
 *    asynchronous CONNECT yet: an asynchronous connect is a detached thread
 *    issuing the blocking ioctl);
 *  - every asynchronous transfer request not freed yet, and the queue of
 *    those not issued yet.
 *
 * Asynchronous transfers take one of two paths, chosen at init for the
 * engine's lifetime (hixl_engine_async_path()):
 *  - io_uring (the normal one): one ring per engine, IORING_SETUP_SQE128 |
 *    IORING_SETUP_CQE32, through liburing (the SQE of a URING_CMD is filled
 *    by hixl_sqe_uring_cmd(): Debian 12's liburing 2.3 has no
 *    io_uring_prep_uring_cmd()).  A request is one URING_CMD
 *    HIXL_IOC_TRANSFER per chunk of HIXL_MAX_DESCS descriptors, submitted
 *    under the lock by the caller (the first chunk) or by the reaper (the
 *    next ones); the reaper thread waits for CQEs (res = 0/-errno,
 *    big_cqe[0] = the failed index) and ends requests.  Each request has a
 *    unique non-zero tag; finalize cancels the running ones with
 *    HIXL_IOC_CANCEL and waits for their CQEs before the ring goes.
 *  - worker threads (the fallback): a pool of 4 threads issuing the
 *    blocking TRANSFER ioctl, when the module lacks HIXL_FEAT_URING_CMD, no
 *    ring can be made, the first URING_CMD (a CANCEL probe at init) fails,
 *    or HIXL_NO_URING is set.
 * A request's descriptor copy lives until the request ends: the kernel may
 * read it late (io_uring's worker threads).
 * No ioctl is ever issued with the mutex held (submitting to the ring is
 * not an ioctl: it never sleeps on the transfer).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>		/* before internal.h: hixl_sqe_uring_cmd() */

#include <hixl/hixl.h>
#include "internal.h"

#define HIXL_ASYNC_WORKERS	4
#define NSEC_PER_MSEC		1000000LL

#define HIXL_RING_SQ		64	/* SQ entries: each submission goes out at once */
#define HIXL_RING_CQ		1024	/* CQ entries: also the URING_CMDs in flight at most */
#define HIXL_WAKE_DATA		0	/* user_data of the NOP that stops the reaper */
#define HIXL_PROBE_DATA		1	/* user_data of the probe at init */
#define HIXL_PROBE_TAG		UINT64_MAX	/* the probe's CANCEL tag: no request has it */
#define HIXL_CANCEL_EVERY_MS	100	/* finalize repeats its CANCELs this often */

/* ---- bookkeeping ------------------------------------------------------------------ */

struct hixl_link {
	struct hixl_link *next;
	struct hixl_sockaddr addr;
	enum hixl_connect_status st;	/* never DISCONNECT_PENDING: see disc_wait */
	int err;			/* CONNECT_FAILED: the connect's -errno */
	int timeout_ms;			/* of the pending asynchronous connect */
	bool disc_wait;			/* a disconnect waits for the connect */
	struct hixl_engine *eng;
};

/* The callbacks an allocation was made with (malloc when alloc is NULL). */
struct hixl_alloc {
	void *obj;
	hixl_alloc_fn alloc;
	hixl_free_fn free;
	hixl_block_addr_fn addr;
};

struct hixl_allocator_desc {
	struct hixl_alloc a;
};

struct hixl_request {
	struct hixl_engine *eng;
	struct hixl_alloc alloc;		/* what descs came from */
	void *block;				/* the allocator's block, or descs */
	struct hixl_request *qnext;		/* the queue, while queued */
	struct hixl_request *prev, *next;	/* every request of the engine */
	struct hixl_sockaddr remote;
	uint32_t op;
	struct hixl_op_desc *descs;		/* the library's copy */
	size_t count;
	long long deadline;			/* CLOCK_MONOTONIC, ns */
	void *user_data;
	uint64_t tag;				/* hixl_transfer.tag, unique, non-zero */
	size_t off;				/* io_uring: descriptors done before the chunk */
	uint32_t chunk;				/* io_uring: descriptors of the chunk in flight */
	enum hixl_transfer_status st;		/* under eng->lock */
	int err;
	size_t failed;
	bool running;				/* in the kernel: URING_CMD or ioctl */
	bool detached;				/* freed by the library when done */
};

/*
 * One io_uring: SQE128, CQE32.  Submitters hold the engine's lock; only the
 * reaper takes CQEs (liburing: one submitter and one reaper at a time).
 */
struct hixl_ring {
	struct io_uring r;
	bool up;
};

struct hixl_engine {
	int fd;
	struct hixl_alloc alloc;	/* the submission queue's allocator, under lock */
	struct hixl_sockaddr local;
	char device[64];
	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;		/* link states, request ends, threads gone */
	pthread_cond_t qcond;		/* queue non-empty, or stopping */
	struct hixl_link *links;
	uint64_t *handles;
	size_t nhandles, cap;
	struct hixl_request *qhead, *qtail;	/* not issued yet */
	struct hixl_request *reqs;
	uint64_t last_tag;
	size_t running;			/* requests with running set */
	pthread_t workers[HIXL_ASYNC_WORKERS];
	int nworkers;
	int connect_threads;		/* detached connect threads alive */
	bool stopping;
	bool uring;			/* the async path: io_uring, else the workers */
	bool reaper_on;			/* the reaper thread was started */
	pthread_t reaper;
	struct hixl_ring ring;		/* when uring; submissions under lock */
};

/* A request's descriptor copy, from the engine's allocator of the moment. */
static int req_descs_alloc(struct hixl_engine *eng, struct hixl_request *r, size_t count)
{
	size_t size = count * sizeof(*r->descs);

	pthread_mutex_lock(&eng->lock);
	r->alloc = eng->alloc;
	pthread_mutex_unlock(&eng->lock);
	if (!r->alloc.alloc) {
		r->block = malloc(size);
		r->descs = r->block;
	} else {
		r->block = r->alloc.alloc(r->alloc.obj, size);
		r->descs = r->block ? r->alloc.addr(r->alloc.obj, r->block) : NULL;
		if (r->block && !r->descs) {
			r->alloc.free(r->alloc.obj, r->block);
			r->block = NULL;
		}
	}
	return r->descs ? 0 : -ENOMEM;
}

/* Give a request's descriptor copy back to the allocator it came from. */
static void req_descs_free(struct hixl_request *r)
{
	if (!r->block)
		return;
	if (r->alloc.alloc)
		r->alloc.free(r->alloc.obj, r->block);
	else
		free(r->block);
	r->block = NULL;
	r->descs = NULL;
}

/*
 * The failed index of a request that ends with err in the library: on
 * -ETIMEDOUT and -ECANCELED the first descriptor not known to be complete
 * (what the kernel reports for them), otherwise no single one: count.
 */
static size_t req_not_done(const struct hixl_request *r, int err)
{
	return err == -ETIMEDOUT || err == -ECANCELED ? r->off : r->count;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void ns_to_ts(long long ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
}

/* whole milliseconds left until deadline, rounded up; <= 0 when past */
static long long ms_left(long long deadline)
{
	long long left = deadline - now_ns();

	return left <= 0 ? 0 : (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return HIXL_SYSCALL_RET(ioctl(fd, cmd, arg));
}

/* ---- io_uring (liburing) ---------------------------------------------------------- */

#define HIXL_RING_WAIT_MS	100	/* the reaper looks at the SQ at least this often */

static void ring_exit(struct hixl_ring *rg)
{
	if (rg->up)
		io_uring_queue_exit(&rg->r);
	rg->up = false;
}

/* An SQE128/CQE32 ring with HIXL_RING_CQ CQEs. */
static int ring_init(struct hixl_ring *rg)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 | IORING_SETUP_CQSIZE;
	p.cq_entries = HIXL_RING_CQ;
	ret = io_uring_queue_init_params(HIXL_RING_SQ, &rg->r, &p);
	rg->up = !ret;
	return ret;
}

/* The next free SQE, or NULL when the SQ is full.  Submitters hold the engine's lock. */
static struct io_uring_sqe *ring_sqe(struct hixl_ring *rg)
{
	return io_uring_get_sqe(&rg->r);
}

/*
 * Submit the SQEs ring_sqe() gave.  Once in the SQ an SQE goes to the
 * kernel whatever happens: when io_uring_enter() fails (no memory, a
 * signal) it stays in the SQ and leaves with the next submission, which
 * the reaper makes at least every HIXL_RING_WAIT_MS (ring_flush()).  So a
 * request whose SQE was taken always gets its CQE.  Engine lock held.
 */
static void ring_submit(struct hixl_ring *rg)
{
	int ret;

	do {
		ret = io_uring_submit(&rg->r);
	} while (ret == -EINTR);
}

/* Push SQEs a failed io_uring_enter() left in the SQ.  Engine lock held. */
static void ring_flush(struct hixl_ring *rg)
{
	if (io_uring_sq_ready(&rg->r))
		ring_submit(rg);
}

/* Take one CQE: false when the CQ is empty.  Only one thread reaps. */
static bool ring_cqe(struct hixl_ring *rg, uint64_t *user_data, int *res, uint64_t *extra)
{
	struct io_uring_cqe *cqe;

	if (io_uring_peek_cqe(&rg->r, &cqe))
		return false;
	*user_data = cqe->user_data;
	*res = cqe->res;
	*extra = cqe->big_cqe[0];
	io_uring_cqe_seen(&rg->r, cqe);
	return true;
}

/*
 * Sleep until a CQE is there (0) or HIXL_RING_WAIT_MS passed (-ETIME);
 * another -errno on failure.
 */
static int ring_wait(struct hixl_ring *rg)
{
	struct __kernel_timespec ts = { .tv_nsec = HIXL_RING_WAIT_MS * NSEC_PER_MSEC };
	struct io_uring_cqe *cqe;
	int ret;

	do {
		ret = io_uring_wait_cqe_timeout(&rg->r, &cqe, &ts);
	} while (ret == -EINTR);
	return ret;
}

/* ---- status codes --------------------------------------------------------------- */

HIXL_EXPORT enum hixl_status hixl_status_from_errno(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return HIXL_SUCCESS;
	case EINVAL: case EOVERFLOW: case EFAULT: case EBADF: case ERANGE:
	case ENOENT: case EACCES: case EAFNOSUPPORT: case EEXIST:
		return HIXL_PARAM_INVALID;
	case ETIMEDOUT:
		return HIXL_TIMEOUT;
	case ENOTCONN:
		return HIXL_NOT_CONNECTED;
	case EISCONN: case EALREADY:
		return HIXL_ALREADY_CONNECTED;
	case ECOMM:
		return HIXL_NOTIFY_FAILED;
	case EOPNOTSUPP: case ENOTTY: case EPROTO:
		return HIXL_UNSUPPORTED;
	case ENOSPC: case E2BIG: case ENOMEM: case EMFILE: case ENFILE:
		return HIXL_RESOURCE_EXHAUSTED;
	default:
		return HIXL_FAILED;
	}
}

HIXL_EXPORT const char *hixl_status_str(enum hixl_status st)
{
	static const char *const names[] = {
		[HIXL_SUCCESS] = "SUCCESS",
		[HIXL_PARAM_INVALID] = "PARAM_INVALID",
		[HIXL_TIMEOUT] = "TIMEOUT",
		[HIXL_NOT_CONNECTED] = "NOT_CONNECTED",
		[HIXL_ALREADY_CONNECTED] = "ALREADY_CONNECTED",
		[HIXL_NOTIFY_FAILED] = "NOTIFY_FAILED",
		[HIXL_UNSUPPORTED] = "UNSUPPORTED",
		[HIXL_RESOURCE_EXHAUSTED] = "RESOURCE_EXHAUSTED",
		[HIXL_FAILED] = "FAILED",
	};

	if ((unsigned int)st >= sizeof(names) / sizeof(names[0]))
		return "UNKNOWN";
	return names[st];
}

/* ---- names -------------------------------------------------------------------- */

/* s: only decimal digits, 1..10 of them, value <= max */
static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	size_t n = 0;

	for (; s[n]; n++) {
		if (s[n] < '0' || s[n] > '9' || n >= 10)
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[n] - '0');
	}
	if (!n || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_name(const char *name, struct hixl_sockaddr *out)
{
	char buf[HIXL_ENGINE_NAME_MAX], *host, *port = NULL, *end;
	struct hixl_sockaddr a;
	unsigned long v;
	size_t len;

	if (!name || !out)
		return -EINVAL;
	len = strnlen(name, sizeof(buf));
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, name, len + 1);
	memset(&a, 0, sizeof(a));
	if (buf[0] == '[') {
		char *scope;

		host = buf + 1;
		end = strchr(host, ']');
		if (!end)
			return -EINVAL;
		*end++ = '\0';
		if (*end == ':')
			port = end + 1;
		else if (*end)
			return -EINVAL;
		scope = strchr(host, '%');
		if (scope) {
			*scope++ = '\0';
			if (!*scope)
				return -EINVAL;
			if (parse_uint(scope, UINT32_MAX, &v) == 0) {
				a.scope_id = (uint32_t)v;
			} else {
				a.scope_id = if_nametoindex(scope);
				if (!a.scope_id)
					return -EINVAL;
			}
		}
		if (inet_pton(AF_INET6, host, a.addr) != 1)
			return -EINVAL;
		a.family = AF_INET6;
	} else {
		host = buf;
		port = strchr(buf, ':');
		if (port) {
			*port++ = '\0';
			if (strchr(port, ':'))	/* an IPv6 address without brackets */
				return -EINVAL;
		}
		if (inet_pton(AF_INET, host, a.addr) != 1)
			return -EINVAL;
		a.family = AF_INET;
	}
	if (port) {
		if (parse_uint(port, 65535, &v))
			return -EINVAL;
		a.port = (uint16_t)v;
	}
	*out = a;
	return 0;
}

HIXL_EXPORT int hixl_parse_engine_name(const char *name, struct hixl_sockaddr *out)
{
	int saved = errno, ret = parse_name(name, out);

	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_format_engine_name(const struct hixl_sockaddr *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN], scope[16] = "", port[8] = "";
	int saved = errno, n;

	if (!addr || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (addr->family != AF_INET && addr->family != AF_INET6)
		return -EAFNOSUPPORT;
	inet_ntop(addr->family, addr->addr, host, sizeof(host));
	errno = saved;
	if (addr->port)
		snprintf(port, sizeof(port), ":%u", addr->port);
	if (addr->family == AF_INET6) {
		if (addr->scope_id)
			snprintf(scope, sizeof(scope), "%%%u", addr->scope_id);
		n = snprintf(buf, len, "[%s%s]%s", host, scope, port);
	} else {
		n = snprintf(buf, len, "%s%s", host, port);
	}
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}

/* ---- init / finalize -------------------------------------------------------------- */

static int parse_tc(const char *s, uint32_t *out)
{
	unsigned long v;

	if (!s || parse_uint(s, 255, &v) || v % 4)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_sl(const char *s, uint32_t *out)
{
	unsigned long v;

	if (!s || parse_uint(s, 7, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_pool(const char *s, uint32_t *n, uint32_t *mb)
{
	char buf[32], *colon;
	unsigned long a, b;

	if (!s || strnlen(s, sizeof(buf)) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (parse_uint(buf, HIXL_MAX_POOL_BUFFERS, &a) ||
	    parse_uint(colon + 1, HIXL_MAX_POOL_BUFFER_MB, &b) || !a != !b)
		return -EINVAL;
	*n = (uint32_t)a;
	*mb = (uint32_t)b;
	return 0;
}

/* the first of two environment variables that is set, or NULL */
static const char *env2(const char *ours, const char *hccl)
{
	const char *v = getenv(ours);

	return v ? v : getenv(hccl);
}

static int setup_options(struct hixl_setup *s, struct hixl_auth_opts *ao,
			 const struct hixl_option *opts, size_t nopts)
{
	bool have_tc = false, have_sl = false;
	const char *v;
	int ret;

	if (nopts && !opts)
		return -EINVAL;
	s->traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	s->service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	s->pool_buffers = HIXL_DEFAULT_POOL_BUFFERS;
	s->pool_buffer_mb = HIXL_DEFAULT_POOL_BUFFER_MB;
	for (size_t i = 0; i < nopts; i++) {
		const char *k = opts[i].key;

		if (!k || !opts[i].value)
			return -EINVAL;
		if (!strcmp(k, HIXL_OPTION_BUFFER_POOL)) {
			if (parse_pool(opts[i].value, &s->pool_buffers, &s->pool_buffer_mb))
				return -EINVAL;
		} else if (!strcmp(k, HIXL_OPTION_RDMA_TRAFFIC_CLASS)) {
			if (parse_tc(opts[i].value, &s->traffic_class))
				return -EINVAL;
			have_tc = true;
		} else if (!strcmp(k, HIXL_OPTION_RDMA_SERVICE_LEVEL)) {
			if (parse_sl(opts[i].value, &s->service_level))
				return -EINVAL;
			have_sl = true;
		} else {
			ret = hixl_auth_option(ao, k, opts[i].value);
			if (ret <= 0)
				return ret ? ret : -EINVAL;	/* malformed, or unknown */
		}
	}
	if (!have_tc && (v = env2("HIXL_RDMA_TC", "HCCL_RDMA_TC")) && parse_tc(v, &s->traffic_class))
		return -EINVAL;
	if (!have_sl && (v = env2("HIXL_RDMA_SL", "HCCL_RDMA_SL")) && parse_sl(v, &s->service_level))
		return -EINVAL;
	ret = hixl_auth_env(ao);
	if (!ret)
		hixl_auth_apply(ao, s);
	return ret;
}

/* Does the module take SETUP's allowed peers and secret?  (An older one: -EINVAL.) */
static int auth_supported(int fd, const struct hixl_setup *s)
{
	struct hixl_info info;
	int ret;

	if (!(s->flags & HIXL_SETUP_FLAGS_ALL))
		return 0;
	ret = hixl_dev_get_info(fd, &info);
	if (ret)
		return ret;
	return info.features & HIXL_FEAT_AUTH ? 0 : -EOPNOTSUPP;
}

/* Once per process: why asynchronous transfers take the worker threads. */
static void say_fallback(const char *why, int err)
{
	static int said;

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "libhixl-user: %s%s%s: asynchronous transfers use worker threads "
		"and the TRANSFER ioctl\n", why, err ? ": " : "", err ? strerror(-err) : "");
}

/* HIXL_NO_URING set to anything but "" or "0" */
static bool uring_disabled(void)
{
	const char *v = getenv("HIXL_NO_URING");

	return v && *v && strcmp(v, "0");
}

/*
 * The first URING_CMD of the ring: a CANCEL of a tag no request has.  It
 * completes at once with the number cancelled (0) where the module takes
 * URING_CMDs; -EOPNOTSUPP (no uring_cmd in the kernel or the module),
 * -EINVAL (an io_uring without URING_CMD) or -ENOTTY otherwise.
 */
static int uring_probe(struct hixl_engine *eng)
{
	struct io_uring_sqe *sqe = ring_sqe(&eng->ring);
	struct hixl_cancel c;
	uint64_t data, extra;
	int ret, res;

	if (!sqe)
		return -EBUSY;
	memset(&c, 0, sizeof(c));
	c.tag = HIXL_PROBE_TAG;
	hixl_sqe_uring_cmd(sqe, eng->fd, HIXL_IOC_CANCEL, &c, sizeof(c), HIXL_PROBE_DATA);
	ring_submit(&eng->ring);
	for (int waits = 0; !ring_cqe(&eng->ring, &data, &res, &extra); waits++) {
		ret = ring_wait(&eng->ring);
		if (ret == -ETIME && waits < 50) {
			ring_flush(&eng->ring);
			continue;
		}
		if (ret)
			return ret;	/* the ring goes: io_uring reaps the probe itself */
	}
	return data != HIXL_PROBE_DATA ? -EPROTO : res < 0 ? res : 0;
}

/* Choose the engine's asynchronous path (see the top of this file). */
static void uring_setup(struct hixl_engine *eng)
{
	struct hixl_info info;
	int ret;

	eng->ring.up = false;
	if (uring_disabled())
		return;		/* asked for: nothing to say */
	ret = hixl_dev_get_info(eng->fd, &info);
	if (ret) {
		say_fallback("GET_INFO failed", ret);
		return;
	}
	if (!(info.features & HIXL_FEAT_URING_CMD)) {
		say_fallback("hixl.ko does not offer io_uring URING_CMD", 0);
		return;
	}
	ret = ring_init(&eng->ring);
	if (ret) {
		say_fallback("io_uring_setup(SQE128 | CQE32) failed", ret);
		return;
	}
	ret = uring_probe(eng);
	if (ret) {
		ring_exit(&eng->ring);
		say_fallback("the first URING_CMD failed", ret);
		return;
	}
	eng->uring = true;
}

static int engine_init(struct hixl_engine **engp, const char *local_engine,
		       const struct hixl_option *opts, size_t nopts)
{
	struct hixl_auth_opts ao = { 0 };
	struct hixl_engine *eng;
	struct hixl_setup s;
	pthread_condattr_t ca;
	int ret, fd;

	if (!engp)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	ret = parse_name(local_engine, &s.local);
	if (ret)
		return ret;
	ret = setup_options(&s, &ao, opts, nopts);
	if (ret) {
		hixl_auth_opts_clear(&ao);
		return ret;
	}
	eng = calloc(1, sizeof(*eng));
	if (!eng) {
		hixl_auth_opts_clear(&ao);
		return -ENOMEM;
	}
	fd = hixl_dev_open(NULL);
	if (fd < 0) {
		hixl_auth_opts_clear(&ao);
		free(eng);
		return fd;
	}
	ret = auth_supported(fd, &s);
	if (!ret)
		ret = xioctl(fd, HIXL_IOC_SETUP, &s);
	hixl_auth_opts_clear(&ao);	/* the kernel has its keyed hash: wipe ours */
	if (ret) {
		close(fd);
		free(eng);
		return ret;
	}
	eng->fd = fd;
	eng->local = s.local;
	memcpy(eng->device, s.device, sizeof(eng->device));
	eng->device[sizeof(eng->device) - 1] = '\0';
	pthread_mutex_init(&eng->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&eng->cond, &ca);
	pthread_cond_init(&eng->qcond, &ca);
	pthread_condattr_destroy(&ca);
	uring_setup(eng);
	*engp = eng;
	return 0;
}

HIXL_EXPORT int hixl_engine_init(struct hixl_engine **eng, const char *local_engine,
				 const struct hixl_option *opts, size_t nopts)
{
	int saved = errno, ret = engine_init(eng, local_engine, opts, nopts);

	errno = saved;
	return ret;
}

static void link_remove(struct hixl_engine *eng, struct hixl_link *l)
{
	struct hixl_link **pp;

	for (pp = &eng->links; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			free(l);
			return;
		}
	}
}

static void req_unlink(struct hixl_engine *eng, struct hixl_request *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		eng->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	req_descs_free(r);
	free(r);
}

static void disconnect_addr(int fd, const struct hixl_sockaddr *addr, int timeout_ms)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = *addr;
	c.timeout_ms = (uint32_t)timeout_ms;
	xioctl(fd, HIXL_IOC_DISCONNECT, &c);
}

static void cancel_tag(int fd, uint64_t tag)
{
	struct hixl_cancel c;

	memset(&c, 0, sizeof(c));
	c.tag = tag;
	xioctl(fd, HIXL_IOC_CANCEL, &c);	/* -ENOTTY from a module without CANCEL */
}

/*
 * Cancel every request running in the kernel (either path) with
 * HIXL_IOC_CANCEL and wait until none is left.  A CANCEL that arrives before
 * its TRANSFER started misses it, so it is repeated every
 * HIXL_CANCEL_EVERY_MS; without CANCEL each ends within its timeout.  Called
 * with eng->lock held and eng->stopping set (nothing new starts); drops it
 * around the ioctls.
 */
static void cancel_running(struct hixl_engine *eng)
{
	while (eng->running) {
		size_t n = 0, max = eng->running;
		uint64_t *tags = malloc(max * sizeof(*tags));
		struct hixl_request *r;
		struct timespec ts;

		for (r = eng->reqs; tags && r && n < max; r = r->next)
			if (r->running)
				tags[n++] = r->tag;
		pthread_mutex_unlock(&eng->lock);
		for (size_t i = 0; i < n; i++)
			cancel_tag(eng->fd, tags[i]);
		free(tags);
		pthread_mutex_lock(&eng->lock);
		ns_to_ts(now_ns() + HIXL_CANCEL_EVERY_MS * NSEC_PER_MSEC, &ts);
		while (eng->running &&
		       pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) != ETIMEDOUT)
			;
	}
}

/* Stop the reaper: a NOP whose CQE it reads as "exit".  eng->lock held. */
static void reaper_stop(struct hixl_engine *eng)
{
	for (;;) {
		struct io_uring_sqe *sqe = ring_sqe(&eng->ring);

		if (sqe) {
			memset(sqe, 0, HIXL_SQE128_BYTES);
			sqe->opcode = IORING_OP_NOP;
			sqe->user_data = HIXL_WAKE_DATA;
			ring_submit(&eng->ring);
			return;
		}
		pthread_mutex_unlock(&eng->lock);	/* the SQ is full: try again */
		usleep(1000);
		pthread_mutex_lock(&eng->lock);
	}
}

HIXL_EXPORT void hixl_engine_finalize(struct hixl_engine *eng)
{
	struct hixl_request *r;
	int saved = errno;

	if (!eng)
		return;
	pthread_mutex_lock(&eng->lock);
	eng->stopping = true;
	while (eng->connect_threads)
		pthread_cond_wait(&eng->cond, &eng->lock);
	for (r = eng->qhead; r; r = r->qnext) {
		r->st = HIXL_TRANSFER_FAILED;
		r->err = -ECANCELED;
		r->failed = req_not_done(r, -ECANCELED);
	}
	eng->qhead = eng->qtail = NULL;
	pthread_cond_broadcast(&eng->qcond);
	cancel_running(eng);
	if (eng->reaper_on)
		reaper_stop(eng);
	pthread_mutex_unlock(&eng->lock);
	for (int i = 0; i < eng->nworkers; i++)
		pthread_join(eng->workers[i], NULL);
	if (eng->reaper_on)
		pthread_join(eng->reaper, NULL);
	if (eng->uring)
		ring_exit(&eng->ring);

	/* no other thread is left: no lock needed from here on */
	while (eng->links) {
		if (eng->links->st == HIXL_CONNECTED)
			disconnect_addr(eng->fd, &eng->links->addr, 1000);
		link_remove(eng, eng->links);
	}
	for (size_t i = 0; i < eng->nhandles; i++) {
		struct hixl_dereg_mem d;

		memset(&d, 0, sizeof(d));
		d.handle = eng->handles[i];
		xioctl(eng->fd, HIXL_IOC_DEREG_MEM, &d);
	}
	free(eng->handles);
	while (eng->reqs)
		req_unlink(eng, eng->reqs);
	close(eng->fd);
	pthread_cond_destroy(&eng->qcond);
	pthread_cond_destroy(&eng->cond);
	pthread_mutex_destroy(&eng->lock);
	free(eng);
	errno = saved;
}

HIXL_EXPORT int hixl_engine_caps(struct hixl_engine *eng, struct hixl_info *info)
{
	if (!eng || !info)
		return -EINVAL;
	return hixl_dev_get_info(eng->fd, info);
}

HIXL_EXPORT int hixl_engine_async_path(const struct hixl_engine *eng)
{
	if (!eng)
		return -EINVAL;
	return eng->uring ? HIXL_ASYNC_URING : HIXL_ASYNC_THREADS;
}

HIXL_EXPORT int hixl_engine_fd(const struct hixl_engine *eng)
{
	return eng ? eng->fd : -EINVAL;
}

HIXL_EXPORT const char *hixl_engine_device(const struct hixl_engine *eng)
{
	return eng ? eng->device : "";
}

/* ---- memory -------------------------------------------------------------------- */

static int handles_reserve(struct hixl_engine *eng)
{
	uint64_t *h;
	size_t cap;

	if (eng->nhandles < eng->cap)
		return 0;
	cap = eng->cap ? eng->cap * 2 : 16;
	h = realloc(eng->handles, cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	eng->handles = h;
	eng->cap = cap;
	return 0;
}

HIXL_EXPORT int hixl_register_mem(struct hixl_engine *eng, const struct hixl_mem_desc *desc,
				  enum hixl_mem_type type, uint64_t *handle)
{
	struct hixl_reg_mem r;
	int saved = errno, ret;

	if (!eng || !desc || !handle)
		return -EINVAL;
	if (type != HIXL_MEM_TYPE_HOST && type != HIXL_MEM_TYPE_DEVICE)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.addr = desc->addr;
	r.len = desc->len;
	r.type = type;
	r.flags = desc->flags;
	r.dmabuf_fd = type == HIXL_MEM_TYPE_DEVICE ? desc->dmabuf_fd : -1;
	r.dmabuf_offset = type == HIXL_MEM_TYPE_DEVICE ? desc->dmabuf_offset : 0;
	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		goto out;
	ret = xioctl(eng->fd, HIXL_IOC_REG_MEM, &r);
	if (ret)
		goto out;
	pthread_mutex_lock(&eng->lock);
	ret = handles_reserve(eng);	/* a concurrent call may have used the room */
	if (!ret)
		eng->handles[eng->nhandles++] = r.handle;
	pthread_mutex_unlock(&eng->lock);
	if (ret) {
		struct hixl_dereg_mem d;

		memset(&d, 0, sizeof(d));
		d.handle = r.handle;
		xioctl(eng->fd, HIXL_IOC_DEREG_MEM, &d);
		goto out;
	}
	*handle = r.handle;
out:
	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_deregister_mem(struct hixl_engine *eng, uint64_t handle)
{
	struct hixl_dereg_mem d;
	int ret;

	if (!eng)
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	d.handle = handle;
	ret = xioctl(eng->fd, HIXL_IOC_DEREG_MEM, &d);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < eng->nhandles; i++) {
		if (eng->handles[i] == handle) {
			eng->handles[i] = eng->handles[--eng->nhandles];
			break;
		}
	}
	pthread_mutex_unlock(&eng->lock);
	return 0;
}

/* ---- links ------------------------------------------------------------------------- */

static struct hixl_link *link_find(struct hixl_engine *eng, const struct hixl_sockaddr *a)
{
	struct hixl_link *l;

	for (l = eng->links; l; l = l->next)
		if (!memcmp(&l->addr, a, sizeof(*a)))
			return l;
	return NULL;
}

static int connect_ioctl(int fd, const struct hixl_sockaddr *addr, int timeout_ms)
{
	struct hixl_connect c;

	memset(&c, 0, sizeof(c));
	c.remote = *addr;
	c.timeout_ms = (uint32_t)timeout_ms;
	return xioctl(fd, HIXL_IOC_CONNECT, &c);
}

/*
 * A new link entry for a connect to addr, or an error when one is in the
 * way.  Called with eng->lock held.  A CONNECT_FAILED entry is reused.
 */
static int link_start(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
		      enum hixl_connect_status st, struct hixl_link **out)
{
	struct hixl_link *l = link_find(eng, addr);

	if (eng->stopping)
		return -ESHUTDOWN;
	if (l) {
		if (l->st == HIXL_CONNECTED)
			return -EISCONN;
		if (l->st != HIXL_CONNECT_FAILED)
			return -EALREADY;
	} else {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
		l->addr = *addr;
		l->eng = eng;
		l->next = eng->links;
		eng->links = l;
	}
	l->st = st;
	l->err = 0;
	l->disc_wait = false;
	*out = l;
	return 0;
}

/* The checks every connect makes: an engine, a timeout, a listening peer. */
static int connect_args(struct hixl_engine *eng, const char *remote, int timeout_ms,
			struct hixl_sockaddr *addr)
{
	int ret;

	if (!eng || timeout_ms <= 0)
		return -EINVAL;
	ret = parse_name(remote, addr);
	if (ret)
		return ret;
	return addr->port ? 0 : -EINVAL;
}

static int do_connect(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int ret;

	ret = connect_args(eng, remote, timeout_ms, &addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	ret = link_start(eng, &addr, HIXL_CONNECTING, &l);
	pthread_mutex_unlock(&eng->lock);
	if (ret)
		return ret;
	ret = connect_ioctl(eng->fd, &addr, timeout_ms);
	pthread_mutex_lock(&eng->lock);
	if (ret)
		link_remove(eng, l);
	else
		l->st = HIXL_CONNECTED;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_connect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms)
{
	int saved = errno, ret = do_connect(eng, remote_engine, timeout_ms);

	errno = saved;
	return ret;
}

static void *connect_thread(void *arg)
{
	struct hixl_link *l = arg;
	struct hixl_engine *eng = l->eng;
	int ret;

	pthread_mutex_lock(&eng->lock);
	l->st = HIXL_CONNECTING;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	ret = connect_ioctl(eng->fd, &l->addr, l->timeout_ms);
	pthread_mutex_lock(&eng->lock);
	l->st = ret ? HIXL_CONNECT_FAILED : HIXL_CONNECTED;
	l->err = ret;
	eng->connect_threads--;
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);	/* eng may be freed from here on */
	return NULL;
}

static int do_connect_async(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	pthread_attr_t attr;
	pthread_t t;
	int ret;

	ret = connect_args(eng, remote, timeout_ms, &addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	ret = link_start(eng, &addr, HIXL_CONNECT_PENDING, &l);
	if (ret)
		goto out;
	l->timeout_ms = timeout_ms;
	eng->connect_threads++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&t, &attr, connect_thread, l);
	pthread_attr_destroy(&attr);
	if (ret) {
		eng->connect_threads--;
		link_remove(eng, l);
	}
out:
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_connect_async(struct hixl_engine *eng, const char *remote_engine,
				   int timeout_ms)
{
	int saved = errno, ret = do_connect_async(eng, remote_engine, timeout_ms);

	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_get_connect_status(struct hixl_engine *eng, const char *remote_engine,
					enum hixl_connect_status *st)
{
	struct hixl_sockaddr addr;
	struct hixl_link *l;
	int saved = errno, ret;

	if (!eng || !st)
		return -EINVAL;
	ret = parse_name(remote_engine, &addr);
	errno = saved;
	if (ret)
		return ret;
	pthread_mutex_lock(&eng->lock);
	l = link_find(eng, &addr);
	if (!l) {
		*st = HIXL_NOT_CONNECT;
	} else if (l->disc_wait) {
		*st = HIXL_DISCONNECT_PENDING;
	} else {
		*st = l->st;
		if (l->st == HIXL_CONNECT_FAILED)
			ret = l->err;
	}
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

static int do_disconnect(struct hixl_engine *eng, const char *remote, int timeout_ms)
{
	long long deadline = now_ns() + timeout_ms * NSEC_PER_MSEC;
	struct hixl_sockaddr addr;
	struct hixl_connect c;
	struct hixl_link *l;
	struct timespec ts;
	int ret;

	if (!eng || timeout_ms <= 0)
		return -EINVAL;
	ret = parse_name(remote, &addr);
	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	c.remote = addr;
	c.timeout_ms = (uint32_t)timeout_ms;
	pthread_mutex_lock(&eng->lock);
	l = link_find(eng, &addr);
	if (!l) {
		/* not ours: maybe a link a peer made to us; the module knows */
		pthread_mutex_unlock(&eng->lock);
		return xioctl(eng->fd, HIXL_IOC_DISCONNECT, &c);
	}
	if (l->disc_wait || l->st == HIXL_DISCONNECTING) {
		ret = -EALREADY;
		goto out;
	}
	if (l->st == HIXL_CONNECT_PENDING || l->st == HIXL_CONNECTING) {
		l->disc_wait = true;
		ns_to_ts(deadline, &ts);
		while (l->st == HIXL_CONNECT_PENDING || l->st == HIXL_CONNECTING) {
			if (pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT &&
			    (l->st == HIXL_CONNECT_PENDING || l->st == HIXL_CONNECTING)) {
				l->disc_wait = false;
				ret = -ETIMEDOUT;
				goto out;
			}
		}
		l->disc_wait = false;
	}
	if (l->st != HIXL_CONNECTED) {		/* CONNECT_FAILED */
		link_remove(eng, l);
		ret = -ENOTCONN;
		goto out;
	}
	l->st = HIXL_DISCONNECTING;
	pthread_mutex_unlock(&eng->lock);
	ret = xioctl(eng->fd, HIXL_IOC_DISCONNECT, &c);
	pthread_mutex_lock(&eng->lock);
	if (!ret || ret == -ENOTCONN)
		link_remove(eng, l);
	else
		l->st = HIXL_CONNECTED;
out:
	pthread_cond_broadcast(&eng->cond);
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_disconnect(struct hixl_engine *eng, const char *remote_engine, int timeout_ms)
{
	int saved = errno, ret = do_disconnect(eng, remote_engine, timeout_ms);

	errno = saved;
	return ret;
}

/* ---- transfers ---------------------------------------------------------------------- */

/* The TRANSFER argument of descriptors off..off+n of a batch. */
static void transfer_fill(struct hixl_transfer *t, const struct hixl_sockaddr *remote,
			  uint32_t op, const struct hixl_op_desc *descs, size_t n,
			  long long left_ms, uint64_t tag)
{
	memset(t, 0, sizeof(*t));
	t->remote = *remote;
	t->op = op;
	t->descs = (uintptr_t)descs;
	t->count = (uint32_t)n;
	t->timeout_ms = left_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)left_ms;
	t->tag = tag;
}

/* descriptors of the chunk starting at off: at most HIXL_MAX_DESCS */
static size_t chunk_len(size_t count, size_t off)
{
	return count - off < HIXL_MAX_DESCS ? count - off : HIXL_MAX_DESCS;
}

/* The batch in chunks of HIXL_MAX_DESCS under one deadline, with ioctls. */
static int transfer(int fd, const struct hixl_sockaddr *remote, uint32_t op,
		    const struct hixl_op_desc *descs, size_t count, long long deadline,
		    uint64_t tag, size_t *failed)
{
	size_t off = 0;

	while (off < count) {
		size_t n = chunk_len(count, off);
		long long left = ms_left(deadline);
		struct hixl_transfer t;
		int ret;

		if (left <= 0) {
			*failed = off;	/* the first descriptor not known to be done */
			return -ETIMEDOUT;
		}
		transfer_fill(&t, remote, op, descs + off, n, left, tag);
		ret = xioctl(fd, HIXL_IOC_TRANSFER, &t);
		if (ret) {
			*failed = t.failed < n ? off + t.failed : count;
			return ret;
		}
		off += n;
	}
	*failed = count;
	return 0;
}

static int transfer_args(struct hixl_engine *eng, const char *remote, enum hixl_op op,
			 const struct hixl_op_desc *descs, size_t count, int timeout_ms,
			 struct hixl_sockaddr *addr)
{
	if (!eng || !descs || !count || timeout_ms <= 0)
		return -EINVAL;
	if (op != HIXL_READ && op != HIXL_WRITE)
		return -EINVAL;
	return parse_name(remote, addr);
}

/*
 * Synchronous transfers stay on the ioctl on purpose: it is one syscall
 * that returns when the batch ended, through the same kernel transfer
 * queue (xq.c) as a URING_CMD; a ring would add a submission and a wait.
 */
HIXL_EXPORT int hixl_transfer_sync(struct hixl_engine *eng, const char *remote_engine,
				   enum hixl_op op, const struct hixl_op_desc *descs, size_t count,
				   int timeout_ms, size_t *failed_index)
{
	long long deadline = now_ns() + timeout_ms * NSEC_PER_MSEC;
	struct hixl_sockaddr addr;
	int saved = errno, ret;
	size_t failed = count;

	ret = transfer_args(eng, remote_engine, op, descs, count, timeout_ms, &addr);
	if (!ret)
		ret = transfer(eng->fd, &addr, op, descs, count, deadline, 0, &failed);
	if (failed_index)
		*failed_index = failed;
	errno = saved;
	return ret;
}

/*
 * A request has ended: its result, its state, and the library frees it
 * when its owner already let it go.  Called with eng->lock held.
 */
static void req_end(struct hixl_engine *eng, struct hixl_request *r, int err, size_t failed)
{
	r->err = err;
	r->failed = failed;
	r->st = !err ? HIXL_TRANSFER_COMPLETED :
		err == -ETIMEDOUT ? HIXL_TRANSFER_TIMEOUT : HIXL_TRANSFER_FAILED;
	if (r->detached)
		req_unlink(eng, r);
}

/* Append a request to the queue of those not issued yet.  eng->lock held. */
static void req_enqueue(struct hixl_engine *eng, struct hixl_request *r)
{
	if (eng->qtail)
		eng->qtail->qnext = r;
	else
		eng->qhead = r;
	eng->qtail = r;
}

static struct hixl_request *req_dequeue(struct hixl_engine *eng)
{
	struct hixl_request *r = eng->qhead;

	if (r) {
		eng->qhead = r->qnext;
		if (!eng->qhead)
			eng->qtail = NULL;
		r->qnext = NULL;
	}
	return r;
}

/* ---- the io_uring path ---- */

/*
 * Issue the request's chunk at r->off as a URING_CMD TRANSFER with the time
 * left.  Return: 0 (its CQE will come); -ETIMEDOUT when the deadline
 * passed; -EBUSY when the SQ is full (it is not: one SQE at a time).
 * Called with eng->lock held.
 */
static int uring_issue(struct hixl_engine *eng, struct hixl_request *r)
{
	size_t n = chunk_len(r->count, r->off);
	long long left = ms_left(r->deadline);
	struct io_uring_sqe *sqe;
	struct hixl_transfer t;

	if (left <= 0)
		return -ETIMEDOUT;
	sqe = ring_sqe(&eng->ring);
	if (!sqe)
		return -EBUSY;
	transfer_fill(&t, &r->remote, r->op, r->descs + r->off, n, left, r->tag);
	hixl_sqe_uring_cmd(sqe, eng->fd, HIXL_IOC_TRANSFER, &t, sizeof(t), (uintptr_t)r);
	ring_submit(&eng->ring);
	r->chunk = (uint32_t)n;
	r->running = true;
	eng->running++;
	return 0;
}

/* Issue queued requests while the CQ has room.  eng->lock held. */
static void uring_pump(struct hixl_engine *eng)
{
	while (eng->qhead && eng->running < HIXL_RING_CQ - 1 && !eng->stopping) {
		struct hixl_request *r = req_dequeue(eng);
		int ret = uring_issue(eng, r);

		if (ret)
			req_end(eng, r, ret, req_not_done(r, ret));
	}
}

/*
 * The CQE of a request's chunk: res is 0 or -errno, extra the kernel's
 * hixl_transfer.failed.  The next chunk goes out, or the request ends as
 * the ioctl path would have ended it.  eng->lock held.
 */
static void uring_done(struct hixl_engine *eng, struct hixl_request *r, int res, uint64_t extra)
{
	size_t n = r->chunk;

	r->running = false;
	eng->running--;
	if (res) {
		req_end(eng, r, res, extra < n ? r->off + extra : r->count);
		return;
	}
	r->off += n;
	if (r->off == r->count) {
		req_end(eng, r, 0, r->count);
		return;
	}
	res = eng->stopping ? -ECANCELED : uring_issue(eng, r);
	if (res)
		req_end(eng, r, res, req_not_done(r, res));
}

/* The reaper: waits for CQEs and ends requests, until the NOP of finalize. */
static void *reaper(void *arg)
{
	struct hixl_engine *eng = arg;
	bool stop = false;

	while (!stop) {
		uint64_t data, extra;
		int res;

		if (!ring_cqe(&eng->ring, &data, &res, &extra)) {
			int ret = ring_wait(&eng->ring);

			if (ret == -ETIME) {	/* quiet: push what a failed submit left */
				pthread_mutex_lock(&eng->lock);
				ring_flush(&eng->ring);
				pthread_mutex_unlock(&eng->lock);
			} else if (ret) {
				usleep(1000);	/* out of memory: never spin */
			}
			continue;
		}
		pthread_mutex_lock(&eng->lock);
		do {
			if (data == HIXL_WAKE_DATA)
				stop = true;
			else
				uring_done(eng, (struct hixl_request *)(uintptr_t)data, res, extra);
		} while (ring_cqe(&eng->ring, &data, &res, &extra));
		uring_pump(eng);
		pthread_cond_broadcast(&eng->cond);
		pthread_mutex_unlock(&eng->lock);
	}
	return NULL;
}

/* Called with eng->lock held.  The reaper takes no signal of the caller's. */
static int reaper_start(struct hixl_engine *eng)
{
	sigset_t all, old;
	int ret;

	if (eng->reaper_on)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&eng->reaper, NULL, reaper, eng);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -EAGAIN;
	eng->reaper_on = true;
	return 0;
}

/* ---- the worker-thread path (the fallback) ---- */

static void *worker(void *arg)
{
	struct hixl_engine *eng = arg;
	struct hixl_request *r;
	size_t failed;
	int ret;

	pthread_mutex_lock(&eng->lock);
	for (;;) {
		while (!eng->qhead && !eng->stopping)
			pthread_cond_wait(&eng->qcond, &eng->lock);
		r = req_dequeue(eng);
		if (!r)
			break;		/* stopping, nothing queued */
		r->running = true;
		eng->running++;
		pthread_mutex_unlock(&eng->lock);

		/* r stays: it is WAITING, so nobody frees it */
		failed = 0;	/* not issued: no descriptor is known to be done */
		if (ms_left(r->deadline) <= 0)
			ret = -ETIMEDOUT;
		else
			ret = transfer(eng->fd, &r->remote, r->op, r->descs, r->count,
				       r->deadline, r->tag, &failed);

		pthread_mutex_lock(&eng->lock);
		r->running = false;
		eng->running--;
		req_end(eng, r, ret, failed);
		pthread_cond_broadcast(&eng->cond);
	}
	pthread_mutex_unlock(&eng->lock);
	return NULL;
}

/* Called with eng->lock held. */
static int workers_start(struct hixl_engine *eng)
{
	while (eng->nworkers < HIXL_ASYNC_WORKERS) {
		if (pthread_create(&eng->workers[eng->nworkers], NULL, worker, eng))
			return eng->nworkers ? 0 : -EAGAIN;
		eng->nworkers++;
	}
	return 0;
}

/* Queue (workers) or issue (io_uring) a new request.  eng->lock held. */
static int req_start(struct hixl_engine *eng, struct hixl_request *r)
{
	int ret;

	if (eng->stopping)
		return -ESHUTDOWN;
	if (!eng->uring) {
		ret = workers_start(eng);
		if (!ret) {
			req_enqueue(eng, r);
			pthread_cond_signal(&eng->qcond);
		}
		return ret;
	}
	ret = reaper_start(eng);
	if (ret)
		return ret;
	if (eng->qhead || eng->running >= HIXL_RING_CQ - 1) {
		req_enqueue(eng, r);	/* the CQ is full: issued as room comes */
		return 0;
	}
	return uring_issue(eng, r);
}

static int do_transfer_async(struct hixl_engine *eng, const char *remote, enum hixl_op op,
			     const struct hixl_op_desc *descs, size_t count, int timeout_ms,
			     void *user_data, struct hixl_request **reqp)
{
	struct hixl_request *r;
	int ret;

	if (!reqp)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = transfer_args(eng, remote, op, descs, count, timeout_ms, &r->remote);
	if (ret) {
		free(r);
		return ret;
	}
	if (count > SIZE_MAX / sizeof(*descs) || req_descs_alloc(eng, r, count)) {
		free(r);
		return -ENOMEM;
	}
	memcpy(r->descs, descs, count * sizeof(*descs));
	r->eng = eng;
	r->op = op;
	r->count = count;
	r->failed = count;
	r->deadline = now_ns() + timeout_ms * NSEC_PER_MSEC;
	r->user_data = user_data;
	r->st = HIXL_TRANSFER_WAITING;
	r->err = -EINPROGRESS;
	pthread_mutex_lock(&eng->lock);
	r->tag = ++eng->last_tag;
	ret = req_start(eng, r);
	if (ret) {
		pthread_mutex_unlock(&eng->lock);
		req_descs_free(r);
		free(r);
		return ret;
	}
	r->next = eng->reqs;
	if (eng->reqs)
		eng->reqs->prev = r;
	eng->reqs = r;
	pthread_mutex_unlock(&eng->lock);
	*reqp = r;
	return 0;
}

HIXL_EXPORT int hixl_transfer_async(struct hixl_engine *eng, const char *remote_engine,
				    enum hixl_op op, const struct hixl_op_desc *descs, size_t count,
				    int timeout_ms, void *user_data, struct hixl_request **req)
{
	int saved = errno;
	int ret = do_transfer_async(eng, remote_engine, op, descs, count, timeout_ms,
				    user_data, req);

	errno = saved;
	return ret;
}

HIXL_EXPORT int hixl_get_transfer_status(struct hixl_engine *eng, struct hixl_request *req,
					 enum hixl_transfer_status *st)
{
	if (!eng || !req || !st || req->eng != eng)
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	*st = req->st;
	pthread_mutex_unlock(&eng->lock);
	return 0;
}

HIXL_EXPORT int hixl_get_transfer_statuses(struct hixl_engine *eng,
					   struct hixl_request *const *reqs, size_t count,
					   enum hixl_transfer_status *st)
{
	size_t done = 0;

	if (!eng || (count && (!reqs || !st)))
		return -EINVAL;
	for (size_t i = 0; i < count; i++)
		if (!reqs[i] || reqs[i]->eng != eng)
			return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < count; i++) {
		st[i] = reqs[i]->st;
		done += st[i] != HIXL_TRANSFER_WAITING;
	}
	pthread_mutex_unlock(&eng->lock);
	return done > INT32_MAX ? INT32_MAX : (int)done;
}

HIXL_EXPORT int hixl_request_wait(struct hixl_engine *eng, struct hixl_request *req,
				  int timeout_ms, enum hixl_transfer_status *st)
{
	struct timespec ts;
	int ret = 0;

	if (!eng || !req || req->eng != eng)
		return -EINVAL;
	ns_to_ts(now_ns() + (timeout_ms > 0 ? timeout_ms : 0) * NSEC_PER_MSEC, &ts);
	pthread_mutex_lock(&eng->lock);
	while (req->st == HIXL_TRANSFER_WAITING) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&eng->cond, &eng->lock);
		} else if (!timeout_ms ||
			   pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT) {
			if (req->st == HIXL_TRANSFER_WAITING)
				ret = -ETIMEDOUT;
			break;
		}
	}
	if (st)
		*st = req->st;
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT int hixl_request_result(const struct hixl_request *req, size_t *failed_index)
{
	struct hixl_engine *eng;
	int ret;

	if (!req)
		return -EINVAL;
	eng = req->eng;
	pthread_mutex_lock(&eng->lock);
	ret = req->err;
	if (failed_index)
		*failed_index = req->failed;
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

HIXL_EXPORT void *hixl_request_user_data(const struct hixl_request *req)
{
	return req ? req->user_data : NULL;
}

HIXL_EXPORT void hixl_request_free(struct hixl_request *req)
{
	struct hixl_engine *eng;

	if (!req)
		return;
	eng = req->eng;
	pthread_mutex_lock(&eng->lock);
	if (req->st == HIXL_TRANSFER_WAITING)
		req->detached = true;
	else
		req_unlink(eng, req);
	pthread_mutex_unlock(&eng->lock);
}

/* ---- notifications -------------------------------------------------------------------- */

HIXL_EXPORT int hixl_send_notify(struct hixl_engine *eng, const char *remote_engine,
				 const char *name, const void *msg, size_t msg_len, int timeout_ms)
{
	struct hixl_send_notify n;
	size_t name_len;
	int ret;

	if (!eng || !name || (msg_len && !msg) || timeout_ms <= 0)
		return -EINVAL;
	name_len = strnlen(name, HIXL_NOTIFY_MAX_NAME + 1);
	if (!name_len || name_len > HIXL_NOTIFY_MAX_NAME || msg_len > HIXL_NOTIFY_MAX_MSG)
		return -EINVAL;
	memset(&n, 0, sizeof(n));
	ret = hixl_parse_engine_name(remote_engine, &n.remote);
	if (ret)
		return ret;
	n.name = (uintptr_t)name;
	n.msg = (uintptr_t)msg;
	n.name_len = (uint32_t)name_len;
	n.msg_len = (uint32_t)msg_len;
	ret = xioctl(eng->fd, HIXL_IOC_SEND_NOTIFY, &n);
	if (ret == -ECONNRESET || ret == -ENETDOWN || ret == -ETIMEDOUT || ret == -EIO)
		ret = -ECOMM;
	return ret;
}

HIXL_EXPORT int hixl_get_notifies(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
				  size_t *count, uint64_t *dropped)
{
	struct hixl_get_notifies g;
	int ret;

	if (!eng || !out || !max || !count)
		return -EINVAL;
	memset(&g, 0, sizeof(g));
	g.buf = (uintptr_t)out;
	g.max = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	ret = xioctl(eng->fd, HIXL_IOC_GET_NOTIFIES, &g);
	if (ret)
		return ret;
	*count = g.count;
	if (dropped)
		*dropped = g.dropped;
	return 0;
}

/* ---- user allocators ------------------------------------------------------------- */

HIXL_EXPORT int hixl_allocator_desc_create(struct hixl_allocator_desc **desc)
{
	if (!desc)
		return -EINVAL;
	*desc = calloc(1, sizeof(**desc));
	return *desc ? 0 : -ENOMEM;
}

HIXL_EXPORT void hixl_allocator_desc_destroy(struct hixl_allocator_desc *desc)
{
	free(desc);
}

HIXL_EXPORT int hixl_allocator_set_obj(struct hixl_allocator_desc *desc, void *obj)
{
	if (!desc)
		return -EINVAL;
	desc->a.obj = obj;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_alloc_func(struct hixl_allocator_desc *desc, hixl_alloc_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.alloc = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_free_func(struct hixl_allocator_desc *desc, hixl_free_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.free = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_set_block_addr_func(struct hixl_allocator_desc *desc,
						   hixl_block_addr_fn fn)
{
	if (!desc || !fn)
		return -EINVAL;
	desc->a.addr = fn;
	return 0;
}

HIXL_EXPORT int hixl_allocator_register(struct hixl_engine *eng,
					const struct hixl_allocator_desc *desc)
{
	if (!eng)
		return -EINVAL;
	if (desc && (!desc->a.alloc || !desc->a.free || !desc->a.addr))
		return -EINVAL;
	pthread_mutex_lock(&eng->lock);
	if (desc)
		eng->alloc = desc->a;
	else
		memset(&eng->alloc, 0, sizeof(eng->alloc));
	pthread_mutex_unlock(&eng->lock);
	return 0;
}
