/* SPDX-License-Identifier: GPL-2.0 */
/*
 * region.h - registered memory: per-process accounting (acct.c), regions
 * (region.c), their pages as physically contiguous runs (runs.c), pinned
 * host memory (pin.c), their fast-registration MRs (mr.c) and device
 * memory (dmabuf.c).  Locks: in the order of engine.h.
 */
#ifndef _HIXL_REGION_H
#define _HIXL_REGION_H

#include <linux/atomic.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/mmu_notifier.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <rdma/hixl.h>

/*
 * One MR as the transfer path sees it: the region bytes [addr, addr + len)
 * are RDMA address iova under key.  A peer's MRs as it announced them
 * (key = rkey), and our own (key = lkey, struct hixl_region.spans).
 */
struct hixl_rmr {
	u64 addr;
	u64 len;
	u64 iova;
	u32 rkey;
};

struct hixl_engine;
struct hixl_rdma;
struct hixl_rmr;
struct ib_mr;
struct work_struct;

/* Largest page size a region's MR page list uses: 1 GiB. */
#define HIXL_MAX_PAGE_SHIFT	30

/* ---- acct.c: per-process registration limits ------------------------------ */

/**
 * struct hixl_proc - the registrations of one process, over all its engines
 * @node:         in hixl_procs, under hixl_procs_lock
 * @mm:           the process's mm (the key); a counted mmgrab() reference
 * @ref:          engines of this process that use this entry
 * @lock:         protects the three counters
 * @regions:      registrations, limit hixl_max_regions
 * @host_bytes:   host bytes registered, limit hixl_max_host_bytes
 * @device_bytes: device bytes registered, limit hixl_max_device_bytes
 */
struct hixl_proc {
	struct list_head node;
	struct mm_struct *mm;
	refcount_t ref;
	spinlock_t lock;
	u32 regions;
	u64 host_bytes;
	u64 device_bytes;
};

struct hixl_proc *hixl_proc_get(struct mm_struct *mm);
void hixl_proc_put(struct hixl_proc *proc);
int hixl_limit_check(u32 regions, u64 bytes, u64 add, u32 max_regions, u64 max_bytes);
int hixl_proc_charge(struct hixl_proc *proc, u32 type, u64 bytes);
void hixl_proc_uncharge(struct hixl_proc *proc, u32 type, u64 bytes);

/* ---- region.c: registered memory ------------------------------------------ */

/**
 * struct hixl_pgsz - accumulator for the largest page size a physical
 * layout allows (the idea of ib_umem_find_best_pgsz())
 * @va:      virtual address of the next piece
 * @next_pa: physical address that would continue the current run
 * @mask:    OR of every address whose low bits must be zero
 * @started: a piece was added
 */
struct hixl_pgsz {
	u64 va;
	u64 next_pa;
	u64 mask;
	bool started;
};

void hixl_pgsz_init(struct hixl_pgsz *s, u64 va);
void hixl_pgsz_add(struct hixl_pgsz *s, u64 pa, u64 len);
unsigned int hixl_pgsz_shift(const struct hixl_pgsz *s, unsigned int max_shift);
u64 hixl_pages_spanned(u64 addr, u64 len, unsigned int shift);
int hixl_range_check(u64 addr, u64 len);

/* ---- runs.c: a region's pages as physically contiguous runs --------------- */

/**
 * struct hixl_run - physically contiguous pages of a region
 * @pfn: page frame of the run's first page
 * @end: page index one past the run's last page, counted from the region's
 *       first page (the run starts where the previous one ends, or at 0)
 */
struct hixl_run {
	unsigned long pfn;
	unsigned long end;
};

/**
 * struct hixl_runs - pages as runs, in address order
 * @run:    @nr runs, room for @cap; NULL when empty and never allocated
 * @nr:     runs
 * @cap:    runs allocated
 * @npages: PAGE_SIZE pages covered: @run[@nr - 1].end, 0 when empty
 */
struct hixl_runs {
	struct hixl_run *run;
	unsigned long nr;
	unsigned long cap;
	unsigned long npages;
};

