// SPDX-License-Identifier: GPL-2.0
/* main.c - /dev/hixl, engine lifetime, one command table for ioctl and URING_CMD */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/hixl_layout.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "link.h"
#include "link_life.h"
#include "connect.h"
#include "table.h"
#include "notify.h"
#include "local.h"
#include "xq.h"
#include "cancel.h"
#include "xfer.h"
#include "xprep.h"
#include "main.h"
#include "uring.h"
#include "setup.h"
#include "report.h"
#include "rquery.h"
#include "local_xfer.h"

/* every open engine until its RDMA objects are freed; hixl_engines_lock protects it */
DEFINE_MUTEX(hixl_engines_lock);
LIST_HEAD(hixl_engines);
static u64 hixl_next_engine_id;	/* under hixl_engines_lock */

/**
 * hixl_engine_create() - allocate one engine, owned by the calling process
 * Context: process context, may sleep.
 * Return: the engine, or ERR_PTR(-ENOMEM).
 */
struct hixl_engine *hixl_engine_create(void)
{
	struct hixl_engine *eng;

	eng = kzalloc(sizeof(*eng), GFP_KERNEL_ACCOUNT);	/* the opener's memory cgroup */
	if (!eng)
		return ERR_PTR(-ENOMEM);
	mutex_init(&eng->lock);
	kref_init(&eng->ref);
	init_waitqueue_head(&eng->release_wq);
	mutex_init(&eng->links_lock);
	INIT_LIST_HEAD(&eng->links);
	spin_lock_init(&eng->notify_lock);
	INIT_LIST_HEAD(&eng->notifies);
	init_waitqueue_head(&eng->notify_wq);
	hixl_engine_regions_init(eng);
	spin_lock_init(&eng->xfer_lock);
	INIT_LIST_HEAD(&eng->xfers);
	INIT_LIST_HEAD(&eng->uring_saved);
	mutex_init(&eng->cancel_mutex);
	init_waitqueue_head(&eng->local_wq);
	init_rwsem(&eng->rdma_sem);
	eng->wq = alloc_workqueue(HIXL_ENG_WQ_NAME, WQ_UNBOUND, 0);
	if (!eng->wq) {
		kfree(eng);
		return ERR_PTR(-ENOMEM);
	}
	if (current->mm) {
		eng->proc = hixl_proc_get(current->mm);
		if (!eng->proc) {
			destroy_workqueue(eng->wq);
			kfree(eng);
			return ERR_PTR(-ENOMEM);
		}
		eng->mm = current->mm;
		mmgrab(eng->mm);
	}
	eng->owner = get_task_pid(current, PIDTYPE_TGID);
	eng->memcg = get_mem_cgroup_from_mm(current->mm);
	mutex_lock(&hixl_engines_lock);
	eng->id = ++hixl_next_engine_id;
	list_add_tail(&eng->node, &hixl_engines);
	mutex_unlock(&hixl_engines_lock);
	return eng;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_create);

/**
 * hixl_engine_destroy() - release everything an engine holds
 * @eng: engine from hixl_engine_create(), or NULL
 * Context: process context, may sleep; takes rdma_sem (write), then
 * hixl_engines_lock.
 */
void hixl_engine_destroy(struct hixl_engine *eng)
{
	if (!eng)
		return;
	WRITE_ONCE(eng->closing, true);
	if (eng->xwork_wq)		/* the last CQE was posted: drained */
		destroy_workqueue(eng->xwork_wq);
	hixl_local_engine_close(eng);		/* other engines' copies leave */
	down_write(&eng->rdma_sem);
	hixl_engine_rdma_stop(eng);		/* no new links */
	hixl_engine_links_destroy(eng);
	hixl_engine_notifies_destroy(eng);
	hixl_engine_regions_destroy(eng);
	hixl_engine_rdma_destroy(eng);
	up_write(&eng->rdma_sem);
	mutex_lock(&hixl_engines_lock);
	list_del(&eng->node);
	mutex_unlock(&hixl_engines_lock);
	hixl_proc_put(eng->proc);
	if (eng->mm)
		mmdrop(eng->mm);
	put_pid(eng->owner);
	mem_cgroup_put(eng->memcg);
	WARN_ON_ONCE(!list_empty(&eng->xfers));
	destroy_workqueue(eng->wq);	/* links and batches are gone: nothing queued */
	hixl_uring_engine_destroy(eng);
	hixl_engine_put(eng);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_destroy);

