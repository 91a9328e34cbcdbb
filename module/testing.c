// SPDX-License-Identifier: GPL-2.0
/*
 * cqpool.ko's test build only (Kbuild's CQPOOL_TESTING): what its test
 * modules need and a real machine must not carry (see testing.h).  The
 * harness reads cqpool's state and walks, injects the one event no soft
 * device raises, and hears of removals; the KUnit modules read a device
 * record and a pool's ledger, run the reclaim and dispatch at will.
 * Everything is exported in the CQPOOL_HARNESS namespace.
 */
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/uaccess.h>

#include "cqpool_internal.h"
#include "report.h"
#include "testing.h"

/**
 * cqpool_test_report() - cqpool_report(), the walk debugfs prints from
 * @r: what to call for each device, pool and CQ
 *
 * Context: process context; takes the devices mutex and pool locks.
 */
void cqpool_test_report(struct cqpool_report *r)
{
	cqpool_report(r);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_report, CQPOOL_HARNESS);

/**
 * cqpool_test_upstream_count() - cqpool_upstream_count()
 * @ibdev: the device
 * @ctx: one poll context, or -1 for all of them
 * @st: filled in
 *
 * Context: any context.
 */
void cqpool_test_upstream_count(struct ib_device *ibdev, int ctx,
				struct cqpool_upstream_stats *st)
{
	cqpool_upstream_count(ibdev, ctx, st);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_upstream_count, CQPOOL_HARNESS);

/**
 * cqpool_test_allocator() - the memory cqpool.ko gives its core
 *
 * For the other builds of the core, the harness's (bench_ledger.c) and
 * the KUnit module's, so that they allocate as cqpool.ko's does.
 *
 * Context: any context.
 * Return: cqpool_core_alloc.
 */
const struct cqp_alloc *cqpool_test_allocator(void)
{
	return &cqpool_core_alloc;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_allocator, CQPOOL_HARNESS);

/**
 * cqpool_test_pool_stats() - totals of a pool
 * @pool: the pool
 * @st: filled in
 *
 * Context: process context; takes the pool's lock.
 * Return: cqp_pool_check() of the ledger: 0 when every invariant holds.
 */
int cqpool_test_pool_stats(struct cqpool *pool, struct cqp_pool_stats *st)
{
	int ret;

	cqpool_lock(pool);
	cqp_pool_get_stats(pool->ledger, st);
	ret = cqp_pool_check(pool->ledger);
	cqpool_unlock(pool);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_pool_stats, CQPOOL_HARNESS);

/**
 * cqpool_test_pool_dying() - whether a pool's device is going (or it is destroyed)
 * @pool: the pool
 *
 * Context: any context.
 * Return: true once no get on @pool can succeed.
 */
bool cqpool_test_pool_dying(struct cqpool *pool)
{
	return READ_ONCE(pool->dying);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_pool_dying, CQPOOL_HARNESS);

/**
 * cqpool_test_cq_dying() - whether a CQ of cqpool's is on a dying pool
 * @cq: a CQ reserved from cqpool, held by the caller
 *
 * Context: any context.
 * Return: true once the pool @cq belongs to takes no more gets.
 */
bool cqpool_test_cq_dying(struct ib_cq *cq)
{
	return cqpool_test_pool_dying(cqpool_cq_of(cq)->pool);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_cq_dying, CQPOOL_HARNESS);

/**
 * cqpool_test_pool_device() - the RDMA device of a pool
 * @pool: the pool, held by the caller
 *
 * Context: any context.
 * Return: the device, which @pool holds, also after its removal.
 */
struct ib_device *cqpool_test_pool_device(struct cqpool *pool)
{
	return pool->cdev->ibdev;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_pool_device, CQPOOL_HARNESS);

/**
 * cqpool_test_device_served() - whether cqpool serves a device now
 * @ibdev: an RDMA device, held by the caller
 *
 * Context: process context (the reference it drops may be the last).
 * Return: false from the start of the device's removal on.
 */
bool cqpool_test_device_served(struct ib_device *ibdev)
{
	struct cqpool_dev *cdev = cqpool_dev_find(ibdev);

	if (!cdev)
		return false;
	cqpool_dev_put(cdev);
	return true;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_device_served, CQPOOL_HARNESS);

static BLOCKING_NOTIFIER_HEAD(cqpool_removal_chain);

/**
 * cqpool_test_register_removal() - hear of each device's removal
 * @nb: called with the ib_device as data (see testing.h)
 *
 * Context: process context.
 * Return: 0.
 */
int cqpool_test_register_removal(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&cqpool_removal_chain, nb);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_register_removal, CQPOOL_HARNESS);

/**
 * cqpool_test_unregister_removal() - stop hearing of removals
 * @nb: registered with cqpool_test_register_removal()
 *
 * Returns once no removal is calling @nb.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int cqpool_test_unregister_removal(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&cqpool_removal_chain, nb);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_unregister_removal, CQPOOL_HARNESS);

/* From cqpool's ib_client remove (device.c). */
void cqpool_testing_removal(struct ib_device *ibdev)
{
	blocking_notifier_call_chain(&cqpool_removal_chain, 0, ibdev);
}