/* page index of the first page of run @i */
static inline unsigned long hixl_run_first(const struct hixl_runs *rs, unsigned long i)
{
	return i ? rs->run[i - 1].end : 0;
}

int hixl_runs_add(struct hixl_runs *rs, unsigned long pfn, unsigned long n);
int hixl_runs_add_pages(struct hixl_runs *rs, struct page **pages, unsigned long n);
void hixl_runs_reset(struct hixl_runs *rs);
void hixl_runs_free(struct hixl_runs *rs);
unsigned long hixl_runs_find(const struct hixl_runs *rs, unsigned long idx);
unsigned long hixl_runs_pfn(const struct hixl_runs *rs, unsigned long idx);
void hixl_runs_pgsz(const struct hixl_runs *rs, struct hixl_pgsz *s);
int hixl_runs_sg_table(const struct hixl_runs *rs, struct sg_table *sgt, u64 off, u64 len,
		       unsigned int max_seg);
size_t hixl_runs_bytes(const struct hixl_runs *rs);

/**
 * struct hixl_mrset - a region's fast-registration MRs on one rail's device
 * @mrs:            MRs covering the region, in address order; @nr_mrs of
 *                  them (0: none on this rail: before SETUP, after
 *                  invalidation, while the rail's device is gone, or a
 *                  device that cannot map the region)
 * @nr_mrs:         how many
 * @mr_shift:       log2 of the MRs' page size
 * @mrs_registered: every MR went through IB_WR_REG_MR (engine lock); each
 *                  MR keeps its own struct hixl_mr.registered
 * @spans:          the MRs as struct hixl_rmr (key = lkey on this rail's
 *                  device), for hixl_split()
 */
struct hixl_mrset {
	struct hixl_mr *mrs;
	u32 nr_mrs;
	unsigned int mr_shift;
	bool mrs_registered;
	struct hixl_rmr *spans;
};

/**
 * struct hixl_region - one registration
 * @eng:        owning engine
 * @handle:     index in @eng->regions, never 0
 * @addr:       first byte (user VA for host, caller's device VA for device)
 * @len:        bytes
 * @type:       HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @flags:      HIXL_REG_* flags it was registered with
 * @page_shift: log2 of the largest page size the physical layout allows
 * @runs:       the region's pages as physically contiguous runs, from the
 *              first page holding @addr: host: pinned (and charged to
 *              mm->pinned_vm), empty (@runs.nr 0) once released; device: the
 *              exporter's pages seen through @vmap, looked up when an MR
 *              needs them
 * @npages:     PAGE_SIZE pages the region spans (host: charged and pinned
 *              while @runs holds them)
 * @folio_pins: host: pinned with memfd_pin_folios() (one pin per folio,
 *              dropped with unpin_folio()), not one pin per page
 * @notifier:   host: MMU interval notifier on [addr, addr + len)
 * @lock:       orders the notifier callback against registration
 *              (mmu_interval_set_seq()/mmu_interval_read_retry())
 * @live:       set once registration completed; callbacks before that only
 *              advance the sequence (registration retries)
 * @suspect:    set by the notifier for an event that may leave the pages in
 *              place (MMU_NOTIFY_CLEAR: a THP split, MADV_DONTNEED, ...);
 *              the invalidation work looks at the range again and either
 *              clears it or sets @invalid.  Transfers do not use a suspect
 *              region.
 * @event:      the mmu_notifier_event that made the region suspect or invalid
 * @invalid:    the VA range no longer maps the pinned pages (munmap, mremap,
 *              exit, or a suspect region found changed); transfers fail,
 *              pins are released by the engine's invalidation work
 * @in_tree:    the range is in @eng->ranges
 * @withdrawing: DEREG_MEM waits, without the engine lock, for the peers
 *              to drop the region (engine lock): lookups, the invalidation
 *              work and a rail's revival pass it by, a second DEREG_MEM
 *              finds no such handle
 * @users:      in-flight users (transfers); DEREG_MEM returns -EBUSY while
 *              non-zero
 * @local_chunks: chunks of other engines' same-host copies in the region
 *              now (local.c; raised under the engine lock); DEREG_MEM waits
 *              for them, holding the lock, so no byte lands after it returns
 * @dmabuf:     device: the dma-buf, its attachment and mapping
 * @mrset:      the region's MRs on each rail of the engine (struct
 *              hixl_mrset; rail 0 = the engine's own device); under the
 *              engine lock; empty before SETUP, after invalidation, and on
 *              a rail whose device is gone
 * @rails:      hixl_region_rails(): bit i, rail i carries the region's
 *              descriptors (its MRs exist there and the NUMA choice,
 *              rail.c, allows it); bit 0 always.  Written under the engine
 *              lock (registration, SETUP, a rail's removal or revival),
 *              read with READ_ONCE()
 * @numa_node:  the node of the region's first page (host memory), or
 *              NUMA_NO_NODE (device memory, or before its pages are there)
 * @tbl_hidden: which peer tables hold the region (engine lock): 0, every
 *              link whose table went out (hixl_link.tbl_gen != 0) has it;
 *              else the table generation from which on links never got it
 *              (a table that went out while the region was invalid leaves
 *              it out; 1: no link has it, after its REGION_DEL or when it
 *              was invalid before it could be announced, or a
 *              HIXL_REG_LOCAL_ONLY region, which no table ever has)
 */
