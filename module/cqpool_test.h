/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cqpool.ko exports to its KUnit module only, in the
 * EXPORTED_FOR_KUNIT_TESTING namespace.  Not an API.
 */
#ifndef CQPOOL_TEST_H
#define CQPOOL_TEST_H

#include <linux/types.h>

#include "cqpool_harness.h"

struct ib_device;

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

struct cqpool;

void cqpool_test_flush_reclaim(struct cqpool *pool);
extern unsigned int cqpool_idle_timeout_ms;

struct ib_event;

int cqpool_test_dispatch(struct ib_device *dev, const struct ib_event *event);
/*
 * cqpool_harness.ko's (harness/conn.c): the IPv4 address of the netdev
 * under @dev.
 */
__be32 cqpool_device_ipv4(struct ib_device *dev);

#endif /* CQPOOL_TEST_H */
