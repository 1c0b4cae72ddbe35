// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - the user tests' wire peer (see peer.h): librdmacm + libibverbs,
 * synchronous, one connection.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "harness.h"
#include "peer.h"
#include "util.h"

static int hp_cm_wait(struct hp *p, enum rdma_cm_event_type want, int ms)
{
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = p->ec->fd, .events = POLLIN };
	int got, st;

	if (poll(&pfd, 1, ms) <= 0)
		return -ETIMEDOUT;
	if (rdma_get_cm_event(p->ec, &ev))
		return -errno;
	got = ev->event;
	st = ev->status;
	rdma_ack_cm_event(ev);
	if (got == RDMA_CM_EVENT_DISCONNECTED) {
		p->disconnected = true;
		return -ECONNRESET;
	}
	if (got != (int)want)
		return st < 0 ? st : -ECONNREFUSED;
	return 0;
}

static struct ibv_mr *hp_reg(struct hp *p, uint8_t **buf, size_t len, int access)
{
	*buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		return NULL;
	}
	memset(*buf, 0, len);
	return ibv_reg_mr(p->pd, *buf, len, access);
}

static int hp_post_recv(struct hp *p, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->rx + (size_t)i * HIXL_MSG_SIZE),
		.length = HIXL_MSG_SIZE, .lkey = p->rx_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(p->qp, &wr, &bad) ? -EIO : 0;
}

int hp_connect(struct hp *p, uint16_t port, size_t land_len, size_t mem_len)
{
	return hp_connect_cm(p, port, land_len, mem_len, 0);
}

int hp_connect_cm(struct hp *p, uint16_t port, size_t land_len, size_t mem_len,
		  uint16_t cm_flags)
{
	int ret = hp_dial(p, port, land_len, mem_len, cm_flags);

	return ret ? ret : hp_cm_wait(p, RDMA_CM_EVENT_ESTABLISHED, 10000);
}

int hp_dial(struct hp *p, uint16_t port, size_t land_len, size_t mem_len, uint16_t cm_flags)
{
	return hp_dial_to(p, HX_IP, port, land_len, mem_len, cm_flags);
}

static int hp_dial_opts(struct hp *p, const char *ip, uint16_t port, size_t land_len,
			size_t mem_len, uint16_t cm_flags, bool no_rx);

int hp_dial_to(struct hp *p, const char *ip, uint16_t port, size_t land_len, size_t mem_len,
	       uint16_t cm_flags)
{
	return hp_dial_opts(p, ip, port, land_len, mem_len, cm_flags, false);
}

int hp_dial_norx(struct hp *p, uint16_t port)
{
	return hp_dial_opts(p, HX_IP, port, 0, 0, 0, true);
}

