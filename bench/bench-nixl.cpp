// SPDX-License-Identifier: GPL-2.0
/*
 * bench-nixl.cpp - one measurement of the NIXL table of `make bench`
 * (bench/bench-nixl-guest.sh, bench/nixlreport.py): the main job's shape,
 * KV blocks of BLOCK KiB moved as layers of DESCS scattered descriptors,
 * READ or WRITE, through one of
 *
 *   native     hixl's own API: hixl_transfer_async() of the layer's
 *              descriptor array, hixl_get_transfer_status() polled,
 *              hixl_request_free()
 *   nixl-hixl  NIXL's nixlAgent with the backend HIXL (libplugin_HIXL.so),
 *              in vLLM NixlConnector's sequence: the blocks of both sides
 *              prepped once (prepXferDlist), then per layer makeXferReq()
 *              with the layer's block ids, postXferReq(), getXferStatus()
 *              polled, releaseXferReq()
 *   nixl-ucx   the same with NIXL's backend UCX (where it is built)
 *
 * Two engines (agents) in this process, the initiator and the target, each
 * with a buffer of LAYERS x DESCS blocks; every layer's local and remote
 * block ids are a random permutation's slice (the same seed for every
 * tool), so a pass moves every block once and no two neighbouring
 * descriptors are neighbours in memory.  INFLIGHT layers are in flight at
 * a time; every tool polls its requests the same way (status, then 50 us
 * of sleep when none ended).  One unmeasured pass, then PASSES timed passes; the bytes
 * are checked after the last.
 *
 * Output (stdout), one line:
 *   res REP TOOL OP BLOCK_KIB DESCS LAYERS BYTES SECONDS CPU POST_US
 * BYTES moved in SECONDS (wall), CPU whole-VM busy seconds (/proc/stat)
 * meanwhile, POST_US the mean wall microseconds per layer spent in the
 * submitting calls (native: hixl_transfer_async; NIXL: makeXferReq +
 * postXferReq); or "na REP TOOL OP BLOCK_KIB DESCS REASON..." (exit 77)
 * when the tool cannot run here.  Then, where the time of the submit and
 * of the polling went:
 *   split REP TOOL OP MAKE_US STATUS_US STATUS_PER_LAYER
 * MAKE_US the part of POST_US in makeXferReq (NIXL's descriptor lookup and
 * the backend's prepXfer; 0 for native), STATUS_US the mean wall
 * microseconds of one status call, STATUS_PER_LAYER the status calls per
 * layer.  Exit 1 on a failed transfer or a byte that differs.
 */
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <hixl/hixl.h>
#include <nixl.h>

using clk = std::chrono::steady_clock;

namespace {

struct Conf {
	std::string tool, op = "write", engine = "10.77.0.1";
	int rep = 1, layers = 16, descs = 256, inflight = 4, passes = 2;
	size_t block = 32 << 10;
} C;

int na(const std::string &why)
{
	printf("na %d %s %s %zu %d %s\n", C.rep, C.tool.c_str(), C.op.c_str(), C.block >> 10, C.descs,
	       why.c_str());
	return 77;
}

double busy()	/* whole-VM busy seconds so far (/proc/stat's cpu line) */
{
	std::ifstream f("/proc/stat");
	std::string cpu;
	unsigned long long v[8] = {};

	f >> cpu >> v[0] >> v[1] >> v[2] >> v[3] >> v[4] >> v[5] >> v[6] >> v[7];
	/* user nice system [idle iowait] irq softirq steal */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / sysconf(_SC_CLK_TCK);
}

void *alloc(size_t len)
{
	void *p = nullptr;

	if (posix_memalign(&p, 4096, len))
		return nullptr;
	memset(p, 0, len);
	return p;
}

/* The blocks a pass moves: layer l, descriptor i is local block lid[l*D+i], remote rid[...] */
struct Plan {
	std::vector<int> lid, rid;
};

Plan plan()
{
	Plan p;
	size_t n = (size_t)C.layers * C.descs;
	std::mt19937 g(12345);

	p.lid.resize(n);
	p.rid.resize(n);
	for (size_t i = 0; i < n; i++)
		p.lid[i] = p.rid[i] = (int)i;
	std::shuffle(p.lid.begin(), p.lid.end(), g);
	std::shuffle(p.rid.begin(), p.rid.end(), g);
	return p;
}

/*
 * A tool: post(layer) submits one layer (its submitting calls timed by the
 * caller), done(slot) polls it: 1 finished, 0 running, < 0 failed.
 */
struct Tool {
	double make_s = 0;	/* seconds in makeXferReq (NIXL) */
	virtual ~Tool() = default;
	virtual int post(int slot, int layer) = 0;
	virtual int done(int slot) = 0;
	virtual void release(int slot) = 0;
	virtual std::string lastError() = 0;
};

struct Native : Tool {
	hixl_engine *a = nullptr, *b = nullptr;
	char bname[HIXL_ENGINE_NAME_MAX];
	uint8_t *la, *rb;
	const Plan &p;
	std::vector<hixl_request *> reqs;
	std::string err;

