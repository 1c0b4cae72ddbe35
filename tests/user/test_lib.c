// SPDX-License-Identifier: GPL-2.0
/* test_lib.c - user tests of the HIXL-style engine API of libhixl-user
 * (lib/engine.c, peer.c, request.c and their neighbours).  Engines live on
 * 10.77.0.1 (rxe0 in the test VM), ports 18000-18999. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define MiB (1024ULL * 1024)
#define IP HX_IP

static void *lbuf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, len);
	return p;
}

static struct hixl_engine *eng_new(const char *name)
{
	return hx_lib_engine(name, NULL, 0);
}

/* without a staging pool, unregistered local memory is refused (ENOENT) */
static const struct hixl_option no_pool[] = { { "BufferPool", "0:0" } };

static int reg(struct hixl_engine *e, void *p, size_t len, uint64_t *h)
{
	struct hixl_mem_desc d = { .addr = (uintptr_t)p, .len = len };
	uint64_t tmp;

	return hixl_register_mem(e, &d, HIXL_MEM_HOST, h ? h : &tmp);
}

void test_lib_names(void);
void test_lib_status(void);
void test_lib_options(void);
void test_lib_engine(void);
void test_lib_register(void);
void test_lib_connect(void);
void test_lib_xfer_sync(void);
void test_lib_xfer_async(void);
void test_lib_connect_async(void);
void test_lib_notify(void);
void test_lib_finalize(void);
void test_lib_example(void);
void test_lib_allocator(void);
void test_lib_readme_example(void);

void test_lib_names(void)
{
	static const char *const bad[] = {
		"", ":", "10.77.0.1:", "10.77.0.1:65536", "10.77.0.1:-1", "10.77.0.1:+1",
		"10.77.0.1: 1", "10.77.0.1:1x", "10.77.0.1:99999999999", "10.77.0.256",
		"10.77.0", "10.77.0.1.2", " 10.77.0.1", "10.77.0.1 ", "-host:1", "ho_st:1", "host:x", "0x0a.1:1", "0xa", "::1",
		"fe80::1:80", "[::1", "::1]", "[::1]x", "[::1]:", "[::1]:65536", "[]",
		"[10.77.0.1]", "[::1%]", "[::1%nosuchif0]", "[::g]",
		"1111111111111111111111111111111111111111111111111111111111111111111",
	};
	struct hixl_sockaddr a;
	char buf[HIXL_ENGINE_NAME_MAX];
	int saved;

	memset(&a, 0x55, sizeof(a));
	CHECK_EQ(hixl_parse_engine_name("10.77.0.1", &a), 0);
	CHECK_EQ(a.family, AF_INET);
	CHECK_EQ(a.port, 0);
	CHECK_EQ(a.scope_id, 0);
	CHECK_EQ(a.reserved, 0);
	CHECK(!memcmp(a.addr, "\x0a\x4d\x00\x01", 4));
	for (int i = 4; i < 16; i++)
		CHECK_EQ(a.addr[i], 0);
	CHECK_EQ(hixl_parse_engine_name("10.77.0.1:18000", &a), 0);
	CHECK_EQ(a.port, 18000);
	CHECK_EQ(hixl_parse_engine_name("0.0.0.0:65535", &a), 0);
	CHECK_EQ(a.port, 65535);
	CHECK_EQ(hixl_parse_engine_name("10.77.0.1:0", &a), 0);
	CHECK_EQ(a.port, 0);
	CHECK_EQ(hixl_parse_engine_name("[::1]", &a), 0);
	CHECK_EQ(a.family, AF_INET6);
	CHECK_EQ(a.port, 0);
	CHECK_EQ(a.addr[15], 1);
	CHECK_EQ(hixl_parse_engine_name("[fe80::1:2]:18001", &a), 0);
	CHECK_EQ(a.family, AF_INET6);
	CHECK_EQ(a.port, 18001);
	CHECK_EQ(a.addr[0], 0xfe);
	CHECK_EQ(a.addr[1], 0x80);
	CHECK_EQ(a.addr[13], 1);
	CHECK_EQ(a.addr[15], 2);
	CHECK_EQ(hixl_parse_engine_name("[fe80::1%7]:1", &a), 0);
	CHECK_EQ(a.scope_id, 7);
	CHECK_EQ(hixl_parse_engine_name("[fe80::1%lo]", &a), 0);
	CHECK(a.scope_id > 0);
	CHECK_EQ(hixl_parse_engine_name("[::ffff:10.77.0.1]:5", &a), 0);
	/* host names resolve (getaddrinfo: /etc/hosts has localhost), IPv4 first */
	CHECK_EQ(hixl_parse_engine_name("localhost:18002", &a), 0);
	CHECK_EQ(a.family, AF_INET);
	CHECK_EQ(a.port, 18002);
	CHECK(!memcmp(a.addr, "\x7f\x00\x00\x01", 4));
	CHECK_EQ(hixl_parse_engine_name("localhost", &a), 0);	/* the cached answer */
	CHECK_EQ(a.port, 0);
	CHECK(!memcmp(a.addr, "\x7f\x00\x00\x01", 4));
	CHECK_EQ(hixl_parse_engine_name("nosuchhost.invalid:1", &a), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hixl_sockaddr b;

		memset(&b, 0x55, sizeof(b));
		if (hixl_parse_engine_name(bad[i], &b) != -EINVAL) {
			printf("#   '%s' was accepted\n", bad[i]);
			ht_failures++;
		}
		CHECK_EQ(b.family, 0x5555);	/* untouched */
	}
	CHECK_EQ(hixl_parse_engine_name(NULL, &a), -EINVAL);
	CHECK_EQ(hixl_parse_engine_name("10.77.0.1", NULL), -EINVAL);
	/* errno is never changed */
	errno = 12345;
	hixl_parse_engine_name("[::1%nosuchif0]", &a);
	hixl_parse_engine_name("garbage", &a);
	CHECK_EQ(errno, 12345);

	/* format: round trips */
	{
		static const char *const good[] = {
			"10.77.0.1", "10.77.0.1:18000", "[::1]", "[fe80::1:2]:18001",
			"[fe80::1%7]:1", "255.255.255.255:65535",
		};

		for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
			CHECK_EQ(hixl_parse_engine_name(good[i], &a), 0);
			CHECK_EQ(hixl_format_engine_name(&a, buf, sizeof(buf)), 0);
			if (strcmp(buf, good[i])) {
				printf("#   '%s' formatted as '%s'\n", good[i], buf);
				ht_failures++;
			}
		}
	}
	CHECK_EQ(hixl_parse_engine_name("10.77.0.1:18000", &a), 0);
	CHECK_EQ(hixl_format_engine_name(&a, buf, 15), -ENOSPC);	/* needs 16 */
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(hixl_format_engine_name(&a, buf, 16), 0);
	CHECK_EQ(hixl_format_engine_name(&a, NULL, 16), -EINVAL);
	CHECK_EQ(hixl_format_engine_name(NULL, buf, 16), -EINVAL);
	a.family = 99;
	CHECK_EQ(hixl_format_engine_name(&a, buf, sizeof(buf)), -EAFNOSUPPORT);
	saved = errno;
	CHECK_EQ(errno, saved);
}

