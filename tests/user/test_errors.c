// SPDX-License-Identifier: GPL-2.0
/*
 * test_errors.c - user tests of errors that name their cause: the status
 * mapping of the errnos hixl chooses (hixl_status_from_errno(): ENOPKG
 * HIXL_NO_MODULE, EPERM HIXL_NO_PERMISSION), hixl_strerror() and
 * hixl_error_hint(), a missing device (hixl_dev_open() on a path that does
 * not exist; hixl_engine_init() on a host without /dev/hixl) and a caller
 * who may not open it (nobody, with the node root:root 0660, in the VM):
 * the library's answer, hixl_last_error() and what the README's example
 * (examples/kv_transfer) prints; the module's dynamic debug line for a
 * refused argument (errors_dyndbg); a refused option or environment
 * variable named with what it accepts (errors_option_names).  No engine
 * listens: no ports used.
 * errors_status, errors_strerror, errors_no_module and errors_option_names
 * run on the build host
 * (make check-host); errors_no_module skips where /dev/hixl exists, and
 * errors_no_permission needs it (the VM).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"
#include "util.h"

#define KV_EXAMPLE	"examples/kv_transfer"
#define NOBODY		65534

/* every errno value by name (strerrorname_np()), 0 when @name is none */
static int errno_by_name(const char *name)
{
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

/* the whole errno -> status table is lib_status's (test_lib.c); here the two appended */
static void test_errors_status(void)
{
	/* appended after HIXL_FAILED: no upstream value moved */
	CHECK_EQ(HIXL_FAILED, 8);
	CHECK_EQ(HIXL_NO_MODULE, 9);
	CHECK_EQ(HIXL_NO_PERMISSION, 10);
	CHECK(!strcmp(hixl_status_str(HIXL_NO_MODULE), "NO_MODULE"));
	CHECK(!strcmp(hixl_status_str(HIXL_NO_PERMISSION), "NO_PERMISSION"));
	CHECK(!strcmp(hixl_status_str(HIXL_FAILED), "FAILED"));
	CHECK(!strcmp(hixl_status_str((enum hixl_status)11), "UNKNOWN"));
}

/*
 * Every errno the public headers and docs/abi.md name (a word E[A-Z0-9]+
 * that strerrorname_np() knows) has a meaning of hixl's own, not the C
 * library's words; the ones the issue names say what hixl means; unknown
 * numbers fall back; hints exist for the causes outside the program.
 * Reads the files from the repo (run from its top, as make check-host does).
 */
static void test_errors_strerror(void)
{
	static const char *const files[] = {
		"lib/include/hixl/hixl.h", "lib/include/hixl/physmem.h",
		"lib/include/hixl/prof.h", "docs/abi.md",
	};
	unsigned int named = 0;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		FILE *fp = fopen(files[f], "r");
		char line[1024];

		if (!fp)
			SKIP("not run from the repo (no lib/include/hixl/hixl.h)");
		while (fgets(line, sizeof(line), fp)) {
			for (char *p = line; (p = strchr(p, 'E')); ) {
				char word[32];
				size_t n = 0;
				int e;

				if (p > line && (p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z') ||
						 (p[-1] >= 'a' && p[-1] <= 'z'))) {
					p++;
					continue;
				}
				while (n < sizeof(word) - 1 && ((p[n] >= 'A' && p[n] <= 'Z') ||
								(p[n] >= '0' && p[n] <= '9')))
					word[n] = p[n], n++;
				word[n] = '\0';
				p += n ? n : 1;
				e = n > 2 ? errno_by_name(word) : 0;
				if (!e)
					continue;
				named++;
				if (!strcmp(hixl_strerror(-e), strerrordesc_np(e)) ||
				    strchr(hixl_strerror(e), '\n'))
					printf("#   %s: %s has no meaning of hixl's: \"%s\"\n",
					       files[f], word, hixl_strerror(-e));
				CHECK(strcmp(hixl_strerror(-e), strerrordesc_np(e)) != 0);
				CHECK(!strcmp(hixl_strerror(-e), hixl_strerror(e)));
			}
		}
		fclose(fp);
	}
	CHECK(named > 100);	/* the scan found the documented errnos */

	CHECK(strstr(hixl_strerror(-ERANGE), "remote range") != NULL);
	CHECK(strstr(hixl_strerror(-ERANGE), "peer registered") != NULL);
	CHECK(strstr(hixl_strerror(-EXDEV), "route") != NULL);
	CHECK(strstr(hixl_strerror(-EBADFD), "not set up") != NULL);
	CHECK(strstr(hixl_strerror(-ENOPKG), "hixl.ko is not loaded") != NULL);
	CHECK(strstr(hixl_strerror(-EPERM), "/dev/hixl") != NULL);
	CHECK(!strcmp(hixl_strerror(0), "success"));
	CHECK(!strcmp(hixl_strerror(-ESTALE), strerrordesc_np(ESTALE)));	/* not hixl's */
	CHECK(!strcmp(hixl_strerror(-4000), "unknown error"));
	CHECK(!strcmp(hixl_strerror(4000), "unknown error"));

	CHECK(strstr(hixl_error_hint(-ENOPKG), "modprobe hixl") != NULL);
	CHECK(strstr(hixl_error_hint(-ENOPKG), "make install-module") != NULL);
	CHECK(strstr(hixl_error_hint(-EPERM), "usermod -aG hixl") != NULL);
	CHECK(strstr(hixl_error_hint(-ENOMEM), "ulimit -l") != NULL);
	CHECK(strstr(hixl_error_hint(-ENOMEM), "hixlctl check --size") != NULL);
	CHECK(strstr(hixl_error_hint(-EADDRNOTAVAIL), "rdma link add rxe0 type rxe") != NULL);
	CHECK(strstr(hixl_error_hint(-ENODEV), "hixlctl check") != NULL);
	CHECK(strstr(hixl_error_hint(EINVAL), "dynamic_debug") != NULL);
	CHECK(!strcmp(hixl_error_hint(-ERANGE), ""));	/* the program's own: no hint */
	CHECK(!strcmp(hixl_error_hint(-4000), ""));
	CHECK(!strcmp(hixl_error_hint(0), ""));
}

