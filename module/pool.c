// SPDX-License-Identifier: GPL-2.0
/*
 * CQ pools: the shared pool of each device and poll context, pools owned
 * by one consumer, reservations, growth and idle reclaim.  The C++ ledger
 * (core/pool.h) decides what to do; this file runs the verbs.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "cqpool_internal.h"
#include "cqpool_test.h"

/*
 * A CQ without users is freed after this long.  Long enough that a ULP
 * reconnecting (nvme-rdma retries every 10 s by default) finds its CQs
 * still there, short enough that the memory comes back within a minute.
 */
unsigned int cqpool_idle_timeout_ms = 30000;
EXPORT_SYMBOL_IF_KUNIT(cqpool_idle_timeout_ms);

static void cqpool_kick_reapers(void);

/* A new timeout applies to CQs already idle, not only to the next ones. */
static int cqpool_idle_timeout_set(const char *val,
				   const struct kernel_param *kp)
{
	int ret = param_set_uint(val, kp);

	if (!ret)
		cqpool_kick_reapers();
	return ret;
}

static const struct kernel_param_ops cqpool_idle_timeout_ops = {
	.set = cqpool_idle_timeout_set,
	.get = param_get_uint,
};

module_param_cb(idle_timeout_ms, &cqpool_idle_timeout_ops,
		&cqpool_idle_timeout_ms, 0644);
MODULE_PARM_DESC(idle_timeout_ms,
		 "Free a pooled CQ once it has had no user for this long (ms, default 30000)");

static unsigned int cqpool_keep_idle_cqs;
module_param_named(keep_idle_cqs, cqpool_keep_idle_cqs, uint, 0444);
MODULE_PARM_DESC(keep_idle_cqs,
		 "Idle CQs each pool keeps however long they are idle (default 0)");

/*
 * One reservation grows the pool at most this often: a consistent ledger
 * asks for one resize and then one new CQ at the most.
 */
#define CQPOOL_MAX_GROW		4

static const char *const cqpool_poll_ctx_names[CQPOOL_NR_POLL_CTX] = {
	[IB_POLL_SOFTIRQ] = "softirq",
	[IB_POLL_WORKQUEUE] = "workqueue",
	[IB_POLL_UNBOUND_WORKQUEUE] = "unbound_workqueue",
};

const char *cqpool_poll_ctx_name(enum ib_poll_context ctx)
{
	return (unsigned int)ctx < CQPOOL_NR_POLL_CTX ?
		cqpool_poll_ctx_names[ctx] : "?";
}

static bool cqpool_poll_ctx_ok(enum ib_poll_context ctx)
{
	return (unsigned int)ctx < CQPOOL_NR_POLL_CTX;
}

static u64 cqpool_idle_timeout_ns(void)
{
	return (u64)READ_ONCE(cqpool_idle_timeout_ms) * NSEC_PER_MSEC;
}

static void cqpool_reap_work(struct work_struct *work);

static struct cqpool *cqpool_alloc(struct cqpool_dev *cdev,
				   enum ib_poll_context ctx,
				   const struct cqpool_attr *attr, bool owned)
{
	const struct ib_device_attr *dattr = &cdev->ibdev->attrs;
	struct cqp_pool_params p = {
		.nvec = cdev->nvec,
		.max_cqe = dattr->max_cqe,
		.max_cqs = attr->max_cqs ? attr->max_cqs : dattr->max_cq,
		.cq_size = attr->cq_size,
		.keep_idle = cqpool_keep_idle_cqs,
	};
	struct cqpool *pool;

	if (cdev->ibdev->ops.resize_cq && !(attr->flags & CQPOOL_F_NO_RESIZE))
		p.flags |= CQP_POOL_RESIZE;
	if (attr->flags & CQPOOL_F_NO_SHRINK)
		p.flags |= CQP_POOL_NO_SHRINK;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->ledger = cqp_pool_create(&cqpool_core_alloc, &p);
	if (!pool->ledger) {
		kfree(pool);
		return ERR_PTR(-ENOMEM);
	}
	pool->cdev = cdev;
	pool->poll_ctx = ctx;
	pool->owned = owned;
	pool->flags = attr->flags;
	if (attr->name)
		strscpy(pool->name, attr->name, sizeof(pool->name));
	else
		snprintf(pool->name, sizeof(pool->name), "%s/%s",
			 dev_name(&cdev->ibdev->dev), cqpool_poll_ctx_name(ctx));
	mutex_init(&pool->lock);
	INIT_LIST_HEAD(&pool->cqs);
	INIT_DELAYED_WORK(&pool->reap_work, cqpool_reap_work);
	return pool;
}

