// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - GET_STATS, LINK_STATS, ENGINES; the last two show engines of the caller's
 * pid namespace, never an address, key or secret
 */
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "engine.h"
#include "stats.h"
#include "rail.h"
#include "link.h"
#include "raillink.h"
#include "local.h"
#include "region.h"
#include "main.h"
#include "report.h"

/**
 * hixl_cmd_get_stats() - HIXL_IOC_GET_STATS: an engine's counters
 * @eng: the engine; rdma_sem read-held
 * @a:   in: flags, nr_rails, rails; out: the counters, nr_rails
 * Context: process context; sleeps with rail entries.
 * Return: 0; -EINVAL bad argument; -ENOMEM; -EFAULT.
 */
int hixl_cmd_get_stats(struct hixl_engine *eng, struct hixl_stats *a)
{
	u32 flags = a->flags, room = a->nr_rails;
	u64 rails = a->rails;

	if (flags & ~HIXL_STATS_RAILS)
		return hixl_einval("GET_STATS: flags 0x%x has unknown bits", flags);
	if (!(flags & HIXL_STATS_RAILS) && (room || rails))
		return hixl_einval("GET_STATS: nr_rails or rails set without HIXL_STATS_RAILS");
	if (room > HIXL_MAX_RAILS)
		return hixl_einval("GET_STATS: nr_rails %u is above %u", room, HIXL_MAX_RAILS);
	if (!room != !rails)
		return hixl_einval("GET_STATS: rails and nr_rails must be both set or both 0");
	if (memchr_inv(a->xfer.reserved, 0, sizeof(a->xfer.reserved)))
		return hixl_einval("GET_STATS: xfer.reserved is not zero");
	memset(a, 0, sizeof(*a));
	hixl_ctrs_read(&eng->ctrs, &a->xfer);
	a->regions = atomic64_read(&eng->st_regions);
	a->invalid_regions = atomic64_read(&eng->st_invalid);
	a->host_bytes = atomic64_read(&eng->st_host_bytes);
	a->device_bytes = atomic64_read(&eng->st_device_bytes);
	a->pinned_pages = atomic64_read(&eng->st_pinned_pages);
	a->invalidations = atomic64_read(&eng->st_invalidations);
	a->limit_hits = atomic64_read(&eng->st_limit_hits);
	a->mrs = atomic64_read(&eng->st_mrs);
	a->notify_dropped = atomic64_read(&eng->st_notify_dropped);
	a->refused_peers = atomic64_read(&eng->st_refused);
	a->auth_failures = atomic64_read(&eng->st_auth_failed);
	if (eng->proc) {
		spin_lock(&eng->proc->lock);
		a->proc_regions = eng->proc->regions;
		a->proc_host_bytes = eng->proc->host_bytes;
		a->proc_device_bytes = eng->proc->device_bytes;
		spin_unlock(&eng->proc->lock);
	}
	a->flags = flags;
	a->rails = rails;
	if (flags & HIXL_STATS_RAILS)
		return hixl_stats_rails(eng, rails, room, &a->nr_rails);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_get_stats);

static int hixl_lat_args(const char *cmd, bool want, u32 count, u64 lat)
{
	if (!want) {
		if (lat)
			return hixl_einval("%s: lat set without the LATENCY flag", cmd);
		return 0;
	}
	if (!count != !lat)
		return hixl_einval("%s: LATENCY: lat and count must be both set or both 0", cmd);
	return 0;
}

static int hixl_stat_args(const char *cmd, u32 flags, bool reserved, u32 count, u64 buf)
{
	if (flags)
		return hixl_einval("%s: flags 0x%x has unknown bits", cmd, flags);
	if (reserved)
		return hixl_einval("%s: reserved is not zero", cmd);
	if (count > HIXL_MAX_STAT_ENTRIES)
		return hixl_einval("%s: count %u is above %u", cmd, count, HIXL_MAX_STAT_ENTRIES);
	if ((count && !buf) || (!count && buf))
		return hixl_einval("%s: buf and count must be both set or both 0", cmd);
	return 0;
}

/* the owner's pid as the caller sees it; 0: not visible */
static pid_t hixl_engine_pid(const struct hixl_engine *eng)
{
	return pid_nr_ns(eng->owner, task_active_pid_ns(current));
}

/* one link's record (and with @lo its histogram); links_lock held */
static void hixl_link_stat_fill(struct hixl_link *l, struct hixl_link_stat *o,
				struct hixl_lat_hist *lo)
{
	int err;

	o->state = hixl_link_state(l, &err);
	o->err = err;
	spin_lock(&l->lock);
	if (l->named) {
		o->peer = l->peer;
		o->flags |= HIXL_LINK_STAT_NAMED;
	}
	spin_unlock(&l->lock);
	if (l->active)
		o->flags |= HIXL_LINK_STAT_ACTIVE;
	if (hixl_local_paired(l))
		o->flags |= HIXL_LINK_STAT_LOCAL;
	hixl_ctrs_read(&l->ctrs, &o->xfer);
	if (lo)
		hixl_lat_read(&l->ctrs.lat, lo);
}