static int hp_dial_opts(struct hp *p, const char *ip, uint16_t port, size_t land_len,
			size_t mem_len, uint16_t cm_flags, bool no_rx)
{
	struct hixl_wire_cm_req req = {
		.magic = htole32(HIXL_WIRE_MAGIC),
		.version = htole16(HIXL_WIRE_VERSION),
		.flags = htole16(cm_flags),
	};
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 64, .max_recv_wr = HP_RX_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	int ret;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->no_rx = no_rx;
	inet_pton(AF_INET, ip, &dst.sin_addr);
	p->ec = rdma_create_event_channel();
	if (!p->ec)
		SKIP("no RDMA CM in userspace (rdma_ucm)");
	if (rdma_create_id(p->ec, &p->id, p, RDMA_PS_TCP))
		return -errno;
	if (rdma_resolve_addr(p->id, NULL, (struct sockaddr *)&dst, 2000))
		return -errno;
	ret = hp_cm_wait(p, RDMA_CM_EVENT_ADDR_RESOLVED, 5000);
	if (ret)
		SKIP("no RDMA device for the engine's address");
	if (rdma_resolve_route(p->id, 2000))
		return -errno;
	ret = hp_cm_wait(p, RDMA_CM_EVENT_ROUTE_RESOLVED, 5000);
	if (ret)
		return ret;
	p->pd = ibv_alloc_pd(p->id->verbs);
	p->cq = p->pd ? ibv_create_cq(p->id->verbs, 128, NULL, NULL, 0) : NULL;
	if (!p->cq)
		return -ENOMEM;
	qa.send_cq = p->cq;
	qa.recv_cq = p->cq;
	if (rdma_create_qp(p->id, p->pd, &qa))
		return -errno;
	p->qp = p->id->qp;
	p->rx_mr = hp_reg(p, &p->rx, (size_t)HP_RX_DEPTH * HIXL_MSG_SIZE, IBV_ACCESS_LOCAL_WRITE);
	p->tx_mr = hp_reg(p, &p->tx, HP_TX_SIZE, IBV_ACCESS_LOCAL_WRITE);
	p->backlog = calloc(HP_RX_DEPTH, sizeof(*p->backlog));
	if (!p->rx_mr || !p->tx_mr || !p->backlog)
		return -ENOMEM;
	if (land_len) {
		p->land_len = land_len;
		p->land_mr = hp_reg(p, &p->land, land_len, rw);
		if (!p->land_mr)
			return -ENOMEM;
	}
	if (mem_len) {
		p->mem_len = mem_len;
		p->mem_mr = hp_reg(p, &p->mem, mem_len, rw);
		if (!p->mem_mr)
			return -ENOMEM;
	}
	for (i = 0; i < HP_RX_DEPTH && !p->no_rx; i++)
		if (hp_post_recv(p, i))
			return -EIO;
	if (cm_flags) {
		cp.private_data = &req;
		cp.private_data_len = sizeof(req);
	}
	if (rdma_connect(p->id, &cp))
		return -errno;
	return 0;
}

int hp_wait_established(struct hp *p, int ms)
{
	return hp_cm_wait(p, RDMA_CM_EVENT_ESTABLISHED, ms);
}

/*
 * The QP to ERROR and its receive queue flushed, as ib_drain_rq() does and
 * hixl before its RESET (kmod/link_life.c hixl_link_destroy_qp()): the
 * first flushed receive says rxe's responder has run in the ERROR state,
 * after every packet it had accepted (it accepts none in ERROR); without
 * receives posted (a peer that never receives) a short grace instead.
 * Linux 6.1's rxe resets a QP by running its responder directly
 * (rxe_qp_reset() calls __rxe_do_task()), beside a responder a packet still
 * runs from the sender's softirq: both take the packet off the queue and
 * drop the QP's reference, and the QP's refcount underflows (a WARNING in
 * __rxe_put() from rxe_responder()).  At most HP_DRAIN_MS.
 */
#define HP_DRAIN_MS	200

static void hp_drain(struct hp *p)
{
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	int i;

	if (ibv_modify_qp(p->qp, &err, IBV_QP_STATE))
		return;
	if (p->no_rx) {
		usleep(10000);
		return;
	}
	for (i = 0; i < HP_DRAIN_MS * 10; i++) {
		int n = ibv_poll_cq(p->cq, 1, &wc);

		if (n < 0)
			return;
		if (n == 0) {
			usleep(100);
			continue;
		}
		/* a receive's wr_id is its slot; sends are UINT64_MAX (hp_post_wait()) */
		if (wc.wr_id < HP_RX_DEPTH && wc.status == IBV_WC_WR_FLUSH_ERR) {
			usleep(1000);	/* the responder's run that flushed it ends */
			return;
		}
	}
}

void hp_close(struct hp *p)
{
	if (p->id && !p->disconnected)
		rdma_disconnect(p->id);
	if (p->qp) {
		/* drained and RESET first, as hixl does (kmod/link_life.c) */
		struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };

		hp_drain(p);
		ibv_modify_qp(p->qp, &reset, IBV_QP_STATE);
		rdma_destroy_qp(p->id);
	}
	if (p->mem_mr)
		ibv_dereg_mr(p->mem_mr);
	if (p->land_mr)
		ibv_dereg_mr(p->land_mr);
	if (p->tx_mr)
		ibv_dereg_mr(p->tx_mr);
	if (p->rx_mr)
		ibv_dereg_mr(p->rx_mr);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ec)
		rdma_destroy_event_channel(p->ec);
	if (p->mem)
		munmap(p->mem, p->mem_len);
	if (p->land)
		munmap(p->land, p->land_len);
	if (p->tx)
		munmap(p->tx, HP_TX_SIZE);
	free(p->backlog);
	if (p->rx)
		munmap(p->rx, (size_t)HP_RX_DEPTH * HIXL_MSG_SIZE);
	memset(p, 0, sizeof(*p));
}

