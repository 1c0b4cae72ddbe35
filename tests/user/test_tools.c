// SPDX-License-Identifier: GPL-2.0
/*
 * test_tools.c - user tests of the installed tools on a good setup (the test
 * VM: hixl.ko loaded, rxe0 on veth0 with 10.77.0.1, run as root from the
 * repo): `tools/hixlctl check --json` and what it finds, --size against
 * RLIMIT_MEMLOCK and the module's max_host_bytes, who may open /dev/hixl
 * (as nobody, through setpriv), and the library call the uring_cmd check is
 * built on, hixl_dev_uring_probe(), and the auth check against engines
 * listening with and without a secret.  The host side (no module: the
 * module check FAILs) is tests/tools/hixlctl.sh, run by
 * scripts/check-install.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "tests.h"
#include "util.h"

#define HIXLCTL		"tools/hixlctl"
#define CAP_IPC_LOCK_NR	14	/* <linux/capability.h> */
/* does the string @s start with the string literal @lit? */
#define STARTS(s, lit)	(!strncmp((s), lit, sizeof(lit) - 1))

/* what one check of `hixlctl check --json` said */
struct check_line {
	char status[8];
	char detail[1024];
	char fix[1024];
};

/* what one run of hixlctl said, and its exit status */
struct ctl_run {
	char out[65536];
	int status;		/* the exit status, or -1 when it did not exit */
};

/*
 * Run "PREFIX tools/hixlctl ARGS" (PREFIX: e.g. a setpriv command line, or
 * ""), its stdout into r->out; SKIPs when hixlctl is not built.
 */
static void ctl_as(struct ctl_run *r, const char *prefix, const char *args)
{
	char cmd[512];
	size_t n = 0, got;
	FILE *p;
	int st;

	if (access(HIXLCTL, X_OK))
		SKIP(HIXLCTL " not built (run from the repo after make tools)");
	snprintf(cmd, sizeof(cmd), "%s" HIXLCTL " %s", prefix, args);
	p = popen(cmd, "r");
	r->out[0] = '\0';
	r->status = -1;
	if (!p)
		return;
	while (n < sizeof(r->out) - 1 && (got = fread(r->out + n, 1, sizeof(r->out) - 1 - n, p)))
		n += got;
	r->out[n] = '\0';
	st = pclose(p);
	r->status = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	printf("#   %shixlctl %s: exit status %d\n", prefix, args, r->status);
}

/* Run "tools/hixlctl ARGS" as the caller. */
static void ctl(struct ctl_run *r, const char *args)
{
	ctl_as(r, "", args);
}

/*
 * Copy the JSON string starting at @s (just after its opening quote) into
 * @out, unescaped (\" and \\; other escapes kept as they are); returns the
 * character after the closing quote, or NULL when there is none.
 */
static const char *json_string(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && *s != '"'; s++) {
		if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		if (n + 1 < len)
			out[n++] = *s;
	}
	out[n] = '\0';
	return *s == '"' ? s + 1 : NULL;
}

/*
 * Find the check @name in hixlctl's JSON and fill @c.  hixlctl prints each
 * as {"name": "N", "status": "S", "detail": "D", "fix": "F"}, in that order.
 * Returns 0, or -1 when there is no such check or it is malformed.
 */
static int find_check(const char *json, const char *name, struct check_line *c)
{
	char key[128];
	const char *s;

	snprintf(key, sizeof(key), "{\"name\": \"%s\", \"status\": \"", name);
	s = strstr(json, key);
	if (!s)
		return -1;
	s = json_string(s + strlen(key), c->status, sizeof(c->status));
	if (!s || !STARTS(s, ", \"detail\": \""))
		return -1;
	s = json_string(s + 13, c->detail, sizeof(c->detail));
	if (!s || !STARTS(s, ", \"fix\": \""))
		return -1;
	s = json_string(s + 10, c->fix, sizeof(c->fix));
	return s && *s == '}' ? 0 : -1;
}

/* The status of check @name (printing what it said), or "" when it is missing. */
static const char *status_of(const char *json, const char *name, struct check_line *c)
{
	if (find_check(json, name, c)) {
		printf("#   no check %s\n", name);
		c->status[0] = c->detail[0] = c->fix[0] = '\0';
		return "";
	}
	printf("#   %-9s %s %s%s%s\n", name, c->status, c->detail, *c->fix ? " -- fix: " : "",
	       c->fix);
	return c->status;
}

