// SPDX-License-Identifier: MIT
/*
 * workers.c - libhixl-user: the worker-thread path of asynchronous
 * transfers (the fallback when there is no io_uring): a pool of threads
 * issuing the blocking TRANSFER ioctl.
 */
#include "internal.h"

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
		r = hixl_req_dequeue(eng);
		if (!r)
			break;		/* stopping, nothing queued */
		r->running = true;
		eng->running++;
		pthread_mutex_unlock(&eng->lock);

		/* r stays: it is WAITING, so nobody frees it */
		failed = 0;	/* not issued: no descriptor is known to be done */
		if (hixl_ms_left(r->deadline) <= 0)
			ret = -ETIMEDOUT;
		else
			ret = hixl_transfer_chunks(eng->fd, &r->remote, r->op, r->descs, r->count,
				       r->deadline, r->tag, &r->cancel, &failed);

		pthread_mutex_lock(&eng->lock);
		r->running = false;
		eng->running--;
		hixl_req_end(eng, r, ret, failed);
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

/* Queue a new request for the workers, starting them.  eng->lock held. */
int hixl_workers_queue(struct hixl_engine *eng, struct hixl_request *r)
{
	int ret;

	ret = workers_start(eng);
	if (!ret) {
		hixl_req_enqueue(eng, r);
		pthread_cond_signal(&eng->qcond);
	}
	return ret;
}
