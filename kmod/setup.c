// SPDX-License-Identifier: GPL-2.0
/* setup.c - HIXL_IOC_SETUP, and the RDMA side's end at close or device removal */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "region.h"
#include "rail.h"
#include "auth.h"
#include "link.h"
#include "link_life.h"
#include "cm.h"
#include "raillink.h"
#include "loopback.h"
#include "setup.h"
#include "main.h"

/**
 * hixl_setup_validate() - check the options of a SETUP request
 * @a: the request
 * Return: 0, or -EINVAL for a bad flag, reserved field, option, rail field,
 * allowed-peers list or secret size.
 */
int hixl_setup_validate(const struct hixl_setup *a)
{
	int ret;

	if (a->flags & ~HIXL_SETUP_FLAGS_ALL)
		return hixl_einval("SETUP: flags 0x%x has unknown bits", a->flags);
	if (a->reserved1 || memchr_inv(a->reserved, 0, sizeof(a->reserved)))
		return hixl_einval("SETUP: reserved is not zero");
	if (a->flags & HIXL_SETUP_ALLOWED_PEERS) {
		if (!a->allowed || !a->nr_allowed || a->nr_allowed > HIXL_MAX_ALLOWED_PEERS)
			return hixl_einval("SETUP: ALLOWED_PEERS: allowed %s, nr_allowed %u (1..%u)",
					   a->allowed ? "set" : "NULL", a->nr_allowed,
					   HIXL_MAX_ALLOWED_PEERS);
	} else if (a->allowed || a->nr_allowed) {
		return hixl_einval("SETUP: allowed or nr_allowed set without ALLOWED_PEERS");
	}
	if (a->flags & HIXL_SETUP_SECRET) {
		if (!a->secret || a->secret_len < HIXL_SECRET_MIN ||
		    a->secret_len > HIXL_SECRET_MAX)
			return hixl_einval("SETUP: SECRET: secret %s, secret_len %u (%u..%u)",
					   a->secret ? "set" : "NULL", a->secret_len,
					   HIXL_SECRET_MIN, HIXL_SECRET_MAX);
	} else if (a->secret || a->secret_len) {
		return hixl_einval("SETUP: secret or secret_len set without SECRET");
	}
	if ((a->flags & HIXL_SETUP_LISTEN_ANY) && a->local.port)
		return hixl_einval("SETUP: LISTEN_ANY with local.port %u", a->local.port);
	if (a->traffic_class > 255 || a->traffic_class % 4)
		return hixl_einval("SETUP: traffic_class %u (0..255, a multiple of 4)",
				   a->traffic_class);
	if (a->transport > HIXL_TRANSPORT_LOCAL)
		return hixl_einval("SETUP: transport %u (AUTO %u, RDMA %u, LOCAL %u)", a->transport,
				   HIXL_TRANSPORT_AUTO, HIXL_TRANSPORT_RDMA, HIXL_TRANSPORT_LOCAL);
	if (a->service_level > 7)
		return hixl_einval("SETUP: service_level %u (0..7)", a->service_level);
	ret = hixl_rails_validate(a);
	if (ret)
		return ret;
	if (!a->pool_buffers != !a->pool_buffer_mb)
		return hixl_einval("SETUP: pool %u:%u: only one of the two is 0",
				   a->pool_buffers, a->pool_buffer_mb);
	if (a->pool_buffers > HIXL_MAX_POOL_BUFFERS ||
	    a->pool_buffer_mb > HIXL_MAX_POOL_BUFFER_MB)
		return hixl_einval("SETUP: pool %u:%u (at most %u:%u)", a->pool_buffers,
				   a->pool_buffer_mb, HIXL_MAX_POOL_BUFFERS,
				   HIXL_MAX_POOL_BUFFER_MB);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_setup_validate);

static void hixl_rdma_free(struct hixl_rdma *rd)
{
	hixl_rail_unlisten(rd);		/* stopped already, unless SETUP never finished */
	hixl_rails_free(rd);
	if (rd->pd)
		ib_dealloc_pd(rd->pd);
	if (!IS_ERR_OR_NULL(rd->cm_id))
		rdma_destroy_id(rd->cm_id);
	hixl_auth_free(&rd->auth);	/* no link uses it any more */
	kfree(rd);
}

