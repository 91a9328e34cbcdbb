// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: consumers racing the removal of a device, in a module of its own
 * (cqpool_race_kunit.ko) because the removals come from outside: while it
 * loads, the VM's payload deletes and re-adds rxe0 and siw0 in turn, in a
 * loop.  Threads get and put reservations with hooks (on the shared pool
 * and on owned pools), create and destroy QPs, and register and unregister
 * device handlers, on each device in turn, for as long as it takes to see
 * RACE_REMOVALS removals between the two.  Run
 * under KASAN, kmemleak and lockdep, it checks that nothing is used after
 * it is freed and nothing leaks, that every hook attached when its
 * device went heard DEVICE_FATAL exactly once, and that no hook or
 * handler is called after it was put or unregistered.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

#include "cqpool_internal.h"
#include "testing.h"

/*
 * The devices removed, in turn: RoCE's rxe0 and iWARP's siw0, whose
 * removals take different paths through ib_core (GIDs, MAD agents).  On
 * the debug kernel a delete and re-add of siw0 costs a third of rxe0's
 * (0.9 s against 3.0 s, with no consumer): ib_core makes and then removes
 * three sysfs files for each entry of rxe's 1,024-entry GID table, where
 * siw's has one.  Taking turns keeps rxe0 in the races at less cost.
 */
static const char *const race_devices[] = { "rxe0", "siw0" };

/*
 * The removals the cases must see between them, and how: a case that
 * waits longer than the VMs' hung-task timeout (30 s) would be reported
 * as hung, so each ends after RACE_PER_ROUND removals or RACE_ROUND_S,
 * and there are rounds enough for a slow machine: one removal of rxe0
 * takes 1 to 6 s there, the most with cqpool built for coverage and the host busy
 * (with the consumers at nice 0, rounds saw 3 or 4; at nice 19, 5 to 7).
 * The rounds end once the removals are seen (race_rounds_gen()): none
 * runs with nothing left to do.
 */
#define RACE_PER_ROUND		20
#define RACE_ROUNDS		96
#define RACE_ROUND_S		20

/*
 * The share of rounds, in percent, in which consumers must have heard a
 * removal's DEVICE_FATAL: a round whose removals came while no hook or
 * handler was attached raced nothing.  On the debug kernel every round
 * heard some, 7 to 15 for 10 or 11 removals (a hook is attached about
 * half the time its thread runs).
 */
#define RACE_OVERLAP_PCT	75

/*
 * Not a module parameter: KUnit runs a module's suites before its
 * parameters are parsed, so the build sets it (Kbuild).  The KCSAN kernel
 * sees half as many, for CI's time: its races are slower, and the debug
 * kernel runs the same ones.
 */
#define RACE_REMOVALS		(IS_ENABLED(CONFIG_KCSAN) ? \
				 CQPOOL_RACE_REMOVALS / 2 : CQPOOL_RACE_REMOVALS)

/*
 * Removals and DEVICE_FATALs seen by the rounds so far, the rounds run,
 * and those in which a DEVICE_FATAL was heard.
 */
static unsigned int race_removals_seen;
static long race_fatal_heard;
static unsigned int race_rounds_run;
static unsigned int race_rounds_overlapped;

/**
 * struct race - what the threads share
 * @stop: set when enough removals were seen
 * @rounds: operations done, by all threads
 * @late: a hook or handler called after its put or unregister
 * @doubled: a hook or handler that heard DEVICE_FATAL twice
 * @unheard: a hook attached when its pool went dying that heard nothing
 * @fatal_heard: DEVICE_FATALs heard by hooks and handlers
 */
struct race {
	bool stop;
	atomic_long_t rounds;
	atomic_t late;
	atomic_t doubled;
	atomic_t unheard;
	atomic_long_t fatal_heard;
};

/**
 * struct race_pick - which device a thread uses next
 * @turn: counts the picks, which go round race_devices[]
 * @cur: the index in race_devices[] of the last pick
 * @dead: per device, the index of the ib_device a call found going
 * @until: per device, when to try that ib_device again
 */
struct race_pick {
	unsigned int turn;
	unsigned int cur;
	u32 dead[ARRAY_SIZE(race_devices)];
	unsigned long until[ARRAY_SIZE(race_devices)];
};

