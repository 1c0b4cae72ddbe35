// SPDX-License-Identifier: GPL-2.0
/*
 * p2p_kunit.c - KUnit suite hixl_p2p: a device region attached
 * peer-to-peer (kmod/dmabuf_p2p.c), with a KUnit device as the importer
 * (an RDMA device's DMA device) and a test exporter of this file as the
 * GPU: a dynamic exporter (pin/unpin) whose mapping is a table of DMA
 * segments it makes up, counting attachments, pins and mappings.
 *   map/unmap      attached with peer-to-peer allowed, pinned, mapped for
 *                  the device, and all of it undone
 *   refused        the exporter refusing the mapping (no P2P path) or
 *                  mapping short: the error, nothing left attached or pinned
 *   revoke         the exporter's move_notify: the region invalid at once
 *   slice/shift    MR scatterlists cut from a mapping; its page size
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>

#include "compat.h"
#include "engine.h"
#include "region.h"
#include "main.h"

HIXL_IMPORT_NS_DMA_BUF();

/* the test exporter: a buffer of @size bytes mapped as @seg-byte DMA segments */
struct p2p_exp {
	u64 size;
	u64 seg;		/* segment length; segments are discontiguous */
	u64 short_by;		/* map this many bytes less than @size */
	int map_err;		/* map_dma_buf()'s error: -EOPNOTSUPP no P2P path */
	int attached, pinned, mapped;
	bool saw_p2p;		/* an attachment allowed peer-to-peer */
};

static int p2p_exp_attach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	struct p2p_exp *e = d->priv;

	e->attached++;
	e->saw_p2p |= a->peer2peer;
	return 0;
}

static void p2p_exp_detach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	((struct p2p_exp *)d->priv)->attached--;
}

static int p2p_exp_pin(struct dma_buf_attachment *a)
{
	((struct p2p_exp *)a->dmabuf->priv)->pinned++;
	return 0;
}

static void p2p_exp_unpin(struct dma_buf_attachment *a)
{
	((struct p2p_exp *)a->dmabuf->priv)->pinned--;
}

static struct sg_table *p2p_exp_map(struct dma_buf_attachment *a, enum dma_data_direction dir)
{
	struct p2p_exp *e = a->dmabuf->priv;
	u64 left = e->size - e->short_by;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;

	if (e->map_err)
		return ERR_PTR(e->map_err);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt || sg_alloc_table(sgt, DIV_ROUND_UP_ULL(left, e->seg), GFP_KERNEL)) {
		kfree(sgt);
		return ERR_PTR(-ENOMEM);
	}
	/* segment i at 0x100000000 + 2 * i * seg: discontiguous, seg-aligned */
	for_each_sgtable_dma_sg(sgt, sg, i) {
		sg_dma_address(sg) = SZ_4G + 2 * (u64)i * e->seg;
		sg_dma_len(sg) = min(left, e->seg);
		left -= sg_dma_len(sg);
	}
	e->mapped++;
	return sgt;
}

static void p2p_exp_unmap(struct dma_buf_attachment *a, struct sg_table *sgt,
			  enum dma_data_direction dir)
{
	sg_free_table(sgt);
	kfree(sgt);
	((struct p2p_exp *)a->dmabuf->priv)->mapped--;
}

static void p2p_exp_release(struct dma_buf *d)
{
	kfree(d->priv);
}

static const struct dma_buf_ops p2p_exp_ops = {
	.attach = p2p_exp_attach,
	.detach = p2p_exp_detach,
	.pin = p2p_exp_pin,
	.unpin = p2p_exp_unpin,
	.map_dma_buf = p2p_exp_map,
	.unmap_dma_buf = p2p_exp_unmap,
	.release = p2p_exp_release,
};

struct p2p_ctx {
	struct hixl_engine *eng;
	struct device *dev;
	struct dma_buf *dmabuf;
	struct p2p_exp *e;		/* freed with the dma-buf */
	struct hixl_region r;
	struct hixl_mrset *ms;		/* the region's rail 0 */
};

