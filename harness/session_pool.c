// SPDX-License-Identifier: GPL-2.0
/*
 * A session's owned pools and its reservations: POOL_CREATE and
 * POOL_DESTROY, CQ_GET and CQ_PUT.  A reservation comes from an owned
 * pool, a device's shared pool or upstream's ib_cq_pool_get(), through
 * cq_source.c.
 */
#include <linux/slab.h>
#include "uapi/linux/cqpool.h"
#include <cqpool/cqpool.h>

#include "cq_source.h"
#include "testing.h"
#include "object.h"
#include "session.h"

/**
 * struct cqh_resv_obj - a reservation of a session
 * @obj: its object
 * @owner: the owned pool it is on, which it holds; else NULL
 * @upstream: made with ib_cq_pool_get()
 * @src: where its CQ comes from
 * @cq: its CQ
 * @nr_cqe: its entries
 * @hook: its hook, when it has @obj.counts
 * @upstream_node: an upstream reservation, on the session's @upstream
 *	until given back
 */
struct cqh_resv_obj {
	struct cqh_obj obj;
	struct cqh_pool_obj *owner;
	bool upstream;
	struct cqh_cq_source src;
	struct ib_cq *cq;
	unsigned int nr_cqe;
	struct cqpool_hook hook;
	struct list_head upstream_node;
};

static struct cqh_pool_obj *to_pool_obj(struct cqh_obj *obj)
{
	return container_of(obj, struct cqh_pool_obj, obj);
}

static struct cqh_resv_obj *to_resv_obj(struct cqh_obj *obj)
{
	return container_of(obj, struct cqh_resv_obj, obj);
}

static int cqh_pool_destroy_obj(struct cqh_session *s,
				struct cqh_obj *obj)
{
	struct cqh_pool_obj *p = to_pool_obj(obj);
	int ret;

	lockdep_assert_held(&s->lock);
	if (p->users)
		return -EBUSY;
	ret = cqpool_destroy(p->pool);
	if (!ret)
		p->pool = NULL;
	return ret;
}

static bool cqh_pool_device_gone(struct cqh_session *s,
				 struct cqh_obj *obj)
{
	return cqpool_test_pool_dying(to_pool_obj(obj)->pool);
}

const struct cqh_obj_class cqh_pool_class = {
	.name = "pool",
	.order = 1,
	.destroy = cqh_pool_destroy_obj,
	.device_gone = cqh_pool_device_gone,
};

/**
 * cqh_pool_obj_join() - hold owned pool @id for a new user
 * @s: the session
 * @id: the pool's id
 *
 * Context: under the session's lock.
 * Return: the pool, whose @users now counts the caller, who gives it
 * back with cqh_pool_obj_leave(); or ERR_PTR(-ENOENT) or
 * ERR_PTR(-ENODEV), as cqh_obj_use().
 */
struct cqh_pool_obj *cqh_pool_obj_join(struct cqh_session *s,
				       u32 id)
{
	struct cqh_obj *obj = cqh_obj_use(s, id, &cqh_pool_class);

	if (IS_ERR(obj))
		return ERR_CAST(obj);
	to_pool_obj(obj)->users++;
	return to_pool_obj(obj);
}

/* A user of @p no longer uses it; under the session's lock. */
void cqh_pool_obj_leave(struct cqh_session *s,
			struct cqh_pool_obj *p)
{
	lockdep_assert_held(&s->lock);
	if (p)
		p->users--;
}

int cqh_session_pool_create(struct cqh_session *s, void *arg)
{
	struct cqpool_pool_create *a = arg;
	char device[CQPOOL_NAME_LEN], name[CQPOOL_NAME_LEN];
	struct cqpool_attr attr = {
		.poll_ctx = a->poll_ctx,
		.cq_size = a->cq_size,
		.max_cqs = a->max_cqs,
		.flags = a->flags,
		.name = name,
	};
	struct cqh_pool_obj *p;
	struct ib_device *dev;
	int ret;

	BUILD_BUG_ON(CQPOOL_POOL_NO_SHRINK != CQPOOL_F_NO_SHRINK);
	BUILD_BUG_ON(CQPOOL_NAME_LEN != CQPOOL_NAME_MAX);
	BUILD_BUG_ON(CQPOOL_POOL_NO_RESIZE != CQPOOL_F_NO_RESIZE);
	BUILD_BUG_ON(CQPOOL_POOL_RESIZE != CQPOOL_F_RESIZE);
	if (cqh_name(device, a->device) || cqh_name(name, a->name) ||
	    a->poll_ctx > CQPOOL_POLL_UNBOUND_WORKQUEUE)
		return -EINVAL;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->obj.class = &cqh_pool_class;

	dev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!dev) {
		ret = -ENODEV;
		goto out_free;
	}
	p->pool = cqpool_create(dev, &attr);
	ib_device_put(dev);
	if (IS_ERR(p->pool)) {
		ret = PTR_ERR(p->pool);
		goto out_free;
	}

	mutex_lock(&s->lock);
	ret = cqh_obj_add(s, &p->obj, &a->id);
	mutex_unlock(&s->lock);
	if (ret)
		goto out_destroy;
	return 0;

