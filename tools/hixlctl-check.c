// SPDX-License-Identifier: GPL-2.0
/*
 * hixlctl-check.c - `hixlctl check`: a preflight of everything an engine
 * needs, one line per check, each PASS, WARN or FAIL with the fix to apply.
 *
 * The checks, in order (hixlctl-sys.c has the machine's):
 *   module     hixl.ko loaded, its version and srcversion
 *   device     /dev/hixl: there, a character device, mode, owner, group
 *   access     whether the caller can open it (root, or its group)
 *   abi        GET_INFO's abi_version against the library's HIXL_ABI_VERSION
 *   limits     the module's per-process limits (against --size)
 *   memlock    RLIMIT_MEMLOCK (against --size), CAP_IPC_LOCK
 *   rdma:DEV   each RDMA device: netdevs, their IPs, port states
 *   hugepages, thp
 *   io_uring   io_uring_setup of the ring the library makes; io_uring_disabled
 *   uring_cmd  URING_CMD on /dev/hixl (hixl_dev_uring_probe(), the library's check)
 *   auth       engines that listen off loopback with neither a secret nor
 *              allowed peers (HIXL_IOC_ENGINES, HIXL_FEAT_ENGINE_AUTH)
 *
 * WARN: hixl works, but not as well as it could, or a check could not be
 * made because of an earlier FAIL.  FAIL: engines cannot be made, or the
 * memory the caller says it will register (--size) cannot be.  Exit status
 * 0 when nothing FAILs, 1 otherwise, 2 on a usage error.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <liburing.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "hixlctl.h"

#define CAP_IPC_LOCK_BIT	14	/* <linux/capability.h> CAP_IPC_LOCK */

struct check {
	char *name, *detail, *fix;
	enum check_status status;
};

static struct check *checks;
static size_t nchecks;

static const char *const status_str[] = { "PASS", "WARN", "FAIL" };

/* documented in hixlctl.h */
void check_add(const char *name, enum check_status status, const char *fix,
	       const char *fmt, ...)
{
	struct check *c;
	va_list ap;

	c = realloc(checks, (nchecks + 1) * sizeof(*checks));
	if (!c) {
		fprintf(stderr, "hixlctl: out of memory\n");
		exit(1);
	}
	checks = c;
	c = &checks[nchecks++];
	va_start(ap, fmt);
	if (vasprintf(&c->detail, fmt, ap) < 0)
		c->detail = NULL;
	va_end(ap);
	c->name = strdup(name);
	c->fix = strdup(fix ? fix : "");
	c->status = status;
	if (!c->detail || !c->name || !c->fix) {
		fprintf(stderr, "hixlctl: out of memory\n");
		exit(1);
	}
}

/* documented in hixlctl.h */
int parse_size(const char *s, unsigned long long *bytes)
{
	static const char units[] = "KMGT";
	unsigned long long n, mult = 1;
	const char *u;
	int c;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		c = *end >= 'a' && *end <= 'z' ? *end - 'a' + 'A' : *end;
		u = strchr(units, c);
		if (!u || !*u)
			return -1;
		for (int i = 0; i <= u - units; i++)
			mult *= 1024;
		end++;
		if (*end && strcmp(end, "iB") && strcmp(end, "B"))
			return -1;
	}
	if (n > UINT64_MAX / mult)
		return -1;
	*bytes = n * mult;
	return 0;
}

/* documented in hixlctl.h */
const char *fmt_bytes(unsigned long long b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = b;
	int i = 0;

	while (v >= 1024 && i < 6) {
		v /= 1024;
		i++;
	}
	if (!i || v == (unsigned long long)v)
		snprintf(buf, len, "%.0f %s", v, unit[i]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[i]);
	return buf;
}

/* documented in hixlctl.h */
int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Is hixl.ko installed for the running kernel (in its modules.dep)? */
static bool module_installed(void)
{
	char path[300], line[1024];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/hixl.ko:") || !strncmp(line, "hixl.ko:", 8) ||
			strstr(line, "/hixl.ko.xz:") || strstr(line, "/hixl.ko.zst:");
	fclose(f);
	return found;
}