/* entries while *@k < @n; *@k counts them all; links_lock held */
static void hixl_link_stat_rails(struct hixl_link *l, struct hixl_link_stat *out, u32 n, u32 *k)
{
	struct hixl_sockaddr peer;
	struct hixl_link *rl;
	u32 i, nr = hixl_link_nr_rails(l);

	for (i = 1; i < nr; i++, (*k)++) {
		struct hixl_link_stat *o = *k < n ? &out[*k] : NULL;

		spin_lock(&l->rails.lock);
		rl = i < l->rails.nr ? l->rails.link[i] : NULL;
		if (rl)
			kref_get(&rl->ref);
		peer = l->rails.peer_rail[i];
		spin_unlock(&l->rails.lock);
		if (o) {
			o->rail = i;
			if (rl) {
				hixl_link_stat_fill(rl, o, NULL);	/* histogram: 0s */
			} else {
				o->state = HIXL_LINK_STATE_ERROR;
				o->err = -ENOTCONN;
				o->flags = HIXL_LINK_STAT_NO_LINK;
			}
			o->peer = peer;		/* the peer's rail address, not its name */
			if (l->active)
				o->flags |= HIXL_LINK_STAT_ACTIVE;
			o->flags |= HIXL_LINK_STAT_NAMED;
		}
		if (rl)
			hixl_link_put(rl);
	}
}

/**
 * hixl_cmd_link_stats() - HIXL_IOC_LINK_STATS: the links of an engine
 * @eng: the engine of the calling file
 * @a:   in: engine (0: @eng), buf, count, flags, lat; out: total
 * Context: process context, sleeps.
 * Return: 0; -EINVAL bad argument; -ENOENT no such visible engine; -ENOMEM;
 * -EFAULT.
 */
int hixl_cmd_link_stats(struct hixl_engine *eng, struct hixl_link_stats *a)
{
	struct hixl_lat_hist *lout = NULL;
	struct hixl_link_stat *out = NULL;
	struct hixl_engine *e = NULL, *it;
	struct hixl_link *l;
	u32 n = 0, total = 0;
	int ret;

	bool rails = a->flags & HIXL_LINK_STATS_RAILS;
	bool lat = a->flags & HIXL_LINK_STATS_LATENCY;

	ret = hixl_stat_args("LINK_STATS",
			     a->flags & ~(HIXL_LINK_STATS_RAILS | HIXL_LINK_STATS_LATENCY),
			     a->reserved0 || a->reserved[0], a->count, a->buf);
	if (!ret)
		ret = hixl_lat_args("LINK_STATS", lat, a->count, a->lat);
	if (ret)
		return ret;
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(it, &hixl_engines, node) {
		if (a->engine ? it->id == a->engine && hixl_engine_pid(it) : it == eng) {
			e = it;
			break;
		}
	}
	if (!e) {
		mutex_unlock(&hixl_engines_lock);
		return -ENOENT;
	}
	mutex_lock(&e->links_lock);
	total = e->nr_links;
	if (rails) {		/* rail entries too: count them first */
		list_for_each_entry(l, &e->links, node)
			if (!l->rail)
				total += hixl_link_nr_rails(l) - 1;
	}
	n = min(a->count, total);
	if (n) {
		out = kvcalloc(n, sizeof(*out), GFP_KERNEL);
		if (out && lat)
			lout = kvcalloc(n, sizeof(*lout), GFP_KERNEL);
		if (!out || (lat && !lout)) {
			ret = -ENOMEM;
			goto unlock;
		}
	}
	total = 0;
	list_for_each_entry(l, &e->links, node) {
		if (l->rail)	/* a rail link: an entry after its primary's */
			continue;
		if (total < n)
			hixl_link_stat_fill(l, &out[total], lout ? &lout[total] : NULL);
		total++;
		if (rails)
			hixl_link_stat_rails(l, out, n, &total);
	}
unlock:
	mutex_unlock(&e->links_lock);
	mutex_unlock(&hixl_engines_lock);
	if (ret)
		goto out;
	a->total = total;
	n = min(n, total);
	if (n && copy_to_user(u64_to_user_ptr(a->buf), out, array_size(n, sizeof(*out))))
		ret = -EFAULT;
	if (!ret && n && lout &&
	    copy_to_user(u64_to_user_ptr(a->lat), lout, array_size(n, sizeof(*lout))))
		ret = -EFAULT;
out:
	kvfree(lout);
	kvfree(out);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_link_stats);