static int hp_rx(struct hp *p, struct ibv_wc *wc);

/* after the engine's DREQ, how long a posted WR's completion is awaited */
#define HP_DISC_GRACE_MS	2000

/*
 * Post one work request (wr_id UINT64_MAX) and wait up to ms for its
 * completion; receives seen meanwhile are kept by hp_rx() for hp_pump().
 * 0, or -ECONNRESET with its status in *st when it completed in error, or
 * when it did not complete within HP_DISC_GRACE_MS of the engine's DREQ.
 */
static int hp_post_wait(struct hp *p, struct ibv_send_wr *wr, int ms, int *st)
{
	struct ibv_send_wr *bad;
	struct timespec t0;

	wr->wr_id = UINT64_MAX;
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(p->qp, wr, &bad))
		return -EIO;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hx_ms_since(&t0) < ms) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(p->cq, 1, &wc);

		if (n < 0)
			return -EIO;
		if (!n) {
			struct pollfd pfd = { .fd = p->ec->fd, .events = POLLIN };

			/*
			 * The engine closed the link: after its DREQ, our WR's
			 * ACK may still come (the engine took the message, then
			 * closed), or never (its QP is gone: the WR would wait
			 * out its retries, up to ms).  Wait HP_DISC_GRACE_MS.
			 */
			if (!p->disconnected && poll(&pfd, 1, 0) > 0 &&
			    hp_cm_wait(p, RDMA_CM_EVENT_DISCONNECTED, 0) == -ECONNRESET) {
				clock_gettime(CLOCK_MONOTONIC, &t0);
				ms = HP_DISC_GRACE_MS;
			}
			usleep(100);
			continue;
		}
		if (wc.wr_id == UINT64_MAX) {
			if (st)
				*st = wc.status;
			return wc.status == IBV_WC_SUCCESS ? 0 : -ECONNRESET;
		}
		hp_rx(p, &wc);	/* a receive: kept for hp_pump() */
	}
	return p->disconnected ? -ECONNRESET : -ETIMEDOUT;
}

/* Post one SEND of p->tx and wait for its completion. */
static int hp_post_send(struct hp *p, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p->tx, .length = len, .lkey = p->tx_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND };

	return hp_post_wait(p, &wr, 10000, NULL);
}

