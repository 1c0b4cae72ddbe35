// SPDX-License-Identifier: GPL-2.0
/*
 * nixl-devices.cpp - hixl-nixl-test's checks of the backend's NICs: the
 * parameter device_list and HIXL_NET_DEVICES choose the engine's RDMA
 * device and rails (the test VM's rxe0 on 10.77.0.1, rxe1 on 10.78.0.1),
 * read back from the kernel (hixl_dev_engines(): the engine's address,
 * device and rail count); unknown names and a list beside 'rails' refused;
 * engine "auto" on the device of the process's NUMA node, or nearest its
 * GPU, with a sysfs tree of the test's own (HIXL_SYSFS_ROOT) that puts the
 * VM's two rxe devices on PCI bridges and NUMA nodes.
 */
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

void put(const std::filesystem::path &p, const std::string &text)
{
	std::filesystem::create_directories(p.parent_path());
	std::ofstream(p) << text << "\n";
}

/*
 * A sysfs tree of the test's own (HIXL_SYSFS_ROOT) under @root: rxe0 (on
 * veth0) under PCI bridge 00:02.0 with NUMA node @node0, rxe1 (on veth2)
 * under 00:03.0 with @node1, NVIDIA GPUs 04:00.0 under 00:02.0 and 06:00.0
 * under 00:03.0.  The engine is still made on the real devices: the tree
 * names them as they are (rxe0 10.77.0.1 on veth0, rxe1 10.78.0.1 on veth2).
 */
void fakeSysfs(const std::filesystem::path &root, int node0, int node1)
{
	namespace fs = std::filesystem;
	const fs::path bus = root / "devices/pci0000:00";
	const struct {
		const char *ib, *netdev, *bridge, *fn;
		int node;
	} nics[] = {{"rxe0", "veth0", "0000:00:02.0", "0000:05:00.0", node0},
		    {"rxe1", "veth2", "0000:00:03.0", "0000:07:00.0", node1}};
	const struct {
		const char *bridge, *fn;
	} gpus[] = {{"0000:00:02.0", "0000:04:00.0"}, {"0000:00:03.0", "0000:06:00.0"}};

	fs::remove_all(root);
	for (const auto &n : nics) {
		fs::path dev = bus / n.bridge / n.fn, ib = root / "class/infiniband" / n.ib;

		put(dev / "numa_node", std::to_string(n.node));
		put(dev / "vendor", "0x15b3");
		put(dev / "class", "0x020700");
		put(ib / "ports/1/gid_attrs/ndevs/0", n.netdev);
		fs::create_directory_symlink(dev, ib / "device");
		fs::create_directories(root / "bus/pci/devices");
		fs::create_directory_symlink(dev, root / "bus/pci/devices" / n.fn);
	}
	for (const auto &g : gpus) {
		fs::path dev = bus / g.bridge / g.fn;

		put(dev / "vendor", "0x10de");
		put(dev / "class", "0x030200");
		fs::create_directory_symlink(dev, root / "bus/pci/devices" / g.fn);
	}
	fs::create_directories(root / "class/net");
}

/* engine "auto" with the tree of fakeSysfs(@node0, @node1) and CUDA_VISIBLE_DEVICES=@gpu ("": unset) */
std::string autoOn(const std::string &root, int node0, int node1, const char *gpu, bool pciOrder)
{
	fakeSysfs(root, node0, node1);
	setenv("HIXL_SYSFS_ROOT", root.c_str(), 1);
	if (*gpu)
		setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
	if (pciOrder)
		setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
	std::string r = backendOn("D-auto", defaults());

	unsetenv("HIXL_SYSFS_ROOT");
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("CUDA_DEVICE_ORDER");
	return r;
}

/* engine "auto": the device of the process's NUMA node, the one nearest its GPU */
void nearestChecks(std::vector<devCheck> &out)
{
	unsigned cpu = 0, node = 0;
	char tmpl[] = "/tmp/hixl-nixl-sysfs-XXXXXX";

	if (getcpu(&cpu, &node) || !mkdtemp(tmpl)) {
		out.push_back({false, "engine auto: a sysfs tree of the test's own", "getcpu or mkdtemp failed"});
		return;
	}
	std::string root = std::string(tmpl) + "/sys", r;
	int me = (int)node, other = me + 1;
	const char *saved = getenv("CUDA_VISIBLE_DEVICES");
	std::string keep = saved ? saved : "";

	unsetenv("CUDA_VISIBLE_DEVICES");
	r = autoOn(root, other, me, "", false);
	out.push_back({r == "10.78.0.1 rxe1 rails=1",
		       "engine auto: rxe1, on this CPU's NUMA node, before rxe0 (interface order's first)", r});
	r = autoOn(root, me, other, "", false);
	out.push_back({r == "10.77.0.1 rxe0 rails=1", "engine auto: rxe0 when it is the one on this CPU's node", r});
	r = autoOn(root, me, me, "1", true);
	out.push_back({r == "10.78.0.1 rxe1 rails=1",
		       "engine auto: CUDA_VISIBLE_DEVICES=1 in PCI order, GPU 06:00.0: rxe1 behind the same bridge", r});
	r = autoOn(root, other, me, "0", true);
	out.push_back({r == "10.77.0.1 rxe0 rails=1",
		       "engine auto: GPU 04:00.0 shares a bridge with rxe0: before rxe1 of this CPU's node", r});
	r = autoOn(root, other, me, "0", false);
	out.push_back({r == "10.78.0.1 rxe1 rails=1",
		       "engine auto: two GPUs in CUDA's own order (not PCI_BUS_ID): the GPU is not known, NUMA decides", r});
	std::filesystem::remove_all(tmpl);
	if (saved)
		setenv("CUDA_VISIBLE_DEVICES", keep.c_str(), 1);
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
	nearestChecks(out);
	return out;
}