/* module: /sys/module/hixl, its version (MODULE_VERSION) and srcversion */
static bool check_module(void)
{
	char version[64] = "", src[64] = "", state[32] = "";

	if (access("/sys/module/hixl", F_OK)) {
		bool installed = module_installed();

		check_add("module", CHECK_FAIL, installed ?
			  "sudo modprobe hixl" :
			  "build and install it for this kernel: make && sudo make install-module, "
			  "then sudo modprobe hixl (or, uninstalled: sudo modprobe -a ib_core rdma_cm "
			  "&& sudo insmod kmod/hixl.ko)",
			  "hixl.ko is not loaded (no /sys/module/hixl)%s",
			  installed ? "; it is installed for this kernel" : "");
		return false;
	}
	read_line("/sys/module/hixl/version", version, sizeof(version));
	read_line("/sys/module/hixl/srcversion", src, sizeof(src));
	if (!read_line("/sys/module/hixl/initstate", state, sizeof(state)) &&
	    strcmp(state, "live")) {
		check_add("module", CHECK_FAIL, "wait for it, or sudo rmmod hixl && sudo modprobe hixl",
			  "hixl.ko is %s, not live", state);
		return false;
	}
	check_add("module", CHECK_PASS, NULL, "hixl.ko %s loaded%s%s (library %s)",
		  *version ? version : "(no version)", *src ? ", srcversion " : "", src,
		  hixl_version());
	return true;
}

/* device: /dev/hixl exists and is a character device; its mode, owner, group */
static bool check_device(bool loaded, struct stat *st)
{
	char mode[11], owner[64], group[64];
	struct passwd *pw;
	struct group *gr;

	if (stat(HIXL_DEVICE_PATH, st)) {
		if (!loaded)
			check_add("device", CHECK_FAIL, "load hixl.ko (see module)",
				  "%s: %s", HIXL_DEVICE_PATH, strerror(errno));
		else
			check_add("device", CHECK_FAIL,
				  "sudo udevadm trigger --subsystem-match=misc --sysname-match=hixl, "
				  "or reload the module (sudo rmmod hixl && sudo modprobe hixl)",
				  "hixl.ko is loaded but %s: %s", HIXL_DEVICE_PATH, strerror(errno));
		return false;
	}
	if (!S_ISCHR(st->st_mode)) {
		check_add("device", CHECK_FAIL, "sudo rm " HIXL_DEVICE_PATH ", then reload the module",
			  "%s is not a character device", HIXL_DEVICE_PATH);
		return false;
	}
	snprintf(mode, sizeof(mode), "c%c%c%c%c%c%c%c%c%c",
		 st->st_mode & S_IRUSR ? 'r' : '-', st->st_mode & S_IWUSR ? 'w' : '-',
		 st->st_mode & S_IXUSR ? 'x' : '-', st->st_mode & S_IRGRP ? 'r' : '-',
		 st->st_mode & S_IWGRP ? 'w' : '-', st->st_mode & S_IXGRP ? 'x' : '-',
		 st->st_mode & S_IROTH ? 'r' : '-', st->st_mode & S_IWOTH ? 'w' : '-',
		 st->st_mode & S_IXOTH ? 'x' : '-');
	pw = getpwuid(st->st_uid);
	if (pw)
		snprintf(owner, sizeof(owner), "%s", pw->pw_name);
	else
		snprintf(owner, sizeof(owner), "%u", (unsigned)st->st_uid);
	gr = getgrgid(st->st_gid);
	if (gr)
		snprintf(group, sizeof(group), "%s", gr->gr_name);
	else
		snprintf(group, sizeof(group), "%u", (unsigned)st->st_gid);
	check_add("device", CHECK_PASS, NULL, "%s %s %s %s (%u:%u)%s", HIXL_DEVICE_PATH, mode,
		  owner, group, major(st->st_rdev), minor(st->st_rdev),
		  st->st_gid == 0 ? "; group root: no udev rule, only root may open it" : "");
	return true;
}

