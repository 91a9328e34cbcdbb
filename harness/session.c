// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions of /dev/cqpool.  Every object made through a file descriptor
 * is released when it closes, so a killed harness leaks nothing.
 *
 * A session is a consumer like any other: when a device goes, it is told
 * (cqpool_sessions_device_removed(), from cqpool's ib_client remove) and
 * gives back what it made on it, as uverbs does for userspace.  Its
 * upstream reservations go back at once, before ib_core cleans its own
 * pool; the rest goes from a work item, since a command in progress holds
 * the session's lock.  Those objects stay, given back ("gone"), until the
 * caller puts or destroys them: their event counts can still be read,
 * anything else they are used for fails with ENODEV.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <uapi/linux/cqpool.h>
#include <cqpool/takeover.h>
#include <cqpool/cqpool.h>

#include "conn.h"
#include "cq_source.h"
#include "cqpool_harness.h"
#include "session.h"

enum cqpool_obj_kind {
	CQPOOL_OBJ_POOL,
	CQPOOL_OBJ_RESV,
	CQPOOL_OBJ_WATCH,
	CQPOOL_OBJ_CONN,
};

/* Events delivered to a hook or a watch, by enum ib_event_type. */
struct cqpool_counts {
	atomic64_t n[CQPOOL_NR_EVENTS];
};

/**
 * struct cqpool_obj - a pool, a reservation or a watch of a session
 * @kind: which
 * @pool: the pool (the pool reserved on, for a reservation)
 * @pool_id: for a reservation or a connection on an owned pool, that
 *	pool's id; else 0
 * @upstream: a reservation made with ib_cq_pool_get()
 * @src: where a reservation's CQ comes from
 * @cq: a reservation's CQ
 * @nr_cqe: a reservation's entries
 * @users: for a pool, the session's reservations and connections on it
 * @counts: for a watch or a reservation with a hook, what reached it
 * @hook: a reservation's hook, when it has @counts
 * @handler: a watch's device event handler
 * @conn: a connection
 * @upstream_node: an upstream reservation, on the session's @upstream
 *	until given back
 * @busy: a connection a TRAFFIC runs on, which nothing else may touch
 *	until it ends; under the session's @lock
 * @gone: given back, because its device went: nothing is left but its
 *	id and @counts.  For an upstream reservation, under the session's
 *	@upstream_lock; else under its @lock.
 */
struct cqpool_obj {
	enum cqpool_obj_kind kind;
	struct cqpool *pool;
	u32 pool_id;
	bool upstream;
	struct cqpool_cq_source src;
	struct ib_cq *cq;
	unsigned int nr_cqe;
	unsigned int users;
	struct cqpool_counts *counts;
	struct cqpool_hook hook;
	struct cqpool_event_handler handler;
	struct cqpool_conn *conn;
	struct list_head upstream_node;
	bool busy;
	bool gone;
};

static void cqpool_count(struct cqpool_counts *c, enum ib_event_type type)
{
	if ((unsigned int)type < CQPOOL_NR_EVENTS)
		atomic64_inc(&c->n[type]);
}

/* Atomic context: under the CQ's hook lock. */
static void cqpool_obj_hook(struct cqpool_hook *hook,
			    const struct ib_event *event)
{
	cqpool_count(container_of(hook, struct cqpool_obj, hook)->counts,
		     event->event);
}

static void cqpool_obj_handler(struct cqpool_event_handler *h,
			       const struct ib_event *event)
{
	cqpool_count(container_of(h, struct cqpool_obj, handler)->counts,
		     event->event);
}

/**
 * struct cqpool_session - one open /dev/cqpool
 * @lock: protects the session's objects and counts.  Never held across
 *	anything slow: a connection's setup and a TRAFFIC run happen
 *	outside it, so that every other command of the file, and a
 *	device's removal, waits for no more than a list change
 * @objs: struct cqpool_obj by id, from 1; under @lock
 * @count: entries in @objs, and connections being made; under @lock
 * @bytes: traffic buffers of its connections, made or being made;
 *	under @lock
 * @run: the traffic run of CQPOOL_IOC_TRAFFIC, one at a time
 * @running: @run is in use; under @lock
 * @node: on cqpool_sessions
 * @upstream_lock: protects @upstream and the @gone of what is on it;
 *	held only across a list change and upstream's put, never across a
 *	command, so that a removal waiting for it waits for no command
 * @upstream: its upstream reservations not yet given back
 * @gone_work: gives back what the session has on removed devices
 */
struct cqpool_session {
	struct mutex lock;		/* see above */
	struct xarray objs;
	unsigned int count;
	u64 bytes;
	struct cqpool_run run;
	bool running;
	struct list_head node;
	struct mutex upstream_lock;	/* see above */
	struct list_head upstream;
	struct work_struct gone_work;
};

/* Every session, for device removal; never held across a command. */
static DEFINE_MUTEX(cqpool_sessions_mutex);
static LIST_HEAD(cqpool_sessions);

/* What all sessions hold, against the limits across file descriptors. */
static atomic_t cqpool_all_objects = ATOMIC_INIT(0);
static atomic64_t cqpool_all_bytes = ATOMIC64_INIT(0);

/*
 * Charges @objs objects and @bytes of buffers to the session and to all
 * of them: 0, or -ENOSPC with nothing charged.
 */
static int cqpool_charge(struct cqpool_session *s, unsigned int objs,
			 u64 bytes)
{
	lockdep_assert_held(&s->lock);
	if (s->count + objs > CQPOOL_MAX_FD_OBJECTS ||
	    s->bytes + bytes > CQPOOL_MAX_FD_BYTES)
		return -ENOSPC;
	if (atomic_add_return(objs, &cqpool_all_objects) > CQPOOL_MAX_OBJECTS) {
		atomic_sub(objs, &cqpool_all_objects);
		return -ENOSPC;
	}
	if (atomic64_add_return(bytes, &cqpool_all_bytes) > CQPOOL_MAX_BYTES) {
		atomic64_sub(bytes, &cqpool_all_bytes);
		atomic_sub(objs, &cqpool_all_objects);
		return -ENOSPC;
	}
	s->count += objs;
	s->bytes += bytes;
	return 0;
}

static void cqpool_uncharge(struct cqpool_session *s, unsigned int objs,
			    u64 bytes)
{
	lockdep_assert_held(&s->lock);
	s->count -= objs;
	s->bytes -= bytes;
	atomic_sub(objs, &cqpool_all_objects);
	atomic64_sub(bytes, &cqpool_all_bytes);
}

static void cqpool_session_gone_work(struct work_struct *work);

struct cqpool_session *cqpool_session_create(void)
{
	struct cqpool_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	xa_init_flags(&s->objs, XA_FLAGS_ALLOC1);
	init_completion(&s->run.done);
	mutex_init(&s->upstream_lock);
	INIT_LIST_HEAD(&s->upstream);
	INIT_WORK(&s->gone_work, cqpool_session_gone_work);
	mutex_lock(&cqpool_sessions_mutex);
	list_add_tail(&s->node, &cqpool_sessions);
	mutex_unlock(&cqpool_sessions_mutex);
	return s;
}

static int cqpool_obj_add(struct cqpool_session *s, struct cqpool_obj *obj,
			  u32 *id)
{
	int ret;

	ret = cqpool_charge(s, 1, 0);
	if (ret)
		return ret;
	ret = xa_alloc(&s->objs, id, obj, xa_limit_31b, GFP_KERNEL_ACCOUNT);
	if (ret)
		cqpool_uncharge(s, 1, 0);
	return ret;
}

static struct cqpool_obj *cqpool_obj_find(struct cqpool_session *s, u32 id,
					  enum cqpool_obj_kind kind)
{
	struct cqpool_obj *obj;

	lockdep_assert_held(&s->lock);
	obj = xa_load(&s->objs, id);
	return obj && obj->kind == kind ? obj : NULL;
}

/* The object @id of @kind to use: ERR_PTR(-ENODEV) once it is gone. */
static struct cqpool_obj *cqpool_obj_use(struct cqpool_session *s, u32 id,
					 enum cqpool_obj_kind kind)
{
	struct cqpool_obj *obj = cqpool_obj_find(s, id, kind);

	if (!obj)
		return ERR_PTR(-ENOENT);
	return READ_ONCE(obj->gone) ? ERR_PTR(-ENODEV) : obj;
}

static void cqpool_resv_put(struct cqpool_session *s, struct cqpool_obj *obj)
{
	bool live;

	if (!obj->upstream) {
		cqpool_cq_source_put(&obj->src, obj->cq, obj->nr_cqe,
				     obj->counts ? &obj->hook : NULL);
		cqpool_cq_source_exit(&obj->src);
		return;
	}
	/* Unless its device's removal gave it back already. */
	mutex_lock(&s->upstream_lock);
	live = !READ_ONCE(obj->gone);
	if (live) {
		list_del(&obj->upstream_node);
		cqpool_cq_source_put(&obj->src, obj->cq, obj->nr_cqe, NULL);
	}
	mutex_unlock(&s->upstream_lock);
}

static void cqpool_obj_free(struct cqpool_obj *obj)
{
	kfree(obj->counts);
	kfree(obj);
}

static void cqpool_obj_remove(struct cqpool_session *s, u32 id)
{
	lockdep_assert_held(&s->lock);
	cqpool_obj_free(xa_erase(&s->objs, id));
	cqpool_uncharge(s, 1, 0);
}

/* Copies a NUL-terminated name out of a fixed uapi array. */
static int cqpool_name(char *dst, const char *src)
{
	if (!memchr(src, 0, CQPOOL_NAME_LEN))
		return -EINVAL;
	strscpy(dst, src, CQPOOL_NAME_LEN);
	return 0;
}

int cqpool_session_pool_create(struct cqpool_session *s, void *arg)
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
	struct ib_device *dev;
	struct cqpool_obj *obj;
	int ret;

	BUILD_BUG_ON(CQPOOL_POOL_NO_SHRINK != CQPOOL_F_NO_SHRINK);
	BUILD_BUG_ON(CQPOOL_NAME_LEN != CQPOOL_NAME_MAX);
	BUILD_BUG_ON(CQPOOL_POOL_NO_RESIZE != CQPOOL_F_NO_RESIZE);
	if (cqpool_name(device, a->device) || cqpool_name(name, a->name) ||
	    a->poll_ctx > CQPOOL_POLL_UNBOUND_WORKQUEUE)
		return -EINVAL;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (!obj)
		return -ENOMEM;
	obj->kind = CQPOOL_OBJ_POOL;

	dev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	if (!dev) {
		ret = -ENODEV;
		goto out_free;
	}
	obj->pool = cqpool_create(dev, &attr);
	ib_device_put(dev);
	if (IS_ERR(obj->pool)) {
		ret = PTR_ERR(obj->pool);
		goto out_free;
	}

	mutex_lock(&s->lock);
	ret = cqpool_obj_add(s, obj, &a->id);
	mutex_unlock(&s->lock);
	if (ret)
		goto out_destroy;
	return 0;

out_destroy:
	cqpool_destroy(obj->pool);
out_free:
	kfree(obj);
	return ret;
}