/* python3 -c json.load() of @json, when python3 is there: 1 parses, 0 not, -1 no python3 */
static int python_parses(const char *json)
{
	FILE *p;
	int st;

	if (access("/usr/bin/python3", X_OK))
		return -1;
	p = popen("/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); "
		  "assert isinstance(d[\"ok\"], bool) and d[\"checks\"]'", "w");
	if (!p)
		return -1;
	fputs(json, p);
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* hixlctl check on the VM's good setup: everything an engine needs PASSes */
/*
 * hixlctl check is user space around one GET_INFO and an io_uring probe,
 * and each of its runs is a process start that takes seconds under KASAN
 * and TCG: the stock kernels run these tests, the debug kernel under make
 * check-long (hx_long()) only.
 */
static void skip_on_debug_kernel(void)
{
	if (hx_debug_kernel() && !hx_long())
		SKIP("debug kernel: hixlctl check is user space (the stock kernels and "
		     "make check-long run it)");
}

static void test_tools_check(void)
{
	static struct ctl_run r;
	struct check_line c;
	char want[64];

	skip_on_debug_kernel();
	if (access(HIXL_DEVICE_PATH, F_OK))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	ctl(&r, "check --json");
	CHECK_EQ(r.status, 0);
	CHECK(STARTS(r.out, "{\"ok\": true, \"checks\": ["));
	CHECK(python_parses(r.out) != 0);
	CHECK(!strcmp(status_of(r.out, "module", &c), "PASS"));
	/* MODULE_VERSION() is the header's MAJOR.MINOR */
	snprintf(want, sizeof(want), "hixl.ko %d.%d loaded", HIXL_VERSION_MAJOR, HIXL_VERSION_MINOR);
	CHECK(strstr(c.detail, want) != NULL);
	CHECK(strstr(c.detail, "srcversion ") != NULL);
	CHECK(!strcmp(status_of(r.out, "device", &c), "PASS"));
	CHECK(strstr(c.detail, "/dev/hixl crw-rw----") != NULL);
	CHECK(!strcmp(status_of(r.out, "access", &c), "PASS"));
	CHECK(!strcmp(status_of(r.out, "abi", &c), "PASS"));
	CHECK(!strcmp(status_of(r.out, "limits", &c), "PASS"));
	CHECK(!strcmp(status_of(r.out, "memlock", &c), "PASS"));
	CHECK(strstr(c.detail, "CAP_IPC_LOCK") != NULL);	/* root */
	CHECK(!strcmp(status_of(r.out, "rdma:rxe0", &c), "PASS"));
	CHECK(strstr(c.detail, "ACTIVE") != NULL);
	CHECK(strstr(c.detail, "veth0") != NULL);
	CHECK(strstr(c.detail, HX_IP) != NULL);
	CHECK(strstr(c.detail, "fd77::1") != NULL);
	CHECK(!strcmp(status_of(r.out, "hugepages", &c), "PASS"));
	CHECK(strstr(c.detail, "2 MiB: ") != NULL);
	CHECK(*status_of(r.out, "thp", &c));
	CHECK(!strcmp(status_of(r.out, "io_uring", &c), "PASS"));
	CHECK(!strcmp(status_of(r.out, "uring_cmd", &c), "PASS"));
	CHECK(strstr(r.out, "\"FAIL\"") == NULL);

	/* the text form: the same verdict, one line per check */
	ctl(&r, "check");
	CHECK_EQ(r.status, 0);
	CHECK(STARTS(r.out, "PASS  module "));
	CHECK(strstr(r.out, "\nPASS  rdma:rxe0 ") != NULL);
	CHECK(strstr(r.out, "\nFAIL") == NULL);
}

/* the library call behind the uring_cmd check, and HIXL_NO_URING */
static void test_tools_uring_probe(void)
{
	static struct ctl_run r;
	struct check_line c;
	int fd = open_dev();

	CHECK_EQ(hixl_dev_uring_probe(fd), 0);
	CHECK_EQ(hixl_dev_uring_probe(-1), -EBADF);
	close(fd);
	REQUIRE(setenv("HIXL_NO_URING", "1", 1) == 0);	/* this test's process only */
	ctl(&r, "check --json");
	CHECK_EQ(r.status, 0);		/* a WARN is no FAIL */
	CHECK(!strcmp(status_of(r.out, "uring_cmd", &c), "WARN"));
	CHECK(strstr(c.detail, "HIXL_NO_URING=1") != NULL);
	CHECK(!strcmp(c.fix, "unset HIXL_NO_URING"));
}

/* --size: more than max_host_bytes FAILs the limits check, with the parameter to raise */
static void test_tools_check_limits(void)
{
	static struct ctl_run r;
	struct check_line c;
	unsigned long long max = read_param("max_host_bytes");
	char args[64];

	skip_on_debug_kernel();
	if (access(HIXL_DEVICE_PATH, F_OK))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	REQUIRE(max > 0 && max < (1ULL << 50));
	snprintf(args, sizeof(args), "check --json --size %llu", max);
	ctl(&r, args);
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(status_of(r.out, "limits", &c), "PASS"));
	snprintf(args, sizeof(args), "check --json --size %llu", max + 4096);
	ctl(&r, args);
	CHECK_EQ(r.status, 1);
	CHECK(STARTS(r.out, "{\"ok\": false, \"checks\": ["));
	CHECK(!strcmp(status_of(r.out, "limits", &c), "FAIL"));
	CHECK(strstr(c.fix, "max_host_bytes") != NULL);
	CHECK(strstr(c.fix, "/sys/module/hixl/parameters/max_host_bytes") != NULL);
}

