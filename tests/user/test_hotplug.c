// SPDX-License-Identifier: GPL-2.0
/*
 * test_hotplug.c - the RDMA device going away under engines: `rdma link
 * delete rxe0` in the middle of a batch, and while an engine is being
 * closed (hixl.ko's ib_client remove, kmod/engine.c).  The device must
 * unregister without waiting for the engines' files to close, every waiter
 * gets an error, the engines keep their registrations and answer -ENODEV,
 * and after the device is back a new SETUP makes everything work again.
 * rxe0 is restored whatever happens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "raw.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define LEN (4 * MiB)

void test_dev_removed_mid_batch(void);

struct job {
	int fd;
	uint16_t port;
	struct hixl_op_desc *d;
	uint32_t n;
	long ret;		/* the first failing TRANSFER's */
	int rounds;
	volatile int stop;
};

/* WRITE batches until one fails (or stop): the device goes away meanwhile. */
static void *writer(void *arg)
{
	struct job *j = arg;

	j->ret = 0;
	while (!j->stop) {
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(j->port);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)j->d;
		t.count = j->n;
		t.timeout_ms = 30000;
		j->ret = xioctl(j->fd, HIXL_IOC_TRANSFER, &t);
		if (j->ret)
			break;
		j->rounds++;
	}
	return NULL;
}

static int port_active(void)
{
	FILE *f = fopen("/sys/class/infiniband/rxe0/ports/1/state", "r");
	char s[64] = "";

	if (!f)
		return 0;
	if (!fgets(s, sizeof(s), f))
		s[0] = 0;
	fclose(f);
	return strstr(s, "ACTIVE") != NULL;
}

/* Put rxe0 back on veth0 and wait for it; 0 or -1 (loudly). */
static int restore_rxe0(void)
{
	if (access("/sys/class/infiniband/rxe0", F_OK) != 0 &&
	    system("rdma link add rxe0 type rxe netdev veth0") != 0) {
		printf("#   RESTORING rxe0 FAILED: later tests will fail\n");
		return -1;
	}
	for (int i = 0; i < 200 && !port_active(); i++)
		usleep(50000);
	if (!port_active()) {
		printf("#   rxe0 is back but not ACTIVE\n");
		return -1;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void test_dev_removed_mid_batch(void)
{
	long pin0 = vm_pin_kb();
	unsigned char *la, *rb;
	struct hixl_op_desc *d;
	struct hixl_stats st;
	struct job j;
	pthread_t th;
	uint32_t n = LEN / (4 * KiB);
	int a, b, rc;
	double t0;

	if (access("/sys/class/infiniband/rxe0", F_OK) != 0)
		SKIP("no rxe0 (runs in the test VM)");
	if (system("command -v rdma >/dev/null") != 0)
		SKIP("no rdma tool (iproute2)");
	a = open_dev();
	b = open_dev();
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(hixl_raw_setup(a, HX_IP, 16301, 0, 0) == 0);
	REQUIRE(hixl_raw_setup(b, HX_IP, 16302, 0, 0) == 0);
	la = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rb = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d = calloc(n, sizeof(*d));
	REQUIRE(la != MAP_FAILED && rb != MAP_FAILED && d);
	memset(la, 0x5a, LEN);
	memset(rb, 0, LEN);
	for (uint32_t i = 0; i < n; i++) {
		d[i].local_addr = (uintptr_t)(la + i * 4 * KiB);
		d[i].remote_addr = (uintptr_t)(rb + i * 4 * KiB);
		d[i].len = 4 * KiB;
	}
	REQUIRE(reg_mem(a, la, LEN, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, LEN, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 16302, 5000) == 0);

	memset(&j, 0, sizeof(j));
	j.fd = a;
	j.port = 16302;
	j.d = d;
	j.n = n;
	REQUIRE(pthread_create(&th, NULL, writer, &j) == 0);
	usleep(300000);
	t0 = now_ms();
	rc = system("timeout 120 rdma link delete rxe0");
	printf("#   rdma link delete rxe0: exit %d after %.0f ms, %d batches done before\n",
	       rc, now_ms() - t0, j.rounds);
	CHECK_EQ(rc, 0);
	j.stop = 1;
	pthread_join(th, NULL);
	printf("#   the batch in flight ended with %ld\n", j.ret);
	CHECK(j.ret == -ECONNRESET || j.ret == -ENETDOWN || j.ret == -ENODEV || j.ret == -EIO ||
	      j.ret == -ENOTCONN);

	/* the engines stay, without their device */
	{
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(16302);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)d;
		t.count = 1;
		t.timeout_ms = 1000;
		CHECK_EQ(xioctl(a, HIXL_IOC_TRANSFER, &t), -ENODEV);
	}
	CHECK_EQ(hx_connect(a, 16302, 5000), -ENODEV);
	st = get_stats(a);
	CHECK_EQ(st.regions, 1);		/* still registered (and pinned) */

	/* the device comes back: a new SETUP, and everything works again */
	if (restore_rxe0()) {
		ht_failures++;
		return;
	}
	CHECK_EQ(hixl_raw_setup(a, HX_IP, 16301, 0, 0), 0);
	CHECK_EQ(hixl_raw_setup(b, HX_IP, 16302, 0, 0), 0);
	CHECK_EQ(hx_connect(a, 16302, 5000), 0);
	memset(rb, 0, LEN);
	memset(la, 0x6b, LEN);
	{
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(16302);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)d;
		t.count = n;
		t.timeout_ms = 30000;
		CHECK_EQ(xioctl(a, HIXL_IOC_TRANSFER, &t), 0);
	}
	CHECK(memcmp(la, rb, LEN) == 0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
	free(d);
}

/* rxe0's index, as `rdma dev show` prints it; -1 when not found */
static int rxe0_index(void)
{
	FILE *f = popen("rdma dev show rxe0 2>/dev/null", "r");
	unsigned int idx;
	int ret = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%u: rxe0:", &idx) == 1)
		ret = (int)idx;
	pclose(f);
	return ret;
}

/*
 * `rdma link delete` without the tool: RDMA_NLDEV_CMD_DELLINK for device
 * @idx on NETLINK_RDMA.  The removal starts in the kernel at once (the tool
 * takes about a second to start under TCG), and the answer comes once the
 * device is unregistered.  Return: 0 or -errno.
 */
static int rdma_dellink(uint32_t idx)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr nh;
		struct nlattr na;
		uint32_t idx;
	} req;
	char ans[4096];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	ssize_t n;
	int ret = -EPROTO;

	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_DELLINK);
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nh.nlmsg_seq = 1;
	req.na.nla_len = NLA_HDRLEN + sizeof(req.idx);
	req.na.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	req.idx = idx;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
	} else {
		n = recv(fd, ans, sizeof(ans), 0);
		if (n < 0)
			ret = -errno;
		else if ((size_t)n >= NLMSG_HDRLEN + sizeof(struct nlmsgerr) &&
			 ((struct nlmsghdr *)ans)->nlmsg_type == NLMSG_ERROR)
			ret = ((struct nlmsgerr *)NLMSG_DATA((struct nlmsghdr *)ans))->error;
	}
	close(fd);
	return ret;
}