int cqpool_session_pool_destroy(struct cqpool_session *s, void *arg)
{
	struct cqpool_destroy *a = arg;
	struct cqpool_obj *obj;
	int ret = -ENOENT;

	mutex_lock(&s->lock);
	obj = cqpool_obj_find(s, a->id, CQPOOL_OBJ_POOL);
	if (obj) {
		ret = obj->users ? -EBUSY :
			READ_ONCE(obj->gone) ? 0 : cqpool_destroy(obj->pool);
		if (!ret)
			cqpool_obj_remove(s, a->id);
	}
	mutex_unlock(&s->lock);
	return ret;
}

/* The device a shared or upstream reservation names, held. */
static struct ib_device *cqpool_get_device(const struct cqpool_cq_get *a)
{
	char device[CQPOOL_NAME_LEN];
	struct ib_device *dev;

	if (cqpool_name(device, a->device) ||
	    a->poll_ctx > CQPOOL_POLL_UNBOUND_WORKQUEUE)
		return ERR_PTR(-EINVAL);
	dev = ib_device_get_by_name(device, RDMA_DRIVER_UNKNOWN);
	return dev ? dev : ERR_PTR(-ENODEV);
}

/*
 * An upstream reservation is listed where a removal looks, or given back
 * if one has begun (it stops serving the device before it looks).
 */
