// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_devices.cpp - RDMA device names to IPv4 addresses, and the device
 * nearest the process, from sysfs (hixl_devices.h).
 *
 * A RoCE (rxe, siw) port lists its network interfaces in
 * /sys/class/infiniband/DEV/ports/PORT/gid_attrs/ndevs/INDEX, one per GID
 * entry in use (an unused entry cannot be read); an InfiniBand port lists
 * none, and its IPoIB interfaces are those whose /sys/class/net/IF/device is
 * DEV's device (dev_port + 1 its port).  An interface's addresses come from
 * getifaddrs(): RDMA CM resolves such an address back to DEV when a hixl
 * engine is set up on it.  HIXL_SYSFS_ROOT, when set, is read in place of
 * /sys (tests/nixl/nixl-devices.cpp gives a tree with a PCI topology and
 * NUMA nodes there); the interfaces and their addresses stay the host's.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <map>

#include "hixl_devices.h"

namespace {

/* sysfs: /sys, or HIXL_SYSFS_ROOT, a tree of its shape (the tests' own) */
std::string sysRoot()
{
	const char *r = getenv("HIXL_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

std::string ibRoot()
{
	return sysRoot() + "/class/infiniband/";
}

std::string netRoot()
{
	return sysRoot() + "/class/net/";
}

/* the entries of directory @dir, sorted (numerically when all are numbers) */
std::vector<std::string> entries(const std::string &dir)
{
	std::vector<std::string> out;
	DIR *d = opendir(dir.c_str());
	struct dirent *e;

	if (!d)
		return out;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			out.emplace_back(e->d_name);
	closedir(d);
	bool numeric = std::all_of(out.begin(), out.end(), [](const std::string &s) {
		return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
	});
	if (numeric)
		std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
			return strtoul(a.c_str(), nullptr, 10) < strtoul(b.c_str(), nullptr, 10);
		});
	else
		std::sort(out.begin(), out.end());
	return out;
}

/* the first line of a file, "" when it cannot be read */
std::string firstLine(const std::string &path)
{
	std::ifstream f(path);
	std::string s;

	if (f)
		std::getline(f, s);
	return s;
}

std::string realPath(const std::string &p)
{
	char buf[PATH_MAX];

	return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

/* the network interfaces of @dev (of port @port, 0: every port) */
std::vector<std::string> netdevs(const std::string &dev, int port)
{
	std::vector<std::string> out;

	for (const auto &p : entries(ibRoot() + dev + "/ports")) {
		if (port && atoi(p.c_str()) != port)
			continue;
		std::string dir = ibRoot() + dev + "/ports/" + p + "/gid_attrs/ndevs/";

		for (const auto &i : entries(dir)) {
			std::string nd = firstLine(dir + i);

			if (!nd.empty() && std::find(out.begin(), out.end(), nd) == out.end())
				out.push_back(nd);
		}
	}
	if (!out.empty())
		return out;
	/* InfiniBand: IPoIB interfaces of the same PCI function */
	std::string parent = realPath(ibRoot() + dev + "/device");

	if (parent.empty())
		return out;
	for (const auto &nd : entries(netRoot())) {
		if (realPath(netRoot() + nd + "/device") != parent)
			continue;
		std::string dp = firstLine(netRoot() + nd + "/dev_port");

		if (!port || dp.empty() || dp.find_first_not_of("0123456789") != std::string::npos ||
		    atoi(dp.c_str()) + 1 == port)
			out.push_back(nd);
	}
	return out;
}

/* (interface, IPv4 address) of the interfaces that are up, in getifaddrs() order */
std::vector<std::pair<std::string, std::string>> ifAddrs()
{
	std::vector<std::pair<std::string, std::string>> out;
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa))
		return out;
	for (i = ifa; i; i = i->ifa_next) {
		char buf[INET_ADDRSTRLEN];

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK) ||
		    !(i->ifa_flags & IFF_UP))
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, sizeof(buf))) {
			std::string name = i->ifa_name;

			out.emplace_back(name.substr(0, name.find(':')), buf);	/* "eth0:1" labels */
		}
	}
	freeifaddrs(ifa);
	return out;
}

/* interface -> its RDMA device, for every device of the host */
std::map<std::string, std::string> devOfNetdev()
{
	std::map<std::string, std::string> m;

	for (const auto &dev : entries(ibRoot()))
		for (const auto &nd : netdevs(dev, 0))
			m.emplace(nd, dev);
	return m;
}

