// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-local.cpp - an agent's transfers and notifications to itself
 * (supportsLocal(), NIXL's "local"): one agent WRITEs and READs between two
 * of its own regions, byte for byte, with a notification that arrives under
 * its own name after the bytes, and notifies itself without a transfer.
 */
#include <chrono>
#include <cstring>
#include <thread>

#include "nixl-test.h"

namespace {

/* getNotifs until @agent's message @msg arrived or 10 s passed */
bool waitNotif(nixlAgent &ag, const std::string &agent, const std::string &msg)
{
	auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);

	while (std::chrono::steady_clock::now() < until) {
		nixl_notifs_t n;

		if (ag.getNotifs(n) == NIXL_SUCCESS)
			for (const auto &m : n[agent])
				if (m == msg)
					return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return false;
}

} // namespace

std::vector<devCheck> localChecks()
{
	std::vector<devCheck> out;
	Agent s("S");
	const size_t len = 4 << 20;
	uint8_t *x = (uint8_t *)alloc(len), *y = (uint8_t *)alloc(len);
	nixl_status_t st;
	size_t i;

	st = s.make(defaults());
	if (st == NIXL_SUCCESS)
		st = s.reg(x, len);
	if (st == NIXL_SUCCESS)
		st = s.reg(y, len);
	out.push_back({st == NIXL_SUCCESS, "local: an agent with two regions", sstr(st)});
	if (st != NIXL_SUCCESS)
		goto done;

	/* WRITE x -> y, 64 blocks, with a notification to itself */
	fill(x, len, 21, 0);
	st = xfer(s, NIXL_WRITE, dlist((uintptr_t)x, 64, blk, blk), dlist((uintptr_t)y, 64, blk, blk), "S",
		  "self-write");
	for (i = 0; i < 64 * blk && y[i] == pat(21, i); i++)
		;
	out.push_back({st == NIXL_SUCCESS && i == 64 * blk,
		       "local: an agent WRITEs between two of its regions, byte for byte",
		       sstr(st) + (i < 64 * blk ? ", first difference at " + std::to_string(i) : "")});
	out.push_back({waitNotif(s.ag, "S", "self-write"),
		       "local: the transfer's notification arrives at the agent under its own name", ""});

	/* READ y's second half into x's first */
	fill(y, len, 22, 0);
	memset(x, 0, len);
	st = xfer(s, NIXL_READ, dlist((uintptr_t)x, 1, len / 2, 0), dlist((uintptr_t)y + len / 2, 1, len / 2, 0),
		  "S");
	for (i = 0; i < len / 2 && x[i] == pat(22, len / 2 + i); i++)
		;
	out.push_back({st == NIXL_SUCCESS && i == len / 2, "local: an agent READs from its own region",
		       sstr(st) + (i < len / 2 ? ", first difference at " + std::to_string(i) : "")});

	/* a notification to itself without a transfer (NIXL's SelfNotification) */
	st = s.ag.genNotif("S", "self-note");
	out.push_back({st == NIXL_SUCCESS && waitNotif(s.ag, "S", "self-note"),
		       "local: genNotif to the agent itself arrives", sstr(st)});

	s.dereg(x, len);
	s.dereg(y, len);
done:
	free(x);
	free(y);
	return out;
}
