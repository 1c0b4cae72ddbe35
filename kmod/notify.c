// SPDX-License-Identifier: GPL-2.0
/* notify.c - notifications (SEND_NOTIFY), queued on the engine until GET_NOTIFIES */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "link.h"
#include "msg.h"
#include "notify.h"
#include "loopback.h"
#include "proto.h"

unsigned int hixl_max_engine_notifies = 16384;
module_param_named(max_engine_notifies, hixl_max_engine_notifies, uint, 0644);
MODULE_PARM_DESC(max_engine_notifies, "notifications queued on an engine, of all its links together (default 16384); more are dropped and counted");
EXPORT_SYMBOL_IF_KUNIT(hixl_max_engine_notifies);

/* Queue a NOTIFY on the engine, or count it dropped beyond the link's or engine's limit. */
int hixl_rx_notify(struct hixl_link *l, const void *buf, u32 len)
{
	const struct hixl_wire_notify *m = buf;
	struct hixl_engine *eng = l->eng;
	struct hixl_notify_ent *e;
	u32 nl, ml;

	nl = le32_to_cpu(m->name_len);
	ml = le32_to_cpu(m->msg_len);
	if (!nl || nl > HIXL_NOTIFY_MAX_NAME || ml > HIXL_NOTIFY_MAX_MSG ||
	    len < sizeof(*m) + nl + ml)
		return -EPROTO;
	e = kmalloc(struct_size(e, data, nl + ml), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	spin_lock(&l->lock);
	e->from = l->peer;
	spin_unlock(&l->lock);
	e->name_len = nl;
	e->msg_len = ml;
	memcpy(e->data, m->data, nl + ml);
	e->link = l;

	spin_lock(&eng->notify_lock);
	if (l->notify_pending >= HIXL_NOTIFY_MAX_PENDING ||
	    eng->notify_total >= READ_ONCE(hixl_max_engine_notifies)) {
		eng->notify_dropped++;
		atomic64_inc(&eng->st_notify_dropped);
		spin_unlock(&eng->notify_lock);
		kfree(e);
		return 0;
	}
	l->notify_pending++;
	eng->notify_total++;
	kref_get(&l->ref);
	list_add_tail(&e->node, &eng->notifies);
	spin_unlock(&eng->notify_lock);
	wake_up_interruptible_poll(&eng->notify_wq, EPOLLIN | EPOLLRDNORM);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_rx_notify);

/**
 * hixl_notify_poll() - f_op->poll of /dev/hixl: are notifications queued?
 * @eng:  the engine of @file
 * @file: the open /dev/hixl
 * @wait: the poll table
 * Context: process context; level-triggered, consumes nothing.
 * Return: EPOLLIN | EPOLLRDNORM if notifications are queued, else 0.
 */
__poll_t hixl_notify_poll(struct hixl_engine *eng, struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &eng->notify_wq, wait);
	spin_lock(&eng->notify_lock);
	if (!list_empty(&eng->notifies))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&eng->notify_lock);
	return mask;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_notify_poll);

static void hixl_notify_ent_free(struct hixl_engine *eng, struct hixl_notify_ent *e)
{
	spin_lock(&eng->notify_lock);
	e->link->notify_pending--;
	eng->notify_total--;
	spin_unlock(&eng->notify_lock);
	hixl_link_put(e->link);
	kfree(e);
}

/**
 * hixl_engine_notifies_destroy() - free the notifications nobody fetched
 * @eng: the engine, being destroyed
 */
void hixl_engine_notifies_destroy(struct hixl_engine *eng)
{
	struct hixl_notify_ent *e, *tmp;
	LIST_HEAD(all);

	spin_lock(&eng->notify_lock);
	list_splice_init(&eng->notifies, &all);
	spin_unlock(&eng->notify_lock);
	list_for_each_entry_safe(e, tmp, &all, node)
		hixl_notify_ent_free(eng, e);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_notifies_destroy);

/**
 * hixl_cmd_send_notify() - HIXL_IOC_SEND_NOTIFY: a small two-sided message
 * @eng: the engine
 * @a:   in: remote, name and msg pointers and lengths
 * Context: process context; waits for the SEND to complete.
 * Return: 0; -EINVAL; -EAFNOSUPPORT; -EFAULT; -EPERM; -EBADFD not set up;
 * -ENODEV device removed; -ENOTCONN no link; -EAGAIN connecting;
 * -ECONNRESET, -ENETDOWN or -ETIMEDOUT link broke; -ENOMEM.
 */