struct hixl_region {
	struct hixl_engine *eng;
	u32 handle;
	u64 addr;
	u64 len;
	u32 type;
	u32 flags;
	unsigned int page_shift;
	struct hixl_runs runs;
	unsigned long npages;
	bool folio_pins;
	struct mmu_interval_notifier notifier;
	spinlock_t lock;
	bool live;
	bool suspect;
	bool invalid;
	int event;
	bool in_tree;
	bool withdrawing;
	atomic_t users;
	atomic_t local_chunks;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct iosys_map vmap;
	u64 dmabuf_offset;
	struct hixl_mrset mrset[HIXL_MAX_RAILS];
	u32 rails;
	int numa_node;
	u64 tbl_hidden;
};

/* rail @rail's MRs of @r (0: the engine's own device); @rail < HIXL_MAX_RAILS */
static inline struct hixl_mrset *hixl_region_mrset(struct hixl_region *r, u32 rail)
{
	return &r->mrset[rail];
}

/* bit i: rail i carries @r's descriptors (struct hixl_region.rails); bit 0 always */
static inline u32 hixl_region_rails(const struct hixl_region *r)
{
	return READ_ONCE(r->rails) | 1;
}

/**
 * struct hixl_mr - one fast-registration MR of a region (mr.c)
 * @mr:   from ib_alloc_mr(IB_MR_TYPE_MEM_REG), mapped with ib_map_mr_sg();
 *        its lkey/rkey and iova are what the transfer path uses
 * @addr: first byte of the region's address space the MR covers
 * @len:  bytes covered
 * @sgt:  the pages of [@addr, @addr + @len)
 * @dma_mapped: @sgt is DMA-mapped for the device
 */
struct hixl_mr {
	struct ib_mr *mr;
	u64 addr;
	u64 len;
	struct sg_table sgt;
	bool dma_mapped;
	bool registered;	/* IB_WR_REG_MR completed: lkey/rkey usable */
};

/* the region holds its pages (host: pinned; device: looked up) */
static inline bool hixl_region_has_pages(const struct hixl_region *r)
{
	return r->runs.nr != 0;
}

/* HIXL_REG_LOCAL_ONLY: MRs without remote access, in no peer's table */
static inline bool hixl_region_local_only(const struct hixl_region *r)
{
	return r->flags & HIXL_REG_LOCAL_ONLY;
}

