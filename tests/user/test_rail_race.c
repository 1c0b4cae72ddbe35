// SPDX-License-Identifier: GPL-2.0
/*
 * test_rail_race.c - a rail's device removal and revival racing what the
 * module does on that rail, made to happen on purpose:
 *
 *   rail_accept_vs_removal   a connection accepted on rail 1 sits between
 *                            its QP's creation and its listing (the
 *                            module's test delay hixl/test/accept_qp_ms,
 *                            debug kernel only) while rxe1 is deleted: it
 *                            is refused (-ENODEV in the log), the removal
 *                            does not free the rail's PD under its QP (no
 *                            kernel report), nothing is left behind
 *   rail_revive_stuck_engine an engine whose rail 1 comes back while its
 *                            lock is stuck (userfaultfd) does not hold up
 *                            another RDMA device's add and removal; once
 *                            the pages arrive, the rail comes back up
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "tests.h"
#include "util.h"
#include "rail_util.h"
#include "local_util.h"
#include "stall_util.h"

void test_rail_accept_vs_removal(void);
void test_rail_revive_stuck_engine(void);

#define ACCEPT_HOOK	"/sys/kernel/debug/hixl/test/accept_qp_ms"
#define ARV_PORT	24790	/* E; B: +1 */
#define RSE_PORT	24795	/* E1; E2: +1 */

