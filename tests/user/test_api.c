// SPDX-License-Identifier: GPL-2.0
/*
 * test_api.c - the members of upstream HIXL's API that the library gained
 * for its Python and C++ bindings: DisconnectAsync, the all-peers connect
 * status, the all-requests transfer status (max_query_count,
 * skip_waiting), the AutoConnect option (threads sharing its connect),
 * MemDesc.local_only, GetCapability and the last error message
 * (GetRecentErrMsg).  Engines on the test VM's rxe0 (10.77.0.1), ports
 * 18300..18399.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hixl/hixl.h>

#include "harness.h"
#include "tests.h"
#include "util.h"

#define IP HX_IP
#define POLL_MS 10
#define POLLS 1000	/* 10 s */

static struct hixl_engine *eng(const char *name)
{
	return hx_lib_engine(name, NULL, 0);
}

static int reg_flags(struct hixl_engine *e, void *p, size_t len, uint32_t flags, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = (uintptr_t)p, .len = len, .flags = flags };
	uint64_t tmp;

	return hixl_register_mem(e, &d, HIXL_MEM_HOST, h ? h : &tmp);
}

/*
 * A transfer by the accepting engine: its side of the link becomes READY
 * when the connector's table has arrived, a moment after hixl_connect()
 * returned on the other side; until then the module says -EAGAIN.
 */
static int accepted_xfer(struct hixl_engine *e, const char *peer, enum hixl_op op,
			 void *local, void *remote, size_t len)
{
	struct hixl_op_desc d = { (uintptr_t)local, (uintptr_t)remote, len };
	int ret;

	for (int i = 0; i < POLLS; i++) {
		ret = hixl_transfer_sync(e, peer, op, &d, 1, 5000, NULL);
		if (ret != -EAGAIN)
			break;
		usleep(POLL_MS * 1000);
	}
	return ret;
}

/* poll a peer's state until it is not one of the two transient ones given */
static enum hixl_connect_status wait_state(struct hixl_engine *e, const char *peer,
					   enum hixl_connect_status a, enum hixl_connect_status b)
{
	enum hixl_connect_status cs = a;

	for (int i = 0; i < POLLS; i++) {
		hixl_get_connect_status(e, peer, &cs);
		if (cs != a && cs != b)
			break;
		usleep(POLL_MS * 1000);
	}
	return cs;
}