/*
 * An engine closed while rxe0 is deleted (issue 18, item 5).
 * hixl_engine_destroy() used to leave the engine list before it freed its
 * RDMA objects, so the device removal (hixl_ib_remove()) skipped the engine
 * being closed and rxe0 was unregistered and freed under that engine's MRs
 * and PD: on Debian's 6.12 (two CPUs) WARNINGs in rxe_pool_cleanup() and
 * rdma_restrack_clean(), then the close spinning in rdma_restrack_del() on
 * the freed device (soft lockup).  Now the removal waits until the close
 * has freed them.  Engine C has many registrations of 4 KiB pages, slow to
 * release; a thread closes it and the device removal starts a few
 * milliseconds later, while the close is under way.  (The debug VM has one
 * CPU and no preemption: there the close does not yield while it frees its
 * registrations, so the old race does not show, but lockdep sees the
 * removal wait for the close.)  Engine S, left open, is detached by the
 * removal while a thread CONNECTs it to a port nobody listens on (issue 18,
 * item 2: the removal freed the link under that CONNECT).  The removal
 * succeeds, the close returns, the CONNECT ends with -ENODEV, S answers
 * -ENODEV and keeps its registration, nothing stays pinned, and once rxe0
 * is back a new pair links and moves bytes.
 */
#define CVR_LEN		(32 * MiB)
#define CVR_PORT	16310

struct closer {
	int fd;
	volatile int started;	/* about to close */
	double ms;		/* the close took */
};

/* S's CONNECT to a port nobody listens on, under way when the device goes */
struct dead_connect {
	int fd;
	long ret;
};

static void *dead_connect_run(void *arg)
{
	struct dead_connect *dc = arg;

	dc->ret = hx_connect(dc->fd, CVR_PORT + 1, 30000);
	return NULL;
}

static void *closer_run(void *arg)
{
	struct closer *c = arg;
	double t0;

	c->started = 1;
	t0 = now_ms();
	close(c->fd);
	c->ms = now_ms() - t0;
	return NULL;
}

