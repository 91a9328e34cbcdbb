// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the C++ core's vector ledger, run in kernel context with the
 * kernel's allocator and code generation.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "core/vectors.h"

static void *kunit_core_zalloc(void *ctx, size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

static void kunit_core_free(void *ctx, void *ptr)
{
	kfree(ptr);
}

static const struct cqp_alloc kunit_alloc = {
	.zalloc = kunit_core_zalloc,
	.free = kunit_core_free,
};

/* Fails the @fail_at'th allocation (counting from 1), then succeeds. */
struct failing_alloc {
	int calls;
	int fail_at;
};

static void *failing_zalloc(void *ctx, size_t size)
{
	struct failing_alloc *fa = ctx;

	if (++fa->calls == fa->fail_at)
		return NULL;
	return kzalloc(size, GFP_KERNEL);
}

static struct cqp_vectors *ledger_new(struct kunit *test, unsigned int nvec)
{
	struct cqp_vectors *v = cqp_vectors_create(&kunit_alloc, nvec);

	KUNIT_ASSERT_NOT_NULL(test, v);
	return v;
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
	struct cqp_vectors *v = ledger_new(test, 3);

	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, 0), 0U);
	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, 4), 1U);
	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, 302), 2U);
	cqp_vectors_destroy(v);
}

static void no_hint_picks_least_loaded_vector(struct kunit *test)
{
	struct cqp_vectors *v = ledger_new(test, 3);

	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, -1), 0U);
	KUNIT_EXPECT_EQ(test, cqp_vectors_charge(v, 0, 100), 0);
	KUNIT_EXPECT_EQ(test, cqp_vectors_charge(v, 1, 50), 0);
	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, -1), 2U);
	KUNIT_EXPECT_EQ(test, cqp_vectors_charge(v, 2, 60), 0);
	KUNIT_EXPECT_EQ(test, cqp_vectors_pick(v, -1), 1U);
	cqp_vectors_destroy(v);
}

static void bad_charges_change_nothing(struct kunit *test)
{
	struct cqp_vectors *v = ledger_new(test, 2);

	KUNIT_EXPECT_EQ(test, cqp_vectors_charge(v, 2, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, cqp_vectors_charge(v, 1, 10), 0);
	KUNIT_EXPECT_EQ(test, cqp_vectors_discharge(v, 1, 11), -ERANGE);
	KUNIT_EXPECT_EQ(test, cqp_vectors_load(v, 1), 10ULL);
	KUNIT_EXPECT_EQ(test, cqp_vectors_discharge(v, 1, 10), 0);
	KUNIT_EXPECT_EQ(test, cqp_vectors_load(v, 1), 0ULL);
	cqp_vectors_destroy(v);
}

static void failed_allocation_leaks_nothing(struct kunit *test)
{
	int fail_at;

	/* Each allocation of create() fails once; kmemleak sees the rest. */
	for (fail_at = 1; fail_at <= 2; fail_at++) {
		struct failing_alloc fa = { .fail_at = fail_at };
		const struct cqp_alloc alloc = {
			.zalloc = failing_zalloc,
			.free = kunit_core_free,
			.ctx = &fa,
		};

		KUNIT_EXPECT_NULL(test, cqp_vectors_create(&alloc, 4));
		KUNIT_EXPECT_EQ(test, fa.calls, fail_at);
	}
}

static struct kunit_case core_vectors_cases[] = {
	KUNIT_CASE(nvec_is_capped_by_online_cpus),
	KUNIT_CASE(hint_maps_modulo_vector_count),
	KUNIT_CASE(no_hint_picks_least_loaded_vector),
	KUNIT_CASE(bad_charges_change_nothing),
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
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(CQPOOL_HARNESS);