/* the NUMA node of RDMA device @dev, -1 when not known */
int devNode(const std::string &dev)
{
	std::string s = firstLine(ibRoot() + dev + "/device/numa_node");
	char *end;
	long v = strtol(s.c_str(), &end, 10);

	return s.empty() || *end ? -1 : (int)v;
}

/* the path components of @p ("/sys/devices/pci0000:00/0000:00:01.0" -> sys, devices, ...) */
std::vector<std::string> components(const std::string &p)
{
	std::vector<std::string> out;
	size_t i = 0;

	while (i < p.size()) {
		size_t j = p.find('/', i);

		if (j == std::string::npos)
			j = p.size();
		if (j > i)
			out.push_back(p.substr(i, j - i));
		i = j + 1;
	}
	return out;
}

/*
 * The sysfs path of the GPU this process uses, when that is known without a
 * GPU runtime: CUDA_VISIBLE_DEVICES names one GPU by its index, and that
 * index is a PCI order one (CUDA_DEVICE_ORDER=PCI_BUS_ID, or the host has
 * one NVIDIA GPU): the index-th NVIDIA display controller (vendor 0x10de,
 * class 0x0300 or 0x0302) in PCI address order.  "" otherwise (@why says).
 */
std::string gpuPath(std::string &why)
{
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	const char *order = getenv("CUDA_DEVICE_ORDER");
	const std::string pci = sysRoot() + "/bus/pci/devices/";
	std::vector<std::string> gpus;

	if (!vis || !*vis || std::string(vis).find_first_not_of("0123456789") != std::string::npos ||
	    strlen(vis) > 3) {
		why = "CUDA_VISIBLE_DEVICES does not name one GPU by index";
		return "";
	}
	for (const auto &d : entries(pci)) {
		std::string cls = firstLine(pci + d + "/class");

		if (firstLine(pci + d + "/vendor") == "0x10de" &&
		    (cls.rfind("0x0300", 0) == 0 || cls.rfind("0x0302", 0) == 0))
			gpus.push_back(d);
	}
	size_t idx = (size_t)atoi(vis);

	if (!(order && !strcmp(order, "PCI_BUS_ID")) && gpus.size() != 1) {
		why = "CUDA_VISIBLE_DEVICES=" + std::string(vis) + " counts in the CUDA runtime's order "
		      "(CUDA_DEVICE_ORDER=PCI_BUS_ID is not set), which only the runtime knows";
		return "";
	}
	if (idx >= gpus.size()) {
		why = "CUDA_VISIBLE_DEVICES=" + std::string(vis) + ", but sysfs lists " +
		      std::to_string(gpus.size()) + " NVIDIA GPU(s)";
		return "";
	}
	return realPath(pci + gpus[idx]);
}

/*
 * How near RDMA device @dev is to the PCI device at sysfs path @gpu: the
 * path components they share below /sys/devices (the PCI root, then each
 * bridge or switch port in common); 0 when not under the same PCI root, or
 * @dev has no PCI device (rxe, siw).
 */
size_t pciNearness(const std::string &dev, const std::string &gpu)
{
	std::string root = realPath(sysRoot()), pa = realPath(ibRoot() + dev + "/device");

	if (root.empty() || pa.compare(0, root.size(), root) || gpu.compare(0, root.size(), root))
		return 0;
	auto a = components(pa.substr(root.size())), b = components(gpu.substr(root.size()));
	size_t n = 0;

	if (a.empty() || b.empty())
		return 0;
	/* devices, pciDDDD:BB, bridges and switch ports: the two devices themselves not */
	while (n < a.size() - 1 && n < b.size() - 1 && a[n] == b[n])
		n++;
	return n > 1 ? n - 1 : 0;
}

} // namespace

bool hixlDevParse(const std::string &list, std::vector<hixlDevName> &out, std::string &err)
{
	size_t i = 0;

	out.clear();
	while (i < list.size()) {
		size_t j = list.find_first_of(", \t", i);
		std::string e = list.substr(i, j == std::string::npos ? std::string::npos : j - i);

		i = j == std::string::npos ? list.size() : j + 1;
		if (e.empty())
			continue;
		size_t c = e.find(':');
		std::string name = e.substr(0, c), port = c == std::string::npos ? "" : e.substr(c + 1);
		int p = 0;

		if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
			err = "'" + e + "' is not an RDMA device name (as in " + ibRoot() + ")";
			return false;
		}
		if (c != std::string::npos) {
			if (port.empty() || port.size() > 4 ||
			    port.find_first_not_of("0123456789") != std::string::npos ||
			    (p = atoi(port.c_str())) < 1) {
				err = "'" + e + "': the port after ':' must be a number from 1";
				return false;
			}
		}
		hixlDevName d(name, p);

		if (std::find(out.begin(), out.end(), d) == out.end())
			out.push_back(d);
	}
	return true;
}

