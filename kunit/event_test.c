// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: async events on rxe0 and siw0.  An event on a shared CQ reaches
 * every hook attached to it, once, and no other; a QP made by cqpool
 * hears the events of its pooled CQs; device handlers get what their mask
 * accepts; DEVICE_FATAL reaches everyone; and no hook runs after
 * cqpool_cq_put() returns, even with events firing on the other CPU.
 *
 * CQ events are raised the way drivers raise them: by calling the CQ's
 * event_handler with its cq_context.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include <cqpool/cqpool.h>

#include "testing.h"
#include "vm_devices.h"

struct test_hook {
	struct cqpool_hook hook;
	atomic_t calls;
	enum ib_event_type last;
	struct ib_cq *cq;
};

static void test_hook_handler(struct cqpool_hook *hook,
			      const struct ib_event *event)
{
	struct test_hook *t = container_of(hook, struct test_hook, hook);

	t->last = event->event;
	t->cq = event->element.cq;
	atomic_inc(&t->calls);
}

static void test_hook_init(struct test_hook *t)
{
	memset(t, 0, sizeof(*t));
	t->hook.handler = test_hook_handler;
}

struct test_handler {
	struct cqpool_event_handler h;
	int calls;
	enum ib_event_type last;
};

static void test_handler_fn(struct cqpool_event_handler *h,
			    const struct ib_event *event)
{
	struct test_handler *t = container_of(h, struct test_handler, h);

	t->last = event->event;
	t->calls++;
}

/* Raises @type on @cq the way a driver does. */
static void cq_event(struct ib_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->device,
		.element.cq = cq,
		.event = type,
	};

	cq->event_handler(&ev, cq->cq_context);
}

/* One 1023-entry CQ per vector (a size neither driver rounds), kept. */
static struct cqpool *event_pool(struct kunit *test, struct ib_device *dev)
{
	const struct cqpool_attr attr = {
		.poll_ctx = IB_POLL_SOFTIRQ,
		.cq_size = 1023,
		.flags = CQPOOL_F_NO_RESIZE | CQPOOL_F_NO_SHRINK,
		.name = "kunit-events",
	};
	struct cqpool *pool = cqpool_create(dev, &attr);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	return pool;
}

#define NR_HOOKS 8

static void cq_event_reaches_every_hook_on_it_once(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = event_pool(test, dev);
	struct cqpool *other = event_pool(test, dev);
	struct test_hook *t, outsider;
	struct ib_cq *cq[NR_HOOKS], *ocq;
	int i;

	t = kunit_kcalloc(test, NR_HOOKS, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < NR_HOOKS; i++) {
		test_hook_init(&t[i]);
		cq[i] = cqpool_cq_get(pool, 10, 0, &t[i].hook);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq[i]);
		KUNIT_EXPECT_PTR_EQ(test, cq[i], cq[0]);
		KUNIT_EXPECT_PTR_EQ(test, t[i].hook.cq, cq[0]);
	}
	test_hook_init(&outsider);
	ocq = cqpool_cq_get(other, 10, 0, &outsider.hook);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ocq);

	cq_event(cq[0], IB_EVENT_CQ_ERR);
	for (i = 0; i < NR_HOOKS; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&t[i].calls), 1);
		KUNIT_EXPECT_EQ(test, t[i].last, IB_EVENT_CQ_ERR);
		KUNIT_EXPECT_PTR_EQ(test, t[i].cq, cq[0]);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&outsider.calls), 0);

	/* A put detaches its own hook and no other. */
	cqpool_cq_put(cq[0], 10, &t[0].hook);
	cq_event(cq[1], IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, atomic_read(&t[0].calls), 1);
	for (i = 1; i < NR_HOOKS; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&t[i].calls), 2);
		cqpool_cq_put(cq[i], 10, &t[i].hook);
	}
	cqpool_cq_put(ocq, 10, &outsider.hook);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(other), 0);
}

struct qp_events {
	int calls;
	enum ib_event_type last;
	struct ib_cq *cq;
};

static void qp_event_handler(struct ib_event *event, void *context)
{
	struct qp_events *e = context;

	e->calls++;
	e->last = event->event;
	e->cq = event->element.cq;
}