/* Frees CQs already taken out of their pool's ledger. */
static void cqpool_free_cqs(struct cqpool *pool, struct list_head *cqs)
{
	struct cqpool_cq *ccq, *next;

	list_for_each_entry_safe(ccq, next, cqs, node) {
		xa_erase(&pool->cdev->cqs, ccq->cq->res.id);
		ib_free_cq(ccq->cq);
		kfree(ccq);
	}
}

/* Frees a pool nobody can reach any more and that has no reservation. */
static void cqpool_free(struct cqpool *pool)
{
	struct cqp_cq *lcq;
	LIST_HEAD(dead);

	cancel_delayed_work_sync(&pool->reap_work);

	mutex_lock(&pool->lock);
	while ((lcq = cqp_pool_take_idle(pool->ledger))) {
		struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq,
						     ledger);

		list_move_tail(&ccq->node, &dead);
	}
	mutex_unlock(&pool->lock);

	cqpool_free_cqs(pool, &dead);
	WARN_ON(!list_empty(&pool->cqs));
	WARN_ON(cqp_pool_destroy(pool->ledger));
	kfree(pool);
}

static void cqpool_reap_work(struct work_struct *work)
{
	struct cqpool *pool = container_of(to_delayed_work(work),
					   struct cqpool, reap_work);
	u64 timeout = cqpool_idle_timeout_ns();
	u64 now = ktime_get_ns();
	struct cqp_pool_stats st;
	struct cqp_cq *lcq;
	bool again = false;
	u64 since;
	LIST_HEAD(dead);

	mutex_lock(&pool->lock);
	while ((lcq = cqp_pool_reap(pool->ledger, now, timeout))) {
		struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq,
						     ledger);

		list_move_tail(&ccq->node, &dead);
	}
	cqp_pool_get_stats(pool->ledger, &st);
	if (!(pool->flags & CQPOOL_F_NO_SHRINK) &&
	    st.idle_cqs > cqpool_keep_idle_cqs &&
	    cqp_pool_oldest_idle(pool->ledger, &since)) {
		again = true;
		since = since + timeout > now ? since + timeout - now : 0;
	}
	mutex_unlock(&pool->lock);

	cqpool_free_cqs(pool, &dead);
	if (again)
		queue_delayed_work(system_wq, &pool->reap_work,
				   nsecs_to_jiffies(since) + 1);
}

/* Runs every pool's reclaim now; each reschedules itself as needed. */
static void cqpool_kick_reapers(void)
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	cqpool_devices_lock();
	list_for_each_entry(cdev, cqpool_devices_list(), node) {
		mutex_lock(&cdev->lock);
		list_for_each_entry(pool, &cdev->pools, node)
			mod_delayed_work(system_wq, &pool->reap_work, 0);
		mutex_unlock(&cdev->lock);
	}
	cqpool_devices_unlock();
}

/**
 * cqpool_device_pool() - the shared pool of a device and poll context
 * @dev: an RDMA device, held by the caller (an ib_client callback or a
 *	registration reference)
 * @ctx: IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE or IB_POLL_UNBOUND_WORKQUEUE
 *
 * The pool is created on first use and holds no CQ until the first
 * reservation.  It lives until the device goes away; callers never
 * destroy it.
 *
 * Context: process context; may sleep.
 * Return: the pool, or ERR_PTR(-EINVAL) for a bad poll context,
 * ERR_PTR(-ENODEV) if the device is not (or no longer) served,
 * ERR_PTR(-ENOMEM).
 */
