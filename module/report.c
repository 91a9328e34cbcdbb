// SPDX-License-Identifier: GPL-2.0
/*
 * What cqpool holds: the one walk over devices, pools and CQs that
 * debugfs prints and, in the test build, the harness's CQPOOL_IOC_LIST
 * copies out, so the two can never disagree.
 */
#include <linux/string.h>

#include "cqpool_internal.h"
#include "report.h"

static void cqpool_report_cq(struct cqpool_report *r, struct cqpool *pool,
			     struct cqpool_cq *ccq)
{
	const struct cqp_cq *l = &ccq->ledger;
	struct cqpool_report_cq info = {
		.cq_id = ccq->cq->res.id,
		.vector = l->vec,
		.cqe = l->size,
		.reserved_cqes = l->reserved,
		.users = l->users,
		.age_ms = cqpool_ms_since(ccq->created),
		.idle_ms = l->users ? 0 : cqpool_ms_since(l->idle_since),
	};
	unsigned long flags;

	strscpy(info.device, dev_name(&pool->cdev->ibdev->dev),
		sizeof(info.device));
	strscpy(info.pool, pool->name, sizeof(info.pool));
	spin_lock_irqsave(&ccq->hooks_lock, flags);
	info.events = ccq->ev_received;
	info.delivered = ccq->ev_delivered;
	spin_unlock_irqrestore(&ccq->hooks_lock, flags);
	r->cq(r, &info);
}

/* Reports @pool and, when there is a cq callback, its CQs; under its lock. */
static void cqpool_report_pool(struct cqpool_report *r, struct cqpool *pool,
			       struct cqpool_report_device *dev)
{
	struct cqpool_report_pool info = {
		.poll_ctx = pool->poll_ctx,
		.flags = pool->flags,
	};
	struct cqp_pool_stats st;
	struct cqpool_cq *ccq;

	cqp_pool_get_stats(pool->ledger, &st);
	strscpy(info.device, dev->name, sizeof(info.device));
	strscpy(info.name, pool->name, sizeof(info.name));
	info.owned = pool->owned;
	info.broken = cqp_pool_check(pool->ledger);
	info.cqs = st.cqs;
	info.idle_cqs = st.idle_cqs;
	info.cqes = st.cqes;
	info.reserved_cqes = st.reserved;
	info.users = st.users;

	dev->pools++;
	dev->cqs += st.cqs;
	dev->cqes += st.cqes;
	dev->reserved_cqes += st.reserved;
	dev->users += st.users;
	if (r->pool)
		r->pool(r, &info);
	if (r->cq)
		list_for_each_entry(ccq, &pool->cqs, node)
			cqpool_report_cq(r, pool, ccq);
}

/**
 * cqpool_upstream_count() - the CQs of the kernel's own pools of a device
 * @ibdev: the device
 * @ctx: one poll context, or -1 for all of them
 * @st: filled in
 *
 * What ib_cq_pool_get() keeps on the device, for comparison with cqpool.
 *
 * Context: any context; takes the device's cq_pools_lock with interrupts
 * off, and leaves them as it found them.
 */
void cqpool_upstream_count(struct ib_device *ibdev, int ctx,
			   struct cqpool_upstream_stats *st)
{
	unsigned long flags;
	struct ib_cq *cq;
	int i;

	memset(st, 0, sizeof(*st));
	spin_lock_irqsave(&ibdev->cq_pools_lock, flags);
	for (i = 0; i < ARRAY_SIZE(ibdev->cq_pools); i++) {
		if (ctx >= 0 && i != ctx)
			continue;
		list_for_each_entry(cq, &ibdev->cq_pools[i], pool_entry) {
			st->cqs++;
			st->cqes += cq->cqe;
			st->used += cq->cqe_used;
		}
	}
	spin_unlock_irqrestore(&ibdev->cq_pools_lock, flags);
}

/**
 * cqpool_report() - walk every device, pool and CQ cqpool holds
 * @r: what to call for each; a NULL callback is skipped
 *
 * A pool comes before its CQs, and a device after its pools (its info
 * sums them).  The callbacks run under the locks of what they are given
 * and must not sleep.
 *
 * Context: process context; takes the devices mutex and pool locks.
 */
void cqpool_report(struct cqpool_report *r)
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	cqpool_devices_lock();
	list_for_each_entry(cdev, cqpool_devices_list(), node) {
		const struct ib_device *ibdev = cdev->ibdev;
		struct cqpool_upstream_stats up;
		struct cqpool_report_device dev = {
			.num_comp_vectors = ibdev->num_comp_vectors,
			.nvec = cqpool_dev_nvec(cdev),
			.max_cqe = ibdev->attrs.max_cqe,
			.max_cq = ibdev->attrs.max_cq,
			.events = atomic64_read(&cdev->ev_received),
			.delivered = atomic64_read(&cdev->ev_delivered),
			.masked = atomic64_read(&cdev->ev_masked),
		};

		strscpy(dev.name, dev_name(&ibdev->dev), sizeof(dev.name));
		mutex_lock(&cdev->lock);
		list_for_each_entry(pool, &cdev->pools, node) {
			cqpool_lock(pool);
			cqpool_report_pool(r, pool, &dev);
			cqpool_unlock(pool);
		}
		mutex_unlock(&cdev->lock);
		cqpool_upstream_count(cdev->ibdev, -1, &up);
		dev.upstream_cqs = up.cqs;
		dev.upstream_cqes = up.cqes;
		dev.upstream_used = up.used;
		if (r->device)
			r->device(r, &dev);
	}
	cqpool_devices_unlock();
}