	Native(uint8_t *l, uint8_t *r, const Plan &pl) : la(l), rb(r), p(pl), reqs(C.inflight) {}
	~Native() override
	{
		hixl_engine_finalize(a);
		hixl_engine_finalize(b);
	}
	int setup()
	{
		size_t len = (size_t)C.layers * C.descs * C.block;
		hixl_mem_desc d{};
		uint64_t h;
		int ret;
		std::string ea = C.engine + ":0", eb = C.engine + ":0";

		/* RDMA over rxe0, as the plugin below is told: two engines of one host would pair */
		const hixl_option rdma[] = {{HIXL_OPTION_TRANSPORT, "rdma"}};

		if ((ret = hixl_engine_init(&b, eb.c_str(), rdma, 1)) ||
		    (ret = hixl_engine_init(&a, ea.c_str(), rdma, 1)) ||
		    (ret = hixl_engine_name(b, bname, sizeof(bname))))
			return ret;
		d.addr = (uintptr_t)la;
		d.len = len;
		if ((ret = hixl_register_mem(a, &d, HIXL_MEM_HOST, &h)))
			return ret;
		d.addr = (uintptr_t)rb;
		if ((ret = hixl_register_mem(b, &d, HIXL_MEM_HOST, &h)))
			return ret;
		return hixl_connect(a, bname, 5000);
	}
	int post(int slot, int layer) override
	{
		std::vector<hixl_op_desc> v(C.descs);
		hixl_transfer_args args = HIXL_TRANSFER_ARGS_INIT(60000);

		for (int i = 0; i < C.descs; i++) {
			size_t k = (size_t)layer * C.descs + i;

			v[i] = {(uintptr_t)la + p.lid[k] * C.block, (uintptr_t)rb + p.rid[k] * C.block, C.block};
		}
		int ret = hixl_transfer_async(a, bname, C.op == "read" ? HIXL_OP_READ : HIXL_OP_WRITE,
					      v.data(), v.size(), &args, &reqs[slot]);
		if (ret)
			err = hixl_strerror(ret);
		return ret;
	}
	int done(int slot) override
	{
		hixl_transfer_status st;
		int ret = hixl_get_transfer_status(a, reqs[slot], &st);

		if (ret || st == HIXL_TRANSFER_FAILED) {
			size_t f = 0;

			err = "transfer failed: " + std::string(hixl_strerror(ret ? ret :
					hixl_request_result(reqs[slot], &f)));
			return -1;
		}
		return st == HIXL_TRANSFER_COMPLETED;
	}
	void release(int slot) override
	{
		hixl_request_free(reqs[slot]);
		reqs[slot] = nullptr;
	}
	std::string lastError() override { return err; }
};

struct Nixl : Tool {
	std::string backend;
	/*
	 * The initiator progresses its requests by polling (getXferStatus);
	 * UCX's target must progress too (its worker answers the endpoint's
	 * wire-up), so with UCX the target agent runs NIXL's progress thread
	 * (UCX sleeps on its events there); HIXL's needs none.
	 */
	nixlAgent a, b;
	nixlDlistH *lh = nullptr, *rh = nullptr;
	std::vector<nixlXferReqH *> reqs;
	uint8_t *la, *rb;
	const Plan &p;
	std::string err;