struct cqpool *cqpool_device_pool(struct ib_device *dev,
				  enum ib_poll_context ctx)
{
	const struct cqpool_attr attr = { .poll_ctx = ctx };
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	if (!cqpool_poll_ctx_ok(ctx))
		return ERR_PTR(-EINVAL);
	cdev = cqpool_dev_get(dev);
	if (!cdev)
		return ERR_PTR(-ENODEV);

	mutex_lock(&cdev->lock);
	pool = cdev->shared[ctx];
	if (!pool && cdev->dying) {
		pool = ERR_PTR(-ENODEV);
	} else if (!pool) {
		pool = cqpool_alloc(cdev, ctx, &attr, false);
		if (!IS_ERR(pool)) {
			cdev->shared[ctx] = pool;
			list_add_tail(&pool->node, &cdev->pools);
		}
	}
	mutex_unlock(&cdev->lock);
	return pool;
}
EXPORT_SYMBOL_GPL(cqpool_device_pool);

/**
 * cqpool_create() - create a pool owned by the caller
 * @dev: an RDMA device, held by the caller
 * @attr: the pool's poll context, CQ size, CQ limit, flags and name
 *
 * The caller destroys the pool with cqpool_destroy() before it lets go
 * of @dev; the device's removal waits for that.
 *
 * Context: process context; may sleep.
 * Return: the pool, ERR_PTR(-EINVAL) for a bad attribute (poll context,
 * unknown flag, @attr->cq_size above the device's max_cqe or
 * @attr->max_cqs above its max_cq), ERR_PTR(-ENODEV), ERR_PTR(-ENOMEM).
 */
struct cqpool *cqpool_create(struct ib_device *dev,
			     const struct cqpool_attr *attr)
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	if (!attr || !cqpool_poll_ctx_ok(attr->poll_ctx) ||
	    (attr->flags & ~CQPOOL_F_ALL) ||
	    attr->cq_size > dev->attrs.max_cqe ||
	    attr->max_cqs > dev->attrs.max_cq)
		return ERR_PTR(-EINVAL);
	cdev = cqpool_dev_get(dev);
	if (!cdev)
		return ERR_PTR(-ENODEV);

	pool = cqpool_alloc(cdev, attr->poll_ctx, attr, true);
	if (IS_ERR(pool))
		return pool;

	mutex_lock(&cdev->lock);
	if (cdev->dying) {
		mutex_unlock(&cdev->lock);
		cqpool_free(pool);
		return ERR_PTR(-ENODEV);
	}
	list_add_tail(&pool->node, &cdev->pools);
	atomic_inc(&cdev->busy);
	mutex_unlock(&cdev->lock);
	return pool;
}
EXPORT_SYMBOL_GPL(cqpool_create);

/**
 * cqpool_destroy() - destroy a pool made by cqpool_create()
 * @pool: the pool
 *
 * Frees every CQ of the pool.  Nothing changes while reservations
 * remain.
 *
 * Context: process context; may sleep.
 * Return: 0, -EBUSY while reservations remain, -EINVAL for a shared pool.
 */
int cqpool_destroy(struct cqpool *pool)
{
	struct cqpool_dev *cdev = pool->cdev;
	struct cqp_pool_stats st;

	if (!pool->owned) {
		pr_err_ratelimited("cqpool: %s: a shared pool is never destroyed\n",
				   pool->name);
		return -EINVAL;
	}

	mutex_lock(&cdev->lock);
	mutex_lock(&pool->lock);
	cqp_pool_get_stats(pool->ledger, &st);
	if (st.users) {
		mutex_unlock(&pool->lock);
		mutex_unlock(&cdev->lock);
		return -EBUSY;
	}
	list_del(&pool->node);
	mutex_unlock(&pool->lock);
	mutex_unlock(&cdev->lock);

	cqpool_free(pool);
	if (atomic_dec_and_test(&cdev->busy))
		wake_up(&cdev->released);
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_destroy);

