// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core's own CQ pool, for what the takeover leaves to it: the puts of
 * CQs ib_core handed out before the patch, and the gets on a device
 * cqpool does not serve (see upstream.h).  The code is ib_cq_pool_get(),
 * ib_alloc_cqs() and ib_cq_pool_put() of drivers/infiniband/core/cq.c;
 * its CQs go on the device's cq_pools lists, which ib_core frees once the
 * device is unregistered, and are named ib_core's in `rdma res`.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "upstream.h"

/* cq.c's: the least a new CQ of the pool holds. */
#define TK_MAX_SHARED_CQ_SZ	4096U

/* ib_alloc_cqs(): a CQ of at least @nr_cqes on each vector in use. */
static int tk_upstream_alloc_cqs(struct ib_device *dev, unsigned int nr_cqes,
				 enum ib_poll_context poll_ctx)
{
	LIST_HEAD(tmp_list);
	unsigned int nr_cqs, i;
	struct ib_cq *cq, *n;
	int ret;

	nr_cqes = min_t(unsigned int, dev->attrs.max_cqe,
			max(nr_cqes, TK_MAX_SHARED_CQ_SZ));
	nr_cqs = min_t(unsigned int, dev->num_comp_vectors, num_online_cpus());
	for (i = 0; i < nr_cqs; i++) {
		cq = __ib_alloc_cq(dev, NULL, nr_cqes, i, poll_ctx, "ib_core");
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			goto out_free_cqs;
		}
		cq->shared = true;
		list_add_tail(&cq->pool_entry, &tmp_list);
	}

	spin_lock_irq(&dev->cq_pools_lock);
	list_splice(&tmp_list, &dev->cq_pools[poll_ctx]);
	spin_unlock_irq(&dev->cq_pools_lock);
	return 0;

out_free_cqs:
	list_for_each_entry_safe(cq, n, &tmp_list, pool_entry) {
		cq->shared = false;
		ib_free_cq(cq);
	}
	return ret;
}

/**
 * tk_upstream_get() - ib_cq_pool_get() as ib_core runs it
 * @dev: the RDMA device
 * @nr_cqe: entries to reserve
 * @comp_vector_hint: a completion vector, or -1 for ib_core's round robin
 * @poll_ctx: a poll context ib_core pools, checked by the caller
 *
 * Context: process context; may sleep.
 * Return: the CQ, or an ERR_PTR of ib_alloc_cq().
 */
struct ib_cq *tk_upstream_get(struct ib_device *dev, unsigned int nr_cqe,
			      int comp_vector_hint,
			      enum ib_poll_context poll_ctx)
{
	/* ib_core's round robin is its own static: this one starts afresh. */
	static unsigned int default_comp_vector;
	unsigned int vector, num_comp_vectors;
	struct ib_cq *cq, *found = NULL;
	int ret;

	might_sleep();
	num_comp_vectors =
		min_t(unsigned int, dev->num_comp_vectors, num_online_cpus());
	if (comp_vector_hint < 0) {
		comp_vector_hint =
			(READ_ONCE(default_comp_vector) + 1) % num_comp_vectors;
		WRITE_ONCE(default_comp_vector, comp_vector_hint);
	}
	vector = comp_vector_hint % num_comp_vectors;

	/* The first CQ of the vector with room, else a new CQ per vector. */
	while (!found) {
		spin_lock_irq(&dev->cq_pools_lock);
		list_for_each_entry(cq, &dev->cq_pools[poll_ctx], pool_entry) {
			if (vector != cq->comp_vector)
				continue;
			if (cq->cqe_used + nr_cqe > cq->cqe)
				continue;
			found = cq;
			break;
		}
		if (found) {
			found->cqe_used += nr_cqe;
			spin_unlock_irq(&dev->cq_pools_lock);
			return found;
		}
		spin_unlock_irq(&dev->cq_pools_lock);

		ret = tk_upstream_alloc_cqs(dev, nr_cqe, poll_ctx);
		if (ret)
			return ERR_PTR(ret);
	}
	return found;
}

/**
 * tk_upstream_put() - ib_cq_pool_put() as ib_core runs it
 * @cq: a CQ of ib_core's pool
 * @nr_cqe: the entries reserved with it
 *
 * Context: process context, or any context with interrupts on.
 */
void tk_upstream_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	if (WARN_ON_ONCE(nr_cqe > cq->cqe_used))
		return;

	spin_lock_irq(&cq->device->cq_pools_lock);
	cq->cqe_used -= nr_cqe;
	spin_unlock_irq(&cq->device->cq_pools_lock);
}
