/* SPDX-License-Identifier: MIT */
/*
 * internal.h - private helpers shared by the library's source files.
 * Not installed; never included by users.
 */
#ifndef HIXL_LIB_INTERNAL_H
#define HIXL_LIB_INTERNAL_H

#include <errno.h>

/* Marks a symbol as part of the ABI (the library builds -fvisibility=hidden);
 * every such symbol must also be listed in lib/libhixl-user.map. */
#ifndef HIXL_EXPORT
#define HIXL_EXPORT __attribute__((visibility("default")))
#endif

/* The library's functions return -errno and leave errno as they found it:
 * evaluate a syscall-style expression (< 0 and errno on failure) and turn
 * it into 0 / a non-negative value or -errno, errno untouched. */
#ifndef HIXL_SYSCALL_RET
#define HIXL_SYSCALL_RET(expr) ({		\
	int _saved = errno, _r = (expr);	\
	if (_r < 0)				\
		_r = -errno;			\
	errno = _saved;				\
	_r;					\
})
#endif

/* The value of expr, which may change errno, with errno as it was before. */
#define HIXL_KEEP_ERRNO(expr) ({		\
	int _saved = errno, _r = (expr);	\
	errno = _saved;				\
	_r;					\
})

/*
 * auth.c: the engine options that say who may connect.  Gathered by
 * engine_init() from its options (hixl_auth_option()) and the environment
 * (hixl_auth_env()), put into SETUP (hixl_auth_apply()), and the secret
 * wiped after SETUP (hixl_auth_opts_clear()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <hixl/uapi.h>

struct hixl_auth_opts {
	bool have_allowed;		/* an option said: the variable is not read */
	bool have_secret;
	uint32_t nr_allowed;
	uint32_t secret_len;
	struct hixl_peer_prefix allowed[HIXL_MAX_ALLOWED_PEERS];
	uint8_t secret[HIXL_SECRET_MAX];
};

int hixl_auth_option(struct hixl_auth_opts *o, const char *key, const char *value);
int hixl_auth_env(struct hixl_auth_opts *o, const char **bad);
struct hixl_setup;
void hixl_auth_apply(struct hixl_auth_opts *o, struct hixl_setup *s);
void hixl_auth_opts_clear(struct hixl_auth_opts *o);

/* ---- the engine ---------------------------------------------------------------- */
/*
 * The engine: the HIXL-style engine API (Initialize, Finalize, RegisterMem,
 * Connect, TransferSync/Async, notifications) over /dev/hixl, one concern
 * per file: engine.c (options, init, finalize), register.c (memory
 * registration), peer.c (links), request.c (transfers and requests),
 * uring.c (the io_uring path and its reaper), workers.c (the worker-thread
 * path), notify.c, allocator.c, name.c (engine names), status.c.
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
 *    by ring_cmd() in uring.c: Debian 12's liburing 2.3 has no
 *    io_uring_prep_uring_cmd()).  A request is one URING_CMD
 *    HIXL_IOC_TRANSFER per chunk of HIXL_MAX_DESCS descriptors, submitted
 *    under the lock by the caller (the first chunk) or by the reaper (the
 *    next ones); the reaper thread waits for CQEs (res = 0/-errno,
 *    big_cqe[0] = the failed index) and ends requests.  Each request has a
 *    unique non-zero tag; finalize cancels the running ones with
 *    HIXL_IOC_CANCEL and waits for their CQEs before the ring goes;
 *    hixl_request_cancel() does the same for one.
 *  - worker threads (the fallback): a pool of 4 threads issuing the
 *    blocking TRANSFER ioctl, when the module lacks HIXL_FEAT_URING_CMD, no
 *    ring can be made, the first URING_CMD (a CANCEL probe at init) fails,
 *    or HIXL_NO_URING is set.
 * A request's descriptor copy lives until the request ends: the kernel may
 * read it late (io_uring's worker threads).
 * No ioctl is ever issued with the mutex held (submitting to the ring is
 * not an ioctl: it never sleeps on the transfer).
 */