/*
 * --size against RLIMIT_MEMLOCK, for a caller without CAP_IPC_LOCK: this
 * test's process drops it from its bounding set (so the shell and hixlctl
 * that popen() starts lack it) and sets the limit to 64 KiB, hard 1 GiB
 * (or the hard limit it has, when it cannot raise it).
 */
static void test_tools_check_memlock(void)
{
	struct rlimit rl = { .rlim_cur = 64 << 10, .rlim_max = 1ULL << 30 };	/* 64 KiB, 1 GiB */
	static struct ctl_run r;
	struct check_line c;

	skip_on_debug_kernel();
	if (access(HIXL_DEVICE_PATH, F_OK))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	if (prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK_NR, 0, 0, 0))
		SKIP("cannot drop CAP_IPC_LOCK (not root?)");
	if (setrlimit(RLIMIT_MEMLOCK, &rl)) {	/* no CAP_SYS_RESOURCE: keep the hard limit */
		REQUIRE(getrlimit(RLIMIT_MEMLOCK, &rl) == 0);
		rl.rlim_cur = 64 << 10;
		REQUIRE(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	}
	/* --size 1M must be within the hard limit and 2G beyond it */
	if (rl.rlim_max < (1 << 20) || rl.rlim_max >= (2ULL << 30))
		SKIP("RLIMIT_MEMLOCK's hard limit is not in 1 MiB..2 GiB and cannot be set");

	ctl(&r, "check --json");		/* no --size: only reported */
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(status_of(r.out, "memlock", &c), "PASS"));
	CHECK(strstr(c.detail, "RLIMIT_MEMLOCK 64 KiB (hard ") != NULL);

	ctl(&r, "check --json --size 64K");	/* fits */
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(status_of(r.out, "memlock", &c), "PASS"));

	ctl(&r, "check --json --size 1M");	/* within the hard limit: the user can raise it */
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(status_of(r.out, "memlock", &c), "WARN"));
	CHECK(strstr(c.fix, "ulimit -l 1024") != NULL);

	ctl(&r, "check --json --size 2G");	/* beyond the hard limit: root must */
	CHECK_EQ(r.status, 1);
	CHECK(STARTS(r.out, "{\"ok\": false, \"checks\": ["));
	CHECK(!strcmp(status_of(r.out, "memlock", &c), "FAIL"));
	CHECK(strstr(c.fix, "memlock unlimited") != NULL);
	CHECK(strstr(c.fix, "/etc/security/limits.d/hixl.conf") != NULL);
	CHECK(!strcmp(status_of(r.out, "limits", &c), "PASS"));	/* 2 GiB < 20 GiB */
}

#define AS_NOBODY(gid)	"setpriv --reuid=65534 --regid=" gid " --clear-groups "

/*
 * access for a caller who is not root (nobody, uid 65534): the node as the
 * module makes it (root:root, no udev rule in the VM) FAILs with the udev
 * rule and the group as the fix; given to nobody's group it PASSes; given
 * to that group while the session lacks it, the fix says to log in again.
 * The node's group is restored at the end.
 */
static void test_tools_check_access(void)
{
	static struct ctl_run r;
	struct check_line c;
	struct stat st;

	skip_on_debug_kernel();
	if (stat(HIXL_DEVICE_PATH, &st))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	if (access("/usr/bin/setpriv", X_OK))
		SKIP("no setpriv (util-linux)");
	if (geteuid() != 0)
		SKIP("not root");
	REQUIRE(chown(HIXL_DEVICE_PATH, 0, 0) == 0);

	ctl_as(&r, AS_NOBODY("65534"), "check --json");
	CHECK_EQ(r.status, 1);
	CHECK(!strcmp(status_of(r.out, "device", &c), "PASS"));
	CHECK(strstr(c.detail, "root root") != NULL);
	CHECK(strstr(c.detail, "no udev rule") != NULL);
	CHECK(!strcmp(status_of(r.out, "access", &c), "FAIL"));
	CHECK(strstr(c.detail, "Permission denied") != NULL);
	CHECK(strstr(c.fix, "groupadd --system hixl") != NULL);
	CHECK(strstr(c.fix, "make install-module") != NULL);
	CHECK(!strcmp(status_of(r.out, "abi", &c), "WARN"));	/* not checked */

	REQUIRE(chown(HIXL_DEVICE_PATH, 0, 65534) == 0);
	ctl_as(&r, AS_NOBODY("65534"), "check --json");	/* in the node's group */
	CHECK_EQ(r.status, 0);
	CHECK(!strcmp(status_of(r.out, "access", &c), "PASS"));
	CHECK(strstr(c.detail, "(group ") != NULL);
	CHECK(!strcmp(status_of(r.out, "abi", &c), "PASS"));
	CHECK(!strcmp(status_of(r.out, "uring_cmd", &c), "PASS"));

	/* nobody's primary group in /etc/passwd is 65534, but not this session's */
	ctl_as(&r, AS_NOBODY("100"), "check --json");
	CHECK_EQ(r.status, 1);
	CHECK(!strcmp(status_of(r.out, "access", &c), "FAIL"));
	CHECK(strstr(c.fix, "log in again (or newgrp ") != NULL);

	CHECK(chown(HIXL_DEVICE_PATH, st.st_uid, st.st_gid) == 0);
}

