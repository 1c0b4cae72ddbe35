// SPDX-License-Identifier: GPL-2.0
/*
 * uring_kunit.c - KUnit suite hixl_uring: URING_CMD argument decoding from
 * SQE images (hixl_uring_decode()): the SQE128 area, the 64-byte SQE's
 * struct hixl_uring_ptr against real user memory (kunit_vm_mmap()), sizes,
 * reserved bytes, unknown and control-path command numbers; CANCEL's
 * own field checks; and io_uring's inline issue (IO_URING_F_NONBLOCK)
 * coming back with -EAGAIN, not sleeping, on a lock another thread holds.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include "engine.h"
#include "xq.h"
#include "cancel.h"
#include "xfer.h"
#include "req.h"
#include "main.h"
#include "uring.h"

static void hixl_uring_transfer_inline(struct kunit *test)
{
	u8 area[HIXL_URING_CMD_AREA];
	struct hixl_transfer t = {
		.op = HIXL_OP_WRITE, .descs = 0x1000, .count = 3, .timeout_ms = 9, .tag = 5,
	};
	union hixl_cmd_arg arg;
	unsigned int op;

	BUILD_BUG_ON(sizeof(t) != HIXL_URING_CMD_AREA);
	memcpy(area, &t, sizeof(t));
	KUNIT_ASSERT_EQ(test, hixl_uring_decode(HIXL_IOC_TRANSFER, area, true, &arg, &op), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&arg.transfer, &t, sizeof(t)), 0);
}

static void hixl_uring_tail_must_be_zero(struct kunit *test)
{
	u8 area[HIXL_URING_CMD_AREA] = {};
	struct hixl_cancel c = { .tag = 1 };
	union hixl_cmd_arg arg;
	unsigned int op;
	size_t i;

	memcpy(area, &c, sizeof(c));
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_CANCEL, area, true, &arg, &op), 0);
	KUNIT_EXPECT_EQ(test, arg.cancel.tag, 1ULL);
	KUNIT_EXPECT_EQ(test, op, (unsigned int)HIXL_IOC_CANCEL);
	for (i = sizeof(c); i < sizeof(area); i++) {
		area[i] = 0xff;
		KUNIT_EXPECT_EQ_MSG(test, hixl_uring_decode(HIXL_IOC_CANCEL, area, true, &arg, &op),
				    -EINVAL, "byte %zu", i);
		area[i] = 0;
	}
}

/*
 * A caller's struct of another size (SQE128): a newer caller's larger one
 * is read when the bytes the module does not know are zero (-E2BIG
 * otherwise), and the number it gives is the canonical one.
 */
static void hixl_uring_sqe128_grown(struct kunit *test)
{
	u32 big = _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_CANCEL,
		       sizeof(struct hixl_cancel) + 16);
	struct hixl_cancel c = { .tag = 3 };
	u8 area[HIXL_URING_CMD_AREA] = {};
	union hixl_cmd_arg arg;
	unsigned int op = 0;
	size_t i;

	memcpy(area, &c, sizeof(c));
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(big, area, true, &arg, &op), 0);
	KUNIT_EXPECT_EQ(test, op, (unsigned int)HIXL_IOC_CANCEL);
	KUNIT_EXPECT_EQ(test, arg.cancel.tag, 3ULL);
	for (i = sizeof(c); i < sizeof(c) + 16; i++) {
		area[i] = 1;
		KUNIT_EXPECT_EQ_MSG(test, hixl_uring_decode(big, area, true, &arg, &op), -E2BIG,
				    "byte %zu", i);
		area[i] = 0;
	}
	/* past the caller's struct the area must still be zero */
	area[sizeof(c) + 16] = 1;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(big, area, true, &arg, &op), -EINVAL);
	area[sizeof(c) + 16] = 0;
	/* larger than the area */
	big = _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_CANCEL,
		   HIXL_URING_CMD_AREA + 8);
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(big, area, true, &arg, &op), -EINVAL);
}

struct hixl_uring_op_case {
	const char *name;
	u32 op;
	int want;
};

