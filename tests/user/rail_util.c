// SPDX-License-Identifier: GPL-2.0
/*
 * rail_util.c - helpers of the rail tests (rail_util.h says which and what
 * each does).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "rail_util.h"
#include "util.h"

struct hixl_sockaddr ru_addr(const char *ip, uint16_t port)
{
	struct hixl_sockaddr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, ip, a.addr) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, ip, a.addr) == 1)
		a.family = AF_INET6;
	a.port = port;
	return a;
}

long ru_setup(int fd, uint16_t port, int rail1, uint32_t transport, const char *secret)
{
	struct hixl_sockaddr r1 = ru_addr(RAIL1_IP, 0);
	struct hixl_setup a;

	memset(&a, 0, sizeof(a));
	a.local = hx_name(port);
	a.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	a.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	a.transport = transport;
	if (rail1) {
		a.flags |= HIXL_SETUP_RAILS;
		a.rails = (uintptr_t)&r1;
		a.nr_rails = 1;
	}
	if (secret) {
		a.flags |= HIXL_SETUP_SECRET;
		a.secret = (uintptr_t)secret;
		a.secret_len = strlen(secret);
	}
	return xioctl(fd, HIXL_IOC_SETUP, &a);
}

int ru_engine(uint16_t port, int rail1, uint32_t transport)
{
	int fd = open_dev();

	if (fd < 0)
		return -1;
	if (ru_setup(fd, port, rail1, transport, NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

uint64_t ru_features(int fd)
{
	struct hixl_info info;

	memset(&info, 0, sizeof(info));
	return xioctl(fd, HIXL_IOC_GET_INFO, &info) ? 0 : info.features;
}

void ru_need_rxe(void)
{
	if (access("/sys/class/infiniband/rxe0", F_OK) ||
	    access("/sys/class/infiniband/rxe1", F_OK))
		SKIP("no rxe0 and rxe1 (the test VM's two rails on 10.77.0.1, 10.78.0.1)");
}

int ru_need(int fd, uint64_t feat, const char *what)
{
	static char why[256];
	struct hixl_info info;
	long ret;

	memset(&info, 0, sizeof(info));
	ret = xioctl(fd, HIXL_IOC_GET_INFO, &info);
	if (ret) {
		printf("#   GET_INFO: %s\n", strerror((int)-ret));
		return -1;
	}
	if ((info.features & feat) != feat) {
		snprintf(why, sizeof(why), "the module has no %s", what);
		SKIP(why);
	}
	ru_need_rxe();
	return 0;
}

void ru_need_tool(const char *tool)
{
	static char why[128];
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", tool);
	if (system(cmd) != 0) {
		snprintf(why, sizeof(why), "no %s tool (iproute2)", tool);
		SKIP(why);
	}
}

struct hixl_engine_stat ru_engine_stat(int fd, uint16_t port)
{
	static struct hixl_engine_stat es[64];
	struct hixl_engine_stat none;
	uint32_t total = 0;
	int n = hixl_dev_engines(fd, es, 64, &total);

	memset(&none, 0, sizeof(none));
	for (int i = 0; i < n; i++)
		if (es[i].pid == (uint32_t)getpid() && (es[i].flags & HIXL_ENGINE_STAT_SETUP) &&
		    es[i].local.port == port)
			return es[i];
	return none;
}

int ru_pair_mem(int a, int b, uint16_t pb, size_t len, uint32_t ms, uint8_t **la,
		uint8_t **rb)
{
	long ret;

	*la = hx_map(len);
	*rb = hx_map(len);
	if (!*la || !*rb) {
		printf("#   ru_pair_mem: mmap of %zu bytes failed\n", len);
		return -1;
	}
	ret = reg_mem(a, *la, len, 0, NULL);
	if (!ret)
		ret = reg_mem(b, *rb, len, 0, NULL);
	if (ret) {
		printf("#   ru_pair_mem: REG_MEM: %s\n", strerror((int)-ret));
		return -1;
	}
	ret = hx_connect(a, pb, ms);
	if (ret) {
		printf("#   ru_pair_mem: CONNECT to port %u: %s\n", pb, strerror((int)-ret));
		return -1;
	}
	return 0;
}

void rail_restore(void)
{
	if (system("ip link set veth0 up 2>/dev/null; ip link set veth2 up 2>/dev/null") != 0)
		printf("# rail_restore: ip link set up failed\n");
	hx_rxe_restore("rxe0", "veth0");
	hx_rxe_restore("rxe1", "veth2");
}
