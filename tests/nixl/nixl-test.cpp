// SPDX-License-Identifier: GPL-2.0
/*
 * hixl-nixl-test - NIXL's C++ agent API (nixlAgent, NIXL 1.4.0) with the
 * backend HIXL (build/nixl/libplugin_HIXL.so), two agents in two processes.
 * TAP on stdout; exit 0 when all passed, 1 when one failed, 77 (skip) with
 * the reason when this host has no /dev/hixl.
 *
 * Usage: hixl-nixl-test            (the plugin is looked up beside the
 *                                   program unless NIXL_PLUGIN_DIR is set)
 *
 * The initiator (this process, agent "A") re-executes itself as the target
 * (agent "B", `--target FD`), which answers commands on a socketpair: fill,
 * hash, snapshot and compare its buffer, wait for notifications, send one,
 * deregister a region.  A third process ("C") is killed mid-transfer.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <hixl/hixl.h>
#include <nixl.h>

#include "nixl-test.h"
#include "../gpu/fake_cuda.h"

namespace {

int failures, testNo;
auto lastResult = std::chrono::steady_clock::now();	/* the program's start, then the last ok() */

/* a TAP result, then "# took NAME S s": the time since the last result */
void ok(bool cond, const std::string &name, const std::string &why = "")
{
	auto now = std::chrono::steady_clock::now();

	testNo++;
	if (!cond)
		failures++;
	printf("%s %d - %s%s%s\n# took %d %.1f s\n", cond ? "ok" : "not ok", testNo, name.c_str(),
	       why.empty() ? "" : " # ", why.c_str(), testNo,
	       std::chrono::duration<double>(now - lastResult).count());
	lastResult = now;
	fflush(stdout);
}

/*
 * VRAM_SEG: device memory by address, against the fake CUDA driver of
 * tests/gpu/fake_cuda.c (build/fake-cuda/libcuda.so.1, loaded here by its
 * path so that the library's dlopen("libcuda.so.1") finds it): 1 MiB of
 * "device memory" (PROT_NONE to the CPU) WRITten to B's DRAM and READ back
 * from it, checked through cuMemcpyDtoH.  SKIP without /dev/udmabuf or the
 * fake.
 */
void vramTest(Agent &a, Peer &b)
{
	const size_t n = 1 << 20;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	std::string path;
	void *h;

	if (access("/dev/udmabuf", F_OK)) {
		ok(true, "VRAM_SEG by address", "SKIP /dev/udmabuf missing: the fake GPU exports udmabufs");
		return;
	}
	if (len <= 0)
		len = 0;
	exe[len] = 0;
	path = std::string(exe);
	path = path.substr(0, path.rfind('/')) + "/../fake-cuda/libcuda.so.1";
	h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		ok(true, "VRAM_SEG by address", "SKIP the fake CUDA driver is not built (make tests)");
		return;
	}
	auto init = (fake_cuInit)dlsym(h, "cuInit");
	auto dalloc = (fake_cuMemAlloc_v2)dlsym(h, "cuMemAlloc_v2");
	auto htod = (fake_cuMemcpyHtoD_v2)dlsym(h, "cuMemcpyHtoD_v2");
	auto dtoh = (fake_cuMemcpyDtoH_v2)dlsym(h, "cuMemcpyDtoH_v2");
	CUdeviceptr d = 0;
	std::vector<uint8_t> tmp(n);
	nixl_reg_dlist_t reg(VRAM_SEG);
	nixl_xfer_dlist_t dl(VRAM_SEG);
	nixl_status_t st;
	std::string r;
	size_t i;

	if (!init || !dalloc || !htod || !dtoh || init(0) || dalloc(&d, n)) {
		ok(false, "VRAM_SEG by address: the fake CUDA driver works");
		return;
	}
	fill(tmp.data(), n, 7, 0);
	htod(d, tmp.data(), n);
	reg.addDesc(nixlBlobDesc(d, n, 0, ""));
	st = a.ag.registerMem(reg);
	ok(st == NIXL_SUCCESS, "registerMem: 1 MiB VRAM_SEG by its device address", sstr(st));
	dl.addDesc(nixlBasicDesc(d, n, 0));
	st = xfer(a, NIXL_WRITE, dl, dlist(b.buf, 1, n, n), "B");
	r = b.cmd("CHECK 7 0 " + std::to_string(n));
	ok(st == NIXL_SUCCESS && r == "OK", "WRITE VRAM_SEG -> DRAM_SEG: B's bytes are the device's",
	   sstr(st) + ", B: " + r);
	b.cmd("FILL 8");
	st = xfer(a, NIXL_READ, dl, dlist(b.buf + (2 << 20), 1, n, n), "B");
	dtoh(tmp.data(), d, n);
	for (i = 0; i < n && tmp[i] == pat(8, (2 << 20) + i); i++)
		;
	ok(st == NIXL_SUCCESS && i == n, "READ DRAM_SEG -> VRAM_SEG: the device's bytes are B's",
	   sstr(st) + (i < n ? ", first difference at " + std::to_string(i) : ""));
	st = a.ag.deregisterMem(reg);
	ok(st == NIXL_SUCCESS, "deregisterMem VRAM_SEG", sstr(st));
}