void test_lib_status(void)
{
	static const struct { int err; enum hixl_status st; } map[] = {
		{ 0, HIXL_SUCCESS }, { EINVAL, HIXL_PARAM_INVALID },
		{ EOVERFLOW, HIXL_PARAM_INVALID }, { EFAULT, HIXL_PARAM_INVALID },
		{ EBADF, HIXL_PARAM_INVALID }, { ERANGE, HIXL_PARAM_INVALID },
		{ ENOENT, HIXL_PARAM_INVALID }, { EACCES, HIXL_PARAM_INVALID },
		{ EAFNOSUPPORT, HIXL_PARAM_INVALID }, { EEXIST, HIXL_PARAM_INVALID },
		{ ETIMEDOUT, HIXL_TIMEOUT }, { ENOTCONN, HIXL_NOT_CONNECTED },
		{ EISCONN, HIXL_ALREADY_CONNECTED }, { EALREADY, HIXL_ALREADY_CONNECTED },
		{ ECOMM, HIXL_NOTIFY_FAILED }, { EOPNOTSUPP, HIXL_UNSUPPORTED },
		{ ENOTTY, HIXL_UNSUPPORTED }, { EPROTO, HIXL_UNSUPPORTED },
		{ ENOSPC, HIXL_RESOURCE_EXHAUSTED }, { E2BIG, HIXL_RESOURCE_EXHAUSTED },
		{ ENOMEM, HIXL_RESOURCE_EXHAUSTED }, { EMFILE, HIXL_RESOURCE_EXHAUSTED },
		{ ENFILE, HIXL_RESOURCE_EXHAUSTED },
		{ ENOPKG, HIXL_NO_MODULE }, { EPERM, HIXL_NO_PERMISSION },
		{ EIO, HIXL_FAILED }, { ECONNRESET, HIXL_FAILED }, { EAGAIN, HIXL_FAILED },
		{ ECANCELED, HIXL_FAILED }, { ENODEV, HIXL_FAILED }, { ENXIO, HIXL_FAILED },
		{ 4095, HIXL_FAILED },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		CHECK_EQ(hixl_status_from_errno(map[i].err), map[i].st);
		CHECK_EQ(hixl_status_from_errno(-map[i].err), map[i].st);
	}
	CHECK(!strcmp(hixl_status_str(HIXL_SUCCESS), "SUCCESS"));
	CHECK(!strcmp(hixl_status_str(HIXL_PARAM_INVALID), "PARAM_INVALID"));
	CHECK(!strcmp(hixl_status_str(HIXL_TIMEOUT), "TIMEOUT"));
	CHECK(!strcmp(hixl_status_str(HIXL_NOT_CONNECTED), "NOT_CONNECTED"));
	CHECK(!strcmp(hixl_status_str(HIXL_ALREADY_CONNECTED), "ALREADY_CONNECTED"));
	CHECK(!strcmp(hixl_status_str(HIXL_NOTIFY_FAILED), "NOTIFY_FAILED"));
	CHECK(!strcmp(hixl_status_str(HIXL_UNSUPPORTED), "UNSUPPORTED"));
	CHECK(!strcmp(hixl_status_str(HIXL_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED"));
	CHECK(!strcmp(hixl_status_str(HIXL_FAILED), "FAILED"));
	CHECK(!strcmp(hixl_status_str((enum hixl_status)99), "UNKNOWN"));
	CHECK(!strcmp(hixl_status_str((enum hixl_status)-1), "UNKNOWN"));
}

/* init's answer once option parsing passed: 0, or the device's error */
static int opt_ok(int ret)
{
	return ret == 0 || ret == -ENOPKG || ret == -EADDRNOTAVAIL || ret == -ENODEV;
}

static int init_opts(const struct hixl_option *o, size_t n)
{
	struct hixl_engine *e = NULL;
	int ret = hixl_engine_init(&e, IP, o, n);

	if (!ret)
		hixl_engine_finalize(e);
	return ret;
}

void test_lib_options(void)
{
	static const struct hixl_option good[][1] = {
		{ { "BufferPool", "4:8" } }, { { "BufferPool", "0:0" } },
		{ { "BufferPool", "256:1024" } }, { { "BufferPool", "1:1" } },
		{ { "RdmaTrafficClass", "0" } }, { { "RdmaTrafficClass", "252" } },
		{ { "RdmaTrafficClass", "132" } }, { { "RdmaServiceLevel", "0" } },
		{ { "RdmaServiceLevel", "7" } },
	};
	static const struct hixl_option bad[][1] = {
		{ { "BufferPool", "4" } }, { { "BufferPool", "0:8" } }, { { "BufferPool", "4:0" } },
		{ { "BufferPool", "257:8" } }, { { "BufferPool", "4:1025" } },
		{ { "BufferPool", "4:8:1" } }, { { "BufferPool", "" } }, { { "BufferPool", "a:b" } },
		{ { "BufferPool", "-1:8" } }, { { "RdmaTrafficClass", "130" } },
		{ { "RdmaTrafficClass", "256" } }, { { "RdmaTrafficClass", "" } },
		{ { "RdmaTrafficClass", "0x84" } }, { { "RdmaServiceLevel", "8" } },
		{ { "RdmaServiceLevel", "-1" } }, { { "RdmaServiceLevel", " 4" } },
		{ { "bufferpool", "4:8" } }, { { "NoSuchOption", "1" } }, { { NULL, "1" } },
		{ { "BufferPool", NULL } },
	};
	struct hixl_engine *e = (struct hixl_engine *)1;
	struct hixl_option two[2] = { { "RdmaTrafficClass", "4" }, { "RdmaServiceLevel", "9" } };

	unsetenv("HIXL_RDMA_TC");
	unsetenv("HIXL_RDMA_SL");
	unsetenv("HCCL_RDMA_TC");
	unsetenv("HCCL_RDMA_SL");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int ret = init_opts(good[i], 1);

		if (!opt_ok(ret)) {
			printf("#   %s=%s: %d\n", good[i][0].key, good[i][0].value, ret);
			ht_failures++;
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (init_opts(bad[i], 1) != -EINVAL) {
			printf("#   %s=%s was accepted\n", bad[i][0].key ? bad[i][0].key : "(null)",
			       bad[i][0].value ? bad[i][0].value : "(null)");
			ht_failures++;
		}
	}
	CHECK_EQ(init_opts(two, 2), -EINVAL);
	CHECK_EQ(init_opts(NULL, 1), -EINVAL);
	CHECK(opt_ok(init_opts(NULL, 0)));
	CHECK_EQ(hixl_engine_init(&e, "not-an-address", NULL, 0), -EINVAL);
	CHECK(e == (struct hixl_engine *)1);	/* untouched on failure */
	CHECK_EQ(hixl_engine_init(NULL, IP, NULL, 0), -EINVAL);
	CHECK_EQ(hixl_engine_init(&e, NULL, NULL, 0), -EINVAL);

	/* environment: an invalid variable is seen ... */
	setenv("HIXL_RDMA_TC", "7", 1);
	CHECK_EQ(init_opts(NULL, 0), -EINVAL);
	/* ... unless the option overrides it */
	CHECK(opt_ok(init_opts((struct hixl_option[]){ { "RdmaTrafficClass", "132" } }, 1)));
	/* ours before HCCL's */
	setenv("HIXL_RDMA_TC", "128", 1);
	setenv("HCCL_RDMA_TC", "bad", 1);
	CHECK(opt_ok(init_opts(NULL, 0)));
	unsetenv("HIXL_RDMA_TC");
	CHECK_EQ(init_opts(NULL, 0), -EINVAL);	/* HCCL_RDMA_TC=bad now */
	setenv("HCCL_RDMA_TC", "136", 1);
	CHECK(opt_ok(init_opts(NULL, 0)));
	setenv("HIXL_RDMA_TC", "", 1);		/* set but empty: used, invalid */
	CHECK_EQ(init_opts(NULL, 0), -EINVAL);
	unsetenv("HIXL_RDMA_TC");
	unsetenv("HCCL_RDMA_TC");
	/* service level likewise */
	setenv("HCCL_RDMA_SL", "8", 1);
	CHECK_EQ(init_opts(NULL, 0), -EINVAL);
	CHECK(opt_ok(init_opts((struct hixl_option[]){ { "RdmaServiceLevel", "3" } }, 1)));
	setenv("HIXL_RDMA_SL", "5", 1);
	CHECK(opt_ok(init_opts(NULL, 0)));
	setenv("HIXL_RDMA_SL", "x", 1);
	CHECK_EQ(init_opts(NULL, 0), -EINVAL);
	unsetenv("HIXL_RDMA_SL");
	unsetenv("HCCL_RDMA_SL");
	CHECK(opt_ok(init_opts(NULL, 0)));
}

void test_lib_engine(void)
{
	struct hixl_engine *a = eng_new(IP ":18010"), *b = NULL;
	struct hixl_info info;
	struct hixl_stats st;

	REQUIRE(a);
	CHECK_EQ(hixl_engine_caps(a, &info), 0);
	CHECK_EQ(info.abi_version, HIXL_ABI_VERSION);
	CHECK(info.features & HIXL_FEAT_TRANSFER);
	CHECK_EQ(hixl_engine_caps(NULL, &info), -EINVAL);
	CHECK_EQ(hixl_engine_caps(a, NULL), -EINVAL);
	CHECK(hixl_engine_fd(a) >= 0);
	CHECK_EQ(hixl_engine_fd(NULL), -EINVAL);
	CHECK(!strcmp(hixl_engine_device(a), "rxe0"));
	CHECK(!strcmp(hixl_engine_device(NULL), ""));
	memset(&st, 0, sizeof(st));
	CHECK_EQ(xioctl(hixl_engine_fd(a), HIXL_IOC_GET_STATS, &st), 0);
	/* the address is taken by a listener */
	CHECK_EQ(hixl_engine_init(&b, IP ":18010", NULL, 0), -EADDRINUSE);
	/* not a local address */
	CHECK_EQ(hixl_engine_init(&b, "192.0.2.1", NULL, 0), -EADDRNOTAVAIL);
	/* clients share the address */
	b = eng_new(IP);
	CHECK(b != NULL);
	hixl_engine_finalize(b);
	hixl_engine_finalize(a);
	hixl_engine_finalize(NULL);
	/* the port is free again */
	a = eng_new(IP ":18010");
	CHECK(a != NULL);
	hixl_engine_finalize(a);
}

void test_lib_register(void)
{
	struct hixl_engine *e = eng_new(IP);
	size_t len = 4 * MiB;
	unsigned char *p = lbuf(len);
	uint64_t h1 = 0, h2 = 0, h = 77;
	struct hixl_mem_desc d = { .addr = (uintptr_t)p, .len = len };
	struct hixl_stats st;
	int fd;

	REQUIRE(e && p);
	fd = hixl_engine_fd(e);
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, &h1), 0);
	CHECK(h1 != 0);
	st = get_stats(fd);
	CHECK_EQ(st.regions, 1);
	CHECK_EQ(st.host_bytes, len);
	/* overlapping */
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, &h), -EEXIST);
	CHECK_EQ(h, 77);
	/* argument errors */
	CHECK_EQ(hixl_register_mem(NULL, &d, HIXL_MEM_HOST, &h), -EINVAL);
	CHECK_EQ(hixl_register_mem(e, NULL, HIXL_MEM_HOST, &h), -EINVAL);
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, NULL), -EINVAL);
	CHECK_EQ(hixl_register_mem(e, &d, (enum hixl_mem_type)5, &h), -EINVAL);
	d.len = 0;
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, &h), -EINVAL);
	d.addr = UINT64_MAX - 4095;
	d.len = 8192;
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, &h), -EOVERFLOW);
	d.flags = 0x80;
	d.addr = (uintptr_t)p;
	d.len = len;
	CHECK_EQ(hixl_register_mem(e, &d, HIXL_MEM_HOST, &h), -EINVAL);
	d.flags = 0;
	CHECK_EQ(h, 77);
	/* a read-only mapping needs HIXL_REG_READ_ONLY */
	{
		void *ro = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct hixl_mem_desc r = { .addr = (uintptr_t)ro, .len = 65536 };

		REQUIRE(ro != MAP_FAILED);
		CHECK_EQ(hixl_register_mem(e, &r, HIXL_MEM_HOST, &h), -EACCES);
		r.flags = HIXL_REG_READ_ONLY;
		CHECK_EQ(hixl_register_mem(e, &r, HIXL_MEM_HOST, &h2), 0);
		CHECK_EQ(hixl_deregister_mem(e, h2), 0);
	}
	/* device memory: a udmabuf stands in for a GPU exporter */
	{
		int memfd, dfd = make_udmabuf(2 * MiB, &memfd);

		if (dfd >= 0) {
			struct hixl_mem_desc dv = { .addr = 0x7000000000ULL, .len = 2 * MiB,
						    .dmabuf_fd = dfd };

			CHECK_EQ(hixl_register_mem(e, &dv, HIXL_MEM_DEVICE, &h2), 0);
			CHECK_EQ(get_stats(fd).device_bytes, 2 * MiB);
			CHECK_EQ(hixl_deregister_mem(e, h2), 0);
			dv.dmabuf_fd = memfd;	/* not a dma-buf */
			CHECK_EQ(hixl_register_mem(e, &dv, HIXL_MEM_DEVICE, &h2), -EBADF);
			dv.dmabuf_fd = dfd;
			dv.dmabuf_offset = 100;	/* not page aligned */
			CHECK_EQ(hixl_register_mem(e, &dv, HIXL_MEM_DEVICE, &h2), -EINVAL);
			close(dfd);
			close(memfd);
		} else {
			printf("#   no udmabuf (%d): device registration not tested\n", dfd);
		}
	}
	CHECK_EQ(hixl_deregister_mem(e, h1), 0);
	CHECK_EQ(hixl_deregister_mem(e, h1), -ENOENT);
	CHECK_EQ(hixl_deregister_mem(e, 0), -ENOENT);
	CHECK_EQ(hixl_deregister_mem(NULL, h1), -EINVAL);
	CHECK_EQ(hixl_status_from_errno(hixl_deregister_mem(e, 12345)), HIXL_PARAM_INVALID);
	st = get_stats(fd);
	CHECK_EQ(st.regions, 0);
	CHECK_EQ(st.pinned_pages, 0);
	hixl_engine_finalize(e);
}