/* mr.c */
unsigned int hixl_mr_shift(unsigned int region_shift, u64 page_size_cap);
u32 hixl_mr_count(u64 addr, u64 len, unsigned int shift, u32 max_pages);
void hixl_mr_zero_base(struct ib_mr *mr, u64 page_size);
struct hixl_rail_dev;
int hixl_region_make_mrs_dev(struct hixl_region *r, u32 rail, const struct hixl_rail_dev *dev);
int hixl_region_make_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail);
int hixl_region_make_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
int hixl_region_make_mrs(struct hixl_region *r);
void hixl_region_free_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail);
void hixl_region_free_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
void hixl_region_free_mrs(struct hixl_region *r);

/* pin.c: host memory */
int hixl_reg_host(struct hixl_region *r, struct hixl_pgsz *pgsz);
void hixl_region_release_pins(struct hixl_region *r);
void hixl_inval_work(struct work_struct *work);

/* region.c */
int hixl_cmd_reg_mem(struct hixl_engine *eng, struct hixl_reg_mem *arg);
int hixl_cmd_dereg_mem(struct hixl_engine *eng, struct hixl_dereg_mem *arg);
/**
 * struct hixl_tbl_wait - the acknowledgements one table update waits for
 * @eng:      the engine
 * @deadline: jiffies by which every peer must have acknowledged
 * @ents:     each link sent the update (a reference), the count of its
 *            table messages its peer must have applied, and by when
 * @n:        entries used; @cap: entries allocated
 *
 * Owned by the one thread making the update; no lock.
 */
struct hixl_tbl_wait {
	struct hixl_engine *eng;
	unsigned long deadline;
	struct hixl_tbl_wait_ent {
		struct hixl_link *link;
		u64 want;
		unsigned long deadline;
	} *ents;
	u32 n, cap;
};

/**
 * struct hixl_region_events - what the links do when a registration comes
 * or goes (table.c: the peers' tables)
 * @added:   announce @r to every ready link's peer; @w: out, the
 *           acknowledgements to wait for (hixl_links_region_added())
 * @wait:    wait for them, without the engine's lock (hixl_tbl_wait_finish())
 * @withdraw: withdraw @r from every peer's table that has it; @w: out, the
 *           acknowledgements to wait for (hixl_links_region_withdraw())
 * @removed: @withdraw, then @wait with the engine's lock still held
 *           (hixl_links_region_removed())
 *
 * Memory sits below the links (kmod/LAYERS), so a registration reaches
 * them through these, which table.c provides (hixl_table_region_events)
 * and main.c sets at load, before any engine exists (hixl_region_events).
 * Read-only afterwards.  Context: process context, the engine's lock held
 * (@added, @withdraw, @removed) or not (@wait).
 */
struct hixl_region_events {
	void (*added)(struct hixl_engine *eng, struct hixl_region *r, struct hixl_tbl_wait *w);
	void (*wait)(struct hixl_tbl_wait *w);
	void (*withdraw)(struct hixl_engine *eng, struct hixl_region *r, struct hixl_tbl_wait *w);
	void (*removed)(struct hixl_engine *eng, struct hixl_region *r);
};

extern const struct hixl_region_events *hixl_region_events;

/* mr.c: the rails a region's descriptors go on (its NUMA node's) */
extern int hixl_rail_numa;
struct hixl_rdma;
u32 hixl_rail_numa_mask(const int *dev_node, u32 nr_rails, int mem_node, bool enabled);
void hixl_region_rails_update(struct hixl_region *r, const struct hixl_rdma *rd);
void hixl_engine_rails_update(struct hixl_engine *eng);
void hixl_engine_regions_init(struct hixl_engine *eng);
void hixl_engine_regions_destroy(struct hixl_engine *eng);
struct hixl_region *hixl_region_lookup(struct hixl_engine *eng, u64 addr, u64 len);
bool hixl_range_read_only(struct hixl_engine *eng, u64 addr, u64 len);

/* dmabuf.c */
int hixl_dmabuf_map(struct hixl_region *r, int fd, u64 offset, struct hixl_pgsz *pgsz);
int hixl_dmabuf_pages(struct hixl_region *r);
void hixl_dmabuf_unmap(struct hixl_region *r);

#endif /* _HIXL_REGION_H */
