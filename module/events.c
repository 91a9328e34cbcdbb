// SPDX-License-Identifier: GPL-2.0
/*
 * Async events: hooks on pooled CQs (an event on a shared CQ reaches every
 * consumer attached to it), and a per-device list of handlers for
 * unaffiliated events, with a mask each.  Upstream gives pooled CQs no
 * event handler at all, so a CQ error on a shared CQ reaches nobody.
 *
 * "Never called after removal" comes from calling hooks under their CQ's
 * hooks_lock and device handlers under handlers_rwsem: removal takes the
 * same lock, so it waits for a call in progress on another CPU and no
 * call can start after it.
 */
#include <linux/module.h>
#include <linux/string.h>

#include "cqpool_internal.h"
#include "cqpool_trace.h"

/* Calls every hook of @ccq; any context. */
static void cqpool_cq_fanout(struct cqpool_cq *ccq,
			     const struct ib_event *event)
{
	unsigned int delivered = 0;
	struct cqpool_hook *hook;
	unsigned long flags;

	spin_lock_irqsave(&ccq->hooks_lock, flags);
	ccq->ev_received++;
	list_for_each_entry(hook, &ccq->hooks, node) {
		hook->handler(hook, event);
		delivered++;
	}
	ccq->ev_delivered += delivered;
	trace_cqpool_cq_event(ccq, event->event, delivered);
	spin_unlock_irqrestore(&ccq->hooks_lock, flags);
}

/*
 * The event handler of every pooled CQ; drivers call it in any context.
 * Not static: cqpool_cq_of() knows a pooled CQ by it.
 */
void cqpool_cq_event(struct ib_event *event, void *context)
{
	cqpool_cq_fanout(context, event);
}

void cqpool_cq_events_init(struct cqpool_cq *ccq)
{
	spin_lock_init(&ccq->hooks_lock);
	INIT_LIST_HEAD(&ccq->hooks);
	ccq->cq->event_handler = cqpool_cq_event;
}

void cqpool_hook_attach(struct cqpool_cq *ccq, struct cqpool_hook *hook)
{
	unsigned long flags;

	hook->cq = ccq->cq;
	spin_lock_irqsave(&ccq->hooks_lock, flags);
	list_add_tail(&hook->node, &ccq->hooks);
	spin_unlock_irqrestore(&ccq->hooks_lock, flags);
}

/* Once this returns, no CPU is calling @hook and none will. */
void cqpool_hook_detach(struct cqpool_cq *ccq, struct cqpool_hook *hook)
{
	unsigned long flags;

	spin_lock_irqsave(&ccq->hooks_lock, flags);
	list_del(&hook->node);
	spin_unlock_irqrestore(&ccq->hooks_lock, flags);
	hook->cq = NULL;
}

/*
 * DEVICE_FATAL to the hooks of every CQ of every pool of the device.  At
 * removal (@dying) each pool is marked dying in the same hold of its lock,
 * so that a hook is either attached before and hears it, or its get fails.
 */
static void cqpool_fatal_to_hooks(struct cqpool_dev *cdev,
				  const struct ib_event *fatal, bool dying)
{
	struct ib_event event = *fatal;
	struct cqpool_cq *ccq;
	struct cqpool *pool;

	mutex_lock(&cdev->lock);
	list_for_each_entry(pool, &cdev->pools, node) {
		cqpool_lock(pool);
		if (dying)
			cqpool_pool_mark_dying(pool);
		list_for_each_entry(ccq, &pool->cqs, node) {
			event.element.cq = ccq->cq;
			cqpool_cq_fanout(ccq, &event);
		}
		cqpool_unlock(pool);
	}
	mutex_unlock(&cdev->lock);
}

/* To every device handler whose mask accepts @event. */
static void cqpool_to_handlers(struct cqpool_dev *cdev,
			       const struct ib_event *event)
{
	const u64 bit = event->event < 64 ? BIT_ULL(event->event) : 0;
	unsigned int delivered = 0, masked = 0;
	struct cqpool_event_handler *h;

	atomic64_inc(&cdev->ev_received);
	down_read(&cdev->handlers_rwsem);
	list_for_each_entry(h, &cdev->handlers, node) {
		if (h->event_mask && !(h->event_mask & bit)) {
			masked++;
			continue;
		}
		h->handler(h, event);
		delivered++;
	}
	atomic64_add(masked, &cdev->ev_masked);
	atomic64_add(delivered, &cdev->ev_delivered);
	trace_cqpool_device_event(cdev->ibdev, event->event, delivered,
				  masked);
	up_read(&cdev->handlers_rwsem);
}

/**
 * cqpool_dispatch_device_event() - deliver an unaffiliated event
 * @cdev: the device
 * @event: the event
 *
 * To every device handler whose mask accepts it; DEVICE_FATAL also to
 * every hook on the device's pooled CQs.
 *
 * Context: process context; ib_core may call it with the GID table's
 * mutex or rtnl_lock held (GID_CHANGE is dispatched synchronously).
 */