/* Is @gid one of the caller's groups (effective or supplementary)? */
static bool in_group(gid_t gid)
{
	gid_t groups[256];
	int n;

	if (getegid() == gid)
		return true;
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Does the group database list @user in @gid (primary group or member)? */
static bool listed_in_group(const struct passwd *pw, gid_t gid)
{
	struct group *gr = getgrgid(gid);

	if (pw->pw_gid == gid)
		return true;
	if (!gr)
		return false;
	for (char **m = gr->gr_mem; *m; m++)
		if (!strcmp(*m, pw->pw_name))
			return true;
	return false;
}

/* access: can the caller open /dev/hixl?  Returns the descriptor or -1. */
static int check_access(bool have_dev, const struct stat *st)
{
	struct passwd *pw = getpwuid(geteuid());
	const char *user = pw ? pw->pw_name : "USER";
	struct group *gr;
	char fix[512];
	int fd;

	if (!have_dev) {
		check_add("access", CHECK_WARN, "see device", "not checked: no %s", HIXL_DEVICE_PATH);
		return -1;
	}
	fd = hixl_dev_open(NULL);
	if (fd >= 0) {
		if (geteuid() == 0)
			check_add("access", CHECK_PASS, NULL, "the caller (root) can open it");
		else if (in_group(st->st_gid) && (st->st_mode & S_IRWXG) == (S_IRGRP | S_IWGRP))
			check_add("access", CHECK_PASS, NULL, "%s can open it (group %s)", user,
				  (gr = getgrgid(st->st_gid)) ? gr->gr_name : "?");
		else
			check_add("access", CHECK_PASS, NULL, "%s can open it", user);
		return fd;
	}
	if (fd != -EPERM) {	/* hixl_dev_open(): EACCES and EPERM of open(2) */
		check_add("access", CHECK_FAIL, "see module and device", "%s: %s",
			  HIXL_DEVICE_PATH, hixl_strerror(fd));
		return -1;
	}
	gr = getgrgid(st->st_gid);
	if (st->st_gid == 0)
		snprintf(fix, sizeof(fix), "give the node to group hixl: sudo groupadd --system hixl; "
			 "sudo make install-module (the udev rule); sudo udevadm trigger "
			 "--subsystem-match=misc --sysname-match=hixl; sudo usermod -aG hixl %s; "
			 "log in again", user);
	else if (pw && listed_in_group(pw, st->st_gid))
		snprintf(fix, sizeof(fix), "%s is in group %s, but this session is not: "
			 "log in again (or newgrp %s)", user, gr ? gr->gr_name : "?",
			 gr ? gr->gr_name : "?");
	else
		snprintf(fix, sizeof(fix), "sudo usermod -aG %s %s, then log in again",
			 gr ? gr->gr_name : "hixl", user);
	check_add("access", CHECK_FAIL, fix, "%s (uid %u) cannot open %s: Permission denied",
		  user, (unsigned)geteuid(), HIXL_DEVICE_PATH);
	return -1;
}

/* abi: GET_INFO answers with this library's HIXL_ABI_VERSION; fills @info */
static bool check_abi(int fd, struct hixl_info *info)
{
	int ret;

	if (fd < 0) {
		check_add("abi", CHECK_WARN, "see access", "not checked: %s not open",
			  HIXL_DEVICE_PATH);
		return false;
	}
	ret = hixl_dev_get_info(fd, info);
	if (ret == -EPROTO) {
		check_add("abi", CHECK_FAIL, "install the module and the library of one hixl "
			  "version: sudo make install install-module, then reload hixl.ko",
			  "hixl.ko speaks ABI %u, the library %d", info->abi_version,
			  HIXL_ABI_VERSION);
		return false;
	}
	if (ret) {
		check_add("abi", CHECK_FAIL, "install the module of this hixl version "
			  "(sudo make install-module), then reload it",
			  "GET_INFO: %s", strerror(-ret));
		return false;
	}
	check_add("abi", CHECK_PASS, NULL, "ABI %u (library %d), features 0x%llx",
		  info->abi_version, HIXL_ABI_VERSION, (unsigned long long)info->features);
	return true;
}

/* limits: the module's per-process limits; --size against max_host_bytes */
static void check_limits(const struct hixl_info *info, bool have, unsigned long long size)
{
	char host[32], dev[32], want[32], fix[512];

	if (!have) {
		check_add("limits", CHECK_WARN, "see abi", "not checked: no GET_INFO");
		return;
	}
	fmt_bytes(info->max_host_bytes, host, sizeof(host));
	fmt_bytes(info->max_device_bytes, dev, sizeof(dev));
	if (size > info->max_host_bytes) {
		snprintf(fix, sizeof(fix), "raise it: echo %llu | sudo tee "
			 "/sys/module/hixl/parameters/max_host_bytes (until the module is "
			 "reloaded), options hixl max_host_bytes=%llu in /etc/modprobe.d/hixl.conf",
			 size, size);
		check_add("limits", CHECK_FAIL, fix, "--size %s is more than the %s of host "
			  "memory hixl.ko lets one process register (max_host_bytes)",
			  fmt_bytes(size, want, sizeof(want)), host);
		return;
	}
	check_add("limits", CHECK_PASS, NULL, "per process: %llu registrations, %s host, %s "
		  "device memory; %u links per engine", (unsigned long long)info->max_regions,
		  host, dev, info->max_links);
}

/* Does the caller have CAP_IPC_LOCK in its effective set (/proc/self/status)? */
static bool has_ipc_lock(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ULL << CAP_IPC_LOCK_BIT);
}

