/* SPDX-License-Identifier: GPL-2.0 */
/*
 * req.h - one TRANSFER from submission to end, whatever carries it; its
 * submitter (ioctl or io_uring) hears of its end once, through its ops.
 */
#ifndef _HIXL_REQ_H
#define _HIXL_REQ_H

#include <linux/completion.h>
#include <linux/types.h>

#include <rdma/hixl.h>

struct hixl_engine;
struct hixl_link;
struct hixl_req;
struct hixl_xbatch;

/**
 * struct hixl_req_ops - how a request's submitter hears of it
 * @end:        the request ended: the data path's last use of it.  Called
 *              once, without locks; calls hixl_req_release() before the
 *              submitter may go on
 * @cancelable: the request is about to be queued: io_uring may cancel it
 *              from now on; may be NULL
 * @async:      the submitter does not wait: process-context work goes to
 *              xwork.c
 */
struct hixl_req_ops {
	void (*end)(struct hixl_req *req);
	void (*cancelable)(struct hixl_req *req);
	bool async;
};

/**
 * struct hixl_req - one TRANSFER
 * @ops:       its submitter's
 * @priv:      the submitter's: io_uring's command
 * @issue_flags: io_uring's, valid during submission only
 * @eng:       the engine
 * @l:         the primary link, referenced until hixl_req_release()
 * @op:        HIXL_OP_READ or HIXL_OP_WRITE
 * @count:     descriptors of the TRANSFER
 * @tag:       hixl_transfer.tag
 * @bytes:     bytes moved on success
 * @start_ns:  ktime_get_ns() at submission
 * @b:         the batch carrying it now, for a cancel, or NULL; under
 *             @eng->xfer_lock
 * @cancelled: hixl_req_cancel() ran; under @eng->xfer_lock
 * @poll:      the submitter may spin on @done first (poll.c)
 * @post_ns:   with @poll, hixl_poll_clock() before the batch was queued
 * @status:    0 or -errno, set at the end
 * @failed:    the descriptor to blame, @count on success
 * @done:      completed by the ioctl's @ops->end
 */
struct hixl_req {
	const struct hixl_req_ops *ops;
	void *priv;
	unsigned int issue_flags;
	struct hixl_engine *eng;
	struct hixl_link *l;
	u32 op;
	u32 count;
	u64 tag;
	u64 bytes;
	u64 start_ns;
	struct hixl_xbatch *b;
	bool cancelled;
	bool poll;
	u64 post_ns;
	int status;
	u32 failed;
	struct completion done;
};

void hixl_req_init(struct hixl_req *req, const struct hixl_req_ops *ops, void *priv,
		   unsigned int issue_flags);
void hixl_req_start(struct hixl_req *req, struct hixl_engine *eng, struct hixl_link *l,
		    const struct hixl_transfer *a, u64 bytes, u64 start_ns);
void hixl_req_release(struct hixl_req *req);
void hixl_req_end(struct hixl_req *req, int status, u32 failed);
bool hixl_req_bind(struct hixl_req *req, struct hixl_xbatch *b);
void hixl_req_cancelable(struct hixl_req *req);
struct hixl_xbatch *hixl_req_cancel_locked(struct hixl_req *req);
void hixl_req_cancel_batch(struct hixl_xbatch *b);
void hixl_req_cancel(struct hixl_req *req);
int hixl_req_wait(struct hixl_req *req);

#endif /* _HIXL_REQ_H */