/**
 * struct hixl_cmd_desc - one command, indexed by _IOC_NR()
 * @cmd:          canonical HIXL_IOC_* (kernel's struct size); 0: none
 * @size_ver0:    struct size in the first ABI; smaller is refused
 * @out_on_error: copy the argument back on failure too
 */
struct hixl_cmd_desc {
	unsigned int cmd;
	unsigned int size_ver0;
	bool out_on_error;
};

#define HIXL_CMD(_nr, _ver0, _out) \
	[HIXL_IOC_NR_##_nr] = { .cmd = HIXL_IOC_##_nr, .size_ver0 = _ver0, .out_on_error = _out }

static const struct hixl_cmd_desc hixl_cmds[] = {
	HIXL_CMD(GET_INFO, HIXL_INFO_SIZE_VER0, false),
	HIXL_CMD(REG_MEM, HIXL_REG_MEM_SIZE_VER0, false),
	HIXL_CMD(DEREG_MEM, HIXL_DEREG_MEM_SIZE_VER0, false),
	HIXL_CMD(GET_STATS, HIXL_STATS_SIZE_VER0, false),
	HIXL_CMD(SETUP, HIXL_SETUP_SIZE_VER0, false),
	HIXL_CMD(CONNECT, HIXL_CONNECT_SIZE_VER0, true),
	HIXL_CMD(DISCONNECT, HIXL_CONNECT_SIZE_VER0, false),
	HIXL_CMD(TRANSFER, HIXL_TRANSFER_SIZE_VER0, true),
	HIXL_CMD(SEND_NOTIFY, HIXL_SEND_NOTIFY_SIZE_VER0, false),
	HIXL_CMD(GET_NOTIFIES, HIXL_GET_NOTIFIES_SIZE_VER0, true),
	HIXL_CMD(CANCEL, HIXL_CANCEL_SIZE_VER0, false),
	HIXL_CMD(LINK_STATS, HIXL_LINK_STATS_SIZE_VER0, false),
	HIXL_CMD(ENGINES, HIXL_ENGINES_SIZE_VER0, false),
	HIXL_CMD(PEER_REGIONS, HIXL_PEER_REGIONS_SIZE_VER0, false),
};

/**
 * hixl_ioctl_canon() - decode an ioctl number or URING_CMD cmd_op
 * @cmd:   as user space encoded it, with its struct's size
 * @canon: out: the canonical HIXL_IOC_*
 * @usize: out: the caller's struct size, bytes
 *
 * Structs grow at the end, reconciled by copy_struct_from_user() as openat2.
 * Return: 0; -ENOTTY no such command; -EINVAL bad direction or too small.
 */
int hixl_ioctl_canon(unsigned int cmd, unsigned int *canon, size_t *usize)
{
	const struct hixl_cmd_desc *d;
	unsigned int nr = _IOC_NR(cmd);

	if (_IOC_TYPE(cmd) != HIXL_IOC_MAGIC || nr >= ARRAY_SIZE(hixl_cmds))
		return -ENOTTY;
	d = &hixl_cmds[array_index_nospec(nr, ARRAY_SIZE(hixl_cmds))];
	if (!d->cmd)
		return -ENOTTY;
	if (_IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE)) {
		pr_debug("ioctl 0x%x: direction %u, not read/write\n", cmd, _IOC_DIR(cmd));
		return -EINVAL;
	}
	if (_IOC_SIZE(cmd) < d->size_ver0) {
		pr_debug("ioctl 0x%x: a %u-byte struct, smaller than the first ABI's %u\n",
			 cmd, _IOC_SIZE(cmd), d->size_ver0);
		return -EINVAL;
	}
	*canon = d->cmd;
	*usize = _IOC_SIZE(cmd);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_ioctl_canon);