void test_lib_connect(void)
{
	struct hixl_engine *srv = eng_new(IP ":18020"), *cli;
	enum hixl_connect_status cs;
	int ret;

	REQUIRE(srv);
	cli = eng_new(IP);
	REQUIRE(cli);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18020", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);
	ret = hixl_disconnect(cli, IP ":18020", 1000);
	CHECK_EQ(ret, -ENOTCONN);
	CHECK_EQ(hixl_status_from_errno(ret), HIXL_NOT_CONNECTED);
	CHECK_EQ(hixl_transfer_sync(cli, IP ":18020", HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ 4096, 4096, 1 }, 1, 100, NULL), -ENOTCONN);
	/* argument errors */
	CHECK_EQ(hixl_connect(cli, IP, 1000), -EINVAL);		/* port 0 */
	CHECK_EQ(hixl_connect(cli, IP ":18020", 0), -EINVAL);
	CHECK_EQ(hixl_connect(cli, IP ":18020", -1), -EINVAL);
	CHECK_EQ(hixl_connect(cli, "nope", 1000), -EINVAL);
	CHECK_EQ(hixl_connect(NULL, IP ":18020", 1000), -EINVAL);
	CHECK_EQ(hixl_disconnect(cli, IP ":18020", 0), -EINVAL);
	CHECK_EQ(hixl_get_connect_status(cli, "nope", &cs), -EINVAL);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18020", NULL), -EINVAL);

	CHECK_EQ(hixl_connect(cli, IP ":18020", 5000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18020", &cs), 0);
	CHECK_EQ(cs, HIXL_CONNECTED);
	ret = hixl_connect(cli, IP ":18020", 5000);
	CHECK_EQ(ret, -EISCONN);
	CHECK_EQ(hixl_status_from_errno(ret), HIXL_ALREADY_CONNECTED);
	CHECK_EQ(hixl_connect_async(cli, IP ":18020", 5000), -EISCONN);
	CHECK_EQ(hixl_disconnect(cli, IP ":18020", 1000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18020", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);
	CHECK_EQ(hixl_disconnect(cli, IP ":18020", 1000), -ENOTCONN);
	/* and again */
	CHECK_EQ(hixl_connect(cli, IP ":18020", 5000), 0);
	/* nobody listens there */
	ret = hixl_connect(cli, IP ":18021", 1000);
	CHECK(ret < 0);
	printf("#   connect to a closed port: %s\n", strerror(-ret));
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18021", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
}

void test_lib_xfer_sync(void)
{
	size_t len = 4 * MiB;
	struct hixl_engine *a = hx_lib_engine(IP ":18030", no_pool, 1), *b;
	unsigned char *la = lbuf(len), *lb = lbuf(len), *rb = lbuf(len), *un = lbuf(65536);
	struct hixl_op_desc d[64];
	size_t failed = 999;
	int ret;

	REQUIRE(a);
	b = eng_new(IP ":18031");
	REQUIRE(b && la && lb && rb && un);
	REQUIRE(reg(a, la, len, NULL) == 0);
	REQUIRE(reg(a, lb, len, NULL) == 0);
	REQUIRE(reg(b, rb, len, NULL) == 0);
	REQUIRE(hixl_connect(a, IP ":18031", 5000) == 0);
	hx_fill(la, len, 1);
	/* 64 scattered 64 KiB pieces: local piece i -> remote piece 63 - i */
	for (int i = 0; i < 64; i++) {
		d[i].local_addr = (uintptr_t)(la + i * 65536);
		d[i].remote_addr = (uintptr_t)(rb + (63 - i) * 65536);
		d[i].len = 65536;
	}
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, d, 64, 5000, &failed), 0);
	CHECK_EQ(failed, 64);
	for (int i = 0; i < 64; i++)
		if (memcmp(la + i * 65536, rb + (63 - i) * 65536, 65536)) {
			printf("#   piece %d differs\n", i);
			ht_failures++;
			break;
		}
	/* read back into lb */
	for (int i = 0; i < 64; i++)
		d[i].local_addr = (uintptr_t)(lb + i * 65536);
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_READ, d, 64, 5000, NULL), 0);
	CHECK(!memcmp(la, lb, len));
	/* descriptor errors: index 2 local unregistered; index 1 remote outside */
	d[2].local_addr = (uintptr_t)un;
	ret = hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, d, 4, 5000, &failed);
	CHECK_EQ(ret, -ENOENT);
	CHECK_EQ(failed, 2);
	CHECK_EQ(hixl_status_from_errno(ret), HIXL_PARAM_INVALID);
	d[1].remote_addr = (uintptr_t)un;
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, d, 4, 5000, &failed), -ERANGE);
	CHECK_EQ(failed, 1);
	/* argument errors */
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, d, 0, 5000, &failed), -EINVAL);
	CHECK_EQ(failed, 0);
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", (enum hixl_op)7, d, 1, 5000, NULL), -EINVAL);
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, NULL, 1, 5000, NULL), -EINVAL);
	CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, d, 1, 0, NULL), -EINVAL);
	CHECK_EQ(hixl_transfer_sync(a, "x", HIXL_OP_WRITE, d, 1, 100, NULL), -EINVAL);
	CHECK_EQ(hixl_transfer_sync(NULL, IP ":18031", HIXL_OP_WRITE, d, 1, 100, NULL), -EINVAL);
	/*
	 * More than HIXL_MAX_DESCS: split in two ioctls.  65,636 descriptors
	 * take ~40 s under KASAN and TCG; the library's split is the same
	 * code on every kernel, so the stock kernels check it (and the debug
	 * kernel in make check-long).
	 */
	if (hx_debug_kernel() && !hx_long())
		printf("#   debug kernel: no two-chunk case (the stock kernels and make check-long "
		       "run it)\n");
	else {
		size_t n = HIXL_MAX_DESCS + 100;
		struct hixl_op_desc *m = calloc(n, sizeof(*m));

		REQUIRE(m);
		memset(rb, 0, len);
		for (size_t i = 0; i < n; i++) {	/* 64 B each, cycling over 4 MiB */
			m[i].local_addr = (uintptr_t)(la + (i * 64) % len);
			m[i].remote_addr = (uintptr_t)(rb + (i * 64) % len);
			m[i].len = 64;
		}
		/* a bound, not a speed: under TCG + KASAN on a busy host 60 s moved 39,680 of them */
		CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, m, n, 300000, &failed), 0);
		CHECK_EQ(failed, n);
		CHECK(!memcmp(la, rb, len));
		/* a bad descriptor in the second ioctl: its index counts the first one's */
		m[HIXL_MAX_DESCS + 7].local_addr = (uintptr_t)un;
		CHECK_EQ(hixl_transfer_sync(a, IP ":18031", HIXL_OP_WRITE, m, n, 300000, &failed),
			 -ENOENT);
		CHECK_EQ(failed, HIXL_MAX_DESCS + 7);
		free(m);
	}
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

