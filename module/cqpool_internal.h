/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cqpool glue: what the C files of cqpool.ko share with one another.
 *
 * Lock order, outermost first:
 *   cqpool_dev.handlers_rwsem        - a device's event handlers
 *   cqpool_devices_mutex  (device.c) - the list of device records
 *   cqpool_dev.lock                  - a device's pools
 *   cqpool.grow_lock                 - one pool's growth and reclaim
 *   cqpool.lock                      - one pool's ledger and CQs
 *   cqpool.stripes[].lock            - its vectors', in index order
 *   cqpool_cq.hooks_lock             - one CQ's event hooks
 * The mutexes and the rwsem may be held across verbs that sleep; the
 * spinlocks are taken in process context only (cqpool.lock and the
 * stripes, never across a verb) or with interrupts off (hooks_lock).
 * cqpool_lock() takes cqpool.lock and every stripe.  A get or put that
 * fits the ledger takes its vector's stripe alone, so that gets and puts
 * on different vectors share no lock; growth runs its verbs under
 * grow_lock, outside the pool's locks, and splices the result in under
 * cqpool_lock().
 * Event callbacks are the one place cqpool calls a consumer with a lock
 * held: hooks under their CQ's hooks_lock, device handlers under
 * handlers_rwsem (read), which is what makes "never called after
 * removal" hold.
 *
 * Lifetimes.  The ib_client remove never waits for a consumer: ib_core
 * removes clients in reverse order of registration, so rdma_cm's users
 * and ULP clients loaded before cqpool hear of the removal only after it
 * returns.  Instead, everything cqpool hands out keeps what it needs
 * alive, and the device's unregistration waits for that in
 * disable_device(), after every client's remove:
 *  - a struct cqpool_dev holds a reference on its ib_device from the
 *    ib_client add until its own last reference goes (cqpool_dev_put());
 *  - the ib_client holds a reference on the record from add to remove,
 *    each pool holds one, and so does each registered device handler;
 *  - a pool is referenced by its device's shared slot (shared pools) or
 *    its owner until cqpool_destroy() (owned pools), by each caller of
 *    cqpool_device_pool() until cqpool_pool_put(), and once more by
 *    each of its CQs that has a reservation; CQs live in their pool.
 *    cqpool_device_cq_get() reserves on a shared pool under RCU alone,
 *    which only a pool not yet dying lets it do (the slot's reference
 *    is dropped after the pool is marked);
 *  - a reservation is found from its CQ alone (cqpool_cq_of()), so a put
 *    never needs the device's client data, which ib_core erases after
 *    the remove.
 * The remove marks the record and its pools dying under their locks (no
 * get, pool or handler succeeds after that), delivers DEVICE_FATAL to
 * every hook and handler, drops the shared slots and its own reference,
 * and returns.  The last put of a dying pool frees its CQs from
 * cqpool_wq, then the record goes, then ib_core finishes.
 */
#ifndef CQPOOL_INTERNAL_H
#define CQPOOL_INTERNAL_H

#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

#include "core/pool.h"
#include "core/vectors.h"

/*
 * The most vector locks of a pool: vectors beyond share them (struct
 * cqpool_stripe).  A power of 2, and few enough that cqpool_lock() nests
 * them all well below the preempt count's limit.
 */
#define CQPOOL_MAX_STRIPES	16

/* Poll contexts a pool may use: the first three of enum ib_poll_context. */
#define CQPOOL_NR_POLL_CTX	(IB_POLL_LAST_POOL_TYPE + 1)

/**
 * struct cqpool_dev - what cqpool keeps for one RDMA device
 * @ibdev: the device; held (ib_device_try_get()) for as long as the record
 *	lives, which is what makes its unregistration wait for consumers
 * @ref: see "Lifetimes" above
 * @rcu: the record is freed after a grace period: cqpool_dev_find()
 *	looks it up under RCU
 * @node: on cqpool_devices, under cqpool_devices_mutex, until freed
 * @nvec: vectors the ledgers are sized for; a get uses the first
 *	cqpool_dev_nvec() of them, which follows CPU hotplug
 * @lock: protects @pools and @shared
 * @pools: every pool of the device (struct cqpool.node)
 * @shared: the lazily created shared pool of each poll context; also
 *	read under RCU alone (cqpool_dev_shared_pool())
 * @dying: set once, by the ib_client remove, under both @lock and
 *	@handlers_rwsem (either suffices to read it): no pool and no
 *	handler is added after it
 * @qps: struct cqpool_qp by QP number; its own lock, which also guards
 *	each record's @dying
 * @handlers_rwsem: protects @handlers; held for reading while calling them
 * @handlers: struct cqpool_event_handler, registered by consumers
 * @ib_handler: cqpool's own handler of the device's unaffiliated events
 * @ev_received: unaffiliated events seen (ib_core's, injected, removal)
 * @ev_delivered: calls of device handlers
 * @ev_masked: events a device handler's mask kept from it
 * @removed_ns: ktime_get_ns() when the ib_client remove began, for the
 *	trace of the removal's end
 */