static int cqpool_add_cq(struct cqpool *pool, u32 vec, u32 size)
{
	struct cqpool_dev *cdev = pool->cdev;
	struct cqpool_cq *ccq;
	struct ib_cq *cq;
	int ret;

	ccq = kzalloc(sizeof(*ccq), GFP_KERNEL);
	if (!ccq)
		return -ENOMEM;
	cq = ib_alloc_cq(cdev->ibdev, ccq, size, vec, pool->poll_ctx);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_free;
	}
	ccq->cq = cq;
	ccq->pool = pool;
	ccq->created = ktime_get_ns();
	cqpool_cq_events_init(ccq);

	ret = xa_insert(&cdev->cqs, cq->res.id, ccq, GFP_KERNEL);
	if (ret)
		goto out_free_cq;
	ret = cqp_pool_add(pool->ledger, &ccq->ledger, vec, cq->cqe,
			   ccq->created);
	if (WARN_ON_ONCE(ret))
		goto out_erase;
	list_add_tail(&ccq->node, &pool->cqs);
	return 0;

out_erase:
	xa_erase(&cdev->cqs, cq->res.id);
out_free_cq:
	ib_free_cq(cq);
out_free:
	kfree(ccq);
	return ret;
}

/* Carries out the ledger's plan; the ledger changes only if it worked. */
static int cqpool_grow(struct cqpool *pool, const struct cqp_plan *plan)
{
	struct cqpool_cq *ccq;
	int ret;

	if (plan->kind == CQP_PLAN_NEW)
		return cqpool_add_cq(pool, plan->vec, plan->size);

	ccq = container_of(plan->cq, struct cqpool_cq, ledger);
	ret = ib_resize_cq(ccq->cq, plan->size);
	if (ret == -EOPNOTSUPP || ret == -EINVAL) {
		/* The driver will not: grow by new CQs on this vector. */
		cqp_pool_resize_failed(pool->ledger, plan->cq);
		return 0;
	}
	if (ret)
		return ret;
	return cqp_pool_resized(pool->ledger, plan->cq, ccq->cq->cqe);
}

/**
 * cqpool_cq_get() - reserve entries on a CQ of a pool
 * @pool: the pool
 * @nr_cqe: entries to reserve
 * @vector_hint: completion vector, taken modulo the vectors in use; -1
 *	for the least-loaded vector of the device
 * @hook: event hook to attach to the CQ until cqpool_cq_put(); may be
 *	NULL.  Its handler receives every async event of the CQ (CQ_ERR, and
 *	DEVICE_FATAL), in atomic context, with @hook->cq the CQ.
 *
 * Picks the least-used CQ of the vector with room for @nr_cqe entries,
 * growing the pool (a CQ resized in place, or a new CQ sized to demand)
 * when none has room.  The entries reserved on a CQ never exceed its real
 * size, so every reserved entry can hold a completion.
 *
 * Context: process context; may sleep.
 * Return: the CQ, or ERR_PTR(-EINVAL) if @nr_cqe is 0 or larger than a
 * CQ of this pool or @hook has no handler, ERR_PTR(-ENOSPC) if the pool is at its CQ limit,
 * ERR_PTR(-ENODEV) if the device is going away, or the error of the verb
 * that failed to grow the pool (the pool is then as it was).
 */
