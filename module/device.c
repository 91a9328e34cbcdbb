// SPDX-License-Identifier: GPL-2.0
/*
 * Device tracking: an ib_client that keeps one record per RDMA device,
 * from the moment ib_core announces it until the last thing cqpool handed
 * out on it is given back (see "Lifetimes" in cqpool_internal.h).
 */
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "cqpool_internal.h"
#include "testing.h"
#include "cqpool_trace.h"

/*
 * cqpool_devices_mutex protects cqpool_devices, the list of every record
 * that still lives (a removed device's too, while it has pools), for the
 * walks of debugfs and the idle timeout.  It is taken in process context
 * only and never held while calling into a consumer.
 *
 * cqpool_devs maps ib_device.index to the record of a device cqpool
 * serves, from the ib_client add to its remove; lookups are under RCU and
 * take a reference (cqpool_dev_find()).  It has its own lock.
 */
static DEFINE_MUTEX(cqpool_devices_mutex);
static LIST_HEAD(cqpool_devices);
static DEFINE_XARRAY(cqpool_devs);

/* Frees dying pools (and so records) away from whoever put them last. */
struct workqueue_struct *cqpool_wq;

static struct ib_client cqpool_client;

/*
 * Devices cqpool leaves to ib_core, by name: for a driver that misbehaves
 * with CQs shared as cqpool shares them.  Their ULPs keep ib_core's own
 * pools, through the takeover too.  Read as each device is added, under
 * the parameter lock.
 */
static char cqpool_exclude[256];
module_param_string(exclude, cqpool_exclude, sizeof(cqpool_exclude), 0644);
MODULE_PARM_DESC(exclude,
		 "Devices to leave to ib_core, comma-separated names; read when a device is added");

/*
 * Whether @name is in cqpool_exclude, whose names a write through sysfs
 * ends with a newline.
 */
static bool cqpool_excluded(const char *name)
{
	size_t len = strlen(name);
	bool found = false;
	const char *p;

	kernel_param_lock(THIS_MODULE);
	for (p = cqpool_exclude; *p && !found; p += strcspn(p, ",\n")) {
		p += strspn(p, ",\n");
		/* strchr() finds the terminating NUL too: the last name. */
		found = !strncmp(p, name, len) && strchr(",\n", p[len]);
	}
	kernel_param_unlock(THIS_MODULE);
	return found;
}

void cqpool_devices_lock(void)
{
	mutex_lock(&cqpool_devices_mutex);
}

/* For reclaim, which must not wait on it: 1 when taken. */
int cqpool_devices_trylock(void)
{
	return mutex_trylock(&cqpool_devices_mutex);
}

void cqpool_devices_unlock(void)
{
	mutex_unlock(&cqpool_devices_mutex);
}

struct list_head *cqpool_devices_list(void)
{
	lockdep_assert_held(&cqpool_devices_mutex);
	return &cqpool_devices;
}

/**
 * cqpool_dev_find() - the record of a device cqpool serves, referenced
 * @ibdev: an RDMA device, held by the caller
 *
 * Context: any context but hard interrupt.
 * Return: the record with a reference the caller drops with
 * cqpool_dev_put(), or NULL if cqpool does not (or no longer) serve
 * @ibdev.
 */
struct cqpool_dev *cqpool_dev_find(struct ib_device *ibdev)
{
	struct cqpool_dev *cdev;

	rcu_read_lock();
	cdev = xa_load(&cqpool_devs, ibdev->index);
	if (cdev && (cdev->ibdev != ibdev || !kref_get_unless_zero(&cdev->ref)))
		cdev = NULL;
	rcu_read_unlock();
	return cdev;
}

/**
 * cqpool_dev_shared_pool_rcu() - a device's shared pool, unreferenced
 * @ibdev: an RDMA device, held by the caller
 * @ctx: a poll context cqpool pools
 *
 * Context: under rcu_read_lock(), which keeps the pool's memory (not its
 * ledger: see cqpool_device_cq_get()) until rcu_read_unlock().
 * Return: the pool, or NULL if the device has none yet for @ctx.
 */
struct cqpool *cqpool_dev_shared_pool_rcu(struct ib_device *ibdev,
					  enum ib_poll_context ctx)
{
	struct cqpool_dev *cdev;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "cqpool: shared pool outside RCU");
	cdev = xa_load(&cqpool_devs, ibdev->index);
	if (!cdev || cdev->ibdev != ibdev)
		return NULL;
	/* Published with smp_store_release() once initialised. */
	return READ_ONCE(cdev->shared[ctx]);
}

/**
 * cqpool_dev_shared_pool() - a device's shared pool, if it has one yet
 * @ibdev: an RDMA device, held by the caller
 * @ctx: a poll context cqpool pools
 *
 * Takes neither the record's lock nor a reference on it, so that the
 * gets of ULPs connecting on several CPUs at once do not wait for one
 * another: the pool holds the record, and records and pools are both
 * freed after a grace period.  A pool whose last reference is going is
 * not returned.
 *
 * Context: any context but hard interrupt.
 * Return: the pool, referenced, or NULL: the caller then takes the
 * record's lock (cqpool_device_pool()).
 */
struct cqpool *cqpool_dev_shared_pool(struct ib_device *ibdev,
				      enum ib_poll_context ctx)
{
	struct cqpool *pool;

	rcu_read_lock();
	pool = cqpool_dev_shared_pool_rcu(ibdev, ctx);
	if (pool && !refcount_inc_not_zero(&pool->ref))
		pool = NULL;
	rcu_read_unlock();
	return pool;
}

