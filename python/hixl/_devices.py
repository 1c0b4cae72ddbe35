# SPDX-License-Identifier: MIT
"""hixl._devices - RDMA device names to the local IPv4 addresses hixl
engines are named by, from sysfs, with no tool (ip(8), rdma(8)) and no
verbs library: what hixl.mooncake's device_name needs.

A RoCE (or rxe, siw) port lists its network interfaces in
/sys/class/infiniband/DEV/ports/PORT/gid_attrs/ndevs/INDEX (one per GID
entry in use); an InfiniBand port has none there, and its IPoIB interface
is the one whose /sys/class/net/IF/device is DEV's device.  An interface's
IPv4 address is its primary one (the SIOCGIFADDR ioctl), the address RDMA
CM resolves back to DEV when a hixl engine is set up on it.
"""

import fcntl
import os
import socket
import struct

#: where the RDMA devices are listed; a parameter of the helpers below so
#: that they can be pointed at another tree
SYSFS_IB = "/sys/class/infiniband"
SYSFS_NET = "/sys/class/net"
_SIOCGIFADDR = 0x8915


class DeviceError(Exception):
    """A device name that cannot be used: errno_name is the errno
    (ENODEV, EADDRNOTAVAIL, EINVAL, EOPNOTSUPP) hixl.mooncake returns
    negated, str() the cause and the fix."""

    def __init__(self, errno_name, message):
        super().__init__(message)
        self.errno_name = errno_name


def parse(device_name):
    """The device names of a Mooncake device_name: None, "" or blanks give
    []; "mlx5_0,mlx5_1" gives [("mlx5_0", None), ("mlx5_1", None)]
    (blanks around a name dropped, a name given twice kept once, in
    first-seen order).  A name may carry a port, "mlx5_0:1"
    (UCX_NET_DEVICES' form): ("mlx5_0", 1), the port an int >= 1.
    Raises DeviceError("EINVAL") for an empty name between commas, a name
    with "/" or a port that is not a positive number."""
    if device_name is None:
        return []
    text = str(device_name).strip()
    if not text:
        return []
    out = []
    for part in text.split(","):
        part = part.strip()
        name, sep, port = part.partition(":")
        if not name or "/" in name or name in (".", ".."):
            raise DeviceError("EINVAL", "device_name %r: %r is not an RDMA device name "
                              "(a comma-separated list of names as in %s, e.g. "
                              "\"mlx5_0,mlx5_1\")" % (device_name, part, SYSFS_IB))
        if sep and not (port.isdigit() and int(port) >= 1):
            raise DeviceError("EINVAL", "device_name %r: %r: the port after \":\" must "
                              "be a number from 1" % (device_name, part))
        item = (name, int(port) if sep else None)
        if item not in out:
            out.append(item)
    return out


def devices(root=SYSFS_IB):
    """The RDMA device names of this host (sorted; [] without any)."""
    try:
        return sorted(os.listdir(root))
    except OSError:
        return []


def netdevs(dev, port=None, root=SYSFS_IB, net_root=SYSFS_NET):
    """The network interfaces of RDMA device dev (of its port `port`, or of
    every port, ascending), in GID table order, each once.  [] when dev
    has none (an InfiniBand port without IPoIB)."""
    out = []
    ports_dir = os.path.join(root, dev, "ports")
    try:
        ports = sorted((p for p in os.listdir(ports_dir) if p.isdigit()), key=int)
    except OSError:
        ports = []
    for p in ports:
        if port is not None and int(p) != port:
            continue
        ndir = os.path.join(ports_dir, p, "gid_attrs", "ndevs")
        try:
            idx = sorted((i for i in os.listdir(ndir) if i.isdigit()), key=int)
        except OSError:
            continue
        for i in idx:
            try:
                with open(os.path.join(ndir, i)) as f:
                    nd = f.read().strip()
            except OSError:		# an unused GID entry: EAGAIN / ENODATA
                continue
            if nd and nd not in out:
                out.append(nd)
    if out:
        return out
    # InfiniBand (IPoIB): the interfaces on the same PCI function
    try:
        parent = os.path.realpath(os.path.join(root, dev, "device"))
        ifs = sorted(os.listdir(net_root))
    except OSError:
        return out
    for nd in ifs:
        if os.path.realpath(os.path.join(net_root, nd, "device")) != parent:
            continue
        try:
            with open(os.path.join(net_root, nd, "dev_port")) as f:
                dport = int(f.read().strip()) + 1
        except (OSError, ValueError):
            dport = None
        if port is None or dport in (None, port):
            out.append(nd)
    return out