static void test_api_disconnect_async(void)
{
	struct hixl_engine *srv = eng(IP ":18300"), *cli;
	enum hixl_connect_status cs;
	int ret;

	REQUIRE(srv);
	cli = eng(IP);
	REQUIRE(cli);
	CHECK_EQ(hixl_disconnect_async(cli, IP ":18300", 1000), -ENOTCONN);
	CHECK_EQ(hixl_disconnect_async(NULL, IP ":18300", 1000), -EINVAL);
	CHECK_EQ(hixl_disconnect_async(cli, "nope", 1000), -EINVAL);
	CHECK_EQ(hixl_disconnect_async(cli, IP ":18300", 0), -EINVAL);

	REQUIRE(hixl_connect(cli, IP ":18300", 5000) == 0);
	CHECK_EQ(hixl_disconnect_async(cli, IP ":18300", 1000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18300", &cs), 0);
	CHECK(cs == HIXL_DISCONNECTING || cs == HIXL_NOT_CONNECT);
	ret = hixl_disconnect_async(cli, IP ":18300", 1000);	/* a second one */
	CHECK(ret == -EALREADY || ret == -ENOTCONN);
	ret = hixl_connect(cli, IP ":18300", 5000);		/* a connect meanwhile */
	CHECK(ret == -EALREADY || ret == 0);
	if (ret == 0)	/* the teardown had ended: take the new link down again */
		CHECK_EQ(hixl_disconnect(cli, IP ":18300", 1000), 0);
	CHECK_EQ(wait_state(cli, IP ":18300", HIXL_DISCONNECTING, HIXL_DISCONNECTING),
		 HIXL_NOT_CONNECT);
	/* the link is gone in the module too: a transfer says so */
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18300", HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ 4096, 4096, 1 }, 1, 1000, NULL),
		 -ENOTCONN);
	/* and a new connect works */
	CHECK_EQ(hixl_connect(cli, IP ":18300", 5000), 0);

	/* behind a pending connect: DISCONNECT_PENDING, then NOT_CONNECT */
	CHECK_EQ(hixl_disconnect(cli, IP ":18300", 1000), 0);
	CHECK_EQ(hixl_connect_async(cli, IP ":18300", 5000), 0);
	CHECK_EQ(hixl_disconnect_async(cli, IP ":18300", 10000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18300", &cs), 0);
	CHECK(cs == HIXL_DISCONNECT_PENDING || cs == HIXL_DISCONNECTING ||
	      cs == HIXL_NOT_CONNECT);
	CHECK_EQ(hixl_disconnect(cli, IP ":18300", 1000), -EALREADY);
	CHECK_EQ(wait_state(cli, IP ":18300", HIXL_DISCONNECT_PENDING, HIXL_DISCONNECTING),
		 HIXL_NOT_CONNECT);

	/* finalize while a disconnect thread runs: it waits for it */
	CHECK_EQ(hixl_connect(cli, IP ":18300", 5000), 0);
	CHECK_EQ(hixl_disconnect_async(cli, IP ":18300", 1000), 0);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
}

static void test_api_all_connect_status(void)
{
	struct hixl_engine *a = eng(IP ":18310"), *b, *cli;
	struct hixl_connect_entry e[4];
	int n, seen = 0;

	REQUIRE(a);
	b = eng(IP ":18311");
	REQUIRE(b);
	cli = eng(IP);
	REQUIRE(cli);
	CHECK_EQ(hixl_get_all_connect_status(cli, NULL, 0), 0);
	CHECK_EQ(hixl_get_all_connect_status(NULL, e, 4), -EINVAL);
	CHECK_EQ(hixl_get_all_connect_status(cli, NULL, 1), -EINVAL);
	CHECK_EQ(hixl_connect(cli, IP ":18310", 5000), 0);
	CHECK_EQ(hixl_connect(cli, IP ":18311", 5000), 0);
	CHECK_EQ(hixl_connect_async(cli, IP ":18312", 1000), 0);	/* nobody listens */
	wait_state(cli, IP ":18312", HIXL_CONNECT_PENDING, HIXL_CONNECTING);
	CHECK_EQ(hixl_get_all_connect_status(cli, NULL, 0), 3);
	CHECK_EQ(hixl_get_all_connect_status(cli, e, 1), 3);	/* only one written */
	memset(e, 0xff, sizeof(e));
	n = hixl_get_all_connect_status(cli, e, 4);
	REQUIRE(n == 3);
	for (int i = 0; i < n; i++) {
		printf("#   %s: state %d err %d\n", e[i].remote_engine, e[i].status, e[i].err);
		if (!strcmp(e[i].remote_engine, IP ":18310") ||
		    !strcmp(e[i].remote_engine, IP ":18311")) {
			CHECK_EQ(e[i].status, HIXL_CONNECTED);
			CHECK_EQ(e[i].err, 0);
			seen++;
		} else {
			CHECK(!strcmp(e[i].remote_engine, IP ":18312"));
			CHECK_EQ(e[i].status, HIXL_CONNECT_FAILED);
			CHECK(e[i].err < 0);
			seen += 10;
		}
	}
	CHECK_EQ(seen, 12);
	/* torn down and cleared peers are not listed */
	CHECK_EQ(hixl_disconnect(cli, IP ":18311", 1000), 0);
	CHECK_EQ(hixl_disconnect(cli, IP ":18312", 1000), -ENOTCONN);
	n = hixl_get_all_connect_status(cli, e, 4);
	CHECK_EQ(n, 1);
	CHECK(!strcmp(e[0].remote_engine, IP ":18310"));
	hixl_engine_finalize(cli);
	hixl_engine_finalize(b);
	hixl_engine_finalize(a);
}

static void test_api_all_transfer_status(void)
{
	static const struct hixl_option no_pool[] = { { HIXL_OPTION_BUFFER_POOL, "0:0" } };
	struct hixl_engine *srv = eng(IP ":18320"), *cli;
	struct hixl_transfer_result res[8];
	struct hixl_request *r[3];
	size_t len = 1 << 20;
	unsigned char *l = hx_map(len), *rb = hx_map(len);
	struct hixl_op_desc d;
	int n, tags[3];

	REQUIRE(srv && l && rb);
	cli = hx_lib_engine(IP, no_pool, 1);
	REQUIRE(cli);
	REQUIRE(reg_flags(srv, rb, len, 0, NULL) == 0);
	REQUIRE(reg_flags(cli, l, len, 0, NULL) == 0);
	REQUIRE(hixl_connect(cli, IP ":18320", 5000) == 0);
	hx_fill(l, len, 7);
	CHECK_EQ(hixl_get_all_transfer_status(cli, 0, NULL, 0), 0);
	CHECK_EQ(hixl_get_all_transfer_status(NULL, 0, res, 8), -EINVAL);
	CHECK_EQ(hixl_get_all_transfer_status(cli, 0, NULL, 8), -EINVAL);
	CHECK_EQ(hixl_get_all_transfer_status(cli, 1U << 7, res, 8), -EINVAL);
	for (int i = 0; i < 3; i++) {
		tags[i] = i;
		d = (struct hixl_op_desc){ (uintptr_t)l + i * 4096, (uintptr_t)rb + i * 4096, 4096 };
		REQUIRE(hixl_transfer_async(cli, IP ":18320", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, &tags[i]),
					    &r[i]) == 0);
	}
	/* all three are listed (WAITING or ended), oldest first */
	n = hixl_get_all_transfer_status(cli, 0, NULL, 0);
	CHECK(n == 3);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(hixl_request_wait(cli, r[i], 10000, NULL), 0);
	/* max_query_count: two of three */
	n = hixl_get_all_transfer_status(cli, HIXL_QUERY_SKIP_WAITING, res, 2);
	REQUIRE(n == 2);
	for (int i = 0; i < 2; i++) {
		CHECK(res[i].req == r[i]);
		CHECK(res[i].user_data == &tags[i]);
		CHECK_EQ(res[i].status, HIXL_TRANSFER_COMPLETED);
		CHECK_EQ(res[i].err, 0);
	}
	/* an ended request is listed once */
	n = hixl_get_all_transfer_status(cli, 0, res, 8);
	REQUIRE(n == 1);
	CHECK(res[0].req == r[2]);
	CHECK_EQ(hixl_get_all_transfer_status(cli, 0, res, 8), 0);
	CHECK_EQ(memcmp(l, rb, 3 * 4096), 0);
	/* the requests stay the caller's: still valid, freed here */
	for (int i = 0; i < 3; i++) {
		enum hixl_transfer_status st;

		CHECK_EQ(hixl_get_transfer_status(cli, r[i], &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		hixl_request_free(r[i]);
	}
	/* a failing one is listed with its error; freed ones are not listed */
	d = (struct hixl_op_desc){ (uintptr_t)l, (uintptr_t)rb + len, 4096 };	/* past rb */
	REQUIRE(hixl_transfer_async(cli, IP ":18320", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, NULL), &r[0]) == 0);
	CHECK_EQ(hixl_request_wait(cli, r[0], 10000, NULL), 0);
	d = (struct hixl_op_desc){ (uintptr_t)l, (uintptr_t)rb, 4096 };
	REQUIRE(hixl_transfer_async(cli, IP ":18320", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, NULL), &r[1]) == 0);
	CHECK_EQ(hixl_request_wait(cli, r[1], 10000, NULL), 0);
	hixl_request_free(r[1]);
	n = hixl_get_all_transfer_status(cli, 0, res, 8);
	REQUIRE(n == 1);
	CHECK(res[0].req == r[0]);
	CHECK_EQ(res[0].status, HIXL_TRANSFER_FAILED);
	CHECK_EQ(res[0].err, -ERANGE);
	hixl_request_free(r[0]);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	munmap(l, len);
	munmap(rb, len);
}

static void test_api_auto_connect(void)
{
	static const struct hixl_option ac[] = { { HIXL_OPTION_AUTO_CONNECT, "1" } };
	static const struct hixl_option bad[] = { { HIXL_OPTION_AUTO_CONNECT, "yes" } };
	struct hixl_engine *srv = eng(IP ":18330"), *cli, *plain, *e = NULL;
	enum hixl_connect_status cs;
	struct hixl_request *req;
	struct hixl_notify *nt = calloc(4, sizeof(*nt));
	size_t len = 1 << 16, count = 0;
	unsigned char *l = hx_map(len), *rb = hx_map(len);
	struct hixl_op_desc d = { 0, 0, len };
	int polls = 0;

	REQUIRE(srv && l && rb && nt);
	d.local_addr = (uintptr_t)l;
	d.remote_addr = (uintptr_t)rb;
	CHECK_EQ(hixl_engine_init(&e, IP, bad, 1), -EINVAL);
	cli = hx_lib_engine(IP ":18331", ac, 1);
	REQUIRE(cli);
	plain = eng(IP);
	REQUIRE(plain);
	REQUIRE(reg_flags(srv, rb, len, 0, NULL) == 0);
	REQUIRE(reg_flags(cli, l, len, 0, NULL) == 0);
	REQUIRE(reg_flags(plain, l, len, 0, NULL) == 0);
	/* without the option: not connected */
	CHECK_EQ(hixl_transfer_sync(plain, IP ":18330", HIXL_OP_WRITE, &d, 1, 5000, NULL), -ENOTCONN);
	/* with it: the transfer makes the link */
	hx_fill(l, len, 3);
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18330", HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK_EQ(memcmp(l, rb, len), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18330", &cs), 0);
	CHECK_EQ(cs, HIXL_CONNECTED);
	/* a peer that cannot be reached: the connect's error, in the call's time */
	CHECK(hixl_transfer_sync(cli, IP ":18339", HIXL_OP_WRITE, &d, 1, 1000, NULL) < 0);

	/* the peer restarts under the same name: the next transfer reconnects */
	hixl_engine_finalize(srv);
	srv = eng(IP ":18330");
	REQUIRE(srv);
	REQUIRE(reg_flags(srv, rb, len, 0, NULL) == 0);
	memset(rb, 0, len);
	hx_fill(l, len, 4);
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18330", HIXL_OP_WRITE, &d, 1, 10000, NULL), 0);
	CHECK_EQ(memcmp(l, rb, len), 0);

	/* asynchronous, after a disconnect */
	CHECK_EQ(hixl_disconnect(cli, IP ":18330", 1000), 0);
	hx_fill(l, len, 5);
	CHECK_EQ(hixl_transfer_async(cli, IP ":18330", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, NULL), &req), 0);
	CHECK_EQ(hixl_request_wait(cli, req, 10000, NULL), 0);
	CHECK_EQ(hixl_request_result(req, NULL), 0);
	hixl_request_free(req);
	CHECK_EQ(memcmp(l, rb, len), 0);

	/*
	 * asynchronous, after another restart: the first request may find the
	 * link broken (it ends FAILED: it was queued on the old link); the
	 * next call reconnects
	 */
	hixl_engine_finalize(srv);
	srv = eng(IP ":18330");
	REQUIRE(srv);
	REQUIRE(reg_flags(srv, rb, len, 0, NULL) == 0);
	CHECK_EQ(hixl_transfer_async(cli, IP ":18330", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, NULL), &req), 0);
	CHECK_EQ(hixl_request_wait(cli, req, 10000, NULL), 0);
	printf("#   the first request after the restart: %s\n",
	       strerror(-hixl_request_result(req, NULL)));
	hixl_request_free(req);
	memset(rb, 0, len);
	hx_fill(l, len, 6);
	CHECK_EQ(hixl_transfer_async(cli, IP ":18330", HIXL_OP_WRITE, &d, 1, &HX_TARGS(10000, NULL), &req), 0);
	CHECK_EQ(hixl_request_wait(cli, req, 10000, NULL), 0);
	CHECK_EQ(hixl_request_result(req, NULL), 0);
	hixl_request_free(req);
	CHECK_EQ(memcmp(l, rb, len), 0);

	/* a notification, after a disconnect */
	CHECK_EQ(hixl_disconnect(cli, IP ":18330", 1000), 0);
	CHECK_EQ(hixl_send_notify(cli, IP ":18330", "auto", "1", 1, 5000), 0);
	do {
		usleep(POLL_MS * 1000);
		CHECK_EQ(hixl_get_notifies(srv, nt, 4, &count, NULL), 0);
	} while (!count && polls++ < POLLS);
	CHECK_EQ(count, 1);

	/* the environment variable, when no option says otherwise */
	hixl_engine_finalize(plain);
	setenv("HIXL_AUTO_CONNECT", "1", 1);
	plain = eng(IP);
	unsetenv("HIXL_AUTO_CONNECT");
	REQUIRE(plain);
	REQUIRE(reg_flags(plain, l, len, 0, NULL) == 0);
	CHECK_EQ(hixl_transfer_sync(plain, IP ":18330", HIXL_OP_READ, &d, 1, 10000, NULL), 0);
	hixl_engine_finalize(plain);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	free(nt);
}

