// SPDX-License-Identifier: GPL-2.0
/*
 * uring.c - TRANSFERs through io_uring passthrough, as ublk_drv.c; a command is read
 * once, at its first issue, and kept for an -EAGAIN reissue
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "link.h"
#include "notify.h"
#include "xq.h"
#include "cancel.h"
#include "xfer.h"
#include "req.h"
#include "compat.h"
#include "main.h"
#include "uring.h"

/* Commands kept for a reissue, per engine; bounds those io_uring drops. */
#define HIXL_URING_SAVED_MAX	65536

/**
 * struct hixl_uring_saved - a command as its first issue read it
 * @node: in the engine's uring_saved list, under its xfer_lock
 * @arg:  the decoded argument
 */
struct hixl_uring_saved {
	struct list_head node;
	union hixl_cmd_arg arg;
};

/* in io_uring_cmd.pdu */
struct hixl_uring_pdu {
	struct hixl_req *req;	/* a TRANSFER's; under the engine's xfer_lock, NULL once ended */
	struct hixl_uring_saved *saved;	/* from an -EAGAIN to the reissue */
	int ret;		/* the CQE's res */
	u32 res2;		/* its big_cqe[0] */
};

static struct hixl_uring_pdu *hixl_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct hixl_uring_pdu) > sizeof_field(struct io_uring_cmd, pdu));
	return (struct hixl_uring_pdu *)cmd->pdu;
}

/**
 * hixl_uring_decode() - the argument of a URING_CMD, from its SQE
 * @cmd_op: the SQE's cmd_op
 * @area:   the SQE's cmd area (a struct hixl_uring_ptr unless @sqe128)
 * @sqe128: the ring has 128-byte SQEs
 * @arg:    out: the argument, read as hixl_engine_ioctl() reads it
 * @canon:  out: the canonical command number
 * Context: process context.
 * Return: 0; -ENOTTY not hixl's; -EOPNOTSUPP not via io_uring; -EINVAL
 * bad direction, size, padding or reserved field; -E2BIG; -EFAULT.
 */
int hixl_uring_decode(u32 cmd_op, const void *area, bool sqe128, union hixl_cmd_arg *arg,
		      unsigned int *canon)
{
	struct hixl_uring_ptr ptr;
	size_t usize, ksize;
	int ret;

	ret = hixl_ioctl_canon(cmd_op, canon, &usize);
	if (ret)
		return ret;
	if (*canon != HIXL_IOC_TRANSFER && *canon != HIXL_IOC_SEND_NOTIFY &&
	    *canon != HIXL_IOC_CANCEL)
		return -EOPNOTSUPP;
	ksize = _IOC_SIZE(*canon);
	BUILD_BUG_ON(sizeof(struct hixl_transfer) > HIXL_URING_CMD_AREA);
	BUILD_BUG_ON(sizeof(struct hixl_send_notify) > HIXL_URING_CMD_AREA);
	BUILD_BUG_ON(sizeof(struct hixl_cancel) > HIXL_URING_CMD_AREA);
	BUILD_BUG_ON(sizeof(ptr) != HIXL_URING_CMD_AREA_SMALL);

	memset(arg, 0, sizeof(*arg));
	if (sqe128) {
		if (usize > HIXL_URING_CMD_AREA ||
		    memchr_inv((const u8 *)area + usize, 0, HIXL_URING_CMD_AREA - usize))
			return hixl_einval("URING_CMD 0x%x: a %zu-byte struct, larger than the SQE128 area or with non-zero bytes after it",
					   cmd_op, usize);
		if (usize > ksize && memchr_inv((const u8 *)area + ksize, 0, usize - ksize))
			return -E2BIG;
		memcpy(arg, area, min(usize, ksize));
		return 0;
	}
	memcpy(&ptr, area, sizeof(ptr));
	if (ptr.len != usize || ptr.reserved)
		return hixl_einval("URING_CMD 0x%x: hixl_uring_ptr len %u, not the command's %zu, or reserved not zero",
				   cmd_op, ptr.len, usize);
	return copy_struct_from_user(arg, ksize, u64_to_user_ptr(ptr.addr), usize);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_uring_decode);

