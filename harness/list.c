// SPDX-License-Identifier: GPL-2.0
/*
 * CQPOOL_IOC_LIST: devices, pools and CQs from cqpool's own walk
 * (cqpool_test_report(), the one debugfs prints from), turned into the uapi's
 * info structs here, a session's connections from the session, each
 * copied out at the size the caller was built with.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "uapi/linux/cqpool.h"

#include "session.h"
#include "testing.h"

/**
 * struct cqh_lister - CQPOOL_IOC_LIST's report: entries into a buffer
 * @r: the report
 * @buf: room for @room entries of the kernel's size
 * @room: entries @buf holds
 * @count: entries there are
 */
struct cqh_lister {
	struct cqpool_report r;
	void *buf;
	u32 room;
	u32 count;
};

static void cqh_list_add(struct cqpool_report *r, const void *info,
			 size_t size)
{
	struct cqh_lister *l = container_of(r, struct cqh_lister, r);

	if (l->count < l->room)
		memcpy(l->buf + (size_t)l->count * size, info, size);
	l->count++;
}

static void cqh_list_device(struct cqpool_report *r,
			    const struct cqpool_report_device *d)
{
	struct cqpool_device_info info = {
		.num_comp_vectors = d->num_comp_vectors,
		.nvec = d->nvec,
		.max_cqe = d->max_cqe,
		.max_cq = d->max_cq,
		.pools = d->pools,
		.cqs = d->cqs,
		.cqes = d->cqes,
		.reserved_cqes = d->reserved_cqes,
		.users = d->users,
		.events = d->events,
		.delivered = d->delivered,
		.masked = d->masked,
		.upstream_cqs = d->upstream_cqs,
		.upstream_cqes = d->upstream_cqes,
		.upstream_used = d->upstream_used,
	};

	strscpy(info.name, d->name, sizeof(info.name));
	cqh_list_add(r, &info, sizeof(info));
}

static void cqh_list_pool(struct cqpool_report *r,
			  const struct cqpool_report_pool *p)
{
	struct cqpool_pool_info info = {
		.poll_ctx = p->poll_ctx,
		.flags = p->flags,
		.cqs = p->cqs,
		.idle_cqs = p->idle_cqs,
		.cqes = p->cqes,
		.reserved_cqes = p->reserved_cqes,
		.users = p->users,
	};

	strscpy(info.device, p->device, sizeof(info.device));
	strscpy(info.name, p->name, sizeof(info.name));
	if (p->owned)
		info.flags |= CQPOOL_POOL_INFO_OWNED;
	if (p->broken)
		info.flags |= CQPOOL_POOL_INFO_BROKEN;
	cqh_list_add(r, &info, sizeof(info));
}

static void cqh_list_cq(struct cqpool_report *r,
			const struct cqpool_report_cq *c)
{
	struct cqpool_cq_info info = {
		.cq_id = c->cq_id,
		.vector = c->vector,
		.cqe = c->cqe,
		.reserved_cqes = c->reserved_cqes,
		.users = c->users,
		.age_ms = c->age_ms,
		.idle_ms = c->idle_ms,
		.events = c->events,
		.delivered = c->delivered,
	};

	strscpy(info.device, c->device, sizeof(info.device));
	strscpy(info.pool, c->pool, sizeof(info.pool));
	cqh_list_add(r, &info, sizeof(info));
}

static void cqh_list_conn(void *l, const struct cqpool_conn_info *info)
{
	cqh_list_add(&((struct cqh_lister *)l)->r, info, sizeof(*info));
}

/* Copies @n entries of @ksize bytes out as entries of @usize bytes. */
static int cqh_list_copy(void __user *dst, const void *src, u32 n,
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

int cqh_session_list(struct cqh_session *s, void *arg)
{
	static const size_t sizes[] = {
		[CQPOOL_LIST_DEVICES] = sizeof(struct cqpool_device_info),
		[CQPOOL_LIST_POOLS] = sizeof(struct cqpool_pool_info),
		[CQPOOL_LIST_CQS] = sizeof(struct cqpool_cq_info),
		[CQPOOL_LIST_CONNS] = sizeof(struct cqpool_conn_info),
	};
	static const size_t ver0[] = {
		[CQPOOL_LIST_DEVICES] = CQPOOL_DEVICE_INFO_SIZE_VER0,
		[CQPOOL_LIST_POOLS] = CQPOOL_POOL_INFO_SIZE_VER0,
		[CQPOOL_LIST_CQS] = CQPOOL_CQ_INFO_SIZE_VER0,
		[CQPOOL_LIST_CONNS] = CQPOOL_CONN_INFO_SIZE_VER0,
	};
	struct cqpool_list *a = arg;
	struct cqh_lister l = {};
	size_t ksize;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(ver0) != ARRAY_SIZE(sizes));
	if (a->what >= ARRAY_SIZE(sizes) || a->pad ||
	    a->entry_size < ver0[a->what] || a->entry_size > PAGE_SIZE ||
	    a->count > CQPOOL_MAX_LIST)
		return -EINVAL;
	ksize = sizes[a->what];
	l.room = a->count;
	if (l.room) {
		l.buf = kvcalloc(l.room, ksize, GFP_KERNEL_ACCOUNT);
		if (!l.buf)
			return -ENOMEM;
	}
	if (a->what == CQPOOL_LIST_DEVICES)
		l.r.device = cqh_list_device;
	else if (a->what == CQPOOL_LIST_POOLS)
		l.r.pool = cqh_list_pool;
	else if (a->what == CQPOOL_LIST_CQS)
		l.r.cq = cqh_list_cq;
	if (a->what == CQPOOL_LIST_CONNS)
		cqh_session_conns(s, cqh_list_conn, &l);
	else
		cqpool_test_report(&l.r);

	ret = cqh_list_copy(u64_to_user_ptr(a->entries), l.buf,
			    min(l.count, l.room), ksize, a->entry_size);
	kvfree(l.buf);
	a->count = l.count;
	return ret;
}