static const struct hixl_uring_op_case hixl_uring_op_cases[] = {
	{ "TRANSFER", HIXL_IOC_TRANSFER, 0 },
	{ "SEND_NOTIFY", HIXL_IOC_SEND_NOTIFY, 0 },
	{ "CANCEL", HIXL_IOC_CANCEL, 0 },
	{ "GET_INFO (ioctl only)", HIXL_IOC_GET_INFO, -EOPNOTSUPP },
	{ "REG_MEM (ioctl only)", HIXL_IOC_REG_MEM, -EOPNOTSUPP },
	{ "DEREG_MEM (ioctl only)", HIXL_IOC_DEREG_MEM, -EOPNOTSUPP },
	{ "GET_STATS (ioctl only)", HIXL_IOC_GET_STATS, -EOPNOTSUPP },
	{ "SETUP (ioctl only)", HIXL_IOC_SETUP, -EOPNOTSUPP },
	{ "CONNECT (ioctl only)", HIXL_IOC_CONNECT, -EOPNOTSUPP },
	{ "DISCONNECT (ioctl only)", HIXL_IOC_DISCONNECT, -EOPNOTSUPP },
	{ "GET_NOTIFIES (ioctl only)", HIXL_IOC_GET_NOTIFIES, -EOPNOTSUPP },
	{ "0", 0, -ENOTTY },
	{ "TRANSFER's nr, another type", _IOWR('N', HIXL_IOC_NR_TRANSFER, struct hixl_transfer),
	  -ENOTTY },
	{ "TRANSFER's nr, smaller than its first version",
	  _IOWR(HIXL_IOC_MAGIC, HIXL_IOC_NR_TRANSFER, __u64), -EINVAL },
	{ "TRANSFER's nr, write only", _IOW(HIXL_IOC_MAGIC, HIXL_IOC_NR_TRANSFER,
					    struct hixl_transfer), -EINVAL },
	{ "CANCEL's nr, 8 bytes larger (zero)", _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
						     HIXL_IOC_NR_CANCEL,
						     sizeof(struct hixl_cancel) + 8), 0 },
	{ "REG_MEM's nr, 8 bytes larger", _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC,
					       HIXL_IOC_NR_REG_MEM,
					       sizeof(struct hixl_reg_mem) + 8), -EOPNOTSUPP },
	{ "nr past the table", _IOWR(HIXL_IOC_MAGIC, 0x40, struct hixl_cancel), -ENOTTY },
	{ "all ones", 0xffffffff, -ENOTTY },
};

static void hixl_uring_op_desc(const struct hixl_uring_op_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hixl_uring_op, hixl_uring_op_cases, hixl_uring_op_desc);

static void hixl_uring_ops(struct kunit *test)
{
	const struct hixl_uring_op_case *c = test->param_value;
	u8 area[HIXL_URING_CMD_AREA] = {};
	union hixl_cmd_arg arg;
	unsigned int op;

	KUNIT_EXPECT_EQ(test, hixl_uring_decode(c->op, area, true, &arg, &op), c->want);
}

