// SPDX-License-Identifier: GPL-2.0
/* stage_cost.c - which registered descriptors are staged: the cost model. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <kunit/visibility.h>

#include "link.h"
#include "stage_cost.h"
#include "proto.h"

/* The cost model and stage_policy: docs/abi.md, "The staging pool". */
static int hixl_stage_policy_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v > HIXL_STAGE_MUST)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops hixl_stage_policy_ops = {
	.set = hixl_stage_policy_set,
	.get = param_get_uint,
};

unsigned int hixl_stage_policy = HIXL_STAGE_BY_COST;
module_param_cb(stage_policy, &hixl_stage_policy_ops, &hixl_stage_policy, 0644);
MODULE_PARM_DESC(stage_policy,
		 "which registered host descriptors are staged: 0 by cost (default), 1 every one below 256 KiB (the fixed rule of 0.2), 2 none (only unregistered local memory)");
EXPORT_SYMBOL_IF_KUNIT(hixl_stage_policy);

static unsigned int hixl_stage_wr_ns = HIXL_STAGE_WR_NS;
module_param_named(stage_wr_ns, hixl_stage_wr_ns, uint, 0644);
MODULE_PARM_DESC(stage_wr_ns, "cost model: ns one direct work request costs beyond its bytes");

static unsigned int hixl_stage_round_ns = HIXL_STAGE_ROUND_NS;
module_param_named(stage_round_ns, hixl_stage_round_ns, uint, 0644);
MODULE_PARM_DESC(stage_round_ns,
		 "cost model: ns of one staging round (RDMA WRITE, STAGE_REQ, STAGE_DONE)");

static unsigned int hixl_stage_copy_ps = HIXL_STAGE_COPY_PS;
module_param_named(stage_copy_ps, hixl_stage_copy_ps, uint, 0644);
MODULE_PARM_DESC(stage_copy_ps,
		 "cost model: ps per byte of a staged descriptor's two copies");

/**
 * hixl_stage_cost_get() - the cost model's current constants
 * @c: out
 */
void hixl_stage_cost_get(struct hixl_stage_cost *c)
{
	c->wr_ns = READ_ONCE(hixl_stage_wr_ns);
	c->round_ns = READ_ONCE(hixl_stage_round_ns);
	c->copy_ps = READ_ONCE(hixl_stage_copy_ps);
}
EXPORT_SYMBOL_IF_KUNIT(hixl_stage_cost_get);

/**
 * hixl_stage_small() - is a registered descriptor a staging candidate?
 * @c:   the constants
 * @len: its bytes
 * Return: true if copying its bytes costs less than its work request.
 */
bool hixl_stage_small(const struct hixl_stage_cost *c, u64 len)
{
	u64 copy;

	if (!len || check_mul_overflow(len, (u64)c->copy_ps, &copy))
		return false;
	return copy < (u64)c->wr_ns * 1000;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_stage_small);

/**
 * hixl_stage_pays() - are a batch's candidates faster staged than direct?
 * @c:     the constants
 * @n:     candidates
 * @bytes: their bytes
 * @cap:   data bytes per staging round (0: the link cannot stage)
 * Return: true if staged < direct (see the model above).
 */
bool hixl_stage_pays(const struct hixl_stage_cost *c, u64 n, u64 bytes, u64 cap)
{
	u64 rounds, ents, rem, direct, staged, copy, fixed;

	if (!n || !cap)
		return false;
	rounds = div64_u64_rem(bytes, cap, &rem) + !!rem;
	ents = div64_u64_rem(n, HIXL_STAGE_MAX_ENTS, &rem) + !!rem;
	rounds = max(rounds, ents);
	/* in ps; any overflow means "too big to stage" */
	if (check_mul_overflow(n, (u64)c->wr_ns * 1000, &direct) ||
	    check_mul_overflow(rounds, (u64)c->round_ns * 1000, &fixed) ||
	    check_mul_overflow(bytes, (u64)c->copy_ps, &copy) ||
	    check_add_overflow(fixed, copy, &staged))
		return false;
	return staged < direct;
}
EXPORT_SYMBOL_IF_KUNIT(hixl_stage_pays);