static int write_file(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(v, f) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

struct arv_connect {
	int fd;
	long ret;
};

static void *arv_connect_run(void *arg)
{
	struct arv_connect *c = arg;
	struct hixl_connect cn;

	memset(&cn, 0, sizeof(cn));
	cn.remote = ru_addr(RAIL1_IP, ARV_PORT);
	cn.timeout_ms = 15000;
	c->ret = xioctl(c->fd, HIXL_IOC_CONNECT, &cn);
	return NULL;
}

void test_rail_accept_vs_removal(void)
{
	struct arv_connect c = { -1, 1 };
	struct hixl_setup sb;
	struct hixl_link_stat o;
	long pin0 = vm_pin_kb();
	int e, kmsg, in_delay, refused, rc;
	pthread_t th;

	e = open_dev();
	REQUIRE(e >= 0);
	REQUIRE(ru_need(e, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	ru_need_tool("rdma");
	if (access(ACCEPT_HOOK, W_OK) != 0)
		SKIP("no " ACCEPT_HOOK " (the module's test delays exist only against a kernel with KUnit)");
	/* E listens on rail 0 and on rail 1 (RAIL1_IP:ARV_PORT) */
	REQUIRE(ru_setup(e, ARV_PORT, 1, 0, NULL) == 0);
	/* B's own device is rxe1, so its connection to E's rail address comes in on rxe1 */
	c.fd = open_dev();
	REQUIRE(c.fd >= 0);
	memset(&sb, 0, sizeof(sb));
	sb.local = ru_addr(RAIL1_IP, ARV_PORT + 1);
	sb.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	sb.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	REQUIRE(xioctl(c.fd, HIXL_IOC_SETUP, &sb) == 0);

	kmsg = hx_kmsg_open();
	REQUIRE(kmsg >= 0);
	REQUIRE(write_file(ACCEPT_HOOK, "3000") == 0);
	REQUIRE(pthread_create(&th, NULL, arv_connect_run, &c) == 0);
	in_delay = hx_kmsg_wait(kmsg, "test delay accept_qp_ms", 10000);
	CHECK(in_delay);
	/* the accepted connection's QP is on rail 1's PD, not yet listed */
	rc = system("timeout 60 rdma link delete rxe1");
	CHECK_EQ(rc, 0);
	refused = hx_kmsg_wait(kmsg, "refusing the connection: -19", 10000);
	write_file(ACCEPT_HOOK, "0");
	pthread_join(th, NULL);
	printf("#   in the delay: %d; rxe1 deleted: %d; refused with -ENODEV: %d; B's CONNECT: %ld\n",
	       in_delay, rc, refused, c.ret);
	CHECK(refused);
	CHECK(c.ret != 0);
	CHECK_EQ(lu_link0(e, &o), -ENOENT);	/* E kept no link of it */
	close(c.fd);
	close(e);
	close(kmsg);
	CHECK(vm_pin_kb() <= pin0);
	CHECK_EQ(hx_rxe_restore("rxe1", "veth2"), 0);
}

/* rail @i of engine @id in debugfs hixl/rails: 1 "up", 0 "gone", -1 not listed or busy */
static int rail_up(unsigned long long id, unsigned int i)
{
	char line[256], pre[64];
	int ret = -1;
	FILE *f = fopen("/sys/kernel/debug/hixl/rails", "r");

	if (!f)
		return -1;
	snprintf(pre, sizeof(pre), "%llu %u ", id, i);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, pre, strlen(pre)))
			ret = strstr(line, " up\n") != NULL;
	fclose(f);
	return ret;
}

struct rse_cmd {
	const char *cmd;
	int rc;
};

static void *rse_run(void *arg)
{
	struct rse_cmd *c = arg;

	c->rc = system(c->cmd);
	return NULL;
}

/* Run @cmd in a thread for up to @ms: its status, or -ETIMEDOUT (*th joined later) */
static int rse_bounded(struct rse_cmd *c, pthread_t *th, int ms)
{
	struct timespec ts;

	c->rc = -1;
	if (pthread_create(th, NULL, rse_run, c))
		return -EAGAIN;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	if (pthread_timedjoin_np(*th, NULL, &ts)) {
		printf("#   '%s' still runs after %d ms\n", c->cmd, ms);
		return -ETIMEDOUT;
	}
	return c->rc;
}

void test_rail_revive_stuck_engine(void)
{
	struct rse_cmd add = { "rdma link add rxe9 type rxe netdev veth8", -1 };
	struct rse_cmd del = { "rdma link delete rxe9", -1 };
	pthread_t t_add, t_del;
	struct hx_stall st;
	unsigned long long id;
	int e1, e2, rc_add, rc_del = -1, up = -1;
	long pin0 = vm_pin_kb(), reg;
	uint8_t *la, *rb;

	e1 = open_dev();
	REQUIRE(e1 >= 0);
	REQUIRE(ru_need(e1, HIXL_FEAT_RAILS, "HIXL_FEAT_RAILS") == 0);
	ru_need_tool("rdma");
	ru_need_tool("ip");
	if (access("/sys/kernel/debug/hixl/rails", R_OK) != 0)
		SKIP("debugfs not mounted");
	/* RDMA links, never the same-host copy: rail links exist */
	REQUIRE(ru_setup(e1, RSE_PORT, 1, HIXL_TRANSPORT_RDMA, NULL) == 0);
	e2 = ru_engine(RSE_PORT + 1, 1, HIXL_TRANSPORT_RDMA);
	REQUIRE(e2 >= 0);
	REQUIRE(ru_pair_mem(e1, e2, RSE_PORT + 1, 1024 * 1024, 5000, &la, &rb) == 0);
	id = hx_self_id(e1);
	REQUIRE(id != 0);
	if (system("ip link add veth8 type veth peer name veth9 && ip link set veth8 up"))
		SKIP("cannot make veth8/veth9 for a third rxe device");

	REQUIRE(system("timeout 60 rdma link delete rxe1") == 0);
	CHECK_EQ(rail_up(id, 1), 0);
	REQUIRE(hx_stall_begin(&st, e1, 60) == 0);	/* E1's lock is stuck from here */
	CHECK_EQ(system("rdma link add rxe1 type rxe netdev veth2"), 0);
	sleep(3);		/* E1's rail work (1 s) finds rxe1 live and tries to revive the rail */
	rc_add = rse_bounded(&add, &t_add, 10000);
	if (rc_add != -ETIMEDOUT)
		rc_del = rse_bounded(&del, &t_del, 10000);
	printf("#   with E1 stuck: rxe9 added: %d, deleted: %d\n", rc_add, rc_del);
	CHECK_EQ(rc_add, 0);
	CHECK_EQ(rc_del, 0);
	reg = hx_stall_end(&st);	/* the pages arrive */
	if (rc_add == -ETIMEDOUT)
		pthread_join(t_add, NULL);
	if (rc_del == -ETIMEDOUT)
		pthread_join(t_del, NULL);
	CHECK_EQ(reg, 0);
	/* E1 no longer stuck: its rail 1 comes back */
	for (int i = 0; i < 100 && up != 1; i++) {
		up = rail_up(id, 1);
		if (up != 1)
			usleep(100000);
	}
	CHECK_EQ(up, 1);
	close(e2);
	close(e1);
	munmap(la, 1024 * 1024);
	munmap(rb, 1024 * 1024);
	munmap(st.addr, HX_STALL_LEN);
	CHECK(vm_pin_kb() <= pin0);
	if (access("/sys/class/infiniband/rxe9", F_OK) == 0 && system("rdma link delete rxe9"))
		printf("#   rdma link delete rxe9 failed\n");
	if (system("ip link delete veth8"))
		printf("#   ip link delete veth8 failed\n");
	rail_restore();
	CHECK_EQ(hx_rxe_active("rxe1"), 1);
}

const struct ht_test rail_race_tests[] = {
	{ "rail_accept_vs_removal", test_rail_accept_vs_removal },
	{ "rail_revive_stuck_engine", test_rail_revive_stuck_engine },
	{ NULL, NULL },
};
