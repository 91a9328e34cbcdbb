// SPDX-License-Identifier: GPL-2.0
/*
 * CQ pools: the shared pool of each device and poll context, pools owned
 * by one consumer, reservations, growth and idle reclaim.  The C++ ledger
 * (core/pool.h) decides what to do; this file runs the verbs.
 */
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "cqpool_internal.h"
#include "cqpool_trace.h"

/*
 * A CQ without users is freed after this long.  Long enough that a ULP
 * reconnecting (nvme-rdma retries every 10 s by default) finds its CQs
 * still there, short enough that the memory comes back within a minute.
 */
unsigned int cqpool_idle_timeout_ms = 30000;

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

/*
 * Whether a pool of @dev may opt in to growing its CQs in place: the
 * kernel has kernel-side resize (Kbuild) and the driver implements it.
 */
static bool cqpool_can_resize(const struct ib_device *dev)
{
	return cqpool_kernel_resize() && dev->ops.resize_cq;
}

/* The idle timeout in cqpool_clock()'s ticks. */
static u64 cqpool_idle_timeout(void)
{
	return msecs_to_jiffies(READ_ONCE(cqpool_idle_timeout_ms));
}

static void cqpool_reap_work(struct work_struct *work);
static void cqpool_free_work(struct work_struct *work);

/* A pool of @cdev, which it references; not yet on @cdev->pools. */
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
	unsigned int stripes, i;
	struct cqpool *pool;

	if (attr->flags & CQPOOL_F_RESIZE)
		p.flags |= CQP_POOL_RESIZE;
	if (attr->flags & CQPOOL_F_NO_SHRINK)
		p.flags |= CQP_POOL_NO_SHRINK;

	stripes = roundup_pow_of_two(clamp_t(unsigned int, cdev->nvec, 1,
					     CQPOOL_MAX_STRIPES));
	pool = kzalloc(struct_size(pool, stripes, stripes), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	pool->ledger = cqp_pool_create(&cqpool_core_alloc, &p);
	if (!pool->ledger) {
		kfree(pool);
		return ERR_PTR(-ENOMEM);
	}
	kref_get(&cdev->ref);
	pool->cdev = cdev;
	refcount_set(&pool->ref, 1);
	pool->poll_ctx = ctx;
	pool->owned = owned;
	pool->flags = attr->flags;
	if (attr->name)
		strscpy(pool->name, attr->name, sizeof(pool->name));
	else
		snprintf(pool->name, sizeof(pool->name), "%s/%s",
			 dev_name(&cdev->ibdev->dev), cqpool_poll_ctx_name(ctx));
	mutex_init(&pool->grow_lock);
	spin_lock_init(&pool->lock);
	pool->nvec = p.nvec;
	pool->stripe_mask = stripes - 1;
	for (i = 0; i < stripes; i++)
		spin_lock_init(&pool->stripes[i].lock);
	INIT_LIST_HEAD(&pool->cqs);
	INIT_LIST_HEAD(&pool->node);
	INIT_DELAYED_WORK(&pool->reap_work, cqpool_reap_work);
	INIT_WORK(&pool->free_work, cqpool_free_work);
	return pool;
}

/* Frees CQs already taken out of their pool's ledger. */
static void cqpool_free_cqs(struct list_head *cqs)
{
	struct cqpool_cq *ccq, *next;

	list_for_each_entry_safe(ccq, next, cqs, node) {
		/*
		 * A QP still on it, whose entries came back anyway (a
		 * consumer that kept its QP): ib_free_cq() would refuse, so
		 * the CQ stays allocated, and its record with it, which the
		 * driver may be about to hand an event; unhooked from the
		 * pool, which may go.  Never freed under its QP.
		 */
		if (atomic_read(&ccq->cq->usecnt)) {
			dev_err(&ccq->cq->device->dev,
				"cqpool: an idle CQ still has a QP; left allocated\n");
			WRITE_ONCE(ccq->cq->event_handler, NULL);
			continue;
		}
		trace_cqpool_cq_free(ccq);
		ib_free_cq(ccq->cq);
		kfree(ccq);
	}
}

/*
 * After a grace period: cqpool_device_cq_get() may still pick a vector on
 * the ledger of a pool it found under RCU.
 */
static void cqpool_free_rcu(struct rcu_head *rcu)
{
	struct cqpool *pool = container_of(rcu, struct cqpool, rcu);

	WARN_ON(cqp_pool_destroy(pool->ledger));
	kfree(pool);
}

