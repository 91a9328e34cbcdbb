/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement new, the only form of new the core uses: memory comes from a
 * struct cqp_alloc, never from a global operator new (the kernel has none).
 */
#ifndef CQPOOL_CORE_NEW_H
#define CQPOOL_CORE_NEW_H

#include "types.h"

inline void *operator new(cqp_size_t, void *where) noexcept
{
	return where;
}

namespace cqp {

/* Construct a T in zeroed memory from @alloc; nullptr when none is left. */
template <typename T, typename... Args>
T *make(const cqp_alloc &alloc, Args &&...args)
{
	void *mem = alloc.zalloc(alloc.ctx, sizeof(T));

	return mem ? new (mem) T(static_cast<Args &&>(args)...) : nullptr;
}

template <typename T> void unmake(const cqp_alloc &alloc, T *obj)
{
	if (!obj)
		return;
	obj->~T();
	alloc.free(alloc.ctx, obj);
}

} // namespace cqp

#endif /* CQPOOL_CORE_NEW_H */
