// SPDX-License-Identifier: GPL-2.0
/*
 * A session's connections: CONN_CREATE and CONN_DESTROY, and what runs on
 * them, TRAFFIC and TRIGGER.  Neither a connect nor a run holds the
 * session's lock: a connect is charged first and listed after, and the
 * connections a run uses are busy until it ends.
 */
#include <linux/slab.h>
#include "uapi/linux/cqpool.h"
#include <cqpool/cqpool.h>

#include "conn.h"
#include "testing.h"
#include "object.h"
#include "session.h"

/**
 * struct cqh_conn_obj - a connection of a session
 * @obj: its object
 * @owner: the owned pool its CQs come from, which it holds; else NULL
 * @conn: the connection; NULL once gone
 */
struct cqh_conn_obj {
	struct cqh_obj obj;
	struct cqh_pool_obj *owner;
	struct cqh_conn *conn;
};

static struct cqh_conn_obj *to_conn_obj(struct cqh_obj *obj)
{
	return container_of(obj, struct cqh_conn_obj, obj);
}

/* Its buffers, as charged: a send and a receive buffer of a message. */
static u64 cqh_conn_bytes(u32 msg_size)
{
	return 2 * (u64)(msg_size ?: 4096);
}

static int cqh_conn_destroy_obj(struct cqh_session *s,
				struct cqh_obj *obj)
{
	struct cqh_conn_obj *c = to_conn_obj(obj);

	lockdep_assert_held(&s->lock);
	cqh_pool_obj_leave(s, c->owner);
	c->owner = NULL;
	cqh_uncharge(s, 0, cqh_conn_bytes(c->conn->buf_size));
	cqh_conn_destroy(c->conn);
	c->conn = NULL;
	return 0;
}

static bool cqh_conn_obj_device_gone(struct cqh_session *s,
				     struct cqh_obj *obj)
{
	return cqh_conn_device_gone(to_conn_obj(obj)->conn);
}

const struct cqh_obj_class cqh_conn_class = {
	.name = "connection",
	.order = 0,
	.destroy = cqh_conn_destroy_obj,
	.device_gone = cqh_conn_obj_device_gone,
};

int cqh_session_conn_create(struct cqh_session *s, void *arg)
{
	struct cqpool_conn_create *a = arg;
	u64 bytes = cqh_conn_bytes(a->msg_size);
	struct cqh_pool_obj *owner = NULL;
	struct cqh_conn_obj *c;
	struct cqh_conn *conn;
	bool gone;
	int ret;

	/* Out of range is EINVAL, not the limit's ENOSPC. */
	if (a->msg_size > CQPOOL_MAX_MSG)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	c->obj.class = &cqh_conn_class;

	/*
	 * Charged before the connect, and the owned pool held by it, so
	 * that the lock need not be held across the seconds it takes.
	 */
	mutex_lock(&s->lock);
	if (a->pool_id) {
		owner = cqh_pool_obj_join(s, a->pool_id);
		ret = PTR_ERR_OR_ZERO(owner);
		if (ret)
			goto out_unlock;
	}
	ret = cqh_charge(s, 1, bytes);
	if (ret) {
		cqh_pool_obj_leave(s, owner);
		goto out_unlock;
	}
	c->owner = owner;
	mutex_unlock(&s->lock);

	conn = cqpool_conn_create(a, owner ? owner->pool : NULL);

	mutex_lock(&s->lock);
	ret = PTR_ERR_OR_ZERO(conn);
	if (!ret) {
		c->conn = conn;
		ret = xa_alloc(&s->objs, &a->id, &c->obj, xa_limit_31b,
			       GFP_KERNEL_ACCOUNT);
		if (ret)
			cqh_conn_destroy(conn);
	}
	if (ret) {
		cqh_pool_obj_leave(s, c->owner);
		cqh_uncharge(s, 1, bytes);
		goto out_unlock;
	}
	a->client_qpn = conn->client.id->qp->qp_num;
	a->server_qpn = conn->server.id->qp->qp_num;
	a->setup_ns = conn->setup_ns;
	/* A removal that came during the connect did not see it. */
	gone = cqh_conn_device_gone(conn);
	mutex_unlock(&s->lock);
	if (gone)
		queue_work(system_wq, &s->gone_work);
	return 0;

out_unlock:
	mutex_unlock(&s->lock);
	kfree(c);
	return ret;
}