/*
 * Frees a pool whose last reference is gone, so that nobody can reach it
 * and it has no reservation; then drops its reference on the device.
 */
static void cqpool_free(struct cqpool *pool)
{
	struct cqpool_dev *cdev = pool->cdev;
	struct cqp_cq *lcq;
	LIST_HEAD(dead);

	/* Off the list first: walks of it kick the reclaim we cancel. */
	mutex_lock(&cdev->lock);
	list_del(&pool->node);
	mutex_unlock(&cdev->lock);
	cancel_delayed_work_sync(&pool->reap_work);

	cqpool_lock(pool);
	while ((lcq = cqp_pool_take_idle(pool->ledger))) {
		struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq,
						     ledger);

		list_move_tail(&ccq->node, &dead);
	}
	cqpool_unlock(pool);

	cqpool_free_cqs(&dead);
	WARN_ON(!list_empty(&pool->cqs));
	call_rcu(&pool->rcu, cqpool_free_rcu);
	cqpool_dev_put(cdev);
}

static void cqpool_free_work(struct work_struct *work)
{
	cqpool_free(container_of(work, struct cqpool, free_work));
}

/**
 * cqpool_lock() - lock a pool whole: its lock and every vector's
 * @pool: the pool
 *
 * What every change to the pool but a fast get or put holds, so that
 * it excludes them all.
 *
 * Context: process context; the pool's locks must not be held.
 */
void cqpool_lock(struct cqpool *pool)
	__acquires(&pool->lock)
{
	unsigned int i;

	spin_lock(&pool->lock);
	/*
	 * One class, nested under pool->lock: one entry of lockdep's.  For
	 * sparse, which cannot count a loop's locks, pool->lock stands for
	 * them.
	 */
	for (i = 0; i <= pool->stripe_mask; i++) {
		spin_lock_nest_lock(&pool->stripes[i].lock, &pool->lock);
		__release(&pool->stripes[i].lock);
	}
}

/**
 * cqpool_unlock() - unlock what cqpool_lock() locked
 * @pool: the pool
 */
void cqpool_unlock(struct cqpool *pool)
	__releases(&pool->lock)
{
	unsigned int i = pool->stripe_mask + 1;

	while (i--) {
		__acquire(&pool->stripes[i].lock);
		spin_unlock(&pool->stripes[i].lock);
	}
	spin_unlock(&pool->lock);
}

/* The reservations on @pool. */
unsigned long cqpool_pool_users(struct cqpool *pool)
{
	struct cqp_pool_stats st;

	lockdep_assert_held(&pool->lock);
	cqp_pool_get_stats(pool->ledger, &st);
	return st.users;
}

/**
 * cqpool_pool_put() - drop a reference on a pool
 * @pool: a pool cqpool_device_pool() returned
 *
 * The pool itself goes once its device is gone and nothing is reserved
 * on it; that is done from cqpool's workqueue, never from the caller,
 * which may hold locks that freeing a CQ would wait for.
 *
 * Context: any context; never sleeps.
 */
void cqpool_pool_put(struct cqpool *pool)
{
	if (refcount_dec_and_test(&pool->ref))
		queue_work(cqpool_wq, &pool->free_work);
}
EXPORT_SYMBOL_GPL(cqpool_pool_put);

/*
 * No get on @pool succeeds from now on: its device is going, or it is
 * destroyed.  Both the flag and the ledger, in one hold of the lock.
 */
void cqpool_pool_mark_dying(struct cqpool *pool)
{
	lockdep_assert_held(&pool->lock);
	WRITE_ONCE(pool->dying, true);
	cqp_pool_close(pool->ledger);
}

/* The idle timeout, or none at all once the pool's device is going. */
static u64 cqpool_pool_idle_timeout(struct cqpool *pool)
{
	lockdep_assert_held(&pool->lock);
	return pool->dying ? 0 : cqpool_idle_timeout();
}

/* The CQs idle past the timeout that a shrink kept (keep_idle_cqs). */
static void cqpool_trace_kept(struct cqpool *pool, u64 now, u64 timeout)
{
	struct cqpool_cq *ccq;

	lockdep_assert_held(&pool->lock);
	list_for_each_entry(ccq, &pool->cqs, node)
		if (!ccq->ledger.users && now >= ccq->ledger.idle_since &&
		    now - ccq->ledger.idle_since >= timeout)
			trace_cqpool_cq_keep(ccq);
}