/*
 * Run @cmd (through sh, stderr into stdout) into @out; returns the exit
 * status, -1 when it did not exit.
 */
static int run(const char *cmd, char *out, size_t len)
{
	size_t n = 0, got;
	FILE *p = popen(cmd, "r");
	int st;

	out[0] = '\0';
	if (!p)
		return -1;
	while (n < len - 1 && (got = fread(out + n, 1, len - 1 - n, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	printf("#   %s: exit status %d\n", cmd, st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * No module: hixl_dev_open() of a node that does not exist is -ENOPKG
 * (HIXL_NO_MODULE), errno untouched; where /dev/hixl does not exist (the
 * build hosts), hixl_engine_init() says so and how to load the module, and
 * the README's example prints the meaning and the hint and exits 77.
 */
static void test_errors_no_module(void)
{
	struct hixl_engine *e = NULL;
	static char out[8192];
	int saved, rc;

	errno = 1234;
	CHECK_EQ(hixl_dev_open("/nonexistent/hixl"), -ENOPKG);
	saved = errno;
	CHECK_EQ(saved, 1234);
	CHECK_EQ(hixl_status_from_errno(hixl_dev_open("/nonexistent/hixl")), HIXL_NO_MODULE);
	if (!access(HIXL_DEVICE_PATH, F_OK))
		SKIP("the device node exists here (module loaded): errors_no_permission runs");
	CHECK_EQ(hixl_dev_open(NULL), -ENOPKG);
	CHECK_EQ(hixl_engine_init(&e, HX_IP ":0", NULL, 0), -ENOPKG);
	CHECK(e == NULL);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "hixl_engine_init(" HX_IP ":0): no /dev/hixl") != NULL);
	CHECK(strstr(hixl_last_error(), "hixl.ko is not loaded") != NULL);
	CHECK(strstr(hixl_last_error(), "modprobe hixl") != NULL);
	CHECK(strstr(hixl_last_error(), "(-ENOPKG)") != NULL);

	if (access(KV_EXAMPLE, X_OK))
		SKIP(KV_EXAMPLE " not built (run from the repo after make)");
	rc = run(KV_EXAMPLE " 2>&1", out, sizeof(out));
	printf("%s", out);
	CHECK_EQ(rc, 77);
	CHECK(strstr(out, "hixl.ko is not loaded") != NULL);
	CHECK(strstr(out, "NO_MODULE") != NULL);
	CHECK(strstr(out, "hint: ") != NULL);
	CHECK(strstr(out, "modprobe hixl") != NULL);
}

/*
 * No permission: with /dev/hixl root:root 0660 (the module's node without
 * the udev rule), nobody (uid and gid 65534, no supplementary groups)
 * gets -EPERM from hixl_dev_open() and hixl_engine_init(), which
 * hixl_status_from_errno() makes HIXL_NO_PERMISSION, a last error naming
 * the group to join; the example prints the meaning and the hint.  The
 * node's owner and mode are restored at the end.
 */
static void test_errors_no_permission(void)
{
	static char out[8192];
	struct stat st;
	pid_t pid;
	int ws, rc;

	if (stat(HIXL_DEVICE_PATH, &st))
		SKIP("no /dev/hixl: hixl.ko not loaded");
	if (geteuid() != 0)
		SKIP("not root: cannot change the node or become nobody");
	REQUIRE(chown(HIXL_DEVICE_PATH, 0, 0) == 0);
	REQUIRE(chmod(HIXL_DEVICE_PATH, 0660) == 0);

	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {		/* nobody: the checks' verdict is the exit status */
		struct hixl_engine *e = NULL;
		int bad = 0, ret;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		bad |= hixl_dev_open(NULL) != -EPERM;
		ret = hixl_engine_init(&e, HX_IP, NULL, 0);
		printf("#   as nobody: %d %s\n", ret, hixl_last_error());
		bad |= ret != -EPERM || e;
		bad |= hixl_status_from_errno(ret) != HIXL_NO_PERMISSION;
		bad |= !strstr(hixl_last_error(), "/dev/hixl: not in its group hixl");
		bad |= !strstr(hixl_last_error(), "usermod -aG hixl");
		bad |= !strstr(hixl_last_error(), "(-EPERM)");
		fflush(stdout);
		_exit(bad ? 1 : 0);
	}
	REQUIRE(waitpid(pid, &ws, 0) == pid);
	CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);

	if (access(KV_EXAMPLE, X_OK) == 0 && access("/usr/bin/setpriv", X_OK) == 0) {
		rc = run("setpriv --reuid=65534 --regid=65534 --clear-groups " KV_EXAMPLE " 2>&1",
			 out, sizeof(out));
		printf("%s", out);
		CHECK_EQ(rc, 1);
		CHECK(strstr(out, "NO_PERMISSION") != NULL);
		CHECK(strstr(out, "hint: ") != NULL);
		CHECK(strstr(out, "usermod -aG hixl") != NULL);
	} else {
		printf("#   " KV_EXAMPLE " or setpriv missing: the example not run\n");
	}
	CHECK(chmod(HIXL_DEVICE_PATH, st.st_mode & 07777) == 0);
	CHECK(chown(HIXL_DEVICE_PATH, st.st_uid, st.st_gid) == 0);
}

#define DDEBUG_CONTROL	"/sys/kernel/debug/dynamic_debug/control"

/* write @cmd to dynamic debug's control file: 0, or -1 */
static int ddebug(const char *cmd)
{
	int fd = open(DDEBUG_CONTROL, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd);
	close(fd);
	return ok ? 0 : -1;
}

/* the kernel log written after @fd was opened at its end, into @buf */
static void kmsg_read(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t got;

	buf[0] = '\0';
	while (n + 1024 < len && (got = read(fd, buf + n, len - 1 - n)) > 0) {
		n += got;
		buf[n] = '\0';
	}
}

/*
 * The module says why it refuses an argument: with "module hixl +p" in
 * dynamic debug, REG_MEM with an unknown flag, GET_INFO with a reserved
 * field, CANCEL of tag 0 and TRANSFER of count 0 each log one line naming
 * the command and the field; without it, none.  Dynamic debug is turned
 * off again at the end.
 */
static void test_errors_dyndbg(void)
{
	static char log[1 << 16];
	struct hixl_reg_mem r;
	struct hixl_info info;
	struct hixl_cancel c;
	struct hixl_transfer t;
	int fd = open_dev(), k;

	if (access(DDEBUG_CONTROL, W_OK))
		SKIP("no " DDEBUG_CONTROL " (no CONFIG_DYNAMIC_DEBUG, or debugfs not mounted)");
	k = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	REQUIRE(fd >= 0 && k >= 0);
	REQUIRE(lseek(k, 0, SEEK_END) >= 0);
	REQUIRE(ddebug("module hixl +p") == 0);

	memset(&r, 0, sizeof(r));
	r.addr = 4096;
	r.len = 4096;
	r.type = HIXL_MEM_HOST;
	r.dmabuf_fd = -1;
	r.flags = 0x40000000;
	CHECK_EQ(xioctl(fd, HIXL_IOC_REG_MEM, &r), -EINVAL);
	memset(&info, 0, sizeof(info));
	info.reserved0 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), -EINVAL);
	memset(&c, 0, sizeof(c));
	CHECK_EQ(xioctl(fd, HIXL_IOC_CANCEL, &c), -EINVAL);
	memset(&t, 0, sizeof(t));
	t.op = HIXL_OP_WRITE;
	t.timeout_ms = 1000;
	CHECK_EQ(xioctl(fd, HIXL_IOC_TRANSFER, &t), -EINVAL);
	CHECK(ddebug("module hixl -p") == 0);
	kmsg_read(k, log, sizeof(log));
	printf("%s", log);
	CHECK(strstr(log, "hixl: REG_MEM: flags 0x40000000 has unknown bits") != NULL);
	CHECK(strstr(log, "hixl: GET_INFO: reserved is not zero") != NULL);
	CHECK(strstr(log, "hixl: CANCEL: tag 0") != NULL);
	CHECK(strstr(log, "hixl: TRANSFER: count 0 (1..") != NULL);

	/* off again: the same refusal says nothing */
	REQUIRE(lseek(k, 0, SEEK_END) >= 0);
	CHECK_EQ(xioctl(fd, HIXL_IOC_REG_MEM, &r), -EINVAL);
	kmsg_read(k, log, sizeof(log));
	CHECK(strstr(log, "REG_MEM: flags") == NULL);
	close(k);
	close(fd);
}

