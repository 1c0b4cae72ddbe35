// SPDX-License-Identifier: GPL-2.0
/*
 * test_fault.c - hardened against faults: a peer engine closed mid-batch,
 * the link's netdev set down mid-batch, allocation failures injected into
 * REG_MEM, DEREG_MEM and SETUP (failslab; SETUP while a peer dials in),
 * eight threads registering and transferring on one engine pair, and
 * CONNECT racing DISCONNECT.  Every case must end with a documented errno
 * within a bounded time, and with nothing left registered or pinned.
 * (Unloading the module while an fd is open is test_dev.c's unload_busy.)
 *
 * Engines live on 10.77.0.1 (rxe0 in the test VM), ports 19500-19999.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "raw.h"
#include "util.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)

static int is_link_error(long e)
{
	return e == -ECONNRESET || e == -ENETDOWN || e == -EIO || e == -EHOSTDOWN;
}

static int put(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int get(int fd, void *p, size_t n)
{
	return read(fd, p, n) == (ssize_t)n ? 0 : -1;
}

/* A TRANSFER in a thread, timed. */
struct bg {
	pthread_t t;
	int fd;
	uint16_t port;
	uint32_t op;
	struct hixl_op_desc *d;
	uint32_t n;
	uint32_t timeout_ms;
	long ret;
	uint32_t failed;
	struct timespec end;
};

static void *bg_run(void *p)
{
	struct bg *b = p;

	b->ret = hx_xfer(b->fd, b->port, b->op, b->d, b->n, b->timeout_ms, &b->failed);
	clock_gettime(CLOCK_MONOTONIC, &b->end);
	return NULL;
}

/* n descriptors cutting [l, l + len) and [r, r + len) into equal pieces */
static struct hixl_op_desc *cut(void *l, uint64_t r, size_t len, uint32_t n)
{
	struct hixl_op_desc *d = calloc(n, sizeof(*d));

	for (uint32_t i = 0; d && i < n; i++) {
		d[i].local_addr = (uintptr_t)l + i * (len / n);
		d[i].remote_addr = r + i * (len / n);
		d[i].len = len / n;
	}
	return d;
}

/* big enough that a batch is still running 100 ms in (rxe under KASAN
 * moves ~3 MB/s, the stock kernels far more) */
static size_t batch_len(void)
{
	return hx_debug_kernel() ? 16 * MiB : 256 * MiB;
}

/*
 * The peer engine, in a child process, is closed while a batch to it runs.
 * active: we connected to the peer (it listens); else the peer connected
 * to us and we transfer on the accepted link.  The batch ends with a link
 * error within 2 s of the close (its timeout is 30 s), the link stays
 * broken, and both processes' VmPin is back where it started.
 */
static void peer_closed(uint32_t op, int active, uint16_t our_port, uint16_t peer_port)
{
	size_t len = batch_len();
	uint32_t n = 64;
	int a, cp[2], pc[2], status;
	unsigned char *la = hx_map(len);
	long pin0 = vm_pin_kb(), peer_pin[2], ret;
	uint64_t raddr;
	struct hixl_op_desc *d, probe;
	struct timespec t0;
	struct bg b;
	double ms;
	pid_t pid;

	REQUIRE(la);
	hx_fill(la, len, 77);
	a = hx_engine(our_port, 0, 0);	/* SKIPs here, not in the child, without rxe0 */
	REQUIRE(a >= 0);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(pipe(cp) == 0 && pipe(pc) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		long pin_start = vm_pin_kb(), pin_after;
		int e = hx_engine(active ? peer_port : 0, 0, 0);
		unsigned char *rb = hx_map(len);
		uint64_t addr = (uintptr_t)rb;
		char cmd;

		if (e < 0 || !rb)
			_exit(2);
		memset(rb, 0, len);
		if (reg_mem(e, rb, len, 0, NULL))
			_exit(3);
		if (!active && hx_connect(e, our_port, 5000))
			_exit(4);
		if (put(cp[1], &addr, sizeof(addr)) || put(cp[1], &pin_start, sizeof(long)) ||
		    get(pc[0], &cmd, 1))
			_exit(5);
		close(e);		/* the engine is finalized: links, regions, pins */
		pin_after = vm_pin_kb();
		if (put(cp[1], &pin_after, sizeof(long)) || get(pc[0], &cmd, 1))
			_exit(6);
		_exit(0);
	}
	REQUIRE(get(cp[0], &raddr, sizeof(raddr)) == 0);
	REQUIRE(get(cp[0], &peer_pin[0], sizeof(long)) == 0);
	if (active)
		REQUIRE(hx_connect(a, peer_port, 5000) == 0);
	/* the link (passive: named by the peer's HELLO) is ready once a byte moves */
	probe.local_addr = (uintptr_t)la;
	probe.remote_addr = raddr;
	probe.len = 1;
	for (int i = 0; i < 200; i++) {
		ret = hx_xfer(a, active ? peer_port : 0, op, &probe, 1, 5000, NULL);
		if (ret != -ENOTCONN && ret != -EAGAIN)
			break;
		usleep(10000);
	}
	REQUIRE(ret == 0);
	d = cut(la, raddr, len, n);
	REQUIRE(d);
	memset(&b, 0, sizeof(b));
	b.fd = a;
	b.port = active ? peer_port : 0;
	b.op = op;
	b.d = d;
	b.n = n;
	b.timeout_ms = 30000;
	REQUIRE(pthread_create(&b.t, NULL, bg_run, &b) == 0);
	usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	REQUIRE(put(pc[1], "c", 1) == 0);
	REQUIRE(get(cp[0], &peer_pin[1], sizeof(long)) == 0);
	pthread_join(b.t, NULL);
	ms = hx_ms_between(&t0, &b.end);
	if (b.ret == 0)
		SKIP("the batch finished before the peer closed its engine");
	printf("#   peer closed mid-%s (%s link): %ld, descriptor %u, after %.0f ms\n",
	       op == HIXL_OP_READ ? "READ" : "WRITE", active ? "active" : "passive", b.ret,
	       b.failed, ms);
	CHECK(is_link_error(b.ret));
	CHECK(b.failed < n);
	CHECK(ms <= 2000);
	/* the peer let go of everything when it closed */
	CHECK_EQ(peer_pin[1], peer_pin[0]);
	CHECK_EQ(vm_pin_kb_pid(pid), peer_pin[0]);
	/* the link stays broken (or, accepted, is gone) until DISCONNECT */
	ret = hx_xfer(a, b.port, op, &probe, 1, 5000, NULL);
	printf("#   next TRANSFER: %ld\n", ret);
	if (active) {
		CHECK(is_link_error(ret));
		CHECK_EQ(hx_disconnect(a, peer_port), 0);
		CHECK_EQ(hx_connect(a, peer_port, 300), -ETIMEDOUT);	/* nobody listens */
	} else {
		CHECK(is_link_error(ret) || ret == -ENOTCONN);
	}
	REQUIRE(put(pc[1], "x", 1) == 0);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
	close(a);
	CHECK_EQ(vm_pin_kb(), pin0);
	free(d);
}