int hp_rdma(struct hp *p, bool write, void *local, uint32_t len, uint64_t raddr,
	    uint32_t rkey, int ms, int *wc_status)
{
	uint8_t *b = local;
	struct ibv_mr *mr = NULL;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int ret;

	if (p->land && b >= p->land && len <= p->land_len && b - p->land <= (long)(p->land_len - len))
		mr = p->land_mr;
	else if (p->mem && b >= p->mem && len <= p->mem_len &&
		 b - p->mem <= (long)(p->mem_len - len))
		mr = p->mem_mr;
	if (!mr)
		return -EINVAL;
	sge = (struct ibv_sge){ .addr = (uintptr_t)b, .length = len, .lkey = mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	ret = hp_post_wait(p, &wr, ms, wc_status);
	return ret == -ECONNRESET ? -EREMOTEIO : ret;
}

static void hp_hdr(void *buf, uint16_t type, uint32_t len)
{
	struct hixl_wire_hdr *h = buf;

	h->magic = htole32(HIXL_WIRE_MAGIC);
	h->type = htole16(type);
	h->version = htole16(HIXL_WIRE_VERSION);
	h->len = htole32(len);
	h->reserved = 0;
}

int hp_send(struct hp *p, uint16_t type, uint32_t len)
{
	hp_hdr(p->tx, type, len);
	return hp_post_send(p, len);
}

int hp_send_raw(struct hp *p, const void *buf, uint32_t len)
{
	if (len > HP_TX_SIZE)
		return -EINVAL;
	memcpy(p->tx, buf, len);
	return hp_post_send(p, len);
}

int hp_hello(struct hp *p, uint16_t my_port, uint64_t stage_size)
{
	struct hixl_wire_hello *h = (void *)p->tx;

	memset(h, 0, sizeof(*h));
	h->engine.family = htole16(AF_INET);
	h->engine.port = htole16(my_port);
	inet_pton(AF_INET, HX_IP, h->engine.addr);
	if (p->land_mr && stage_size) {
		h->stage_iova = htole64((uintptr_t)p->land);
		h->stage_size = htole64(stage_size);
		h->stage_rkey = htole32(p->land_mr->rkey);
	}
	return hp_send(p, HIXL_MSG_HELLO, sizeof(*h));
}

int hp_region(struct hp *p)
{
	struct hixl_wire_region *r = (void *)p->tx;

	memset(r, 0, sizeof(*r) + sizeof(r->mrs[0]));
	r->addr = htole64((uintptr_t)p->mem);
	r->len = htole64(p->mem_len);
	r->flags = htole32(HIXL_WIRE_REGION_WRITABLE);
	r->nr_mrs = htole32(1);
	r->first = 0;
	r->count = htole32(1);
	r->mrs[0].addr = r->addr;
	r->mrs[0].len = r->len;
	r->mrs[0].iova = r->addr;
	r->mrs[0].rkey = htole32(p->mem_mr->rkey);
	return hp_send(p, HIXL_MSG_REGION, sizeof(*r) + sizeof(r->mrs[0]));
}

int hp_table_end(struct hp *p)
{
	return hp_send(p, HIXL_MSG_TABLE_END, sizeof(struct hixl_wire_hdr));
}

int hp_stage_done(struct hp *p, uint64_t seq, uint32_t status, uint32_t failed)
{
	struct hixl_wire_stage_done *d = (void *)p->tx;

	memset(d, 0, sizeof(*d));
	d->seq = htole64(seq);
	d->status = htole32(status);
	d->failed = htole32(failed);
	return hp_send(p, HIXL_MSG_STAGE_DONE, sizeof(*d));
}

/* A receive completion: keep the message, repost the buffer. */
static int hp_rx(struct hp *p, struct ibv_wc *wc)
{
	unsigned int i = wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS || !(wc->opcode & IBV_WC_RECV))
		return -ECONNRESET;
	if (p->nback < HP_RX_DEPTH) {	/* at most HP_RX_DEPTH receives are posted */
		memcpy(p->backlog[p->nback].buf, p->rx + (size_t)i * HIXL_MSG_SIZE, wc->byte_len);
		p->backlog[p->nback].len = wc->byte_len;
		p->nback++;
	}
	if (p->hold_rx) {		/* the engine's next SEND meets an empty queue */
		p->held[p->nheld++] = i;
		return 0;
	}
	return hp_post_recv(p, i);
}

int hp_release_rx(struct hp *p)
{
	p->hold_rx = false;
	while (p->nheld)
		if (hp_post_recv(p, p->held[--p->nheld]))
			return -EIO;
	return 0;
}

int hp_ack(struct hp *p)
{
	struct hixl_wire_ack *a = (void *)p->tx;

	if (p->applied == p->received)
		return 0;
	p->applied = p->received;
	a->applied = htole64(p->applied);
	return hp_send(p, HIXL_MSG_TABLE_ACK, sizeof(*a));
}

