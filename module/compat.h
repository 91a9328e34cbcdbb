/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels cqpool builds for (Debian 12's 6.1 and
 * 6.12), in one place, keyed on the CQPOOL_HAVE_* features Kbuild finds
 * in the headers.
 */
#ifndef CQPOOL_COMPAT_H
#define CQPOOL_COMPAT_H

#include <linux/slab.h>
#include <linux/shrinker.h>
#include <rdma/ib_verbs.h>

/*
 * Kernel-side CQ resize, which only an owned pool's CQPOOL_F_RESIZE uses:
 * whether the kernel has it (Kbuild's CQPOOL_HAVE_KERNEL_RESIZE; upstream
 * made CQ resize a user-space verb in 2026), and the resize, which calls
 * the driver as ib_resize_cq() does but past its check of @cq->shared:
 * cqpool is the one user allowed to resize its shared CQs, and clearing
 * the flag for the call would let a consumer's own resize in meanwhile.
 */
#ifdef CQPOOL_HAVE_KERNEL_RESIZE
static inline bool cqpool_kernel_resize(void)
{
	return true;
}

static inline int cqpool_resize_cq(struct ib_cq *cq, u32 size)
{
	return cq->device->ops.resize_cq(cq, size, NULL);
}
#else
static inline bool cqpool_kernel_resize(void)
{
	return false;
}

/* Never planned: no pool opts in where the kernel cannot resize. */
static inline int cqpool_resize_cq(struct ib_cq *cq, u32 size)
{
	WARN_ON_ONCE(1);
	return -EOPNOTSUPP;
}
#endif

/*
 * A shrinker of @count and @scan, registered; NULL if that failed.  6.7
 * made shrinkers objects the kernel allocates (shrinker_alloc()); before,
 * the caller owned the struct and register_shrinker() took it.
 */
static inline struct shrinker *
cqpool_shrinker_create(unsigned long (*count)(struct shrinker *,
					      struct shrink_control *),
		       unsigned long (*scan)(struct shrinker *,
					     struct shrink_control *),
		       const char *name)
{
	struct shrinker *s;

#ifdef CQPOOL_HAVE_SHRINKER_ALLOC
	s = shrinker_alloc(0, "%s", name);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	shrinker_register(s);
#else
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	if (register_shrinker(s, "%s", name)) {
		kfree(s);
		return NULL;
	}
#endif
	return s;
}

/* Unregisters and frees a shrinker of cqpool_shrinker_create(). */
static inline void cqpool_shrinker_destroy(struct shrinker *s)
{
#ifdef CQPOOL_HAVE_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(s);
#endif
}

#endif /* CQPOOL_COMPAT_H */