static int p2p_init(struct kunit *test)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct p2p_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->eng = hixl_engine_create();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->eng);
	c->dev = kunit_device_register(test, "hixl-p2p-nic");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->dev);
	c->e = kzalloc(sizeof(*c->e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->e);
	c->e->size = SZ_8M;
	c->e->seg = SZ_2M;
	info.ops = &p2p_exp_ops;
	info.size = c->e->size;
	info.flags = O_RDWR;
	info.priv = c->e;
	c->dmabuf = dma_buf_export(&info);
	if (IS_ERR(c->dmabuf))
		kfree(c->e);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c->dmabuf);
	/* a device region of 6 MiB at 2 MiB into the buffer, as REG_MEM makes it */
	spin_lock_init(&c->r.lock);
	c->r.eng = c->eng;
	c->r.type = HIXL_MEM_DEVICE;
	c->r.addr = 0x7f0000200000ULL;
	c->r.len = SZ_4M + SZ_2M;
	c->r.dmabuf = c->dmabuf;
	c->r.dmabuf_offset = SZ_2M;
	c->r.live = true;
	c->ms = hixl_region_mrset(&c->r, 0);
	test->priv = c;
	return 0;
}

static void p2p_exit(struct kunit *test)
{
	struct p2p_ctx *c = test->priv;

	if (!c)
		return;
	if (c->ms->p2p)
		hixl_p2p_unmap(c->ms);
	if (!IS_ERR_OR_NULL(c->dmabuf))
		dma_buf_put(c->dmabuf);		/* frees c->e once released */
	if (!IS_ERR_OR_NULL(c->eng))
		hixl_engine_destroy(c->eng);
}

static int p2p_map(struct p2p_ctx *c)
{
	int ret;

	mutex_lock(&c->eng->lock);
	ret = hixl_p2p_map(&c->r, c->ms, c->dev);
	mutex_unlock(&c->eng->lock);
	return ret;
}

static void hixl_p2p_map_unmap(struct kunit *test)
{
	struct p2p_ctx *c = test->priv;
	struct scatterlist *sg;
	unsigned int i;
	u64 bytes = 0;

	KUNIT_ASSERT_EQ(test, p2p_map(c), 0);
	KUNIT_EXPECT_TRUE(test, c->e->saw_p2p);
	KUNIT_EXPECT_EQ(test, c->e->attached, 1);
	KUNIT_EXPECT_GE(test, c->e->pinned, 1);
	KUNIT_EXPECT_EQ(test, c->e->mapped, 1);
	KUNIT_ASSERT_NOT_NULL(test, c->ms->p2p);
	KUNIT_EXPECT_PTR_EQ(test, c->ms->p2p->dev, c->dev);
	for_each_sgtable_dma_sg(c->ms->p2p_sgt, sg, i)
		bytes += sg_dma_len(sg);
	KUNIT_EXPECT_EQ(test, bytes, (u64)SZ_8M);
	KUNIT_EXPECT_TRUE(test, hixl_region_p2p(&c->r));
	/* 2 MiB segments, congruent with the region's 2 MiB-aligned VA */
	KUNIT_EXPECT_EQ(test, hixl_p2p_shift(c->ms->p2p_sgt, c->r.dmabuf_offset, c->r.len,
					     c->r.addr), 21U);
	hixl_p2p_unmap(c->ms);
	KUNIT_EXPECT_NULL(test, c->ms->p2p);
	KUNIT_EXPECT_EQ(test, c->e->attached, 0);
	KUNIT_EXPECT_EQ(test, c->e->pinned, 0);
	KUNIT_EXPECT_EQ(test, c->e->mapped, 0);
	KUNIT_EXPECT_FALSE(test, hixl_region_p2p(&c->r));
	hixl_p2p_unmap(c->ms);		/* twice: a no-op */
}

static void hixl_p2p_refused(struct kunit *test)
{
	struct p2p_ctx *c = test->priv;

	c->e->map_err = -EOPNOTSUPP;	/* no peer-to-peer path to this device */
	KUNIT_EXPECT_EQ(test, p2p_map(c), -EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, c->ms->p2p);
	KUNIT_EXPECT_EQ(test, c->e->attached, 0);
	KUNIT_EXPECT_EQ(test, c->e->pinned, 0);
	c->e->map_err = 0;
	c->e->short_by = SZ_4K;		/* one page short of the region's end */
	KUNIT_EXPECT_EQ(test, p2p_map(c), -EINVAL);
	KUNIT_EXPECT_NULL(test, c->ms->p2p);
	KUNIT_EXPECT_EQ(test, c->e->attached, 0);
	KUNIT_EXPECT_EQ(test, c->e->pinned, 0);
	KUNIT_EXPECT_EQ(test, c->e->mapped, 0);
}

