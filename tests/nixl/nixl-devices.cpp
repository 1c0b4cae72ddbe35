// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-devices.cpp - hixl-nixl-test's checks of the backend's NICs: the
 * parameter device_list and HIXL_NET_DEVICES choose the engine's RDMA
 * device and rails (the test VM's rxe0 on 10.77.0.1, rxe1 on 10.78.0.1),
 * read back from the kernel (hixl_dev_engines(): the engine's address,
 * device and rail count); unknown names and a list beside 'rails' refused.
 */
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <hixl/hixl.h>

#include "nixl-test.h"

namespace {

/* this process's engines that are set up */
std::vector<struct hixl_engine_stat> myEngines()
{
	std::vector<struct hixl_engine_stat> e(256), out;
	int fd = hixl_dev_open(nullptr);
	int n;

	if (fd < 0)
		return out;
	n = hixl_dev_engines(fd, e.data(), e.size(), nullptr);
	close(fd);
	for (int i = 0; i < n; i++)
		if (e[i].pid == (uint32_t)getpid() && (e[i].flags & HIXL_ENGINE_STAT_SETUP))
			out.push_back(e[i]);
	return out;
}

/*
 * A backend made with @p (an agent of its own): the kernel's view of the
 * engine it made, "ADDRESS DEVICE rails=N", or "refused: STATUS".
 */
std::string backendOn(const std::string &agent, const nixl_b_params_t &p)
{
	auto before = myEngines();
	Agent x(agent);
	nixl_status_t st = x.make(p);

	if (st != NIXL_SUCCESS)
		return "refused: " + sstr(st);
	for (const auto &e : myEngines()) {
		if (std::any_of(before.begin(), before.end(),
				[&e](const hixl_engine_stat &b) { return b.id == e.id; }))
			continue;
		char name[HIXL_ENGINE_NAME_MAX];

		if (hixl_format_engine_name(&e.local, name, sizeof(name)))
			return "an engine without a name";
		std::string n = name;

		return n.substr(0, n.rfind(':')) + " " + e.device + " rails=" + std::to_string(e.nr_rails);
	}
	return "no new engine in the kernel";
}

} // namespace

std::vector<devCheck> deviceChecks()
{
	std::vector<devCheck> out;
	std::string r;

	if (access("/sys/class/infiniband/rxe0", F_OK) || access("/sys/class/infiniband/rxe1", F_OK)) {
		out.push_back({true, "device_list and HIXL_NET_DEVICES",
			       "SKIP no rxe0 and rxe1 (the test VM's two rails on 10.77.0.1, 10.78.0.1)"});
		return out;
	}
	nixl_b_params_t p = defaults();

	p["device_list"] = "rxe1";
	r = backendOn("D-one", p);
	out.push_back({r == "10.78.0.1 rxe1 rails=1", "device_list=rxe1: the engine on rxe1's address", r});

	p["device_list"] = "rxe1:1, rxe0";
	r = backendOn("D-two", p);
	out.push_back({r == "10.78.0.1 rxe1 rails=2",
		       "device_list='rxe1:1, rxe0': the engine on rxe1, rxe0 its second rail", r});

	p["device_list"] = "rxe1";
	p["engine"] = "10.77.0.1";
	r = backendOn("D-pinned", p);
	out.push_back({r == "10.77.0.1 rxe0 rails=2",
		       "engine=10.77.0.1 with device_list=rxe1: the engine stays on rxe0, rxe1 a rail", r});

	p = defaults();
	setenv("HIXL_NET_DEVICES", "rxe1", 1);
	r = backendOn("D-env", p);
	out.push_back({r == "10.78.0.1 rxe1 rails=1", "HIXL_NET_DEVICES=rxe1: the engine on rxe1's address", r});
	p["device_list"] = "rxe0";
	r = backendOn("D-env-param", p);
	out.push_back({r == "10.77.0.1 rxe0 rails=1", "device_list=rxe0 wins over HIXL_NET_DEVICES=rxe1", r});
	setenv("HIXL_NET_DEVICES", "hixl_nosuchdev0", 1);
	r = backendOn("D-env-bad", defaults());
	out.push_back({r.rfind("refused", 0) == 0, "HIXL_NET_DEVICES=hixl_nosuchdev0 is refused", r});
	unsetenv("HIXL_NET_DEVICES");

	const std::pair<const char *, const char *> bad[][2] = {
		{{"device_list", "hixl_nosuchdev0"}, {"", ""}},
		{{"device_list", "rxe0:x"}, {"", ""}},
		{{"device_list", "rxe0:9"}, {"", ""}},
		{{"device_list", "rxe1"}, {"rails", "10.77.0.1"}},
	};
	for (const auto &b : bad) {
		std::string what;

		p = defaults();
		for (const auto &kv : b)
			if (*kv.first) {
				p[kv.first] = kv.second;
				what += std::string(what.empty() ? "" : " with ") + kv.first + "=" + kv.second;
			}
		r = backendOn("D-bad", p);
		out.push_back({r.rfind("refused", 0) == 0, "createBackend refuses " + what, r});
	}
	return out;
}
