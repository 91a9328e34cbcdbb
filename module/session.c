// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions of /dev/cqpool.  Every object made through a file descriptor
 * is released when it closes, so a killed harness leaks nothing.
 *
 * A session holds no reference on an RDMA device: its reservations and
 * owned pools are what a device's removal waits for, which keeps them
 * valid until the session lets go.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <uapi/linux/cqpool.h>
#include <cqpool/takeover.h>

#include "conn.h"
#include "cqpool_internal.h"
#include "report.h"
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
 * @cq: a reservation's CQ
 * @nr_cqe: a reservation's entries
 * @users: for a pool, the session's reservations and connections on it
 * @counts: for a watch or a reservation with a hook, what reached it
 * @hook: a reservation's hook, when it has @counts
 * @handler: a watch's device event handler
 * @conn: a connection
 */
struct cqpool_obj {
	enum cqpool_obj_kind kind;
	struct cqpool *pool;
	u32 pool_id;
	bool upstream;
	struct ib_cq *cq;
	unsigned int nr_cqe;
	unsigned int users;
	struct cqpool_counts *counts;
	struct cqpool_hook hook;
	struct cqpool_event_handler handler;
	struct cqpool_conn *conn;
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
 * @lock: serialises the session's commands
 * @objs: struct cqpool_obj by id, from 1; under @lock
 * @count: entries in @objs; under @lock
 * @bytes: traffic buffers of its connections; under @lock
 * @run: the traffic run of CQPOOL_IOC_TRAFFIC; under @lock
 */
struct cqpool_session {
	struct mutex lock;		/* serialises the session's commands */
	struct xarray objs;
	unsigned int count;
	u64 bytes;
	struct cqpool_run run;
};

struct cqpool_session *cqpool_session_create(void)
{
	struct cqpool_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	xa_init_flags(&s->objs, XA_FLAGS_ALLOC1);
	init_completion(&s->run.done);
	return s;
}

static int cqpool_obj_add(struct cqpool_session *s, struct cqpool_obj *obj,
			  u32 *id)
{
	int ret;

	if (s->count >= CQPOOL_MAX_FD_OBJECTS)
		return -ENOSPC;
	ret = xa_alloc(&s->objs, id, obj, xa_limit_31b, GFP_KERNEL);
	if (!ret)
		s->count++;
	return ret;
}

static struct cqpool_obj *cqpool_obj_find(struct cqpool_session *s, u32 id,
					  enum cqpool_obj_kind kind)
{
	struct cqpool_obj *obj = xa_load(&s->objs, id);

