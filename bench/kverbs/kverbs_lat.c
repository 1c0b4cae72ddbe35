// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_lat: the latency floor of a kernel RDMA consumer, for make bench.
 *
 * Loading the module measures, in the loading process, ITERS one-WR RDMA
 * WRITEs or READs of SIZE bytes between two RC QPs of this host connected
 * through RDMA CM to ADDR (the bench VM's rxe0 address), each posted
 * signaled and spun on until its completion, with nothing of hixl in the
 * way: no ioctl, no lookup, no planning, one DMA-mapped kmalloc buffer per
 * side and the PD's global rkey.  It prints one line
 *
 *   kverbs_lat op=OP size=BYTES n=ITERS gap_us=N p50_ns= p99_ns= mean_ns= min_ns= max_ns=
 *
 * to the kernel log and stays loaded (bench/bench-lat-guest.sh reads the
 * line, then removes it).  Each WR is timed from just before ib_post_send()
 * to just after ib_poll_cq() returned its completion: the part of a hixl
 * TRANSFER that any kernel consumer of the same device pays, which
 * bench/bench-lat compares with perftest's user-space QPs.
 *
 * The wait is hixl's spinner (kmod/poll.c) without its CQ hand-off: each
 * turn runs the CPU's pending softirqs (local_bh_enable()), polls the CQ
 * and yields when the scheduler asks.  gap_us=N busy-waits N us between a
 * completion and the next post, untimed: what a caller's own work between
 * transfers leaves the device's idle CPUs.
 *
 * IB_PD_UNSAFE_GLOBAL_RKEY exposes all memory to the peer: a benchmark
 * between two QPs of one host may use it, nothing else should.
 *
 * Follows the in-kernel RDMA CM consumers' sequence (drivers/nvme/host/
 * rdma.c, net/rds/rdma_transport.c): resolve address, resolve route,
 * create QP, connect; the passive side creates its QP and accepts in its
 * CONNECT_REQUEST event.
 */
#include <linux/module.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sched.h>
#include <linux/ktime.h>
#include <linux/delay.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

static char *addr = "10.77.0.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the local RDMA device to connect through");
static char *op = "write";
module_param(op, charp, 0444);
MODULE_PARM_DESC(op, "write or read");
static uint size = 64;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per WR, 1..1048576");
static uint iters = 2000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "timed WRs, 1..1000000 (after 100 untimed)");
static uint gap_us;
module_param(gap_us, uint, 0444);
MODULE_PARM_DESC(gap_us, "busy-wait this many microseconds between a completion and the next post, untimed (0..10000)");
static ushort port = 18519;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "RDMA CM port of the passive side");

#define KL_WARMUP 100
#define KL_TIMEOUT_MS 5000

/* one side's connection; 'done' completes on the awaited event */
struct kl_side {
	struct rdma_cm_id *id;		/* the connected id (passive: the request's) */
	struct completion done;
	int status;			/* 0, or -errno of a failed event */
	enum rdma_cm_event_type want;
};

static struct kl_side kl_cli, kl_srv;
static struct ib_pd *kl_pd;
static struct ib_cq *kl_cq_cli, *kl_cq_srv;

static int kl_create_qp(struct rdma_cm_id *id, struct ib_cq *cq)
{
	struct ib_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return rdma_create_qp(id, kl_pd, &a);
}

static void kl_conn_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static int kl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kl_side *s = id->context;
	struct rdma_conn_param p;
	int ret;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* the passive side: one connection, on the client's device */
		if (kl_srv.id || !kl_pd || id->device != kl_pd->device)
			return -EINVAL;		/* rejected; the CM destroys @id */
		ret = kl_create_qp(id, kl_cq_srv);
		if (ret)
			return ret;
		kl_conn_param(&p);
		ret = rdma_accept(id, &p);
		if (ret) {
			rdma_destroy_qp(id);
			return ret;
		}
		kl_srv.want = RDMA_CM_EVENT_ESTABLISHED;
		kl_srv.id = id;
		id->context = &kl_srv;
		return 0;
	}
	if (!s || ev->event == RDMA_CM_EVENT_DISCONNECTED ||
	    ev->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
		return 0;
	if (ev->event != s->want && !completion_done(&s->done)) {
		s->status = ev->status < 0 ? ev->status : -ECONNREFUSED;
		pr_err("kverbs_lat: RDMA CM event %s (status %d) while waiting for %s\n",
		       rdma_event_msg(ev->event), ev->status, rdma_event_msg(s->want));
	}
	if (!completion_done(&s->done))
		complete(&s->done);
	return 0;
}