static struct ib_cq *cqpool_upstream_listed(struct cqpool_session *s,
					    struct cqpool_obj *obj,
					    struct ib_cq *cq)
{
	bool served;

	if (IS_ERR(cq))
		return cq;
	mutex_lock(&s->upstream_lock);
	served = cqpool_device_served(cq->device);
	if (served)
		list_add_tail(&obj->upstream_node, &s->upstream);
	else
		cqpool_cq_source_put(&obj->src, cq, obj->nr_cqe, NULL);
	mutex_unlock(&s->upstream_lock);
	return served ? cq : ERR_PTR(-ENODEV);
}

/*
 * Makes the reservation @a asks for, on an owned pool of the session, a
 * device's shared pool or upstream's; under the session's lock.
 */
static struct ib_cq *cqpool_session_reserve(struct cqpool_session *s,
					    const struct cqpool_cq_get *a,
					    struct cqpool_obj *obj,
					    struct cqpool_obj **owner)
{
	const u32 how = CQPOOL_CQ_GET_SHARED | CQPOOL_CQ_GET_UPSTREAM;
	struct cqpool_hook *hook = obj->counts ? &obj->hook : NULL;
	struct ib_device *dev = NULL;
	struct ib_cq *cq;
	int ret;

	lockdep_assert_held(&s->lock);
	*owner = NULL;
	if ((a->flags & how) == how || a->vector_hint < -1)
		return ERR_PTR(-EINVAL);
	if (!(a->flags & how)) {
		*owner = cqpool_obj_use(s, a->pool_id, CQPOOL_OBJ_POOL);
		if (IS_ERR(*owner)) {
			cq = ERR_CAST(*owner);
			*owner = NULL;
			return cq;
		}
		ret = cqpool_cq_source_init(&obj->src, CQPOOL_CQ_POOL,
					    cqpool_pool_device((*owner)->pool),
					    (*owner)->pool, a->poll_ctx);
	} else {
		dev = cqpool_get_device(a);
		if (IS_ERR(dev))
			return ERR_CAST(dev);
		ret = cqpool_cq_source_init(&obj->src,
					    obj->upstream ? CQPOOL_CQ_UPSTREAM :
					    CQPOOL_CQ_POOL, dev, NULL,
					    a->poll_ctx);
	}
	cq = ret ? ERR_PTR(ret) :
		cqpool_cq_source_get(&obj->src, a->nr_cqe, a->vector_hint,
				     hook);
	if (obj->upstream)
		cq = cqpool_upstream_listed(s, obj, cq);
	if (IS_ERR(cq))
		cqpool_cq_source_exit(&obj->src);
	if (dev)
		ib_device_put(dev);
	if (IS_ERR(cq))
		*owner = NULL;
	return cq;
}