#include <liburing.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <hixl/hixl.h>

#define HIXL_ASYNC_WORKERS	4
#define NSEC_PER_MSEC		1000000LL

struct hixl_link {
	struct hixl_link *next;
	struct hixl_sockaddr addr;
	enum hixl_connect_status st;	/* never DISCONNECT_PENDING: see disc_wait */
	int err;			/* CONNECT_FAILED: the connect's -errno */
	int timeout_ms;			/* of the pending asynchronous connect */
	bool disc_wait;			/* a disconnect waits for the connect */
	bool disc_async;		/* a hixl_disconnect_async() thread owns it */
	bool stale;			/* CONNECTED, but a request saw the link broken */
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
	uint64_t tag;				/* hixl_transfer.tag, non-zero: the library's (bit 63, unique) or the caller's */
	size_t off;				/* io_uring: descriptors done before the chunk */
	uint32_t chunk;				/* io_uring: descriptors of the chunk in flight */
	enum hixl_transfer_status st;		/* under eng->lock */
	int err;
	size_t failed;
	bool running;				/* in the kernel: URING_CMD or ioctl */
	bool cancel;				/* hixl_request_cancel(): issue no more
						 * chunks (read without the lock by
						 * its worker: __atomic) */
	bool unseen;				/* ended, counted in eng->unseen */
	bool detached;				/* freed by the library when done */
	bool listed;				/* ended, and hixl_get_all_transfer_status()
						 * listed it once */
};

/*
 * One io_uring: SQE128, CQE32.  Submitters hold the engine's lock; only the
 * reaper takes CQEs (liburing: one submitter and one reaper at a time).
 */
struct hixl_ring {
	struct io_uring r;
	bool up;
};

/* One live registration: what hixl_mem_get_info() reports. */
struct hixl_reg_rec {
	uint64_t handle;
	struct hixl_mem_info info;
	void *ctx;		/* a staged region's CUDA context; NULL: in the kernel */
};

/*
 * staged.c: staged device memory.  A staged region's handle is the
 * library's, never the kernel's (those are 32-bit): HIXL_STAGED_HANDLE_BIT
 * and a counter.  The bounce buffers: HIXL_STAGE_BUFS of HIXL_STAGE_CHUNK
 * bytes per transfer running at once; a round is at most
 * HIXL_STAGE_PIECES descriptor pieces.
 */
#define HIXL_STAGED_HANDLE_BIT	(1ULL << 32)
#define HIXL_STAGE_BUFS		4
#define HIXL_STAGE_CHUNK	(1U << 20)
#define HIXL_STAGE_PIECES	64
#define HIXL_STAGE_MAX_SLOTS	8	/* bounce buffer sets of an engine (4 MiB each) */
#define HIXL_STAGE_THREADS	4	/* threads running asynchronous staged requests */
struct stage_slot;