/* For hixl_ib_remove(); NULL @rd clears them.  The engine's lock held. */
static void hixl_engine_rail_ibdevs_set(struct hixl_engine *eng, const struct hixl_rdma *rd)
{
	u32 i;

	for (i = 1; i < HIXL_MAX_RAILS; i++)
		WRITE_ONCE(eng->rail_ibdev[i], rd && i <= rd->nr_rails ?
			   rd->rails[i - 1].ibdev : NULL);
}

/**
 * hixl_cmd_setup() - HIXL_IOC_SETUP: give an engine its RDMA device
 * @eng: the engine; the caller must be its opener
 * @a:   in: local address and options; out: device name and limits
 *
 * All or nothing: the device side is built privately and published only
 * when nothing can fail; on failure the engine is left as it was.
 * Context: process context, may sleep; takes @eng->lock.
 * Return: 0, or -errno as docs/abi.md lists.
 */
int hixl_cmd_setup(struct hixl_engine *eng, struct hixl_setup *a)
{
	struct sockaddr_storage ss;
	struct hixl_region *r;
	struct hixl_rdma *rd;
	unsigned long idx;
	int ret;

	ret = hixl_setup_validate(a);
	if (ret)
		return ret;
	ret = hixl_sockaddr_to_kernel(&a->local, &ss);
	if (ret)
		return ret;
	if (!hixl_is_owner(eng))
		return -EPERM;
	if (hixl_loop_addr(&a->local)) {
		if (a->flags & (HIXL_SETUP_RAILS | HIXL_SETUP_RAILS_AUTO))
			return hixl_einval("SETUP: a loopback engine has no rails");
		return hixl_loop_setup(eng, a);	/* no device: loopback.c */
	}

	/* one SETUP at a time, and no REG_MEM/DEREG_MEM meanwhile */
	hixl_engine_lock(eng);
	if (eng->rdma) {
		ret = -EALREADY;
		goto unlock;
	}
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd) {
		ret = -ENOMEM;
		goto unlock;
	}
	rd->cm_kind = HIXL_CM_ENGINE;
	rd->eng = eng;
	rd->local = a->local;
	rd->traffic_class = a->traffic_class;
	rd->service_level = a->service_level;
	rd->pool_buffers = a->pool_buffers;
	rd->pool_buffer_mb = a->pool_buffer_mb;
	rd->transport = a->transport;
	ret = hixl_auth_setup(&rd->auth, a);	/* before the listener can see a request */
	if (ret)
		goto err_free_rd;

	rd->cm_id = rdma_create_id(current->nsproxy->net_ns, hixl_cm_handler, rd,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(rd->cm_id)) {
		ret = PTR_ERR(rd->cm_id);
		goto err_free_rd;
	}
	ret = rdma_bind_addr(rd->cm_id, (struct sockaddr *)&ss);
	if (ret)
		goto err_destroy_id;
	rd->ibdev = rd->cm_id->device;
	if (!rd->ibdev) {
		ret = -ENODEV;
		goto err_destroy_id;
	}
	if (!(rd->ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    !rd->ibdev->attrs.max_fast_reg_page_list_len) {
		ret = -EOPNOTSUPP;
		goto err_destroy_id;
	}
	rd->page_size_cap = rd->ibdev->attrs.page_size_cap;
	rd->max_mr_pages = rd->ibdev->attrs.max_fast_reg_page_list_len;
	ret = hixl_rails_setup(rd, a, current->nsproxy->net_ns);	/* rail.c */
	if (ret)
		goto err_destroy_id;
	rd->pd = ib_alloc_pd(rd->ibdev, 0);
	if (IS_ERR(rd->pd)) {
		ret = PTR_ERR(rd->pd);
		goto err_free_rails;
	}

	/* a device removal freed the MRs with the old PD */
	xa_for_each(&eng->regions, idx, r) {
		if (READ_ONCE(r->invalid))
			continue;
		ret = hixl_region_make_mrs_on(r, rd);
		if (ret)
			goto err_free_mrs;
	}
	if (a->local.port || (a->flags & HIXL_SETUP_LISTEN_ANY)) {
		ret = rdma_listen(rd->cm_id, 128);
		if (ret)
			goto err_free_mrs;
		/* port 0: the one RDMA CM bound (sin_port is sin6_port's place) */
		rd->local.port = ntohs(((struct sockaddr_in *)
					&rd->cm_id->route.addr.src_addr)->sin_port);
		a->local.port = rd->local.port;
		/* and on each rail's address */
		ret = hixl_rail_listen(rd, a->flags & HIXL_SETUP_LISTEN_ANY);
		if (ret)
			goto err_free_mrs;
	}

	/* nothing fails from here on: publish (the CM handler reads unlocked) */
	atomic_set(&eng->pool_free, a->pool_buffers);
	WRITE_ONCE(eng->rdma_gone, false);
	smp_store_release(&eng->rdma, rd);	/* pairs with readers' smp_load_acquire() */
	WRITE_ONCE(eng->ibdev, rd->ibdev);
	hixl_engine_rail_ibdevs_set(eng, rd);

	strscpy(a->device, dev_name(&rd->ibdev->dev), sizeof(a->device));
	a->page_size_cap = rd->page_size_cap;
	a->max_mr_pages = rd->max_mr_pages;
	mutex_unlock(&eng->lock);
	return 0;

err_free_mrs:
	xa_for_each(&eng->regions, idx, r)
		hixl_region_free_mrs_on(r, rd);
	ib_dealloc_pd(rd->pd);
err_free_rails:
	hixl_rails_free(rd);
err_destroy_id:
	rdma_destroy_id(rd->cm_id);	/* not listening: no connection came in */
err_free_rd:
	hixl_auth_free(&rd->auth);
	kfree(rd);
unlock:
	mutex_unlock(&eng->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_setup);

/**
 * hixl_engine_rdma_stop() - stop listening: no new link after this
 * @eng: the engine, being destroyed
 * Context: process context, may sleep.
 */
void hixl_engine_rdma_stop(struct hixl_engine *eng)
{
	hixl_loop_stop(eng);		/* a loopback engine: off loopback.c's list */
	if (!eng->rdma)
		return;
	hixl_rail_unlisten(eng->rdma);	/* raillink_accept.c */
	if (!eng->rdma->cm_id)
		return;
	rdma_destroy_id(eng->rdma->cm_id);
	eng->rdma->cm_id = NULL;
}

/**
 * hixl_engine_rdma_destroy() - release the device side of an engine
 * @eng: the engine, without links or regions
 * Context: process context, may sleep; @eng->rdma_sem held for writing.
 */
void hixl_engine_rdma_destroy(struct hixl_engine *eng)
{
	lockdep_assert_held_write(&eng->rdma_sem);
	if (!eng->rdma)
		return;
	WRITE_ONCE(eng->ibdev, NULL);
	hixl_engine_rail_ibdevs_set(eng, NULL);
	hixl_rdma_free(eng->rdma);
	eng->rdma = NULL;
}

/*
 * @ibdev is being unregistered: drop everything on it, as if never set up.
 * Links go under rdma_sem for reading, MRs and PD under it for writing.
 */
static void hixl_engine_detach(struct hixl_engine *eng, struct ib_device *ibdev)
{
	struct hixl_region *r;
	struct hixl_rdma *rd;
	unsigned long idx;

	down_read(&eng->rdma_sem);
	rd = eng->rdma;
	if (!rd || rd->ibdev != ibdev) {	/* closed, or set up again elsewhere */
		up_read(&eng->rdma_sem);
		return;
	}
	pr_warn("engine %llu: RDMA device %s removed; its links and MRs go\n", eng->id,
		dev_name(&ibdev->dev));
	mutex_lock(&eng->links_lock);
	WRITE_ONCE(eng->rdma_gone, true);	/* no new link from here on */
	mutex_unlock(&eng->links_lock);
	hixl_engine_rdma_stop(eng);
	hixl_engine_links_destroy(eng);		/* wakes every waiter with an error */
	up_read(&eng->rdma_sem);

	down_write(&eng->rdma_sem);		/* commands that still run finish */
	hixl_engine_lock(eng);
	rd = eng->rdma;
	if (rd && rd->ibdev == ibdev) {
		xa_for_each(&eng->regions, idx, r)
			hixl_region_free_mrs(r);	/* every rail's */
		WRITE_ONCE(eng->ibdev, NULL);
		hixl_engine_rail_ibdevs_set(eng, NULL);
		eng->rdma = NULL;
	} else {
		rd = NULL;			/* a close freed them meanwhile */
	}
	mutex_unlock(&eng->lock);
	up_write(&eng->rdma_sem);
	if (rd)
		hixl_rdma_free(rd);
}

static int hixl_ib_add(struct ib_device *ibdev)
{
	int ret;

	/* engines bind to devices through RDMA CM at SETUP */
	ret = hixl_dev_add(ibdev);
	if (ret)	/* only a rail's revival on this device is refused */
		pr_warn("device %s: not tracked (%d): rails on it are not revived\n",
			dev_name(&ibdev->dev), ret);
	return 0;
}

static u64 hixl_removal_seq;	/* under hixl_engines_lock */

static bool hixl_engine_on_dev(struct hixl_engine *eng, struct ib_device *ibdev)
{
	u32 i;

	if (READ_ONCE(eng->ibdev) == ibdev)
		return true;
	for (i = 1; i < HIXL_MAX_RAILS; i++)
		if (READ_ONCE(eng->rail_ibdev[i]) == ibdev)
			return true;
	return false;
}

/*
 * ib_client.remove: runs before RDMA CM's, as nvme_rdma_remove_one().
 * Engines are detached one at a time, referenced, without
 * hixl_engines_lock; an engine with @ibdev as an extra rail loses only it.
 */
static void hixl_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct hixl_engine *eng, *found;
	u64 seq;

	hixl_dev_remove(ibdev);	/* no rail is revived on it from here on */

	mutex_lock(&hixl_engines_lock);
	seq = ++hixl_removal_seq;
	for (;;) {
		found = NULL;
		list_for_each_entry(eng, &hixl_engines, node) {
			if (eng->removal_seq != seq && hixl_engine_on_dev(eng, ibdev)) {
				found = eng;
				break;
			}
		}
		if (!found)
			break;
		found->removal_seq = seq;
		kref_get(&found->ref);
		mutex_unlock(&hixl_engines_lock);
		if (READ_ONCE(found->ibdev) == ibdev)
			hixl_engine_detach(found, ibdev);
		else
			hixl_engine_rail_detach(found, ibdev);
		hixl_engine_put(found);
		mutex_lock(&hixl_engines_lock);
	}
	mutex_unlock(&hixl_engines_lock);
}