static void cqpool_reap_work(struct work_struct *work)
{
	struct cqpool *pool = container_of(to_delayed_work(work),
					   struct cqpool, reap_work);
	u64 now = cqpool_clock();
	struct cqp_cq *lcq;
	u64 timeout, delay;
	LIST_HEAD(dead);
	bool again;

	/* A growth may be resizing an idle CQ outside the pool's locks. */
	mutex_lock(&pool->grow_lock);
	cqpool_lock(pool);
	timeout = pool->pressed ? 0 : cqpool_pool_idle_timeout(pool);
	pool->pressed = false;
	while ((lcq = pool->dying ? cqp_pool_take_idle(pool->ledger) :
		cqp_pool_reap(pool->ledger, now, timeout))) {
		struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq,
						     ledger);

		list_move_tail(&ccq->node, &dead);
	}
	again = !pool->dying &&
		cqp_pool_next_reap(pool->ledger, now, timeout, &delay);
	if (trace_cqpool_cq_keep_enabled() && !pool->dying)
		cqpool_trace_kept(pool, now, timeout);
	cqpool_unlock(pool);
	mutex_unlock(&pool->grow_lock);

	cqpool_free_cqs(&dead);
	if (again)
		queue_delayed_work(cqpool_wq, &pool->reap_work, delay + 1);
}

/* Idle CQs the reclaim may free, beyond keep_idle_cqs. */
static unsigned long cqpool_pool_reclaimable(struct cqpool *pool)
{
	lockdep_assert_held(&pool->lock);
	return cqp_pool_reclaimable(pool->ledger);
}

/**
 * cqpool_pool_idle_cqs() - idle CQs a reclaim of a pool would free
 * @pool: the pool, on its device's list
 *
 * Those beyond keep_idle_cqs, and none with CQPOOL_F_NO_SHRINK.
 *
 * Context: process context, reclaim included; takes the pool's lock.
 * Return: their number.
 */
unsigned long cqpool_pool_idle_cqs(struct cqpool *pool)
{
	unsigned long n;

	cqpool_lock(pool);
	n = cqpool_pool_reclaimable(pool);
	cqpool_unlock(pool);
	return n;
}

/**
 * cqpool_pool_shrink() - free a pool's idle CQs now, for memory pressure
 * @pool: the pool, on its device's list (which the caller holds locked,
 *	so the pool is not freed meanwhile)
 *
 * The pool's reaper runs at once, with no idle timeout; it frees the CQs
 * from cqpool's workqueue.
 *
 * Context: process context, reclaim included; never waits.
 * Return: the idle CQs it will free.
 */
unsigned long cqpool_pool_shrink(struct cqpool *pool)
{
	unsigned long n;

	cqpool_lock(pool);
	n = cqpool_pool_reclaimable(pool);
	if (n)
		pool->pressed = true;
	cqpool_unlock(pool);
	if (n)
		mod_delayed_work(cqpool_wq, &pool->reap_work, 0);
	return n;
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
			mod_delayed_work(cqpool_wq, &pool->reap_work, 0);
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
 * reservation.  The caller gets a reference, which keeps the pool (not
 * the device) valid until cqpool_pool_put(): once the device is going,
 * cqpool_cq_get() on it fails with -ENODEV, and reservations already made
 * keep working until they are put back.
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

	might_sleep();
	if (!cqpool_poll_ctx_ok(ctx))
		return ERR_PTR(-EINVAL);
	pool = cqpool_dev_shared_pool(dev, ctx);
	if (pool)
		return pool;
	cdev = cqpool_dev_find(dev);
	if (!cdev)
		return ERR_PTR(-ENODEV);

	mutex_lock(&cdev->lock);
	pool = cdev->shared[ctx];
	if (!pool && cdev->dying) {
		pool = ERR_PTR(-ENODEV);
	} else if (!pool) {
		/* Its first reference is the slot's. */
		pool = cqpool_alloc(cdev, ctx, &attr, false);
		if (!IS_ERR(pool)) {
			/* Initialised before cqpool_dev_shared_pool() sees it. */
			smp_store_release(&cdev->shared[ctx], pool);
			list_add_tail(&pool->node, &cdev->pools);
		}
	}
	if (!IS_ERR(pool))
		refcount_inc(&pool->ref);
	mutex_unlock(&cdev->lock);
	cqpool_dev_put(cdev);
	return pool;
}
EXPORT_SYMBOL_GPL(cqpool_device_pool);

/*
 * A name goes to debugfs and the log as it is: nothing that could move a
 * terminal's cursor or forge a line.
 */
