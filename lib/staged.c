// SPDX-License-Identifier: MIT
/*
 * staged.c - libhixl-user: staged device memory.  Where the RDMA device
 * cannot reach GPU memory (no peer-to-peer: rxe, a kernel or exporter
 * without it, a GPU and NIC the platform will not pair), or the engine's
 * "DeviceMemPath" option says "staged", a CUDA registration is not made in
 * the kernel at all: register.c records it here as a staged region
 * (HIXL_MEM_SOURCE_STAGED), and a transfer whose local side lies in one
 * moves those bytes through pinned host bounce buffers, copied by the
 * GPU's own copy engine on a stream of the library's:
 *
 *   WRITE: cuMemcpyDtoHAsync(device -> bounce k), an event; once the event
 *          passed, the RDMA WRITE of bounce k; HIXL_STAGE_BUFS rounds are
 *          copied ahead, so the copies of rounds n+1.. run while round n
 *          is on the wire;
 *   READ:  the RDMA READ into bounce k, then cuMemcpyHtoDAsync(bounce k ->
 *          device) and an event, while the next round's READ runs; bounce k
 *          is read into again only after its event passed.
 *
 * A round fills one bounce buffer (HIXL_STAGE_CHUNK bytes, at most
 * HIXL_STAGE_PIECES pieces of descriptors) and goes to the kernel as one
 * ordinary TRANSFER of host memory.  The descriptors of a batch that are
 * not staged go first, as one TRANSFER (hixl_transfer_chunks()), then the
 * staged ones.  No CPU load or store ever touches device memory: only the
 * driver's copies do.
 *
 * The bounce buffers: a "slot" is HIXL_STAGE_BUFS buffers in one anonymous
 * mapping, registered in the kernel as host memory (HIXL_REG_LOCAL_ONLY:
 * never in the peers' tables) and page-locked for the GPU
 * (cuMemHostRegister), with a stream of its own and an event per buffer,
 * made in one CUDA context (a transfer's copies all run on the stream of
 * its first staged region's context: with unified addressing the driver
 * copies any device memory on it).  Slots
 * are made on first use, one per transfer running at once (at most
 * HIXL_STAGE_MAX_SLOTS), kept on the engine's free list and freed at
 * finalize.
 *
 * A staged region is local only: it is in no peer's table, so a peer's
 * transfer naming it fails as any unregistered remote range does.
 *
 * Asynchronous requests with staged descriptors run on the engine's staged
 * request threads (at most HIXL_STAGE_THREADS, started on demand, gone when
 * their queue is empty: hixl_staged_start()), counted in eng->running like
 * a request in the kernel; their TRANSFERs carry the request's tag (CANCEL
 * reaches them) and they look at the cancel flag and the engine's stopping
 * between rounds.  At most HIXL_STAGE_MAX_SLOTS slots (4 MiB each) exist
 * per engine: a transfer beyond them waits for one, within its timeout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "internal.h"

/* one round's pieces: the TRANSFER's descriptors and where each came from */
struct stage_round {
	size_t n;
	uint64_t bytes;
	struct hixl_op_desc d[HIXL_STAGE_PIECES];	/* local: the bounce buffer */
	uint64_t dev[HIXL_STAGE_PIECES];		/* the device address of each */
	size_t idx[HIXL_STAGE_PIECES];			/* the batch's descriptor */
};

struct stage_slot {
	struct stage_slot *next;
	void *ctx;
	unsigned char *mem;		/* HIXL_STAGE_BUFS * HIXL_STAGE_CHUNK */
	uint64_t handle;
	bool registered, host_reg;
	void *stream;
	void *ev[HIXL_STAGE_BUFS];
	struct stage_round round[HIXL_STAGE_BUFS];
};

#define STAGE_SLOT_BYTES ((size_t)HIXL_STAGE_BUFS * HIXL_STAGE_CHUNK)

/* why, "CUresult NAME from CALL" */
static int cu_fail(char *why, size_t wlen, int rc, const char *call)
{
	char nb[32];

	if (why && wlen)
		snprintf(why, wlen, "staged device memory: %s: %s", call,
			 hixl_cu_name(rc, nb, sizeof(nb)));
	return -EIO;
}

