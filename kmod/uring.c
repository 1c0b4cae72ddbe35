// SPDX-License-Identifier: GPL-2.0
/*
 * uring.c - /dev/hixl's file_operations.uring_cmd: the data path through
 * io_uring passthrough (IORING_OP_URING_CMD).  The contract is in
 * uapi/rdma/hixl.h ("io_uring passthrough").
 *
 * Model: drivers/nvme/host/ioctl.c (nvme_uring_cmd: the command struct in
 * the SQE128 cmd area, completion through io_uring_cmd_complete_in_task())
 * and drivers/block/ublk_drv.c (-EIOCBQUEUED, io_uring_cmd_done() from the
 * issue path, io_uring_cmd_mark_cancelable() and IO_URING_F_CANCEL).
 *
 * TRANSFER is submitted as a request (req.c, xfer.c) whose end - from the
 * CQ handler, a work item or the submission itself - puts the result into
 * the command's pdu, and io_uring posts the CQE from task work.  SEND_NOTIFY waits for the device, so io_uring's inline
 * issue (IO_URING_F_NONBLOCK) hands it to its worker threads with -EAGAIN;
 * so does a revoking CANCEL (HIXL_CANCEL_REVOKE waits for the flush,
 * cancel.c); a plain CANCEL never waits.  That inline issue takes no lock that sleeps: rdma_sem,
 * links_lock, the engine lock, a link's rt.lock and xq.mutex, and
 * cancel_mutex are only tried, and a busy one punts the command the same way.
 *
 * A command is read from the SQE (and, on a 64-byte-SQE ring, from the user
 * memory its struct hixl_uring_ptr names) once, at its first issue.  When
 * that issue returns -EAGAIN the command as read is kept (struct
 * hixl_uring_saved) and the reissue from io_uring's worker runs it, not what
 * the SQE or the user memory say by then: both may be reused as soon as
 * io_uring_submit() returned (uapi/rdma/hixl.h), and 6.12's io_uring even
 * reissues a command from its SQ ring slot, not from the copy it made (its
 * io_uring_cmd() copies the SQE on -EAGAIN but leaves cmd->sqe on the slot).
 * The model is io_uring's own opcodes, which import what they need before
 * they go async (io_req_prep_async() in 6.1), and btrfs's encoded-read
 * URING_CMD, which keeps its state in the pdu across IORING_URING_CMD_REISSUE.
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

/*
 * Commands kept for a reissue, per engine.  Those io_uring drops instead of
 * issuing them again (an IORING_OP_ASYNC_CANCEL of the punted request, the
 * ring or the task exiting) stay until the engine goes: the cap keeps a
 * process from making the kernel hold an unbounded number of them.
 */
#define HIXL_URING_SAVED_MAX	65536

/**
 * struct hixl_uring_saved - a command as its first issue read it
 * @node: in the engine's uring_saved list, under its xfer_lock
 * @arg:  the argument struct, decoded and checked by hixl_uring_decode()
 */
struct hixl_uring_saved {
	struct list_head node;
	union hixl_cmd_arg arg;
};

/* what a command carries between its issues and while queued, in io_uring_cmd.pdu */
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
 * @area:   the SQE's cmd area: HIXL_URING_CMD_AREA bytes when @sqe128,
 *          else HIXL_URING_CMD_AREA_SMALL bytes (a struct hixl_uring_ptr)
 * @sqe128: the ring has 128-byte SQEs
 * @arg:    out: the kernel's argument struct, read as hixl_engine_ioctl()
 *          reads it: zero-extended when the caller's (_IOC_SIZE(@cmd_op))
 *          is smaller
 * @canon:  out: the canonical command number (hixl_ioctl_canon())
 *
 * Context: process context (a user pointer may be read).
 * Return: 0;
 *  -ENOTTY     @cmd_op is not a hixl command number;
 *  -EOPNOTSUPP a hixl command that is not offered through io_uring (only
 *              TRANSFER, SEND_NOTIFY and CANCEL are; the rest are ioctls);
 *  -EINVAL     @cmd_op names a command with another direction or a struct
 *              smaller than its first version; on SQE128 a struct larger
 *              than the area or bytes after it in the area not zero; a
 *              hixl_uring_ptr whose len is not _IOC_SIZE(@cmd_op) or whose
 *              reserved field is not zero;
 *  -E2BIG      the caller's struct is larger than the kernel's and a byte
 *              past the kernel's is not zero;
 *  -EFAULT     the struct a hixl_uring_ptr points to cannot be read.
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