int cqh_session_conn_destroy(struct cqh_session *s, void *arg)
{
	return cqh_obj_destroy(s, ((struct cqpool_destroy *)arg)->id,
				  &cqh_conn_class);
}

/**
 * cqh_session_conns() - call @fn for each connection of a session
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
void cqh_session_conns(struct cqh_session *s,
		       void (*fn)(void *ctx,
				  const struct cqpool_conn_info *info),
		       void *ctx)
{
	struct cqpool_conn_info info;
	struct cqh_obj *obj;
	unsigned long id;

	mutex_lock(&s->lock);
	xa_for_each(&s->objs, id, obj) {
		if (obj->class != &cqh_conn_class || READ_ONCE(obj->gone))
			continue;
		memset(&info, 0, sizeof(info));
		cqpool_conn_info(to_conn_obj(obj)->conn, &info);
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
static void cqh_session_set_busy(struct cqh_session *s,
				 struct cqh_conn_obj **objs,
				    unsigned int n, bool busy)
{
	unsigned int i;

	lockdep_assert_held(&s->lock);
	for (i = 0; i < n; i++)
		objs[i]->obj.busy = busy;
	s->running = busy;
}

/* Whether a TRAFFIC on every connection takes @obj. */
static bool cqh_conn_runnable(struct cqh_obj *obj)
{
	return obj->class == &cqh_conn_class && !READ_ONCE(obj->gone) &&
		!test_bit(CQH_CONN_BROKEN, &to_conn_obj(obj)->conn->flags);
}

int cqh_session_traffic(struct cqh_session *s, void *arg)
{
	struct cqpool_traffic *a = arg;
	struct cqh_conn_obj **objs;
	struct cqh_conn **conns;
	struct cqh_obj *obj;
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
		obj = cqh_obj_use(s, a->conn_id, &cqh_conn_class);
		ret = PTR_ERR_OR_ZERO(obj);
		if (!ret)
			objs[n++] = to_conn_obj(obj);
	} else {
		xa_for_each(&s->objs, id, obj)
			if (cqh_conn_runnable(obj))
				objs[n++] = to_conn_obj(obj);
	}
	for (i = 0; i < n; i++)
		conns[i] = objs[i]->conn;
	if (n)
		cqh_session_set_busy(s, objs, n, true);
	mutex_unlock(&s->lock);

	if (n) {
		ret = cqh_traffic_run(&s->run, conns, n, a);
		mutex_lock(&s->lock);
		cqh_session_set_busy(s, objs, n, false);
		mutex_unlock(&s->lock);
		queue_work(system_wq, &s->gone_work);
	}
out_free:
	kvfree(conns);
	kvfree(objs);
	return ret;
}

int cqh_session_trigger(struct cqh_session *s, void *arg)
{
	struct cqpool_trigger *a = arg;
	char device[CQPOOL_NAME_LEN];
	struct cqh_obj *obj;
	int ret;

	if (a->kind == CQPOOL_TRIGGER_DEVICE_FATAL) {
		if (a->conn_id || cqh_name(device, a->device))
			return -EINVAL;
		return cqpool_test_inject_event(device, IB_EVENT_DEVICE_FATAL);
	}
	if (a->kind > CQPOOL_TRIGGER_DEVICE_FATAL ||
	    memchr_inv(a->device, 0, sizeof(a->device)))
		return -EINVAL;
	mutex_lock(&s->lock);
	obj = cqh_obj_use(s, a->conn_id, &cqh_conn_class);
	ret = IS_ERR(obj) ? PTR_ERR(obj) :
		obj->busy ? -EBUSY :
		cqh_conn_trigger(to_conn_obj(obj)->conn, a->kind);
	mutex_unlock(&s->lock);
	return ret;
}