static bool cqpool_name_ok(const char *name)
{
	size_t i, len;

	if (!name)
		return true;
	len = strnlen(name, CQPOOL_NAME_MAX);
	if (len == CQPOOL_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (name[i] < 0x20 || name[i] > 0x7e)
			return false;
	return true;
}

/**
 * cqpool_create() - create a pool owned by the caller
 * @dev: an RDMA device, held by the caller
 * @attr: the pool's poll context, CQ size, CQ limit, flags and name
 *
 * The caller destroys the pool with cqpool_destroy(), also after the
 * device is gone: until then the pool holds the device, whose
 * unregistration waits for it.  When the device goes, gets on the pool
 * fail with -ENODEV and its hooks hear IB_EVENT_DEVICE_FATAL.
 *
 * The pool grows by new CQs.  With CQPOOL_F_RESIZE it grows its CQs in
 * place first, where the kernel has kernel-side resize and the driver
 * implements it.
 *
 * Context: process context; may sleep.
 * Return: the pool, ERR_PTR(-EINVAL) for a bad attribute (poll context,
 * unknown flag, both CQPOOL_F_RESIZE and CQPOOL_F_NO_RESIZE, a name too
 * long or not printable, @attr->cq_size above the device's max_cqe or
 * @attr->max_cqs above its max_cq), ERR_PTR(-EOPNOTSUPP) for
 * CQPOOL_F_RESIZE where the kernel or the driver cannot resize a CQ,
 * ERR_PTR(-ENODEV), ERR_PTR(-ENOMEM).
 */
struct cqpool *cqpool_create(struct ib_device *dev,
			     const struct cqpool_attr *attr)
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;

	might_sleep();
	if (!attr || !cqpool_poll_ctx_ok(attr->poll_ctx) ||
	    (attr->flags & ~CQPOOL_F_ALL) || !cqpool_name_ok(attr->name) ||
	    (attr->flags & CQPOOL_F_RESIZE &&
	     attr->flags & CQPOOL_F_NO_RESIZE) ||
	    attr->cq_size > dev->attrs.max_cqe ||
	    attr->max_cqs > dev->attrs.max_cq)
		return ERR_PTR(-EINVAL);
	if (attr->flags & CQPOOL_F_RESIZE && !cqpool_can_resize(dev))
		return ERR_PTR(-EOPNOTSUPP);
	cdev = cqpool_dev_find(dev);
	if (!cdev)
		return ERR_PTR(-ENODEV);

	pool = cqpool_alloc(cdev, attr->poll_ctx, attr, true);
	if (IS_ERR(pool))
		goto out;

	mutex_lock(&cdev->lock);
	if (cdev->dying) {
		mutex_unlock(&cdev->lock);
		cqpool_free(pool);
		pool = ERR_PTR(-ENODEV);
		goto out;
	}
	list_add_tail(&pool->node, &cdev->pools);
	mutex_unlock(&cdev->lock);
out:
	cqpool_dev_put(cdev);
	return pool;
}
EXPORT_SYMBOL_GPL(cqpool_create);

/**
 * cqpool_destroy() - destroy a pool made by cqpool_create()
 * @pool: the pool
 *
 * Frees every CQ of the pool, here, or, when the put of its last
 * reservation is still on its way out on another CPU, in that put as it
 * drops its reference: either way before the pool is gone, and the pool
 * is the caller's no more once this returns.  Nothing changes while
 * reservations remain.
 *
 * Context: process context; may sleep.
 * Return: 0, -EBUSY while reservations remain, -EINVAL for a shared pool.
 */
int cqpool_destroy(struct cqpool *pool)
{
	might_sleep();
	if (!pool->owned) {
		pr_err_ratelimited("cqpool: %s: a shared pool is never destroyed\n",
				   pool->name);
		return -EINVAL;
	}

	cqpool_lock(pool);
	if (cqpool_pool_users(pool)) {
		cqpool_unlock(pool);
		return -EBUSY;
	}
	cqpool_pool_mark_dying(pool);
	cqpool_unlock(pool);

	/*
	 * The owner's is the last reference unless a put of the last
	 * reservation is still on its way out: that one then frees it.
	 */
	if (refcount_dec_and_test(&pool->ref))
		cqpool_free(pool);
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_destroy);

/*
 * A new CQ of @size entries on @vec, for a growth of @pool: allocated
 * without the pool's lock, and not in the ledger yet (cqp_pool_get()).
 */
static struct cqpool_cq *cqpool_new_cq(struct cqpool *pool, u32 vec, u32 size)
{
	struct cqpool_cq *ccq;
	struct ib_cq *cq;

