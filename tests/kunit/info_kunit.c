// SPDX-License-Identifier: GPL-2.0
/*
 * info_kunit.c - KUnit suites hixl_info (GET_INFO validation) and
 * hixl_ioctl (command decoding, with the argument in real user memory from
 * kunit_vm_mmap()).
 *
 * Style: Documentation/dev-tools/kunit/style.rst, lib/kunit/kunit-example-test.c.
 */
#include <kunit/test.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "engine.h"
#include "main.h"

static struct hixl_engine *hixl_test_engine(struct kunit *test)
{
	struct hixl_engine *eng = hixl_engine_create();

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	return eng;
}

static void hixl_info_reports_abi_and_limits(struct kunit *test)
{
	struct hixl_engine *eng = hixl_test_engine(test);
	struct hixl_info info = {};

	KUNIT_EXPECT_EQ(test, hixl_cmd_get_info(eng, &info), 0);
	KUNIT_EXPECT_EQ(test, info.abi_version, HIXL_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, info.features, HIXL_FEAT_ALL);
	KUNIT_EXPECT_TRUE(test, info.features & HIXL_FEAT_GET_INFO);
	KUNIT_EXPECT_EQ(test, info.max_regions, (u64)hixl_max_regions);
	KUNIT_EXPECT_EQ(test, info.max_host_bytes, (u64)hixl_max_host_bytes);
	KUNIT_EXPECT_EQ(test, info.max_device_bytes, (u64)hixl_max_device_bytes);
	KUNIT_EXPECT_EQ(test, info.max_links, hixl_max_links);
	KUNIT_EXPECT_EQ(test, info.max_notify_name, 1024U);
	KUNIT_EXPECT_EQ(test, info.max_notify_msg, 1024U);
	KUNIT_EXPECT_EQ(test, info.max_notify_pending, 4096U);
	KUNIT_EXPECT_EQ(test, info.reserved0, 0U);
	KUNIT_EXPECT_EQ(test, info.reserved1, 0U);
	KUNIT_EXPECT_NULL(test, memchr_inv(info.reserved, 0, sizeof(info.reserved)));
	hixl_engine_destroy(eng);
}

/* The vendor defaults, as loaded with no module parameters. */
static void hixl_info_vendor_defaults(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, hixl_max_regions, 4096U);	/* HIXL: 256 */
	KUNIT_EXPECT_EQ(test, hixl_max_host_bytes, 20UL << 30);
	KUNIT_EXPECT_EQ(test, hixl_max_device_bytes, 50UL << 30);
	KUNIT_EXPECT_EQ(test, hixl_max_links, 512U);
}

/* A limit changed at run time is what the next GET_INFO reports. */
static void hixl_info_follows_module_params(struct kunit *test)
{
	struct hixl_engine *eng = hixl_test_engine(test);
	unsigned int saved = hixl_max_regions;
	struct hixl_info info = {};

	WRITE_ONCE(hixl_max_regions, 7);
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_info(eng, &info), 0);
	WRITE_ONCE(hixl_max_regions, saved);
	KUNIT_EXPECT_EQ(test, info.max_regions, 7ULL);
	hixl_engine_destroy(eng);
}

/* Output fields carry garbage in: ignored, overwritten. */
static void hixl_info_ignores_output_fields(struct kunit *test)
{
	struct hixl_engine *eng = hixl_test_engine(test);
	struct hixl_info info = {
		.abi_version = 0xdead, .features = ~0ULL, .max_regions = 1,
		.max_links = 1, .max_notify_pending = 1,
	};

	KUNIT_EXPECT_EQ(test, hixl_cmd_get_info(eng, &info), 0);
	KUNIT_EXPECT_EQ(test, info.abi_version, HIXL_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, info.features, HIXL_FEAT_ALL);
	hixl_engine_destroy(eng);
}

/* Each input field that must be zero, set to a non-zero value in turn. */
struct hixl_info_bad_case {
	const char *name;
	void (*poison)(struct hixl_info *info);
};

