/* SPDX-License-Identifier: GPL-2.0 */
/* An allocator for the core that counts, and fails on request. */
#ifndef CQPOOL_TEST_ALLOC_H
#define CQPOOL_TEST_ALLOC_H

#include <cstdlib>

#include "types.h"

struct TestAlloc {
	int calls = 0;
	int live = 0;
	int fail_at = 0; /* fail the fail_at'th call, counting from 1 */

	cqp_alloc iface()
	{
		return cqp_alloc{ zalloc, release, this };
	}

private:
	static void *zalloc(void *ctx, cqp_size_t size)
	{
		auto *a = static_cast<TestAlloc *>(ctx);

		if (++a->calls == a->fail_at)
			return nullptr;
		a->live++;
		return std::calloc(1, size);
	}

	static void release(void *ctx, void *ptr)
	{
		auto *a = static_cast<TestAlloc *>(ctx);

		if (ptr)
			a->live--;
		std::free(ptr);
	}
};

#endif