/* 64-byte SQEs: the area holds a struct hixl_uring_ptr to user memory */
static void hixl_uring_ptr_user(struct kunit *test)
{
	struct hixl_send_notify n = { .name_len = 3, .msg_len = 4, .name = 0x1234 };
	struct hixl_uring_ptr p = {};
	union hixl_cmd_arg arg;
	unsigned int op;
	unsigned long u;

	u = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, u, 0UL, "kunit_vm_mmap failed");
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)u, &n, sizeof(n)), 0UL);

	p.addr = u;
	p.len = sizeof(n);
	KUNIT_ASSERT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&arg.send_notify, &n, sizeof(n)), 0);

	/* len must be the size cmd_op gives */
	p.len = sizeof(n) - 8;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EINVAL);
	p.len = 0;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EINVAL);
	p.len = sizeof(n);
	p.reserved = 1;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EINVAL);
	p.reserved = 0;
	/* the struct runs off the end of the mapping */
	p.addr = u + PAGE_SIZE - sizeof(n) / 2;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EFAULT);
	p.addr = 0;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EFAULT);
	/* a kernel address is not user memory */
	p.addr = (unsigned long)&n;
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_SEND_NOTIFY, &p, false, &arg, &op), -EFAULT);
	/* a newer caller's larger struct: zero past ours is fine, else -E2BIG */
	{
		u32 big = _IOC(_IOC_READ | _IOC_WRITE, HIXL_IOC_MAGIC, HIXL_IOC_NR_SEND_NOTIFY,
			       sizeof(n) + 8);
		u8 one = 1;

		p.addr = u;
		p.len = sizeof(n) + 8;
		KUNIT_EXPECT_EQ(test, hixl_uring_decode(big, &p, false, &arg, &op), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&arg.send_notify, &n, sizeof(n)), 0);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(u + sizeof(n) + 3), &one, 1), 0UL);
		KUNIT_EXPECT_EQ(test, hixl_uring_decode(big, &p, false, &arg, &op), -E2BIG);
		p.len = sizeof(n);
	}
	/* unknown ops fail before the pointer is looked at */
	KUNIT_EXPECT_EQ(test, hixl_uring_decode(HIXL_IOC_REG_MEM, &p, false, &arg, &op), -EOPNOTSUPP);
}

/* CANCEL's own fields, on an engine with nothing running */
static void hixl_uring_cancel_fields(struct kunit *test)
{
	struct hixl_cancel c = { .tag = 9 };
	struct hixl_engine *eng;
	unsigned long u;

	eng = hixl_engine_create();	/* no mm yet: not a process's engine */
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), -EPERM);
	hixl_engine_destroy(eng);

	/* kunit_vm_mmap() gives the test thread an mm: the engine is ours */
	u = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, u, 0UL, "kunit_vm_mmap failed");
	eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	c.count = 5;			/* an out field: ignored, then written */
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), 0);
	KUNIT_EXPECT_EQ(test, c.count, 0U);
	c.tag = 0;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), -EINVAL);
	c.tag = 9;
	c.flags = HIXL_CANCEL_REVOKE << 1;	/* an unknown bit */
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), -EINVAL);
	c.flags = HIXL_CANCEL_REVOKE;		/* nothing running: nothing broken */
	c.broken = 5;				/* an out field too */
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), 0);
	KUNIT_EXPECT_EQ(test, c.broken, 0U);
	c.flags = 0;
	c.reserved0 = 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), -EINVAL);
	c.reserved0 = 0;
	c.reserved[0] = 1;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, false), -EINVAL);
	hixl_engine_destroy(eng);
}

/*
 * Another thread holds a mutex for up to HIXL_HOLD_MS: the non-blocking
 * path must return while it still does.  A path that sleeps on the mutex
 * returns only after the holder gave up (@released set), and then with
 * whatever follows (a TRANSFER's -ENOTCONN: the engine has no link).
 */
#define HIXL_HOLD_MS	2000

struct hixl_holder {
	struct mutex *m;
	struct completion locked;	/* the holder has the mutex */
	struct completion release;	/* the test is done with it */
	struct completion done;		/* the holder let go */
	bool released;
};

static int hixl_holder_fn(void *data)
{
	struct hixl_holder *h = data;

	mutex_lock(h->m);
	complete(&h->locked);
	wait_for_completion_timeout(&h->release, msecs_to_jiffies(HIXL_HOLD_MS));
	WRITE_ONCE(h->released, true);
	mutex_unlock(h->m);
	complete(&h->done);
	return 0;
}

static void hixl_hold(struct kunit *test, struct hixl_holder *h, struct mutex *m)
{
	struct task_struct *t;

	h->m = m;
	h->released = false;
	init_completion(&h->locked);
	init_completion(&h->release);
	init_completion(&h->done);
	t = kthread_run(hixl_holder_fn, h, "hixl-kunit-hold");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&h->locked);
}

static void hixl_unhold(struct hixl_holder *h)
{
	complete(&h->release);
	wait_for_completion(&h->done);
}

/* An engine of the test thread (it has an mm) that passes TRANSFER's checks. */
static struct hixl_engine *hixl_nonblock_engine(struct kunit *test)
{
	struct hixl_engine *eng;
	unsigned long u;

