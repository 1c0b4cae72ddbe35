// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_backend.cpp - hixl as a NIXL backend: nixlBackendEngine over one
 * libhixl-user engine.  Follows NIXL's backend API of src/api/cpp/backend/
 * (NIXL 1.4.0) and the shape of its Mooncake plugin; docs/nixl.md says what
 * each method does.
 *
 * Mapping, in short:
 *  - a NIXL agent is one hixl engine; its connection info is the engine's
 *    name ("10.77.0.1:40321"), a peer's is kept per remote agent;
 *  - DRAM_SEG registrations are hixl registrations (HIXL_MEM_HOST), VRAM_SEG
 *    ones device memory by address (HIXL_MEM_DEVICE, dmabuf_fd -1: the GPU
 *    runtime exports the range as a dma-buf; the pointer names its device,
 *    so devId is not needed); hixl
 *    transfers name remote memory by the peer's own addresses (the link
 *    carries the peer's region table), so public metadata is only the
 *    region's range, checked on load;
 *  - a NIXL request is one hixl_transfer_async() of the whole descriptor
 *    list (io_uring: one URING_CMD per 65536 descriptors), checked with
 *    hixl_get_transfer_status(), released with hixl_request_cancel() (the
 *    revoking cancel where the module has it) and hixl_request_free();
 *  - notifications are hixl notifications named by the sending agent; a
 *    transfer's is sent when the transfer has completed (the plugin's
 *    notifier thread, woken by the engine's event descriptor, or
 *    checkXfer()/releaseReqH() if they see it first), so the peer gets it
 *    after the bytes, without the initiator polling;
 *  - the agent's transfers and notifications to itself (NIXL's "local")
 *    start from a second engine, made on first use and linked to the
 *    first (a same-host link); the local ranges of such transfers are
 *    registered on it as well, on first use.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include <hixl/hixl.h>

#include "common/nixl_log.h"
#include "hixl_backend.h"
#include "hixl_devices.h"

namespace {

/* a DRAM_SEG registration of this agent */
class hixlLocalMD : public nixlBackendMD {
public:
	hixlLocalMD(uint64_t h, uintptr_t a, size_t l, bool dev)
		: nixlBackendMD(true), handle(h), addr(a), len(l), device(dev) {}
	uint64_t handle;
	uintptr_t addr;
	size_t len;
	bool device;			/* VRAM_SEG */
	bool selfReg = false;		/* also registered on the self engine (selfLock_) */
	uint64_t selfHandle = 0;
};

/* a region of a remote agent, as its public metadata described it */
class hixlRemoteMD : public nixlBackendMD {
public:
	hixlRemoteMD(const std::string &ag, uintptr_t a, size_t l)
		: nixlBackendMD(false), agent(ag), addr(a), len(l) {}
	std::string agent;
	uintptr_t addr;
	size_t len;
};

/* one NIXL request: the hixl descriptors, and the hixl request while posted */
class hixlReqH : public nixlBackendReqH {
public:
	std::vector<struct hixl_op_desc> descs;
	std::string agent;		/* the remote agent */
	std::string engine;		/* its hixl engine */
	struct hixl_engine *eng = nullptr;	/* the engine it runs on: eng_, or self_ to itself */
	enum hixl_op op = HIXL_OP_READ;
	struct hixl_request *req = nullptr;
	bool withNotif = false;		/* the posted request carries a notification */
	bool notif = false;		/* ... not sent yet: in notifPending_ (notifLock_) */
	std::string notifMsg;
	nixl_status_t notifSt = NIXL_SUCCESS;	/* the notifier thread's failed send, for checkXfer */
	uint64_t bytes = 0;		/* of all descriptors */
	std::chrono::steady_clock::time_point posted;
	std::atomic<bool> timed{true};	/* the posted request's time was taken (cost_) */
};

/* live requests of every engine, so the engine's teardown can free them first */
std::mutex reqsLock;
std::set<hixlReqH *> liveReqs;

const char *memName(nixl_mem_t m)
{
	static const char *const names[] = {"DRAM_SEG", "VRAM_SEG", "BLK_SEG", "OBJ_SEG", "FILE_SEG"};

	return (unsigned)m < sizeof(names) / sizeof(names[0]) ? names[m] : "an unknown type";
}

std::string errStr(int err)
{
	const char *name = strerrorname_np(-err);

	return std::string(hixl_strerror(err)) + " (" + (name ? name : "?") + ")";
}

/* a hixl -errno as a NIXL status */
nixl_status_t nixlStatus(int err)
{
	switch (-err) {
	case 0:
		return NIXL_SUCCESS;
	case ENOTCONN: case ECONNRESET: case ENETDOWN: case EHOSTDOWN: case EHOSTUNREACH:
	case ENETUNREACH: case ECONNREFUSED: case ECOMM: case EPIPE: case ESHUTDOWN:
		return NIXL_ERR_REMOTE_DISCONNECT;
	case ECANCELED:
		return NIXL_ERR_CANCELED;
	case EINVAL: case ENOENT: case ERANGE: case EACCES: case EOVERFLOW: case EFAULT:
	case EEXIST:
		return NIXL_ERR_INVALID_PARAM;
	case EOPNOTSUPP:
		return NIXL_ERR_NOT_SUPPORTED;
	default:
		return NIXL_ERR_BACKEND;
	}
}

/* the host part of an engine name: "10.77.0.1" of "10.77.0.1:5", "fd77::1" of "[fd77::1]:5" */
std::string engineHost(const std::string &name)
{
	if (name[0] == '[')
		return name.substr(1, name.find(']') - 1);
	return name.substr(0, name.find(':'));
}

/* a name hixl_engine_init() listens on: without a port, ":0" (a free one) */
std::string listenName(const std::string &name)
{
	if (name.back() == ']' || name.find(':') == std::string::npos)
		return name + ":0";
	return name;
}

} // namespace

