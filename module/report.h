/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One walk over what cqpool holds, reported as the uapi's info structs
 * (see report.c).
 */
#ifndef CQPOOL_REPORT_H
#define CQPOOL_REPORT_H

#include <uapi/linux/cqpool.h>

/**
 * struct cqpool_report - callbacks of cqpool_report(); each may be NULL
 * @device: a device, with sums over its pools
 * @pool: a pool
 * @cq: a CQ of the pool reported last
 *
 * @pool and @cq are called under cqpool_lock(): they must not sleep.
 */
struct cqpool_report {
	void (*device)(struct cqpool_report *r,
		       const struct cqpool_device_info *info);
	void (*pool)(struct cqpool_report *r,
		     const struct cqpool_pool_info *info);
	void (*cq)(struct cqpool_report *r, const struct cqpool_cq_info *info);
};

void cqpool_report(struct cqpool_report *r);

/**
 * struct cqpool_upstream_stats - CQs of ib_cq_pool_get()'s pools
 * @cqs: CQs
 * @cqes: their entries
 * @used: entries reserved on them
 */
struct cqpool_upstream_stats {
	u64 cqs;
	u64 cqes;
	u64 used;
};

struct ib_device;

void cqpool_upstream_count(struct ib_device *ibdev, int ctx,
			   struct cqpool_upstream_stats *st);

#endif /* CQPOOL_REPORT_H */
