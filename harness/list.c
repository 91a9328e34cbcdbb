// SPDX-License-Identifier: GPL-2.0
/*
 * CQPOOL_IOC_LIST: devices, pools and CQs from cqpool's own walk
 * (cqpool_report(), the one debugfs prints from), a session's
 * connections from the session, each as its uapi info struct, copied out
 * at the size the caller was built with.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/cqpool.h>

#include "cqpool_harness.h"
#include "session.h"

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

static void cqpool_list_conn(void *l, const struct cqpool_conn_info *info)
{
	cqpool_list_add(&((struct cqpool_lister *)l)->r, info, sizeof(*info));
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
	static const size_t ver0[] = {
		[CQPOOL_LIST_DEVICES] = CQPOOL_DEVICE_INFO_SIZE_VER0,
		[CQPOOL_LIST_POOLS] = CQPOOL_POOL_INFO_SIZE_VER0,
		[CQPOOL_LIST_CQS] = CQPOOL_CQ_INFO_SIZE_VER0,
		[CQPOOL_LIST_CONNS] = CQPOOL_CONN_INFO_SIZE_VER0,
	};
	struct cqpool_list *a = arg;
	struct cqpool_lister l = {};
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
		l.r.device = cqpool_list_device;
	else if (a->what == CQPOOL_LIST_POOLS)
		l.r.pool = cqpool_list_pool;
	else if (a->what == CQPOOL_LIST_CQS)
		l.r.cq = cqpool_list_cq;
	if (a->what == CQPOOL_LIST_CONNS)
		cqpool_session_conns(s, cqpool_list_conn, &l);
	else
		cqpool_report(&l.r);

	ret = cqpool_list_copy(u64_to_user_ptr(a->entries), l.buf,
			       min(l.count, l.room), ksize, a->entry_size);
	kvfree(l.buf);
	a->count = l.count;
	return ret;
}
