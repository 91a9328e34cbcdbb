// SPDX-License-Identifier: GPL-2.0
/*
 * What the C++ core gets from the kernel: memory, and its errno values.
 */
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/slab.h>

#include "cqpool_internal.h"

static_assert(sizeof(cqp_u32) == sizeof(u32));
static_assert(sizeof(cqp_u64) == sizeof(u64));
static_assert(CQP_OK == 0);
static_assert(CQP_ENOMEM == -ENOMEM);
static_assert(CQP_ENODEV == -ENODEV);
static_assert(CQP_EINVAL == -EINVAL);
static_assert(CQP_ENOSPC == -ENOSPC);
static_assert(CQP_ERANGE == -ERANGE);
static_assert(CQP_ELOOP == -ELOOP);

static void *cqpool_core_zalloc(void *ctx, size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

static void cqpool_core_free(void *ctx, void *ptr)
{
	kfree(ptr);
}

/* The core allocates only from process context, where GFP_KERNEL is fine. */
const struct cqp_alloc cqpool_core_alloc = {
	.zalloc = cqpool_core_zalloc,
	.free = cqpool_core_free,
};