	lockdep_assert_held(&pool->grow_lock);
	ccq = kzalloc(sizeof(*ccq), GFP_KERNEL);
	if (!ccq)
		return ERR_PTR(-ENOMEM);
	cq = ib_alloc_cq(pool->cdev->ibdev, ccq, size, vec, pool->poll_ctx);
	if (IS_ERR(cq)) {
		kfree(ccq);
		return ERR_CAST(cq);
	}
	/* Others share it: ib_resize_cq() and moderation are refused. */
	cq->shared = true;
	ccq->cq = cq;
	ccq->pool = pool;
	ccq->vec_lock = cqpool_vec_lock(pool, vec);
	ccq->created = cqpool_clock();
	cqpool_cq_events_init(ccq);
	return ccq;
}

/*
 * Whether a failed resize means the driver will not resize this CQ, so
 * that the vector grows by a new CQ instead: drivers say so in several
 * ways (mlx5 without firmware support answers with the errno of a missing
 * system call), so anything but a lack of memory, which a new CQ would
 * hit too, counts.
 */
static bool cqpool_resize_unsupported(int err)
{
	return err != -ENOMEM;
}

/**
 * struct cqpool_grower - the verbs of one get's growths, for cqp_pool_get()
 * @g: the core's side
 * @pool: the pool, its grow_lock and lock held
 * @old: a resize's CQ size before, for its trace
 * @unused: a CQ allocated that the ledger did not take, freed once the
 *	pool's lock is dropped
 */
struct cqpool_grower {
	struct cqp_grower g;
	struct cqpool *pool;
	u32 old;
	struct cqpool_cq *unused;
};

/*
 * Runs the verb of @plan without the pool's lock, so that gets and puts
 * that fit go on meanwhile.  The CQ a resize works on stays in the
 * ledger: only a growth or the reclaim takes CQs out, both under
 * grow_lock.
 */
static int cqpool_grow(struct cqp_grower *g, const struct cqp_plan *plan,
		       struct cqp_grown *out)
	__must_hold(&pool->lock)
{
	struct cqpool_grower *gr = container_of(g, struct cqpool_grower, g);
	struct cqpool *pool = gr->pool;
	struct cqpool_cq *ccq;
	int err;

	lockdep_assert_held(&pool->grow_lock);
	lockdep_assert_held(&pool->lock);
	cqpool_unlock(pool);
	if (plan->kind == CQP_PLAN_NEW) {
		ccq = cqpool_new_cq(pool, plan->vec, plan->size);
		err = PTR_ERR_OR_ZERO(ccq);
		if (!err) {
			out->cq = &ccq->ledger;
			out->size = ccq->cq->cqe;
			out->now = ccq->created;
		}
	} else {
		ccq = container_of(plan->cq, struct cqpool_cq, ledger);
		gr->old = ccq->cq->cqe;
		err = cqpool_resize_cq(ccq->cq, plan->size);
		out->size = ccq->cq->cqe;
		out->fallback = err && cqpool_resize_unsupported(err);
	}
	cqpool_lock(pool);
	return err;
}

/* The ledger took a growth: a new CQ goes on the pool's list. */
static void cqpool_grew(struct cqp_grower *g, const struct cqp_plan *plan,
			struct cqp_cq *lcq)
{
	struct cqpool_grower *gr = container_of(g, struct cqpool_grower, g);
	struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq, ledger);

	lockdep_assert_held(&gr->pool->lock);
	if (plan->kind == CQP_PLAN_NEW) {
		list_add_tail(&ccq->node, &gr->pool->cqs);
		trace_cqpool_cq_alloc(ccq, 0);
	} else {
		trace_cqpool_cq_resize(ccq, gr->old);
	}
}

/*
 * The ledger refuses a new CQ only at max_cqs or for a bad vector, which
 * its own plan rules out while growths run one at a time (grow_lock).
 */
static void cqpool_discard(struct cqp_grower *g, struct cqp_cq *lcq)
{
	struct cqpool_grower *gr = container_of(g, struct cqpool_grower, g);

	WARN_ON_ONCE(1);
	gr->unused = container_of(lcq, struct cqpool_cq, ledger);
}

/*
 * A reservation the ledger made: its users, its hook, its trace.  Inline
 * in the fast path of every get.
 */
static __always_inline struct ib_cq *
cqpool_reserved(struct cqpool *pool, struct cqp_cq *lcq, unsigned int nr_cqe,
		struct cqpool_hook *hook, int grown)
{
	struct cqpool_cq *ccq = container_of(lcq, struct cqpool_cq, ledger);