int cqpool_session_cq_get(struct cqpool_session *s, void *arg)
{
	struct cqpool_cq_get *a = arg;
	struct cqpool_obj *obj, *owner;
	int ret;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (!obj)
		return -ENOMEM;
	obj->kind = CQPOOL_OBJ_RESV;
	obj->upstream = a->flags & CQPOOL_CQ_GET_UPSTREAM;
	obj->nr_cqe = a->nr_cqe;
	if (a->flags & CQPOOL_CQ_GET_HOOK) {
		obj->counts = kzalloc(sizeof(*obj->counts), GFP_KERNEL_ACCOUNT);
		if (!obj->counts) {
			kfree(obj);
			return -ENOMEM;
		}
		obj->hook.handler = cqpool_obj_hook;
	}

	mutex_lock(&s->lock);
	obj->cq = cqpool_session_reserve(s, a, obj, &owner);
	if (IS_ERR(obj->cq)) {
		ret = PTR_ERR(obj->cq);
		goto out_unlock;
	}
	ret = cqpool_obj_add(s, obj, &a->id);
	if (ret) {
		cqpool_resv_put(s, obj);
		goto out_unlock;
	}
	if (owner) {
		owner->users++;
		obj->pool_id = a->pool_id;
	}
	a->cq_id = obj->cq->res.id;
	a->vector = obj->cq->comp_vector;
	a->cqe = obj->cq->cqe;
	mutex_unlock(&s->lock);
	return 0;

out_unlock:
	mutex_unlock(&s->lock);
	cqpool_obj_free(obj);
	return ret;
}

