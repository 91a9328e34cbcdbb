/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool - completion-queue pools and async event hooks for in-kernel
 * RDMA consumers: the API that upper-layer protocols call.
 *
 * A consumer reserves CQ entries on a shared CQ from a pool instead of
 * allocating a CQ per queue.  Each device has one shared pool per poll
 * context, created on first use (cqpool_device_pool()); a consumer that
 * wants its own CQ size, limit or lifetime creates a pool it owns
 * (cqpool_create()).  A consumer that keeps no pool reserves on the
 * shared one with cqpool_device_cq_get().
 *
 * Every exported function carries kernel-doc at its definition stating
 * the context it may be called in.  In short: everything here may sleep
 * and is called from process context.
 *
 * Event callbacks, and the context they run in:
 *
 * - struct cqpool_hook.handler, and the event_handler of a QP made by
 *   cqpool_create_qp() for the events of its pooled CQs: atomic context
 *   (the driver's CQ event path, or cqpool fanning out DEVICE_FATAL), with
 *   the CQ's hook lock held and interrupts off.  They must not sleep and
 *   must not call into cqpool.
 * - struct cqpool_event_handler.handler: process context (ib_core's event
 *   work, cqpool's device removal, or synchronously from ib_core's GID
 *   cache, with the GID table's mutex and possibly rtnl_lock held, for
 *   GID_CHANGE), under cqpool's lock of the device's handlers taken for
 *   reading, and for the events ib_core dispatches (every one but those
 *   of cqpool's own removal) under ib_core's event_handler_rwsem taken
 *   for reading too.  It may sleep, but must not take rtnl_lock, wait for
 *   anything that does, or register or unregister a handler of the same
 *   device, with cqpool or with ib_register_event_handler(): either
 *   deadlocks, the second only on an event ib_core dispatches.
 *
 * Once cqpool_cq_put(), cqpool_destroy_qp() or cqpool_rdma_destroy_qp()
 * returns 0, or cqpool_unregister_event_handler() returns, the hook or
 * handler it detached is never called again.  A put or destroy that is
 * refused detaches nothing.
 *
 * Device removal.  When a device goes away (ib_client remove) every hook,
 * QP handler and device handler on it receives IB_EVENT_DEVICE_FATAL
 * once, and from then on no get, pool or handler is made on it.  The
 * removal calls the device handlers one after the other and waits for
 * each to return, so a handler should only note the removal and leave
 * its teardown to a work of its own.  It does not wait for what a
 * consumer still holds (reservations, QPs, owned pools, handlers, pool
 * references): that stays valid, and keeps the device's unregistration
 * waiting in ib_core, until it is given back.  Consumers give everything
 * back when told, as they do for RDMA_CM_EVENT_DEVICE_REMOVAL.  A device
 * that reports DEVICE_FATAL itself passes it on the same way, without the
 * rest.
 */
#ifndef _CQPOOL_CQPOOL_H
#define _CQPOOL_CQPOOL_H

#include <linux/list.h>
#include <rdma/ib_verbs.h>

struct rdma_cm_id;
struct cqpool_dev;

/* The module's release; the ioctl ABI has its own version in the uapi. */
#define CQPOOL_VERSION_MAJOR	0
#define CQPOOL_VERSION_MINOR	2

struct cqpool;

/*
 * struct cqpool_attr flags.  A pool grows by new CQs: no CQ of a device's
 * shared pool, or of an owned pool that does not ask, is ever resized.
 */
enum {
	/* Never free idle CQs of this pool before it is destroyed. */
	CQPOOL_F_NO_SHRINK = 1U << 0,
	/* Grow by new CQs: the default, which this only spells out. */
	CQPOOL_F_NO_RESIZE = 1U << 1,
	/*
	 * Grow a vector's CQs in place with ib_resize_cq() while others'
	 * completions flow through them, before adding CQs.  Only where the
	 * kernel still has kernel-side resize and the driver implements it:
	 * cqpool_create() says -EOPNOTSUPP elsewhere (siw, and every kernel
	 * since CQ resize became a user-space verb).
	 */
	CQPOOL_F_RESIZE = 1U << 2,
	CQPOOL_F_ALL = CQPOOL_F_NO_SHRINK | CQPOOL_F_NO_RESIZE |
		       CQPOOL_F_RESIZE,
};

/* Room for a pool's name, with its NUL. */
#define CQPOOL_NAME_MAX		64

/**
 * struct cqpool_attr - a pool owned by one consumer
 * @poll_ctx: IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE or IB_POLL_UNBOUND_WORKQUEUE
 * @cq_size: entries per CQ; 0 to size CQs to demand
 * @max_cqs: most CQs the pool may hold; 0 for no limit but the device's
 * @flags: CQPOOL_F_*
 * @name: shown in debugfs; copied.  Printable ASCII, shorter than
 *	CQPOOL_NAME_MAX; NULL for "<device>/<poll context>"
 */
struct cqpool_attr {
	enum ib_poll_context poll_ctx;
	unsigned int cq_size;
	unsigned int max_cqs;
	unsigned int flags;
	const char *name;
};

struct cqpool *cqpool_device_pool(struct ib_device *dev,
				  enum ib_poll_context ctx);
void cqpool_pool_put(struct cqpool *pool);
struct cqpool *cqpool_create(struct ib_device *dev,
			     const struct cqpool_attr *attr);
int cqpool_destroy(struct cqpool *pool);

/**
 * struct cqpool_hook - an event hook on a pooled CQ, embedded by the caller
 * @handler: called for each async event of the CQ it is attached to
 * @node: private
 * @cq: private
 */
struct cqpool_hook {
	void (*handler)(struct cqpool_hook *hook, const struct ib_event *event);
	struct list_head node;
	struct ib_cq *cq;
};

struct ib_cq *cqpool_cq_get(struct cqpool *pool, unsigned int nr_cqe,
			    int vector_hint, struct cqpool_hook *hook);
struct ib_cq *cqpool_device_cq_get(struct ib_device *dev,
				   enum ib_poll_context ctx,
				   unsigned int nr_cqe, int vector_hint,
				   struct cqpool_hook *hook);
int cqpool_cq_put(struct ib_cq *cq, unsigned int nr_cqe,
		  struct cqpool_hook *hook);

/* struct cqpool_qp_attr flags */
enum {
	/* A CQ for sends and another for receives, rather than one for both. */
	CQPOOL_QP_SEPARATE_CQS = 1U << 0,
	CQPOOL_QP_ALL = CQPOOL_QP_SEPARATE_CQS,
};

/**
 * struct cqpool_qp_attr - how cqpool_create_qp() assigns CQs
 * @vector_hint: completion vector; -1 for the least-loaded one
 * @cpu_hint: when @vector_hint is -1 and this is not, the vector serving
 *	this CPU
 * @flags: CQPOOL_QP_*
 */
struct cqpool_qp_attr {
	int vector_hint;
	int cpu_hint;
	unsigned int flags;
};

/**
 * struct cqpool_event_handler - a handler of a device's unaffiliated events
 * @device: the device
 * @event_mask: BIT_ULL(IB_EVENT_*) of the events wanted; 0 for every event
 * @handler: called for each wanted event
 * @node: private
 * @cdev: private
 */
struct cqpool_event_handler {
	struct ib_device *device;
	u64 event_mask;
	void (*handler)(struct cqpool_event_handler *h,
			const struct ib_event *event);
	struct list_head node;
	struct cqpool_dev *cdev;
};

int cqpool_register_event_handler(struct cqpool_event_handler *h);
void cqpool_unregister_event_handler(struct cqpool_event_handler *h);

struct ib_qp *cqpool_create_qp(struct cqpool *pool, struct ib_pd *pd,
			       struct ib_qp_init_attr *init_attr,
			       const struct cqpool_qp_attr *qattr);
int cqpool_destroy_qp(struct ib_qp *qp);
int cqpool_rdma_create_qp(struct cqpool *pool, struct rdma_cm_id *id,
			  struct ib_pd *pd, struct ib_qp_init_attr *init_attr,
			  const struct cqpool_qp_attr *qattr);
int cqpool_rdma_destroy_qp(struct rdma_cm_id *id);

#endif /* _CQPOOL_CQPOOL_H */