static void qp_hears_the_events_of_its_pooled_cqs(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = event_pool(test, dev);
	struct qp_events e = {};
	struct ib_qp_init_attr init = {
		.event_handler = qp_event_handler,
		.qp_context = &e,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;
	struct ib_pd *pd;
	struct ib_cq *cq;

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	qp = cqpool_create_qp(pool, pd, &init, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	cq = qp->send_cq;

	cq_event(cq, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, e.calls, 1);
	KUNIT_EXPECT_EQ(test, e.last, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_PTR_EQ(test, e.cq, cq);

	/* The pool keeps the CQ (NO_SHRINK): events on it reach nobody now. */
	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	cq_event(cq, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, e.calls, 1);
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

/*
 * Separate reservations for the send and the receive queue that land on
 * one CQ: the QP hears each of its events once, not once per hook.
 */
static void qp_with_separate_cqs_on_one_cq_hears_an_event_once(struct kunit *test)
{
	const struct cqpool_qp_attr qattr = {
		.vector_hint = 0, .cpu_hint = -1,
		.flags = CQPOOL_QP_SEPARATE_CQS,
	};
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = event_pool(test, dev);
	struct qp_events e = {};
	struct ib_qp_init_attr init = {
		.event_handler = qp_event_handler,
		.qp_context = &e,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;
	struct ib_pd *pd;

	pd = ib_alloc_pd(dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	qp = cqpool_create_qp(pool, pd, &init, &qattr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	/* One 1023-entry CQ on vector 0 holds both. */
	KUNIT_ASSERT_PTR_EQ(test, qp->send_cq, qp->recv_cq);

	cq_event(qp->send_cq, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, e.calls, 1);
	KUNIT_EXPECT_EQ(test, e.last, IB_EVENT_CQ_ERR);
	KUNIT_EXPECT_EQ(test, cqpool_destroy_qp(qp), 0);
	ib_dealloc_pd(pd);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static void device_handlers_get_what_their_mask_accepts(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct ib_event ev = { .device = dev, .element.port_num = 1 };
	struct test_handler port = {}, all = {}, gid = {};

	port.h = (struct cqpool_event_handler){
		.device = dev, .event_mask = BIT_ULL(IB_EVENT_PORT_ERR),
		.handler = test_handler_fn };
	all.h = (struct cqpool_event_handler){
		.device = dev, .handler = test_handler_fn };
	gid.h = (struct cqpool_event_handler){
		.device = dev, .event_mask = BIT_ULL(IB_EVENT_GID_CHANGE),
		.handler = test_handler_fn };
	KUNIT_ASSERT_EQ(test, cqpool_register_event_handler(&port.h), 0);
	KUNIT_ASSERT_EQ(test, cqpool_register_event_handler(&all.h), 0);
	KUNIT_ASSERT_EQ(test, cqpool_register_event_handler(&gid.h), 0);

	ev.event = IB_EVENT_PORT_ERR;
	KUNIT_EXPECT_EQ(test, cqpool_test_dispatch(dev, &ev), 0);
	ev.event = IB_EVENT_GID_CHANGE;
	KUNIT_EXPECT_EQ(test, cqpool_test_dispatch(dev, &ev), 0);
	KUNIT_EXPECT_EQ(test, port.calls, 1);
	KUNIT_EXPECT_EQ(test, port.last, IB_EVENT_PORT_ERR);
	KUNIT_EXPECT_EQ(test, all.calls, 2);
	KUNIT_EXPECT_EQ(test, gid.calls, 1);
	KUNIT_EXPECT_EQ(test, gid.last, IB_EVENT_GID_CHANGE);

	cqpool_unregister_event_handler(&port.h);
	cqpool_unregister_event_handler(&all.h);
	cqpool_unregister_event_handler(&gid.h);
	KUNIT_EXPECT_EQ(test, cqpool_test_dispatch(dev, &ev), 0);
	KUNIT_EXPECT_EQ(test, all.calls, 2);
	KUNIT_EXPECT_EQ(test, gid.calls, 1);
}

static void device_fatal_reaches_hooks_and_handlers(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = event_pool(test, dev);
	struct ib_event ev = { .device = dev,
			       .event = IB_EVENT_DEVICE_FATAL };
	struct test_handler port = {};
	struct test_hook t;
	struct ib_cq *cq;

	test_hook_init(&t);
	cq = cqpool_cq_get(pool, 4, 1, &t.hook);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	port.h = (struct cqpool_event_handler){
		.device = dev, .event_mask = BIT_ULL(IB_EVENT_DEVICE_FATAL),
		.handler = test_handler_fn };
	KUNIT_ASSERT_EQ(test, cqpool_register_event_handler(&port.h), 0);

	KUNIT_EXPECT_EQ(test, cqpool_test_dispatch(dev, &ev), 0);
	KUNIT_EXPECT_EQ(test, port.calls, 1);
	KUNIT_EXPECT_EQ(test, port.last, IB_EVENT_DEVICE_FATAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t.calls), 1);
	KUNIT_EXPECT_EQ(test, t.last, IB_EVENT_DEVICE_FATAL);
	KUNIT_EXPECT_PTR_EQ(test, t.cq, cq);

	cqpool_unregister_event_handler(&port.h);
	cqpool_cq_put(cq, 4, &t.hook);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

struct racer {
	struct ib_cq *cq;
	unsigned long fired;
};

static int racer_fn(void *arg)
{
	struct racer *r = arg;

	while (!kthread_should_stop()) {
		cq_event(r->cq, IB_EVENT_CQ_ERR);
		r->fired++;
		cond_resched();
	}
	return 0;
}

#define RACE_ROUNDS 2000

/*
 * Events fire on the CQ from another thread (the other CPU) while hooks
 * come and go.  Each hook lives in memory freed as soon as its put
 * returns, so a call after that is a use-after-free KASAN reports.
 */
static void no_hook_runs_after_its_put_returns(struct kunit *test)
{
	struct ib_device *dev = vm_device(test);
	struct cqpool *pool = event_pool(test, dev);
	struct task_struct *task;
	struct racer r = {};
	int i, heard = 0;

	/* An anchor keeps the CQ the racer fires on. */
	r.cq = cqpool_cq_get(pool, 1, 0, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r.cq);
	task = kthread_run(racer_fn, &r, "cqpool-racer");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);

	for (i = 0; i < RACE_ROUNDS; i++) {
		struct test_hook *t = kmalloc(sizeof(*t), GFP_KERNEL);
		struct ib_cq *cq;

		if (!t)
			break;
		test_hook_init(t);
		cq = cqpool_cq_get(pool, 1, 0, &t->hook);
		if (IS_ERR(cq)) {
			kfree(t);
			KUNIT_FAIL(test, "get failed: %ld", PTR_ERR(cq));
			break;
		}
		KUNIT_EXPECT_PTR_EQ(test, cq, r.cq);
		if (i % 16 == 0)
			usleep_range(20, 40);	/* give the racer a window */
		cqpool_cq_put(cq, 1, &t->hook);
		heard += !!atomic_read(&t->calls);
		kfree(t);
	}
	kthread_stop(task);
	cqpool_cq_put(r.cq, 1, NULL);
	KUNIT_EXPECT_EQ(test, i, RACE_ROUNDS);
	/* The race really ran: events reached some of the hooks. */
	KUNIT_EXPECT_GT(test, r.fired, 0UL);
	KUNIT_EXPECT_GT(test, heard, 0);
	KUNIT_EXPECT_EQ(test, cqpool_destroy(pool), 0);
}

static struct kunit_case event_cases[] = {
	KUNIT_CASE_PARAM(cq_event_reaches_every_hook_on_it_once,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(qp_hears_the_events_of_its_pooled_cqs,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(qp_with_separate_cqs_on_one_cq_hears_an_event_once,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(device_handlers_get_what_their_mask_accepts,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(device_fatal_reaches_hooks_and_handlers,
			 vm_devices_gen_params),
	KUNIT_CASE_PARAM(no_hook_runs_after_its_put_returns,
			 vm_devices_gen_params),
	{}
};

static struct kunit_suite event_suite = {
	.name = "cqpool_events",
	.exit = vm_device_exit,
	.test_cases = event_cases,
};

kunit_test_suite(event_suite);