/* @obj no longer uses the owned pool it was made on; under the lock. */
static void cqpool_obj_leave_pool(struct cqpool_session *s,
				  struct cqpool_obj *obj)
{
	lockdep_assert_held(&s->lock);
	if (obj->pool_id)
		cqpool_obj_find(s, obj->pool_id, CQPOOL_OBJ_POOL)->users--;
}

/* Gives back a reservation; under the session's lock. */
static void cqpool_resv_release(struct cqpool_session *s,
				struct cqpool_obj *obj)
{
	cqpool_obj_leave_pool(s, obj);
	cqpool_resv_put(s, obj);
}

int cqpool_session_events_watch(struct cqpool_session *s, void *arg)
{
	struct cqpool_events_watch *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqpool_obj *obj;
	int ret;

	if (cqpool_name(device, a->device))
		return -EINVAL;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (obj)
		obj->counts = kzalloc(sizeof(*obj->counts), GFP_KERNEL_ACCOUNT);
	if (!obj || !obj->counts) {
		kfree(obj);
		return -ENOMEM;
	}
	obj->kind = CQPOOL_OBJ_WATCH;
	obj->handler.event_mask = a->event_mask;
	obj->handler.handler = cqpool_obj_handler;
	obj->handler.device = ib_device_get_by_name(device,
						    RDMA_DRIVER_UNKNOWN);
	if (!obj->handler.device) {
		ret = -ENODEV;
		goto out_free;
	}
	ret = cqpool_register_event_handler(&obj->handler);
	ib_device_put(obj->handler.device);
	if (ret)
		goto out_free;

	mutex_lock(&s->lock);
	ret = cqpool_obj_add(s, obj, &a->id);
	mutex_unlock(&s->lock);
	if (!ret)
		return 0;
	cqpool_unregister_event_handler(&obj->handler);
out_free:
	cqpool_obj_free(obj);
	return ret;
}

/* Disconnects a connection; under the session's lock. */
static void cqpool_conn_release(struct cqpool_session *s,
				struct cqpool_obj *obj)
{
	cqpool_obj_leave_pool(s, obj);
	cqpool_uncharge(s, 0, 2 * (u64)obj->conn->buf_size);
	cqpool_conn_destroy(obj->conn);
	obj->conn = NULL;
}

/*
 * Gives back what a reservation, a watch or a connection holds, unless it
 * is gone already; under the session's lock.
 */
static void cqpool_obj_release(struct cqpool_session *s,
			       struct cqpool_obj *obj)
{
	lockdep_assert_held(&s->lock);
	if (READ_ONCE(obj->gone))
		return;
	if (obj->kind == CQPOOL_OBJ_RESV)
		cqpool_resv_release(s, obj);
	else if (obj->kind == CQPOOL_OBJ_WATCH)
		cqpool_unregister_event_handler(&obj->handler);
	else
		cqpool_conn_release(s, obj);
}

/*
 * CQ_PUT, EVENTS_UNWATCH and CONN_DESTROY: release object @id if it is
 * a @kind.
 */
static int cqpool_session_release(struct cqpool_session *s, u32 id,
				  enum cqpool_obj_kind kind)
{
	struct cqpool_obj *obj;
	int ret = -ENOENT;