void test_lib_xfer_async(void)
{
	/* rxe moves about 3 MB/s under KASAN: 16 MiB there took 34 s */
	size_t len = hx_debug_kernel() ? 4 * MiB : 16 * MiB, piece = len / 8;
	struct hixl_engine *a = hx_lib_engine(IP ":18040", no_pool, 1), *b, *c;
	unsigned char *la = lbuf(len), *rb = lbuf(len), *rc = lbuf(len), *un = lbuf(65536);
	struct hixl_request *reqs[8], *r;
	enum hixl_transfer_status st[8], s;
	int tags[8];
	size_t failed;

	REQUIRE(a);
	b = eng_new(IP ":18041");
	c = eng_new(IP ":18042");
	REQUIRE(b && c && la && rb && rc && un);
	REQUIRE(reg(a, la, len, NULL) == 0);
	REQUIRE(reg(b, rb, len, NULL) == 0);
	REQUIRE(reg(c, rc, len, NULL) == 0);
	REQUIRE(hixl_connect(a, IP ":18041", 5000) == 0);
	REQUIRE(hixl_connect(a, IP ":18042", 5000) == 0);
	hx_fill(la, len, 7);
	/* eight in flight, len / 8 each; each descriptor array freed at once */
	for (int i = 0; i < 8; i++) {
		struct hixl_op_desc *d = malloc(2 * sizeof(*d));

		REQUIRE(d);
		for (int k = 0; k < 2; k++) {
			d[k].local_addr = (uintptr_t)(la + i * piece + k * piece / 2);
			d[k].remote_addr = (uintptr_t)(rb + (7 - i) * piece + k * piece / 2);
			d[k].len = piece / 2;
		}
		tags[i] = i;
		CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE, d, 2, &HX_TARGS(30000, &tags[i]),
					     &reqs[i]), 0);
		memset(d, 0xff, 2 * sizeof(*d));	/* the library holds a copy */
		free(d);
	}
	CHECK(hixl_get_transfer_statuses(a, reqs, 8, st) >= 0);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(hixl_request_wait(a, reqs[i], -1, &s), 0);
		CHECK_EQ(s, HIXL_TRANSFER_COMPLETED);
		CHECK_EQ(hixl_get_transfer_status(a, reqs[i], &s), 0);
		CHECK_EQ(s, HIXL_TRANSFER_COMPLETED);
		CHECK(hixl_request_user_data(reqs[i]) == &tags[i]);
		CHECK_EQ(hixl_request_result(reqs[i], &failed), 0);
		CHECK_EQ(failed, 2);
	}
	CHECK_EQ(hixl_get_transfer_statuses(a, reqs, 8, st), 8);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(st[i], HIXL_TRANSFER_COMPLETED);
		CHECK(!memcmp(la + i * piece, rb + (7 - i) * piece, piece));
	}
	/* bulk status argument errors */
	CHECK_EQ(hixl_get_transfer_statuses(a, NULL, 1, st), -EINVAL);
	CHECK_EQ(hixl_get_transfer_statuses(a, reqs, 0, NULL), 0);
	{
		struct hixl_request *two[2] = { reqs[0], NULL };

		CHECK_EQ(hixl_get_transfer_statuses(a, two, 2, st), -EINVAL);
		CHECK_EQ(hixl_get_transfer_status(b, reqs[0], &s), -EINVAL);	/* other engine */
		CHECK_EQ(hixl_request_wait(b, reqs[0], 0, &s), -EINVAL);
	}
	for (int i = 0; i < 8; i++)
		hixl_request_free(reqs[i]);
	hixl_request_free(NULL);

	/* a failing request: FAILED, its error and index */
	{
		struct hixl_op_desc d[3] = {
			{ (uintptr_t)la, (uintptr_t)rb, 4096 },
			{ (uintptr_t)un, (uintptr_t)rb, 4096 },
			{ (uintptr_t)la, (uintptr_t)rb, 4096 },
		};

		CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_READ, d, 3, &HX_TARGS(5000, NULL), &r), 0);
		CHECK_EQ(hixl_request_wait(a, r, 10000, &s), 0);
		CHECK_EQ(s, HIXL_TRANSFER_FAILED);
		CHECK_EQ(hixl_request_result(r, &failed), -ENOENT);
		CHECK_EQ(failed, 1);
		CHECK(hixl_request_user_data(r) == NULL);
		hixl_request_free(r);
	}
	/* argument errors: nothing queued */
	r = (struct hixl_request *)1;
	CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 1 }, 0,
				     &HX_TARGS(100, NULL), &r), -EINVAL);
	CHECK_EQ(hixl_transfer_async(a, IP ":18041", (enum hixl_op)3,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 1 }, 1,
				     &HX_TARGS(100, NULL), &r), -EINVAL);
	CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 1 }, 1,
				     &HX_TARGS(0, NULL), &r), -EINVAL);
	CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 1 }, 1,
				     &HX_TARGS(100, NULL), NULL), -EINVAL);
	CHECK(r == (struct hixl_request *)1);
	/* a not-connected peer: FAILED with -ENOTCONN */
	CHECK_EQ(hixl_transfer_async(a, IP ":18049", HIXL_OP_WRITE,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 1 }, 1,
				     &HX_TARGS(1000, NULL), &r), 0);
	CHECK_EQ(hixl_request_wait(a, r, 5000, &s), 0);
	CHECK_EQ(s, HIXL_TRANSFER_FAILED);
	CHECK_EQ(hixl_request_result(r, NULL), -ENOTCONN);
	hixl_request_free(r);

	/* timeouts: four writes of len to b, then a fifth with 1 ms to a third
	 * engine c ends TIMEOUT.  Worker threads: the four hold the four
	 * workers, so it expires in the library's queue, never issued.
	 * io_uring: it is issued at once and the kernel times it out on the
	 * wire, which breaks the a-c link (hence its own link: a request timed
	 * out on the wire behind others on b's link would break that one). */
	{
		struct hixl_op_desc big = { (uintptr_t)la, (uintptr_t)rb, len };
		struct hixl_op_desc tobig = { (uintptr_t)la, (uintptr_t)rc, len };
		struct hixl_request *bigs[4];

		for (int i = 0; i < 4; i++)
			CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE, &big, 1, &HX_TARGS(60000, NULL), &bigs[i]), 0);
		CHECK_EQ(hixl_request_wait(a, bigs[3], 0, &s), -ETIMEDOUT);	/* 3 * len ahead */
		CHECK_EQ(s, HIXL_TRANSFER_WAITING);
		CHECK_EQ(hixl_request_result(bigs[3], NULL), -EINPROGRESS);
		CHECK_EQ(hixl_transfer_async(a, IP ":18042", HIXL_OP_WRITE, &tobig, 1, &HX_TARGS(1, NULL), &r), 0);
		if (hixl_engine_async_path(a) == HIXL_ASYNC_THREADS) {
			/* deterministic here: only a free worker looks at it */
			CHECK_EQ(hixl_request_wait(a, r, 0, &s), -ETIMEDOUT);	/* still queued */
			CHECK_EQ(s, HIXL_TRANSFER_WAITING);
			CHECK_EQ(hixl_request_result(r, NULL), -EINPROGRESS);
		}
		CHECK_EQ(hixl_request_wait(a, r, 60000, &s), 0);
		CHECK_EQ(s, HIXL_TRANSFER_TIMEOUT);
		CHECK_EQ(hixl_request_result(r, &failed), -ETIMEDOUT);
		CHECK_EQ(failed, 0);	/* the first descriptor not known to be done */
		CHECK_EQ(hixl_status_from_errno(hixl_request_result(r, NULL)), HIXL_TIMEOUT);
		hixl_request_free(r);
		for (int i = 0; i < 4; i++) {
			CHECK_EQ(hixl_request_wait(a, bigs[i], -1, &s), 0);
			CHECK_EQ(s, HIXL_TRANSFER_COMPLETED);
			/* free two before, two after they ended */
		}
		hixl_request_free(bigs[0]);
		hixl_request_free(bigs[1]);
		/* detached while waiting: the library frees it */
		CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE, &big, 1, &HX_TARGS(60000, NULL),
					     &bigs[0]), 0);
		hixl_request_free(bigs[0]);
		hixl_request_free(bigs[2]);
		hixl_request_free(bigs[3]);
	}
	/* the link still works */
	CHECK_EQ(hixl_transfer_sync(a, IP ":18041", HIXL_OP_WRITE,
				    &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 4096 }, 1,
				    60000, NULL), 0);
	/* a request left queued or running at finalize is cancelled / freed */
	{
		struct hixl_op_desc big = { (uintptr_t)la, (uintptr_t)rb, len };

		for (int i = 0; i < 6; i++)
			CHECK_EQ(hixl_transfer_async(a, IP ":18041", HIXL_OP_WRITE, &big, 1, &HX_TARGS(60000, NULL), &r), 0);
	}
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	hixl_engine_finalize(c);
}

