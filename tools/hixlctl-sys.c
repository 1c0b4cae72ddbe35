// SPDX-License-Identifier: GPL-2.0
/*
 * hixlctl-sys.c - the checks of `hixlctl check` that look at the machine
 * rather than at hixl: the RDMA devices (/sys/class/infiniband: ports,
 * their state, the netdevs behind their GIDs and those netdevs' addresses
 * from getifaddrs()), huge pages (/sys/kernel/mm/hugepages) and the THP
 * mode (/sys/kernel/mm/transparent_hugepage/enabled).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hixlctl.h"

#define IB_CLASS	"/sys/class/infiniband"
#define MAX_NDEVS	8

/* what one RDMA device offers an engine */
struct rdma_dev {
	char name[256];		/* a directory entry's name */
	char ndev[MAX_NDEVS][IF_NAMESIZE + 1];	/* netdevs behind its GIDs */
	int nndev;
	char ports[512];	/* "port 1 ACTIVE (Ethernet), port 2 DOWN (...)" */
	bool active;		/* some port ACTIVE */
	char ips[512];		/* the netdevs' addresses, "10.77.0.1 fd77::1" */
	bool has_ip;
};

/* Append @s to the list @buf (@len bytes), space-separated. */
static void list_add(char *buf, size_t len, const char *sep, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? sep : "", s);
}

/* The netdevs behind port @port's GIDs (ports/N/gid_attrs/ndevs/N), once each. */
static void port_ndevs(struct rdma_dev *d, const char *port)
{
	char path[1024], ndev[IF_NAMESIZE + 1];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%s/gid_attrs/ndevs", d->name, port);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		bool dup = false;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%s/gid_attrs/ndevs/%s", d->name,
			 port, e->d_name);
		if (read_line(path, ndev, sizeof(ndev)) || !*ndev)
			continue;	/* an unused GID entry: EINVAL */
		for (int i = 0; i < d->nndev; i++)
			dup |= !strcmp(d->ndev[i], ndev);
		if (!dup && d->nndev < MAX_NDEVS)
			snprintf(d->ndev[d->nndev++], sizeof(d->ndev[0]), "%s", ndev);
	}
	closedir(dir);
}

/* Ports of @d: state ("4: ACTIVE" -> "ACTIVE"), link layer, netdevs. */
static void dev_ports(struct rdma_dev *d)
{
	char path[1024], state[64], ll[64], item[512];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), IB_CLASS "/%s/ports", d->name);
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		const char *s;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%s/state", d->name, e->d_name);
		if (read_line(path, state, sizeof(state)))
			snprintf(state, sizeof(state), "?");
		s = strchr(state, ':') ? strchr(state, ':') + 1 : state;
		s += strspn(s, " ");
		snprintf(path, sizeof(path), IB_CLASS "/%s/ports/%s/link_layer", d->name, e->d_name);
		if (read_line(path, ll, sizeof(ll)))
			snprintf(ll, sizeof(ll), "?");
		snprintf(item, sizeof(item), "port %s %s (%s)", e->d_name, s, ll);
		list_add(d->ports, sizeof(d->ports), ", ", item);
		d->active |= !strcmp(s, "ACTIVE");
		port_ndevs(d, e->d_name);
	}
	closedir(dir);
}

/* The IPv4 and global IPv6 addresses of @d's netdevs, from @ifa. */
static void dev_ips(struct rdma_dev *d, struct ifaddrs *ifa)
{
	char ip[INET6_ADDRSTRLEN];

	for (struct ifaddrs *a = ifa; a; a = a->ifa_next) {
		bool mine = false;
		const void *src;

		if (!a->ifa_addr || !a->ifa_name)
			continue;
		for (int i = 0; i < d->nndev; i++)
			mine |= !strcmp(d->ndev[i], a->ifa_name);
		if (!mine)
			continue;
		if (a->ifa_addr->sa_family == AF_INET) {
			src = &((struct sockaddr_in *)a->ifa_addr)->sin_addr;
		} else if (a->ifa_addr->sa_family == AF_INET6) {
			const struct in6_addr *a6 = &((struct sockaddr_in6 *)a->ifa_addr)->sin6_addr;

			if (IN6_IS_ADDR_LINKLOCAL(a6))
				continue;	/* engines need an address without a scope */
			src = a6;
		} else {
			continue;
		}
		if (!inet_ntop(a->ifa_addr->sa_family, src, ip, sizeof(ip)))
			continue;
		list_add(d->ips, sizeof(d->ips), " ", ip);
		d->has_ip = true;
	}
}

