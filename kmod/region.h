/* SPDX-License-Identifier: GPL-2.0 */
/* region.h - registered memory (acct.c, region.c, runs.c, pin.c, mr.c, dmabuf.c) */
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

/* one MR for the transfer path: [addr, addr + len) at iova; rkey or lkey */
struct hixl_rmr {
	u64 addr;
	u64 len;
	u64 iova;
	u32 rkey;
};

struct device;
struct dma_buf_attachment;
struct hixl_engine;
struct hixl_rdma;
struct hixl_rmr;
struct ib_mr;
struct work_struct;

#define HIXL_MAX_PAGE_SHIFT	30

/**
 * struct hixl_proc - the registrations of one process, over all its engines
 * @node:         in hixl_procs; under hixl_procs_lock
 * @mm:           the key, mmgrab()ed
 * @ref:          engines using this entry
 * @lock:         protects the three counters
 * @regions:      registrations
 * @host_bytes:   host bytes registered
 * @device_bytes: device bytes registered
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

/**
 * struct hixl_pgsz - best page size of a layout; follows ib_umem_find_best_pgsz()
 * @va:      VA of the next piece
 * @next_pa: PA continuing the current run
 * @mask:    OR of addresses whose low bits must be zero
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

/**
 * struct hixl_run - physically contiguous pages of a region
 * @pfn: first page's frame
 * @end: page index one past the run, from the region's start
 */
struct hixl_run {
	unsigned long pfn;
	unsigned long end;
};

/**
 * struct hixl_runs - pages as runs, in address order
 * @run:    @nr runs, room for @cap, or NULL
 * @nr:     runs
 * @cap:    runs allocated
 * @npages: pages covered
 */
struct hixl_runs {
	struct hixl_run *run;
	unsigned long nr;
	unsigned long cap;
	unsigned long npages;
};

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
 * struct hixl_mrset - a region's fast-registration MRs on one rail
 * @mrs:            MRs in address order
 * @nr_mrs:         entries of @mrs
 * @mr_shift:       log2 of the MR page size
 * @mrs_registered: all went through IB_WR_REG_MR; under the engine lock
 * @spans:          @mrs as struct hixl_rmr (lkey), for hixl_split()
 * @p2p:            device region on a device that DMAs: its pinned
 *                  peer-to-peer attachment to this rail's device
 *                  (dmabuf_p2p.c), NULL otherwise
 * @p2p_sgt:        @p2p's mapping, which @mrs cover
 */
struct hixl_mrset {
	struct hixl_mr *mrs;
	u32 nr_mrs;
	unsigned int mr_shift;
	bool mrs_registered;
	struct hixl_rmr *spans;
	struct dma_buf_attachment *p2p;
	struct sg_table *p2p_sgt;
};

/**
 * struct hixl_region - one registration
 * @eng:        owning engine
 * @handle:     index in @eng->regions, never 0
 * @addr:       first byte (user VA or device VA)
 * @len:        bytes
 * @type:       HIXL_MEM_HOST or HIXL_MEM_DEVICE
 * @flags:      HIXL_REG_*
 * @page_shift: log2 of the largest page size the layout allows
 * @runs:       pages as runs; host: pinned; device: looked up via @vmap
 * @npages:     PAGE_SIZE pages spanned
 * @folio_pins: host: pinned with memfd_pin_folios()
 * @large_folio_pins: host, @folio_pins: a folio of several pages among them
 * @notifier:   host: interval notifier on [addr, addr + len)
 * @lock:       orders the notifier callback against registration
 * @live:       registration completed
 * @suspect:    pages may still be in place; re-checked by the inval work
 * @event:      mmu_notifier_event that made it suspect or invalid
 * @invalid:    range no longer maps the pinned pages
 * @in_tree:    in @eng->ranges
 * @withdrawing: DEREG_MEM awaits acks unlocked; others skip it; engine lock
 * @users:      in-flight transfers; DEREG_MEM is -EBUSY while non-zero
 * @local_chunks: same-host copy chunks of other engines; DEREG_MEM waits
 * @dmabuf:     device: the dma-buf
 * @attach:     device: its attachment to the misc device, NULL when the
 *              exporter refuses one (peer-to-peer only: dmabuf_p2p.c)
 * @sgt:        device: the mapped attachment
 * @vmap:       device: kernel mapping, for software RDMA MRs
 * @dmabuf_offset: device: byte offset in the buffer
 * @mrset:      MRs per rail; under the engine lock
 * @rails:      bit i: rail i carries it; bit 0 always; engine lock, READ_ONCE()
 * @numa_node:  node of the first host page, or NUMA_NO_NODE
 * @tbl_hidden: 0: in every peer table; else first table gen lacking it; engine lock
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
	bool large_folio_pins;
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

static inline struct hixl_mrset *hixl_region_mrset(struct hixl_region *r, u32 rail)
{
	return &r->mrset[rail];
}

static inline u32 hixl_region_rails(const struct hixl_region *r)
{
	return READ_ONCE(r->rails) | 1;
}

/**
 * struct hixl_mr - one fast-registration MR of a region
 * @mr:         from ib_alloc_mr(IB_MR_TYPE_MEM_REG)
 * @addr:       first byte covered
 * @len:        bytes covered
 * @sgt:        pages of [@addr, @addr + @len)
 * @dma_mapped: @sgt is DMA-mapped
 * @registered: IB_WR_REG_MR completed
 */