/* A staged region (also in handles, with its ctx): what transfers look up */
struct hixl_staged_rec {
	uint64_t handle;
	uint64_t addr, len;
	void *ctx;
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
	struct hixl_reg_rec *handles;	/* live registrations (register.c) */
	size_t nhandles, cap;
	struct hixl_request *qhead, *qtail;	/* not issued yet */
	struct hixl_request *reqs;
	uint64_t last_tag;
	size_t running;			/* requests with running set */
	int sync_running;		/* hixl_transfer_sync() calls in the kernel (atomic) */
	pthread_t workers[HIXL_ASYNC_WORKERS];
	int nworkers;
	int connect_threads;		/* detached connect threads alive */
	bool stopping;
	bool auto_connect;		/* the "AutoConnect" option, set at init */
	bool uring;			/* the async path: io_uring, else the workers */
	bool reaper_on;			/* the reaper thread was started */
	pthread_t reaper;
	struct hixl_ring ring;		/* when uring; submissions under lock */
	/*
	 * The event fd (event.c): made by the first hixl_engine_event_fd().
	 * evfd is an eventfd that holds 1 while unseen > 0 (ended requests
	 * whose end no status call reported yet and that are not freed), else
	 * 0: written and read only under lock, on unseen's 0 <-> 1 changes.
	 * epfd is an epoll set of evfd and, when the module has
	 * HIXL_FEAT_POLL, fd (readable while notifications are queued): the
	 * fd the caller polls.  -1 until made.
	 */
	size_t unseen;
	int evfd;
	int epfd;
	uint64_t features;		/* GET_INFO's, read at init */
	int devmem_path;		/* enum hixl_devmem_path, the "DeviceMemPath" option */
	/* staged device memory (staged.c) */
	struct hixl_staged_rec *staged;	/* the staged regions, nstaged of them */
	size_t nstaged, staged_cap;	/* nstaged: atomic reads without the lock */
	uint64_t next_staged;		/* the last staged handle's counter */
	struct stage_slot *stage_free;	/* bounce buffers not in use */
	int stage_slots;		/* slots made, free or in use */
	int stage_threads;		/* staged request threads alive */
	struct hixl_request *stage_qhead, *stage_qtail;	/* staged requests not started */
	uint64_t staged_written, staged_read, staged_rounds, staged_errors;	/* atomic */
};

static inline long long hixl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void hixl_ns_to_ts(long long ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000LL;
	ts->tv_nsec = ns % 1000000000LL;
}