static void hixl_p2p_revoke(struct kunit *test)
{
	struct p2p_ctx *c = test->priv;
	s64 inv0 = atomic64_read(&c->eng->st_invalid);

	KUNIT_ASSERT_EQ(test, p2p_map(c), 0);
	dma_resv_lock(c->dmabuf->resv, NULL);
	dma_buf_move_notify(c->dmabuf);
	dma_resv_unlock(c->dmabuf->resv);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(c->r.invalid));
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->eng->st_invalid), inv0 + 1);
	dma_resv_lock(c->dmabuf->resv, NULL);
	dma_buf_move_notify(c->dmabuf);		/* again: counted once */
	dma_resv_unlock(c->dmabuf->resv);
	KUNIT_EXPECT_EQ(test, atomic64_read(&c->eng->st_invalid), inv0 + 1);
	flush_work(&c->eng->inval_work);
	atomic64_dec(&c->eng->st_invalid);	/* not in the engine: no DEREG_MEM counts it down */
}

/* hixl_p2p_slice(): 2 MiB segments at 4 GiB + 4 MiB * i */
static void hixl_p2p_slice_cases(struct kunit *test)
{
	static const struct {
		u64 off, len;
		unsigned int n;
		u64 first, first_len, last_len;
	} cases[] = {
		{ 0, SZ_2M, 1, SZ_4G, SZ_2M, SZ_2M },
		{ SZ_4K, SZ_4K, 1, SZ_4G + SZ_4K, SZ_4K, SZ_4K },
		{ SZ_2M - SZ_4K, SZ_8K, 2, SZ_4G + SZ_2M - SZ_4K, SZ_4K, SZ_4K },
		{ SZ_2M, SZ_4M + 5, 3, SZ_4G + SZ_4M, SZ_2M, 5 },
		{ SZ_8M - 1, 1, 1, SZ_4G + 3 * SZ_4M + SZ_2M - 1, 1, 1 },
	};
	struct p2p_ctx *c = test->priv;
	struct sg_table t;
	unsigned int k;

	KUNIT_ASSERT_EQ(test, p2p_map(c), 0);
	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		struct scatterlist *sg, *last = NULL;
		unsigned int i;

		KUNIT_ASSERT_EQ(test, hixl_p2p_slice(c->ms->p2p_sgt, cases[k].off, cases[k].len, &t),
				0);
		KUNIT_EXPECT_EQ_MSG(test, t.nents, cases[k].n, "case %u", k);
		KUNIT_EXPECT_EQ_MSG(test, (u64)sg_dma_address(t.sgl), cases[k].first, "case %u", k);
		KUNIT_EXPECT_EQ_MSG(test, (u64)sg_dma_len(t.sgl), cases[k].first_len, "case %u", k);
		for_each_sgtable_dma_sg(&t, sg, i)
			last = sg;
		KUNIT_EXPECT_EQ_MSG(test, (u64)sg_dma_len(last), cases[k].last_len, "case %u", k);
		sg_free_table(&t);
	}
	KUNIT_EXPECT_EQ(test, hixl_p2p_slice(c->ms->p2p_sgt, SZ_8M - 1, 2, &t), -EINVAL);
	KUNIT_EXPECT_EQ(test, hixl_p2p_slice(c->ms->p2p_sgt, SZ_8M, 1, &t), -EINVAL);
	/* a VA not congruent with the 2 MiB segments: 4 KiB pages */
	KUNIT_EXPECT_EQ(test, hixl_p2p_shift(c->ms->p2p_sgt, 0, SZ_4M, 0x7f0000201000ULL), 12U);
	/* one segment: as large as its VA allows */
	KUNIT_EXPECT_EQ(test, hixl_p2p_shift(c->ms->p2p_sgt, 0, SZ_2M, 0x7f0000200000ULL), 21U);
}

static struct kunit_case hixl_p2p_cases[] = {
	KUNIT_CASE(hixl_p2p_map_unmap),
	KUNIT_CASE(hixl_p2p_refused),
	KUNIT_CASE(hixl_p2p_revoke),
	KUNIT_CASE(hixl_p2p_slice_cases),
	{}
};

static struct kunit_suite hixl_p2p_suite = {
	.name = "hixl_p2p",
	.init = p2p_init,
	.exit = p2p_exit,
	.test_cases = hixl_p2p_cases,
};

kunit_test_suite(hixl_p2p_suite);