static void hixl_uring_task_done(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct hixl_uring_pdu *pdu = hixl_pdu(cmd);

	io_uring_cmd_done(cmd, pdu->ret, pdu->res2, issue_flags);
}

/* A request ended: post the CQE from task work; the engine may be gone after it. */
static void hixl_uring_req_end(struct hixl_req *req)
{
	struct io_uring_cmd *cmd = req->priv;
	struct hixl_uring_pdu *pdu = hixl_pdu(cmd);
	struct hixl_engine *eng = req->eng;

	spin_lock(&eng->xfer_lock);
	pdu->req = NULL;		/* io_uring's cancel finds nothing from now on */
	spin_unlock(&eng->xfer_lock);
	pdu->ret = req->status;
	pdu->res2 = req->failed;
	hixl_req_release(req);
	kfree(req);
	io_uring_cmd_complete_in_task(cmd, hixl_uring_task_done);
}

/* io_uring may cancel the request from now on (not on 6.1). */
static void hixl_uring_req_cancelable(struct hixl_req *req)
{
	hixl_uring_cmd_mark_cancelable(req->priv, req->issue_flags);
}

static const struct hixl_req_ops hixl_uring_req_ops = {
	.end = hixl_uring_req_end,
	.cancelable = hixl_uring_req_cancelable,
	.async = true,
};

/* Return: -EIOCBQUEUED, or an error or -EAGAIN with nothing started. */
static int hixl_uring_transfer(struct hixl_engine *eng, struct io_uring_cmd *cmd,
			       struct hixl_transfer *a, bool nonblock, unsigned int issue_flags)
{
	struct hixl_req *req = kmalloc(sizeof(*req), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!req)
		return -ENOMEM;
	hixl_req_init(req, &hixl_uring_req_ops, cmd, issue_flags);
	spin_lock(&eng->xfer_lock);
	hixl_pdu(cmd)->req = req;
	spin_unlock(&eng->xfer_lock);
	ret = hixl_transfer_submit(eng, a, req, nonblock);
	if (ret == -EIOCBQUEUED)
		return ret;		/* @req is the CQE's now */
	spin_lock(&eng->xfer_lock);
	hixl_pdu(cmd)->req = NULL;
	spin_unlock(&eng->xfer_lock);
	kfree(req);
	return ret;
}

/* Keep a command for io_uring's reissue: 0; -ENOMEM; -EBUSY if too many. */
static int hixl_uring_save(struct hixl_engine *eng, struct io_uring_cmd *cmd,
			   const union hixl_cmd_arg *arg)
{
	struct hixl_uring_saved *s;

	s = kmalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	s->arg = *arg;
	spin_lock(&eng->xfer_lock);
	if (eng->nr_uring_saved >= HIXL_URING_SAVED_MAX) {
		spin_unlock(&eng->xfer_lock);
		kfree(s);
		return -EBUSY;
	}
	list_add_tail(&s->node, &eng->uring_saved);
	eng->nr_uring_saved++;
	spin_unlock(&eng->xfer_lock);
	hixl_pdu(cmd)->saved = s;
	cmd->flags |= HIXL_URING_CMD_REISSUE;
	return 0;
}

/* Take back the command hixl_uring_save() kept: 0, or -EINVAL if none. */
static int hixl_uring_restore(struct hixl_engine *eng, struct io_uring_cmd *cmd,
			      union hixl_cmd_arg *arg)
{
	struct hixl_uring_saved *s = hixl_pdu(cmd)->saved;

	if (WARN_ON_ONCE(!s))
		return -EINVAL;
	hixl_pdu(cmd)->saved = NULL;
	spin_lock(&eng->xfer_lock);
	list_del(&s->node);
	eng->nr_uring_saved--;
	spin_unlock(&eng->xfer_lock);
	*arg = s->arg;
	kfree(s);
	return 0;
}

/**
 * hixl_uring_engine_destroy() - free the commands no reissue took back
 * @eng: the engine, being destroyed
 */
void hixl_uring_engine_destroy(struct hixl_engine *eng)
{
	struct hixl_uring_saved *s, *tmp;

	list_for_each_entry_safe(s, tmp, &eng->uring_saved, node) {
		list_del(&s->node);
		kfree(s);
	}
	eng->nr_uring_saved = 0;
}

