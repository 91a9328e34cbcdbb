// SPDX-License-Identifier: GPL-2.0
/*
 * Device tracking: an ib_client that keeps one record per RDMA device,
 * from the moment ib_core announces it until it goes away.
 */
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "cqpool_internal.h"
#include "cqpool_test.h"

/*
 * cqpool_devices_mutex protects cqpool_devices and the records on it.  It
 * is taken in process context only (ib_client callbacks, debugfs, ioctls)
 * and is never held while calling into a consumer.
 */
static DEFINE_MUTEX(cqpool_devices_mutex);
static LIST_HEAD(cqpool_devices);

static struct ib_client cqpool_client;

void cqpool_devices_lock(void)
{
	mutex_lock(&cqpool_devices_mutex);
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

static int cqpool_add_one(struct ib_device *ibdev)
{
	struct cqpool_dev *cdev;

	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;

	cdev->nvec = cqp_nvec(ibdev->num_comp_vectors, num_online_cpus());
	cdev->vectors = cqp_vectors_create(&cqpool_core_alloc, cdev->nvec);
	if (!cdev->vectors) {
		kfree(cdev);
		return -ENOMEM;
	}
	cdev->ibdev = ibdev;
	mutex_init(&cdev->lock);
	INIT_LIST_HEAD(&cdev->pools);
	atomic_set(&cdev->busy, 0);
	init_waitqueue_head(&cdev->released);
	spin_lock_init(&cdev->vectors_lock);
	xa_init(&cdev->cqs);
	xa_init(&cdev->qps);
	cqpool_events_init(cdev);

	mutex_lock(&cqpool_devices_mutex);
	list_add_tail(&cdev->node, &cqpool_devices);
	mutex_unlock(&cqpool_devices_mutex);

	ib_set_client_data(ibdev, &cqpool_client, cdev);
	dev_dbg(&ibdev->dev, "cqpool: tracking, %u vectors\n", cdev->nvec);
	return 0;
}

static void cqpool_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct cqpool_dev *cdev = client_data;

	cqpool_dev_release_pools(cdev);
	cqpool_events_exit(cdev);

	mutex_lock(&cqpool_devices_mutex);
	list_del(&cdev->node);
	mutex_unlock(&cqpool_devices_mutex);

	WARN_ON(!xa_empty(&cdev->cqs) || !xa_empty(&cdev->qps));
	xa_destroy(&cdev->cqs);
	xa_destroy(&cdev->qps);
	cqp_vectors_destroy(cdev->vectors);
	kfree(cdev);
}

static struct ib_client cqpool_client = {
	.name = "cqpool",
	.add = cqpool_add_one,
	.remove = cqpool_remove_one,
};

/**
 * cqpool_dev_get() - the record cqpool keeps for a device
 * @ibdev: a registered RDMA device
 *
 * Context: the caller holds a registration reference on @ibdev (it runs in
 * an ib_client callback or got @ibdev from ib_device_get_by_name()), which
 * keeps the record alive.
 * Return: the record, or NULL if cqpool has none for @ibdev.
 */
struct cqpool_dev *cqpool_dev_get(struct ib_device *ibdev)
{
	return ib_get_client_data(ibdev, &cqpool_client);
}

/**
 * cqpool_test_device_info() - what cqpool knows of a device, for KUnit
 * @ibdev: a registered RDMA device, held by the caller
 * @info: filled in on success
 *
 * Context: process context.
 * Return: 0, or -ENODEV if cqpool does not track @ibdev.
 */
int cqpool_test_device_info(struct ib_device *ibdev,
			    struct cqpool_test_dev_info *info)
{
	struct cqpool_dev *cdev = cqpool_dev_get(ibdev);
	unsigned int vec;

	if (!cdev)
		return -ENODEV;

	spin_lock(&cdev->vectors_lock);
	info->nvec = cqp_vectors_nvec(cdev->vectors);
	info->load = 0;
	for (vec = 0; vec < info->nvec; vec++)
		info->load += cqp_vectors_load(cdev->vectors, vec);
	spin_unlock(&cdev->vectors_lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cqpool_test_device_info);

int cqpool_devices_init(void)
{
	return ib_register_client(&cqpool_client);
}

void cqpool_devices_exit(void)
{
	ib_unregister_client(&cqpool_client);
}