out_destroy:
	cqpool_destroy(p->pool);
out_free:
	kfree(p);
	return ret;
}

int cqh_session_pool_destroy(struct cqh_session *s, void *arg)
{
	return cqh_obj_destroy(s, ((struct cqpool_destroy *)arg)->id,
				  &cqh_pool_class);
}

/* Atomic context: under the CQ's hook lock. */
static void cqh_resv_hook(struct cqpool_hook *hook,
			  const struct ib_event *event)
{
	cqh_count(container_of(hook, struct cqh_resv_obj,
			       hook)->obj.counts, event->event);
}

static void cqh_resv_put(struct cqh_session *s,
			 struct cqh_resv_obj *r)
{
	bool live;

	if (!r->upstream) {
		cqh_cq_source_put(&r->src, r->cq, r->nr_cqe,
				  r->obj.counts ? &r->hook : NULL);
		cqh_cq_source_exit(&r->src);
		return;
	}
	/* Unless its device's removal gave it back already. */
	mutex_lock(&s->upstream_lock);
	live = !READ_ONCE(r->obj.gone);
	if (live) {
		list_del(&r->upstream_node);
		cqh_cq_source_put(&r->src, r->cq, r->nr_cqe, NULL);
		cqh_cq_source_exit(&r->src);
	}
	mutex_unlock(&s->upstream_lock);
}

static int cqh_resv_destroy_obj(struct cqh_session *s,
				struct cqh_obj *obj)
{
	struct cqh_resv_obj *r = to_resv_obj(obj);

	lockdep_assert_held(&s->lock);
	cqh_pool_obj_leave(s, r->owner);
	r->owner = NULL;
	cqh_resv_put(s, r);
	return 0;
}

static bool cqh_resv_device_gone(struct cqh_session *s,
				 struct cqh_obj *obj)
{
	struct cqh_resv_obj *r = to_resv_obj(obj);
	bool gone;

	if (!r->upstream)
		return cqpool_test_cq_dying(r->cq);
	mutex_lock(&s->upstream_lock);
	gone = READ_ONCE(obj->gone);
	mutex_unlock(&s->upstream_lock);
	return gone;
}

const struct cqh_obj_class cqh_resv_class = {
	.name = "reservation",
	.order = 0,
	.destroy = cqh_resv_destroy_obj,
	.device_gone = cqh_resv_device_gone,
};

/* The device a shared or upstream reservation names, held. */
static struct ib_device *cqh_get_device(const struct cqpool_cq_get *a)
{
	char device[CQPOOL_NAME_LEN];
	struct ib_device *dev;

	if (cqh_name(device, a->device) ||
	    a->poll_ctx > CQPOOL_POLL_UNBOUND_WORKQUEUE)
		return ERR_PTR(-EINVAL);
	dev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	return dev ? dev : ERR_PTR(-ENODEV);
}

/*
 * An upstream reservation is listed where a removal looks, or given back
 * if one has begun (it stops serving the device before it looks).
 */
static struct ib_cq *cqh_upstream_listed(struct cqh_session *s,
					 struct cqh_resv_obj *r,
					    struct ib_cq *cq)
{
	bool served;

	if (IS_ERR(cq))
		return cq;
	mutex_lock(&s->upstream_lock);
	served = cqpool_test_device_served(cq->device);
	if (served)
		list_add_tail(&r->upstream_node, &s->upstream);
	else
		cqh_cq_source_put(&r->src, cq, r->nr_cqe, NULL);
	mutex_unlock(&s->upstream_lock);
	return served ? cq : ERR_PTR(-ENODEV);
}

/*
 * Makes the reservation @a asks for, on an owned pool of the session, a
 * device's shared pool or upstream's; under the session's lock.  On an
 * owned pool, @r holds it.
 */