int initiator()
{
	Peer b, c;
	std::string peer, r;
	nixl_status_t st;

	printf("TAP version 13\n");
	Agent a("A");
	uint8_t *buf = (uint8_t *)alloc(bufSize);

	st = a.make(defaults());
	ok(st == NIXL_SUCCESS, "createBackend(HIXL) with the plugin's default parameters", sstr(st));
	if (st != NIXL_SUCCESS) {
		printf("1..%d\n", testNo);
		return 1;
	}
	ok(a.reg(buf, bufSize) == NIXL_SUCCESS, "registerMem: 64 MiB DRAM_SEG");
	if (!spawn(b, "B")) {
		ok(false, "agent B in a second process", b.err);
		printf("1..%d\n", testNo);
		return 1;
	}

	/* metadata exchange both ways */
	std::string amd;

	st = a.ag.loadRemoteMD(b.md, peer);
	a.ag.getLocalMD(amd);
	r = b.cmd("LOADMD " + amd);
	ok(st == NIXL_SUCCESS && peer == "B" && r == "OK A",
	   "getLocalMD/loadRemoteMD: A loaded B's metadata, B loaded A's", sstr(st) + ", B: " + r);

	/*
	 * B's metadata with its region blob claiming another agent ("Z"), and
	 * with a blob that is not HIXL's: refused by the backend, by name
	 */
	{
		std::string forged = b.md, junk = b.md;
		size_t at = b.md.find("hixl2:"), nameAt = std::string::npos;
		nixl_status_t st1 = NIXL_ERR_UNKNOWN, st2 = NIXL_ERR_UNKNOWN;

		if (at != std::string::npos)
			nameAt = b.md.find(':', b.md.find(':', at + 6) + 1) + 1;
		if (nameAt && nameAt != std::string::npos && b.md[nameAt] == 'B') {
			Agent x("X-forged"), y("X-junk");

			forged[nameAt] = 'Z';
			junk[at + 4] = '9';
			if (x.make(defaults()) == NIXL_SUCCESS && y.make(defaults()) == NIXL_SUCCESS) {
				std::string who;

				st1 = x.ag.loadRemoteMD(forged, who);
				st2 = y.ag.loadRemoteMD(junk, who);
			}
		}
		ok(st1 == NIXL_ERR_INVALID_PARAM, "loadRemoteMD: a region blob naming another agent is INVALID_PARAM",
		   sstr(st1));
		ok(st2 == NIXL_ERR_INVALID_PARAM, "loadRemoteMD: a region blob that is not HIXL's is INVALID_PARAM",
		   sstr(st2));
	}

	/* WRITE, 16 descriptors of 1 MiB, byte for byte */
	fill(buf, 16 << 20, 1, 0);
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 16, 1 << 20, 1 << 20), dlist(b.buf, 16, 1 << 20, 1 << 20), "B");
	r = b.cmd("CHECK 1 0 " + std::to_string(16 << 20));
	ok(st == NIXL_SUCCESS && r == "OK", "WRITE 16 x 1 MiB: B's bytes are A's", sstr(st) + ", B: " + r);

	/* READ from B's second 16 MiB into A's first, byte for byte */
	b.cmd("FILL 2");
	memset(buf, 0, bufSize);
	st = xfer(a, NIXL_READ, dlist((uintptr_t)buf, 16, 1 << 20, 1 << 20),
		  dlist(b.buf + (16 << 20), 16, 1 << 20, 1 << 20), "B");
	{
		size_t i;

		for (i = 0; i < (16u << 20) && buf[i] == pat(2, (16 << 20) + i); i++)
			;
		ok(st == NIXL_SUCCESS && i == (16u << 20), "READ 16 x 1 MiB: A's bytes are B's",
		   sstr(st) + (i < (16u << 20) ? ", first difference at " + std::to_string(i) : ""));
	}

	/* queryMem: which registration holds a range */
	{
		nixl_reg_dlist_t q(DRAM_SEG);
		std::vector<nixl_query_resp_t> resp;
		nixl_opt_args_t extra;
		uint8_t *other = (uint8_t *)alloc(4096);

		extra.backends.push_back(a.be);
		q.addDesc(nixlBlobDesc((uintptr_t)buf + 4096, 8192, 0, ""));
		q.addDesc(nixlBlobDesc((uintptr_t)other, 4096, 0, ""));
		st = a.ag.queryMem(q, resp, &extra);
		ok(st == NIXL_SUCCESS && resp.size() == 2 && resp[0].has_value() &&
		   resp[0]->at("mem_type") == "DRAM_SEG" &&
		   resp[0]->at("region_addr") == std::to_string((uintptr_t)buf) &&
		   resp[0]->at("region_len") == std::to_string(bufSize) && !resp[1].has_value(),
		   "queryMem: a registered range names its region, an unregistered one has no value",
		   sstr(st) + ", " + std::to_string(resp.size()) + " answers");
		free(other);
	}

	/* estimateXferCost: from the transfers to B so far, near what the next one takes */
	{
		nixlXferReqH *req = nullptr;
		std::chrono::microseconds dur(0), margin(0);
		nixl_cost_t method;
		double took = 0;

		st = a.ag.createXferReq(NIXL_WRITE, dlist((uintptr_t)buf, 16, 1 << 20, 1 << 20),
					dlist(b.buf, 16, 1 << 20, 1 << 20), "B", req);
		if (st == NIXL_SUCCESS)
			st = a.ag.estimateXferCost(req, dur, margin, method);
		if (st == NIXL_SUCCESS) {
			auto t0 = std::chrono::steady_clock::now();
			nixl_status_t xs = a.ag.postXferReq(req);

			if (xs == NIXL_IN_PROG)
				xs = waitXfer(a.ag, req);
			took = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
			if (xs != NIXL_SUCCESS)
				st = xs;
		}
		if (req)
			a.ag.releaseXferReq(req);
		ok(st == NIXL_SUCCESS && dur.count() > 0 && dur.count() < took * 20 && dur.count() * 20 > took &&
		   method == nixl_cost_t::ANALYTICAL_BACKEND,
		   "estimateXferCost of a 16 MiB WRITE to B: within 20x of the time it then takes",
		   sstr(st) + ", estimate " + std::to_string(dur.count()) + " +- " + std::to_string(margin.count()) +
			   " us, took " + std::to_string((long)took) + " us");
	}

	vramTest(a, b);

	/* prepped lists, 256 of A's blocks to 256 scattered of B's 2048 */
	{
		nixlDlistH *hl = nullptr, *hr = nullptr;
		nixlXferReqH *req = nullptr;
		std::vector<int> li(256), ri(2048);
		std::mt19937 rng(7);

		for (int i = 0; i < 256; i++)
			li[i] = i;
		for (int i = 0; i < 2048; i++)
			ri[i] = i;
		std::shuffle(ri.begin(), ri.end(), rng);
		ri.resize(256);
		b.cmd("ZERO");
		fill(buf, 256 * blk, 3, 0);
		st = a.ag.prepXferDlist(NIXL_INIT_AGENT, dlist((uintptr_t)buf, 256, blk, blk), hl);
		if (st == NIXL_SUCCESS)
			st = a.ag.prepXferDlist("B", dlist(b.buf, 2048, blk, blk), hr);
		if (st == NIXL_SUCCESS)
			st = a.ag.makeXferReq(NIXL_WRITE, hl, li, hr, ri, req);
		if (st == NIXL_SUCCESS) {
			st = a.ag.postXferReq(req);
			if (st == NIXL_IN_PROG)
				st = waitXfer(a.ag, req);
			a.ag.releaseXferReq(req);
		}
		int bad = 0;

		for (int i = 0; i < 256 && st == NIXL_SUCCESS; i++)
			bad += b.cmd("HASH " + std::to_string(ri[i] * blk) + " " + std::to_string(blk)) !=
			       std::to_string(fnv(buf + i * blk, blk));
		ok(st == NIXL_SUCCESS && bad == 0,
		   "prepXferDlist/makeXferReq: 256 blocks of 32 KiB to scattered block ids",
		   sstr(st) + ", " + std::to_string(bad) + " blocks differ");

		/* and back: READ them into A's second half, same ids */
		std::vector<int> li2(256);

		for (int i = 0; i < 256; i++)
			li2[i] = 1024 + i;
		nixlDlistH *hl2 = nullptr;

		req = nullptr;
		st = a.ag.prepXferDlist(NIXL_INIT_AGENT, dlist((uintptr_t)buf, 2048, blk, blk), hl2);
		if (st == NIXL_SUCCESS)
			st = a.ag.makeXferReq(NIXL_READ, hl2, li2, hr, ri, req);
		if (st == NIXL_SUCCESS) {
			st = a.ag.postXferReq(req);
			if (st == NIXL_IN_PROG)
				st = waitXfer(a.ag, req);
			a.ag.releaseXferReq(req);
		}
		ok(st == NIXL_SUCCESS && !memcmp(buf, buf + 1024 * blk, 256 * blk),
		   "makeXferReq READ of the same scattered ids gives the blocks back", sstr(st));
		if (hl)
			a.ag.releasedDlistH(hl);
		if (hl2)
			a.ag.releasedDlistH(hl2);
		if (hr)
			a.ag.releasedDlistH(hr);
	}

	/* a WRITE's notification arrives after its bytes */
	{
		fill(buf, 8 << 20, 4, 0);
		sendMsg(b.fd, "WAITNOTIF w4 4 0 " + std::to_string(8 << 20));
		st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 256, blk, blk), dlist(b.buf, 256, blk, blk), "B", "w4");
		r = recvMsg(b.fd);
		ok(st == NIXL_SUCCESS && r == "OK A",
		   "postXferReq with a notification: B gets it from A, after the bytes", sstr(st) + ", B: " + r);
	}

	/*
	 * The notification travels with the data: it goes when the transfer
	 * completes, without the initiator polling, and a completed request
	 * released unpolled still notifies
	 */
	{
		nixlXferReqH *req = nullptr;
		nixl_opt_args_t extra;

		fill(buf, 8 << 20, 5, 0);
		extra.notif = std::string("w5");
		sendMsg(b.fd, "WAITNOTIF w5 5 0 " + std::to_string(8 << 20));
		st = a.ag.createXferReq(NIXL_WRITE, dlist((uintptr_t)buf, 256, blk, blk), dlist(b.buf, 256, blk, blk),
					"B", req, &extra);
		if (st == NIXL_SUCCESS)
			st = a.ag.postXferReq(req);
		r = recvMsg(b.fd);	/* A does not call getXferStatus meanwhile */
		ok((st == NIXL_SUCCESS || st == NIXL_IN_PROG) && r == "OK A",
		   "a WRITE's notification reaches B after the bytes while A never polls the request",
		   sstr(st) + ", B: " + r);
		if (req)
			a.ag.releaseXferReq(req);

		req = nullptr;
		fill(buf, 4096, 6, 0);
		extra.notif = std::string("w6");
		st = a.ag.createXferReq(NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.buf, 1, 4096, 0), "B",
					req, &extra);
		if (st == NIXL_SUCCESS)
			st = a.ag.postXferReq(req);
		std::this_thread::sleep_for(std::chrono::milliseconds(200));
		if (req)
			a.ag.releaseXferReq(req);
		r = b.cmd("WAITNOTIF w6 6 0 4096");
		ok((st == NIXL_SUCCESS || st == NIXL_IN_PROG) && r == "OK A",
		   "a request released without being polled still notifies B", sstr(st) + ", B: " + r);
	}

	/* notifications without a transfer, both ways */
	sendMsg(b.fd, "WAITNOTIF hello 0 0 0");
	st = a.ag.genNotif("B", "hello");
	r = recvMsg(b.fd);
	ok(st == NIXL_SUCCESS && r == "OK A", "genNotif A -> B", sstr(st) + ", B: " + r);
	r = b.cmd("GENNOTIF A back");
	{
		bool got = false;
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);

		while (!got && r == "OK" && std::chrono::steady_clock::now() < until) {
			nixl_notifs_t n;

			a.ag.getNotifs(n);
			got = n.count("B") && std::count(n["B"].begin(), n["B"].end(), "back");
			if (!got)
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
		ok(got, "genNotif B -> A (on the link A made)", "B: " + r);
	}
	{
		std::string big(HIXL_NOTIFY_MAX_MSG + 1, 'x');

		st = a.ag.genNotif("B", big);
		ok(st != NIXL_SUCCESS, "genNotif of 1025 bytes is refused (hixl carries 1024)", sstr(st));
	}

	/* releaseXferReq mid-flight: nothing lands afterwards */
	{
		nixlXferReqH *req = nullptr;
		bool inflight = false;

		b.cmd("ZERO");
		fill(buf, bufSize, 5, 0);
		st = a.ag.createXferReq(NIXL_WRITE, dlist((uintptr_t)buf, bufSize / blk, blk, blk),
					dlist(b.buf, bufSize / blk, blk, blk), "B", req);
		if (st == NIXL_SUCCESS) {
			st = a.ag.postXferReq(req);
			inflight = st == NIXL_IN_PROG && a.ag.getXferStatus(req) == NIXL_IN_PROG;
			nixl_status_t rs = a.ag.releaseXferReq(req);

			if (st == NIXL_IN_PROG)
				st = rs;
		}
		b.cmd("SNAP");
		r = b.cmd("UNCHANGED 500");
		std::istringstream in(r);
		size_t diff = 1, landed = 0;

		in >> diff >> landed;
		ok(st == NIXL_SUCCESS && inflight && diff == 0,
		   "releaseXferReq of a 64 MiB WRITE in flight: no byte lands after it returned",
		   sstr(st) + (inflight ? "" : ", it was not in flight at the release") + ", " +
			   std::to_string(diff) + " bytes changed after, " + std::to_string(landed) +
			   " landed before");

		fill(buf, 1 << 20, 6, 0);
		st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 1 << 20, 0), dlist(b.buf, 1, 1 << 20, 0), "B");
		r = b.cmd("CHECK 6 0 " + std::to_string(1 << 20));
		ok(st == NIXL_SUCCESS && r == "OK", "a WRITE after the release works", sstr(st) + ", B: " + r);
	}

	/*
	 * The same over RDMA (transport rdma: rxe, no same-host copy), as a
	 * READ: once the release returned, nothing of it changes our memory
	 */
	{
		Agent r("R");
		nixl_b_params_t p = defaults();
		nixlXferReqH *req = nullptr;
		uint8_t *mem = (uint8_t *)alloc(bufSize);
		std::vector<uint8_t> snap;
		bool inflight = false;
		std::string bn;
		size_t diff = 0;

		p["transport"] = "rdma";
		b.cmd("FILL 13");
		st = r.make(p);
		if (st == NIXL_SUCCESS)
			st = r.reg(mem, bufSize);
		if (st == NIXL_SUCCESS)
			st = r.ag.loadRemoteMD(b.md, bn);
		if (st == NIXL_SUCCESS)
			st = r.ag.createXferReq(NIXL_READ, dlist((uintptr_t)mem, bufSize / blk, blk, blk),
						dlist(b.buf, bufSize / blk, blk, blk), "B", req);
		if (st == NIXL_SUCCESS) {
			st = r.ag.postXferReq(req);
			inflight = st == NIXL_IN_PROG && r.ag.getXferStatus(req) == NIXL_IN_PROG;
			nixl_status_t rs = r.ag.releaseXferReq(req);

			if (st == NIXL_IN_PROG)
				st = rs;
			snap.assign(mem, mem + bufSize);
			std::this_thread::sleep_for(std::chrono::milliseconds(500));
			for (size_t i = 0; i < bufSize; i++)
				diff += mem[i] != snap[i];
		}
		ok(st == NIXL_SUCCESS && inflight && diff == 0,
		   "releaseXferReq of a 64 MiB READ in flight over RDMA: our memory unchanged after it returned",
		   sstr(st) + (inflight ? "" : ", it was not in flight at the release") + ", " +
			   std::to_string(diff) + " bytes changed after");
		memset(mem, 0, blk);
		st = xfer(r, NIXL_READ, dlist((uintptr_t)mem, 1, blk, 0), dlist(b.buf, 1, blk, 0), "B");
		size_t i;

		for (i = 0; i < blk && mem[i] == pat(13, i); i++)
			;
		ok(st == NIXL_SUCCESS && i == blk, "a READ over RDMA after the release works (the link is made again)",
		   sstr(st));
		r.dereg(mem, bufSize);
		free(mem);
	}

	/* 8 agents in this process, each its own hixl engine, each WRITEs its own block of B */
	{
		std::vector<std::unique_ptr<Agent>> many;
		std::vector<uint8_t *> mem;
		int good = 0, checked = 0;

		b.cmd("ZERO");
		for (int i = 0; i < 8; i++) {
			std::string p;

			many.emplace_back(new Agent("M" + std::to_string(i)));
			mem.push_back((uint8_t *)alloc(blk));
			fill(mem[i], blk, 9, i * blk);
			if (many[i]->make(defaults()) == NIXL_SUCCESS && many[i]->reg(mem[i], blk) == NIXL_SUCCESS &&
			    many[i]->ag.loadRemoteMD(b.md, p) == NIXL_SUCCESS &&
			    xfer(*many[i], NIXL_WRITE, dlist((uintptr_t)mem[i], 1, blk, 0),
				 dlist(b.buf + i * blk, 1, blk, 0), "B") == NIXL_SUCCESS)
				good++;
		}
		checked = b.cmd("CHECK 9 0 " + std::to_string(8 * blk)) == "OK";
		ok(good == 8 && checked, "8 agents in one process, each WRITEs its block of B",
		   std::to_string(good) + " of 8 transfers succeeded" + (checked ? "" : ", B's bytes differ"));
		many.clear();
		for (auto *m : mem)
			free(m);
	}

	/* NIXL's socket listener path: fetchRemoteMD from an agent's listener thread */
	{
		/* a name with '-' and ':', as serving stacks name agents: the region blob carries it */
		const std::string ln = "L-0:listener";
		nixlAgent l(ln, nixlAgentConfig(false, true, 19631)), p("P", nixlAgentConfig(false, true, 19632));
		nixlBackendH *lb = nullptr, *pb = nullptr;
		uint8_t *lm = (uint8_t *)alloc(1 << 20), *pm = (uint8_t *)alloc(1 << 20);
		nixl_reg_dlist_t ld(DRAM_SEG), pd(DRAM_SEG);
		nixl_opt_args_t where;
		bool loaded = false;

		ld.addDesc(nixlBlobDesc((uintptr_t)lm, 1 << 20, 0, ""));
		pd.addDesc(nixlBlobDesc((uintptr_t)pm, 1 << 20, 0, ""));
		where.ipAddr = "127.0.0.1";
		where.port = 19631;
		st = l.createBackend("HIXL", defaults(), lb);
		if (st == NIXL_SUCCESS)
			st = p.createBackend("HIXL", defaults(), pb);
		if (st == NIXL_SUCCESS)
			st = l.registerMem(ld);
		if (st == NIXL_SUCCESS)
			st = p.registerMem(pd);
		if (st == NIXL_SUCCESS)
			st = p.fetchRemoteMD(ln, &where);
		auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
		while (st == NIXL_SUCCESS && !loaded && std::chrono::steady_clock::now() < until) {
			loaded = p.checkRemoteMD(ln, dlist((uintptr_t)lm, 1, 1 << 20, 0)) == NIXL_SUCCESS;
			if (!loaded)
				std::this_thread::sleep_for(std::chrono::milliseconds(5));
		}
		fill(pm, 1 << 20, 10, 0);
		nixl_status_t xs = NIXL_ERR_NOT_POSTED, es = NIXL_SUCCESS;
		nixlXferReqH *req = nullptr;

		if (loaded && p.createXferReq(NIXL_WRITE, dlist((uintptr_t)pm, 1, 1 << 20, 0),
					      dlist((uintptr_t)lm, 1, 1 << 20, 0), ln, req) == NIXL_SUCCESS) {
			std::chrono::microseconds dur, margin;
			nixl_cost_t method;

			es = p.estimateXferCost(req, dur, margin, method);
			xs = p.postXferReq(req);
			if (xs == NIXL_IN_PROG)
				xs = waitXfer(p, req);
			p.releaseXferReq(req);
		}
		ok(loaded && xs == NIXL_SUCCESS && !memcmp(lm, pm, 1 << 20),
		   "fetchRemoteMD through NIXL's listener thread, then a WRITE to that agent",
		   sstr(st) + (loaded ? ", loaded, " : ", not loaded, ") + sstr(xs));
		ok(es == NIXL_ERR_NOT_FOUND, "estimateXferCost before any transfer to that agent: NOT_FOUND", sstr(es));
		p.deregisterMem(pd);
		l.deregisterMem(ld);
		free(lm);
		free(pm);
	}

	/* error paths */
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.buf, 1, 4096, 0), "nobody");
	ok(st == NIXL_ERR_NOT_FOUND, "a transfer to an agent never loaded: NOT_FOUND", sstr(st));
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.buf + bufSize, 1, 4096, 0), "B");
	ok(st != NIXL_SUCCESS && st != NIXL_IN_PROG, "a remote descriptor outside B's regions is refused", sstr(st));
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.buf, 1, 8192, 0), "B");
	ok(st != NIXL_SUCCESS && st != NIXL_IN_PROG, "descriptors of unequal lengths are refused", sstr(st));
	r = b.cmd("DEREG");
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.small, 1, 4096, 0), "B");
	ok(r == "OK" && st != NIXL_SUCCESS && st != NIXL_IN_PROG,
	   "a WRITE into a region B deregistered after A loaded it fails", "B: " + r + ", " + sstr(st));
	fill(buf, 4096, 7, 0);
	st = xfer(a, NIXL_WRITE, dlist((uintptr_t)buf, 1, 4096, 0), dlist(b.buf, 1, 4096, 0), "B");
	r = b.cmd("CHECK 7 0 4096");
	ok(st == NIXL_SUCCESS && r == "OK", "the link still works after the failed transfers", sstr(st) + ", B: " + r);

	/* bad backend parameters: a clear error, no backend */
	const std::pair<const char *, const char *> bad[] = {
		{"bogus", "1"}, {"xfer_timeout_ms", "abc"}, {"engine", "not an address"}, {"traffic_class", "3"},
		{"engine_config", "UCX_TLS=rc"},
	};
	for (const auto &kv : bad) {
		Agent x(std::string("X-") + kv.first);
		nixl_b_params_t p = defaults();

		p[kv.first] = kv.second;
		st = x.make(p);
		ok(st != NIXL_SUCCESS, std::string("createBackend refuses ") + kv.first + "=" + kv.second, sstr(st));
	}

	/* NIXL's generic tests pass every backend an empty engine_config */
	{
		Agent x("X-engine_config");
		nixl_b_params_t p = defaults();

		p["engine_config"] = "";
		st = x.make(p);
		ok(st == NIXL_SUCCESS, "createBackend takes an empty engine_config (NIXL's generic tests)", sstr(st));
	}

	/* the NICs by name: device_list, HIXL_NET_DEVICES */
	for (const auto &c : deviceChecks())
		ok(c.pass, c.name, c.why);

	/* NIXL's "local": an agent to itself */
	for (const auto &c : localChecks())
		ok(c.pass, c.name, c.why);

	/* a peer killed mid-transfer: a clear error, its engine (and pins) gone */
	if (!spawn(c, "C")) {
		ok(false, "agent C in a third process", c.err);
	} else {
		nixlXferReqH *req = nullptr;
		bool midflight = false;

		st = a.ag.loadRemoteMD(c.md, peer);
		fill(buf, bufSize, 8, 0);
		if (st == NIXL_SUCCESS)
			st = a.ag.createXferReq(NIXL_WRITE, dlist((uintptr_t)buf, bufSize / blk, blk, blk),
						dlist(c.buf, bufSize / blk, blk, blk), "C", req);
		if (st == NIXL_SUCCESS) {
			st = a.ag.postXferReq(req);
			midflight = st == NIXL_IN_PROG;
			kill(c.pid, SIGKILL);
			waitpid(c.pid, nullptr, 0);
			if (st == NIXL_IN_PROG)
				st = waitXfer(a.ag, req);
			/* finished before the kill: the next one meets the dead peer */
			if (st == NIXL_SUCCESS)
				st = a.ag.postXferReq(req) == NIXL_IN_PROG ? waitXfer(a.ag, req) : a.ag.getXferStatus(req);
			a.ag.releaseXferReq(req);
		} else {
			kill(c.pid, SIGKILL);
			waitpid(c.pid, nullptr, 0);
		}
		ok(st == NIXL_ERR_REMOTE_DISCONNECT, "a WRITE to a peer killed mid-transfer: REMOTE_DISCONNECT",
		   sstr(st) + (midflight ? "" : ", it had completed before the kill"));
		ok(engineGone(c.pid), "the killed peer's hixl engine is gone (nothing of it stays pinned)");
		close(c.fd);
	}

	b.cmd("EXIT");
	waitpid(b.pid, nullptr, 0);
	close(b.fd);
	free(buf);
	printf("1..%d\n", testNo);
	return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--target"))
		return target(atoi(argv[2]), argv[3]);
	bool pair = argc >= 2 && !strncmp(argv[1], "pair-", 5);

	if (argc != 1 && !pair) {
		fprintf(stderr, "usage: hixl-nixl-test [pair-server MY_IP PORT | pair-client MY_IP PEER_IP PORT]\n");
		return 2;
	}
	if (access("/dev/hixl", R_OK | W_OK)) {
		printf("1..0 # SKIP no /dev/hixl (hixl.ko not loaded): run in the test VM\n");
		return 77;
	}
	if (!getenv("NIXL_PLUGIN_DIR")) {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = '\0';
			*strrchr(exe, '/') = '\0';
			setenv("NIXL_PLUGIN_DIR", exe, 1);
		}
	}
	signal(SIGPIPE, SIG_IGN);
	return pair ? pairMain(argc, argv) : initiator();
}