static void poison_flags_low(struct hixl_info *i) { i->flags = 1; }
static void poison_flags_high(struct hixl_info *i) { i->flags = 0x80000000U; }
static void poison_flags_all(struct hixl_info *i) { i->flags = ~0U; }
static void poison_reserved0(struct hixl_info *i) { i->reserved0 = 1; }
static void poison_reserved1(struct hixl_info *i) { i->reserved1 = 0x100; }
static void poison_reserved_first(struct hixl_info *i) { i->reserved[0] = 1; }
static void poison_reserved_last(struct hixl_info *i) { i->reserved[7] = 1ULL << 63; }

static const struct hixl_info_bad_case hixl_info_bad_cases[] = {
	{ "flags bit 0", poison_flags_low },
	{ "flags bit 31", poison_flags_high },
	{ "flags all bits", poison_flags_all },
	{ "reserved0", poison_reserved0 },
	{ "reserved1", poison_reserved1 },
	{ "reserved[0]", poison_reserved_first },
	{ "reserved[7] bit 63", poison_reserved_last },
};

static void hixl_info_bad_case_desc(const struct hixl_info_bad_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_info_bad, hixl_info_bad_cases, hixl_info_bad_case_desc);

static void hixl_info_rejects_nonzero_input(struct kunit *test)
{
	const struct hixl_info_bad_case *c = test->param_value;
	struct hixl_engine *eng = hixl_test_engine(test);
	struct hixl_info info = {};

	c->poison(&info);
	KUNIT_EXPECT_EQ(test, hixl_cmd_get_info(eng, &info), -EINVAL);
	/* rejected input is left as it was: nothing answered */
	KUNIT_EXPECT_EQ(test, info.abi_version, 0U);
	hixl_engine_destroy(eng);
}

static struct kunit_case hixl_info_cases[] = {
	KUNIT_CASE(hixl_info_reports_abi_and_limits),
	KUNIT_CASE(hixl_info_vendor_defaults),
	KUNIT_CASE(hixl_info_follows_module_params),
	KUNIT_CASE(hixl_info_ignores_output_fields),
	KUNIT_CASE_PARAM(hixl_info_rejects_nonzero_input, hixl_info_bad_gen_params),
	{}
};

static struct kunit_suite hixl_info_suite = {
	.name = "hixl_info",
	.test_cases = hixl_info_cases,
};

/* ---- hixl_ioctl: the whole decode/copy path against real user memory ---- */

struct hixl_ioctl_ctx {
	struct hixl_engine *eng;
	void __user *uarg;	/* one page of the test's own user mapping */
};

static int hixl_ioctl_init(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx;
	unsigned long addr;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "kunit_vm_mmap failed");
	ctx->uarg = (void __user *)addr;
	ctx->eng = hixl_test_engine(test);
	test->priv = ctx;
	return 0;
}

static void hixl_ioctl_exit(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx = test->priv;

	hixl_engine_destroy(ctx->eng);
}

static void hixl_ioctl_get_info_roundtrip(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx = test->priv;
	struct hixl_info info = {};

	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->uarg, &info, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, HIXL_IOC_GET_INFO, ctx->uarg), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&info, ctx->uarg, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, info.abi_version, HIXL_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, info.max_regions, (u64)hixl_max_regions);
}

static void hixl_ioctl_bad_flags_not_written(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx = test->priv;
	struct hixl_info info = { .flags = 2 };

	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->uarg, &info, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, HIXL_IOC_GET_INFO, ctx->uarg), -EINVAL);
	KUNIT_ASSERT_EQ(test, copy_from_user(&info, ctx->uarg, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, info.flags, 2U);
	KUNIT_EXPECT_EQ(test, info.abi_version, 0U);
}

struct hixl_ioctl_decode_case {
	const char *name;
	unsigned int cmd;
	long expect;
};

