// SPDX-License-Identifier: GPL-2.0
/*
 * A session's watches of device events: EVENTS_WATCH and EVENTS_UNWATCH.
 * A watch is a cqpool event handler that counts what reaches it.
 */
#include <linux/slab.h>
#include "uapi/linux/cqpool.h"
#include <cqpool/cqpool.h>

#include "testing.h"
#include "object.h"
#include "session.h"

/**
 * struct cqh_watch_obj - a watch of a session
 * @obj: its object, whose @counts it fills
 * @handler: its device event handler
 */
struct cqh_watch_obj {
	struct cqh_obj obj;
	struct cqpool_event_handler handler;
};

static struct cqh_watch_obj *to_watch_obj(struct cqh_obj *obj)
{
	return container_of(obj, struct cqh_watch_obj, obj);
}

static void cqh_watch_handler(struct cqpool_event_handler *h,
			      const struct ib_event *event)
{
	cqh_count(container_of(h, struct cqh_watch_obj,
			       handler)->obj.counts, event->event);
}

static int cqh_watch_destroy_obj(struct cqh_session *s,
				 struct cqh_obj *obj)
{
	lockdep_assert_held(&s->lock);
	cqpool_unregister_event_handler(&to_watch_obj(obj)->handler);
	return 0;
}

static bool cqh_watch_device_gone(struct cqh_session *s,
				  struct cqh_obj *obj)
{
	return !cqpool_test_device_served(to_watch_obj(obj)->handler.device);
}

const struct cqh_obj_class cqh_watch_class = {
	.name = "watch",
	.order = 0,
	.destroy = cqh_watch_destroy_obj,
	.device_gone = cqh_watch_device_gone,
};

int cqh_session_events_watch(struct cqh_session *s, void *arg)
{
	struct cqpool_events_watch *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqh_watch_obj *w;
	int ret;

	if (cqh_name(device, a->device))
		return -EINVAL;
	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (w)
		w->obj.counts = cqh_counts_alloc();
	if (!w || !w->obj.counts) {
		kfree(w);
		return -ENOMEM;
	}
	w->obj.class = &cqh_watch_class;
	w->handler.event_mask = a->event_mask;
	w->handler.handler = cqh_watch_handler;
	w->handler.device = ib_device_get_by_name(device,
						  RDMA_DRIVER_UNKNOWN);
	if (!w->handler.device) {
		ret = -ENODEV;
		goto out_free;
	}
	ret = cqpool_register_event_handler(&w->handler);
	ib_device_put(w->handler.device);
	if (ret)
		goto out_free;

	mutex_lock(&s->lock);
	ret = cqh_obj_add(s, &w->obj, &a->id);
	mutex_unlock(&s->lock);
	if (!ret)
		return 0;
	cqpool_unregister_event_handler(&w->handler);
out_free:
	cqh_obj_free(&w->obj);
	return ret;
}

int cqh_session_events_unwatch(struct cqh_session *s, void *arg)
{
	return cqh_obj_destroy(s, ((struct cqpool_destroy *)arg)->id,
				  &cqh_watch_class);
}