static void cqpool_dev_release(struct kref *ref)
{
	struct cqpool_dev *cdev = container_of(ref, struct cqpool_dev, ref);

	mutex_lock(&cqpool_devices_mutex);
	list_del(&cdev->node);
	mutex_unlock(&cqpool_devices_mutex);

	WARN_ON(!list_empty(&cdev->pools) || !list_empty(&cdev->handlers));
	WARN_ON(!xa_empty(&cdev->qps));
	xa_destroy(&cdev->qps);
	dev_dbg(&cdev->ibdev->dev, "cqpool: record released\n");
	/* An add that failed half-way releases a record never removed. */
	if (cdev->removed_ns)
		trace_cqpool_remove_finish(cdev->ibdev, cdev->removed_ns);
	/* What disable_device() waits for once every client is removed. */
	ib_device_put(cdev->ibdev);
	cqpool_events_free(cdev);
	kfree_rcu(cdev, rcu);
}

/**
 * cqpool_dev_put() - drop a reference on a device record
 * @cdev: the record
 *
 * The last one frees the record and lets go of the ib_device.
 *
 * Context: process context; the caller holds neither cqpool_devices_mutex
 * nor a lock of the record.
 */
void cqpool_dev_put(struct cqpool_dev *cdev)
{
	kref_put(&cdev->ref, cqpool_dev_release);
}

/**
 * cqpool_dev_nvec() - the vectors a get spreads over now
 * @cdev: the record
 *
 * As upstream's ib_cq_pool_get() does on every call: vectors beyond the
 * online CPUs only add CQs no CPU polls locally.  The ledgers are sized
 * for the most CPUs the device could use, so this follows CPU hotplug.
 *
 * Context: any context.
 * Return: 1 to @cdev->nvec.
 */
unsigned int cqpool_dev_nvec(struct cqpool_dev *cdev)
{
	return min(cqp_nvec(cdev->ibdev->num_comp_vectors, num_online_cpus()),
		   cdev->nvec);
}

static int cqpool_add_one(struct ib_device *ibdev)
{
	struct cqpool_dev *cdev;
	int ret;

	if (cqpool_excluded(dev_name(&ibdev->dev))) {
		dev_info(&ibdev->dev, "cqpool: excluded, left to ib_core\n");
		return -EOPNOTSUPP;
	}
	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;

	cdev->nvec = cqp_nvec(ibdev->num_comp_vectors, num_possible_cpus());
	/* ib_core holds the device across add: this cannot fail here. */
	if (WARN_ON(!ib_device_try_get(ibdev))) {
		ret = -ENODEV;
		goto out_free;
	}
	cdev->ibdev = ibdev;
	kref_init(&cdev->ref);
	mutex_init(&cdev->lock);
	INIT_LIST_HEAD(&cdev->pools);
	xa_init(&cdev->qps);
	cqpool_events_init(cdev);

	ret = xa_insert(&cqpool_devs, ibdev->index, cdev, GFP_KERNEL);
	if (ret)
		goto out_events;
	mutex_lock(&cqpool_devices_mutex);
	list_add_tail(&cdev->node, &cqpool_devices);
	mutex_unlock(&cqpool_devices_mutex);

	ib_set_client_data(ibdev, &cqpool_client, cdev);
	dev_dbg(&ibdev->dev, "cqpool: tracking, %u vectors\n", cdev->nvec);
	return 0;

out_events:
	cqpool_events_exit(cdev);
	cqpool_events_free(cdev);
	ib_device_put(ibdev);
out_free:
	kfree(cdev);
	return ret;
}

/* The trace of a removal's start: the pools, and the reservations out. */
static void cqpool_trace_remove_start(struct cqpool_dev *cdev)
{
	unsigned int pools = 0;
	unsigned long users = 0;
	struct cqpool *pool;

	mutex_lock(&cdev->lock);
	list_for_each_entry(pool, &cdev->pools, node) {
		cqpool_lock(pool);
		users += cqpool_pool_users(pool);
		cqpool_unlock(pool);
		pools++;
	}
	mutex_unlock(&cdev->lock);
	trace_cqpool_remove_start(cdev->ibdev, pools, users);
}

/*
 * Never waits for a consumer (see "Lifetimes"): what is still out keeps
 * the record, and through it the ib_device, until it is given back.
 */
static void cqpool_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct cqpool_dev *cdev = client_data;

	cdev->removed_ns = ktime_get_ns();
	if (trace_cqpool_remove_start_enabled())
		cqpool_trace_remove_start(cdev);
	xa_erase(&cqpool_devs, ibdev->index);
	cqpool_events_removal(cdev);
	cqpool_testing_removal(ibdev);
	cqpool_dev_remove_pools(cdev);
	cqpool_events_exit(cdev);
	cqpool_dev_put(cdev);
}

static struct ib_client cqpool_client = {
	.name = "cqpool",
	.add = cqpool_add_one,
	.remove = cqpool_remove_one,
};

int cqpool_devices_init(void)
{
	int ret;

	/* The shrinker's reclaim frees CQs through it: it needs a rescuer. */
	cqpool_wq = alloc_workqueue("cqpool", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!cqpool_wq)
		return -ENOMEM;
	ret = ib_register_client(&cqpool_client);
	if (ret)
		destroy_workqueue(cqpool_wq);
	return ret;
}

void cqpool_devices_exit(void)
{
	ib_unregister_client(&cqpool_client);
	/*
	 * Every consumer module is gone before this one (they use its
	 * symbols), so all that is left are frees already queued.
	 */
	destroy_workqueue(cqpool_wq);
	rcu_barrier();
}