/* Free a slot, whole or half made.  Its context is pushed here. */
static void slot_free(struct hixl_engine *eng, struct stage_slot *s)
{
	bool pushed = s->ctx && !hixl_cu_push(s->ctx);

	for (int i = 0; i < HIXL_STAGE_BUFS; i++)
		if (s->ev[i])
			hixl_cu_event_destroy(s->ev[i]);
	if (s->stream)
		hixl_cu_stream_destroy(s->stream);
	if (s->host_reg)
		hixl_cu_host_unregister(s->mem);
	if (pushed)
		hixl_cu_pop();
	if (s->registered) {
		struct hixl_dereg_mem d;

		memset(&d, 0, sizeof(d));
		d.handle = s->handle;
		hixl_ioctl(eng->fd, HIXL_IOC_DEREG_MEM, &d);
	}
	if (s->mem)
		munmap(s->mem, STAGE_SLOT_BYTES);
	free(s);
}

/* A new slot of ctx (pushed by the caller), or NULL with why. */
static struct stage_slot *slot_new(struct hixl_engine *eng, void *ctx, int *err, char *why,
				   size_t wlen)
{
	struct stage_slot *s = calloc(1, sizeof(*s));
	struct hixl_reg_mem r;
	void *p;
	int rc;

	*err = -ENOMEM;
	if (!s)
		return NULL;
	p = mmap(NULL, STAGE_SLOT_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, wlen, "staged device memory: no memory for bounce buffers");
		free(s);
		return NULL;
	}
	s->mem = p;
	memset(&r, 0, sizeof(r));
	r.addr = (uintptr_t)p;
	r.len = STAGE_SLOT_BYTES;
	r.type = HIXL_MEM_HOST;
	r.dmabuf_fd = -1;
	/* the peers need not see them: they are only ever our local side */
	r.flags = eng->features & HIXL_FEAT_LOCAL_ONLY ? HIXL_REG_LOCAL_ONLY : 0;
	rc = hixl_ioctl(eng->fd, HIXL_IOC_REG_MEM, &r);
	if (rc) {
		snprintf(why, wlen, "staged device memory: registering %zu bytes of bounce buffers: %s",
			 STAGE_SLOT_BYTES, strerror(-rc));
		*err = rc;
		goto fail;
	}
	s->registered = true;
	s->handle = r.handle;
	/*
	 * ctx is pushed by the caller: the slot's own push in slot_free()
	 * then balances, since a failed slot is freed in the same context
	 */
	rc = hixl_cu_host_register(p, STAGE_SLOT_BYTES);
	if (rc) {
		*err = cu_fail(why, wlen, rc, "cuMemHostRegister");
		goto fail;
	}
	s->host_reg = true;
	rc = hixl_cu_stream_create(&s->stream);
	if (rc) {
		*err = cu_fail(why, wlen, rc, "cuStreamCreate");
		goto fail;
	}
	for (int i = 0; i < HIXL_STAGE_BUFS; i++) {
		rc = hixl_cu_event_create(&s->ev[i]);
		if (rc) {
			s->ev[i] = NULL;
			*err = cu_fail(why, wlen, rc, "cuEventCreate");
			goto fail;
		}
	}
	s->ctx = ctx;
	return s;
fail:
	slot_free(eng, s);	/* s->ctx NULL: the caller's push stands */
	return NULL;
}

/*
 * A slot of ctx for one transfer: a free one, a new one while the engine
 * has fewer than HIXL_STAGE_MAX_SLOTS, else the first one given back
 * (until deadline: NULL, *err -ETIMEDOUT).  A free slot of another context
 * makes room when none is free of ctx.
 */