int hixl_cmd_send_notify(struct hixl_engine *eng, struct hixl_send_notify *a)
{
	struct sockaddr_storage ss;
	struct hixl_wire_notify *m;
	struct hixl_link *l;
	int ret, st, err;
	u8 *data;

	if (a->flags)
		return hixl_einval("SEND_NOTIFY: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved[0] || a->reserved[1])
		return hixl_einval("SEND_NOTIFY: reserved is not zero");
	ret = hixl_sockaddr_to_kernel(&a->remote, &ss);
	if (ret)
		return ret;
	if (!a->name_len || a->name_len > HIXL_NOTIFY_MAX_NAME ||
	    a->msg_len > HIXL_NOTIFY_MAX_MSG)
		return hixl_einval("SEND_NOTIFY: name_len %u (1..%u), msg_len %u (0..%u)",
				   a->name_len, HIXL_NOTIFY_MAX_NAME, a->msg_len,
				   HIXL_NOTIFY_MAX_MSG);
	ret = hixl_engine_usable(eng);
	if (ret)
		return ret;
	/* copy before post_mutex: a faulting page must not hold the link */
	data = kmalloc(a->name_len + a->msg_len, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	if (copy_from_user(data, u64_to_user_ptr(a->name), a->name_len) ||
	    copy_from_user(data + a->name_len, u64_to_user_ptr(a->msg), a->msg_len)) {
		ret = -EFAULT;
		goto out_free;
	}
	l = hixl_link_get(eng, &a->remote);
	if (!l) {
		ret = -ENOTCONN;
		goto out_free;
	}
	if (hixl_loop_engine(eng)) {	/* no QP: straight to the peer engine, no post_mutex */
		st = hixl_link_state(l, &err);
		if (st != HIXL_LINK_READY)
			ret = st == HIXL_LINK_CONNECTING ? -EAGAIN : err;
		else
			ret = hixl_loop_notify(l, data, a->name_len, a->msg_len);
		goto out_put;
	}
	mutex_lock(&l->msg.post_mutex);
	st = hixl_link_state(l, &err);
	if (st != HIXL_LINK_READY) {
		ret = st == HIXL_LINK_CONNECTING ? -EAGAIN : err;
		goto out;
	}
	m = l->msg.tx.buf;
	m->name_len = cpu_to_le32(a->name_len);
	m->msg_len = cpu_to_le32(a->msg_len);
	memcpy(m->data, data, a->name_len + a->msg_len);
	ret = hixl_send_msg(l, HIXL_MSG_NOTIFY, sizeof(*m) + a->name_len + a->msg_len);
out:
	mutex_unlock(&l->msg.post_mutex);
out_put:
	hixl_link_put(l);
out_free:
	kfree(data);
	return ret;
}

/**
 * hixl_cmd_get_notifies() - HIXL_IOC_GET_NOTIFIES: fetch notifications
 * @eng: the engine
 * @a:   in: buf, max; out: count, dropped
 * Context: process context; oldest first, what does not fit stays queued.
 * Return: 0; -EINVAL bad flags, reserved field or max 0; -EPERM; -EFAULT.
 */
int hixl_cmd_get_notifies(struct hixl_engine *eng, struct hixl_get_notifies *a)
{
	struct hixl_notify __user *out = u64_to_user_ptr(a->buf);
	struct hixl_notify_ent *e;
	int ret = 0;

	if (a->flags)
		return hixl_einval("GET_NOTIFIES: flags 0x%x has unknown bits", a->flags);
	if (a->reserved0 || a->reserved[0] || a->reserved[1])
		return hixl_einval("GET_NOTIFIES: reserved is not zero");
	if (!a->max)
		return hixl_einval("GET_NOTIFIES: max 0");
	if (!hixl_is_owner(eng))
		return -EPERM;
	a->count = 0;
	while (a->count < a->max) {
		spin_lock(&eng->notify_lock);
		e = list_first_entry_or_null(&eng->notifies, struct hixl_notify_ent, node);
		if (e)
			list_del(&e->node);
		spin_unlock(&eng->notify_lock);
		if (!e)
			break;
		if (copy_to_user(&out[a->count].from, &e->from, sizeof(e->from)) ||
		    put_user(e->name_len, &out[a->count].name_len) ||
		    put_user(e->msg_len, &out[a->count].msg_len) ||
		    copy_to_user(out[a->count].name, e->data, e->name_len) ||
		    copy_to_user(out[a->count].msg, e->data + e->name_len, e->msg_len)) {
			spin_lock(&eng->notify_lock);
			list_add(&e->node, &eng->notifies);	/* back at the head */
			spin_unlock(&eng->notify_lock);
			ret = -EFAULT;
			break;
		}
		hixl_notify_ent_free(eng, e);
		a->count++;
	}
	spin_lock(&eng->notify_lock);
	a->dropped = eng->notify_dropped;
	if (!ret)
		eng->notify_dropped = 0;
	spin_unlock(&eng->notify_lock);
	return ret;
}