/*
 * DEVICE_FATAL has no soft trigger (rxe and siw never raise it); tests
 * inject it through the same dispatch path, and only when this is set.
 */
static bool cqpool_event_injection;
module_param_named(event_injection, cqpool_event_injection, bool, 0644);
MODULE_PARM_DESC(event_injection,
		 "Allow debugfs to inject IB_EVENT_DEVICE_FATAL (test build only, default off)");

/**
 * cqpool_test_inject_event() - deliver a DEVICE_FATAL nobody raised
 * @device: the device's name
 * @type: IB_EVENT_DEVICE_FATAL, the one event no soft provider raises
 *
 * Goes through the same dispatch path as ib_core's events.
 *
 * Context: process context.
 * Return: 0, -EPERM unless the event_injection parameter is set, -EINVAL
 * for another event, -ENODEV for an unknown device.
 */
int cqpool_test_inject_event(const char *device, enum ib_event_type type)
{
	struct ib_event event = { .event = type };
	struct cqpool_dev *cdev;
	int ret = 0;

	if (!READ_ONCE(cqpool_event_injection))
		return -EPERM;
	if (type != IB_EVENT_DEVICE_FATAL)
		return -EINVAL;
	event.device = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!event.device)
		return -ENODEV;
	cdev = cqpool_dev_find(event.device);
	if (cdev) {
		cqpool_dispatch_device_event(cdev, &event);
		cqpool_dev_put(cdev);
	} else {
		ret = -ENODEV;
	}
	ib_device_put(event.device);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_inject_event, CQPOOL_HARNESS);

/*
 * debugfs's inject: "DEVICE device_fatal" injects IB_EVENT_DEVICE_FATAL
 * on DEVICE, when the event_injection parameter allows it.
 */
static ssize_t cqpool_inject_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[80], device[IB_DEVICE_NAME_MAX], what[32];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = 0;
	if (sscanf(buf, "%63s %31s", device, what) != 2 ||
	    strcmp(what, "device_fatal"))
		return -EINVAL;
	ret = cqpool_test_inject_event(device, IB_EVENT_DEVICE_FATAL);
	return ret ? ret : count;
}

static const struct file_operations cqpool_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cqpool_inject_write,
};

/* From debugfs.c, its directory made. */
void cqpool_testing_debugfs(struct dentry *root)
{
	debugfs_create_file("inject", 0200, root, NULL, &cqpool_inject_fops);
}

/**
 * cqpool_test_device_info() - what cqpool knows of a device
 * @ibdev: a registered RDMA device, held by the caller
 * @info: filled in on success
 *
 * Context: process context.
 * Return: 0, or -ENODEV if cqpool does not serve @ibdev.
 */
int cqpool_test_device_info(struct ib_device *ibdev,
			    struct cqpool_test_dev_info *info)
{
	struct cqpool_dev *cdev = cqpool_dev_find(ibdev);
	struct cqp_pool_stats st;
	struct cqpool *pool;

	if (!cdev)
		return -ENODEV;

	info->nvec = cqpool_dev_nvec(cdev);
	info->load = 0;
	mutex_lock(&cdev->lock);
	list_for_each_entry(pool, &cdev->pools, node) {
		cqpool_lock(pool);
		cqp_pool_get_stats(pool->ledger, &st);
		cqpool_unlock(pool);
		info->load += st.reserved;
	}
	mutex_unlock(&cdev->lock);
	cqpool_dev_put(cdev);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_device_info, CQPOOL_HARNESS);

/**
 * cqpool_test_reclaim_now() - free a pool's idle CQs now
 * @pool: the pool
 *
 * Runs its idle reclaim at once, whatever the idle timeout says: for
 * that run every idle CQ has been idle long enough.
 *
 * Context: process context; may sleep.
 */
void cqpool_test_reclaim_now(struct cqpool *pool)
{
	unsigned int saved = READ_ONCE(cqpool_idle_timeout_ms);

	WRITE_ONCE(cqpool_idle_timeout_ms, 0);
	mod_delayed_work(cqpool_wq, &pool->reap_work, 0);
	flush_delayed_work(&pool->reap_work);
	WRITE_ONCE(cqpool_idle_timeout_ms, saved);
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_reclaim_now, CQPOOL_HARNESS);

/**
 * cqpool_test_dispatch() - deliver an unaffiliated event
 * @dev: a device cqpool serves, held by the caller
 * @event: the event
 *
 * Context: process context.
 * Return: 0, or -ENODEV.
 */
int cqpool_test_dispatch(struct ib_device *dev, const struct ib_event *event)
{
	struct cqpool_dev *cdev = cqpool_dev_find(dev);

	if (!cdev)
		return -ENODEV;
	cqpool_dispatch_device_event(cdev, event);
	cqpool_dev_put(cdev);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cqpool_test_dispatch, CQPOOL_HARNESS);
