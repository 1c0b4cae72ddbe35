// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-pair.cpp - hixl-nixl-test's two-VM mode (tests/pair/guest.sh, step
 * "NIXL"): one NIXL agent with the backend HIXL per VM, the client's
 * metadata fetched through NIXL's socket listener path, READ and WRITE
 * byte for byte across the two kernels.
 *
 *   hixl-nixl-test pair-server MY_IP LISTEN_PORT
 *   hixl-nixl-test pair-client MY_IP PEER_IP LISTEN_PORT
 *
 * The server (agent "pair-server", NIXL's listener thread on LISTEN_PORT,
 * its hixl engine on MY_IP) registers 2 x 2 MiB at pairAddr, a fixed address
 * both sides know (the serving stacks exchange block tables in their own
 * handshake; here it is agreed in advance): the first half holds a pattern
 * for the client to READ, the second half is zero.  The client (agent
 * "pair-client", engine on MY_IP) fetches the server's metadata from
 * PEER_IP:LISTEN_PORT (fetchRemoteMD, checkRemoteMD until it is loaded,
 * fetched again every 2 s while the server is not up yet), READs the 64
 * blocks of 32 KiB scattered (its block i from the server's block
 * 37 i mod 64) and checks every byte, then WRITEs 64 blocks the same way
 * into the second half with the notification "written".  The server waits
 * for that notification from "pair-client" and checks every byte the WRITE
 * put there.  Each side prints TAP; exit status 0 when all its checks passed.
 */
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "nixl-test.h"