/* memlock: RLIMIT_MEMLOCK, which registered host memory is charged to, against --size */
static void check_memlock(unsigned long long size)
{
	char cur[32], max[32], want[32], fix[512];
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		check_add("memlock", CHECK_WARN, NULL, "getrlimit(RLIMIT_MEMLOCK): %s",
			  strerror(errno));
		return;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(cur, sizeof(cur), "unlimited");
	else
		fmt_bytes(rl.rlim_cur, cur, sizeof(cur));
	if (rl.rlim_max == RLIM_INFINITY)
		snprintf(max, sizeof(max), "unlimited");
	else
		fmt_bytes(rl.rlim_max, max, sizeof(max));
	if (has_ipc_lock()) {
		check_add("memlock", CHECK_PASS, NULL, "CAP_IPC_LOCK: registrations are not held "
			  "to RLIMIT_MEMLOCK (%s, hard %s)", cur, max);
		return;
	}
	if (!size || rl.rlim_cur == RLIM_INFINITY || size <= rl.rlim_cur) {
		check_add("memlock", CHECK_PASS, NULL, "RLIMIT_MEMLOCK %s (hard %s)%s%s", cur, max,
			  size ? ": enough for --size " : "; --size tells whether it is enough",
			  size ? fmt_bytes(size, want, sizeof(want)) : "");
		return;
	}
	fmt_bytes(size, want, sizeof(want));
	if (rl.rlim_max == RLIM_INFINITY || size <= rl.rlim_max) {
		snprintf(fix, sizeof(fix), "ulimit -l %llu in the shell that starts the program "
			 "(within the hard limit)", (size + 1023) / 1024);
		check_add("memlock", CHECK_WARN, fix, "--size %s is more than RLIMIT_MEMLOCK %s "
			  "(hard %s): registrations beyond it fail with ENOMEM", want, cur, max);
		return;
	}
	check_add("memlock", CHECK_FAIL, "raise it: '@hixl - memlock unlimited' in "
		  "/etc/security/limits.d/hixl.conf, then log in again (LimitMEMLOCK=infinity "
		  "for a systemd service); or run with CAP_IPC_LOCK",
		  "--size %s is more than RLIMIT_MEMLOCK %s and its hard limit %s: "
		  "registrations beyond it fail with ENOMEM", want, cur, max);
}