void cqpool_dispatch_device_event(struct cqpool_dev *cdev,
				  const struct ib_event *event)
{
	cqpool_to_handlers(cdev, event);
	if (event->event == IB_EVENT_DEVICE_FATAL)
		cqpool_fatal_to_hooks(cdev, event, false);
}

/**
 * cqpool_events_removal() - the device is going: mark it, tell everyone
 * @cdev: the device, from its ib_client remove
 *
 * The record is marked dying under both locks that registration and
 * pool creation check it under, then every device handler and every hook
 * hears IB_EVENT_DEVICE_FATAL once, and every pool is marked dying.
 * Waits for nobody but handlers and hooks already running.
 *
 * Context: process context.
 */
void cqpool_events_removal(struct cqpool_dev *cdev)
{
	const struct ib_event fatal = {
		.device = cdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};

	down_write(&cdev->handlers_rwsem);
	mutex_lock(&cdev->lock);
	cdev->dying = true;
	mutex_unlock(&cdev->lock);
	up_write(&cdev->handlers_rwsem);

	cqpool_to_handlers(cdev, &fatal);
	cqpool_fatal_to_hooks(cdev, &fatal, true);
}

static void cqpool_ib_event(struct ib_event_handler *ih,
			    struct ib_event *event)
{
	cqpool_dispatch_device_event(container_of(ih, struct cqpool_dev,
						  ib_handler), event);
}

void cqpool_events_init(struct cqpool_dev *cdev)
{
	lockdep_register_key(&cdev->handlers_key);
	__init_rwsem(&cdev->handlers_rwsem, "&cdev->handlers_rwsem",
		     &cdev->handlers_key);
	INIT_LIST_HEAD(&cdev->handlers);
	INIT_IB_EVENT_HANDLER(&cdev->ib_handler, cdev->ibdev, cqpool_ib_event);
	ib_register_event_handler(&cdev->ib_handler);
}

void cqpool_events_exit(struct cqpool_dev *cdev)
{
	ib_unregister_event_handler(&cdev->ib_handler);
}

/* Once the record is unreachable: before it is freed.  May sleep. */
void cqpool_events_free(struct cqpool_dev *cdev)
{
	lockdep_unregister_key(&cdev->handlers_key);
}

/**
 * cqpool_register_event_handler() - handle a device's unaffiliated events
 * @h: the handler, with @h->device, @h->event_mask and @h->handler set
 *
 * @h->handler runs in process context for each event @h->event_mask
 * accepts (PORT_ACTIVE/ERR, GID_CHANGE, LID/PKEY/SM changes,
 * CLIENT_REREGISTER, DEVICE_FATAL, ...).  When the device goes away it
 * receives DEVICE_FATAL once; until @h is unregistered cqpool holds the
 * device, whose unregistration waits for that.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL without a handler or with a mask bit past the last
 * event ib_core has (IB_EVENT_WQ_FATAL), -ENODEV if cqpool does not (or
 * no longer) serve the device.
 */
int cqpool_register_event_handler(struct cqpool_event_handler *h)
{
	struct cqpool_dev *cdev;
	int ret = 0;

	might_sleep();
	if (!h->handler || !h->device ||
	    (h->event_mask & ~GENMASK_ULL(IB_EVENT_WQ_FATAL, 0)))
		return -EINVAL;
	cdev = cqpool_dev_find(h->device);
	if (!cdev)
		return -ENODEV;

	/*
	 * Checked under the lock the removal marks it under before it sends
	 * DEVICE_FATAL: @h is on the list in time to hear it, or refused.
	 */
	down_write(&cdev->handlers_rwsem);
	if (cdev->dying)
		ret = -ENODEV;
	else
		list_add_tail(&h->node, &cdev->handlers);
	up_write(&cdev->handlers_rwsem);
	if (ret) {
		cqpool_dev_put(cdev);
		return ret;
	}
	/* The reference cqpool_dev_find() took is @h's until unregistered. */
	h->cdev = cdev;
	return 0;
}
EXPORT_SYMBOL_GPL(cqpool_register_event_handler);

/**
 * cqpool_unregister_event_handler() - undo cqpool_register_event_handler()
 * @h: the handler
 *
 * Once this returns, @h->handler is not running and will not be called
 * again.  Also after the device was removed.
 *
 * Context: process context; may sleep.  Not from @h->handler itself.
 */
void cqpool_unregister_event_handler(struct cqpool_event_handler *h)
{
	struct cqpool_dev *cdev = h->cdev;

	might_sleep();
	down_write(&cdev->handlers_rwsem);
	list_del(&h->node);
	up_write(&cdev->handlers_rwsem);
	h->cdev = NULL;
	cqpool_dev_put(cdev);
}
EXPORT_SYMBOL_GPL(cqpool_unregister_event_handler);