void test_close_vs_device_removal(void);
void test_close_vs_device_removal(void)
{
	long pin0 = vm_pin_kb();
	int regions = hx_debug_kernel() ? 16 : 64;	/* 512 MiB under KASAN, else 2 GiB */
	size_t len = regions * CVR_LEN;
	unsigned char *cm, *sm, *src, *dst;
	struct hixl_op_desc d;
	struct hixl_stats st;
	struct dead_connect dc;
	struct closer c;
	pthread_t th, ct;
	int idx, s, rc, a, b;
	double t0, del_ms;

	if (access("/sys/class/infiniband/rxe0", F_OK) != 0)
		SKIP("no rxe0 (runs in the test VM)");
	idx = rxe0_index();
	if (idx < 0)
		SKIP("no rdma tool (iproute2) to find rxe0's index");
	s = open_dev();
	REQUIRE(s >= 0);
	REQUIRE(hixl_raw_setup(s, HX_IP, CVR_PORT, 0, 0) == 0);
	sm = hx_map(64 * KiB);
	REQUIRE(sm);
	REQUIRE(reg_mem(s, sm, 64 * KiB, 0, NULL) == 0);
	memset(&c, 0, sizeof(c));
	c.fd = open_dev();
	REQUIRE(c.fd >= 0);
	REQUIRE(hixl_raw_setup(c.fd, HX_IP, 0, 0, 0) == 0);
	cm = hx_map(len);
	REQUIRE(cm);
	madvise(cm, len, MADV_NOHUGEPAGE);	/* 4 KiB pages: slower to release */
	memset(cm, 0x5a, len);
	for (int k = 0; k < regions; k++)
		REQUIRE(reg_mem(c.fd, cm + k * CVR_LEN, CVR_LEN, 0, NULL) == 0);
	REQUIRE(hx_connect(c.fd, CVR_PORT, 5000) == 0);	/* a link to tear down too */

	dc.fd = s;
	dc.ret = 1;
	REQUIRE(pthread_create(&ct, NULL, dead_connect_run, &dc) == 0);
	usleep(200000);		/* refused and retried by now */
	REQUIRE(pthread_create(&th, NULL, closer_run, &c) == 0);
	while (!c.started)
		usleep(100);
	usleep(5000);		/* the close is under way */
	t0 = now_ms();
	rc = rdma_dellink(idx);
	del_ms = now_ms() - t0;
	pthread_join(th, NULL);
	pthread_join(ct, NULL);
	printf("#   rxe0 deleted (%d) in %.0f ms; the engine's close took %.0f ms; "
	       "the CONNECT under way: %ld\n", rc, del_ms, c.ms, dc.ret);
	CHECK_EQ(rc, 0);
	CHECK_EQ(dc.ret, -ENODEV);
	CHECK(access("/sys/class/infiniband/rxe0", F_OK) != 0);

	/* S stays, without its device */
	CHECK_EQ(hx_connect(s, CVR_PORT + 1, 1000), -ENODEV);
	st = get_stats(s);
	CHECK_EQ(st.regions, 1);
	CHECK_EQ(st.mrs, 0);
	close(s);
	munmap(cm, len);
	munmap(sm, 64 * KiB);
	CHECK_EQ(vm_pin_kb(), pin0);

	/* the device comes back and works */
	if (restore_rxe0()) {
		ht_failures++;
		return;
	}
	a = open_dev();
	b = open_dev();
	REQUIRE(a >= 0 && b >= 0);
	CHECK_EQ(hixl_raw_setup(a, HX_IP, 0, 0, 0), 0);
	CHECK_EQ(hixl_raw_setup(b, HX_IP, CVR_PORT, 0, 0), 0);
	src = hx_map(64 * KiB);
	dst = hx_map(64 * KiB);
	REQUIRE(src && dst);
	memset(src, 0x3c, 64 * KiB);
	memset(dst, 0, 64 * KiB);
	CHECK_EQ(reg_mem(a, src, 64 * KiB, 0, NULL), 0);
	CHECK_EQ(reg_mem(b, dst, 64 * KiB, 0, NULL), 0);
	CHECK_EQ(hx_connect(a, CVR_PORT, 5000), 0);
	d.local_addr = (uintptr_t)src;
	d.remote_addr = (uintptr_t)dst;
	d.len = 64 * KiB;
	CHECK_EQ(hx_xfer(a, CVR_PORT, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK(memcmp(src, dst, 64 * KiB) == 0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
}

const struct ht_test hotplug_tests[] = {
	{ "dev_removed_mid_batch", test_dev_removed_mid_batch },
	{ "close_vs_device_removal", test_close_vs_device_removal },
	{ NULL, NULL },
};