/*
 * Threads that transfer to one new peer at once, with AutoConnect, share
 * one connect: every transfer succeeds.  A thread whose connect found
 * another's under way used to fail with -EALREADY (NIXL's generic backend
 * test, four threads posting to one new peer, hit it on Linux 6.1).
 * AC_THREADS threads released together, AC_ROUNDS times, the link taken
 * down between rounds; each thread its own 64 KiB, checked byte for byte.
 */
#define AC_THREADS	8
#define AC_ROUNDS	6

struct ac_thread {
	struct hixl_engine *e;
	pthread_barrier_t *go;
	struct hixl_op_desc d;
	int ret;
};

static void *ac_run(void *arg)
{
	struct ac_thread *t = arg;

	pthread_barrier_wait(t->go);
	t->ret = hixl_transfer_sync(t->e, IP ":18340", HIXL_OP_WRITE, &t->d, 1, 20000, NULL);
	return NULL;
}

static void test_api_auto_connect_threads(void)
{
	static const struct hixl_option ac[] = { { HIXL_OPTION_AUTO_CONNECT, "1" } };
	const size_t piece = 64 << 10, len = AC_THREADS * piece;
	struct hixl_engine *srv = eng(IP ":18340"), *cli = hx_lib_engine(IP ":18341", ac, 1);
	unsigned char *l = hx_map(len), *rb = hx_map(len);
	struct ac_thread t[AC_THREADS];
	pthread_t th[AC_THREADS];
	pthread_barrier_t go;
	int bad = 0;

	REQUIRE(srv && cli && l && rb);
	REQUIRE(reg_flags(srv, rb, len, 0, NULL) == 0);
	REQUIRE(reg_flags(cli, l, len, 0, NULL) == 0);
	for (int round = 0; round < AC_ROUNDS; round++) {
		hx_fill(l, len, 40 + round);
		memset(rb, 0, len);
		REQUIRE(pthread_barrier_init(&go, NULL, AC_THREADS) == 0);
		for (int i = 0; i < AC_THREADS; i++) {
			t[i] = (struct ac_thread){ cli, &go,
				{ (uintptr_t)(l + i * piece), (uintptr_t)(rb + i * piece), piece }, 1 };
			REQUIRE(pthread_create(&th[i], NULL, ac_run, &t[i]) == 0);
		}
		for (int i = 0; i < AC_THREADS; i++) {
			pthread_join(th[i], NULL);
			if (t[i].ret && bad++ < 5)
				printf("#   round %d, thread %d: %s\n", round, i, strerror(-t[i].ret));
		}
		pthread_barrier_destroy(&go);
		CHECK_EQ(memcmp(l, rb, len), 0);
		CHECK_EQ(hixl_disconnect(cli, IP ":18340", 5000), 0);
	}
	CHECK_EQ(bad, 0);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	munmap(l, len);
	munmap(rb, len);
}