#define RACE_PICK_INIT { .dead = { U32_MAX, U32_MAX } }

/*
 * The next device in turn, held, or NULL after a pause.  A device a call
 * found going (or not yet served) is let go of for a while, as consumers
 * do once told: taking it again and again would keep its refcount from
 * reaching zero, which its unregistration waits for.
 */
static struct ib_device *race_device(struct race_pick *p)
{
	unsigned int i = p->turn++ % ARRAY_SIZE(race_devices);
	struct ib_device *dev;

	p->cur = i;
	dev = ib_device_get_by_name(race_devices[i], RDMA_DRIVER_UNKNOWN);
	if (dev && dev->index == p->dead[i] &&
	    time_before(jiffies, p->until[i])) {
		ib_device_put(dev);
		dev = NULL;
	}
	if (!dev)
		usleep_range(500, 1000);
	return dev;
}

/*
 * Notes that a call on @dev, the last pick, said ENODEV: leave it alone
 * for 20 ms.
 */
static void race_note(struct race_pick *p, struct ib_device *dev, long err)
{
	if (err == -ENODEV) {
		p->dead[p->cur] = dev->index;
		p->until[p->cur] = jiffies + msecs_to_jiffies(20);
	}
}

/**
 * struct race_hook - a hook that checks when it is called
 * @hook: the hook
 * @r: the race
 * @fatal: DEVICE_FATALs it heard
 * @released: set once its put has returned, just before it is freed
 *
 * It lives on the heap and is freed as soon as its put returns, so that
 * a call after that is a use-after-free KASAN reports, however late it
 * comes; @released catches the same on a kernel without KASAN, until the
 * memory is used again.
 */
struct race_hook {
	struct cqpool_hook hook;
	struct race *r;
	atomic_t fatal;
	bool released;
};

/* What a hook or a handler checks when it is called; any context. */
static void race_heard(struct race *r, atomic_t *fatal, const bool *released,
		       const struct ib_event *event)
{
	if (READ_ONCE(*released))
		atomic_inc(&r->late);
	if (event->event == IB_EVENT_DEVICE_FATAL) {
		atomic_long_inc(&r->fatal_heard);
		if (atomic_inc_return(fatal) > 1)
			atomic_inc(&r->doubled);
	}
}

/* Atomic context: under the CQ's hook lock. */
static void race_hook_event(struct cqpool_hook *hook,
			    const struct ib_event *event)
{
	struct race_hook *h = container_of(hook, struct race_hook, hook);

	race_heard(h->r, &h->fatal, &h->released, event);
}

/*
 * A reservation with a hook on @pool, or without one on @dev's shared pool
 * (cqpool_device_cq_get(), which takes no reference on it), held a moment,
 * then put back: 0, or the error of the get.
 */
static long race_reserve(struct race *r, struct ib_device *dev,
			 struct cqpool *pool)
{
	struct race_hook *h = kzalloc(sizeof(*h), GFP_KERNEL);
	struct ib_cq *cq;
	bool dying;

	if (!h)
		return -ENOMEM;
	h->hook.handler = race_hook_event;
	h->r = r;
	cq = pool ? cqpool_cq_get(pool, 16, -1, &h->hook) :
		    cqpool_device_cq_get(dev, IB_POLL_SOFTIRQ, 16, -1, &h->hook);
	if (IS_ERR(cq)) {
		kfree(h);
		return PTR_ERR(cq);
	}
	usleep_range(100, 2000);
	/*
	 * Dying before the put means the removal's DEVICE_FATAL, sent under
	 * the pool's locks it was marked under, reached the hook.
	 */
	dying = cqpool_test_cq_dying(cq);
	cqpool_cq_put(cq, 16, &h->hook);
	if (dying && !atomic_read(&h->fatal))
		atomic_inc(&r->unheard);
	WRITE_ONCE(h->released, true);
	kfree(h);
	return 0;
}