/*
 * A TRANSFER's request has ended (its ops->end): post the CQE from the
 * submitting task's task work, as io_uring_cmd_done() must not run from
 * the CQ handler's context.  Nothing of the engine may be used after it:
 * the CQE lets io_uring drop the file.
 */
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

/*
 * The request is about to be queued: io_uring may cancel it from now on
 * (ring exit, process exit) on kernels that offer it; without
 * io_uring_cmd_mark_cancelable() (6.1) io_uring waits for it, which its
 * timeout bounds.
 */
static void hixl_uring_req_cancelable(struct hixl_req *req)
{
	hixl_uring_cmd_mark_cancelable(req->priv, req->issue_flags);
}

static const struct hixl_req_ops hixl_uring_req_ops = {
	.end = hixl_uring_req_end,
	.cancelable = hixl_uring_req_cancelable,
	.async = true,
};

/*
 * TRANSFER: submitted as a request that ends with the CQE; -EIOCBQUEUED,
 * or the error or -EAGAIN of a submission that started nothing.
 */
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

/**
 * hixl_uring_save() - keep a command for io_uring's reissue of it
 * @eng: the engine
 * @cmd: the command, in its first issue, about to return -EAGAIN
 * @arg: the command as that issue read it
 *
 * Marks @cmd as reissued (HIXL_URING_CMD_REISSUE) so that the next
 * hixl_uring_cmd() takes @arg back with hixl_uring_restore() instead of
 * reading the SQE and user memory again.
 *
 * Context: io_uring issue (may be IO_URING_F_NONBLOCK: a GFP_KERNEL
 * allocation, as io_uring's own async data, but no lock that sleeps);
 * takes the engine's xfer_lock.
 * Return: 0;
 *  -ENOMEM no memory for the copy;
 *  -EBUSY  HIXL_URING_SAVED_MAX commands of this engine are kept already.
 */
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

/**
 * hixl_uring_restore() - the command hixl_uring_save() kept, for its reissue
 * @eng: the engine
 * @cmd: the command, issued again (HIXL_URING_CMD_REISSUE set)
 * @arg: out: the command as its first issue read it
 *
 * The copy is freed; a further -EAGAIN saves the command again.
 *
 * Context: io_uring issue; takes the engine's xfer_lock.
 * Return: 0, or -EINVAL when nothing was kept (a reissue hixl did not ask
 * for: never expected, and warned about).
 */
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
 * @eng: the engine, being destroyed: no command of it is in flight (each
 *       holds a reference to its file), so what is left on its uring_saved
 *       list belongs to commands io_uring completed without issuing them
 *       again (cancelled while waiting for a worker)
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
 *
 * The first issue reads the command (hixl_uring_decode()); when it cannot
 * go on without sleeping (IO_URING_F_NONBLOCK) the command as read is kept
 * (hixl_uring_save()) and -EAGAIN returned, and the reissue from io_uring's
 * worker runs that copy (hixl_uring_restore()).
 *
 * Context: io_uring issue: the submitting task (IO_URING_F_NONBLOCK), one
 * of io_uring's worker threads, or io_uring's cancelation (IO_URING_F_CANCEL).
 * Return: -EIOCBQUEUED (the CQE comes from io_uring_cmd_done(): res as
 * documented in uapi/rdma/hixl.h, and -ENOMEM or -EBUSY from hixl_uring_save()
 * when a command that must wait cannot be kept), -EAGAIN to be issued again
 * from a worker, or 0 for a cancelation.
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
		/* decoded by the first issue: cannot fail */
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
	/* out fields (TRANSFER's failed) are set again by the reissue */
	ret = hixl_uring_save(eng, cmd, &arg);
	if (ret) {
		if (op == HIXL_IOC_TRANSFER)
			res2 = arg.transfer.count;	/* no descriptor to blame */
		goto done;
	}
	return -EAGAIN;		/* io_uring issues it again from a worker */
}