/* io_uring: the ring the library makes (SQE128 | CQE32); kernel.io_uring_disabled */
static void check_io_uring(void)
{
	struct io_uring_params p;
	char dis[16] = "", grp[16] = "", sysctl[64] = "";
	struct io_uring r;
	int ret;

	if (!read_line("/proc/sys/kernel/io_uring_disabled", dis, sizeof(dis)))
		snprintf(sysctl, sizeof(sysctl), "kernel.io_uring_disabled=%s", dis);
	else
		snprintf(sysctl, sizeof(sysctl), "no kernel.io_uring_disabled (before 6.6)");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(4, &r, &p);
	if (!ret) {
		io_uring_queue_exit(&r);
		check_add("io_uring", CHECK_PASS, NULL, "io_uring_setup (SQE128, CQE32) works; %s",
			  sysctl);
		return;
	}
	if (ret == -EPERM && !strcmp(dis, "1")) {
		read_line("/proc/sys/kernel/io_uring_group", grp, sizeof(grp));
		check_add("io_uring", CHECK_WARN, "sudo sysctl kernel.io_uring_disabled=0, or add "
			  "the user to kernel.io_uring_group; until then asynchronous transfers use "
			  "worker threads", "io_uring_setup: %s: %s, and the caller is not in "
			  "kernel.io_uring_group (%s)", strerror(-ret), sysctl, *grp ? grp : "?");
		return;
	}
	if (ret == -EPERM && !strcmp(dis, "2")) {
		check_add("io_uring", CHECK_WARN, "sudo sysctl kernel.io_uring_disabled=0; until "
			  "then asynchronous transfers use worker threads",
			  "io_uring_setup: %s: %s (io_uring is off)", strerror(-ret), sysctl);
		return;
	}
	check_add("io_uring", CHECK_WARN, ret == -ENOSYS ?
		  "a kernel with CONFIG_IO_URING; until then asynchronous transfers use worker threads" :
		  ret == -EINVAL ? "a kernel with 128-byte SQEs (5.19 or later); until then "
		  "asynchronous transfers use worker threads" :
		  "asynchronous transfers use worker threads meanwhile",
		  "io_uring_setup (SQE128, CQE32): %s; %s", strerror(-ret), sysctl);
}

/* uring_cmd: URING_CMD on /dev/hixl, as hixl_engine_init() checks it */
static void check_uring_cmd(int fd, const struct hixl_info *info, bool have)
{
	const char *no = getenv("HIXL_NO_URING");
	int ret;

	if (no && *no && strcmp(no, "0")) {
		check_add("uring_cmd", CHECK_WARN, "unset HIXL_NO_URING",
			  "HIXL_NO_URING=%s: engines started from this environment use worker "
			  "threads, not io_uring", no);
		return;
	}
	if (fd < 0 || !have) {
		check_add("uring_cmd", CHECK_WARN, "see access and abi",
			  "not checked: no usable %s", HIXL_DEVICE_PATH);
		return;
	}
	if (!(info->features & HIXL_FEAT_URING_CMD)) {
		check_add("uring_cmd", CHECK_WARN, "install the module of this hixl version "
			  "(sudo make install-module), then reload it",
			  "hixl.ko does not offer URING_CMD (no HIXL_FEAT_URING_CMD): "
			  "asynchronous transfers use worker threads");
		return;
	}
	ret = hixl_dev_uring_probe(fd);
	if (ret) {
		check_add("uring_cmd", CHECK_WARN, "see io_uring; asynchronous transfers use "
			  "worker threads meanwhile", "a URING_CMD (CANCEL probe) on %s: %s",
			  HIXL_DEVICE_PATH, strerror(-ret));
		return;
	}
	check_add("uring_cmd", CHECK_PASS, NULL, "URING_CMD on %s works: asynchronous "
		  "transfers go through io_uring", HIXL_DEVICE_PATH);
}

/* Is @a on 127.0.0.0/8 or ::1, where the module makes a loopback engine? */
static bool loopback_name(const struct hixl_sockaddr *a)
{
	static const uint8_t v6_loop[16] = { [15] = 1 };

	if (a->family == AF_INET)
		return a->addr[0] == 127;
	return a->family == AF_INET6 && !memcmp(a->addr, v6_loop, sizeof(v6_loop));
}

