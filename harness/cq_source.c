// SPDX-License-Identifier: GPL-2.0
/*
 * Where the harness's CQs come from (see cq_source.h).
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include "uapi/linux/cqpool.h"

#include "../takeover/testing.h"
#include "cq_source.h"
#include "testing.h"

/*
 * Whether cqpool_takeover.ko has ib_cq_pool_get() now: then upstream's
 * figures would be cqpool's.  Asked through symbol_get(), so that the
 * harness loads without the takeover.
 */
static bool cqh_taken_over(void)
{
	bool (*patched)(void);
	bool ret;

	patched = symbol_get(cqpool_test_takeover_patched);
	if (!patched)
		return false;
	ret = patched();
	symbol_put(cqpool_test_takeover_patched);
	return ret;
}

/**
 * cqh_cq_source_init() - choose and check where CQs come from
 * @src: filled in
 * @mode: enum cqpool_cq_mode
 * @dev: the device the CQs are for, held by the caller
 * @owned: with CQPOOL_CQ_POOL, an owned pool on @dev; NULL for @dev's
 *	shared pool of @poll_ctx
 * @poll_ctx: the poll context of the CQs
 *
 * Context: process context.
 * Return: 0; -EINVAL for an unknown @mode, or an owned pool of another
 * device (a CQ of one device under a QP of another is driver type
 * confusion); -EBUSY for upstream's pool while cqpool_takeover.ko has it
 * (cqpool would be measured twice); -EOPNOTSUPP for a CQ per QP on a
 * device without completion vectors; or what cqpool_device_pool() said.
 */
int cqh_cq_source_init(struct cqh_cq_source *src, u32 mode,
		       struct ib_device *dev, struct cqpool *owned,
			  enum ib_poll_context poll_ctx)
{
	*src = (struct cqh_cq_source){
		.mode = mode,
		.dev = dev,
		.poll_ctx = poll_ctx,
	};
	switch (mode) {
	case CQPOOL_CQ_POOL:
		if (owned) {
			if (cqpool_test_pool_device(owned) != dev)
				return -EINVAL;
			src->pool = owned;
			return 0;
		}
		src->pool = cqpool_device_pool(dev, poll_ctx);
		if (IS_ERR(src->pool))
			return PTR_ERR(src->pool);
		src->shared = true;
		return 0;
	case CQPOOL_CQ_UPSTREAM:
		return owned ? -EINVAL : cqh_taken_over() ? -EBUSY : 0;
	case CQPOOL_CQ_PER_QP:
		return owned ? -EINVAL :
			dev->num_comp_vectors < 1 ? -EOPNOTSUPP : 0;
	}
	return -EINVAL;
}

/* Drops the takeover's functions a direct source holds. */
static void cqh_cq_source_drop_takeover(struct cqh_cq_source *src)
{
	if (src->tk_get)
		symbol_put(cqpool_test_takeover_get);
	if (src->tk_put)
		symbol_put(cqpool_test_takeover_put);
	src->tk_get = NULL;
	src->tk_put = NULL;
}

/**
 * cqh_cq_source_init_takeover() - upstream's calls, taken over
 * @src: filled in
 * @dev: the device the CQs are for, held by the caller
 * @poll_ctx: the poll context of the CQs
 * @direct: call the takeover's functions directly, not through
 *	ib_cq_pool_get() and ib_cq_pool_put()
 *
 * ib_cq_pool_get() and ib_cq_pool_put(), as CQPOOL_CQ_UPSTREAM calls
 * them, while cqpool_takeover.ko has them: what a ULP pays on cqpool's
 * shared pool through the takeover.  With @direct, the same minus the
 * livepatch's redirection (plus an indirect call).  A disable meanwhile is
 * safe, as the takeover still takes back what it handed out, but the
 * calls after it are upstream's own: the caller keeps it enabled for the
 * run.
 *
 * Context: process context.
 * Return: 0, -ENOENT while the takeover does not have the calls, or
 * what cqpool_device_pool() said.
 */