/**
 * hixl_engine_ioctl() - decode, copy in, run and copy out one command
 * @eng:  the engine
 * @cmd:  ioctl number, any struct size
 * @uarg: user pointer to the argument struct
 * Context: process context, may sleep.
 * Return: 0; -ENOTTY no such command; -EINVAL bad direction or size;
 * -E2BIG non-zero bytes past the kernel's struct; -EFAULT; the handler's errors.
 */
long hixl_engine_ioctl(struct hixl_engine *eng, unsigned int cmd,
		       void __user *uarg)
{
	union hixl_cmd_arg arg;
	unsigned int canon;
	size_t usize, ksize;
	int ret;

	ret = hixl_ioctl_canon(cmd, &canon, &usize);
	if (ret)
		return ret;
	ksize = _IOC_SIZE(canon);
	if (WARN_ON_ONCE(ksize > sizeof(arg)))
		return -EINVAL;
	ret = copy_struct_from_user(&arg, ksize, uarg, usize);
	if (ret) {
		if (ret == -E2BIG)
			pr_debug("ioctl 0x%x: non-zero bytes past the kernel's %zu-byte struct\n",
				 cmd, ksize);
		return ret;
	}
	down_read(&eng->rdma_sem);	/* the device cannot go away under a command */
	switch (canon) {
	case HIXL_IOC_GET_INFO:
		ret = hixl_cmd_get_info(eng, &arg.info);
		break;
	case HIXL_IOC_REG_MEM:
		ret = hixl_cmd_reg_mem(eng, &arg.reg_mem);
		break;
	case HIXL_IOC_DEREG_MEM:
		ret = hixl_cmd_dereg_mem(eng, &arg.dereg_mem);
		break;
	case HIXL_IOC_GET_STATS:
		ret = hixl_cmd_get_stats(eng, &arg.stats);
		break;
	case HIXL_IOC_SETUP:
		ret = hixl_cmd_setup(eng, &arg.setup);
		break;
	case HIXL_IOC_CONNECT:
		ret = hixl_cmd_connect(eng, &arg.connect);
		break;
	case HIXL_IOC_DISCONNECT:
		ret = hixl_cmd_disconnect(eng, &arg.connect);
		break;
	case HIXL_IOC_TRANSFER:
		ret = hixl_cmd_transfer(eng, &arg.transfer);
		break;
	case HIXL_IOC_SEND_NOTIFY:
		ret = hixl_cmd_send_notify(eng, &arg.send_notify);
		break;
	case HIXL_IOC_GET_NOTIFIES:
		ret = hixl_cmd_get_notifies(eng, &arg.get_notifies);
		break;
	case HIXL_IOC_CANCEL:
		ret = hixl_cmd_cancel(eng, &arg.cancel, false);
		break;
	case HIXL_IOC_LINK_STATS:
		ret = hixl_cmd_link_stats(eng, &arg.link_stats);
		break;
	case HIXL_IOC_ENGINES:
		ret = hixl_cmd_engines(eng, &arg.engines);
		break;
	case HIXL_IOC_PEER_REGIONS:
		ret = hixl_cmd_peer_regions(eng, &arg.peer_regions);
		break;
	default:
		ret = -ENOTTY;	/* a table entry without a case: not reached */
		break;
	}
	up_read(&eng->rdma_sem);
	if (ret && !hixl_cmds[_IOC_NR(canon)].out_on_error)
		return ret;
	if (copy_to_user(uarg, &arg, min(usize, ksize)))
		return ret ? ret : -EFAULT;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_ioctl);