	u = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			  MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, u, 0UL, "kunit_vm_mmap failed");
	eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng);
	/* set up as far as hixl_transfer_validate() looks: it has RDMA state */
	eng->rdma = kunit_kzalloc(test, sizeof(*eng->rdma), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eng->rdma);
	return eng;
}

static void hixl_nonblock_engine_destroy(struct hixl_engine *eng)
{
	eng->rdma = NULL;		/* not a real one */
	hixl_engine_destroy(eng);
}

static void hixl_kunit_req_end(struct hixl_req *req)
{
	complete(&req->done);
}

/* a submitter's ops for the cases below, whose requests never start */
static const struct hixl_req_ops hixl_kunit_req_ops = {
	.end = hixl_kunit_req_end,
	.async = true,
};

/* TRANSFER: the engine's links_lock (hixl_link_get()) busy */
static void hixl_uring_nonblock_links_lock(struct kunit *test)
{
	struct hixl_op_desc d = { .local_addr = 0x1000, .remote_addr = 0x2000, .len = 8 };
	struct hixl_transfer t = {
		.op = HIXL_OP_WRITE, .descs = (uintptr_t)&d, .count = 1, .timeout_ms = 1000,
	};
	struct hixl_engine *eng = hixl_nonblock_engine(test);
	struct hixl_holder h;
	struct hixl_req req;
	bool released;
	int ret;

	hixl_req_init(&req, &hixl_kunit_req_ops, NULL, 0);
	t.remote.family = AF_INET;
	t.remote.port = 16999;
	t.remote.addr[0] = 10;
	t.remote.addr[3] = 1;
	hixl_hold(test, &h, &eng->links_lock);
	ret = hixl_transfer_submit(eng, &t, &req, true);
	released = READ_ONCE(h.released);
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_FALSE_MSG(test, released, "slept on links_lock until its holder let go");
	hixl_unhold(&h);
	/* and without the contention: no link to that peer */
	KUNIT_EXPECT_EQ(test, hixl_transfer_submit(eng, &t, &req, true), -ENOTCONN);
	KUNIT_EXPECT_FALSE(test, completion_done(&req.done));	/* never started */
	hixl_nonblock_engine_destroy(eng);
}

/* CANCEL: another CANCEL's cancel_mutex */
static void hixl_uring_nonblock_cancel_mutex(struct kunit *test)
{
	struct hixl_engine *eng = hixl_nonblock_engine(test);
	struct hixl_cancel c = { .tag = 9 };
	struct hixl_holder h;
	bool released;
	int ret;

	hixl_hold(test, &h, &eng->cancel_mutex);
	ret = hixl_cmd_cancel(eng, &c, true);
	released = READ_ONCE(h.released);
	KUNIT_EXPECT_EQ(test, ret, -EAGAIN);
	KUNIT_EXPECT_FALSE_MSG(test, released, "slept on cancel_mutex until its holder let go");
	hixl_unhold(&h);
	c.count = 5;
	KUNIT_EXPECT_EQ(test, hixl_cmd_cancel(eng, &c, true), 0);
	KUNIT_EXPECT_EQ(test, c.count, 0U);
	hixl_nonblock_engine_destroy(eng);
}

static struct kunit_case hixl_uring_cases[] = {
	KUNIT_CASE(hixl_uring_transfer_inline),
	KUNIT_CASE(hixl_uring_tail_must_be_zero),
	KUNIT_CASE(hixl_uring_sqe128_grown),
	KUNIT_CASE_PARAM(hixl_uring_ops, hixl_uring_op_gen_params),
	KUNIT_CASE(hixl_uring_ptr_user),
	KUNIT_CASE(hixl_uring_cancel_fields),
	KUNIT_CASE(hixl_uring_nonblock_links_lock),
	KUNIT_CASE(hixl_uring_nonblock_cancel_mutex),
	{}
};

static struct kunit_suite hixl_uring_suite = {
	.name = "hixl_uring",
	.test_cases = hixl_uring_cases,
};

kunit_test_suites(&hixl_uring_suite);