struct cqpool_dev {
	struct ib_device *ibdev;
	struct kref ref;
	struct rcu_head rcu;
	struct list_head node;
	unsigned int nvec;
	struct mutex lock;		/* see the lock order above */
	struct list_head pools;
	struct cqpool *shared[CQPOOL_NR_POLL_CTX];
	bool dying;
	struct xarray qps;
	struct rw_semaphore handlers_rwsem;	/* see the lock order above */
	/*
	 * handlers_rwsem's lockdep class, the device's own: a handler of one
	 * device may register one on another, which lockdep would otherwise
	 * report as the lock taken within itself.
	 */
	struct lock_class_key handlers_key;
	struct list_head handlers;
	struct ib_event_handler ib_handler;
	atomic64_t ev_received;
	atomic64_t ev_delivered;
	atomic64_t ev_masked;
	u64 removed_ns;
};

/* A pool's fast paths on different stripes write no line they share. */
struct cqpool_stripe {
	spinlock_t lock;	/* see the lock order above */
} ____cacheline_aligned_in_smp;

/**
 * struct cqpool - a pool of CQs on one device and poll context
 * @cdev: the device; referenced
 * @ref: see "Lifetimes" above
 * @node: on cdev->pools, under cdev->lock, until the pool is freed
 * @poll_ctx: poll context of its CQs
 * @owned: created by cqpool_create(), destroyed by its owner
 * @flags: CQPOOL_F_*
 * @name: for debugfs
 * @grow_lock: serialises the pool's growth and reclaim: held across the
 *	verbs that grow it (ib_alloc_cq(), ib_resize_cq()), which run
 *	outside @lock, and while the reclaim takes CQs out of the ledger, so
 *	that the CQ a growth resizes stays in it
 * @lock: with every stripe (cqpool_lock()), protects @ledger, @cqs,
 *	@dying and @pressed; process context only, never held across a verb.
 *	Only cqpool_lock() takes it, so lockdep_assert_held() of it asserts
 *	the stripes too
 * @ledger: the core's ledger of the CQs, which also counts the entries
 *	reserved on each vector (cqp_pool_pick_vector()); a vector's stripe
 *	alone suffices for the core's calls on one vector
 *	(cqp_pool_try_reserve(), cqp_pool_release()), which is also
 *	enough to read @dying
 * @cqs: struct cqpool_cq, oldest first
 * @dying: its device is going (or, owned, it is destroyed): no get
 *	succeeds (the ledger is closed with it, cqpool_pool_mark_dying()),
 *	and idle CQs are freed at once
 * @pressed: memory is short: the next reclaim frees idle CQs without
 *	waiting for their timeout (see shrinker.c)
 * @reap_work: frees CQs idle for longer than the idle timeout
 * @free_work: frees the pool once its last reference is gone
 * @rcu: the pool and its ledger are freed after a grace period:
 *	cqpool_dev_shared_pool() may try @ref, and cqpool_device_cq_get()
 *	pick a vector on the ledger, take its stripe and read @dying, of a
 *	pool its slot no longer holds
 * @nvec: the ledger's vectors, as cqp_pool_params.nvec
 * @stripe_mask: a vector's stripe is @stripes[vec & @stripe_mask]
 * @stripes: the vectors' locks: see @lock and @ledger
 */
struct cqpool {
	struct cqpool_dev *cdev;
	struct list_head node;
	enum ib_poll_context poll_ctx;
	bool owned;
	unsigned int flags;
	char name[CQPOOL_NAME_MAX];
	struct mutex grow_lock;		/* see the lock order above */
	spinlock_t lock;		/* see the lock order above */
	struct cqp_pool *ledger;
	struct list_head cqs;
	refcount_t ref;
	bool dying;
	bool pressed;
	struct delayed_work reap_work;
	struct work_struct free_work;
	struct rcu_head rcu;
	u32 nvec;
	unsigned int stripe_mask;
	struct cqpool_stripe stripes[];
};

/* The lock of @pool's vector @vec. */
static inline spinlock_t *cqpool_vec_lock(struct cqpool *pool, u32 vec)
{
	return &pool->stripes[vec & pool->stripe_mask].lock;
}

/**
 * struct cqpool_cq - a CQ of a pool
 * @ledger: the core's record of it
 * @cq: the CQ
 * @pool: its pool
 * @vec_lock: cqpool_vec_lock() of its vector, which it keeps while it is
 *	in the ledger: the put's lock, found with one load
 * @node: on pool->cqs, under cqpool_lock()
 * @created: cqpool_clock() when it was allocated
 * @hooks_lock: protects @hooks and the counters; held, with interrupts
 *	off, while the hooks are called
 * @hooks: struct cqpool_hook attached by cqpool_cq_get()
 * @plain_users: reservations made without a hook; under its vector's lock
 * @ev_received: events of the CQ
 * @ev_delivered: calls of its hooks
 */