	lockdep_assert_held(cqpool_vec_lock(pool, lcq->vec));
	/*
	 * A CQ in use keeps its pool, and so the device, alive: a count per
	 * CQ, not per pool, so that gets on different vectors write nothing
	 * they share but when the CQ goes in and out of use.
	 */
	if (lcq->users == 1)
		refcount_inc(&pool->ref);
	/*
	 * Attached under the vector's lock, which the removal's DEVICE_FATAL
	 * is sent under (cqpool_lock()): the hook hears it, or the get fails.
	 */
	if (hook)
		cqpool_hook_attach(ccq, hook);
	else
		ccq->plain_users++;
	trace_cqpool_get(ccq, nr_cqe, grown);
	return ccq->cq;
}

static bool cqpool_get_args_ok(unsigned int nr_cqe, int vector_hint,
			       const struct cqpool_hook *hook)
{
	return nr_cqe && vector_hint >= -1 && (!hook || hook->handler);
}

/*
 * A get that fits the ledger as it is, or NULL: the one hold of a lock,
 * its vector's, of most gets.  Nothing on a dying pool, whose ledger is
 * closed or, once its last reference is gone, freed after a grace period
 * (the pick reads it before the flag).
 */
static __always_inline struct ib_cq *
cqpool_cq_try_get(struct cqpool *pool, unsigned int nr_cqe, int vector_hint,
		  struct cqpool_hook *hook)
{
	struct ib_cq *cq = NULL;
	struct cqp_cq *lcq;
	spinlock_t *lock;	/* the vector's, cqpool_vec_lock() */
	u32 vec;

	/*
	 * The vectors of cqpool_dev_nvec(): the ledger has those of every
	 * possible CPU, and the pick takes the online ones.  A hint, most
	 * gets' case, makes no call.
	 */
	if (vector_hint >= 0)
		vec = cqp_hint_vector(vector_hint, num_online_cpus(),
				      pool->nvec);
	else
		vec = cqp_pool_pick_vector(pool->ledger, -1,
					   num_online_cpus());
	lock = cqpool_vec_lock(pool, vec);
	spin_lock(lock);
	if (!pool->dying) {
		lcq = cqp_pool_try_reserve(pool->ledger, vec, nr_cqe);
		if (lcq)
			cq = cqpool_reserved(pool, lcq, nr_cqe, hook, 0);
	}
	spin_unlock(lock);
	return cq;
}

/*
 * A get that did not fit: the pool grows, one growth at a time (the
 * ledger's loop, cqp_pool_get()), until it reserves.  Also where a get
 * the ledger refused learns why.  Out of line, so that the fast path has
 * a small frame.
 */
static noinline struct ib_cq *cqpool_cq_get_slow(struct cqpool *pool,
						 unsigned int nr_cqe,
						 int vector_hint,
						 struct cqpool_hook *hook)
{
	struct cqpool_grower gr = {
		.g = {
			.grow = cqpool_grow,
			.grew = cqpool_grew,
			.discard = cqpool_discard,
		},
		.pool = pool,
	};
	struct ib_cq *cq = NULL;
	struct cqp_cq *lcq;
	u32 grown, vec;
	int ret;

	mutex_lock(&pool->grow_lock);
	cqpool_lock(pool);
	/* Picked again: the growths this waited for may have changed it. */
	vec = cqp_pool_pick_vector(pool->ledger, vector_hint,
				   num_online_cpus());
	ret = cqp_pool_get(pool->ledger, vec, nr_cqe, &gr.g, &lcq, &grown);
	WARN_ONCE(ret == CQP_ELOOP, "cqpool: %s: no room after growing %u times\n",
		  pool->name, grown);
	if (!ret)
		cq = cqpool_reserved(pool, lcq, nr_cqe, hook, grown);
	cqpool_unlock(pool);
	mutex_unlock(&pool->grow_lock);
	if (gr.unused) {
		ib_free_cq(gr.unused->cq);
		kfree(gr.unused);
	}
	if (ret == CQP_ELOOP)
		ret = -ENOSPC;
	return ret ? ERR_PTR(ret) : cq;
}