struct ib_cq *cqpool_cq_get(struct cqpool *pool, unsigned int nr_cqe,
			    int vector_hint, struct cqpool_hook *hook)
{
	struct cqpool_dev *cdev = pool->cdev;
	struct cqp_cq *lcq = NULL;
	struct cqpool_cq *ccq;
	struct cqp_plan plan;
	unsigned int vec;
	int ret, grown;

	if (!nr_cqe || nr_cqe > cdev->ibdev->attrs.max_cqe ||
	    (hook && !hook->handler))
		return ERR_PTR(-EINVAL);
	if (READ_ONCE(cdev->dying))
		return ERR_PTR(-ENODEV);

	/* Charged as it is picked: a concurrent get sees the load. */
	spin_lock(&cdev->vectors_lock);
	vec = cqp_vectors_pick(cdev->vectors, vector_hint);
	WARN_ON_ONCE(cqp_vectors_charge(cdev->vectors, vec, nr_cqe));
	spin_unlock(&cdev->vectors_lock);

	mutex_lock(&pool->lock);
	for (grown = 0;; grown++) {
		ret = cqp_pool_reserve(pool->ledger, vec, nr_cqe, &lcq, &plan);
		if (ret != CQP_GROW)
			break;
		if (WARN_ONCE(grown == CQPOOL_MAX_GROW,
			      "cqpool: %s: no room after growing %d times\n",
			      pool->name, grown)) {
			ret = -ENOSPC;
			break;
		}
		ret = cqpool_grow(pool, &plan);
		if (ret)
			break;
	}
	mutex_unlock(&pool->lock);
	if (ret) {
		spin_lock(&cdev->vectors_lock);
		WARN_ON_ONCE(cqp_vectors_discharge(cdev->vectors, vec, nr_cqe));
		spin_unlock(&cdev->vectors_lock);
		return ERR_PTR(ret);
	}

	atomic_inc(&cdev->busy);
	ccq = container_of(lcq, struct cqpool_cq, ledger);
	if (hook)
		cqpool_hook_attach(ccq, hook);
	return ccq->cq;
}
EXPORT_SYMBOL_GPL(cqpool_cq_get);

/**
 * cqpool_cq_put() - give back entries reserved with cqpool_cq_get()
 * @cq: the CQ cqpool_cq_get() returned
 * @nr_cqe: the entries reserved, as passed to cqpool_cq_get()
 * @hook: the hook passed to cqpool_cq_get(), or NULL
 *
 * The caller must have drained and destroyed whatever used the entries.
 * Once this returns, @hook is never called again.  A put of a CQ that is
 * not from a pool, of more entries than are reserved on it, or with a
 * hook not attached to it, is logged and changes nothing.  A CQ left without
 * users is freed after the idle timeout.
 *
 * Context: process context; may sleep.
 */
void cqpool_cq_put(struct ib_cq *cq, unsigned int nr_cqe,
		   struct cqpool_hook *hook)
{
	struct cqpool_dev *cdev = cqpool_dev_get(cq->device);
	struct cqpool_cq *ccq = cdev ? xa_load(&cdev->cqs, cq->res.id) : NULL;
	struct cqpool *pool;
	bool idle;
	u32 vec;
	int ret;

	if (!ccq || ccq->cq != cq) {
		pr_err_ratelimited("cqpool: put of a CQ that is not from a pool\n");
		return;
	}

	pool = ccq->pool;
	mutex_lock(&pool->lock);
	vec = ccq->ledger.vec;
	if (hook && hook->cq != cq) {
		ret = -EINVAL;
	} else {
		/* The clock is read only for a CQ this leaves idle. */
		ret = cqp_pool_release(pool->ledger, &ccq->ledger, nr_cqe,
				       ccq->ledger.users == 1 ?
				       ktime_get_ns() : 0);
		/* Under the pool lock: the reaper cannot free the CQ yet. */
		if (!ret && hook)
			cqpool_hook_detach(ccq, hook);
	}
	idle = !ccq->ledger.users;
	mutex_unlock(&pool->lock);
	if (ret) {
		pr_err_ratelimited("cqpool: %s: put of %u entries that are not reserved, or with a hook not on the CQ\n",
				   pool->name, nr_cqe);
		return;
	}

	spin_lock(&cdev->vectors_lock);
	WARN_ON_ONCE(cqp_vectors_discharge(cdev->vectors, vec, nr_cqe));
	spin_unlock(&cdev->vectors_lock);

	if (idle && !(pool->flags & CQPOOL_F_NO_SHRINK))
		queue_delayed_work(system_wq, &pool->reap_work,
				   nsecs_to_jiffies(cqpool_idle_timeout_ns()) + 1);
	if (atomic_dec_and_test(&cdev->busy))
		wake_up(&cdev->released);
}
EXPORT_SYMBOL_GPL(cqpool_cq_put);