static int race_reserver(void *arg)
{
	const struct cqpool_attr attr = {
		.poll_ctx = IB_POLL_WORKQUEUE, .name = "race",
	};
	struct race_pick p = RACE_PICK_INIT;
	struct race *r = arg;
	unsigned long n = 0;

	while (!READ_ONCE(r->stop)) {
		struct ib_device *dev = race_device(&p);
		struct cqpool *pool;
		long err;

		if (!dev)
			continue;
		/*
		 * Owned pools, the shared pool and a get without a pool in
		 * turn, each on both devices.
		 */
		switch (n++ % 3) {
		case 0:
			pool = cqpool_create(dev, &attr);
			err = PTR_ERR_OR_ZERO(pool);
			if (!err) {
				err = race_reserve(r, dev, pool);
				WARN_ON(cqpool_destroy(pool));
			}
			break;
		case 1:
			pool = cqpool_device_pool(dev, IB_POLL_SOFTIRQ);
			err = PTR_ERR_OR_ZERO(pool);
			if (!err) {
				err = race_reserve(r, dev, pool);
				cqpool_pool_put(pool);
			}
			break;
		default:
			err = race_reserve(r, dev, NULL);
		}
		race_note(&p, dev, err);
		ib_device_put(dev);
		atomic_long_inc(&r->rounds);
	}
	return 0;
}

static int race_qps(void *arg)
{
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct race_pick p = RACE_PICK_INIT;
	struct race *r = arg;

	while (!READ_ONCE(r->stop)) {
		struct ib_device *dev = race_device(&p);
		struct ib_qp_init_attr a = init;
		struct cqpool *pool;
		struct ib_qp *qp;
		struct ib_pd *pd;

		if (!dev)
			continue;
		pd = ib_alloc_pd(dev, 0);
		pool = cqpool_device_pool(dev, IB_POLL_SOFTIRQ);
		race_note(&p, dev, PTR_ERR_OR_ZERO(pool));
		if (!IS_ERR(pd) && !IS_ERR(pool)) {
			qp = cqpool_create_qp(pool, pd, &a, NULL);
			race_note(&p, dev, PTR_ERR_OR_ZERO(qp));
			if (!IS_ERR(qp)) {
				usleep_range(100, 2000);
				WARN_ON(cqpool_destroy_qp(qp));
			}
		}
		if (!IS_ERR(pool))
			cqpool_pool_put(pool);
		if (!IS_ERR(pd))
			ib_dealloc_pd(pd);
		ib_device_put(dev);
		atomic_long_inc(&r->rounds);
	}
	return 0;
}

/**
 * struct race_handler - a device handler that checks when it is called
 * @h: the handler
 * @r: the race
 * @fatal: DEVICE_FATALs it heard
 * @released: set once its unregister has returned, just before it is
 *	freed (see struct race_hook)
 */
struct race_handler {
	struct cqpool_event_handler h;
	struct race *r;
	atomic_t fatal;
	bool released;
};

static void race_handler_event(struct cqpool_event_handler *eh,
			       const struct ib_event *event)
{
	struct race_handler *rh = container_of(eh, struct race_handler, h);

	race_heard(rh->r, &rh->fatal, &rh->released, event);
}

static int race_handlers(void *arg)
{
	struct race_pick p = RACE_PICK_INIT;
	struct race *r = arg;

	while (!READ_ONCE(r->stop)) {
		struct race_handler *rh;
		struct ib_device *dev;
		long err;

		dev = race_device(&p);
		if (!dev)
			continue;
		/* On the heap and freed once unregistered: see race_hook. */
		rh = kzalloc(sizeof(*rh), GFP_KERNEL);
		err = -ENOMEM;
		if (rh) {
			rh->h.handler = race_handler_event;
			rh->h.device = dev;
			rh->r = r;
			err = cqpool_register_event_handler(&rh->h);
		}
		race_note(&p, dev, err);
		if (!err) {
			usleep_range(100, 2000);
			cqpool_unregister_event_handler(&rh->h);
			WRITE_ONCE(rh->released, true);
		}
		kfree(rh);
		ib_device_put(dev);
		atomic_long_inc(&r->rounds);
	}
	return 0;
}

/*
 * Removals seen, of either device: each one re-added is a new ib_device
 * with a new index.
 */