struct hixl_mr {
	struct ib_mr *mr;
	u64 addr;
	u64 len;
	struct sg_table sgt;
	bool dma_mapped;
	bool registered;	/* IB_WR_REG_MR completed: lkey/rkey usable */
};

static inline bool hixl_region_has_pages(const struct hixl_region *r)
{
	return r->runs.nr != 0;
}

static inline bool hixl_region_local_only(const struct hixl_region *r)
{
	return r->flags & HIXL_REG_LOCAL_ONLY;
}

unsigned int hixl_mr_shift(unsigned int region_shift, u64 page_size_cap);
u32 hixl_mr_count(u64 addr, u64 len, unsigned int shift, u32 max_pages);
u32 hixl_mr_max_pages(u32 dev_max, unsigned int shift);
void hixl_mr_zero_base(struct ib_mr *mr, u64 page_size);
struct hixl_rail_dev;
int hixl_region_make_mrs_dev(struct hixl_region *r, u32 rail, const struct hixl_rail_dev *dev);
int hixl_region_make_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail);
int hixl_region_make_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
int hixl_region_make_mrs(struct hixl_region *r);
void hixl_region_free_mrs_rail(struct hixl_region *r, struct hixl_rdma *rd, u32 rail);
void hixl_region_free_mrs_on(struct hixl_region *r, struct hixl_rdma *rd);
void hixl_region_free_mrs(struct hixl_region *r);

int hixl_reg_host(struct hixl_region *r, struct hixl_pgsz *pgsz);
void hixl_region_release_pins(struct hixl_region *r);
void hixl_region_invalidated(struct hixl_region *r);
void hixl_inval_work(struct work_struct *work);

int hixl_cmd_reg_mem(struct hixl_engine *eng, struct hixl_reg_mem *arg);
int hixl_cmd_dereg_mem(struct hixl_engine *eng, struct hixl_dereg_mem *arg);
/**
 * struct hixl_tbl_wait - the acks one table update waits for; owner-only
 * @eng:      the engine
 * @deadline: jiffies by which every peer must have acked
 * @ents:     per link: the link (held) and the count its peer must apply
 * @n:        entries used
 * @cap:      entries allocated
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
 * struct hixl_region_events - how a registration reaches the links
 * @added:    announce @r to every ready link; @w: out, acks to wait for
 * @wait:     wait for them, without the engine's lock
 * @withdraw: withdraw @r from every peer table; @w: out, acks to wait for
 * @removed:  @withdraw, then @wait with the engine's lock held
 *
 * Set by table.c at load (memory is below the links, kmod/LAYERS).
 * Context: process context; engine lock held but for @wait.
 */
struct hixl_region_events {
	void (*added)(struct hixl_engine *eng, struct hixl_region *r, struct hixl_tbl_wait *w);
	void (*wait)(struct hixl_tbl_wait *w);
	void (*withdraw)(struct hixl_engine *eng, struct hixl_region *r, struct hixl_tbl_wait *w);
	void (*removed)(struct hixl_engine *eng, struct hixl_region *r);
};

extern const struct hixl_region_events *hixl_region_events;

extern int hixl_rail_numa;
struct hixl_rdma;
u32 hixl_rail_numa_mask(const int *dev_node, u32 nr_rails, int mem_node, bool enabled);
void hixl_region_rails_update(struct hixl_region *r, const struct hixl_rdma *rd);
void hixl_engine_rails_update(struct hixl_engine *eng);
void hixl_engine_regions_init(struct hixl_engine *eng);
void hixl_engine_regions_destroy(struct hixl_engine *eng);
struct hixl_region *hixl_region_lookup(struct hixl_engine *eng, u64 addr, u64 len);
bool hixl_range_read_only(struct hixl_engine *eng, u64 addr, u64 len);

int hixl_dmabuf_map(struct hixl_region *r, int fd, u64 offset, struct hixl_pgsz *pgsz);
int hixl_p2p_map(struct hixl_region *r, struct hixl_mrset *ms, struct device *dma_dev);
void hixl_p2p_unmap(struct hixl_mrset *ms);
int hixl_p2p_slice(const struct sg_table *src, u64 off, u64 len, struct sg_table *dst);
unsigned int hixl_p2p_shift(const struct sg_table *sgt, u64 off, u64 len, u64 va);
bool hixl_region_p2p(struct hixl_region *r);
int hixl_dmabuf_pages(struct hixl_region *r);
void hixl_dmabuf_unmap(struct hixl_region *r);

#endif /* _HIXL_REGION_H */
