/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One walk over what cqpool holds (see report.c), for debugfs and, in the
 * test build, the harness's CQPOOL_IOC_LIST.
 */
#ifndef CQPOOL_REPORT_H
#define CQPOOL_REPORT_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

/**
 * struct cqpool_report_device - a device, with sums over its pools
 * @name: its name
 * @num_comp_vectors: its completion vectors
 * @nvec: those cqpool spreads over
 * @max_cqe: the most entries a CQ of it holds
 * @max_cq: the most CQs it has
 * @pools: cqpool's pools of it
 * @cqs: their CQs
 * @cqes: their entries
 * @reserved_cqes: entries reserved
 * @users: reservations
 * @events: unaffiliated events seen
 * @delivered: those delivered to handlers
 * @masked: those no handler's mask took
 * @upstream_cqs: CQs of ib_core's own pools of it (ib_cq_pool_get())
 * @upstream_cqes: their entries
 * @upstream_used: entries used on them
 */
struct cqpool_report_device {
	char name[IB_DEVICE_NAME_MAX];
	u32 num_comp_vectors;
	u32 nvec;
	u32 max_cqe;
	u32 max_cq;
	u32 pools;
	u32 cqs;
	u64 cqes;
	u64 reserved_cqes;
	u64 users;
	u64 events;
	u64 delivered;
	u64 masked;
	u64 upstream_cqs;
	u64 upstream_cqes;
	u64 upstream_used;
};

/**
 * struct cqpool_report_pool - a pool
 * @device: its device's name
 * @name: its name
 * @poll_ctx: its poll context
 * @flags: CQPOOL_F_* it was made with
 * @owned: made by cqpool_create()
 * @broken: its ledger fails its own invariant check
 * @cqs: its CQs
 * @idle_cqs: those without users
 * @cqes: their entries
 * @reserved_cqes: entries reserved
 * @users: reservations
 */
struct cqpool_report_pool {
	char device[IB_DEVICE_NAME_MAX];
	char name[CQPOOL_NAME_MAX];
	u32 poll_ctx;
	u32 flags;
	bool owned;
	bool broken;
	u32 cqs;
	u32 idle_cqs;
	u64 cqes;
	u64 reserved_cqes;
	u64 users;
};

/**
 * struct cqpool_report_cq - a CQ of a pool
 * @device: its device's name
 * @pool: its pool's name
 * @cq_id: its resource id (`rdma res show cq` cqn)
 * @vector: its completion vector
 * @cqe: its real size
 * @reserved_cqes: entries reserved on it
 * @users: reservations on it
 * @age_ms: since it was made
 * @idle_ms: since its last user left; 0 while it has users
 * @events: events seen on it
 * @delivered: hook calls they made
 */
struct cqpool_report_cq {
	char device[IB_DEVICE_NAME_MAX];
	char pool[CQPOOL_NAME_MAX];
	u32 cq_id;
	u32 vector;
	u32 cqe;
	u32 reserved_cqes;
	u32 users;
	u64 age_ms;
	u64 idle_ms;
	u64 events;
	u64 delivered;
};

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
		       const struct cqpool_report_device *info);
	void (*pool)(struct cqpool_report *r,
		     const struct cqpool_report_pool *info);
	void (*cq)(struct cqpool_report *r, const struct cqpool_report_cq *info);
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

void cqpool_upstream_count(struct ib_device *ibdev, int ctx,
			   struct cqpool_upstream_stats *st);

#endif /* CQPOOL_REPORT_H */