/* arm @s for event @want, run @start, wait for the event */
static int kl_await(struct kl_side *s, enum rdma_cm_event_type want, int started)
{
	if (started)
		return started;
	if (!wait_for_completion_timeout(&s->done, msecs_to_jiffies(KL_TIMEOUT_MS))) {
		pr_err("kverbs_lat: no %s within %d ms\n", rdma_event_msg(want), KL_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	return s->status;
}

static void kl_arm(struct kl_side *s, enum rdma_cm_event_type want)
{
	reinit_completion(&s->done);
	s->want = want;
	s->status = 0;
}

static int kl_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int kl_measure(struct ib_qp *qp, u64 laddr, u64 raddr, bool read)
{
	struct ib_sge sge = { .addr = laddr, .length = size, .lkey = kl_pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .sg_list = &sge, .num_sge = 1, .send_flags = IB_SEND_SIGNALED,
			.opcode = read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE },
		.remote_addr = raddr, .rkey = kl_pd->unsafe_global_rkey,
	};
	u64 *ns, sum = 0;
	u32 i, total = iters + KL_WARMUP;
	int ret = 0;

	ns = kvcalloc(iters, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < total; i++) {
		const struct ib_send_wr *bad;
		struct ib_wc wc;
		u64 t0;
		int n;

		if (gap_us)
			udelay(gap_us);
		t0 = ktime_get_ns();
		ret = ib_post_send(qp, &wr.wr, &bad);
		if (ret)
			break;
		for (;;) {
			local_bh_disable();
			local_bh_enable();
			n = ib_poll_cq(kl_cq_cli, 1, &wc);
			if (n)
				break;
			if (fatal_signal_pending(current)) {
				ret = -EINTR;	/* the QP's destruction flushes the WR */
				goto out;
			}
			cond_resched();
		}
		if (n < 0 || wc.status != IB_WC_SUCCESS) {
			pr_err("kverbs_lat: WR %u: %s\n", i,
			       n < 0 ? "poll failed" : ib_wc_status_msg(wc.status));
			ret = -EIO;
			goto out;
		}
		if (i >= KL_WARMUP) {
			ns[i - KL_WARMUP] = ktime_get_ns() - t0;
			sum += ns[i - KL_WARMUP];
		}
	}
	if (!ret) {
		sort(ns, iters, sizeof(*ns), kl_cmp, NULL);
		pr_info("kverbs_lat op=%s size=%u n=%u gap_us=%u p50_ns=%llu p99_ns=%llu mean_ns=%llu min_ns=%llu max_ns=%llu\n",
			op, size, iters, gap_us, ns[iters / 2], ns[(u64)iters * 99 / 100],
			div_u64(sum, iters), ns[0], ns[iters - 1]);
	}
out:
	kvfree(ns);
	return ret;
}

static int __init kl_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	bool read = !strcmp(op, "read");
	struct rdma_cm_id *lis;
	struct rdma_conn_param p;
	void *src = NULL, *dst = NULL;
	u64 sdma = 0, ddma = 0;
	struct ib_device *dev;
	int ret;

	if ((!read && strcmp(op, "write")) ||
	    !size || size > SZ_1M || gap_us > 10000 || !iters || iters > 1000000 ||
	    !in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		pr_err("kverbs_lat: bad parameters (op=%s size=%u iters=%u gap_us=%u addr=%s)\n",
		       op, size, iters, gap_us, addr);
		return -EINVAL;
	}
	init_completion(&kl_cli.done);
	init_completion(&kl_srv.done);

	lis = rdma_create_id(&init_net, kl_cm_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(lis))
		return PTR_ERR(lis);
	ret = rdma_bind_addr(lis, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(lis, 1);
	if (ret)
		goto out_lis;

	kl_cli.id = rdma_create_id(&init_net, kl_cm_handler, &kl_cli, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(kl_cli.id)) {
		ret = PTR_ERR(kl_cli.id);
		kl_cli.id = NULL;
		goto out_lis;
	}
	kl_arm(&kl_cli, RDMA_CM_EVENT_ADDR_RESOLVED);
	ret = kl_await(&kl_cli, RDMA_CM_EVENT_ADDR_RESOLVED,
		       rdma_resolve_addr(kl_cli.id, NULL, (struct sockaddr *)&sin, KL_TIMEOUT_MS));
	if (ret)
		goto out_cli;
	kl_arm(&kl_cli, RDMA_CM_EVENT_ROUTE_RESOLVED);
	ret = kl_await(&kl_cli, RDMA_CM_EVENT_ROUTE_RESOLVED,
		       rdma_resolve_route(kl_cli.id, KL_TIMEOUT_MS));
	if (ret)
		goto out_cli;

	dev = kl_cli.id->device;
	kl_pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(kl_pd)) {
		ret = PTR_ERR(kl_pd);
		kl_pd = NULL;
		goto out_cli;
	}
	kl_cq_cli = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
	kl_cq_srv = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_DIRECT);
	src = kzalloc(size, GFP_KERNEL);
	dst = kzalloc(size, GFP_KERNEL);
	if (IS_ERR(kl_cq_cli) || IS_ERR(kl_cq_srv) || !src || !dst) {
		ret = -ENOMEM;
		goto out_res;
	}
	sdma = ib_dma_map_single(dev, src, size, DMA_BIDIRECTIONAL);
	ddma = ib_dma_map_single(dev, dst, size, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, sdma) || ib_dma_mapping_error(dev, ddma)) {
		ret = -ENOMEM;
		goto out_res;
	}
	ret = kl_create_qp(kl_cli.id, kl_cq_cli);
	if (ret)
		goto out_res;
	kl_conn_param(&p);
	kl_arm(&kl_cli, RDMA_CM_EVENT_ESTABLISHED);
	ret = kl_await(&kl_cli, RDMA_CM_EVENT_ESTABLISHED, rdma_connect(kl_cli.id, &p));
	if (ret)
		goto out_qp;

	ret = kl_measure(kl_cli.id->qp, sdma, ddma, read);

	rdma_disconnect(kl_cli.id);