	return obj && obj->kind == kind ? obj : NULL;
}

static void cqpool_resv_put(struct cqpool_obj *obj)
{
	if (obj->upstream) {
		ib_cq_pool_put(obj->cq, obj->nr_cqe);
		cqpool_dev_unhold(obj->cq->device);
	} else {
		cqpool_cq_put(obj->cq, obj->nr_cqe,
			      obj->counts ? &obj->hook : NULL);
	}
}

static void cqpool_obj_free(struct cqpool_obj *obj)
{
	kfree(obj->counts);
	kfree(obj);
}

static void cqpool_obj_remove(struct cqpool_session *s, u32 id)
{
	cqpool_obj_free(xa_erase(&s->objs, id));
	s->count--;
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
	BUILD_BUG_ON(CQPOOL_POOL_NO_RESIZE != CQPOOL_F_NO_RESIZE);
	if (cqpool_name(device, a->device) || cqpool_name(name, a->name) ||
	    a->poll_ctx > CQPOOL_POLL_UNBOUND_WORKQUEUE)
		return -EINVAL;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
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
		ret = obj->users ? -EBUSY : cqpool_destroy(obj->pool);
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
 * ib_cq_pool_get() has no way to say a CQ is too large: it would try to
 * allocate one on every vector and fail, or worse, succeed.  Refuse what
 * cqpool refuses.
 */
static struct ib_cq *cqpool_upstream_get(struct ib_device *dev,
					 const struct cqpool_cq_get *a)
{
	struct ib_cq *cq;
	int ret;

	if (!a->nr_cqe || a->nr_cqe > dev->attrs.max_cqe)
		return ERR_PTR(-EINVAL);
	/* Taken over, ib_cq_pool_get() is cqpool: it would be measured twice. */
	if (cqpool_takeover_active())
		return ERR_PTR(-EBUSY);
	ret = cqpool_dev_hold(dev);
	if (ret)
		return ERR_PTR(ret);
	cq = ib_cq_pool_get(dev, a->nr_cqe, a->vector_hint, a->poll_ctx);
	if (IS_ERR(cq))
		cqpool_dev_unhold(dev);
	return cq;
}

/* Makes the reservation @a asks for; under the session's lock. */
static struct ib_cq *cqpool_session_reserve(struct cqpool_session *s,
					    const struct cqpool_cq_get *a,
					    struct cqpool_obj *obj,
					    struct cqpool_obj **owner)
{
	const u32 how = CQPOOL_CQ_GET_SHARED | CQPOOL_CQ_GET_UPSTREAM;
	struct cqpool_hook *hook = obj->counts ? &obj->hook : NULL;
	struct ib_device *dev;
	struct cqpool *pool;
	struct ib_cq *cq;

	*owner = NULL;
	if ((a->flags & how) == how ||
	    (hook && (a->flags & CQPOOL_CQ_GET_UPSTREAM)))
		return ERR_PTR(-EINVAL);
	if (!(a->flags & how)) {
		*owner = cqpool_obj_find(s, a->pool_id, CQPOOL_OBJ_POOL);
		if (!*owner)
			return ERR_PTR(-ENOENT);
		return cqpool_cq_get((*owner)->pool, a->nr_cqe, a->vector_hint,
				     hook);
	}

	dev = cqpool_get_device(a);
	if (IS_ERR(dev))
		return ERR_CAST(dev);
	if (a->flags & CQPOOL_CQ_GET_UPSTREAM) {
		cq = cqpool_upstream_get(dev, a);
	} else {
		pool = cqpool_device_pool(dev, a->poll_ctx);
		cq = IS_ERR(pool) ? ERR_CAST(pool) :
			cqpool_cq_get(pool, a->nr_cqe, a->vector_hint, hook);
	}
	ib_device_put(dev);
	return cq;
}

int cqpool_session_cq_get(struct cqpool_session *s, void *arg)
{
	struct cqpool_cq_get *a = arg;
	struct cqpool_obj *obj, *owner;
	int ret;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->kind = CQPOOL_OBJ_RESV;
	obj->upstream = a->flags & CQPOOL_CQ_GET_UPSTREAM;
	obj->nr_cqe = a->nr_cqe;
	if (a->flags & CQPOOL_CQ_GET_HOOK) {
		obj->counts = kzalloc(sizeof(*obj->counts), GFP_KERNEL);
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
		cqpool_resv_put(obj);
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
	if (obj->pool_id)
		cqpool_obj_find(s, obj->pool_id, CQPOOL_OBJ_POOL)->users--;
}

/* Gives back a reservation and removes it; under the session's lock. */
static void cqpool_resv_release(struct cqpool_session *s, u32 id,
				struct cqpool_obj *obj)
{
	cqpool_obj_leave_pool(s, obj);
	cqpool_resv_put(obj);
	cqpool_obj_remove(s, id);
}

int cqpool_session_events_watch(struct cqpool_session *s, void *arg)
{
	struct cqpool_events_watch *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqpool_obj *obj;
	int ret;

	if (cqpool_name(device, a->device))
		return -EINVAL;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (obj)
		obj->counts = kzalloc(sizeof(*obj->counts), GFP_KERNEL);
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

/* Unregisters a watch and removes it; under the session's lock. */
static void cqpool_watch_release(struct cqpool_session *s, u32 id,
				 struct cqpool_obj *obj)
{
	cqpool_unregister_event_handler(&obj->handler);
	cqpool_obj_remove(s, id);
}

/* Disconnects a connection and removes it; under the session's lock. */
static void cqpool_conn_release(struct cqpool_session *s, u32 id,
				struct cqpool_obj *obj)
{
	cqpool_obj_leave_pool(s, obj);
	s->bytes -= 2 * (u64)obj->conn->buf_size;
	cqpool_conn_destroy(obj->conn);
	cqpool_obj_remove(s, id);
}

/*
 * Releases a reservation, a watch or a connection and removes it; under
 * the lock.
 */
static void cqpool_obj_release(struct cqpool_session *s, u32 id,
			       struct cqpool_obj *obj)
{
	if (obj->kind == CQPOOL_OBJ_RESV)
		cqpool_resv_release(s, id, obj);
	else if (obj->kind == CQPOOL_OBJ_WATCH)
		cqpool_watch_release(s, id, obj);
	else
		cqpool_conn_release(s, id, obj);
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
	if (obj) {
		cqpool_obj_release(s, id, obj);
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
	int ret;

	/* Out of range is EINVAL, not the limit's ENOSPC. */
	if (a->msg_size > CQPOOL_MAX_MSG)
		return -EINVAL;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->kind = CQPOOL_OBJ_CONN;

	/* Held across the connect, which is slow but never waits on us. */
	mutex_lock(&s->lock);
	ret = -ENOSPC;
	if (s->count >= CQPOOL_MAX_FD_OBJECTS ||
	    s->bytes + bytes > CQPOOL_MAX_FD_BYTES)
		goto out_unlock;
	if (a->pool_id) {
		ret = -ENOENT;
		owner = cqpool_obj_find(s, a->pool_id, CQPOOL_OBJ_POOL);
		if (!owner)
			goto out_unlock;
	}
	obj->conn = cqpool_conn_create(a, owner ? owner->pool : NULL);
	if (IS_ERR(obj->conn)) {
		ret = PTR_ERR(obj->conn);
		goto out_unlock;
	}
	ret = cqpool_obj_add(s, obj, &a->id);
	if (ret) {
		cqpool_conn_destroy(obj->conn);
		goto out_unlock;
	}
	if (owner) {
		owner->users++;
		obj->pool_id = a->pool_id;
	}
	s->bytes += bytes;
	a->client_qpn = obj->conn->client.id->qp->qp_num;
	a->server_qpn = obj->conn->server.id->qp->qp_num;
	a->setup_ns = obj->conn->setup_ns;
	mutex_unlock(&s->lock);
	return 0;

out_unlock:
	mutex_unlock(&s->lock);
	kfree(obj);
	return ret;
}

/**
 * struct cqpool_lister - CQPOOL_IOC_LIST's report: entries into a buffer
 * @r: the report
 * @buf: room for @room entries of the kernel's size
 * @room: entries @buf holds
 * @count: entries there are
 */
struct cqpool_lister {
	struct cqpool_report r;
	void *buf;
	u32 room;
	u32 count;
};

static void cqpool_list_add(struct cqpool_report *r, const void *info,
			    size_t size)
{
	struct cqpool_lister *l = container_of(r, struct cqpool_lister, r);

	if (l->count < l->room)
		memcpy(l->buf + (size_t)l->count * size, info, size);
	l->count++;
}

static void cqpool_list_device(struct cqpool_report *r,
			       const struct cqpool_device_info *info)
{
	cqpool_list_add(r, info, sizeof(*info));
}

static void cqpool_list_pool(struct cqpool_report *r,
			     const struct cqpool_pool_info *info)
{
	cqpool_list_add(r, info, sizeof(*info));
}

static void cqpool_list_cq(struct cqpool_report *r,
			   const struct cqpool_cq_info *info)
{
	cqpool_list_add(r, info, sizeof(*info));
}

static void cqpool_list_conns(struct cqpool_session *s,
			      struct cqpool_lister *l)
{
	struct cqpool_conn_info info;
	struct cqpool_obj *obj;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->objs, id, obj) {
		if (obj->kind != CQPOOL_OBJ_CONN)
			continue;
		memset(&info, 0, sizeof(info));
		cqpool_conn_info(obj->conn, &info);
		info.id = id;
		cqpool_list_add(&l->r, &info, sizeof(info));
	}
	mutex_unlock(&s->lock);
}

/* Copies @n entries of @ksize bytes out as entries of @usize bytes. */
static int cqpool_list_copy(void __user *dst, const void *src, u32 n,
			    size_t ksize, size_t usize)
{
	u32 i;

	for (i = 0; i < n; i++, dst += usize, src += ksize) {
		if (copy_to_user(dst, src, min(ksize, usize)))
			return -EFAULT;
		if (usize > ksize && clear_user(dst + ksize, usize - ksize))
			return -EFAULT;
	}
	return 0;
}

int cqpool_session_list(struct cqpool_session *s, void *arg)
{
	static const size_t sizes[] = {
		[CQPOOL_LIST_DEVICES] = sizeof(struct cqpool_device_info),
		[CQPOOL_LIST_POOLS] = sizeof(struct cqpool_pool_info),
		[CQPOOL_LIST_CQS] = sizeof(struct cqpool_cq_info),
		[CQPOOL_LIST_CONNS] = sizeof(struct cqpool_conn_info),
	};
	struct cqpool_list *a = arg;
	struct cqpool_lister l = {};
	size_t ksize;
	int ret;

	if (a->what >= ARRAY_SIZE(sizes) || a->pad ||
	    a->entry_size < sizes[a->what] || a->entry_size > PAGE_SIZE ||
	    a->count > CQPOOL_MAX_LIST)
		return -EINVAL;
	ksize = sizes[a->what];
	l.room = a->count;
	if (l.room) {
		l.buf = kvcalloc(l.room, ksize, GFP_KERNEL);
		if (!l.buf)
			return -ENOMEM;
	}
	if (a->what == CQPOOL_LIST_DEVICES)
		l.r.device = cqpool_list_device;
	else if (a->what == CQPOOL_LIST_POOLS)
		l.r.pool = cqpool_list_pool;
	else if (a->what == CQPOOL_LIST_CQS)
		l.r.cq = cqpool_list_cq;
	if (a->what == CQPOOL_LIST_CONNS)
		cqpool_list_conns(s, &l);
	else
		cqpool_report(&l.r);

	ret = cqpool_list_copy(u64_to_user_ptr(a->entries), l.buf,
			       min(l.count, l.room), ksize, a->entry_size);
	kvfree(l.buf);
	a->count = l.count;
	return ret;
}

int cqpool_session_traffic(struct cqpool_session *s, void *arg)
{
	struct cqpool_traffic *a = arg;
	struct cqpool_conn **conns;
	struct cqpool_obj *obj;
	unsigned int n = 0;
	unsigned long id;
	int ret;

	mutex_lock(&s->lock);
	conns = kvcalloc(s->count ?: 1, sizeof(*conns), GFP_KERNEL);
	if (!conns) {
		mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	if (a->conn_id) {
		obj = cqpool_obj_find(s, a->conn_id, CQPOOL_OBJ_CONN);
		if (obj)
			conns[n++] = obj->conn;
	} else {
		xa_for_each(&s->objs, id, obj)
			if (obj->kind == CQPOOL_OBJ_CONN &&
			    !test_bit(CQPOOL_CONN_BROKEN, &obj->conn->flags))
				conns[n++] = obj->conn;
	}
	ret = n ? cqpool_traffic_run(&s->run, conns, n, a) : -ENOENT;
	mutex_unlock(&s->lock);
	kvfree(conns);
	return ret;
}

int cqpool_session_trigger(struct cqpool_session *s, void *arg)
{
	struct cqpool_trigger *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqpool_obj *obj;
	int ret = -ENOENT;

	if (a->kind == CQPOOL_TRIGGER_DEVICE_FATAL) {
		if (a->conn_id || cqpool_name(device, a->device))
			return -EINVAL;
		return cqpool_inject_event(device, IB_EVENT_DEVICE_FATAL);
	}
	if (a->kind > CQPOOL_TRIGGER_DEVICE_FATAL ||
	    memchr_inv(a->device, 0, sizeof(a->device)))
		return -EINVAL;
	mutex_lock(&s->lock);
	obj = cqpool_obj_find(s, a->conn_id, CQPOOL_OBJ_CONN);
	if (obj)
		ret = cqpool_conn_trigger(obj->conn, a->kind);
	mutex_unlock(&s->lock);
	return ret;
}

void cqpool_session_destroy(struct cqpool_session *s)
{
	struct cqpool_obj *obj;
	unsigned long id;

	mutex_lock(&s->lock);
	/* Everything else first: a pool goes only without its users. */
	xa_for_each(&s->objs, id, obj)
		if (obj->kind != CQPOOL_OBJ_POOL)
			cqpool_obj_release(s, id, obj);
	xa_for_each(&s->objs, id, obj) {
		WARN_ON(cqpool_destroy(obj->pool));
		cqpool_obj_remove(s, id);
	}
	mutex_unlock(&s->lock);
	xa_destroy(&s->objs);
	kfree(s);
}
