// SPDX-License-Identifier: GPL-2.0
/*
 * hixl_devices.h - RDMA device names to the local IPv4 addresses hixl
 * engines are named by, and the RDMA device nearest the calling process,
 * from sysfs (no verbs library, no tool): the HIXL backend's device_list
 * parameter, HIXL_NET_DEVICES and its default choice.  hixl_devices.cpp.
 */
#ifndef HIXL_NIXL_DEVICES_H
#define HIXL_NIXL_DEVICES_H

#include <string>
#include <utility>
#include <vector>

/* an RDMA device name and its port (0: any port) */
using hixlDevName = std::pair<std::string, int>;

/*
 * hixlDevParse() - a device list as UCX's device_list and UCX_NET_DEVICES
 * write it: names separated by commas and/or blanks, each "mlx5_0" or
 * "mlx5_0:1" (a port from 1)
 * @list: the text; "" gives no names
 * @out:  the names, each once, in first-seen order
 * @err:  out: on failure, which entry and why
 *
 * Return: false for an entry with "/", an empty name or a port that is not a
 * number from 1.
 */
bool hixlDevParse(const std::string &list, std::vector<hixlDevName> &out, std::string &err);

/*
 * hixlDevAddress() - the IPv4 address a hixl engine on RDMA device @dev is
 * named by: the first IPv4 address (getifaddrs() order) of the first of the
 * device's network interfaces (its GID table's, in index order; IPoIB: the
 * interfaces of its PCI function) that has one
 * @dev:  the device and port (0: any)
 * @addr: out: "10.77.0.1"
 * @err:  out: on failure, the cause
 *
 * Return: 0; -ENODEV when this host has no RDMA device of that name (@err
 * lists the ones it has), -EINVAL for a port it does not have,
 * -EADDRNOTAVAIL when none of its interfaces has an IPv4 address.
 */
int hixlDevAddress(const hixlDevName &dev, std::string &addr, std::string &err);

/* the RDMA device one of whose interfaces has IPv4 address @ip, or "" */
std::string hixlDevOf(const std::string &ip);

/*
 * hixlDevAutoOrder() - the local IPv4 addresses (no loopback, interfaces
 * up, in interface order) as the backend's engine "auto" tries them: first
 * those of the RDMA devices nearest the process's GPU on the PCI bus, when
 * sysfs alone says which GPU that is (CUDA_VISIBLE_DEVICES names one by
 * index, in PCI order: CUDA_DEVICE_ORDER=PCI_BUS_ID or a host with one
 * NVIDIA GPU; nearest: the longest sysfs device path shared with the GPU,
 * at least its PCI root); then those of RDMA devices on the NUMA node of
 * the CPU the caller runs on (/sys/class/infiniband/DEV/device/numa_node
 * against getcpu()); then those of the other RDMA devices; then the rest
 * (an address no RDMA device owns, which hixl refuses with -ENODEV: kept
 * last, as before, so that the error names it).  Without that information
 * (no GPU named, one node, a device whose node is -1, a software device
 * such as rxe) the interface order stays.
 * @why: out: one line saying what was chosen and why, for the log
 */
std::vector<std::string> hixlDevAutoOrder(std::string &why);

#endif /* HIXL_NIXL_DEVICES_H */