/**
 * cqpool_cq_get() - reserve entries on a CQ of a pool
 * @pool: the pool
 * @nr_cqe: entries to reserve
 * @vector_hint: completion vector, taken modulo the vectors in use; -1
 *	for the vector with the fewest entries reserved in @pool
 * @hook: event hook to attach to the CQ until cqpool_cq_put(); may be
 *	NULL.  Its handler receives every async event of the CQ (CQ_ERR, and
 *	DEVICE_FATAL), in atomic context, with @hook->cq the CQ.
 *
 * Picks the least-used CQ of the vector with room for @nr_cqe entries,
 * growing the pool (a CQ resized in place, or a new CQ sized to demand)
 * when none has room.  The entries reserved on a CQ never exceed its real
 * size, so every reserved entry can hold a completion.  The vectors in
 * use are min(num_comp_vectors, online CPUs), as of this call.  A get
 * that fits takes one lock, its vector's, so that gets on different
 * vectors do not wait for one another; one that grows the pool waits
 * for the growths before it, not for other gets.
 *
 * Context: process context; may sleep.
 * Return: the CQ, or ERR_PTR(-EINVAL) if @nr_cqe is 0 or larger than a
 * CQ of this pool, @vector_hint is below -1 or @hook has no handler,
 * ERR_PTR(-ENOSPC) if the pool is at its CQ limit, ERR_PTR(-ENODEV) if
 * the device is going away, or the error of the verb that failed to grow
 * the pool (the pool is then as it was).
 */
struct ib_cq *cqpool_cq_get(struct cqpool *pool, unsigned int nr_cqe,
			    int vector_hint, struct cqpool_hook *hook)
{
	struct ib_cq *cq;

	cqpool_might_sleep();
	/* The ledger refuses more than a CQ of this pool holds. */
	if (!cqpool_get_args_ok(nr_cqe, vector_hint, hook))
		return ERR_PTR(-EINVAL);
	cq = cqpool_cq_try_get(pool, nr_cqe, vector_hint, hook);
	return cq ?: cqpool_cq_get_slow(pool, nr_cqe, vector_hint, hook);
}
EXPORT_SYMBOL_GPL(cqpool_cq_get);

/**
 * cqpool_device_cq_get() - reserve entries on a device's shared pool
 * @dev: an RDMA device, held by the caller
 * @ctx: IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE or IB_POLL_UNBOUND_WORKQUEUE
 * @nr_cqe: entries to reserve
 * @vector_hint: as for cqpool_cq_get()
 * @hook: as for cqpool_cq_get()
 *
 * cqpool_device_pool(), cqpool_cq_get() and cqpool_pool_put() in one
 * call, for a consumer that keeps no pool, as ib_cq_pool_get()'s callers
 * keep none (the takeover serves them with this).  A get that fits takes
 * its vector's lock under RCU, and neither a reference on the pool nor a
 * lock of the device.  The entries go back with cqpool_cq_put().
 *
 * Context: process context; may sleep.
 * Return: the CQ, or an error as from cqpool_device_pool() and
 * cqpool_cq_get().
 */
struct ib_cq *cqpool_device_cq_get(struct ib_device *dev,
				   enum ib_poll_context ctx,
				   unsigned int nr_cqe, int vector_hint,
				   struct cqpool_hook *hook)
{
	struct cqpool *pool;
	struct ib_cq *cq = NULL;

	cqpool_might_sleep();
	if (!cqpool_poll_ctx_ok(ctx) ||
	    !cqpool_get_args_ok(nr_cqe, vector_hint, hook))
		return ERR_PTR(-EINVAL);
	/*
	 * Unreferenced, the pool may be dying, its last reference gone and
	 * its ledger freed: cqpool_cq_try_get() reads the flag, set before
	 * the slot lets go of the pool, before it reads the ledger.
	 */
	rcu_read_lock();
	pool = cqpool_dev_shared_pool_rcu(dev, ctx);
	if (pool)
		cq = cqpool_cq_try_get(pool, nr_cqe, vector_hint, hook);
	rcu_read_unlock();
	if (cq)
		return cq;

	pool = cqpool_device_pool(dev, ctx);
	if (IS_ERR(pool))
		return ERR_CAST(pool);
	cq = cqpool_cq_get(pool, nr_cqe, vector_hint, hook);
	cqpool_pool_put(pool);
	return cq;
}
EXPORT_SYMBOL_GPL(cqpool_device_cq_get);

/* Whether a put of @cq with @hook matches a reservation on it. */
static bool cqpool_put_matches(struct cqpool_cq *ccq, struct cqpool_hook *hook)
{
	lockdep_assert_held(ccq->vec_lock);
	/* Without a hook, only a reservation made without one. */
	return hook ? hook->cq == ccq->cq : ccq->plain_users > 0;
}

/*
 * The ledger's part of a put, and the hook's, under the CQ's vector lock.
 * Most puts are made in place (cqp_release_in_place()); the clock is read
 * only for the rest, which may leave the CQ idle.
 */
