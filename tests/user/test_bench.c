// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench.c - tools/hixl-bench where the module is loaded (the test VM:
 * rxe0 with 10.77.0.1, run from the repo): --server and --client on one
 * host, the server against garbled and hostile clients on its side socket,
 * and the early failures a device-less host cannot reach (no RDMA device on
 * the address: 77; the passive side's process failing: its own errno, not
 * ECHILD).  The device-less side is tests/tools/hixl-bench.sh (install
 * check); two hosts are tests/pair/guest.sh's.  Engines on 10.77.0.1, engine
 * and TCP ports 17600-17699.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define BENCH		"tools/hixl-bench"
#define MODEL		"--layers 2 --tokens 256 --iters 1 --no-progress"

/* the side socket's messages (tools/bench/net.c) */
#define NET_MAGIC	0x4858424eu
enum { HELLO = 1, TABLE, MODE, READY, VERIFY, RESULT, BYE, ERROR };

struct hdr {
	uint32_t magic;
	uint16_t version, type;
	uint32_t len;
} __attribute__((packed));

/* a command's stdout and exit status (-1: it did not exit) */
static int run(const char *cmd, char *out, size_t len)
{
	size_t n = 0, got;
	FILE *f = popen(cmd, "r");
	int st;

	out[0] = '\0';
	if (!f)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, f)))
		n += got;
	out[n] = '\0';
	st = pclose(f);
	printf("#   %s: exit status %d\n", cmd, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void need_bench(void)
{
	int probe;

	if (access(BENCH, X_OK))
		SKIP(BENCH " not built (run from the repo after make)");
	probe = hx_engine(0, 0, 0);	/* SKIPs without rxe0 */
	REQUIRE(probe >= 0);
	close(probe);
}

/* hixl-bench --server on HX_IP:@eport, TCP @tport, stderr to /dev/null */
static pid_t server_start(int eport, int tport)
{
	char local[64], port[16];
	pid_t pid;

	snprintf(local, sizeof(local), HX_IP ":%d", eport);
	snprintf(port, sizeof(port), "%d", tport);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(BENCH, BENCH, "--server", "--local", local, "--port", port, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* the server's exit status within 30 s (-1: killed, or a signal) */
static int server_wait(pid_t pid)
{
	int st = 0;

	for (int i = 0; i < 300; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("#   the server did not exit within 30 s\n");
	return -1;
}

/* a TCP connection to 127.0.0.1:@port, retrying while the server starts */
static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 20 };

	for (int i = 0; i < 100; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			return fd;
		}
		if (fd >= 0)
			close(fd);
		usleep(100000);
	}
	return -1;
}

static void put_hdr(unsigned char *p, uint32_t magic, uint16_t version, uint16_t type,
		    uint32_t len)
{
	struct hdr h = { htobe32(magic), htobe16(version), htobe16(type), htobe32(len) };

	memcpy(p, &h, sizeof(h));
}

/* a HELLO of the model (layers .. tokens, seed), after the header */
static size_t hello(unsigned char *p, uint64_t layers, uint64_t tokens)
{
	uint64_t v[7] = { layers, 8, 128, 2, 16, tokens, 1 };

	put_hdr(p, NET_MAGIC, 1, HELLO, sizeof(v));
	for (int i = 0; i < 7; i++) {
		uint64_t b = htobe64(v[i]);

		memcpy(p + sizeof(struct hdr) + i * 8, &b, 8);
	}
	return sizeof(struct hdr) + sizeof(v);
}

/*
 * Read one reply's header (and skip its payload); its type, 0 when the
 * server closed or said nothing.
 */
static int reply_type(int fd)
{
	unsigned char buf[65536];
	struct hdr h;
	uint32_t len;
	size_t got = 0;

	while (got < sizeof(h)) {
		ssize_t n = recv(fd, (char *)&h + got, sizeof(h) - got, 0);

		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	len = be32toh(h.len);
	while (len) {
		ssize_t n = recv(fd, buf, len < sizeof(buf) ? len : sizeof(buf), 0);

		if (n <= 0)
			break;
		len -= (uint32_t)n;
	}
	return be32toh(h.magic) == NET_MAGIC ? be16toh(h.type) : -1;
}

/* --server and --client on one host: both modes, sync and async, verified */
static void test_bench_net(void)
{
	char out[16384], cmd[512];
	pid_t srv;
	int rc;

	need_bench();
	for (int inflight = 1; inflight <= 4; inflight += 3) {
		int tport = 17601 + inflight;

		srv = server_start(17600, tport);
		REQUIRE(srv > 0);
		snprintf(cmd, sizeof(cmd), BENCH " --client 127.0.0.1:%d --local " HX_IP " "
			 MODEL " --inflight %d --json", tport, inflight);
		rc = run(cmd, out, sizeof(out));
		CHECK_EQ(rc, 0);
		CHECK(strstr(out, "{\"tool\":\"hixl-bench\",\"ok\":true") != NULL);
		CHECK(strstr(out, "{\"mode\":\"write\",\"ok\":true") != NULL);
		CHECK(strstr(out, "{\"mode\":\"read\",\"ok\":true") != NULL);
		CHECK(strstr(out, "\"server\":\"127.0.0.1:") != NULL);
		CHECK_EQ(server_wait(srv), 0);
	}
	/* nothing listens: the client gives up after --connect-wait, exit 1 */
	rc = run(BENCH " --client 127.0.0.1:17609 --local " HX_IP " --connect-wait 1 --json",
		 out, sizeof(out));
	CHECK_EQ(rc, 1);
	CHECK(strstr(out, "\"errno\":111") != NULL);	/* ECONNREFUSED */
}

/* the server against garbled clients: an ERROR back, exit 1, no crash */
static void test_bench_server_garbled(void)
{
	static const struct {
		const char *what;
		int reply;	/* ERROR, or 0: the server just closes */
	} cases[] = {
		{ "bad magic", ERROR }, { "other version", ERROR }, { "HELLO too short", ERROR },
		{ "MODE first", ERROR }, { "zero layers", ERROR }, { "huge model", ERROR },
		{ "tokens not whole blocks", ERROR }, { "closed at once", 0 },
		{ "MODE op 7", ERROR }, { "VERIFY before a WRITE", ERROR },
		{ "garbage after HELLO", ERROR },
	};
	unsigned char msg[256];
	size_t n;

	need_bench();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int tport = 17620 + (int)i, fd, type, rc;
		pid_t srv = server_start(17610, tport);

		REQUIRE(srv > 0);
		fd = dial(tport);
		CHECK(fd >= 0);
		if (fd < 0) {
			server_wait(srv);
			continue;
		}
		memset(msg, 0, sizeof(msg));
		switch (i) {
		case 0: n = hello(msg, 2, 256); msg[0] ^= 0xff; break;
		case 1: n = hello(msg, 2, 256); put_hdr(msg, NET_MAGIC, 9, HELLO, 56); break;
		case 2: n = hello(msg, 2, 256); put_hdr(msg, NET_MAGIC, 1, HELLO, 8); n = 20; break;
		case 3: put_hdr(msg, NET_MAGIC, 1, MODE, 8); n = 20; break;
		case 4: n = hello(msg, 0, 256); break;
		case 5: n = hello(msg, 1u << 20, 2048); break;	/* ~1 TiB */
		case 6: n = hello(msg, 2, 250); break;
		case 7: n = 0; break;
		default: n = hello(msg, 2, 256); break;
		}
		if (n)
			CHECK(send(fd, msg, n, MSG_NOSIGNAL) == (ssize_t)n);
		if (i >= 8) {	/* after a good HELLO: the TABLE, then the bad one */
			CHECK_EQ(reply_type(fd), TABLE);
			if (i == 8) {
				put_hdr(msg, NET_MAGIC, 1, MODE, 8);
				memset(msg + 12, 0, 8);
				msg[15] = 7;	/* op 7, reserved 0 */
				n = 20;
			} else if (i == 9) {
				put_hdr(msg, NET_MAGIC, 1, VERIFY, 0);
				n = 12;
			} else {
				memset(msg, 0x5a, 64);
				n = 64;
			}
			CHECK(send(fd, msg, n, MSG_NOSIGNAL) == (ssize_t)n);
		}
		if (i == 7)
			shutdown(fd, SHUT_RDWR);
		type = reply_type(fd);
		printf("#   %s: reply %d\n", cases[i].what, type);
		if (cases[i].reply)
			CHECK_EQ(type, cases[i].reply);
		close(fd);
		rc = server_wait(srv);
		CHECK_EQ(rc, 1);
	}
}

/*
 * Early failures with a device: no RDMA device on the address is a skip
 * (77) with the errno in the JSON; a passive side whose engine fails in its
 * child process gives that errno (EADDRINUSE), not ECHILD.
 */
static void test_bench_early(void)
{
	char out[4096];
	int busy, rc;

	need_bench();
	rc = run(BENCH " --local 10.99.0.1:17650 --remote 10.99.0.1:17651 --json", out,
		 sizeof(out));
	CHECK_EQ(rc, 77);
	CHECK(strstr(out, "{\"ok\":false,\"error\":\"") == out);
	CHECK(strstr(out, "\"errno\":99}") != NULL);	/* EADDRNOTAVAIL */

	busy = hx_engine(17652, 0, 0);	/* the decode side's port, taken */
	REQUIRE(busy >= 0);
	rc = run(BENCH " --local " HX_IP ":17653 --remote " HX_IP ":17652 --mode write "
		 MODEL " --json", out, sizeof(out));
	CHECK_EQ(rc, 1);
	CHECK(strstr(out, "{\"ok\":false,\"error\":\"") == out);
	CHECK(strstr(out, "\"errno\":98}") != NULL);	/* EADDRINUSE, from the child */
	CHECK(strstr(out, "\"errno\":10}") == NULL);	/* not ECHILD */
	close(busy);

	rc = run(BENCH " --pool 3 --json 2>/dev/null", out, sizeof(out));
	CHECK_EQ(rc, 2);
	CHECK(strstr(out, "\"errno\":22}") != NULL);
}

/* moved_by's three counts of @mode's result in hixl-bench's JSON; 0 or -1 */
static int moved_by(const char *out, const char *mode, unsigned long long *copy,
		    unsigned long long *rdma, unsigned long long *staged)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "{\"mode\":\"%s\",", mode);
	p = strstr(out, key);
	if (!p || !(p = strstr(p, "\"moved_by\":{")))
		return -1;
	return sscanf(p, "\"moved_by\":{\"kernel_copy_bytes\":%llu,\"rdma_bytes\":%llu,"
		      "\"staged_bytes\":%llu}", copy, rdma, staged) == 3 ? 0 : -1;
}