	mutex_lock(&s->lock);
	obj = cqpool_obj_find(s, id, kind);
	if (obj && obj->busy) {
		ret = -EBUSY;
	} else if (obj) {
		cqpool_obj_release(s, obj);
		cqpool_obj_remove(s, id);
		ret = 0;
	}
	mutex_unlock(&s->lock);
	return ret;
}

int cqpool_session_cq_put(struct cqpool_session *s, void *arg)
{
	return cqpool_session_release(s, ((struct cqpool_destroy *)arg)->id,
				      CQPOOL_OBJ_RESV);
}

int cqpool_session_events_unwatch(struct cqpool_session *s, void *arg)
{
	return cqpool_session_release(s, ((struct cqpool_destroy *)arg)->id,
				      CQPOOL_OBJ_WATCH);
}

int cqpool_session_conn_destroy(struct cqpool_session *s, void *arg)
{
	return cqpool_session_release(s, ((struct cqpool_destroy *)arg)->id,
				      CQPOOL_OBJ_CONN);
}

int cqpool_session_events_read(struct cqpool_session *s, void *arg)
{
	struct cqpool_events_read *a = arg;
	struct cqpool_obj *obj;
	int i, ret = 0;

	if (a->pad)
		return -EINVAL;
	mutex_lock(&s->lock);
	obj = xa_load(&s->objs, a->id);
	if (!obj || obj->kind == CQPOOL_OBJ_POOL)
		ret = -ENOENT;
	else if (!obj->counts)
		ret = -EINVAL;	/* a reservation made without a hook */
	else
		for (i = 0; i < CQPOOL_NR_EVENTS; i++)
			a->counts[i] = atomic64_read(&obj->counts->n[i]);
	mutex_unlock(&s->lock);
	return ret;
}

int cqpool_session_conn_create(struct cqpool_session *s, void *arg)
{
	struct cqpool_conn_create *a = arg;
	struct cqpool_obj *obj, *owner = NULL;
	u64 bytes = 2 * (u64)(a->msg_size ?: 4096);
	struct cqpool_conn *conn;
	bool gone;
	int ret;

	/* Out of range is EINVAL, not the limit's ENOSPC. */
	if (a->msg_size > CQPOOL_MAX_MSG)
		return -EINVAL;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (!obj)
		return -ENOMEM;
	obj->kind = CQPOOL_OBJ_CONN;

	/*
	 * Charged before the connect, and the owned pool held by it, so
	 * that the lock need not be held across the seconds it takes.
	 */
	mutex_lock(&s->lock);
	if (a->pool_id) {
		owner = cqpool_obj_use(s, a->pool_id, CQPOOL_OBJ_POOL);
		ret = PTR_ERR_OR_ZERO(owner);
		if (ret)
			goto out_unlock;
	}
	ret = cqpool_charge(s, 1, bytes);
	if (ret)
		goto out_unlock;
	if (owner) {
		owner->users++;
		obj->pool_id = a->pool_id;
	}
	mutex_unlock(&s->lock);

	conn = cqpool_conn_create(a, owner ? owner->pool : NULL);

	mutex_lock(&s->lock);
	ret = PTR_ERR_OR_ZERO(conn);
	if (!ret) {
		obj->conn = conn;
		ret = xa_alloc(&s->objs, &a->id, obj, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (ret)
			cqpool_conn_destroy(conn);
	}
	if (ret) {
		cqpool_obj_leave_pool(s, obj);
		cqpool_uncharge(s, 1, bytes);
		goto out_unlock;
	}
	a->client_qpn = conn->client.id->qp->qp_num;
	a->server_qpn = conn->server.id->qp->qp_num;
	a->setup_ns = conn->setup_ns;
	/* A removal that came during the connect did not see it. */
	gone = cqpool_conn_device_gone(conn);
	mutex_unlock(&s->lock);
	if (gone)
		queue_work(system_wq, &s->gone_work);
	return 0;

out_unlock:
	mutex_unlock(&s->lock);
	kfree(obj);
	return ret;
}

/**
 * cqpool_session_conns() - call @fn for each connection of a session
 * @s: the session
 * @fn: called with @ctx, the connection's id and its info, under the
 *	session's lock: it must not sleep
 * @ctx: for @fn
 *
 * A connection its device's removal took apart has no info, and is
 * skipped.
 *
 * Context: process context; takes the session's lock.
 */
void cqpool_session_conns(struct cqpool_session *s,
			  void (*fn)(void *ctx,
				     const struct cqpool_conn_info *info),
			  void *ctx)
{
	struct cqpool_conn_info info;
	struct cqpool_obj *obj;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->objs, id, obj) {
		if (obj->kind != CQPOOL_OBJ_CONN || READ_ONCE(obj->gone))
			continue;
		memset(&info, 0, sizeof(info));
		cqpool_conn_info(obj->conn, &info);
		info.id = id;
		fn(ctx, &info);
	}
	mutex_unlock(&s->lock);
}