static void test_fault_peer_closed_write(void)
{
	peer_closed(HIXL_OP_WRITE, 1, 0, 19501);
}

static void test_fault_peer_closed_read(void)
{
	peer_closed(HIXL_OP_READ, 1, 0, 19502);
}

static void test_fault_peer_closed_passive(void)
{
	peer_closed(HIXL_OP_WRITE, 0, 19503, 0);
}

/* ---- the netdev under rxe0 set down mid-batch ------------------------------- */

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -errno;
	close(fd);
	return ret;
}

/* `ip link VERB dev NDEV TAIL`: system()'s status */
static int ip_link(const char *verb, const char *ndev, const char *tail)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip link %s dev %s %s", verb, ndev, tail);
	return system(cmd);
}

/* wait up to ms for rxe0's port 1 to be ACTIVE */
static int wait_rxe_active(int ms)
{
	char st[64];

	for (int waited = 0; waited <= ms; waited += 50) {
		if (!hx_read_line("/sys/class/infiniband/rxe0/ports/1/state", st, sizeof(st)) &&
		    strstr(st, "ACTIVE"))
			return 0;
		usleep(50000);
	}
	return -1;
}

/* A fresh engine pair on new ports can connect and move bytes. */
static int link_works(uint16_t port)
{
	size_t len = 64 * KiB;
	int a = hx_engine(0, 0, 0), b = hx_engine(port, 0, 0), ok = 0;
	unsigned char *s = hx_map(len), *r = hx_map(len);
	struct hixl_op_desc d = { (uintptr_t)s, (uintptr_t)r, len };

	if (a >= 0 && b >= 0 && s && r) {
		hx_fill(s, len, port);
		memset(r, 0, len);
		long c = -1, x = -1;

		ok = !reg_mem(a, s, len, 0, NULL) && !reg_mem(b, r, len, 0, NULL) &&
		     !(c = hx_connect(a, port, 5000)) &&
		     !(x = hx_xfer(a, port, HIXL_OP_WRITE, &d, 1, 10000, NULL)) && !memcmp(s, r, len);
		if (!ok)
			printf("#   link check on port %u: CONNECT %ld, TRANSFER %ld\n", port, c, x);
	}
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	munmap(s, len);
	munmap(r, len);
	return ok;
}

/*
 * `ip link set <netdev of rxe0> down` while a WRITE batch runs: the batch
 * ends with an error within its timeout (10 s) + 2 s, not a hang.  The link
 * is put back (netdev up, IPv6 addresses kept, rxe0 ACTIVE, rxe0 made again
 * when a CM MAD sent while the netdev was down left rxe's QP1 in ERR) and
 * must work for the tests after this one: failing that fails loudly.
 */
/*
 * Take netdev @name down with SIOCSIFFLAGS: at once, where ip(8) would first
 * have to be started (seconds in a VM on one host thread).
 * Return: 0 or -errno.
 */
static int netdev_down(const char *name)
{
	size_t n = strlen(name);
	struct ifreq ifr;
	int s, ret;

	if (n >= sizeof(ifr.ifr_name))
		return -EINVAL;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, n);
	ret = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (!ret) {
		ifr.ifr_flags &= ~IFF_UP;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	ret = ret ? -errno : 0;
	close(s);
	return ret;
}

static void test_fault_netdev_down(void)
{
	size_t len = batch_len();
	uint32_t n = 64;
	char ndev[64], sysctl[256], keep[16] = "", addrs0[1024] = "", addrs1[1024] = "";
	int a, b, hung, restored = 1;
	unsigned char *la = hx_map(len), *rb = hx_map(len);
	struct hixl_op_desc *d;
	struct timespec t0, deadline;
	struct bg x;
	long ret;
	double ms;
	FILE *p;

	if (geteuid() != 0)
		SKIP("needs root to set the netdev down");
	if (hx_read_line("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", ndev, sizeof(ndev)))
		SKIP("no rxe0 with a netdev (the test VM's Soft-RoCE)");
	if (ip_link("show", ndev, ">/dev/null 2>&1"))
		SKIP("no ip(8) or no such netdev");
	a = hx_engine(0, 0, 0);
	REQUIRE(a >= 0);
	b = hx_engine(19505, 0, 0);
	REQUIRE(b >= 0 && la && rb);
	hx_fill(la, len, 5);
	memset(rb, 0, len);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 19505, 5000) == 0);
	d = cut(la, (uintptr_t)rb, len, n);
	REQUIRE(d);

	snprintf(sysctl, sizeof(sysctl), "/proc/sys/net/ipv6/conf/%s/keep_addr_on_down", ndev);
	if (hx_read_line(sysctl, keep, sizeof(keep)) == 0)
		REQUIRE(write_str(sysctl, "1") == 0);	/* fd77::1 must survive */
	snprintf(addrs0, sizeof(addrs0), "ip -o addr show dev %s | awk '{print $4}' | sort", ndev);
	p = popen(addrs0, "r");
	REQUIRE(p);
	addrs0[fread(addrs0, 1, sizeof(addrs0) - 1, p)] = 0;
	pclose(p);

	memset(&x, 0, sizeof(x));
	x.fd = a;
	x.port = 19505;
	x.op = HIXL_OP_WRITE;
	x.d = d;
	x.n = n;
	x.timeout_ms = 10000;
	REQUIRE(pthread_create(&x.t, NULL, bg_run, &x) == 0);
	usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(netdev_down(ndev), 0);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 12;
	hung = pthread_timedjoin_np(x.t, NULL, &deadline) != 0;
	if (hung) {
		printf("#   TRANSFER still running 12 s after the netdev went down: a hang\n");
		ht_failures++;
	} else {
		ms = hx_ms_between(&t0, &x.end);
		printf("#   %s down mid-WRITE: %ld, descriptor %u, after %.0f ms\n", ndev, x.ret,
		       x.failed, ms);
		if (ms < 0 && x.ret == 0) {
			/* 100 ms were not enough for 64 descriptors to start */
			printf("#   the batch ended before the netdev went down: not judged\n");
		} else {
			CHECK(x.ret != 0);
			CHECK(is_link_error(x.ret) || x.ret == -ETIMEDOUT);
		}
		CHECK(ms <= 12000);
		ret = hx_xfer(a, 19505, HIXL_OP_WRITE, d, 1, 2000, NULL);
		printf("#   next TRANSFER with the netdev down: %ld\n", ret);
	}

	/* put everything back, whatever happened above */
	if (ip_link("set", ndev, "up")) {
		printf("#   FATAL: 'ip link set dev %s up' failed: later tests will fail\n", ndev);
		restored = 0;
	}
	if (keep[0] && write_str(sysctl, keep))
		restored = 0;
	if (wait_rxe_active(10000)) {
		printf("#   FATAL: rxe0 not ACTIVE 10 s after %s came up: later tests will fail\n",
		       ndev);
		restored = 0;
	}
	snprintf(addrs1, sizeof(addrs1), "ip -o addr show dev %s | awk '{print $4}' | sort", ndev);
	p = popen(addrs1, "r");
	if (p) {
		addrs1[fread(addrs1, 1, sizeof(addrs1) - 1, p)] = 0;
		pclose(p);
	}
	if (strcmp(addrs0, addrs1)) {
		printf("#   FATAL: %s addresses not restored:\n#   before: %s#   after: %s", ndev,
		       addrs0, addrs1);
		restored = 0;
	}
	if (hung)	/* the hung thread: its own timeout ends it */
		pthread_join(x.t, NULL);
	hx_disconnect(a, 19505);
	close(a);
	close(b);
	/* no engine left on rxe0: it can be made again if rxe's CM died */
	if (restored && hx_rxe_restore("rxe0", ndev))
		restored = 0;
	if (restored && !link_works(19506)) {
		printf("#   FATAL: no link works after %s came back: later tests will fail\n", ndev);
		restored = 0;
	}
	CHECK(restored);
	free(d);
}