nixlHixlEngine::nixlHixlEngine(const nixlBackendInitParams *init_params)
	: nixlBackendEngine(init_params)
{
	std::vector<struct hixl_option> opts;
	std::vector<std::string> names;
	std::string err;
	int ret = -ENODEV;

	if (!hixlNixlParseParams(*init_params->customParams, cfg_, err)) {
		NIXL_ERROR << "HIXL backend: " << err;
		initErr = true;
		return;
	}
	if (localAgent.empty() || localAgent.size() > HIXL_NOTIFY_MAX_NAME) {
		NIXL_ERROR << "HIXL backend: the agent name must be 1.." << HIXL_NOTIFY_MAX_NAME
			   << " bytes (it names the agent's notifications), not " << localAgent.size();
		initErr = true;
		return;
	}
	if (init_params->enableProgTh)
		NIXL_INFO << "HIXL backend: needs no progress thread (the kernel and hixl's io_uring "
			     "reaper progress transfers); the agent's progress thread does nothing for it";

	if (!cfg_.devices.empty()) {
		/* the named NICs: an engine "auto" on the first, the others rails */
		std::vector<std::string> addrs;
		std::string first, rails;

		for (const auto &d : cfg_.devices) {
			std::string a;

			ret = hixlDevAddress(d, a, err);
			if (ret) {
				NIXL_ERROR << "HIXL backend: " << cfg_.devicesFrom << ": " << err;
				initErr = true;
				return;
			}
			addrs.push_back(a);
		}
		if (cfg_.engine == "auto") {
			first = addrs[0];
			names.push_back(first + ":0");
		} else {
			names.push_back(listenName(cfg_.engine));
			first = engineHost(cfg_.engine);
		}
		for (const auto &a : addrs)
			if (a != first && rails.find(a + ",") == std::string::npos)
				rails += a + ",";
		if (!rails.empty()) {
			rails.pop_back();
			cfg_.opts.emplace_back(HIXL_OPTION_RAILS, rails);
			cfg_.optParams.emplace_back("device_list");
		}
	} else if (cfg_.engine == "auto") {
		std::string why;

		for (const auto &a : hixlDevAutoOrder(why))
			names.push_back(a + ":0");
		NIXL_INFO << "HIXL backend: engine \"auto\": " << why;
	} else {
		names.push_back(listenName(cfg_.engine));
	}
	for (const auto &o : cfg_.opts)
		opts.push_back({o.first.c_str(), o.second.c_str()});
	for (const auto &n : names) {
		ret = hixl_engine_init(&eng_, n.c_str(), opts.data(), opts.size());
		if (ret != -ENODEV && ret != -EADDRNOTAVAIL)
			break;
	}
	if (ret == -EINVAL) {
		/* which parameter did hixl refuse?  Each option alone, on the same address */
		for (size_t i = 0; i < opts.size(); i++) {
			struct hixl_engine *e = nullptr;

			if (hixl_engine_init(&e, names.back().c_str(), &opts[i], 1) == -EINVAL) {
				NIXL_ERROR << "HIXL backend: parameter '" << cfg_.optParams[i] << "': '"
					   << opts[i].value << "' is refused by hixl (its option "
					   << opts[i].key << ", see hixl_engine_init(3))";
				initErr = true;
				eng_ = nullptr;
				return;
			}
			hixl_engine_finalize(e);
		}
	}
	if (ret) {
		eng_ = nullptr;
		if (names.empty())
			NIXL_ERROR << "HIXL backend: parameter 'engine' is \"auto\" and this host has no "
				      "IPv4 address besides loopback: name the engine's address";
		else if (cfg_.engine == "auto" && (ret == -ENODEV || ret == -EADDRNOTAVAIL))
			NIXL_ERROR << "HIXL backend: parameter 'engine' is \"auto\" and no local IPv4 "
				      "address has an RDMA device (rdma link add rxe0 type rxe netdev "
				      "IFACE makes one): " << hixl_last_error();
		else
			NIXL_ERROR << "HIXL backend: " << hixl_last_error() << ": " << errStr(ret)
				   << (*hixl_error_hint(ret) ? std::string("; hint: ") + hixl_error_hint(ret)
							     : std::string());
		initErr = true;
		return;
	}

	char buf[HIXL_ENGINE_NAME_MAX];

	hixl_engine_name(eng_, buf, sizeof(buf));
	name_ = buf;
	NIXL_INFO << "HIXL backend: agent " << localAgent << " is hixl engine " << name_ << " on "
		  << hixl_engine_device(eng_) << " ("
		  << (hixl_engine_async_path(eng_) == HIXL_ASYNC_URING ? "io_uring" : "worker threads")
		  << ")";
}