out_qp:
	rdma_destroy_qp(kl_cli.id);
out_res:
	if (kl_srv.id) {
		rdma_destroy_qp(kl_srv.id);
		rdma_destroy_id(kl_srv.id);
		kl_srv.id = NULL;
	}
	if (sdma && !ib_dma_mapping_error(dev, sdma))
		ib_dma_unmap_single(dev, sdma, size, DMA_BIDIRECTIONAL);
	if (ddma && !ib_dma_mapping_error(dev, ddma))
		ib_dma_unmap_single(dev, ddma, size, DMA_BIDIRECTIONAL);
	kfree(src);
	kfree(dst);
	if (!IS_ERR_OR_NULL(kl_cq_srv))
		ib_free_cq(kl_cq_srv);
	if (!IS_ERR_OR_NULL(kl_cq_cli))
		ib_free_cq(kl_cq_cli);
	ib_dealloc_pd(kl_pd);
	kl_pd = NULL;
out_cli:
	rdma_destroy_id(kl_cli.id);
out_lis:
	rdma_destroy_id(lis);
	return ret;
}

static void __exit kl_exit(void)
{
}

module_init(kl_init);
module_exit(kl_exit);
MODULE_DESCRIPTION("hixl bench: kernel RDMA verbs latency floor");
MODULE_LICENSE("GPL");
