// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C++ core's choice of vector, run in kernel context with
 * cqpool.ko's allocator and the kernel's code generation.
 */
#include <kunit/test.h>

#include "core/pool.h"
#include "core/vectors.h"
#include "testing.h"

/*
 * cqpool.ko's allocator, but for the @fail_at'th allocation (counting
 * from 1), which fails.
 */
struct failing_alloc {
	int calls;
	int fail_at;
};

static void *failing_zalloc(void *ctx, size_t size)
{
	const struct cqp_alloc *real = cqpool_test_allocator();
	struct failing_alloc *fa = ctx;

	if (++fa->calls == fa->fail_at)
		return NULL;
	return real->zalloc(real->ctx, size);
}

static void failing_free(void *ctx, void *ptr)
{
	const struct cqp_alloc *real = cqpool_test_allocator();

	real->free(real->ctx, ptr);
}

/* A ledger of @nvec vectors with one CQ of 1000 entries on each. */
static struct cqp_pool *ledger_new(struct kunit *test, unsigned int nvec,
				   struct cqp_cq *cqs)
{
	const struct cqp_pool_params p = { .nvec = nvec, .max_cqe = 1000 };
	struct cqp_pool *pool = cqp_pool_create(cqpool_test_allocator(), &p);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, pool);
	for (i = 0; i < nvec; i++)
		KUNIT_ASSERT_EQ(test, cqp_pool_add(pool, &cqs[i], i, 1000, 0),
				0);
	return pool;
}

/* Reserves @nr on vector @vec, which has room. */
static void reserve_on(struct kunit *test, struct cqp_pool *pool,
		       unsigned int vec, unsigned int nr)
{
	struct cqp_plan plan;
	struct cqp_cq *cq;

	KUNIT_ASSERT_EQ(test, cqp_pool_reserve(pool, vec, nr, &cq, &plan), 0);
	KUNIT_EXPECT_EQ(test, cq->vec, vec);
}

static void ledger_free(struct kunit *test, struct cqp_pool *pool,
			struct cqp_cq *cqs, unsigned int nvec)
{
	unsigned int i;

	/* One entry a user, then the last user's rest. */
	for (i = 0; i < nvec; i++) {
		while (cqs[i].users) {
			u32 nr = cqs[i].users > 1 ? 1 : cqs[i].reserved;

			KUNIT_ASSERT_EQ(test,
					cqp_pool_release(pool, &cqs[i], nr, 0),
					0);
		}
	}
	while (cqp_pool_take_idle(pool))
		;
	KUNIT_EXPECT_EQ(test, cqp_pool_destroy(pool), 0);
}

static void nvec_is_capped_by_online_cpus(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, cqp_nvec(16, 2), 2U);
	KUNIT_EXPECT_EQ(test, cqp_nvec(1, 8), 1U);
	KUNIT_EXPECT_EQ(test, cqp_nvec(4, 4), 4U);
	KUNIT_EXPECT_EQ(test, cqp_nvec(0, 4), 1U);
}

static void hint_maps_modulo_vector_count(struct kunit *test)
{
	struct cqp_cq cqs[3];
	struct cqp_pool *pool = ledger_new(test, 3, cqs);

	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, 0, 0), 0U);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, 4, 0), 1U);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, 302, 0), 2U);
	ledger_free(test, pool, cqs, 3);
}

static void no_hint_picks_least_reserved_vector(struct kunit *test)
{
	struct cqp_cq cqs[3];
	struct cqp_pool *pool = ledger_new(test, 3, cqs);

	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, -1, 0), 0U);
	reserve_on(test, pool, 0, 100);
	reserve_on(test, pool, 1, 50);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, -1, 0), 2U);
	reserve_on(test, pool, 2, 60);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, -1, 0), 1U);
	/* CPUs went offline: vector 2 is not among those used. */
	reserve_on(test, pool, 1, 60);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, -1, 2), 0U);
	KUNIT_EXPECT_EQ(test, cqp_pool_pick_vector(pool, 5, 2), 1U);
	ledger_free(test, pool, cqs, 3);
}

static void failed_allocation_leaks_nothing(struct kunit *test)
{
	const struct cqp_pool_params p = { .nvec = 4, .max_cqe = 1000 };
	int fail_at;

	/* Each allocation of create() fails once; kmemleak sees the rest. */
	for (fail_at = 1; fail_at <= 2; fail_at++) {
		struct failing_alloc fa = { .fail_at = fail_at };
		const struct cqp_alloc alloc = {
			.zalloc = failing_zalloc,
			.free = failing_free,
			.ctx = &fa,
		};

		KUNIT_EXPECT_NULL(test, cqp_pool_create(&alloc, &p));
		KUNIT_EXPECT_EQ(test, fa.calls, fail_at);
	}
}

static struct kunit_case core_vectors_cases[] = {
	KUNIT_CASE(nvec_is_capped_by_online_cpus),
	KUNIT_CASE(hint_maps_modulo_vector_count),
	KUNIT_CASE(no_hint_picks_least_reserved_vector),
	KUNIT_CASE(failed_allocation_leaks_nothing),
	{}
};

static struct kunit_suite core_vectors_suite = {
	.name = "cqpool_core_vectors",
	.test_cases = core_vectors_cases,
};

kunit_test_suite(core_vectors_suite);

MODULE_DESCRIPTION("KUnit tests for cqpool");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CQPOOL_HARNESS);