static void test_api_local_only(void)
{
	static const struct hixl_option no_pool[] = { { HIXL_OPTION_BUFFER_POOL, "0:0" } };
	struct hixl_engine *srv = hx_lib_engine(IP ":18340", no_pool, 1), *cli;
	size_t len = 1 << 16;
	unsigned char *shared = hx_map(len), *mine = hx_map(len), *cl = hx_map(len);
	struct hixl_info info;
	uint64_t h;
	size_t failed = 99;

	REQUIRE(srv && shared && mine && cl);
	CHECK_EQ(hixl_engine_caps(srv, &info), 0);
	CHECK(info.features & HIXL_FEAT_LOCAL_ONLY);
	cli = hx_lib_engine(IP ":18341", no_pool, 1);
	REQUIRE(cli);
	REQUIRE(reg_flags(srv, shared, len, 0, NULL) == 0);
	REQUIRE(reg_flags(srv, mine, len, HIXL_REG_LOCAL_ONLY, &h) == 0);
	REQUIRE(reg_flags(cli, cl, len, 0, NULL) == 0);
	CHECK_EQ(reg_flags(srv, mine, len, 1U << 9, NULL), -EINVAL);	/* unknown flag */
	REQUIRE(hixl_connect(cli, IP ":18340", 5000) == 0);
	/* the peer does not know the local-only region */
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18340", HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ (uintptr_t)cl, (uintptr_t)mine, 4096 },
				    1, 5000, &failed), -ERANGE);
	CHECK_EQ(failed, 0);
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18340", HIXL_OP_READ,
				    &(struct hixl_op_desc){ (uintptr_t)cl, (uintptr_t)mine, 4096 },
				    1, 5000, NULL), -ERANGE);
	/* the shared one it does */
	hx_fill(cl, len, 9);
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18340", HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ (uintptr_t)cl, (uintptr_t)shared, len },
				    1, 5000, NULL), 0);
	CHECK_EQ(memcmp(cl, shared, len), 0);
	/* the owner uses it as the local side, over the link the peer made */
	hx_fill(mine, len, 10);
	CHECK_EQ(accepted_xfer(srv, IP ":18341", HIXL_OP_WRITE, mine, cl, len), 0);
	CHECK_EQ(memcmp(mine, cl, len), 0);
	memset(mine, 0, len);
	CHECK_EQ(hixl_transfer_sync(srv, IP ":18341", HIXL_OP_READ,
				    &(struct hixl_op_desc){ (uintptr_t)mine, (uintptr_t)cl, len },
				    1, 5000, NULL), 0);
	CHECK_EQ(memcmp(mine, cl, len), 0);
	/* and deregisters it like any other */
	CHECK_EQ(hixl_deregister_mem(srv, h), 0);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
}