int hixlDevAddress(const hixlDevName &dev, std::string &addr, std::string &err)
{
	const std::string &name = dev.first;

	if (access((ibRoot() + name).c_str(), F_OK)) {
		std::string have;

		for (const auto &d : entries(ibRoot()))
			have += (have.empty() ? "" : ", ") + d;
		err = "no RDMA device '" + name + "' on this host (" + ibRoot() + ": " +
		      (have.empty() ? "none" : have) + ")";
		return -ENODEV;
	}
	if (dev.second && access((ibRoot() + name + "/ports/" + std::to_string(dev.second)).c_str(), F_OK)) {
		err = "RDMA device '" + name + "' has no port " + std::to_string(dev.second);
		return -EINVAL;
	}
	std::vector<std::string> nds = netdevs(name, dev.second);
	auto ifs = ifAddrs();

	for (const auto &nd : nds)
		for (const auto &ia : ifs)
			if (ia.first == nd) {
				addr = ia.second;
				return 0;
			}
	std::string list;

	for (const auto &nd : nds)
		list += (list.empty() ? "" : ", ") + nd;
	err = "RDMA device '" + name + "' has no IPv4 address on an interface that is up (its "
	      "interfaces: " + (list.empty() ? "none" : list) + "): hixl engines are named by one";
	return -EADDRNOTAVAIL;
}

std::string hixlDevOf(const std::string &ip)
{
	auto m = devOfNetdev();

	for (const auto &ia : ifAddrs())
		if (ia.second == ip) {
			auto it = m.find(ia.first);

			if (it != m.end())
				return it->second;
		}
	return "";
}

std::vector<std::string> hixlDevAutoOrder(std::string &why)
{
	auto m = devOfNetdev();
	auto ifs = ifAddrs();
	unsigned cpu = 0, node = 0;
	int me = getcpu(&cpu, &node) ? -1 : (int)node;
	std::string gpuWhy, gpu = gpuPath(gpuWhy);
	std::vector<std::string> byGpu, byNode, rdma, rest;
	std::string gpuDev, nodeDev;
	size_t best = 0;

	/* the RDMA devices nearest the GPU: the most PCI path shared with it */
	if (!gpu.empty())
		for (const auto &ia : ifs) {
			auto it = m.find(ia.first);

			if (it != m.end())
				best = std::max(best, pciNearness(it->second, gpu));
		}
	for (const auto &ia : ifs) {
		auto it = m.find(ia.first);

		if (it == m.end()) {
			rest.push_back(ia.second);
		} else if (best && pciNearness(it->second, gpu) == best) {
			if (gpuDev.empty())
				gpuDev = it->second;
			byGpu.push_back(ia.second);
		} else if (me >= 0 && devNode(it->second) == me) {
			if (nodeDev.empty())
				nodeDev = it->second;
			byNode.push_back(ia.second);
		} else {
			rdma.push_back(ia.second);
		}
	}
	if (!gpuDev.empty())
		why = "RDMA device " + gpuDev + " is the nearest to this process's GPU " +
		      gpu.substr(gpu.rfind('/') + 1) + " on the PCI bus (CUDA_VISIBLE_DEVICES)";
	else if (!nodeDev.empty())
		why = "RDMA device " + nodeDev + " is on NUMA node " + std::to_string(me) +
		      ", the node of the CPU this process runs on (" + std::to_string(cpu) + ")";
	else
		why = "no RDMA device with an IPv4 address is known to be on NUMA node " +
		      std::to_string(me) + " (this process's CPU " + std::to_string(cpu) +
		      "): the first address, in interface order, that an RDMA device owns";
	if (gpuDev.empty())
		why += "; the GPU: " + (gpu.empty() ? gpuWhy : "no RDMA device shares its PCI root");
	byGpu.insert(byGpu.end(), byNode.begin(), byNode.end());
	byGpu.insert(byGpu.end(), rdma.begin(), rdma.end());
	byGpu.insert(byGpu.end(), rest.begin(), rest.end());
	return byGpu;
}