void test_lib_connect_async(void)
{
	struct hixl_engine *srv = eng_new(IP ":18050"), *cli;
	enum hixl_connect_status cs = HIXL_NOT_CONNECT;
	int ret, polls = 0;

	REQUIRE(srv);
	cli = eng_new(IP);
	REQUIRE(cli);
	CHECK_EQ(hixl_connect_async(cli, IP ":18050", 0), -EINVAL);
	CHECK_EQ(hixl_connect_async(cli, IP, 1000), -EINVAL);
	CHECK_EQ(hixl_connect_async(NULL, IP ":18050", 1000), -EINVAL);
	CHECK_EQ(hixl_connect_async(cli, IP ":18050", 5000), 0);
	ret = hixl_get_connect_status(cli, IP ":18050", &cs);
	CHECK_EQ(ret, 0);
	CHECK(cs == HIXL_CONNECT_PENDING || cs == HIXL_CONNECTING || cs == HIXL_CONNECTED);
	/* a second one while it runs */
	ret = hixl_connect_async(cli, IP ":18050", 5000);
	CHECK(ret == -EALREADY || ret == -EISCONN);
	ret = hixl_connect(cli, IP ":18050", 5000);
	CHECK(ret == -EALREADY || ret == -EISCONN);
	while (cs != HIXL_CONNECTED && polls++ < 1000) {
		usleep(10000);
		CHECK_EQ(hixl_get_connect_status(cli, IP ":18050", &cs), 0);
	}
	CHECK_EQ(cs, HIXL_CONNECTED);
	CHECK_EQ(hixl_connect_async(cli, IP ":18050", 5000), -EISCONN);
	CHECK_EQ(hixl_disconnect(cli, IP ":18050", 1000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18050", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);

	/* a failing one: nobody listens on 18051 */
	CHECK_EQ(hixl_connect_async(cli, IP ":18051", 1000), 0);
	polls = 0;
	do {
		usleep(10000);
		ret = hixl_get_connect_status(cli, IP ":18051", &cs);
	} while ((cs == HIXL_CONNECT_PENDING || cs == HIXL_CONNECTING) && polls++ < 1000);
	CHECK_EQ(cs, HIXL_CONNECT_FAILED);
	CHECK(ret < 0);
	printf("#   async connect to a closed port: %s\n", strerror(-ret));
	/* a new connect may start from CONNECT_FAILED; disconnect clears it */
	CHECK_EQ(hixl_disconnect(cli, IP ":18051", 1000), -ENOTCONN);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18051", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);

	/* disconnect while the connect runs: it waits for it, then tears down */
	CHECK_EQ(hixl_connect_async(cli, IP ":18050", 5000), 0);
	CHECK_EQ(hixl_disconnect(cli, IP ":18050", 10000), 0);
	CHECK_EQ(hixl_get_connect_status(cli, IP ":18050", &cs), 0);
	CHECK_EQ(cs, HIXL_NOT_CONNECT);
	/* finalize with a connect pending */
	CHECK_EQ(hixl_connect_async(cli, IP ":18050", 5000), 0);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
}

void test_lib_notify(void)
{
	struct hixl_engine *srv = eng_new(IP ":18060"), *cli;
	struct hixl_notify *n = calloc(4, sizeof(*n));
	char big[HIXL_NOTIFY_MAX_NAME + 2], from[HIXL_ENGINE_NAME_MAX];
	size_t count = 99;
	uint64_t dropped = 99;
	int ret, polls = 0;

	REQUIRE(srv && n);
	cli = eng_new(IP ":18061");
	REQUIRE(cli);
	ret = hixl_send_notify(cli, IP ":18060", "kv", "x", 1, 1000);
	CHECK_EQ(ret, -ENOTCONN);
	REQUIRE(hixl_connect(cli, IP ":18060", 5000) == 0);
	CHECK_EQ(hixl_get_notifies(srv, n, 4, &count, &dropped), 0);
	CHECK_EQ(count, 0);
	CHECK_EQ(dropped, 0);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "layer-done", "17", 2, 1000), 0);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "empty", NULL, 0, 1000), 0);
	do {
		usleep(10000);
		CHECK_EQ(hixl_get_notifies(srv, n, 4, &count, NULL), 0);
	} while (!count && polls++ < 300);
	if (count == 1) {	/* the second may come a bit later */
		size_t more = 0;

		usleep(100000);
		CHECK_EQ(hixl_get_notifies(srv, n + 1, 3, &more, NULL), 0);
		count += more;
	}
	CHECK_EQ(count, 2);
	CHECK_EQ(n[0].name_len, 10);
	CHECK(!memcmp(n[0].name, "layer-done", 10));
	CHECK_EQ(n[0].msg_len, 2);
	CHECK(!memcmp(n[0].msg, "17", 2));
	CHECK_EQ(n[1].name_len, 5);
	CHECK_EQ(n[1].msg_len, 0);
	CHECK_EQ(hixl_format_engine_name(&n[0].from, from, sizeof(from)), 0);
	printf("#   from %s\n", from);
	CHECK(!strncmp(from, IP, strlen(IP)));
	/* errors */
	memset(big, 'n', sizeof(big));
	big[HIXL_NOTIFY_MAX_NAME] = '\0';	/* 1024: fine */
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", big, NULL, 0, 1000), 0);
	big[HIXL_NOTIFY_MAX_NAME] = 'n';
	big[HIXL_NOTIFY_MAX_NAME + 1] = '\0';	/* 1025 */
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", big, NULL, 0, 1000), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "", NULL, 0, 1000), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", NULL, NULL, 0, 1000), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "a", NULL, 1, 1000), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "a", big, HIXL_NOTIFY_MAX_MSG + 1, 1000),
		 -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "a", big, HIXL_NOTIFY_MAX_MSG, 0), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, "bad", "a", NULL, 0, 1000), -EINVAL);
	CHECK_EQ(hixl_send_notify(cli, IP ":18060", "a", big, HIXL_NOTIFY_MAX_MSG, 1000), 0);
	CHECK_EQ(hixl_get_notifies(srv, n, 0, &count, NULL), -EINVAL);
	CHECK_EQ(hixl_get_notifies(srv, NULL, 1, &count, NULL), -EINVAL);
	CHECK_EQ(hixl_get_notifies(srv, n, 1, NULL, NULL), -EINVAL);
	CHECK_EQ(hixl_get_notifies(NULL, n, 1, &count, NULL), -EINVAL);
	usleep(100000);
	CHECK_EQ(hixl_get_notifies(srv, n, 4, &count, &dropped), 0);
	CHECK_EQ(count, 2);
	CHECK_EQ(n[0].name_len, HIXL_NOTIFY_MAX_NAME);
	CHECK_EQ(n[1].msg_len, HIXL_NOTIFY_MAX_MSG);
	CHECK_EQ(dropped, 0);
	hixl_engine_finalize(cli);
	hixl_engine_finalize(srv);
	free(n);
}