static struct ib_client hixl_ib_client = {
	.name = "hixl",
	.add = hixl_ib_add,
	.remove = hixl_ib_remove,
};

/**
 * hixl_ib_client_register() - learn about RDMA devices going away
 * Return: 0 or ib_register_client()'s -errno.
 */
int hixl_ib_client_register(void)
{
	return ib_register_client(&hixl_ib_client);
}

/** hixl_ib_client_unregister() - undo hixl_ib_client_register() */
void hixl_ib_client_unregister(void)
{
	ib_unregister_client(&hixl_ib_client);	/* removes every device: the set is empty */
	hixl_devs_destroy();
}

/**
 * hixl_engine_rail_detach() - rail @ibdev of @eng is being unregistered
 * @eng:   an engine with @ibdev as an extra rail, referenced
 * @ibdev: the device; its links, MRs and PD go, the other rails stay
 * Context: process context, may sleep; no lock held.
 */
void hixl_engine_rail_detach(struct hixl_engine *eng, struct ib_device *ibdev)
{
	struct hixl_region *r;
	struct hixl_rdma *rd;
	unsigned long idx;
	u32 i = 0, j;

	down_read(&eng->rdma_sem);
	rd = eng->rdma;
	hixl_engine_lock(eng);
	for (j = 0; rd && !rd->loopback && j < rd->nr_rails; j++) {
		if (rd->rails[j].ibdev == ibdev && rd->rails[j].pd) {
			i = j + 1;
			break;
		}
	}
	if (i) {
		mutex_lock(&eng->links_lock);
		WRITE_ONCE(rd->rails[i - 1].removing, true);
		mutex_unlock(&eng->links_lock);
	}
	mutex_unlock(&eng->lock);
	if (!i) {			/* closed, or not (any more) on @ibdev */
		up_read(&eng->rdma_sem);
		return;
	}
	pr_warn("engine %llu: rail %u's RDMA device %s removed; its links and MRs go\n",
		eng->id, i, dev_name(&ibdev->dev));
	hixl_engine_links_destroy_rail(eng, i);
	up_read(&eng->rdma_sem);

	down_write(&eng->rdma_sem);	/* commands that still run finish */
	hixl_engine_lock(eng);
	rd = eng->rdma;
	if (rd && rd->nr_rails >= i && rd->rails[i - 1].ibdev == ibdev) {
		xa_for_each(&eng->regions, idx, r)
			hixl_region_free_mrs_rail(r, rd, i);
		hixl_rail_close(&rd->rails[i - 1]);
		WRITE_ONCE(eng->rail_ibdev[i], NULL);
		hixl_engine_rails_update(eng);
	}
	mutex_unlock(&eng->lock);
	up_write(&eng->rdma_sem);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_engine_rail_detach);
