// SPDX-License-Identifier: GPL-2.0
/*
 * test_hotplug.c - the RDMA device going away under engines: `rdma link
 * delete rxe0` in the middle of a batch (hixl.ko's ib_client remove,
 * kmod/engine.c).  The device must unregister without waiting for the
 * engines' files to close, every waiter gets an error, the engines keep
 * their registrations and answer -ENODEV, and after the device is back a
 * new SETUP makes everything work again.  rxe0 is restored whatever happens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"
#include "raw.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define LEN (4 * MiB)

void test_dev_removed_mid_batch(void);

struct job {
	int fd;
	uint16_t port;
	struct hixl_op_desc *d;
	uint32_t n;
	long ret;		/* the first failing TRANSFER's */
	int rounds;
	volatile int stop;
};

/* WRITE batches until one fails (or stop): the device goes away meanwhile. */
static void *writer(void *arg)
{
	struct job *j = arg;

	j->ret = 0;
	while (!j->stop) {
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(j->port);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)j->d;
		t.count = j->n;
		t.timeout_ms = 30000;
		j->ret = xioctl(j->fd, HIXL_IOC_TRANSFER, &t);
		if (j->ret)
			break;
		j->rounds++;
	}
	return NULL;
}

static int port_active(void)
{
	FILE *f = fopen("/sys/class/infiniband/rxe0/ports/1/state", "r");
	char s[64] = "";

	if (!f)
		return 0;
	if (!fgets(s, sizeof(s), f))
		s[0] = 0;
	fclose(f);
	return strstr(s, "ACTIVE") != NULL;
}

/* Put rxe0 back on veth0 and wait for it; 0 or -1 (loudly). */
static int restore_rxe0(void)
{
	if (access("/sys/class/infiniband/rxe0", F_OK) != 0 &&
	    system("rdma link add rxe0 type rxe netdev veth0") != 0) {
		printf("#   RESTORING rxe0 FAILED: later tests will fail\n");
		return -1;
	}
	for (int i = 0; i < 200 && !port_active(); i++)
		usleep(50000);
	if (!port_active()) {
		printf("#   rxe0 is back but not ACTIVE\n");
		return -1;
	}
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void test_dev_removed_mid_batch(void)
{
	long pin0 = vm_pin_kb();
	unsigned char *la, *rb;
	struct hixl_op_desc *d;
	struct hixl_stats st;
	struct job j;
	pthread_t th;
	uint32_t n = LEN / (4 * KiB);
	int a, b, rc;
	double t0;

	if (access("/sys/class/infiniband/rxe0", F_OK) != 0)
		SKIP("no rxe0 (runs in the test VM)");
	if (system("command -v rdma >/dev/null") != 0)
		SKIP("no rdma tool (iproute2)");
	a = open_dev();
	b = open_dev();
	REQUIRE(a >= 0 && b >= 0);
	REQUIRE(hixl_raw_setup(a, HX_IP, 16301, 0, 0) == 0);
	REQUIRE(hixl_raw_setup(b, HX_IP, 16302, 0, 0) == 0);
	la = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rb = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d = calloc(n, sizeof(*d));
	REQUIRE(la != MAP_FAILED && rb != MAP_FAILED && d);
	memset(la, 0x5a, LEN);
	memset(rb, 0, LEN);
	for (uint32_t i = 0; i < n; i++) {
		d[i].local_addr = (uintptr_t)(la + i * 4 * KiB);
		d[i].remote_addr = (uintptr_t)(rb + i * 4 * KiB);
		d[i].len = 4 * KiB;
	}
	REQUIRE(reg_mem(a, la, LEN, 0, NULL) == 0);
	REQUIRE(reg_mem(b, rb, LEN, 0, NULL) == 0);
	REQUIRE(hx_connect(a, 16302, 5000) == 0);

	memset(&j, 0, sizeof(j));
	j.fd = a;
	j.port = 16302;
	j.d = d;
	j.n = n;
	REQUIRE(pthread_create(&th, NULL, writer, &j) == 0);
	usleep(300000);
	t0 = now_ms();
	rc = system("timeout 120 rdma link delete rxe0");
	printf("#   rdma link delete rxe0: exit %d after %.0f ms, %d batches done before\n",
	       rc, now_ms() - t0, j.rounds);
	CHECK_EQ(rc, 0);
	j.stop = 1;
	pthread_join(th, NULL);
	printf("#   the batch in flight ended with %ld\n", j.ret);
	CHECK(j.ret == -ECONNRESET || j.ret == -ENETDOWN || j.ret == -ENODEV || j.ret == -EIO ||
	      j.ret == -ENOTCONN);

	/* the engines stay, without their device */
	{
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(16302);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)d;
		t.count = 1;
		t.timeout_ms = 1000;
		CHECK_EQ(xioctl(a, HIXL_IOC_TRANSFER, &t), -ENODEV);
	}
	CHECK_EQ(hx_connect(a, 16302, 5000), -ENODEV);
	st = get_stats(a);
	CHECK_EQ(st.regions, 1);		/* still registered (and pinned) */

	/* the device comes back: a new SETUP, and everything works again */
	if (restore_rxe0()) {
		ht_failures++;
		return;
	}
	CHECK_EQ(hixl_raw_setup(a, HX_IP, 16301, 0, 0), 0);
	CHECK_EQ(hixl_raw_setup(b, HX_IP, 16302, 0, 0), 0);
	CHECK_EQ(hx_connect(a, 16302, 5000), 0);
	memset(rb, 0, LEN);
	memset(la, 0x6b, LEN);
	{
		struct hixl_transfer t;

		memset(&t, 0, sizeof(t));
		t.remote = hx_name(16302);
		t.op = HIXL_OP_WRITE;
		t.descs = (uintptr_t)d;
		t.count = n;
		t.timeout_ms = 30000;
		CHECK_EQ(xioctl(a, HIXL_IOC_TRANSFER, &t), 0);
	}
	CHECK(memcmp(la, rb, LEN) == 0);
	close(a);
	close(b);
	CHECK_EQ(vm_pin_kb(), pin0);
	free(d);
}

const struct ht_test hotplug_tests[] = {
	{ "dev_removed_mid_batch", test_dev_removed_mid_batch },
	{ NULL, NULL },
};