/*
 * The connections a TRAFFIC runs on are marked busy, so that nothing
 * destroys them while it runs without the lock; a removal that came
 * meanwhile is dealt with once they are free again.
 */
static void cqpool_session_set_busy(struct cqpool_session *s,
				    struct cqpool_obj **objs, unsigned int n,
				    bool busy)
{
	unsigned int i;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < n; i++)
		objs[i]->busy = busy;
	s->running = busy;
}

int cqpool_session_traffic(struct cqpool_session *s, void *arg)
{
	struct cqpool_traffic *a = arg;
	struct cqpool_conn **conns;
	struct cqpool_obj **objs, *obj;
	unsigned int n = 0, i;
	unsigned long id;
	int ret;

	mutex_lock(&s->lock);
	if (s->running) {
		mutex_unlock(&s->lock);
		return -EBUSY;
	}
	objs = kvcalloc(s->count ?: 1, sizeof(*objs), GFP_KERNEL_ACCOUNT);
	conns = kvcalloc(s->count ?: 1, sizeof(*conns), GFP_KERNEL_ACCOUNT);
	if (!objs || !conns) {
		mutex_unlock(&s->lock);
		ret = -ENOMEM;
		goto out_free;
	}
	ret = -ENOENT;
	if (a->conn_id) {
		obj = cqpool_obj_use(s, a->conn_id, CQPOOL_OBJ_CONN);
		ret = PTR_ERR_OR_ZERO(obj);
		if (!ret)
			objs[n++] = obj;
	} else {
		xa_for_each(&s->objs, id, obj)
			if (obj->kind == CQPOOL_OBJ_CONN &&
			    !READ_ONCE(obj->gone) &&
			    !test_bit(CQPOOL_CONN_BROKEN, &obj->conn->flags))
				objs[n++] = obj;
	}
	for (i = 0; i < n; i++)
		conns[i] = objs[i]->conn;
	if (n)
		cqpool_session_set_busy(s, objs, n, true);
	mutex_unlock(&s->lock);

	if (n) {
		ret = cqpool_traffic_run(&s->run, conns, n, a);
		mutex_lock(&s->lock);
		cqpool_session_set_busy(s, objs, n, false);
		mutex_unlock(&s->lock);
		queue_work(system_wq, &s->gone_work);
	}
out_free:
	kvfree(conns);
	kvfree(objs);
	return ret;
}

int cqpool_session_trigger(struct cqpool_session *s, void *arg)
{
	struct cqpool_trigger *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqpool_obj *obj;
	int ret;

	if (a->kind == CQPOOL_TRIGGER_DEVICE_FATAL) {
		if (a->conn_id || cqpool_name(device, a->device))
			return -EINVAL;
		return cqpool_inject_event(device, IB_EVENT_DEVICE_FATAL);
	}
	if (a->kind > CQPOOL_TRIGGER_DEVICE_FATAL ||
	    memchr_inv(a->device, 0, sizeof(a->device)))
		return -EINVAL;
	mutex_lock(&s->lock);
	obj = cqpool_obj_use(s, a->conn_id, CQPOOL_OBJ_CONN);
	ret = IS_ERR(obj) ? PTR_ERR(obj) :
		obj->busy ? -EBUSY : cqpool_conn_trigger(obj->conn, a->kind);
	mutex_unlock(&s->lock);
	return ret;
}

