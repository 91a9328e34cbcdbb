/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool glue: what the C files of cqpool.ko share with one another.
 *
 * Lock order, outermost first:
 *   cqpool_dev.handlers_rwsem        - a device's event handlers
 *   cqpool_devices_mutex  (device.c) - the list of devices
 *   cqpool_dev.lock                  - a device's pools
 *   cqpool.lock                      - one pool's ledger and CQs
 *   cqpool_cq.hooks_lock             - one CQ's event hooks
 *   cqpool_dev.vectors_lock          - the device's vector ledger
 * The mutexes and the rwsem may be held across verbs that sleep; the two
 * spinlocks are taken with interrupts off (hooks_lock) or in process
 * context only (vectors_lock).  Event callbacks are the one place cqpool
 * calls a consumer with a lock held: hooks under their CQ's hooks_lock,
 * device handlers under handlers_rwsem (read), which is what makes
 * "never called after removal" hold.
 */
#ifndef CQPOOL_INTERNAL_H
#define CQPOOL_INTERNAL_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

#include "core/pool.h"
#include "core/vectors.h"

/* Poll contexts a pool may use: the first three of enum ib_poll_context. */
#define CQPOOL_NR_POLL_CTX	(IB_POLL_LAST_POOL_TYPE + 1)

/**
 * struct cqpool_dev - what cqpool keeps for one RDMA device
 * @ibdev: the device; valid from the ib_client add to its remove
 * @node: on cqpool_devices, under cqpool_devices_mutex
 * @nvec: completion vectors the pools spread over
 * @lock: protects @pools, @shared and @dying
 * @pools: every pool of the device (struct cqpool.node)
 * @shared: the lazily created shared pool of each poll context
 * @dying: set by the ib_client remove; no pool is created after it
 * @busy: reservations plus owned pools: what the remove waits for
 * @released: woken when @busy drops
 * @vectors_lock: protects @vectors
 * @vectors: the core's vector ledger: CQ entries reserved per vector over
 *	all pools of the device
 * @cqs: struct cqpool_cq by the CQ's restrack id; its own lock
 * @qps: struct cqpool_qp by QP number; its own lock
 * @handlers_rwsem: protects @handlers; held for reading while calling them
 * @handlers: struct cqpool_event_handler, registered by consumers
 * @ib_handler: cqpool's own handler of the device's unaffiliated events
 * @ev_received: unaffiliated events seen (ib_core's, injected, removal)
 * @ev_delivered: calls of device handlers
 * @ev_masked: events a device handler's mask kept from it
 */
struct cqpool_dev {
	struct ib_device *ibdev;
	struct list_head node;
	unsigned int nvec;
	struct mutex lock;		/* see the lock order above */
	struct list_head pools;
	struct cqpool *shared[CQPOOL_NR_POLL_CTX];
	bool dying;
	atomic_t busy;
	wait_queue_head_t released;
	spinlock_t vectors_lock;	/* innermost; no sleeping under it */
	struct cqp_vectors *vectors;
	struct xarray cqs;
	struct xarray qps;
	struct rw_semaphore handlers_rwsem;	/* see the lock order above */
	struct list_head handlers;
	struct ib_event_handler ib_handler;
	atomic64_t ev_received;
	atomic64_t ev_delivered;
	atomic64_t ev_masked;
};

/**
 * struct cqpool - a pool of CQs on one device and poll context
 * @cdev: the device
 * @node: on cdev->pools, under cdev->lock
 * @poll_ctx: poll context of its CQs
 * @owned: created by cqpool_create(), destroyed by its owner
 * @flags: CQPOOL_F_*
 * @name: for debugfs
 * @lock: protects @ledger and @cqs; held across the verbs that grow the pool
 * @ledger: the core's ledger of the CQs
 * @cqs: struct cqpool_cq, oldest first
 * @reap_work: frees CQs idle for longer than the idle timeout
 */
struct cqpool {
	struct cqpool_dev *cdev;
	struct list_head node;
	enum ib_poll_context poll_ctx;
	bool owned;
	unsigned int flags;
	char name[32];
	struct mutex lock;		/* see the lock order above */
	struct cqp_pool *ledger;
	struct list_head cqs;
	struct delayed_work reap_work;
};

/**
 * struct cqpool_cq - a CQ of a pool
 * @ledger: the core's record of it
 * @cq: the CQ
 * @pool: its pool
 * @node: on pool->cqs, under pool->lock
 * @created: ktime_get_ns() when it was allocated
 * @hooks_lock: protects @hooks and the counters; held, with interrupts
 *	off, while the hooks are called
 * @hooks: struct cqpool_hook attached by cqpool_cq_get()
 * @ev_received: events of the CQ
 * @ev_delivered: calls of its hooks
 */
struct cqpool_cq {
	struct cqp_cq ledger;
	struct ib_cq *cq;
	struct cqpool *pool;
	struct list_head node;
	u64 created;
	spinlock_t hooks_lock;		/* see the lock order above */
	struct list_head hooks;
	u64 ev_received;
	u64 ev_delivered;
};

/**
 * struct cqpool_qp - a QP whose CQs cqpool assigned
 * @qp: the QP
 * @pool: the pool its CQs come from
 * @send_cq: its send CQ
 * @recv_cq: its receive CQ; the same as @send_cq unless separate CQs
 *	were asked for
 * @send_cqe: entries reserved on @send_cq
 * @recv_cqe: entries reserved on @recv_cq when it is a CQ of its own
 * @event_handler: the QP's event handler, also called for the events of
 *	its pooled CQs
 * @qp_context: its context
 * @send_hook: on @send_cq, when there is an @event_handler
 * @recv_hook: on @recv_cq, when it is a CQ of its own
 */
struct cqpool_qp {
	struct ib_qp *qp;
	struct cqpool *pool;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	unsigned int send_cqe;
	unsigned int recv_cqe;
	void (*event_handler)(struct ib_event *event, void *context);
	void *qp_context;
	struct cqpool_hook send_hook;
	struct cqpool_hook recv_hook;
};

extern const struct cqp_alloc cqpool_core_alloc;
extern unsigned int cqpool_idle_timeout_ms;

int cqpool_devices_init(void);
void cqpool_devices_exit(void);
struct cqpool_dev *cqpool_dev_get(struct ib_device *ibdev);
void cqpool_devices_lock(void);
void cqpool_devices_unlock(void);
struct list_head *cqpool_devices_list(void);

void cqpool_dev_release_pools(struct cqpool_dev *cdev);
int cqpool_dev_hold(struct ib_device *dev);
void cqpool_dev_unhold(struct ib_device *dev);
const char *cqpool_poll_ctx_name(enum ib_poll_context ctx);

void cqpool_events_init(struct cqpool_dev *cdev);
void cqpool_events_exit(struct cqpool_dev *cdev);
void cqpool_dispatch_device_event(struct cqpool_dev *cdev,
				  const struct ib_event *event);
void cqpool_cq_events_init(struct cqpool_cq *ccq);
void cqpool_hook_attach(struct cqpool_cq *ccq, struct cqpool_hook *hook);
void cqpool_hook_detach(struct cqpool_cq *ccq, struct cqpool_hook *hook);
int cqpool_inject_event(const char *device, enum ib_event_type type);

int cqpool_debugfs_init(void);
void cqpool_debugfs_exit(void);

int cqpool_chardev_init(void);
void cqpool_chardev_exit(void);

#endif /* CQPOOL_INTERNAL_H */