static int cqpool_release(struct cqpool_cq *ccq, unsigned int nr_cqe,
			  struct cqpool_hook *hook)
{
	lockdep_assert_held(ccq->vec_lock);
	if (!cqpool_put_matches(ccq, hook))
		return -EINVAL;
	if (!cqp_release_in_place(&ccq->ledger, nr_cqe) &&
	    cqp_pool_release_slow(ccq->pool->ledger, &ccq->ledger, nr_cqe,
				  cqpool_clock()))
		return -EINVAL;
	/* Under the vector's lock: the reaper cannot free the CQ yet. */
	if (hook)
		cqpool_hook_detach(ccq, hook);
	else
		ccq->plain_users--;
	trace_cqpool_put(ccq, nr_cqe, 0);
	return 0;
}

/**
 * cqpool_cq_put() - give back entries reserved with cqpool_cq_get()
 * @cq: the CQ cqpool_cq_get() returned
 * @nr_cqe: the entries reserved, as passed to cqpool_cq_get()
 * @hook: the hook passed to cqpool_cq_get(), or NULL if none was
 *
 * The caller must have drained and destroyed whatever used the entries.
 * Once this returns 0, @hook is never called again.  A put of a CQ that
 * is not from a pool, of more entries than are reserved on it, with a
 * hook not attached to it, or without a hook when every reservation on
 * it has one, is logged, changes nothing and returns -EINVAL: the
 * reservation and its hook stay, and the hook may still be called.  A CQ
 * left without users is freed after the idle timeout, or soon if its
 * device is gone.  Works the same after the CQ's device was removed.  The
 * CQ is found from @cq itself, and the put takes one lock, its vector's.
 *
 * Context: process context; may sleep.
 * Return: 0, or -EINVAL for a put refused.
 */
int cqpool_cq_put(struct ib_cq *cq, unsigned int nr_cqe,
		  struct cqpool_hook *hook)
{
	struct cqpool_cq *ccq = cqpool_cq_of(cq);
	spinlock_t *lock;	/* the CQ's vector's */
	struct cqpool *pool;
	bool dying;

	cqpool_might_sleep();
	if (!ccq) {
		pr_err_ratelimited("cqpool: put of a CQ that is not from a pool\n");
		return -EINVAL;
	}

	lock = ccq->vec_lock;
	spin_lock(lock);
	if (cqpool_release(ccq, nr_cqe, hook)) {
		/* Under the lock: an idle CQ may be freed once it is dropped. */
		pr_err_ratelimited("cqpool: %s: put of %u entries that are not reserved, or with a hook not on the CQ\n",
				   ccq->pool->name, nr_cqe);
		spin_unlock(lock);
		return -EINVAL;
	}
	if (ccq->ledger.users) {
		/* Most puts: the CQ stays in use, and its pool's reference. */
		spin_unlock(lock);
		return 0;
	}
	/* Read under the lock: an idle CQ may be freed once it is dropped. */
	pool = ccq->pool;
	dying = pool->dying;
	spin_unlock(lock);

	/* Now idle.  A removal since has kicked the reaper itself. */
	if (dying || !(pool->flags & CQPOOL_F_NO_SHRINK))
		queue_delayed_work(cqpool_wq, &pool->reap_work,
				   dying ? 0 : cqpool_idle_timeout() + 1);
	/* The CQ's reference (cqpool_reserved()); @pool may be freed now. */
	cqpool_pool_put(pool);
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_cq_put);

/*
 * The ib_client remove: every pool of the device is marked dying under its
 * lock, so no get succeeds after this, and its idle CQs are freed at once;
 * the shared slots let go of their pools.  Nothing here waits for a
 * consumer: a pool with reservations lives until the last is put back.
 */
void cqpool_dev_remove_pools(struct cqpool_dev *cdev)
{
	struct cqpool *shared[CQPOOL_NR_POLL_CTX];
	struct cqpool *pool;
	int i;

	mutex_lock(&cdev->lock);
	WARN_ON(!cdev->dying);
	list_for_each_entry(pool, &cdev->pools, node)
		mod_delayed_work(cqpool_wq, &pool->reap_work, 0);
	for (i = 0; i < CQPOOL_NR_POLL_CTX; i++) {
		shared[i] = cdev->shared[i];
		WRITE_ONCE(cdev->shared[i], NULL);
	}
	mutex_unlock(&cdev->lock);

	for (i = 0; i < CQPOOL_NR_POLL_CTX; i++)
		if (shared[i])
			cqpool_pool_put(shared[i]);
}
