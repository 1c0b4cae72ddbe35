// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-util.cpp - hixl-nixl-test's helpers (nixl-test.h) and its target
 * process: the agent that answers the initiator's commands (nixl-test.cpp).
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include <hixl/hixl.h>

#include "nixl-test.h"

uint8_t pat(unsigned seed, size_t off)
{
	uint32_t x = (uint32_t)off * 2654435761u + seed * 40503u;

	return (uint8_t)(x >> 13 ^ off >> 8);
}

void fill(uint8_t *p, size_t len, unsigned seed, size_t base)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(seed, base + i);
}

uint64_t fnv(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* length-prefixed messages on the socketpair */
void sendMsg(int fd, const std::string &s)
{
	uint32_t n = s.size();

	if (write(fd, &n, 4) != 4 || write(fd, s.data(), n) != (ssize_t)n) {
		perror("hixl-nixl-test: write");
		exit(1);
	}
}

static bool readAll(int fd, void *buf, size_t len)
{
	char *p = (char *)buf;

	while (len) {
		ssize_t r = read(fd, p, len);

		if (r <= 0)
			return false;
		p += r;
		len -= r;
	}
	return true;
}

std::string recvMsg(int fd)
{
	uint32_t n;
	std::string s;

	if (!readAll(fd, &n, 4))
		return "EOF";
	s.resize(n);
	if (!readAll(fd, &s[0], n))
		return "EOF";
	return s;
}

nixl_status_t waitXfer(nixlAgent &ag, nixlXferReqH *req, int timeout_ms)
{
	auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
	nixl_status_t st;

	while ((st = ag.getXferStatus(req)) == NIXL_IN_PROG && std::chrono::steady_clock::now() < until)
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	return st;
}

nixl_status_t Agent::reg(void *p, size_t len)
{
	nixl_reg_dlist_t d(DRAM_SEG);

	d.addDesc(nixlBlobDesc((uintptr_t)p, len, 0, ""));
	return ag.registerMem(d);
}

nixl_status_t Agent::dereg(void *p, size_t len)
{
	nixl_reg_dlist_t d(DRAM_SEG);

	d.addDesc(nixlBlobDesc((uintptr_t)p, len, 0, ""));
	return ag.deregisterMem(d);
}

nixl_b_params_t defaults()
{
	nixlAgent probe("probe", nixlAgentConfig(false));
	nixl_mem_list_t mems;
	nixl_b_params_t p;

	if (probe.getPluginParams("HIXL", mems, p) != NIXL_SUCCESS)
		return {};
	return p;
}

void *alloc(size_t len)
{
	void *p = nullptr;

	if (posix_memalign(&p, 4096, len))
		abort();
	memset(p, 0, len);
	return p;
}

/*
 * The target: agent NAME, a buffer of bufSize (and for "B" a second region
 * of smallSize), its metadata and addresses sent first, then commands.
 */
int target(int fd, const std::string &name)
{
	Agent a(name);
	uint8_t *buf = (uint8_t *)alloc(bufSize), *small = (uint8_t *)alloc(smallSize);
	std::vector<uint8_t> snap;
	nixl_status_t st;
	std::string md, peer;

	if ((st = a.make(defaults())) != NIXL_SUCCESS || (st = a.reg(buf, bufSize)) != NIXL_SUCCESS ||
	    (st = a.reg(small, smallSize)) != NIXL_SUCCESS || (st = a.ag.getLocalMD(md)) != NIXL_SUCCESS) {
		sendMsg(fd, "ERR " + std::string(nixlEnumStrings::statusStr(st)));
		return 1;
	}
	sendMsg(fd, "OK " + std::to_string((uintptr_t)buf) + " " + std::to_string((uintptr_t)small));
	sendMsg(fd, md);
	for (;;) {
		std::string msg = recvMsg(fd), cmd;
		std::istringstream in(msg);
		size_t off = 0, len = 0;
		unsigned seed = 0;

		in >> cmd;
		if (cmd == "EOF" || cmd == "EXIT")
			return 0;
		if (cmd == "LOADMD") {		/* the rest of the message is A's metadata */
			st = a.ag.loadRemoteMD(msg.substr(7), peer);
			sendMsg(fd, st == NIXL_SUCCESS ? "OK " + peer : "ERR " + std::string(nixlEnumStrings::statusStr(st)));
		} else if (cmd == "FILL") {
			in >> seed;
			fill(buf, bufSize, seed, 0);
			sendMsg(fd, "OK");
		} else if (cmd == "HASH") {	/* HASH off len */
			in >> off >> len;
			sendMsg(fd, std::to_string(fnv(buf + off, len)));
		} else if (cmd == "CHECK") {	/* CHECK seed off len: pattern seed at offsets off.. */
			in >> seed >> off >> len;
			size_t i;

			for (i = 0; i < len && buf[off + i] == pat(seed, off + i); i++)
				;
			sendMsg(fd, i == len ? "OK" : "BAD at " + std::to_string(off + i));
		} else if (cmd == "SNAP") {
			snap.assign(buf, buf + bufSize);
			sendMsg(fd, "OK");
		} else if (cmd == "UNCHANGED") {	/* UNCHANGED ms: bytes that changed since SNAP */
			int ms;
			size_t diff = 0, landed = 0;

			in >> ms;
			std::this_thread::sleep_for(std::chrono::milliseconds(ms));
			for (size_t i = 0; i < bufSize; i++) {
				diff += buf[i] != snap[i];
				landed += buf[i] != 0;
			}
			sendMsg(fd, std::to_string(diff) + " " + std::to_string(landed));
		} else if (cmd == "ZERO") {
			memset(buf, 0, bufSize);
			sendMsg(fd, "OK");
		} else if (cmd == "WAITNOTIF") {	/* WAITNOTIF msg [seed off len]: bytes there on arrival */
			std::string want;
			int got = 0;
			auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);

			in >> want >> seed >> off >> len;
			std::string res = "TIMEOUT";
			while (!got && std::chrono::steady_clock::now() < until) {
				nixl_notifs_t n;

				if ((st = a.ag.getNotifs(n)) != NIXL_SUCCESS) {
					res = "ERR getNotifs " + std::string(nixlEnumStrings::statusStr(st));
					break;
				}
				for (auto &kv : n)
					for (auto &m : kv.second)
						if (m == want) {
							got = 1;
							res = "OK " + kv.first;
							for (size_t i = 0; i < len; i++)
								if (buf[off + i] != pat(seed, off + i)) {
									res = "BYTES-LATE at " + std::to_string(off + i);
									break;
								}
						}
				if (!got)
					std::this_thread::sleep_for(std::chrono::milliseconds(1));
			}
			sendMsg(fd, res);
		} else if (cmd == "GENNOTIF") {	/* GENNOTIF agent msg */
			std::string to, m;

			in >> to >> m;
			st = a.ag.genNotif(to, m);
			sendMsg(fd, st == NIXL_SUCCESS ? "OK" : "ERR " + std::string(nixlEnumStrings::statusStr(st)));
		} else if (cmd == "DEREG") {
			st = a.dereg(small, smallSize);
			sendMsg(fd, st == NIXL_SUCCESS ? "OK" : "ERR " + std::string(nixlEnumStrings::statusStr(st)));
		} else {
			sendMsg(fd, "ERR unknown command " + cmd);
		}
	}
}