static struct stage_slot *slot_get(struct hixl_engine *eng, void *ctx, long long deadline,
				   int *err, char *why, size_t wlen)
{
	struct stage_slot **pp, *s, *other;
	struct timespec ts;

	hixl_ns_to_ts(deadline, &ts);
	pthread_mutex_lock(&eng->lock);
	for (;;) {
		other = NULL;
		for (pp = &eng->stage_free; *pp; pp = &(*pp)->next) {
			s = *pp;
			if (s->ctx == ctx) {
				*pp = s->next;
				s->next = NULL;
				pthread_mutex_unlock(&eng->lock);
				return s;
			}
			other = s;
		}
		if (eng->stage_slots < HIXL_STAGE_MAX_SLOTS) {
			eng->stage_slots++;
			pthread_mutex_unlock(&eng->lock);
			s = slot_new(eng, ctx, err, why, wlen);
			if (!s) {
				pthread_mutex_lock(&eng->lock);
				eng->stage_slots--;
				pthread_cond_broadcast(&eng->cond);
				pthread_mutex_unlock(&eng->lock);
			}
			return s;
		}
		if (other) {
			/* all made, one free of another context: it makes room */
			for (pp = &eng->stage_free; *pp != other; pp = &(*pp)->next)
				;
			*pp = other->next;
			eng->stage_slots--;
			pthread_mutex_unlock(&eng->lock);
			slot_free(eng, other);
			pthread_mutex_lock(&eng->lock);
			continue;
		}
		if (pthread_cond_timedwait(&eng->cond, &eng->lock, &ts) == ETIMEDOUT) {
			pthread_mutex_unlock(&eng->lock);
			*err = -ETIMEDOUT;
			return NULL;
		}
	}
}

static void slot_put(struct hixl_engine *eng, struct stage_slot *s)
{
	pthread_mutex_lock(&eng->lock);
	s->next = eng->stage_free;
	eng->stage_free = s;
	pthread_cond_broadcast(&eng->cond);	/* a transfer may wait for it */
	pthread_mutex_unlock(&eng->lock);
}

/* Finalize: free the slots.  No other thread is left. */
void hixl_staged_release(struct hixl_engine *eng)
{
	while (eng->stage_free) {
		struct stage_slot *s = eng->stage_free;

		eng->stage_free = s->next;
		slot_free(eng, s);
	}
	eng->stage_slots = 0;
}

/* The staged region holding [a, a + len): its context, or NULL.  eng->lock held. */
static void *staged_find(const struct hixl_engine *eng, uint64_t a, uint64_t len)
{
	for (size_t i = 0; i < eng->nstaged; i++) {
		const struct hixl_staged_rec *st = &eng->staged[i];

		if (a >= st->addr && len <= st->len && a - st->addr <= st->len - len)
			return st->ctx;
	}
	return NULL;
}

bool hixl_staged_any(const struct hixl_engine *eng, const struct hixl_op_desc *descs,
		     size_t count)
{
	if (!eng->nstaged)
		return false;
	for (size_t i = 0; i < count; i++)
		if (staged_find(eng, descs[i].local_addr, descs[i].len))
			return true;
	return false;
}

/* where the next round starts: a staged descriptor and the bytes of it done */
struct stage_cursor {
	const struct hixl_op_desc *descs;
	const size_t *sidx;		/* the staged descriptors' indexes */
	size_t ns, pos;
	uint64_t off;
};

/* Fill round rd, in bounce buffer buf, from the cursor; false when none is left. */
static bool round_fill(struct stage_round *rd, unsigned char *buf, struct stage_cursor *c)
{
	rd->n = 0;
	rd->bytes = 0;
	while (c->pos < c->ns && rd->n < HIXL_STAGE_PIECES && rd->bytes < HIXL_STAGE_CHUNK) {
		const struct hixl_op_desc *d = &c->descs[c->sidx[c->pos]];
		uint64_t take = d->len - c->off;

		if (take > HIXL_STAGE_CHUNK - rd->bytes)
			take = HIXL_STAGE_CHUNK - rd->bytes;
		rd->d[rd->n].local_addr = (uintptr_t)(buf + rd->bytes);
		rd->d[rd->n].remote_addr = d->remote_addr + c->off;
		rd->d[rd->n].len = take;
		rd->dev[rd->n] = d->local_addr + c->off;
		rd->idx[rd->n] = c->sidx[c->pos];
		rd->n++;
		rd->bytes += take;
		c->off += take;
		if (c->off == d->len) {
			c->pos++;
			c->off = 0;
		}
	}
	return rd->n > 0;
}

/* Stop before the next round?  -ETIMEDOUT, -ECANCELED or 0. */
static int round_stop(struct hixl_engine *eng, long long deadline, const bool *cancel)
{
	if (hixl_ms_left(deadline) <= 0)
		return -ETIMEDOUT;
	if ((cancel && __atomic_load_n(cancel, __ATOMIC_ACQUIRE)) ||
	    __atomic_load_n(&eng->stopping, __ATOMIC_ACQUIRE))
		return -ECANCELED;
	return 0;
}