/* CLIENT_SERVER_COMM: the accepting engine transfers and notifies too */
static void test_api_capability(void)
{
	struct hixl_engine *srv = eng(IP ":18350"), *cli;
	struct hixl_notify *nt = calloc(4, sizeof(*nt));
	size_t len = 1 << 16, count = 0;
	unsigned char *s = hx_map(len), *c = hx_map(len);
	int32_t v = 7;
	int polls = 0;

	CHECK_EQ(hixl_get_capability(HIXL_FEATURE_AUTO_CONNECT, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(hixl_get_capability(HIXL_FEATURE_CLIENT_SERVER_COMM, &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(hixl_get_capability(2, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(hixl_get_capability(-1, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(hixl_get_capability(0, NULL), -EINVAL);
	REQUIRE(srv && nt && s && c);
	cli = eng(IP ":18351");
	REQUIRE(cli);
	REQUIRE(reg_flags(srv, s, len, 0, NULL) == 0);
	REQUIRE(reg_flags(cli, c, len, 0, NULL) == 0);
	REQUIRE(hixl_connect(cli, IP ":18350", 5000) == 0);
	hx_fill(s, len, 11);
	CHECK_EQ(accepted_xfer(srv, IP ":18351", HIXL_OP_WRITE, s, c, len), 0);
	CHECK_EQ(memcmp(s, c, len), 0);
	CHECK_EQ(hixl_send_notify(srv, IP ":18351", "from-server", "ok", 2, 5000), 0);
	do {
		usleep(POLL_MS * 1000);
		CHECK_EQ(hixl_get_notifies(cli, nt, 4, &count, NULL), 0);
	} while (!count && polls++ < POLLS);
	CHECK_EQ(count, 1);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	free(nt);
}

/* the length of this thread's last error (its buffer goes with the thread) */
static void *other_thread(void *arg)
{
	*(size_t *)arg = strlen(hixl_last_error());
	return NULL;
}

static void test_api_last_error(void)
{
	struct hixl_engine *cli = eng(IP);
	size_t other = 99;
	const char *msg;
	pthread_t t;

	REQUIRE(cli);
	CHECK_EQ(hixl_connect(cli, IP ":18360", 1000) < 0, 1);	/* nobody listens */
	msg = hixl_last_error();
	printf("#   %s\n", msg);
	CHECK(strstr(msg, "hixl_connect(" IP ":18360): ") == msg);
	CHECK_EQ(hixl_connect(cli, IP ":18360", 0), -EINVAL);
	CHECK(strstr(hixl_last_error(), "(-EINVAL)") != NULL);
	CHECK_EQ(hixl_deregister_mem(cli, 12345), -ENOENT);
	CHECK(!strcmp(hixl_last_error(), "hixl_deregister_mem(handle 12345): "
		      "No such file or directory (-ENOENT)"));
	/* success leaves it; another thread has its own */
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18360", &(enum hixl_connect_status){ 0 }), 0);
	CHECK(strstr(hixl_last_error(), "hixl_deregister_mem(") != NULL);
	REQUIRE(pthread_create(&t, NULL, other_thread, &other) == 0);
	pthread_join(t, NULL);
	CHECK_EQ(other, 0);
	hixl_engine_finalize(cli);
}

/* "ip:0": the kernel picks the port, hixl_engine_name() tells; loopback refused clearly */
static void test_api_any_port(void)
{
	struct hixl_engine *srv = eng(IP ":0"), *cli, *lo = NULL;
	char name[HIXL_ENGINE_NAME_MAX], small[4];
	struct hixl_sockaddr a;
	struct hixl_setup su;
	size_t len = 1 << 16;
	unsigned char *s = hx_map(len), *c = hx_map(len);
	int fd, ret;

	REQUIRE(srv && s && c);
	CHECK_EQ(hixl_engine_name(srv, name, sizeof(name)), 0);
	printf("#   %s: %s\n", IP ":0", name);
	REQUIRE(hixl_parse_engine_name(name, &a) == 0);
	CHECK(a.port != 0);
	CHECK_EQ(hixl_engine_name(srv, small, sizeof(small)), -ENOSPC);
	CHECK_EQ(hixl_engine_name(NULL, name, sizeof(name)), -EINVAL);
	cli = eng(IP);
	REQUIRE(cli);
	CHECK_EQ(hixl_engine_name(cli, name + 32, 32), 0);
	CHECK(!strcmp(name + 32, IP));		/* client only: no port */
	REQUIRE(reg_flags(srv, s, len, 0, NULL) == 0);
	REQUIRE(reg_flags(cli, c, len, 0, NULL) == 0);
	CHECK_EQ(hixl_connect(cli, name, 5000), 0);
	hx_fill(c, len, 12);
	CHECK_EQ(hixl_transfer_sync(cli, name, HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ (uintptr_t)c, (uintptr_t)s, len }, 1,
				    5000, NULL), 0);
	CHECK_EQ(memcmp(c, s, len), 0);
	/* two engines on port 0 of one address get two ports */
	{
		struct hixl_engine *two = eng(IP ":0");
		char n2[HIXL_ENGINE_NAME_MAX];

		REQUIRE(two);
		CHECK_EQ(hixl_engine_name(two, n2, sizeof(n2)), 0);
		CHECK(strcmp(n2, name) != 0);
		hixl_engine_finalize(two);
	}
	/* the raw flag: only with port 0 */
	fd = hixl_dev_open(NULL);
	REQUIRE(fd >= 0);
	memset(&su, 0, sizeof(su));
	su.local = a;
	su.flags = HIXL_SETUP_LISTEN_ANY;
	su.traffic_class = HIXL_DEFAULT_TRAFFIC_CLASS;
	su.service_level = HIXL_DEFAULT_SERVICE_LEVEL;
	CHECK_EQ(ioctl(fd, HIXL_IOC_SETUP, &su) < 0 ? -errno : 0, -EINVAL);
	close(fd);
	/* a loopback engine has no RDMA device: Transport rdma is refused, said clearly */
	ret = hixl_engine_init(&lo, "127.0.0.1:0", &(struct hixl_option){ HIXL_OPTION_TRANSPORT, "rdma" }, 1);
	CHECK(ret == -ENODEV || ret == -EADDRNOTAVAIL);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "loopback") != NULL);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
}

const struct ht_test api_tests[] = {
	{ "api_any_port", test_api_any_port },
	{ "api_disconnect_async", test_api_disconnect_async },
	{ "api_all_connect_status", test_api_all_connect_status },
	{ "api_all_transfer_status", test_api_all_transfer_status },
	{ "api_auto_connect", test_api_auto_connect },
	{ "api_auto_connect_threads", test_api_auto_connect_threads },
	{ "api_local_only", test_api_local_only },
	{ "api_capability", test_api_capability },
	{ "api_last_error", test_api_last_error },
	{ NULL, NULL },
};