/* Every engine the caller sees (HIXL_IOC_ENGINES): *@out, *@n of them; 0 or -errno. */
static int read_engines(int fd, struct hixl_engine_stat **out, uint32_t *n)
{
	struct hixl_engine_stat *es = NULL;
	uint32_t total = 0, cnt;
	int ret = 0;

	/* engines come and go between the calls: ask until the room was enough */
	for (int tries = 0; tries < 8; tries++) {
		ret = hixl_dev_engines(fd, NULL, 0, &total);
		if (ret < 0)
			break;
		free(es);
		cnt = total + 8;
		es = calloc(cnt, sizeof(*es));
		if (!es) {
			ret = -ENOMEM;
			break;
		}
		ret = hixl_dev_engines(fd, es, cnt, &total);
		if (ret < 0 || total <= cnt)
			break;
	}
	if (ret < 0) {
		free(es);
		return ret;
	}
	*out = es;
	*n = (uint32_t)ret;
	return 0;
}

/* Append @s to the list @buf (@len bytes), ", "-separated. */
static void list_append(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? ", " : "", s);
}

#define AUTH_LIST_MAX	8	/* engines an auth line names; the rest are counted */

/*
 * auth: an engine that listens (port > 0, LISTEN_ANY's included) on an
 * address outside 127.0.0.0/8 and ::1 with neither a secret nor allowed
 * peers can be impersonated (docs/abi.md, "Who may connect").  ENGINES
 * says which have them when the module has HIXL_FEAT_ENGINE_AUTH; an
 * engine whose device side was being changed (BUSY) shows no address and
 * is left out.
 */
static void check_auth(int fd, const struct hixl_info *info, bool have)
{
	bool known = have && (info->features & HIXL_FEAT_ENGINE_AUTH);
	uint32_t n = 0, seen = 0, off = 0, open = 0, peers_only = 0;
	struct hixl_engine_stat *es = NULL;
	char list[1024] = "", name[HIXL_ENGINE_NAME_MAX], item[160];
	int ret;

	if (fd < 0 || !have) {
		check_add("auth", CHECK_WARN, "see access and abi",
			  "not checked: no usable %s", HIXL_DEVICE_PATH);
		return;
	}
	if (!(info->features & HIXL_FEAT_XFER_STATS)) {
		check_add("auth", CHECK_WARN, "install the module of this hixl version "
			  "(sudo make install-module), then reload it",
			  "not checked: hixl.ko does not list engines (no HIXL_FEAT_XFER_STATS)");
		return;
	}
	ret = read_engines(fd, &es, &n);
	if (ret) {
		check_add("auth", CHECK_WARN, "see abi", "not checked: ENGINES: %s",
			  strerror(-ret));
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct hixl_engine_stat *e = &es[i];

		if (e->flags & HIXL_ENGINE_STAT_SELF)
			continue;	/* hixlctl's own descriptor */
		seen++;
		if (!(e->flags & HIXL_ENGINE_STAT_SETUP) || !e->local.port ||
		    loopback_name(&e->local))
			continue;
		off++;
		if (known && (e->flags & HIXL_ENGINE_STAT_SECRET))
			continue;
		if (known && (e->flags & HIXL_ENGINE_STAT_ALLOWED)) {
			peers_only++;
			continue;
		}
		if (open++ >= AUTH_LIST_MAX)
			continue;
		if (hixl_format_engine_name(&e->local, name, sizeof(name)))
			snprintf(name, sizeof(name), "?");
		snprintf(item, sizeof(item), "%" PRIu64 " on %s (pid %u)", (uint64_t)e->id, name,
			 e->pid);
		list_append(list, sizeof(list), item);
	}
	free(es);
	if (open > AUTH_LIST_MAX) {
		snprintf(item, sizeof(item), "%u more", open - AUTH_LIST_MAX);
		list_append(list, sizeof(list), item);
	}
	if (open && !known) {
		check_add("auth", CHECK_WARN, "install the module of this hixl version "
			  "(sudo make install-module) and reload it; meanwhile give each a secret "
			  "of 32 random bytes (HIXL_SETUP_SECRET, the library's AuthSecret or "
			  "AuthSecretFile; docs/abi.md 'Who may connect')",
			  "cannot tell whether engine%s %s, listening off loopback, %s a secret or "
			  "allowed peers: hixl.ko does not say (no HIXL_FEAT_ENGINE_AUTH)",
			  open > 1 ? "s" : "", list, open > 1 ? "have" : "has");
		return;
	}
	if (open) {
		check_add("auth", CHECK_WARN, "set a secret of 32 random bytes, the same on every "
			  "engine it talks to: HIXL_SETUP_SECRET, or the library's AuthSecret or "
			  "AuthSecretFile (docs/abi.md 'Who may connect')",
			  "engine%s %s listen%s off loopback with neither a secret nor allowed "
			  "peers: whoever can send from a peer's address can pass for that peer",
			  open > 1 ? "s" : "", list, open > 1 ? "" : "s");
		return;
	}
	if (!off)
		check_add("auth", CHECK_PASS, NULL, "no engine listens off loopback (%u engine%s "
			  "open)", seen, seen == 1 ? "" : "s");
	else
		check_add("auth", CHECK_PASS, NULL, "%u engine%s listen%s off loopback, each with "
			  "a secret or allowed peers%s", off, off > 1 ? "s" : "", off > 1 ? "" : "s",
			  peers_only ? " (some with allowed peers only: they filter source "
			  "addresses, which can be spoofed)" : "");
}