void test_lib_finalize(void)
{
	size_t len = 8 * MiB;
	long pin0 = vm_pin_kb(), pin;
	struct hixl_engine *a = eng_new(IP ":18070"), *b;
	unsigned char *la = lbuf(len), *rb = lbuf(len);
	struct hixl_request *r;
	int polls = 0;

	REQUIRE(a);
	b = eng_new(IP ":18071");
	REQUIRE(b && la && rb);
	REQUIRE(pin0 >= 0);
	for (int i = 0; i < 4; i++) {
		REQUIRE(reg(a, la + i * (len / 4), len / 4, NULL) == 0);
		REQUIRE(reg(b, rb + i * (len / 4), len / 4, NULL) == 0);
	}
	CHECK(vm_pin_kb() >= pin0 + (long)(2 * len / 1024));
	REQUIRE(hixl_connect(a, IP ":18071", 5000) == 0);
	/* b already has a's link (the peer side of it): links are symmetric;
	 * b's side may still be finishing its table exchange (EALREADY) */
	{
		int rc = hixl_connect(b, IP ":18070", 5000);

		CHECK(rc == -EISCONN || rc == -EALREADY);
	}
	CHECK_EQ(hixl_transfer_async(a, IP ":18071", HIXL_OP_WRITE,
				     &(struct hixl_op_desc){ (uintptr_t)la, (uintptr_t)rb, 4096 }, 1,
				     &HX_TARGS(10000, NULL), &r), 0);	/* never freed by us */
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
	do {
		pin = vm_pin_kb();
		if (pin <= pin0)
			break;
		usleep(10000);
	} while (polls++ < 300);
	CHECK_EQ(pin, pin0);
	/* both names are free again */
	a = eng_new(IP ":18070");
	CHECK(a != NULL);
	b = eng_new(IP ":18071");
	CHECK(b != NULL);
	if (a && b) {
		CHECK_EQ(hixl_connect(a, IP ":18071", 5000), 0);
	}
	hixl_engine_finalize(a);
	hixl_engine_finalize(b);
}