/* ---- allocation failures (failslab) ------------------------------------------ */

#define FS "/sys/kernel/debug/failslab/"
#define FPA "/sys/kernel/debug/fail_page_alloc/"

static const char *const fs_knobs[] = {
	FS "probability", FS "interval", FS "times", FS "space", FS "verbose",
	FS "task-filter", FS "ignore-gfp-wait", FS "cache-filter", FPA "min-order",
};
#define NKNOBS (sizeof(fs_knobs) / sizeof(fs_knobs[0]))

struct knobs {
	char v[NKNOBS][32];
};

static void knobs_save(struct knobs *k)
{
	for (unsigned int i = 0; i < NKNOBS; i++)
		if (hx_read_line(fs_knobs[i], k->v[i], sizeof(k->v[i])))
			k->v[i][0] = 0;
}

static int knobs_restore(const struct knobs *k)
{
	int ret = 0;

	/* probability first: nothing fails while the rest goes back */
	if (k->v[0][0] && write_str(fs_knobs[0], "0"))
		ret = -1;
	for (unsigned int i = NKNOBS; i-- > 0;)
		if (k->v[i][0] && write_str(fs_knobs[i], k->v[i]))
			ret = -1;
	return ret;
}

/*
 * How a child makes its next allocations fail: "space" mode is failslab's
 * task filter with /proc/self/make-it-fail, times=1 and a space budget
 * (the first allocation that does not fit fails); "nth" mode is
 * /proc/thread-self/fail-nth (the n-th allocation fails).
 */
struct inj {
	int nth;		/* use fail-nth */
	int mif;		/* /proc/self/make-it-fail */
	int nthfd;		/* /proc/thread-self/fail-nth */
};

static int inj_open(struct inj *j, int nth)
{
	j->nth = nth;
	j->mif = open("/proc/self/make-it-fail", O_RDWR | O_CLOEXEC);
	j->nthfd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	return j->mif >= 0 && (!nth || j->nthfd >= 0) ? 0 : -1;
}

/* arm for one call with parameter v (space in bytes, or n) */
static int inj_arm(struct inj *j, unsigned long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%lu", v);
	if (j->nth)
		return pwrite(j->nthfd, s, strlen(s), 0) == (ssize_t)strlen(s) ? 0 : -1;
	if (write_str(FS "space", s) || write_str(FS "times", "1"))
		return -1;
	return pwrite(j->mif, "1", 1, 0) == 1 ? 0 : -1;
}

/* disarm; returns 1 when a failure was injected since inj_arm() */
static int inj_disarm(struct inj *j)
{
	char s[32] = "";
	ssize_t got;

	if (j->nth) {
		got = pread(j->nthfd, s, sizeof(s) - 1, 0);
		if (pwrite(j->nthfd, "0", 1, 0) != 1 || got <= 0)
			return -1;
		return atoi(s) == 0;
	}
	if (pwrite(j->mif, "0", 1, 0) != 1 || hx_read_line(FS "times", s, sizeof(s)))
		return -1;
	return atoi(s) == 0;
}

/* Root, failslab and make-it-fail, or SKIP; the knobs saved and set. */
static void failslab_setup(struct knobs *saved)
{
	if (geteuid() != 0)
		SKIP("needs root for fault injection");
	if (access(FS "probability", W_OK) || access("/proc/self/make-it-fail", W_OK))
		SKIP("no failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS, debugfs)");
	knobs_save(saved);
	/* only tasks with make-it-fail, GFP_KERNEL too, silently, no page
	 * allocator failures (their warn_alloc() traces would read as splats) */
	if (write_str(FS "probability", "0") || write_str(FS "task-filter", "Y") ||
	    write_str(FS "interval", "1") || write_str(FS "verbose", "0") ||
	    write_str(FS "ignore-gfp-wait", "N") || write_str(FS "cache-filter", "N") ||
	    write_str(FS "times", "0") || write_str(FS "space", "0") ||
	    (access(FPA "min-order", W_OK) == 0 && write_str(FPA "min-order", "100")) ||
	    write_str(FS "probability", "100")) {
		knobs_restore(saved);
		SKIP("cannot configure failslab");
	}
}

/* Run fn in a child (so make-it-fail and fail-nth die with it), restore
 * the knobs whatever it did, and take over its verdict. */
