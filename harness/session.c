// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions of /dev/cqpool.  Every object made through a file descriptor
 * is released when it closes, so a killed harness leaks nothing.
 *
 * A session is a consumer like any other: when a device goes, it is told
 * (cqh_sessions_device_removed(), from cqpool's ib_client remove) and
 * gives back what it made on it, as uverbs does for userspace.  Its
 * upstream reservations go back at once, before ib_core cleans its own
 * pool; the rest goes from a work item, since a command in progress holds
 * the session's lock.  Those objects stay, given back ("gone"), until the
 * caller puts or destroys them: their event counts can still be read,
 * anything else they are used for fails with ENODEV.
 *
 * This file knows objects only through their class (object.h).
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "object.h"
#include "session.h"

/* Every session, for device removal; never held across a command. */
static DEFINE_MUTEX(cqh_sessions_mutex);
static LIST_HEAD(cqh_sessions);

/* What all sessions hold, against the limits across file descriptors. */
static atomic_t cqh_all_objects = ATOMIC_INIT(0);
static atomic64_t cqh_all_bytes = ATOMIC64_INIT(0);

/* The orders of struct cqh_obj_class, first to last. */
#define CQH_OBJ_ORDERS 2

/*
 * Charges @objs objects and @bytes of buffers to the session and to all
 * of them: 0, or -ENOSPC with nothing charged.
 */
int cqh_charge(struct cqh_session *s, unsigned int objs, u64 bytes)
{
	lockdep_assert_held(&s->lock);
	if (s->count + objs > CQPOOL_MAX_FD_OBJECTS ||
	    s->bytes + bytes > CQPOOL_MAX_FD_BYTES)
		return -ENOSPC;
	if (atomic_add_return(objs, &cqh_all_objects) > CQPOOL_MAX_OBJECTS) {
		atomic_sub(objs, &cqh_all_objects);
		return -ENOSPC;
	}
	if (atomic64_add_return(bytes, &cqh_all_bytes) > CQPOOL_MAX_BYTES) {
		atomic64_sub(bytes, &cqh_all_bytes);
		atomic_sub(objs, &cqh_all_objects);
		return -ENOSPC;
	}
	s->count += objs;
	s->bytes += bytes;
	return 0;
}

void cqh_uncharge(struct cqh_session *s, unsigned int objs, u64 bytes)
{
	lockdep_assert_held(&s->lock);
	s->count -= objs;
	s->bytes -= bytes;
	atomic_sub(objs, &cqh_all_objects);
	atomic64_sub(bytes, &cqh_all_bytes);
}

static void cqh_session_gone_work(struct work_struct *work);

struct cqh_session *cqh_session_create(void)
{
	struct cqh_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	xa_init_flags(&s->objs, XA_FLAGS_ALLOC1);
	init_completion(&s->run.done);
	mutex_init(&s->upstream_lock);
	INIT_LIST_HEAD(&s->upstream);
	INIT_WORK(&s->gone_work, cqh_session_gone_work);
	mutex_lock(&cqh_sessions_mutex);
	list_add_tail(&s->node, &cqh_sessions);
	mutex_unlock(&cqh_sessions_mutex);
	return s;
}

/* Gives @obj an id, charged as one object; under the session's lock. */
int cqh_obj_add(struct cqh_session *s, struct cqh_obj *obj,
		u32 *id)
{
	int ret;

	ret = cqh_charge(s, 1, 0);
	if (ret)
		return ret;
	ret = xa_alloc(&s->objs, id, obj, xa_limit_31b, GFP_KERNEL_ACCOUNT);
	if (ret)
		cqh_uncharge(s, 1, 0);
	return ret;
}

/* Object @id if it is of @class, else NULL; under the session's lock. */
struct cqh_obj *cqh_obj_find(struct cqh_session *s, u32 id,
			     const struct cqh_obj_class *class)
{
	struct cqh_obj *obj;

	lockdep_assert_held(&s->lock);
	obj = xa_load(&s->objs, id);
	return obj && obj->class == class ? obj : NULL;
}

/*
 * The object @id of @class to use, under the session's lock:
 * ERR_PTR(-ENOENT) if there is none, ERR_PTR(-ENODEV) once it is gone.
 */
struct cqh_obj *cqh_obj_use(struct cqh_session *s, u32 id,
			    const struct cqh_obj_class *class)
{
	struct cqh_obj *obj = cqh_obj_find(s, id, class);

	if (!obj)
		return ERR_PTR(-ENOENT);
	return READ_ONCE(obj->gone) ? ERR_PTR(-ENODEV) : obj;
}

/* Every kind embeds struct cqh_obj first, so this frees any of them. */
void cqh_obj_free(struct cqh_obj *obj)
{
	kfree(obj->counts);
	kfree(obj);
}

static void cqh_obj_remove(struct cqh_session *s, u32 id)
{
	lockdep_assert_held(&s->lock);
	cqh_obj_free(xa_erase(&s->objs, id));
	cqh_uncharge(s, 1, 0);
}

/**
 * cqh_obj_destroy() - destroy object @id of a session, if of @class
 * @s: the session
 * @id: the object
 * @class: the kind the command destroys
 *
 * What POOL_DESTROY, CQ_PUT, EVENTS_UNWATCH and CONN_DESTROY do.  An
 * object that is gone has nothing left to give back and is only removed.
 *
 * Return: 0; -ENOENT if @s has no such object; -EBUSY while a TRAFFIC
 * runs on it; or the class's refusal, with nothing changed.
 */
int cqh_obj_destroy(struct cqh_session *s, u32 id,
		    const struct cqh_obj_class *class)
{
	struct cqh_obj *obj;
	int ret = -ENOENT;

	mutex_lock(&s->lock);
	obj = cqh_obj_find(s, id, class);
	if (obj) {
		ret = obj->busy ? -EBUSY :
			READ_ONCE(obj->gone) ? 0 : class->destroy(s, obj);
		if (!ret)
			cqh_obj_remove(s, id);
	}
	mutex_unlock(&s->lock);
	return ret;
}

/* Copies a NUL-terminated name out of a fixed uapi array. */
int cqh_name(char *dst, const char *src)
{
	if (!memchr(src, 0, CQPOOL_NAME_LEN))
		return -EINVAL;
	strscpy(dst, src, CQPOOL_NAME_LEN);
	return 0;
}

struct cqh_counts *cqh_counts_alloc(void)
{
	return kzalloc(sizeof(struct cqh_counts), GFP_KERNEL_ACCOUNT);
}

/* The uapi numbers events as ib_core does. */
#define CQH_SAME_EVENT(x) \
	static_assert((int)CQPOOL_EVENT_##x == (int)IB_EVENT_##x)
CQH_SAME_EVENT(CQ_ERR);
CQH_SAME_EVENT(QP_FATAL);
CQH_SAME_EVENT(QP_REQ_ERR);
CQH_SAME_EVENT(QP_ACCESS_ERR);
CQH_SAME_EVENT(COMM_EST);
CQH_SAME_EVENT(SQ_DRAINED);
CQH_SAME_EVENT(DEVICE_FATAL);
CQH_SAME_EVENT(PORT_ACTIVE);
CQH_SAME_EVENT(PORT_ERR);
CQH_SAME_EVENT(LID_CHANGE);
CQH_SAME_EVENT(PKEY_CHANGE);
CQH_SAME_EVENT(SM_CHANGE);
CQH_SAME_EVENT(CLIENT_REREGISTER);
CQH_SAME_EVENT(GID_CHANGE);
static_assert(CQPOOL_NR_EVENTS > IB_EVENT_WQ_FATAL);

/* Any context: a hook calls it with its CQ's hook lock held. */
void cqh_count(struct cqh_counts *c, enum ib_event_type type)
{
	if ((unsigned int)type < CQPOOL_NR_EVENTS)
		atomic64_inc(&c->n[type]);
}

int cqh_session_events_read(struct cqh_session *s, void *arg)
{
	struct cqpool_events_read *a = arg;
	struct cqh_obj *obj;
	int i, ret = 0;

	if (a->pad)
		return -EINVAL;
	mutex_lock(&s->lock);
	obj = xa_load(&s->objs, a->id);
	if (!obj || (obj->class != &cqh_resv_class &&
		     obj->class != &cqh_watch_class))
		ret = -ENOENT;
	else if (!obj->counts)
		ret = -EINVAL;	/* a reservation made without a hook */
	else
		for (i = 0; i < CQPOOL_NR_EVENTS; i++)
			a->counts[i] = atomic64_read(&obj->counts->n[i]);
	mutex_unlock(&s->lock);
	return ret;
}

/*
 * Gives back what the session has on removed devices, as their removal
 * asks, in class order: a pool goes once nothing of the session uses it.
 * An object a TRAFFIC runs on waits for the run's end, which queues this
 * again.
 */
static void cqh_session_gone_work(struct work_struct *work)
{
	struct cqh_session *s = container_of(work, struct cqh_session,
						gone_work);
	struct cqh_obj *obj;
	unsigned int order;
	unsigned long id;
	int ret;

	mutex_lock(&s->lock);
	for (order = 0; order < CQH_OBJ_ORDERS; order++)
		xa_for_each(&s->objs, id, obj) {
			if (obj->class->order != order || obj->busy ||
			    READ_ONCE(obj->gone) ||
			    !obj->class->device_gone(s, obj))
				continue;
			ret = obj->class->destroy(s, obj);
			WARN_ON(ret && ret != -EBUSY);
			if (!ret)
				WRITE_ONCE(obj->gone, true);
		}
	mutex_unlock(&s->lock);
}

/**
 * cqh_sessions_device_removed() - tell every session a device is going
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
void cqh_sessions_device_removed(struct ib_device *ibdev)
{
	struct cqh_session *s;

	mutex_lock(&cqh_sessions_mutex);
	list_for_each_entry(s, &cqh_sessions, node) {
		cqh_session_upstream_removed(s, ibdev);
		queue_work(system_wq, &s->gone_work);
	}
	mutex_unlock(&cqh_sessions_mutex);
}

void cqh_session_destroy(struct cqh_session *s)
{
	struct cqh_obj *obj;
	unsigned int order;
	unsigned long id;

	mutex_lock(&cqh_sessions_mutex);
	list_del(&s->node);
	mutex_unlock(&cqh_sessions_mutex);
	cancel_work_sync(&s->gone_work);

	/* No command runs on a closed file: nothing is busy. */
	mutex_lock(&s->lock);
	for (order = 0; order < CQH_OBJ_ORDERS; order++)
		xa_for_each(&s->objs, id, obj) {
			if (obj->class->order != order)
				continue;
			WARN_ON(!READ_ONCE(obj->gone) &&
				obj->class->destroy(s, obj));
			cqh_obj_remove(s, id);
		}
	mutex_unlock(&s->lock);
	xa_destroy(&s->objs);
	kfree(s);
}