void test_lib_example(void)
{
	int st;

	if (access("examples/kv_transfer", X_OK))
		SKIP("examples/kv_transfer not built (run from the repo after make tests)");
	if (access("/dev/hixl", F_OK))
		SKIP("no /dev/hixl");
	st = system("examples/kv_transfer " IP " 18999 | sed 's/^/#   /'");
	REQUIRE(st != -1 && WIFEXITED(st));
	/* the pipe's status is sed's: run it again for the real one */
	st = system("examples/kv_transfer " IP " 18998 >/dev/null");
	REQUIRE(st != -1 && WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		SKIP("no RDMA device on " IP);
	CHECK_EQ(WEXITSTATUS(st), 0);
}

/* a counting allocator: blocks carry a header, the address is after it */
struct count_alloc {
	pthread_mutex_t lock;
	int allocs, frees, fail;
	size_t last_size;
	char tag;
};

struct count_block {
	struct count_alloc *owner;
	char tag;
	long long mem[];
};

static void *ca_alloc(void *obj, size_t size)
{
	struct count_alloc *c = obj;
	struct count_block *b = NULL;

	pthread_mutex_lock(&c->lock);
	if (!c->fail && (b = malloc(sizeof(*b) + size))) {
		b->owner = c;
		b->tag = c->tag;
		c->allocs++;
		c->last_size = size;
	}
	pthread_mutex_unlock(&c->lock);
	return b;
}

static void ca_free(void *obj, void *block)
{
	struct count_alloc *c = obj;
	struct count_block *b = block;

	pthread_mutex_lock(&c->lock);
	if (b->owner == c && b->tag == c->tag)	/* freed by the allocator it came from */
		c->frees++;
	pthread_mutex_unlock(&c->lock);
	free(b);
}

static void *ca_addr(void *obj, void *block)
{
	return ((struct count_block *)block)->mem;
}

static struct hixl_allocator_desc *ca_desc(struct count_alloc *c)
{
	struct hixl_allocator_desc *d = NULL;

	if (hixl_allocator_desc_create(&d) || hixl_allocator_set_obj(d, c) ||
	    hixl_allocator_set_alloc_func(d, ca_alloc) || hixl_allocator_set_free_func(d, ca_free) ||
	    hixl_allocator_set_block_addr_func(d, ca_addr))
		return NULL;
	return d;
}

/* user allocators: descriptor memory of async requests comes from them */
void test_lib_allocator(void)
{
	static struct count_alloc ca = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 'A' };
	static struct count_alloc cb = { PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 'B' };
	struct hixl_engine *a = eng_new(IP ":18080"), *b;
	struct hixl_allocator_desc *da = ca_desc(&ca), *db = ca_desc(&cb), *empty = NULL;
	struct hixl_request *r[8];
	size_t len = 256 * 1024;
	unsigned char *src = lbuf(len), *dst = lbuf(len);
	struct hixl_op_desc d[4];
	enum hixl_transfer_status st;

	REQUIRE(a && da && db && src && dst);
	b = eng_new(IP ":18081");
	REQUIRE(b);
	/* argument checks */
	CHECK_EQ(hixl_allocator_desc_create(NULL), -EINVAL);
	CHECK_EQ(hixl_allocator_set_obj(NULL, &ca), -EINVAL);
	CHECK_EQ(hixl_allocator_set_alloc_func(da, NULL), -EINVAL);
	CHECK_EQ(hixl_allocator_set_free_func(NULL, ca_free), -EINVAL);
	CHECK_EQ(hixl_allocator_set_block_addr_func(da, NULL), -EINVAL);
	REQUIRE(hixl_allocator_desc_create(&empty) == 0);
	CHECK_EQ(hixl_allocator_register(a, empty), -EINVAL);	/* no callbacks */
	CHECK_EQ(hixl_allocator_register(NULL, da), -EINVAL);
	hixl_allocator_desc_destroy(empty);
	hixl_allocator_desc_destroy(NULL);

	hx_fill(src, len, 5);
	REQUIRE(reg(a, src, len, NULL) == 0);
	REQUIRE(reg(b, dst, len, NULL) == 0);
	REQUIRE(hixl_connect(a, IP ":18081", 5000) == 0);
	for (int i = 0; i < 4; i++) {
		d[i].local_addr = (uintptr_t)(src + i * (len / 4));
		d[i].remote_addr = (uintptr_t)(dst + i * (len / 4));
		d[i].len = len / 4;
	}
	CHECK_EQ(hixl_allocator_register(a, da), 0);
	hixl_allocator_desc_destroy(da);	/* the engine keeps its copy */
	for (int i = 0; i < 4; i++)
		CHECK_EQ(hixl_transfer_async(a, IP ":18081", HIXL_OP_WRITE, d, 4, &HX_TARGS(10000, NULL), &r[i]), 0);
	CHECK_EQ(ca.allocs, 4);
	CHECK(ca.last_size >= 4 * sizeof(struct hixl_op_desc));
	/* the last registration wins; earlier requests still free to A */
	CHECK_EQ(hixl_allocator_register(a, db), 0);
	for (int i = 4; i < 8; i++)
		CHECK_EQ(hixl_transfer_async(a, IP ":18081", HIXL_OP_WRITE, d, 4, &HX_TARGS(10000, NULL), &r[i]), 0);
	CHECK_EQ(cb.allocs, 4);
	CHECK_EQ(ca.allocs, 4);
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(hixl_request_wait(a, r[i], 10000, &st), 0);
		CHECK_EQ(st, HIXL_TRANSFER_COMPLETED);
		hixl_request_free(r[i]);
	}
	CHECK_EQ(ca.frees, 4);
	CHECK_EQ(cb.frees, 4);
	CHECK(!memcmp(src, dst, len));
	/* an allocator that fails: -ENOMEM, nothing queued */
	cb.fail = 1;
	CHECK_EQ(hixl_transfer_async(a, IP ":18081", HIXL_OP_WRITE, d, 4, &HX_TARGS(10000, NULL), &r[0]), -ENOMEM);
	cb.fail = 0;
	/* requests never freed by us go back to their allocator at finalize */
	CHECK_EQ(hixl_transfer_async(a, IP ":18081", HIXL_OP_WRITE, d, 4, &HX_TARGS(10000, NULL), &r[0]), 0);
	/* back to the library's malloc */
	CHECK_EQ(hixl_allocator_register(a, NULL), 0);
	CHECK_EQ(hixl_transfer_async(a, IP ":18081", HIXL_OP_WRITE, d, 4, &HX_TARGS(10000, NULL), &r[1]), 0);
	CHECK_EQ(cb.allocs, 5);
	hixl_engine_finalize(a);
	CHECK_EQ(cb.frees, 5);
	hixl_allocator_desc_destroy(db);
	hixl_engine_finalize(b);
}

