/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cqpool.ko exports to its test harness, cqpool_harness.ko, in the
 * CQPOOL_HARNESS symbol namespace (the KUnit modules import it too): the
 * walk over what cqpool holds, a pool's totals and the count of upstream's
 * pools (LIST, BENCH), the core's allocator (BENCH's ledger alone, the
 * KUnit core tests), event injection (TRIGGER), and word of a device's
 * removal.  Not an API: it changes with cqpool.ko, and a ULP that imports
 * it is on its own.
 */
#ifndef CQPOOL_HARNESS_H
#define CQPOOL_HARNESS_H

#include <linux/notifier.h>
#include <rdma/ib_verbs.h>

#include "report.h"

struct cqpool;
struct cqp_alloc;
struct cqp_pool_stats;

const struct cqp_alloc *cqpool_core_allocator(void);
int cqpool_pool_stats(struct cqpool *pool, struct cqp_pool_stats *st);
bool cqpool_device_served(struct ib_device *ibdev);
bool cqpool_pool_dying(struct cqpool *pool);
bool cqpool_cq_dying(struct ib_cq *cq);
struct ib_device *cqpool_pool_device(struct cqpool *pool);
int cqpool_inject_event(const char *device, enum ib_event_type type);

/*
 * Called from cqpool's ib_client remove, with the ib_device as data,
 * after every hook and handler on it has heard DEVICE_FATAL and before
 * its pools are given up: the point where a consumer gives back what it
 * holds from upstream's pool, which ib_core frees once every client is
 * removed.  A callback may sleep, but must not wait for a consumer.
 */
int cqpool_register_removal_notifier(struct notifier_block *nb);
int cqpool_unregister_removal_notifier(struct notifier_block *nb);

#endif /* CQPOOL_HARNESS_H */
