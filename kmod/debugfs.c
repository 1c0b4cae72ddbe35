// SPDX-License-Identifier: GPL-2.0
/* debugfs.c - /sys/kernel/debug/hixl/; never prints the engine secret */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/seq_file.h>

#include "engine.h"
#include "region.h"
#include "rail.h"
#include "link.h"
#include "testhook.h"
#include "main.h"
#include "local_xfer.h"

static struct dentry *hixl_debugfs_dir;

static int hixl_engines_show(struct seq_file *m, void *v)
{
	struct hixl_engine *eng;

	seq_puts(m, "engine pid regions invalid host_bytes device_bytes pinned_pages invalidations limit_hits refused_peers auth_failures\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node)
		seq_printf(m, "%llu %d %lld %lld %lld %lld %lld %lld %lld %lld %lld\n", eng->id,
			   pid_nr(eng->owner),
			   atomic64_read(&eng->st_regions), atomic64_read(&eng->st_invalid),
			   atomic64_read(&eng->st_host_bytes),
			   atomic64_read(&eng->st_device_bytes),
			   atomic64_read(&eng->st_pinned_pages),
			   atomic64_read(&eng->st_invalidations),
			   atomic64_read(&eng->st_limit_hits),
			   atomic64_read(&eng->st_refused),
			   atomic64_read(&eng->st_auth_failed));
	mutex_unlock(&hixl_engines_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hixl_engines);

/* a registration may hold the engine's lock for ever waiting on user pages */
static bool hixl_debugfs_trylock(struct mutex *lock)
{
	for (int i = 0; i < 100; i++) {
		if (mutex_trylock(lock))
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

static int hixl_regions_show(struct seq_file *m, void *v)
{
	struct hixl_engine *eng;
	struct hixl_region *r;
	unsigned long idx;

	seq_puts(m, "engine handle type addr len page_size pinned_pages state runs run_bytes pin\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		if (!hixl_debugfs_trylock(&eng->lock)) {
			seq_printf(m, "%llu - - - - - - busy - - -\n", eng->id);
			continue;
		}
		xa_for_each(&eng->regions, idx, r)
			seq_printf(m, "%llu %u %s 0x%llx %llu %llu %lu %s %lu %zu %s\n", eng->id,
				   r->handle, r->type == HIXL_MEM_HOST ? "host" : "device",
				   r->addr, r->len, 1ULL << r->page_shift,
				   r->type == HIXL_MEM_HOST && hixl_region_has_pages(r) ?
				   r->npages : 0,
				   READ_ONCE(r->invalid) ? "invalid" :
				   READ_ONCE(r->suspect) ? "suspect" : "valid",
				   r->runs.nr, hixl_runs_bytes(&r->runs),
				   r->type != HIXL_MEM_HOST ? "-" :
				   r->folio_pins ? "folios" : "pages");
		mutex_unlock(&eng->lock);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hixl_regions);

static const char *const hixl_link_state_names[] = {
	[HIXL_LINK_CONNECTING] = "connecting",
	[HIXL_LINK_READY] = "ready",
	[HIXL_LINK_ERROR] = "error",
	[HIXL_LINK_CLOSED] = "closed",
};

static int hixl_links_show(struct seq_file *m, void *v)
{
	struct hixl_engine *eng;
	struct hixl_link *l;

	seq_puts(m, "engine peer side state error peer_regions notify_pending\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		mutex_lock(&eng->links_lock);
		list_for_each_entry(l, &eng->links, node) {
			struct hixl_sockaddr peer;
			unsigned long idx = 0;
			struct hixl_rregion *rr;
			int st, err, n = 0;
			bool named;

			if (l->rail)	/* rail links: hixl/raillinks */
				continue;
			st = hixl_link_state(l, &err);
			spin_lock(&l->lock);
			peer = l->peer;
			named = l->named;
			spin_unlock(&l->lock);
			mutex_lock(&l->rt.lock);
			mt_for_each(&l->rt.tree, rr, idx, ULONG_MAX)
				n++;
			mutex_unlock(&l->rt.lock);
			seq_printf(m, "%llu ", eng->id);
			if (!named)
				seq_puts(m, "-");
			else if (peer.family == AF_INET)
				seq_printf(m, "%pI4:%u", peer.addr, peer.port);
			else
				seq_printf(m, "[%pI6c]:%u", peer.addr, peer.port);
			spin_lock(&eng->notify_lock);
			seq_printf(m, " %s %s %d %d %u\n", l->active ? "active" : "passive",
				   hixl_link_state_names[st], err, n, l->notify_pending);
			spin_unlock(&eng->notify_lock);
		}
		mutex_unlock(&eng->links_lock);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hixl_links);

/**
 * hixl_rails_show() - one line per rail
 * @m: the seq_file
 * Context: process context; takes hixl_engines_lock, then rdma_sem by trylock.
 * Return: 0.
 */
static int hixl_rails_show(struct seq_file *m)
{
	struct hixl_engine *eng;
	struct hixl_rail_dev dev;
	struct hixl_rdma *rd;
	u32 i;

	seq_puts(m, "engine rail address device node mrs state\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		if (!down_read_trylock(&eng->rdma_sem)) {
			seq_printf(m, "%llu - busy -\n", eng->id);
			continue;
		}
		rd = eng->rdma;
		if (rd && !rd->loopback && rd->ibdev) {
			for (i = 0; i <= rd->nr_rails; i++) {
				const struct hixl_sockaddr *a = i ? &rd->rails[i - 1].addr :
								    &rd->local;
				bool up = hixl_rail_dev(rd, i, &dev);

				seq_printf(m, "%llu %u ", eng->id, i);
				if (a->family == AF_INET)
					seq_printf(m, "%pI4", a->addr);
				else
					seq_printf(m, "%pI6c", a->addr);
				seq_printf(m, " %s %d %lld %s\n", i ? rd->rails[i - 1].device :
					   dev_name(&rd->ibdev->dev),
					   up ? dev_to_node(&dev.ibdev->dev) : NUMA_NO_NODE,
					   atomic64_read(&eng->st_rail_mrs[i]), up ? "up" : "gone");
			}
		}
		up_read(&eng->rdma_sem);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}

/**
 * hixl_raillinks_show() - one line per rail link
 * @m: the seq_file
 * Context: process context; takes hixl_engines_lock, links_lock, rt.lock.
 * Return: 0.
 */
static int hixl_raillinks_show(struct seq_file *m)
{
	struct hixl_engine *eng;
	struct hixl_link *l;

	static const char *const names[] = { "connecting", "ready", "error", "closed" };

	seq_puts(m, "engine peer rail side state error peer_regions bytes errors\n");
	mutex_lock(&hixl_engines_lock);
	list_for_each_entry(eng, &hixl_engines, node) {
		mutex_lock(&eng->links_lock);
		list_for_each_entry(l, &eng->links, node) {
			unsigned long idx = 0;
			struct hixl_rregion *rr;
			int st, err, n = 0;
			u64 bytes;

			if (!l->rail)
				continue;
			st = hixl_link_state(l, &err);
			mutex_lock(&l->rt.lock);
			mt_for_each(&l->rt.tree, rr, idx, ULONG_MAX)
				n++;
			mutex_unlock(&l->rt.lock);
			bytes = atomic64_read(&l->ctrs.v[HIXL_CTR_READ_DIRECT_BYTES]) +
				atomic64_read(&l->ctrs.v[HIXL_CTR_WRITE_DIRECT_BYTES]);
			if (l->peer.family == AF_INET)
				seq_printf(m, "%llu %pI4:%u", eng->id, l->peer.addr, l->peer.port);
			else
				seq_printf(m, "%llu [%pI6c]:%u", eng->id, l->peer.addr,
					   l->peer.port);
			seq_printf(m, " %u %s %s %d %d %llu %llu\n", l->rail,
				   l->active ? "active" : "passive", names[st],
				   err, n, bytes,
				   (u64)atomic64_read(&l->ctrs.v[HIXL_CTR_ERRORS]));
		}
		mutex_unlock(&eng->links_lock);
	}
	mutex_unlock(&hixl_engines_lock);
	return 0;
}

static int hixl_rails_dbg_show(struct seq_file *m, void *unused)
{
	return hixl_rails_show(m);
}
DEFINE_SHOW_ATTRIBUTE(hixl_rails_dbg);

static int hixl_raillinks_dbg_show(struct seq_file *m, void *unused)
{
	return hixl_raillinks_show(m);
}
DEFINE_SHOW_ATTRIBUTE(hixl_raillinks_dbg);

/** hixl_debugfs_init() - create /sys/kernel/debug/hixl; failures are ignored */
void hixl_debugfs_init(void)
{
	hixl_debugfs_dir = debugfs_create_dir("hixl", NULL);
	debugfs_create_file("engines", 0400, hixl_debugfs_dir, NULL, &hixl_engines_fops);
	debugfs_create_file("regions", 0400, hixl_debugfs_dir, NULL, &hixl_regions_fops);
	debugfs_create_file("links", 0400, hixl_debugfs_dir, NULL, &hixl_links_fops);
	hixl_lcopy_debugfs(hixl_debugfs_dir);
	debugfs_create_file("rails", 0400, hixl_debugfs_dir, NULL, &hixl_rails_dbg_fops);
	debugfs_create_file("raillinks", 0400, hixl_debugfs_dir, NULL,
			    &hixl_raillinks_dbg_fops);
	hixl_testhook_init(hixl_debugfs_dir);
}

/** hixl_debugfs_exit() - remove /sys/kernel/debug/hixl */
void hixl_debugfs_exit(void)
{
	debugfs_remove_recursive(hixl_debugfs_dir);
}
