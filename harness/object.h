/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects of a session, in the style of uverbs' object classes: each
 * kind (pool, reservation, watch, connection) is a type that embeds
 * struct cqh_obj first, and a class that says how one is given back.
 * session.c owns the id table, the limits, removal and close, and knows
 * no kind; session_pool.c, session_watch.c and session_conn.c each hold
 * a kind and its commands.
 */
#ifndef CQH_HARNESS_OBJECT_H
#define CQH_HARNESS_OBJECT_H

#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "uapi/linux/cqpool.h"

#include "conn.h"

struct cqh_obj;
struct cqh_session;

/**
 * struct cqh_obj_class - what a kind of object does when it goes
 * @name: for messages
 * @order: objects of order 0 are given back before those of order 1,
 *	which they may use (the owned pools)
 * @destroy: gives back what the object holds, or refuses with an errno
 *	and changes nothing (a pool that still has users).  Called under
 *	the session's lock, never for an object that is gone.
 * @device_gone: whether the object's device is going or gone; under the
 *	session's lock
 */
struct cqh_obj_class {
	const char *name;
	unsigned int order;
	int (*destroy)(struct cqh_session *s, struct cqh_obj *obj);
	bool (*device_gone)(struct cqh_session *s, struct cqh_obj *obj);
};

/* Events delivered to a hook or a watch, by enum ib_event_type. */
struct cqh_counts {
	atomic64_t n[CQPOOL_NR_EVENTS];
};

/**
 * struct cqh_obj - what every object of a session has
 * @class: its kind
 * @counts: for a watch or a reservation with a hook, what reached it;
 *	else NULL
 * @busy: a connection a TRAFFIC runs on, which nothing else may touch
 *	until it ends; under the session's @lock
 * @gone: given back, because its device went: nothing is left but its
 *	id and @counts.  For an upstream reservation, under the session's
 *	@upstream_lock; else under its @lock.
 */
struct cqh_obj {
	const struct cqh_obj_class *class;
	struct cqh_counts *counts;
	bool busy;
	bool gone;
};

/**
 * struct cqh_session - one open /dev/cqpool
 * @lock: protects the session's objects and counts.  Never held across
 *	anything slow: a connection's setup and a TRAFFIC run happen
 *	outside it, so that every other command of the file, and a
 *	device's removal, waits for no more than a list change
 * @objs: struct cqh_obj by id, from 1; under @lock
 * @count: entries in @objs, and connections being made; under @lock
 * @bytes: traffic buffers of its connections, made or being made;
 *	under @lock
 * @run: the traffic run of CQPOOL_IOC_TRAFFIC, one at a time
 * @running: @run is in use; under @lock
 * @node: on cqh_sessions
 * @upstream_lock: protects @upstream and the @gone of what is on it;
 *	held only across a list change and upstream's put, never across a
 *	command, so that a removal waiting for it waits for no command
 * @upstream: its upstream reservations not yet given back
 * @gone_work: gives back what the session has on removed devices
 */
struct cqh_session {
	struct mutex lock;		/* see above */
	struct xarray objs;
	unsigned int count;
	u64 bytes;
	struct cqh_run run;
	bool running;
	struct list_head node;
	struct mutex upstream_lock;	/* see above */
	struct list_head upstream;
	struct work_struct gone_work;
};

/**
 * struct cqh_pool_obj - an owned pool of a session
 * @obj: its object
 * @pool: the pool; NULL once gone
 * @users: the session's reservations and connections on it, which hold
 *	it; under the session's @lock
 */
struct cqh_pool_obj {
	struct cqh_obj obj;
	struct cqpool *pool;
	unsigned int users;
};

extern const struct cqh_obj_class cqh_pool_class;
extern const struct cqh_obj_class cqh_resv_class;
extern const struct cqh_obj_class cqh_watch_class;
extern const struct cqh_obj_class cqh_conn_class;

int cqh_charge(struct cqh_session *s, unsigned int objs, u64 bytes);
void cqh_uncharge(struct cqh_session *s, unsigned int objs,
		  u64 bytes);
int cqh_obj_add(struct cqh_session *s, struct cqh_obj *obj,
		u32 *id);
struct cqh_obj *cqh_obj_find(struct cqh_session *s, u32 id,
			     const struct cqh_obj_class *class);
struct cqh_obj *cqh_obj_use(struct cqh_session *s, u32 id,
			    const struct cqh_obj_class *class);
void cqh_obj_free(struct cqh_obj *obj);
int cqh_obj_destroy(struct cqh_session *s, u32 id,
		    const struct cqh_obj_class *class);
struct cqh_pool_obj *cqh_pool_obj_join(struct cqh_session *s,
				       u32 id);
void cqh_pool_obj_leave(struct cqh_session *s,
			struct cqh_pool_obj *p);
int cqh_name(char *dst, const char *src);
struct cqh_counts *cqh_counts_alloc(void);
void cqh_count(struct cqh_counts *c, enum ib_event_type type);
void cqh_session_upstream_removed(struct cqh_session *s,
				  struct ib_device *ibdev);

#endif /* CQH_HARNESS_OBJECT_H */