/* Print @s as a JSON string. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			printf("\\n");
		else if (c == '\t')
			printf("\\t");
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* The report: aligned lines, or one JSON object; returns the exit status. */
static int report(bool json)
{
	bool ok = true;
	int w = 0;

	for (size_t i = 0; i < nchecks; i++) {
		ok &= checks[i].status != CHECK_FAIL;
		if ((int)strlen(checks[i].name) > w)
			w = strlen(checks[i].name);
	}
	if (json) {
		printf("{\"ok\": %s, \"checks\": [", ok ? "true" : "false");
		for (size_t i = 0; i < nchecks; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(checks[i].name);
			printf(", \"status\": \"%s\", \"detail\": ", status_str[checks[i].status]);
			json_str(checks[i].detail);
			printf(", \"fix\": ");
			json_str(checks[i].fix);
			printf("}");
		}
		printf("]}\n");
	} else {
		for (size_t i = 0; i < nchecks; i++)
			printf("%s  %-*s  %s%s%s\n", status_str[checks[i].status], w, checks[i].name,
			       checks[i].detail, *checks[i].fix ? "  -- fix: " : "", checks[i].fix);
	}
	return ok ? 0 : 1;
}

/* documented in hixlctl.h */
int cmd_check(int argc, char **argv)
{
	unsigned long long size = 0;
	struct hixl_info info;
	bool json = false, loaded, dev, have_info;
	struct stat st;
	int fd;

	for (int i = 0; i < argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--size=", 7))
			v = argv[i] + 7;
		if (!v) {
			fprintf(stderr, "hixlctl check: unknown argument '%s' "
				"(usage: hixlctl check [--size BYTES] [--json])\n", argv[i]);
			return 2;
		}
		if (parse_size(v, &size) || !size) {
			fprintf(stderr, "hixlctl check: --size '%s': a byte count > 0, "
				"optionally with K, M, G or T (e.g. 64G)\n", v);
			return 2;
		}
	}
	loaded = check_module();
	dev = check_device(loaded, &st);
	fd = check_access(dev, &st);
	have_info = check_abi(fd, &info);
	check_limits(&info, have_info, size);
	check_memlock(size);
	check_rdma();
	check_hugepages();
	check_io_uring();
	check_uring_cmd(fd, &info, have_info);
	check_auth(fd, &info, have_info);
	if (fd >= 0)
		close(fd);
	return report(json);
}