/* one engine's record, and with @ro its rails'; hixl_engines_lock held */
static void hixl_engine_stat_fill(struct hixl_engine *eng, struct hixl_engine *self,
				  pid_t pid, struct hixl_engine_stat *o, struct hixl_rail_stat *ro,
				  struct hixl_lat_hist *lo)
{
	o->id = eng->id;
	o->pid = pid;
	if (eng == self)
		o->flags |= HIXL_ENGINE_STAT_SELF;
	/* never wait for rdma_sem under hixl_engines_lock */
	if (eng == self || down_read_trylock(&eng->rdma_sem)) {
		/* pairs with SETUP's smp_store_release() */
		struct hixl_rdma *rd = smp_load_acquire(&eng->rdma);

		if (rd) {
			o->flags |= HIXL_ENGINE_STAT_SETUP;
			o->local = rd->local;
			o->nr_rails = hixl_rails_count(rd);
			if (rd->auth.tfm)	/* whether, never what: not the secret */
				o->flags |= HIXL_ENGINE_STAT_SECRET;
			if (rd->auth.nr_allow)
				o->flags |= HIXL_ENGINE_STAT_ALLOWED;
			if (rd->ibdev)		/* a loopback engine has none: "" */
				strscpy(o->device, dev_name(&rd->ibdev->dev), sizeof(o->device));
			if (ro)		/* under the rdma_sem held (or tried) above */
				hixl_rail_stats_fill(eng, rd, ro, o->nr_rails);
		}
		if (eng != self)
			up_read(&eng->rdma_sem);
	} else {
		o->flags |= HIXL_ENGINE_STAT_BUSY;
	}
	mutex_lock(&eng->links_lock);
	o->nr_links = eng->nr_links;
	mutex_unlock(&eng->links_lock);
	o->regions = atomic64_read(&eng->st_regions);
	o->host_bytes = atomic64_read(&eng->st_host_bytes);
	o->device_bytes = atomic64_read(&eng->st_device_bytes);
	hixl_ctrs_read(&eng->ctrs, &o->xfer);
	if (lo)
		hixl_lat_read(&eng->ctrs.lat, lo);
}

static int hixl_engines_rails_args(const struct hixl_engines *a)
{
	if (!(a->flags & HIXL_ENGINES_RAILS)) {
		if (a->rails)
			return hixl_einval("ENGINES: rails set without HIXL_ENGINES_RAILS");
		return 0;
	}
	if (a->count > HIXL_MAX_RAIL_STAT_ENGINES)
		return hixl_einval("ENGINES: RAILS: count %u is above %u", a->count,
				   HIXL_MAX_RAIL_STAT_ENGINES);
	if (!a->count != !a->rails)
		return hixl_einval("ENGINES: RAILS: rails and count must be both set or both 0");
	return 0;
}

/**
 * hixl_cmd_engines() - HIXL_IOC_ENGINES: every engine the caller may see
 * @eng: the engine of the calling file
 * @a:   in: buf, count, flags, rails, lat; out: total
 * Context: process context, sleeps.
 * Return: 0; -EINVAL bad argument; -ENOMEM; -EFAULT.
 */
int hixl_cmd_engines(struct hixl_engine *eng, struct hixl_engines *a)
{
	struct hixl_engine_stat *out = NULL;
	struct hixl_rail_stat *rout = NULL;
	struct hixl_lat_hist *lout = NULL;
	bool lat = a->flags & HIXL_ENGINES_LATENCY;
	struct hixl_engine *it;
	u32 n, total = 0;
	int ret;

	ret = hixl_stat_args("ENGINES", a->flags & ~(HIXL_ENGINES_RAILS | HIXL_ENGINES_LATENCY),
			     a->reserved0, a->count, a->buf);
	if (!ret)
		ret = hixl_engines_rails_args(a);
	if (!ret)
		ret = hixl_lat_args("ENGINES", lat, a->count, a->lat);
	if (ret)
		return ret;
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(it, &hixl_engines, node)
		total++;
	n = min(a->count, total);
	if (n) {
		out = kvcalloc(n, sizeof(*out), GFP_KERNEL);
		if (out && (a->flags & HIXL_ENGINES_RAILS))
			rout = kvcalloc(array_size(n, HIXL_MAX_RAILS), sizeof(*rout), GFP_KERNEL);
		if (out && lat)
			lout = kvcalloc(n, sizeof(*lout), GFP_KERNEL);
		if (!out || ((a->flags & HIXL_ENGINES_RAILS) && !rout) || (lat && !lout)) {
			mutex_unlock(&hixl_engines_lock);
			kvfree(lout);
			kvfree(rout);
			kvfree(out);
			return -ENOMEM;
		}
	}
	total = 0;
	list_for_each_entry(it, &hixl_engines, node) {
		pid_t pid = hixl_engine_pid(it);

		if (!pid && it != eng)
			continue;
		if (total < n)
			hixl_engine_stat_fill(it, eng, pid, &out[total],
					      rout ? &rout[total * HIXL_MAX_RAILS] : NULL,
					      lout ? &lout[total] : NULL);
		total++;
	}
	mutex_unlock(&hixl_engines_lock);
	a->total = total;
	n = min(n, total);
	if (n && copy_to_user(u64_to_user_ptr(a->buf), out, array_size(n, sizeof(*out))))
		ret = -EFAULT;
	if (!ret && n && rout &&
	    copy_to_user(u64_to_user_ptr(a->rails), rout,
			 array3_size(n, HIXL_MAX_RAILS, sizeof(*rout))))
		ret = -EFAULT;
	if (!ret && n && lout &&
	    copy_to_user(u64_to_user_ptr(a->lat), lout, array_size(n, sizeof(*lout))))
		ret = -EFAULT;
	kvfree(lout);
	kvfree(rout);
	kvfree(out);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_cmd_engines);