def ipv4(ifname):
    """The primary IPv4 address of interface ifname ("10.77.0.1"), or None
    when it has none or does not exist."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        req = struct.pack("256s", ifname.encode()[:15])
        res = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, req)
    except OSError:
        return None
    finally:
        s.close()
    return socket.inet_ntoa(res[20:24])


def address(dev, port=None, root=SYSFS_IB, net_root=SYSFS_NET):
    """The IPv4 address a hixl engine on RDMA device dev (its port `port`,
    or any) is named by: the primary address of its first interface that
    has one.  Raises DeviceError("ENODEV") when the host has no device of
    that name (the message lists the ones it has), DeviceError("EINVAL")
    for a port it does not have, DeviceError("EADDRNOTAVAIL") when none of
    its interfaces has an IPv4 address."""
    if not os.path.isdir(os.path.join(root, dev)):
        have = devices(root)
        raise DeviceError("ENODEV", "no RDMA device %r on this host (%s: %s)"
                          % (dev, root, ", ".join(have) if have else "none"))
    if port is not None and not os.path.isdir(os.path.join(root, dev, "ports", str(port))):
        raise DeviceError("EINVAL", "RDMA device %r has no port %d" % (dev, port))
    nds = netdevs(dev, port, root, net_root)
    for nd in nds:
        a = ipv4(nd)
        if a:
            return a
    raise DeviceError("EADDRNOTAVAIL", "RDMA device %r%s has no IPv4 address (its interfaces: "
                      "%s): give one an address, hixl engines are named by one"
                      % (dev, "" if port is None else " port %d" % port,
                         ", ".join(nds) if nds else "none"))


def device_of(ip, root=SYSFS_IB, net_root=SYSFS_NET):
    """The RDMA device whose interface has ip as its primary IPv4 address,
    or None (an address no RDMA device owns, or not IPv4)."""
    for dev in devices(root):
        for nd in netdevs(dev, None, root, net_root):
            if ipv4(nd) == ip:
                return dev
    return None


def choose(ip, device_name, root=SYSFS_IB, net_root=SYSFS_NET):
    """The engine's address and rails for Mooncake's (local_hostname,
    device_name), local_hostname already resolved to ip.  Returns (addr,
    rails): addr the address the engine is set up on, rails the list of
    further addresses (hixl's "Rails" option), [] without device names.

    The rule: local_hostname is the host peers reach (Mooncake's RPC
    host), device_name the NICs.  When ip is an RDMA device's address it
    pins that device as the engine's first rail (named or not), and each
    named device besides it becomes a further rail; when no RDMA device
    owns ip (a management address, "localhost"), the first named device's
    address is the engine's, the others are rails.  No names: (ip, []),
    as without device_name.  Raises DeviceError as parse() and address(),
    and DeviceError("EOPNOTSUPP") for names with an IPv6 ip."""
    names = parse(device_name)
    if not names:
        return ip, []
    if ":" in ip:
        raise DeviceError("EOPNOTSUPP", "device_name %r with the IPv6 address %s: hixl "
                          "finds a device's IPv4 address and its rails are IPv4 only; "
                          "give local_hostname as an IPv4 address or host name"
                          % (device_name, ip))
    addrs = [address(d, p, root, net_root) for d, p in names]
    if device_of(ip, root, net_root) is not None:
        first, rest = ip, addrs
    else:
        first, rest = addrs[0], addrs[1:]
    rails = []
    for a in rest:
        if a != first and a not in rails:
            rails.append(a)
    return first, rails