/*
 * A refused option or environment variable is named in hixl_last_error(),
 * with its value (never a secret's) and what it accepts, before the device
 * is opened (so also on a host without the module): each case alone, the
 * rest of the environment clean.  A message longer than the last error
 * holds is cut short, never its errno name.
 */
static void test_errors_option_names(void)
{
	static const struct {
		const char *key, *value;	/* an option, or with key NULL ... */
		const char *var, *env;		/* ... an environment variable */
		int err;
		const char *want[3];		/* in hixl_last_error(), in order */
	} cases[] = {
		{ "RdmaTrafficClass", "999", NULL, NULL, -EINVAL,
		  { "option RdmaTrafficClass \"999\"", "0..255, a multiple of 4", "(-EINVAL)" } },
		{ "RdmaServiceLevel", "8", NULL, NULL, -EINVAL,
		  { "option RdmaServiceLevel \"8\"", "0..7", "(-EINVAL)" } },
		{ "BufferPool", "abc", NULL, NULL, -EINVAL,
		  { "option BufferPool \"abc\"", "BUFFERS 1..256, MB 1..1024", "(-EINVAL)" } },
		{ "Transport", "fast", NULL, NULL, -EINVAL,
		  { "option Transport \"fast\"", "auto, rdma or local", "(-EINVAL)" } },
		{ "Rails", "10.0.0.1:5", NULL, NULL, -EINVAL,
		  { "option Rails \"10.0.0.1:5\"", "up to 7 IP addresses", "(-EINVAL)" } },
		{ "AutoConnect", "yes", NULL, NULL, -EINVAL,
		  { "option AutoConnect \"yes\"", "1, true, 0 or false", "(-EINVAL)" } },
		{ "AllowedPeers", "10.0.0.1/99", NULL, NULL, -EINVAL,
		  { "option AllowedPeers \"10.0.0.1/99\"", "ADDRESS/PREFIXLEN", "(-EINVAL)" } },
		{ "AuthSecret", "tooshort-secret", NULL, NULL, -EINVAL,
		  { "option AuthSecret \"...\"", "16..128 bytes", "(-EINVAL)" } },
		{ "AuthSecretFile", "/nonexistent/key", NULL, NULL, -ENOENT,
		  { "option AuthSecretFile \"/nonexistent/key\"", "a readable file", "(-ENOENT)" } },
		{ "EngineType", "1", NULL, NULL, -EINVAL,
		  { "unknown option \"EngineType\"", "known: BufferPool", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_RDMA_TC", "7", -EINVAL,
		  { "environment HIXL_RDMA_TC=7", "0..255, a multiple of 4", "(-EINVAL)" } },
		{ NULL, NULL, "HCCL_RDMA_TC", "999", -EINVAL,
		  { "environment HCCL_RDMA_TC=999", "0..255, a multiple of 4", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_RDMA_SL", "x", -EINVAL,
		  { "environment HIXL_RDMA_SL=x", "0..7", "(-EINVAL)" } },
		{ NULL, NULL, "HCCL_RDMA_SL", "8", -EINVAL,
		  { "environment HCCL_RDMA_SL=8", "0..7", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_AUTO_CONNECT", "on", -EINVAL,
		  { "environment HIXL_AUTO_CONNECT=on", "1, true, 0 or false", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_TRANSPORT", "fast", -EINVAL,
		  { "environment HIXL_TRANSPORT=fast", "auto, rdma or local", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_RAILS", "eth1", -EINVAL,
		  { "environment HIXL_RAILS=eth1", "up to 7 IP addresses", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_ALLOWED_PEERS", "", -EINVAL,
		  { "environment HIXL_ALLOWED_PEERS=", "ADDRESS/PREFIXLEN", "(-EINVAL)" } },
		{ NULL, NULL, "HIXL_AUTH_SECRET_FILE", "/nonexistent/key", -ENOENT,
		  { "environment HIXL_AUTH_SECRET_FILE=/nonexistent/key", "16..128 bytes",
		    "(-ENOENT)" } },
	};
	static const char *const vars[] = {
		"HIXL_RDMA_TC", "HCCL_RDMA_TC", "HIXL_RDMA_SL", "HCCL_RDMA_SL", "HIXL_AUTO_CONNECT",
		"HIXL_TRANSPORT", "HIXL_RAILS", "HIXL_ALLOWED_PEERS", "HIXL_AUTH_SECRET_FILE",
	};
	/* the longest name and an unknown key: more than 255 characters */
	static const char long_name[] = "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff%4294967295]:65535";
	struct hixl_option o[1];
	struct hixl_engine *e;

	for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]); v++)
		unsetenv(vars[v]);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *msg, *at;
		int ret;

		e = NULL;
		if (cases[i].var)
			setenv(cases[i].var, cases[i].env, 1);
		o[0].key = cases[i].key;
		o[0].value = cases[i].value;
		ret = hixl_engine_init(&e, HX_IP ":0", cases[i].key ? o : NULL, cases[i].key ? 1 : 0);
		if (cases[i].var)
			unsetenv(cases[i].var);
		msg = hixl_last_error();
		printf("#   %s\n", msg);
		CHECK_EQ(ret, cases[i].err);
		CHECK(e == NULL);
		at = strstr(msg, "hixl_engine_init(" HX_IP ":0): ");
		for (int w = 0; w < 3 && at; w++)
			at = strstr(at, cases[i].want[w]);
		if (!at) {
			printf("#   case %zu: wanted \"%s\", \"%s\", \"%s\" in that order\n", i,
			       cases[i].want[0], cases[i].want[1], cases[i].want[2]);
			ht_failures++;
		}
	}
	/* the secret's value is never in the message */
	o[0].key = "AuthSecret";
	o[0].value = "tooshort-secret";
	CHECK_EQ(hixl_engine_init(&e, HX_IP ":0", o, 1), -EINVAL);
	CHECK(strstr(hixl_last_error(), "tooshort") == NULL);
	/* cut short, the errno name kept */
	o[0].key = "SomeAscendOnlyOptionKeyThatIsLong";
	o[0].value = "1";
	CHECK_EQ(hixl_engine_init(&e, long_name, o, 1), -EINVAL);
	printf("#   %s\n", hixl_last_error());
	CHECK_EQ(strlen(hixl_last_error()), 255);
	CHECK(strstr(hixl_last_error(), "unknown option \"SomeAscendOnly") != NULL);
	CHECK(strstr(hixl_last_error(), "...: Invalid argument (-EINVAL)") != NULL);
	/* a name that is none */
	CHECK_EQ(hixl_engine_init(&e, "10.0.0.1:99999", NULL, 0), -EINVAL);
	printf("#   %s\n", hixl_last_error());
	CHECK(strstr(hixl_last_error(), "hixl_engine_init(10.0.0.1:99999): not an engine name") != NULL);
}

const struct ht_test errors_tests[] = {
	{ "errors_status", test_errors_status },
	{ "errors_strerror", test_errors_strerror },
	{ "errors_no_module", test_errors_no_module },
	{ "errors_option_names", test_errors_option_names },
	{ "errors_no_permission", test_errors_no_permission },
	{ "errors_dyndbg", test_errors_dyndbg },
	{ NULL, NULL },
};