nixlHixlEngine::~nixlHixlEngine()
{
	if (!eng_)
		return;
	if (notifier_.joinable()) {
		{
			std::lock_guard<std::mutex> g(notifLock_);

			notifStop_ = true;
		}
		notifWake();
		notifier_.join();
	}
	if (notifWakeFd_ >= 0)
		close(notifWakeFd_);
	/* requests NIXL did not release: their hixl requests die with the engine */
	{
		std::lock_guard<std::mutex> g(reqsLock);

		for (auto *h : liveReqs) {
			if (h->req && hixl_request_user_data(h->req) == this) {
				hixl_request_cancel(h->eng, h->req);
				hixl_request_free(h->req);
				h->req = nullptr;
			}
		}
	}
	if (self_)
		hixl_engine_finalize(self_);
	hixl_engine_finalize(eng_);
}

nixl_mem_list_t nixlHixlEngine::getSupportedMems() const
{
	/* VRAM_SEG: device memory by address (hixl_register_mem(HIXL_MEM_DEVICE)) */
	return {DRAM_SEG, VRAM_SEG};
}

nixl_status_t nixlHixlEngine::registerMem(const nixlBlobDesc &mem, const nixl_mem_t &nixl_mem,
					  nixlBackendMD *&out)
{
	struct hixl_mem_desc d;
	uint64_t handle;
	int ret;

	if (nixl_mem != DRAM_SEG && nixl_mem != VRAM_SEG) {
		NIXL_ERROR << "HIXL backend: registerMem: memory type " << memName(nixl_mem)
			   << " is not supported: only DRAM_SEG and VRAM_SEG";
		return NIXL_ERR_NOT_SUPPORTED;
	}
	memset(&d, 0, sizeof(d));
	d.addr = mem.addr;
	d.len = mem.len;
	d.dmabuf_fd = -1;	/* VRAM_SEG: by address */
	ret = hixl_register_mem(eng_, &d, nixl_mem == VRAM_SEG ? HIXL_MEM_DEVICE : HIXL_MEM_HOST,
				&handle);
	if (ret) {
		NIXL_ERROR << "HIXL backend: registerMem(" << memName(nixl_mem) << " "
			   << std::hex << std::showbase << mem.addr
			   << std::noshowbase << std::dec << ", "
			   << mem.len << " bytes): " << errStr(ret) << " (" << hixl_last_error() << ")";
		return nixlStatus(ret);
	}
	out = new hixlLocalMD(handle, mem.addr, mem.len, nixl_mem == VRAM_SEG);
	std::lock_guard<std::mutex> g(lock_);
	regs_.insert(out);
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::deregisterMem(nixlBackendMD *meta)
{
	auto *md = dynamic_cast<hixlLocalMD *>(meta);
	int ret;

	if (!md)
		return NIXL_ERR_INVALID_PARAM;
	{
		std::lock_guard<std::mutex> g(lock_);

		regs_.erase(md);
	}
	{
		std::lock_guard<std::mutex> g(selfLock_);

		if (md->selfReg && hixl_deregister_mem(self_, md->selfHandle))
			NIXL_ERROR << "HIXL backend: deregisterMem: the self engine's registration: "
				   << hixl_last_error();
	}
	ret = hixl_deregister_mem(eng_, md->handle);
	if (ret)
		NIXL_ERROR << "HIXL backend: deregisterMem(" << std::hex << std::showbase << md->addr
			   << std::noshowbase << std::dec
			   << "): " << errStr(ret);
	delete md;
	return nixlStatus(ret);
}

nixl_status_t nixlHixlEngine::getPublicData(const nixlBackendMD *meta, std::string &str) const
{
	auto *md = dynamic_cast<const hixlLocalMD *>(meta);

	if (!md)
		return NIXL_ERR_INVALID_PARAM;
	/*
	 * The peer transfers by our addresses: the range says which region;
	 * the agent's name, last (it may hold ':'), says whose it is
	 */
	str = "hixl2:" + std::to_string(md->addr) + ":" + std::to_string(md->len) + ":" + localAgent;
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::getConnInfo(std::string &str) const
{
	str = name_;
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::loadRemoteConnInfo(const std::string &remote_agent,
						 const std::string &remote_conn_info)
{
	struct hixl_sockaddr a;

	if (hixl_parse_engine_name(remote_conn_info.c_str(), &a) || !a.port) {
		NIXL_ERROR << "HIXL backend: agent " << remote_agent << "'s connection info '"
			   << remote_conn_info << "' is not a hixl engine name with a port";
		return NIXL_ERR_INVALID_PARAM;
	}
	std::lock_guard<std::mutex> g(lock_);
	peers_[remote_agent] = remote_conn_info;
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::loadRemoteMD(const nixlBlobDesc &input, const nixl_mem_t &nixl_mem,
					   const std::string &remote_agent, nixlBackendMD *&output)
{
	unsigned long long addr, len;
	int end = 0;

	if (nixl_mem != DRAM_SEG && nixl_mem != VRAM_SEG) {
		NIXL_ERROR << "HIXL backend: loadRemoteMD: agent " << remote_agent << "'s memory type "
			   << memName(nixl_mem) << " is not supported (only DRAM_SEG and VRAM_SEG)";
		return NIXL_ERR_NOT_SUPPORTED;
	}
	/*
	 * "hixl2:ADDR:LEN:AGENT": the numbers decimal digits only (no blank
	 * or sign, which sscanf() would take), LEN > 0, the range not
	 * wrapping; the agent's name is the rest, any bytes
	 */
	if (sscanf(input.metaInfo.c_str(), "hixl2:%llu:%llu:%n", &addr, &len, &end) != 2 || !end ||
	    input.metaInfo.find_first_of(" \t\n\v\f\r+-") < (size_t)end || !len || addr + len < addr) {
		NIXL_ERROR << "HIXL backend: loadRemoteMD: agent " << remote_agent
			   << "'s metadata is not a HIXL region ('" << input.metaInfo.substr(0, 64) << "')";
		return NIXL_ERR_INVALID_PARAM;
	}
	if (input.metaInfo.compare(end, std::string::npos, remote_agent)) {
		NIXL_ERROR << "HIXL backend: loadRemoteMD: metadata loaded as agent " << remote_agent
			   << "'s describes a region of agent '" << input.metaInfo.substr(end, 64) << "'";
		return NIXL_ERR_INVALID_PARAM;
	}
	output = new hixlRemoteMD(remote_agent, addr, len);
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::loadLocalMD(nixlBackendMD *input, nixlBackendMD *&output)
{
	auto *md = dynamic_cast<hixlLocalMD *>(input);

	if (!md)
		return NIXL_ERR_INVALID_PARAM;
	output = new hixlRemoteMD(localAgent, md->addr, md->len);
	return NIXL_SUCCESS;
}

struct hixl_engine *nixlHixlEngine::selfEngine() const
{
	std::lock_guard<std::mutex> g(selfLock_);
	std::vector<struct hixl_option> opts;
	struct hixl_engine *e = nullptr;
	std::string name = name_.substr(0, name_.rfind(':')) + ":0";
	int ret;

	if (self_)
		return self_;
	/* the same options; Rails are the first engine's */
	for (const auto &o : cfg_.opts)
		if (o.first != HIXL_OPTION_RAILS)
			opts.push_back({o.first.c_str(), o.second.c_str()});
	ret = hixl_engine_init(&e, name.c_str(), opts.data(), opts.size());
	if (ret) {
		NIXL_ERROR << "HIXL backend: the engine for agent " << localAgent
			   << "'s transfers to itself (" << name << "): " << hixl_last_error() << ": "
			   << errStr(ret);
		return nullptr;
	}
	ret = hixl_connect(e, name_.c_str(), cfg_.connectTimeoutMs);
	if (ret && ret != -EISCONN) {
		NIXL_ERROR << "HIXL backend: linking agent " << localAgent << "'s engines (" << name
			   << " to " << name_ << "): " << errStr(ret);
		hixl_engine_finalize(e);
		return nullptr;
	}
	self_ = e;
	return self_;
}

int nixlHixlEngine::selfRegister(nixlBackendMD *meta) const
{
	auto *md = dynamic_cast<hixlLocalMD *>(meta);
	std::lock_guard<std::mutex> g(selfLock_);
	struct hixl_mem_desc d;
	int ret;

	if (!md)
		return -EINVAL;
	if (md->selfReg)
		return 0;
	memset(&d, 0, sizeof(d));
	d.addr = md->addr;
	d.len = md->len;
	d.dmabuf_fd = -1;
	ret = hixl_register_mem(self_, &d, md->device ? HIXL_MEM_DEVICE : HIXL_MEM_HOST,
				&md->selfHandle);
	if (ret)
		return ret;
	md->selfReg = true;
	return 0;
}

nixl_status_t nixlHixlEngine::unloadMD(nixlBackendMD *input)
{
	delete dynamic_cast<hixlRemoteMD *>(input);
	return NIXL_SUCCESS;
}

bool nixlHixlEngine::linkUp(struct hixl_engine *from, const std::string &engine) const
{
	std::vector<struct hixl_link_stat> st(64);
	uint32_t total = 0;
	int n;

	for (;;) {
		n = hixl_engine_link_stats(from, st.data(), st.size(), &total);
		if (n < 0)
			return true;	/* cannot tell: keep the transfer's own error */
		if (total <= st.size())
			break;
		st.resize(total);
	}
	for (int i = 0; i < n; i++) {
		char name[HIXL_ENGINE_NAME_MAX];

		if ((st[i].flags & HIXL_LINK_STAT_NAMED) && st[i].state == HIXL_LINK_STATE_READY &&
		    !hixl_format_engine_name(&st[i].peer, name, sizeof(name)) && engine == name)
			return true;
	}
	return false;
}

nixl_status_t nixlHixlEngine::failStatus(int err, struct hixl_engine *from, const std::string &engine,
					 const std::string &agent) const
{
	nixl_status_t st = nixlStatus(err);

	/*
	 * A peer that died takes its region table with it: a transfer then
	 * fails as if its ranges were never registered.  Without a live link
	 * to it, say what happened, and NIXL forgets the agent.
	 */
	if (st != NIXL_ERR_REMOTE_DISCONNECT && st != NIXL_ERR_CANCELED && !linkUp(from, engine)) {
		NIXL_ERROR << "HIXL backend: agent " << agent << " (hixl engine " << engine
			   << ") has no live link: the peer process exited or the link broke";
		return NIXL_ERR_REMOTE_DISCONNECT;
	}
	return st;
}

bool nixlHixlEngine::peerEngine(const std::string &remote_agent, std::string &engine) const
{
	if (remote_agent == localAgent) {
		engine = name_;		/* reached from the self engine */
		return true;
	}

	std::lock_guard<std::mutex> g(lock_);
	auto it = peers_.find(remote_agent);

	if (it == peers_.end())
		return false;
	engine = it->second;
	return true;
}

nixl_status_t nixlHixlEngine::connect(const std::string &remote_agent)
{
	std::string engine;
	int ret;

	/* NIXL's createBackend connects the agent to itself: the self engine comes on first use */
	if (remote_agent == localAgent)
		return NIXL_SUCCESS;
	if (!peerEngine(remote_agent, engine)) {
		NIXL_ERROR << "HIXL backend: connect: agent " << remote_agent
			   << " is not loaded (loadRemoteMD first)";
		return NIXL_ERR_NOT_FOUND;
	}
	ret = hixl_connect(eng_, engine.c_str(), cfg_.connectTimeoutMs);
	if (ret == -EALREADY) {
		/* a connect of another thread (AutoConnect, the peer's) is running: wait for it */
		auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(cfg_.connectTimeoutMs);
		enum hixl_connect_status st = HIXL_CONNECTING;

		while (std::chrono::steady_clock::now() < until) {
			ret = hixl_get_connect_status(eng_, engine.c_str(), &st);
			if (ret || (st != HIXL_CONNECT_PENDING && st != HIXL_CONNECTING))
				break;
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
		ret = ret ? ret : st == HIXL_CONNECTED ? 0 : -ETIMEDOUT;
	}
	if (ret == -EISCONN)
		ret = 0;
	if (ret)
		NIXL_ERROR << "HIXL backend: connect to agent " << remote_agent << " (hixl engine "
			   << engine << "): " << errStr(ret);
	return nixlStatus(ret);
}

nixl_status_t nixlHixlEngine::disconnect(const std::string &remote_agent)
{
	std::string engine;
	int ret;

	if (remote_agent == localAgent)
		return NIXL_SUCCESS;
	if (!peerEngine(remote_agent, engine))
		return NIXL_ERR_NOT_FOUND;
	ret = hixl_disconnect(eng_, engine.c_str(), cfg_.connectTimeoutMs);
	if (ret && ret != -ENOTCONN) {
		NIXL_ERROR << "HIXL backend: disconnect from agent " << remote_agent << ": " << errStr(ret);
		return nixlStatus(ret);
	}
	std::lock_guard<std::mutex> g(lock_);
	peers_.erase(remote_agent);
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::prepXfer(const nixl_xfer_op_t &operation, const nixl_meta_dlist_t &local,
				       const nixl_meta_dlist_t &remote, const std::string &remote_agent,
				       nixlBackendReqH *&handle, const nixl_opt_b_args_t * /* opt_args */) const
{
	size_t n = local.descCount();
	std::string engine;

	if (operation != NIXL_READ && operation != NIXL_WRITE) {
		NIXL_ERROR << "HIXL backend: prepXfer: unknown operation " << (int)operation;
		return NIXL_ERR_INVALID_PARAM;
	}
	if ((local.getType() != DRAM_SEG && local.getType() != VRAM_SEG) ||
	    (remote.getType() != DRAM_SEG && remote.getType() != VRAM_SEG)) {
		NIXL_ERROR << "HIXL backend: prepXfer: only DRAM_SEG and VRAM_SEG (local "
			   << memName(local.getType()) << ", remote "
			   << memName(remote.getType()) << ")";
		return NIXL_ERR_NOT_SUPPORTED;
	}
	if (n == 0 || n != (size_t)remote.descCount()) {
		NIXL_ERROR << "HIXL backend: prepXfer: " << n << " local and " << remote.descCount()
			   << " remote descriptors (the same number, at least one)";
		return NIXL_ERR_INVALID_PARAM;
	}
	if (!peerEngine(remote_agent, engine)) {
		NIXL_ERROR << "HIXL backend: prepXfer: agent " << remote_agent
			   << " is not loaded (loadRemoteMD first)";
		return NIXL_ERR_NOT_FOUND;
	}

	struct hixl_engine *from = eng_;

	if (remote_agent == localAgent) {
		/* to itself: from the self engine, where the local ranges are registered too */
		nixlBackendMD *last = nullptr;

		from = selfEngine();
		if (!from)
			return NIXL_ERR_BACKEND;
		for (size_t i = 0; i < n; i++) {
			int ret;

			if (local[i].metadataP == last)
				continue;
			last = local[i].metadataP;
			ret = selfRegister(last);
			if (ret) {
				NIXL_ERROR << "HIXL backend: prepXfer: registering local descriptor " << i
					   << " on agent " << localAgent << "'s self engine: " << errStr(ret)
					   << " (" << hixl_last_error() << ")";
				return nixlStatus(ret);
			}
		}
	}

	auto *h = new hixlReqH;

	/*
	 * The one pass over the descriptors: reserved, not zeroed first (the
	 * per-descriptor work is this loop; bench/results-nixl.md)
	 */
	h->descs.reserve(n);
	for (size_t i = 0; i < n; i++) {
		const nixlMetaDesc &l = local[i], &r = remote[i];

		if (l.len != r.len || l.len == 0) [[unlikely]] {
			NIXL_ERROR << "HIXL backend: prepXfer: descriptor " << i << ": local " << l.len
				   << " bytes, remote " << r.len << " (equal, not 0)";
			delete h;
			return NIXL_ERR_INVALID_PARAM;
		}
		h->descs.push_back({l.addr, r.addr, l.len});
		h->bytes += l.len;
	}
	h->agent = remote_agent;
	h->engine = engine;
	h->eng = from;
	h->op = operation == NIXL_READ ? HIXL_OP_READ : HIXL_OP_WRITE;
	{
		std::lock_guard<std::mutex> g(reqsLock);

		liveReqs.insert(h);
	}
	handle = h;
	return NIXL_SUCCESS;
}

/* the descriptors and peer are the handle's, from prepXfer() (NIXL passes the same) */
nixl_status_t nixlHixlEngine::postXfer(const nixl_xfer_op_t & /* operation */,
				       const nixl_meta_dlist_t & /* local */,
				       const nixl_meta_dlist_t & /* remote */,
				       const std::string & /* remote_agent */,
				       nixlBackendReqH *&handle, const nixl_opt_b_args_t *opt_args) const
{
	auto *h = dynamic_cast<hixlReqH *>(handle);
	struct hixl_transfer_args args = HIXL_TRANSFER_ARGS_INIT(cfg_.xferTimeoutMs);
	enum hixl_transfer_status st;
	int ret;

	if (!h)
		return NIXL_ERR_INVALID_PARAM;
	if (h->req) {
		if (!hixl_get_transfer_status(h->eng, h->req, &st) && st == HIXL_TRANSFER_WAITING)
			return NIXL_ERR_REPOST_ACTIVE;
		notifFlush(h);	/* the previous post's, if nobody saw it complete */
		hixl_request_free(h->req);
		h->req = nullptr;
	}
	h->withNotif = opt_args && opt_args->hasNotif;
	if (h->withNotif) {
		if (opt_args->notifMsg.size() > HIXL_NOTIFY_MAX_MSG) {
			NIXL_ERROR << "HIXL backend: postXfer: a notification of " << opt_args->notifMsg.size()
				   << " bytes; hixl's carry at most " << HIXL_NOTIFY_MAX_MSG;
			return NIXL_ERR_INVALID_PARAM;
		}
		h->notifMsg = opt_args->notifMsg;
	}
	args.user_data = const_cast<nixlHixlEngine *>(this);
	ret = hixl_transfer_async(h->eng, h->engine.c_str(), h->op, h->descs.data(), h->descs.size(),
				  &args, &h->req);
	if (ret) {
		h->req = nullptr;
		NIXL_ERROR << "HIXL backend: postXfer to agent " << h->agent << ": " << errStr(ret);
		return failStatus(ret, h->eng, h->engine, h->agent);
	}
	h->posted = std::chrono::steady_clock::now();
	h->timed = false;
	if (h->withNotif) {
		std::lock_guard<std::mutex> g(notifLock_);

		h->notif = true;
		h->notifSt = NIXL_SUCCESS;
		notifPending_[h->req] = h;
		if (!notifier_.joinable()) {
			notifWakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			if (notifWakeFd_ >= 0)
				notifier_ = std::thread([this] { notifierLoop(); });
			else
				NIXL_ERROR << "HIXL backend: no eventfd for the notifier thread ("
					   << strerror(errno) << "): notifications go when checkXfer "
					      "sees their transfer complete";
		}
	}
	notifWake();
	return checkXfer(h);
}

nixl_status_t nixlHixlEngine::sendNotif(struct hixl_engine *from, const std::string &engine,
					const std::string &remote_agent, const std::string &msg) const
{
	int ret = hixl_send_notify(from, engine.c_str(), localAgent.c_str(), msg.data(), msg.size(),
				   cfg_.notifTimeoutMs);

	if (!ret)
		return NIXL_SUCCESS;
	NIXL_ERROR << "HIXL backend: notification to agent " << remote_agent << ": " << errStr(ret);
	return failStatus(ret, from, engine, remote_agent);
}

nixl_status_t nixlHixlEngine::checkXfer(nixlBackendReqH *handle) const
{
	/* NIXL hands back only the handles prepXfer made: polled in a loop, no RTTI lookup */
	auto *h = static_cast<hixlReqH *>(handle);
	enum hixl_transfer_status st;
	size_t failed;
	int ret;

	if (!h)
		return NIXL_ERR_INVALID_PARAM;
	if (!h->req)
		return NIXL_ERR_NOT_POSTED;
	ret = hixl_get_transfer_status(h->eng, h->req, &st);
	if (ret)
		return nixlStatus(ret);
	if (st == HIXL_TRANSFER_WAITING)
		return NIXL_IN_PROG;
	if (st == HIXL_TRANSFER_COMPLETED) {
		timeXfer(h);
		return h->withNotif ? notifFlush(h) : NIXL_SUCCESS;
	}
	ret = hixl_request_result(h->req, &failed);
	NIXL_ERROR << "HIXL backend: transfer to agent " << h->agent << " ("
		   << (h->op == HIXL_OP_READ ? "READ" : "WRITE") << ", " << h->descs.size()
		   << " descriptors) failed at descriptor " << failed << ": " << errStr(ret);
	return failStatus(ret, h->eng, h->engine, h->agent);
}

nixl_status_t nixlHixlEngine::releaseReqH(nixlBackendReqH *handle) const
{
	auto *h = dynamic_cast<hixlReqH *>(handle);

	if (!h)
		return NIXL_ERR_INVALID_PARAM;
	{
		std::lock_guard<std::mutex> g(reqsLock);

		liveReqs.erase(h);
	}
	if (h->req) {
		/*
		 * Ends a running transfer before returning: no byte of it lands
		 * afterwards (hixl_request_cancel(3); revoking where it can).
		 */
		hixl_request_cancel(h->eng, h->req);
		/* completed before the cancel, nobody saw it: its notification goes now */
		if (h->withNotif)
			notifFlush(h);
		hixl_request_free(h->req);
	}
	delete h;
	return NIXL_SUCCESS;
}

void nixlHixlEngine::timeXfer(nixlBackendReqH *handle) const
{
	auto *h = static_cast<hixlReqH *>(handle);

	if (h->timed.exchange(true))
		return;
	cost_.record(h->engine, h->bytes,
		     std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
									   h->posted).count());
}

nixl_status_t nixlHixlEngine::queryMem(const nixl_reg_dlist_t &descs,
				       std::vector<nixl_query_resp_t> &resp) const
{
	if (descs.getType() != DRAM_SEG && descs.getType() != VRAM_SEG) {
		NIXL_ERROR << "HIXL backend: queryMem: memory type " << memName(descs.getType())
			   << " is not supported: only DRAM_SEG and VRAM_SEG";
		return NIXL_ERR_NOT_SUPPORTED;
	}
	resp.assign(descs.descCount(), std::nullopt);

	std::lock_guard<std::mutex> g(lock_);

	for (int i = 0; i < descs.descCount(); i++) {
		const nixlBlobDesc &d = descs[i];

		for (auto *m : regs_) {
			auto *md = static_cast<hixlLocalMD *>(m);

			if (md->device != (descs.getType() == VRAM_SEG) || d.addr < md->addr ||
			    d.len > md->len || d.addr - md->addr > md->len - d.len)
				continue;
			resp[i] = nixl_b_params_t{{"mem_type", md->device ? "VRAM_SEG" : "DRAM_SEG"},
						  {"region_addr", std::to_string(md->addr)},
						  {"region_len", std::to_string(md->len)}};
			break;
		}
	}
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::estimateXferCost(const nixl_xfer_op_t & /* operation */,
					       const nixl_meta_dlist_t &local,
					       const nixl_meta_dlist_t &remote,
					       const std::string &remote_agent,
					       nixlBackendReqH *const &handle,
					       std::chrono::microseconds &duration,
					       std::chrono::microseconds &err_margin, nixl_cost_t &method,
					       const nixl_opt_args_t * /* extra_params */) const
{
	auto *h = dynamic_cast<hixlReqH *>(handle);
	uint64_t us, margin;

	if (local.descCount() != remote.descCount()) {
		NIXL_ERROR << "HIXL backend: estimateXferCost: " << local.descCount() << " local and "
			   << remote.descCount() << " remote descriptors";
		return NIXL_ERR_MISMATCH;
	}
	if (!h)
		return NIXL_ERR_INVALID_PARAM;
	if (!cost_.estimate(h->engine, h->bytes, us, margin)) {
		NIXL_DEBUG << "HIXL backend: estimateXferCost: no transfer to agent " << remote_agent
			   << " has completed yet: nothing to estimate from";
		return NIXL_ERR_NOT_FOUND;
	}
	duration = std::chrono::microseconds(us);
	err_margin = std::chrono::microseconds(margin);
	method = nixl_cost_t::ANALYTICAL_BACKEND;
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::notifFlush(nixlBackendReqH *handle) const
{
	auto *h = static_cast<hixlReqH *>(handle);
	std::lock_guard<std::mutex> g(notifLock_);
	enum hixl_transfer_status st;
	nixl_status_t ret;

	if (!h->notif) {
		/* sent by the notifier thread: its outcome, once */
		ret = h->notifSt;
		h->notifSt = NIXL_SUCCESS;
		return ret;
	}
	if (hixl_get_transfer_status(h->eng, h->req, &st) || st == HIXL_TRANSFER_WAITING)
		return NIXL_IN_PROG;
	notifPending_.erase(h->req);
	h->notif = false;
	if (st != HIXL_TRANSFER_COMPLETED)
		return NIXL_SUCCESS;	/* failed or cancelled: no notification */
	return sendNotif(h->eng, h->engine, h->agent, h->notifMsg);
}

void nixlHixlEngine::notifWake() const
{
	uint64_t one = 1;

	if (notifWakeFd_ >= 0 && write(notifWakeFd_, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the thread is woken anyway */
	}
}

void nixlHixlEngine::notifierLoop() const
{
	struct hixl_transfer_result res[64];
	bool idle = true;

	for (;;) {
		struct pollfd pfd[3] = {{notifWakeFd_, POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
		struct hixl_engine *engs[2] = {eng_, nullptr};
		bool woken, ended = false;
		uint64_t v;

		{
			std::lock_guard<std::mutex> g(selfLock_);

			engs[1] = self_;
		}
		/* the engines' ends matter only while a notification waits for one */
		if (!idle) {
			for (int i = 0; i < 2; i++)
				if (engs[i])
					pfd[i + 1].fd = hixl_engine_event_fd(engs[i]);
		}
		poll(pfd, 3, idle ? -1 : 100);
		woken = read(notifWakeFd_, &v, sizeof(v)) == sizeof(v);

		std::unique_lock<std::mutex> g(notifLock_);

		if (notifStop_)
			return;
		/* report every ended request once, so that the descriptors stop being readable */
		for (auto *e : engs) {
			int n;

			while (e && (n = hixl_get_all_transfer_status(e, HIXL_QUERY_SKIP_WAITING, res, 64)) > 0) {
				ended = true;
				if (n < 64)
					break;
			}
		}
		for (auto it = notifPending_.begin(); it != notifPending_.end();) {
			auto *h = static_cast<hixlReqH *>(it->second);
			enum hixl_transfer_status st;

			if (hixl_get_transfer_status(h->eng, h->req, &st) || st == HIXL_TRANSFER_WAITING) {
				++it;
				continue;
			}
			it = notifPending_.erase(it);
			h->notif = false;
			if (st == HIXL_TRANSFER_COMPLETED) {
				timeXfer(h);
				h->notifSt = sendNotif(h->eng, h->engine, h->agent, h->notifMsg);
			}
		}
		idle = notifPending_.empty();
		g.unlock();
		/*
		 * Readable without an end: notifications the application has not
		 * fetched yet (the event descriptor reports them too); do not spin
		 */
		if (!idle && !woken && !ended)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
}

nixl_status_t nixlHixlEngine::getNotifs(notif_list_t &notif_list)
{
	/* 16 entries of ~2 KiB, kept per thread: serving loops poll every step */
	static thread_local std::vector<struct hixl_notify> buf(16);
	size_t count;
	int ret;

	do {
		ret = hixl_get_notifies(eng_, buf.data(), buf.size(), &count, nullptr);
		if (ret) {
			NIXL_ERROR << "HIXL backend: getNotifs: " << errStr(ret);
			return nixlStatus(ret);
		}
		for (size_t i = 0; i < count; i++)
			notif_list.emplace_back(std::string((const char *)buf[i].name, buf[i].name_len),
						std::string((const char *)buf[i].msg, buf[i].msg_len));
	} while (count == buf.size());
	return NIXL_SUCCESS;
}

nixl_status_t nixlHixlEngine::genNotif(const std::string &remote_agent, const std::string &msg) const
{
	std::string engine;

	if (msg.size() > HIXL_NOTIFY_MAX_MSG) {
		NIXL_ERROR << "HIXL backend: genNotif: a notification of " << msg.size()
			   << " bytes; hixl's carry at most " << HIXL_NOTIFY_MAX_MSG;
		return NIXL_ERR_INVALID_PARAM;
	}
	if (!peerEngine(remote_agent, engine)) {
		NIXL_ERROR << "HIXL backend: genNotif: agent " << remote_agent << " is not loaded";
		return NIXL_ERR_NOT_FOUND;
	}
	struct hixl_engine *from = remote_agent == localAgent ? selfEngine() : eng_;

	if (!from)
		return NIXL_ERR_BACKEND;
	return sendNotif(from, engine, remote_agent, msg);
}