/* One check line for @d: PASS when an engine can use it, else @bad with a fix. */
static void dev_report(const struct rdma_dev *d, enum check_status bad)
{
	char name[300], ndevs[160] = "", fix[256];

	snprintf(name, sizeof(name), "rdma:%s", d->name);
	for (int i = 0; i < d->nndev; i++)
		list_add(ndevs, sizeof(ndevs), ",", d->ndev[i]);
	if (!d->nndev) {
		check_add(name, bad, "RoCE: add the device on an Ethernet interface with an IP "
			  "(rdma link add rxe0 type rxe netdev IF); InfiniBand: use its IPoIB "
			  "interface's address", "%s; no netdev behind its GIDs", d->ports);
		return;
	}
	if (!d->active) {
		snprintf(fix, sizeof(fix), "sudo ip link set %s up; check the cable or the switch "
			 "port (rdma link)", d->ndev[0]);
		check_add(name, bad, fix, "%s; netdev %s, addresses %s: no port ACTIVE", d->ports,
			  ndevs, d->has_ip ? d->ips : "none");
		return;
	}
	if (!d->has_ip) {
		snprintf(fix, sizeof(fix), "give %s an address: sudo ip addr add ADDR/PREFIX dev %s",
			 d->ndev[0], d->ndev[0]);
		check_add(name, bad, fix, "%s; netdev %s has no IPv4 or global IPv6 address",
			  d->ports, ndevs);
		return;
	}
	check_add(name, CHECK_PASS, NULL, "%s; netdev %s: %s", d->ports, ndevs, d->ips);
}

/* documented in hixlctl.h */
void check_rdma(void)
{
	struct rdma_dev *devs = NULL, *d;
	struct ifaddrs *ifa = NULL;
	bool any_usable = false;
	struct dirent *e;
	int n = 0;
	DIR *dir;

	dir = opendir(IB_CLASS);
	if (dir) {
		while ((e = readdir(dir))) {
			if (e->d_name[0] == '.')
				continue;
			d = realloc(devs, (n + 1) * sizeof(*devs));
			if (!d)
				break;
			devs = d;
			memset(&devs[n], 0, sizeof(devs[n]));
			snprintf(devs[n++].name, sizeof(devs->name), "%s", e->d_name);
		}
		closedir(dir);
	}
	if (!n) {
		check_add("rdma", CHECK_FAIL, "RDMA hardware: load its driver (rdma link); none: "
			  "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev IF",
			  "no RDMA device (%s is empty or missing)", IB_CLASS);
		free(devs);
		return;
	}
	if (getifaddrs(&ifa))
		ifa = NULL;
	for (int i = 0; i < n; i++) {
		dev_ports(&devs[i]);
		dev_ips(&devs[i], ifa);
		any_usable |= devs[i].active && devs[i].has_ip;
	}
	/* a device nobody can use FAILs only when no other device is usable */
	for (int i = 0; i < n; i++)
		dev_report(&devs[i], any_usable ? CHECK_WARN : CHECK_FAIL);
	if (ifa)
		freeifaddrs(ifa);
	free(devs);
}

/* Free and total pages of one huge page size (hugepages-2048kB); -1 when absent. */
static int hp_counts(const char *dir, unsigned long *nfree, unsigned long *total)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/nr_hugepages", dir);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	*total = strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages", dir);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	*nfree = strtoul(buf, NULL, 10);
	return 0;
}

/* documented in hixlctl.h */
void check_hugepages(void)
{
	unsigned long f2 = 0, t2 = 0, f1 = 0, t1 = 0;
	char d2[48], d1[48], thp[128], *sel, *end;
	int have2, have1;

	have2 = !hp_counts("hugepages-2048kB", &f2, &t2);
	have1 = !hp_counts("hugepages-1048576kB", &f1, &t1);
	snprintf(d2, sizeof(d2), have2 ? "2 MiB: %lu free of %lu" : "2 MiB: none", f2, t2);
	snprintf(d1, sizeof(d1), have1 ? "1 GiB: %lu free of %lu" : "1 GiB: not supported",
		 f1, t1);
	/* reserved huge pages are a choice of the administrator: never a WARN */
	check_add("hugepages", CHECK_PASS, NULL, "%s; %s (hugetlbfs and hixl_malloc_physical; "
		  "more: sysctl vm.nr_hugepages)", d2, d1);

	if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof(thp))) {
		check_add("thp", CHECK_WARN, "a kernel with CONFIG_TRANSPARENT_HUGEPAGE",
			  "no transparent huge pages: anonymous KV caches are pinned and "
			  "registered in 4 KiB pages");
		return;
	}
	sel = strchr(thp, '[');
	end = sel ? strchr(sel, ']') : NULL;
	if (!sel || !end) {
		check_add("thp", CHECK_WARN, NULL, "THP mode unreadable: '%s'", thp);
		return;
	}
	*end = '\0';
	sel++;
	if (!strcmp(sel, "never"))
		check_add("thp", CHECK_WARN, "echo madvise | sudo tee "
			  "/sys/kernel/mm/transparent_hugepage/enabled",
			  "THP never: anonymous KV caches are pinned and registered in 4 KiB pages");
	else
		check_add("thp", CHECK_PASS, NULL, "THP %s%s", sel, !strcmp(sel, "madvise") ?
			  " (anonymous memory gets 2 MiB pages after madvise(MADV_HUGEPAGE))" : "");
}