/* The RDMA of one round; *failed the batch's descriptor on error. */
static int round_rdma(struct hixl_engine *eng, const struct hixl_sockaddr *remote, uint32_t op,
		      struct stage_round *rd, long long deadline, uint64_t tag,
		      const bool *cancel, size_t *failed)
{
	size_t f = rd->n;
	int ret = hixl_transfer_chunks(eng->fd, remote, op, rd->d, rd->n, deadline, tag, cancel,
				       &f);

	if (ret)
		*failed = rd->idx[f < rd->n ? f : 0];
	return ret;
}

static int stage_write(struct hixl_engine *eng, struct stage_slot *s, struct stage_cursor *c,
		       const struct hixl_sockaddr *remote, long long deadline, uint64_t tag,
		       const bool *cancel, size_t *failed, char *why, size_t wlen)
{
	size_t filled = 0, sent = 0;
	int rc, ret = 0;

	for (;;) {
		/* copy ahead into every free buffer */
		while (filled - sent < HIXL_STAGE_BUFS) {
			size_t k = filled % HIXL_STAGE_BUFS;
			struct stage_round *rd = &s->round[k];
			unsigned char *buf = s->mem + k * HIXL_STAGE_CHUNK;

			if (!round_fill(rd, buf, c))
				break;
			for (size_t i = 0; i < rd->n; i++) {
				rc = hixl_cu_dtoh_async((void *)(uintptr_t)rd->d[i].local_addr,
							rd->dev[i], rd->d[i].len, s->stream);
				if (rc) {
					*failed = rd->idx[i];
					return cu_fail(why, wlen, rc, "cuMemcpyDtoHAsync");
				}
			}
			rc = hixl_cu_event_record(s->ev[k], s->stream);
			if (rc) {
				*failed = rd->idx[0];
				return cu_fail(why, wlen, rc, "cuEventRecord");
			}
			filled++;
		}
		if (sent == filled)
			return 0;
		{
			size_t k = sent % HIXL_STAGE_BUFS;
			struct stage_round *rd = &s->round[k];

			rc = hixl_cu_event_sync(s->ev[k]);
			if (rc) {
				*failed = rd->idx[0];
				return cu_fail(why, wlen, rc, "cuMemcpyDtoHAsync");
			}
			ret = round_stop(eng, deadline, cancel);
			if (ret) {
				*failed = rd->idx[0];
				return ret;
			}
			ret = round_rdma(eng, remote, HIXL_OP_WRITE, rd, deadline, tag, cancel, failed);
			if (ret)
				return ret;
			__atomic_add_fetch(&eng->staged_written, rd->bytes, __ATOMIC_RELAXED);
			__atomic_add_fetch(&eng->staged_rounds, 1, __ATOMIC_RELAXED);
			sent++;
		}
	}
}

/* Wait for round k's copy to device; counts its bytes.  0 or -EIO. */
static int read_done(struct hixl_engine *eng, struct stage_slot *s, size_t k, size_t *failed,
		     char *why, size_t wlen)
{
	int rc = hixl_cu_event_sync(s->ev[k]);

	if (rc) {
		*failed = s->round[k].idx[0];
		return cu_fail(why, wlen, rc, "cuMemcpyHtoDAsync");
	}
	__atomic_add_fetch(&eng->staged_read, s->round[k].bytes, __ATOMIC_RELAXED);
	__atomic_add_fetch(&eng->staged_rounds, 1, __ATOMIC_RELAXED);
	s->round[k].n = 0;
	return 0;
}

