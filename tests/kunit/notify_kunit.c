// SPDX-License-Identifier: GPL-2.0
/*
 * notify_kunit.c - KUnit suite hixl_notify_poll: f_op->poll of /dev/hixl
 * (hixl_notify_poll()) is EPOLLIN | EPOLLRDNORM exactly while a
 * notification is queued, and queueing one (hixl_rx_notify()) wakes a
 * poller.  The link is a bare struct holding the references the receive
 * path takes: no RDMA.
 *
 * Style: Documentation/dev-tools/kunit/style.rst, lib/kunit/kunit-example-test.c.
 */
#include <kunit/test.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "engine.h"
#include "link.h"
#include "notify.h"
#include "proto.h"
#include "main.h"

struct hixl_poll_ctx {
	struct hixl_engine *eng;
	struct hixl_link *l;
	poll_table pt;
	wait_queue_entry_t wait;
	wait_queue_head_t *head;
	int woken;
};

/* the poll table's queueing function: one entry, counting its wake-ups */
static int hixl_poll_wake(wait_queue_entry_t *wait, unsigned int mode, int sync, void *key)
{
	struct hixl_poll_ctx *c = container_of(wait, struct hixl_poll_ctx, wait);

	if (key_to_poll(key) & EPOLLIN)
		c->woken++;
	return 0;
}

static void hixl_poll_queue(struct file *file, wait_queue_head_t *head, poll_table *pt)
{
	struct hixl_poll_ctx *c = container_of(pt, struct hixl_poll_ctx, pt);

	if (c->head)
		return;		/* already queued by an earlier poll */
	c->head = head;
	init_waitqueue_func_entry(&c->wait, hixl_poll_wake);
	add_wait_queue(head, &c->wait);
}

static int hixl_poll_init(struct kunit *test)
{
	struct hixl_poll_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->eng);
	c->l = kunit_kzalloc(test, sizeof(*c->l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->l);
	spin_lock_init(&c->l->lock);
	kref_init(&c->l->ref);		/* ours: the queued entries' puts never free it */
	c->l->eng = c->eng;
	init_poll_funcptr(&c->pt, hixl_poll_queue);
	test->priv = c;
	return 0;
}

static void hixl_poll_exit(struct kunit *test)
{
	struct hixl_poll_ctx *c = test->priv;

	if (c->head)
		remove_wait_queue(c->head, &c->wait);
	hixl_engine_notifies_destroy(c->eng);	/* puts the link's references */
	KUNIT_EXPECT_EQ(test, kref_read(&c->l->ref), 1U);
	hixl_engine_destroy(c->eng);
}

/* a NOTIFY message as the wire brings it */
static int hixl_poll_rx(struct kunit *test, struct hixl_poll_ctx *c, const char *name)
{
	size_t nl = strlen(name), len = sizeof(struct hixl_wire_notify) + nl;
	struct hixl_wire_notify *m = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->name_len = cpu_to_le32(nl);
	m->msg_len = 0;
	memcpy(m->data, name, nl);
	return hixl_rx_notify(c->l, m, len);
}

/* hixl_notify_poll()'s mask as a plain integer, which KUNIT_EXPECT_EQ() compares */
static unsigned int hixl_poll_mask(struct hixl_poll_ctx *c, poll_table *pt)
{
	return (__force unsigned int)hixl_notify_poll(c->eng, NULL, pt);
}

/* idle: nothing to report, and the poller is queued on the engine */
static void hixl_poll_idle(struct kunit *test)
{
	struct hixl_poll_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, &c->pt), 0U);
	KUNIT_EXPECT_PTR_EQ(test, c->head, &c->eng->notify_wq);
	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, NULL), 0U);
}

/* a notification wakes the poller; readable until it is taken */
static void hixl_poll_notify_wakes(struct kunit *test)
{
	struct hixl_poll_ctx *c = test->priv;
	const unsigned int in = (__force unsigned int)(EPOLLIN | EPOLLRDNORM);

	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, &c->pt), 0U);
	KUNIT_ASSERT_EQ(test, hixl_poll_rx(test, c, "a"), 0);
	KUNIT_EXPECT_EQ(test, c->woken, 1);
	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, NULL), in);
	KUNIT_ASSERT_EQ(test, hixl_poll_rx(test, c, "b"), 0);
	KUNIT_EXPECT_EQ(test, c->woken, 2);
	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, NULL), in);
	hixl_engine_notifies_destroy(c->eng);	/* as GET_NOTIFIES taking them all */
	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, NULL), 0U);
}

/* a malformed message queues nothing and wakes nobody */
static void hixl_poll_bad_message(struct kunit *test)
{
	struct hixl_poll_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, &c->pt), 0U);
	KUNIT_EXPECT_EQ(test, hixl_poll_rx(test, c, ""), -EPROTO);	/* empty name */
	KUNIT_EXPECT_EQ(test, c->woken, 0);
	KUNIT_EXPECT_EQ(test, hixl_poll_mask(c, NULL), 0U);
}

static struct kunit_case hixl_poll_cases[] = {
	KUNIT_CASE(hixl_poll_idle),
	KUNIT_CASE(hixl_poll_notify_wakes),
	KUNIT_CASE(hixl_poll_bad_message),
	{}
};

static struct kunit_suite hixl_poll_suite = {
	.name = "hixl_notify_poll",
	.init = hixl_poll_init,
	.exit = hixl_poll_exit,
	.test_cases = hixl_poll_cases,
};

kunit_test_suites(&hixl_poll_suite);