struct cqpool_cq {
	struct cqp_cq ledger;
	struct ib_cq *cq;
	struct cqpool *pool;
	spinlock_t *vec_lock;		/* the pool's, not its own */
	struct list_head node;
	u64 created;
	spinlock_t hooks_lock;		/* see the lock order above */
	struct list_head hooks;
	unsigned int plain_users;
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
 * @recv_cqe: entries of the receive side's own reservation, when
 *	separate CQs were asked for (the pool may still put both on one)
 * @event_handler: the QP's event handler, also called for the events of
 *	its pooled CQs
 * @qp_context: its context
 * @send_hook: on @send_cq, when there is an @event_handler
 * @recv_hook: on @recv_cq, with the receive side's own reservation
 * @dying: its QP is being destroyed, and a new QP may take its number;
 *	under the lock of the device record's @qps
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
	bool dying;
};

/*
 * might_sleep()'s check, for a get's and a put's fast path, without its
 * voluntary preemption point: the kernel's debug option reports a caller
 * in atomic context, and the path stays a few hundred nanoseconds.  The
 * slow paths call might_sleep() itself.
 */
#define cqpool_might_sleep()	__might_sleep(__FILE__, __LINE__)

/*
 * The pools' clock, for idle time and age: jiffies, which a put that
 * leaves a CQ idle reads with one load, where ktime_get_ns() reads the
 * clocksource.  Idle timeouts are seconds long: a tick is fine enough.
 */
static inline u64 cqpool_clock(void)
{
	return get_jiffies_64();
}

/* Milliseconds from @then (cqpool_clock()) to now; 0 if @then is later. */
static inline u64 cqpool_ms_since(u64 then)
{
	u64 now = cqpool_clock();

	return now > then ? jiffies64_to_msecs(now - then) : 0;
}

void cqpool_cq_event(struct ib_event *event, void *context);

/**
 * cqpool_cq_of() - the pooled CQ record of a CQ
 * @cq: a CQ, held by the caller
 *
 * A pooled CQ carries its record as the CQ's context, and cqpool's own
 * event handler marks it as one: nothing else in the kernel sets that
 * handler.  So the record is found from the CQ alone, without the
 * device's client data, whatever state the device is in.  Inline: every
 * put starts here.
 *
 * Context: any context.
 * Return: the record, or NULL if @cq is not from a pool.
 */
static inline struct cqpool_cq *cqpool_cq_of(struct ib_cq *cq)
{
	return READ_ONCE(cq->event_handler) == cqpool_cq_event ?
		cq->cq_context : NULL;
}

extern const struct cqp_alloc cqpool_core_alloc;
extern unsigned int cqpool_idle_timeout_ms;
extern struct workqueue_struct *cqpool_wq;
extern unsigned int cqpool_idle_timeout_ms;
extern const struct cqp_alloc cqpool_core_alloc;

int cqpool_devices_init(void);
void cqpool_devices_exit(void);
struct cqpool_dev *cqpool_dev_find(struct ib_device *ibdev);
struct cqpool *cqpool_dev_shared_pool_rcu(struct ib_device *ibdev,
					  enum ib_poll_context ctx);
struct cqpool *cqpool_dev_shared_pool(struct ib_device *ibdev,
				      enum ib_poll_context ctx);
void cqpool_dev_put(struct cqpool_dev *cdev);
unsigned int cqpool_dev_nvec(struct cqpool_dev *cdev);
void cqpool_devices_lock(void);
int cqpool_devices_trylock(void);
void cqpool_devices_unlock(void);
struct list_head *cqpool_devices_list(void);

void cqpool_dev_remove_pools(struct cqpool_dev *cdev);
void cqpool_lock(struct cqpool *pool);
void cqpool_unlock(struct cqpool *pool);
void cqpool_pool_mark_dying(struct cqpool *pool);
unsigned long cqpool_pool_users(struct cqpool *pool);
unsigned long cqpool_pool_idle_cqs(struct cqpool *pool);
unsigned long cqpool_pool_shrink(struct cqpool *pool);
int cqpool_shrinker_init(void);
void cqpool_shrinker_exit(void);
const char *cqpool_poll_ctx_name(enum ib_poll_context ctx);

void cqpool_events_init(struct cqpool_dev *cdev);
void cqpool_events_exit(struct cqpool_dev *cdev);
void cqpool_events_free(struct cqpool_dev *cdev);
void cqpool_events_removal(struct cqpool_dev *cdev);
void cqpool_dispatch_device_event(struct cqpool_dev *cdev,
				  const struct ib_event *event);
void cqpool_cq_events_init(struct cqpool_cq *ccq);
void cqpool_hook_attach(struct cqpool_cq *ccq, struct cqpool_hook *hook);
void cqpool_hook_detach(struct cqpool_cq *ccq, struct cqpool_hook *hook);

int cqpool_debugfs_init(void);
void cqpool_debugfs_exit(void);

#endif /* CQPOOL_INTERNAL_H */
