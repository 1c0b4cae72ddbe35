// SPDX-License-Identifier: GPL-2.0
/*
 * test_dev.c - /dev/hixl as a device: the node, GET_INFO, and the ioctl
 * decoding rules of uapi/rdma/hixl.h (-ENOTTY for numbers that are not ours,
 * -EINVAL for ours with a wrong size or direction, unknown flags or
 * non-zero reserved fields, -EFAULT for bad pointers).
 */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <hixl/hixl.h>
#include "tests.h"

void test_dev_node(void);
void test_get_info(void);
void test_get_info_lib(void);
void test_bad_ioctl_numbers(void);
void test_bad_sizes(void);
void test_bad_flags_and_reserved(void);
void test_bad_pointers(void);
void test_many_engines(void);
void test_fork_shares_engine(void);
void test_unload_busy(void);
void test_unprivileged_open(void);
#include "util.h"

void test_dev_node(void)
{
	struct stat st;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	REQUIRE(stat(HIXL_DEVICE_PATH, &st) == 0);
	CHECK(S_ISCHR(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0660);
	CHECK_EQ(st.st_uid, 0);
	/* misc 10:248, the fixed minor of its devname: alias (kmod/main.c
	 * HIXL_MISC_MINOR): the node systemd creates from modules.devname */
	CHECK_EQ(major(st.st_rdev), 10);
	CHECK_EQ(minor(st.st_rdev), 248);
	close(fd);
}

void test_get_info(void)
{
	struct hixl_info info;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), 0);
	CHECK_EQ(info.abi_version, HIXL_ABI_VERSION);
	CHECK(info.features & HIXL_FEAT_GET_INFO);
	/* every feature this tree's header names (the module is of the same tree) */
	{
		const uint64_t named = HIXL_FEAT_GET_INFO | HIXL_FEAT_REG_HOST |
			HIXL_FEAT_REG_DMABUF | HIXL_FEAT_INVALIDATE | HIXL_FEAT_SETUP |
			HIXL_FEAT_LINKS | HIXL_FEAT_TRANSFER | HIXL_FEAT_NOTIFY |
			HIXL_FEAT_CANCEL | HIXL_FEAT_URING_CMD | HIXL_FEAT_AUTH |
			HIXL_FEAT_LOCAL_ONLY | HIXL_FEAT_LISTEN_ANY | HIXL_FEAT_POLL;

		CHECK_EQ(info.features & named, named);
	}
	/* the limits are the module parameters in force */
	CHECK_EQ(info.max_regions, read_param("max_regions"));
	CHECK_EQ(info.max_host_bytes, read_param("max_host_bytes"));
	CHECK_EQ(info.max_device_bytes, read_param("max_device_bytes"));
	CHECK_EQ(info.max_links, read_param("max_links"));
	/*
	 * and, loaded without parameters, the vendor's published ones but for
	 * registrations: 4096 where HIXL has 256 (a serving stack registers K
	 * and V per layer, hundreds of regions before its other buffers)
	 */
	CHECK_EQ(info.max_regions, 4096);
	CHECK_EQ(info.max_host_bytes, 20ULL << 30);
	CHECK_EQ(info.max_device_bytes, 50ULL << 30);
	CHECK_EQ(info.max_links, 512);
	CHECK_EQ(info.max_notify_name, 1024);
	CHECK_EQ(info.max_notify_msg, 1024);
	CHECK_EQ(info.max_notify_pending, 4096);
	CHECK_EQ(info.reserved0, 0);
	CHECK_EQ(info.reserved1, 0);
	for (unsigned int i = 0; i < 8; i++)
		CHECK_EQ(info.reserved[i], 0);
	close(fd);
}