/* Log MR entries first..first+count-1 of one region the engine announced. */
static void hp_region_log(struct hp *p, uint64_t addr, uint64_t len, uint32_t flags,
			  uint32_t first, uint32_t count, const struct hixl_wire_mr *mrs)
{
	struct hp_tbl_ent *e;
	uint32_t i;

	for (i = 0; i < count; i++) {
		if (le64toh(mrs[i].iova) > p->max_iova)
			p->max_iova = le64toh(mrs[i].iova);
		if (p->nmrs < HP_MR_LOG)
			p->mrs[p->nmrs++] = (struct hp_mr){
				.raddr = addr, .rlen = len, .rflags = flags,
				.addr = le64toh(mrs[i].addr), .len = le64toh(mrs[i].len),
				.iova = le64toh(mrs[i].iova), .rkey = le32toh(mrs[i].rkey),
			};
	}
	if (p->ntbl == HP_TBL_LOG)
		return;
	e = &p->tbl[p->ntbl++];
	memset(e, 0, sizeof(*e));
	e->type = HIXL_MSG_REGION;
	e->first = first;
	e->addr = addr;
	e->len = len;
	if (count) {
		e->mr_addr = le64toh(mrs[0].addr);
		e->mr_iova = le64toh(mrs[0].iova);
		e->mr_rkey = le32toh(mrs[0].rkey);
	}
}

const struct hp_mr *hp_mr_find(const struct hp *p, uint64_t raddr, uint64_t addr)
{
	unsigned int i;

	for (i = p->nmrs; i-- > 0;)	/* the latest announcement first */
		if (p->mrs[i].raddr == raddr && addr >= p->mrs[i].addr &&
		    addr - p->mrs[i].addr < p->mrs[i].len)
			return &p->mrs[i];
	return NULL;
}

/* Log a REGION, REGIONS or REGION_DEL of the engine (p->msg); REGIONS as one REGION each. */
static void hp_tbl_log(struct hp *p, uint16_t type)
{
	const struct hixl_wire_region *r = (const void *)p->msg;
	const struct hixl_wire_regions *rs = (const void *)p->msg;
	const struct hixl_wire_region_del *d = (const void *)p->msg;
	uint32_t i, n, off = sizeof(*rs);

	p->received++;
	if (type == HIXL_MSG_REGION && p->msg_len >= sizeof(*r)) {
		n = (p->msg_len - sizeof(*r)) / sizeof(r->mrs[0]);
		if (le32toh(r->count) < n)
			n = le32toh(r->count);
		hp_region_log(p, le64toh(r->addr), le64toh(r->len), le32toh(r->flags),
			      le32toh(r->first), n, r->mrs);
		return;
	}
	if (type == HIXL_MSG_REGIONS && p->msg_len >= sizeof(*rs)) {
		for (i = 0; i < le32toh(rs->count) &&
			    p->msg_len - off >= sizeof(struct hixl_wire_region_ent); i++) {
			const struct hixl_wire_region_ent *e = (const void *)(p->msg + off);

			n = le32toh(e->nr_mrs);
			if (n > (p->msg_len - off - sizeof(*e)) / sizeof(e->mrs[0]))
				break;
			hp_region_log(p, le64toh(e->addr), le64toh(e->len), le32toh(e->flags), 0,
				      n, e->mrs);
			off += sizeof(*e) + n * sizeof(e->mrs[0]);
		}
		return;
	}
	if (type != HIXL_MSG_REGION_DEL || p->msg_len < sizeof(*d))
		return;
	for (i = 0; i < p->nmrs;)
		if (p->mrs[i].raddr == le64toh(d->addr))
			p->mrs[i] = p->mrs[--p->nmrs];
		else
			i++;
	if (p->ntbl == HP_TBL_LOG)
		return;
	p->tbl[p->ntbl] = (struct hp_tbl_ent){
		.type = type, .addr = le64toh(d->addr), .len = le64toh(d->len),
	};
	p->ntbl++;
}

unsigned int hp_tbl_count(const struct hp *p, uint16_t type, uint64_t addr)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->ntbl; i++)
		if (p->tbl[i].type == type && p->tbl[i].addr == addr &&
		    (type != HIXL_MSG_REGION || p->tbl[i].first == 0))
			n++;
	return n;
}