static void in_child(void (*fn)(void), struct knobs *saved)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(ht_failures ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	if (knobs_restore(saved)) {
		printf("#   could not restore the failslab knobs\n");
		ht_failures++;
	}
	CHECK(pid > 0 && WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		SKIP("see above");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The engine holds exactly keep_regions regions of keep_pages pages, its
 * process proc_regions, and VmPin is pin_want: nothing leaked. */
static int clean(int fd, long pin_want, uint64_t keep_regions, uint64_t keep_pages,
		 uint64_t proc_regions)
{
	struct hixl_stats s = get_stats(fd);
	int ok = s.regions == keep_regions && s.invalid_regions == 0 &&
		 s.host_bytes == keep_pages * 4096 && s.pinned_pages == keep_pages &&
		 s.proc_regions == proc_regions && (keep_regions || s.mrs == 0) &&
		 vm_pin_kb() == pin_want;

	if (!ok)
		printf("#   left over: regions %llu invalid %llu host_bytes %llu pinned %llu "
		       "proc_regions %llu mrs %llu VmPin %ld kB (want %ld)\n",
		       (unsigned long long)s.regions, (unsigned long long)s.invalid_regions,
		       (unsigned long long)s.host_bytes, (unsigned long long)s.pinned_pages,
		       (unsigned long long)s.proc_regions, (unsigned long long)s.mrs, vm_pin_kb(),
		       pin_want);
	return ok;
}

static int all_zero(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

/*
 * Sweep allocation failures over REG_MEM (an engine set up, so MRs are made
 * too), first with failslab's space budget and make-it-fail as the task
 * filter, then allocation by allocation with fail-nth: every refused call
 * is -ENOMEM and leaves nothing (counters zero, VmPin back), every call that
 * survived an injected failure is a whole registration, and a REG_MEM
 * afterwards succeeds.
 */
static void oom_reg_child(void)
{
	size_t len = 64 * KiB;
	long pin0 = vm_pin_kb(), ret;
	int e = hx_engine(0, 0, 0), fails = 0, survived = 0, swept = 0;
	unsigned char *p = hx_map(len);
	struct hixl_reg_mem r;
	struct inj j;

	REQUIRE(e >= 0 && p);
	memset(p, 1, len);	/* faulted in: pinning needs no page tables */
	for (int mode = 0; mode < 2; mode++) {
		int done = 0;

		if (inj_open(&j, mode)) {
			if (mode == 1) {
				printf("#   no /proc/thread-self/fail-nth: space sweep only\n");
				break;
			}
			REQUIRE(0);
		}
		for (unsigned long v = mode ? 1 : 0; !done && v < (mode ? 2000 : 64 * 400);
		     v += mode ? 1 : 64) {
			int injected;

			REQUIRE(inj_arm(&j, v) == 0);
			ret = reg_mem(e, p, len, 0, &r);
			injected = inj_disarm(&j);
			REQUIRE(injected >= 0);
			swept++;
			if (ret) {
				if (ret != -ENOMEM)
					printf("#   %s %lu: REG_MEM %ld, want -ENOMEM\n",
					       mode ? "fail-nth" : "space", v, ret);
				CHECK_EQ(ret, -ENOMEM);
				CHECK(injected);
				fails++;
			} else {
				/* whole: pinned, and with the MRs a set-up engine gives it */
				CHECK_EQ(get_stats(e).regions, 1);
				CHECK_EQ(get_stats(e).pinned_pages, len / 4096);
				CHECK(r.nr_mrs >= 1);
				CHECK_EQ(get_stats(e).mrs, r.nr_mrs);
				CHECK_EQ(dereg_mem(e, r.handle), 0);
				survived += injected;
				done = !injected;	/* every allocation fit: swept them all */
			}
			if (!clean(e, pin0, 0, 0, 0)) {
				printf("#   after %s %lu (REG_MEM %ld)\n", mode ? "fail-nth" : "space",
				       v, ret);
				ht_failures++;
				break;
			}
		}
		CHECK(done);
		close(j.mif);
		if (j.nthfd >= 0)
			close(j.nthfd);
	}
	printf("#   %d REG_MEM calls under injection: %d refused (-ENOMEM), %d survived a failure\n",
	       swept, fails, survived);
	CHECK(fails >= 1);
	/* and with nothing injected, all is well */
	CHECK_EQ(reg_mem(e, p, len, 0, &r), 0);
	CHECK_EQ(get_stats(e).pinned_pages, len / 4096);
	CHECK_EQ(dereg_mem(e, r.handle), 0);
	CHECK(clean(e, pin0, 0, 0, 0));
	close(e);
	CHECK_EQ(vm_pin_kb(), pin0);
}

static void test_fault_oom_reg(void)
{
	struct knobs saved;
	int e = hx_engine(0, 0, 0);	/* SKIPs without rxe0 */

	REQUIRE(e >= 0);
	close(e);
	failslab_setup(&saved);
	in_child(oom_reg_child, &saved);
}

/*
 * The same with a connected peer watching: REG_MEM that returns 0 under an
 * allocation failure must still have reached the peer's table (docs/abi.md:
 * "when REG_MEM returns, every connected peer can use the region"), one
 * that fails must not have; DEREG_MEM under an allocation failure still
 * succeeds (no -ENOMEM is documented for it) and takes the region out of
 * the peer's table, so the peer's next transfer there is -ERANGE, never a
 * stale rkey that breaks the link.
 */
static int oom_phase;	/* 0: REG_MEM, 1: DEREG_MEM under injection */

static void oom_linked_child(void)
{
	size_t len = 64 * KiB;
	long pin0 = vm_pin_kb(), pin1, ret;
	int e = hx_engine(19507, 0, 0), f = hx_engine(0, 0, 0), bad = 0, relinks = 0;
	unsigned char *p = hx_map(len), *ctl = hx_map(len), *src = hx_map(len);
	struct hixl_op_desc dp, dc;
	struct hixl_reg_mem r;
	struct inj j;

	REQUIRE(e >= 0 && f >= 0 && p && ctl && src);
	memset(p, 0, len);
	memset(ctl, 0, len);
	hx_fill(src, len, 9);
	REQUIRE(reg_mem(e, ctl, len, 0, NULL) == 0);	/* the control region */
	REQUIRE(reg_mem(f, src, len, 0, NULL) == 0);
	REQUIRE(hx_connect(f, 19507, 5000) == 0);
	pin1 = vm_pin_kb();
	if (inj_open(&j, 1)) {
		printf("#   no /proc/thread-self/fail-nth: failslab space budget instead\n");
		REQUIRE(inj_open(&j, 0) == 0);
	}
	dp = (struct hixl_op_desc){ (uintptr_t)src, (uintptr_t)p, len };
	dc = (struct hixl_op_desc){ (uintptr_t)src, (uintptr_t)ctl, len };
	for (int phase = oom_phase; phase == oom_phase; phase++) {
		const char *what = phase ? "DEREG_MEM" : "REG_MEM";
		int done = 0, n = 0;

		for (unsigned long v = j.nth ? 1 : 0; !done && v < (j.nth ? 2000 : 64 * 400);
		     v += j.nth ? 1 : 64) {
			int injected;

			n++;
			memset(p, 0, len);
			if (phase == 0) {
				REQUIRE(inj_arm(&j, v) == 0);
				ret = reg_mem(e, p, len, 0, &r);
				injected = inj_disarm(&j);
				REQUIRE(injected >= 0);
				if (ret) {
					CHECK_EQ(ret, -ENOMEM);
				} else {
					/* registered: the peer can use it at once */
					ret = hx_xfer(f, 19507, HIXL_OP_WRITE, &dp, 1, 5000, NULL);
					if (ret || memcmp(p, src, len)) {
						printf("#   %s %lu: REG_MEM 0 (%s), but the peer's WRITE to it: %ld\n",
						       j.nth ? "fail-nth" : "space", v,
						       injected ? "after an injected failure" : "clean", ret);
						bad++;
					}
					CHECK_EQ(dereg_mem(e, r.handle), 0);
				}
			} else {
				REQUIRE(reg_mem(e, p, len, 0, &r) == 0);
				REQUIRE(inj_arm(&j, v) == 0);
				ret = dereg_mem(e, r.handle);
				injected = inj_disarm(&j);
				REQUIRE(injected >= 0);
				if (ret) {
					printf("#   %s %lu: DEREG_MEM %ld under an allocation failure\n",
					       j.nth ? "fail-nth" : "space", v, ret);
					bad++;
					CHECK_EQ(dereg_mem(e, r.handle), 0);
				}
			}
			/* gone, or never there: the peer is refused and nothing is written */
			memset(p, 0, len);
			ret = hx_xfer(f, 19507, HIXL_OP_WRITE, &dp, 1, 5000, NULL);
			if (ret != -ERANGE) {
				printf("#   %s %lu: after %s%s the peer's WRITE to its range: %ld, want -ERANGE\n",
				       j.nth ? "fail-nth" : "space", v, what,
				       injected ? " under a failure," : ",", ret);
				bad++;
			}
			if (!all_zero(p, len)) {
				printf("#   %s %lu: bytes written to a range the peer no longer has\n",
				       j.nth ? "fail-nth" : "space", v);
				bad++;
			}
			/* the link itself must be fine; if not, say so and make a new one */
			ret = hx_xfer(f, 19507, HIXL_OP_WRITE, &dc, 1, 5000, NULL);
			if (ret) {
				printf("#   %s %lu: the link broke (%ld) after %s\n",
				       j.nth ? "fail-nth" : "space", v, ret, what);
				bad++;
				hx_disconnect(f, 19507);
				REQUIRE(hx_connect(f, 19507, 5000) == 0);
				relinks++;
			}
			if (!clean(e, pin1, 1, len / 4096, 2)) {
				ht_failures++;
				break;
			}
			done = !injected;
			if (bad > 20)
				break;
		}
		printf("#   %s: %d calls under injection\n", what, n);
		CHECK(done);
	}
	printf("#   %d inconsistencies, %d relinks\n", bad, relinks);
	CHECK_EQ(bad, 0);
	close(f);
	close(e);
	CHECK_EQ(vm_pin_kb(), pin0);
}

static void oom_linked(int phase)
{
	struct knobs saved;
	int e = hx_engine(0, 0, 0);

	REQUIRE(e >= 0);
	close(e);
	failslab_setup(&saved);
	oom_phase = phase;
	in_child(oom_linked_child, &saved);
}

static void test_fault_oom_reg_linked(void)
{
	oom_linked(0);
}

static void test_fault_oom_dereg_linked(void)
{
	oom_linked(1);
}

/* ---- SETUP failing part-way, with a peer dialling in ------------------------ */

#define SF_PORT		19513
#define SF_REGIONS	8
#define SF_LEN		(2 * MiB)	/* one MR of 512 pages each on rxe0 */

/* A client engine that CONNECTs to SF_PORT over and over until told to stop. */
struct dialer {
	pthread_t t;
	int fd;
	volatile int stop;
	int attempts, linked;
};

static void *dialer_run(void *p)
{
	struct dialer *d = p;

	while (!d->stop) {
		long ret = hx_connect(d->fd, SF_PORT, 1000);

		d->attempts++;
		if (ret == 0 || ret == -EISCONN)
			d->linked++;
		hx_disconnect(d->fd, SF_PORT);	/* whatever came of it: start over */
	}
	return NULL;
}

static long setup_on(int fd, uint16_t port)
{
	struct hixl_setup a;

	memset(&a, 0, sizeof(a));
	a.local = hx_name(port);
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a.transport = hixl_raw_transport();	/* RDMA in the runner */
	return xioctl(fd, HIXL_IOC_SETUP, &a);
}

/* A new engine (not set up) holding the SF_REGIONS buffers; -1 on error. */
static int sf_engine(unsigned char **bufs)
{
	int fd = open_dev();

	if (fd < 0)
		return -1;
	for (int i = 0; i < SF_REGIONS; i++) {
		if (reg_mem(fd, bufs[i], SF_LEN, 0, NULL)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

/*
 * SETUP with registrations already made (their MRs are made by SETUP) fails
 * at every allocation in turn (fail-nth) while another engine keeps
 * dialling the port it listens on.  Each failed SETUP must leave the engine
 * exactly as it was: not set up (CONNECT -EBADFD), no MRs, its
 * registrations and pins intact, no link accepted behind its back; and a
 * retried SETUP on the same port must work and make all the MRs.  A
 * listener that accepted a connection before a later step failed freed the
 * PD under the accepted link (kernel splat, caught by the VM runner).
 */
static void oom_setup_child(void)
{
	unsigned char *bufs[SF_REGIONS];
	struct dialer d;
	struct hixl_stats s;
	struct inj j;
	long ret, pin0 = vm_pin_kb(), pin_regs;
	int e, fails = 0, survived = 0, swept = 0, done = 0, last_fail = 0;
	int errs_enomem = 0, errs_other = 0;
	uint64_t mrs_want;
	unsigned long used;
	char rem[32] = "";

	for (int i = 0; i < SF_REGIONS; i++) {
		bufs[i] = hx_map(SF_LEN);
		REQUIRE(bufs[i]);
		memset(bufs[i], i + 1, SF_LEN);	/* faulted in: pinning allocates no page tables */
	}
	REQUIRE(inj_open(&j, 1) == 0);

	/* a clean SETUP: the MRs it makes, and how many injection points it passes */
	e = sf_engine(bufs);
	REQUIRE(e >= 0);
	pin_regs = vm_pin_kb();
	REQUIRE(inj_arm(&j, 1000000) == 0);
	ret = setup_on(e, SF_PORT);
	REQUIRE(pread(j.nthfd, rem, sizeof(rem) - 1, 0) > 0);
	REQUIRE(inj_disarm(&j) == 0);
	REQUIRE(ret == 0);
	used = 1000000 - strtoul(rem, NULL, 10);
	mrs_want = get_stats(e).mrs;
	printf("#   a clean SETUP with %d regions: %llu MRs, %lu fault-injection points\n",
	       SF_REGIONS, (unsigned long long)mrs_want, used);
	CHECK(mrs_want >= SF_REGIONS);
	close(e);

	memset(&d, 0, sizeof(d));
	d.fd = hx_engine(0, 0, 0);
	REQUIRE(d.fd >= 0);
	REQUIRE(pthread_create(&d.t, NULL, dialer_run, &d) == 0);

	for (unsigned long n = 1; !done && n < used + 50; n++) {
		int injected;

		e = sf_engine(bufs);
		REQUIRE(e >= 0);
		REQUIRE(inj_arm(&j, n) == 0);
		ret = setup_on(e, SF_PORT);
		injected = inj_disarm(&j);
		REQUIRE(injected >= 0);
		swept++;
		if (ret == 0) {
			/* whole: every MR made, the port listening */
			CHECK_EQ(get_stats(e).mrs, mrs_want);
			survived += injected;
			done = !injected;	/* every allocation fit: swept them all */
			close(e);
			continue;
		}
		fails++;
		last_fail = n;
		if (ret == -ENOMEM)
			errs_enomem++;
		else
			errs_other++;
		if (ret != -ENOMEM && errs_other <= 5)
			printf("#   fail-nth %lu: SETUP %ld\n", n, ret);
		CHECK(injected);
		CHECK(ret != -EALREADY && ret != -EBADFD);
		/* not set up, nothing of the device side left, registrations intact */
		s = get_stats(e);
		if (s.mrs || s.regions != SF_REGIONS ||
		    s.pinned_pages != SF_REGIONS * SF_LEN / 4096 || vm_pin_kb() != pin_regs) {
			printf("#   fail-nth %lu: after SETUP %ld: mrs %llu regions %llu pinned %llu VmPin %ld (want %ld)\n",
			       n, ret, (unsigned long long)s.mrs, (unsigned long long)s.regions,
			       (unsigned long long)s.pinned_pages, vm_pin_kb(), pin_regs);
			ht_failures++;
		}
		ret = hx_connect(e, SF_PORT + 1, 100);
		if (ret != -EBADFD) {
			printf("#   fail-nth %lu: CONNECT after a failed SETUP: %ld, want -EBADFD\n", n,
			       ret);
			ht_failures++;
		}
		/* and SETUP again, on the same port, works */
		ret = setup_on(e, SF_PORT);
		if (ret || get_stats(e).mrs != mrs_want) {
			printf("#   fail-nth %lu: SETUP retried: %ld, %llu MRs (want %llu)\n", n, ret,
			       (unsigned long long)get_stats(e).mrs, (unsigned long long)mrs_want);
			ht_failures++;
		}
		close(e);
		if (ht_failures > 5)
			break;
	}
	d.stop = 1;
	pthread_join(d.t, NULL);
	printf("#   %d SETUPs under injection: %d failed (-ENOMEM %d, other %d), %d survived a failure; "
	       "the peer dialled %d times, linked %d\n", swept, fails, errs_enomem, errs_other,
	       survived, d.attempts, d.linked);
	CHECK(done);
	CHECK(fails >= 1);
	CHECK(d.attempts >= 1);

	/* the engine of the last failure point, retried, serves its peer: bytes arrive */
	if (last_fail) {
		struct hixl_op_desc x;
		unsigned char *src = hx_map(SF_LEN);

		REQUIRE(src);
		hx_fill(src, SF_LEN, 21);
		e = sf_engine(bufs);
		REQUIRE(e >= 0);
		REQUIRE(inj_arm(&j, last_fail) == 0);
		ret = setup_on(e, SF_PORT);
		REQUIRE(inj_disarm(&j) >= 0);
		if (ret)	/* as in the sweep: then SETUP again */
			CHECK_EQ(setup_on(e, SF_PORT), 0);
		REQUIRE(reg_mem(d.fd, src, SF_LEN, 0, NULL) == 0);
		CHECK_EQ(hx_connect(d.fd, SF_PORT, 5000), 0);
		x = (struct hixl_op_desc){ (uintptr_t)src, (uintptr_t)bufs[SF_REGIONS - 1], SF_LEN };
		CHECK_EQ(hx_xfer(d.fd, SF_PORT, HIXL_OP_WRITE, &x, 1, 10000, NULL), 0);
		CHECK(!memcmp(src, bufs[SF_REGIONS - 1], SF_LEN));
		close(e);
	}
	close(d.fd);
	close(j.mif);
	close(j.nthfd);
	CHECK_EQ(vm_pin_kb(), pin0);
}

static void test_fault_oom_setup(void)
{
	struct knobs saved;
	int e = hx_engine(0, 0, 0);	/* SKIPs without rxe0 */

	REQUIRE(e >= 0);
	close(e);
	failslab_setup(&saved);
	in_child(oom_setup_child, &saved);
}

/* ---- the peer lets go of a region a batch is writing ------------------------- */

/*
 * B deregisters (or munmaps) the region A's batch is writing into while
 * the batch runs.  The region leaves A's table before B releases its MRs
 * (docs/abi.md, kmod/table.c: "a late rkey would break the link"), so whatever
 * the batch itself returns, the link must survive it: a WRITE to another
 * region of B works afterwards, and the old range is -ERANGE.
 */
static void peer_drops_region(int unmap, uint16_t port)
{
	size_t len = batch_len(), clen = 64 * KiB;
	uint32_t n = 1024;	/* more pieces than one credit window (HIXL_CHAIN) */
	int a = hx_engine(0, 0, 0), b;
	unsigned char *la = hx_map(len), *rb = hx_map(len), *ctl = hx_map(clen);
	struct hixl_op_desc *d, dc, dr;
	struct hixl_reg_mem r;
	struct timespec t0, t1;
	struct bg x;
	long ret, drop;

	REQUIRE(a >= 0);
	b = hx_engine(port, 0, 0);
	REQUIRE(b >= 0 && la && rb && ctl);
	hx_fill(la, len, 3);
	memset(rb, 0, len);
	memset(ctl, 0, clen);
	REQUIRE(reg_mem(a, la, len, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, len, 0, &r) == 0);
	REQUIRE(reg_mem(b, ctl, clen, 0, NULL) == 0);
	REQUIRE(hx_connect(a, port, 5000) == 0);
	d = cut(la, (uintptr_t)rb, len, n);
	REQUIRE(d);
	memset(&x, 0, sizeof(x));
	x.fd = a;
	x.port = port;
	x.op = HIXL_OP_WRITE;
	x.d = d;
	x.n = n;
	x.timeout_ms = 30000;
	REQUIRE(pthread_create(&x.t, NULL, bg_run, &x) == 0);
	usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	drop = unmap ? munmap(rb, len) : dereg_mem(b, r.handle);
	/* when the peer's pins (and so its MRs) went: at once for DEREG_MEM,
	 * by the invalidation work item after munmap */
	while (get_stats(b).pinned_pages != clen / 4096 && hx_ms_since(&t0) < 30000)
		usleep(5000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(x.t, NULL);
	if (x.ret == 0 && hx_ms_between(&t0, &x.end) <= 0)
		SKIP("the batch finished before the peer let go of the region");
	printf("#   %s mid-batch: %ld, pins released after %.0f ms; the batch: %ld (descriptor %u) after %.0f ms\n",
	       unmap ? "munmap" : "DEREG_MEM", drop, hx_ms_between(&t0, &t1), x.ret, x.failed,
	       hx_ms_between(&t0, &x.end));
	CHECK_EQ(drop, 0);
	CHECK(x.ret == 0 || is_link_error(x.ret));
	dc = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)ctl, clen };
	ret = hx_xfer(a, port, HIXL_OP_WRITE, &dc, 1, 5000, NULL);
	if (ret)
		printf("#   the peer's %s broke the link: next WRITE to another region %ld\n",
		       unmap ? "munmap" : "DEREG_MEM", ret);
	CHECK_EQ(ret, 0);
	CHECK(!memcmp(ctl, la, clen));
	dr = (struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 4096 };
	for (int i = 0; i < 200; i++) {		/* munmap's table update is asynchronous */
		ret = hx_xfer(a, port, HIXL_OP_WRITE, &dr, 1, 5000, NULL);
		if (ret)
			break;
		usleep(10000);
	}
	CHECK_EQ(ret, -ERANGE);
	if (unmap)
		CHECK_EQ(wait_pinned(b, clen / 4096, 2000), 0);
	close(a);
	close(b);
	free(d);
}

static void test_fault_peer_dereg_mid_batch(void)
{
	peer_drops_region(0, 19511);
}

static void test_fault_peer_munmap_mid_batch(void)
{
	peer_drops_region(1, 19512);
}

/* ---- eight threads on one engine pair ---------------------------------------- */

#define NTHREADS	8
#define TBUF		(256 * KiB)
#define TITER		200
#define TSECONDS	3

struct worker {
	pthread_t t;
	int id, a, b;
	uint16_t port;
	unsigned char *la, *lb, *rb;
	struct timespec start;
	int iters, unexpected;
};

static void unexpected(struct worker *w, const char *what, long got, long want)
{
	if (w->unexpected++ < 3)
		printf("#   thread %d iteration %d: %s %ld, want %ld\n", w->id, w->iters, what, got,
		       want);
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	while (w->iters < TITER && hx_ms_since(&w->start) < TSECONDS * 1000) {
		size_t n = w->iters % 2 ? TBUF : 4 * KiB + w->id;	/* direct, staged */
		struct hixl_reg_mem ra, rl, rr;
		struct hixl_op_desc d = { (uintptr_t)w->la, (uintptr_t)w->rb, n };
		long ret;

#define EXPECT(call, want, what) do {						\
		ret = (call);							\
		if (ret != (want))						\
			unexpected(w, what, ret, want);				\
	} while (0)
		EXPECT(reg_mem(w->a, w->la, TBUF, 0, &ra), 0, "REG_MEM local");
		EXPECT(reg_mem(w->a, w->lb, TBUF, 0, &rl), 0, "REG_MEM back");
		EXPECT(reg_mem(w->b, w->rb, TBUF, 0, &rr), 0, "REG_MEM peer");
		hx_fill(w->la, n, w->id * 100000 + w->iters);
		EXPECT(hx_xfer(w->a, w->port, HIXL_OP_WRITE, &d, 1, 10000, NULL), 0, "WRITE");
		if (memcmp(w->la, w->rb, n))
			unexpected(w, "WRITE contents", 1, 0);
		memset(w->lb, 0, n);
		d.local_addr = (uintptr_t)w->lb;
		EXPECT(hx_xfer(w->a, w->port, HIXL_OP_READ, &d, 1, 10000, NULL), 0, "READ");
		if (memcmp(w->lb, w->rb, n))
			unexpected(w, "READ contents", 1, 0);
		EXPECT(dereg_mem(w->b, rr.handle), 0, "DEREG_MEM peer");
		d.local_addr = (uintptr_t)w->la;
		EXPECT(hx_xfer(w->a, w->port, HIXL_OP_WRITE, &d, 1, 10000, NULL), -ERANGE,
		       "WRITE after the peer's DEREG_MEM");
		EXPECT(dereg_mem(w->a, ra.handle), 0, "DEREG_MEM local");
		EXPECT(dereg_mem(w->a, rl.handle), 0, "DEREG_MEM back");
#undef EXPECT
		w->iters++;
	}
	return NULL;
}

/*
 * Eight threads share one engine pair for 3 s (at most 200 iterations
 * each): each registers its own buffers on both engines, WRITEs and READs
 * through them (staged and direct), checks the bytes, deregisters, and
 * checks the peer's region is then out of reach.  Every call returns what
 * it must; afterwards nothing is registered or pinned.
 */
static void test_fault_threads(void)
{
	static struct worker w[NTHREADS];
	long pin0 = vm_pin_kb();
	int a = hx_engine(0, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB), b;
	int total = 0, bad = 0;
	struct timespec start;
	struct hixl_stats s;

	REQUIRE(a >= 0);
	b = hx_engine(19509, HIXL_DEFAULT_POOL_BUFFERS, HIXL_DEFAULT_POOL_BUFFER_MB);
	REQUIRE(b >= 0);
	REQUIRE(hx_stage_by_size() == 0);	/* the 4 KiB descriptors staged */
	REQUIRE(hx_connect(a, 19509, 5000) == 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0; i < NTHREADS; i++) {
		w[i].id = i;
		w[i].a = a;
		w[i].b = b;
		w[i].port = 19509;
		w[i].start = start;
		w[i].la = hx_map(TBUF);
		w[i].lb = hx_map(TBUF);
		w[i].rb = hx_map(TBUF);
		REQUIRE(w[i].la && w[i].lb && w[i].rb);
		REQUIRE(pthread_create(&w[i].t, NULL, worker_run, &w[i]) == 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].t, NULL);
		total += w[i].iters;
		bad += w[i].unexpected;
		CHECK(w[i].iters >= 1);
	}
	printf("#   %d threads, %d iterations in %.0f ms, %d unexpected results\n", NTHREADS, total,
	       hx_ms_since(&start), bad);
	CHECK_EQ(bad, 0);
	s = get_stats(a);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.pinned_pages, 0);
	CHECK_EQ(s.mrs, 0);
	CHECK_EQ(s.proc_regions, 0);
	s = get_stats(b);
	CHECK_EQ(s.regions, 0);
	CHECK_EQ(s.pinned_pages, 0);
	CHECK_EQ(s.mrs, 0);
	CHECK_EQ(vm_pin_kb(), pin0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
}

/*
 * CONNECT and DISCONNECT of one name from two threads for 3 s: one
 * thread CONNECTs to a port nobody listens on (refused,
 * retried every 50 ms until its 1 s timeout), the other DISCONNECTs that
 * name every few milliseconds and so tears the connecting link down under
 * the CONNECT.  CONNECT used to hold no reference on its link: it went on
 * with a link and a cm_id the DISCONNECT had freed.  Every CONNECT must end
 * with -ETIMEDOUT, or -ECONNABORTED when its link was torn down under it;
 * every DISCONNECT with 0 or -ENOTCONN.  Afterwards no link is left and the
 * engine still connects to a listener.
 */
#define CVD_DEAD_PORT	19520	/* nobody listens */
#define CVD_PEER_PORT	19521

struct cvd {
	int fd;
	volatile int stop;
	/* the connecting thread's */
	int connects, timedout, aborted, cbad;
	/* the disconnecting thread's */
	int disconnects, hits, dbad;
};

static void *cvd_connector(void *p)
{
	struct cvd *c = p;

	while (!c->stop) {
		long ret = hx_connect(c->fd, CVD_DEAD_PORT, 1000);

		c->connects++;
		if (ret == -ETIMEDOUT) {
			c->timedout++;
		} else if (ret == -ECONNABORTED) {
			c->aborted++;
		} else {
			c->cbad++;
			printf("#   CONNECT to a dead port: %ld (%s)\n", ret, strerror((int)-ret));
		}
	}
	return NULL;
}

static void *cvd_disconnector(void *p)
{
	struct cvd *c = p;
	unsigned int seed = 18;

	while (!c->stop) {
		long ret = hx_disconnect(c->fd, CVD_DEAD_PORT);

		c->disconnects++;
		if (ret == 0) {
			c->hits++;
		} else if (ret != -ENOTCONN) {
			c->dbad++;
			printf("#   DISCONNECT: %ld (%s)\n", ret, strerror((int)-ret));
		}
		usleep(1000 + rand_r(&seed) % 20000);
	}
	return NULL;
}

static void test_connect_vs_disconnect(void)
{
	pthread_t ct, dt;
	struct cvd c;
	int b;

	memset(&c, 0, sizeof(c));
	c.fd = hx_engine(0, 0, 0);
	REQUIRE(c.fd >= 0);
	REQUIRE(pthread_create(&ct, NULL, cvd_connector, &c) == 0);
	REQUIRE(pthread_create(&dt, NULL, cvd_disconnector, &c) == 0);
	sleep(3);
	c.stop = 1;
	pthread_join(ct, NULL);
	pthread_join(dt, NULL);
	printf("#   %d CONNECTs (%d -ETIMEDOUT, %d -ECONNABORTED), %d DISCONNECTs (%d found the link)\n",
	       c.connects, c.timedout, c.aborted, c.disconnects, c.hits);
	CHECK_EQ(c.cbad, 0);
	CHECK_EQ(c.dbad, 0);
	CHECK(c.hits >= 1);		/* links were torn down under CONNECTs */
	CHECK(c.aborted >= 1);
	CHECK_EQ(hx_disconnect(c.fd, CVD_DEAD_PORT), -ENOTCONN);	/* nothing left behind */
	b = hx_engine(CVD_PEER_PORT, 0, 0);
	REQUIRE(b >= 0);
	CHECK_EQ(hx_connect(c.fd, CVD_PEER_PORT, 5000), 0);
	close(b);
	close(c.fd);
}

const struct ht_test fault_tests[] = {
	{ "fault_peer_closed_write", test_fault_peer_closed_write },
	{ "fault_peer_closed_read", test_fault_peer_closed_read },
	{ "fault_peer_closed_passive", test_fault_peer_closed_passive },
	{ "fault_netdev_down", test_fault_netdev_down },
	{ "fault_oom_reg", test_fault_oom_reg },
	{ "fault_oom_reg_linked", test_fault_oom_reg_linked },
	{ "fault_oom_dereg_linked", test_fault_oom_dereg_linked },
	{ "fault_oom_setup", test_fault_oom_setup },
	{ "fault_peer_dereg_mid_batch", test_fault_peer_dereg_mid_batch },
	{ "fault_peer_munmap_mid_batch", test_fault_peer_munmap_mid_batch },
	{ "fault_threads", test_fault_threads },
	{ "connect_vs_disconnect", test_connect_vs_disconnect },
	{ NULL, NULL },
};