static int stage_read(struct hixl_engine *eng, struct stage_slot *s, struct stage_cursor *c,
		      const struct hixl_sockaddr *remote, long long deadline, uint64_t tag,
		      const bool *cancel, size_t *failed, char *why, size_t wlen)
{
	size_t i;
	int rc, ret = 0;

	for (i = 0; i < HIXL_STAGE_BUFS; i++)
		s->round[i].n = 0;	/* no copy to device in flight */
	for (i = 0;; i++) {
		size_t k = i % HIXL_STAGE_BUFS;
		struct stage_round *rd = &s->round[k];
		unsigned char *buf = s->mem + k * HIXL_STAGE_CHUNK;

		/* the buffer's last copy to device must be done before it is read into */
		if (rd->n) {
			ret = read_done(eng, s, k, failed, why, wlen);
			if (ret)
				return ret;
		}
		if (c->pos == c->ns)
			break;
		ret = round_stop(eng, deadline, cancel);
		if (ret) {
			*failed = c->sidx[c->pos];
			return ret;
		}
		round_fill(rd, buf, c);
		ret = round_rdma(eng, remote, HIXL_OP_READ, rd, deadline, tag, cancel, failed);
		if (ret) {
			rd->n = 0;
			return ret;
		}
		for (size_t j = 0; j < rd->n; j++) {
			rc = hixl_cu_htod_async(rd->dev[j], (const void *)(uintptr_t)rd->d[j].local_addr,
						rd->d[j].len, s->stream);
			if (rc) {
				*failed = rd->idx[j];
				rd->n = 0;
				return cu_fail(why, wlen, rc, "cuMemcpyHtoDAsync");
			}
		}
		rc = hixl_cu_event_record(s->ev[k], s->stream);
		if (rc) {
			*failed = rd->idx[0];
			rd->n = 0;
			return cu_fail(why, wlen, rc, "cuEventRecord");
		}
	}
	/* the rounds still copying, oldest first */
	for (size_t j = 1; j <= HIXL_STAGE_BUFS; j++) {
		size_t k = (i + j) % HIXL_STAGE_BUFS;

		if (s->round[k].n) {
			ret = read_done(eng, s, k, failed, why, wlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int hixl_transfer_run(struct hixl_engine *eng, const struct hixl_sockaddr *remote, uint32_t op,
		      const struct hixl_op_desc *descs, size_t count, long long deadline,
		      uint64_t tag, const bool *cancel, size_t *failed, char *why, size_t wlen)
{
	struct hixl_op_desc *direct = NULL;
	size_t *sidx = NULL, *didx, ns = 0, nd = 0, f;
	struct stage_cursor c;
	struct stage_slot *s;
	void *ctx = NULL, *dc;
	int ret = 0, rc;

	if (!__atomic_load_n(&eng->nstaged, __ATOMIC_ACQUIRE))
		return hixl_transfer_chunks(eng->fd, remote, op, descs, count, deadline, tag,
					    cancel, failed);
	sidx = malloc(2 * count * sizeof(*sidx));
	direct = malloc(count * sizeof(*direct));
	if (!sidx || !direct) {
		ret = -ENOMEM;
		*failed = count;
		goto out;
	}
	didx = sidx + count;
	pthread_mutex_lock(&eng->lock);
	for (size_t i = 0; i < count; i++) {
		dc = descs[i].len ? staged_find(eng, descs[i].local_addr, descs[i].len) : NULL;
		if (dc) {
			if (!ctx)
				ctx = dc;
			sidx[ns++] = i;
		} else {
			didx[nd] = i;
			direct[nd++] = descs[i];
		}
	}
	pthread_mutex_unlock(&eng->lock);
	if (!ns) {
		ret = hixl_transfer_chunks(eng->fd, remote, op, descs, count, deadline, tag,
					   cancel, failed);
		goto out;
	}
	if (nd) {
		f = nd;
		ret = hixl_transfer_chunks(eng->fd, remote, op, direct, nd, deadline, tag, cancel,
					   &f);
		if (ret) {
			*failed = f < nd ? didx[f] : count;
			goto out;
		}
	}
	/*
	 * One stream, in the context of the first staged region: with unified
	 * addressing the driver copies any device memory on it
	 */
	rc = hixl_cu_push(ctx);
	if (rc) {
		ret = cu_fail(why, wlen, rc, "cuCtxPushCurrent");
		*failed = sidx[0];
		goto out;
	}
	s = slot_get(eng, ctx, deadline, &ret, why, wlen);
	if (!s) {
		hixl_cu_pop();
		*failed = sidx[0];
		goto out;
	}
	c = (struct stage_cursor){ .descs = descs, .sidx = sidx, .ns = ns };
	if (op == HIXL_OP_WRITE)
		ret = stage_write(eng, s, &c, remote, deadline, tag, cancel, failed, why, wlen);
	else
		ret = stage_read(eng, s, &c, remote, deadline, tag, cancel, failed, why, wlen);
	/* nothing of this transfer may still copy into or out of the buffers */
	rc = hixl_cu_stream_sync(s->stream);
	if (rc && !ret) {
		ret = cu_fail(why, wlen, rc, "cuStreamSynchronize");
		*failed = count;
	}
	hixl_cu_pop();
	if (ret)
		__atomic_add_fetch(&eng->staged_errors, 1, __ATOMIC_RELAXED);
	slot_put(eng, s);
	if (!ret)
		*failed = count;
out:
	free(sidx);
	free(direct);
	return ret;
}

/*
 * The staged request threads: at most HIXL_STAGE_THREADS of an engine,
 * each taking requests from eng->stage_qhead until none is left.
 */
static void *staged_thread(void *arg)
{
	struct hixl_engine *eng = arg;
	struct hixl_request *r;
	size_t failed;
	int ret;

	pthread_mutex_lock(&eng->lock);
	while ((r = eng->stage_qhead)) {
		eng->stage_qhead = r->qnext;
		if (!eng->stage_qhead)
			eng->stage_qtail = NULL;
		r->qnext = NULL;
		pthread_mutex_unlock(&eng->lock);

		/* r stays: it is WAITING, so nobody frees it */
		failed = 0;	/* not started: no descriptor is known to be done */
		ret = round_stop(eng, r->deadline, &r->cancel);
		if (!ret)
			ret = hixl_transfer_run(eng, &r->remote, r->op, r->descs, r->count,
						r->deadline, r->tag, &r->cancel, &failed, NULL, 0);
		pthread_mutex_lock(&eng->lock);
		r->running = false;
		eng->running--;
		hixl_req_end(eng, r, ret, failed);
		pthread_cond_broadcast(&eng->cond);
	}
	eng->stage_threads--;
	pthread_cond_broadcast(&eng->cond);	/* finalize waits for none left */
	pthread_mutex_unlock(&eng->lock);
	return NULL;
}

/*
 * Queue request r for the staged request threads, starting one if fewer
 * than HIXL_STAGE_THREADS run.  From here r counts as running (finalize
 * and hixl_request_cancel() wait for its end; the thread ends it at once
 * when it was cancelled meanwhile).  eng->lock held.
 */
int hixl_staged_start(struct hixl_engine *eng, struct hixl_request *r)
{
	pthread_attr_t a;
	pthread_t t;
	int ret = 0;

	if (eng->stage_threads < HIXL_STAGE_THREADS) {
		if (pthread_attr_init(&a))
			return -EAGAIN;
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		ret = pthread_create(&t, &a, staged_thread, eng);
		pthread_attr_destroy(&a);
		if (!ret)
			eng->stage_threads++;
		else if (!eng->stage_threads)
			return -EAGAIN;	/* nobody would run it */
	}
	r->running = true;
	eng->running++;
	if (eng->stage_qtail)
		eng->stage_qtail->qnext = r;
	else
		eng->stage_qhead = r;
	eng->stage_qtail = r;
	return 0;
}

/*
 * hixl_request_cancel() of r: true when r was still queued for the staged
 * request threads, now taken out and no longer running (the caller ends
 * it).  eng->lock held.
 */
bool hixl_staged_unqueue(struct hixl_engine *eng, struct hixl_request *r)
{
	struct hixl_request **pp, *prev = NULL;

	for (pp = &eng->stage_qhead; *pp; prev = *pp, pp = &(*pp)->qnext) {
		if (*pp != r)
			continue;
		*pp = r->qnext;
		if (eng->stage_qtail == r)
			eng->stage_qtail = prev;
		r->qnext = NULL;
		r->running = false;
		eng->running--;
		return true;
	}
	return false;
}

/* Finalize: wait until the staged request threads are gone.  eng->lock held. */
void hixl_staged_wait(struct hixl_engine *eng)
{
	while (eng->stage_threads)
		pthread_cond_wait(&eng->cond, &eng->lock);
}

HIXL_EXPORT int hixl_engine_staged_stats(const struct hixl_engine *eng,
					 struct hixl_staged_stats *st)
{
	if (!eng || !st)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->regions = __atomic_load_n(&eng->nstaged, __ATOMIC_RELAXED);
	st->bytes_written = __atomic_load_n(&eng->staged_written, __ATOMIC_RELAXED);
	st->bytes_read = __atomic_load_n(&eng->staged_read, __ATOMIC_RELAXED);
	st->rounds = __atomic_load_n(&eng->staged_rounds, __ATOMIC_RELAXED);
	st->errors = __atomic_load_n(&eng->staged_errors, __ATOMIC_RELAXED);
	return 0;
}