	Nixl(const std::string &be, uint8_t *l, uint8_t *r, const Plan &pl)
		: backend(be), a("bench-a", nixlAgentConfig(false)),
		  b("bench-b", nixlAgentConfig(be == "UCX")), reqs(C.inflight), la(l), rb(r), p(pl) {}
	~Nixl() override
	{
		if (lh)
			a.releasedDlistH(lh);
		if (rh)
			a.releasedDlistH(rh);
	}
	std::string setup()
	{
		size_t n = (size_t)C.layers * C.descs, len = n * C.block;
		nixl_mem_list_t mems;
		nixl_b_params_t params;
		nixlBackendH *h;
		nixl_status_t st;
		nixl_reg_dlist_t ra(DRAM_SEG), rbl(DRAM_SEG);
		nixl_xfer_dlist_t xa(DRAM_SEG), xb(DRAM_SEG);
		std::string md, name;

		if (a.getPluginParams(backend, mems, params) != NIXL_SUCCESS)
			return "NIXL has no backend " + backend + " here (no libplugin_" + backend +
			       ".so in NIXL_PLUGIN_DIR or NIXL's plugin directory)";
		if (backend == "HIXL") {
			params["engine"] = C.engine;
			params["transport"] = "rdma";
		}
		if ((st = a.createBackend(backend, params, h)) != NIXL_SUCCESS ||
		    (st = b.createBackend(backend, params, h)) != NIXL_SUCCESS)
			return "createBackend " + backend + ": " + nixlEnumStrings::statusStr(st);
		ra.addDesc(nixlBlobDesc((uintptr_t)la, len, 0, ""));
		rbl.addDesc(nixlBlobDesc((uintptr_t)rb, len, 0, ""));
		if ((st = a.registerMem(ra)) != NIXL_SUCCESS || (st = b.registerMem(rbl)) != NIXL_SUCCESS)
			return "registerMem: " + nixlEnumStrings::statusStr(st);
		if ((st = b.getLocalMD(md)) != NIXL_SUCCESS || (st = a.loadRemoteMD(md, name)) != NIXL_SUCCESS)
			return "metadata: " + nixlEnumStrings::statusStr(st);
		/* one descriptor per block, as NixlConnector preps them */
		for (size_t i = 0; i < n; i++) {
			xa.addDesc(nixlBasicDesc((uintptr_t)la + i * C.block, C.block, 0));
			xb.addDesc(nixlBasicDesc((uintptr_t)rb + i * C.block, C.block, 0));
		}
		if ((st = a.prepXferDlist(NIXL_INIT_AGENT, xa, lh)) != NIXL_SUCCESS ||
		    (st = a.prepXferDlist("bench-b", xb, rh)) != NIXL_SUCCESS)
			return "prepXferDlist: " + nixlEnumStrings::statusStr(st);
		return "";
	}
	int post(int slot, int layer) override
	{
		std::vector<int> li(p.lid.begin() + (size_t)layer * C.descs,
				    p.lid.begin() + (size_t)(layer + 1) * C.descs);
		std::vector<int> ri(p.rid.begin() + (size_t)layer * C.descs,
				    p.rid.begin() + (size_t)(layer + 1) * C.descs);
		auto t0 = clk::now();
		nixl_status_t st = a.makeXferReq(C.op == "read" ? NIXL_READ : NIXL_WRITE, lh, li, rh, ri,
						 reqs[slot]);

		make_s += std::chrono::duration<double>(clk::now() - t0).count();

		if (st != NIXL_SUCCESS) {
			err = "makeXferReq: " + nixlEnumStrings::statusStr(st);
			return -1;
		}
		st = a.postXferReq(reqs[slot]);
		if (st < 0) {
			err = "postXferReq: " + nixlEnumStrings::statusStr(st);
			return -1;
		}
		return 0;
	}
	int done(int slot) override
	{
		nixl_status_t st = a.getXferStatus(reqs[slot]);

		if (st < 0) {
			err = "getXferStatus: " + nixlEnumStrings::statusStr(st);
			return -1;
		}
		return st == NIXL_SUCCESS;
	}
	void release(int slot) override
	{
		a.releaseXferReq(reqs[slot]);
		reqs[slot] = nullptr;
	}
	std::string lastError() override { return err; }
};

double status_s;	/* the timed passes' status calls: seconds, count */
long status_n;

/* one pass: every layer once, INFLIGHT at a time; the submit time added to @post_s */
int pass(Tool &t, double &post_s)
{
	std::vector<int> busyLayer(C.inflight, -1);
	int next = 0, left = C.layers;

	while (left) {
		for (int s = 0; s < C.inflight; s++) {
			if (busyLayer[s] < 0 && next < C.layers) {
				auto t0 = clk::now();

				if (t.post(s, next))
					return -1;
				post_s += std::chrono::duration<double>(clk::now() - t0).count();
				busyLayer[s] = next++;
			}
		}
		bool any = false;

		for (int s = 0; s < C.inflight; s++) {
			if (busyLayer[s] < 0)
				continue;
			auto t0 = clk::now();
			int r = t.done(s);

			status_s += std::chrono::duration<double>(clk::now() - t0).count();
			status_n++;

			if (r < 0)
				return -1;
			if (r) {
				t.release(s);
				busyLayer[s] = -1;
				left--;
				any = true;
			}
		}
		/*
		 * nothing ended: wait 50 us, as a serving loop checks between
		 * steps (a sched_yield() spin gave the tool with the cheaper
		 * status call more yields, and rxe's softirq less CPU)
		 */
		if (!any)
			std::this_thread::sleep_for(std::chrono::microseconds(50));
	}
	return 0;
}

int usage()
{
	fprintf(stderr, "usage: bench-nixl --tool native|nixl-hixl|nixl-ucx [--op read|write] [--rep N] "
		"[--layers N] [--descs N] [--block-kib N] [--inflight N] [--passes N] [--engine ADDR]\n");
	return 2;
}

}  // namespace

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		std::string k = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!v)
			return usage();
		i++;
		if (k == "--tool") C.tool = v;
		else if (k == "--op") C.op = v;
		else if (k == "--rep") C.rep = atoi(v);
		else if (k == "--layers") C.layers = atoi(v);
		else if (k == "--descs") C.descs = atoi(v);
		else if (k == "--block-kib") C.block = (size_t)atoi(v) << 10;
		else if (k == "--inflight") C.inflight = atoi(v);
		else if (k == "--passes") C.passes = atoi(v);
		else if (k == "--engine") C.engine = v;
		else {
			fprintf(stderr, "bench-nixl: unknown option %s\n", k.c_str());
			return usage();
		}
	}
	if ((C.tool != "native" && C.tool != "nixl-hixl" && C.tool != "nixl-ucx") ||
	    (C.op != "read" && C.op != "write") || C.layers < 1 || C.descs < 1 || C.block == 0 ||
	    C.inflight < 1 || C.passes < 1) {
		fprintf(stderr, "bench-nixl: bad --tool, --op or count\n");
		return usage();
	}
	size_t len = (size_t)C.layers * C.descs * C.block;
	auto *la = (uint8_t *)alloc(len), *rb = (uint8_t *)alloc(len);

	if (!la || !rb)
		return na("out of memory for 2 x " + std::to_string(len >> 20) + " MiB");
	/* the source side's bytes: block k's bytes all say k and the byte's offset */
	uint8_t *src = C.op == "write" ? la : rb;
	for (size_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 15) * 7 + 1);
	Plan p = plan();
	Tool *t;

	if (C.tool == "native") {
		auto *n = new Native(la, rb, p);
		int ret = n->setup();

		if (ret) {
			std::string why = std::string("hixl setup: ") + hixl_strerror(ret);
			delete n;
			return na(why);
		}
		t = n;
	} else {
		auto *n = new Nixl(C.tool == "nixl-hixl" ? "HIXL" : "UCX", la, rb, p);
		std::string why = n->setup();

		if (!why.empty()) {
			delete n;
			return na(why);
		}
		t = n;
	}
	double post_s = 0;

	if (pass(*t, post_s)) {
		fprintf(stderr, "bench-nixl: %s: warm-up pass: %s\n", C.tool.c_str(), t->lastError().c_str());
		delete t;
		return 1;
	}
	post_s = 0;
	t->make_s = 0;
	status_s = 0;
	status_n = 0;
	double c0 = busy();
	auto t0 = clk::now();
	for (int i = 0; i < C.passes; i++) {
		if (pass(*t, post_s)) {
			fprintf(stderr, "bench-nixl: %s: %s\n", C.tool.c_str(), t->lastError().c_str());
			delete t;
			return 1;
		}
	}
	double secs = std::chrono::duration<double>(clk::now() - t0).count(), cpu = busy() - c0;
	double make_us = t->make_s * 1e6 / ((double)C.layers * C.passes);
	delete t;

	/* every block of the pass, byte for byte */
	const uint8_t *dst = C.op == "write" ? rb : la;
	for (size_t k = 0; k < p.lid.size(); k++) {
		const uint8_t *s = C.op == "write" ? la + p.lid[k] * C.block : rb + p.rid[k] * C.block;
		const uint8_t *d = C.op == "write" ? dst + p.rid[k] * C.block : dst + p.lid[k] * C.block;

		if (memcmp(s, d, C.block)) {
			fprintf(stderr, "bench-nixl: %s %s: block %zu differs\n", C.tool.c_str(), C.op.c_str(), k);
			return 1;
		}
	}
	printf("res %d %s %s %zu %d %d %zu %.6f %.3f %.2f\n", C.rep, C.tool.c_str(), C.op.c_str(),
	       C.block >> 10, C.descs, C.layers, len * C.passes, secs, cpu,
	       post_s * 1e6 / ((double)C.layers * C.passes));
	printf("split %d %s %s %.2f %.3f %.1f\n", C.rep, C.tool.c_str(), C.op.c_str(), make_us,
	       status_n ? status_s * 1e6 / status_n : 0.0, (double)status_n / (C.layers * C.passes));
	free(la);
	free(rb);
	return 0;
}