/* Take one message from the backlog: its type for the test, 0 when handled here. */
static int hp_take(struct hp *p)
{
	const struct hixl_wire_hdr *h = (const void *)p->msg;	/* not the backlog: it moves */
	uint32_t len = p->backlog[0].len;
	int type;

	memcpy(p->msg, p->backlog[0].buf, len);
	type = len >= sizeof(*h) ? le16toh(h->type) : -EPROTO;
	p->msg_len = len;
	memmove(&p->backlog[0], &p->backlog[1], (p->nback - 1) * sizeof(p->backlog[0]));
	p->nback--;
	switch (type) {
	case HIXL_MSG_REGION:
	case HIXL_MSG_REGIONS:
	case HIXL_MSG_REGION_DEL:
		hp_tbl_log(p, type);
		return p->hold_acks ? type : hp_ack(p);
	case HIXL_MSG_TABLE_END:
		p->table_end = true;
		return 0;
	case HIXL_MSG_TABLE_ACK:
		if (len >= sizeof(struct hixl_wire_ack) &&
		    le64toh(((const struct hixl_wire_ack *)h)->applied) > p->acked)
			p->acked = le64toh(((const struct hixl_wire_ack *)h)->applied);
		return 0;
	case HIXL_MSG_HELLO:
		if (len >= sizeof(struct hixl_wire_hello)) {
			const struct hixl_wire_hello *hm = (const void *)h;

			if (!p->hello_seen) {
				memcpy(&p->hello, hm, sizeof(p->hello));
				p->hello_len = len < sizeof(p->hello_raw) ? len : sizeof(p->hello_raw);
				memcpy(p->hello_raw, hm, p->hello_len);
				p->hello_seen = true;
			}
			p->eng_hello = true;
			p->eng_stage_iova = le64toh(hm->stage_iova);
			p->eng_stage_size = le64toh(hm->stage_size);
			p->eng_stage_rkey = le32toh(hm->stage_rkey);
		}
		return 0;
	default:
		return type;
	}
}

int hp_pump(struct hp *p, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct ibv_wc wc;
		struct pollfd pfd = { .fd = p->ec->fd, .events = POLLIN };
		int n;

		while (p->nback) {
			int t = hp_take(p);

			if (t)
				return t;
		}
		n = ibv_poll_cq(p->cq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (n) {
			if (wc.wr_id == UINT64_MAX)
				continue;	/* a late send completion */
			if (hp_rx(p, &wc))
				return -ECONNRESET;
			continue;
		}
		if (!p->disconnected && poll(&pfd, 1, 0) > 0)
			hp_cm_wait(p, RDMA_CM_EVENT_DISCONNECTED, 0);
		if (p->disconnected)
			return -ECONNRESET;
		if (hx_ms_since(&t0) >= ms)
			return 0;
		usleep(200);
	}
}

static int hp_exchange(struct hp *p, uint16_t my_port, uint64_t stage_size, bool end)
{
	struct timespec t0;
	int ret = hp_hello(p, my_port, stage_size);

	if (!ret && p->mem_mr)
		ret = hp_region(p);
	if (!ret && end)
		ret = hp_table_end(p);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ret && !p->table_end && hx_ms_since(&t0) < 10000) {
		ret = hp_pump(p, 100);
		if (ret > 0)
			ret = -EPROTO;	/* nothing but the table is expected yet */
	}
	if (!ret && !p->table_end)
		ret = -ETIMEDOUT;
	return ret;
}

int hp_handshake(struct hp *p, uint16_t my_port, uint64_t stage_size)
{
	return hp_exchange(p, my_port, stage_size, true);
}

int hp_handshake_open(struct hp *p, uint16_t my_port, uint64_t stage_size)
{
	return hp_exchange(p, my_port, stage_size, false);
}

int hp_wait_disconnect(struct hp *p, int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!p->disconnected && hx_ms_since(&t0) < ms) {
		struct pollfd pfd = { .fd = p->ec->fd, .events = POLLIN };
		int ret = hp_pump(p, 50);

		/*
		 * Our receives flush (the QP went to error) before RDMA CM's
		 * DISCONNECTED event is read: wait for the event itself.
		 */
		if ((ret == -ECONNRESET || ret == -EIO) && !p->disconnected &&
		    poll(&pfd, 1, 50) > 0)
			hp_cm_wait(p, RDMA_CM_EVENT_DISCONNECTED, 0);
	}
	return p->disconnected;
}