static int hixl_open(struct inode *inode, struct file *file)
{
	struct hixl_engine *eng = hixl_engine_create();

	if (IS_ERR(eng))
		return PTR_ERR(eng);
	file->private_data = eng;
	return 0;
}

static int hixl_release(struct inode *inode, struct file *file)
{
	hixl_engine_destroy(file->private_data);
	return 0;
}

static __poll_t hixl_poll(struct file *file, poll_table *wait)
{
	return hixl_notify_poll(file->private_data, file, wait);
}

static long hixl_unlocked_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	return hixl_engine_ioctl(file->private_data, cmd, (void __user *)arg);
}

static const struct file_operations hixl_fops = {
	.owner		= THIS_MODULE,	/* no unload while a file is open */
	.open		= hixl_open,
	.release	= hixl_release,
	.unlocked_ioctl	= hixl_unlocked_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.uring_cmd	= hixl_uring_cmd,
	.poll		= hixl_poll,
	.llseek		= noop_llseek,
};

/* fixed minor so opening the node loads the module; 243-254 are for local use */
#define HIXL_MISC_MINOR	248

static struct miscdevice hixl_misc = {
	.minor	= HIXL_MISC_MINOR,
	.name	= HIXL_DEVICE_NAME,
	.fops	= &hixl_fops,
	.mode	= 0660,
};

static int __init hixl_init(void)
{
	int ret;

	hixl_xq_ops = &hixl_xq_link_ops;
	hixl_region_events = &hixl_table_region_events;
	hixl_local_init();
	hixl_wq = alloc_workqueue("hixl", WQ_UNBOUND, 0);
	if (!hixl_wq)
		return -ENOMEM;
	hixl_cq_wq = alloc_workqueue("hixl_cq", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!hixl_cq_wq) {
		destroy_workqueue(hixl_wq);
		return -ENOMEM;
	}
	ret = hixl_ib_client_register();
	if (ret)
		goto err_wq;
	ret = misc_register(&hixl_misc);
	if (ret == -EBUSY) {
		pr_warn("misc minor %d is taken: /dev/%s gets a dynamic one (no load on first open)\n",
			HIXL_MISC_MINOR, HIXL_DEVICE_NAME);
		hixl_misc.minor = MISC_DYNAMIC_MINOR;
		ret = misc_register(&hixl_misc);
	}
	if (ret) {
		pr_err("cannot register /dev/%s: %d\n", HIXL_DEVICE_NAME, ret);
		goto err_ib_client;
	}
	hixl_dev = hixl_misc.this_device;
	ret = dma_coerce_mask_and_coherent(hixl_dev, DMA_BIT_MASK(64));
	if (ret) {
		pr_err("cannot set a DMA mask: %d\n", ret);
		goto err_misc;
	}
	hixl_debugfs_init();
	pr_info("/dev/%s ready, ABI %u\n", HIXL_DEVICE_NAME, HIXL_ABI_VERSION);
	return 0;

err_misc:
	misc_deregister(&hixl_misc);
err_ib_client:
	hixl_ib_client_unregister();
err_wq:
	destroy_workqueue(hixl_cq_wq);
	destroy_workqueue(hixl_wq);
	return ret;
}

static void __exit hixl_exit(void)
{
	hixl_debugfs_exit();
	misc_deregister(&hixl_misc);
	hixl_ib_client_unregister();
	destroy_workqueue(hixl_cq_wq);
	destroy_workqueue(hixl_wq);
}

module_init(hixl_init);
module_exit(hixl_exit);

MODULE_DESCRIPTION("hixl: RDMA memory transfer engine for LLM KV-cache serving");
MODULE_AUTHOR("hixl developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS_MISCDEV(HIXL_MISC_MINOR);
MODULE_ALIAS("devname:" HIXL_DEVICE_NAME);
MODULE_VERSION("0.3");