void test_get_info_lib(void)
{
	struct hixl_info info;
	int fd, saved;

	fd = hixl_dev_open(NULL);
	if (fd == -ENOPKG)
		SKIP("/dev/hixl missing: hixl.ko not loaded");
	REQUIRE(fd >= 0);
	CHECK_EQ(hixl_dev_get_info(fd, &info), 0);
	CHECK_EQ(info.abi_version, HIXL_ABI_VERSION);
	CHECK(strcmp(hixl_version(), "0") > 0);
	/* the library reports errors as -errno and leaves errno alone */
	errno = 1234;
	CHECK_EQ(hixl_dev_open("/nonexistent/hixl"), -ENOPKG);	/* no node: no module */
	saved = errno;
	CHECK_EQ(saved, 1234);
	CHECK_EQ(hixl_dev_get_info(-1, &info), -EBADF);
	{
		int null = open("/dev/null", O_RDWR);

		REQUIRE(null >= 0);
		CHECK_EQ(hixl_dev_get_info(null, &info), -ENOTTY);
		close(null);
	}
	close(fd);
}

void test_bad_ioctl_numbers(void)
{
	struct hixl_info info;
	struct termios tio;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	memset(&info, 0, sizeof(info));
	CHECK_EQ(xioctl(fd, _IOWR('h', HIXL_IOC_NR_GET_INFO, struct hixl_info), &info), -ENOTTY);
	CHECK_EQ(xioctl(fd, _IOWR(HIXL_IOC_MAGIC, 0x3f, struct hixl_info), &info), -ENOTTY);
	CHECK_EQ(xioctl(fd, _IOWR(HIXL_IOC_MAGIC, 0xff, struct hixl_info), &info), -ENOTTY);
	CHECK_EQ(xioctl(fd, _IO(0, 0), NULL), -ENOTTY);
	CHECK_EQ(xioctl(fd, TCGETS, &tio), -ENOTTY);
	CHECK_EQ(xioctl(fd, 0xffffffffUL, &info), -ENOTTY);
	close(fd);
}

/*
 * The size in the ioctl number is the caller's struct (uapi/rdma/hixl.h):
 * smaller than the command's first version is -EINVAL; larger is read when
 * the bytes the module does not know are zero (-E2BIG otherwise), and only
 * the module's part is written back.
 */
void test_bad_sizes(void)
{
	unsigned char big[sizeof(struct hixl_info) + 64];
	int fd = open_dev();

	REQUIRE(fd >= 0);
	for (unsigned int size = 0; size < sizeof(big); size += 8) {	/* the last byte is the canary */
		unsigned long cmd = _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
					 HIXL_IOC_NR_GET_INFO, size);
		struct hixl_info info;

		memset(big, 0, sizeof(big));
		if (size < HIXL_INFO_SIZE_VER0) {
			CHECK_EQ(xioctl(fd, cmd, big), -EINVAL);
			continue;
		}
		big[sizeof(big) - 1] = 0x5a;	/* past every size tried: never written */
		CHECK_EQ(xioctl(fd, cmd, big), 0);
		memcpy(&info, big, sizeof(info));
		CHECK_EQ(info.abi_version, HIXL_ABI_VERSION);
		CHECK_EQ(big[sizeof(big) - 1], 0x5a);
		if (size > sizeof(struct hixl_info)) {
			memset(big, 0, sizeof(big));
			big[size - 1] = 1;	/* a field this module does not know */
			CHECK_EQ(xioctl(fd, cmd, big), -E2BIG);
			memcpy(&info, big, sizeof(info));
			CHECK_EQ(info.abi_version, 0);	/* nothing written */
		}
	}
	CHECK_EQ(xioctl(fd, _IOR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info), big), -EINVAL);
	CHECK_EQ(xioctl(fd, _IOW(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info), big), -EINVAL);
	CHECK_EQ(xioctl(fd, _IO(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO), big), -EINVAL);
	/* hixl's numbers before ABI 2 ('H'): another driver's type now */
	CHECK_EQ(xioctl(fd, _IOWR('H', HIXL_IOC_NR_GET_INFO, struct hixl_info), big), -ENOTTY);
	close(fd);
}