/*
 * --transport takes effect end to end: two engines of this host in two
 * processes, both modes; with "local" every byte the prefill engine moved
 * is counted as a kernel copy, with "rdma" none is (the library's counters,
 * hixl-bench's "moved by"), and both verify.
 */
static void test_bench_transport(void)
{
	static const char *const mode[] = { "write", "read" };
	unsigned long long copy, rdma, staged;
	char out[16384], cmd[512];
	int rc;

	need_bench();
	for (int local = 0; local <= 1; local++) {
		snprintf(cmd, sizeof(cmd), BENCH " --local " HX_IP ":17660 --remote " HX_IP
			 ":17661 --procs 2 --pool 0:0 --transport %s " MODEL " --json",
			 local ? "local" : "rdma");
		rc = run(cmd, out, sizeof(out));
		CHECK_EQ(rc, 0);
		CHECK(strstr(out, "{\"tool\":\"hixl-bench\",\"ok\":true") != NULL);
		for (int m = 0; m < 2; m++) {
			CHECK_EQ(moved_by(out, mode[m], &copy, &rdma, &staged), 0);
			printf("#   --transport %s, %s: kernel copy %llu, rdma %llu, staged %llu B\n",
			       local ? "local" : "rdma", mode[m], copy, rdma, staged);
			CHECK_EQ(staged, 0);	/* --pool 0:0 */
			if (local) {
				CHECK(copy > 0);
				CHECK_EQ(rdma, 0);
			} else {
				CHECK(rdma > 0);
				CHECK_EQ(copy, 0);
			}
		}
	}
}