/* the README's example, cut out of README.md, compiled and run */
void test_lib_readme_example(void)
{
	char line[512], src[256], bin[256], cmd[1024];
	const char *dir = getenv("HIXL_WORK") ? getenv("HIXL_WORK") : "/tmp";
	FILE *in, *out;
	int state = 0, st;

	if (access("README.md", R_OK) || access("lib/libhixl-user.a", R_OK))
		SKIP("run from the repo after make");
	if (access("/dev/hixl", F_OK))
		SKIP("no /dev/hixl");
	/* a compiler run: seconds under KASAN and TCG, user space */
	if (hx_debug_kernel() && !hx_long())
		SKIP("debug kernel: the README example is compiled and run on the stock kernels "
		     "(and here under make check-long)");
	snprintf(src, sizeof(src), "%s/readme_example.c", dir);
	snprintf(bin, sizeof(bin), "%s/readme_example", dir);
	in = fopen("README.md", "r");
	out = fopen(src, "w");
	REQUIRE(in && out);
	while (fgets(line, sizeof(line), in)) {
		if (strstr(line, "<!-- readme-example:begin -->"))
			state = 1;
		else if (strstr(line, "<!-- readme-example:end -->"))
			state = 3;
		else if (state == 1 && !strncmp(line, "```c", 4))
			state = 2;
		else if (state == 2 && !strncmp(line, "```", 3))
			state = 3;
		else if (state == 2)
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	CHECK_EQ(state, 3);
	snprintf(cmd, sizeof(cmd), "cc -std=gnu11 -Wall -Werror -Ilib/include -Iuapi -o %s %s "
		 "lib/libhixl-user.a -luring -pthread", bin, src);
	st = system(cmd);
	REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = system(bin);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

const struct ht_test lib_tests[] = {
	{ "lib_names", test_lib_names },
	{ "lib_status", test_lib_status },
	{ "lib_options", test_lib_options },
	{ "lib_engine", test_lib_engine },
	{ "lib_register", test_lib_register },
	{ "lib_connect", test_lib_connect },
	{ "lib_xfer_sync", test_lib_xfer_sync },
	{ "lib_xfer_async", test_lib_xfer_async },
	{ "lib_connect_async", test_lib_connect_async },
	{ "lib_notify", test_lib_notify },
	{ "lib_finalize", test_lib_finalize },
	{ "lib_example", test_lib_example },
	{ "lib_allocator", test_lib_allocator },
	{ "lib_readme_example", test_lib_readme_example },
	{ NULL, NULL },
};