int cqh_cq_source_init_takeover(struct cqh_cq_source *src,
				struct ib_device *dev,
				   enum ib_poll_context poll_ctx, bool direct)
{
	*src = (struct cqh_cq_source){
		.mode = CQPOOL_CQ_UPSTREAM,
		.dev = dev,
		.poll_ctx = poll_ctx,
	};
	if (!cqh_taken_over())
		return -ENOENT;
	if (direct) {
		/* A module reference each: the takeover stays for the run. */
		src->tk_get = symbol_get(cqpool_test_takeover_get);
		src->tk_put = symbol_get(cqpool_test_takeover_put);
		if (!src->tk_get || !src->tk_put) {
			cqh_cq_source_drop_takeover(src);
			return -ENOENT;
		}
	}
	/* Where the takeover reserves, held for the run's counts only. */
	src->pool = cqpool_device_pool(dev, poll_ctx);
	if (IS_ERR(src->pool)) {
		cqh_cq_source_drop_takeover(src);
		return PTR_ERR(src->pool);
	}
	src->shared = true;
	return 0;
}

/**
 * cqh_cq_source_exit() - undo cqh_cq_source_init() or _init_takeover()
 * @src: a source whose CQs are all put
 *
 * Context: any context (the last put of a shared pool only queues work).
 */
void cqh_cq_source_exit(struct cqh_cq_source *src)
{
	if (src->shared)
		cqpool_pool_put(src->pool);
	src->shared = false;
	src->pool = NULL;
	cqh_cq_source_drop_takeover(src);
}

/**
 * cqh_cq_source_get() - a CQ with room for @nr_cqe, from @src
 * @src: the source
 * @nr_cqe: entries
 * @vector_hint: a completion vector, or -1: the pool's choice, upstream's
 *	own, or, for a CQ per QP, the next vector in turn, as upstream
 *	spreads without a hint
 * @hook: with CQPOOL_CQ_POOL, a hook for the CQ's events; else NULL
 *
 * Context: process context.
 * Return: the CQ, or an ERR_PTR: -EINVAL for @nr_cqe above the device's
 * max_cqe (ib_cq_pool_get() would try every vector and fail, or worse)
 * or a hook outside CQPOOL_CQ_POOL, or what the get or the verb said.
 */
struct ib_cq *cqh_cq_source_get(struct cqh_cq_source *src,
				unsigned int nr_cqe, int vector_hint,
				   struct cqpool_hook *hook)
{
	static atomic_t next_vector;
	unsigned int vec;

	if (src->mode == CQPOOL_CQ_POOL)
		return cqpool_cq_get(src->pool, nr_cqe, vector_hint, hook);
	if (hook || !nr_cqe || nr_cqe > src->dev->attrs.max_cqe ||
	    vector_hint < -1)
		return ERR_PTR(-EINVAL);
	if (src->tk_get)
		return src->tk_get(src->dev, nr_cqe, vector_hint,
				   src->poll_ctx);
	if (src->mode == CQPOOL_CQ_UPSTREAM)
		return ib_cq_pool_get(src->dev, nr_cqe, vector_hint,
				      src->poll_ctx);
	vec = vector_hint >= 0 ? vector_hint : atomic_inc_return(&next_vector);
	return ib_alloc_cq(src->dev, NULL, nr_cqe,
			   vec % src->dev->num_comp_vectors, src->poll_ctx);
}

/**
 * cqh_cq_source_put() - give back a CQ of cqh_cq_source_get()
 * @src: its source
 * @cq: the CQ
 * @nr_cqe: the entries it was got with
 * @hook: the hook it was got with, or NULL
 *
 * Context: process context.
 */
void cqh_cq_source_put(struct cqh_cq_source *src, struct ib_cq *cq,
		       unsigned int nr_cqe, struct cqpool_hook *hook)
{
	if (src->mode == CQPOOL_CQ_POOL)
		cqpool_cq_put(cq, nr_cqe, hook);
	else if (src->tk_put)
		src->tk_put(cq, nr_cqe);
	else if (src->mode == CQPOOL_CQ_UPSTREAM)
		ib_cq_pool_put(cq, nr_cqe);
	else
		ib_free_cq(cq);
}
