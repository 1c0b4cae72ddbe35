// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_backend.h - hixl as a NIXL backend (plugin "HIXL"): the engine class.
 *
 * NIXL (ai-dynamo/nixl) loads its transports as backend plugins, each a
 * nixlBackendEngine (src/api/cpp/backend/backend_engine.h in NIXL's tree);
 * this one runs NIXL's calls on one libhixl-user engine (<hixl/hixl.h>).
 * The shape follows NIXL's own Mooncake and POSIX plugins.  What each method
 * does, and what is not supported and why: docs/nixl.md.
 */
#ifndef HIXL_NIXL_BACKEND_H
#define HIXL_NIXL_BACKEND_H

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backend/backend_engine.h"
#include "hixl_cost.h"

struct hixl_engine;

/*
 * The backend parameters (nixl_b_params_t) the plugin takes, with their
 * defaults: nixl_plugin_init() publishes them (get_backend_options), and an
 * engine refuses any other key.  hixl_nixl_params.cpp.
 */
nixl_b_params_t hixlNixlDefaultParams();

/*
 * What hixlNixlParseParams() makes of the parameters: the local engine's
 * name, hixl's engine options (key, value) and the plugin's own timeouts.
 */
struct hixlNixlConfig {
	std::string engine;		/* "auto", or a hixl engine name */
	std::vector<std::pair<std::string, int>> devices;	/* device_list: RDMA device, port */
	std::string devicesFrom;	/* where devices came from, for messages */
	std::vector<std::pair<std::string, std::string>> opts;	/* hixl option, value */
	std::vector<std::string> optParams;	/* the NIXL parameter of each opts entry */
	int xferTimeoutMs = 0;
	int connectTimeoutMs = 0;
	int notifTimeoutMs = 0;
};

/*
 * hixlNixlParseParams() - check the backend parameters and map them to hixl
 * @params: NIXL's custom parameters of the backend (keys of
 *          hixlNixlDefaultParams(); absent keys take their defaults)
 * @cfg:    out: the configuration
 * @err:    out: on failure, one line naming the bad parameter and why
 *
 * Return: true when every parameter is known and well formed.  hixl's own
 * ranges (a traffic class that is not a multiple of 4, a malformed peer
 * list) are checked by hixl_engine_init(); the engine then finds which
 * parameter it refused (nixlHixlEngine's constructor).
 */
bool hixlNixlParseParams(const nixl_b_params_t &params, hixlNixlConfig &cfg, std::string &err);

class nixlHixlEngine : public nixlBackendEngine {
public:
	/*
	 * Makes the hixl engine from the backend parameters.  Any failure
	 * (a bad parameter, no /dev/hixl, no RDMA device on the address) is
	 * logged with its cause and sets initErr, which NIXL's createBackend
	 * turns into an error; the object then holds no resource.
	 */
	explicit nixlHixlEngine(const nixlBackendInitParams *init_params);
	~nixlHixlEngine() override;

	bool supportsRemote() const override { return true; }
	/*
	 * NIXL's "local": transfers and notifications inside one agent.  A
	 * hixl link joins two engines, so the agent's transfers to itself
	 * run on a second engine of the backend (selfEngine()), made on
	 * first use on the same address and linked to the first: hixl's
	 * same-host kernel copy with transport "auto".
	 */
	bool supportsLocal() const override { return true; }
	bool supportsNotif() const override { return true; }
	nixl_mem_list_t getSupportedMems() const override;

	nixl_status_t registerMem(const nixlBlobDesc &mem, const nixl_mem_t &nixl_mem,
				  nixlBackendMD *&out) override;
	nixl_status_t deregisterMem(nixlBackendMD *meta) override;

	nixl_status_t getPublicData(const nixlBackendMD *meta, std::string &str) const override;
	nixl_status_t getConnInfo(std::string &str) const override;
	nixl_status_t loadRemoteConnInfo(const std::string &remote_agent,
					 const std::string &remote_conn_info) override;
	nixl_status_t loadRemoteMD(const nixlBlobDesc &input, const nixl_mem_t &nixl_mem,
				   const std::string &remote_agent, nixlBackendMD *&output) override;
	nixl_status_t unloadMD(nixlBackendMD *input) override;
	/*
	 * loadLocalMD() - the agent's own registration @input as the target of
	 * its transfers to itself.  Return: NIXL_SUCCESS; NIXL_ERR_INVALID_PARAM
	 * when @input is not this backend's registration.
	 */
	nixl_status_t loadLocalMD(nixlBackendMD *input, nixlBackendMD *&output) override;

	nixl_status_t connect(const std::string &remote_agent) override;
	nixl_status_t disconnect(const std::string &remote_agent) override;

	nixl_status_t prepXfer(const nixl_xfer_op_t &operation, const nixl_meta_dlist_t &local,
			       const nixl_meta_dlist_t &remote, const std::string &remote_agent,
			       nixlBackendReqH *&handle,
			       const nixl_opt_b_args_t *opt_args = nullptr) const override;
	nixl_status_t postXfer(const nixl_xfer_op_t &operation, const nixl_meta_dlist_t &local,
			       const nixl_meta_dlist_t &remote, const std::string &remote_agent,
			       nixlBackendReqH *&handle,
			       const nixl_opt_b_args_t *opt_args = nullptr) const override;
	nixl_status_t checkXfer(nixlBackendReqH *handle) const override;
	nixl_status_t releaseReqH(nixlBackendReqH *handle) const override;

	/*
	 * queryMem() - for each descriptor of @descs (DRAM_SEG or VRAM_SEG),
	 * the registration of this backend that holds it: "mem_type"
	 * (DRAM_SEG, VRAM_SEG), "region_addr" and "region_len" (decimal,
	 * bytes); no value when none holds the whole range.  Return:
	 * NIXL_SUCCESS; NIXL_ERR_NOT_SUPPORTED for another memory type.
	 */
	nixl_status_t queryMem(const nixl_reg_dlist_t &descs,
			       std::vector<nixl_query_resp_t> &resp) const override;
	/*
	 * estimateXferCost() - how long the request @handle should take, in
	 * microseconds: the fit of this backend's timed transfers to the same
	 * peer engine (hixl_cost.h; from post to the end as the backend saw
	 * it), @err_margin its root mean square deviation, @method
	 * ANALYTICAL_BACKEND.  Return: NIXL_SUCCESS; NIXL_ERR_MISMATCH for
	 * lists of different lengths; NIXL_ERR_INVALID_PARAM for a handle of
	 * another backend; NIXL_ERR_NOT_FOUND while no transfer to that peer
	 * has completed yet.
	 */
	nixl_status_t estimateXferCost(const nixl_xfer_op_t &operation, const nixl_meta_dlist_t &local,
				       const nixl_meta_dlist_t &remote, const std::string &remote_agent,
				       nixlBackendReqH *const &handle, std::chrono::microseconds &duration,
				       std::chrono::microseconds &err_margin, nixl_cost_t &method,
				       const nixl_opt_args_t *extra_params = nullptr) const override;

	nixl_status_t getNotifs(notif_list_t &notif_list) override;
	nixl_status_t genNotif(const std::string &remote_agent, const std::string &msg) const override;

private:
	bool peerEngine(const std::string &remote_agent, std::string &engine) const;
	/* whether @from has a READY link to the peer engine @engine */
	bool linkUp(struct hixl_engine *from, const std::string &engine) const;
	/* a failed call's NIXL status: REMOTE_DISCONNECT when the peer's link is gone */
	nixl_status_t failStatus(int err, struct hixl_engine *from, const std::string &engine,
				 const std::string &agent) const;
	nixl_status_t sendNotif(struct hixl_engine *from, const std::string &engine,
				const std::string &remote_agent, const std::string &msg) const;
	/*
	 * The engine the agent's transfers and notifications to itself start
	 * from, linked to eng_: made on the first call (same address, port 0,
	 * the backend's options but Rails).  Return: it, or NULL with the
	 * cause logged (no engine could be made or it could not connect).
	 */
	struct hixl_engine *selfEngine() const;
	/* hixl registration on the self engine of the range of @md (a hixlLocalMD): 0 or -errno */
	int selfRegister(nixlBackendMD *md) const;

	/*
	 * A transfer's notification goes when the transfer completes: the
	 * notifier thread (started by the first postXfer() with one) sleeps
	 * in poll(2) on the engines' event descriptors while such transfers
	 * run and sends each notification when its transfer has completed;
	 * checkXfer() and releaseReqH() send it themselves when they see the
	 * completion first.  Whoever takes the request out of notifPending_
	 * (under notifLock_) sends.
	 */
	void notifierLoop() const;
	/* take @h out of notifPending_ and send its notification if its transfer completed */
	nixl_status_t notifFlush(nixlBackendReqH *h) const;
	void notifWake() const;

	/* a completed request's time, once (cost_) */
	void timeXfer(nixlBackendReqH *h) const;

	mutable hixlXferCost cost_;
	std::set<nixlBackendMD *> regs_;	/* this backend's registrations (lock_) */
	mutable std::mutex notifLock_;	/* notifPending_, notifStop_, the handles' notification fields */
	mutable std::unordered_map<struct hixl_request *, nixlBackendReqH *> notifPending_;
	mutable std::thread notifier_;
	mutable bool notifStop_ = false;
	mutable int notifWakeFd_ = -1;	/* eventfd: a new pending request, or the end */

	struct hixl_engine *eng_ = nullptr;
	mutable std::mutex selfLock_;	/* self_, the self registrations */
	mutable struct hixl_engine *self_ = nullptr;
	std::string name_;		/* the engine's name, with its port */
	hixlNixlConfig cfg_;
	mutable std::mutex lock_;	/* peers_, regs_ */
	std::map<std::string, std::string> peers_;	/* remote agent -> hixl engine name */
};

#endif /* HIXL_NIXL_BACKEND_H */
