// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-test.h - what hixl-nixl-test's parts share: the buffers' sizes, the
 * byte pattern, the socketpair messages, an agent with the HIXL backend, the
 * target process (agent B or C) and the initiator's helpers (nixl-util.cpp).
 */
#ifndef HIXL_NIXL_TEST_H
#define HIXL_NIXL_TEST_H

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nixl.h>

constexpr size_t bufSize = 64 << 20;	/* each agent's registered buffer */
constexpr size_t smallSize = 1 << 20;	/* B's second region, deregistered by a test */
constexpr size_t blk = 32 << 10;	/* a KV block */

/* the pattern byte of seed @seed at buffer offset @off, and a range of them */
uint8_t pat(unsigned seed, size_t off);
void fill(uint8_t *p, size_t len, unsigned seed, size_t base);
/* FNV-1a of a range */
uint64_t fnv(const uint8_t *p, size_t len);
/* length-prefixed messages on the socketpair; recvMsg() is "EOF" at its end */
void sendMsg(int fd, const std::string &s);
std::string recvMsg(int fd);
/* getXferStatus until not NIXL_IN_PROG or @timeout_ms passed: the last status */
nixl_status_t waitXfer(nixlAgent &ag, nixlXferReqH *req, int timeout_ms = 60000);

/* an agent (no threads of NIXL's) with the HIXL backend on memory it registers */
struct Agent {
	explicit Agent(const std::string &name, const nixlAgentConfig &cfg = nixlAgentConfig(false))
		: ag(name, cfg) {}
	nixlAgent ag;
	nixlBackendH *be = nullptr;
	nixl_status_t make(const nixl_b_params_t &p) { return ag.createBackend("HIXL", p, be); }
	nixl_status_t reg(void *p, size_t len);
	nixl_status_t dereg(void *p, size_t len);
};

/* the plugin's default parameters (getPluginParams), {} when it is not found */
nixl_b_params_t defaults();
/* @len zeroed bytes, page aligned; aborts when out of memory */
void *alloc(size_t len);
/* the target process's loop (agent @name, commands on @fd): its exit status */
int target(int fd, const std::string &name);
/* the two-VM mode, hixl-nixl-test pair-server|pair-client ... (nixl-pair.cpp): its exit status */
int pairMain(int argc, char **argv);

/* a target process and its socketpair end; spawn() re-executes this program */
struct Peer {
	pid_t pid = -1;
	int fd = -1;
	uintptr_t buf = 0, small = 0;
	std::string md, err;
	std::string cmd(const std::string &c)
	{
		sendMsg(fd, c);
		return recvMsg(fd);
	}
};
bool spawn(Peer &p, const std::string &name);

/* @count descriptors of @len bytes from @base, @stride apart */
nixl_xfer_dlist_t dlist(uintptr_t base, size_t count, size_t len, size_t stride);
/* one transfer: create, post, wait, release; the final status */
nixl_status_t xfer(Agent &a, nixl_xfer_op_t op, const nixl_xfer_dlist_t &l, const nixl_xfer_dlist_t &r,
		   const std::string &peer, const char *notif = nullptr);
std::string sstr(nixl_status_t st);
/* no hixl engine of process @pid is left in the kernel (waits up to 5 s) */
bool engineGone(pid_t pid);

/* a check's result: passed, its name, why (a "SKIP reason" counts as passed) */
struct devCheck {
	bool pass;
	std::string name, why;
};
/* the backend's device_list and HIXL_NET_DEVICES checks (nixl-devices.cpp) */
std::vector<devCheck> deviceChecks();
/* an agent's transfers and notifications to itself (nixl-local.cpp) */
std::vector<devCheck> localChecks();

#endif /* HIXL_NIXL_TEST_H */
