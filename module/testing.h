/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool.ko's test build (Kbuild's CQPOOL_TESTING, which make check and
 * make bench set): what it exports, from testing.c alone, to its test
 * modules (cqpool_harness.ko, the KUnit modules) in the CQPOOL_HARNESS
 * symbol namespace, and the hooks through which the rest of cqpool.ko
 * reaches testing.c, which compile to nothing in the build for a real
 * machine.  Not an API: it changes with cqpool.ko.
 */
#ifndef CQPOOL_TESTING_H
#define CQPOOL_TESTING_H

#include <linux/notifier.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "report.h"

struct cqpool;
struct cqp_alloc;
struct cqp_pool_stats;
struct dentry;

#ifdef CQPOOL_TESTING
void cqpool_testing_removal(struct ib_device *ibdev);
void cqpool_testing_debugfs(struct dentry *root);
#else
/* A device's removal, after its hooks and handlers heard DEVICE_FATAL. */
static inline void cqpool_testing_removal(struct ib_device *ibdev)
{
}

/* debugfs's directory, made: the test build adds its files. */
static inline void cqpool_testing_debugfs(struct dentry *root)
{
}
#endif

void cqpool_test_report(struct cqpool_report *r);
void cqpool_test_upstream_count(struct ib_device *ibdev, int ctx,
				struct cqpool_upstream_stats *st);
/* The memory cqpool.ko gives its core, for the other builds of the core. */
const struct cqp_alloc *cqpool_test_allocator(void);
int cqpool_test_pool_stats(struct cqpool *pool, struct cqp_pool_stats *st);
bool cqpool_test_device_served(struct ib_device *ibdev);
bool cqpool_test_pool_dying(struct cqpool *pool);
bool cqpool_test_cq_dying(struct ib_cq *cq);
struct ib_device *cqpool_test_pool_device(struct cqpool *pool);
int cqpool_test_inject_event(const char *device, enum ib_event_type type);

/*
 * Called from cqpool's ib_client remove, with the ib_device as data,
 * after every hook and handler on it has heard DEVICE_FATAL and before
 * its pools are given up: the point where a consumer gives back what it
 * holds from upstream's pool, which ib_core frees once every client is
 * removed.  A callback may sleep, but must not wait for a consumer.
 */
int cqpool_test_register_removal(struct notifier_block *nb);
int cqpool_test_unregister_removal(struct notifier_block *nb);

/**
 * struct cqpool_test_dev_info - a device record as cqpool sees it
 * @nvec: completion vectors the pools spread over
 * @load: CQ entries reserved over all pools of the device
 */
struct cqpool_test_dev_info {
	unsigned int nvec;
	u64 load;
};

int cqpool_test_device_info(struct ib_device *ibdev,
			    struct cqpool_test_dev_info *info);
void cqpool_test_reclaim_now(struct cqpool *pool);
int cqpool_test_dispatch(struct ib_device *dev, const struct ib_event *event);

#endif /* CQPOOL_TESTING_H */