/* io_uring cancels @cmd (ring or process exit); may be called again. */
static void hixl_uring_cancel(struct hixl_engine *eng, struct io_uring_cmd *cmd)
{
	struct hixl_xbatch *b = NULL;
	struct hixl_req *req;

	spin_lock(&eng->xfer_lock);
	req = hixl_pdu(cmd)->req;
	if (req)
		b = hixl_req_cancel_locked(req);
	spin_unlock(&eng->xfer_lock);
	if (b)
		hixl_req_cancel_batch(b);
}

/**
 * hixl_uring_cmd() - file_operations.uring_cmd of /dev/hixl
 * @cmd:         the command; cmd_op is a HIXL_IOC_* number
 * @issue_flags: io_uring's IO_URING_F_* flags
 * Context: io_uring issue or cancellation.
 * Return: -EIOCBQUEUED (the CQE carries the result); -EAGAIN to be
 * reissued from a worker; 0 for a cancellation.
 */
int hixl_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct hixl_engine *eng = cmd->file->private_data;
	bool nonblock = issue_flags & IO_URING_F_NONBLOCK;
	union hixl_cmd_arg arg;
	unsigned int op = 0;
	size_t usize;
	u64 res2 = 0;
	int ret;

	BUILD_BUG_ON(HIXL_URING_CMD_REISSUE & IORING_URING_CMD_FIXED);
	BUILD_BUG_ON(HIXL_URING_CMD_REISSUE & HIXL_URING_CMD_CANCELABLE);
	if (hixl_uring_cmd_is_cancel(issue_flags)) {
		hixl_uring_cancel(eng, cmd);
		return 0;
	}
	hixl_pdu(cmd)->req = NULL;
	if (cmd->flags & HIXL_URING_CMD_REISSUE) {
		ret = hixl_uring_restore(eng, cmd, &arg);
		if (ret)
			goto done;
		/* decoded by the first issue */
		if (WARN_ON_ONCE(hixl_ioctl_canon(cmd->cmd_op, &op, &usize))) {
			ret = -EINVAL;
			goto done;
		}
	} else {
		hixl_pdu(cmd)->saved = NULL;
		if (cmd->flags & IORING_URING_CMD_FIXED) {	/* no registered buffers here */
			ret = hixl_einval("URING_CMD: IORING_URING_CMD_FIXED");
			goto done;
		}
		ret = hixl_uring_decode(cmd->cmd_op, hixl_uring_sqe_cmd(cmd),
					issue_flags & IO_URING_F_SQE128, &arg, &op);
		if (ret)
			goto done;
	}
	if (op == HIXL_IOC_SEND_NOTIFY && nonblock)
		goto punt;		/* waits for the device: from a worker */
	if (nonblock) {
		if (!down_read_trylock(&eng->rdma_sem))
			goto punt;
	} else {
		down_read(&eng->rdma_sem);
	}
	switch (op) {
	case HIXL_IOC_TRANSFER:
		ret = hixl_uring_transfer(eng, cmd, &arg.transfer, nonblock, issue_flags);
		res2 = arg.transfer.failed;
		break;
	case HIXL_IOC_SEND_NOTIFY:
		ret = hixl_cmd_send_notify(eng, &arg.send_notify);
		break;
	case HIXL_IOC_CANCEL:
		ret = hixl_cmd_cancel(eng, &arg.cancel, nonblock);
		if (!ret)
			ret = arg.cancel.count;
		break;
	}
	up_read(&eng->rdma_sem);
	if (ret == -EIOCBQUEUED)
		return ret;		/* the batch's end completes it */
	if (ret == -EAGAIN && nonblock)
		goto punt;
done:
	io_uring_cmd_done(cmd, ret, res2, issue_flags);
	return -EIOCBQUEUED;
punt:
	/* the reissue sets out fields again */
	ret = hixl_uring_save(eng, cmd, &arg);
	if (ret) {
		if (op == HIXL_IOC_TRANSFER)
			res2 = arg.transfer.count;	/* no descriptor to blame */
		goto done;
	}
	return -EAGAIN;		/* io_uring issues it again from a worker */
}