static struct ib_cq *cqh_session_reserve(struct cqh_session *s,
					 const struct cqpool_cq_get *a,
					    struct cqh_resv_obj *r)
{
	const u32 how = CQPOOL_CQ_GET_SHARED | CQPOOL_CQ_GET_UPSTREAM;
	struct cqpool_hook *hook = r->obj.counts ? &r->hook : NULL;
	struct ib_device *dev = NULL;
	struct ib_cq *cq;
	int ret;

	lockdep_assert_held(&s->lock);
	if ((a->flags & how) == how || a->vector_hint < -1 ||
	    (a->flags & CQPOOL_CQ_GET_TAKEN_OVER && !r->upstream))
		return ERR_PTR(-EINVAL);
	if (!(a->flags & how)) {
		r->owner = cqh_pool_obj_join(s, a->pool_id);
		if (IS_ERR(r->owner)) {
			cq = ERR_CAST(r->owner);
			r->owner = NULL;
			return cq;
		}
		ret = cqh_cq_source_init(&r->src, CQPOOL_CQ_POOL,
					 cqpool_test_pool_device(r->owner->pool),
					    r->owner->pool, a->poll_ctx);
	} else {
		dev = cqh_get_device(a);
		if (IS_ERR(dev))
			return ERR_CAST(dev);
		if (a->flags & CQPOOL_CQ_GET_TAKEN_OVER)
			ret = cqh_cq_source_init_takeover(&r->src, dev,
							  a->poll_ctx,
							     false);
		else
			ret = cqh_cq_source_init(&r->src,
						 r->upstream ?
						    CQPOOL_CQ_UPSTREAM :
						    CQPOOL_CQ_POOL, dev, NULL,
						    a->poll_ctx);
	}
	cq = ret ? ERR_PTR(ret) :
		cqh_cq_source_get(&r->src, a->nr_cqe, a->vector_hint,
				  hook);
	if (r->upstream)
		cq = cqh_upstream_listed(s, r, cq);
	if (IS_ERR(cq)) {
		cqh_cq_source_exit(&r->src);
		cqh_pool_obj_leave(s, r->owner);
		r->owner = NULL;
	}
	if (dev)
		ib_device_put(dev);
	return cq;
}

int cqh_session_cq_get(struct cqh_session *s, void *arg)
{
	struct cqpool_cq_get *a = arg;
	struct cqh_resv_obj *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->obj.class = &cqh_resv_class;
	r->upstream = a->flags & CQPOOL_CQ_GET_UPSTREAM;
	r->nr_cqe = a->nr_cqe;
	if (a->flags & CQPOOL_CQ_GET_HOOK) {
		r->obj.counts = cqh_counts_alloc();
		if (!r->obj.counts) {
			kfree(r);
			return -ENOMEM;
		}
		r->hook.handler = cqh_resv_hook;
	}

	mutex_lock(&s->lock);
	r->cq = cqh_session_reserve(s, a, r);
	if (IS_ERR(r->cq)) {
		ret = PTR_ERR(r->cq);
		goto out_unlock;
	}
	ret = cqh_obj_add(s, &r->obj, &a->id);
	if (ret) {
		cqh_resv_destroy_obj(s, &r->obj);
		goto out_unlock;
	}
	a->cq_id = r->cq->res.id;
	a->vector = r->cq->comp_vector;
	a->cqe = r->cq->cqe;
	mutex_unlock(&s->lock);
	return 0;

out_unlock:
	mutex_unlock(&s->lock);
	cqh_obj_free(&r->obj);
	return ret;
}

int cqh_session_cq_put(struct cqh_session *s, void *arg)
{
	return cqh_obj_destroy(s, ((struct cqpool_destroy *)arg)->id,
				  &cqh_resv_class);
}

/**
 * cqh_session_upstream_removed() - give back upstream reservations
 * @s: the session
 * @ibdev: the device that is going
 *
 * Marks them gone, so that the session will not put them again.
 *
 * Context: process context, from the removal; takes @s's upstream lock
 * only, so it waits for no command.
 */
void cqh_session_upstream_removed(struct cqh_session *s,
				  struct ib_device *ibdev)
{
	struct cqh_resv_obj *r, *next;

	mutex_lock(&s->upstream_lock);
	list_for_each_entry_safe(r, next, &s->upstream, upstream_node) {
		if (r->cq->device != ibdev)
			continue;
		WRITE_ONCE(r->obj.gone, true);
		list_del(&r->upstream_node);
		cqh_cq_source_put(&r->src, r->cq, r->nr_cqe, NULL);
		/* A taken-over source's hold on cqpool's pool goes too. */
		cqh_cq_source_exit(&r->src);
	}
	mutex_unlock(&s->upstream_lock);
}
