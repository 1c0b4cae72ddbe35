// SPDX-License-Identifier: GPL-2.0
/*
 * test_hotplug.c - the RDMA device going away under engines: `rdma link
 * delete rxe0` in the middle of a batch, and while an engine is being
 * closed (hixl.ko's ib_client remove, kmod/engine.c).  The device must
 * unregister without waiting for the engines' files to close, every waiter
 * gets an error, the engines keep their registrations and answer -ENODEV,
 * and after the device is back a new SETUP makes everything work again.
 * Also: a command stuck on a user page that never arrives holds up its own
 * engine and its device's removal, and nothing else (stall_confined).
 * rxe0 is restored whatever happens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <rdma/rdma_netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "raw.h"
#include "stall_util.h"

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
	if (hx_rxe_restore("rxe0", "veth0")) {
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
 * After a device removal: rxe0 comes back, a new pair of engines (one
 * listening on @port) links and moves 64 KiB verified, and nothing stays
 * pinned beyond @pin0 kB.
 */
static void back_and_working(uint16_t port, long pin0)
{
	unsigned char *src, *dst;
	struct hixl_op_desc d;
	int a, b;

	if (hx_rxe_restore("rxe0", "veth0")) {
		ht_failures++;
		return;
	}
	a = open_dev();
	b = open_dev();
	REQUIRE(a >= 0 && b >= 0);
	CHECK_EQ(hixl_raw_setup(a, HX_IP, 0, 0, 0), 0);
	CHECK_EQ(hixl_raw_setup(b, HX_IP, port, 0, 0), 0);
	src = hx_map(64 * KiB);
	dst = hx_map(64 * KiB);
	REQUIRE(src && dst);
	memset(src, 0x3c, 64 * KiB);
	memset(dst, 0, 64 * KiB);
	CHECK_EQ(reg_mem(a, src, 64 * KiB, 0, NULL), 0);
	CHECK_EQ(reg_mem(b, dst, 64 * KiB, 0, NULL), 0);
	CHECK_EQ(hx_connect(a, port, 5000), 0);
	d.local_addr = (uintptr_t)src;
	d.remote_addr = (uintptr_t)dst;
	d.len = 64 * KiB;
	CHECK_EQ(hx_xfer(a, port, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK(memcmp(src, dst, 64 * KiB) == 0);
	close(a);
	close(b);
	munmap(src, 64 * KiB);
	munmap(dst, 64 * KiB);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/*
 * An engine closed while rxe0 is deleted.
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
 * removal while a thread CONNECTs it to a port nobody listens on (the
 * removal once freed the link under that CONNECT).  The removal
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
	unsigned char *cm, *sm;
	struct hixl_stats st;
	struct dead_connect dc;
	struct closer c;
	pthread_t th, ct;
	int idx, s, rc;
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

	back_and_working(CVR_PORT, pin0);
}

/*
 * A user page that never arrives stalls its own engine, not /dev/hixl.
 * Engine E1 has three commands stuck on userfaultfd
 * pages nobody resolves: a SEND_NOTIFY reading its message, a staged WRITE
 * reading its source (it holds its link's post_mutex) and a REG_MEM pinning
 * its range (it holds E1's lock).  Meanwhile, each within a bound:
 * debugfs lists engines, regions and links; another engine's close returns
 * after E1's link to it was released (that release waits for the stuck
 * staged WRITE: a close used to flush every engine's releases); and, while
 * rxe0 is being deleted (the removal waits for E1's commands), another
 * process's open, GET_INFO and close of /dev/hixl return (the removal held
 * hixl_engines_lock, which every open and close takes, while it waited).
 * Then the pages arrive: the removal completes, E1's commands end, nothing
 * stays pinned, and once rxe0 is back a new pair moves bytes.  (On 6.1 a
 * long-term pin does not wait for userfaultfd: that REG_MEM fails with
 * EFAULT at once, and the test goes on with the other two.)
 */
#define STL_PORT	22200	/* E1; E2, E3 and the final pair: +1 .. +4 */
#define STL_BOUND_MS	15000
#define STL_SUB		(1 * MiB)	/* one stuck command per MiB of the uffd range */

struct stl_cmd {
	int fd;
	unsigned long cmd;
	void *arg;
	long ret;
};

static void *stl_ioctl_run(void *arg)
{
	struct stl_cmd *c = arg;

	c->ret = xioctl(c->fd, c->cmd, c->arg);
	return NULL;
}

/* What must not wait for E1: each returns 0 when it did its job. */
static void *stl_read_debugfs(void *arg)
{
	static const char *const files[] = { "engines", "regions", "links" };
	long *ret = arg;
	char path[64], line[256];

	*ret = 0;
	for (unsigned int i = 0; i < 3; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/hixl/%s", files[i]);
		f = fopen(path, "r");
		if (!f) {
			*ret = -errno;
			return NULL;
		}
		while (fgets(line, sizeof(line), f))
			;
		fclose(f);
	}
	return NULL;
}

static void *stl_open_close(void *arg)
{
	long *ret = arg;
	struct hixl_info info;
	int fd = open("/dev/hixl", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		*ret = -errno;
		return NULL;
	}
	memset(&info, 0, sizeof(info));
	*ret = xioctl(fd, HIXL_IOC_GET_INFO, &info);
	close(fd);
	return NULL;
}

struct stl_close {
	int fd;
	long ret;
};

static void *stl_close_run(void *arg)
{
	struct stl_close *c = arg;

	c->ret = close(c->fd) ? -errno : 0;
	return NULL;
}

static void *stl_dellink_run(void *arg)
{
	long *ret = arg;

	*ret = rdma_dellink((uint32_t)*ret);
	return NULL;
}

/*
 * Run fn(arg) in a thread and wait up to STL_BOUND_MS: 0 when it returned,
 * -ETIMEDOUT when it is still waiting (*th must then be joined later),
 * -EAGAIN when no thread could be made.
 */
static int stl_bounded(pthread_t *th, void *(*fn)(void *), void *arg, const char *what)
{
	struct timespec ts;
	int ret;

	if (pthread_create(th, NULL, fn, arg))
		return -EAGAIN;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += STL_BOUND_MS / 1000;
	ret = pthread_timedjoin_np(*th, NULL, &ts);
	if (ret) {
		printf("#   %s still waits after %d ms\n", what, STL_BOUND_MS);
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * Wait for a fault in [lo, lo + STL_SUB) of the uffd range: 0; 1 when the
 * command (*ret, 1 while it runs; may be NULL) ended without one; -1.
 */
static int stl_wait_fault(int uffd, uintptr_t lo, volatile long *ret)
{
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };

	for (int waited = 0; waited < STL_BOUND_MS; waited += 100) {
		if (ret && *ret != 1)
			return 1;
		if (poll(&pfd, 1, 100) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT && msg.arg.pagefault.address >= lo &&
		    msg.arg.pagefault.address < lo + STL_SUB)
			return 0;
	}
	printf("#   no fault at 0x%lx within %d ms\n", (unsigned long)lo, STL_BOUND_MS);
	return -1;
}

/*
 * The pages arrive: at the test's word, or after STL_ARRIVE_S whatever
 * happens, so that a module where something the test does waits for the
 * stuck commands fails the test instead of hanging it (and before the
 * kernel's 120 s hung-task report).
 */
#define STL_ARRIVE_S	90

struct stl_arrival {
	int uffd;
	void *addr;
	size_t len;
	pthread_mutex_t lock;
	pthread_cond_t now;
	int go;
	int ret;
};

static void *stl_arrive_run(void *arg)
{
	struct stl_arrival *a = arg;
	struct uffdio_zeropage zp;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += STL_ARRIVE_S;
	pthread_mutex_lock(&a->lock);
	while (!a->go && pthread_cond_timedwait(&a->now, &a->lock, &ts) != ETIMEDOUT)
		;
	if (!a->go)
		printf("#   the pages arrive after %d s: something waited for them\n", STL_ARRIVE_S);
	pthread_mutex_unlock(&a->lock);
	zp.range.start = (uintptr_t)a->addr;
	zp.range.len = a->len;
	zp.mode = 0;
	a->ret = ioctl(a->uffd, UFFDIO_ZEROPAGE, &zp) == 0 || errno == EEXIST ? 0 : -errno;
	return NULL;
}

/* Wait until @fd's link to the engine on @port (which connected to it) is
 * READY: a SEND_NOTIFY goes through.  0 or its last -errno. */
static long stl_link_ready(int fd, uint16_t port)
{
	struct hixl_send_notify sn;
	long ret = -ENOTCONN;

	memset(&sn, 0, sizeof(sn));
	sn.remote = hx_name(port);
	sn.name = (uintptr_t)"ready";
	sn.name_len = 5;
	for (int i = 0; i < 100; i++) {
		ret = xioctl(fd, HIXL_IOC_SEND_NOTIFY, &sn);
		if (ret != -EAGAIN && ret != -ENOTCONN)
			break;
		usleep(50000);
	}
	return ret;
}

/* Lines of debugfs links naming a peer on @port */
static int stl_links_to(uint16_t port)
{
	char line[256], pat[32];
	int n = 0;
	FILE *f = fopen("/sys/kernel/debug/hixl/links", "r");

	if (!f)
		return -1;
	snprintf(pat, sizeof(pat), ":%u ", port);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, pat) != NULL;
	fclose(f);
	return n;
}

void test_stall_confined(void);
void test_stall_confined(void)
{
	long pin0 = vm_pin_kb(), dbg_ret = 1, oc_ret = 1, del_ret;
	pthread_t t_notify, t_stage, t_reg, t_dbg, t_close, t_oc, t_oc2, t_del, t_arrive;
	struct stl_arrival arr;
	int dbg_late = 0, close_late = 0, oc_late = 0, oc2_late = 0, started = 0, reg_waits = -1;
	long oc2_ret = 1;
	struct hixl_send_notify sn;
	struct hixl_transfer xt;
	struct hixl_reg_mem rm;
	struct hixl_op_desc d;
	struct stl_cmd c_notify, c_stage, c_reg;
	struct stl_close cl;
	unsigned char *u, *r2, *r3;
	struct hixl_stats st;
	int idx, uffd, e1, e2, n;

	if (access("/sys/class/infiniband/rxe0", F_OK) != 0)
		SKIP("no rxe0 (runs in the test VM)");
	if (access("/sys/kernel/debug/hixl/links", R_OK) != 0)
		SKIP("debugfs not mounted");
	idx = rxe0_index();
	if (idx < 0)
		SKIP("no rdma tool (iproute2) to find rxe0's index");
	u = hx_uffd_map(3 * STL_SUB, &uffd);
	REQUIRE(u);
	arr.uffd = uffd;
	arr.addr = u;
	arr.len = 3 * STL_SUB;
	pthread_mutex_init(&arr.lock, NULL);
	pthread_cond_init(&arr.now, NULL);
	arr.go = 0;
	arr.ret = 1;

	e1 = hx_engine(STL_PORT, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	e2 = hx_engine(STL_PORT + 1, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	cl.fd = hx_engine(STL_PORT + 2, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(e1 >= 0 && e2 >= 0 && cl.fd >= 0);
	cl.ret = 1;		/* not closed yet */
	r2 = hx_map(1 * MiB);
	r3 = hx_map(1 * MiB);
	REQUIRE(r2 && r3);
	REQUIRE(reg_mem(e2, r2, 1 * MiB, 0, NULL) == 0);
	REQUIRE(reg_mem(cl.fd, r3, 1 * MiB, 0, NULL) == 0);
	REQUIRE(hx_connect(e1, STL_PORT + 1, 5000) == 0);
	REQUIRE(hx_connect(cl.fd, STL_PORT, 5000) == 0);	/* E1's side is passive */
	REQUIRE(stl_link_ready(e1, STL_PORT + 2) == 0);

	/* 1: SEND_NOTIFY whose message is on a missing page */
	memset(&sn, 0, sizeof(sn));
	sn.remote = hx_name(STL_PORT + 1);
	sn.name = (uintptr_t)"stall";
	sn.name_len = 5;
	sn.msg = (uintptr_t)u;
	sn.msg_len = 64;
	c_notify = (struct stl_cmd){ e1, HIXL_IOC_SEND_NOTIFY, &sn, 1 };
	REQUIRE(pthread_create(&t_arrive, NULL, stl_arrive_run, &arr) == 0);
	REQUIRE(pthread_create(&t_notify, NULL, stl_ioctl_run, &c_notify) == 0);
	started = 1;
	if (stl_wait_fault(uffd, (uintptr_t)u, NULL))
		goto arrive;
	/* 2: a staged WRITE (unregistered source) from a missing page */
	d.local_addr = (uintptr_t)(u + STL_SUB);
	d.remote_addr = (uintptr_t)r3;
	d.len = 64 * KiB;
	memset(&xt, 0, sizeof(xt));
	xt.remote = hx_name(STL_PORT + 2);
	xt.op = HIXL_OP_WRITE;
	xt.descs = (uintptr_t)&d;
	xt.count = 1;
	xt.timeout_ms = 60000;
	c_stage = (struct stl_cmd){ e1, HIXL_IOC_TRANSFER, &xt, 1 };
	if (pthread_create(&t_stage, NULL, stl_ioctl_run, &c_stage))
		goto arrive;
	started = 2;
	if (stl_wait_fault(uffd, (uintptr_t)(u + STL_SUB), NULL)) {
		printf("#   the staged WRITE: %ld\n", c_stage.ret);
		goto arrive;
	}
	/* 3: REG_MEM pinning missing pages */
	memset(&rm, 0, sizeof(rm));
	rm.addr = (uintptr_t)(u + 2 * STL_SUB);
	rm.len = STL_SUB;
	rm.type = HIXL_MEM_HOST;
	rm.dmabuf_fd = -1;
	c_reg = (struct stl_cmd){ e1, HIXL_IOC_REG_MEM, &rm, 1 };
	if (pthread_create(&t_reg, NULL, stl_ioctl_run, &c_reg))
		goto arrive;
	started = 3;
	reg_waits = stl_wait_fault(uffd, (uintptr_t)(u + 2 * STL_SUB), &c_reg.ret);
	if (reg_waits < 0)
		goto arrive;
	if (reg_waits == 1)	/* 6.1: a long-term pin fails at once (no FOLL_UNLOCKABLE) */
		printf("#   REG_MEM did not wait for its page: %ld (this kernel's long-term "
		       "pin does not wait for userfaultfd)\n", c_reg.ret);

	/* debugfs, with E1's lock held by the stuck REG_MEM */
	dbg_late = stl_bounded(&t_dbg, stl_read_debugfs, &dbg_ret, "reading debugfs");
	/* E3's close: E1's link to it is released, and that waits for the staged WRITE */
	close_late = stl_bounded(&t_close, stl_close_run, &cl, "closing E3");
	for (n = 0; n < 100 && stl_links_to(STL_PORT + 2) > 0; n++)
		usleep(100000);
	CHECK_EQ(stl_links_to(STL_PORT + 2), 0);	/* unlisted, being released */
	/* a close does not wait for another engine's release */
	oc_late = stl_bounded(&t_oc, stl_open_close, &oc_ret, "open/GET_INFO/close");
	/* a device removal waits for E1; others open and close meanwhile */
	del_ret = idx;
	if (pthread_create(&t_del, NULL, stl_dellink_run, &del_ret))
		goto arrive;
	started = 4;
	usleep(500000);
	oc2_late = stl_bounded(&t_oc2, stl_open_close, &oc2_ret,
			       "open/GET_INFO/close during the removal");

arrive:	/* the pages arrive */
	pthread_mutex_lock(&arr.lock);
	arr.go = 1;
	pthread_cond_signal(&arr.now);
	pthread_mutex_unlock(&arr.lock);
	pthread_join(t_arrive, NULL);
	CHECK_EQ(arr.ret, 0);
	if (started >= 1)
		pthread_join(t_notify, NULL);
	if (started >= 2)
		pthread_join(t_stage, NULL);
	if (started >= 3)
		pthread_join(t_reg, NULL);
	if (started >= 4)
		pthread_join(t_del, NULL);
	if (dbg_late == -ETIMEDOUT)
		pthread_join(t_dbg, NULL);
	if (close_late == -ETIMEDOUT)
		pthread_join(t_close, NULL);
	if (oc_late == -ETIMEDOUT)
		pthread_join(t_oc, NULL);
	if (oc2_late == -ETIMEDOUT)
		pthread_join(t_oc2, NULL);
	printf("#   after the pages came: SEND_NOTIFY %ld, staged WRITE %ld, REG_MEM %ld, "
	       "rxe0 deleted %ld\n", c_notify.ret, c_stage.ret, c_reg.ret, del_ret);
	CHECK_EQ(started, 4);
	if (started < 4) {
		if (cl.ret == 1)
			close(cl.fd);
		close(e1);
		close(e2);
		close(uffd);
		hx_rxe_restore("rxe0", "veth0");
		return;
	}
	CHECK_EQ(dbg_late, 0);
	CHECK_EQ(dbg_ret, 0);
	CHECK_EQ(close_late, 0);
	CHECK_EQ(cl.ret, 0);
	CHECK_EQ(oc_late, 0);
	CHECK_EQ(oc_ret, 0);
	CHECK_EQ(oc2_late, 0);
	CHECK_EQ(oc2_ret, 0);
	CHECK_EQ(del_ret, 0);
	CHECK(access("/sys/class/infiniband/rxe0", F_OK) != 0);
	if (reg_waits == 0)
		CHECK_EQ(c_reg.ret, 0);	/* pinned; its MRs went with the device */
	else
		CHECK_EQ(c_reg.ret, -EFAULT);
	CHECK(c_notify.ret != 0);	/* its link went with the device */
	CHECK(c_stage.ret != 0);	/* its link was released */
	st = get_stats(e1);
	CHECK_EQ(st.regions, reg_waits == 0 ? 1 : 0);
	CHECK_EQ(st.mrs, 0);
	close(e1);
	close(e2);
	close(uffd);
	munmap(u, 3 * STL_SUB);
	munmap(r2, 1 * MiB);
	munmap(r3, 1 * MiB);
	CHECK_EQ(vm_pin_kb(), pin0);

	back_and_working(STL_PORT + 4, pin0);
}

const struct ht_test hotplug_tests[] = {
	{ "dev_removed_mid_batch", test_dev_removed_mid_batch },
	{ "close_vs_device_removal", test_close_vs_device_removal },
	{ "stall_confined", test_stall_confined },
	{ NULL, NULL },
};