static const struct hixl_ioctl_decode_case hixl_ioctl_decode_cases[] = {
	{ "other type", _IOWR('h', HIXL_IOC_NR_GET_INFO, struct hixl_info), -ENOTTY },
	{ "unknown nr", _IOWR(HIXL_IOC_MAGIC, 0x7f, struct hixl_info), -ENOTTY },
	{ "highest nr", _IOWR(HIXL_IOC_MAGIC, 0xff, struct hixl_info), -ENOTTY },
	{ "no dir no size", _IO(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO), -EINVAL },
	{ "read only", _IOR(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info), -EINVAL },
	{ "write only", _IOW(HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO, struct hixl_info), -EINVAL },
	{ "size - 8", _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO,
			   sizeof(struct hixl_info) - 8), -EINVAL },
	/* a newer caller's larger struct, zero past ours (the page is fresh) */
	{ "size + 8", _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO,
			   sizeof(struct hixl_info) + 8), 0 },
	/* larger than the test's one-page mapping */
	{ "size max", _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO,
			   _IOC_SIZEMASK), -EFAULT },
	{ "tty ioctl", 0x5401 /* TCGETS */, -ENOTTY },
};

static void hixl_ioctl_decode_desc(const struct hixl_ioctl_decode_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_ioctl_decode, hixl_ioctl_decode_cases, hixl_ioctl_decode_desc);

static void hixl_ioctl_decode(struct kunit *test)
{
	const struct hixl_ioctl_decode_case *c = test->param_value;
	struct hixl_ioctl_ctx *ctx = test->priv;
	struct hixl_info info = {};

	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->uarg, &info, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, c->cmd, ctx->uarg), c->expect);
}

static void hixl_ioctl_bad_pointer(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx = test->priv;

	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, HIXL_IOC_GET_INFO, NULL), -EFAULT);
	/* the struct straddles the end of the mapping */
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, HIXL_IOC_GET_INFO,
						ctx->uarg + PAGE_SIZE - 8), -EFAULT);
}

/*
 * The caller's struct is larger than the module's: the module's part is
 * read and written back, nothing past min(sizes) is written, and a byte
 * the module does not know that is not zero is -E2BIG, nothing written.
 */
static void hixl_ioctl_grown_struct(struct kunit *test)
{
	struct hixl_ioctl_ctx *ctx = test->priv;
	unsigned int big = _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_GET_INFO,
				sizeof(struct hixl_info) + 16);
	u8 buf[sizeof(struct hixl_info) + 24] = {};
	struct hixl_info info;

	buf[sizeof(buf) - 1] = 0xa5;	/* a canary past the caller's struct */
	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->uarg, buf, sizeof(buf)), 0UL);
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, big, ctx->uarg), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(buf, ctx->uarg, sizeof(buf)), 0UL);
	memcpy(&info, buf, sizeof(info));
	KUNIT_EXPECT_EQ(test, info.abi_version, (u32)HIXL_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, buf[sizeof(buf) - 1], 0xa5);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf + sizeof(info), 0, 16));

	memset(buf, 0, sizeof(buf));
	buf[sizeof(info) + 15] = 1;	/* a field this module does not know */
	KUNIT_ASSERT_EQ(test, copy_to_user(ctx->uarg, buf, sizeof(buf)), 0UL);
	KUNIT_EXPECT_EQ(test, hixl_engine_ioctl(ctx->eng, big, ctx->uarg), -E2BIG);
	KUNIT_ASSERT_EQ(test, copy_from_user(&info, ctx->uarg, sizeof(info)), 0UL);
	KUNIT_EXPECT_EQ(test, info.abi_version, 0U);	/* nothing written */
}

static struct kunit_case hixl_ioctl_cases[] = {
	KUNIT_CASE(hixl_ioctl_grown_struct),
	KUNIT_CASE(hixl_ioctl_get_info_roundtrip),
	KUNIT_CASE(hixl_ioctl_bad_flags_not_written),
	KUNIT_CASE_PARAM(hixl_ioctl_decode, hixl_ioctl_decode_gen_params),
	KUNIT_CASE(hixl_ioctl_bad_pointer),
	{}
};

static struct kunit_suite hixl_ioctl_suite = {
	.name = "hixl_ioctl",
	.init = hixl_ioctl_init,
	.exit = hixl_ioctl_exit,
	.test_cases = hixl_ioctl_cases,
};

kunit_test_suites(&hixl_info_suite, &hixl_ioctl_suite);

MODULE_DESCRIPTION("KUnit tests for hixl.ko");
MODULE_LICENSE("GPL");
HIXL_IMPORT_KUNIT_NS();