static unsigned int race_watch_removals(struct kunit *test, struct race *r)
{
	unsigned long deadline = jiffies + RACE_ROUND_S * HZ;
	u32 last[ARRAY_SIZE(race_devices)] = { U32_MAX, U32_MAX };
	unsigned int removals = 0;
	unsigned int i;

	while (removals < RACE_PER_ROUND && time_before(jiffies, deadline)) {
		for (i = 0; i < ARRAY_SIZE(race_devices); i++) {
			struct ib_device *dev;

			dev = ib_device_get_by_name(race_devices[i],
						    RDMA_DRIVER_UNKNOWN);
			if (!dev)
				continue;
			if (last[i] != U32_MAX && dev->index != last[i])
				removals++;
			last[i] = dev->index;
			ib_device_put(dev);
		}
		msleep(20);
	}
	return removals;
}

static void consumers_race_device_removal(struct kunit *test)
{
	int (*const fns[])(void *) = { race_reserver, race_reserver, race_qps,
				       race_handlers };
	struct task_struct *tasks[ARRAY_SIZE(fns)];
	struct race *r;
	unsigned int removals;
	int i;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	/*
	 * The consumers run at the lowest priority: what the races need is
	 * removals, each with operations in flight, and at nice 0 four
	 * consumers take most of the two vCPUs from the deletes and re-adds,
	 * which then come rarely.  They still run whenever the
	 * removal waits, and on the other vCPU beside it.
	 */
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		tasks[i] = kthread_create(fns[i], r, "cqpool-race/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(tasks[i]));
		get_task_struct(tasks[i]);
		set_user_nice(tasks[i], MAX_NICE);
		wake_up_process(tasks[i]);
	}
	removals = race_watch_removals(test, r);
	race_removals_seen += removals;
	race_fatal_heard += atomic_long_read(&r->fatal_heard);
	race_rounds_run++;
	race_rounds_overlapped += atomic_long_read(&r->fatal_heard) > 0;
	WRITE_ONCE(r->stop, true);
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
	}

	kunit_info(test, "%u removals, %ld operations, %ld DEVICE_FATAL heard\n",
		   removals, atomic_long_read(&r->rounds),
		   atomic_long_read(&r->fatal_heard));
	KUNIT_EXPECT_GT_MSG(test, removals, 0U,
			    "is the payload's rdma link delete/add loop running?");
	/* The last round: race_rounds_gen() ends the rounds after it. */
	if (*(const int *)test->param_value == RACE_ROUNDS ||
	    race_removals_seen >= RACE_REMOVALS) {
		kunit_info(test, "%u removals in %u rounds, DEVICE_FATAL heard in %u of them\n",
			   race_removals_seen, race_rounds_run,
			   race_rounds_overlapped);
		KUNIT_EXPECT_GE(test, race_removals_seen, RACE_REMOVALS);
		KUNIT_EXPECT_GE_MSG(test, race_rounds_overlapped * 100,
				    race_rounds_run * RACE_OVERLAP_PCT,
				    "too few rounds raced a removal");
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&r->late), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->doubled), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->unheard), 0);
}

static const int race_rounds[RACE_ROUNDS] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
	39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56,
	57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74,
	75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92,
	93, 94, 95, 96,
};

static void race_round_desc(const int *round, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "round %d", *round);
}

/*
 * The rounds, one after the other, until the removals seen reach
 * RACE_REMOVALS or RACE_ROUNDS have run.  A round after the target would
 * race nothing, and 6.1's KUnit prints a skipped parameter as a bare
 * "ok", a pass: so there is none.
 */
static const void *race_rounds_gen(const void *prev, char *desc)
{
	const int *next = prev ? (const int *)prev + 1 : race_rounds;

	if ((prev && race_removals_seen >= RACE_REMOVALS) ||
	    next == race_rounds + RACE_ROUNDS)
		return NULL;
	race_round_desc(next, desc);
	return next;
}

static struct kunit_case race_cases[] = {
	KUNIT_CASE_PARAM(consumers_race_device_removal, race_rounds_gen),
	{}
};

static struct kunit_suite race_suite = {
	.name = "cqpool_removal_races",
	.test_cases = race_cases,
};

kunit_test_suite(race_suite);

MODULE_DESCRIPTION("KUnit: cqpool consumers racing device removal");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CQPOOL_HARNESS);