/* loopback engines (no device): --transport local and auto copy in the kernel */
static void test_bench_loopback(void)
{
	static const char *const tr[] = { "local", "auto" };
	unsigned long long copy, rdma, staged;
	char out[16384], cmd[512];
	int rc;

	need_bench();
	for (int t = 0; t < 2; t++) {
		snprintf(cmd, sizeof(cmd), BENCH " --local 127.0.0.1:24440 --remote [::1]:24441 "
			 "--procs 2 --transport %s " MODEL " --json", tr[t]);
		rc = run(cmd, out, sizeof(out));
		CHECK_EQ(rc, 0);
		CHECK(strstr(out, "{\"tool\":\"hixl-bench\",\"ok\":true") != NULL);
		CHECK_EQ(moved_by(out, "write", &copy, &rdma, &staged), 0);
		printf("#   loopback, --transport %s, write: kernel copy %llu, rdma %llu, staged %llu B\n",
		       tr[t], copy, rdma, staged);
		CHECK(copy > 0);
		CHECK_EQ(rdma, 0);
		CHECK_EQ(staged, 0);
	}
}

const struct ht_test bench_tests[] = {
	{ "bench_net", test_bench_net },
	{ "bench_server_garbled", test_bench_server_garbled },
	{ "bench_early", test_bench_early },
	{ "bench_transport", test_bench_transport },
	{ "bench_loopback", test_bench_loopback },
	{ NULL, NULL },
};