/* whole milliseconds left until deadline, rounded up; <= 0 when past */
static inline long long hixl_ms_left(long long deadline)
{
	long long left = deadline - hixl_now_ns();

	return left <= 0 ? 0 : (left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
}

/* the CLOCK_MONOTONIC deadline (ns) ms milliseconds from now */
static inline long long hixl_deadline(long long ms)
{
	return hixl_now_ns() + ms * NSEC_PER_MSEC;
}

/* the ioctl's -errno, errno untouched */
static inline int hixl_ioctl(int fd, unsigned long cmd, void *arg)
{
	return HIXL_SYSCALL_RET(ioctl(fd, cmd, arg));
}

/* descriptors of the chunk starting at off: at most HIXL_MAX_DESCS */
static inline size_t hixl_chunk_len(size_t count, size_t off)
{
	return count - off < HIXL_MAX_DESCS ? count - off : HIXL_MAX_DESCS;
}

/* name.c */
int hixl_parse_uint(const char *s, unsigned long max, unsigned long *out);
int hixl_parse_name(const char *name, struct hixl_sockaddr *out);
/* drop the host names cached for a's address (a CONNECT to it failed) */
void hixl_name_forget(const struct hixl_sockaddr *a);

/* register.c */
void hixl_handles_release(struct hixl_engine *eng);

/* gpu.c: device memory named by its address */
struct hixl_gpu_range {
	int fd;			/* a dma-buf to register (the caller closes it), or -1: host */
	uint64_t addr;		/* the region to register */
	uint64_t len;
	uint64_t offset;	/* of addr in the dma-buf */
	uint32_t source;	/* enum hixl_mem_source */
	void *ctx;		/* CUDA: the allocation's context (staging copies in it) */
	bool staged;		/* not registered in the kernel: staged.c copies it */
	bool stageable;		/* a CUDA dma-buf that could be staged instead */
};

/* the "DeviceMemPath" option: how CUDA memory by address is reached */
enum hixl_devmem_path {
	HIXL_DEVMEM_AUTO = 0,	/* peer-to-peer (dma-buf), staged where it cannot be */
	HIXL_DEVMEM_P2P,	/* the dma-buf only */
	HIXL_DEVMEM_STAGED,	/* staged always */
};
int hixl_gpu_resolve(uint64_t addr, uint64_t len, int path, struct hixl_gpu_range *out,
		     char *why, size_t wlen);
/* closes g->fd (the way its runtime wants) once REG_MEM is done with it */
void hixl_gpu_release(struct hixl_gpu_range *g);

/* peer.c */
void hixl_links_release(struct hixl_engine *eng);
int hixl_auto_connect(struct hixl_engine *eng, const struct hixl_sockaddr *addr,
		      long long deadline, bool stale);
void hixl_link_forget(struct hixl_engine *eng, const struct hixl_sockaddr *addr);
bool hixl_link_error(int err);

/* status.c: hixl_last_error() */
int hixl_fail(const char *fn, const char *obj, int err);
int hixl_failf(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* request.c */
size_t hixl_req_not_done(const struct hixl_request *r, int err);
void hixl_req_end(struct hixl_engine *eng, struct hixl_request *r, int err, size_t failed);
void hixl_req_enqueue(struct hixl_engine *eng, struct hixl_request *r);
struct hixl_request *hixl_req_dequeue(struct hixl_engine *eng);
void hixl_transfer_fill(struct hixl_transfer *t, const struct hixl_sockaddr *remote,
			uint32_t op, const struct hixl_op_desc *descs, size_t n,
			long long left_ms, uint64_t tag);
int hixl_transfer_chunks(int fd, const struct hixl_sockaddr *remote, uint32_t op,
			 const struct hixl_op_desc *descs, size_t count, long long deadline,
			 uint64_t tag, const bool *cancel, size_t *failed);
void hixl_cancel_running(struct hixl_engine *eng);
void hixl_requests_release(struct hixl_engine *eng);

/* uring.c */
void hixl_uring_setup(struct hixl_engine *eng);
int hixl_uring_start(struct hixl_engine *eng, struct hixl_request *r);
void hixl_reaper_stop(struct hixl_engine *eng);
void hixl_ring_exit(struct hixl_ring *rg);

/* event.c */
void hixl_req_unseen(struct hixl_engine *eng, struct hixl_request *r);
void hixl_req_seen(struct hixl_engine *eng, struct hixl_request *r);
void hixl_event_release(struct hixl_engine *eng);
int hixl_do_get_notifies(struct hixl_engine *eng, struct hixl_notify *out, size_t max,
			 size_t *count, uint64_t *dropped);

/* staged.c */
int hixl_transfer_run(struct hixl_engine *eng, const struct hixl_sockaddr *remote, uint32_t op,
		      const struct hixl_op_desc *descs, size_t count, long long deadline,
		      uint64_t tag, const bool *cancel, size_t *failed, char *why, size_t wlen);
bool hixl_staged_any(const struct hixl_engine *eng, const struct hixl_op_desc *descs,
		     size_t count);
int hixl_staged_start(struct hixl_engine *eng, struct hixl_request *r);
bool hixl_staged_unqueue(struct hixl_engine *eng, struct hixl_request *r);
void hixl_staged_wait(struct hixl_engine *eng);
void hixl_staged_release(struct hixl_engine *eng);
/* gpu.c's driver calls for staging: each returns the CUresult */
const char *hixl_cu_name(int rc, char *buf, size_t len);
int hixl_cu_push(void *ctx);
void hixl_cu_pop(void);
int hixl_cu_stream_create(void **s);
void hixl_cu_stream_destroy(void *s);
int hixl_cu_stream_sync(void *s);
int hixl_cu_event_create(void **e);
void hixl_cu_event_destroy(void *e);
int hixl_cu_event_record(void *e, void *s);
int hixl_cu_event_sync(void *e);
int hixl_cu_dtoh_async(void *dst, uint64_t src, size_t n, void *s);
int hixl_cu_htod_async(uint64_t dst, const void *src, size_t n, void *s);
int hixl_cu_host_register(void *p, size_t n);
void hixl_cu_host_unregister(void *p);

/* workers.c */
int hixl_workers_queue(struct hixl_engine *eng, struct hixl_request *r);

#endif /* HIXL_LIB_INTERNAL_H */