void test_bad_flags_and_reserved(void)
{
	struct hixl_info info, before;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	for (int bit = 0; bit < 32; bit++) {
		memset(&info, 0, sizeof(info));
		info.flags = 1U << bit;
		before = info;
		CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), -EINVAL);
		CHECK(!memcmp(&info, &before, sizeof(info)));
	}
	memset(&info, 0, sizeof(info));
	info.reserved0 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), -EINVAL);
	memset(&info, 0, sizeof(info));
	info.reserved1 = 1;
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), -EINVAL);
	for (int i = 0; i < 8; i++) {
		memset(&info, 0, sizeof(info));
		info.reserved[i] = 1ULL << (i * 8);
		before = info;
		CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, &info), -EINVAL);
		CHECK(!memcmp(&info, &before, sizeof(info)));
	}
	close(fd);
}

void test_bad_pointers(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct hixl_info *ro;
	char *two;
	int fd = open_dev();

	REQUIRE(fd >= 0);
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, NULL), -EFAULT);
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, (void *)(uintptr_t)0xffffffffff600000ULL), -EFAULT);
	/* readable but not writable: read in, answer cannot be written back */
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(ro != MAP_FAILED);
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, ro), -EFAULT);
	CHECK_EQ(ro->abi_version, 0);
	munmap(ro, page);
	/* the struct straddles into an unmapped page */
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(two != MAP_FAILED);
	munmap(two + page, page);
	CHECK_EQ(xioctl(fd, HIXL_IOC_GET_INFO, two + page - 64), -EFAULT);
	munmap(two, page);
	close(fd);
}

void test_many_engines(void)
{
	enum { N = 64 };
	int fds[N];

	for (int i = 0; i < N; i++) {
		fds[i] = open_dev();
		REQUIRE(fds[i] >= 0);
	}
	for (int i = 0; i < N; i++) {
		struct hixl_info info;

		memset(&info, 0, sizeof(info));
		CHECK_EQ(xioctl(fds[i], HIXL_IOC_GET_INFO, &info), 0);
		CHECK_EQ(info.abi_version, HIXL_ABI_VERSION);
	}
	for (int i = 0; i < N; i++)
		CHECK_EQ(close(fds[i]), 0);
}

void test_fork_shares_engine(void)
{
	int status, fd = open_dev();
	pid_t pid;

	REQUIRE(fd >= 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct hixl_info info;

		memset(&info, 0, sizeof(info));
		_exit(ioctl(fd, HIXL_IOC_GET_INFO, &info) == 0 &&
		      info.abi_version == HIXL_ABI_VERSION ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
}

/* fops.owner pins the module: no unload while an engine is open */
void test_unload_busy(void)
{
	int fd;

	if (geteuid() != 0)
		SKIP("needs root to try delete_module");
	fd = open_dev();
	REQUIRE(fd >= 0);
	errno = 0;
	CHECK_EQ(syscall(SYS_delete_module, "hixl", O_NONBLOCK), -1);
	CHECK(errno == EWOULDBLOCK || errno == EBUSY);
	CHECK(access("/sys/module/hixl", F_OK) == 0);
	close(fd);
}

/* mode 0660 root:root: an unprivileged user gets EACCES, not an engine */
void test_unprivileged_open(void)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root to drop to an unprivileged user");
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open(HIXL_DEVICE_PATH, O_RDWR) < 0 && errno == EACCES ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

const struct ht_test dev_tests[] = {
	{ "dev_node", test_dev_node },
	{ "get_info", test_get_info },
	{ "get_info_lib", test_get_info_lib },
	{ "bad_ioctl_numbers", test_bad_ioctl_numbers },
	{ "bad_sizes", test_bad_sizes },
	{ "bad_flags_and_reserved", test_bad_flags_and_reserved },
	{ "bad_pointers", test_bad_pointers },
	{ "many_engines", test_many_engines },
	{ "fork_shares_engine", test_fork_shares_engine },
	{ "unload_busy", test_unload_busy },
	{ "unprivileged_open", test_unprivileged_open },
	{ NULL, NULL },
};