namespace {

constexpr uintptr_t pairAddr = 0x6f0000000000ull;
constexpr size_t pairBlocks = 64, pairHalf = pairBlocks * blk;
constexpr int waitSeconds = 180;

int n, fails;

void check(bool good, const std::string &what, const std::string &why = "")
{
	n++;
	printf("%sok %d - %s\n", good ? "" : "not ", n, what.c_str());
	if (!good) {
		fails++;
		if (!why.empty())
			printf("#   %s\n", why.c_str());
	}
	fflush(stdout);
}

size_t perm(size_t i) { return i * 37 % pairBlocks; }

nixl_b_params_t params(const char *ip)
{
	nixl_b_params_t p = defaults();

	p["engine"] = ip;
	return p;
}

int finish()
{
	printf("1..%d\n", n);
	return fails ? 1 : 0;
}

int server(const char *ip, int port)
{
	nixlAgent ag("pair-server", nixlAgentConfig(false, true, port));
	nixlBackendH *be = nullptr;
	nixl_reg_dlist_t reg(DRAM_SEG);
	void *m = mmap((void *)pairAddr, 2 * pairHalf, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE, -1, 0);
	nixl_status_t st;

	if (m != (void *)pairAddr) {
		check(false, "server: the buffer at its agreed address", "mmap failed");
		return finish();
	}
	uint8_t *buf = (uint8_t *)m;

	fill(buf, pairHalf, 21, 0);
	reg.addDesc(nixlBlobDesc(pairAddr, 2 * pairHalf, 0, ""));
	st = ag.createBackend("HIXL", params(ip), be);
	if (st == NIXL_SUCCESS)
		st = ag.registerMem(reg);
	check(st == NIXL_SUCCESS, "server: agent pair-server with backend HIXL on " + std::string(ip) +
	      ", 4 MiB registered, NIXL's listener on port " + std::to_string(port), sstr(st));
	if (st != NIXL_SUCCESS)
		return finish();

	/* the client's WRITE ends with its notification "written" */
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(waitSeconds);
	bool got = false;
	std::string from;

	while (!got && std::chrono::steady_clock::now() < until) {
		nixl_notifs_t notifs;

		if (ag.getNotifs(notifs) == NIXL_SUCCESS) {
			for (auto &[agent, msgs] : notifs)
				for (auto &msg : msgs)
					if (msg == "written") {
						got = true;
						from = agent;
					}
		}
		if (!got)
			std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	check(got && from == "pair-client", "server: the notification \"written\" from pair-client",
	      got ? "from " + from : "none within " + std::to_string(waitSeconds) + " s");
	size_t bad = 0;

	for (size_t i = 0; i < pairBlocks; i++) {
		const uint8_t *b = buf + pairHalf + perm(i) * blk;

		for (size_t j = 0; j < blk; j++)
			bad += b[j] != pat(22, i * blk + j);
	}
	check(got && !bad, "server: the client's scattered WRITE (64 x 32 KiB) byte for byte",
	      std::to_string(bad) + " bytes differ");
	ag.deregisterMem(reg);
	return finish();
}

int client(const char *ip, const char *peer, int port)
{
	/*
	 * NIXL's listener thread also takes the answers to fetchRemoteMD: the
	 * client runs one too (on PORT + 1), or a fetched metadata never loads
	 */
	Agent a("pair-client", nixlAgentConfig(false, true, port + 1));
	uint8_t *buf = (uint8_t *)alloc(2 * pairHalf);
	nixl_opt_args_t where;
	nixl_status_t st;
	bool loaded = false;

	st = a.make(params(ip));
	if (st == NIXL_SUCCESS)
		st = a.reg(buf, 2 * pairHalf);
	check(st == NIXL_SUCCESS, "client: agent pair-client with backend HIXL on " + std::string(ip),
	      sstr(st));
	if (st != NIXL_SUCCESS)
		return finish();
	where.ipAddr = peer;
	where.port = port;
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(waitSeconds);
	auto refetch = std::chrono::steady_clock::now();
	nixl_xfer_dlist_t all = dlist(pairAddr, 1, 2 * pairHalf, 0);

	while (!loaded && std::chrono::steady_clock::now() < until) {
		if (std::chrono::steady_clock::now() >= refetch) {
			st = a.ag.fetchRemoteMD("pair-server", &where);
			refetch = std::chrono::steady_clock::now() + std::chrono::seconds(2);
		}
		loaded = a.ag.checkRemoteMD("pair-server", all) == NIXL_SUCCESS;
		if (!loaded)
			std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	check(loaded, "client: fetchRemoteMD from pair-server's listener at " + std::string(peer) + ":" +
	      std::to_string(port) + ", its region loaded", "last fetch " + sstr(st));
	if (!loaded)
		return finish();

	/* READ: our block i from the server's block perm(i), first half */
	nixl_xfer_dlist_t loc(DRAM_SEG), rem(DRAM_SEG);

	for (size_t i = 0; i < pairBlocks; i++) {
		loc.addDesc(nixlBasicDesc((uintptr_t)buf + i * blk, blk, 0));
		rem.addDesc(nixlBasicDesc(pairAddr + perm(i) * blk, blk, 0));
	}
	st = xfer(a, NIXL_READ, loc, rem, "pair-server");
	size_t bad = 0;

	for (size_t i = 0; i < pairBlocks; i++)
		for (size_t j = 0; j < blk; j++)
			bad += buf[i * blk + j] != pat(21, perm(i) * blk + j);
	check(st == NIXL_SUCCESS && !bad, "client: scattered READ (64 x 32 KiB) from the other VM, "
	      "byte for byte", sstr(st) + ", " + std::to_string(bad) + " bytes differ");

	/* WRITE: our block i (second half) to the server's block perm(i), second half */
	nixl_xfer_dlist_t wl(DRAM_SEG), wr(DRAM_SEG);

	fill(buf + pairHalf, pairHalf, 22, 0);
	for (size_t i = 0; i < pairBlocks; i++) {
		wl.addDesc(nixlBasicDesc((uintptr_t)buf + pairHalf + i * blk, blk, 0));
		wr.addDesc(nixlBasicDesc(pairAddr + pairHalf + perm(i) * blk, blk, 0));
	}
	st = xfer(a, NIXL_WRITE, wl, wr, "pair-server", "written");
	check(st == NIXL_SUCCESS, "client: scattered WRITE (64 x 32 KiB) to the other VM with the "
	      "notification \"written\" (the server checks the bytes)", sstr(st));
	a.dereg(buf, 2 * pairHalf);
	return finish();
}

}  // namespace

int pairMain(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "pair-server"))
		return server(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "pair-client"))
		return client(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: hixl-nixl-test pair-server MY_IP PORT | pair-client MY_IP PEER_IP PORT\n");
	return 2;
}