#define AUTH_PORT	27610	/* +0 no secret, +1 a secret, +2 loopback without one */
#define AUTH_KEY	"0123456789abcdef0123456789abcdef"	/* 32 bytes */

/*
 * auth: an engine listening on HX_IP without a secret is named in a WARN
 * (id, name, pid) with the secret as the fix; one with a secret (the
 * library's AuthSecret) and a loopback one without are not; with the first
 * closed, the line no longer names it (PASS, unless engines of another
 * test are still open).
 */
static void test_tools_check_auth(void)
{
	const struct hixl_option key[] = { { "AuthSecret", AUTH_KEY } };
	struct hixl_engine *sec;
	static struct ctl_run r;
	struct check_line c;
	char open_name[64], pid[32];
	const char *line;
	int plain, lo;

	skip_on_debug_kernel();
	if (access(HIXL_DEVICE_PATH, F_OK))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	plain = hx_engine(AUTH_PORT, 0, 0);
	REQUIRE(plain >= 0);
	sec = hx_lib_engine(HX_IP ":27611", key, 1);	/* AUTH_PORT + 1 */
	REQUIRE(sec != NULL);
	lo = lo_eng(AF_INET, AUTH_PORT + 2);	/* -errno without HIXL_FEAT_LOOPBACK */
	snprintf(open_name, sizeof(open_name), " on %s:%u (pid ", HX_IP, AUTH_PORT);
	snprintf(pid, sizeof(pid), "(pid %d)", (int)getpid());

	ctl(&r, "check --json");
	CHECK_EQ(r.status, 0);			/* a WARN is no FAIL */
	CHECK(!strcmp(status_of(r.out, "auth", &c), "WARN"));
	CHECK(strstr(c.detail, open_name) != NULL);
	CHECK(strstr(c.detail, pid) != NULL);
	CHECK(strstr(c.detail, "with neither a secret nor allowed peers") != NULL);
	CHECK(strstr(c.detail, ":27611") == NULL);
	CHECK(strstr(c.detail, "127.0.0.1") == NULL);
	CHECK(strstr(c.fix, "HIXL_SETUP_SECRET") != NULL);
	CHECK(strstr(c.fix, "AuthSecret") != NULL);

	/* the text form: one WARN line for auth naming the port */
	ctl(&r, "check");
	CHECK_EQ(r.status, 0);
	line = strstr(r.out, "\nWARN  auth ");
	CHECK(line != NULL);
	if (line) {
		const char *end = strchr(line + 1, '\n');
		char *hit = strstr(line, open_name);

		CHECK(hit != NULL && (!end || hit < end));
		printf("#   %.*s\n", end ? (int)(end - line - 1) : (int)strlen(line + 1), line + 1);
	}

	close(plain);
	ctl(&r, "check --json");
	CHECK_EQ(r.status, 0);
	status_of(r.out, "auth", &c);
	CHECK(strstr(c.detail, open_name) == NULL);
	CHECK(strstr(c.detail, ":27611") == NULL);
	if (!strcmp(c.status, "PASS"))	/* the secret engine still listens */
		CHECK(strstr(c.detail, "each with a secret or allowed peers") != NULL);
	if (lo >= 0)
		close(lo);
	hixl_engine_finalize(sec);
}

const struct ht_test tools_tests[] = {
	{ "tools_check", test_tools_check },
	{ "tools_uring_probe", test_tools_uring_probe },
	{ "tools_check_limits", test_tools_check_limits },
	{ "tools_check_memlock", test_tools_check_memlock },
	{ "tools_check_access", test_tools_check_access },
	{ "tools_check_auth", test_tools_check_auth },
	{ NULL, NULL },
};