/**
 * cqpool_test_pool_stats() - totals of a pool, for KUnit
 * @pool: the pool
 * @st: filled in
 *
 * Context: process context; takes the pool's lock.
 * Return: cqp_pool_check() of the ledger: 0 when every invariant holds.
 */
int cqpool_test_pool_stats(struct cqpool *pool, struct cqp_pool_stats *st)
{
	int ret;

	mutex_lock(&pool->lock);
	cqp_pool_get_stats(pool->ledger, st);
	ret = cqp_pool_check(pool->ledger);
	mutex_unlock(&pool->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cqpool_test_pool_stats);

/**
 * cqpool_test_flush_reclaim() - run a pool's idle reclaim now, for KUnit
 * @pool: the pool
 *
 * Context: process context; may sleep.
 */
void cqpool_test_flush_reclaim(struct cqpool *pool)
{
	mod_delayed_work(system_wq, &pool->reap_work, 0);
	flush_delayed_work(&pool->reap_work);
}
EXPORT_SYMBOL_IF_KUNIT(cqpool_test_flush_reclaim);

/**
 * cqpool_dev_hold() - make the removal of a device wait for a consumer
 * @dev: a device cqpool serves, held by the caller
 *
 * For what cqpool hands out that is not a reservation of its own (the
 * harness's upstream reservations, which ib_core must not find still in
 * use when it cleans its pool).
 *
 * Context: process context.
 * Return: 0, or -ENODEV if the device is not (or no longer) served.
 */
int cqpool_dev_hold(struct ib_device *dev)
{
	struct cqpool_dev *cdev = cqpool_dev_get(dev);
	int ret = -ENODEV;

	if (!cdev)
		return ret;
	mutex_lock(&cdev->lock);
	if (!cdev->dying) {
		atomic_inc(&cdev->busy);
		ret = 0;
	}
	mutex_unlock(&cdev->lock);
	return ret;
}

/**
 * cqpool_dev_unhold() - undo cqpool_dev_hold()
 * @dev: the device
 *
 * Context: process context.
 */
void cqpool_dev_unhold(struct ib_device *dev)
{
	struct cqpool_dev *cdev = cqpool_dev_get(dev);

	if (atomic_dec_and_test(&cdev->busy))
		wake_up(&cdev->released);
}

/*
 * The ib_client remove: no new pool from now on; wait until consumers
 * have given back every reservation and destroyed their pools (ULPs whose
 * ib_client registered after cqpool's are removed first and do so), then
 * free the shared pools.
 */
void cqpool_dev_release_pools(struct cqpool_dev *cdev)
{
	struct cqpool *pool, *next;
	int waited = 0;
	LIST_HEAD(dead);

	const struct ib_event fatal = {
		.device = cdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};

	mutex_lock(&cdev->lock);
	cdev->dying = true;
	mutex_unlock(&cdev->lock);

	/* Everyone hears the device is going, then gives back what it holds. */
	cqpool_dispatch_device_event(cdev, &fatal);
	while (!wait_event_timeout(cdev->released, !atomic_read(&cdev->busy),
				   10 * HZ)) {
		waited += 10;
		dev_warn(&cdev->ibdev->dev,
			 "cqpool: waited %d s for consumers to release %d reservations and owned pools\n",
			 waited, atomic_read(&cdev->busy));
	}

	mutex_lock(&cdev->lock);
	list_splice_init(&cdev->pools, &dead);
	memset(cdev->shared, 0, sizeof(cdev->shared));
	mutex_unlock(&cdev->lock);

	/*
	 * Not under cdev->lock: freeing a pool waits for its reclaim work,
	 * which waits in ib_free_cq() for the CQ's completion work, whose ULP
	 * handlers may wait for locks a ULP holds while it calls
	 * cqpool_device_pool() (rdma_cm's handler_mutex, for nvme-rdma
	 * through the takeover), and that takes cdev->lock.
	 */
	list_for_each_entry_safe(pool, next, &dead, node) {
		list_del(&pool->node);
		cqpool_free(pool);
	}
}