bool spawn(Peer &p, const std::string &name)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	p.pid = fork();
	if (p.pid == 0) {
		char fdstr[16];

		snprintf(fdstr, sizeof(fdstr), "%d", sv[1]);
		fcntl(sv[1], F_SETFD, 0);
		execl("/proc/self/exe", "hixl-nixl-test", "--target", fdstr, name.c_str(), (char *)nullptr);
		_exit(127);
	}
	close(sv[1]);
	p.fd = sv[0];
	std::string hello = recvMsg(p.fd);
	std::istringstream in(hello);
	std::string okw;

	in >> okw >> p.buf >> p.small;
	if (okw != "OK") {
		p.err = hello;
		return false;
	}
	p.md = recvMsg(p.fd);
	return true;
}

nixl_xfer_dlist_t dlist(uintptr_t base, size_t count, size_t len, size_t stride)
{
	nixl_xfer_dlist_t d(DRAM_SEG);

	for (size_t i = 0; i < count; i++)
		d.addDesc(nixlBasicDesc(base + i * stride, len, 0));
	return d;
}

/* one transfer A -> peer: create, post, wait; the final status */
nixl_status_t xfer(Agent &a, nixl_xfer_op_t op, const nixl_xfer_dlist_t &l, const nixl_xfer_dlist_t &r,
		   const std::string &peer, const char *notif)
{
	nixlXferReqH *req = nullptr;
	nixl_opt_args_t extra;
	nixl_status_t st;

	if (notif)
		extra.notif = std::string(notif);
	st = a.ag.createXferReq(op, l, r, peer, req, notif ? &extra : nullptr);
	if (st != NIXL_SUCCESS)
		return st;
	st = a.ag.postXferReq(req);
	if (st == NIXL_IN_PROG)
		st = waitXfer(a.ag, req);
	a.ag.releaseXferReq(req);
	return st;
}

std::string sstr(nixl_status_t st)
{
	return nixlEnumStrings::statusStr(st);
}

/* no engine of process @pid is left in the kernel (its pinned memory went with it) */
bool engineGone(pid_t pid)
{
	int fd = hixl_dev_open(nullptr);
	std::vector<struct hixl_engine_stat> e(256);
	bool gone = false;

	if (fd < 0)
		return false;
	for (int tries = 0; tries < 100 && !gone; tries++) {
		int n = hixl_dev_engines(fd, e.data(), e.size(), nullptr);

		gone = n >= 0 && std::none_of(e.begin(), e.begin() + n,
					      [pid](const hixl_engine_stat &s) { return s.pid == (uint32_t)pid; });
		if (!gone)
			std::this_thread::sleep_for(std::chrono::milliseconds(50));
	}
	close(fd);
	return gone;
}

