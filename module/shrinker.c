// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pressure: when the kernel reclaims, the pools free their idle
 * CQs at once instead of after the idle timeout (upstream's pool never
 * frees a CQ before its device goes).  The shrinker counts what could go
 * and kicks each pool's reaper; the CQs are freed from cqpool's
 * workqueue, never in the reclaim itself, which may run under locks that
 * freeing a CQ takes.
 */
#include "compat.h"
#include "cqpool_internal.h"

static struct shrinker *cqpool_shrinker;

/*
 * @fn(pool) summed over every pool.  Reclaim may run in a thread that
 * holds one of these locks (an allocation under cqpool_devices_mutex or a
 * device's lock), so a lock taken now is passed over, not waited for.
 */
static unsigned long cqpool_shrink_walk(unsigned long (*fn)(struct cqpool *))
{
	struct cqpool_dev *cdev;
	struct cqpool *pool;
	unsigned long n = 0;

	if (!cqpool_devices_trylock())
		return 0;
	list_for_each_entry(cdev, cqpool_devices_list(), node) {
		if (!mutex_trylock(&cdev->lock))
			continue;
		list_for_each_entry(pool, &cdev->pools, node)
			n += fn(pool);
		mutex_unlock(&cdev->lock);
	}
	cqpool_devices_unlock();
	return n;
}

static unsigned long cqpool_shrink_count(struct shrinker *s,
					 struct shrink_control *sc)
{
	return cqpool_shrink_walk(cqpool_pool_idle_cqs) ? : SHRINK_EMPTY;
}

static unsigned long cqpool_shrink_scan(struct shrinker *s,
					struct shrink_control *sc)
{
	return cqpool_shrink_walk(cqpool_pool_shrink) ? : SHRINK_STOP;
}

int cqpool_shrinker_init(void)
{
	cqpool_shrinker = cqpool_shrinker_create(cqpool_shrink_count,
						 cqpool_shrink_scan,
						 "cqpool-idle-cqs");
	return cqpool_shrinker ? 0 : -ENOMEM;
}

void cqpool_shrinker_exit(void)
{
	cqpool_shrinker_destroy(cqpool_shrinker);
}