/* Whether @obj is on a device that is going or gone. */
static bool cqpool_obj_device_gone(struct cqpool_session *s,
				   struct cqpool_obj *obj)
{
	bool gone;

	if (READ_ONCE(obj->gone))
		return false;
	switch (obj->kind) {
	case CQPOOL_OBJ_POOL:
		return cqpool_pool_dying(obj->pool);
	case CQPOOL_OBJ_RESV:
		if (!obj->upstream)
			return cqpool_cq_dying(obj->cq);
		mutex_lock(&s->upstream_lock);
		gone = READ_ONCE(obj->gone);
		mutex_unlock(&s->upstream_lock);
		return gone;
	case CQPOOL_OBJ_WATCH:
		return !cqpool_device_served(obj->handler.device);
	default:
		return cqpool_conn_device_gone(obj->conn);
	}
}

/*
 * Gives back what the session has on removed devices, as their removal
 * asks: everything but pools first, then the pools those used.
 */
static void cqpool_session_gone_work(struct work_struct *work)
{
	struct cqpool_session *s = container_of(work, struct cqpool_session,
						gone_work);
	struct cqpool_obj *obj;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->objs, id, obj)
		if (obj->kind != CQPOOL_OBJ_POOL && !obj->busy &&
		    cqpool_obj_device_gone(s, obj)) {
			cqpool_obj_release(s, obj);
			WRITE_ONCE(obj->gone, true);
		}
	xa_for_each(&s->objs, id, obj)
		if (obj->kind == CQPOOL_OBJ_POOL && !obj->users &&
		    cqpool_obj_device_gone(s, obj)) {
			WARN_ON(cqpool_destroy(obj->pool));
			obj->pool = NULL;
			WRITE_ONCE(obj->gone, true);
		}
	mutex_unlock(&s->lock);
}

/**
 * cqpool_sessions_device_removed() - tell every session a device is going
 * @ibdev: the device, no longer served
 *
 * Upstream reservations on @ibdev are given back now: ib_core frees its
 * pool's CQs once every client is removed.  Everything else the sessions
 * have on it is given back from their work, which waits for a command in
 * progress; the device's unregistration waits for what that holds.
 *
 * Context: process context (cqpool's ib_client remove); waits for no
 * command.
 */
void cqpool_sessions_device_removed(struct ib_device *ibdev)
{
	struct cqpool_obj *obj, *next;
	struct cqpool_session *s;

	mutex_lock(&cqpool_sessions_mutex);
	list_for_each_entry(s, &cqpool_sessions, node) {
		mutex_lock(&s->upstream_lock);
		list_for_each_entry_safe(obj, next, &s->upstream,
					 upstream_node) {
			if (obj->cq->device != ibdev)
				continue;
			/* Marked gone: the session will not put it again. */
			WRITE_ONCE(obj->gone, true);
			list_del(&obj->upstream_node);
			cqpool_cq_source_put(&obj->src, obj->cq, obj->nr_cqe,
					     NULL);
		}
		mutex_unlock(&s->upstream_lock);
		queue_work(system_wq, &s->gone_work);
	}
	mutex_unlock(&cqpool_sessions_mutex);
}

void cqpool_session_destroy(struct cqpool_session *s)
{
	struct cqpool_obj *obj;
	unsigned long id;

	mutex_lock(&cqpool_sessions_mutex);
	list_del(&s->node);
	mutex_unlock(&cqpool_sessions_mutex);
	cancel_work_sync(&s->gone_work);

	mutex_lock(&s->lock);
	/* Everything else first: a pool goes only without its users. */
	xa_for_each(&s->objs, id, obj)
		if (obj->kind != CQPOOL_OBJ_POOL) {
			cqpool_obj_release(s, obj);
			cqpool_obj_remove(s, id);
		}
	xa_for_each(&s->objs, id, obj) {
		WARN_ON(!READ_ONCE(obj->gone) && cqpool_destroy(obj->pool));
		cqpool_obj_remove(s, id);
	}
	mutex_unlock(&s->lock);
	xa_destroy(&s->objs);
	kfree(s);
}
