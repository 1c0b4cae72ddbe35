/* SPDX-License-Identifier: GPL-2.0 */
/* req.h - one TRANSFER from submission to end, for the ioctl or io_uring */
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
 * @end:        ended; called once without locks; calls hixl_req_release()
 * @cancelable: about to be queued, io_uring may cancel it; may be NULL
 * @async:      the submitter does not wait: work goes to xwork.c
 */
struct hixl_req_ops {
	void (*end)(struct hixl_req *req);
	void (*cancelable)(struct hixl_req *req);
	bool async;
};

/**
 * struct hixl_req - one TRANSFER
 * @ops:       the submitter's
 * @priv:      io_uring's command
 * @issue_flags: io_uring's, during submission only
 * @eng:       the engine
 * @l:         primary link, held until hixl_req_release()
 * @op:        HIXL_OP_READ or HIXL_OP_WRITE
 * @count:     descriptors
 * @tag:       hixl_transfer.tag
 * @bytes:     bytes moved on success
 * @start_ns:  ktime_get_ns() at submission
 * @b:         batch carrying it now, or NULL; under @eng->xfer_lock
 * @cancelled: under @eng->xfer_lock
 * @poll:      may spin on @done first
 * @post_ns:   with @poll, hixl_poll_clock() before queueing
 * @expire:    the ioctl's wait ends the bound batch at @deadline
 * @deadline:  with @expire, jiffies
 * @spin_end:  with @expire, the deadline as hixl_poll_clock()
 * @status:    0 or -errno
 * @failed:    descriptor to blame, @count on success
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
	bool expire;
	unsigned long deadline;
	u64 spin_end;
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
